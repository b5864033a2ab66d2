"""`tl.dot` on wgmma (sm_90a): fp16 and bf16 products whose A and B wgmma reads from shared
memory, in every operand order (transposed views through strides), K tails, masks, `acc=`,
chained dots, 4 and 8 warps and blocks of 64 to 256. Each checks the result against NumPy and
that the kernel ran on wgmma (its PTX, from the handle the launch returns); test_wgmma.py checks
on the CPU that the benchmarked configurations neither spill nor serialise. Needs an H100/H200-class GPU: `pytest -m gpu` on the GPU machine."""
from __future__ import annotations

import dot_kernels as D
import numpy as np
import pytest
from test_gpu_dot import (BF16, TOL, assert_dot_close, cdiv, operand, reference, strides, to_gpu,
                          to_host)

import tilec.language as tl

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

DTYPES = {"fp16": np.float16, "bf16": BF16}


def on_wgmma(handle) -> bool:
    return "wgmma.mma_async" in handle.asm["ptx"] and "mma.sync" not in handle.asm["ptx"]


def matmul(a, b, block, num_warps, num_stages=3):
    """C = A @ B (fp32, int32 for int8) through dot_kernels.matmul; (C on the host, the
    launch's handle)."""
    (M, K), N = a.shape, b.shape[1]
    integer = a.dtype == np.int8
    c = np.full((M, N), -12345 if integer else np.nan, np.int32 if integer else np.float32)
    ga, gb, gc = to_gpu([a, b, c])
    bm, bn, bk = block
    handle = D.matmul[(cdiv(M, bm), cdiv(N, bn))](
        ga, gb, gc, M, N, K, *strides(a), *strides(b), *strides(c), BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, PRECISION="tf32", ACC_DTYPE=tl.int32 if integer else tl.float32,
        num_warps=num_warps, num_stages=num_stages)
    return to_host(gc), handle


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("block, num_warps", [
    ((64, 64, 32), 4), ((64, 128, 64), 4), ((128, 128, 64), 4), ((128, 128, 64), 8),
    ((128, 256, 64), 8), ((256, 128, 64), 8), ((64, 256, 32), 8), ((128, 64, 128), 4)],
    ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else f"w{v}")
def test_blocks_and_warps(dtype, block, num_warps):
    M, N, K = 2 * block[0] + 40, 2 * block[1] + 24, 3 * block[2] + 16  # M and N tails masked
    a, b = operand(DTYPES[dtype], (M, K)), operand(DTYPES[dtype], (K, N))
    out, handle = matmul(a, b, block, num_warps)
    assert_dot_close(out, reference(a, b), TOL[dtype], K)
    assert on_wgmma(handle)


@pytest.mark.parametrize("a_t, b_t", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["AB", "AtB", "ABt", "AtBt"])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_operand_orders(dtype, a_t, b_t):
    """Transposed views make A M-major and B K-major in shared memory: wgmma reads each in its
    order (the descriptors' transpose bits), no copy transposes them."""
    M, N, K = 192, 160, 200
    a = operand(DTYPES[dtype], (M, K), transposed=a_t)
    b = operand(DTYPES[dtype], (K, N), transposed=b_t)
    out, handle = matmul(a, b, (64, 32, 64), 4)
    assert_dot_close(out, reference(a, b), TOL[dtype], K)
    assert on_wgmma(handle)


@pytest.mark.parametrize("K", [16, 40, 100, 257], ids=lambda k: f"K{k}")
def test_k_tails_and_stages(K):
    a, b = operand(np.float16, (128, K)), operand(np.float16, (K, 128))
    for stages in (1, 2, 4):
        out, handle = matmul(a, b, (128, 128, 32), 4, num_stages=stages)
        assert_dot_close(out, reference(a, b), TOL["fp16"], K)
        assert on_wgmma(handle)


def test_accumulator_given_with_acc():
    M, N, K = 130, 200, 96
    a, b = operand(np.float16, (M, K)), operand(np.float16, (K, N))
    c0 = operand(np.float32, (M, N))
    ga, gb, gc = to_gpu([a, b, c0.copy()])
    handle = D.matmul_acc_in[(cdiv(M, 64), cdiv(N, 128))](
        ga, gb, gc, M, N, K, *strides(a), *strides(b), BLOCK_M=64, BLOCK_N=128, BLOCK_K=32)
    assert_dot_close(to_host(gc), reference(a, b) + c0, TOL["fp16"], K)
    assert on_wgmma(handle)


@pytest.mark.parametrize("num_warps", [4, 8])
def test_chained_dots(num_warps):
    """(A @ B).to(fp16) @ C: the first wgmma's accumulator becomes the second one's A."""
    M, N, K, P = 256, 64, 96, 128
    a, b = operand(np.float16, (M, K)), operand(np.float16, (K, N))
    c = operand(np.float16, (N, P))
    ga, gb, gc, gout = to_gpu([a, b, c, np.full((M, P), np.nan, np.float32)])
    handle = D.chained_dot[(cdiv(M, 128),)](ga, gb, gc, gout, M, N, K, P, BLOCK_M=128,
                                            BLOCK_N=64, BLOCK_K=32, BLOCK_P=128,
                                            num_warps=num_warps)
    first = reference(a, b).astype(np.float32).astype(np.float16)
    assert_dot_close(to_host(gout), reference(first, c), TOL["fp16"], N)
    assert on_wgmma(handle)


@pytest.mark.parametrize("dtype, tol", [(np.float32, "tf32"), (np.int8, "int8")],
                         ids=["tf32", "int8"])
@pytest.mark.parametrize("block, num_warps", [((64, 64, 32), 4), ((128, 128, 64), 8)],
                         ids=["64x64x32-w4", "128x128x64-w8"])
def test_tf32_and_int8_b_orders(dtype, tol, block, num_warps):
    """tf32 (k8) and int8 (k32) wgmma read both operands K-major: B given as a transposed
    view runs along K. A row-major B is copied into a K-major buffer element by element for
    tf32 (4-byte cp.async) and stays on mma.sync for int8 (whose bytes cp.async cannot copy
    one by one). wgmma takes fp32 operands as tf32 by dropping their low mantissa bits."""
    M, N, K = 2 * block[0] + 8, 2 * block[1] + 16, 4 * block[2]
    a = operand(dtype, (M, K))
    b = operand(dtype, (K, N), transposed=True)
    out, handle = matmul(a, b, block, num_warps)
    assert_dot_close(out, reference(a, b), TOL[tol], K)
    assert on_wgmma(handle)
    out, row_major = matmul(a, np.ascontiguousarray(b), block, num_warps)
    assert_dot_close(out, reference(a, b), TOL[tol], K)
    if dtype == np.float32:
        assert on_wgmma(row_major) and "cp.async.ca.shared.global" in row_major.asm["ptx"]
    else:
        assert "mma.sync" in row_major.asm["ptx"] and "wgmma" not in row_major.asm["ptx"]


@pytest.mark.parametrize("num_warps", [4, 8])
def test_row_maximum_of_a_wgmma_accumulator(num_warps):
    M, N, K = 200, 100, 96
    a, b = operand(np.float16, (M, K)), operand(np.float16, (K, N))
    ga, gb, gout = to_gpu([a, b, np.full(M, np.nan, np.float32)])
    handle = D.dot_row_max[(cdiv(M, 128),)](ga, gb, gout, M, N, K, BLOCK_M=128, BLOCK_N=128,
                                            BLOCK_K=32, num_warps=num_warps)
    assert_dot_close(to_host(gout), reference(a, b).max(axis=1), TOL["fp16"], K)
    assert on_wgmma(handle)


@pytest.mark.parametrize("block_n, head_dim", [(64, 64), (64, 128), (128, 128)])
def test_attention_forward(block_n, head_dim):
    """dot_kernels.attention_fwd (online softmax, P @ V from registers) against softmax(Q K^T
    * scale) V in float64 on the same fp16 inputs."""
    heads, seq = 3, 512
    q, k, v = (operand(np.float16, (heads * seq, head_dim)) for _ in range(3))
    scale = head_dim ** -0.5
    gq, gk, gv, gout = to_gpu([q, k, v, np.full_like(q, np.nan)])
    handle = D.attention_fwd[(seq // 128, heads)](gq, gk, gv, gout, scale, seq, head_dim,
                                                 head_dim, head_dim, head_dim,
                                                 HEAD_DIM=head_dim, BLOCK_M=128,
                                                 BLOCK_N=block_n, num_warps=8, num_stages=2)
    out = to_host(gout).astype(np.float64).reshape(heads, seq, head_dim)
    q3, k3, v3 = (x.astype(np.float64).reshape(heads, seq, head_dim) for x in (q, k, v))
    s = q3 @ k3.transpose(0, 2, 1) * scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    ref = (p / p.sum(axis=-1, keepdims=True)) @ v3
    np.testing.assert_allclose(out, ref, atol=2e-2, rtol=2e-2)
    assert on_wgmma(handle) and handle.n_spills == 0


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_fused_attention_tutorial(head_dim, causal, dtype):
    """tutorials/06-fused-attention.py on the GPU, forward and backward: Out, dQ, dK and dV
    against float64 NumPy on the same inputs (3 heads of 512 tokens)."""
    from tutorial_loader import tutorial
    t = tutorial("06-fused-attention")
    hosts = [operand(DTYPES[dtype], (3, 512, head_dim)) for _ in range(4)]
    q, k, v, dout = to_gpu(hosts)
    out, lse = t.attention(q, k, v, causal)
    grads = t.attention_backward(q, k, v, out, lse, dout, causal)

    def host(d):
        return to_host(d) if isinstance(d, cupy.ndarray) else d.float().cpu().numpy()
    tol = 2e-2 if dtype == "fp16" else 6e-2
    for name, got, want in zip(("out", "dq", "dk", "dv"), (out, *grads),
                               t.reference(*hosts, causal)):
        np.testing.assert_allclose(host(got).astype(np.float64), want, atol=tol, rtol=tol,
                                   err_msg=name)
