"""tilegpu-coalesce: each global access in the blocked layout of its widest aligned vectors.

After it runs, every `tile.load`, `tile.store`, `tile.atomic_rmw` and `tile.atomic_cas` on a
tensor of pointers has all its tensor operands (and its result) in the blocked layout
`default_blocked(shape, num_warps, threads_per_warp, size_per_thread, order)` where
- `order` starts with the dimension along which the pointers are most contiguous (axis analysis,
  `analysis/axis_info.py`; ties go to the dimension first in the current order), then the other
  dimensions in their current order;
- `size_per_thread` is 1 except along that dimension, where it is `vec`: the largest power of
  two with `vec` <= the pointers' contiguity, `vec * element bytes` <= 16 (a 128-bit access),
  `vec * element bytes` dividing the pointers' alignment (their divisibility, in bytes), `vec` <=
  the mask's constancy (so a vector is all in or all out), and `vec` <= numel / (number of
  threads) when the block has at least as many elements as the CTA has threads (a smaller block
  gets vec 1: its elements are spread one per thread, the rest of the threads hold copies);
- atomics always get `vec` 1 (one element per atomic instruction), only the order changes.
Operands are converted (`tilegpu.convert_layout`) to that layout and a load's or atomic's result
converted back to its old layout for its users, so the program is correct as it stands;
`tilegpu-remove-layout-conversions` removes the conversions that are not needed. An access
already in its layout is left untouched. `num_warps` and `threads_per_warp` come from the module
attributes `tilegpu.num_warps` / `tilegpu.threads_per_warp` (else from the access's layout).

Example (fp32, 16-byte aligned pointers, n divisible by 16, 4 warps, 1024 elements;
#L1 = #tilegpu.blocked<[1], [32], [4], [0]>, #L4 = #tilegpu.blocked<[4], [32], [4], [0]>):
    %v = "tile.load"(%ptrs, %mask) ... -> tensor<1024xf32, #L1>
becomes
    %p4 = "tilegpu.convert_layout"(%ptrs) : ... -> tensor<1024x!tile.ptr<f32, 1 : i32>, #L4>
    %m4 = "tilegpu.convert_layout"(%mask) : ... -> tensor<1024xi1, #L4>
    %v4 = "tile.load"(%p4, %m4) ... -> tensor<1024xf32, #L4>
    %v = "tilegpu.convert_layout"(%v4) : ... -> tensor<1024xf32, #L1>
"""
from __future__ import annotations

import math

from mlir import ir

from tilec.analysis.axis_info import analyze
from tilec.analysis.axis_lattice import AxisInfoMap, element_bytes, floor_pow2
from tilec.analysis.layouts import default_blocked, layout_order
from tilec.analysis.op_facts import GLOBAL_ATOMIC, global_access
from tilec.dialects import tilegpu
from tilec.dialects.tilegpu import BlockedLayout
from tilec.passbase import Pass, register, require_layouts

MAX_ACCESS_BYTES = 16  # the widest global load/store: 128 bits


def access_mask(op: ir.Operation) -> ir.Value | None:
    """The mask operand of a load, store or atomic_rmw (None when it has none)."""
    if op.name == "tile.load":
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        return op.operands[1] if segments[1] else None
    if op.name in ("tile.store", "tile.atomic_rmw") and len(op.operands) == 3:
        return op.operands[2]
    return None


def access_width(op: ir.Operation, axis: AxisInfoMap, dim: int, num_threads: int) -> int:
    """Elements per thread along `dim` that one aligned vector access of `op` can cover."""
    ptr = op.operands[0]
    shape = list(ptr.type.shape)
    info = axis.get(ptr)
    nbytes = element_bytes(ptr.type)
    vec = min(info.contiguity[dim], shape[dim], max(MAX_ACCESS_BYTES // nbytes, 1),
              max(info.divisibility[dim] // nbytes, 1))
    mask = access_mask(op)
    if mask is not None and isinstance(mask.type, ir.RankedTensorType):
        vec = min(vec, axis.get(mask).constancy[dim])
    vec = min(vec, max(math.prod(shape) // num_threads, 1))
    return floor_pow2(vec)


def _current_order(layout, rank: int) -> list[int]:
    try:
        return list(layout_order(layout))
    except (AttributeError, TypeError):  # layouts without an order: row-major
        return list(range(rank - 1, -1, -1))


def coalesced_layout(op: ir.Operation, axis: AxisInfoMap, num_warps: int,
                     threads_per_warp: int) -> BlockedLayout:
    ptr = op.operands[0]
    shape = list(ptr.type.shape)
    contiguity = axis.get(ptr).contiguity
    current = _current_order(tilegpu.tensor_layout(ptr.type), len(shape))
    fastest = max(current, key=lambda d: contiguity[d])  # the first of the most contiguous
    order = [fastest] + [d for d in current if d != fastest]
    spt = [1] * len(shape)
    if global_access(op) != GLOBAL_ATOMIC:
        spt[fastest] = access_width(op, axis, fastest, num_warps * threads_per_warp)
    return default_blocked(shape, num_warps, threads_per_warp, spt, order)


def _retarget(op: ir.Operation, layout: BlockedLayout) -> None:
    """Put every tensor operand and result of `op` in `layout`, converting on the way in and
    back to the old layout on the way out."""
    for i, value in enumerate(op.operands):
        if not isinstance(value.type, ir.RankedTensorType):
            continue
        if tilegpu.tensor_layout(value.type) != layout:
            with ir.InsertionPoint(op), op.location:
                op.operands[i] = tilegpu.convert_layout(value, layout)
    for result in op.results:
        old = tilegpu.tensor_layout(result.type)
        if old == layout:
            continue
        result.set_type(tilegpu.with_layout(result.type, layout))
        with ir.InsertionPoint.after(op), op.location:
            back = tilegpu.convert_layout(result, old)
        result.replace_all_uses_except(back, back.owner.operation)


def _machine(module: ir.Operation, layout) -> tuple[int, int]:
    """(num_warps, threads_per_warp): the module's attributes, else what `layout` uses."""
    attrs = module.attributes
    if "tilegpu.num_warps" in attrs and "tilegpu.threads_per_warp" in attrs:
        return attrs["tilegpu.num_warps"].value, attrs["tilegpu.threads_per_warp"].value
    while not isinstance(layout, BlockedLayout) and hasattr(layout, "parent"):
        layout = layout.parent
    if isinstance(layout, BlockedLayout):
        return math.prod(layout.warps_per_cta), math.prod(layout.threads_per_warp)
    return 4, 32


@register
class Coalesce(Pass):
    name = "tilegpu-coalesce"
    summary = ("Give each global load, store and atomic the blocked layout of its widest "
               "aligned contiguous accesses")

    def run(self, module: ir.Operation) -> None:
        accesses = []

        def visit(op):
            if global_access(op) and isinstance(op.operands[0].type, ir.RankedTensorType):
                accesses.append(op.operation)
            return ir.WalkResult.ADVANCE

        module.walk(visit, ir.WalkOrder.PRE_ORDER)
        if not accesses:
            return
        require_layouts(self, module)
        axis = analyze(module)
        plans = []
        for op in accesses:
            num_warps, threads = _machine(module, tilegpu.tensor_layout(op.operands[0].type))
            plans.append((op, coalesced_layout(op, axis, num_warps, threads)))
        for op, layout in plans:  # after the analysis: conversions are not in its map
            _retarget(op, layout)
