"""Fused attention (flash attention), forward and backward.

Out = softmax(Q K^T * sm_scale) V per head, for contiguous [batch * heads, seq_len, HEAD_DIM]
tensors, without ever holding the seq_len x seq_len scores. The forward pass keeps one block of
queries in place and walks the blocks of keys and values with the online softmax: a running row
maximum m and row sum l, the accumulator rescaled by 2^(m_old - m_new) whenever the maximum
grows, and P @ V chained onto it (exponentials in base 2: exp(x) = exp2(x * log2(e))). It also
keeps each row's log-sum-exp in base 2, M = m + log2(l), so the backward pass can recompute
P = exp2(Q K^T * sm_scale * log2(e) - M) block by block:

    Delta = rowsum(dOut * Out)
    dV = P^T dOut           dP = dOut V^T           dS = P * (dP - Delta)
    dQ = dS K * sm_scale    dK = dS^T Q * sm_scale

One kernel computes dK and dV for a block of keys (walking the query blocks), another dQ for a
block of queries (walking the key blocks). Causal attention (query i sees keys j <= i) skips the
blocks above the diagonal and masks the diagonal ones.

The kernels are written against `tl` and `jit` only: bench/attention.py runs this very file with
Triton's language bound to them, to compare both compilers on the same source. Print the forward
kernel's tilegpu IR with:

    tilec compile tutorials/06-fused-attention.py:attention_fwd \\
        --signature '*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,fp32,i32:16' \\
        --constexpr HEAD_DIM=64 --constexpr BLOCK_M=128 --constexpr BLOCK_N=64 \\
        --constexpr CAUSAL=0 --num-warps 8 --emit tilegpu
"""
try:
    tl  # bound by bench/common.py's load_kernels (tilec's or Triton's)  # noqa: B018
    jit  # noqa: B018
except NameError:
    import tilec
    import tilec.language as tl
    jit = tilec.jit

KERNELS = ("attention_fwd", "attention_bwd_delta", "attention_bwd_dkdv", "attention_bwd_dq",
           "attention_fwd_tma")
LOG2E = 1.4426950408889634


@jit
def _rows(base, rows, offs_d, HEAD_DIM: tl.constexpr):
    """Pointers to the [len(rows), HEAD_DIM] block of these rows of one head."""
    return base + rows[:, None] * HEAD_DIM + offs_d[None, :]


@jit
def _rows_t(base, rows, offs_d, HEAD_DIM: tl.constexpr):
    """Pointers to the same block transposed, [HEAD_DIM, len(rows)]."""
    return base + rows[None, :] * HEAD_DIM + offs_d[:, None]


@jit
def _program(seq_len, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr, OTHER: tl.constexpr):
    """This program's head, the offset of its [seq_len, HEAD_DIM] matrices, the first of its
    BLOCK rows and their indices, and the index ranges of the OTHER-row blocks it walks and
    of HEAD_DIM: programs are (block, head)."""
    head = tl.program_id(1).to(tl.int64)
    start = tl.program_id(0) * BLOCK
    return (head, head * seq_len * HEAD_DIM, start, start + tl.arange(0, BLOCK),
            tl.arange(0, OTHER), tl.arange(0, HEAD_DIM))


@jit
def _online_softmax(qk, acc, l_i, m_i, offs_m, keys, qk_scale, MASKED: tl.constexpr):
    """One key block's step of the online softmax: its probabilities P (base 2), and the
    accumulator, row sums and row maxima rescaled to the new maxima (which it returns)."""
    if MASKED:
        visible = offs_m[:, None] >= keys[None, :]
        qk = qk * qk_scale + tl.where(visible, 0.0, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        qk = qk - m_ij[:, None]
    else:
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
    p = tl.exp2(qk)
    alpha = tl.exp2(m_i - m_ij)
    return p, acc * alpha[:, None], l_i * alpha + tl.sum(p, 1), m_ij


@jit
def _fwd_blocks(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, start, stop,
                qk_scale, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr):
    """The online softmax of one block of queries over the key blocks [start, stop)."""
    for start_n in range(start, stop, BLOCK_N):
        k = tl.load(_rows_t(k_base, start_n + offs_n, offs_d, HEAD_DIM))
        p, acc, l_i, m_i = _online_softmax(tl.dot(q, k), acc, l_i, m_i, offs_m,
                                           start_n + offs_n, qk_scale, MASKED)
        v = tl.load(_rows(v_base, start_n + offs_n, offs_d, HEAD_DIM))
        acc = tl.dot(p.to(v.dtype), v, acc)
    return acc, l_i, m_i


@jit
def attention_fwd(Q, K, V, Out, M, sm_scale, seq_len, HEAD_DIM: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """BLOCK_M rows of Out (and of M, each row's base-2 log-sum-exp) for program (m, head).
    seq_len is a multiple of BLOCK_M, and BLOCK_M of BLOCK_N."""
    head, base, start_m, offs_m, offs_n, offs_d = _program(seq_len, HEAD_DIM, BLOCK_M, BLOCK_N)
    q = tl.load(_rows(Q + base, offs_m, offs_d, HEAD_DIM))
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32) + 1.0  # times alpha = 0 on the first block
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    k_base, v_base = K + base, V + base
    if CAUSAL:  # the blocks left of the diagonal see every key, the diagonal ones are masked
        diagonal = start_m
        acc, l_i, m_i = _fwd_blocks(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d,
                                    0, diagonal, qk_scale, HEAD_DIM, BLOCK_N, False)
        acc, l_i, m_i = _fwd_blocks(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d,
                                    diagonal, diagonal + BLOCK_M, qk_scale, HEAD_DIM, BLOCK_N,
                                    True)
    else:
        acc, l_i, m_i = _fwd_blocks(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d,
                                    0, seq_len, qk_scale, HEAD_DIM, BLOCK_N, False)
    tl.store(M + head * seq_len + offs_m, m_i + tl.log2(l_i))
    acc = acc / l_i[:, None]
    tl.store(_rows(Out + base, offs_m, offs_d, HEAD_DIM), acc.to(Out.dtype.element_ty))


@jit
def attention_bwd_delta(Out, DOut, Delta, seq_len, HEAD_DIM: tl.constexpr,
                        BLOCK_M: tl.constexpr):
    """Delta = rowsum(dOut * Out) for BLOCK_M rows of one head."""
    head, base, _, offs_m, _, offs_d = _program(seq_len, HEAD_DIM, BLOCK_M, BLOCK_M)
    o = tl.load(_rows(Out + base, offs_m, offs_d, HEAD_DIM)).to(tl.float32)
    do = tl.load(_rows(DOut + base, offs_m, offs_d, HEAD_DIM)).to(tl.float32)
    tl.store(Delta + head * seq_len + offs_m, tl.sum(o * do, 1))


@jit
def attention_bwd_dkdv(Q, K, V, DOut, M, Delta, DK, DV, sm_scale, seq_len,
                       HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       CAUSAL: tl.constexpr):
    """dK and dV for BLOCK_N keys of one head, walking the blocks of queries (from the
    diagonal on, for causal attention). Everything is computed transposed ([keys, queries]),
    so the products with Q and dOut need no transpose of a block in registers."""
    head, base, start_n, offs_n, offs_m, offs_d = _program(seq_len, HEAD_DIM, BLOCK_N, BLOCK_M)
    k = tl.load(_rows(K + base, offs_n, offs_d, HEAD_DIM))
    v = tl.load(_rows(V + base, offs_n, offs_d, HEAD_DIM))
    dk = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    dv = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    first = start_n // BLOCK_M * BLOCK_M if CAUSAL else 0
    for start_m in range(first, seq_len, BLOCK_M):
        rows = start_m + offs_m
        q_t = tl.load(_rows_t(Q + base, rows, offs_d, HEAD_DIM))  # [D, M]
        do = tl.load(_rows(DOut + base, rows, offs_d, HEAD_DIM))  # [M, D]
        lse = tl.load(M + head * seq_len + rows)
        delta = tl.load(Delta + head * seq_len + rows)
        p_t = tl.exp2(tl.dot(k, q_t) * qk_scale - lse[None, :])                  # [N, M]
        if CAUSAL:
            p_t = tl.where(rows[None, :] >= offs_n[:, None], p_t, 0.0)
        dv = tl.dot(p_t.to(do.dtype), do, dv)
        dp_t = tl.dot(v, tl.trans(do))                                            # [N, M]
        ds_t = p_t * (dp_t - delta[None, :])
        dk = tl.dot(ds_t.to(q_t.dtype), tl.trans(q_t), dk)
    tl.store(_rows(DK + base, offs_n, offs_d, HEAD_DIM), (dk * sm_scale).to(DK.dtype.element_ty))
    tl.store(_rows(DV + base, offs_n, offs_d, HEAD_DIM), dv.to(DV.dtype.element_ty))


@jit
def attention_bwd_dq(Q, K, V, DOut, M, Delta, DQ, sm_scale, seq_len, HEAD_DIM: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """dQ for BLOCK_M queries of one head, walking the blocks of keys (up to the diagonal,
    for causal attention)."""
    head, base, start_m, offs_m, offs_n, offs_d = _program(seq_len, HEAD_DIM, BLOCK_M, BLOCK_N)
    q = tl.load(_rows(Q + base, offs_m, offs_d, HEAD_DIM))
    do = tl.load(_rows(DOut + base, offs_m, offs_d, HEAD_DIM))
    lse = tl.load(M + head * seq_len + offs_m)
    delta = tl.load(Delta + head * seq_len + offs_m)
    dq = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    stop = start_m + BLOCK_M if CAUSAL else seq_len
    for start_n in range(0, stop, BLOCK_N):
        cols = start_n + offs_n
        k_t = tl.load(_rows_t(K + base, cols, offs_d, HEAD_DIM))  # [D, N]
        v_t = tl.load(_rows_t(V + base, cols, offs_d, HEAD_DIM))  # [D, N]
        p = tl.exp2(tl.dot(q, k_t) * qk_scale - lse[:, None])                    # [M, N]
        if CAUSAL:
            p = tl.where(offs_m[:, None] >= cols[None, :], p, 0.0)
        ds = p * (tl.dot(do, v_t) - delta[:, None])
        dq = tl.dot(ds.to(k_t.dtype), tl.trans(k_t), dq)
    tl.store(_rows(DQ + base, offs_m, offs_d, HEAD_DIM), (dq * sm_scale).to(DQ.dtype.element_ty))


@jit
def attention_fwd_tma(q_desc, k_desc, v_desc, o_desc, M, sm_scale, seq_len,
                      HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      CAUSAL: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    """attention_fwd through tensor descriptors of the [heads * seq_len, HEAD_DIM] matrices
    (blocks [BLOCK_M, HEAD_DIM] of Q and Out, [BLOCK_N, HEAD_DIM] of K and V): on Hopper the
    K and V blocks are TMA copies that wgmma reads in place, and with WARP_SPECIALIZE a
    producer warpgroup issues them (the loop over all keys, or the one left of the diagonal)."""
    head = tl.program_id(1)
    start_m = tl.program_id(0) * BLOCK_M
    row = head * seq_len
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    q = q_desc.load([row + start_m, 0])
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32) + 1.0
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    stop = start_m if CAUSAL else seq_len
    for start_n in tl.range(0, stop, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        k = k_desc.load([row + start_n, 0])
        p, acc, l_i, m_i = _online_softmax(tl.dot(q, tl.trans(k)), acc, l_i, m_i, offs_m,
                                           start_n + offs_n, qk_scale, False)
        acc = tl.dot(p.to(q.dtype), v_desc.load([row + start_n, 0]), acc)
    if CAUSAL:  # the diagonal blocks, masked
        for start_n in range(start_m, start_m + BLOCK_M, BLOCK_N):
            k = k_desc.load([row + start_n, 0])
            p, acc, l_i, m_i = _online_softmax(tl.dot(q, tl.trans(k)), acc, l_i, m_i, offs_m,
                                               start_n + offs_n, qk_scale, True)
            acc = tl.dot(p.to(q.dtype), v_desc.load([row + start_n, 0]), acc)
    tl.store(M + head.to(tl.int64) * seq_len + offs_m, m_i + tl.log2(l_i))
    o_desc.store([row + start_m, 0], (acc / l_i[:, None]).to(q.dtype))


# --- launching (tilec; NumPy arrays in the interpreter, device arrays on the GPU) ---------------

def _empty_like(x, shape=None, dtype=None):
    """An uninitialised array beside `x` (a NumPy, CuPy or torch array)."""
    shape = x.shape if shape is None else shape
    if hasattr(x, "new_empty"):  # torch
        import torch
        return x.new_empty(shape, dtype=torch.float32 if dtype == "f32" else x.dtype)
    module = type(x).__module__.split(".")[0]
    xp = __import__("cupy") if module == "cupy" else __import__("numpy")
    return xp.empty(shape, dtype=xp.float32 if dtype == "f32" else x.dtype)


def attention(q, k, v, causal=False, sm_scale=None, block_m=128, block_n=64, num_warps=8):
    """(Out, M) for [batch * heads, seq_len, head_dim] q, k, v."""
    heads, seq_len, head_dim = q.shape
    sm_scale = head_dim ** -0.5 if sm_scale is None else sm_scale
    out, lse = _empty_like(q), _empty_like(q, (heads, seq_len), "f32")
    attention_fwd[(seq_len // block_m, heads)](q, k, v, out, lse, sm_scale, seq_len,
                                               HEAD_DIM=head_dim, BLOCK_M=block_m,
                                               BLOCK_N=block_n, CAUSAL=causal,
                                               num_warps=num_warps, num_stages=2)
    return out, lse


def attention_tma(q, k, v, causal=False, sm_scale=None, block_m=128, block_n=128, num_warps=8,
                  warp_specialize=True, num_stages=3, num_ctas=1):
    """attention() through attention_fwd_tma: the [batch * heads, seq_len, head_dim] tensors
    seen as [batch * heads * seq_len, head_dim] matrices by tilec's TensorDescriptor. The
    defaults are the fastest measured on Hopper (README): a producer warpgroup issues the
    copies into a 3-stage ring, and the consumers overlap the softmax with P @ V. With
    num_ctas=2 (and block_m=256) a program is two CTAs of 128 query rows each, which copy each
    K and V block once for both (warp-specialised: TMA multicast)."""
    from tilec.tools.tensor_descriptor import TensorDescriptor
    heads, seq_len, head_dim = q.shape
    sm_scale = head_dim ** -0.5 if sm_scale is None else sm_scale
    out, lse = _empty_like(q), _empty_like(q, (heads, seq_len), "f32")

    def desc(x, rows):
        return TensorDescriptor.from_tensor(x.reshape(heads * seq_len, head_dim),
                                            [rows, head_dim])
    attention_fwd_tma[(seq_len // block_m, heads)](
        desc(q, block_m), desc(k, block_n), desc(v, block_n), desc(out, block_m), lse, sm_scale,
        seq_len, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
        WARP_SPECIALIZE=warp_specialize, num_warps=num_warps, num_stages=num_stages,
        num_ctas=num_ctas)
    return out, lse


def attention_backward(q, k, v, out, lse, dout, causal=False, sm_scale=None, block=64,
                       num_warps=4):
    """(dQ, dK, dV) for the forward pass that gave `out` and `lse`."""
    heads, seq_len, head_dim = q.shape
    sm_scale = head_dim ** -0.5 if sm_scale is None else sm_scale
    delta = _empty_like(q, (heads, seq_len), "f32")
    dq, dk, dv = _empty_like(q), _empty_like(k), _empty_like(v)
    grid = (seq_len // block, heads)
    attention_bwd_delta[grid](out, dout, delta, seq_len, HEAD_DIM=head_dim, BLOCK_M=block)
    attention_bwd_dkdv[grid](q, k, v, dout, lse, delta, dk, dv, sm_scale, seq_len,
                             HEAD_DIM=head_dim, BLOCK_M=block, BLOCK_N=block, CAUSAL=causal,
                             num_warps=num_warps, num_stages=2)
    attention_bwd_dq[grid](q, k, v, dout, lse, delta, dq, sm_scale, seq_len, HEAD_DIM=head_dim,
                           BLOCK_M=block, BLOCK_N=block, CAUSAL=causal, num_warps=num_warps,
                           num_stages=2)
    return dq, dk, dv


def reference(q, k, v, dout, causal=False, sm_scale=None):
    """(Out, dQ, dK, dV) in float64 NumPy from the same inputs."""
    import numpy as np
    q, k, v, dout = (np.asarray(x, dtype=np.float64) for x in (q, k, v, dout))
    sm_scale = q.shape[-1] ** -0.5 if sm_scale is None else sm_scale
    s = q @ k.transpose(0, 2, 1) * sm_scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    out = p @ v
    dv = p.transpose(0, 2, 1) @ dout
    dp = dout @ v.transpose(0, 2, 1)
    ds = p * (dp - (dout * out).sum(-1, keepdims=True))
    return out, ds @ k * sm_scale, ds.transpose(0, 2, 1) @ q * sm_scale, dv


if __name__ == "__main__":
    import numpy as np
    rng = np.random.default_rng(0)
    for causal in (False, True):
        q, k, v, do = (rng.standard_normal((2, 256, 64)).astype(np.float16) for _ in range(4))
        out, lse = attention(q, k, v, causal)
        dq, dk, dv = attention_backward(q, k, v, out, lse, do, causal)
        expected = reference(q, k, v, do, causal)
        for got, want in zip((out, dq, dk, dv), expected):
            np.testing.assert_allclose(np.asarray(got, np.float64), want, atol=2e-2, rtol=2e-2)
        out, _ = attention_tma(q, k, v, causal)
        np.testing.assert_allclose(np.asarray(out, np.float64), expected[0], atol=2e-2,
                                   rtol=2e-2)
    print("attention forward (pointers and descriptors) and backward match NumPy (causal and "
          "not)")
