"""Matmul through host tensor descriptors (TMA on Hopper): tilec and Triton on the same source,
beside tilec's pointer kernel and cuBLAS, in one process.

    python bench/matmul_tma.py [--out DIR] [--dtype fp16|bf16] [--shapes 4096x4096x4096,...]
                               [--configs 128x128x64:w8:s3,...] [--warmup 5] [--repeats 20]
                               [--cooldown 1] [--kernel tile|persistent|device]

C[M, N] = A[M, K] @ B[K, N], all row-major, accumulated in fp32, stored as the input type. The
descriptor kernel (matmul_desc_kernel of bench/matmul_kernel.py) takes A, B and C as host
TensorDescriptors (tilec.tools.tensor_descriptor for tilec, triton.tools.tensor_descriptor for
Triton) with blocks [BLOCK_M, BLOCK_K], [BLOCK_K, BLOCK_N] and [BLOCK_M, BLOCK_N]; tilec passes
each as a by-value TMA map and its loop's loads are TMA copies tilegpu-pipeline stages in
mbarrier rings that wgmma reads in place. tilec's pointer kernel (matmul_kernel of the same
file, bench/matmul.py's) runs the same configs for comparison, and cuBLAS runs as
torch.matmul(a, b, out=c). Default shapes: 4096^3 and 8192^3 (issue 18's); configs: 128x128x64 with 8 warps and 3 stages,
128x256x64 with 8 warps and 3 and 4 stages, 128x128x64 with 4 warps and 4 stages, and
128x256x64 with 8 warps and 3 and 4 stages with `:ws` (the loop `warp_specialize=True`: a
producer warpgroup issues the TMA copies; the pointer kernel skips those configs), and
256x256x64:w8:s3:ws:c2. A config ending `:cN` launches programs of N CTAs (`num_ctas=N`,
thread block clusters): tilec gives each CTA BM/N rows (tile-split-ctas) and, warp-specialised,
copies B once per cluster (multicast); 256x256x64:w8:s3:ws:c2 is two CTAs of 128x256 sharing
B, and a persistent kernel launches a program per N SMs; Triton does not run these configs.

--kernel persistent runs matmul_persistent_desc_kernel instead (one program per SM walking
the tiles, `tl.range(..., flatten=True, warp_specialize=...)` over them, the same host
descriptors), --kernel device matmul_persistent_device_kernel (the same, the descriptors made
in the kernel from A, B and C: TMA maps written into global scratch, which both frameworks take
from torch through their set_allocator).

Every result is checked once against torch.matmul in fp32 (|c - ref| <= 1e-2 (|ref| +
sqrt(K)), as bench/matmul.py); then timed with CUDA events, the median of --repeats after
--warmup, the L2 flushed before each run, after --cooldown seconds of idle GPU. The table shows
per shape cuBLAS and each framework's best config, with tilec/cuBLAS and tilec/Triton.

Target (issue 18, H200): the descriptor kernel through tilec >= 1.05x cuBLAS at 4096^3 and
8192^3 (fp16 and bf16). Writes matmul_tma.json into --out. Exits 1 when a result is wrong or a
tilec kernel spilled or had its wgmma serialised (2 without a GPU).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

KERNEL_FILE = common.BENCH / "matmul_kernel.py"  # both kernels, one source for both compilers
KERNELS = {"tile": "matmul_desc_kernel", "persistent": "matmul_persistent_desc_kernel",
           "device": "matmul_persistent_device_kernel"}
GROUP_M = 8
RTOL = 1e-2
TARGET_OVER_CUBLAS = 1.05
DEFAULT_SHAPES = "4096x4096x4096,8192x8192x8192"
DEFAULT_CONFIGS = ("128x128x64:w8:s3,128x256x64:w8:s3,128x256x64:w8:s4,128x128x64:w4:s4,"
                   "128x256x64:w8:s3:ws,128x256x64:w8:s4:ws,256x256x64:w8:s3:ws:c2")


def parse_configs(text: str) -> list[tuple[int, int, int, int, int, bool, int]]:
    """`BMxBNxBK:wW:sS`, then `:ws` for a warp-specialised loop and `:cN` for programs of N
    CTAs (num_ctas), in that order where both."""
    configs = []
    for item in text.split(","):
        blocks, warps, stages, *rest = item.split(":")
        ws = rest[:1] == ["ws"]
        ctas = rest[ws:]
        if len(ctas) > 1 or (ctas and not (ctas[0][:1] == "c" and ctas[0][1:].isdigit())):
            raise SystemExit(f"--configs: {item!r} is not BMxBNxBK:wW:sS[:ws][:cN]")
        bm, bn, bk = (int(v) for v in blocks.split("x"))
        configs.append((bm, bn, bk, int(warps.lstrip("w")), int(stages.lstrip("s")), ws,
                        int(ctas[0][1:]) if ctas else 1))
    return configs


def main() -> int:
    parser = common.make_parser(__doc__)
    parser.add_argument("--dtype", choices=("fp16", "bf16"), default="fp16")
    parser.add_argument("--shapes", default=DEFAULT_SHAPES)
    parser.add_argument("--configs", default=None)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--cooldown", type=float, default=1.0)
    parser.add_argument("--kernel", choices=tuple(KERNELS), default="tile")
    args = parser.parse_args()
    if args.dry_run:
        print("matmul_tma has no dry run: it measures the GPU only")
        return 2
    torch, _ = common.require_torch_and_gpu("inputs, the reference and cuBLAS")
    tilec = common.import_tilec()
    import tilec.language as tl
    from tilec.tools.tensor_descriptor import TensorDescriptor
    gpu = common.Gpu(torch=torch)
    flush = gpu.l2_flusher()
    tilec_kernels = common.load_kernels(tl, tilec.jit, "tilec", KERNEL_FILE)
    kernel_name = KERNELS[args.kernel]
    kernels = {"tilec": tilec_kernels[kernel_name],
               "tilec (pointers)": tilec_kernels["matmul_kernel"]}
    triton_descriptor = None
    triton = common.importable("triton", "the Triton rows are skipped")
    if triton is not None:
        import triton.language as ttl
        from triton.tools.tensor_descriptor import TensorDescriptor as triton_descriptor
        kernels["triton"] = common.load_kernels(ttl, triton.jit, "triton", KERNEL_FILE)[
            kernel_name]
        if args.kernel == "device":  # Triton's in-kernel descriptors need an allocator
            triton.set_allocator(lambda size, alignment, stream: torch.empty(
                size, dtype=torch.int8, device="cuda"))
    to = getattr(torch, {"fp16": "float16", "bf16": "bfloat16"}[args.dtype])
    shapes = common.parse_int_tuples(args.shapes, r"(\d+)x(\d+)x(\d+)", "--shapes", "MxNxK")
    configs = parse_configs(args.configs or DEFAULT_CONFIGS)
    results, problems = [], []

    def run(name, launch, c, ref, K):
        c.fill_(float("nan"))
        gpu.synchronize()
        returned = launch()
        gpu.synchronize()
        if not bool(((c.float() - ref).abs() <= RTOL * (ref.abs() + K ** 0.5)).all()):
            problems.append(f"{name}: wrong result")
            return {"error": "wrong result"}
        time.sleep(args.cooldown)
        ms = common.median(common.time_gpu(gpu, launch, args.warmup, args.repeats, flush=flush))
        entry = {"ms": ms}
        metadata = getattr(returned, "metadata", None)
        if metadata is not None and "registers" in metadata:
            entry.update({k: metadata.get(k) for k in ("registers", "spill_stores",
                                                        "wgmma_serialized", "shared")})
            entry["tma_maps"] = len(metadata.get("tensormaps", ()))
            if metadata.get("spill_stores") or metadata.get("wgmma_serialized"):
                problems.append(f"{name}: spills or serialised wgmma")
        return entry

    for M, N, K in shapes:
        gen = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn((M, K), device="cuda", generator=gen).to(to)
        b = torch.randn((K, N), device="cuda", generator=gen).to(to)
        c = torch.empty((M, N), device="cuda", dtype=to)
        ref = a.float() @ b.float()
        row = {"shape": f"{M}x{N}x{K}", "tflops": 2 * M * N * K, "configs": {}}
        row["cublas"] = run("cuBLAS", lambda: torch.matmul(a, b, out=c), c, ref, K)
        for bm, bn, bk, warps, stages, ws, ctas in configs:
            label = f"{bm}x{bn}x{bk}:w{warps}:s{stages}" + (":ws" if ws else "") + \
                (f":c{ctas}" if ctas > 1 else "")
            grid = (-(-M // bm) * -(-N // bn),)
            meta = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=GROUP_M, num_warps=warps,
                        num_stages=stages)
            if ctas > 1:
                meta["num_ctas"] = ctas
            desc_meta = dict(meta, WARP_SPECIALIZE=ws)
            desc_grid = grid
            if args.kernel != "tile":  # persistent: a program (of `ctas` SMs) per SM at most
                desc_grid = (min(grid[0], gpu.sm_count() // ctas),)
                desc_meta["NUM_SMS"] = desc_grid[0]
            found = {}
            descs = [TensorDescriptor.from_tensor(t, blk) for t, blk in
                     ((a, [bm, bk]), (b, [bk, bn]), (c, [bm, bn]))]
            if args.kernel == "device":
                descs = [a, b, c]
            found["tilec"] = run(f"tilec {label}", lambda: kernels["tilec"][desc_grid](
                *descs, M, N, K, **desc_meta), c, ref, K)
            if not ws:  # the pointer kernel has no specialised loop
                found["tilec (pointers)"] = run(
                    f"tilec (pointers) {label}", lambda: kernels["tilec (pointers)"][grid](
                        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), **meta), c, ref, K)
            if "triton" in kernels and ctas == 1:  # cluster configs: tilec's scheme only
                tdescs = [triton_descriptor.from_tensor(t, blk) for t, blk in
                          ((a, [bm, bk]), (b, [bk, bn]), (c, [bm, bn]))]
                if args.kernel == "device":
                    tdescs = [a, b, c]
                try:
                    found["triton"] = run(f"Triton {label}", lambda: kernels["triton"][
                        desc_grid](*tdescs, M, N, K, **desc_meta), c, ref, K)
                except Exception as err:  # a config Triton refuses: recorded, the sweep goes on
                    found["triton"] = {"error": f"{type(err).__name__}: {err}"[:300]}
            row["configs"][label] = found
        results.append(row)

    table = []
    for row in results:
        flop = row["tflops"]
        best = {}
        for framework in ("tilec", "triton", "tilec (pointers)"):
            timed = [(entry[framework]["ms"], label) for label, entry in row["configs"].items()
                     if entry.get(framework, {}).get("ms")]
            best[framework] = min(timed) if timed else (None, None)
        cublas_ms = row["cublas"].get("ms")

        def tf(ms):
            return None if ms is None else flop / ms / 1e9
        row["best"] = {k: {"ms": ms, "config": label, "tflops": tf(ms)}
                       for k, (ms, label) in best.items()}
        row["best"]["cublas"] = {"ms": cublas_ms, "tflops": tf(cublas_ms)}
        over_cublas = common.ratio(tf(best["tilec"][0]), tf(cublas_ms))
        over_triton = common.ratio(tf(best["tilec"][0]), tf(best["triton"][0]))
        row["tilec_over_cublas"], row["tilec_over_triton"] = over_cublas, over_triton
        row["target_met"] = over_cublas is not None and over_cublas >= TARGET_OVER_CUBLAS
        table.append([row["shape"], common.fmt(tf(cublas_ms), ".0f"),
                      f"{common.fmt(tf(best['tilec'][0]), '.0f')} ({best['tilec'][1]})",
                      f"{common.fmt(tf(best['triton'][0]), '.0f')} ({best['triton'][1]})",
                      f"{common.fmt(tf(best['tilec (pointers)'][0]), '.0f')}",
                      common.fmt_ratio(over_cublas), common.fmt_ratio(over_triton)])
    common.print_table(f"{args.dtype} matmul through descriptors ({kernel_name}), TFLOP/s "
                       "(best config)",
                       ["shape", "cuBLAS", "tilec (TMA)", "Triton (same source)",
                        "tilec pointers", "tilec/cuBLAS", "tilec/Triton"], table)
    for row in results:
        print(f"target: {row['shape']} tilec {common.fmt_ratio(row['tilec_over_cublas'])} "
              f"cuBLAS (needs >= {TARGET_OVER_CUBLAS}x): "
              f"{'MET' if row['target_met'] else 'MISSED'}")
    payload = {"dtype": args.dtype, "kernel": kernel_name, "results": results,
               "environment": common.environment({"torch": torch, "tilec": tilec,
                                                  "triton": triton}, gpu)}
    name = "matmul_tma" if args.kernel == "tile" else f"matmul_tma_{args.kernel}"
    return common.finish(Path(args.out), name, payload, draw(results),
                         [("problems: ", "; ".join(problems))])


def draw(results: list[dict]):
    def figure(plt):
        fig, ax = plt.subplots(figsize=(8, 1.2 * len(results) + 1.5))
        names = ("cublas", "tilec", "triton", "tilec (pointers)")
        labels = {"cublas": "cuBLAS", "tilec": "tilec (TMA)", "triton": "Triton (same source)",
                  "tilec (pointers)": "tilec (pointers)"}
        height = 0.8 / len(names)
        for i, name in enumerate(names):
            values = [row["best"][name]["tflops"] or 0 for row in results]
            ax.barh([j + i * height for j in range(len(results))], values, height,
                    label=labels[name])
        ax.set_yticks([j + 0.4 - height / 2 for j in range(len(results))])
        ax.set_yticklabels([row["shape"] for row in results])
        ax.set_xlabel("TFLOP/s (best config)")
        ax.set_title("matmul through host tensor descriptors")
        ax.legend(loc="lower right")
        return fig
    return figure


if __name__ == "__main__":
    sys.exit(main())
