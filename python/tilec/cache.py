"""The on-disk kernel cache: compiled artefacts (cubin, PTX, metadata) stored by content key.

Layout: ``root/<key[:2]>/<key>/`` holds the entry's files and ``manifest.json``, which records the
size and SHA-256 of every file. ``root`` is ``$TILEC_CACHE_DIR``, else ``~/.cache/tilec``.

Guarantees:
- ``get`` returns an entry only if every file named in the manifest is present with the recorded
  size and hash, and nothing else is there. Anything else (bad checksum, truncated or missing file,
  unreadable manifest, empty directory left by a crash) is deleted and reported as ``None``, so the
  caller rebuilds. A corrupt entry is never returned. In a cache that cannot be written (read-only,
  another user's) it cannot be deleted either: ``get`` still reports ``None`` and does not raise.
- ``put`` raises ``OSError`` where the cache cannot be written; the compiler ignores it and keeps
  the kernel it compiled in memory.
- ``put`` is atomic: the entry is written into a temporary directory beside its final place (same
  filesystem) and renamed in whole. A reader sees the complete entry or none. Entries are never
  changed in place; they are only removed whole.
- Several processes may ``put`` the same key at once. All succeed. One rename wins and the others
  keep the winner's entry, which is fine because equal keys mean equal contents.
- A writer killed mid-``put`` leaves its temp directory (``.tmp-<pid>-*``), and one killed
  mid-delete its trash (``.trash-<pid>-*``). ``put`` removes such leftovers from the shard it
  writes to, and ``clear`` from every shard, once they are stale: the pid in the name is not a
  running process, or the leftover is older than an hour. A live writer's temp directory is
  left alone while younger than that. Pids tell writers apart only on one machine (one pid
  namespace). Where machines or containers share a cache, a writer elsewhere can lose its temp
  directory, which costs it that ``put`` (``OSError``, or an entry that ``get`` finds
  incomplete). No bad entry is ever served.
- There is no fsync. After a power loss a file may come back empty or short, and the checksums
  catch it like any other corruption. A cache may lose entries; it must not serve bad ones.

Stdlib only, so the cache is usable from tools without the compiler's dependencies.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

MANIFEST = "manifest.json"
# Bump when the entry layout or the key recipe changes, so old entries are never misread.
FORMAT = 1

_KEY = re.compile(r"[0-9a-f]{8,128}")
_TEMP_PREFIX = ".tmp-"
_TRASH_PREFIX = ".trash-"
# The writer's pid in a temp or trash name (they are made as f"{prefix}{os.getpid()}-...").
_LEFTOVER_PID = re.compile(r"\.(?:tmp|trash)-([1-9][0-9]{0,9})-")
# Past this age a temp or trash directory counts as abandoned even if its pid is alive: the pid
# may have been reused, and no put takes anywhere near this long.
_STALE_SECONDS = 3600.0
_PUT_ATTEMPTS = 8


def cache_dir() -> Path:
    """``$TILEC_CACHE_DIR`` if set (and non-empty), else ``~/.cache/tilec``."""
    env = os.environ.get("TILEC_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "tilec"


def make_key(*parts: str | bytes, versions: Mapping[str, str]) -> str:
    """A hex SHA-256 of ``parts``, ``versions`` and the cache format.

    ``versions`` must name everything that changes the output without changing the source: at
    least ``tilec``, ``python``, ``mlir`` and ``ptxas``. The caller supplies them, so the key is
    a plain function of its arguments.
    """
    h = hashlib.sha256(b"tilec-cache/%d\0" % FORMAT)
    # Prefix each part with its type and length. Then ("ab", "c") and ("a", "bc") hash apart,
    # and so do "x" and b"x".
    for part in parts:
        if isinstance(part, str):
            tag, data = b"s", part.encode()
        elif isinstance(part, bytes):
            tag, data = b"b", part
        else:
            raise TypeError(f"make_key parts must be str or bytes, not {type(part).__name__}")
        h.update(tag + b"%d:" % len(data) + data)
    # Sort the versions so dict order cannot change the key.
    h.update(b"v" + json.dumps(sorted(versions.items())).encode())
    return h.hexdigest()


class KernelCache:
    """Kernel artefacts on disk under ``root`` (default: ``cache_dir()``); see the module docstring."""

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root) if root is not None else cache_dir()

    # --- entries ---------------------------------------------------------------------------------

    def get(self, key: str) -> dict[str, bytes] | None:
        """The files stored under ``key``, or None if the entry is absent or corrupt.

        A corrupt entry is deleted, so the caller's next ``put`` can replace it. Where that fails
        (a read-only cache) it stays on disk, and is still reported as None.
        """
        path = self._entry(key)
        if not os.path.lexists(path):
            return None
        files = _read_verified(path, key)
        if files is None:
            try:
                # Only a corrupt entry: a writer may have replaced the one read (a remove, then
                # a put) in the meantime, and its valid entry must stay.
                self._discard(path, unless_valid=key)
            except OSError:
                # A read-only cache: the caller must still get its miss and compile in memory.
                # The entry stays, and every later get finds it corrupt again.
                pass
        return files

    def put(self, key: str, files: Mapping[str, bytes]) -> None:
        """Store ``files`` (name -> bytes) under ``key`` atomically. Any entry already there is kept.

        Raises OSError where the cache cannot be written (read-only, full, another user's).
        """
        for name, data in files.items():
            _check_name(name)
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise TypeError(f"cache file {name!r} must be bytes, not {type(data).__name__}")
        path = self._entry(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        _sweep(path.parent)
        temp = Path(tempfile.mkdtemp(prefix=f"{_TEMP_PREFIX}{os.getpid()}-", dir=path.parent))
        try:
            manifest = {"format": FORMAT, "key": key, "files": {}}
            for name, data in files.items():
                data = bytes(data)
                (temp / name).write_bytes(data)
                manifest["files"][name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            # The manifest goes last, though nobody can see the temp dir before the rename anyway.
            (temp / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
            self._install(temp, path, key)
        finally:
            shutil.rmtree(temp, ignore_errors=True)  # Still here only if we lost the race or failed.

    def path(self, key: str) -> Path:
        """The entry directory of ``key`` (which need not exist). Read it only through ``get``
        where the contents matter: only ``get`` verifies them."""
        return self._entry(key)

    def remove(self, key: str) -> bool:
        """Delete the entry under ``key``. Returns whether there was one."""
        return self._discard(self._entry(key))

    # --- the whole cache (for `tilec cache list|show|clear|size`) ---------------------------------

    def keys(self) -> list[str]:
        """The keys of the entries present, sorted. They are not verified; ``get`` does that."""
        found = []
        for shard in self._shards():
            for entry in _listdir(shard):
                if _KEY.fullmatch(entry) and entry[:2] == shard.name:
                    found.append(entry)
        return sorted(found)

    def size(self) -> int:
        """Bytes in all files under ``root``, including temp files of writers still at work."""
        total = 0
        for dirpath, _dirnames, filenames in os.walk(self.root):
            for name in filenames:
                try:
                    total += os.lstat(os.path.join(dirpath, name)).st_size
                except FileNotFoundError:  # Removed while we walked.
                    pass
        return total

    def clear(self) -> None:
        """Delete every entry and every stale temp or trash directory (see the module docstring).

        The temp directory of a writer still at work is kept, so its entry may appear after
        ``clear`` returns. A ``put`` racing ``clear`` can still fail with OSError (its shard
        directory removed under it).
        """
        for shard in self._shards():
            _sweep(shard)
            for entry in _listdir(shard):
                if not entry.startswith((_TEMP_PREFIX, _TRASH_PREFIX)):  # _sweep judged those
                    self._discard(shard / entry)
            try:
                shard.rmdir()
            except OSError:  # A writer put something back in the meantime; leave it.
                pass

    # --- internals -------------------------------------------------------------------------------

    def _entry(self, key: str) -> Path:
        # The key becomes a path, so it must not be able to name anything outside the cache.
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise ValueError(f"cache key must be 8-128 lowercase hex digits, got {key!r}")
        return self.root / key[:2] / key

    def _shards(self) -> list[Path]:
        return [self.root / d for d in _listdir(self.root) if re.fullmatch(r"[0-9a-f]{2}", d)]

    def _install(self, temp: Path, path: Path, key: str) -> None:
        """Rename ``temp`` to ``path``. If a valid entry is already there, keep it instead."""
        for _ in range(_PUT_ATTEMPTS):
            try:
                # rename(2) replaces an empty directory (left by a crash) but not a full one.
                os.rename(temp, path)
                return
            except OSError as e:
                if e.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
                    raise
            # Someone else got there first. Equal keys mean equal contents, so their valid
            # entry is as good as ours. If theirs is corrupt, get() deletes it and we retry.
            if self.get(key) is not None:
                return
        # Entries kept appearing and being found corrupt. Give up: a cache may miss, and the
        # caller already has the compiled kernel.

    def _discard(self, path: Path, unless_valid: str | None = None) -> bool:
        """Delete an entry (or stray file) at ``path``. Returns whether there was one.

        Rename it to a trash name first, which is atomic. A reader then sees the whole entry or
        nothing, never a half-deleted directory. It could still see files vanish mid-read. That
        reads as corruption and returns None: no bad data, only a rebuild. With
        ``unless_valid`` (its key), a renamed entry that verifies is put back (or, where a newer
        one took its place meanwhile, deleted: a miss, never bad data).
        """
        trash = path.parent / f"{_TRASH_PREFIX}{os.getpid()}-{secrets.token_hex(8)}"
        try:
            os.rename(path, trash)
        except FileNotFoundError:  # Someone else removed it first.
            return False
        if unless_valid is not None and _read_verified(trash, unless_valid) is not None:
            try:
                os.rename(trash, path)
                return False
            except OSError:
                pass
        _delete(trash)
        return True


def _read_verified(path: Path, key: str) -> dict[str, bytes] | None:
    """The entry's files if the manifest parses and every file matches it, else None."""
    try:
        manifest = json.loads((path / MANIFEST).read_bytes())
        if manifest.get("format") != FORMAT or manifest.get("key") != key:
            return None
        expected = manifest["files"]
        # An extra file means the entry is not the one the manifest describes.
        if set(os.listdir(path)) != set(expected) | {MANIFEST}:
            return None
        files = {}
        for name, record in expected.items():
            _check_name(name)
            data = (path / name).read_bytes()
            if len(data) != record["size"] or hashlib.sha256(data).hexdigest() != record["sha256"]:
                return None
            files[name] = data
        return files
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        # Unreadable, truncated or garbled manifest, missing file, or an entry removed while we
        # read it: all mean "no usable entry".
        return None


def _sweep(shard: Path) -> None:
    """Delete the stale temp and trash directories in ``shard`` (see the module docstring).

    Best effort: it never raises, so a cache it cannot clean still works.
    """
    now = time.time()
    for name in _listdir(shard):
        if not name.startswith((_TEMP_PREFIX, _TRASH_PREFIX)):
            continue
        path = shard / name
        try:
            age = now - os.lstat(path).st_mtime
        except OSError:  # Gone already: its writer finished, or another sweep got it.
            continue
        found = _LEFTOVER_PID.match(name)
        # A name without a pid (not made by put or _discard) goes by its age alone.
        if age > _STALE_SECONDS or (found and not _pid_alive(int(found.group(1)))):
            try:
                _delete(path)
            except OSError:  # Read-only, or not ours to delete: leave it.
                pass


def _pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine. True where that cannot be told."""
    if os.name != "posix":
        return True  # On Windows os.kill(pid, 0) terminates the process: go by age alone.
    try:
        os.kill(pid, 0)  # Signal 0 checks that the process exists and sends nothing.
    except (ProcessLookupError, OverflowError):  # No such process (or no pid that large).
        return False
    except OSError:  # EPERM: it exists but belongs to another user.
        return True
    return True


def _delete(path: Path) -> None:
    """Delete a directory tree or a file; a symlink itself, never what it points to."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _check_name(name: str) -> None:
    # A plain file name in the entry directory: no paths, no hidden names, not the manifest.
    if (not isinstance(name, str) or not name or name == MANIFEST or name.startswith(".")
            or "/" in name or "\\" in name or "\0" in name):
        raise ValueError(f"invalid cache file name {name!r}")


def _listdir(path: Path) -> list[str]:
    try:
        return os.listdir(path)
    except (FileNotFoundError, NotADirectoryError):
        return []
