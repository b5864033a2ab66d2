"""A fuzzer for tilec: mutated IR through tilec-opt, and random kernels through the compiler and
the interpreter.

    python test/fuzz/fuzz.py --inputs 1000 --seed 1 --jobs 2
    python test/fuzz/fuzz.py --inputs 200 --seed 7 --kernels-only
    python test/fuzz/fuzz.py --inputs 100000 --kernels 2000 --seed 1 --jobs 2 --time-limit 3600

`--inputs N` is the number of IR inputs (of kernels with --kernels-only); `--kernels K` the number
of kernels (default N // 50). Inputs are a function of (seed, index), run one at a time by
long-lived worker processes (this file with --worker) that call tilec-opt's main() and the
compiler in-process. A worker killed by a signal or silent past --timeout seconds is reported
with the input it was running, and restarted.

Properties (see ir_inputs.py and kernel_inputs.py): tilec-opt exits 0 with output that parses
again, or 1 with a diagnostic; a kernel compiles and interprets, or fails with a CompilationError
(or a tilec runtime error) naming its file and a line. Every failing input is saved under --out
(default a temp dir) with the command that reproduces it; failures are grouped by where in
tilec they come from.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import selectors
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

IR_OK = {"ok", "diagnostic"}
KERNEL_OK = {"ok", "diagnostic", "resources", "runtime-error", "launch-error"}
SAVE_PER_SIGNATURE = 3


# ---- the worker: one input at a time from stdin, one JSON line of result per input -------------

def worker_main() -> None:
    out = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # kernels' prints and stray C-level output go nowhere
    sys.dont_write_bytecode = True
    workdir = tempfile.mkdtemp(prefix="tilec-fuzz-worker-")
    os.environ["TILEC_CACHE"] = "0"
    os.environ["TILEC_REPRODUCER_DIR"] = os.path.join(workdir, "reproducers")
    os.environ.pop("TILEC_TRACEBACK", None)
    os.environ.pop("TILEC_INTERPRET", None)
    import ir_inputs
    import kernel_inputs
    import tilec.tools.tilec_opt  # noqa: F401  (import once, before the first input)
    out.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        task = json.loads(line)
        start = time.monotonic()
        if task["part"] == "ir":
            result = ir_inputs.run_input(task["seed"], task["index"], workdir)
        else:
            result = kernel_inputs.run_kernel(task["seed"], task["index"], workdir)
        result["seconds"] = time.monotonic() - start
        out.write(json.dumps(result) + "\n")


@dataclass
class Worker:
    proc: subprocess.Popen
    task: dict | None = None
    deadline: float = 0.0
    buffer: bytes = b""


def start_worker(log_dir: str, number: int) -> Worker:
    log = open(os.path.join(log_dir, f"worker-{number}.log"), "ab")
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                            start_new_session=True)
    return Worker(proc)


# ---- the parent ---------------------------------------------------------------------------------

@dataclass
class Summary:
    counts: dict = field(default_factory=lambda: collections.defaultdict(collections.Counter))
    failures: dict = field(default_factory=lambda: collections.defaultdict(list))  # sig -> saved
    ran: collections.Counter = field(default_factory=collections.Counter)
    seconds: float = 0.0
    slowest: list = field(default_factory=list)

    def failed(self) -> int:
        return sum(len(v) for v in self.failures.values())


def run(n_ir: int, n_kernels: int, seed: int, jobs: int = 2, out_dir: str | None = None,
        timeout: float = 20.0, time_limit: float | None = None, verbose: bool = True) -> Summary:
    out_dir = out_dir or tempfile.mkdtemp(prefix="tilec-fuzz-")
    os.makedirs(out_dir, exist_ok=True)
    tasks = collections.deque([{"part": "kernel", "seed": seed, "index": i}
                               for i in range(n_kernels)] +
                              [{"part": "ir", "seed": seed, "index": i} for i in range(n_ir)])
    summary = Summary()
    summary.out_dir = out_dir
    start = time.monotonic()
    sel = selectors.DefaultSelector()
    workers = [start_worker(out_dir, i) for i in range(jobs)]
    for w in workers:
        sel.register(w.proc.stdout, selectors.EVENT_READ, w)
    ready = set()
    last_report = start
    try:
        while tasks or any(w.task for w in workers):
            now = time.monotonic()
            if time_limit is not None and now - start > time_limit:
                tasks.clear()
            for w in workers:
                if w.task is None and tasks and id(w) in ready:
                    w.task = tasks.popleft()
                    w.deadline = time.monotonic() + timeout
                    w.proc.stdin.write((json.dumps(w.task) + "\n").encode())
                    w.proc.stdin.flush()
            if not tasks and not any(w.task for w in workers):
                break
            wait = min([w.deadline - now for w in workers if w.task] + [1.0])
            for key, _ in sel.select(timeout=max(0.01, wait)):
                w = key.data
                chunk = os.read(w.proc.stdout.fileno(), 1 << 20)
                if not chunk:  # the worker died
                    _lost(w, summary, out_dir, "crash", timeout)
                    workers[workers.index(w)] = _restart(w, sel, out_dir, ready)
                    continue
                w.buffer += chunk
                while b"\n" in w.buffer:
                    line, w.buffer = w.buffer.split(b"\n", 1)
                    result = json.loads(line)
                    if result.get("ready"):
                        ready.add(id(w))
                        if w.task is not None:  # restarted: its deadline starts now
                            w.deadline = time.monotonic() + timeout
                        continue
                    _record(w.task, result, summary, out_dir)
                    w.task = None
            now = time.monotonic()
            for w in list(workers):
                if w.task and now > w.deadline and id(w) in ready:
                    _lost(w, summary, out_dir, "hang", timeout)
                    workers[workers.index(w)] = _restart(w, sel, out_dir, ready)
            if verbose and now - last_report > 60:
                last_report = now
                done = sum(summary.ran.values())
                print(f"[{now - start:7.0f}s] {done} inputs, {summary.failed()} failures",
                      file=sys.stderr, flush=True)
    finally:
        for w in workers:
            _kill(w)
    summary.seconds = time.monotonic() - start
    return summary


def _kill(w: Worker) -> None:
    try:
        os.killpg(w.proc.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass
    w.proc.wait()


def _restart(w: Worker, sel, out_dir: str, ready: set) -> Worker:
    sel.unregister(w.proc.stdout)
    ready.discard(id(w))
    _kill(w)
    new = start_worker(out_dir, int(time.time() * 1000) % 100000)
    sel.register(new.proc.stdout, selectors.EVENT_READ, new)
    return new


def _lost(w: Worker, summary: Summary, out_dir: str, why: str, timeout: float) -> None:
    task, w.task = w.task, None
    if task is None:
        return
    if why == "crash":
        w.proc.wait()
        code = w.proc.returncode
        kind = f"signal-{-code}" if code is not None and code < 0 else f"worker-exit-{code}"
        detail = f"the worker died ({kind}) running this input"
    else:
        kind, detail = "hang", f"no result within {timeout} s"
    if task["part"] == "ir":
        _record(task, {"kind": kind, "detail": detail, "sig": kind}, summary, out_dir)
    else:
        # compile or interpreter: the worker did not say which it was in
        _record(task, {"kinds": {"run": kind}, "details": {"run": detail},
                       "sigs": {"run": kind}}, summary, out_dir)


def _record(task: dict, result: dict, summary: Summary, out_dir: str) -> None:
    part = task["part"]
    summary.ran[part] += 1
    if result.get("seconds", 0) > 5:
        summary.slowest.append((result["seconds"], part, task["index"]))
    if part == "ir":
        kind = result["kind"]
        summary.counts["ir"][kind] += 1
        if kind not in IR_OK:
            _save(task, "ir", result["sig"], result.get("detail", ""), summary, out_dir)
        return
    for mode, kind in result["kinds"].items():
        summary.counts[f"kernel {mode}"][kind] += 1
        if kind not in KERNEL_OK:
            sig = f"{mode}: {kind}: {result['sigs'].get(mode, kind)}"
            _save(task, "kernel", sig, result["details"].get(mode, ""), summary, out_dir)


def _save(task: dict, part: str, sig: str, detail: str, summary: Summary, out_dir: str) -> None:
    saved = summary.failures[sig]
    name = f"{part}-{task['seed']}-{task['index']}"
    if len(saved) >= SAVE_PER_SIGNATURE:
        saved.append(name)  # counted, not written
        return
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    if part == "ir":
        import ir_inputs
        data, args, origin = ir_inputs.make_input(task["seed"], task["index"])
        path = os.path.join(folder, "input.mlir")
        with open(path, "wb") as f:
            f.write(data)
        command = f"TILEC_TRACEBACK=1 tilec-opt {shlex.quote(path)} {shlex.join(args)}"
        note = f"mutated from test/{origin}"
    else:
        import kernel_inputs
        spec = kernel_inputs.make_kernel(task["seed"], task["index"])
        path = os.path.join(folder, "kernel.py")
        with open(path, "w") as f:
            f.write(spec["source"])
        with open(os.path.join(folder, "repro.py"), "w") as f:
            f.write(_kernel_repro(spec))
        command = f"python {shlex.quote(os.path.join(folder, 'repro.py'))}"
        note = f"deliberate mistake: {spec['mistake']!r}; launch: {spec['launch']}"
    with open(os.path.join(folder, "README.txt"), "w") as f:
        f.write(f"{sig}\n{note}\nreproduce: {command}\n"
                f"(or: python test/fuzz/fuzz.py --replay {part}:{task['seed']}:{task['index']})"
                f"\n\n{detail}\n")
    saved.append(folder)


def _kernel_repro(spec: dict) -> str:
    return f'''import os, sys, importlib.util, traceback
import numpy as np
here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("kernel", os.path.join(here, "kernel.py"))
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
import tilec
os.environ["TILEC_CACHE"] = "0"
try:
    tilec.compile(mod.kern, signature={spec["signature"]!r}, constexprs={spec["constexprs"]!r},
                  target="cuda:90", num_ctas={spec.get("num_ctas", 1)!r})
    print("compile: ok")
except Exception:
    traceback.print_exc()
os.environ["TILEC_INTERPRET"] = "1"
x = (np.arange({4096}) % 7).astype({X_NP[spec["xdtype"]]!r})
y = np.zeros(4096, np.float32)
try:
    mod.kern[(1,)](x, y, {spec["n"]!r}, {spec["s"]!r}, **{spec["constexprs"]!r})  # launch: {spec["launch"]}
    print("interp: ok")
except Exception:
    traceback.print_exc()
'''


X_NP = {"fp32": "float32", "fp16": "float16", "i32": "int32"}


def format_summary(s: Summary) -> str:
    lines = [f"tilec fuzz: {sum(s.ran.values())} inputs in {s.seconds:.0f} s "
             f"({sum(s.ran.values()) / max(s.seconds, 1e-9):.1f}/s); failures saved in {s.out_dir}"]
    for part in ("ir", "kernel"):
        if s.ran[part]:
            lines.append(f"  {part}: {s.ran[part]} inputs")
    for group, counter in sorted(s.counts.items()):
        lines.append(f"  {group}: " + ", ".join(f"{k} {v}" for k, v in counter.most_common()))
    if s.slowest:
        slow = sorted(s.slowest, reverse=True)[:5]
        lines.append("  slowest: " + ", ".join(f"{p}:{i} {t:.1f}s" for t, p, i in slow))
    if not s.failures:
        lines.append("no failures")
        return "\n".join(lines)
    lines.append(f"{s.failed()} failures, {len(s.failures)} distinct:")
    for sig, saved in sorted(s.failures.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"  [{len(saved)}x] {sig}")
        for path in saved[:SAVE_PER_SIGNATURE]:
            lines.append(f"        {path}")
    return "\n".join(lines)


def replay(what: str) -> int:
    """--replay ir:SEED:INDEX or kernel:SEED:INDEX: run one input here, print its result."""
    part, seed, index = what.split(":")
    workdir = tempfile.mkdtemp(prefix="tilec-fuzz-replay-")
    os.environ["TILEC_CACHE"] = "0"
    if part == "ir":
        import ir_inputs
        data, args, origin = ir_inputs.make_input(int(seed), int(index))
        print(f"from test/{origin}: tilec-opt INPUT {shlex.join(args)}")
        result = ir_inputs.run_input(int(seed), int(index), workdir)
    else:
        import kernel_inputs
        print(kernel_inputs.make_kernel(int(seed), int(index))["source"])
        result = kernel_inputs.run_kernel(int(seed), int(index), workdir)
    print(json.dumps(result, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", type=int, default=1000, help="IR inputs (kernels with --kernels-only)")
    p.add_argument("--kernels", type=int, default=None, help="kernels (default: inputs // 50)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", default=None, help="where failing inputs go (default: a temp dir)")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per input")
    p.add_argument("--time-limit", type=float, default=None, help="stop starting inputs after")
    only = p.add_mutually_exclusive_group()
    only.add_argument("--kernels-only", action="store_true")
    only.add_argument("--ir-only", action="store_true")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--replay", default=None, help="PART:SEED:INDEX: run one input and print it")
    a = p.parse_args(argv)
    if a.worker:
        worker_main()
        return 0
    if a.replay:
        return replay(a.replay)
    n_kernels = a.inputs if a.kernels_only else (a.kernels if a.kernels is not None
                                                 else a.inputs // 50)
    n_ir = 0 if a.kernels_only else a.inputs
    if a.ir_only:
        n_kernels = 0
    summary = run(n_ir, n_kernels, a.seed, a.jobs, a.out, a.timeout, a.time_limit)
    print(format_summary(summary))
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
