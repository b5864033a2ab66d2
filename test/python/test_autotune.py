"""@tilec.autotune and @tilec.heuristics: pruning at compile time, the results stored on disk
(hit by a second process, re-tuned for a new key, a corrupt file ignored, switched off), the
Triton semantics of configs, hooks and heuristics; on a GPU, the fastest config wins.

Without a GPU the timing is a fake `do_bench` (and, where a launch must happen, a fake launcher),
so everything up to the launch (compiling every config, pruning, storing) runs for real."""
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.autotuner as autotuner
from tilec.cache import KernelCache

import autotune_kernels as K
from tutorial_loader import tutorial

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """A fresh cache directory, the store on, no interpreter, no log: each test sets its own."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("TILEC_AUTOTUNE_CACHE", "TILEC_INTERPRET", "TILEC_PRINT_AUTOTUNING",
                 "TILEC_CACHE"):
        monkeypatch.delenv(name, raising=False)


class FakeBench:
    """A do_bench that launches nothing and answers the next of `times` (ms)."""

    def __init__(self, *times):
        self.times = list(times)
        self.calls = 0

    def __call__(self, kernel_call, quantiles):
        self.calls += 1
        return [self.times.pop(0)] * len(quantiles)


def transpose_args(n=1024):
    return np.zeros(256 * 512, np.float32), np.zeros(256 * 512, np.float32), n


def stored_files(tmp_path) -> list[Path]:
    return sorted((tmp_path / "cache" / "autotune").glob("*.json"))


# --- Config --------------------------------------------------------------------------------------

def test_config_keywords_string_and_identity():
    config = tilec.Config({"BLOCK": 128}, num_warps=8, num_stages=2)
    assert config.all_kwargs() == {"BLOCK": 128, "num_warps": 8, "num_stages": 2}
    assert str(config) == "BLOCK: 128, num_warps: 8, num_stages: 2"
    assert config == tilec.Config({"BLOCK": 128}, num_warps=8, num_stages=2)
    assert len({config, tilec.Config({"BLOCK": 128}, num_warps=8, num_stages=2)}) == 1
    assert config != tilec.Config({"BLOCK": 128}, num_warps=4, num_stages=2)


def test_wrappers_keep_the_jit_function_as_fn():
    kernel = tilec.autotune(K.TRANSPOSE_CONFIGS, key=["n"])(tilec.heuristics({})(K.transpose))
    assert kernel.fn.fn is K.transpose and kernel.jit_function is K.transpose
    assert kernel.arg_names == K.transpose.arg_names and kernel.__name__ == "transpose"
    matmul = tutorial("03-matrix-multiplication").matmul_kernel  # what `tilec compile` unwraps
    assert isinstance(matmul.fn, tilec.JITFunction)


def test_unknown_key_names_are_rejected():
    with pytest.raises(ValueError, match="unknown parameters"):
        tilec.autotune(K.TRANSPOSE_CONFIGS, key=["size"])(K.transpose)


def test_meta_parameters_the_configs_supply_cannot_be_passed():
    kernel = tilec.autotune(K.TRANSPOSE_CONFIGS, key=["n"], do_bench=FakeBench())(K.transpose)
    with pytest.raises(ValueError, match="conflicting meta-parameters M"):
        kernel[(1,)](*transpose_args(), M=32)


# --- pruning at compile time ---------------------------------------------------------------------

def test_a_config_over_the_shared_memory_limit_is_pruned_without_launching(tmp_path,
                                                                           monkeypatch, capsys):
    monkeypatch.setenv("TILEC_PRINT_AUTOTUNING", "1")
    bench = FakeBench(2.0, 1.0)  # two timings: the oversized config must not ask for one
    kernel = tilec.autotune(K.TRANSPOSE_CONFIGS, key=["n"], do_bench=bench)(K.transpose)
    best = kernel.tune(*transpose_args(), grid=(1,))
    assert bench.calls == 2
    assert best is K.TRANSPOSE_CONFIGS[2] and kernel.best_config is best
    assert set(kernel.configs_timings) == {K.TRANSPOSE_CONFIGS[0], K.TRANSPOSE_CONFIGS[2]}
    log = capsys.readouterr().out
    assert "pruned at compile time: M: 256, N: 512" in log and "shared memory" in log
    assert "best config: M: 64, N: 32, num_warps: 2" in log
    # The configs were compiled before timing, into the disk cache the launches read.
    assert len(KernelCache(tmp_path / "cache").keys()) == 2
    stored = json.loads(stored_files(tmp_path)[0].read_text())
    assert stored["best"] == 2 and stored["timings"][1] is None


def test_every_config_over_the_limit_is_an_error():
    too_big = [tilec.Config({"M": 256, "N": 512}), tilec.Config({"M": 512, "N": 256})]
    kernel = tilec.autotune(too_big, key=["n"], do_bench=FakeBench())(K.transpose)
    with pytest.raises(tilec.OutOfResources, match="every config of transpose"):
        kernel.tune(*transpose_args(), grid=(1,))


def test_compiling_serially_when_no_pool_starts(monkeypatch):
    import tilec.autotune_compile as compile_module

    def no_pool(*args, **kwargs):
        raise OSError("no processes here")
    monkeypatch.setattr(compile_module.concurrent.futures, "ProcessPoolExecutor", no_pool)
    bench = FakeBench(1.0, 2.0)
    kernel = tilec.autotune(K.TRANSPOSE_CONFIGS, key=["n"], do_bench=bench)(K.transpose)
    assert kernel.tune(*transpose_args(), grid=(1,)) is K.TRANSPOSE_CONFIGS[0]
    assert bench.calls == 2
    assert len(K.transpose.cache) >= 2  # compiled here, ready for the launches


def test_prune_configs_by_early_prune_and_perf_model():
    configs = [tilec.Config({"BLOCK": b, "EVEN": False}) for b in (64, 128, 256, 512)]
    seen = {}

    def early(configs, nargs, **kwargs):
        seen["n"] = nargs["n"]
        return [c for c in configs if c.kwargs["BLOCK"] <= 256]

    def model(**meta):  # pretends the bigger block is faster
        return -meta["BLOCK"]

    bench = FakeBench(3.0, 4.0)
    kernel = tilec.autotune(configs, key=["n"], do_bench=bench,
                            prune_configs_by={"early_config_prune": early, "perf_model": model,
                                              "top_k": 2})(K.add_block)
    x = np.zeros(1024, np.float32)
    assert kernel.tune(x, x.copy(), 1024, grid=(1,)) is configs[2]  # 256 timed first: 3.0 ms
    assert seen["n"] == 1024 and bench.calls == 2
    assert set(kernel.configs_timings) == {configs[1], configs[2]}


# --- results on disk -----------------------------------------------------------------------------

SECOND_PROCESS = """
import sys
sys.path.insert(0, {here!r})
import numpy as np
import tilec
import autotune_kernels as K

times = iter([3.0, 1.0, 2.0])

def bench(kernel_call, quantiles):  # counts its calls in a file the test reads
    with open({counter!r}, "a") as f:
        f.write("timed\\n")
    return [next(times)] * len(quantiles)

configs = [tilec.Config({{"BLOCK": b, "EVEN": True}}) for b in (64, 128, 256)]
kernel = tilec.autotune(configs, key=["n"], do_bench=bench)(K.add_block)
x = np.zeros(1024, np.float32)
print("best:", kernel.tune(x, x.copy(), 1024, grid=(1,)))
"""


def run_second_process(tmp_path, counter) -> str:
    script = SECOND_PROCESS.format(here=str(HERE), counter=str(counter))
    env = dict(os.environ, TILEC_PRINT_AUTOTUNING="1")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_second_process_uses_the_stored_result_and_does_no_tuning(tmp_path):
    counter = tmp_path / "timed.txt"
    first = run_second_process(tmp_path, counter)
    assert counter.read_text().count("timed") == 3
    assert "tuned in" in first and "best: BLOCK: 128" in first
    second = run_second_process(tmp_path, counter)
    assert counter.read_text().count("timed") == 3  # nothing timed the second time
    assert "stored result used, no tuning ran" in second and "tuned in" not in second
    assert "best: BLOCK: 128" in second


def test_a_new_key_is_tuned_and_a_known_one_is_not(tmp_path):
    configs = [tilec.Config({"BLOCK": b, "EVEN": False}) for b in (64, 128)]
    bench = FakeBench(1.0, 2.0, 2.0, 1.0)
    kernel = tilec.autotune(configs, key=["n"], do_bench=bench)(K.add_block)
    x = np.zeros(4096, np.float32)
    assert kernel.tune(x, x.copy(), 1024, grid=(1,)) is configs[0]
    assert kernel.tune(x, x.copy(), 1024, grid=(1,)) is configs[0] and bench.calls == 2
    assert kernel.tune(x, x.copy(), 2048, grid=(1,)) is configs[1] and bench.calls == 4
    assert len(stored_files(tmp_path)) == 2
    # A fresh autotuner (as in a new process) reads both from disk.
    again = tilec.autotune(configs, key=["n"], do_bench=FakeBench())(K.add_block)
    assert again.tune(x, x.copy(), 2048, grid=(1,)) is configs[1]
    assert again.tune(x, x.copy(), 1024, grid=(1,)) is configs[0]
    # Another config list is another question.
    other = tilec.autotune(configs[:1] + [tilec.Config({"BLOCK": 256, "EVEN": False})],
                           key=["n"], do_bench=FakeBench(5.0, 4.0))(K.add_block)
    assert other.tune(x, x.copy(), 1024, grid=(1,)).kwargs["BLOCK"] == 256


@pytest.mark.parametrize("garbage", ["{not json", '{"format": 1, "configs": [], "best": 0}',
                                     "BEST_OUT_OF_RANGE"])
def test_a_corrupt_stored_result_is_ignored_and_rewritten(tmp_path, garbage):
    configs = [tilec.Config({"BLOCK": b, "EVEN": False}) for b in (64, 128)]
    x = np.zeros(1024, np.float32)
    tilec.autotune(configs, key=["n"], do_bench=FakeBench(2.0, 1.0))(K.add_block).tune(
        x, x.copy(), 1024, grid=(1,))
    [path] = stored_files(tmp_path)
    if garbage == "BEST_OUT_OF_RANGE":
        data = json.loads(path.read_text())
        data["best"] = 7
        garbage = json.dumps(data)
    path.write_text(garbage)
    bench = FakeBench(1.0, 2.0)
    kernel = tilec.autotune(configs, key=["n"], do_bench=bench)(K.add_block)
    assert kernel.tune(x, x.copy(), 1024, grid=(1,)) is configs[0] and bench.calls == 2
    assert json.loads(path.read_text())["best"] == 0  # tuned again and stored again
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left


def test_autotune_cache_0_keeps_results_in_memory_only(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_AUTOTUNE_CACHE", "0")
    configs = [tilec.Config({"BLOCK": b, "EVEN": False}) for b in (64, 128)]
    x = np.zeros(1024, np.float32)
    for _ in range(2):  # each autotuner tunes
        bench = FakeBench(2.0, 1.0)
        kernel = tilec.autotune(configs, key=["n"], do_bench=bench)(K.add_block)
        assert kernel.tune(x, x.copy(), 1024, grid=(1,)) is configs[1] and bench.calls == 2
    assert stored_files(tmp_path) == []


# --- hooks, the progress bar ---------------------------------------------------------------------

def test_reset_to_zero_and_restore_value_around_each_timed_launch(monkeypatch):
    launches = []

    def fake_launch(fn, grid, args, kwargs):  # a kernel that accumulates into out, spoils x
        x, out = args[0], args[1]
        launches.append((x.copy(), out.copy()))
        out += 5
        x[:] = -1

    def bench(kernel_call, quantiles):
        kernel_call()
        kernel_call()
        return [1.0] * len(quantiles)

    monkeypatch.setattr(autotuner, "_launch", fake_launch)
    configs = [tilec.Config({"BLOCK": b, "EVEN": False}) for b in (64, 128)]
    kernel = tilec.autotune(configs, key=["n"], do_bench=bench, reset_to_zero=["out_ptr"],
                            restore_value=["x_ptr"])(K.add_block)
    x, out = np.arange(4, dtype=np.float32), np.full(4, 9, np.float32)
    kernel.tune(x, out, 4, grid=(1,))
    assert len(launches) == 4
    for seen_x, seen_out in launches:  # each launch saw the original x and a zeroed out
        assert (seen_x == np.arange(4)).all() and (seen_out == 0).all()
    assert (x == np.arange(4)).all() and (out == 0).all()  # reset once more for the real run


def test_progress_bar_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    configs = [tilec.Config({"BLOCK": b, "EVEN": False}) for b in (32, 64, 128, 256)]
    kernel = tilec.autotune(configs, key=["n"], do_bench=FakeBench(4.0, 3.0, 2.0, 1.0))(
        K.add_block)
    x = np.zeros(1024, np.float32)
    assert kernel.tune(x, x.copy(), 1024, grid=(1,)) is configs[3]
    assert f"add_block: autotuning [{'#' * 30}] 4/4\n" in terminal.getvalue()


# --- the interpreter and heuristics --------------------------------------------------------------

def test_the_interpreter_uses_the_first_config_untimed(monkeypatch, capsys):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    monkeypatch.setenv("TILEC_PRINT_AUTOTUNING", "1")

    def no_timing(kernel_call, quantiles):
        raise AssertionError("the interpreter times nothing")

    configs = [tilec.Config({"BLOCK": b, "EVEN": False}) for b in (256, 64)]
    kernel = tilec.autotune(configs, key=["n"], do_bench=no_timing)(K.add_block)
    x, out = np.arange(1000, dtype=np.float32), np.zeros(1000, np.float32)
    grids = []

    def grid(meta):
        grids.append(meta["BLOCK"])
        return (tilec.cdiv(meta["n"], meta["BLOCK"]),)

    kernel[grid](x, out, 1000)
    np.testing.assert_array_equal(out, x + 1)
    assert kernel.best_config is configs[0] and grids == [256]
    assert "first config, untimed" in capsys.readouterr().out


def test_heuristics_compute_meta_parameters_from_the_arguments(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    seen = []
    kernel = tilec.heuristics({
        "BLOCK": lambda args: tilec.next_power_of_2(args["n"]) // 4,
        "EVEN": lambda args: seen.append(dict(args)) or args["n"] % args["BLOCK"] == 0,
    })(K.add_block)
    for n in (1000, 1024):
        x, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
        kernel[lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),)](x, out, n)
        np.testing.assert_array_equal(out, x + 1)
    assert [(a["n"], a["BLOCK"]) for a in seen] == [(1000, 256), (1024, 256)]
    assert kernel.with_values((None, None, 1000), {}) == {"BLOCK": 256, "EVEN": False}


@pytest.mark.parametrize("order", ["autotune_over_heuristics", "heuristics_over_autotune"])
def test_heuristics_stack_with_autotune_in_both_orders(order, monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    seen = []

    def even(args):
        seen.append(args.get("BLOCK"))
        return args["n"] % 128 == 0

    configs = [tilec.Config({"BLOCK": 128}), tilec.Config({"BLOCK": 64})]
    tune = tilec.autotune(configs, key=["n"])
    heur = tilec.heuristics({"EVEN": even})
    kernel = tune(heur(K.add_block)) if order == "autotune_over_heuristics" else heur(
        tune(K.add_block))
    x, out = np.arange(512, dtype=np.float32), np.zeros(512, np.float32)
    kernel[lambda meta: (tilec.cdiv(512, meta["BLOCK"]),)](x, out, 512)
    np.testing.assert_array_equal(out, x + 1)
    # Below the autotuner a heuristic sees the config's values; above it, only the arguments.
    assert seen == ([128] if order == "autotune_over_heuristics" else [None])


# --- on the GPU ----------------------------------------------------------------------------------

@pytest.mark.gpu
def test_the_fastest_config_wins_on_the_gpu(capsys, monkeypatch):
    import cupy
    monkeypatch.setenv("TILEC_PRINT_AUTOTUNING", "1")
    # Planted speeds: REPEAT trips of dependent math per element, the fastest config last.
    configs = [tilec.Config({"REPEAT": r, "BLOCK": 1024}) for r in (256, 32, 1)]
    kernel = tilec.autotune(configs, key=["n"])(K.repeat_add)
    n = 1 << 22
    x = cupy.random.rand(n, dtype=cupy.float32)
    out = cupy.zeros(n, cupy.float32)
    kernel[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, out, n)
    assert kernel.best_config is configs[2]
    median = {c.kwargs["REPEAT"]: t[0] for c, t in kernel.configs_timings.items()}
    assert median[1] < median[32] < median[256]
    cupy.testing.assert_allclose(out, x + 1, rtol=1e-6)
    assert "best config: REPEAT: 1" in capsys.readouterr().out
    # A fresh autotuner (as in the next process) takes the stored result and times nothing.
    again = tilec.autotune(configs, key=["n"], do_bench=FakeBench())(K.repeat_add)
    out.fill(0)
    again[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, out, n)
    assert again.best_config is configs[2]
    assert "stored result used, no tuning ran" in capsys.readouterr().out
    cupy.testing.assert_allclose(out, x + 1, rtol=1e-6)


@pytest.mark.gpu
def test_the_autotuned_matmul_tutorial_on_the_gpu():
    import cupy
    t = tutorial("03-matrix-multiplication")
    rng = np.random.default_rng(4)
    a = rng.standard_normal((512, 384)).astype(np.float16)
    b = rng.standard_normal((384, 640)).astype(np.float16)
    c = cupy.asnumpy(t.matmul(cupy.asarray(a), cupy.asarray(b), activation="leaky_relu"))
    expected = a.astype(np.float32) @ b.astype(np.float32)
    expected = np.where(expected >= 0, expected, 0.01 * expected)
    np.testing.assert_allclose(c.astype(np.float32), expected, rtol=1e-2, atol=1e-1)
    assert t.matmul_kernel.best_config in t.matmul_kernel.configs
    assert len(t.matmul_kernel.configs_timings) >= 1


def test_tilec_compile_takes_a_kernel_under_autotune_and_heuristics():
    kernel = tilec.autotune(K.TRANSPOSE_CONFIGS, key=["n"])(
        tilec.heuristics({"N": lambda args: 32})(K.transpose))
    compiled = tilec.compile(kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32",
                                                "n": "i32"},
                             constexprs={"M": 64, "N": 32}, stop_after="tile")
    assert compiled.name == "transpose" and "tile.kernel" in compiled.asm["tile"]
    with pytest.raises(TypeError, match="takes a @tilec.jit function"):
        tilec.compile(lambda x: x)
