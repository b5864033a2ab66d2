"""The remote cache level (TILEC_REMOTE_CACHE, remote_cache.py) against a real redis-server:
hosts (processes with separate local caches) sharing compiled kernels and autotuning results,
16 processes compiling overlapping kernel sets, a server killed mid-run, slow or refusing the
credentials, corrupted and planted values, and `tilec cache remote`.

The server is the OS's `redis-server`, started on a free loopback port per test. Where it is not
installed the tests skip, unless TILEC_REQUIRE_REDIS=1 (as .ci/run sets): then they fail."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tilec import remote_cache
from tilec.cache import KernelCache

if os.environ.get("TILEC_REQUIRE_REDIS"):
    import redis
else:
    redis = pytest.importorskip("redis")

# One kernel, a different cache key per BLOCK: `compile.py DIR BLOCK...` compiles each to a
# cubin (no GPU needed) and prints the cubin's size per BLOCK.
COMPILE = textwrap.dedent('''
    import sys
    import numpy as np
    import tilec, tilec.language as tl
    from tilec import runtime
    from tilec.compiler import CompileOptions, compile_specialized

    @tilec.jit
    def shifted(x, y, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y + o, tl.load(x + o, mask=o < n) + 1, mask=o < n)

    ptr = runtime.specialize_argument(np.zeros(4, np.float32))
    for block in sys.argv[1:]:
        if block.startswith("kill="):
            import os, signal
            os.kill(int(block[5:]), signal.SIGKILL)
            continue
        kernel = compile_specialized(
            shifted, (ptr, ptr, runtime.specialize_argument(7), ("constexpr", int(block))),
            CompileOptions())
        assert kernel.asm["cubin"][:4] == b"\\x7fELF"
        print(block, len(kernel.asm["cubin"]))
''')

TUNE = textwrap.dedent('''
    import sys
    from tilec import autotune_store
    configs = ["BLOCK: 64", "BLOCK: 128"]
    key = autotune_store.record_key("k" * 64, ("n", 4096), configs, "H200")
    if sys.argv[1] == "store":
        autotune_store.store(key, configs, autotune_store.TuningRecord(1, [[0.5], [0.25]]),
                             {"kernel": "k"})
    record = autotune_store.load(key, configs)
    print(None if record is None else record.best)
''')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, tmp: Path, password: str | None = None):
        binary = shutil.which("redis-server")
        if binary is None:
            message = "redis-server is not installed (apt-get install redis-server)"
            if os.environ.get("TILEC_REQUIRE_REDIS"):
                pytest.fail(message)
            pytest.skip(message)
        tmp.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", str(tmp)]
        if password:
            args += ["--requirepass", password]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from redis.backoff import NoBackoff
        from redis.retry import Retry
        self.client = redis.Redis(port=self.port, password=password, socket_timeout=5,
                                  socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
        deadline = time.monotonic() + 20
        while True:
            try:
                self.client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    pytest.fail("redis-server did not start")
                time.sleep(0.02)
        auth = f":{password}@" if password else ""
        self.url = f"redis://{auth}127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    yield s
    s.stop()


def run(tmp_path, script: str, args, *, url: str, host: str, env=None, check=True):
    """`script` in a fresh process with its own local cache (`host`) and the remote level;
    (stdout, stderr)."""
    path = tmp_path / ("compile.py" if script is COMPILE else "tune.py")
    path.write_text(script)
    environment = {**os.environ, "TILEC_CACHE_DIR": str(tmp_path / host),
                   "TILEC_REMOTE_CACHE": url, "TILEC_PRINT_CACHE": "1", **(env or {})}
    done = subprocess.run([sys.executable, str(path), *map(str, args)], env=environment,
                          capture_output=True, text=True, timeout=300)
    if check:
        assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def events(stderr: str, what: str) -> list[str]:
    """The cache keys `tilec cache: <what> <name> <key>` lines name."""
    return re.findall(rf"tilec cache: {what} \S+ ([0-9a-f]{{16}})", stderr)


def test_two_hosts_share_compiled_kernels_and_tuning_results(server, tmp_path):
    built, first = run(tmp_path, COMPILE, [64, 128], url=server.url, host="a")
    assert len(events(first, "compiled")) == 2 and not events(first, "remote hit")
    fetched, second = run(tmp_path, COMPILE, [64, 128], url=server.url, host="b")
    assert events(second, "remote hit") == events(first, "compiled")
    assert not events(second, "compiled") and fetched == built  # the same cubins
    # The second host's local level was filled: it needs the server no more.
    server.stop()
    _, third = run(tmp_path, COMPILE, [64, 128], url=server.url, host="b")
    assert events(third, "local hit") == events(first, "compiled")
    assert "unavailable" not in third

    tuned = Server(tmp_path / "t")
    try:
        out, log = run(tmp_path, TUNE, ["store"], url=tuned.url, host="c")
        assert out.strip() == "1" and "local hit autotune" in log
        out, log = run(tmp_path, TUNE, ["load"], url=tuned.url, host="d")
        assert out.strip() == "1" and "remote hit autotune" in log
        out, log = run(tmp_path, TUNE, ["load"], url=tuned.url, host="d")
        assert "local hit autotune" in log
    finally:
        tuned.stop()


def test_sixteen_processes_compile_overlapping_kernels_each_about_once(server, tmp_path):
    """16 hosts at once, each compiling 4 of 8 kernels (every kernel wanted by 8 of them):
    no errors, every kernel compiled at most a handful of times (the compile lock makes it
    once unless a holder's lock outlived it)."""
    sets = [[32 << (i + j) % 8 for j in range(4)] for i in range(16)]
    script = tmp_path / "compile.py"
    script.write_text(COMPILE)
    procs = []
    for i, blocks in enumerate(sets):
        env = {**os.environ, "TILEC_CACHE_DIR": str(tmp_path / f"host{i}"),
               "TILEC_REMOTE_CACHE": server.url, "TILEC_PRINT_CACHE": "1"}
        procs.append(subprocess.Popen([sys.executable, str(script), *map(str, blocks)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    compiled: dict[str, int] = {}
    hits = 0
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert len(out.split("\n")) == 5 and "unavailable" not in err
        for key in events(err, "compiled"):
            compiled[key] = compiled.get(key, 0) + 1
        hits += len(events(err, "remote hit"))
    assert len(compiled) == 8 and max(compiled.values()) <= 3, compiled
    assert hits + sum(compiled.values()) == 64


def test_a_server_killed_mid_run_costs_no_compile_and_no_local_entry(server, tmp_path):
    started = time.perf_counter()
    out, err = run(tmp_path, COMPILE, [64, f"kill={server.proc.pid}", 128, 256],
                   url=server.url, host="a")
    assert [line.split()[0] for line in out.splitlines()] == ["64", "128", "256"]
    assert err.count("unavailable") == 1 and len(events(err, "compiled")) == 3
    assert len(KernelCache(tmp_path / "a").keys()) == 3
    assert time.perf_counter() - started < 60


def test_a_server_that_never_answers_is_given_a_bounded_time(tmp_path):
    """A listener that accepts and never replies: the first request times out (0.25 s by
    default), the level rests, and the compile goes on locally."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                pass
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        url = f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
        run(tmp_path, COMPILE, [64], url="", host="warm")  # the compile's own time, for scale
        started = time.perf_counter()
        _, quiet = run(tmp_path, COMPILE, [64], url="", host="plain")
        plain = time.perf_counter() - started
        started = time.perf_counter()
        _, err = run(tmp_path, COMPILE, [64, 128], url=url, host="a")
        slow = time.perf_counter() - started
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        listener.close()
    assert err.count("unavailable") == 1 and "Timeout" in err
    assert len(events(err, "compiled")) == 2
    assert slow < 2 * plain + 2.0, (slow, plain)


def test_a_wrong_password_is_refused_without_showing_it(tmp_path):
    guarded = Server(tmp_path, password="right-secret")
    try:
        wrong = guarded.url.replace("right-secret", "wrong-secret")
        _, err = run(tmp_path, COMPILE, [64], url=wrong, host="a")
        assert err.count("unavailable") == 1 and "AuthenticationError" in err
        assert "wrong-secret" not in err and ":***@" in err
        assert len(events(err, "compiled")) == 1 and not guarded.client.keys("tilec:*")
        _, err = run(tmp_path, COMPILE, [64], url=guarded.url, host="b")
        assert "unavailable" not in err and len(guarded.client.keys("tilec:*:kernel:*")) == 1
        # The password may come from the environment instead of the URL.
        bare = guarded.url.replace(":right-secret@", "")
        _, err = run(tmp_path, COMPILE, [64], url=bare, host="c",
                     env={"REDIS_PASSWORD": "right-secret"})
        assert events(err, "remote hit") and "right-secret" not in err
    finally:
        guarded.stop()


def _only_entry(server) -> tuple[bytes, bytes]:
    (name,) = server.client.keys("tilec:*:kernel:*")
    return name, server.client.get(name)


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage", "other-key", "pickle"])
def test_a_corrupt_or_planted_remote_entry_is_rebuilt_never_loaded(server, tmp_path, damage):
    _, err = run(tmp_path, COMPILE, [64], url=server.url, host="a")
    name, good = _only_entry(server)
    if damage == "flip":
        bad = good[:-100] + bytes([good[-100] ^ 1]) + good[-99:]
    elif damage == "truncate":
        bad = good[:len(good) // 2]
    elif damage == "garbage":
        bad = os.urandom(len(good))
    elif damage == "other-key":  # a valid entry of another kernel, planted under this key
        run(tmp_path, COMPILE, [128], url=server.url, host="other")
        other = [n for n in server.client.keys("tilec:*:kernel:*") if n != name][0]
        bad = server.client.get(other)
    else:  # something that would run code if it were unpickled
        import pickle
        bad = pickle.dumps(type("Boom", (), {"__reduce__": lambda s: (os.system,
                                                                      ("touch pwned",))})())
    server.client.set(name, bad)
    _, err = run(tmp_path, COMPILE, [64], url=server.url, host="b")
    assert "corrupt" in err and events(err, "compiled") and not events(err, "remote hit")
    assert not (tmp_path / "pwned").exists()
    assert server.client.get(name) == good  # rebuilt and put back whole
    _, err = run(tmp_path, COMPILE, [64], url=server.url, host="c")
    assert events(err, "remote hit")


def test_a_corrupt_remote_tuning_result_is_ignored(server, tmp_path):
    run(tmp_path, TUNE, ["store"], url=server.url, host="a")
    (name,) = server.client.keys("tilec:*:autotune:*")
    value = server.client.get(name)
    server.client.set(name, value.replace(b'"best": 1', b'"best": 0'))  # checksum now wrong
    out, err = run(tmp_path, TUNE, ["load"], url=server.url, host="b")
    assert out.strip() == "None" and "corrupt" in err


def test_the_cli_shows_lists_and_clears_this_compilers_remote_entries(server, tmp_path):
    run(tmp_path, COMPILE, [64, 128], url=server.url, host="a")
    run(tmp_path, TUNE, ["store"], url=server.url, host="a")
    server.client.set("tilec:0123456789abcdef:kernel:" + "a" * 64, b"another compiler's")
    env = {**os.environ, "TILEC_REMOTE_CACHE": server.url}

    def cli(*args):
        done = subprocess.run([sys.executable, "-m", "tilec.tools.tilec_cli", "cache", "remote",
                               *args], env=env, capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout, done.stderr
    rc, out, _ = cli("status")
    assert rc == 0 and "entries: 3" in out and f"127.0.0.1:{server.port}" in out
    rc, out, err = cli("list")
    assert rc == 0 and out.count(" kernel") == 2 and out.count(" autotune") == 1
    assert "3 entries" in err
    rc, out, _ = cli("clear")
    assert rc == 0 and "removed 3 entries" in out
    assert server.client.keys("tilec:*") == [b"tilec:0123456789abcdef:kernel:" + b"a" * 64]
    server.stop()
    rc, _, err = cli("status")
    assert rc == 1 and "unavailable" in err


def test_the_value_format_rejects_every_damage():
    files = {"kernel.cubin": b"\x7fELF" + bytes(range(200)), "metadata.json": b"{}"}
    value = remote_cache.encode("kernel", "ab" * 32, "t" * 16, files)
    assert remote_cache.decode(value, "kernel", "ab" * 32, "t" * 16) == files
    for cut in range(len(value)):
        assert remote_cache.decode(value[:cut], "kernel", "ab" * 32, "t" * 16) is None
    for at in range(0, len(value), 7):
        flipped = value[:at] + bytes([value[at] ^ 0x20]) + value[at + 1:]
        assert remote_cache.decode(flipped, "kernel", "ab" * 32, "t" * 16) is None, at
    assert remote_cache.decode(value + b"x", "kernel", "ab" * 32, "t" * 16) is None
    assert remote_cache.decode(value, "autotune", "ab" * 32, "t" * 16) is None
    assert remote_cache.decode(value, "kernel", "cd" * 32, "t" * 16) is None
    assert remote_cache.decode(value, "kernel", "ab" * 32, "u" * 16) is None


def test_urls_are_shown_without_their_password():
    assert remote_cache.redacted("redis://me:pa55@host:6379/2") == "redis://me:***@host:6379/2"
    assert remote_cache.redacted("rediss://:pa55@h:1/0") == "rediss://:***@h:1/0"
    assert remote_cache.redacted("redis://host:6379/0") == "redis://host:6379/0"


def test_no_remote_level_without_the_variable_and_a_clear_line_for_a_bad_url(monkeypatch,
                                                                               capsys):
    monkeypatch.delenv(remote_cache.ENV, raising=False)
    assert remote_cache.backend(dict) is None
    monkeypatch.setenv(remote_cache.ENV, "memcached://host:1/0")
    backend = remote_cache.backend(dict)
    assert backend is not None and not backend.available
    assert "redis:// or rediss://" in capsys.readouterr().err
    assert backend.get("kernel", "ab" * 32) is None
