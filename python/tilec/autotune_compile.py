"""Compiling an autotuner's configs in parallel before any of them is timed.

Each config is compiled (`compile_specialized`, with the specialisation of the launch's actual
arguments) in a worker process; the kernels land in the disk cache, where the launches that
follow find them. A config whose compile-time resources exceed the device (`OutOfResources`) is
reported so that the autotuner drops it without launching it. Any other compile error is left
for the launch to raise in the caller's process, with its usual message.

The workers are forked: they inherit the kernel objects as they are (kernels in `__main__`, in
closures, in files loaded by path), where a spawned worker would have to import them again. They
never touch the GPU. If no pool can be started (no `fork`, a sandbox without processes), the
configs are compiled one after another in this process.
"""
from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from concurrent.futures.process import BrokenProcessPool

from tilec.compiler import cache_enabled, compile_specialized
from tilec.errors import OutOfResources

# In a worker: the kernel and the compile keys of the configs, inherited through fork.
_JOB: tuple | None = None


def compile_all(fn, keys: dict[int, tuple]) -> dict[int, str]:
    """Compile `fn` for each (specialisation, CompileOptions) in `keys` (config index -> key);
    returns {index: reason} for the configs that exceed the device's resources."""
    if not keys:
        return {}
    # Without the disk cache the workers' kernels could not reach this process: compiling
    # here (once, at the config's first launch) is then as fast.
    if len(keys) == 1 or not cache_enabled():
        return _compile_serially(fn, keys)
    try:
        return _compile_in_pool(fn, keys)
    except (OSError, ValueError, BrokenProcessPool, NotImplementedError, RuntimeError):
        return _compile_serially(fn, keys)


def _compile_serially(fn, keys: dict[int, tuple]) -> dict[int, str]:
    pruned = {}
    for index, (specialization, options) in keys.items():
        if (specialization, options) in fn.cache:
            continue
        try:
            fn.cache[specialization, options] = compile_specialized(fn, specialization, options)
        except OutOfResources as err:
            pruned[index] = str(err)
        except Exception:  # noqa: BLE001  (the launch raises it again, with its own context)
            pass
    return pruned


def _compile_in_pool(fn, keys: dict[int, tuple]) -> dict[int, str]:
    todo = {i: key for i, key in keys.items() if key not in fn.cache}
    if not todo:
        return {}
    context = multiprocessing.get_context("fork")
    workers = min(len(todo), os.cpu_count() or 1)
    pruned = {}
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context,
                                                initializer=_set_job,
                                                initargs=(fn, todo)) as pool:
        futures = {pool.submit(_compile_one, i): i for i in todo}
        for future in concurrent.futures.as_completed(futures):
            reason = future.result()
            if reason is not None:
                pruned[futures[future]] = reason
    return pruned


def _set_job(fn, keys) -> None:
    global _JOB
    _JOB = (fn, keys)


def _compile_one(index: int) -> str | None:
    """In a worker: compile one config; the reason it exceeds the device, or None."""
    fn, keys = _JOB
    try:
        compile_specialized(fn, *keys[index])
    except OutOfResources as err:
        return str(err)
    except Exception:  # noqa: BLE001  (raised again by the launch, in the caller's process)
        return None
    return None
