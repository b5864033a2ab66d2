"""Kernel sources shared by every framework in the benchmarks.

One source, two compilers: `common.load_kernels(language, jit)` executes this file as a fresh
module with `tl` bound to `tilec.language` or `triton.language` and wraps each kernel with that
framework's `jit`, so tilec and Triton compile the very same text.
"""
try:
    tl  # bound by common.load_kernels before this file runs  # noqa: B018
except NameError:  # imported on its own: tilec's language
    import tilec.language as tl

KERNELS = ("add_kernel", "scale_add_kernel")


def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def scale_add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    # A second, different kernel: compile_time.py times it after the first in one process.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * alpha + y, mask=m)
