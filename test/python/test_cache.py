"""The on-disk kernel cache: round trips, every kind of corruption, atomicity under concurrent use,
leftovers of dead writers, read-only caches, and what the compiler does with all of these."""
import errno
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tilec
from tilec.cache import MANIFEST, KernelCache, cache_dir, make_key

VERSIONS = {"tilec": "0.1.0", "python": "3.11.7", "mlir": "20.0", "ptxas": "13.0"}
KEY = make_key("def add(x, y): ...", b"\x01spec", versions=VERSIONS)
FILES = {"cubin": b"\x7fELF" + bytes(range(256)) * 40, "ptx": b".version 8.0\n.target sm_90a\n",
         "metadata.json": b'{"name": "add", "num_warps": 4}'}


@pytest.fixture
def cache(tmp_path):
    return KernelCache(tmp_path / "cache")


def entry_dir(cache, key=KEY) -> Path:
    return cache.root / key[:2] / key


def leftovers(cache) -> list[str]:
    """Temp and trash directories still on disk."""
    return sorted(p.name for p in cache.root.glob("*/.*"))


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped (pids are handed out in turn, so it
    is not reused within a test)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    with pytest.raises(ProcessLookupError):
        os.kill(child.pid, 0)
    return child.pid


def same_shard_key(key=KEY) -> str:
    """Another key whose entry lives in the same shard directory as ``key``'s."""
    return next(k for k in (make_key(str(i), versions=VERSIONS) for i in range(10_000))
                if k[:2] == key[:2] and k != key)


# --- basics ----------------------------------------------------------------------------------------

def test_round_trip(cache):
    cache.put(KEY, FILES)
    assert cache.get(KEY) == FILES
    assert KernelCache(cache.root).get(KEY) == FILES  # a fresh instance reads the same disk
    assert cache.keys() == [KEY]
    assert cache.size() > sum(map(len, FILES.values()))
    assert sorted(os.listdir(entry_dir(cache))) == sorted([*FILES, MANIFEST])
    assert leftovers(cache) == []


def test_absent_key(cache):
    assert cache.get(KEY) is None  # the root does not even exist yet
    cache.put(KEY, FILES)
    other = make_key("other", versions=VERSIONS)
    assert cache.get(other) is None
    assert cache.keys() == [KEY]


def test_put_keeps_an_existing_entry(cache):
    cache.put(KEY, FILES)
    cache.put(KEY, {"cubin": b"second"})  # equal keys mean equal contents: the first one stays
    assert cache.get(KEY) == FILES


def test_empty_entry_round_trips(cache):
    cache.put(KEY, {})
    assert cache.get(KEY) == {}


def test_remove_clear_size_keys(cache):
    keys = [make_key(str(i), versions=VERSIONS) for i in range(5)]
    for k in keys:
        cache.put(k, FILES)
    assert cache.keys() == sorted(keys)
    assert cache.remove(keys[0]) is True
    assert cache.remove(keys[0]) is False
    assert cache.get(keys[0]) is None
    assert cache.keys() == sorted(keys[1:])
    (entry_dir(cache, keys[1]).parent / f".tmp-{dead_pid()}-crashed").mkdir()  # a writer that died
    cache.clear()
    assert cache.keys() == [] and cache.size() == 0
    assert not any(cache.root.iterdir())
    cache.put(keys[2], FILES)
    assert cache.get(keys[2]) == FILES


@pytest.mark.parametrize("key", ["", "ab", "../../etc", "ABCDEF0123", "g" * 64, KEY + "/x", None])
def test_bad_keys_are_refused(cache, key):
    with pytest.raises(ValueError):
        cache.get(key)
    with pytest.raises(ValueError):
        cache.put(key, FILES)


@pytest.mark.parametrize("name", ["", MANIFEST, ".hidden", "a/b", "../x", "a\\b"])
def test_bad_file_names_are_refused(cache, name):
    with pytest.raises(ValueError):
        cache.put(KEY, {name: b"x"})
    assert not entry_dir(cache).exists()


def test_make_key():
    reordered = dict(reversed(VERSIONS.items()))
    assert make_key("a", b"b", versions=VERSIONS) == make_key("a", b"b", versions=reordered)
    assert len(make_key(versions={})) == 64
    different = {
        make_key("ab", "c", versions=VERSIONS),
        make_key("a", "bc", versions=VERSIONS),
        make_key("abc", versions=VERSIONS),
        make_key(b"ab", "c", versions=VERSIONS),  # bytes and str hash apart
        make_key("ab", "c", versions={**VERSIONS, "ptxas": "13.1"}),
        make_key("ab", "c", versions={**VERSIONS, "tilec": "0.2.0"}),
    }
    assert len(different) == 6
    with pytest.raises(TypeError):
        make_key(1, versions=VERSIONS)


def test_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "here"))
    assert cache_dir() == tmp_path / "here"
    KernelCache().put(KEY, FILES)
    assert (tmp_path / "here" / KEY[:2] / KEY / "cubin").read_bytes() == FILES["cubin"]
    assert KernelCache().get(KEY) == FILES
    monkeypatch.delenv("TILEC_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "tilec"
    assert KernelCache().root == tmp_path / "home" / ".cache" / "tilec"


# --- corruption ------------------------------------------------------------------------------------

def flip_byte(d: Path):
    data = bytearray((d / "cubin").read_bytes())
    data[len(data) // 2] ^= 0x01
    (d / "cubin").write_bytes(bytes(data))


def truncate(d: Path):
    data = (d / "cubin").read_bytes()
    (d / "cubin").write_bytes(data[: len(data) // 2])


def truncate_to_zero(d: Path):  # what a power loss without fsync can leave
    (d / "ptx").write_bytes(b"")


def delete_file(d: Path):
    (d / "metadata.json").unlink()


def delete_manifest(d: Path):
    (d / MANIFEST).unlink()


def garbage_manifest(d: Path):
    (d / MANIFEST).write_bytes(b"\x00\xff not json")


def truncated_manifest(d: Path):
    text = (d / MANIFEST).read_bytes()
    (d / MANIFEST).write_bytes(text[: len(text) // 2])


def wrong_shape_manifest(d: Path):
    (d / MANIFEST).write_text(json.dumps(["files", 1]))


def manifest_for_other_key(d: Path):
    manifest = json.loads((d / MANIFEST).read_text())
    manifest["key"] = "0" * 64
    (d / MANIFEST).write_text(json.dumps(manifest))


def extra_file(d: Path):
    (d / "stray").write_bytes(b"?")


def empty_directory(d: Path):  # a crash between mkdir and the first write, with a non-atomic writer
    for p in d.iterdir():
        p.unlink()


def file_instead_of_directory(d: Path):
    for p in d.iterdir():
        p.unlink()
    d.rmdir()
    d.write_bytes(b"junk")


CORRUPTIONS = [flip_byte, truncate, truncate_to_zero, delete_file, delete_manifest, garbage_manifest,
               truncated_manifest, wrong_shape_manifest, manifest_for_other_key, extra_file,
               empty_directory, file_instead_of_directory]


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_corrupt_entry_is_discarded_then_rebuilt(cache, corrupt):
    cache.put(KEY, FILES)
    corrupt(entry_dir(cache))
    assert cache.get(KEY) is None
    assert not os.path.lexists(entry_dir(cache))  # discarded, not left to fail again
    assert cache.get(KEY) is None
    cache.put(KEY, FILES)
    assert cache.get(KEY) == FILES
    assert leftovers(cache) == []


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_put_over_corrupt_entry_replaces_it(cache, corrupt):
    # The compiler may put without a get first (or after another process corrupted the entry).
    cache.put(KEY, FILES)
    corrupt(entry_dir(cache))
    cache.put(KEY, FILES)
    assert cache.get(KEY) == FILES
    assert leftovers(cache) == []


def test_a_corrupt_read_keeps_the_entry_that_replaced_it(cache, monkeypatch):
    # A reader finds the entry corrupt (here: truncated; in the racing-writers test below, read
    # while a writer removed it) and, before it discards it, a writer replaces it with a valid
    # entry. The reader must discard only what it read, not the writer's entry.
    import tilec.cache as cache_module
    cache.put(KEY, FILES)
    truncate(entry_dir(cache))
    read = cache_module._read_verified

    def read_then_replaced(path, key):
        found = read(path, key)
        cache.remove(KEY)
        cache.put(KEY, FILES)
        return found
    monkeypatch.setattr(cache_module, "_read_verified", read_then_replaced)
    assert cache.get(KEY) is None  # what it read was corrupt
    monkeypatch.setattr(cache_module, "_read_verified", read)
    assert cache.get(KEY) == FILES
    assert leftovers(cache) == []


# --- concurrency -----------------------------------------------------------------------------------
# Workers live at module level so that spawned processes can import them.

def _put_same(root: str, barrier, files: dict) -> None:
    cache = KernelCache(Path(root))
    barrier.wait()
    for _ in range(5):
        cache.put(KEY, files)
        assert cache.get(KEY) == files


def _rewrite(root: str, barrier, files: dict, seconds: float) -> None:
    cache = KernelCache(Path(root))
    barrier.wait()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        cache.remove(KEY)
        cache.put(KEY, files)
    cache.put(KEY, files)


def run_all(target, argsets) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=target, args=args) for args in argsets]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=30)
    assert [p.exitcode for p in procs] == [0] * len(procs)


def test_concurrent_puts_of_the_same_key_all_succeed(cache):
    files = {"cubin": os.urandom(1 << 20), "ptx": b"x" * 50_000, "metadata.json": b"{}"}
    n = 4
    barrier = multiprocessing.get_context("spawn").Barrier(n)
    run_all(_put_same, [(str(cache.root), barrier, files)] * n)
    assert cache.get(KEY) == files
    assert cache.keys() == [KEY]
    assert leftovers(cache) == []


def test_reader_racing_writers_never_sees_a_partial_entry(cache):
    # Writers keep removing and re-putting the key, each with its own contents of a different
    # size and file set, while this process reads it in a loop.
    contents = [{"cubin": os.urandom(300_000 + 50_000 * i), "ptx": bytes([i]) * 20_000,
                 **({"metadata.json": b'{"w": %d}' % i} if i % 2 else {})} for i in range(3)]
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(len(contents) + 1)
    seconds = 1.5
    procs = [ctx.Process(target=_rewrite, args=(str(cache.root), barrier, files, seconds))
             for files in contents]
    for p in procs:
        p.start()
    barrier.wait()  # everyone starts together, after the slow spawn
    deadline = time.monotonic() + seconds
    reads = hits = 0
    while time.monotonic() < deadline or reads < 300:
        got = cache.get(KEY)
        reads += 1
        if got is not None:
            hits += 1
            assert got in contents, "reader saw an entry no writer wrote"
    for p in procs:
        p.join(timeout=30)
    assert [p.exitcode for p in procs] == [0] * len(procs)
    assert reads >= 300
    assert hits > 0, "the race never produced a readable entry: the test exercised nothing"
    assert cache.get(KEY) in contents  # every writer ends with a put
    assert cache.keys() == [KEY]
    assert leftovers(cache) == []


# --- leftovers of writers that died ----------------------------------------------------------------

def _die_mid_put(root: str) -> None:
    # A kill -9 after the first file is written: the temp dir stays behind.
    import pathlib
    def write_bytes(self, data):
        os.kill(os.getpid(), signal.SIGKILL)
    pathlib.Path.write_bytes = write_bytes
    KernelCache(Path(root)).put(KEY, FILES)


def test_put_removes_the_temp_dir_of_a_writer_killed_mid_put(cache):
    proc = multiprocessing.get_context("spawn").Process(target=_die_mid_put, args=(str(cache.root),))
    proc.start()
    proc.join(timeout=30)
    assert proc.exitcode == -signal.SIGKILL
    assert leftovers(cache) and all(n.startswith(f".tmp-{proc.pid}-") for n in leftovers(cache))
    assert cache.keys() == []
    other = same_shard_key()
    cache.put(other, FILES)  # a later put into the same shard sweeps it
    assert leftovers(cache) == []
    assert cache.get(other) == FILES and cache.keys() == [other]


@pytest.fixture
def live_pid():
    """The pid of another process that is still running."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child.pid
    child.kill()
    child.wait()


def plant_leftovers(cache, live_pid) -> dict[str, Path]:
    """Temp and trash leftovers in KEY's shard, by what should become of them."""
    shard = entry_dir(cache).parent
    shard.mkdir(parents=True, exist_ok=True)
    dead = dead_pid()
    planted = {
        "dead_temp": shard / f".tmp-{dead}-x1y2z3",
        "dead_trash": shard / f".trash-{dead}-0123456789abcdef",
        "dead_trash_file": shard / f".trash-{dead}-fedcba9876543210",  # a discarded stray file
        "old_live_temp": shard / f".tmp-{live_pid}-old",  # a writer stuck for two hours
        "live_temp": shard / f".tmp-{live_pid}-busy",
        "own_temp": shard / f".tmp-{os.getpid()}-busy",  # another thread of this process
        "live_trash": shard / f".trash-{live_pid}-00ff00ff00ff00ff",
        "unnamed_temp": shard / ".tmp-noname",  # no pid to go by: only its age counts
    }
    for name, path in planted.items():
        if name == "dead_trash_file":
            path.write_bytes(b"stray")
        else:
            path.mkdir()
            (path / "cubin").write_bytes(b"half written")
    two_hours_ago = time.time() - 2 * 3600
    os.utime(planted["old_live_temp"], (two_hours_ago, two_hours_ago))
    return planted


STALE = ["dead_temp", "dead_trash", "dead_trash_file", "old_live_temp"]
LIVE = ["live_temp", "own_temp", "live_trash", "unnamed_temp"]


def test_put_sweeps_stale_leftovers_of_its_shard_and_keeps_live_ones(cache, live_pid):
    planted = plant_leftovers(cache, live_pid)
    cache.put(same_shard_key(), FILES)
    assert leftovers(cache) == sorted(planted[n].name for n in LIVE)
    assert (planted["live_temp"] / "cubin").read_bytes() == b"half written"


def test_clear_sweeps_stale_leftovers_and_keeps_live_ones(cache, live_pid):
    cache.put(KEY, FILES)
    cache.put(make_key("other", versions=VERSIONS), FILES)
    planted = plant_leftovers(cache, live_pid)
    cache.clear()
    assert cache.keys() == []
    assert leftovers(cache) == sorted(planted[n].name for n in LIVE)
    # Once the writers are gone, a clear leaves nothing.
    for name in LIVE:
        old = time.time() - 2 * 3600
        os.utime(planted[name], (old, old))
    cache.clear()
    assert not cache.root.exists() or not any(cache.root.iterdir())


# --- read-only caches ------------------------------------------------------------------------------

@pytest.fixture
def make_read_only(monkeypatch):
    """make_read_only(root): nothing under ``root`` can be created, renamed or deleted.

    chmod does that for an ordinary user, but root (as the tests may run) ignores permission
    bits, so the os calls the cache writes with also fail under ``root`` as a read-only directory
    makes them fail.
    """
    made = []

    def make(root: Path):
        root = Path(os.path.abspath(root))

        def under_root(path) -> bool:
            path = os.path.abspath(os.fspath(path))
            return path == str(root) or path.startswith(str(root) + os.sep)

        def refuse(real):
            def call(path, *args, **kwargs):
                if "dir_fd" not in kwargs and under_root(path):
                    raise PermissionError(errno.EACCES, "Permission denied (read-only test)",
                                          os.fspath(path))
                return real(path, *args, **kwargs)
            return call

        for name in ("rename", "replace", "mkdir", "rmdir", "unlink"):
            monkeypatch.setattr(os, name, refuse(getattr(os, name)))
        for dirpath, _dirnames, _filenames in os.walk(root):
            os.chmod(dirpath, 0o555)
            made.append(dirpath)

    yield make
    for dirpath in made:
        os.chmod(dirpath, 0o755)  # so that tmp_path can be cleaned up


def test_read_only_cache_reports_a_corrupt_entry_as_a_miss(cache, make_read_only):
    cache.put(KEY, FILES)
    flip_byte(entry_dir(cache))
    make_read_only(cache.root)
    assert cache.get(KEY) is None  # cannot be discarded, but it is still not returned
    assert cache.get(KEY) is None
    assert os.path.isdir(entry_dir(cache))
    with pytest.raises(OSError):
        cache.put(KEY, FILES)  # documented; the compiler ignores it
    assert cache.get(KEY) is None


# --- the compiler's use of the cache ---------------------------------------------------------------

SIGNATURE = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32:16"}


def compile_binary():
    import gpu_kernels
    return tilec.compile(gpu_kernels.binary, signature=SIGNATURE,
                         constexprs={"OP": "add", "BLOCK": 1024})


@pytest.fixture
def compiler_cache(tmp_path, monkeypatch):
    """A private, enabled kernel cache for the compiler (KernelCache() is it)."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "compiler-cache"))
    monkeypatch.delenv("TILEC_CACHE", raising=False)
    monkeypatch.delenv("TILEC_DUMP_IR", raising=False)
    return KernelCache()


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The kernel compile_binary() gives, its cache key and its cache entry, compiled once."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("reference-cache")))
        patch.delenv("TILEC_CACHE", raising=False)
        patch.delenv("TILEC_DUMP_IR", raising=False)
        kernel = compile_binary()
        (key,) = KernelCache().keys()
        return kernel, key, KernelCache().get(key)


def test_compiler_goes_on_in_memory_with_a_read_only_cache(compiler_cache, compiled,
                                                           make_read_only):
    kernel, key, files = compiled
    compiler_cache.put(key, files)
    cubin = compiler_cache.path(key) / "kernel.cubin"
    flipped = bytearray(cubin.read_bytes())
    flipped[100] ^= 0xFF
    cubin.write_bytes(bytes(flipped))
    make_read_only(compiler_cache.root)
    again = compile_binary()  # neither the corrupt get nor the failing put may raise
    assert again.asm == kernel.asm  # compiled again, not the flipped bytes
    assert again.metadata == kernel.metadata
    assert cubin.read_bytes() == flipped  # still there: nothing could remove it


def metadata_list(m):
    return list(m)


def metadata_shared_lots(m):
    return {**m, "shared": "lots"}


def metadata_without_registers(m):
    return {k: v for k, v in m.items() if k != "registers"}


def metadata_bool_num_warps(m):
    return {**m, "num_warps": True}


def metadata_float_spills(m):
    return {**m, "spill_stores": 0.0}


def metadata_name_null(m):
    return {**m, "name": None}


def metadata_not_json(m):
    return b"\xff{not json"


@pytest.mark.parametrize("bad_metadata", [
    metadata_list, metadata_shared_lots, metadata_without_registers, metadata_bool_num_warps,
    metadata_float_spills, metadata_name_null, metadata_not_json], ids=lambda f: f.__name__)
def test_entry_with_wrong_metadata_is_recompiled_and_replaced(compiler_cache, compiled,
                                                              bad_metadata):
    kernel, key, files = compiled
    bad = bad_metadata(json.loads(files["metadata.json"]))
    planted = dict(files, **{"metadata.json": bad if isinstance(bad, bytes)
                             else json.dumps(bad).encode()})
    compiler_cache.put(key, planted)
    assert compiler_cache.get(key) == planted  # the checksums are good: only the shape is wrong
    again = compile_binary()
    assert again.metadata == kernel.metadata
    assert again.asm == kernel.asm
    assert compiler_cache.get(key) == files  # the bad entry was replaced by a good one
    assert compile_binary().metadata == kernel.metadata  # and that one is served


def test_entry_missing_a_file_is_recompiled_and_replaced(compiler_cache, compiled):
    kernel, key, files = compiled
    planted = {name: data for name, data in files.items() if name != "kernel.ptx"}
    compiler_cache.put(key, planted)  # a valid entry, only not one the compiler wrote
    again = compile_binary()
    assert again.asm == kernel.asm
    assert compiler_cache.get(key) == files
