"""Fused softmax: one program per row, the whole row in registers.

The row is loaded once (padded to a power of two with -inf), normalised and written back, so
the input is read once instead of the several times an unfused softmax reads it. Print its tile
IR with:

    tilec compile tutorials/02-fused-softmax.py:softmax_kernel \\
        --signature '*fp32:16,*fp32:16,i32,i32,i32,i32' --constexpr BLOCK_SIZE=1024 --emit tile
"""
import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=2):
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


def softmax(x, num_programs=None):
    n_rows, n_cols = x.shape
    block_size = 1 << (n_cols - 1).bit_length()
    y = np.empty_like(x)
    grid = (num_programs or n_rows,)
    softmax_kernel[grid](y, x, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize, n_rows,
                         n_cols, BLOCK_SIZE=block_size)
    return y


def reference(x):
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal((1823, 781), dtype=np.float32)
    np.testing.assert_allclose(softmax(x), reference(x), rtol=1e-5, atol=1e-6)
    print("fused softmax matches NumPy")
