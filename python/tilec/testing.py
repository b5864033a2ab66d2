"""Benchmarking and checking helpers with triton.testing's signatures and semantics.

- `do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean")`:
  milliseconds of GPU time of one call of `fn`, between CUDA events, with the L2 flushed (a
  256 MB buffer written) before every timed call. As in Triton, `warmup` and `rep` are budgets
  in milliseconds: five flushed calls estimate the time of one, which sets the counts.
- `do_bench_cudagraph(fn, rep=20, ...)`: the same statistics over replays of a CUDA graph holding
  enough unrolled calls of `fn` to fill `rep` ms, so host launch overhead is left out.
- `Benchmark` and `perf_report`: a decorated function's `.run(print_data=, save_path=)` prints
  a table of its results, writes `<plot_name>.csv` and, when matplotlib imports, `<plot_name>.png`.
- `assert_close(x, y, atol=, rtol=)`: NumPy arrays, torch tensors, CuPy arrays or scalars; the
  failure names how many elements differ and the largest errors with their indices.

Events, synchronisation, the flush buffer and graph capture come from a backend: torch's when
torch imports (as Triton), else CuPy's (tilec launches through CuPy). Every timing function takes
`backend=` so tests can give a fake clock; `time_runs` is the fixed-count loop beneath them.
"""
from __future__ import annotations

import contextlib
import csv
import functools
import math
import os
import statistics
import warnings
from pathlib import Path

from tilec.errors import BackendUnavailable

L2_FLUSH_BYTES = 256 * 1024 * 1024  # far beyond any L2 (50 MB on H100/H200)
RETURN_MODES = ("min", "max", "mean", "median", "all")
ESTIMATE_RUNS = 5
GRAPH_REPLAYS = 10
ZERO_ESTIMATE_RUNS = 1000  # the count when a call is too short for the events to see


# --- backends -----------------------------------------------------------------------------------

class CudaBackend:
    """Events, synchronisation, the L2 flush and CUDA graphs through torch (when `torch` is given)
    or CuPy. A module passed as None is not used."""

    def __init__(self, torch=None, cupy=None):
        if torch is None and cupy is None:
            raise BackendUnavailable("tilec.testing needs torch or CuPy to time on the GPU; "
                                     "neither imports (pip install cupy-cuda13x)")
        self.torch, self.cupy = torch, cupy
        self.kind = "torch" if torch is not None else "cupy"
        self._flushers: dict[int, object] = {}

    def synchronize(self) -> None:
        if self.torch is not None:
            self.torch.cuda.synchronize()
        else:
            self.cupy.cuda.runtime.deviceSynchronize()

    def event(self):
        """A timing event whose `record()` marks the current stream."""
        if self.torch is not None:
            return self.torch.cuda.Event(enable_timing=True)
        return self.cupy.cuda.Event()

    def elapsed_ms(self, start, end) -> float:
        if self.torch is not None:
            return start.elapsed_time(end)
        return self.cupy.cuda.get_elapsed_time(start, end)

    def device(self) -> int:
        if self.torch is not None:
            return self.torch.cuda.current_device()
        return self.cupy.cuda.Device().id

    def l2_flusher(self, nbytes: int = L2_FLUSH_BYTES):
        """A function that writes `nbytes` of device memory, evicting the L2."""
        if self.torch is not None:
            buf = self.torch.empty(nbytes // 4, device="cuda", dtype=self.torch.int32)
            return buf.zero_
        buf = self.cupy.empty(nbytes // 4, dtype=self.cupy.int32)
        return lambda: buf.fill(0)

    def flush(self) -> None:
        """Evicts the L2 with a buffer kept per device, allocated at the first flush."""
        device = self.device()
        if device not in self._flushers:
            self._flushers[device] = self.l2_flusher()
        self._flushers[device]()

    @contextlib.contextmanager
    def side_stream(self):
        """A new stream made current for torch and CuPy alike (capture cannot use the legacy
        default stream, and a tilec launch goes to CuPy's current stream when given CuPy
        arrays, torch's when given torch tensors)."""
        if self.torch is None:
            with self.cupy.cuda.Stream(non_blocking=True):
                yield
            return
        stream = self.torch.cuda.Stream()
        with self.torch.cuda.stream(stream), _cupy_on_stream(stream):
            yield

    def capture(self, fn, count: int):
        """A CUDA graph of `count` calls of `fn`, captured on the current (side) stream;
        returns the function that replays it there."""
        if self.torch is not None:
            graph = self.torch.cuda.CUDAGraph()
            with self.torch.cuda.graph(graph, stream=self.torch.cuda.current_stream()):
                for _ in range(count):
                    fn()
            return graph.replay
        stream = self.cupy.cuda.get_current_stream()
        if not hasattr(stream, "begin_capture"):
            raise RuntimeError("do_bench_cudagraph needs torch, or CuPy >= 10 for graph capture "
                               f"(CuPy {self.cupy.__version__} imports)")
        stream.begin_capture()
        try:
            for _ in range(count):
                fn()
        finally:
            graph = stream.end_capture()
        return lambda: graph.launch(stream)


@contextlib.contextmanager
def _cupy_on_stream(torch_stream):
    """CuPy's current stream set to `torch_stream` as well, when CuPy imports."""
    try:
        import cupy
    except ImportError:
        yield
        return
    external = getattr(cupy.cuda, "ExternalStream", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # CuPy 14 prefers from_external
        stream = (external(torch_stream.cuda_stream) if external is not None
                  else cupy.cuda.Stream.from_external(torch_stream))
    with stream:
        yield


@functools.lru_cache(maxsize=None)
def default_backend() -> CudaBackend:
    """torch's CUDA runtime when torch imports with CUDA, else CuPy's; BackendUnavailable,
    saying so, where there is no GPU (CuPy imports on machines without one)."""
    torch = cupy = None
    try:
        import torch
        if not torch.cuda.is_available():
            torch = None
    except ImportError:
        torch = None
    if torch is None:
        try:
            import cupy
        except ImportError:
            cupy = None
    if torch is None and cupy is not None:
        try:
            devices = cupy.cuda.runtime.getDeviceCount()
        except Exception as err:  # noqa: BLE001  (CuPy's errors when there is no driver)
            raise BackendUnavailable(_NO_GPU.format(f"CUDA says: {err}")) from None
        if devices == 0:
            raise BackendUnavailable(_NO_GPU.format("CUDA sees no device"))
    return CudaBackend(torch=torch, cupy=cupy)


_NO_GPU = ("tilec.testing times kernels on an NVIDIA GPU, and there is none here ({}): run the "
           "benchmark on a machine with a GPU; interpreted kernels (TILEC_INTERPRET=1) are not "
           "timed on the GPU")


# --- timing -------------------------------------------------------------------------------------

def _clear_grads(grad_to_none) -> None:
    for tensor in grad_to_none or ():
        tensor.grad = None


def time_runs(fn, n_warmup: int, n_repeat: int, flush=None, grad_to_none=None,
              backend=None) -> list[float]:
    """Milliseconds of GPU time of each of `n_repeat` calls of `fn` after `n_warmup` untimed
    ones, each between two events on the current stream, `flush()` before each when given."""
    backend = backend or default_backend()
    for _ in range(n_warmup):
        fn()
    backend.synchronize()
    starts = [backend.event() for _ in range(n_repeat)]
    ends = [backend.event() for _ in range(n_repeat)]
    for start, end in zip(starts, ends):
        _clear_grads(grad_to_none)  # a backward pass in fn must not accumulate
        if flush is not None:
            flush()
        start.record()
        fn()
        end.record()
    backend.synchronize()
    return [backend.elapsed_ms(s, e) for s, e in zip(starts, ends)]


def _estimate_ms(fn, backend, flush=None) -> float:
    start, end = backend.event(), backend.event()
    start.record()
    for _ in range(ESTIMATE_RUNS):
        if flush is not None:
            flush()
        fn()
    end.record()
    backend.synchronize()
    return backend.elapsed_ms(start, end) / ESTIMATE_RUNS


def _count(budget_ms: float, estimate_ms: float) -> int:
    if estimate_ms <= 0:
        return ZERO_ESTIMATE_RUNS
    return max(1, int(budget_ms / estimate_ms))


def _check_mode(return_mode: str) -> None:
    if return_mode not in RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(RETURN_MODES)}, "
                         f"not {return_mode!r}")


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean", *,
             backend=None):
    """GPU time of `fn()` in ms, as triton.testing.do_bench: calls worth `warmup` ms untimed,
    then calls worth `rep` ms timed one by one, each after an L2 flush. Returns the `quantiles`
    of the times when given (a number for one quantile), else their `return_mode`."""
    _check_mode(return_mode)
    backend = backend or default_backend()
    fn()
    backend.synchronize()
    estimate = _estimate_ms(fn, backend, flush=backend.flush)
    times = time_runs(fn, _count(warmup, estimate), _count(rep, estimate), flush=backend.flush,
                      grad_to_none=grad_to_none, backend=backend)
    return summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean", *,
                       backend=None):
    """GPU time of `fn()` in ms, as triton.testing.do_bench_cudagraph: a CUDA graph of as many
    calls as fill `rep` ms is captured on a side stream and replayed 10 times; each replay's time
    divided by the calls gives one sample. No L2 flush: consecutive calls share the cache."""
    _check_mode(return_mode)
    backend = backend or default_backend()
    with backend.side_stream():
        fn()  # compiles and loads outside the capture
        for tensor in grad_to_none or ():
            tensor.detach_()
            tensor.requires_grad_(True)
            tensor.grad = None
        count = _count(rep, _estimate_ms(fn, backend))

        def call():
            _clear_grads(grad_to_none)
            fn()

        replay = backend.capture(call, count)
        backend.synchronize()
        times = []
        for _ in range(GRAPH_REPLAYS):
            start, end = backend.event(), backend.event()
            start.record()
            replay()
            end.record()
            backend.synchronize()
            times.append(backend.elapsed_ms(start, end) / count)
    return summarize(times, quantiles, return_mode)


def quantile(times, qs) -> list[float]:
    """The `qs` quantiles of `times`, linearly interpolated (as torch.quantile)."""
    ordered = sorted(times)
    found = []
    for q in qs:
        if not 0 <= q <= 1:
            raise ValueError(f"quantiles must lie in [0, 1], not {q}")
        point = q * (len(ordered) - 1)
        lower, upper = math.floor(point), math.ceil(point)
        t = point - lower
        found.append((1 - t) * ordered[lower] + t * ordered[upper])
    return found


def summarize(times, quantiles=None, return_mode="mean"):
    """What do_bench returns for the sample `times`."""
    _check_mode(return_mode)
    if quantiles is not None:
        found = quantile(times, quantiles)
        return found[0] if len(found) == 1 else found
    if return_mode == "all":
        return list(times)
    return {"min": min, "max": max, "mean": statistics.fmean,
            "median": statistics.median}[return_mode](times)


# --- assert_close -------------------------------------------------------------------------------

def _to_numpy(value):
    """A host NumPy array of `value` (torch tensor, CuPy array, NumPy array, scalar); bf16 and
    other narrow floats widened, so differences are exact."""
    import numpy as np
    if type(value).__module__.startswith("torch"):
        value = value.detach().cpu()
        if value.is_floating_point():
            value = value.double()
        value = value.numpy()
    elif hasattr(value, "get") and hasattr(value, "__cuda_array_interface__"):  # CuPy
        value = value.get()
    array = np.asarray(value)
    if array.dtype.kind in "biuf" or array.dtype.name == "bfloat16":
        return array.astype(np.float64)
    return array


def _show(value) -> str:
    return repr(value.item() if hasattr(value, "item") else value)


def _where(index: tuple) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]" if index else "(scalar)"


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Asserts |x - y| <= atol + rtol * |y| elementwise (a scalar against every element; NaNs
    equal each other), as triton.testing.assert_close: atol defaults to 1e-2 and rtol to 0, and
    either may be a function of x's dtype."""
    import numpy as np
    dtype = getattr(x, "dtype", type(x))
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(dtype) if callable(atol) else atol
    rtol = rtol(dtype) if callable(rtol) else rtol
    actual, expected = _to_numpy(x), _to_numpy(y)
    prefix = f"{err_msg}\n" if err_msg else ""
    if actual.shape != expected.shape and actual.ndim and expected.ndim and not (
            actual.size == expected.size == 1):
        raise AssertionError(f"{prefix}shapes differ: {actual.shape} (actual) and "
                             f"{expected.shape} (expected)")
    actual, expected = np.broadcast_arrays(actual, expected)  # a scalar against an array
    close = np.isclose(actual, expected, atol=atol, rtol=rtol, equal_nan=True)
    if close.all():
        return
    bad = ~close
    lines = [f"{prefix}not close (atol={atol}, rtol={rtol}): {int(bad.sum())} of {bad.size} "
             f"elements differ ({100.0 * bad.sum() / bad.size:.3g}%)"]

    def describe(label, errors):
        errors = np.where(bad & np.isfinite(errors), errors, -np.inf)
        if not np.isfinite(errors.max()):
            return
        at = np.unravel_index(int(errors.argmax()), errors.shape)
        lines.append(f"  {label} {errors[at]:.6g} at {_where(at)}: "
                     f"actual {_show(actual[at])}, expected {_show(expected[at])}")

    with np.errstate(all="ignore"):
        diff = np.abs(actual - expected)
        describe("max abs error", diff)
        describe("max rel error", diff / np.abs(expected))
    first = np.argwhere(bad)[:5]
    lines.append("  first mismatches: " + ", ".join(
        f"{_where(tuple(i))} {_show(actual[tuple(i)])} vs {_show(expected[tuple(i)])}"
        for i in first))
    raise AssertionError("\n".join(lines))


# --- Benchmark and perf_report ------------------------------------------------------------------

class Benchmark:
    """One table (and plot) of perf_report: a column per `x_names` entry, then one per line;
    a row per `x_vals` entry. The function is called with the row's x values, `line_arg`=each
    of `line_vals`, and `args`; it returns a number, or (value, min, max) to shade a band."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args=None,
                 xlabel="", ylabel="", x_log=False, y_log=False, styles=None):
        if isinstance(x_names, str):
            x_names = [x_names]
        if not x_names:
            raise ValueError("Benchmark needs at least one name in x_names")
        if len(line_vals) != len(line_names):
            raise ValueError(f"Benchmark {plot_name!r}: {len(line_vals)} line_vals but "
                             f"{len(line_names)} line_names; give one name per value")
        if styles is not None and len(styles) < len(line_names):
            raise ValueError(f"Benchmark {plot_name!r}: {len(styles)} styles for "
                             f"{len(line_names)} lines")
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args or {})
        self.xlabel, self.ylabel, self.x_log, self.y_log = xlabel, ylabel, x_log, y_log
        self.styles = styles

    def x_args(self, x) -> dict:
        """The keyword arguments of one x_vals entry: a single value applies to every x name."""
        values = list(x) if isinstance(x, (list, tuple)) else [x] * len(self.x_names)
        if len(values) != len(self.x_names):
            raise ValueError(f"Benchmark {self.plot_name!r}: x value {x!r} has {len(values)} "
                             f"entries for the {len(self.x_names)} x_names {self.x_names}")
        return dict(zip(self.x_names, values))


class PerfTable:
    """The results of one Benchmark: `columns` (x names, then line names) and `rows`, and the
    bands (`lows`, `highs`: one list per row, None where fn returned a single number)."""

    def __init__(self, bench: Benchmark):
        self.bench = bench
        self.columns = bench.x_names + bench.line_names
        self.rows, self.lows, self.highs = [], [], []

    def column(self, name: str) -> list:
        i = self.columns.index(name)
        return [row[i] for row in self.rows]

    def to_pandas(self):
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.columns)

    def to_string(self) -> str:
        """As pandas' DataFrame.to_string: an index column, cells right-aligned, each float
        column with one number of decimals (at most 6)."""
        cells = [[str(i) for i in range(len(self.rows))]]
        for j in range(len(self.columns)):
            cells.append(_format_column([row[j] for row in self.rows]))
        widths = [max([len(c) for c in col] + [len(head)])
                  for col, head in zip(cells, [""] + self.columns)]
        lines = ["  ".join(h.rjust(w) for h, w in zip([""] + self.columns, widths))]
        for i in range(len(self.rows)):
            lines.append("  ".join(col[i].rjust(w) if k else col[i].ljust(w)
                                   for k, (col, w) in enumerate(zip(cells, widths))))
        return "\n".join(lines)


def _format_column(values) -> list[str]:
    floats = [v for v in values if isinstance(v, float) and math.isfinite(v)]
    decimals = max((len(f"{v:.6f}".rstrip("0").split(".")[1]) for v in floats), default=0)
    decimals = max(decimals, 1)
    out = []
    for v in values:
        if v is None:
            out.append("NaN")
        elif isinstance(v, float) and math.isfinite(v):
            out.append(f"{v:.{decimals}f}")
        else:
            out.append(str(v))
    return out


class Mark:
    """A function under @perf_report: `.run(...)` measures and reports its benchmarks."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks
        functools.update_wrapper(self, fn)

    def _measure(self, bench: Benchmark, **kwargs) -> PerfTable:
        table = PerfTable(bench)
        for x in bench.x_vals:
            x_args = bench.x_args(x)
            values, lows, highs = [], [], []
            for line in bench.line_vals:
                found = self.fn(**x_args, **{bench.line_arg: line}, **bench.args, **kwargs)
                value, low, high = (found if isinstance(found, (list, tuple))
                                    else (found, None, None))
                values.append(_number(value))
                lows.append(_number(low))
                highs.append(_number(high))
            table.rows.append(list(x_args.values()) + values)
            table.lows.append(lows)
            table.highs.append(highs)
        return table

    def _run(self, bench: Benchmark, save_path, show_plots: bool, print_data: bool,
             diff_col: bool = False, save_precision: int = 6, **kwargs) -> PerfTable:
        table = self._measure(bench, **kwargs)
        if diff_col and len(bench.line_names) == 2:
            table.columns.append("Diff")
            for row in table.rows:
                row.append(_difference(row[-1], row[-2]))
        if bench.plot_name and (save_path or show_plots):
            _plot(table, save_path, show_plots)
        if print_data:
            print(bench.plot_name + ":")
            print(table.to_string())
        if save_path:
            _write_csv(table, Path(save_path) / f"{bench.plot_name}.csv", save_precision)
        return table

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Measures every benchmark; prints each table with `print_data`, writes
        `<plot_name>.csv`, `<plot_name>.png` and results.html into `save_path` when given.
        With `return_df`, returns the table(s): pandas DataFrames when pandas imports, else
        PerfTables. Other keyword arguments go to the function."""
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else list(self.benchmarks)
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        tables = []
        try:
            for bench in benchmarks:
                tables.append(self._run(bench, save_path, show_plots, print_data, **kwargs))
        finally:
            if save_path:
                _write_html(Path(save_path), benchmarks)
        if not return_df:
            return None
        try:
            frames = [t.to_pandas() for t in tables]
        except ImportError:
            frames = tables
        return frames[0] if single else frames


def perf_report(benchmarks):
    """Decorator: `@perf_report(Benchmark(...))` (or a list of them) over a function of the
    benchmark's arguments; call `.run()` on the result."""
    return lambda fn: Mark(fn, benchmarks)


def _number(value):
    """A result as a Python int or float (NumPy scalars and 0-d tensors included)."""
    if value is None or isinstance(value, int):
        return value
    if hasattr(value, "item"):
        value = value.item()
    return value if isinstance(value, int) else float(value)


def _difference(a, b):
    return None if a is None or b is None else a - b


def _write_csv(table: PerfTable, path: Path, precision: int) -> None:
    def cell(v):
        if v is None:
            return ""
        return f"{v:.{precision}f}" if isinstance(v, float) else v

    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(table.columns)
        writer.writerows([cell(v) for v in row] for row in table.rows)


def _write_html(save_path: Path, benchmarks) -> None:
    images = "".join(f'<image src="{b.plot_name}.png"/>\n' for b in benchmarks
                     if (save_path / f"{b.plot_name}.png").exists())
    (save_path / "results.html").write_text(f"<html><body>\n{images}</body></html>\n")


def _plot(table: PerfTable, save_path, show_plots: bool) -> None:
    """Lines of the first x name against each line name, min/max bands shaded; saved as
    `<plot_name>.png`. Skipped with a note when matplotlib does not import."""
    bench = table.bench
    try:
        if show_plots:
            import matplotlib.pyplot as plt
            fig = plt.figure()
        else:
            from matplotlib.figure import Figure  # no pyplot: leaves the user's backend alone
            fig = Figure()
    except Exception as err:
        print(f"note: matplotlib is not importable ({type(err).__name__}: {err}); "
              f"no {bench.plot_name}.png")
        return
    ax = fig.add_subplot()
    first_x = bench.x_names[0]
    xs = table.column(first_x)
    for i, name in enumerate(bench.line_names):
        color, style = (bench.styles[i][0], bench.styles[i][1]) if bench.styles else (None, None)
        ax.plot(xs, table.column(name), label=name, color=color, ls=style)
        lows = [row[i] for row in table.lows]
        highs = [row[i] for row in table.highs]
        if all(v is not None for v in lows + highs):
            ax.fill_between(xs, lows, highs, alpha=0.15, color=color)
    ax.legend()
    ax.set_xlabel(bench.xlabel or first_x)
    ax.set_ylabel(bench.ylabel)
    ax.set_xscale("log" if bench.x_log else "linear")
    ax.set_yscale("log" if bench.y_log else "linear")
    if save_path:
        path = Path(save_path) / f"{bench.plot_name}.png"
        fig.savefig(path)
    if show_plots:
        import matplotlib.pyplot as plt
        plt.show()
