"""Bandwidth of layer-norm forward, fp16: tilec beside Triton and torch, in one process.

    python bench/layer_norm.py [--out DIR] [--sizes 4096x1024,4096x4096,4096x8192] [--warmup 10]
                               [--repeats 100] [--num-warps W]
    python bench/layer_norm.py --dry-run      # fake timings, no GPU: checks the report code

For each size M x N (default M = 4096, N = 1024, 4096, 8192) it runs the same kernel source
(bench/kernels.py:layer_norm_fwd: the forward kernel of tutorials/05-layer-norm.py, verbatim; one
program per row, grid = (M,)) through tilec and Triton, with BLOCK_SIZE = min(65536 // 2,
next_pow2(N)) and num_warps = min(max(BLOCK_SIZE // 256, 1), 8) as in Triton's layer-norm tutorial
(the same for both compilers; --num-warps fixes it), and torch.nn.functional.layer_norm. x is
fp16 (-2.3 + 0.5 * standard normal, as the tutorial), weight and bias fp16 uniform in [0, 1),
eps = 1e-5; the kernels also write the fp32 mean and 1/std of every row. Each result is checked
once (rtol 1e-2, atol 1e-2): y against torch's layer_norm, mean and rstd against fp32 torch
arithmetic; then each is timed with CUDA events: median over --repeats runs after --warmup, the
L2 flushed (256 MB written) before every run. Reports GB/s = (2 * M * N * 2 + 2 * N * 2) bytes
/ time (x read, y written, weight and bias read; the 8 bytes of mean and rstd per row are not
counted), and tilec/Triton and tilec/torch GB/s ratios (above 1: tilec is faster).
Target: tilec >= 0.9x Triton at every size.

Writes layer_norm.json (with the registers, spills and shared memory of each compiled kernel,
where the framework tells) and layer_norm.png (GB/s per size, and the ratio) into --out. Needs
torch and CuPy (tilec launches through CuPy; torch is the reference and Triton's tensors). Exits 1
only when a result is wrong or tilec fails to compile or launch (after writing the report; 2 when
there is no GPU or no torch at all). A missing or failing Triton only prints a note.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rowwise  # noqa: E402

EPS = 1e-5


class LayerNorm(rowwise.RowwiseBenchmark):
    name = "layer_norm"
    kernel = "layer_norm_fwd"
    default_sizes = [(4096, 1024), (4096, 4096), (4096, 8192)]
    rtol, atol = 1e-2, 1e-2
    target_ratio = 0.9
    what = "fp16 layer-norm forward"
    bytes_formula = "(2 * M * N * 2 + 2 * N * 2)"
    config = {"dtype": "float16", "stats_dtype": "float32", "eps": EPS, "grid": "(M,)",
              "block_size": "min(65536 // 2, next_pow2(N))"}
    reference = ("torch.nn.functional.layer_norm(x, (N,), weight, bias, eps); "
                 "mean and rstd from x.float()")
    fake_bandwidth_gbps = {"tilec": 3300.0, "triton": 3450.0, "torch": 2900.0}

    def config_for(self, cols: int, num_warps: int | None = None) -> tuple[int, int]:
        """(BLOCK_SIZE, num_warps) for rows of `cols` fp16 elements, as Triton's tutorial."""
        block = min(65536 // 2, rowwise.next_pow2(cols))
        if num_warps is None:
            num_warps = min(max(block // 256, 1), 8)
        return block, num_warps

    def warps_help(self) -> str:
        return "min(max(BLOCK_SIZE // 256, 1), 8)"

    def warps_rule(self) -> str:
        return "min(max(BLOCK_SIZE // 256, 1), 8)"

    def moved_bytes(self, size: tuple[int, int]) -> int:
        rows, cols = size
        return 2 * rows * cols * 2 + 2 * cols * 2

    def case(self, torch, gen, size, block, num_warps) -> rowwise.Case:
        rows, cols = size
        x = -2.3 + 0.5 * torch.randn(rows, cols, device="cuda", dtype=torch.float32,
                                     generator=gen)
        x = x.to(torch.float16)
        weight = torch.rand(cols, device="cuda", dtype=torch.float32, generator=gen).half()
        bias = torch.rand(cols, device="cuda", dtype=torch.float32, generator=gen).half()
        y = torch.empty_like(x)
        mean = torch.empty(rows, device="cuda", dtype=torch.float32)
        rstd = torch.empty(rows, device="cuda", dtype=torch.float32)
        expected = torch.nn.functional.layer_norm(x, (cols,), weight, bias, EPS)
        x32 = x.float()
        expected_mean = x32.mean(dim=1)
        expected_rstd = 1 / torch.sqrt(x32.var(dim=1, unbiased=False) + EPS)
        del x32
        return rowwise.Case(
            launch=lambda kernel: lambda: kernel[(rows,)](
                x, y, weight, bias, mean, rstd, x.stride(0), cols, EPS,
                BLOCK_SIZE=block, num_warps=num_warps),
            reference=lambda: torch.nn.functional.layer_norm(x, (cols,), weight, bias, EPS),
            outputs=(y, mean, rstd), expected=expected, rtol=self.rtol, atol=self.atol,
            more=[("mean", mean, expected_mean), ("rstd", rstd, expected_rstd)])


main = LayerNorm(__doc__).main


if __name__ == "__main__":
    sys.exit(main())
