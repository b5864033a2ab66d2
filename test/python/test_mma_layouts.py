"""Batched (rank-3) mma.sync layouts and their operands (analysis/layouts.py): each batch element
is laid out exactly as the 2-D layout of the last two dimensions lays out its matrix, over the
warps the batch leaves, and every element of the tensor has one owner (or the same element in
warps the batch cannot use)."""
from __future__ import annotations

import pytest

from tilec.analysis.layouts import to_linear
from tilec.dialects import tilegpu as tg

# (warps_per_cta [batch, M, N], shape of the result [B, M, N], K)
CASES = [((2, 2, 1), (4, 32, 32), 64), ((4, 1, 2), (4, 32, 32), 16), ((1, 2, 2), (2, 64, 32), 32),
         ((8, 1, 1), (8, 16, 16), 16), ((4, 2, 1), (2, 32, 16), 32)]


def owners(linear):
    """{coordinate: set of (warp, lane, register)} over the whole layout."""
    out: dict = {}
    for warp in range(1 << len(linear.warp)):
        for lane in range(1 << len(linear.lane)):
            for reg in range(linear.num_registers):
                out.setdefault(linear.coords(reg, lane, warp), set()).add((warp, lane, reg))
    return out


@pytest.mark.parametrize("warps, shape, k", CASES, ids=str)
@pytest.mark.parametrize("which", ["acc", "a", "b"])
def test_each_batch_element_holds_the_2d_layout(warps, shape, k, which):
    batch, m, n = shape
    mma3 = tg.MmaLayout((2, 0), warps, (1, 16, 8))
    mma2 = tg.MmaLayout((2, 0), warps[1:], (16, 8))
    if which == "acc":
        l3, l2, tail = mma3, mma2, (m, n)
    else:
        index = 0 if which == "a" else 1
        l3, l2 = tg.DotOperandLayout(index, mma3, 2), tg.DotOperandLayout(index, mma2, 2)
        tail = (m, k) if which == "a" else (k, n)
    linear3, linear2 = to_linear(l3, (batch, *tail)), to_linear(l2, tail)
    flat = owners(linear2)
    held = owners(linear3)
    assert set(held) == {(z, *c) for z in range(batch) for c in flat}
    warps_2d = 1 << len(linear2.warp)
    for (z, *rest), where in held.items():
        # lanes and the low warp bits as in 2-D; the batch picked by high warp bits or registers
        assert {(w % warps_2d, lane) for w, lane, _ in where} == \
            {(w, lane) for w, lane, _ in flat[tuple(rest)]}


def test_batch_beyond_the_warps_goes_to_registers():
    linear = to_linear(tg.MmaLayout((2, 0), (2, 2, 1), (1, 16, 8)), (8, 32, 8))
    assert (2, 0, 0) in linear.register and (4, 0, 0) in linear.register
    assert (1, 0, 0) in linear.warp


def test_rank_3_is_mma_sync_only():
    with pytest.raises(ValueError, match="rank 2"):
        tg.MmaLayout((3, 0), (4, 1, 1), (1, 16, 64))
    with pytest.raises(ValueError, match=r"\[1, 16, 8\]"):
        tg.MmaLayout((2, 0), (1, 4, 1), (16, 8, 1))
