"""Kernel sources shared by every framework in the benchmarks.

One source, two compilers: `common.load_kernels(language, jit)` executes this file as a fresh
module with `tl` bound to `tilec.language` or `triton.language` and wraps each kernel with that
framework's `jit`, so tilec and Triton compile the very same text.
"""
try:
    tl  # bound by common.load_kernels before this file runs  # noqa: B018
except NameError:  # imported on its own: tilec's language
    import tilec.language as tl

KERNELS = ("add_kernel", "scale_add_kernel", "desc_add_kernel", "desc_add_2d_kernel",
           "made_desc_add_kernel")


def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def desc_add_kernel(x_desc, y_desc, out_desc, BLOCK: tl.constexpr):
    # add_kernel through three host tensor descriptors (launch_overhead.py: the cost of passing
    # descriptors, issue 18).
    offs = tl.program_id(0) * BLOCK
    out_desc.store([offs], x_desc.load([offs]) + y_desc.load([offs]))


def desc_add_2d_kernel(x_desc, y_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    # The same add through three 2-D host descriptors, which on sm_90 tilec passes with a TMA
    # map each (launch_overhead.py: the cost of making and passing the maps, issue 18).
    out_desc.store([0, 0], x_desc.load([0, 0]) + y_desc.load([0, 0]))


def made_desc_add_kernel(x_ptr, y_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    # The same add through three descriptors the kernel makes (tl.make_tensor_descriptor) of
    # the tensors as BM x BN: on sm_90 TMA maps written into global scratch, which every launch
    # allocates (launch_overhead.py: the cost of that allocation at launch, issue 18).
    x_desc = tl.make_tensor_descriptor(x_ptr, [BM, BN], [BN, 1], [BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, [BM, BN], [BN, 1], [BM, BN])
    out_desc = tl.make_tensor_descriptor(out_ptr, [BM, BN], [BN, 1], [BM, BN])
    out_desc.store([0, 0], x_desc.load([0, 0]) + y_desc.load([0, 0]))


def scale_add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    # A second, different kernel: compile_time.py times it after the first in one process.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * alpha + y, mask=m)


# --- reductions (issue 6): bench/softmax.py, bench/layer_norm.py, bench/row_sum.py ---------------

def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    # tutorials/02-fused-softmax.py with one program per row (grid = n_rows) and no row loop.
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    mask = col_offsets < n_cols
    row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # tutorials/05-layer-norm.py's forward kernel, verbatim.
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def row_sum_kernel(x_ptr, out_ptr, row_stride, n_cols, BLOCK: tl.constexpr):
    # One program per row: the whole row (padded to BLOCK with zeros) summed into one fp32.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


KERNELS = KERNELS + ("softmax_kernel", "layer_norm_fwd", "row_sum_kernel")
