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
