"""Helpers shared by the benchmarks in bench/: arguments, competitors, GPU timing, reports.

- Competitors are imported with `importable(name)`: a missing one (or one that fails to import)
  prints a note and its rows are skipped; it never makes a benchmark fail.
- GPU timing (`time_gpu`) is tilec.testing's: CUDA events (torch's when torch imports, else
  CuPy's) around each repetition after a warm-up; reports take the median. Bandwidth runs write a
  256 MB buffer between repetitions so every repetition starts with a cold L2. Nothing here uses
  triton.testing, so tilec's numbers do not depend on Triton. tilec is imported at the first
  timing call, not with this module, so compile_time.py can time `import tilec` itself.
- Results: `write_json` writes `<name>.json`, `save_plot` a `<name>.png` (matplotlib, Agg) when
  matplotlib imports, `print_table` a plain-text table to stdout.
"""
from __future__ import annotations

import argparse
import datetime
import importlib
import importlib.util
import inspect
import json
import os
import platform
import random
import re
import socket
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DEFAULT_OUT = BENCH / "results"
KERNELS_FILE = BENCH / "kernels.py"
L2_FLUSH_BYTES = 256 * 1024 * 1024  # as tilec.testing.L2_FLUSH_BYTES
# The bandwidth benchmarks (vector add and the row-wise ones) compare these, in this order.
COMPETITORS = ("tilec", "triton", "torch")
BANDWIDTH_HEADERS = ["tilec GB/s", "Triton GB/s", "torch GB/s", "tilec/Triton", "tilec/torch"]


class Mismatch(Exception):
    """A kernel produced a wrong result: the only reason a benchmark exits non-zero."""


# --- arguments -----------------------------------------------------------------------------------

def make_parser(doc: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=doc.strip().splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=doc)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"directory for the JSON and PNG results (default {DEFAULT_OUT})")
    parser.add_argument("--dry-run", action="store_true",
                        help="fake timings, touch no GPU: exercises the table, JSON and PNG code")
    return parser


# --- competitors ---------------------------------------------------------------------------------

def importable(name: str, rows: str = "its rows are skipped"):
    """The module `name`, or None with a printed note when it does not import."""
    try:
        return importlib.import_module(name)
    except Exception as err:  # ImportError, but also a driver or CUDA error at import time
        print(f"note: {name} is not importable ({type(err).__name__}: {err}); {rows}")
        return None


def import_tilec():
    """tilec, from the installed package or from this checkout's python/ directory."""
    try:
        import tilec
    except ImportError:
        sys.path.insert(0, str(ROOT / "python"))
        import tilec
    return tilec


def load_kernels(language, jit, tag: str, path: Path = KERNELS_FILE) -> dict:
    """Every kernel of `path` (default kernels.py; its KERNELS names them) compiled by one
    framework: `language` is bound to `tl` before the file runs, so tilec and Triton see the
    same source. Returns {name: jit function}."""
    name = f"bench_{Path(path).stem}_{tag}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.tl = language
    module.jit = jit  # for the helpers the kernels call
    sys.modules[name] = module  # some frameworks look a kernel's module up by name
    spec.loader.exec_module(module)
    found = {kernel: getattr(module, kernel) for kernel in module.KERNELS}
    # a file may decorate its kernels itself (with the `jit` bound above)
    return {name: jit(fn) if inspect.isfunction(fn) else fn for name, fn in found.items()}


def triton_kernel_info(compiled) -> dict | None:
    """Registers, spills and shared memory of the CompiledKernel a Triton launch returns."""
    try:
        return {"registers": getattr(compiled, "n_regs", None),
                "spills": getattr(compiled, "n_spills", None),
                "shared": getattr(compiled.metadata, "shared", None)}
    except Exception:
        return None


def gpu_available(cupy=None, torch=None) -> bool:
    """Whether CuPy or torch (whichever is given and imports) sees a CUDA device."""
    if cupy is not None:
        try:
            if cupy.cuda.runtime.getDeviceCount() > 0:
                return True
        except Exception:
            pass
    if torch is not None:
        try:
            return bool(torch.cuda.is_available())
        except Exception:
            return False
    return False


def require_torch_and_gpu(needed_for: str):
    """(torch, cupy) for a benchmark that cannot run without torch (`needed_for` says what
    it needs it for) and launches tilec through CuPy: exits with status 2 and a clear line
    when torch does not import or there is no GPU."""
    torch = importable("torch", "this benchmark cannot run without it")
    cupy = importable("cupy", "tilec cannot launch without it")
    if torch is None:
        print(f"error: torch is needed for {needed_for}")
        sys.exit(2)
    require_gpu(cupy=cupy, torch=torch)
    return torch, cupy


def parse_int_tuples(text: str, pattern: str, option: str, form: str) -> list[tuple[int, ...]]:
    """Comma-separated items of `text`, each matching `pattern` (a regex whose groups are
    integers) in full, as tuples of those integers; a ValueError naming `option` and the
    expected `form` otherwise."""
    found = []
    for item in text.split(","):
        match = re.fullmatch(rf"\s*{pattern}\s*", item)
        if not match:
            raise ValueError(f"{option}: {item!r} is not {form}")
        found.append(tuple(int(g) for g in match.groups()))
    return found


def require_gpu(cupy=None, torch=None) -> None:
    """Exit with status 2 and a clear line, not a CUDA traceback, when there is no GPU."""
    if gpu_available(cupy=cupy, torch=torch):
        return
    print("error: no CUDA device is visible to CuPy or torch; this benchmark needs a GPU "
          "(--dry-run checks the report code without one)")
    sys.exit(2)


# --- GPU arrays, events, timing ------------------------------------------------------------------

class Gpu:
    """Arrays and synchronisation through torch when it imports, else through CuPy; events and
    the L2 flush through tilec.testing's backend on the same library (`timing`)."""

    def __init__(self, torch=None, cupy=None):
        if torch is None and cupy is None:
            raise RuntimeError("neither torch nor CuPy imports: nothing can allocate GPU memory")
        self.torch, self.cupy = torch, cupy
        self.kind = "torch" if torch is not None else "cupy"
        self._timing = None

    def rand(self, n: int, seed: int):
        if self.torch is not None:
            gen = self.torch.Generator(device="cuda").manual_seed(seed)
            return self.torch.rand(n, device="cuda", dtype=self.torch.float32, generator=gen)
        return self.cupy.random.default_rng(seed).random(n, dtype=self.cupy.float32)

    def empty(self, n: int):
        if self.torch is not None:
            return self.torch.empty(n, device="cuda", dtype=self.torch.float32)
        return self.cupy.empty(n, dtype=self.cupy.float32)

    def poison(self, a) -> None:
        """Fill with NaN, so a kernel that writes nothing cannot pass the check."""
        a.fill_(float("nan")) if self.torch is not None else a.fill(float("nan"))

    def equal(self, a, b) -> bool:
        if self.torch is not None:
            return bool(self.torch.equal(a, b))
        return bool(self.cupy.array_equal(a, b))

    def synchronize(self) -> None:
        if self.torch is not None:
            self.torch.cuda.synchronize()
        else:
            self.cupy.cuda.runtime.deviceSynchronize()

    @property
    def timing(self):
        """tilec.testing's backend on the same library: events and the L2 flush."""
        if self._timing is None:
            import_tilec()
            from tilec.testing import CudaBackend
            self._timing = CudaBackend(torch=self.torch, cupy=self.cupy)
        return self._timing

    def l2_flusher(self, nbytes: int = L2_FLUSH_BYTES):
        """A function that writes `nbytes` of device memory, evicting the L2 (50 MB on H200)."""
        return self.timing.l2_flusher(nbytes)

    def sm_count(self) -> int:
        """The GPU's streaming multiprocessors (one program each, for persistent kernels)."""
        if self.torch is not None:
            return self.torch.cuda.get_device_properties(0).multi_processor_count
        return self.cupy.cuda.Device().attributes["MultiProcessorCount"]

    def name(self) -> str:
        if self.torch is not None:
            return self.torch.cuda.get_device_name()
        name = self.cupy.cuda.runtime.getDeviceProperties(self.cupy.cuda.Device().id)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)


def time_gpu(gpu: Gpu, fn, warmup: int, repeats: int, flush=None) -> list[float]:
    """Milliseconds of GPU time of each of `repeats` calls of `fn` (after `warmup` calls), each
    between two CUDA events on the current stream, `flush()` before each when given."""
    from tilec.testing import time_runs
    return time_runs(fn, warmup, repeats, flush=flush, backend=gpu.timing)


def median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(a, b) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def gbps(nbytes: int, ms: float | None) -> float | None:
    return None if ms is None else nbytes / (ms * 1e-3) / 1e9


class FakeRunners:
    """Plausible timings from a latency + bandwidth model; no GPU, no competitor imports.
    `measure(size)` gives each of COMPETITORS --repeats times around latency + moved_bytes(size)
    / bandwidth (seeded, so a dry run prints the same every time), correct, with `extra` keys."""

    def __init__(self, args, bandwidth_gbps: dict, latency_ms: dict, moved_bytes,
                 extra: dict | None = None):
        self.args = args
        self.notes = ["dry run: timings are fake"]
        self.modules = {}
        self.rng = random.Random(0)
        self.bandwidth_gbps, self.latency_ms = bandwidth_gbps, latency_ms
        self.moved_bytes, self.extra = moved_bytes, extra or {}

    def measure(self, size) -> dict:
        found = {}
        for name in COMPETITORS:
            seconds = self.moved_bytes(size) / (self.bandwidth_gbps[name] * 1e9)
            base = self.latency_ms[name] + seconds * 1e3
            found[name] = {"times_ms": [base * self.rng.uniform(0.98, 1.05)
                                        for _ in range(self.args.repeats)],
                           "correct": True, **self.extra}
        return found


def add_bandwidths(row: dict, found: dict, nbytes: int) -> dict:
    """Adds to a result row each competitor's entry of `found` (with its median ms and GB/s, or
    {"skipped": True}) and the tilec/Triton and tilec/torch GB/s ratios; returns the row."""
    for name in COMPETITORS:
        entry = dict(found.get(name, {"skipped": True}))
        if "times_ms" in entry:
            entry["ms"] = median(entry["times_ms"])
            entry["gbps"] = gbps(nbytes, entry["ms"])
        row[name] = entry
    row["ratio_tilec_triton"] = ratio(row["tilec"].get("gbps"), row["triton"].get("gbps"))
    row["ratio_tilec_torch"] = ratio(row["tilec"].get("gbps"), row["torch"].get("gbps"))
    return row


# --- reports -------------------------------------------------------------------------------------

def environment(modules: dict, gpu: Gpu | None = None, arrays: bool = True) -> dict:
    """Where and with what a result was measured: versions of `modules` ({name: module|None}),
    and the name of `gpu` (and which arrays it used, with `arrays`) when one is given."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                                capture_output=True, timeout=10).stdout.strip() or None
    except Exception:
        commit = None
    env = {
        "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "git": commit,
        "versions": {name: getattr(module, "__version__", None) if module is not None else None
                     for name, module in modules.items()},
    }
    if gpu is not None:
        env["gpu"] = gpu.name()
        if arrays:
            env["arrays"] = gpu.kind
    return env


def write_json(out_dir: Path, name: str, payload: dict) -> Path:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    os.replace(tmp, path)
    print(f"wrote {path}")
    return path


def save_plot(out_dir: Path, name: str, draw) -> Path | None:
    """`draw(plt)` returns a figure; it is saved as `<name>.png`. Skipped (with a note) when
    matplotlib does not import."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as err:
        print(f"note: matplotlib is not importable ({type(err).__name__}: {err}); no {name}.png")
        return None
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.png"
    fig = draw(plt)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {path}")
    return path


def fmt(value, spec: str = ".2f", suffix: str = "") -> str:
    return "-" if value is None else f"{value:{spec}}{suffix}"


def fmt_ratio(value) -> str:
    return fmt(value, ".3f", "x")


def bandwidth_cells(row: dict) -> list[str]:
    """A row's cells under BANDWIDTH_HEADERS: GB/s of each competitor, then the two ratios."""
    return ([fmt(row[name].get("gbps"), ".1f") for name in COMPETITORS]
            + [fmt_ratio(row["ratio_tilec_triton"]), fmt_ratio(row["ratio_tilec_torch"])])


def bandwidth_line(row: dict) -> str:
    """`tilec 123.4 GB/s, triton ..., torch ...`: the progress line of one size."""
    return ", ".join(f"{name} {fmt(row[name].get('gbps'), '.1f')} GB/s" for name in COMPETITORS)


def print_table(title: str, headers: list[str], rows: list[list[str]]) -> None:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    cells = [headers] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    print()
    print(title)
    print(line(headers))
    print("  ".join("-" * w for w in widths).rstrip())
    for row in cells[1:]:
        print(line(row))
    print()


# --- plots ---------------------------------------------------------------------------------------

def two_panels(plt):
    """A figure of a tall top panel (the figures) over a short one (tilec/Triton), x shared."""
    return plt.subplots(2, 1, figsize=(8, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]})


def ratio_panel(ax, points, target: float | None, xlabel: str, ticks=None) -> None:
    """The tilec/Triton panel: `points` [(x, ratio)], the target line (when there is one), 1.0,
    and `ticks` ([x], [label]) when given."""
    if points:
        ax.plot(*zip(*points), "o-", color="C0")
    if target is not None:
        ax.axhline(target, color="red", linewidth=0.8, linestyle="--", label=f"target {target}")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("tilec / Triton")
    ax.set_xlabel(xlabel)
    if ticks is not None:
        ax.set_xticks(ticks[0])
        ax.set_xticklabels(ticks[1])
    ax.grid(True, alpha=0.3)
    if target is not None:
        ax.legend(loc="lower right")


def finish_barh(ax, target: float, label: str, xlabel: str, title: str) -> None:
    """The rest of a horizontal bar chart: a red target line, margins, labels, legend, grid."""
    ax.axvline(target, color="red", linestyle="--", linewidth=0.8, label=label)
    ax.margins(x=0.12)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="lower right")
    ax.grid(True, axis="x", alpha=0.3)


# --- the end of a benchmark ----------------------------------------------------------------------

def finish(out_dir: Path, name: str, payload: dict, draw, problems) -> int:
    """Writes `<name>.json` (payload) and `<name>.png` (`draw`, as save_plot), then prints
    `heading + text` for each (heading, text) of `problems` whose text is not empty: the exit
    status is 1 when one was printed, else 0."""
    write_json(out_dir, name, payload)
    save_plot(out_dir, name, draw)
    status = 0
    for heading, text in problems:
        if text:
            print(heading + text)
            status = 1
    return status
