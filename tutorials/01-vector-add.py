"""Vector addition: the smallest tilec kernel.

Each program instance adds one block of BLOCK_SIZE elements; the mask keeps the last block
inside the arrays. Print its tile IR with:

    tilec compile tutorials/01-vector-add.py:add_kernel \\
        --signature '*fp32:16,*fp32:16,*fp32:16,i32' --constexpr BLOCK_SIZE=1024 --emit tile
"""
import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x, y, block_size=1024):
    output = np.empty_like(x)
    n = output.size
    add_kernel[lambda meta: (tilec.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, output, n,
                                                              BLOCK_SIZE=block_size)
    return output


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.random(98432, dtype=np.float32)
    y = rng.random(98432, dtype=np.float32)
    np.testing.assert_allclose(add(x, y), x + y)
    print("vector add matches NumPy")
