"""wgmma's shared-memory operands: the NVMMA layout, its addresses and the matrix descriptors.

A `#tilegpu.nvmma_shared<S, bits, order>` tile of shape [R_total, F] (F along `order[0]`, the
fastest dimension) is cut along F into column blocks of W = 8 S / bits elements (S bytes), stored
one after another, each R rows of S bytes; element (r, f) of block b = f / W sits at byte

    b * R * S + r * S + ((c ^ ((r / (128 / S)) % (S / 16))) * 16 + (f % W) * bits / 8 % 16

with c = (f % W) * bits / 8 / 16 its 16-byte chunk: the hardware's S-byte swizzle (address bits
[4, 4 + log2(S / 16)) XOR-ed with bits [7, ...)) of a buffer aligned to `swizzle_period`. The map
from the coordinate's bits to the offset's bits is linear over F2 (`offset_bases`).

A wgmma reads an instruction tile of an operand (MN rows by K columns: 64 x k of A, n x k of B,
k * bits = 256) through a 64-bit descriptor: the tile's start address, a leading and a stride
byte offset and the swizzle mode. K-major operands (K the fastest dimension) have rows of MN;
consecutive 8-row groups are `SBO` = 8 S apart and the k columns of one instruction (32 bytes)
fall inside one block (LBO unused: 16 by convention). MN-major operands (fp16/bf16 only) have
rows of K; the 8-row groups along K are SBO = 8 S apart and the column blocks along MN are
LBO = R S apart. The hardware counts an MN-major tile's S-byte spans of MN (LBO apart) from its
start address, so a tile that starts inside a column block must end in it (`instruction_fits`).
"""
from __future__ import annotations

from dataclasses import dataclass

from tilec.dialects.tilegpu import NvmmaSharedLayout

SWIZZLE_MODES = {128: 1, 64: 2, 32: 3}  # the descriptor's bits 62-63
K_BYTES = 32  # one instruction's K extent: k16 fp16/bf16, k8 tf32, k32 int8/fp8


def swizzle_period(layout: NvmmaSharedLayout) -> int:
    """The alignment a buffer needs so that its offsets swizzle as its addresses do: the 8
    rows of 128 bytes the XOR pattern spans."""
    return 1024 if layout.swizzle == 128 else 8 * layout.swizzle


def nvmma_layout(shape, order, element_bits: int) -> NvmmaSharedLayout | None:
    """The widest-swizzled NVMMA layout of a 2-D tile (None where wgmma cannot read one: the
    fastest dimension under 32 bytes, or fewer than 8 rows)."""
    if len(shape) != 2 or element_bits not in (8, 16, 32):
        return None
    inner_bytes = shape[order[0]] * element_bits // 8
    for swizzle in (128, 64, 32):
        if inner_bytes % swizzle == 0 and shape[order[1]] % 8 == 0:
            return NvmmaSharedLayout(swizzle, element_bits, tuple(order))
    return None


def tma_box(block_shape, element_bits: int) -> tuple[tuple[int, int], int] | None:
    """(box, swizzle bytes) of the TMA map that copies `block_shape` blocks (2-D, outermost
    first) of `element_bits`-bit elements into the layout wgmma reads (`nvmma_layout`): one
    column block a copy, the swizzle span wide; None where TMA or wgmma cannot take the block
    (not 2-D, 8-, 16- or 32-bit, at most 256 a dimension; see nvmma_layout)."""
    if len(block_shape) != 2 or any(not 1 <= b <= 256 for b in block_shape):
        return None
    layout = nvmma_layout(block_shape, (1, 0), element_bits)
    if layout is None:
        return None
    return (block_shape[0], layout.block_width), layout.swizzle


def byte_offset(layout: NvmmaSharedLayout, shape, coord) -> int:
    """The byte offset of element `coord` of a tile of `shape` in `layout` (the model the
    lowering's address arithmetic and the descriptors are checked against)."""
    f_dim, r_dim = layout.order[0], layout.order[1]
    rows, width = shape[r_dim], layout.block_width
    r, f = coord[r_dim], coord[f_dim]
    block, f = divmod(f, width)
    inner = f * layout.element_bits // 8
    chunk = (inner // 16) ^ ((r // layout.per_phase) % layout.max_phase)
    return block * rows * layout.swizzle + r * layout.swizzle + chunk * 16 + inner % 16


def offset_bases(layout: NvmmaSharedLayout, shape) -> dict[int, list[int]]:
    """Per dimension, the byte offset each bit of the coordinate contributes (offsets are the
    XOR of the contributions of the set bits: the layout as a linear map)."""
    bases = {}
    for d, size in enumerate(shape):
        bits = []
        for bit in range(size.bit_length() - 1):
            coord = [0] * len(shape)
            coord[d] = 1 << bit
            bits.append(byte_offset(layout, shape, coord))
        bases[d] = bits
    return bases


@dataclass(frozen=True)
class Descriptor:
    """The fields of a wgmma matrix descriptor, in bytes (start relative to the buffer)."""
    start: int
    leading: int
    stride: int
    swizzle: int  # bytes: 32, 64 or 128

    def encode(self, base: int = 0) -> int:
        """The 64-bit descriptor of this tile in a buffer at shared address `base`."""
        return _field(base + self.start) | self.fixed_bits()

    def fixed_bits(self) -> int:
        """The bits that do not depend on the start address: the leading and stride byte
        offsets and the swizzle mode (the lowering adds the start address at run time)."""
        return _field(self.leading) << 16 | _field(self.stride) << 32 | \
            SWIZZLE_MODES[self.swizzle] << 62


def _field(x: int) -> int:
    """matrix-descriptor-encode: bits 4-17 of a byte address or offset."""
    return (x & 0x3FFFF) >> 4


def k_major(layout: NvmmaSharedLayout, k_dim: int) -> bool:
    return layout.order[0] == k_dim


def instruction_fits(layout: NvmmaSharedLayout, k_dim: int, mn_extent: int) -> bool:
    """Whether every instruction tile `mn_extent` wide along MN (64 for A, n for B, at
    multiples of it) has a descriptor: K-major tiles always do; MN-major ones when the extent is
    a multiple of a column block's width or divides it (else some tile starts inside a block and
    runs past its end, which the descriptor's LBO, counted from the start, cannot express)."""
    width = layout.block_width
    return k_major(layout, k_dim) or mn_extent % width == 0 or width % mn_extent == 0


def descriptor(layout: NvmmaSharedLayout, shape, k_dim: int, mn0: int, k0: int,
               mn_extent: int | None = None) -> Descriptor:
    """The descriptor of the instruction tile whose first element is (mn0, k0) (MN and K
    coordinates) of an operand tile of `shape` with K along `k_dim`. mn0 is a multiple of 8
    and k0 of the instruction's K. Given the tile's `mn_extent` (64 for A, n for B), an
    MN-major tile that starts inside a column block and ends past it raises ValueError."""
    mn_dim = 1 - k_dim
    inside = mn0 % layout.block_width
    if (mn_extent is not None and not k_major(layout, k_dim) and inside
            and inside + mn_extent > layout.block_width):
        raise ValueError(f"an MN-major wgmma tile {mn_extent} wide at {mn0} crosses a column "
                         f"block of {layout.block_width} elements: no descriptor reads it")
    coord = [0, 0]
    coord[mn_dim], coord[k_dim] = mn0, k0
    start = byte_offset(layout, shape, coord)
    if k_major(layout, k_dim):
        return Descriptor(start, 16, 8 * layout.swizzle, layout.swizzle)
    rows = shape[k_dim]
    return Descriptor(start, rows * layout.swizzle, 8 * layout.swizzle, layout.swizzle)
