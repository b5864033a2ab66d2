"""tilec.testing: do_bench's counts and statistics on a fake clock, assert_close's verdicts and
messages, Benchmark/perf_report's table, CSV and PNG (CPU); do_bench and do_bench_cudagraph on
the vector-add tutorial (GPU)."""
from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from tilec import testing
from tutorial_loader import tutorial


# --- a fake timing backend ----------------------------------------------------------------------

class FakeEvent:
    def __init__(self, clock):
        self.clock, self.at = clock, None

    def record(self):
        self.at = self.clock.now


class FakeBackend:
    """A clock that only `work(ms)` advances; counts flushes, synchronisations and captures."""

    def __init__(self):
        self.now = 0.0
        self.flushes = self.syncs = 0
        self.captured = None
        self.in_side_stream = False

    def work(self, ms):
        self.now += ms

    def synchronize(self):
        self.syncs += 1

    def event(self):
        return FakeEvent(self)

    def elapsed_ms(self, start, end):
        return end.at - start.at

    def flush(self):
        self.flushes += 1

    def side_stream(self):
        backend = self

        class Side:
            def __enter__(self):
                backend.in_side_stream = True

            def __exit__(self, *exc):
                backend.in_side_stream = False
        return Side()

    def capture(self, fn, count):
        assert self.in_side_stream
        self.captured = count

        def replay():
            for _ in range(count):
                fn()
        return replay


class Kernel:
    """fn for do_bench: takes the next of `durations` (cycled) in ms of fake GPU time."""

    def __init__(self, backend, durations):
        self.backend, self.durations, self.calls = backend, list(durations), 0

    def __call__(self):
        self.backend.work(self.durations[self.calls % len(self.durations)])
        self.calls += 1


def test_do_bench_turns_the_budgets_into_counts_as_triton():
    backend = FakeBackend()
    fn = Kernel(backend, [0.5])
    assert testing.do_bench(fn, warmup=10, rep=50, backend=backend) == pytest.approx(0.5)
    # one first call, 5 to estimate, 10 / 0.5 warm-up calls, 50 / 0.5 timed calls
    assert fn.calls == 1 + 5 + 20 + 100
    assert backend.flushes == 5 + 100  # before every estimated and every timed call


def test_do_bench_with_a_call_too_short_to_measure():
    backend = FakeBackend()
    fn = Kernel(backend, [0.0])
    assert testing.do_bench(fn, backend=backend) == 0.0
    assert fn.calls == 1 + 5 + 2 * testing.ZERO_ESTIMATE_RUNS


def test_do_bench_statistics():
    backend = FakeBackend()
    # 1 first call + 5 estimating calls (mean 2 ms) -> 1 warm-up call, then 4 timed: 1, 2, 3, 10
    durations = [9.0, 2, 2, 2, 2, 2, 7.0, 1, 2, 3, 10]

    def bench(**kwargs):
        return testing.do_bench(Kernel(backend, durations), warmup=2, rep=8, backend=backend,
                                **kwargs)

    assert bench(return_mode="all") == [1, 2, 3, 10]
    assert bench() == 4.0
    assert bench(return_mode="min") == 1
    assert bench(return_mode="max") == 10
    assert bench(return_mode="median") == 2.5
    assert bench(quantiles=[0.5, 0.0, 1.0]) == [2.5, 1, 10]
    assert bench(quantiles=[0.5]) == 2.5  # one quantile: a number, as Triton
    assert bench(quantiles=[0.2], return_mode="max") == pytest.approx(1.6)  # quantiles win


def test_do_bench_checks_its_arguments():
    backend = FakeBackend()
    with pytest.raises(ValueError, match="return_mode must be one of min, max, mean"):
        testing.do_bench(Kernel(backend, [1.0]), return_mode="average", backend=backend)
    with pytest.raises(ValueError, match=r"quantiles must lie in \[0, 1\], not 50"):
        testing.do_bench(Kernel(backend, [1.0]), quantiles=[50], backend=backend)


def test_do_bench_clears_gradients_before_every_timed_call():
    backend = FakeBackend()

    class Tensor:
        grad = "stale"

    tensor = Tensor()
    seen = []

    def fn():
        seen.append(tensor.grad)
        tensor.grad = "accumulated"
        backend.work(1.0)

    testing.do_bench(fn, warmup=1, rep=3, grad_to_none=[tensor], backend=backend)
    assert seen[-3:] == [None, None, None]


def test_do_bench_cudagraph_replays_a_captured_graph():
    backend = FakeBackend()
    fn = Kernel(backend, [0.25])
    assert testing.do_bench_cudagraph(fn, rep=5, backend=backend) == pytest.approx(0.25)
    assert backend.captured == 20  # rep / estimate calls in the graph
    assert fn.calls == 1 + 5 + testing.GRAPH_REPLAYS * 20
    assert backend.flushes == 0
    times = testing.do_bench_cudagraph(fn, rep=5, return_mode="all", backend=backend)
    assert len(times) == testing.GRAPH_REPLAYS


def test_time_runs_is_the_fixed_count_loop():
    backend = FakeBackend()
    fn = Kernel(backend, [1.0, 2.0, 3.0])
    flushes = []
    times = testing.time_runs(fn, 2, 4, flush=lambda: flushes.append(1), backend=backend)
    assert times == [3.0, 1.0, 2.0, 3.0]
    assert len(flushes) == 4


# --- assert_close -------------------------------------------------------------------------------

def test_assert_close_passes():
    testing.assert_close(np.ones(4, np.float32), np.ones(4) + 0.005)  # default atol 1e-2
    testing.assert_close(1.0, 1.001)
    testing.assert_close(np.array([np.nan, 2.0]), [np.nan, 2.0])  # NaNs equal each other
    testing.assert_close(np.full((2, 2), 3.0), 3.0)  # a scalar against every element
    testing.assert_close(np.float16(1000), 1004.0, atol=0, rtol=lambda dtype: 1e-2)
    testing.assert_close(np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3), atol=0)


def test_assert_close_names_the_worst_elements():
    x = np.zeros((4, 5), np.float32)
    y = np.zeros((4, 5), np.float32)
    x[1, 2], x[3, 4], y[3, 4] = 0.5, 1.0, 2.0
    with pytest.raises(AssertionError) as info:
        testing.assert_close(x, y, atol=1e-3, rtol=0.1, err_msg="softmax row 3")
    message = str(info.value)
    assert message.startswith("softmax row 3\nnot close (atol=0.001, rtol=0.1): 2 of 20 "
                              "elements differ (10%)")
    assert "max abs error 1 at [3, 4]: actual 1.0, expected 2.0" in message
    assert "max rel error 0.5 at [3, 4]" in message  # x[1, 2]'s relative error is infinite
    assert "first mismatches: [1, 2] 0.5 vs 0.0, [3, 4] 1.0 vs 2.0" in message


def test_assert_close_fails_on_scalars_nans_and_shapes():
    with pytest.raises(AssertionError, match=r"max abs error 0.5 at \(scalar\)"):
        testing.assert_close(1.0, 1.5)
    with pytest.raises(AssertionError, match=r"1 of 2 elements differ.*\n.*first mismatches: "
                                             r"\[1\] nan vs 2.0"):
        testing.assert_close(np.array([1.0, np.nan]), np.array([1.0, 2.0]))
    with pytest.raises(AssertionError, match=r"shapes differ: \(3,\) \(actual\) and \(3, 1\)"):
        testing.assert_close(np.zeros(3), np.zeros((3, 1)))


def test_assert_close_reads_narrow_floats_exactly():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([1.0, 2.0], dtype=ml_dtypes.bfloat16)
    testing.assert_close(x, [1.0, 2.0], atol=0)
    with pytest.raises(AssertionError, match="max abs error 0.0078125"):
        testing.assert_close(x + np.array([0.0078125, 0], dtype=ml_dtypes.bfloat16), [1.0, 2.0],
                             atol=1e-3)


# --- Benchmark and perf_report ------------------------------------------------------------------

def bandwidth_benchmark(**overrides):
    options = dict(x_names=["size"], x_vals=[2 ** i for i in range(10, 14)], x_log=True,
                   line_arg="provider", line_vals=["tilec", "torch"],
                   line_names=["tilec", "Torch"], styles=[("blue", "-"), ("green", "--")],
                   ylabel="GB/s", plot_name="vector-add-performance", args={"dtype": "fp32"})
    options.update(overrides)
    return testing.Benchmark(**options)


def fake_gbps(size, provider, dtype):
    """A fake timing function: (value, min, max) per point, as tutorials return quantiles."""
    assert dtype == "fp32"
    ms = 1e-3 * (2.0 if provider == "tilec" else 3.0) * math.log2(size)
    value = 3 * size * 4 / (ms * 1e-3) / 1e9
    return value, value * 0.9, value * 1.1


def test_perf_report_writes_png_csv_and_prints_the_table(tmp_path, capsys):
    import matplotlib  # noqa: F401  (a test dependency: the PNG is what this checks)
    report = testing.perf_report(bandwidth_benchmark())(fake_gbps)
    assert report.run(print_data=True, save_path=str(tmp_path / "out")) is None
    png = tmp_path / "out" / "vector-add-performance.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(tmp_path / "out" / "vector-add-performance.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["size", "tilec", "Torch"]
    assert [r[0] for r in rows[1:]] == ["1024", "2048", "4096", "8192"]
    assert float(rows[1][1]) == pytest.approx(fake_gbps(1024, "tilec", "fp32")[0], rel=1e-6)
    assert "vector-add-performance.png" in (tmp_path / "out" / "results.html").read_text()
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "vector-add-performance:"
    assert printed[1].split() == ["size", "tilec", "Torch"]
    assert printed[2].split()[:2] == ["0", "1024"]
    assert len(printed) == 6


def test_perf_report_without_matplotlib_still_writes_the_csv(tmp_path, capsys, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    testing.perf_report(bandwidth_benchmark())(fake_gbps).run(save_path=tmp_path)
    assert (tmp_path / "vector-add-performance.csv").exists()
    assert not (tmp_path / "vector-add-performance.png").exists()
    assert ("note: matplotlib is not importable (ImportError: no matplotlib here); no "
            "vector-add-performance.png") in capsys.readouterr().out


def test_benchmark_arguments_reach_the_function():
    calls = []

    def fn(M, N, K, provider, dtype, scale):
        calls.append((M, N, K, provider, dtype, scale))
        return float(M + N + K) * (2 if provider == "b" else 1)

    bench = testing.Benchmark(x_names=["M", "N", "K"], x_vals=[128, (64, 32, 16)],
                              line_arg="provider", line_vals=["a", "b"], line_names=["A", "B"],
                              plot_name="mnk", args={"dtype": "fp16"})
    table = testing.perf_report(bench)(fn).run(return_df=True, scale=3)
    assert calls[:2] == [(128, 128, 128, "a", "fp16", 3), (128, 128, 128, "b", "fp16", 3)]
    assert calls[2:] == [(64, 32, 16, "a", "fp16", 3), (64, 32, 16, "b", "fp16", 3)]
    rows = table.values.tolist() if hasattr(table, "values") else table.rows
    assert [list(r) for r in rows] == [[128, 128, 128, 384.0, 768.0], [64, 32, 16, 112.0, 224.0]]


def test_perf_report_runs_a_list_of_benchmarks_and_a_diff_column(capsys):
    benches = [bandwidth_benchmark(plot_name="first"), bandwidth_benchmark(plot_name="second")]
    tables = testing.perf_report(benches)(lambda **kw: fake_gbps(**kw)[0]).run(
        return_df=True, diff_col=True, print_data=True)
    assert len(tables) == 2
    columns = list(tables[0].columns)
    assert columns == ["size", "tilec", "Torch", "Diff"]
    out = capsys.readouterr().out
    assert "first:" in out and "second:" in out and "Diff" in out


def test_benchmark_rejects_mismatched_arguments():
    with pytest.raises(ValueError, match="2 line_vals but 1 line_names"):
        bandwidth_benchmark(line_names=["tilec"])
    with pytest.raises(ValueError, match="1 styles for 2 lines"):
        bandwidth_benchmark(styles=[("blue", "-")])
    bench = bandwidth_benchmark(x_names=["M", "N"], x_vals=[(1, 2, 3)])
    with pytest.raises(ValueError, match=r"x value \(1, 2, 3\) has 3 entries for the 2 x_names"):
        testing.perf_report(bench)(fake_gbps).run()


def test_table_text_aligns_as_pandas():
    bench = testing.Benchmark(["n"], [1, 10], "p", [0], ["ms"], "t", {})
    table = testing.PerfTable(bench)
    table.rows = [[1, 0.5], [10, 12.25]]
    assert table.to_string() == "    n     ms\n0   1   0.50\n1  10  12.25"


# --- on the GPU ---------------------------------------------------------------------------------

@pytest.fixture
def vector_add():
    cupy = pytest.importorskip("cupy")
    add_kernel = tutorial("01-vector-add").add_kernel
    n = 1 << 22
    x = cupy.random.default_rng(0).random(n, dtype=cupy.float32)
    y = cupy.random.default_rng(1).random(n, dtype=cupy.float32)
    out = cupy.empty_like(x)

    def run():
        add_kernel[(-(-n // 1024),)](x, y, out, n, BLOCK_SIZE=1024)

    run()
    cupy.testing.assert_array_equal(out, x + y)
    return run, out, x + y


# --- without a GPU ------------------------------------------------------------------------------

def _no_gpu() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() == 0
    except Exception:  # noqa: BLE001
        return True


@pytest.mark.skipif(not _no_gpu(), reason="checks the machine without a GPU (CI)")
def test_timing_without_a_gpu_says_so(capsys):
    """do_bench, do_bench_cudagraph and a perf_report of them raise BackendUnavailable, which
    says there is no GPU; not CuPy's driver error."""
    testing.default_backend.cache_clear()
    import tilec
    for timer in (testing.do_bench, testing.do_bench_cudagraph):
        with pytest.raises(tilec.BackendUnavailable, match="NVIDIA GPU, and there is none"):
            timer(lambda: None)
    bench = testing.Benchmark(x_names=["n"], x_vals=[1], line_arg="p", line_vals=["a"],
                              line_names=["a"], plot_name="none", args={})
    with pytest.raises(tilec.BackendUnavailable, match="there is none"):
        testing.perf_report(bench)(lambda n, p: testing.do_bench(lambda: None)).run()



@pytest.mark.gpu
def test_do_bench_on_the_gpu(vector_add):
    run, out, expected = vector_add
    ms = testing.do_bench(run)
    # 48 MB moved: more than 1 us, less than 100 ms on any GPU tilec targets
    assert 1e-3 < ms < 100
    low, mid, high = testing.do_bench(run, warmup=5, rep=20, quantiles=[0.2, 0.5, 0.8])
    assert 0 < low <= mid <= high
    times = testing.do_bench(run, warmup=5, rep=20, return_mode="all")
    assert len(times) >= 1 and all(t > 0 for t in times)
    testing.assert_close(out, expected, atol=0)


@pytest.mark.gpu
def test_do_bench_cudagraph_on_the_gpu(vector_add):
    run, out, expected = vector_add
    out.fill(0)
    ms = testing.do_bench_cudagraph(run)
    assert 1e-3 < ms < 100
    quantiles = testing.do_bench_cudagraph(run, rep=5, quantiles=[0.5, 0.2, 0.8])
    assert len(quantiles) == 3 and all(q > 0 for q in quantiles)
    testing.assert_close(out, expected, atol=0)  # launched on the side stream, still right
    assert 0.1 < ms / testing.do_bench(run) < 10  # the same kernel, give or take the L2


@pytest.mark.gpu
def test_the_default_backend_flushes_the_l2(vector_add):
    backend = testing.default_backend()
    flushed = []
    real_flush = backend.flush
    backend.flush = lambda: flushed.append(real_flush())
    try:
        testing.do_bench(vector_add[0], warmup=1, rep=5)
    finally:
        del backend.flush
    assert len(flushed) >= 5 + 1
