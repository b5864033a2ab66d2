"""The MLIR builder: the builder protocol (tilec.language.builder) as `arith`, `math` and `tile`
ops added at the current insertion point and location.

Registered on import as the builder the semantic layer uses whenever no kernel is being
interpreted on the thread.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, math, scf

from tilec.analysis.wgmma import tma_box
from tilec.dialects import tile
from tilec.language import builder as protocol
from tilec.language import dtypes as T
from tilec.language.core import block_of, tensor

AFN = "#arith.fastmath<afn>"  # marks approximate math (`/`, `sqrt`); `div_rn`/`sqrt_rn` omit it

_CONVERT = {"extf": arith.extf, "truncf": arith.truncf, "trunci": arith.trunci,
            "extsi": arith.extsi, "extui": arith.extui, "fptosi": arith.fptosi,
            "fptoui": arith.fptoui, "sitofp": arith.sitofp, "uitofp": arith.uitofp}

_BINARY = {"addf": arith.addf, "subf": arith.subf, "mulf": arith.mulf, "divf": arith.divf,
           "remf": arith.remf, "addi": arith.addi, "subi": arith.subi, "muli": arith.muli,
           "andi": arith.andi, "ori": arith.ori, "xori": arith.xori, "shli": arith.shli,
           "divsi": arith.divsi, "divui": arith.divui, "remsi": arith.remsi,
           "remui": arith.remui, "shrsi": arith.shrsi, "shrui": arith.shrui,
           "minimumf": arith.minimumf, "maximumf": arith.maximumf, "minnumf": arith.minnumf,
           "maxnumf": arith.maxnumf, "minsi": arith.minsi, "maxsi": arith.maxsi,
           "minui": arith.minui, "maxui": arith.maxui,
           "powf": math.powf, "atan2": math.atan2, "copysign": math.copysign}

_UNARY = {"negf": arith.negf, "absf": math.absf,
          "exp": math.exp, "exp2": math.exp2, "log": math.log, "log2": math.log2,
          "sin": math.sin, "cos": math.cos, "sqrt": math.sqrt, "rsqrt": math.rsqrt,
          "erf": math.erf, "floor": math.floor, "ceil": math.ceil, "tan": math.tan,
          "tanh": math.tanh, "sinh": math.sinh, "cosh": math.cosh, "asin": math.asin,
          "acos": math.acos, "atan": math.atan, "asinh": math.asinh, "acosh": math.acosh,
          "atanh": math.atanh, "expm1": math.expm1, "log1p": math.log1p, "log10": math.log10,
          "cbrt": math.cbrt, "erfc": math.erfc, "trunc": math.trunc, "round": math.round,
          "rint": math.roundeven}

_FLOAT_PREDICATES = ("oeq", "une", "olt", "ole", "ogt", "oge")

# tl.extra.cuda's special registers, read by inline asm.
_SPECIAL = {"globaltimer": ("mov.u64 $0, %globaltimer;", T.int64),
            "smid": ("mov.u32 $0, %smid;", T.int32),
            "num_threads": ("mov.u32 $0, %ntid.x;", T.int32)}


def _scalar_attr(value, ty: T.dtype) -> ir.Attribute:
    if ty.is_floating():
        return ir.FloatAttr.get(ty.to_ir(), float(value))
    width = ty.primitive_bitwidth
    value = int(value)
    if width == 1:
        return ir.IntegerAttr.get(ty.to_ir(), int(bool(value)))
    if value >= 2**(width - 1):  # store unsigned values in two's complement
        value -= 2**width
    return ir.IntegerAttr.get(ty.to_ir(), value)


def _fastmath(approximate: bool):
    return ir.Attribute.parse(AFN) if approximate else None


@dataclass
class KernelState:
    """What the builder knows of the kernel it is generating: the target's architecture (sm),
    the function's entry block, and the global scratch parameter once a map asked for it
    (tile.make_tensormap; the maps made so far are its slots)."""
    target_arch: int
    entry: ir.Block
    scratch: ir.Value | None = None
    maps: int = 0


class MLIRBuilder(protocol.Builder):
    def __init__(self):
        self._local = threading.local()

    @contextmanager
    def kernel(self, target_arch: int, entry: ir.Block):
        """Generate one kernel's body (its entry block) for sm_`target_arch`; yields the
        KernelState, whose `scratch` says whether a global scratch parameter was added."""
        outer = getattr(self._local, "state", None)
        self._local.state = state = KernelState(target_arch, entry)
        try:
            yield state
        finally:
            self._local.state = outer

    # --- values and shapes ---
    def constant(self, value, ty, shape):
        result = block_of(shape, ty)
        attr = _scalar_attr(value, ty)
        if shape:
            attr = ir.DenseElementsAttr.get_splat(result.to_ir(), attr)
        return tensor(arith.constant(result.to_ir(), attr), result)

    def make_range(self, start, end):
        return tensor(tile.make_range(start, end), T.block_type(T.int32, [end - start]))

    def program_id(self, axis):
        return tensor(tile.program_id(axis), T.int32)

    def num_programs(self, axis):
        return tensor(tile.num_programs(axis), T.int32)

    def splat(self, x, shape):
        return tensor(tile.splat(x.handle, list(shape)), T.block_type(x.type, shape))

    def broadcast(self, x, shape):
        return tensor(tile.broadcast(x.handle, list(shape)), T.block_type(x.dtype, shape))

    def expand_dims(self, x, axis):
        shape = x.shape
        shape.insert(axis, 1)
        return tensor(tile.expand_dims(x.handle, axis), T.block_type(x.dtype, shape))

    def reshape(self, x, shape, can_reorder):
        return tensor(tile.reshape(x.handle, list(shape), can_reorder),
                      T.block_type(x.dtype, shape))

    def trans(self, x, order):
        shape = [x.shape[d] for d in order]
        return tensor(tile.trans(x.handle, list(order)), T.block_type(x.dtype, shape))

    def join(self, a, b):
        return tensor(tile.join(a.handle, b.handle), T.block_type(a.dtype, a.shape + [2]))

    def split(self, x):
        lhs, rhs = tile.split(x.handle)
        half = block_of(x.shape[:-1], x.dtype)
        return tensor(lhs, half), tensor(rhs, half)

    def cat(self, a, b):
        shape = [a.shape[0] + b.shape[0]] + a.shape[1:]
        return tensor(tile.cat(a.handle, b.handle), T.block_type(a.dtype, shape))

    # --- element-wise ---
    def convert(self, op, x, result):
        rt = result.to_ir()
        if op == "retype":
            return tensor(x.handle, result)
        if op == "truncf_rtz":
            return tensor(tile.fp_to_fp(x.handle, rt, "rtz"), result)
        if op == "bitcast":
            return tensor(tile.bitcast(x.handle, rt), result)
        if op == "ptr_to_int":
            return tensor(tile.ptr_to_int(x.handle, rt), result)
        if op == "int_to_ptr":
            return tensor(tile.int_to_ptr(x.handle, rt), result)
        return tensor(_CONVERT[op](rt, x.handle), result)

    def binary(self, op, a, b, approximate=False):
        if op == "divf":
            return tensor(arith.divf(a.handle, b.handle, fastmath=_fastmath(approximate)),
                          a.type)
        return tensor(_BINARY[op](a.handle, b.handle), a.type)

    def unary(self, op, x, approximate=False):
        if op in ("negf", "absf"):
            return tensor(_UNARY[op](x.handle), x.type)
        return tensor(_UNARY[op](x.handle, fastmath=_fastmath(approximate)), x.type)

    def compare(self, predicate, a, b):
        result = block_of(a.shape, T.int1)
        if predicate in _FLOAT_PREDICATES:
            pred = getattr(arith.CmpFPredicate, predicate.upper())
            return tensor(arith.cmpf(pred, a.handle, b.handle), result)
        return tensor(arith.cmpi(getattr(arith.CmpIPredicate, predicate), a.handle, b.handle),
                      result)

    def select(self, cond, x, y):
        return tensor(arith.select(cond.handle, x.handle, y.handle), x.type)

    def fma(self, x, y, z):
        return tensor(math.fma(x.handle, y.handle, z.handle), x.type)

    def mulhi(self, x, y):
        return tensor(arith.mului_extended(x.handle, y.handle)[1], x.type)

    def addptr(self, ptr, offset):
        return tensor(tile.addptr(ptr.handle, offset.handle), ptr.type)

    def inline_asm(self, asm, constraints, args, results, is_pure, pack):
        shape = args[0].shape if args else []
        types = [block_of(shape, d) for d in results]
        values = tile.elementwise_inline_asm(asm, constraints, [a.handle for a in args],
                                             [t.to_ir() for t in types], bool(is_pure), pack)
        return [tensor(v, t) for v, t in zip(values, types)]

    def special_register(self, name):
        asm, ty = _SPECIAL[name]
        return self.inline_asm(asm, "=r" if ty.primitive_bitwidth == 32 else "=l", [], [ty],
                               False, 1)[0]

    def if_(self, cond, then, otherwise, types=()):
        op = scf.IfOp(cond.handle, [t.to_ir() for t in types], has_else=True)
        for block, emit in ((op.then_block, then), (op.else_block, otherwise)):
            with ir.InsertionPoint(block):
                scf.YieldOp([v.handle for v in emit() or ()])
        return [tensor(r, t) for r, t in zip(op.results, types)]

    # --- memory ---
    def tma_store(self, tensormap, value, offsets, swizzle):
        tile.tma_store(tensormap.handle, value.handle, [o.handle for o in offsets], swizzle)

    def tma_reduce(self, tensormap, value, offsets, swizzle, kind):
        tile.tma_reduce(tensormap.handle, value.handle, [o.handle for o in offsets], swizzle,
                        kind)

    def tma_load(self, tensormap, offsets, ty, swizzle):
        return tensor(tile.tma_load(tensormap.handle, [o.handle for o in offsets], ty.to_ir(),
                                    swizzle), ty)

    def make_tensormap(self, base, shape, strides, block_shape, padding):
        """On sm_90, a map made in the kernel's entry block (not in a loop or branch, so that it
        is written once before any copy reads it) for 2-D blocks TMA and wgmma take, zero
        padded: written into a slot of the kernel's global scratch, a parameter added on the
        first map. None elsewhere (the descriptor then moves through pointers)."""
        state = getattr(self._local, "state", None)
        if state is None or state.target_arch < 90 or padding != "zero" or \
                ir.InsertionPoint.current.block != state.entry:
            return None
        found = tma_box(block_shape, base.dtype.element_ty.primitive_bitwidth)
        if found is None:
            return None
        box, swizzle = found
        if state.scratch is None:
            state.scratch = state.entry.add_argument(tile.ptr_type(ir.IntegerType.get_signless(8)),
                                                     ir.Location.unknown())
        made = tile.make_tensormap(state.scratch, base.handle, [d.handle for d in shape],
                                   [s.handle for s in strides[:-1]], box, swizzle, state.maps)
        state.maps += 1
        return tensor(made, T.tensormap_type()), swizzle

    def load(self, ptr, mask, other, cache, evict, volatile):
        value = tile.load(ptr.handle, None if mask is None else mask.handle,
                          None if other is None else other.handle, cache=cache, evict=evict,
                          is_volatile=bool(volatile))
        return tensor(value, block_of(ptr.shape, ptr.dtype.element_ty))

    def store(self, ptr, value, mask, cache, evict):
        tile.store(ptr.handle, value.handle, None if mask is None else mask.handle, cache=cache,
                   evict=evict)

    def atomic_rmw(self, op, ptr, value, mask, sem, scope):
        result = tile.atomic_rmw(op, ptr.handle, value.handle,
                                 None if mask is None else mask.handle, sem=sem, scope=scope)
        return tensor(result, value.type)

    def atomic_cas(self, ptr, cmp, value, sem, scope):
        return tensor(tile.atomic_cas(ptr.handle, cmp.handle, value.handle, sem=sem,
                                      scope=scope), value.type)

    # --- across a block ---
    @staticmethod
    def _combine_region(op: ir.Operation, inputs, combine) -> None:
        block = op.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            args = [tensor(a, x.dtype) for a, x in zip(block.arguments, inputs + inputs)]
            gpu.yield_([r.handle for r in combine(args)])

    def reduce(self, inputs, axis, combine):
        op = tile.reduce([x.handle for x in inputs], axis)
        self._combine_region(op, inputs, combine)
        shape = [s for i, s in enumerate(inputs[0].shape) if i != axis]
        return [tensor(r, block_of(shape, x.dtype)) for r, x in zip(op.results, inputs)]

    def scan(self, inputs, axis, combine, reverse):
        op = tile.scan([x.handle for x in inputs], axis, reverse)
        self._combine_region(op, inputs, combine)
        return [tensor(r, x.type) for r, x in zip(op.results, inputs)]

    def sort(self, x, dim, descending):
        return tensor(tile.sort(x.handle, dim, bool(descending)), x.type)

    def gather(self, src, index, axis):
        return tensor(tile.gather(src.handle, index.handle, axis),
                      T.block_type(src.dtype, index.shape))

    def histogram(self, x, num_bins):
        return tensor(tile.histogram(x.handle, num_bins), T.block_type(T.int32, [num_bins]))

    def dot(self, a, b, acc, precision, max_num_imprecise_acc):
        return tensor(tile.dot(a.handle, b.handle, acc.handle, precision,
                               max_num_imprecise_acc), acc.type)

    # --- hints and debugging ---
    def hint(self, x, name, values):
        owner = x.handle.owner
        if isinstance(owner, (ir.Operation, ir.OpView)):
            owner.attributes[f"tile.{name}"] = ir.DenseI32ArrayAttr.get([int(v) for v in values])
        return x

    def barrier(self):
        gpu.barrier()

    def print(self, prefix, args, hex):
        if not args:
            tile.print_(prefix, None, hex)
        for arg in args:
            if arg.dtype.is_int_unsigned() and not arg.dtype.is_bool() and not hex \
                    and arg.dtype.int_bitwidth < 64:
                # tile.print formats integers as signed: zero-extended into a wider signed
                # type the value prints right (64-bit values at or past 2^63 still print
                # negative).
                wider = T.int32 if arg.dtype.int_bitwidth < 32 else T.int64
                arg = self.convert("extui", arg, block_of(arg.shape, wider))
            tile.print_(prefix, arg.handle, hex)

    def assert_(self, cond, msg):
        tile.assert_(cond.handle, msg)


COMPILER = MLIRBuilder()
protocol.register_compiler(COMPILER)
