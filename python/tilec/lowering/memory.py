"""Lowering rules for global memory: vectorised, predicated loads and stores.

Consecutive registers that hold consecutive elements (the layout's size_per_thread along the
fastest dimension, which tilegpu-coalesce sets only where alignment allows) become one vector
access of up to 16 bytes. A masked access is guarded by its first lane's mask (coalesce made
the mask constant over the vector): a masked-off load yields `other`, and a masked store is one
predicated PTX store (`@p st.global.v4.b32`, ptx.py), as straight-line code: a branch around
each store cost a reconvergence (BSSY/BSYNC) per vector and let LLVM sink the address
arithmetic into it. An access with a cache modifier or an eviction policy is the PTX
instruction that has it (ptx.py).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, scf

from tilec.analysis.layouts import contiguous_registers
from tilec.lowering import ptx
from tilec.lowering.context import (Distributed, Lowering, i32, memory_type, owner_predicate, rule,
                                    scalar_type, vector_of)


def _segments(op: ir.Operation) -> list[ir.Value | None]:
    """ptr, mask, other of a tile.load (absent ones as None)."""
    sizes = list(op.attributes["operandSegmentSizes"])
    operands, out, i = list(op.operands), [], 0
    for size in sizes:
        out.append(operands[i] if size else None)
        i += size
    return out


def _bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntegerType):
        return max(t.width // 8, 1)
    return {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}.get(str(t), 8)


def _vector_width(layout, shape, element: ir.Type, registers: int) -> int:
    vec = contiguous_registers(layout, shape)
    while vec > 1 and vec * _bytes(element) > 16:
        vec //= 2
    return max(min(vec, registers), 1)  # 1 when the thread holds none (a loop of no steps)


def _as_list(lowered, count: int) -> list:
    if lowered is None:
        return [None] * count
    return list(lowered.values) if isinstance(lowered, Distributed) else [lowered]


def _hinted(op: ir.Operation, table: dict) -> tuple[str, str] | None:
    """(cache operator, eviction priority) of a load or store that asks for either, else None
    (LLVM's plain load and store then do)."""
    cache = ir.StringAttr(op.attributes["cache"]).value
    evict = ir.StringAttr(op.attributes["evict"]).value
    if table[cache] or ptx.EVICT[evict]:
        return cache, evict
    return None


def _load_one(pointer: ir.Value, mask: ir.Value | None, other: list[ir.Value] | None,
              element: ir.Type, vec: int, volatile: bool,
              hints: tuple[str, str] | None = None) -> list[ir.Value]:
    loaded_type = ir.VectorType.get([vec], element) if vec > 1 else element
    alignment = vec * _bytes(element)

    def load():
        if hints is not None and not volatile:
            values = ptx.load(pointer, vec, element, *hints)
            return vector_of(values, element) if vec > 1 else values[0]
        return llvm.load(loaded_type, pointer, alignment=alignment,
                         volatile_=True if volatile else None)

    if mask is None:
        value = load()
    else:
        if_op = scf.IfOp(mask, [loaded_type], has_else=True)
        with ir.InsertionPoint(if_op.then_block):
            scf.YieldOp([load()])
        with ir.InsertionPoint(if_op.else_block):
            if other is None:
                fill = arith.constant(loaded_type, ir.DenseElementsAttr.get_splat(
                    loaded_type, _zero(element))) if vec > 1 else arith.constant(
                        element, _zero(element))
            else:
                fill = vector_of(other, element) if vec > 1 else other[0]
            scf.YieldOp([fill])
        value = if_op.results[0]
    if vec == 1:
        return [value]
    return [llvm.extractelement(value, i32(i)) for i in range(vec)]


def _zero(element: ir.Type) -> ir.Attribute:
    if isinstance(element, ir.IntegerType):
        return ir.IntegerAttr.get(element, 0)
    return ir.FloatAttr.get(element, 0.0)


@rule("tile.load")
def lower_load(ctx: Lowering, op: ir.Operation):
    ptr_v, mask_v, other_v = _segments(op)
    result = op.results[0]
    element = scalar_type(result.type)
    memory_element = memory_type(element)
    volatile = ir.BoolAttr(op.attributes["is_volatile"]).value
    hints = _hinted(op, ptx.LOAD_CACHE) if memory_element == element else None
    ptrs = ctx.get(ptr_v)
    if not isinstance(ptrs, Distributed):
        mask = None if mask_v is None else ctx.get(mask_v)
        other = None if other_v is None else [ctx.get(other_v)]
        return [_load_one(ptrs, mask, other, element, 1, volatile, hints)[0]]
    count = len(ptrs.values)
    masks = _as_list(None if mask_v is None else ctx.get(mask_v), count)
    others = _as_list(None if other_v is None else ctx.get(other_v), count)
    vec = _vector_width(ptrs.layout, ptrs.shape, memory_element, count)
    values = []
    for start in range(0, count, vec):
        other = None if others[start] is None else others[start:start + vec]
        values += _load_one(ptrs.values[start], masks[start], other, element, vec, volatile,
                            hints)
    layout, shape = ctx.layout_of(result)
    return [Distributed(layout, shape, values)]


def _store_one(pointer: ir.Value, mask: ir.Value | None, values: list[ir.Value],
               element: ir.Type, hints: tuple[str, str] | None = None) -> None:
    vec = len(values)
    if mask is not None and ptx.storable(element) and memory_type(element) == element:
        ptx.store(pointer, values, *(hints or ()), predicate=mask)
        return
    alignment = vec * _bytes(element)
    value = None if hints is not None else vector_of(values, element) if vec > 1 else values[0]

    def store():
        if hints is not None:
            ptx.store(pointer, values, *hints)
        else:
            llvm.store(value, pointer, alignment=alignment)

    if mask is None:
        store()
        return
    if_op = scf.IfOp(mask, [], has_else=False)
    with ir.InsertionPoint(if_op.then_block):
        store()
        scf.YieldOp([])


@rule("tile.store")
def lower_store(ctx: Lowering, op: ir.Operation):
    ptr_v, value_v = op.operands[0], op.operands[1]
    mask_v = op.operands[2] if len(op.operands) > 2 else None
    element = scalar_type(value_v.type)
    hints = _hinted(op, ptx.STORE_CACHE) if memory_type(element) == element else None
    ptrs, values = ctx.get(ptr_v), ctx.get(value_v)
    tensor = isinstance(ptrs, Distributed)
    layout, shape = (ptrs.layout, ptrs.shape) if tensor else (None, ())
    pointers, stored = (ptrs.values, values.values) if tensor else ([ptrs], [values])
    masks = _as_list(None if mask_v is None else ctx.get(mask_v), len(pointers))
    # Threads holding copies of the same elements (a block smaller than the layout's tile, or
    # a scalar, which every thread holds) let one of them store.
    owner = owner_predicate(ctx, layout, shape)
    if owner is not None:
        masks = [owner if m is None else arith.andi(m, owner) for m in masks]
    vec = _vector_width(layout, shape, element, len(pointers)) if tensor else 1
    for start in range(0, len(pointers), vec):
        _store_one(pointers[start], masks[start], stored[start:start + vec], element, hints)
    return []
