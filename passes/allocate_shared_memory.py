"""tilegpu-allocate-shared-memory: an offset in the kernel's shared memory for every buffer.

After it runs, every op that uses shared memory carries `tilegpu.offset` and `tilegpu.bytes`
(i32): each `tilegpu.local_alloc` (live from the alloc to its last use, through views:
`memdesc_subview`, `memdesc_trans`; a use inside a loop or branch keeps it live to the end of
that op; the producer region of a `tilegpu.warp_specialize` runs beside the consumer region, so
what it uses stays live to the split's end) and each op that needs scratch while it runs (`python/tilec/analysis/op_facts.py` says
which and `analysis/shared_memory.py` how much: cross-warp reductions, scans, sorts,
histograms, layout conversions across threads, atomics whose old value goes to replicas). Buffers whose lifetimes
overlap get disjoint ranges, 16-byte aligned (buffers in an NVMMA layout, which wgmma reads, on
their swizzle's period: 1024 bytes for the 128-byte swizzle); the others may share bytes. The module records the kernels' largest total in
`tilegpu.shared_bytes` and, in `tilegpu.shared_largest`, the `file:line` of the largest buffer
(the driver names it when the total exceeds the target).

Example (two reductions across warps, then a conversion; lifetimes are single ops, so all
three start at 0 and the kernel needs the largest, 4096 bytes):
    %s = "tile.reduce"(%x) ...                 ==> {..., tilegpu.bytes = 16 : i32, tilegpu.offset = 0 : i32}
    %t = "tile.reduce"(%y) ...                 ==> {..., tilegpu.bytes = 16 : i32, tilegpu.offset = 0 : i32}
    %c = "tilegpu.convert_layout"(%z) ...      ==> {tilegpu.bytes = 4096 : i32, tilegpu.offset = 0 : i32}
    module attributes {tilegpu.shared_bytes = 4096 : i32, ...}
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.analysis.op_facts import scratch_alignment, scratch_bytes
from tilec.analysis.shared_memory import (ALIGNMENT, BYTES_ATTR, OFFSET_ATTR, VIEWS, aligned,
                                         memdesc_bytes)
from tilec.analysis.wgmma import swizzle_period
from tilec.dialects.tilegpu import MemDesc, NvmmaSharedLayout
from tilec.diagnostics import file_line_col
from tilec.passbase import SPLIT, Pass, ancestor_in, register, require_layouts, split_side


@dataclass
class Buffer:
    op: ir.Operation
    size: int
    start: int  # first and last op index (program order) of its lifetime
    end: int
    offset: int = 0
    align: int = ALIGNMENT

    def overlaps_in_time(self, other: "Buffer") -> bool:
        return self.start <= other.end and other.start <= self.end


class _Numbering:
    """Program-order indices of a kernel's ops: each op's own index, and the last index of
    the ops nested in it (its end)."""

    def __init__(self, func_op: ir.Operation):
        self.start: dict[ir.Operation, int] = {}
        self.end: dict[ir.Operation, int] = {}
        self.order: list[ir.Operation] = []
        for region in func_op.regions:
            for block in region.blocks:
                self._number(block)

    def _number(self, block: ir.Block) -> None:
        for op in block.operations:
            op = op.operation
            self.start[op] = len(self.order)
            self.order.append(op)
            for region in op.regions:
                for inner in region.blocks:
                    self._number(inner)
            self.end[op] = len(self.order) - 1


def _live_until(op: ir.Operation, block: ir.Block, numbering: _Numbering,
                freed_by_consumers: bool) -> int | None:
    """The last op index a use by `op` keeps a buffer of `block` live to: the end of the op
    of `block` enclosing it (a loop or branch: all of it). The two regions of a warp
    specialisation run at the same time, each to the kernel's end: in the consumer region, a
    use counts where it is (its ops run in order); in the producer region, to the end of the
    split, unless the consumers deallocate the buffer (`freed_by_consumers`): whoever placed
    that dealloc has made the producer done with it by then (tilegpu-warp-specialize frees its
    rings after the consumers waited for every copy), so the dealloc ends it."""
    outer = ancestor_in(op, block)
    if outer is None:
        return None
    if outer.name == SPLIT:
        split, region, inner = split_side(op)
        while split != outer:  # the split directly in `block`
            split, region, inner = split_side(split)
        if region == 1:
            return numbering.end[ancestor_in(op, inner.block)]
        if freed_by_consumers:
            return None
    return numbering.end[outer]


def _last_use(alloc: ir.Operation, numbering: _Numbering) -> int:
    """The last op index at which the buffer of `alloc` may be used (uses through subviews
    included; a use nested in a loop or branch counts as the end of that op)."""
    block = alloc.block
    last = _concurrent_end(alloc, numbering)
    users = [u.owner.operation if hasattr(u.owner, "operation") else u.owner
             for u in alloc.results[0].uses]
    freed_by_consumers = any(u.name == "tilegpu.local_dealloc" and
                             (split_side(u) or (None, 0))[1] == 1 for u in users)
    pending = [alloc.results[0]]
    while pending:
        value = pending.pop()
        for use in value.uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            end = _live_until(user, block, numbering, freed_by_consumers)
            if end is not None:
                last = max(last, end)
            if user.name in VIEWS:
                pending.append(user.results[0])
    return last


def _concurrent_end(op: ir.Operation, numbering: _Numbering) -> int:
    """Where an op's own use of shared memory ends: at the op, unless it is in the producer
    region of a warp specialisation, which runs beside everything after the split's start."""
    end = numbering.start[op]
    side = split_side(op)
    while side is not None:
        split, region, _ = side
        if region == 0:
            end = max(end, numbering.end[split])
        side = split_side(split)
    return end


def _buffers(func_op: ir.Operation, numbering: _Numbering) -> list[Buffer]:
    buffers = []
    for op in numbering.order:
        index = numbering.start[op]
        if op.name == "tilegpu.local_alloc":
            buffers.append(Buffer(op, memdesc_bytes(op.results[0].type), index,
                                  _last_use(op, numbering), align=_alignment(op)))
            continue
        with op.context:
            size = scratch_bytes(op)
        if size:
            buffers.append(Buffer(op, size, index, _concurrent_end(op, numbering),
                                  align=scratch_alignment(op)))
    return buffers


def _alignment(alloc: ir.Operation) -> int:
    """A buffer wgmma reads starts on its swizzle's period (its descriptors then need no base
    offset); the others on 16 bytes."""
    layout = MemDesc.from_type(alloc.results[0].type).layout
    if isinstance(layout, NvmmaSharedLayout):
        return max(ALIGNMENT, swizzle_period(layout))
    return ALIGNMENT


def assign_offsets(buffers: list[Buffer]) -> int:
    """Give each buffer the lowest offset on its alignment clear of every placed buffer live
    at the same time, largest buffers first; returns the bytes needed."""
    placed: list[Buffer] = []
    for buffer in sorted(buffers, key=lambda b: (-b.size, b.start)):
        rivals = [p for p in placed if p.overlaps_in_time(buffer)]
        candidates = sorted({0} | {aligned(p.offset + p.size, buffer.align) for p in rivals})
        for offset in candidates:
            if all(offset + buffer.size <= p.offset or p.offset + p.size <= offset
                   for p in rivals):
                buffer.offset = offset
                break
        placed.append(buffer)
    return max((b.offset + b.size for b in buffers), default=0)


def shared_bytes(func_op: ir.Operation,
                 live_over: tuple[ir.Operation, ir.Operation] | None = None) -> int:
    """The shared memory a kernel needs (what this pass would place); with `live_over` =
    (a local_alloc, an op), as if that buffer were live over all of the op as well (made
    before a loop instead of in it)."""
    numbering = _Numbering(func_op)
    buffers = _buffers(func_op, numbering)
    if live_over is not None:
        alloc, span = live_over
        for buffer in buffers:
            if buffer.op == alloc:
                buffer.start = min(buffer.start, numbering.start[span])
                buffer.end = max(buffer.end, numbering.end[span])
    return assign_offsets(buffers)


I32_MAX = 2**31 - 1


@register
class AllocateSharedMemory(Pass):
    name = "tilegpu-allocate-shared-memory"
    summary = "Liveness-based offsets for every shared buffer; total on the module"

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        i32 = ir.IntegerType.get_signless(32)
        total, largest = 0, None
        body = module.regions[0].blocks[0]
        for func_op in [op.operation for op in body.operations if op.operation.name == "func.func"]:
            buffers = _buffers(func_op, _Numbering(func_op))
            needed = assign_offsets(buffers)
            if needed > I32_MAX:  # offsets and sizes are i32 attributes
                raise self.fail(func_op, f"the kernel's shared buffers need {needed} bytes; "
                                         f"tilec places at most 2^31 - 1 (a GPU has at most "
                                         f"228 KiB per block)")
            total = max(total, needed)
            for buffer in buffers:
                buffer.op.attributes[OFFSET_ATTR] = ir.IntegerAttr.get(i32, buffer.offset)
                buffer.op.attributes[BYTES_ATTR] = ir.IntegerAttr.get(i32, buffer.size)
                if largest is None or buffer.size > largest.size:
                    largest = buffer
        module.attributes["tilegpu.shared_bytes"] = ir.IntegerAttr.get(i32, total)
        where = file_line_col(largest.op.location) if largest is not None else None
        if where:
            module.attributes["tilegpu.shared_largest"] = ir.StringAttr.get(
                f"{where[0]}:{where[1]}")
