"""A tile in shared memory as the lowering addresses it: the address of its first element and its
memdesc, whose layout XOR-swizzles vectors across rows (see lowering/shared.py for the formula).
Shared by the rules of shared-memory buffers (shared.py) and by conversions through shared memory
(data_movement.py)."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.dialects.tilegpu import MemDesc
from tilec.lowering.context import i32
from tilec.lowering.coordinates import DYNAMIC_INDEX, Part, part_value

SMEM = "!llvm.ptr<3>"


@dataclass
class SharedBuffer:
    base: ir.Value  # address of element 0 of the tile
    desc: MemDesc  # the tile's memdesc: its shape and layout place the elements
    element: ir.Type  # the element type as stored (i1 as i8)
    origin: tuple[int, ...] = ()  # a view of part of the tile starts here (per dimension)

    def address(self, parts: list[Part]) -> ir.Value:
        """The address of the element at `parts` (per dimension a constant plus this thread's
        offset). The constants that move whole swizzle periods are added last, as a constant
        offset: elements a thread reaches from one base (the rows of its copies, the tiles of
        its ldmatrix) then share one computed address and differ by an immediate."""
        if any(self.origin):
            parts = [(c + o, off) for (c, off), o in zip(parts, self.origin)]
        kept, constant = _periodic_split(self.desc, parts)
        address = offset_address(self, element_offset(self.desc, [part_value(p) for p in kept]))
        if not constant:
            return address
        return llvm.getelementptr(ir.Type.parse(SMEM), address, [], [constant], self.element, 0)


def _block_width(layout, shape) -> int:
    """Elements per row of one swizzled block along the fastest dimension: the whole
    dimension, or an NVMMA layout's column block (the blocks are stored one after another)."""
    f = layout.order[0]
    return min(getattr(layout, "block_width", shape[f]), shape[f])


def _periodic_split(desc: MemDesc, parts: list[Part]) -> tuple[list[Part], int]:
    """`parts` with each constant reduced to its remainder modulo the swizzle's period along its
    dimension, and the element offset the removed multiples add (element_offset is linear in
    them: a row moved by per_phase * phases rows keeps its phase; a column moved by vec *
    phases elements moves its chunk by a multiple of phases, which the XOR with a phase below
    phases leaves alone, or moves it by whole column blocks)."""
    layout = desc.layout
    shape = desc.shape[-layout.rank:]
    if layout.rank == 1:
        (c, off), = parts
        return [(0, off)], c
    f, s = layout.order[0], layout.order[1]
    width = _block_width(layout, shape)
    vec = min(layout.vec, width)
    phases = min(layout.max_phase, max(width // vec, 1))
    period = {s: layout.per_phase * phases, f: vec * phases}
    # a row is `width` elements; a column block (width elements along f) all its rows
    weight = {s: width, f: 1 if width == shape[f] else shape[s]}
    stride = shape[f] * shape[s]
    for d in reversed(layout.order[2:]):
        period[d], weight[d] = 1, stride
        stride *= shape[d]
    kept, constant = [], 0
    for d, (c, off) in enumerate(parts):
        moved = c - c % period[d]
        kept.append((c - moved, off))
        constant += moved * weight[d]
    return kept, constant


def element_offset(desc: MemDesc, coord: list[ir.Value]) -> ir.Value:
    """The swizzled element offset of `coord` (one i32 per dimension of the tile)."""
    layout = desc.layout
    shape = desc.shape[-layout.rank:]
    if layout.rank == 1:
        return coord[0]
    f, s = layout.order[0], layout.order[1]
    row, col = coord[s], coord[f]
    width = _block_width(layout, shape)
    vec = min(layout.vec, width)
    phases = min(layout.max_phase, max(width // vec, 1))
    block = None
    if width < shape[f]:  # NVMMA: column blocks of `width`, each all rows long
        block = arith.shrui(col, i32(width.bit_length() - 1))
        col = arith.andi(col, i32(width - 1))
    chunk = arith.shrui(col, i32(vec.bit_length() - 1))
    within = arith.andi(col, i32(vec - 1))
    phase = arith.andi(arith.shrui(row, i32(layout.per_phase.bit_length() - 1)), i32(phases - 1))
    swizzled = arith.xori(chunk, phase)
    offset = arith.addi(arith.muli(row, i32(width)),
                        arith.addi(arith.muli(swizzled, i32(vec)), within))
    if block is not None:
        offset = arith.addi(offset, arith.muli(block, i32(width * shape[s])))
    if layout.rank > 2:  # outer dimensions: plain row-major over the 2-D tiles
        stride = shape[f] * shape[s]
        for d in reversed(layout.order[2:]):
            offset = arith.addi(offset, arith.muli(coord[d], i32(stride)))
            stride *= shape[d]
    return offset


def offset_address(buffer: SharedBuffer, offset: ir.Value) -> ir.Value:
    return llvm.getelementptr(ir.Type.parse(SMEM), buffer.base, [offset], [DYNAMIC_INDEX],
                              buffer.element, 0)
