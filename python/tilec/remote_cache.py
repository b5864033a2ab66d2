"""The remote level of the kernel cache and the autotune store: Redis, shared by a fleet.

With ``TILEC_REMOTE_CACHE=redis://[user:password@]host:port/db`` (``rediss://`` for TLS) the
kernel cache and the autotune store have two levels: the local disk first, then the server; a
remote hit fills the local level. Without the variable nothing here runs.

Entries. An entry is the files of a disk-cache entry (or one autotune JSON file) in one Redis
string under ``tilec:<compiler tag>:<kind>:<key>``: the same cache key as on disk, behind a tag
of the compiler's versions (so ``tilec cache remote list|clear`` see this compiler's entries
only). The value is ``MAGIC``, a 4-byte header length, the header's SHA-256, a JSON header
naming the format, kind, key, tag and every file's size and SHA-256, then the files' bytes in
the header's order. Entries are data, never code: nothing fetched is unpickled, evaluated or
imported, and a value is used only when its header matches its hash, names this entry and this
compiler, and every file has its recorded size and hash; anything else (truncated, corrupted,
planted) is deleted from the server and reported as a miss, so the caller rebuilds it. One
``SET`` writes a whole value, so no reader sees half an entry; writers of one key write equal contents, so the last one is as
good as the first.

Compiling once. A process that misses takes a lock on the key (``SET NX`` with a time to
live) before compiling; the others wait for the entry (at most the lock's life) instead of
compiling the same kernel, and compile themselves when the holder gave up without an entry
(its kernel failed, or it died).

Faults. Every call has a bounded timeout (``TILEC_REMOTE_CACHE_TIMEOUT`` seconds, default
0.25; no retries). A server that is down, slow, or refuses the credentials costs no compile or
launch: the first failure prints one line to stderr and the remote level rests for
``RETRY_SECONDS``, during which tilec works on the local level alone (its entries are never
touched by remote faults). Credentials come from the URL (or ``REDIS_USERNAME`` /
``REDIS_PASSWORD`` in the environment) and are never printed: messages show the URL with the
password masked. ``TILEC_PRINT_CACHE=1`` logs hits and misses of both levels.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import secrets
import struct
import sys
import time
import urllib.parse
from collections.abc import Callable, Mapping

from tilec.cache import _check_name, make_key

ENV = "TILEC_REMOTE_CACHE"
TIMEOUT_ENV = "TILEC_REMOTE_CACHE_TIMEOUT"
DEFAULT_TIMEOUT = 0.25
RETRY_SECONDS = 30.0
LOCK_SECONDS = 120.0  # the longest a compile may hold its key's lock
POLL_SECONDS = 0.05
MAGIC = b"tilec-remote/1\n"
FORMAT = 1
KINDS = ("kernel", "autotune")


def log(message: str) -> None:
    """A TILEC_PRINT_CACHE=1 line on stderr."""
    if os.environ.get("TILEC_PRINT_CACHE", "0") not in ("", "0"):
        print(f"tilec cache: {message}", file=sys.stderr, flush=True)


def redacted(url: str) -> str:
    """`url` with its password (if any) replaced by ***."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def compiler_tag(versions: Mapping[str, str]) -> str:
    """16 hex digits naming a compiler (its versions), the namespace of its entries."""
    return make_key("remote-namespace", versions=versions)[:16]


# --- the value format -------------------------------------------------------------------------

def encode(kind: str, key: str, tag: str, files: Mapping[str, bytes]) -> bytes:
    names = sorted(files)
    header = {"format": FORMAT, "kind": kind, "key": key, "tag": tag,
              "files": [[n, len(files[n]), hashlib.sha256(files[n]).hexdigest()] for n in names]}
    head = json.dumps(header, sort_keys=True).encode()
    return (MAGIC + struct.pack(">I", len(head)) + hashlib.sha256(head).digest() + head
            + b"".join(bytes(files[n]) for n in names))


def decode(value: bytes, kind: str, key: str, tag: str) -> dict[str, bytes] | None:
    """The files of a value written by `encode` for exactly this entry, or None."""
    try:
        if not isinstance(value, bytes) or not value.startswith(MAGIC):
            return None
        at = len(MAGIC)
        (length,) = struct.unpack_from(">I", value, at)
        digest, head = value[at + 4:at + 36], value[at + 36:at + 36 + length]
        if len(head) != length or hashlib.sha256(head).digest() != digest:
            return None
        header = json.loads(head.decode())
        at += 36 + length
        if (not isinstance(header, dict) or header.get("format") != FORMAT
                or header.get("kind") != kind or header.get("key") != key
                or header.get("tag") != tag or not isinstance(header.get("files"), list)):
            return None
        files = {}
        for name, size, digest in header["files"]:
            _check_name(name)
            if not isinstance(size, int) or size < 0 or name in files:
                return None
            data = value[at:at + size]
            if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
                return None
            files[name] = data
            at += size
        return files if at == len(value) else None
    except (ValueError, TypeError, struct.error, UnicodeDecodeError):
        return None


# --- the backend ------------------------------------------------------------------------------

class RemoteCache:
    """The Redis level for `url`; every method absorbs the server's faults (see the module
    docstring): reads miss, writes are dropped, and `available` turns False for a while."""

    def __init__(self, url: str, versions: Callable[[], Mapping[str, str]],
                 timeout: float | None = None):
        self.url = url
        self.versions = versions
        self.shown = redacted(url)
        self.timeout = timeout if timeout is not None else _timeout()
        self._client = None
        self._pid = None
        self._resting_until = 0.0
        self._warned = False
        self._tag = None

    # --- plumbing ---
    @property
    def tag(self) -> str:
        if self._tag is None:
            self._tag = compiler_tag(self.versions())
        return self._tag

    def name(self, kind: str, key: str) -> str:
        return f"tilec:{self.tag}:{kind}:{key}"

    def _redis(self):
        if self._client is None or self._pid != os.getpid():  # a forked worker: its own socket
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
            options = {}
            if "@" not in self.url.split("//", 1)[-1].split("/", 1)[0]:
                if os.environ.get("REDIS_PASSWORD"):
                    options["password"] = os.environ["REDIS_PASSWORD"]
                if os.environ.get("REDIS_USERNAME"):
                    options["username"] = os.environ["REDIS_USERNAME"]
            self._client = redis.Redis.from_url(
                self.url, socket_timeout=self.timeout, socket_connect_timeout=self.timeout,
                retry=Retry(NoBackoff(), 0), retry_on_timeout=False, health_check_interval=0,
                **options)
            self._pid = os.getpid()
        return self._client

    @property
    def available(self) -> bool:
        return time.monotonic() >= self._resting_until

    def _call(self, what: str, fn, default=None):
        """fn(client), or `default` when the remote level rests or the call fails."""
        if not self.available:
            return default
        try:
            return fn(self._redis())
        except Exception as err:  # noqa: BLE001  (redis, socket, TLS, URL errors alike)
            self._fault(what, err)
            return default

    def _fault(self, what: str, err: Exception) -> None:
        self._resting_until = time.monotonic() + RETRY_SECONDS
        self._client = None
        if not self._warned:
            self._warned = True
            message = _scrubbed(f"{type(err).__name__}: {err}", self.url)
            print(f"tilec: remote cache {self.shown} unavailable ({what}: {message}); "
                  "compiling and tuning with the local cache only", file=sys.stderr, flush=True)

    # --- entries ---
    def get(self, kind: str, key: str) -> dict[str, bytes] | None:
        name = self.name(kind, key)
        value = self._call("get", lambda r: r.get(name))
        if value is None:
            return None
        files = decode(value, kind, key, self.tag)
        if files is None:
            log(f"remote entry {kind} {key[:16]} is corrupt: deleted, rebuilding")
            # Only if it is still the bad value: a writer may have replaced it meanwhile.
            self._call("delete", lambda r: _delete_if(r, name, value))
        return files

    def put(self, kind: str, key: str, files: Mapping[str, bytes]) -> bool:
        value = encode(kind, key, self.tag, files)
        return bool(self._call("set", lambda r: r.set(self.name(kind, key), value)))

    def remove(self, kind: str, key: str) -> None:
        self._call("delete", lambda r: r.delete(self.name(kind, key)))

    def lock(self, kind: str, key: str) -> str | None:
        """A token if this process now holds the key's compile lock; None if another does
        (or the server cannot be asked: then the caller compiles without one)."""
        token = secrets.token_hex(8)
        got = self._call("lock", lambda r: r.set(self.name(kind, key) + ":lock", token, nx=True,
                                                  px=int(LOCK_SECONDS * 1000)), default=True)
        return token if got else None

    def unlock(self, kind: str, key: str, token: str) -> None:
        lock = self.name(kind, key) + ":lock"
        self._call("unlock", lambda r: _delete_if(r, lock, token.encode()))

    def wait(self, kind: str, key: str) -> dict[str, bytes] | None:
        """The entry once another process's compile put it; None when its lock went away
        without one (or the server failed, or LOCK_SECONDS passed)."""
        deadline = time.monotonic() + LOCK_SECONDS
        lock = self.name(kind, key) + ":lock"
        while time.monotonic() < deadline and self.available:
            files = self.get(kind, key)
            if files is not None:
                return files
            if not self._call("lock", lambda r: r.exists(lock), default=0):
                return self.get(kind, key)
            time.sleep(POLL_SECONDS)
        return None

    # --- the whole level (tilec cache remote) ---
    def keys(self, kind: str | None = None) -> list[tuple[str, str, int]]:
        """(kind, key, bytes) of this compiler's entries; raises the server's errors."""
        r = self._redis()
        found = []
        for kind_ in (kind,) if kind else KINDS:
            prefix = f"tilec:{self.tag}:{kind_}:"
            for name in r.scan_iter(match=prefix + "*", count=500):
                key = name.decode()[len(prefix):]
                if not key.endswith(":lock"):
                    found.append((kind_, key, r.strlen(name)))
        return sorted(found)

    def clear(self) -> int:
        """Delete this compiler's entries (and locks); how many entries there were."""
        r = self._redis()
        entries = 0
        for name in list(r.scan_iter(match=f"tilec:{self.tag}:*", count=500)):
            entries += not name.endswith(b":lock")
            r.delete(name)
        return entries

    def status(self) -> dict:
        """The server's state, as `tilec cache remote status` prints it; raises its errors."""
        r = self._redis()
        info = r.info()
        return {"url": self.shown, "server": info.get("redis_version"),
                "used_memory": info.get("used_memory_human"), "tag": self.tag,
                "entries": len(self.keys()), "timeout": self.timeout}


def _delete_if(r, name: str, value: bytes) -> None:
    """Delete `name` if it still holds `value` (WATCH makes it atomic)."""
    with r.pipeline() as pipe:
        try:
            pipe.watch(name)
            if pipe.get(name) == value:
                pipe.multi()
                pipe.delete(name)
                pipe.execute()
        except Exception as err:  # noqa: BLE001
            if type(err).__name__ != "WatchError":  # changed meanwhile: leave the new value
                raise


def _scrubbed(message: str, url: str) -> str:
    try:
        password = urllib.parse.urlsplit(url).password
    except ValueError:
        password = None
    for secret in (password, os.environ.get("REDIS_PASSWORD")):
        if secret:
            message = message.replace(secret, "***")
            message = message.replace(urllib.parse.quote(secret), "***")
    return message


def _timeout() -> float:
    try:
        value = float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT))
        return value if 0 < value <= 60 else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT


_BACKENDS: dict[str, RemoteCache] = {}


def backend(versions: Callable[[], Mapping[str, str]]) -> RemoteCache | None:
    """The remote level named by TILEC_REMOTE_CACHE (one per URL and process), or None;
    `versions()` names the compiler whose entries it holds (compiler.compiler_versions)."""
    url = os.environ.get(ENV, "").strip()
    if not url:
        return None
    cache = _BACKENDS.get(url)
    if cache is None:
        scheme = url.split(":", 1)[0].lower()
        cache = _BACKENDS[url] = RemoteCache(url, versions)
        if scheme not in ("redis", "rediss"):
            cache._fault("configuration", ValueError(
                f"{ENV} must be a redis:// or rediss:// URL"))
            cache._resting_until = float("inf")
        elif importlib.util.find_spec("redis") is None:
            cache._fault("configuration", ImportError(
                "the redis client library is not installed (pip install redis)"))
            cache._resting_until = float("inf")
    return cache
