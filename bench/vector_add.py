"""Bandwidth of fp32 vector add: tilec beside Triton and torch, in one process.

    python bench/vector_add.py [--out DIR] [--sizes 2^20,2^27,1000000] [--warmup 10] [--repeats 100]
    python bench/vector_add.py --dry-run      # fake timings, no GPU: checks the report code

For each size n (default 2^12, 2^14, ..., 2^28, and 2^27, the target size) it runs the same
kernel source (bench/kernels.py:add_kernel) through tilec and Triton (BLOCK=1024, num_warps=4) and
torch.add(x, y, out=out), checks each result equals x + y once, then times each with CUDA events:
median over --repeats runs after --warmup, the L2 flushed (256 MB written) before every run.
Reports GB/s = 3 * n * 4 bytes / time, and tilec/Triton and tilec/torch GB/s ratios (above 1:
tilec is faster). Target: tilec >= 0.95x Triton at 2^27.

Writes vector_add.json and vector_add.png (GB/s against log2 n, and the ratio) into --out.
Exits 1 only when a result differs from x + y (2 when there is no GPU at all).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

BLOCK = 1024
NUM_WARPS = 4
TARGET_LOG2 = 27
TARGET_RATIO = 0.95
DEFAULT_SIZES = sorted({1 << k for k in range(12, 29, 2)} | {1 << TARGET_LOG2})
COMPETITORS = common.COMPETITORS
# --dry-run's model
FAKE_BANDWIDTH_GBPS = {"tilec": 4200.0, "triton": 4330.0, "torch": 4250.0}
FAKE_LATENCY_MS = {"tilec": 0.0030, "triton": 0.0030, "torch": 0.0028}


def parse_sizes(text: str) -> list[int]:
    """Comma-separated sizes: element counts (`1000000`) or powers of two (`2^20`, `2**20`)."""
    sizes = []
    for item in text.split(","):
        item = item.strip()
        power = re.fullmatch(r"2\s*(?:\^|\*\*)\s*(\d+)", item)
        if power:
            sizes.append(1 << int(power.group(1)))
        elif item.isdigit() and int(item) > 0:
            sizes.append(int(item))
        else:
            raise ValueError(f"--sizes: {item!r} is neither a count nor 2^K")
    return sizes


def size_label(n: int) -> str:
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def moved_bytes(n: int) -> int:
    return 3 * n * 4


# --- the measured side ---------------------------------------------------------------------------

class Runners:
    """Launch functions per competitor, built once; `measure(n)` times all of them at size n."""

    def __init__(self, args):
        self.args = args
        self.notes: list[str] = []
        torch = common.importable("torch")
        cupy = common.importable("cupy")
        common.require_gpu(cupy=cupy, torch=torch)
        self.modules = {"tilec": common.import_tilec(), "torch": torch, "cupy": cupy,
                        "triton": common.importable("triton")}
        self.gpu = common.Gpu(torch=torch, cupy=cupy)
        tilec = self.modules["tilec"]
        import tilec.language as tilec_tl
        self.launch = {"tilec": self._grid_launch(
            common.load_kernels(tilec_tl, tilec.jit, "tilec")["add_kernel"], tilec.cdiv)}
        triton = self.modules["triton"]
        if triton is not None and torch is None:
            self.notes.append("Triton skipped: its launcher needs torch tensors")
        elif triton is not None:
            import triton.language as triton_tl
            self.launch["triton"] = self._grid_launch(
                common.load_kernels(triton_tl, triton.jit, "triton")["add_kernel"], triton.cdiv)
        if torch is not None:
            self.launch["torch"] = lambda x, y, out, n: torch.add(x, y, out=out)
        else:
            self.notes.append("torch skipped: not importable")
        self.flush = self.gpu.l2_flusher()

    @staticmethod
    def _grid_launch(kernel, cdiv):
        def launch(x, y, out, n):
            kernel[(cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return launch

    def measure(self, n: int) -> dict:
        """{competitor: {"times_ms": [...], "correct": bool} or {"error": text}}."""
        gpu = self.gpu
        x, y, out = gpu.rand(n, seed=1), gpu.rand(n, seed=2), gpu.empty(n)
        expected = x + y
        found = {}
        for name, launch in self.launch.items():
            try:
                gpu.poison(out)
                launch(x, y, out, n)
                gpu.synchronize()
                correct = gpu.equal(out, expected)
                times = common.time_gpu(gpu, lambda: launch(x, y, out, n), self.args.warmup,
                                        self.args.repeats, flush=self.flush)
                found[name] = {"times_ms": times, "correct": correct}
            except Exception as err:
                if name == "tilec":
                    raise
                found[name] = {"error": f"{type(err).__name__}: {err}"}
                print(f"note: {name} failed at n={n}: {found[name]['error']}")
        return found  # x, y, out are freed here, before the next size allocates


# --- the report side -----------------------------------------------------------------------------

def summarise(n: int, found: dict) -> dict:
    row = {"n": n, "label": size_label(n), "bytes": moved_bytes(n)}
    return common.add_bandwidths(row, found, row["bytes"])


def print_rows(rows: list[dict]) -> None:
    table = []
    for row in rows:
        cells = [row["label"]] + common.bandwidth_cells(row)
        wrong = [name for name in COMPETITORS if row[name].get("correct") is False]
        cells.append(("<- target" if row["n"] == 1 << TARGET_LOG2 else "")
                     + (" MISMATCH: " + ",".join(wrong) if wrong else ""))
        table.append(cells)
    common.print_table(
        "fp32 vector add, GB/s = 3*n*4 bytes / median time (higher is better)",
        ["n"] + common.BANDWIDTH_HEADERS + [""],
        table)


def target_summary(rows: list[dict]) -> dict:
    target = {"n": 1 << TARGET_LOG2, "min_ratio_tilec_triton": TARGET_RATIO, "measured": None,
              "met": None}
    row = next((r for r in rows if r["n"] == 1 << TARGET_LOG2), None)
    if row is None:
        print(f"target: 2^{TARGET_LOG2} was not among the sizes")
        return target
    measured = row["ratio_tilec_triton"]
    target["measured"] = measured
    if measured is None:
        print(f"target: no tilec/Triton ratio at 2^{TARGET_LOG2} (Triton missing?)")
        return target
    target["met"] = measured >= TARGET_RATIO
    print(f"target: tilec/Triton at 2^{TARGET_LOG2} = {measured:.3f} "
          f"(tilec {row['tilec']['gbps']:.0f} GB/s, Triton {row['triton']['gbps']:.0f} GB/s; "
          f"needs >= {TARGET_RATIO}): {'MET' if target['met'] else 'MISSED'}")
    return target


def draw(rows: list[dict]):
    def figure(plt):
        fig, (top, bottom) = common.two_panels(plt)
        for name, style in zip(COMPETITORS, ("o-", "s--", "^:")):
            points = [(r["n"].bit_length() - 1, r[name]["gbps"]) for r in rows
                      if r[name].get("gbps") is not None]
            if points:
                top.plot(*zip(*points), style, label=name)
        top.axvline(TARGET_LOG2, color="grey", linewidth=0.8, linestyle=":")
        top.set_ylabel("GB/s (3·n·4 bytes / time)")
        top.set_title("fp32 vector add")
        top.grid(True, alpha=0.3)
        top.legend()
        points = [(r["n"].bit_length() - 1, r["ratio_tilec_triton"]) for r in rows
                  if r["ratio_tilec_triton"] is not None]
        common.ratio_panel(bottom, points, TARGET_RATIO, "log2(n elements)")
        return fig
    return figure


def main(argv=None) -> int:
    parser = common.make_parser(__doc__)
    parser.add_argument("--sizes", type=parse_sizes, default=DEFAULT_SIZES,
                        help="comma-separated element counts or 2^K (default 2^12..2^28 by x4, "
                             "and 2^27)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=100)
    args = parser.parse_args(argv)
    if args.dry_run:
        runners = common.FakeRunners(args, FAKE_BANDWIDTH_GBPS, FAKE_LATENCY_MS, moved_bytes)
    else:
        runners = Runners(args)
    rows = []
    for n in args.sizes:
        row = summarise(n, runners.measure(n))
        rows.append(row)
        print(f"n={row['label']:>10}: " + common.bandwidth_line(row))
    print_rows(rows)
    target = target_summary(rows)
    for note in runners.notes:
        print(f"note: {note}")
    mismatches = [f"{name} at n={r['label']}" for r in rows for name in COMPETITORS
                  if r[name].get("correct") is False]
    env = common.environment(runners.modules, gpu=None if args.dry_run else runners.gpu)
    return common.finish(args.out, "vector_add", {
        "benchmark": "vector_add", "dry_run": args.dry_run, "environment": env,
        "config": {"block": BLOCK, "num_warps": NUM_WARPS, "warmup": args.warmup,
                   "repeats": args.repeats, "l2_flush_bytes": common.L2_FLUSH_BYTES,
                   "gbps": "3 * n * 4 bytes / median time", "timer": "CUDA events"},
        "results": rows, "target": target, "notes": runners.notes, "mismatches": mismatches,
    }, draw(rows), [("MISMATCH: ", "; ".join(mismatches))])


if __name__ == "__main__":
    sys.exit(main())
