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

KERNELS = ("matmul_kernel", "matmul_desc_kernel", "matmul_persistent_desc_kernel",
           "matmul_persistent_device_kernel")


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


@jit
def persistent_tiles(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                     NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    # A persistent program's walk over the output tiles start, start + NUM_SMS, ... (in
    # grouped order, tile t as program t of matmul_desc_kernel would take it), each computed
    # through the descriptors; the tile loop may be warp-specialised (the producer then runs
    # into the next tile while the consumers store this one).
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_pid_n
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True,
                         warp_specialize=WARP_SPECIALIZE):
        first_m = (tile // per_group) * GROUP_M
        rows = min(num_pid_m - first_m, GROUP_M)
        off_m = (first_m + (tile % per_group) % rows) * BLOCK_M
        off_n = ((tile % per_group) // rows) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            acc = tl.dot(a_desc.load([off_m, k * BLOCK_K]), b_desc.load([k * BLOCK_K, off_n]),
                         acc)
        c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


def matmul_persistent_desc_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                  GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
                                  WARP_SPECIALIZE: tl.constexpr = False):
    # The persistent matmul through host descriptors (as matmul_desc_kernel's).
    persistent_tiles(a_desc, b_desc, c_desc, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M,
                     NUM_SMS, WARP_SPECIALIZE)


def matmul_persistent_device_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                    GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
                                    WARP_SPECIALIZE: tl.constexpr = False):
    # The persistent matmul through descriptors the kernel makes of contiguous A, B and C
    # (TMA maps written into global scratch on Hopper: set_allocator in both frameworks).
    persistent_tiles(tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BLOCK_M, BLOCK_K]),
                     tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BLOCK_K, BLOCK_N]),
                     tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N]),
                     M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, NUM_SMS, WARP_SPECIALIZE)
