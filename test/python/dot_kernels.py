"""Kernels for the `tl.dot` tests (test_gpu_dot.py): matrix products in the shapes, dtypes,
layouts and loop forms that the tensor-core lowering and the pipeliner must get right. Each runs
in the interpreter too, which is the reference for the GPU.

Every kernel masks every dimension, so M, N and K need not be multiples of the blocks, and K may
be 0 (a loop of no trips: the zero accumulator is stored)."""
import tilec
import tilec.language as tl


@tilec.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
           stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
           BLOCK_K: tl.constexpr, PRECISION: tl.constexpr, ACC_DTYPE: tl.constexpr):
    """C = A @ B, one BLOCK_M x BLOCK_N tile of C per program of a 2-D grid. The accumulator is
    ACC_DTYPE (tl.dot's out_dtype) and is stored as C's element type (tl.store casts)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_DTYPE)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC_DTYPE)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@tilec.jit
def matmul_loop_stages(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                       stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, STAGES: tl.constexpr):
    """`matmul` in fp32 accumulation with the pipeline depth asked per loop:
    `tl.range(..., num_stages=STAGES)` (it overrides the launch's num_stages)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=STAGES):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@tilec.jit
def matmul_epilogue(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                    stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EPILOGUE: tl.constexpr):
    """fp16 A @ B accumulated in fp32, then an epilogue fused before the fp16 store:
    "to_fp16" is `acc.to(tl.float16)`; "bias_relu" adds bias[N] (fp32) to every row, applies
    relu, then converts."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if EPILOGUE == "bias_relu":
        bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
        acc = tl.maximum(acc + bias[None, :], 0.0)
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@tilec.jit
def batched_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_bb,
                   stride_bk, stride_bn, stride_cb, stride_cm, stride_cn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C[z] = A[z] @ B[z] (fp16 in, fp32 out) for z = program_id(2): batched through the grid."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = (a_ptr + batch * stride_ab + offs_m[:, None] * stride_am
              + offs_k[None, :] * stride_ak)
    b_ptrs = (b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk
              + offs_n[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = (c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm
              + offs_n[None, :] * stride_cn)
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@tilec.jit
def dot_3d(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
           K: tl.constexpr, PRECISION: tl.constexpr = "tf32", ACC_DTYPE: tl.constexpr = None):
    """One program, one batched tl.dot of 3-D blocks: C[B, M, N] = A[B, M, K] @ B[B, K, N],
    all contiguous, no masks (the block is the whole array); out_dtype ACC_DTYPE (None: the
    default for the inputs)."""
    offs_b = tl.arange(0, B)[:, None, None]
    offs_m = tl.arange(0, M)[None, :, None]
    offs_n = tl.arange(0, N)[None, None, :]
    offs_ka = tl.arange(0, K)[None, None, :]
    offs_kb = tl.arange(0, K)[None, :, None]
    a = tl.load(a_ptr + offs_b * (M * K) + offs_m * K + offs_ka)
    b = tl.load(b_ptr + offs_b * (K * N) + offs_kb * N + offs_n)
    if ACC_DTYPE is None:
        c = tl.dot(a, b, input_precision=PRECISION)
    else:
        c = tl.dot(a, b, input_precision=PRECISION, out_dtype=ACC_DTYPE)
    tl.store(c_ptr + offs_b * (M * N) + offs_m * N + offs_n, c)


@tilec.jit
def dot_3d_loop(a_ptr, b_ptr, c_ptr, K, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                BLOCK_K: tl.constexpr):
    """C[B, M, N] = A[B, M, K] @ B[B, K, N] (contiguous) by a loop of 3-D dots over K in steps
    of BLOCK_K (K a multiple of it), fp32 accumulator in the loop."""
    offs_b = tl.arange(0, B)[:, None, None]
    offs_m = tl.arange(0, M)[None, :, None]
    offs_n = tl.arange(0, N)[None, None, :]
    offs_ka = tl.arange(0, BLOCK_K)[None, None, :]
    offs_kb = tl.arange(0, BLOCK_K)[None, :, None]
    acc = tl.zeros((B, M, N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_b * (M * K) + offs_m * K + k + offs_ka)
        b = tl.load(b_ptr + offs_b * (K * N) + (k + offs_kb) * N + offs_n)
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_b * (M * N) + offs_m * N + offs_n, acc)


@tilec.jit
def rows_times_b(a_ptr, b_ptr, offs_m, offs_n, M, N, K, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """(A @ B)[offs_m, offs_n] in fp32 for contiguous A [M, K] and B [K, N], masked, looping
    over K in BLOCK_K steps (the first product of chained_dot and dot_row_max)."""
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * K + kk[None, :],
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * N + offs_n[None, :],
                    mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0)
        acc = tl.dot(a, b, acc)
    return acc


@tilec.jit
def chained_dot(a_ptr, b_ptr, c_ptr, out_ptr, M, N, K, P, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_P: tl.constexpr):
    """OUT = (A @ B).to(fp16) @ C for contiguous A [M, K], B [K, N], C [N, P]: one BLOCK_M rows
    of OUT per program, the first product's N and the second's P in one block each (the
    chained form of attention's P @ V)."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_p = tl.arange(0, BLOCK_P)
    acc = rows_times_b(a_ptr, b_ptr, offs_m, offs_n, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K)
    c = tl.load(c_ptr + offs_n[:, None] * P + offs_p[None, :],
                mask=(offs_n[:, None] < N) & (offs_p[None, :] < P), other=0)
    out = tl.dot(acc.to(tl.float16), c)
    tl.store(out_ptr + offs_m[:, None] * P + offs_p[None, :], out,
             mask=(offs_m[:, None] < M) & (offs_p[None, :] < P))


@tilec.jit
def matmul_acc_in(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C += A @ B with C [M, N] contiguous fp32: the accumulator starts as C's tile (acc=)."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    acc = tl.load(c_ptrs, mask=c_mask, other=0)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0)
        acc = tl.dot(a, b, acc=acc)
    tl.store(c_ptrs, acc, mask=c_mask)


@tilec.jit
def dot_row_max(a_ptr, b_ptr, out_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                BLOCK_K: tl.constexpr):
    """OUT[m] = max over n of (A @ B)[m, n] for contiguous A [M, K] and B [K, N], one BLOCK_M
    rows per program and all of N in one block: a reduction of a dot's accumulator along its
    rows, as attention's running maximum."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    acc = rows_times_b(a_ptr, b_ptr, offs_m, offs_n, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K)
    acc = tl.where(offs_n[None, :] < N, acc, float("-inf"))
    tl.store(out_ptr + offs_m, tl.max(acc, axis=1), mask=offs_m < M)


@tilec.jit
def attention_fwd(Q, K, V, Out, sm_scale, seq_len, stride_qm, stride_km, stride_vm, stride_om,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Out = softmax(Q K^T * sm_scale) V per (batch * head) of contiguous [B*H, seq_len, HEAD_DIM]
    fp16 tensors, the online softmax of flash attention: Q kept in a block, a loop over K/V
    blocks, the running maximum and sum along rows, the accumulator rescaled each trip and
    P @ V chained to Q K^T. seq_len is a multiple of BLOCK_M and BLOCK_N."""
    start_m = tl.program_id(0)
    base = tl.program_id(1) * seq_len
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + (base + offs_m)[:, None] * stride_qm + offs_d[None, :])
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32) + 1.0
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp(x) = exp2(x * log2(e))
    for start_n in range(0, seq_len, BLOCK_N):
        k = tl.load(K + (base + start_n + offs_n)[None, :] * stride_km + offs_d[:, None])
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + (base + start_n + offs_n)[:, None] * stride_vm + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + (base + offs_m)[:, None] * stride_om + offs_d[None, :], acc.to(tl.float16))
