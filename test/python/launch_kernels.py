"""Kernels for the launch tests (test_launch.py on the CPU with a fake driver,
test_launch_gpu.py on the GPU)."""
import tilec
import tilec.language as tl


@tilec.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    """out = x * factor over a 2-D grid of blocks (program (i, j) covers block i + j * dim 0)."""
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


@tilec.jit
def no_params():
    pass


@tilec.jit
def stages_value(out_ptr, num_stages, num_warps, BLOCK: tl.constexpr):
    """Parameters named like the launch options: they are arguments here."""
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], tl.int32) + num_stages * 100 + num_warps)


@tilec.jit
def probe(out_ptr, a, b, c, flag, f, BLOCK: tl.constexpr):
    """Every scalar kind the C path packs: i32/i64/u64 integers, a bool, a float."""
    offs = tl.arange(0, BLOCK)
    value = a * 1.0 + b * 1.0 + c * 1.0 + f + flag * 1.0
    tl.store(out_ptr + offs, tl.zeros([BLOCK], tl.float32) + value)


@tilec.jit
def multiply_add(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out = x * y + z: one fma, or a rounded product and a rounded sum (enable_fp_fusion)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * y + z, mask=mask)


@tilec.jit
def grid_barrier(count_ptr, out_ptr, n_programs):
    """Every program arrives, then waits until all have: only safe when all are resident at
    once (a cooperative launch)."""
    tl.atomic_add(count_ptr, 1)
    while tl.atomic_add(count_ptr, 0) < n_programs:
        pass
    tl.store(out_ptr + tl.program_id(0), tl.atomic_add(count_ptr, 0))


@tilec.jit
def _pair(a):
    return a, a + 1


@tilec.jit
def tuple_sum(ptrs, out, counts, BLOCK: tl.constexpr):
    """Tuples as arguments and values: out = sum of the arrays in `ptrs` + 2 * counts[0] +
    counts[1] + (counts[0] > 2)."""
    offs = tl.arange(0, BLOCK)
    acc = (tl.zeros([BLOCK], tl.float32), tl.zeros([BLOCK], tl.float32))
    for p in tl.static_range(len(ptrs)):
        acc = (acc[0] + tl.load(ptrs[p] + offs), acc[1])
    for _ in range(counts[0]):
        _, after = _pair(acc[1])
        acc = (acc[0], after)
    both = acc + (tl.zeros([BLOCK], tl.float32) + counts[1],)
    total = both[0]
    for v in both[1:]:
        total = total + v
    if counts[0] > 2:
        q = (total, 1)
    else:
        q = (total, 0)
    tl.store(out + offs, q[0] + q[0 + 1] + counts[0])


@tilec.jit
def desc_copy(src, dst, BLOCK: tl.constexpr):
    """dst's first block = src's, through two host tensor descriptors."""
    dst.store([0, 0], src.load([0, 0]))


@tilec.jit
def made_desc_copy(src, dst, M, N, BLOCK: tl.constexpr):
    """desc_copy through descriptors the kernel makes (on sm_90 two TMA maps in its global
    scratch)."""
    a = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BLOCK, BLOCK])
    b = tl.make_tensor_descriptor(dst, [M, N], [N, 1], [BLOCK, BLOCK])
    b.store([0, 0], a.load([0, 0]))


@tilec.jit
def desc_add(a, b, out, BLOCK: tl.constexpr):
    """out's first block = a's + b's, through three host tensor descriptors (test_launch gives
    its compiled kernels a TMA map parameter per descriptor)."""
    out.store([0, 0], a.load([0, 0]) + b.load([0, 0]))


@tilec.jit
def program_ids(out_ptr, count_ptr):
    """Each program writes its ids and the grid's size at 4 x its linear index, and adds 1 to
    its count (once per launch, however many CTAs a program has)."""
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    tl.store(out_ptr + pid * 4, tl.program_id(0))
    tl.store(out_ptr + pid * 4 + 1, tl.program_id(1))
    tl.store(out_ptr + pid * 4 + 2, tl.num_programs(0))
    tl.store(out_ptr + pid * 4 + 3, tl.num_programs(1))
    tl.atomic_add(count_ptr + pid, 1)


@tilec.jit
def desc_dot(a, b, c, BM: tl.constexpr):
    """C's block row pid = A's @ B's first block, through host descriptors (fp16)."""
    pid = tl.program_id(0)
    c.store([pid * BM, 0], tl.dot(a.load([pid * BM, 0]), b.load([0, 0])).to(tl.float16))
