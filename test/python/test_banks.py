"""The shared-memory bank model (analysis/banks.py) and the swizzle that vector conversions through
shared memory choose with it (lowering/data_movement.py's `_chunk`)."""
from __future__ import annotations

import pytest
from mlir import ir

from tilec.analysis.banks import ideal_wavefronts, swizzled_offset, warp_wavefronts, wavefronts
from tilec.analysis.layouts import to_linear
from tilec.dialects import tilegpu as tg
from tilec.lowering.data_movement import _vector_widths


def test_one_warp_of_consecutive_words_is_one_wavefront():
    assert wavefronts([4 * lane for lane in range(32)], 4) == 1


def test_lanes_reading_one_word_share_it():
    assert wavefronts([64] * 32, 4) == 1


def test_words_of_one_bank_are_served_one_a_wavefront():
    assert wavefronts([128 * lane for lane in range(32)], 4) == 32
    assert wavefronts([128 * (lane % 2) for lane in range(32)], 4) == 2


def test_wide_accesses_are_served_in_phases():
    # 8 bytes a lane: two half-warps of 128 bytes; 16 bytes: four quarter-warps
    assert wavefronts([8 * lane for lane in range(32)], 8) == ideal_wavefronts(32, 8) == 2
    assert wavefronts([16 * lane for lane in range(32)], 16) == ideal_wavefronts(32, 16) == 4
    # two lanes of a half-warp 128 bytes apart: that half takes two
    addresses = [8 * lane for lane in range(32)]
    addresses[1] = 128
    assert wavefronts(addresses, 8) == 3


# (accumulator layout, destination layout of the vectorised store, shape, element)
CONVERSIONS = [
    (tg.MmaLayout((3, 0), (8, 1), (16, 256)), tg.BlockedLayout((1, 4), (1, 32), (4, 2), (1, 0)),
     (128, 256), "f32"),
    (tg.MmaLayout((3, 0), (4, 1), (16, 128)), tg.BlockedLayout((1, 4), (1, 32), (4, 1), (1, 0)),
     (128, 128), "f32"),
    (tg.MmaLayout((2, 0), (2, 2), (16, 8)), tg.BlockedLayout((1, 4), (2, 16), (4, 1), (1, 0)),
     (64, 64), "f32"),
    (tg.MmaLayout((3, 0), (4, 1), (16, 128)), tg.BlockedLayout((1, 8), (4, 8), (4, 1), (1, 0)),
     (128, 128), "f16"),
    (tg.MmaLayout((2, 0), (2, 2), (16, 8)), tg.BlockedLayout((1, 8), (4, 8), (4, 1), (1, 0)),
     (64, 64), "f16"),
]


def _accesses(linear, step, elements, size, columns, chunk, phases):
    """(wavefronts, ideal) of warp 0's accesses of `elements` a lane at registers 0, step, ..."""
    return warp_wavefronts(linear, step, elements, size,
                           lambda coords: swizzled_offset(*coords, columns, chunk, phases))


@pytest.mark.parametrize("src, dst, shape, element", CONVERSIONS, ids=lambda v: str(v))
@pytest.mark.parametrize("stmatrix", [False, True])
def test_vector_conversions_store_and_load_without_bank_conflicts(src, dst, shape, element,
                                                                  stmatrix):
    with ir.Context():
        widths = _vector_widths(src, dst, shape, ir.Type.parse(element), stmatrix)
    assert widths is not None
    write, read, chunk, addresses = widths
    size = 4 if element == "f32" else 2
    columns = shape[-1]
    phases = min(128 // (chunk * size), columns // chunk)
    source, dest = to_linear(src, shape), to_linear(dst, shape)
    if addresses is None:
        got, ideal = _accesses(source, write, write, size, columns, chunk, phases)
    else:  # stmatrix: one 16-byte row address a lane and register
        got, ideal = _accesses(addresses, 1, 8, size, columns, chunk, phases)
    assert got == ideal
    got, ideal = _accesses(dest, read, read, size, columns, chunk, phases)
    assert got == ideal
    # the swizzle keeps each vector in one chunk, and every element in its own slot
    assert chunk % write == 0 and chunk % read == 0
    offsets = {swizzled_offset(r, c, columns, chunk, phases)
               for r in range(shape[0]) for c in range(columns)}
    assert offsets == set(range(shape[0] * columns))


def test_an_fp32_accumulator_takes_32_byte_chunks():
    """The wgmma accumulator of fp32 stores 8 bytes a lane, 4 lanes 32 bytes of a row: with
    16-byte chunks a half-warp's 4 rows share 2 chunk pairs of a line (2 wavefronts a phase,
    what ncu counted in the tf32 matmul's epilogue); 32-byte chunks put them in 4."""
    src, dst, shape, _ = CONVERSIONS[0]
    with ir.Context():
        write, read, chunk, _ = _vector_widths(src, dst, shape, ir.F32Type.get(), True)
    assert (write, read, chunk) == (2, 4, 8)
    source = to_linear(src, shape)
    got, ideal = _accesses(source, 2, 2, 4, shape[-1], 4, 8)
    assert got == 2 * ideal
