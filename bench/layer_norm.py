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

import random
import re
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

NAME = "layer_norm"
KERNEL = "layer_norm_fwd"
DEFAULT_SIZES = [(4096, 1024), (4096, 4096), (4096, 8192)]
TARGET_RATIO = 0.9
RTOL, ATOL = 1e-2, 1e-2
EPS = 1e-5
COMPETITORS = ("tilec", "triton", "torch")


def parse_dim(text: str) -> int:
    text = text.strip()
    power = re.fullmatch(r"2\s*(?:\^|\*\*)\s*(\d+)", text)
    if power:
        return 1 << int(power.group(1))
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise ValueError(f"{text!r} is neither a positive count nor 2^K")


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """Comma-separated ROWSxCOLS (`4096x1024`, `2^12x2^10`)."""
    sizes = []
    for item in text.split(","):
        parts = re.split(r"\s*[x×]\s*", item.strip())
        if len(parts) != 2:
            raise ValueError(f"--sizes: {item!r} is not ROWSxCOLS")
        try:
            sizes.append((parse_dim(parts[0]), parse_dim(parts[1])))
        except ValueError as err:
            raise ValueError(f"--sizes: {item!r}: {err}") from None
    return sizes


def size_label(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def config_for(cols: int, num_warps: int | None = None) -> tuple[int, int]:
    """(BLOCK_SIZE, num_warps) for rows of `cols` fp16 elements, as Triton's tutorial."""
    block = min(65536 // 2, next_pow2(cols))
    if num_warps is None:
        num_warps = min(max(block // 256, 1), 8)
    return block, num_warps


def moved_bytes(size: tuple[int, int]) -> int:
    rows, cols = size
    return 2 * rows * cols * 2 + 2 * cols * 2


def gbps(size, ms: float | None) -> float | None:
    return None if ms is None else moved_bytes(size) / (ms * 1e-3) / 1e9


# --- the measured side ---------------------------------------------------------------------------

def tilec_kernel_info(jit_fn, constants: dict, num_warps: int) -> dict | None:
    """Registers, spills and shared bytes of tilec's compiled kernel for these constants."""
    try:
        for kernel in jit_fn.cache.values():
            if kernel.constants == constants and kernel.options.num_warps == num_warps:
                return {key: kernel.metadata.get(key) for key in ("registers", "spills", "shared")}
    except Exception:
        pass
    return None


def triton_kernel_info(compiled) -> dict | None:
    """The same for the CompiledKernel a Triton launch returns."""
    try:
        return {"registers": getattr(compiled, "n_regs", None),
                "spills": getattr(compiled, "n_spills", None),
                "shared": getattr(compiled.metadata, "shared", None)}
    except Exception:
        return None


class Runners:
    """Launch functions per competitor, built once; `measure(size)` times all of them."""

    def __init__(self, args):
        self.args = args
        self.notes: list[str] = []
        torch = common.importable("torch", "this benchmark cannot run without it")
        cupy = common.importable("cupy", "tilec cannot launch without it")
        if torch is None:
            print("error: torch is needed for the input tensors and the reference")
            sys.exit(2)
        common.require_gpu(cupy=cupy, torch=torch)
        self.torch = torch
        self.modules = {"tilec": common.import_tilec(), "torch": torch, "cupy": cupy,
                        "triton": common.importable("triton")}
        self.gpu = common.Gpu(torch=torch)
        tilec = self.modules["tilec"]
        import tilec.language as tilec_tl
        self.kernels = {"tilec": common.load_kernels(tilec_tl, tilec.jit, "tilec")[KERNEL]}
        triton = self.modules["triton"]
        if triton is not None:
            try:
                import triton.language as triton_tl
                self.kernels["triton"] = common.load_kernels(triton_tl, triton.jit,
                                                             "triton")[KERNEL]
            except Exception as err:
                self.notes.append(f"Triton skipped: {type(err).__name__}: {err}")
        else:
            self.notes.append("Triton skipped: not importable")
        self.flush = self.gpu.l2_flusher()

    def measure(self, size: tuple[int, int]) -> dict:
        """{competitor: {"times_ms": [...], "correct": bool, ...} or {"error": text}}."""
        torch, gpu = self.torch, self.gpu
        rows, cols = size
        block, num_warps = config_for(cols, self.args.num_warps)
        gen = torch.Generator(device="cuda").manual_seed(rows * 100003 + cols)
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

        def kernel_launch(kernel):
            return lambda: kernel[(rows,)](x, y, weight, bias, mean, rstd, x.stride(0), cols, EPS,
                                           BLOCK_SIZE=block, num_warps=num_warps)

        def close(a, b) -> tuple[bool, float]:
            return (bool(torch.allclose(a, b, rtol=RTOL, atol=ATOL)),
                    float((a.float() - b.float()).abs().max().item()))

        launches = {name: kernel_launch(kernel) for name, kernel in self.kernels.items()}
        launches["torch"] = lambda: torch.nn.functional.layer_norm(x, (cols,), weight, bias, EPS)
        found = {}
        for name, launch in launches.items():
            try:
                for out in (y, mean, rstd):  # a kernel that writes nothing cannot pass the check
                    out.fill_(float("nan"))
                returned = launch()
                gpu.synchronize()
                correct, max_err = close(returned if name == "torch" else y, expected)
                entry = {"correct": correct, "max_abs_err": max_err}
                if name != "torch":
                    mean_ok, entry["mean_max_abs_err"] = close(mean, expected_mean)
                    rstd_ok, entry["rstd_max_abs_err"] = close(rstd, expected_rstd)
                    entry["correct"] = correct and mean_ok and rstd_ok
                if name == "tilec":
                    entry["kernel"] = tilec_kernel_info(self.kernels["tilec"],
                                                        {"BLOCK_SIZE": block}, num_warps)
                elif name == "triton":
                    entry["kernel"] = triton_kernel_info(returned)
                entry["times_ms"] = common.time_gpu(gpu, launch, self.args.warmup,
                                                    self.args.repeats, flush=self.flush)
                found[name] = entry
            except Exception as err:
                found[name] = {"error": f"{type(err).__name__}: {err}"}
                print(f"note: {name} failed at {size_label(size)}: {found[name]['error']}")
                if name == "tilec":
                    traceback.print_exc()
        return found  # the tensors are freed here, before the next size allocates


class FakeRunners:
    """Plausible timings from a latency + bandwidth model; no GPU, no competitor imports."""

    BANDWIDTH_GBPS = {"tilec": 3300.0, "triton": 3450.0, "torch": 2900.0}
    LATENCY_MS = {"tilec": 0.0040, "triton": 0.0040, "torch": 0.0045}

    def __init__(self, args):
        self.args = args
        self.notes = ["dry run: timings are fake"]
        self.modules = {}
        self.rng = random.Random(0)

    def measure(self, size: tuple[int, int]) -> dict:
        found = {}
        for name in COMPETITORS:
            seconds = moved_bytes(size) / (self.BANDWIDTH_GBPS[name] * 1e9)
            base = self.LATENCY_MS[name] + seconds * 1e3
            found[name] = {"times_ms": [base * self.rng.uniform(0.98, 1.05)
                                        for _ in range(self.args.repeats)],
                           "correct": True, "max_abs_err": 0.0}
        return found


# --- the report side -----------------------------------------------------------------------------

def summarise(size: tuple[int, int], found: dict, num_warps: int | None) -> dict:
    rows, cols = size
    block, warps = config_for(cols, num_warps)
    row = {"rows": rows, "cols": cols, "label": size_label(size), "block_size": block,
           "num_warps": warps, "bytes": moved_bytes(size)}
    for name in COMPETITORS:
        entry = dict(found.get(name, {"skipped": True}))
        if "times_ms" in entry:
            entry["ms"] = common.median(entry["times_ms"])
            entry["gbps"] = gbps(size, entry["ms"])
        row[name] = entry
    row["ratio_tilec_triton"] = common.ratio(row["tilec"].get("gbps"), row["triton"].get("gbps"))
    row["ratio_tilec_torch"] = common.ratio(row["tilec"].get("gbps"), row["torch"].get("gbps"))
    return row


def print_rows(rows: list[dict]) -> None:
    table = []
    for row in rows:
        cells = [row["label"], str(row["block_size"]), str(row["num_warps"])]
        for name in COMPETITORS:
            cells.append(common.fmt(row[name].get("gbps"), ".1f"))
        cells += [common.fmt_ratio(row["ratio_tilec_triton"]),
                  common.fmt_ratio(row["ratio_tilec_torch"])]
        wrong = [name for name in COMPETITORS if row[name].get("correct") is False]
        failed = [name for name in COMPETITORS if "error" in row[name]]
        cells.append((" MISMATCH: " + ",".join(wrong) if wrong else "")
                     + (" ERROR: " + ",".join(failed) if failed else ""))
        table.append(cells)
    common.print_table(
        "fp16 layer-norm forward, GB/s = (2*M*N*2 + 2*N*2) bytes / median time (higher is better)",
        ["M x N", "BLOCK", "warps", "tilec GB/s", "Triton GB/s", "torch GB/s",
         "tilec/Triton", "tilec/torch", ""],
        table)


def target_summary(rows: list[dict]) -> dict:
    target = {"min_ratio_tilec_triton": TARGET_RATIO, "at": "every size", "per_size": {},
              "met": None}
    verdicts = []
    for row in rows:
        measured = row["ratio_tilec_triton"]
        met = None if measured is None else measured >= TARGET_RATIO
        target["per_size"][row["label"]] = {"measured": measured, "met": met}
        verdicts.append(met)
        if measured is None:
            print(f"target: no tilec/Triton ratio at {row['label']} (Triton or tilec missing?)")
        else:
            print(f"target: tilec/Triton at {row['label']} = {measured:.3f} "
                  f"(tilec {row['tilec']['gbps']:.0f} GB/s, Triton {row['triton']['gbps']:.0f} "
                  f"GB/s; needs >= {TARGET_RATIO}): {'MET' if met else 'MISSED'}")
    if verdicts and all(v is not None for v in verdicts):
        target["met"] = all(verdicts)
        print(f"target: tilec >= {TARGET_RATIO}x Triton at every size: "
              f"{'MET' if target['met'] else 'MISSED'}")
    return target


def draw(rows: list[dict], title: str, ylabel: str):
    def figure(plt):
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True,
                                          gridspec_kw={"height_ratios": [3, 1]})
        xs = list(range(len(rows)))
        width = 0.8 / len(COMPETITORS)
        for i, name in enumerate(COMPETITORS):
            points = [(x + (i - 1) * width, r[name]["gbps"]) for x, r in zip(xs, rows)
                      if r[name].get("gbps") is not None]
            if points:
                top.bar(*zip(*points), width=width, label=name)
        top.set_ylabel(ylabel)
        top.set_title(title)
        top.grid(True, axis="y", alpha=0.3)
        top.legend()
        points = [(x, r["ratio_tilec_triton"]) for x, r in zip(xs, rows)
                  if r["ratio_tilec_triton"] is not None]
        if points:
            bottom.plot(*zip(*points), "o-", color="C0")
        bottom.axhline(TARGET_RATIO, color="red", linewidth=0.8, linestyle="--",
                       label=f"target {TARGET_RATIO}")
        bottom.axhline(1.0, color="grey", linewidth=0.8)
        bottom.set_ylabel("tilec / Triton")
        bottom.set_xlabel("M x N")
        bottom.set_xticks(xs)
        bottom.set_xticklabels([r["label"] for r in rows])
        bottom.grid(True, alpha=0.3)
        bottom.legend(loc="lower right")
        return fig
    return figure


def main(argv=None) -> int:
    parser = common.make_parser(__doc__)
    parser.add_argument("--sizes", type=parse_sizes, default=DEFAULT_SIZES,
                        help="comma-separated MxN (default 4096x1024,4096x4096,4096x8192)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--num-warps", type=int, default=None,
                        help="num_warps for every size, both compilers (default: "
                             "min(max(BLOCK_SIZE // 256, 1), 8))")
    args = parser.parse_args(argv)
    runners = FakeRunners(args) if args.dry_run else Runners(args)
    rows = []
    for size in args.sizes:
        row = summarise(size, runners.measure(size), args.num_warps)
        rows.append(row)
        print(f"{row['label']:>11} (BLOCK {row['block_size']}, {row['num_warps']} warps): "
              + ", ".join(f"{name} {common.fmt(row[name].get('gbps'), '.1f')} GB/s"
                          for name in COMPETITORS))
    print_rows(rows)
    target = target_summary(rows)
    for note in runners.notes:
        print(f"note: {note}")
    mismatches = [f"{name} at {r['label']}" for r in rows for name in COMPETITORS
                  if r[name].get("correct") is False]
    errors = [f"tilec at {r['label']}: {r['tilec']['error']}" for r in rows
              if "error" in r["tilec"]]
    env = common.environment(runners.modules)
    if not args.dry_run:
        env["gpu"] = runners.gpu.name()
        env["arrays"] = runners.gpu.kind
    common.write_json(args.out, NAME, {
        "benchmark": NAME, "dry_run": args.dry_run, "environment": env,
        "config": {"kernel": f"bench/kernels.py:{KERNEL}", "dtype": "float16",
                   "stats_dtype": "float32", "eps": EPS, "grid": "(M,)",
                   "block_size": "min(65536 // 2, next_pow2(N))",
                   "num_warps": args.num_warps if args.num_warps is not None
                   else "min(max(BLOCK_SIZE // 256, 1), 8)",
                   "reference": "torch.nn.functional.layer_norm(x, (N,), weight, bias, eps); "
                                "mean and rstd from x.float()",
                   "rtol": RTOL, "atol": ATOL,
                   "warmup": args.warmup, "repeats": args.repeats,
                   "l2_flush_bytes": common.L2_FLUSH_BYTES,
                   "gbps": "(2 * M * N * 2 + 2 * N * 2) bytes / median time",
                   "timer": "CUDA events"},
        "results": rows, "target": target, "notes": runners.notes, "mismatches": mismatches,
        "tilec_errors": errors,
    })
    common.save_plot(args.out, NAME, draw(rows, "fp16 layer-norm forward (one program per row)",
                                          "GB/s ((2·M·N·2 + 2·N·2) bytes / time)"))
    if mismatches:
        print("MISMATCH: " + "; ".join(mismatches))
    if errors:
        print("TILEC FAILED: " + "; ".join(errors))
    return 1 if mismatches or errors else 0


if __name__ == "__main__":
    sys.exit(main())
