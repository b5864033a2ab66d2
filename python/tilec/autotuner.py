"""`@tilec.autotune` and `@tilec.heuristics`, as Triton's, stacked on `@tilec.jit`.

    @tilec.autotune(configs=[tilec.Config({"BLOCK": 128}, num_warps=4), ...], key=["n"])
    @tilec.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr): ...

    kernel[lambda META: (tilec.cdiv(n, META["BLOCK"]),)](x, n)

The first launch for new values of the `key` arguments (and new dtypes of the array arguments)
times every config and launches with the fastest; later launches with those values reuse it.
What tilec adds to Triton's semantics, for tuning that is expensive and otherwise forgotten:

- the configs are compiled in parallel before any is timed (autotune_compile.py), and a config
  whose shared memory exceeds the device is dropped without being launched;
- the result is stored on disk (autotune_store.py), keyed by the kernel's source, the key
  values, the configs and the device, so the next process does not tune again;
- a progress bar on a terminal, and `TILEC_PRINT_AUTOTUNING=1` logs each timing, the winner, and
  when a stored result was used instead of tuning.

In the interpreter (TILEC_INTERPRET=1) nothing is timed: the first config is used, since CPU
timings say nothing about the GPU.
"""
from __future__ import annotations

import builtins
import os
import sys
import time

from tilec import autotune_store, interpreter
from tilec.autotune_compile import compile_all
from tilec.errors import OutOfResources
from tilec.kernel import JITFunction, jit_function_of
from tilec.launch import compile_key, launch_options
from tilec.runtime import DRIVER
from tilec.testing import do_bench, do_bench_cudagraph

_QUANTILES = (0.5, 0.2, 0.8)  # the median decides; the others are for the log
_BAR_MIN_CONFIGS = 4


class Config:
    """One point of the search: meta-parameter values (`kwargs`), `num_warps`, `num_stages`,
    `num_ctas` and `maxnreg` (launch options, as in Triton's Config, in its order), and a
    `pre_hook(args_dict)` run before each launch with this config."""

    def __init__(self, kwargs: dict, num_warps: int = 4, num_stages: int = 3, num_ctas: int = 1,
                 maxnreg: int | None = None, pre_hook=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def _options(self) -> dict:
        """The launch options this config sets (num_ctas and maxnreg only when not default)."""
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        if self.num_ctas != 1:
            options["num_ctas"] = self.num_ctas
        if self.maxnreg is not None:
            options["maxnreg"] = self.maxnreg
        return options

    def all_kwargs(self) -> dict:
        """The launch keywords this config supplies."""
        return {**self.kwargs, **self._options()}

    def _identity(self) -> tuple:
        return tuple(self.kwargs.items()), tuple(self._options().items())

    def __eq__(self, other) -> bool:
        return isinstance(other, Config) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __str__(self) -> str:
        parts = [f"{name}: {value}" for name, value in self.kwargs.items()]
        parts += [f"{name}: {value}" for name, value in self._options().items()]
        return ", ".join(parts)

    def __repr__(self) -> str:
        options = ", ".join(f"{name}={value!r}" for name, value in self._options().items())
        return f"Config({self.kwargs!r}, {options})"


class KernelWrapper:
    """What @autotune and @heuristics have in common: the wrapped kernel as `.fn` (as in
    Triton, so tools reach the @jit function underneath), its parameter names, and launching
    with `kernel[grid](...)`."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.params = fn.params
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__

    @property
    def jit_function(self) -> JITFunction:
        """The @tilec.jit function at the bottom of the decorator stack."""
        return jit_function_of(self.fn)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)  # the @jit function's answer: kernels launch with [grid]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.fn!r})"


def _launch(fn, grid, args: tuple, kwargs: dict):
    """Launch `fn` (a @jit function through its warm path, or another wrapper)."""
    if isinstance(fn, JITFunction):
        return fn[grid](*args, **kwargs)
    return fn.run(*args, grid=grid, **kwargs)


# --- @tilec.heuristics --------------------------------------------------------------------------

class Heuristics(KernelWrapper):
    """Meta-parameters computed from the launch's arguments: `values` maps a parameter name to
    a function of the dict of arguments (positional ones by name, and the keywords)."""

    def __init__(self, fn, values: dict):
        super().__init__(fn)
        self.values = dict(values)

    def with_values(self, args: tuple, kwargs: dict) -> dict:
        """`kwargs` with each heuristic's value; each sees the values computed before it."""
        kwargs = dict(kwargs)
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args, grid, **kwargs):
        return _launch(self.fn, grid, args, self.with_values(args, kwargs))


def heuristics(values: dict):
    """Decorator: `@tilec.heuristics({"BLOCK": lambda args: ...})` above `@tilec.jit` (or
    above or below `@tilec.autotune`), as triton.heuristics."""
    def decorator(fn):
        return Heuristics(fn, values)
    return decorator


# --- @tilec.autotune ----------------------------------------------------------------------------

class Autotuner(KernelWrapper):
    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None,
                 restore_value=None, pre_hook=None, post_hook=None, warmup=25, rep=100,
                 use_cuda_graph=False, do_bench=None, cache_results=True):
        super().__init__(fn)
        self.configs = list(configs) or [Config({})]
        self.keys = list(key)
        unknown = (set(self.keys) | set(reset_to_zero or ()) | set(restore_value or ())) - set(
            self.arg_names)
        if unknown:
            raise ValueError(f"autotune of {self.__name__} names unknown parameters "
                             f"{sorted(unknown)}")
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.reset_to_zero = list(reset_to_zero or ())
        self.restore_value = list(restore_value or ())
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        self.warmup, self.rep, self.use_cuda_graph = warmup, rep, use_cuda_graph
        self.user_do_bench = do_bench
        self.cache_results = cache_results
        self.cache: dict = {}  # tuning key -> Config
        self.best_config: Config | None = None
        self.configs_timings: dict | None = None
        self.bench_time = 0.0
        self.nargs: dict | None = None
        self._saved: dict = {}  # restore_value's copies during one timed launch
        self._tuned_names = set().union(*(c.kwargs for c in self.configs))

    # --- launching -------------------------------------------------------------------------

    def run(self, *args, grid, **kwargs):
        config = self.tune(*args, grid=grid, **kwargs)
        if config.pre_hook is not None:
            config.pre_hook({**dict(zip(self.arg_names, args)), **kwargs, **config.all_kwargs()})
        return _launch(self.fn, grid, args, {**kwargs, **config.all_kwargs()})

    def tune(self, *args, grid, **kwargs) -> Config:
        """The config that launches with these arguments (also `self.best_config`): the one
        found for their key before, else the stored result, else the fastest after timing
        every config (each launched with `grid`). Does not launch the kernel itself."""
        self._check_conflicts(kwargs)
        if len(self.configs) == 1:
            self.best_config = self.configs[0]
            return self.best_config
        key = self._tuning_key(args, kwargs)
        config = self.cache.get(key)
        if config is None:
            config = self.cache[key] = self._find_best(key, args, kwargs, grid)
        self.best_config = config
        return config

    def _check_conflicts(self, kwargs: dict) -> None:
        conflicts = sorted(self._tuned_names & set(kwargs))
        if conflicts:
            raise ValueError(f"{self.__name__}: conflicting meta-parameters "
                             f"{', '.join(conflicts)}: the autotuner's configs supply them, so "
                             "do not pass them at launch")

    def _tuning_key(self, args: tuple, kwargs: dict) -> tuple:
        """The key-argument values, then the dtypes of all array arguments (as Triton)."""
        given = {**dict(zip(self.arg_names, args)), **kwargs}
        given = {name: value for name, value in given.items() if name in self.arg_names}
        key = [given[name] for name in self.keys if name in given]
        key += [str(value.dtype) for value in given.values() if hasattr(value, "dtype")]
        return tuple(key)

    # --- tuning ----------------------------------------------------------------------------

    def _find_best(self, key: tuple, args: tuple, kwargs: dict, grid) -> Config:
        """The config for a key seen for the first time in this process: the interpreter's
        first, else the stored result, else the winner of timing (then stored)."""
        self.nargs = dict(zip(self.arg_names, args))
        try:
            if interpreter.enabled(self.jit_function):
                self._log(f"the interpreter runs {self.__name__} with its first config, "
                          f"untimed: {self.configs[0]}")
                return self.configs[0]
            store_key = self._store_key(key, args, kwargs)
            if store_key is not None:
                record = autotune_store.load(store_key, self._config_strings())
                if record is not None:
                    return self._use_stored(record, key, store_key)
            config, timings = self._measure(args, kwargs, grid)
            if store_key is not None and config in self.configs:
                record = autotune_store.TuningRecord(
                    self.configs.index(config), [timings.get(c) for c in self.configs])
                autotune_store.store(store_key, self._config_strings(), record,
                                     {"kernel": self.__name__, "key": repr(key),
                                      "device": _device_name(args)})
            self._hooks({**self.nargs, **kwargs, **config.all_kwargs()}, reset_only=True)
            return config
        finally:
            self.nargs = None

    def _config_strings(self) -> list[str]:
        return [str(c) for c in self.configs]

    def _store_key(self, key: tuple, args: tuple, kwargs: dict) -> str | None:
        if not (self.cache_results and autotune_store.enabled()):
            return None
        return autotune_store.record_key(self.jit_function.cache_key, key,
                                         self._config_strings(), _device_name(args))

    def _use_stored(self, record, key: tuple, store_key: str) -> Config:
        config = self.configs[record.best]
        self.configs_timings = {c: t for c, t in zip(self.configs, record.timings)
                                if t is not None}
        self._log(f"{self.__name__}: stored result used, no tuning ran (key {key}, "
                  f"{autotune_store.path_for(store_key)}); best config: {config}")
        return config

    def _measure(self, args: tuple, kwargs: dict, grid) -> tuple[Config, dict]:
        """(the fastest config, the timings of those timed): the configs left by
        `prune_configs`, less those over the device's resources, each timed."""
        start = time.perf_counter()
        candidates = self.prune_configs(kwargs)
        over = self._over_resources(candidates, args, kwargs)
        timings = {}
        bar = _ProgressBar(self.__name__, len(candidates) - len(over))
        for index, config in enumerate(candidates):
            if index in over:
                self._log(f"{self.__name__}: pruned at compile time: {config}: {over[index]}")
                continue
            timings[config] = self._bench(config, args, kwargs, grid)
            self._log(f"{self.__name__}: {config}: {timings[config][0]:.4f} ms")
            bar.advance()
        bar.close()
        if not timings:
            raise OutOfResources(f"every config of {self.__name__} exceeds the device's "
                                 f"resources: {next(iter(over.values()))}")
        best = builtins.min(timings, key=timings.get)
        self.bench_time = time.perf_counter() - start
        self.configs_timings = timings
        self._log(f"{self.__name__}: tuned in {self.bench_time:.2f}s ({len(timings)} configs "
                  f"timed, {len(over)} pruned); best config: {best}")
        return best, timings

    def prune_configs(self, kwargs: dict) -> list[Config]:
        """The configs left by `early_config_prune` and by `perf_model`'s `top_k`, as Triton."""
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(self.configs, self.nargs, **kwargs))
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(self.configs) * top_k)
            elif not isinstance(top_k, int):
                raise TypeError("prune_configs_by['top_k'] must be an int or a float <= 1.0")
            if len(configs) > top_k:
                estimate = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs())
                            for c in configs}
                configs = sorted(configs, key=estimate.get)[:top_k]
        return configs

    def _over_resources(self, configs: list[Config], args: tuple, kwargs: dict) -> dict:
        """Compile `configs` (in parallel) for these arguments; {index in `configs`: reason}
        for the ones too large for the device."""
        jit_fn = self.jit_function
        keys = {}
        for index, config in enumerate(configs):
            launch = _final_kwargs(self.fn, args, {**kwargs, **config.all_kwargs()})
            if launch is None:
                return {}  # an autotuner below this one: its own tuning compiles
            try:
                bound, extra = jit_fn.bind_launch(args, launch)
                keys[index] = compile_key(jit_fn, bound, launch_options(jit_fn, extra))
            except (TypeError, ValueError):
                continue  # the launch reports the bad arguments
        return compile_all(jit_fn, keys)

    def _bench(self, config: Config, args: tuple, kwargs: dict, grid) -> list[float]:
        launch = {**kwargs, **config.all_kwargs()}
        full_nargs = {**self.nargs, **launch}

        def kernel_call():
            if config.pre_hook is not None:
                config.pre_hook(full_nargs)
            self._hooks(full_nargs)
            try:
                _launch(self.fn, grid, args, launch)
            finally:
                self._post_hooks(full_nargs)

        try:
            timing = self._do_bench(kernel_call)
        except OutOfResources as err:
            self._log(f"{self.__name__}: {config} failed: {err}")
            return [float("inf")] * len(_QUANTILES)
        return list(timing) if isinstance(timing, (list, tuple)) else [float(timing)]

    def _do_bench(self, kernel_call):
        if self.user_do_bench is not None:
            return self.user_do_bench(kernel_call, quantiles=_QUANTILES)
        if self.use_cuda_graph:
            return do_bench_cudagraph(kernel_call, rep=self.rep, quantiles=_QUANTILES)
        return do_bench(kernel_call, warmup=self.warmup, rep=self.rep, quantiles=_QUANTILES)

    # --- reset_to_zero, restore_value ------------------------------------------------------

    def _hooks(self, nargs: dict, reset_only: bool = False) -> None:
        for name in self.reset_to_zero:
            _zero(nargs[name])
        if reset_only:
            return
        self._saved = {name: _copy(nargs[name]) for name in self.restore_value}
        if self.user_pre_hook is not None:
            self.user_pre_hook(nargs)

    def _post_hooks(self, nargs: dict) -> None:
        for name, saved in self._saved.items():
            _restore(nargs[name], saved)
        self._saved = {}
        if self.user_post_hook is not None:
            self.user_post_hook(nargs)

    @staticmethod
    def _log(message: str) -> None:
        if os.environ.get("TILEC_PRINT_AUTOTUNING") == "1":
            print(f"tilec autotune: {message}", flush=True)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=25, rep=100, use_cuda_graph=False,
             do_bench=None, cache_results=True):
    """Decorator: `@tilec.autotune(configs=[...], key=[...])` above `@tilec.jit` (or above
    `@tilec.heuristics`), as triton.autotune. `do_bench(fn, quantiles=...)` replaces the timing
    (tilec.testing.do_bench with `warmup` and `rep` by default, do_bench_cudagraph with
    `use_cuda_graph`); `cache_results=False` or TILEC_AUTOTUNE_CACHE=0 keeps results in memory
    only."""
    def decorator(fn):
        return Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value,
                         pre_hook, post_hook, warmup, rep, use_cuda_graph, do_bench,
                         cache_results)
    return decorator


# --- helpers --------------------------------------------------------------------------------------

def _final_kwargs(fn, args: tuple, kwargs: dict) -> dict | None:
    """The keywords the @jit function at the bottom receives when `fn` is launched with
    `kwargs` (heuristics in between add theirs); None when another autotuner is in between."""
    while isinstance(fn, Heuristics):
        kwargs = fn.with_values(args, kwargs)
        fn = fn.fn
    return dict(kwargs) if isinstance(fn, JITFunction) else None


def _device_name(args: tuple) -> str:
    """The GPU launches go to (the current device), by name: results are kept per device kind."""
    try:
        name = DRIVER.cupy.cuda.runtime.getDeviceProperties(DRIVER.current_device())["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # noqa: BLE001  (no CuPy, no driver: timings are then not GPU timings)
        return "unknown"


def _zero(array) -> None:
    if hasattr(array, "zero_"):  # torch
        array.zero_()
    else:
        array.fill(0)


def _copy(array):
    return array.clone() if hasattr(array, "clone") else array.copy()


def _restore(array, saved) -> None:
    if hasattr(array, "copy_"):  # torch
        array.copy_(saved)
    else:
        array[...] = saved


class _ProgressBar:
    """`name: autotuning [#####.....] 5/10` on stderr, redrawn in place; only on a terminal,
    with enough configs to be worth it, and not over TILEC_PRINT_AUTOTUNING's log."""

    def __init__(self, name: str, total: int, width: int = 30):
        self.name, self.total, self.width, self.done = name, total, width, 0
        self.shown = (total >= _BAR_MIN_CONFIGS and sys.stderr.isatty()
                      and os.environ.get("TILEC_PRINT_AUTOTUNING") != "1")
        self._draw()

    def advance(self) -> None:
        self.done += 1
        self._draw()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()

    def _draw(self) -> None:
        if not self.shown:
            return
        filled = self.width * self.done // max(self.total, 1)
        sys.stderr.write(f"\r{self.name}: autotuning [{'#' * filled}{'.' * (self.width - filled)}]"
                         f" {self.done}/{self.total}")
        sys.stderr.flush()
