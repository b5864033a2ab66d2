"""Cold compile time of the vector-add kernel: tilec beside Triton, each in fresh processes.

    python bench/compile_time.py [--out DIR] [--trials 3]
    python bench/compile_time.py --dry-run      # fake timings, no subprocesses: checks the report

Every measurement runs in a new Python process (this file with --child MODE), so nothing is
cached in memory, with the framework's kernel cache pointed at a new, empty temporary directory
(TILEC_CACHE_DIR, TRITON_CACHE_DIR); the median over --trials processes is reported, in seconds.

  import-tilec    `import tilec`
  tilec-compile   tilec.compile(add_kernel, target="cuda:90") of bench/kernels.py (no GPU needed),
                  then a second, different kernel (scale_add_kernel) in the same process, then
                  add_kernel again (served by the disk cache)
  tilec-launch    the first add_kernel[grid](...) launch in the process, compile included, up to
                  a synchronize; then scale_add_kernel's first launch; then a warm launch
  triton-launch   the same with @triton.jit on the same source: Triton's first kernel in a
                  process (this includes building Triton's launcher stubs, which live in the same
                  cache directory), then a second kernel; `import triton` is timed separately

Array libraries (torch, CuPy) are imported and the CUDA context created before any timer starts.
Target: tilec.compile of vector add <= 1.0 s. Writes compile_time.json and compile_time.png into
--out. Without a GPU the launch modes are skipped with a note. Exits 1 when a launch gives a wrong
result or a tilec measurement fails; a missing or failing competitor only prints a note.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

N = 1 << 20
BLOCK = 1024
ALPHA = 2.0  # x * 2 is exact, so fused or not, out equals torch's x * ALPHA + y bit for bit
TARGET_S = 1.0
CHILD_TIMEOUT_S = 300
MARKER = "BENCH_JSON "
SIGNATURE = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32:16"}
MODES = ("import-tilec", "tilec-compile", "tilec-launch", "triton-launch")
GPU_MODES = ("tilec-launch", "triton-launch")
CACHE_VARIABLE = {"import-tilec": "TILEC_CACHE_DIR", "tilec-compile": "TILEC_CACHE_DIR",
                  "tilec-launch": "TILEC_CACHE_DIR", "triton-launch": "TRITON_CACHE_DIR"}
# The rows of the report: (label, tilec mode and key, Triton mode and key).
ROWS = (
    ("import", ("import-tilec", "import_s"), ("triton-launch", "import_s")),
    ("tilec.compile(add), cold, cuda:90", ("tilec-compile", "first_compile_s"), None),
    ("tilec.compile(scale_add), same process", ("tilec-compile", "second_compile_s"), None),
    ("tilec.compile(add) again, disk cache", ("tilec-compile", "cached_compile_s"), None),
    ("first launch incl. compile, 1st kernel", ("tilec-launch", "first_launch_s"),
     ("triton-launch", "first_launch_s")),
    ("first launch incl. compile, 2nd kernel", ("tilec-launch", "second_launch_s"),
     ("triton-launch", "second_launch_s")),
)  # warm_launch_s (a warm launch + synchronize, for reference) is in the JSON only


# --- children: one measurement each, in a fresh process ------------------------------------------

def timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def child_import_tilec() -> dict:
    _, seconds = timed(common.import_tilec)
    return {"import_s": seconds}


def child_tilec_compile() -> dict:
    tilec, import_s = timed(common.import_tilec)
    import tilec.language as tl
    kernels = common.load_kernels(tl, tilec.jit, "tilec")
    constexprs = {"BLOCK": BLOCK}
    first, first_s = timed(lambda: tilec.compile(
        kernels["add_kernel"], signature=SIGNATURE, constexprs=constexprs, target="cuda:90"))
    _, second_s = timed(lambda: tilec.compile(
        kernels["scale_add_kernel"], signature={**SIGNATURE, "alpha": "fp32"},
        constexprs=constexprs, target="cuda:90"))
    _, cached_s = timed(lambda: tilec.compile(
        kernels["add_kernel"], signature=SIGNATURE, constexprs=constexprs, target="cuda:90"))
    return {"import_s": import_s, "first_compile_s": first_s, "second_compile_s": second_s,
            "cached_compile_s": cached_s, "cubin_bytes": len(first.asm.get("cubin") or b""),
            "registers": first.metadata.get("registers")}


def launch_child(import_framework) -> dict:
    """Times the first launches of add_kernel and scale_add_kernel compiled by the framework
    `import_framework()` returns as (module, language, jit, cdiv)."""
    torch, import_torch_s = timed(lambda: common.importable("torch"))
    cupy, import_cupy_s = timed(lambda: common.importable("cupy"))
    gpu = common.Gpu(torch=torch, cupy=cupy)
    x, y, out = gpu.rand(N, seed=1), gpu.rand(N, seed=2), gpu.empty(N)
    expected_add, expected_scale_add = x + y, x * ALPHA + y
    gpu.poison(out)
    gpu.synchronize()  # the CUDA context exists before any timer starts
    (module, language, jit, cdiv), import_s = timed(import_framework)
    kernels = common.load_kernels(language, jit, module.__name__)
    grid = (cdiv(N, BLOCK),)

    def run(launch):
        launch()
        gpu.synchronize()

    _, first_s = timed(lambda: run(lambda: kernels["add_kernel"][grid](
        x, y, out, N, BLOCK=BLOCK)))
    add_ok = gpu.equal(out, expected_add)
    gpu.poison(out)
    _, second_s = timed(lambda: run(lambda: kernels["scale_add_kernel"][grid](
        x, y, out, N, ALPHA, BLOCK=BLOCK)))
    scale_add_ok = gpu.equal(out, expected_scale_add)
    _, warm_s = timed(lambda: run(lambda: kernels["add_kernel"][grid](x, y, out, N, BLOCK=BLOCK)))
    return {"import_s": import_s, "first_launch_s": first_s, "second_launch_s": second_s,
            "warm_launch_s": warm_s, "correct": add_ok and scale_add_ok,
            "arrays": gpu.kind, "import_torch_s": import_torch_s if torch else None,
            "import_cupy_s": import_cupy_s if cupy else None}


def import_tilec_framework():
    tilec = common.import_tilec()
    import tilec.language as tl
    return tilec, tl, tilec.jit, tilec.cdiv


def import_triton_framework():
    import triton
    import triton.language as tl
    return triton, tl, triton.jit, triton.cdiv


def run_child(mode: str) -> int:
    children = {"import-tilec": child_import_tilec, "tilec-compile": child_tilec_compile,
                "tilec-launch": lambda: launch_child(import_tilec_framework),
                "triton-launch": lambda: launch_child(import_triton_framework)}
    result = children[mode]()
    print(MARKER + json.dumps(result), flush=True)
    return 0


# --- parent: fresh processes, medians, report ----------------------------------------------------

def child_env(mode: str, cache_dir: str) -> dict:
    env = dict(os.environ)
    for name in ("TILEC_INTERPRET", "TRITON_INTERPRET", "TILEC_CACHE", "TILEC_DUMP_IR"):
        env.pop(name, None)  # a cold compile to a real cubin, through the disk cache
    env[CACHE_VARIABLE[mode]] = cache_dir
    return env


def measure(mode: str) -> dict:
    """One fresh process for `mode`: its JSON, or {"error": ...}."""
    with tempfile.TemporaryDirectory(prefix=f"bench-{mode}-") as cache_dir:
        try:
            proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", mode],
                                  cwd=common.ROOT, env=child_env(mode, cache_dir), text=True,
                                  capture_output=True, timeout=CHILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {CHILD_TIMEOUT_S} s"}
    lines = [line for line in proc.stdout.splitlines() if line.startswith(MARKER)]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-8:]
        return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}
    return json.loads(lines[-1][len(MARKER):])


def fake_measure(mode: str, rng: random.Random) -> dict:
    model = {"import-tilec": {"import_s": 0.35},
             "tilec-compile": {"import_s": 0.35, "first_compile_s": 0.45, "second_compile_s": 0.08,
                               "cached_compile_s": 0.004, "cubin_bytes": 4100, "registers": 26},
             "tilec-launch": {"import_s": 0.35, "first_launch_s": 0.6, "second_launch_s": 0.1,
                              "warm_launch_s": 0.0001, "correct": True, "arrays": "torch"},
             "triton-launch": {"import_s": 0.9, "first_launch_s": 1.5, "second_launch_s": 0.4,
                               "warm_launch_s": 0.0001, "correct": True, "arrays": "torch"}}
    return {k: v * rng.uniform(0.95, 1.08) if k.endswith("_s") else v
            for k, v in model[mode].items()}


def medians(trials: list[dict]) -> dict:
    ok = [t for t in trials if "error" not in t]
    keys = {k for t in ok for k, v in t.items() if k.endswith("_s") and v is not None}
    return {k: common.median(t.get(k) for t in ok) for k in sorted(keys)}


def plan(notes: list[str]) -> list[str]:
    """The modes this machine can run: launch modes need a GPU, Triton's needs Triton and torch."""
    modes = ["import-tilec", "tilec-compile"]
    cupy = common.importable("cupy", "GPU rows need it or torch")
    torch = None if cupy is not None else common.importable("torch", "GPU rows need it or CuPy")
    if not common.gpu_available(cupy=cupy, torch=torch):
        notes.append("no GPU found: launch rows skipped (tilec.compile needs none)")
        return modes
    modes.append("tilec-launch")
    missing = [name for name in ("triton", "torch") if importlib.util.find_spec(name) is None]
    if missing:
        notes.append(f"Triton rows skipped: {' and '.join(missing)} not installed")
    else:
        modes.append("triton-launch")
    return modes


def report_rows(results: dict) -> list[dict]:
    rows = []
    for label, tilec_ref, triton_ref in ROWS:
        def pick(ref):
            return results.get(ref[0], {}).get("median", {}).get(ref[1]) if ref else None
        tilec_s, triton_s = pick(tilec_ref), pick(triton_ref)
        rows.append({"label": label, "tilec_s": tilec_s, "triton_s": triton_s,
                     "ratio_tilec_triton": common.ratio(tilec_s, triton_s)})
    return rows


def print_rows(rows: list[dict]) -> None:
    common.print_table(
        "compile time, seconds, median over fresh processes (lower is better; tilec/Triton "
        "below 1: tilec is faster)", ["measurement", "tilec s", "Triton s", "tilec/Triton"],
        [[r["label"], common.fmt(r["tilec_s"], ".3f"), common.fmt(r["triton_s"], ".3f"),
          common.fmt_ratio(r["ratio_tilec_triton"])] for r in rows])


def target_summary(results: dict) -> dict:
    measured = results.get("tilec-compile", {}).get("median", {}).get("first_compile_s")
    target = {"max_s": TARGET_S, "measured": measured,
              "met": None if measured is None else measured <= TARGET_S}
    if measured is None:
        print("target: tilec.compile was not measured")
    else:
        print(f"target: cold tilec.compile of vector add {measured:.3f} s (needs <= {TARGET_S}, "
              f"import tilec not included): {'MET' if target['met'] else 'MISSED'}")
    return target


def draw(rows: list[dict]):
    def figure(plt):
        shown = [r for r in rows if r["tilec_s"] is not None or r["triton_s"] is not None]
        fig, ax = plt.subplots(figsize=(9, 0.6 * len(shown) + 1.5))
        positions = range(len(shown))[::-1]
        height = 0.38
        for offset, key, name, color in ((height / 2, "tilec_s", "tilec", "C0"),
                                         (-height / 2, "triton_s", "Triton", "C1")):
            values = [r[key] or 0.0 for r in shown]
            ax.barh([p + offset for p in positions], values, height=height, label=name,
                    color=color)
            for p, value in zip(positions, values):
                if value:
                    ax.text(value, p + offset, f" {value:.3f}", va="center", fontsize=8)
        ax.set_yticks(list(positions))
        ax.set_yticklabels([r["label"] for r in shown])
        common.finish_barh(ax, TARGET_S, f"tilec.compile target {TARGET_S} s",
                           "seconds (median over fresh processes)", "compile time")
        return fig
    return figure


def main(argv=None) -> int:
    parser = common.make_parser(__doc__)
    parser.add_argument("--trials", type=int, default=3, help="fresh processes per measurement")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return run_child(args.child)
    notes = []
    if args.dry_run:
        modes, rng = list(MODES), random.Random(0)
        notes.append("dry run: timings are fake")
    else:
        modes = plan(notes)
    results = {}
    for mode in modes:
        trials = []
        for trial in range(args.trials):
            found = fake_measure(mode, rng) if args.dry_run else measure(mode)
            trials.append(found)
            if "error" in found:
                print(f"note: {mode} trial {trial + 1} failed: {found['error']}")
                break  # a failing setup fails every time: do not wait for it again
            print(f"{mode} trial {trial + 1}: " + ", ".join(
                f"{k} {v:.3f}" for k, v in found.items() if k.endswith("_s") and v is not None))
        results[mode] = {"trials": trials, "median": medians(trials)}
    rows = report_rows(results)
    print_rows(rows)
    target = target_summary(results)
    for note in notes:
        print(f"note: {note}")
    mismatches = [m for m, r in results.items() for t in r["trials"] if t.get("correct") is False]
    failures = [m for m, r in results.items() if m != "triton-launch"
                and any("error" in t for t in r["trials"])]
    return common.finish(args.out, "compile_time", {
        "benchmark": "compile_time", "dry_run": args.dry_run,
        "environment": common.environment({}),
        "config": {"trials": args.trials, "n": N, "block": BLOCK, "target": "cuda:90",
                   "signature": SIGNATURE, "timer": "perf_counter in a fresh process; launches "
                   "timed up to a device synchronize"},
        "results": results, "rows": rows, "target": target, "notes": notes,
        "mismatches": mismatches, "tilec_failures": failures,
    }, draw(rows), [("MISMATCH: ", ", ".join(sorted(set(mismatches)))),
                    ("tilec measurement failed: ", ", ".join(failures))])


if __name__ == "__main__":
    sys.exit(main())
