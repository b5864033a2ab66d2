"""Lowering of `tile.scan`: an inclusive scan by doubling (Hillis-Steele) through shared memory.

Every step writes the current values, waits, and combines each element with the one `step`
places earlier along the axis (later, for a reverse scan): log2(n) steps for any layout and any
number of operands. (A warp-shuffle scan for the common layouts is a later optimisation.)
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.analysis.layouts import to_linear
from tilec.analysis.shared_memory import SLOT_BYTES, numel
from tilec.lowering.context import (Distributed, Lowering, from_memory, i32, memory_type, rule,
                                    scalar_type, to_memory)
from tilec.lowering.coordinates import DYNAMIC_INDEX, coordinate, linear_index, part_value, strides
from tilec.lowering.reductions import combine


@rule("tile.scan")
def lower_scan(ctx: Lowering, op: ir.Operation):
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = ir.BoolAttr(op.attributes["reverse"]).value
    inputs = [ctx.get(v) for v in op.operands]
    layout, shape = inputs[0].layout, inputs[0].shape
    if shape[axis] == 1:  # each element is its own prefix
        return inputs
    elements = numel(shape)
    types = [scalar_type(v.type) for v in op.operands]
    stored = [memory_type(t) for t in types]
    base = ctx.scratch(elements * SLOT_BYTES * len(inputs))
    byte = ir.IntegerType.get_signless(8)
    smem_ptr = ir.Type.parse("!llvm.ptr<3>")
    regions = [llvm.getelementptr(smem_ptr, base, [i32(k * elements * SLOT_BYTES)],
                                  [DYNAMIC_INDEX], byte, 0) for k in range(len(inputs))]
    s = strides(shape)
    count = to_linear(layout, tuple(shape)).num_registers
    coords = [coordinate(ctx, layout, shape, reg) for reg in range(count)]
    indices = [linear_index(parts, s) for parts in coords]
    axis_coords = [part_value(parts[axis]) for parts in coords]
    values = [[d.values[reg] for d in inputs] for reg in range(count)]

    def address(k, index):
        return llvm.getelementptr(smem_ptr, regions[k], [index], [DYNAMIC_INDEX], stored[k], 0)

    step = 1
    while step < shape[axis]:
        if step > 1:  # the previous step's reads are done (membar places the first)
            ctx.barrier()
        for reg in range(count):
            for k, value in enumerate(values[reg]):
                llvm.store(to_memory(value), address(k, indices[reg]))
        ctx.barrier()
        new_values = []
        for reg in range(count):
            if reverse:
                has = arith.cmpi(arith.CmpIPredicate.slt, arith.addi(axis_coords[reg], i32(step)),
                                 i32(shape[axis]))
                other_index = arith.addi(indices[reg], i32(step * s[axis]))
            else:
                has = arith.cmpi(arith.CmpIPredicate.sge, axis_coords[reg], i32(step))
                other_index = arith.subi(indices[reg], i32(step * s[axis]))
            safe = arith.select(has, other_index, indices[reg])
            others = []
            for k in range(len(inputs)):
                others.append(from_memory(llvm.load(stored[k], address(k, safe)), types[k]))
            mine = values[reg]
            combined = combine(ctx, op, others, mine)  # (the earlier element, this one)
            new_values.append([arith.select(has, c, v) for c, v in zip(combined, mine)])
        values = new_values
        step *= 2
    return [Distributed(layout, shape, [values[reg][k] for reg in range(count)])
            for k in range(len(inputs))]


@rule("tile.sort")
def lower_sort(ctx: Lowering, op: ir.Operation):
    """A bitonic sorting network along the last axis, one compare-exchange stage per shared
    memory round trip: each element takes the smaller or larger of itself and its partner
    (index XOR j), so no two threads write the same element."""
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    descending = ir.BoolAttr(op.attributes["descending"]).value
    src = ctx.get(op.operands[0])
    layout, shape = src.layout, src.shape
    if shape[axis] == 1:
        return [src]
    element = scalar_type(op.operands[0].type)
    base = ctx.scratch(numel(shape) * SLOT_BYTES)
    smem_ptr = ir.Type.parse("!llvm.ptr<3>")
    s = strides(shape)
    count = len(src.values)
    coords = [coordinate(ctx, layout, shape, reg) for reg in range(count)]
    indices = [linear_index(parts, s) for parts in coords]
    positions = [part_value(parts[axis]) for parts in coords]
    values = list(src.values)
    is_float = not isinstance(element, ir.IntegerType)

    def address(index):
        return llvm.getelementptr(smem_ptr, base, [index], [DYNAMIC_INDEX], element, 0)

    def smaller(a, b):
        if is_float:
            return arith.cmpf(arith.CmpFPredicate.OLT, a, b)
        return arith.cmpi(arith.CmpIPredicate.slt, a, b)

    n = shape[axis]
    k = 2
    while k <= n:
        j = k // 2
        while j >= 1:
            if (k, j) != (2, 1):  # the previous stage's reads are done (membar places the first)
                ctx.barrier()
            for reg in range(count):
                llvm.store(values[reg], address(indices[reg]))
            ctx.barrier()
            new_values = []
            for reg in range(count):
                i = positions[reg]
                partner_pos = arith.xori(i, i32(j))
                delta = arith.muli(arith.subi(partner_pos, i), i32(s[axis]))
                other = llvm.load(element, address(arith.addi(indices[reg], delta)))
                mine = values[reg]
                lower_half = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(i, i32(j)), i32(0))
                ascending_block = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(i, i32(k)),
                                             i32(0))
                if descending:
                    ascending_block = arith.xori(ascending_block, arith.constant(
                        ir.IntegerType.get_signless(1), 1))
                take_min = arith.xori(lower_half, ascending_block)  # both or neither: min
                take_min = arith.xori(take_min, arith.constant(ir.IntegerType.get_signless(1), 1))
                # Both threads of a pair compare (first, second) in the same order, so they
                # agree on whether to swap even when neither is smaller (NaN, -0.0 vs 0.0):
                # the stage permutes the elements, never duplicating one.
                first = arith.select(lower_half, mine, other)
                second = arith.select(lower_half, other, mine)
                swap = smaller(second, first)
                lo = arith.select(swap, second, first)
                hi = arith.select(swap, first, second)
                new_values.append(arith.select(take_min, lo, hi))
            values = new_values
            j //= 2
        k *= 2
    return [Distributed(layout, shape, values)]
