"""Layout conversions that write with stmatrix (lowering/data_movement.py) against a model of the
instruction written from the PTX ISA manual ("Warp-level matrix store instruction: stmatrix",
9.7.14.5.16 in PTX ISA 8.x): `stmatrix.sync.aligned.m8n8.x4.shared.b16 [p], {r0, r1, r2, r3}`
stores four 8x8 matrices of 16-bit elements; register r_i of lane t holds row t / 4, columns
2 (t % 4) and 2 (t % 4) + 1 of matrix i (the low half first), and lane 8i + r gives the address
of row r of matrix i, 16 contiguous bytes.

For every layout the lowering sends through stmatrix, every element so stored must land at the
tensor coordinate the source layout gives that register of that lane: the row address a lane
gives (from `stmatrix_addresses`) plus the column within the row."""
from __future__ import annotations

import pytest

from tilec.analysis.layouts import to_linear
from tilec.dialects import tilegpu as tg
from tilec.lowering.data_movement import stmatrix_addresses


def stored_coordinates(linear, addresses):
    """{(warp, register, lane): coordinate} of every element stmatrix.x4 stores, as the model
    of the instruction says, reading each row's address from `addresses`."""
    out = {}
    last = len(linear.shape) - 1
    for warp in range(1 << len(linear.warp)):
        for group in range(addresses.num_registers):
            for lane in range(32):  # the lane giving the address of row r of matrix i
                matrix, row = lane >> 3, lane & 7
                start = addresses.coords(group, lane, warp)
                for column in range(8):
                    owner = 4 * row + column // 2  # the lane whose register holds it
                    register = 8 * group + 2 * matrix + column % 2
                    coord = list(start)
                    coord[last] += column
                    out[(warp, register, owner)] = tuple(coord)
    return out


ACCUMULATORS = [
    (tg.MmaLayout((2, 0), (2, 2), (16, 8)), (64, 64)),
    (tg.MmaLayout((2, 0), (4, 1), (16, 8)), (128, 128)),
    (tg.MmaLayout((2, 0), (1, 4), (16, 8)), (32, 256)),
    (tg.MmaLayout((3, 0), (4, 1), (16, 128)), (128, 128)),  # wgmma: one warpgroup per 64 rows
    (tg.MmaLayout((3, 0), (8, 1), (16, 256)), (128, 256)),
    (tg.MmaLayout((3, 0), (4, 2), (16, 64)), (64, 128)),
    # a blocked layout of pairs whose lanes 0-1 step the columns by 2 and 4 is the same shape
    (tg.BlockedLayout((1, 2), (8, 4), (4, 1), (1, 0)), (64, 64)),
]


@pytest.mark.parametrize("layout, shape", ACCUMULATORS, ids=lambda v: str(v))
def test_stmatrix_stores_every_register_where_the_layout_puts_it(layout, shape):
    linear = to_linear(layout, shape)
    addresses = stmatrix_addresses(linear, 2)
    assert addresses is not None
    stored = stored_coordinates(linear, addresses)
    expected = {(w, r, t): linear.coords(r, t, w) for w in range(1 << len(linear.warp))
                for r in range(linear.num_registers) for t in range(32)}
    assert stored == expected
    # each 16-byte row starts on a multiple of 8 elements
    assert all(c[-1] % 8 == 0 for w in range(1 << len(linear.warp))
               for g in range(addresses.num_registers) for t in range(32)
               for c in [addresses.coords(g, t, w)])


def test_layouts_stmatrix_cannot_take_are_refused():
    mma = to_linear(tg.MmaLayout((2, 0), (2, 2), (16, 8)), (64, 64))
    assert stmatrix_addresses(mma, 4) is None  # 32-bit elements
    rows = to_linear(tg.BlockedLayout((1, 8), (4, 8), (4, 1), (1, 0)), (64, 64))
    assert stmatrix_addresses(rows, 2) is None  # 8 registers along the row, not 2
    fours = to_linear(tg.BlockedLayout((1, 4), (8, 4), (4, 1), (1, 0)), (64, 64))
    assert stmatrix_addresses(fours, 2) is None  # lane 0 steps the columns by 4, not 2
    columns = to_linear(tg.BlockedLayout((2, 1), (4, 8), (4, 1), (0, 1)), (64, 64))
    assert stmatrix_addresses(columns, 2) is None  # register bit 0 steps the rows
    small = to_linear(tg.MmaLayout((2, 0), (4, 1), (16, 8)), (64, 8))
    assert stmatrix_addresses(small, 2) is None  # 4 registers: no x4 group
