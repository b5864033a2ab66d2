"""Block pointers (tl.make_block_ptr, tl.advance, boundary_check, padding_option): in the
interpreter, compiled (on this machine) and on the GPU (test_gpu_backend.py)."""
from __future__ import annotations

import numpy as np
import pytest

import gpu_kernels as G
import tilec
import tilec.language as tl
from tilec.errors import CompilationError
from interpreting import interpret

RNG = np.random.default_rng(7)


def test_a_block_pointer_matmul_masks_its_edge_tiles_in_the_interpreter():
    """50 x 70 @ 70 x 40 in 16-blocks: the last tile of every dimension is partial, read as
    zeros past the edge and written only inside it (C is one row wider than N: the column past
    N keeps its sentinel)."""
    M, N, K = 50, 40, 70
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((N, K)).astype(np.float32).T  # K-major B: strides (1, K)
    out = np.full(M * N + 8, -7.0, np.float32)
    interpret(G.block_ptr_matmul, (4, 3), a, np.ascontiguousarray(b.T), out, M, N, K, K, 1, 1,
              K, BM=16, BN=16, BK=16)
    np.testing.assert_allclose(out[:M * N].reshape(M, N), a @ b, rtol=2e-2, atol=2e-2)
    assert (out[M * N:] == -7.0).all()


@pytest.mark.parametrize("check, pad, start", [(True, "zero", -3), (True, "nan", 5),
                                               (True, "", 10), (False, "", 2)])
def test_boundary_check_and_padding_option_in_the_interpreter(check, pad, start):
    n, BLOCK = 12, 8
    x = np.arange(1, n + 1, dtype=np.float32)
    out = np.full(n + BLOCK, -1.0, np.float32)
    interpret(G.block_ptr_padding, (1,), x, out, n, start, CHECK=check, PAD=pad, BLOCK=BLOCK)
    idx = np.arange(start, start + BLOCK)
    fill = np.nan if pad == "nan" else 0.0
    expected_lanes = np.where((idx >= 0) & (idx < n), x[np.clip(idx, 0, n - 1)], fill)
    written = idx + BLOCK
    expected = np.full(n + BLOCK, -1.0, np.float32)
    inside = (written >= 0) & (written < n + BLOCK) if check else np.ones(BLOCK, bool)
    expected[written[inside]] = expected_lanes[inside]
    np.testing.assert_array_equal(out, expected)


def test_a_block_pointer_loop_compiles_to_wgmma_with_carried_offsets():
    """The K loop carries the block pointers' offsets (not their shapes or strides, which it
    does not change: they fold), and the dot of the loads is a wgmma fed by cp.async."""
    compiled = tilec.compile(
        G.block_ptr_matmul, signature={"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp32:16",
                                       "M": "i32:16", "N": "i32:16", "K": "i32:16", "stride_am": "i32:16",
                                       "stride_bk": "i32:16"},
        constexprs={"stride_ak": 1, "stride_bn": 1, "BM": 64, "BN": 64, "BK": 32},
        num_warps=4, stop_after="ptx")
    ptx = compiled.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "cp.async.cg" in ptx and "st.global.v4" in ptx


@tilec.jit
def _bad_block_ptr(x_ptr, CASE: tl.constexpr):
    if CASE == 0:
        p = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 6), (1, 0))
    elif CASE == 1:
        p = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (0, 0))
    elif CASE == 2:
        p = tl.make_block_ptr(x_ptr, (8,), (8, 1), (0, 0), (8, 8), (1, 0))
    elif CASE == 3:
        p = tl.make_block_ptr(x_ptr + tl.arange(0, 8), (8,), (1,), (0,), (8,), (0,))
    else:
        p = tl.make_block_ptr(x_ptr, (8,), (1,), (0,), (8,), (0,))
    if CASE == 4:
        tl.load(p, mask=tl.arange(0, 8) < 4)
    elif CASE == 5:
        tl.load(p, boundary_check=(1,))
    elif CASE == 6:
        tl.load(x_ptr + tl.arange(0, 8), boundary_check=(0,))
    elif CASE == 7:
        tl.load(p, boundary_check=(0,), padding_option="ones")
    else:
        tl.load(tl.advance(p, (1, 2)))


@pytest.mark.parametrize("case, message", [
    (0, "powers of two"), (1, "permutation"), (2, "one entry per dimension"),
    (3, "scalar pointer"), (4, "cannot be given for a block pointer"),
    (5, "dimensions of the block"), (6, "block pointers"), (7, "'zero' or 'nan'"),
    (8, "2 offsets for a block pointer of rank 1")])
def test_block_pointer_mistakes_are_errors_at_the_line_in_both_modes(case, message):
    with pytest.raises(CompilationError, match=message) as compiled:
        tilec.compile(_bad_block_ptr, signature={"x_ptr": "*fp32"}, constexprs={"CASE": case},
                      stop_after="tile")
    x = np.zeros(64, np.float32)
    with pytest.raises(CompilationError, match=message) as interpreted:
        interpret(_bad_block_ptr, (1,), x, CASE=case)
    assert compiled.value.line == interpreted.value.line


def _carried_reference(x, BLOCK):
    acc, prod, i = np.zeros(BLOCK, np.float32), 1.0, 0
    while i < len(x) // BLOCK:
        v = x[i * BLOCK:(i + 1) * BLOCK]
        acc, prod = acc + v, prod * 2.0
        i += 2 if v[0] < 0 else 1
    return acc * prod


def test_loops_and_ifs_carry_tuples_and_block_pointers():
    """A `while` carries a tuple and a block pointer by their run-time parts (the block shape
    stays compile-time); a runtime `if` merges two block pointers. The interpreter computes
    what NumPy does; the compiled loop carries exactly those parts."""
    BLOCK = 8
    x = np.array([1, -1, 2, 3, -5, 1, 2, 2] * 6, np.float32) + np.arange(48, dtype=np.float32)
    x[16] = -3.0
    out = np.zeros(BLOCK, np.float32)
    interpret(G.carried_structures, (1,), x, out, len(x), BLOCK=BLOCK)
    np.testing.assert_allclose(out, _carried_reference(x, BLOCK))
    compiled = tilec.compile(G.carried_structures, signature={"x_ptr": "*fp32", "out_ptr": "*fp32",
                                                              "n": "i32"},
                             constexprs={"BLOCK": BLOCK}, stop_after="tile")
    loop = next(line for line in compiled.asm["tile"].splitlines() if "scf.while" in line)
    # the sum, the product, the block pointer's offset and i; its base, shape and stride are
    # carried too but the loop does not change them, so canonicalization folds them away
    assert loop.endswith("-> (tensor<8xf32>, f32, i32, i32) {"), loop
