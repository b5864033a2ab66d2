"""Vector addition: the smallest tilec kernel.

Each program instance adds one block of BLOCK_SIZE elements; the mask keeps the last block
inside the arrays. Run it with `python tutorials/01-vector-add.py`: on the GPU (CuPy arrays)
when one is usable, with the bandwidth of tilec beside torch's `x + y`, else in the interpreter
(NumPy arrays). Print its tile IR with:

    tilec compile tutorials/01-vector-add.py:add_kernel \\
        --signature '*fp32:16,*fp32:16,*fp32:16,i32' --constexpr BLOCK_SIZE=1024 --emit tile
"""
import os
import sys

import numpy as np

import tilec
import tilec.language as tl
from tilec.testing import do_bench


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
    output = np.empty_like(x)  # a CuPy array for CuPy inputs (NumPy dispatches to CuPy)
    n = output.size
    add_kernel[lambda meta: (tilec.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, output, n,
                                                              BLOCK_SIZE=block_size)
    return output


def usable_cupy():
    """CuPy when it sees a GPU, else None: `import cupy` succeeds on machines without a driver,
    so ask it for devices."""
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # no CuPy, no driver, no device
        return None


def benchmark(x, y):
    """GB/s of tilec and of torch's `x + y` on the same memory: three fp32 arrays moved."""
    gbps = lambda ms: 3 * x.nbytes / (ms * 1e-3) / 1e9
    line = f"n = {x.size} fp32: tilec {gbps(do_bench(lambda: add(x, y))):.0f} GB/s"
    try:
        import torch
    except ImportError:
        return line + " (torch is not installed)"
    tx, ty = torch.from_dlpack(x), torch.from_dlpack(y)
    return line + f", torch {gbps(do_bench(lambda: tx + ty)):.0f} GB/s"


if __name__ == "__main__":
    cupy = usable_cupy()
    if cupy is None:
        os.environ["TILEC_INTERPRET"] = "1"  # no usable GPU: run the kernel on the CPU
    where, n = ("interpreter", 98432) if cupy is None else ("GPU", 1 << 24)
    rng = np.random.default_rng(0)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    if cupy is None:
        output = add(x, y)
    else:
        x_gpu, y_gpu = cupy.asarray(x), cupy.asarray(y)
        output = cupy.asnumpy(add(x_gpu, y_gpu))
    error = float(np.max(np.abs(output - (x + y))))
    print(f"vector add ({where}): {'matches' if error == 0 else 'differs from'} NumPy, "
          f"max error {error}")
    if cupy is not None:
        print(benchmark(x_gpu, y_gpu))
    sys.exit(error != 0)
