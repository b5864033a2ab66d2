"""Lowering of `tile.reduce`: within a thread, across lanes with butterfly shuffles, across
warps through shared memory.

The combine region is applied by lowering its ops again for each pair of values (its block
arguments mapped to the pair), so any user combine function works. The result's registers are
those of the slice layout: one per distinct coordinate left once the axis is removed.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.analysis.layouts import to_linear
from tilec.analysis.shared_memory import numel, reduce_warp_bits, storage_bytes
from tilec.lowering.context import (Distributed, Lowering, LoweringError, from_memory, i32,
                                    memory_type, rule, scalar_type, to_memory)
from tilec.lowering.coordinates import DYNAMIC_INDEX, row_major

_FULL_MASK = -1


def combine(ctx: Lowering, op: ir.Operation, lhs: list[ir.Value], rhs: list[ir.Value]):
    """The combine region applied to (lhs..., rhs...): its ops lowered once more."""
    block = op.regions[0].blocks[0]
    for arg, value in zip(block.arguments, lhs + rhs):
        ctx.set(arg, value)
    for inner in block.operations:
        inner = inner.operation
        if inner.name == "gpu.yield":
            return [ctx.get(v) for v in inner.operands]
        ctx.lower_op(inner)
    raise LoweringError(op, "the combine region does not end with gpu.yield")


def _to_i32_words(value: ir.Value) -> tuple[list[ir.Value], callable]:
    """Split a scalar into 32-bit words for shuffles, and the function that rebuilds it."""
    t = value.type
    i32_t = ir.IntegerType.get_signless(32)
    if t == i32_t:
        return [value], lambda words: words[0]
    if isinstance(t, ir.F32Type):
        return [arith.bitcast(i32_t, value)], lambda words: arith.bitcast(t, words[0])
    width = t.width if isinstance(t, ir.IntegerType) else {"f16": 16, "bf16": 16,
                                                          "f64": 64}[str(t)]
    as_int = value if isinstance(t, ir.IntegerType) else arith.bitcast(
        ir.IntegerType.get_signless(width), value)
    int_t = as_int.type
    if width < 32:
        def rebuild(words):
            narrow = arith.trunci(int_t, words[0])
            return narrow if isinstance(t, ir.IntegerType) else arith.bitcast(t, narrow)
        return [arith.extui(i32_t, as_int)], rebuild
    low = arith.trunci(i32_t, as_int)
    high = arith.trunci(i32_t, arith.shrui(as_int, arith.constant(int_t, 32)))

    def rebuild64(words):
        lo = arith.extui(int_t, words[0])
        hi = arith.shli(arith.extui(int_t, words[1]), arith.constant(int_t, 32))
        whole = arith.ori(lo, hi)
        return whole if isinstance(t, ir.IntegerType) else arith.bitcast(t, whole)
    return [low, high], rebuild64


def shuffle_xor(value: ir.Value, offset: int) -> ir.Value:
    words, rebuild = _to_i32_words(value)
    kind = ir.Attribute.parse("#nvvm<shfl_kind bfly>")
    moved = [ir.Operation.create("nvvm.shfl.sync", results=[w.type],
                                 operands=[i32(_FULL_MASK), w, i32(offset), i32(31)],
                                 attributes={"kind": kind}).result for w in words]
    return rebuild(moved)


@rule("tile.reduce")
def lower_reduce(ctx: Lowering, op: ir.Operation):
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    inputs = [ctx.get(v) for v in op.operands]
    src = inputs[0]
    linear = to_linear(src.layout, src.shape)
    if not linear.is_disjoint():
        raise NotImplementedError("reductions over layouts that mix coordinate bits")

    def out_coord(coord):
        return tuple(c for d, c in enumerate(coord) if d != axis)

    # 1. Within the thread: combine the registers that differ only along the axis.
    groups: dict[tuple, list] = {}
    for reg in range(linear.num_registers):
        key = out_coord(linear.register_coords(reg))
        values = [d.values[reg] for d in inputs]
        groups[key] = values if key not in groups else combine(ctx, op, groups[key], values)
    # 2. Across lanes: butterflies over the lane bits that move along the axis.
    for bit, basis in enumerate(linear.lane):
        if basis[axis]:
            for key, values in groups.items():
                other = [shuffle_xor(v, 1 << bit) for v in values]
                groups[key] = combine(ctx, op, values, other)
    # 3. Across warps: each warp's partials meet in shared memory.
    warp_bits = reduce_warp_bits(op)
    if warp_bits:
        groups = _across_warps(ctx, op, groups, src, axis, warp_bits, out_coord)
    return _results(ctx, op, groups)


def _results(ctx: Lowering, op: ir.Operation, groups: dict[tuple, list]):
    results = []
    for i, result in enumerate(op.results):
        if not isinstance(result.type, ir.RankedTensorType):
            results.append(groups[()][i])
            continue
        layout, shape = ctx.layout_of(result)
        out_linear = to_linear(layout, shape)
        values = [groups[out_linear.register_coords(r)][i]
                  for r in range(out_linear.num_registers)]
        results.append(Distributed(layout, shape, values))
    return results


def _across_warps(ctx: Lowering, op: ir.Operation, groups: dict, src: Distributed, axis: int,
                  warp_bits: list[int], out_coord) -> dict:
    out_shape = tuple(s for d, s in enumerate(src.shape) if d != axis)
    warps_along = 1 << len(warp_bits)
    # This warp's position along the axis, from its warp-id bits that move along it.
    position = None
    for k, bit in enumerate(warp_bits):
        picked = arith.andi(arith.shrui(ctx.warp, i32(bit)), i32(1))
        term = picked if k == 0 else arith.shli(picked, i32(k))
        position = term if position is None else arith.ori(position, term)
    # The thread's part of each output element's row-major index (lanes and warps that do not
    # move along the axis).
    offsets = ctx.thread_offsets(src.layout, src.shape)
    thread_index = None
    stride = 1
    for d in range(len(src.shape) - 1, -1, -1):
        if d == axis:
            continue
        off = offsets[d]
        if off is not None:
            term = off if stride == 1 else arith.muli(off, i32(stride))
            thread_index = term if thread_index is None else arith.addi(thread_index, term)
        stride *= src.shape[d]
    element_types = [scalar_type(v.type) for v in op.operands]
    sizes = [storage_bytes(t) for t in element_types]
    region_bytes = [numel(out_shape) * warps_along * s for s in sizes]
    base = ctx.scratch(sum(region_bytes))
    smem_ptr = ir.Type.parse("!llvm.ptr<3>")

    def slot(which: int, key, warp_index) -> ir.Value:
        start = sum(region_bytes[:which]) // sizes[which]
        constant = start + row_major(key, out_shape) * warps_along
        index = i32(constant) if thread_index is None else arith.addi(
            arith.muli(thread_index, i32(warps_along)), i32(constant))
        index = arith.addi(index, warp_index)
        stored = memory_type(element_types[which])
        return llvm.getelementptr(smem_ptr, base, [index], [DYNAMIC_INDEX], stored, 0)

    for key, values in groups.items():
        for which, value in enumerate(values):
            llvm.store(to_memory(value), slot(which, key, position))
    ctx.barrier()
    merged = {}
    for key in groups:
        acc = None
        for w in range(warps_along):
            loaded = [from_memory(llvm.load(memory_type(t), slot(which, key, i32(w))), t)
                      for which, t in enumerate(element_types)]
            acc = loaded if acc is None else combine(ctx, op, acc, loaded)
        merged[key] = acc
    return merged
