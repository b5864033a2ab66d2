"""Lowering rules for values computed per element: constants, ids, ranges, splats, arithmetic,
math, casts, pointer arithmetic, and layout changes that stay inside a thread."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.analysis.layouts import to_linear
from tilec.dialects import tile
from tilec.lowering.context import (
    Distributed,
    Lowering,
    LoweringError,
    i32,
    memory_type,
    rule,
    scalar_type,
    value_type,
)
from tilec.lowering.coordinates import DYNAMIC_INDEX


def _attributes(op: ir.Operation) -> dict:
    return {name: op.attributes[name] for name in op.attributes}


@rule("arith.constant")
def lower_constant(ctx: Lowering, op: ir.Operation):
    result = op.results[0]
    if not isinstance(result.type, ir.RankedTensorType):
        return [ir.Operation.create("arith.constant", results=[result.type],
                                    attributes=_attributes(op)).result]
    dense = ir.DenseElementsAttr(op.attributes["value"])
    if not dense.is_splat:
        raise NotImplementedError("non-splat tensor constants")
    element = scalar_type(result.type)
    value = arith.constant(element, dense.get_splat_value())
    layout, shape = ctx.layout_of(result)
    return [Distributed(layout, shape, [value] * to_linear(layout, shape).num_registers)]


def _elementwise(ctx: Lowering, op: ir.Operation):
    operands = [ctx.get(v) for v in op.operands]
    tensors = [d for d in operands if isinstance(d, Distributed)]
    attributes = _attributes(op)
    if not tensors:
        types = [value_type(r.type) for r in op.results]
        return list(ir.Operation.create(op.name, results=types, operands=operands,
                                        attributes=attributes).results)
    count = len(tensors[0].values)
    types = [scalar_type(r.type) for r in op.results]
    per_result = [[] for _ in op.results]
    for i in range(count):
        args = [d.values[i] if isinstance(d, Distributed) else d for d in operands]
        new = ir.Operation.create(op.name, results=types, operands=args, attributes=attributes)
        for lst, value in zip(per_result, new.results):
            lst.append(value)
    out = []
    for result, values in zip(op.results, per_result):
        layout, shape = ctx.layout_of(result)
        out.append(Distributed(layout, shape, values))
    return out


@rule("arith.*", "math.*")
def lower_elementwise(ctx: Lowering, op: ir.Operation):
    if op.regions:
        raise NotImplementedError("ops with regions")
    return _elementwise(ctx, op)


def grid_index(name: str, axis: int) -> ir.Value:
    """`gpu.block_id` or `gpu.grid_dim` (`name`) along `axis`, as an i32."""
    dim = ir.Attribute.parse(f"#gpu<dim {'xyz'[axis]}>")
    index = ir.Operation.create(name, results=[ir.IndexType.get()],
                                attributes={"dimension": dim}).result
    return arith.index_cast(ir.IntegerType.get_signless(32), index)


def _grid_value(op: ir.Operation, name: str):
    return [grid_index(name, ir.IntegerAttr(op.attributes["axis"]).value)]


@rule("tile.program_id")
def lower_program_id(ctx: Lowering, op: ir.Operation):
    return _grid_value(op, "gpu.block_id")


@rule("tile.num_programs")
def lower_num_programs(ctx: Lowering, op: ir.Operation):
    return _grid_value(op, "gpu.grid_dim")


@rule("tile.make_range")
def lower_make_range(ctx: Lowering, op: ir.Operation):
    start = ir.IntegerAttr(op.attributes["start"]).value
    layout, shape = ctx.layout_of(op.results[0])
    linear = to_linear(layout, shape)
    offset = ctx.thread_offsets(layout, shape)[0]
    values = []
    for reg in range(linear.num_registers):
        base = i32(start + linear.register_coords(reg)[0])
        values.append(base if offset is None else arith.addi(offset, base))
    return [Distributed(layout, shape, values)]


@rule("tile.splat")
def lower_splat(ctx: Lowering, op: ir.Operation):
    value = ctx.get(op.operands[0])
    layout, shape = ctx.layout_of(op.results[0])
    return [Distributed(layout, shape, [value] * to_linear(layout, shape).num_registers)]


def remap_registers(ctx: Lowering, op: ir.Operation, src: Distributed, layout, shape,
                    project) -> Distributed:
    """Each register of (layout, shape) taken from the register of `src` holding the element
    `project(coordinate)`, when the lanes and warps hold the same elements in both (so no data
    crosses threads)."""
    dst_linear = to_linear(layout, shape)
    src_linear = to_linear(src.layout, src.shape)
    if not dst_linear.threads_hold_alike(src_linear, project):
        raise NotImplementedError(f"moving data between threads ({src.layout.text()} to "
                                  f"{layout.text()})")
    where = {src_linear.register_coords(r): r for r in range(src_linear.num_registers)}
    values = []
    for reg in range(dst_linear.num_registers):
        coord = project(dst_linear.register_coords(reg))
        if coord not in where:
            raise LoweringError(op, f"register coordinate {coord} missing in {src.layout.text()}")
        values.append(src.values[where[coord]])
    return Distributed(layout, shape, values)


@rule("tile.broadcast")
def lower_broadcast(ctx: Lowering, op: ir.Operation):
    src = ctx.get(op.operands[0])
    layout, shape = ctx.layout_of(op.results[0])

    def project(coord):
        return tuple(0 if size == 1 else c for c, size in zip(coord, src.shape))
    return [remap_registers(ctx, op, src, layout, shape, project)]


@rule("tile.expand_dims")
def lower_expand_dims(ctx: Lowering, op: ir.Operation):
    src = ctx.get(op.operands[0])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    layout, shape = ctx.layout_of(op.results[0])

    def project(coord):
        return tuple(c for d, c in enumerate(coord) if d != axis)
    return [remap_registers(ctx, op, src, layout, shape, project)]


@rule("tile.addptr")
def lower_addptr(ctx: Lowering, op: ir.Operation):
    ptrs, offsets = ctx.get(op.operands[0]), ctx.get(op.operands[1])
    pointee = memory_type(tile.ptr_pointee(tile.element_type(op.operands[0].type)))
    ptr_type = scalar_type(op.results[0].type)

    def gep(p, o):
        return llvm.getelementptr(ptr_type, p, [o], [DYNAMIC_INDEX], pointee, 0)

    if not isinstance(ptrs, Distributed):
        return [gep(ptrs, offsets)]
    return [Distributed(ptrs.layout, ptrs.shape,
                        [gep(p, o) for p, o in zip(ptrs.values, offsets.values)])]


def _per_register(ctx: Lowering, op: ir.Operation, build):
    src = ctx.get(op.operands[0])
    if not isinstance(src, Distributed):
        return [build(src)]
    return [Distributed(src.layout, src.shape, [build(v) for v in src.values])]


@rule("tile.bitcast")
def lower_bitcast(ctx: Lowering, op: ir.Operation):
    target = scalar_type(op.results[0].type)
    source = scalar_type(op.operands[0].type)
    if source == target:
        return [ctx.get(op.operands[0])]
    return _per_register(ctx, op, lambda v: llvm.bitcast(target, v))


@rule("tile.ptr_to_int")
def lower_ptr_to_int(ctx: Lowering, op: ir.Operation):
    target = scalar_type(op.results[0].type)
    return _per_register(ctx, op, lambda v: llvm.ptrtoint(target, v))


@rule("tile.int_to_ptr")
def lower_int_to_ptr(ctx: Lowering, op: ir.Operation):
    target = scalar_type(op.results[0].type)
    return _per_register(ctx, op, lambda v: llvm.inttoptr(target, v))


@rule("gpu.barrier", "tilegpu.barrier")
def lower_barrier(ctx: Lowering, op: ir.Operation):
    ir.Operation.create("gpu.barrier")
    return []
