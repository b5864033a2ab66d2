"""The state of warp distribution: the value map, the thread's ids and the rule table.

Each tensor of the `tilegpu` program becomes a `Distributed` value: its layout, its shape and
the SSA values this thread holds, one per register (the layout's register order). Scalars map
to one SSA value. A rule (`@rule("tile.load")`) lowers one op from its operands' distributed
values; a missing rule is an error naming the op and its location.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mlir import ir
from mlir.dialects import arith, llvm, nvvm

from tilec.analysis.axis_lattice import AxisInfoMap
from tilec.analysis.layouts import LinearLayout, to_linear
from tilec.analysis.shared_memory import BYTES_ATTR, OFFSET_ATTR
from tilec.dialects import tile, tilegpu
from tilec.dialects.tilegpu import Layout


class LoweringError(Exception):
    def __init__(self, op: ir.Operation, message: str):
        super().__init__(message)
        self.op = op


@dataclass
class Distributed:
    layout: Layout
    shape: tuple[int, ...]
    values: list[ir.Value]


RULES: dict[str, Callable] = {}


def rule(*names: str):
    def register(fn):
        for name in names:
            RULES[name] = fn
        return fn
    return register


def i32(value: int) -> ir.Value:
    return arith.constant(ir.IntegerType.get_signless(32), value)


def vector_of(values: list[ir.Value], element: ir.Type) -> ir.Value:
    """`values` (of type `element`) as one LLVM vector, for a vector store or mma operand."""
    vector = llvm.mlir_undef(ir.VectorType.get([len(values)], element))
    for i, value in enumerate(values):
        vector = llvm.insertelement(vector, value, i32(i))
    return vector


FP8 = dict(zip(tile.FP8_TYPES, ("e4m3", "e5m2")))  # MLIR's fp8 types and PTX's names of them
is_fp8 = tile.is_fp8


def scalar_type(t: ir.Type) -> ir.Type:
    """The per-thread type of one element of `t` (pointers become LLVM global pointers, fp8
    values bytes: LLVM has no fp8 type, and PTX converts them only in registers of bits)."""
    element = tile.element_type(t)
    if tile.is_ptr(element):
        return ir.Type.parse(f"!llvm.ptr<{tile.ptr_addrspace(element)}>")
    if is_fp8(element):
        return ir.IntegerType.get_signless(8)
    return element


def memory_type(t: ir.Type) -> ir.Type:
    """The type an element of type `t` has in memory (global or shared): booleans as bytes."""
    if isinstance(t, ir.IntegerType) and t.width == 1 or is_fp8(t):
        return ir.IntegerType.get_signless(8)
    return t


def to_memory(value: ir.Value) -> ir.Value:
    """`value` as it is written to memory (see memory_type)."""
    stored = memory_type(value.type)
    return arith.extui(stored, value) if stored != value.type else value


def from_memory(value: ir.Value, t: ir.Type) -> ir.Value:
    """A value read from memory back as type `t` (see memory_type)."""
    return arith.trunci(t, value) if value.type != t else value


def value_type(t: ir.Type) -> ir.Type:
    """The type of a scalar (non-tensor) value after lowering."""
    return scalar_type(t)


def cluster_rank() -> ir.Value:
    """The CTA's rank in its thread block cluster (%cluster_ctarank), as an i32."""
    return ir.Operation.create("nvvm.read.ptx.sreg.cluster.ctarank",
                               results=[ir.IntegerType.get_signless(32)]).result


class Lowering:
    def __init__(self, num_warps: int, threads_per_warp: int = 32, arch: int = 90,
                 num_ctas: int = 1):
        self.num_warps = num_warps
        self.num_ctas = num_ctas  # CTAs per program: above 1, a program is a cluster
        self.threads_per_warp = threads_per_warp
        self.arch = arch  # the compute capability (90 for sm_90a): which instructions exist
        self.map: dict[ir.Value, object] = {}
        self.prologue: ir.InsertionPoint | None = None
        self.lane: ir.Value | None = None
        self.warp: ir.Value | None = None
        self._offsets: dict[tuple, list[ir.Value]] = {}
        self.memo: dict = {}  # prologue values of the rules, by key
        self.current: ir.Operation | None = None  # the op being lowered
        # the axis analysis of the kernel being lowered (analysis/axis_info.py), if run
        self.axis: AxisInfoMap | None = None
        # (named barrier id, threads) while lowering a warp-specialised region, whose
        # barriers wait for that region's threads only; None: every thread (bar.sync 0)
        self.barrier_group: tuple[int, int] | None = None

    # --- values --------------------------------------------------------------------------

    def get(self, value: ir.Value):
        if value not in self.map:
            raise KeyError(f"no lowered value for {value}")
        return self.map[value]

    def set(self, value: ir.Value, lowered) -> None:
        self.map[value] = lowered

    def layout_of(self, value: ir.Value):
        return tilegpu.tensor_layout(value.type), tuple(value.type.shape)

    def flatten(self, lowered) -> list[ir.Value]:
        return list(lowered.values) if isinstance(lowered, Distributed) else [lowered]

    def unflatten(self, template: ir.Value, values: list[ir.Value]) -> tuple[object, int]:
        """The lowered form of `template`'s type from the front of `values`, and how many
        values it took."""
        if isinstance(template.type, ir.RankedTensorType):
            layout, shape = self.layout_of(template)
            n = to_linear(layout, shape).num_registers
            return Distributed(layout, shape, list(values[:n])), n
        return values[0], 1

    def flat_types(self, value: ir.Value) -> list[ir.Type]:
        if isinstance(value.type, ir.RankedTensorType):
            layout, shape = self.layout_of(value)
            n = to_linear(layout, shape).num_registers
            return [scalar_type(value.type)] * n
        return [value_type(value.type)]

    # --- thread coordinates ----------------------------------------------------------------

    def start_function(self) -> None:
        """Compute the lane and warp ids at the current insertion point (the kernel's top);
        later prologue values (per-layout thread offsets) go before an anchor placed here, so
        they dominate every use."""
        if True:
            index = ir.IndexType.get()
            tid_index = ir.Operation.create(
                "gpu.thread_id", results=[index],
                attributes={"dimension": ir.Attribute.parse("#gpu<dim x>")}).result
            tid = arith.index_cast(ir.IntegerType.get_signless(32), tid_index)
            shift = (self.threads_per_warp - 1).bit_length()
            self.lane = arith.andi(tid, i32(self.threads_per_warp - 1))
            # The warp index read from lane 0 (shfl.sync.idx): ptxas then knows it is the same
            # in every lane, so what is computed from it alone (a warpgroup's wgmma descriptors,
            # warp offsets) lives in uniform registers, off the vector datapath that wgmma's
            # accumulators keep busy.
            warp = arith.shrui(tid, i32(shift))
            self.warp = ir.Operation.create(
                "nvvm.shfl.sync", results=[tid.type],
                operands=[i32(-1), warp, i32(0), i32(self.threads_per_warp - 1)],
                attributes={"kind": ir.Attribute.parse("#nvvm<shfl_kind idx>")}).result
            anchor = i32(0)
        self.prologue = ir.InsertionPoint(anchor.owner)

    def cluster_rank(self) -> ir.Value:
        """The CTA's rank in its cluster (%cluster_ctarank), read once in the prologue. Read
        where a rule needs it, the read can land between a wgmma and its wait_group, and ptxas
        then serialises the kernel's wgmma (C7514)."""
        if "cluster_rank" not in self.memo:
            with self.prologue:
                self.memo["cluster_rank"] = cluster_rank()
        return self.memo["cluster_rank"]

    def scratch(self, nbytes: int) -> ir.Value:
        """The address of the shared memory the op being lowered may use (`nbytes` of it): the
        range tilegpu-allocate-shared-memory gave it. Barriers before it are tilegpu-membar's;
        the op's own, between its writes and reads, are the rule's."""
        op = self.current
        if OFFSET_ATTR not in op.attributes:
            raise LoweringError(op, f"'{op.name}' needs {nbytes} bytes of shared memory but has "
                                "no offset: run tilegpu-allocate-shared-memory and tilegpu-membar "
                                "before convert-tilegpu-to-llvm")
        allocated = ir.IntegerAttr(op.attributes[BYTES_ATTR]).value
        if nbytes > allocated:
            raise LoweringError(op, f"'{op.name}' needs {nbytes} bytes of shared memory but "
                                f"was allocated {allocated}")
        offset = ir.IntegerAttr(op.attributes[OFFSET_ATTR]).value
        if not offset:
            return self.shared_base()
        byte = ir.IntegerType.get_signless(8)
        return llvm.getelementptr(ir.Type.parse("!llvm.ptr<3>"), self.shared_base(), [],
                                  [offset], byte, 0)

    def shared_base(self) -> ir.Value:
        """The address of the kernel's dynamic shared memory (`@global_smem`)."""
        if "smem" not in self.memo:
            with self.prologue:
                self.memo["smem"] = ir.Operation.create(
                    "llvm.mlir.addressof", results=[ir.Type.parse("!llvm.ptr<3>")],
                    attributes={"global_name": ir.FlatSymbolRefAttr.get("global_smem")}).result
        return self.memo["smem"]

    def thread_offsets(self, layout, shape) -> list[ir.Value | None]:
        """Per dimension, the coordinate offset this thread adds to every register's (None
        where it is zero): the lane and warp parts of the linear layout."""
        linear = to_linear(layout, tuple(shape))
        if not linear.is_disjoint():
            raise NotImplementedError(f"layout {layout.text()} mixes bits; not supported yet")
        return self.linear_offsets(linear)

    def linear_offsets(self, linear: LinearLayout) -> list[ir.Value | None]:
        """thread_offsets of a linear layout given as such (disjoint bases)."""
        key = linear
        if key in self._offsets:
            return self._offsets[key]
        offsets = []
        with self.prologue:
            for d in range(len(linear.shape)):
                total = None
                for source, bases in ((self.lane, linear.lane), (self.warp, linear.warp)):
                    for bit, basis in enumerate(bases):
                        if not basis[d]:
                            continue
                        picked = arith.andi(arith.shrui(source, i32(bit)), i32(1))
                        term = arith.muli(picked, i32(basis[d]))
                        total = term if total is None else arith.addi(total, term)
                offsets.append(total)
        self._offsets[key] = offsets
        return offsets

    def barrier(self) -> None:
        """A barrier for every thread running the code being lowered (the whole program, or
        one side of a warp specialisation: `barrier_group`)."""
        if self.barrier_group is None:
            ir.Operation.create("gpu.barrier")
            return
        ident, threads = self.barrier_group
        nvvm.BarrierOp(None, barrierId=i32(ident), numberOfThreads=i32(threads))

    def lower_block(self, block: ir.Block) -> None:
        for op in block.operations:
            self.lower_op(op.operation)

    def lower_op(self, op: ir.Operation) -> None:
        fn = RULES.get(op.name)
        if fn is None:
            fn = RULES.get(op.name.split(".")[0] + ".*")
        if fn is None:
            raise LoweringError(op, f"no lowering rule for '{op.name}' yet")
        outer, self.current = self.current, op
        with op.location:
            try:
                results = fn(self, op)
            except LoweringError:
                raise
            except NotImplementedError as err:
                raise LoweringError(op, f"cannot lower '{op.name}' yet: {err}") from None
            finally:
                self.current = outer
        for original, lowered in zip(op.results, results or []):
            self.set(original, lowered)


def owner_predicate(ctx: Lowering, layout, shape) -> ir.Value | None:
    """True in the one thread of each group holding the same elements (None: every thread
    holds its own)."""
    if layout is None:  # a scalar: every thread has it; thread 0 of the program owns it
        lane_bits, warp_bits = ctx.threads_per_warp - 1, ctx.num_warps - 1
    else:
        lane_bits, warp_bits = to_linear(layout, tuple(shape)).replicated_bits()
    if not lane_bits and not warp_bits:
        return None
    predicate = None
    with ctx.prologue:
        for source, bits in ((ctx.lane, lane_bits), (ctx.warp, warp_bits)):
            if bits:
                zero = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(source, i32(bits)), i32(0))
                predicate = zero if predicate is None else arith.andi(predicate, zero)
    return predicate


def group_index(ctx: Lowering, shift: int, count: int) -> ir.Value | None:
    """(warp >> shift) % count in the prologue (which of `count` groups of 2^shift warps the
    thread's warp is in: a warpgroup for shift 2), or None when there is one group."""
    if count == 1:
        return None
    with ctx.prologue:
        return arith.andi(arith.shrui(ctx.warp, i32(shift)), i32(count - 1))
