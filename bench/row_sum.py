"""Bandwidth of a row-sum reduction, fp32: tilec beside Triton and torch, in one process.

    python bench/row_sum.py [--out DIR] [--sizes 8192x1024,8192x4096,8192x16384] [--warmup 10]
                            [--repeats 100] [--num-warps W]
    python bench/row_sum.py --dry-run      # fake timings, no GPU: checks the report code

For each size M x N (default M = 8192, N = 1024, 4096, 16384) it sums every row of an M x N fp32
matrix into M fp32 values with the same kernel source (bench/kernels.py:row_sum_kernel: one
program per row, grid = (M,), the whole row in one tile, tl.sum) through tilec and Triton, with
BLOCK = next power of two >= N and num_warps = 4, 8 from BLOCK 2048, 16 from 4096 (as
bench/softmax.py; the same for both compilers; --num-warps fixes it), and torch.sum(x, dim=1).
The input is uniform in [0, 1) (seeded). Each result is checked once against x.sum(dim=1)
(rtol 1e-4, atol 1e-5), then each is timed with CUDA events: median over --repeats runs after
--warmup, the L2 flushed (256 MB written) before every run. Reports GB/s = M * N * 4 bytes /
time (the M * 4 bytes written are not counted), and tilec/Triton and tilec/torch GB/s ratios
(above 1: tilec is faster). No target: the figures are reported only.

Writes row_sum.json (with the registers, spills and shared memory of each compiled kernel, where
the framework tells) and row_sum.png (GB/s per size, and the ratio) into --out. Needs torch and
CuPy (tilec launches through CuPy; torch is the reference and Triton's tensors). Exits 1 only
when a result is wrong or tilec fails to compile or launch (after writing the report; 2 when there
is no GPU or no torch at all). A missing or failing Triton only prints a note.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rowwise  # noqa: E402


class RowSum(rowwise.RowwiseBenchmark):
    name = "row_sum"
    kernel = "row_sum_kernel"
    default_sizes = [(8192, 1024), (8192, 4096), (8192, 16384)]
    rtol, atol = 1e-4, 1e-5
    block_arg = "BLOCK"
    target_ratio = None  # issue 6 sets none for the row sum: the ratios are reported only
    no_target = "none for the row sum (figures reported only)"
    what = "fp32 row sum"
    bytes_formula = "M * N * 4"
    config = {"dtype": "float32", "grid": "(M,)", "block": "next_pow2(N)"}
    reference = "x.sum(dim=1)"
    fake_bandwidth_gbps = {"tilec": 3400.0, "triton": 3600.0, "torch": 3700.0}

    def moved_bytes(self, size: tuple[int, int]) -> int:
        rows, cols = size
        return rows * cols * 4

    def case(self, torch, gen, size, block, num_warps) -> rowwise.Case:
        rows, cols = size
        x = torch.rand(rows, cols, device="cuda", dtype=torch.float32, generator=gen)
        y = torch.empty(rows, device="cuda", dtype=torch.float32)
        return rowwise.Case(
            launch=lambda kernel: lambda: kernel[(rows,)](x, y, x.stride(0), cols, BLOCK=block,
                                                          num_warps=num_warps),
            reference=lambda: torch.sum(x, dim=1),
            outputs=(y,), expected=x.sum(dim=1), rtol=self.rtol, atol=self.atol)


main = RowSum(__doc__).main


if __name__ == "__main__":
    sys.exit(main())
