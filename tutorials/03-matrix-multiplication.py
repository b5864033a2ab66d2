"""Matrix multiplication with grouped program ordering.

Each program computes one BLOCK_SIZE_M x BLOCK_SIZE_N tile of C = A @ B, walking K in steps of
BLOCK_SIZE_K. Programs are ordered in groups of GROUP_SIZE_M rows of tiles so that the tiles of
A and B that neighbouring programs read are still in L2. The block sizes, warps and pipeline
stages come from `@tilec.autotune`: the first launch for a shape times each config and keeps the
fastest, on disk too, so a second run does not tune again (`TILEC_PRINT_AUTOTUNING=1` shows
which happened). Print its tile IR (the kernel under the autotuner) with:

    tilec compile tutorials/03-matrix-multiplication.py:matmul_kernel \\
        --signature '*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32,i32:16,i32,i32:16,i32' \\
        --constexpr BLOCK_SIZE_M=128,BLOCK_SIZE_N=128,BLOCK_SIZE_K=64,GROUP_SIZE_M=8 \\
        --constexpr ACTIVATION=leaky_relu --emit tile
"""
import os

import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


def autotune_configs():
    return [
        tilec.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32,
                      "GROUP_SIZE_M": 8}, num_warps=4, num_stages=4),
        tilec.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,
                      "GROUP_SIZE_M": 8}, num_warps=8, num_stages=3),
        tilec.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                      "GROUP_SIZE_M": 8}, num_warps=4, num_stages=3),
        tilec.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32,
                      "GROUP_SIZE_M": 8}, num_warps=4, num_stages=4),
        tilec.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32,
                      "GROUP_SIZE_M": 8}, num_warps=4, num_stages=4),
    ]


@tilec.autotune(configs=autotune_configs(), key=["M", "N", "K"])
@tilec.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                  ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(a, b, activation=""):
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, "incompatible dimensions"
    c = empty_like_module(a, (M, N), np.float16)
    # The grid depends on the block sizes the autotuner picks: it sees them in META.
    grid = lambda META: (tilec.cdiv(M, META["BLOCK_SIZE_M"]) * tilec.cdiv(N, META["BLOCK_SIZE_N"]),)
    item = a.itemsize
    matmul_kernel[grid](a, b, c, M, N, K, a.strides[0] // item, a.strides[1] // item,
                        b.strides[0] // item, b.strides[1] // item, c.strides[0] // item,
                        c.strides[1] // item, ACTIVATION=activation)
    return c


def empty_like_module(a, shape, dtype):
    """An empty array of the same library as `a` (NumPy for the interpreter, CuPy on a GPU)."""
    if isinstance(a, np.ndarray):
        return np.empty(shape, dtype=dtype)
    import cupy
    return cupy.empty(shape, dtype=dtype)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 512)).astype(np.float16)
    b = rng.standard_normal((512, 512)).astype(np.float16)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    if os.environ.get("TILEC_INTERPRET", "0") in ("", "0"):  # on the GPU
        import cupy
        c = cupy.asnumpy(matmul(cupy.asarray(a), cupy.asarray(b)))
    else:
        c = matmul(a, b)
    np.testing.assert_allclose(c.astype(np.float32), expected, rtol=1e-2, atol=1e-1)
    print(f"matmul matches NumPy (config: {matmul_kernel.best_config})")
