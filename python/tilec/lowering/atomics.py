"""Lowering of `tile.atomic_rmw` and `tile.atomic_cas`: PTX `atom` with the op's memory
semantics and scope (ptx.atomic) where PTX has the instruction (fp32/fp64 min and max as
integer atoms on the bits), LLVM atomics otherwise (16-bit integer and float read-modify-writes
PTX lacks: LLVM makes them compare-and-swap loops).

An element that several threads hold (a replicated layout, or a scalar every thread has) is
updated once: only the thread whose replicated lane and warp bits are zero issues the atomic;
the old value reaches the other holders through shared memory.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, scf

from tilec.analysis.layouts import to_linear
from tilec.analysis.shared_memory import numel, storage_bytes
from tilec.lowering import ptx
from tilec.lowering.context import Distributed, Lowering, i32, owner_predicate, rule, scalar_type
from tilec.lowering.coordinates import (DYNAMIC_INDEX, coordinate, linear_index, linear_offsets,
                                        row_major)
from tilec.lowering.data_movement import Scratch

_ORDERING = {"relaxed": "monotonic", "acquire": "acquire", "release": "release",
             "acq_rel": "acq_rel"}
_SCOPE = {"gpu": "device", "cta": "block", "sys": None}
_BIN_OPS = {"add": "add", "fadd": "fadd", "and": "_and", "or": "_or", "xor": "_xor",
            "max": "max", "min": "min", "umax": "umax", "umin": "umin", "xchg": "xchg"}


def _atomic(ctx: Lowering, op: ir.Operation, build) -> list:
    """Run `build(pointer, values...) -> old value` per element, guarded by the mask and by
    ownership; broadcast the old values to replicas when some thread is not the owner."""
    sem = ir.StringAttr(op.attributes["sem"]).value
    scope = ir.StringAttr(op.attributes["scope"]).value
    ordering = (sem, scope)
    result = op.results[0]
    element = scalar_type(result.type)
    tensor = isinstance(result.type, ir.RankedTensorType)
    layout, shape = ctx.layout_of(result) if tensor else (None, ())
    owner = owner_predicate(ctx, layout, shape)
    operands = [ctx.get(v) for v in op.operands]
    count = len(operands[0].values) if tensor else 1

    def lane_values(i):
        return [d.values[i] if isinstance(d, Distributed) else d for d in operands]

    olds = []
    for i in range(count):
        pointer, *rest = lane_values(i)
        guard = owner
        if op.name == "tile.atomic_rmw" and len(rest) == 2:  # value, mask
            mask = rest.pop()
            guard = mask if guard is None else arith.andi(guard, mask)
        if guard is None:
            olds.append(build(pointer, rest, ordering))
            continue
        if_op = scf.IfOp(guard, [element], has_else=True)
        with ir.InsertionPoint(if_op.then_block):
            scf.YieldOp([build(pointer, rest, ordering)])
        with ir.InsertionPoint(if_op.else_block):
            scf.YieldOp([llvm.mlir_undef(element)])
        olds.append(if_op.results[0])
    if owner is not None and list(result.uses):
        olds = _broadcast_from_owner(ctx, olds, owner, layout, shape, element)
    if not tensor:
        return [olds[0]]
    return [Distributed(layout, shape, olds)]


def _broadcast_from_owner(ctx: Lowering, values, owner, layout, shape, element):
    """Owners write the old values to shared memory; every holder reads them back."""
    base = ctx.scratch(max(numel(shape), 1) * storage_bytes(element))
    smem_ptr = ir.Type.parse("!llvm.ptr<3>")
    linear = to_linear(layout, tuple(shape)) if layout is not None else None
    thread = linear_offsets(ctx, layout, shape) if layout is not None else None

    def address(reg):
        constant = i32(row_major(linear.register_coords(reg), shape) if linear else 0)
        index = constant if thread is None else arith.addi(thread, constant)
        return llvm.getelementptr(smem_ptr, base, [index], [DYNAMIC_INDEX], element, 0)

    for reg, value in enumerate(values):
        if_op = scf.IfOp(owner, [], has_else=False)
        with ir.InsertionPoint(if_op.then_block):
            llvm.store(value, address(reg))
            scf.YieldOp([])
    ctx.barrier()
    return [llvm.load(element, address(reg)) for reg in range(len(values))]


def _llvm(ordering) -> tuple:
    """(LLVM ordering, sync scope) of (sem, scope)."""
    sem, scope = ordering
    scope = _SCOPE[scope]
    return (getattr(llvm.AtomicOrdering, _ORDERING[sem]),
            None if scope is None else ir.StringAttr.get(scope))


@rule("tile.atomic_rmw")
def lower_atomic_rmw(ctx: Lowering, op: ir.Operation):
    kind = ir.StringAttr(op.attributes["rmw_op"]).value
    element = scalar_type(op.results[0].type)
    if kind in ("max", "min") and not isinstance(element, ir.IntegerType):
        kind = "f" + kind
    bin_op = getattr(llvm.AtomicBinOp, _BIN_OPS.get(kind, kind))

    def build(pointer, rest, ordering):
        old = ptx.atomic(kind, pointer, rest, *ordering)
        if old is not None:
            return old
        order, scope = _llvm(ordering)
        return llvm.atomicrmw(bin_op, pointer, rest[0], order, syncscope=scope)
    return _atomic(ctx, op, build)


@rule("tile.atomic_cas")
def lower_atomic_cas(ctx: Lowering, op: ir.Operation):
    element = scalar_type(op.results[0].type)

    def build(pointer, rest, ordering):
        old = ptx.atomic("cas", pointer, rest, *ordering)
        if old is not None:
            return old
        cmp, value = rest
        order, scope = _llvm(ordering)
        failure = llvm.AtomicOrdering.monotonic if order in (
            llvm.AtomicOrdering.release, llvm.AtomicOrdering.monotonic) else \
            llvm.AtomicOrdering.acquire
        result = llvm.cmpxchg(pointer, cmp, value, order, failure, syncscope=scope)
        return llvm.extractvalue(element, result, ir.DenseI64ArrayAttr.get([0]))
    return _atomic(ctx, op, build)


@rule("tile.histogram")
def lower_histogram(ctx: Lowering, op: ir.Operation):
    """Counts in shared memory: zeroed, incremented with shared-memory atomics by the one
    holder of each input element, then read in the result's layout."""
    src = ctx.get(op.operands[0])
    layout, shape = ctx.layout_of(op.results[0])
    bins = shape[0]
    counts = ir.IntegerType.get_signless(32)
    scratch = Scratch(ctx, counts, bins)
    out_registers = to_linear(layout, tuple(shape)).num_registers
    for reg in range(out_registers):
        scratch.write(i32(0), linear_index(coordinate(ctx, layout, shape, reg), [1]))
    scratch.wait()
    owner = owner_predicate(ctx, src.layout, src.shape)
    for value in src.values:
        if value.type != counts:
            value = arith.trunci(counts, value) if value.type.width > 32 else \
                arith.extsi(counts, value)
        inside = arith.andi(arith.cmpi(arith.CmpIPredicate.sge, value, i32(0)),
                            arith.cmpi(arith.CmpIPredicate.slt, value, i32(bins)))
        guard = inside if owner is None else arith.andi(inside, owner)
        if_op = scf.IfOp(guard, [], has_else=False)
        with ir.InsertionPoint(if_op.then_block):
            llvm.atomicrmw(llvm.AtomicBinOp.add, scratch.address(value), i32(1),
                           llvm.AtomicOrdering.monotonic, syncscope=ir.StringAttr.get("block"))
            scf.YieldOp([])
    scratch.wait()
    values = [scratch.read(linear_index(coordinate(ctx, layout, shape, reg), [1]))
              for reg in range(out_registers)]
    return [Distributed(layout, shape, values)]
