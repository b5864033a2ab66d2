"""A fleet sharing one Redis server: what a second host saves running the autotuned matmul.

    python bench/remote_cache.py [--url redis://127.0.0.1:6379/0 | --redis-server PATH]
                                 [--sizes 512,1024,2048,4096] [--out DIR]

Runs tutorials/03-matrix-multiplication.py's `matmul` (autotuned over its 5 configs) on square
fp16 matrices of each size, in fresh processes standing for hosts: each has its own empty local
cache (TILEC_CACHE_DIR) and all share the remote level (TILEC_REMOTE_CACHE). Host 1 compiles
and tunes everything and fills the server; host 2 starts from an empty local cache too and
finds it all on the server; host 3 is host 2 run again (its local level filled). For each the
table gives the wall time of the process, of the matmul calls (compiling and tuning included)
and the cache events TILEC_PRINT_CACHE=1 logged: local and remote hits, misses and compiles of
kernels, hits and misses of tuning results. The hit rate is the hits over all lookups. With
--redis-server the script starts that binary on a free loopback port (and stops it after);
without either option, the server must be at the default URL. Writes remote_cache.json into
--out.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HOST = r'''
import importlib.util, sys, time
import cupy
spec = importlib.util.spec_from_file_location("mm", sys.argv[1])
mm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mm)
started = time.perf_counter()
for n in map(int, sys.argv[2].split(",")):
    a = cupy.random.standard_normal((n, n), dtype=cupy.float32).astype(cupy.float16)
    b = cupy.random.standard_normal((n, n), dtype=cupy.float32).astype(cupy.float16)
    c = mm.matmul(a, b)
    ref = a.astype(cupy.float32) @ b.astype(cupy.float32)
    err = float(cupy.abs(c.astype(cupy.float32) - ref).max() / cupy.abs(ref).max())
    assert err < 1e-2, (n, err)
cupy.cuda.runtime.deviceSynchronize()
print("calls_s", time.perf_counter() - started)
'''

EVENTS = {"kernel local hit": r"local hit (?!autotune)",
          "kernel remote hit": r"remote hit (?!autotune)", "kernel compiled": r"compiled ", "tuning local hit": r"local hit autotune",
          "tuning remote hit": r"remote hit autotune", "tuning miss": r"miss autotune"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(binary: str, folder: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("redis-server did not start")


def run_host(url: str, cache: Path, sizes: str, script: Path) -> dict:
    env = {**os.environ, "TILEC_CACHE_DIR": str(cache), "TILEC_REMOTE_CACHE": url,
           "TILEC_PRINT_CACHE": "1"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(script),
                           str(ROOT / "tutorials" / "03-matrix-multiplication.py"), sizes],
                          env=env, capture_output=True, text=True, timeout=1200)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"host failed (exit {done.returncode})")
    if "unavailable" in done.stderr:
        raise SystemExit("the remote cache was unavailable:\n" + done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.startswith("tilec cache: ")]
    counts = {name: sum(bool(re.search(pattern, line)) for line in lines)
              for name, pattern in EVENTS.items()}
    kernel_lookups = sum(bool(re.search(r"(hit|miss) (?!autotune)", line)) for line in lines)
    tuning_lookups = (counts["tuning local hit"] + counts["tuning remote hit"]
                      + counts["tuning miss"])
    hits = (counts["kernel local hit"] + counts["kernel remote hit"] + counts["tuning local hit"]
            + counts["tuning remote hit"])
    lookups = kernel_lookups + tuning_lookups
    calls = float(re.search(r"calls_s (\S+)", done.stdout).group(1))
    return {"wall_s": wall, "calls_s": calls, **counts, "lookups": lookups,
            "hit_rate": hits / lookups if lookups else 0.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--redis-server", help="start this redis-server binary for the run")
    parser.add_argument("--sizes", default="512,1024,2048,4096")
    parser.add_argument("--out", default=".")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tilec-fleet-"))
    server = None
    try:
        url = args.url
        if args.redis_server:
            server, url = start_server(args.redis_server, work)
        script = work / "host.py"
        script.write_text(HOST)
        hosts = [("host 1 (cold)", work / "host1"), ("host 2 (new, shared server)", work / "host2"),
                 ("host 2 again (local)", work / "host2")]
        results = []
        for name, cache in hosts:
            results.append({"host": name, **run_host(url, cache, args.sizes, script)})
    finally:
        if server is not None:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)
    header = ("host", "wall_s", "calls_s", "kernel compiled", "kernel remote hit",
              "kernel local hit", "tuning miss", "tuning remote hit", "tuning local hit",
              "hit_rate")
    print(f"autotuned matmul tutorial, sizes {args.sizes}, fp16, one Redis server")
    print("  ".join(f"{h:>18}" if i else f"{h:<28}" for i, h in enumerate(header)))
    for r in results:
        cells = [f"{r['host']:<28}"] + [
            f"{r[h]:>18.2f}" if isinstance(r[h], float) else f"{r[h]:>18}" for h in header[1:]]
        print("  ".join(cells))
    saved = results[0]["wall_s"] - results[1]["wall_s"]
    print(f"host 2 saved {saved:.1f} s of {results[0]['wall_s']:.1f} s "
          f"({saved / results[0]['wall_s']:.0%}); its hit rate {results[1]['hit_rate']:.0%}")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "remote_cache.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
