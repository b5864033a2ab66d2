"""The flash-attention forward kernel of bench/attention.py, one source for tilec and Triton.

Like bench/matmul_kernel.py this file runs as a fresh module with `tl` and `jit` bound to one
framework's (bench/common.py's `load_kernels`), so both compile the same text. It is written the
way Triton users write attention: Q's block loaded once and kept, a loop over blocks of K and V,
`qk = tl.dot(q, k)`, the online softmax (running row maximum and sum, `tl.exp2`), the
accumulator rescaled by `alpha[:, None]` and `acc = tl.dot(p.to(V's type), v, acc)`. Causal
attention splits the loop: the blocks left of the diagonal need no mask, the diagonal ones do.
"""
try:
    tl  # bound by bench/common.py before this file runs  # noqa: B018
    jit  # noqa: B018
except NameError:  # imported on its own: tilec's language
    import tilec
    import tilec.language as tl
    jit = tilec.jit

KERNELS = ("attention_fwd",)


@jit
def _attend(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, start, stop, qk_scale,
            HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr):
    """The online softmax over the key blocks [start, stop) of one block of queries."""
    for start_n in range(start, stop, BLOCK_N):
        k = tl.load(k_base + (start_n + offs_n)[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, k)
        if MASKED:
            causal = offs_m[:, None] >= (start_n + offs_n)[None, :]
            qk = qk * qk_scale + tl.where(causal, 0.0, float("-inf"))
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk = qk - m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.exp2(qk)
        alpha = tl.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_base + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


def attention_fwd(Q, K, V, Out, sm_scale, seq_len, HEAD_DIM: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """Out = softmax(Q K^T * sm_scale) V for contiguous [batch * heads, seq_len, HEAD_DIM]
    tensors: program (m, bh) computes BLOCK_M rows of head bh. seq_len is a multiple of
    BLOCK_M and BLOCK_N (BLOCK_M a multiple of BLOCK_N)."""
    start_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * seq_len * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32) + 1.0
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # exp(x) = exp2(x * log2(e))
    k_base, v_base = K + base, V + base
    if CAUSAL:
        diagonal = start_m * BLOCK_M
        acc, l_i, m_i = _attend(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, 0,
                                diagonal, qk_scale, HEAD_DIM, BLOCK_N, False)
        acc, l_i, m_i = _attend(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d,
                                diagonal, diagonal + BLOCK_M, qk_scale, HEAD_DIM, BLOCK_N, True)
    else:
        acc, l_i, m_i = _attend(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, 0,
                                seq_len, qk_scale, HEAD_DIM, BLOCK_N, False)
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
             acc.to(Out.dtype.element_ty))
