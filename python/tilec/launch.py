"""`kernel[grid](*args, **kwargs)`: bind, specialise, interpret or compile, then launch.

`run` is the one path of a launch. It binds the arguments (keywords naming a parameter bind to
it; the others are launch options, `LAUNCH_OPTIONS`), computes the compile key with the
specialisers of runtime.py, normalises the grid, and then either interprets the kernel or finds
(or compiles) the kernel for the key, launches it through its Launcher and returns the compiled
kernel, as Triton returns its handle. The interpreter returns None.

Where the C extension is present, `kernel[grid]` is its bound launch: the warm path in C finds a
launcher registered under a key of the arguments it computes itself, and everything else comes
here; after each launch from here `remember` registers the launcher for such arguments.
"""
from __future__ import annotations

import inspect
from typing import Any

from tilec import interpreter
from tilec.compiler import (CompiledKernel, CompileOptions, compile_specialized,
                            default_fp_fusion)
from tilec.kernel import JITFunction, set_launcher
from tilec.runtime import (DRIVER, Launcher, leaves, native, native_enabled, normalise_grid,
                           register_native_arrays, specialization)

# Keywords of a launch that are not kernel arguments, with their defaults (Triton's names).
# `debug` None: the kernel's own (@jit(debug=...)). `sanitize_overflow` is accepted as Triton
# accepts it; it asks for nothing without debug, and tilec's debug mode checks
# tl.device_assert only.
LAUNCH_OPTIONS = {"num_warps": 4, "num_stages": 3, "enable_fp_fusion": True, "maxnreg": None,
                  "num_ctas": 1, "launch_cooperative_grid": False, "debug": None,
                  "sanitize_overflow": True}


class Launch:
    """`kernel[grid]` on the Python path."""
    __slots__ = ("fn", "grid")

    def __init__(self, fn: JITFunction, grid):
        self.fn, self.grid = fn, grid

    def __call__(self, *args, **kwargs):
        return run(self.fn, self.grid, args, kwargs)


def binder(fn: JITFunction):
    """What makes `kernel[grid]` of `fn`: the C extension's bound launches (`fn`'s dispatcher
    then holds its warm entries), or Launches. Decided once per kernel (resetting
    `fn.launches` decides again)."""
    if not native_enabled():
        return lambda grid: Launch(fn, grid)
    dispatcher = fn.launches["native"] = _native_dispatcher(fn)
    return dispatcher  # kernel[grid] calls its bind in C


def _native_dispatcher(fn: JITFunction):
    return native.Dispatcher(
        [p.name for p in fn.params], [p.is_constexpr for p in fn.params],
        [p.name not in fn.do_not_specialize for p in fn.params], [p.default for p in fn.params],
        inspect.Parameter.empty, list(LAUNCH_OPTIONS), list(LAUNCH_OPTIONS.values()),
        -1 if fn.interpret is None else int(bool(fn.interpret)),
        lambda grid, args, kwargs: run(fn, grid, args, kwargs))


def launch_options(fn: JITFunction, extra: dict[str, Any]) -> dict[str, Any]:
    """The launch's options: `extra` over the defaults (enable_fp_fusion's from the
    environment, read at the launches that take this path: a kernel's first launch for its
    arguments; warm launches keep what it compiled)."""
    if "enable_fp_fusion" not in extra and not default_fp_fusion():
        extra = {**extra, "enable_fp_fusion": False}
    if not extra:
        return LAUNCH_OPTIONS
    unknown = sorted(set(extra) - set(LAUNCH_OPTIONS))
    if unknown:
        raise TypeError(f"{fn.__name__}() got unexpected keyword argument(s) "
                        f"{', '.join(unknown)}: it has no such parameters, and the launch "
                        f"options are {', '.join(LAUNCH_OPTIONS)}")
    return {**LAUNCH_OPTIONS, **extra}


def compile_options(fn: JITFunction, options: dict[str, Any]) -> CompileOptions:
    debug = fn.debug if options["debug"] is None else options["debug"]
    key = (options["num_warps"], options["num_stages"], bool(debug),
           bool(options["enable_fp_fusion"]), options["maxnreg"], options["num_ctas"])
    found = _OPTIONS.get(key)
    if found is None:  # made (and checked) once per distinct options
        found = _OPTIONS[key] = CompileOptions(num_warps=key[0], num_stages=key[1],
                                               debug=key[2], enable_fp_fusion=key[3],
                                               maxnreg=key[4], num_ctas=key[5])
    return found


_OPTIONS: dict[tuple, CompileOptions] = {}


def compile_key(fn: JITFunction, bound: dict[str, Any], options: dict[str, Any]) -> tuple:
    """(specialisation, CompileOptions): what selects the compiled kernel of a launch with
    arguments `bound`, the key of `fn.cache` and the arguments of `compile_specialized` (the
    autotuner compiles its configs ahead of their launches with it)."""
    return specialization(fn, bound), compile_options(fn, options)


def run(fn: JITFunction, grid, args: tuple, kwargs: dict) -> CompiledKernel | None:
    bound, extra = fn.bind_launch(args, kwargs)
    options = launch_options(fn, extra)
    key = compile_key(fn, bound, options)
    grid3 = normalise_grid(grid, bound)
    if interpreter.enabled(fn):  # its programs run one after another: no grid to make resident
        interpreter.launch(fn, grid3, bound, key[0])
        return None
    cooperative = bool(options["launch_cooperative_grid"])
    kernel = _compiled(fn, key)
    launcher = launcher_of(fn, kernel, key[0])
    arguments = [v for p, k in zip(fn.params, key[0]) if not p.is_constexpr
                 for _, _, v in leaves(p.name, k, bound[p.name])]
    torch_arrays = launcher.run(grid3, arguments, cooperative)
    if 0 not in grid3 and not cooperative:  # cooperative launches stay on this path
        remember(fn, args, kwargs, arguments, launcher, torch_arrays)
    return kernel


def warmup(fn: JITFunction, args: tuple, kwargs: dict) -> CompiledKernel:
    """`kernel.warmup(*args, grid=..., **options)`: the CompiledKernel a launch with these
    arguments would run, compiled (or from the caches) and not launched; its
    `_init_handles()` loads it on the current device."""
    bound, extra = fn.bind_launch(args, kwargs)
    key = compile_key(fn, bound, launch_options(fn, extra))
    kernel = _compiled(fn, key)
    launcher_of(fn, kernel, key[0])  # gives the kernel its loader
    return kernel


def _compiled(fn: JITFunction, key: tuple) -> CompiledKernel:
    """The kernel compiled for `key`, from `fn`'s cache or compiled now (or from the disk)."""
    kernel = fn.cache.get(key)
    if kernel is None:
        kernel = fn.cache[key] = compile_specialized(fn, *key)
    return kernel


def launcher_of(fn: JITFunction, kernel: CompiledKernel, spec: tuple) -> Launcher:
    """The kernel's Launcher, made once per compiled kernel (CompiledKernels are not
    hashable: they are kept by identity)."""
    launchers = fn.launches.setdefault("launchers", {})
    launcher = launchers.get(id(kernel))
    if launcher is None or launcher.kernel is not kernel:
        runtime_keys = [leaf for p, k0 in zip(fn.params, spec) if not p.is_constexpr
                        for _, leaf, _ in leaves(p.name, k0)]
        kept = [i for i, (kind, _) in enumerate(runtime_keys) if kind != "constexpr"]
        launcher = launchers[id(kernel)] = Launcher(kernel, kept)
        kernel.loader = lambda: launcher.function(DRIVER.current_device())  # _init_handles()
    return launcher


def remember(fn: JITFunction, args: tuple, kwargs: dict, arguments: list, launcher: Launcher,
             torch_arrays: bool) -> None:
    """Let the C warm path launch `launcher` for arguments like these."""
    dispatcher = fn.launches.get("native")
    native_launcher = launcher.native() if dispatcher is not None else None
    if native_launcher is None:
        return
    register_native_arrays(arguments, torch_arrays)
    dispatcher.remember(args, kwargs, native_launcher, int(torch_arrays))


set_launcher(binder, warmup)
