"""The NumPy builder: the builder protocol (tilec.language.builder) computed over whole blocks.

While a kernel is interpreted, the semantic layer runs on this builder instead of the MLIR one:
every rule (promotion, broadcasting, which conversion an operator means, each check and its
message) is decided above the protocol, once for both modes, and each op here only computes
what its MLIR op means. Integer ops wrap like the GPU's; `//` and `%` truncate toward zero as
in C (x // 0 and x % 0 give 0). Signed 32-bit overflow is recorded per element
(`Block.overflow`) so that a pointer built from an overflowed offset is reported when it is
dereferenced; loads, stores and atomics go through the interpreter's memory model (memory.py),
with its bounds and race checks.

The builder also stands in for the code generator as a builtin's `_semantic`: `debug` (device
asserts always run), `combine_function` and `call_jit`.
"""
from __future__ import annotations

import math as pymath
import time

import numpy as np

from tilec import fp8
from tilec.errors import DeviceAssertionError
from tilec.frontend.checks import as_list, combine_jit
from tilec.interpreter import program
from tilec.interpreter.state import LaunchState, where
from tilec.interpreter.values import Block, numpy_dtype
from tilec.language import builder as protocol
from tilec.language import dtypes as T
from tilec.language.core import SemanticError


def _quiet():
    return np.errstate(all="ignore")


def _flags(*blocks, shape=None):
    """The overflow record of a result computed from `blocks` (None when none overflowed)."""
    present = [b.overflow for b in blocks if b.overflow is not None]
    if not present:
        return None
    out = present[0]
    for f in present[1:]:
        out = out | f
    return out if shape is None else np.broadcast_to(out, shape)


def _same_layout(x: Block, data, flags=None, provenance=...):
    """A result that moves `x`'s elements around (reshape, transpose, ...)."""
    return Block(data, x.elem, flags, x.provenance if provenance is ... else provenance)


# --- conversions ------------------------------------------------------------------------------

# What the GPU's conversions to 16-bit floats return for a NaN. From fp32 (cvt.rn and cvt.rz to
# f16 and bf16, and fp64 rounded toward zero, which goes through fp32): one positive NaN with
# every payload bit set, as the host versions of those conversions in CUDA's cuda_fp16.hpp and
# cuda_bf16.hpp spell out. From fp64 to nearest (cvt.rn.f16.f64, cvt.rn.bf16.f64): the quiet NaN
# with the input's sign (measured on the H200). NumPy keeps the sign and the top payload bits.
_CANONICAL_NAN_BITS = {T.float16: 0x7FFF, T.bfloat16: 0x7FFF}
_QUIET_NAN_BITS = {T.float16: 0x7E00, T.bfloat16: 0x7FC0}


def _narrow_float(values, dst: T.dtype, rounding: str | None):
    """`values` converted to the narrower float type `dst`: to nearest even, or toward zero for
    "rtz" (finite values past the largest finite one become it, as in IEEE 754 and PTX's cvt.rz;
    infinities stay). Each rounds once, from the value itself, as the GPU's conversions do."""
    target = numpy_dtype(dst)
    if dst.is_fp8() and rounding == "rtz":  # e5m2 from f32 (semantic.cast checks)
        return fp8.e5m2_of_halves(_round_toward_zero(values, np.float16), values)
    if dst.is_fp8():
        return fp8.to_fp8(values, dst.name)  # rounding to nearest (semantic.cast checks)
    if rounding == "rtz":
        out = _round_toward_zero(values, target)
    elif dst == T.bfloat16 and values.dtype == np.float64:
        out = _fp64_to_bf16_nearest(values)
    else:
        out = values.astype(target)
    if dst in _CANONICAL_NAN_BITS:
        if values.dtype == np.float64 and rounding != "rtz":
            sign = np.signbit(values).astype(np.uint16) << 15
            nan = (sign | np.uint16(_QUIET_NAN_BITS[dst])).view(target)
        else:
            nan = np.array(_CANONICAL_NAN_BITS[dst], np.uint16).view(target)
        out = np.where(np.isnan(values), nan, out).astype(target)
    return out


def _fp64_to_bf16_nearest(values):
    """fp64 to bf16 rounded once to nearest even (ml_dtypes rounds through fp32, twice): fp32
    rounded toward zero with the last bit set when inexact ("round to odd") keeps enough to
    decide, then bf16's to-nearest-even on the fp32 bits."""
    wide = values.astype(np.float64)
    single = _round_toward_zero(wide, np.float32)
    bits = single.view(np.uint32).copy()
    inexact = (single.astype(np.float64) != wide) & np.isfinite(wide)
    bits |= inexact.astype(np.uint32)
    keep = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    rounded = np.where(np.isfinite(single), (bits + keep) >> 16, bits >> 16).astype(np.uint16)
    return rounded.view(numpy_dtype(T.bfloat16))


def _round_toward_zero(values, target):
    wide = values.astype(np.float64)
    nearest = values.astype(target)
    too_far = np.abs(nearest.astype(np.float64)) > np.abs(wide)
    stepped = np.nextafter(nearest, np.zeros_like(nearest))
    return np.where(too_far, stepped, nearest).astype(target)


def _as_signedness(data, signed: bool):
    """Integer data read as the signed or unsigned type of its width (the same bits)."""
    kind = "i" if signed else "u"
    if data.dtype.kind == kind or data.dtype == np.bool_:
        return data
    return data.view(np.dtype(f"{kind}{data.dtype.itemsize}"))


# --- element-wise ops -------------------------------------------------------------------------

def _int_divide(x, y):
    safe = np.where(y == 0, 1, y)
    q = np.floor_divide(x, safe)
    fix = (np.remainder(x, safe) != 0) & ((x < 0) != (safe < 0))
    return np.where(y == 0, 0, q + fix).astype(x.dtype)  # C truncation; x / 0 gives 0


def _int_remainder(x, y):
    return np.where(y == 0, 0, np.fmod(x, np.where(y == 0, 1, y))).astype(x.dtype)


def _shift_amount(y, width: int, dtype):
    return (y.astype(np.int64) % max(width, 1) if width > 1 else y.astype(np.int64)).astype(dtype)


def _shift_left(x, y, width):
    return np.left_shift(x, _shift_amount(y, width, x.dtype)).astype(x.dtype)


def _shift_right(x, y, width, signed: bool):
    xs = _as_signedness(x, signed)
    return np.right_shift(xs, _shift_amount(y, width, xs.dtype)).view(x.dtype)


def _read_as(fn, signed: bool):
    """The integer op `fn` on both operands' bits read as signed or unsigned, result in the
    operands' own NumPy type."""
    return lambda x, y, w: fn(_as_signedness(x, signed), _as_signedness(y, signed)).view(x.dtype)


# Integer ops: (data of one integer type, its width) -> data. Each reads the bits as the op's
# signedness, as the MLIR op does, whatever the operands' tilec type.
_INT = {
    "addi": lambda x, y, w: np.add(x, y).astype(x.dtype),
    "subi": lambda x, y, w: np.subtract(x, y).astype(x.dtype),
    "muli": lambda x, y, w: np.multiply(x, y).astype(x.dtype),
    "andi": lambda x, y, w: np.bitwise_and(x, y),
    "ori": lambda x, y, w: np.bitwise_or(x, y),
    "xori": lambda x, y, w: np.bitwise_xor(x, y),
    "shli": _shift_left,
    "shrsi": lambda x, y, w: _shift_right(x, y, w, True),
    "shrui": lambda x, y, w: _shift_right(x, y, w, False),
    "divsi": _read_as(_int_divide, True), "divui": _read_as(_int_divide, False),
    "remsi": _read_as(_int_remainder, True), "remui": _read_as(_int_remainder, False),
    "minsi": _read_as(np.minimum, True), "maxsi": _read_as(np.maximum, True),
    "minui": _read_as(np.minimum, False), "maxui": _read_as(np.maximum, False),
}
# i1 arithmetic is arithmetic modulo 2.
_BOOL = {"addi": np.logical_xor, "subi": np.logical_xor, "muli": np.logical_and,
         "andi": np.logical_and, "ori": np.logical_or, "xori": np.logical_xor,
         "minsi": np.logical_or, "maxsi": np.logical_and,  # as signed, true is -1
         "minui": np.logical_and, "maxui": np.logical_or}
# Signed 32-bit ops whose exact result is checked for overflow.
_EXACT = {"addi": np.add, "subi": np.subtract, "muli": np.multiply, "shli": np.left_shift}

# Float ops, computed in the operands' type (fp16 and bf16 as NumPy and ml_dtypes round them).
_FLOAT = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
          "remf": np.fmod, "minimumf": np.minimum, "maximumf": np.maximum, "minnumf": np.fmin,
          "maxnumf": np.fmax}
# Math functions, computed in fp32 for 32 bits or fewer (fp64 in fp64), then rounded.
_MATH2 = {"powf": np.power, "atan2": np.arctan2, "copysign": np.copysign}


def _round_half_away(v):
    return np.copysign(np.floor(np.abs(v) + 0.5), v)


_MATH = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sin": np.sin,
         "cos": np.cos, "sqrt": np.sqrt, "rsqrt": lambda v: 1.0 / np.sqrt(v),
         "erf": np.vectorize(pymath.erf, otypes=[np.float64]),
         "floor": np.floor, "ceil": np.ceil, "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh,
         "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
         "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "expm1": np.expm1,
         "log1p": np.log1p, "log10": np.log10, "cbrt": np.cbrt,
         "erfc": np.vectorize(pymath.erfc, otypes=[np.float64]),
         "trunc": np.trunc, "round": _round_half_away, "rint": np.rint}

_COMPARE = {"eq": np.equal, "ne": np.not_equal, "oeq": np.equal, "une": np.not_equal,
            "olt": np.less, "ole": np.less_equal, "ogt": np.greater, "oge": np.greater_equal,
            "slt": np.less, "sle": np.less_equal, "sgt": np.greater, "sge": np.greater_equal,
            "ult": np.less, "ule": np.less_equal, "ugt": np.greater, "uge": np.greater_equal}

_INT_PREDICATES = frozenset({"slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"})

# The user's name of an atomic (memory.py's messages name it) for each tile.atomic_rmw kind.
_ATOMIC_NAMES = {"fadd": "add", "umax": "max", "umin": "min"}


def _round_to_tf32(values):
    bits = values.astype(np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    return rounded.view(np.float32)


class NumPyBuilder(protocol.Builder):
    """The builder of one interpreted launch (`state`: memory, grid, current program)."""

    debug = True  # device asserts always run in the interpreter

    def __init__(self, state: LaunchState, check_overflow: bool = True):
        self.state = state
        self.check_overflow = check_overflow

    # --- the code generator's part of a builtin's `_semantic` ---
    def combine_function(self, fn):
        jit_fn = combine_jit(fn)
        return lambda args: as_list(program.call_jit(jit_fn, args, {}))

    def call_jit(self, fn, args, kwargs):
        return program.call_jit(fn, args, kwargs)

    def _where(self):
        """(file, line, program id) of the kernel line running, for the memory model's errors."""
        return where(self.state.pid)

    # --- values and shapes ---
    def constant(self, value, ty, shape):
        with _quiet():  # a literal past fp16's range is inf, as the compiled constant
            data = np.array(value).astype(numpy_dtype(ty))
        return Block(np.broadcast_to(data, shape) if shape else data, ty)

    def make_range(self, start, end):
        return Block(np.arange(start, end, dtype=np.int32), T.int32)

    def program_id(self, axis):
        return Block(np.int32(self.state.pid[axis]), T.int32)

    def num_programs(self, axis):
        return Block(np.int32(self.state.grid[axis]), T.int32)

    def splat(self, x, shape):
        return self.broadcast(x, shape)

    def broadcast(self, x, shape):
        return _same_layout(x, np.broadcast_to(x.data, shape), _flags(x, shape=shape))

    def expand_dims(self, x, axis):
        flags = None if x.overflow is None else np.expand_dims(x.overflow, axis)
        return _same_layout(x, np.expand_dims(x.data, axis), flags)

    def reshape(self, x, shape, can_reorder):
        flags = None if x.overflow is None else x.overflow.reshape(shape)
        return _same_layout(x, x.data.reshape(shape), flags)

    def trans(self, x, order):
        flags = None if x.overflow is None else np.transpose(x.overflow, order)
        return _same_layout(x, np.transpose(x.data, order), flags)

    def join(self, a, b):
        return Block(np.stack([a.data, b.data], axis=-1), a.elem)

    def split(self, x):
        return Block(x.data[..., 0], x.elem), Block(x.data[..., 1], x.elem)

    def cat(self, a, b):
        return Block(np.concatenate([a.data, b.data], axis=0), a.elem)

    # --- element-wise ---
    def convert(self, op, x, result):
        dst = result.scalar
        target = numpy_dtype(dst)
        data = x.data
        with _quiet():
            if op in ("bitcast", "retype"):
                # (ascontiguousarray makes a 0-d array 1-d: the shape is put back)
                out = np.ascontiguousarray(data).view(target).reshape(np.shape(data))
                return Block(out, dst, x.overflow, x.provenance if dst.is_ptr() else None)
            if op == "ptr_to_int":
                return Block(data.astype(target), dst, x.overflow)
            if op == "int_to_ptr":
                return Block(data.astype(np.uint64), dst, x.overflow)
            if op in ("truncf", "truncf_rtz"):
                return Block(_narrow_float(data, dst, "rtz" if op == "truncf_rtz" else None),
                             dst)
            if op in ("fptosi", "fptoui"):
                return Block(np.trunc(data.astype(np.float64)).astype(target), dst)
            if op in ("sitofp", "uitofp"):
                return Block(_as_signedness(data, op == "sitofp").astype(target), dst)
            if op in ("extsi", "extui"):
                wide = _as_signedness(data, op == "extsi").astype(
                    np.dtype(f"{'i' if op == 'extsi' else 'u'}{target.itemsize}"))
                return Block(wide.view(target), dst, x.overflow)
            if x.elem.is_fp8() and dst.is_floating() and not dst.is_fp8():
                return Block(fp8.from_fp8(data, x.elem.name, target), dst)
            # extf, trunci
            return Block(data.astype(target), dst, x.overflow if dst.is_int() else None)

    def binary(self, op, a, b, approximate=False):
        ty = a.elem
        shape = np.broadcast_shapes(a.data.shape, b.data.shape)
        with _quiet():
            if op in _FLOAT:
                return Block(_FLOAT[op](a.data, b.data).astype(a.data.dtype), ty)
            if op in _MATH2:
                wide = np.float64 if ty.is_fp64() else np.float32
                return Block(_MATH2[op](a.data.astype(wide), b.data.astype(wide))
                             .astype(a.data.dtype), ty)
            if ty.is_bool():
                if op in ("shli", "shrsi", "shrui", "divsi", "divui", "remsi", "remui"):
                    data = _INT[op](a.data.astype(np.uint8), b.data.astype(np.uint8), 1) != 0
                else:
                    data = _BOOL[op](a.data, b.data)
                return Block(data, ty)
            data = _INT[op](a.data, b.data, ty.int_bitwidth)
            flags = _flags(a, b, shape=shape)
            if self.check_overflow and op in _EXACT and ty.is_int_signed() \
                    and ty.int_bitwidth <= 32:
                exact = _EXACT[op](a.data.astype(np.int64), b.data.astype(np.int64))
                wrapped = exact != data.astype(np.int64)
                flags = wrapped if flags is None else flags | wrapped
        return Block(data, ty, flags)

    def unary(self, op, x, approximate=False):
        with _quiet():
            if op == "negf":
                return Block(-x.data, x.elem)
            if op == "absf":
                return Block(np.abs(x.data), x.elem)
            wide = np.float64 if x.elem.is_fp64() else np.float32  # fp16/bf16 math in fp32
            return Block(_MATH[op](x.data.astype(wide)).astype(x.data.dtype), x.elem)

    def compare(self, predicate, a, b):
        x, y = a.data, b.data
        if predicate in _INT_PREDICATES and x.dtype != np.bool_:
            signed = predicate[0] == "s"
            x, y = _as_signedness(x, signed), _as_signedness(y, signed)
        with _quiet():
            return Block(_COMPARE[predicate](x, y), T.int1)

    def select(self, cond, x, y):
        flags = None
        if x.overflow is not None or y.overflow is not None:
            fx = x.overflow if x.overflow is not None else np.zeros(x.data.shape, bool)
            fy = y.overflow if y.overflow is not None else np.zeros(y.data.shape, bool)
            flags = np.where(cond.data, fx, fy)
        # pointers into two arguments have no single provenance (memory resolves them per lane)
        provenance = x.provenance if y.provenance in (None, x.provenance) else \
            y.provenance if x.provenance is None else None
        return Block(np.where(cond.data, x.data, y.data), x.elem, flags, provenance)

    def fma(self, x, y, z):
        wide = np.longdouble if x.elem.is_fp64() else np.float64
        with _quiet():
            exact = x.data.astype(wide) * y.data.astype(wide) + z.data.astype(wide)
        return Block(exact.astype(x.data.dtype), x.elem)

    def mulhi(self, x, y):
        product = x.data.view(np.uint32).astype(np.uint64) * \
            y.data.view(np.uint32).astype(np.uint64)
        return Block((product >> np.uint64(32)).astype(np.uint32).view(x.data.dtype), x.elem)

    def addptr(self, ptr, offset):
        size = max(ptr.elem.element_ty.primitive_bitwidth // 8, 1)
        with _quiet():
            delta = _as_signedness(offset.data, not offset.elem.is_int_unsigned()) \
                .astype(np.int64) * size
            data = (ptr.data.astype(np.uint64) + delta.astype(np.uint64)).astype(np.uint64)
        return Block(data, ptr.elem, _flags(ptr, offset), ptr.provenance)

    def inline_asm(self, asm, constraints, args, results, is_pure, pack):
        raise SemanticError("tl.inline_asm_elementwise runs on the GPU only: the interpreter "
                            "cannot run PTX; compute the same with tl operations when "
                            "interpreting")

    def special_register(self, name):
        if name == "globaltimer":
            return Block(np.int64(time.perf_counter_ns()), T.int64)
        if name == "smid":
            return Block(np.int32(0), T.int32)  # one "SM": programs run one after another
        raise SemanticError(f"tl.extra.cuda.{name}() runs on the GPU only: the interpreter "
                            "runs each program as one thread of Python")

    def if_(self, cond, then, otherwise, types=()):
        return list((then if bool(cond.data) else otherwise)() or ())

    # --- memory ---
    def make_tensormap(self, base, shape, strides, block_shape, padding):
        # No TMA here: the descriptor's blocks are read and written through pointers, which
        # gives what the compiled kernel's copies give (out-of-bounds elements the padding).
        return None

    def tma_store(self, tensormap, value, offsets, swizzle):
        raise SemanticError("TMA maps exist in compiled kernels only")

    def tma_reduce(self, tensormap, value, offsets, swizzle, kind):
        raise SemanticError("TMA maps exist in compiled kernels only")

    def tma_load(self, tensormap, offsets, ty, swizzle):
        # The interpreter's descriptors have no TMA map: desc.load reads through pointers.
        raise SemanticError("TMA maps exist in compiled kernels only")

    def load(self, ptr, mask, other, cache, evict, volatile):
        return self.state.memory.load(ptr, mask, other, self._where())

    def store(self, ptr, value, mask, cache, evict):
        self.state.memory.store(ptr, value, mask, self.state.linear_pid, self._where())

    def atomic_rmw(self, op, ptr, value, mask, sem, scope):
        return self.state.memory.atomic(_ATOMIC_NAMES.get(op, op), ptr, value, None, mask,
                                        self.state.linear_pid, self._where())

    def atomic_cas(self, ptr, cmp, value, sem, scope):
        return self.state.memory.atomic("cas", ptr, value, cmp, None, self.state.linear_pid,
                                        self._where())

    # --- across a block ---
    def reduce(self, inputs, axis, combine):
        """Pairwise (tree) reduction: log2(n) vectorised calls of the combine function."""
        types = [x.elem for x in inputs]
        arrays = [np.moveaxis(x.data, axis, -1) for x in inputs]

        def merge(left, right):
            out = combine([Block(a, t) for a, t in zip(left + right, types + types)])
            return [o.data for o in out]

        while arrays[0].shape[-1] > 1:
            n = arrays[0].shape[-1]
            half = n // 2
            merged = merge([a[..., :half] for a in arrays], [a[..., half:2 * half]
                                                            for a in arrays])
            if n % 2:  # an odd element left over joins the first partial result
                head = merge([m[..., :1] for m in merged], [a[..., -1:] for a in arrays])
                merged = [np.concatenate([h, m[..., 1:]], axis=-1) for h, m in zip(head, merged)]
            arrays = merged
        return [Block(a[..., 0], t) for a, t in zip(arrays, types)]

    def scan(self, inputs, axis, combine, reverse):
        """Inclusive scan by doubling (Hillis-Steele): log2(n) vectorised combine calls."""
        types = [x.elem for x in inputs]
        arrays = [np.moveaxis(x.data, axis, -1) for x in inputs]
        if reverse:
            arrays = [a[..., ::-1] for a in arrays]
        n, step = arrays[0].shape[-1], 1
        while step < n:
            pairs = [Block(a[..., :n - step], t) for a, t in zip(arrays, types)] + \
                [Block(a[..., step:], t) for a, t in zip(arrays, types)]
            merged = [m.data for m in combine(pairs)]
            arrays = [np.concatenate([a[..., :step], m], axis=-1) for a, m in zip(arrays, merged)]
            step *= 2
        if reverse:
            arrays = [a[..., ::-1] for a in arrays]
        return [Block(np.moveaxis(a, -1, axis), t) for a, t in zip(arrays, types)]

    def sort(self, x, dim, descending):
        data = x.data
        if data.dtype.kind in "iu" and data.dtype != np.bool_:
            data = np.sort(_as_signedness(data, True), axis=dim).view(data.dtype)
        else:
            data = np.sort(data, axis=dim)
        if descending:
            data = np.flip(data, axis=dim)
        return Block(np.ascontiguousarray(data), x.elem)

    def gather(self, src, index, axis):
        return Block(np.take_along_axis(src.data, index.data.astype(np.int64), axis=axis),
                     src.elem)

    def histogram(self, x, num_bins):
        values = x.data.astype(np.int64)
        inside = (values >= 0) & (values < num_bins)
        counts = np.bincount(values[inside], minlength=num_bins)[:num_bins]
        return Block(counts.astype(np.int32), T.int32)

    def dot(self, a, b, acc, precision, max_num_imprecise_acc):
        if a.elem.is_int():
            product = np.matmul(a.data.astype(np.int64), b.data.astype(np.int64))
        elif a.elem.is_fp64():
            product = np.matmul(a.data, b.data)
        else:
            x, y = a.data.astype(np.float32), b.data.astype(np.float32)
            if a.elem.is_fp32() and precision == "tf32":  # tensor cores round inputs to tf32
                x, y = _round_to_tf32(x), _round_to_tf32(y)
            product = np.matmul(x, y)
        with _quiet():
            return Block((product + acc.data).astype(acc.data.dtype), acc.elem)

    # --- hints and debugging ---
    def hint(self, x, name, values):
        return x

    def barrier(self):
        return None

    def print(self, prefix, args, hex):
        pid = self.state.pid
        shown = [np.vectorize(lambda v: f"0x{int(v):x}")(a.data) if hex else a.data
                 for a in args]
        print(f"pid ({pid[0]}, {pid[1]}, {pid[2]}) {prefix}", *shown)

    def assert_(self, cond, msg):
        if not np.all(cond.data):
            raise DeviceAssertionError(f"device_assert failed: {msg}", *self._where())
