"""The kernels of bench/matmul.py (matmul_kernel) and bench/matmul_tma.py (matmul_desc_kernel,
and matmul_kernel beside it), one source for tilec and Triton.

Like bench/kernels.py (which the other benchmarks share), this file is executed as a fresh module
with `tl` bound to `tilec.language` or `triton.language` before it runs (bench/matmul.py's
`load_kernel`), so both frameworks compile the very same text.
"""
try:
    tl  # bound by bench/matmul.py before this file runs  # noqa: B018
except NameError:  # imported on its own: tilec's language
    import tilec.language as tl
    from tilec import jit

KERNELS = ("matmul_kernel", "matmul_desc_kernel")


@jit
def grouped_tile(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # This program's tile (pid_m, pid_n): programs go in groups of GROUP_M rows of tiles so
    # that neighbouring programs share tiles of A and B in L2 (Triton's tutorial 03).
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, ACC_INT: tl.constexpr = False,
                  IMPRECISE: tl.constexpr = None):
    # tutorials/03-matrix-multiplication.py (Triton's tutorial 03) without the activation:
    # C = A @ B, accumulated in fp32 (int32 for integers: ACC_INT), stored as C's element
    # type (fp16 for fp16 inputs, the bench's default); programs in groups of GROUP_M rows of
    # tiles so that neighbouring programs share tiles of A and B in L2; rows and columns past
    # M and N wrap (`% M`), K is masked. IMPRECISE: tl.dot's max_num_imprecise_acc (fp8).
    pid_m, pid_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    acc_type = tl.int32 if ACC_INT else tl.float32
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=acc_type)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator, out_dtype=acc_type,
                             max_num_imprecise_acc=IMPRECISE)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul_desc_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                       WARP_SPECIALIZE: tl.constexpr = False):
    # bench/matmul_kernel.py's matmul through host tensor descriptors of A [M, K], B [K, N]
    # and C [M, N] (blocks [BLOCK_M, BLOCK_K], [BLOCK_K, BLOCK_N], [BLOCK_M, BLOCK_N]): on
    # Hopper the loads are TMA copies; out-of-bounds rows, columns and K are zeros, and the
    # store drops what lies outside C. WARP_SPECIALIZE asks for a producer warpgroup issuing
    # the loads (a hint to both compilers).
    pid_m, pid_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        accumulator = tl.dot(a, b, accumulator)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], accumulator.to(c_desc.dtype))
