"""How much shared memory each `tilegpu` op needs, read from its types and layouts.

One table serves the passes and the lowering: `tilegpu-allocate-shared-memory` sizes every
buffer with it before code generation, and each lowering rule takes its scratch from the offset
the allocation recorded on its op (`tilegpu.offset`, `tilegpu.bytes`), checking that the bytes it
uses fit. An op moves data between threads through shared memory when:
- a layout conversion (or `trans`, `reshape`, `join`, `split`, `cat`, `gather`) moves elements
  across lanes or warps: one slot per element, padded against bank conflicts (`pad_shift`);
- a reduction combines partials across warps: one slot per result element and warp along the
  axis, for each operand;
- a scan or sort along an axis longer than 1: 8 bytes per element and operand;
- a histogram: one i32 counter per bin (padded alike: it uses the same scratch code);
- an atomic whose old value is wanted by threads holding copies of the element it updates.
"""
from __future__ import annotations

from mlir import ir

from tilec.analysis.layouts import contiguous_registers, layout_order, to_linear
from tilec.dialects import tile, tilegpu
from tilec.dialects.tilegpu import MemDesc, SharedLayout
from tilec.tma import MAP_BYTES

ALIGNMENT = 16  # every buffer starts on a 16-byte boundary (the widest shared access)
SLOT_BYTES = 8  # a scan's or sort's slot: enough for any element type
OFFSET_ATTR, BYTES_ATTR = "tilegpu.offset", "tilegpu.bytes"
FREE_SLOT_ATTR = "tilegpu.free_slot"  # an async copy into a slot whose readers are done
# Ops whose memdesc result is a view into their operand's buffer (the same bytes).
VIEWS = frozenset({"tilegpu.memdesc_subview", "tilegpu.memdesc_trans"})

# Dynamic shared memory a block may use, by compute capability (after cudaFuncSetAttribute).
_SHARED_LIMITS = {80: 163 * 1024, 86: 99 * 1024, 89: 99 * 1024, 90: 227 * 1024}


def shared_limit(arch: int) -> int:
    """The shared memory a block of compute capability `arch` may use (48 KiB where unknown)."""
    return _SHARED_LIMITS.get(arch, 48 * 1024)


_FLOAT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "f8E4M3FN": 1, "f8E5M2": 1}


def storage_bytes(element: ir.Type) -> int:
    """Bytes one element takes in shared memory (i1 as a byte, pointers as 8 bytes)."""
    if isinstance(element, ir.IntegerType):
        return max(element.width // 8, 1)
    return _FLOAT_BYTES.get(str(element), 8)


BANK_ROW_BYTES = 128  # 32 banks of 4 bytes


def pad_shift(element_bytes: int) -> int:
    """A conversion's scratch skips one slot after every 128 bytes of elements (index
    `i` lives at `i + (i >> pad_shift)`), so threads striding by a multiple of 32 words (rows
    written by one layout, columns read by another) fall into different banks."""
    return max(BANK_ROW_BYTES // element_bytes, 1).bit_length() - 1


def padded_slots(count: int, element_bytes: int) -> int:
    """Slots a padded scratch of `count` elements spans."""
    return count + (count - 1 >> pad_shift(element_bytes)) if count else 0


def numel(shape) -> int:
    n = 1
    for size in shape:
        n *= size
    return n


def _element_and_shape(value: ir.Value):
    if isinstance(value.type, ir.RankedTensorType):
        return tile.element_type(value.type), tuple(value.type.shape)
    return value.type, ()


def _per_element(value: ir.Value, count_from: ir.Value | None = None) -> int:
    """A padded scratch slot per element of `value` (or of `count_from`)."""
    element, shape = _element_and_shape(value)
    if count_from is not None:
        shape = _element_and_shape(count_from)[1]
    size = storage_bytes(element)
    return padded_slots(numel(shape), size) * size


def crosses_threads(src_type: ir.Type, dst_type: ir.Type) -> bool:
    """Whether some lane or warp holds different elements in the two layouts."""
    src = to_linear(tilegpu.tensor_layout(src_type), tuple(src_type.shape))
    dst = to_linear(tilegpu.tensor_layout(dst_type), tuple(dst_type.shape))
    return not dst.threads_hold_alike(src)


def reduce_warp_bits(op: ir.Operation) -> list[int]:
    """The warp-id bits that move along a reduction's axis (its partials meet in shared
    memory when there are any)."""
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    src = op.operands[0].type
    linear = to_linear(tilegpu.tensor_layout(src), tuple(src.shape))
    return [bit for bit, basis in enumerate(linear.warp) if basis[axis]]


def _replicated(value: ir.Value) -> bool:
    """Whether several threads hold each element of `value` (always, for a scalar)."""
    if not isinstance(value.type, ir.RankedTensorType):
        return True
    linear = to_linear(tilegpu.tensor_layout(value.type), tuple(value.type.shape))
    return any(linear.replicated_bits())


# The scratch an op needs while it runs, in bytes (0: none); op_facts.py names each op's.

def per_result_element(op: ir.Operation) -> int:
    """A padded slot per element of the result: ops that move elements between threads."""
    return _per_element(op.results[0])


def per_operand_element(op: ir.Operation) -> int:
    """A padded slot of the result's type per element of the operand (split, gather)."""
    return _per_element(op.results[0], count_from=op.operands[0])


def reduce_scratch(op: ir.Operation) -> int:
    """The partials of the warps along the axis, when the axis crosses warps."""
    warps_along = 1 << len(reduce_warp_bits(op))
    if warps_along == 1:
        return 0
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    out = [s for d, s in enumerate(op.operands[0].type.shape) if d != axis]
    return numel(out) * warps_along * sum(
        storage_bytes(tile.element_type(v.type)) for v in op.operands)


def _along_axis(op: ir.Operation, operands: int) -> int:
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    shape = tuple(op.operands[0].type.shape)
    return 0 if shape[axis] == 1 else numel(shape) * SLOT_BYTES * operands


def scan_scratch(op: ir.Operation) -> int:
    return _along_axis(op, len(op.operands))


def sort_scratch(op: ir.Operation) -> int:
    return _along_axis(op, 1)


def histogram_scratch(op: ir.Operation) -> int:
    return padded_slots(numel(op.results[0].type.shape), 4) * 4


def atomic_scratch(op: ir.Operation) -> int:
    """The old values, shared with the threads that hold copies of them, when they are used."""
    result = op.results[0]
    if not list(result.uses) or not _replicated(result):
        return 0
    element, shape = _element_and_shape(result)
    return max(numel(shape), 1) * storage_bytes(element)


# A TMA map made in the kernel is written in shared memory first (the map's bytes, on a
# 128-byte boundary), then copied to its global slot.
TENSORMAP_ALIGNMENT = 128


def tensormap_scratch(op: ir.Operation) -> int:
    return MAP_BYTES


def conversion_scratch(op: ir.Operation) -> int:
    if not crosses_threads(op.operands[0].type, op.results[0].type):
        return 0
    return _per_element(op.results[0])


def memdesc_bytes(t: ir.Type) -> int:
    """Bytes of a `!tilegpu.memdesc` buffer."""
    desc = MemDesc.from_type(t)
    return numel(desc.shape) * storage_bytes(ir.Type.parse(desc.element_type))


def aligned(nbytes: int, alignment: int = ALIGNMENT) -> int:
    return (nbytes + alignment - 1) // alignment * alignment


def copy_width(layout, shape, element: ir.Type, shared: SharedLayout) -> int:
    """Elements one cp.async moves per thread: the registers contiguous along the shared
    buffer's fastest dimension, at most 16 bytes and `vec`; 0 when that is under 4 bytes
    (cp.async copies 4, 8 or 16). A buffer whose fastest dimension is not the registers'
    (a transposing copy) takes one element at a time."""
    size = storage_bytes(element)
    if layout_order(layout)[0] != shared.order[0]:
        return 1 if size >= 4 else 0
    run = min(contiguous_registers(layout, tuple(shape)), shared.vec, 16 // size)
    return run if run * size >= 4 else 0
