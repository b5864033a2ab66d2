"""Autotuning results on disk, so that a second process does not tune the same kernel again.

One small JSON file per (kernel, key values, config list, device, compiler) under
``cache_dir()/autotune/<key>.json``. It records every config's string, its timing (None for a
config pruned at compile time) and the index of the winner. A file is written to a temporary
name beside its place and renamed over it, so readers see a whole file or none. A file that does
not parse, or does not describe the config list asked about, is ignored (the caller tunes again
and overwrites it): a stored result is never trusted beyond what it can be checked against.
``TILEC_AUTOTUNE_CACHE=0`` turns the store off. With ``TILEC_REMOTE_CACHE`` set the store has a
second level on the Redis server (remote_cache.py): a record missing here is looked up there
(checksummed, checked like a local one, then written here), and every record stored is stored
there too.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tilec import remote_cache
from tilec.cache import cache_dir, make_key
from tilec.compiler import compiler_versions

FORMAT = 1


def enabled() -> bool:
    return os.environ.get("TILEC_AUTOTUNE_CACHE", "1") != "0"


@dataclass
class TuningRecord:
    """What a tuning found: the index of the best config and each config's timing."""
    best: int
    timings: list  # per config: a list of floats (ms), or None where it was pruned


def record_key(kernel_key: str, tuning_key, configs: list[str], device: str) -> str:
    """The file key: the kernel's cache key (its source and what it reads), the key-argument
    values, the configs and the device, with the compiler's versions (a new compiler may make a
    different config win)."""
    return make_key(kernel_key, repr(tuning_key), *configs, device, versions=compiler_versions())


def path_for(key: str) -> Path:
    return cache_dir() / "autotune" / f"{key}.json"


def clear() -> int:
    """Remove every stored tuning result; how many there were."""
    folder = cache_dir() / "autotune"
    removed = 0
    for path in folder.glob("*.json") if folder.is_dir() else ():
        try:
            path.unlink()
            removed += 1
        except FileNotFoundError:
            pass
    return removed


_REMOTE_FILE = "record.json"


def load(key: str, configs: list[str]) -> TuningRecord | None:
    """The stored record for `key` if there is a readable one about exactly `configs`, here
    or on the remote level."""
    try:
        record = _parse(path_for(key).read_bytes(), configs)
    except OSError:
        record = None
    if record is not None:
        remote_cache.log(f"local hit autotune {key[:16]}")
        return record
    remote = remote_cache.backend(compiler_versions)
    files = remote.get("autotune", key) if remote is not None else None
    record = _parse(files[_REMOTE_FILE], configs) if files and _REMOTE_FILE in files else None
    if record is None:
        remote_cache.log(f"miss autotune {key[:16]}")
        return None
    remote_cache.log(f"remote hit autotune {key[:16]}")
    _write(key, files[_REMOTE_FILE])
    return record


def _parse(raw: bytes, configs: list[str]) -> TuningRecord | None:
    try:
        data = json.loads(raw)
        if data.get("format") != FORMAT or data.get("configs") != configs:
            return None
        best, timings = data["best"], data["timings"]
        if (not isinstance(best, int) or not 0 <= best < len(configs)
                or not isinstance(timings, list) or len(timings) != len(configs)
                or not isinstance(timings[best], list)):
            return None
        return TuningRecord(best, timings)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def store(key: str, configs: list[str], record: TuningRecord, about: dict) -> None:
    """Write `record` atomically; `about` (kernel name, key values, device) is for people
    reading the file. A store that cannot be written only costs a tuning next time."""
    data = {"format": FORMAT, **about, "configs": configs, "timings": record.timings,
            "best": record.best}
    raw = json.dumps(data, indent=1).encode()
    _write(key, raw)
    remote = remote_cache.backend(compiler_versions)
    if remote is not None:
        remote.put("autotune", key, {_REMOTE_FILE: raw})


def _write(key: str, raw: bytes) -> None:
    path = path_for(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(raw)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        pass
