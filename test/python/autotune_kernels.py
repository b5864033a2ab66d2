"""Kernels for test_autotune.py, at module level so that the autotuner's compile workers and a
second Python process (which imports this file) see the same kernel source."""
import tilec
import tilec.language as tl


@tilec.jit
def transpose(x_ptr, out_ptr, n, M: tl.constexpr, N: tl.constexpr):
    # tl.trans stages the block through M*N*4 bytes of shared memory: 256 x 512 does not fit.
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], tl.trans(x))


TRANSPOSE_CONFIGS = [
    tilec.Config({"M": 32, "N": 64}, num_warps=4),
    tilec.Config({"M": 256, "N": 512}, num_warps=4),  # 540 KB of shared memory: pruned
    tilec.Config({"M": 64, "N": 32}, num_warps=2),
]


@tilec.jit
def repeat_add(x_ptr, out_ptr, n, REPEAT: tl.constexpr, BLOCK: tl.constexpr):
    """out = x + REPEAT, one addition per trip: REPEAT sets how long the kernel runs."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(x_ptr + offs, mask=mask)
    for _ in range(REPEAT):
        acc = acc + 1.0
        acc = tl.sqrt(acc * acc)  # keeps the loop from folding into one addition
    tl.store(out_ptr + offs, acc, mask=mask)


@tilec.jit
def add_block(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1.0)
    else:
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)
