"""tilec's wgmma shared-memory model (analysis/wgmma.py) against what the hardware reads.

`hardware_addresses` below is an independent model of wgmma's operand fetch, written from the PTX
ISA manual, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate" (9.7.15 in PTX ISA 8.x/9.0):

* "Matrix Descriptor Format" (9.7.15.5.1.2.2): bits 0-13, 16-29 and 32-45 hold
  matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4 of the start address, the leading dimension
  byte offset (LBO) and the stride dimension byte offset (SBO); bits 49-51 the matrix base
  offset, 0 when the swizzle's repeating pattern starts on a 1024 / 512 / 256-byte boundary
  (128 / 64 / 32-byte swizzle); bits 62-63 the mode: 1 = 128B, 2 = 64B, 3 = 32B swizzle.
* "Shared Memory Matrix Layout" (9.7.15.5.1.2) and "Major-ness supported by Strides" with its
  "Leading Dimension Byte Offset", "Stride Dimension Byte Offset" and "Canonical Layouts"
  (9.7.15.5.1.2.1): the operand is made of swizzle atoms of 8 rows of S bytes (S the swizzle
  width; older manuals: core matrices of 8 rows x 16 bytes). In elements, with T = 128 / bits
  elements per 16 bytes and W = S / 16 16-byte chunks per atom row:
    K-major:  ((8, m), (T, 2)) : ((W T, SBO), (1, T))     o Swizzle<log2 W, 4, 3>
    MN-major: ((T, W, m), (8, k)) : ((1, T, LBO), (W T, SBO)) o Swizzle<log2 W, 4, 3>
  K-major: the 8 MN rows of an atom are S bytes apart, consecutive groups of 8 rows SBO apart,
  the 32 bytes of K an instruction reads are contiguous; LBO is "not used, assumed to be 1"
  for swizzled layouts. MN-major (16-bit types only): along MN, W chunks of 16 bytes are
  contiguous and the next S bytes of MN are LBO away ("offset from the first
  (swizzle-byte-size/16) rows to the next"); along K, 8 rows S bytes apart and the next 8 rows
  SBO away ("offset from the first 8 columns to the next 8 columns").
  Swizzle<B, 4, 3> (B = log2 W) XORs bits [4, 4 + B) of the address with bits [7, 7 + B): a
  16-byte chunk's index in its S-byte row with the index of its 128-byte line modulo W, which
  repeats every 2^(7+B) bytes (1024 / 512 / 256: the table of the descriptor section, and the
  alignment `swizzle_period` gives). It applies to the absolute shared
  address the canonical layout computes from the descriptor's start, so a descriptor may start
  inside an atom's row (K-major: at a later 32 bytes of K; MN-major: at a later 16 bytes of MN).

An instruction tile is 64 x k of A (MN = M) or n x k of B (MN = N, n in 8..256), k being 32
bytes of K: k16 for 16-bit, k8 for tf32, k32 for 8-bit elements. For every element (mn, k) the
model gives the byte the hardware reads; the test checks it is where tilec stores that element:
`base + byte_offset(layout, shape, coord)`, for the layout `nvmma_layout` picks and the
descriptor `descriptor(...).encode(base)` makes, for every instruction tile of each operand.

The model found that an MN-major tile starting inside a column block and ending past it (B of
N = 192 over 2 warpgroups: n = 96 at 96 in blocks of 64) has no descriptor: the one tilec made
read the tile's second part from the block's next row. On an H200, wgmma.mma_async reading
such tiles (and K-major, MN-major, 32/64/128-byte ones starting mid-row) through tilec's
descriptors fetched exactly the bytes this model names. tilec now refuses those tiles.
"""
from __future__ import annotations

import itertools

import pytest

from tilec.analysis.wgmma import (byte_offset, descriptor, instruction_fits, nvmma_layout,
                                  offset_bases, swizzle_period)

K_MAJOR, MN_MAJOR = "K", "MN"

# --- the hardware, from the PTX manual --------------------------------------------------------

SWIZZLE_BYTES = {1: 128, 2: 64, 3: 32}  # descriptor bits 62-63 (0, no swizzle, is not modelled)
PATTERN_BYTES = {128: 1024, 64: 512, 32: 256}  # where the swizzle's repeating pattern restarts


def swizzle(address: int, s: int) -> int:
    """Swizzle<log2(s/16), 4, 3>: address bits [4, 4 + b) XOR-ed with bits [7, 7 + b)."""
    b = (s // 16).bit_length() - 1
    mask = (1 << b) - 1
    return address ^ (((address >> 7) & mask) << 4)


def decode(desc: int) -> tuple[int, int, int, int]:
    """(start, LBO, SBO, swizzle bytes) of a descriptor; the bits the manual leaves reserved, and
    the base offset (the buffers here start on their pattern), must be 0."""
    def field(low_bit):  # 14 bits, in units of 16 bytes
        return ((desc >> low_bit) & 0x3FFF) << 4

    assert desc >> 64 == 0
    assert desc & (0b11 << 14 | 0b11 << 30 | 0b111111 << 46 | 0x3FF << 52) == 0, hex(desc)
    return field(0), field(16), field(32), SWIZZLE_BYTES[desc >> 62]


def hardware_addresses(desc: int, major: str, bits: int, mn_extent: int) -> dict:
    """{(mn, k): shared address} of every element of the instruction tile (mn_extent x 32 bytes
    of K) that wgmma reads through `desc`."""
    start, lbo, sbo, s = decode(desc)
    k_extent = 256 // bits
    out = {}
    for mn, k in itertools.product(range(mn_extent), range(k_extent)):
        if major == K_MAJOR:  # ((8, m), (T, 2)) : ((W T, SBO), (1, T)); LBO unused
            linear = start + (mn % 8) * s + (mn // 8) * sbo + k * bits // 8
        else:  # ((T, W, m), (8, k)) : ((1, T, LBO), (W T, SBO))
            mn_byte = mn * bits // 8
            linear = start + mn_byte % s + (mn_byte // s) * lbo + (k % 8) * s + (k // 8) * sbo
        out[mn, k] = swizzle(linear, s)
    return out


# --- the operands -----------------------------------------------------------------------------

def _operand_cases():
    """pytest params (operand, major, element bits, shape, order, instruction MN extent)."""
    cases = []

    def add(operand, major, bits, shapes):
        for shape in shapes:
            if operand == "A":  # [M, K]; the instruction: 64 rows
                order = (1, 0) if major == K_MAJOR else (0, 1)
                extents = [64]
            else:  # [K, N]; n: N over 1, 2 or 4 warpgroups along N (accelerate_matmul)
                order = (0, 1) if major == K_MAJOR else (1, 0)
                extents = sorted({shape[1] // wn for wn in (1, 2, 4)
                                  if shape[1] % (8 * wn) == 0 and shape[1] // wn <= 256})
            for n in extents:
                name = f"{operand}-{major}-{bits}b-{shape[0]}x{shape[1]}-mn{n}"
                cases.append(pytest.param(operand, major, bits, shape, order, n, id=name))

    a16 = [(64, 64), (128, 64), (128, 128), (256, 64), (64, 32), (64, 16)]
    add("A", K_MAJOR, 16, a16)
    add("A", K_MAJOR, 32, [(64, 32), (128, 16), (64, 8), (64, 64)])
    add("A", K_MAJOR, 8, [(64, 128), (128, 64), (64, 32), (64, 256)])
    add("A", MN_MAJOR, 16, [(64, 64), (128, 64), (256, 32), (64, 16)])
    add("B", K_MAJOR, 16, [(64, 64), (64, 128), (32, 64), (16, 64), (64, 256), (64, 192)])
    add("B", K_MAJOR, 32, [(32, 64), (8, 128), (16, 64)])
    add("B", K_MAJOR, 8, [(128, 64), (32, 128), (64, 256)])
    add("B", MN_MAJOR, 16, [(64, 64), (64, 128), (64, 256), (64, 32), (32, 16), (16, 64),
                            (64, 192), (64, 96)])
    return cases


def _instruction_tiles(shape, k_dim, mn_extent, bits):
    mn_dim = 1 - k_dim
    k_extent = 256 // bits
    return itertools.product(range(0, shape[mn_dim], mn_extent), range(0, shape[k_dim], k_extent))


def _stored(layout, shape, k_dim, mn0, k0, mn_extent, bits):
    """{(mn, k): byte offset} where tilec stores the instruction tile's elements."""
    out = {}
    for mn, k in itertools.product(range(mn_extent), range(256 // bits)):
        coord = [0, 0]
        coord[1 - k_dim], coord[k_dim] = mn0 + mn, k0 + k
        out[mn, k] = byte_offset(layout, list(shape), coord)
    return out


@pytest.mark.parametrize("operand, major, bits, shape, order, mn_extent", _operand_cases())
def test_descriptor_reads_tilec_layout(operand, major, bits, shape, order, mn_extent):
    """Every instruction tile tilec gives a descriptor is read from where tilec stores it; the
    tiles it refuses (MN-major, starting inside a column block and ending past it) would be
    read from elsewhere by the descriptor it otherwise makes."""
    layout = nvmma_layout(list(shape), list(order), bits)
    assert layout is not None
    k_dim = 1 if operand == "A" else 0
    period = swizzle_period(layout)
    assert period == PATTERN_BYTES[layout.swizzle]
    wrong, refused = [], set()
    for mn0, k0 in _instruction_tiles(shape, k_dim, mn_extent, bits):
        stored = _stored(layout, shape, k_dim, mn0, k0, mn_extent, bits)
        for base in (0, 3 * 1024, 5 * period):
            try:
                desc = descriptor(layout, list(shape), k_dim, mn0, k0, mn_extent).encode(base)
            except ValueError:
                refused.add(mn0)
                desc = descriptor(layout, list(shape), k_dim, mn0, k0).encode(base)
                read = hardware_addresses(desc, major, bits, mn_extent)
                assert any(read[e] != base + stored[e] for e in stored), (mn0, k0, base)
                continue
            _, lbo, _, s = decode(desc)
            assert s == layout.swizzle
            if major == K_MAJOR:
                assert lbo == 16  # "not used, assumed to be 1" (encoded)
            read = hardware_addresses(desc, major, bits, mn_extent)
            wrong += [(base, (mn0, k0), e, read[e], base + stored[e])
                      for e in stored if read[e] != base + stored[e]]
    assert not wrong, (f"{len(wrong)} elements read from the wrong byte, first: "
                       f"(base, tile, (mn, k), read, stored) = {wrong[:3]}")
    assert bool(refused) == (not instruction_fits(layout, k_dim, mn_extent))


@pytest.mark.parametrize("shape, swizzle, n, crossing", [
    ((64, 192), 128, 96, [96]),          # N = 192 over 2 warpgroups
    ((64, 192), 128, 48, [48, 96]),  # over 4
    ((64, 96), 64, 48, [48]),
    ((64, 96), 64, 24, [24, 48]),
])
def test_mn_major_tile_crossing_a_block_is_refused(shape, swizzle, n, crossing):
    """An MN-major descriptor's S-byte spans along MN start at its start address (the canonical
    layout ((T, W, m), (8, k)) : ((1, T, LBO), ...)): a tile that starts inside a column block
    and runs past its end has no descriptor. Found by the model above: tilec built one (LBO =
    the next block) and wgmma would have read the rest of the tile from the block's next row."""
    layout = nvmma_layout(list(shape), [1, 0], 16)
    assert layout.swizzle == swizzle and not instruction_fits(layout, 0, n)
    for mn0 in range(0, shape[1], n):
        if mn0 in crossing:
            with pytest.raises(ValueError, match="crosses a column block"):
                descriptor(layout, list(shape), 0, mn0, 0, n)
        else:
            descriptor(layout, list(shape), 0, mn0, 0, n)


def test_instruction_fits():
    b_mn = nvmma_layout([64, 128], [1, 0], 16)  # column blocks of 64
    assert [n for n in range(8, 257, 8) if instruction_fits(b_mn, 0, n)] == \
        [8, 16, 32, 64, 128, 192, 256]
    b_k = nvmma_layout([64, 128], [0, 1], 16)
    assert all(instruction_fits(b_k, 0, n) for n in range(8, 257, 8))


def test_unaligned_buffer_is_read_wrongly():
    """The model is not vacuous: without the pattern's alignment (and no base offset) the bytes
    the hardware reads are not tilec's."""
    shape, k_dim = [64, 64], 1
    layout = nvmma_layout(shape, [1, 0], 16)
    base = 128  # 16-byte aligned, not 1024
    desc = descriptor(layout, shape, k_dim, 0, 16).encode(base)
    read = hardware_addresses(desc, K_MAJOR, 16, 64)
    assert any(address != base + byte_offset(layout, shape, [mn, 16 + k])
               for (mn, k), address in read.items())


# --- the layout on its own --------------------------------------------------------------------

LAYOUT_CASES = [  # (shape, order, bits)
    ([64, 64], [1, 0], 16), ([128, 64], [1, 0], 16), ([64, 32], [1, 0], 16),
    ([64, 16], [1, 0], 16), ([64, 128], [0, 1], 16), ([32, 64], [1, 0], 32),
    ([64, 8], [1, 0], 32), ([64, 256], [1, 0], 8), ([64, 32], [1, 0], 8), ([16, 256], [0, 1], 16),
]


@pytest.mark.parametrize("shape, order, bits", LAYOUT_CASES)
def test_offset_bases_are_linear(shape, order, bits):
    layout = nvmma_layout(shape, order, bits)
    bases = offset_bases(layout, shape)
    assert [len(bases[d]) for d in (0, 1)] == [s.bit_length() - 1 for s in shape]
    for coord in itertools.product(range(shape[0]), range(shape[1])):
        xor = 0
        for d, c in enumerate(coord):
            for bit, contribution in enumerate(bases[d]):
                if c >> bit & 1:
                    xor ^= contribution
        assert xor == byte_offset(layout, shape, list(coord)), coord


@pytest.mark.parametrize("shape, order, bits", LAYOUT_CASES + [([64, 192], [1, 0], 16),
                                                               ([192, 64], [0, 1], 16)])
def test_offsets_fill_the_tile(shape, order, bits):
    layout = nvmma_layout(shape, order, bits)
    size = bits // 8
    offsets = {byte_offset(layout, shape, list(c))
               for c in itertools.product(range(shape[0]), range(shape[1]))}
    assert len(offsets) == shape[0] * shape[1]
    assert offsets == set(range(0, shape[0] * shape[1] * size, size))


@pytest.mark.parametrize("shape, order, bits, swizzle", [
    ([64, 64], [1, 0], 16, 128), ([64, 32], [1, 0], 16, 64), ([64, 16], [1, 0], 16, 32),
    ([64, 96], [1, 0], 16, 64), ([64, 192], [1, 0], 16, 128), ([64, 48], [1, 0], 16, 32),
    ([64, 64], [0, 1], 16, 128), ([16, 64], [0, 1], 16, 32), ([64, 8], [1, 0], 32, 32),
    ([64, 32], [1, 0], 32, 128), ([64, 32], [1, 0], 8, 32), ([64, 128], [1, 0], 8, 128),
    ([8, 64], [1, 0], 16, 128),
])
def test_nvmma_layout_widest_swizzle(shape, order, bits, swizzle):
    layout = nvmma_layout(shape, order, bits)
    assert (layout.swizzle, layout.element_bits, tuple(layout.order)) == (swizzle, bits,
                                                                          tuple(order))


@pytest.mark.parametrize("shape, order, bits", [
    ([64, 8], [1, 0], 16),    # 16 bytes along the fastest dimension
    ([64, 4], [1, 0], 32),    # 16 bytes
    ([64, 16], [1, 0], 8),    # 16 bytes
    ([8, 64], [0, 1], 16),    # 16 bytes along dimension 0, the fastest
    ([64, 24], [1, 0], 16),   # 48 bytes: no swizzle width divides it
    ([4, 64], [1, 0], 16),    # 4 rows
    ([64, 4], [0, 1], 16),    # 4 rows (dimension 1)
    ([12, 64], [1, 0], 16),   # rows not a multiple of 8
    ([64, 64], [1, 0], 64),   # no wgmma element of 64 bits
    ([2, 64, 64], [2, 1, 0], 16),  # not 2-D
])
def test_nvmma_layout_refuses(shape, order, bits):
    assert nvmma_layout(shape, order, bits) is None
