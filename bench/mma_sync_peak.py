"""The ceiling of the mma.sync path: m16n8k16 fp16 -> fp32 from registers, no memory traffic.

    python bench/mma_sync_peak.py [--out DIR]

Each warp runs `iters` rounds of NACC independent mma.sync.aligned.m16n8k16 (fp16 inputs, fp32
accumulators), so no instruction waits for the one before it; blocks of 4, 8 or 16 warps, one
or two per SM, fill all SMs. TFLOP/s = 2 * 16 * 8 * 16 * NACC * iters * warps / time. This is
what tilec's matmul (bench/matmul.py, issue 7: mma.sync, not wgmma) can at most reach on the
GPU; the README compares the two. Needs CuPy (it compiles the CUDA source with NVRTC). Writes
mma_sync_peak.json into --out.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

SOURCE = r'''
extern "C" __global__ void peak(float *out, int iters) {
  unsigned a0 = threadIdx.x, a1 = a0 * 3u, a2 = a0 * 5u, a3 = a0 * 7u, b0 = a0 ^ 1u, b1 = a0 ^ 2u;
  float acc[NACC][4];
  for (int i = 0; i < NACC; ++i) for (int j = 0; j < 4; ++j) acc[i][j] = 0.f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < NACC; ++i)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                   "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(acc[i][0]), "+f"(acc[i][1]), "+f"(acc[i][2]), "+f"(acc[i][3])
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  float s = 0.f;
  for (int i = 0; i < NACC; ++i) for (int j = 0; j < 4; ++j) s += acc[i][j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;  // keeps the work alive
}
'''
ITERS = 20000
SHAPES = [(8, 8, 1), (16, 8, 1), (16, 4, 2), (16, 8, 2), (32, 8, 1), (32, 8, 2)]  # NACC, warps, blocks/SM
FLOP_PER_MMA = 2 * 16 * 8 * 16


def measure(cupy, nacc: int, warps: int, per_sm: int) -> float:
    kernel = cupy.RawModule(code=SOURCE.replace("NACC", str(nacc)),
                            options=("-arch=sm_90a",)).get_function("peak")
    sms = cupy.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    grid, threads = sms * per_sm, 32 * warps
    out = cupy.zeros(grid * threads, cupy.float32)
    kernel((grid,), (threads,), (out, cupy.int32(ITERS)))  # load and warm up
    cupy.cuda.Device().synchronize()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    kernel((grid,), (threads,), (out, cupy.int32(ITERS)))
    end.record()
    end.synchronize()
    ms = cupy.cuda.get_elapsed_time(start, end)
    return FLOP_PER_MMA * nacc * ITERS * warps * grid / ms / 1e9


def main(argv=None) -> int:
    args = common.make_parser(__doc__).parse_args(argv)
    cupy = None if args.dry_run else common.importable("cupy", "this benchmark needs it")
    if not args.dry_run:
        common.require_gpu(cupy=cupy)
    rows = []
    for nacc, warps, per_sm in SHAPES:
        tflops = 600.0 if args.dry_run else measure(cupy, nacc, warps, per_sm)
        rows.append({"independent_mma": nacc, "warps_per_block": warps, "blocks_per_sm": per_sm,
                     "tflops": tflops})
        print(f"{nacc:>3} independent mma.sync, {warps:>2} warps x {per_sm} blocks per SM: "
              f"{tflops:7.1f} TFLOP/s")
    best = max(r["tflops"] for r in rows)
    print(f"peak: {best:.1f} TFLOP/s" + (" (dry run: fake)" if args.dry_run else ""))
    common.write_json(args.out, "mma_sync_peak", {"benchmark": "mma_sync_peak",
                                                  "dry_run": args.dry_run, "iters": ITERS,
                                                  "results": rows, "peak_tflops": best})
    return 0


if __name__ == "__main__":
    sys.exit(main())
