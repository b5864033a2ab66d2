"""Matmul (fp16 by default): tilec beside Triton and cuBLAS, in one process.

    python bench/matmul.py [--out DIR] [--dtype fp16|bf16|tf32|int8|fp8] [--b-order row|col]
                           [--shapes 4096x4096x4096,16x4096x4096]
                           [--configs 128x128x64:w8:s3,...] [--warmup 5] [--repeats 20]
                           [--compile-trials 1] [--cooldown 1] [--no-triton]
                           [--triton-mma-sync] [--max-num-imprecise-acc N]
    python bench/matmul.py --compile-only   # the cold compile time only (needs no GPU)
    python bench/matmul.py --dry-run        # fake timings, no GPU: checks the report code

C[M, N] = A[M, K] @ B[K, N], by default all row-major fp16, accumulated in fp32. --dtype picks the
inputs: fp16 or bf16 (fp32 accumulator, output of the input type), tf32 (fp32 inputs and output,
tl.dot's default tf32 precision; cuBLAS with TF32 allowed), int8 (int32 accumulator and output;
cuBLAS through torch._int_mm) or fp8 (float8e4nv inputs, fp32 accumulator, fp16 output; cuBLAS
through torch._scaled_mm with unit scales; inputs are standard normal values rounded to e4m3;
--max-num-imprecise-acc N passes tl.dot's max_num_imprecise_acc to both frameworks: partial
sums promoted to fp32 every N products, N at most BLOCK_K). B is row-major (N contiguous) for
fp16 and bf16 and column-major (K contiguous: the transpose of an N x K row-major tensor, the
layout int8 and fp8 GEMMs take) for tf32, int8 and fp8 unless --b-order says otherwise; the
kernel takes it through its strides. Shapes (M x N x K, default):
square 512, 1024, 2048, 4096 and 8192, and the LLM shapes M = 16, 128, 1024, 8192 with
N = K = 4096. The same kernel source (bench/matmul_kernel.py: tutorials/03-matrix-multiplication.py
without its activation, GROUP_M = 8) runs through tilec and Triton over a small sweep of configs
(BLOCK_M x BLOCK_N x BLOCK_K, num_warps, num_stages; the sets are CONFIGS below: one for M <= 128,
one for shapes of at most 1024 x 1024 outputs, one for the rest; --configs gives one list for
every shape; tf32 and int8 halve and double BLOCK_K, so a stage holds as many bytes), and cuBLAS
runs as torch.matmul(a, b, out=c). Inputs are standard normal (seeded; int8: integers in [-8, 8)).

Every result (each config of each framework, and cuBLAS) is checked once against torch.matmul
in fp32 (TF32 off) of the same inputs: |c - ref| <= 1e-2 * (|ref| + sqrt(K)) (entries are
~sqrt(K) in size; fp16 output rounding is 2^-11 of that, a tile computed wrong is off by ~1);
int8 results must equal it (every partial sum is an integer below 2^24, exact in fp32); fp8
ones within 0.1 * (|ref| + sqrt(K)): fp8 wgmma sums in less than fp32 precision (tilec and
Triton, neither promoting partial sums, were 1.47 off at 4096^3, cuBLAS 0.15).
Then each is timed with CUDA events: median over --repeats runs after --warmup, the L2 flushed
(256 MB written) before every run, after the GPU idled --cooldown seconds (default 1). The pause
matters on the H200: under sustained tensor-core load its power cap pulls the SM clock from
1980 MHz down to 1450-1700 MHz within tens of milliseconds, so in a back-to-back sweep whatever
runs after a long kernel is timed at a lower clock (cuBLAS at 8192^3 went from 746 TFLOP/s over
20 runs to 663 over 200). With the pause every framework and config starts from the same state. TFLOP/s = 2 * M * N * K / time. The table shows, per shape,
cuBLAS and the best config of Triton and of tilec (which config won), and the ratios tilec/cuBLAS
and tilec/Triton (above 1: tilec is faster). A config tilec (or Triton) fails to compile or run
is recorded as failed and the sweep goes on: tilec's configs are compiled first in a child process
(into the disk cache the launches then read), so even a compiler abort costs one config, not the
run; a CUDA error that breaks the context stops the launches and the report is still written.

Cold compile time: a fresh Python process with an empty TILEC_CACHE_DIR times
tilec.compile(matmul_kernel, target="cuda:90") of the 128x128x64, 4 warps, 3 stages config
(`import tilec` not included), then the 128x256x64, 8 warps config in the same process;
the median over --compile-trials processes is reported (0: not measured).

Targets (issue 14, H200): fp16 and bf16: tilec >= 1.0x Triton and >= 0.95x cuBLAS TFLOP/s at
4096^3 and 8192^3, >= 1.0x Triton at 1024^3, 2048^3, 16x4096x4096 and 128x4096x4096; tf32 and
int8: >= 1.0x Triton at 4096^3 and 8192^3; fp8 (issue 19): >= 1.0x torch._scaled_mm at 4096^3
and 8192^3; the cold compile (fp16) <= 1 s. (Issue 7's, on mma.sync: >= 0.6x cuBLAS, the compile <= 3 s.)

Writes matmul.json (every config's times, errors, and registers, spills and shared memory of
each compiled kernel where the framework tells) and matmul.png (TFLOP/s per shape, and the
ratios) into --out. Needs torch (inputs, reference, cuBLAS) and CuPy (tilec launches through
it). Exits 1 when a result is wrong or a tilec kernel spilled or had its wgmma serialised by
ptxas (C7510/C7511/C7515; after writing the report; 2 when there is no GPU or no torch at all).
A config that fails, or a missing Triton, only prints a note.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

KERNEL_FILE = common.BENCH / "matmul_kernel.py"
KERNEL = "matmul_kernel"
GROUP_M = 8
RTOL = 1e-2  # of |ref| + sqrt(K): see the docstring
RTOL_FP8 = 0.1  # fp8 wgmma's reduced-precision sums (see measure)
FRAMEWORKS = ("tilec", "triton", "cublas")  # the JSON keys; "cublas" is torch.matmul
NAMES = {"tilec": "tilec", "triton": "Triton", "cublas": "cuBLAS"}
# Issue 14's targets: per shape, the least tilec/cuBLAS and tilec/Triton ratios (fp16 and bf16;
# tf32 and int8: TARGETS_32 / the Triton ratio only).
TARGETS = {"4096x4096x4096": {"cublas": 0.95, "triton": 1.0},
           "8192x8192x8192": {"cublas": 0.95, "triton": 1.0},
           "1024x1024x1024": {"triton": 1.0}, "2048x2048x2048": {"triton": 1.0},
           "16x4096x4096": {"triton": 1.0}, "128x4096x4096": {"triton": 1.0}}
TARGETS_32 = {"4096x4096x4096": {"triton": 1.0}, "8192x8192x8192": {"triton": 1.0}}
TARGETS_FP8 = {"4096x4096x4096": {"cublas": 1.0}, "8192x8192x8192": {"cublas": 1.0}}
TARGET_COMPILE_S = 1.0


class Dtype(NamedTuple):
    """One --dtype: the tilec type names of the inputs and the output, torch's (by attribute
    name), whether the accumulator is int32, BLOCK_K's scale against the 16-bit sweep, and the
    order of B unless --b-order overrides it."""
    name: str
    tilec_in: str
    tilec_out: str
    torch_in: str
    torch_out: str
    acc_int: bool
    k_scale: float
    b_order: str
    title: str


DTYPES = {d.name: d for d in (
    Dtype("fp16", "fp16", "fp16", "float16", "float16", False, 1, "row",
          "fp16 matmul (fp32 accumulate, fp16 out)"),
    Dtype("bf16", "bf16", "bf16", "bfloat16", "bfloat16", False, 1, "row",
          "bf16 matmul (fp32 accumulate, bf16 out)"),
    Dtype("tf32", "fp32", "fp32", "float32", "float32", False, 0.5, "col",
          "tf32 matmul (fp32 in, accumulate and out)"),
    Dtype("int8", "i8", "i32", "int8", "int32", True, 2, "col",
          "int8 matmul (int32 accumulate and out)"),
    Dtype("fp8", "fp8e4nv", "fp16", "float8_e4m3fn", "float16", False, 2, "col",
          "fp8 e4m3 matmul (fp32 accumulate, fp16 out; cuBLAS: torch._scaled_mm)"),
)}
DTYPE = DTYPES["fp16"]  # main() sets the run's --dtype (and B_ORDER) before anything is compiled
B_ORDER = DTYPE.b_order
IMPRECISE = None  # --max-num-imprecise-acc: tl.dot's max_num_imprecise_acc (fp8)


def targets() -> dict:
    """The issue's minimum ratios for this run's --dtype; none with --max-num-imprecise-acc
    (issue 19's fp8 target is for the plain kernel, Triton's default of no promotion)."""
    if DTYPE.name == "fp8":
        return TARGETS_FP8 if IMPRECISE is None else {}
    return TARGETS if DTYPE.name in ("fp16", "bf16") else TARGETS_32
CHILD_TIMEOUT_S = 300
MARKER = "BENCH_JSON "


class Config(NamedTuple):
    block_m: int
    block_n: int
    block_k: int
    num_warps: int
    num_stages: int

    @property
    def label(self) -> str:
        return (f"{self.block_m}x{self.block_n}x{self.block_k} w{self.num_warps} "
                f"s{self.num_stages}")

    def constexprs(self) -> dict:
        return {"BLOCK_M": self.block_m, "BLOCK_N": self.block_n, "BLOCK_K": self.block_k,
                "GROUP_M": GROUP_M, "ACC_INT": DTYPE.acc_int, "IMPRECISE": IMPRECISE}

    def as_dict(self) -> dict:
        return {**self._asdict(), "group_m": GROUP_M}


# The sweep: (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages). Shared memory per stage is
# (BLOCK_M + BLOCK_N) * BLOCK_K * 2 bytes: 48 KB for 128x256x64, so 4 stages (192 KB) still fit
# the H200's 227 KB.
CONFIGS = {
    "small_m": [Config(16, 64, 64, 4, 4), Config(32, 64, 64, 4, 4), Config(64, 64, 32, 4, 4),
                Config(64, 64, 64, 4, 3), Config(64, 128, 64, 4, 3)],
    "small": [Config(64, 64, 32, 4, 4), Config(64, 128, 32, 4, 4), Config(128, 128, 32, 4, 4),
              Config(128, 128, 64, 4, 3), Config(128, 128, 64, 8, 3)],
    "large": [Config(128, 128, 32, 4, 4), Config(128, 128, 64, 4, 3), Config(128, 256, 64, 8, 3),
              Config(128, 256, 64, 8, 4), Config(256, 128, 64, 8, 3), Config(256, 128, 32, 8, 4),
              Config(128, 256, 32, 8, 4), Config(256, 128, 64, 8, 4)],
}
# What each tilec config's record keeps of its compiled kernel (ptxas' figures).
KERNEL_FIELDS = ("registers", "spill_stores", "spill_loads", "shared", "wgmma_serialized")
COMPILE_CONFIGS = (Config(128, 128, 64, 4, 3), Config(128, 256, 64, 8, 3))  # cold, then second
DEFAULT_SHAPES = ([(n, n, n) for n in (512, 1024, 2048, 4096, 8192)]
                  + [(m, 4096, 4096) for m in (16, 128, 1024, 8192)])


def shape_label(shape) -> str:
    return "x".join(str(d) for d in shape)


def shape_class(shape) -> str:
    M, N, _ = shape
    if M <= 128:
        return "small_m"
    return "small" if M * N <= 1024 * 1024 else "large"


def configs_for(shape, override: list[Config] | None) -> list[Config]:
    if override:
        return override
    return [c._replace(block_k=int(c.block_k * DTYPE.k_scale)) for c in CONFIGS[shape_class(shape)]]


def flops(shape) -> int:
    M, N, K = shape
    return 2 * M * N * K


def tflops(shape, ms: float | None) -> float | None:
    return None if ms is None else flops(shape) / (ms * 1e-3) / 1e12


def parse_shapes(text: str) -> list[tuple[int, int, int]]:
    """Comma-separated MxNxK (`4096x4096x4096`), or N for the square N x N x N."""
    shapes = []
    for item in text.split(","):
        parts = [p for p in re.split(r"\s*[x×]\s*", item.strip()) if p]
        if len(parts) == 1:
            parts *= 3
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise ValueError(f"--shapes: {item!r} is not MxNxK (or N for N x N x N)")
        shapes.append(tuple(int(p) for p in parts))
    return shapes


def parse_configs(text: str) -> list[Config]:
    """Comma-separated BMxBNxBK:wW:sS (`128x128x64:w8:s3`)."""
    return [Config(*found) for found in common.parse_int_tuples(
        text, r"(\d+)x(\d+)x(\d+):w(\d+):s(\d+)", "--configs",
        "BMxBNxBK:wW:sS (e.g. 128x128x64:w8:s3)")]


def load_kernel(language, jit, tag: str):
    """matmul_kernel compiled by one framework (bench/matmul_kernel.py, as common.load_kernels
    runs bench/kernels.py)."""
    return common.load_kernels(language, jit, tag, KERNEL_FILE)[KERNEL]


def short_error(err: BaseException) -> str:
    lines = [line for line in str(err).strip().splitlines() if line.strip()]
    return f"{type(err).__name__}: " + " | ".join(lines[:4])[:600]


# --- cold compile time: a fresh process ---------------------------------------------------------

def launch_specialization(shape) -> tuple[dict, dict]:
    """(signature, fixed values) for tilec.compile that give the kernel a launch on the torch
    tensors of `shape` (DTYPE, B in B_ORDER) compiles: pointers 16-byte aligned, integers ':16'
    when divisible by 16, the value 1 folded in (the unit strides), as JITFunction specialises."""
    M, N, K = shape
    b_strides = (N, 1) if B_ORDER == "row" else (1, K)
    values = {"M": M, "N": N, "K": K, "stride_am": K, "stride_ak": 1,
              "stride_bk": b_strides[0], "stride_bn": b_strides[1], "stride_cm": N,
              "stride_cn": 1}
    signature = {"a_ptr": f"*{DTYPE.tilec_in}:16", "b_ptr": f"*{DTYPE.tilec_in}:16",
                 "c_ptr": f"*{DTYPE.tilec_out}:16"}
    fixed = {}
    for name, value in values.items():
        if value == 1:
            fixed[name] = 1
        else:
            signature[name] = "i32:16" if value % 16 == 0 else "i32"
    return signature, fixed


def compile_config(tilec, kernel, config: Config, shape):
    signature, fixed = launch_specialization(shape)
    return tilec.compile(kernel, signature=signature, constexprs={**config.constexprs(), **fixed},
                         num_warps=config.num_warps, num_stages=config.num_stages,
                         target="cuda:90")


def child_compile() -> dict:
    start = time.perf_counter()
    tilec = common.import_tilec()
    import tilec.language as tl
    import_s = time.perf_counter() - start
    kernel = load_kernel(tl, tilec.jit, "tilec")
    found = {"import_s": import_s}
    for key, config in zip(("first", "second"), COMPILE_CONFIGS):
        found[f"{key}_config"] = config.label
        start = time.perf_counter()
        try:
            compiled = compile_config(tilec, kernel, config, (4096, 4096, 4096))
        except Exception as err:
            found[f"{key}_error"] = short_error(err)
            continue
        found[f"{key}_compile_s"] = time.perf_counter() - start
        found[f"{key}_kernel"] = {k: compiled.metadata.get(k) for k in KERNEL_FIELDS}
    return found


def measure_compile(trials: int) -> dict:
    """Median cold compile times over `trials` fresh processes, each with an empty cache."""
    runs = []
    for _ in range(trials):
        env = dict(os.environ)
        for name in ("TILEC_INTERPRET", "TILEC_CACHE", "TILEC_DUMP_IR"):
            env.pop(name, None)  # a cold compile to a real cubin, through the disk cache
        with tempfile.TemporaryDirectory(prefix="bench-matmul-compile-") as cache_dir:
            env["TILEC_CACHE_DIR"] = cache_dir
            try:
                proc = subprocess.run([sys.executable, str(Path(__file__).resolve()),
                                       "--child-compile"], cwd=common.ROOT, env=env, text=True,
                                      capture_output=True, timeout=CHILD_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                runs.append({"error": f"timed out after {CHILD_TIMEOUT_S} s"})
                break
        lines = [line for line in proc.stdout.splitlines() if line.startswith(MARKER)]
        if proc.returncode != 0 or not lines:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-8:]
            runs.append({"error": f"exit {proc.returncode}: " + " | ".join(tail)})
            break
        runs.append(json.loads(lines[-1][len(MARKER):]))
        if "first_error" in runs[-1]:
            break  # a kernel that does not compile fails the same way every time
    return summarise_compile(runs)


def summarise_compile(runs: list[dict]) -> dict:
    ok = [r for r in runs if "error" not in r]
    summary = {"trials": runs, "config": COMPILE_CONFIGS[0].label,
               "second_config": COMPILE_CONFIGS[1].label}
    for key in ("import_s", "first_compile_s", "second_compile_s"):
        summary[key] = common.median(r.get(key) for r in ok)
    errors = [r.get("error") or r.get("first_error") for r in runs
              if r.get("error") or r.get("first_error")]
    summary["error"] = errors[0] if errors else None
    summary["second_error"] = next((r["second_error"] for r in ok if "second_error" in r), None)
    summary["kernel"] = next((r["first_kernel"] for r in ok if "first_kernel" in r), None)
    return summary


def fake_compile(trials: int) -> dict:
    rng = random.Random(1)
    runs = [{"import_s": 0.35 * rng.uniform(0.95, 1.05),
             "first_compile_s": 1.9 * rng.uniform(0.95, 1.08),
             "second_compile_s": 1.1 * rng.uniform(0.95, 1.08),
             "first_config": COMPILE_CONFIGS[0].label,
             "second_config": COMPILE_CONFIGS[1].label,
             "first_kernel": {"registers": 168, "spill_stores": 0, "spill_loads": 0,
                              "shared": 98304}} for _ in range(max(trials, 1))]
    return summarise_compile(runs)


def print_compile(summary: dict) -> dict:
    measured = summary.get("first_compile_s")
    target = {"max_s": TARGET_COMPILE_S, "measured": measured,
              "met": None if measured is None else measured <= TARGET_COMPILE_S}
    if summary.get("error"):
        print(f"compile: tilec.compile of {summary['config']} failed: {summary['error']}")
    if measured is not None:
        second = summary.get("second_compile_s")
        print(f"compile: cold tilec.compile of matmul_kernel {summary['config']}: "
              f"{measured:.3f} s (import tilec {summary['import_s']:.3f} s, not included); "
              f"then {summary['second_config']}: "
              + (f"{second:.3f} s" if second is not None else
                 f"failed ({summary.get('second_error')})"))
        print(f"target: cold compile {measured:.3f} s (needs <= {TARGET_COMPILE_S} s): "
              f"{'MET' if target['met'] else 'MISSED'}")
    else:
        print("target: cold compile time not measured")
    return target


# --- tilec's configs compiled in child processes first ------------------------------------------
#
# A compiler bug can abort the process (an assertion in MLIR's C++ code is no Python exception),
# which would end the benchmark with no report. So each tilec config is first compiled by
# tilec.compile in a child process, into the disk cache the launches then read; a config whose
# compile fails or kills the child is recorded as failed and never launched here.

def precompile_key(config: Config, shape) -> str:
    signature, _ = launch_specialization(shape)
    return config.label + " | " + ",".join(f"{k}={v}" for k, v in sorted(signature.items()))


def child_precompile() -> int:
    """Compiles the jobs of stdin ([{"key", "config", "shape"}]), one MARKER line each."""
    jobs = json.loads(sys.stdin.read())
    tilec = common.import_tilec()
    import tilec.language as tl
    kernel = load_kernel(tl, tilec.jit, "tilec")
    for job in jobs:
        print(MARKER + json.dumps({"key": job["key"], "started": True}), flush=True)
        start = time.perf_counter()
        try:
            compiled = compile_config(tilec, kernel, Config(*job["config"]), tuple(job["shape"]))
            found = {"compile_s": time.perf_counter() - start,
                     "kernel": {k: compiled.metadata.get(k) for k in KERNEL_FIELDS}}
        except Exception as err:
            found = {"error": short_error(err)}
        print(MARKER + json.dumps({"key": job["key"], **found}), flush=True)
    return 0


def precompile(shapes, override: list[Config] | None) -> dict:
    """{precompile_key: {"compile_s", "kernel"} or {"error"}} for every (config, shape) of the
    run; a child that dies is restarted after the job that killed it."""
    jobs, seen = [], set()
    for shape in shapes:
        for config in configs_for(shape, override):
            key = precompile_key(config, shape)
            if key not in seen:
                seen.add(key)
                jobs.append({"key": key, "config": list(config), "shape": list(shape)})
    results: dict = {}
    env = dict(os.environ)
    for name in ("TILEC_INTERPRET", "TILEC_DUMP_IR"):
        env.pop(name, None)
    while True:
        todo = [job for job in jobs if job["key"] not in results]
        if not todo:
            return results
        print(f"compiling {len(todo)} tilec config(s) in a child process")
        started = None
        try:
            imprecise = [] if IMPRECISE is None else ["--max-num-imprecise-acc", str(IMPRECISE)]
            proc = subprocess.run([sys.executable, str(Path(__file__).resolve()),
                                   "--child-precompile", "--dtype", DTYPE.name,
                                   "--b-order", B_ORDER] + imprecise,
                                  input=json.dumps(todo), cwd=common.ROOT,
                                  env=env, text=True, capture_output=True,
                                  timeout=CHILD_TIMEOUT_S)
            stdout, why = proc.stdout, f"the compiling process died (exit {proc.returncode})"
            tail = " | ".join((proc.stderr or "").strip().splitlines()[-3:])[-600:]
        except subprocess.TimeoutExpired as err:
            stdout = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
            why, tail = f"the compiling process timed out after {CHILD_TIMEOUT_S} s", ""
        for line in stdout.splitlines():
            if not line.startswith(MARKER):
                continue
            found = json.loads(line[len(MARKER):])
            if found.pop("started", False):
                started = found["key"]
            else:
                results[found.pop("key")] = found
                started = None
        if started is None and all(job["key"] in results for job in todo):
            continue
        culprit = started or next(job["key"] for job in todo if job["key"] not in results)
        results[culprit] = {"error": f"{why}: {tail}" if tail else why}
        print(f"note: tilec {culprit.split(' | ')[0]}: {results[culprit]['error'][:300]}")


# --- the measured side ----------------------------------------------------------------------------

class Runners:
    """The inputs of one shape, tilec's and Triton's kernel (built once) and cuBLAS."""

    def __init__(self, args):
        self.args = args
        self.compiled: dict = {}  # precompile()'s results
        self.notes: list[str] = []
        torch, cupy = common.require_torch_and_gpu("the inputs, the reference and cuBLAS")
        torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 reference is fp32 (cuBLAS's
        # tf32 run allows it around its own call)
        self.torch = torch
        self.modules = {"tilec": common.import_tilec(), "torch": torch, "cupy": cupy,
                        "triton": None if args.no_triton else common.importable("triton")}
        self.gpu = common.Gpu(torch=torch)
        import tilec.language as tilec_tl
        self.kernels = {"tilec": load_kernel(tilec_tl, self.modules["tilec"].jit, "tilec")}
        triton = self.modules["triton"]
        if triton is not None:
            try:
                import triton.language as triton_tl
                self.kernels["triton"] = load_kernel(triton_tl, triton.jit, "triton")
            except Exception as err:
                self.notes.append(f"Triton skipped: {type(err).__name__}: {err}")
        else:
            self.notes.append("Triton skipped: " + ("--no-triton" if args.no_triton
                                                    else "not importable"))
        self.flush = self.gpu.l2_flusher()
        self.broken = None  # set when a CUDA error leaves the context unusable

    def measure(self, shape, configs: list[Config]) -> dict:
        """{framework: {"configs": [entry per config]}} for the kernels, {"cublas": entry}."""
        torch = self.torch
        M, N, K = shape
        gen = torch.Generator(device="cuda").manual_seed(M * 1000003 + N * 1009 + K)
        in_type, out_type = getattr(torch, DTYPE.torch_in), getattr(torch, DTYPE.torch_out)

        def matrix(rows, cols):
            if DTYPE.acc_int:
                return torch.randint(-8, 8, (rows, cols), device="cuda", dtype=in_type,
                                     generator=gen)
            if DTYPE.name == "fp8":  # torch draws no fp8: round fp32 draws
                return torch.randn(rows, cols, device="cuda", generator=gen).to(in_type)
            return torch.randn(rows, cols, device="cuda", dtype=in_type, generator=gen)
        a = matrix(M, K)
        b = matrix(K, N) if B_ORDER == "row" else matrix(N, K).t()
        c = torch.empty(M, N, device="cuda", dtype=out_type)
        expected = torch.matmul(a.float(), b.float())
        # fp8 wgmma sums in less than fp32 (no promotion of partial sums, in tilec as in
        # Triton by default): at 4096^3 both are 1.47 off at most, cuBLAS 0.15.
        tolerance = RTOL_FP8 if DTYPE.name == "fp8" else RTOL
        atol = 0 if DTYPE.acc_int else tolerance * math.sqrt(K)
        rtol = 0 if DTYPE.acc_int else tolerance

        def check(entry: dict) -> None:
            diff = (c.float() - expected).abs()
            entry["correct"] = bool((diff <= atol + rtol * expected.abs()).all().item())
            entry["max_abs_err"] = float(diff.max().item())

        def cublas():
            if DTYPE.acc_int:
                return torch._int_mm(a, b, out=c)
            if DTYPE.name == "fp8":
                one = torch.ones((), device="cuda")
                return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=out_type,
                                        out=c)
            torch.backends.cuda.matmul.allow_tf32 = DTYPE.name == "tf32"
            try:
                return torch.matmul(a, b, out=c)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False

        found = {"cublas": self.run_one(cublas, c, check)}
        found["cublas"].pop("returned", None)
        for name, kernel in self.kernels.items():
            entries = []
            for config in configs:
                ahead = self.compiled.get(precompile_key(config, shape), {})
                if name == "tilec" and "error" in ahead:
                    entries.append({"config": config.as_dict(), "label": config.label,
                                    "error": f"compile failed: {ahead['error']}"})
                    print(f"  {name:>6} {config.label:<22} FAILED to compile (not launched)")
                    continue
                if self.broken:
                    entries.append({"config": config.as_dict(), "label": config.label,
                                    "error": f"not run: {self.broken}"})
                    continue
                launch = self.launcher(kernel, config, a, b, c)
                entry = {"config": config.as_dict(), "label": config.label,
                         **self.run_one(launch, c, check, first_call=True)}
                if name == "tilec" and "compile_s" in ahead:
                    entry["compile_s"] = ahead["compile_s"]  # in the child, warm process
                if "error" not in entry:
                    entry["kernel"] = (self.tilec_info(kernel, config) or ahead.get("kernel")
                                       if name == "tilec"
                                       else common.triton_kernel_info(entry.pop("returned", None)))
                entry.pop("returned", None)
                entries.append(entry)
                print(f"  {name:>6} {config.label:<22} " + (
                    f"{common.fmt(tflops(shape, entry.get('ms')), '.1f')} TFLOP/s"
                    + ("" if entry.get("correct") else "  MISMATCH")
                    if "error" not in entry else f"FAILED: {entry['error'][:160]}"))
            found[name] = {"configs": entries}
        return found  # the shape's tensors are freed here, before the next shape allocates

    @staticmethod
    def launcher(kernel, config: Config, a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = (-(-M // config.block_m) * -(-N // config.block_n),)
        strides = (a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        bound = {}  # kernel[grid] made at the first call, inside run_one's error handling

        def launch():
            if not bound:
                bound["run"] = kernel[grid]
            return bound["run"](a, b, c, M, N, K, *strides, **config.constexprs(),
                                num_warps=config.num_warps, num_stages=config.num_stages)
        return launch

    def run_one(self, launch, c, check, first_call: bool = False) -> dict:
        gpu = self.gpu
        entry = {}
        try:
            # a kernel that writes nothing cannot pass the check (int32: no result is -2^31)
            c.fill_(float("nan") if c.is_floating_point() else -2 ** 31)
            gpu.synchronize()
            start = time.perf_counter()
            entry["returned"] = launch()
            gpu.synchronize()
            if first_call:  # compile (or the framework's cache) + one launch
                entry["first_call_s"] = time.perf_counter() - start
            check(entry)
            time.sleep(self.args.cooldown)  # every config starts from an idle GPU's clocks
            entry["times_ms"] = common.time_gpu(gpu, launch, self.args.warmup, self.args.repeats,
                                                flush=self.flush)
            entry["ms"] = common.median(entry["times_ms"])
        except Exception as err:
            entry = {"error": short_error(err)}
            if not first_call or os.environ.get("BENCH_TRACEBACK"):
                traceback.print_exc()
            self.check_context()
        return entry

    def check_context(self) -> None:
        """After an error: a CUDA error that poisons the context makes every later launch fail;
        stop launching then, and say why."""
        try:
            self.gpu.synchronize()
            self.torch.empty(1, device="cuda").fill_(0)
            self.gpu.synchronize()
        except Exception as err:
            self.broken = f"the CUDA context is unusable after an earlier error ({err})"
            self.notes.append(self.broken)
            print(f"note: {self.broken}; the remaining configs are not run")

    @staticmethod
    def tilec_info(kernel, config: Config) -> dict | None:
        try:
            for compiled in kernel.cache.values():
                if (compiled.constants.get("BLOCK_M") == config.block_m
                        and compiled.constants.get("BLOCK_N") == config.block_n
                        and compiled.constants.get("BLOCK_K") == config.block_k
                        and compiled.options.num_warps == config.num_warps
                        and compiled.options.num_stages == config.num_stages):
                    return {k: compiled.metadata.get(k) for k in KERNEL_FIELDS}
        except Exception:
            pass
        return None


class FakeRunners:
    """--dry-run: times from a model (peak TFLOP/s times the fraction of the last wave of tiles
    that is full, plus a latency), seeded; tilec fails the BLOCK_M = 16 configs, so the failed
    path of the report runs too. No GPU, no competitor imports."""

    PEAK_TFLOPS = {"tilec": 420.0, "triton": 640.0, "cublas": 655.0}
    LATENCY_MS = {"tilec": 0.006, "triton": 0.007, "cublas": 0.005}
    SMS = 132

    def __init__(self, args):
        self.args = args
        self.notes = ["dry run: timings are fake"]
        self.modules = {}
        self.rng = random.Random(0)

    def fake_ms(self, name: str, shape, tiles: int | None = None) -> float:
        waves = 1.0 if tiles is None else tiles / (math.ceil(tiles / self.SMS) * self.SMS)
        compute_ms = flops(shape) / (self.PEAK_TFLOPS[name] * 1e12 * waves) * 1e3
        return self.LATENCY_MS[name] + compute_ms

    def timed(self, name: str, shape, tiles: int | None = None) -> dict:
        base = self.fake_ms(name, shape, tiles)
        times = [base * self.rng.uniform(0.98, 1.05) for _ in range(self.args.repeats)]
        return {"correct": True, "max_abs_err": 0.01, "times_ms": times,
                "ms": common.median(times)}

    def measure(self, shape, configs: list[Config]) -> dict:
        M, N, _ = shape
        found = {"cublas": self.timed("cublas", shape)}
        for name in ("tilec", "triton"):
            entries = []
            for config in configs:
                entry = {"config": config.as_dict(), "label": config.label}
                if name == "tilec" and config.block_m == 16:
                    entry["error"] = ("CompilationError: (dry run) no lowering for a 16-row "
                                      "dot block")
                else:
                    tiles = -(-M // config.block_m) * -(-N // config.block_n)
                    entry.update(self.timed(name, shape, tiles), first_call_s=1.5,
                                 kernel={"registers": 168, "shared": 98304})
                entries.append(entry)
            found[name] = {"configs": entries}
        return found


# --- the report -----------------------------------------------------------------------------------

def best_entry(configs: list[dict]) -> dict | None:
    """The fastest config that ran and was correct."""
    ran = [e for e in configs if e.get("ms") is not None and e.get("correct")]
    return min(ran, key=lambda e: e["ms"]) if ran else None


def summarise(shape, found: dict) -> dict:
    row = {"M": shape[0], "N": shape[1], "K": shape[2], "label": shape_label(shape),
           "class": shape_class(shape), "flops": flops(shape)}
    cublas = dict(found.get("cublas", {"skipped": True}))
    if cublas.get("ms") is not None:
        cublas["tflops"] = tflops(shape, cublas["ms"])
    row["cublas"] = cublas
    for name in ("tilec", "triton"):
        entry = found.get(name)
        if entry is None:
            row[name] = {"skipped": True, "configs": []}
            continue
        for e in entry["configs"]:
            if e.get("ms") is not None:
                e["tflops"] = tflops(shape, e["ms"])
        best = best_entry(entry["configs"])
        failed = [e["label"] for e in entry["configs"] if "error" in e]
        row[name] = {"configs": entry["configs"], "failed": failed,
                     "best": None if best is None else {"label": best["label"],
                                                        "ms": best["ms"],
                                                        "tflops": best["tflops"]}}
    tilec = (row["tilec"].get("best") or {}).get("tflops")
    row["ratio_tilec_cublas"] = common.ratio(tilec, cublas.get("tflops"))
    row["ratio_tilec_triton"] = common.ratio(tilec, (row["triton"].get("best") or {}).get("tflops"))
    return row


def best_tflops(row: dict, name: str) -> float | None:
    if name == "cublas":
        return row["cublas"].get("tflops")
    return (row[name].get("best") or {}).get("tflops")


def degraded(row: dict) -> list[str]:
    """tilec configs of `row` whose kernel spilled or had its wgmma serialised by ptxas (the
    benchmark fails on them, as on a wrong result)."""
    found = []
    for e in row["tilec"].get("configs", []):
        kernel = e.get("kernel") or {}
        why = [f"{kernel['spill_stores']} bytes spilled"] if kernel.get("spill_stores") else []
        why += kernel.get("wgmma_serialized") or []
        if why:
            found.append(f"{e['label']} at {row['label']} ({'; '.join(why)})")
    return found


def mismatches(row: dict) -> list[str]:
    wrong = [f"cuBLAS at {row['label']}"] if row["cublas"].get("correct") is False else []
    for name in ("tilec", "triton"):
        wrong += [f"{NAMES[name]} {e['label']} at {row['label']}"
                  for e in row[name].get("configs", []) if e.get("correct") is False]
    return wrong


def print_rows(rows: list[dict]) -> None:
    table = []
    for row in rows:
        cells = [row["label"], common.fmt(best_tflops(row, "cublas"), ".1f")]
        for name in ("triton", "tilec"):
            best = row[name].get("best")
            cells += [common.fmt(best_tflops(row, name), ".1f"),
                      best["label"] if best else "-"]
        cells += [common.fmt_ratio(row["ratio_tilec_cublas"]),
                  common.fmt_ratio(row["ratio_tilec_triton"])]
        failed = row["tilec"].get("failed", [])
        ran = len(row["tilec"].get("configs", []))
        notes = [f"tilec failed {len(failed)}/{ran}"] if failed else []
        if row["triton"].get("failed"):
            notes.append(f"Triton failed {len(row['triton']['failed'])}")
        if mismatches(row):
            notes.append("MISMATCH")
        cells.append(", ".join(notes))
        table.append(cells)
    common.print_table(
        f"{DTYPE.title}, B {B_ORDER}-major, TFLOP/s = 2*M*N*K / median time, best config "
        "per framework (higher is better)",
        ["M x N x K", "cuBLAS", "Triton", "Triton config", "tilec", "tilec config",
         "tilec/cuBLAS", "tilec/Triton", ""], table)


def target_summary(rows: list[dict]) -> dict:
    """Issue 14's targets, per measured shape of TARGETS: the ratios tilec/cuBLAS and
    tilec/Triton against their minimums; `met` when every target shape was measured and meets
    them."""
    target = {"min_ratios": {label: dict(mins) for label, mins in targets().items()},
              "per_shape": {}, "met": None}
    verdicts = []
    for label, mins in targets().items():
        row = next((r for r in rows if r["label"] == label), None)
        if row is None:
            verdicts.append(None)
            continue
        for name, minimum in mins.items():
            measured = row[f"ratio_tilec_{name}"]
            met = None if measured is None else measured >= minimum
            target["per_shape"].setdefault(label, {})[name] = {"measured": measured, "met": met}
            verdicts.append(met)
            if measured is None:
                print(f"target: no tilec/{NAMES[name]} ratio at {label}")
                continue
            print(f"target: tilec/{NAMES[name]} at {label} = {measured:.3f} (needs >= "
                  f"{minimum}): {'MET' if met else 'MISSED'}")
    measured_all = verdicts and all(v is not None for v in verdicts)
    if measured_all:
        target["met"] = all(verdicts)
    issue = "issue 19's" if DTYPE.name == "fp8" else "issue 14's"
    if not targets():
        print(f"target: {issue} {DTYPE.name} matmul ratios are for the plain kernel "
              "(no --max-num-imprecise-acc)")
        return target
    print(f"target: {issue} {DTYPE.name} matmul ratios: "
          f"{('MET' if target['met'] else 'MISSED') if measured_all else 'not all measured'}")
    return target


def draw(rows: list[dict]):
    def figure(plt):
        fig, (top, bottom) = common.two_panels(plt)
        xs = list(range(len(rows)))
        width = 0.8 / len(FRAMEWORKS)
        for i, name in enumerate(("cublas", "triton", "tilec")):
            points = [(x + (i - 1) * width, best_tflops(r, name)) for x, r in zip(xs, rows)
                      if best_tflops(r, name) is not None]
            if points:
                top.bar(*zip(*points), width=width, label=NAMES[name]
                        + ("" if name == "cublas" else " (best config)"))
        top.set_ylabel("TFLOP/s (2·M·N·K / time)")
        top.set_title(f"{DTYPE.title}, B {B_ORDER}-major")
        top.grid(True, axis="y", alpha=0.3)
        top.legend()
        for key, label, color in (("ratio_tilec_cublas", "tilec / cuBLAS", "C0"),
                                  ("ratio_tilec_triton", "tilec / Triton", "C1")):
            points = [(x, r[key]) for x, r in zip(xs, rows) if r[key] is not None]
            if points:
                bottom.plot(*zip(*points), "o-", color=color, label=label)
        bottom.axhline(0.95, color="red", linewidth=0.8, linestyle="--",
                       label="target 0.95 (vs cuBLAS, 4096³ and 8192³)")
        bottom.axhline(1.0, color="grey", linewidth=0.8, label="target 1.0 (vs Triton)")
        bottom.set_ylabel("ratio")
        bottom.set_xlabel("M x N x K")
        bottom.set_xticks(xs)
        bottom.set_xticklabels([r["label"] for r in rows], rotation=30, ha="right")
        bottom.grid(True, alpha=0.3)
        bottom.set_ylim(bottom=0)
        bottom.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
        return fig
    return figure


# --- the run --------------------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = common.make_parser(__doc__)
    parser.add_argument("--shapes", type=parse_shapes, default=DEFAULT_SHAPES,
                        help="comma-separated MxNxK, or N for N x N x N (default "
                             f"{','.join(shape_label(s) for s in DEFAULT_SHAPES)})")
    parser.add_argument("--configs", type=parse_configs, default=None,
                        help="comma-separated BMxBNxBK:wW:sS for every shape (default: the "
                             "sweep of CONFIGS for the shape's class)")
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="fp16",
                        help="the inputs' type (default fp16; see the docstring)")
    parser.add_argument("--b-order", choices=("row", "col"), default=None,
                        help="B row-major (N contiguous) or column-major (K contiguous); "
                             "default: row for fp16 and bf16, col for tf32 and int8")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--cooldown", type=float, default=1.0,
                        help="seconds the GPU idles before each timed config (default 1)")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--compile-trials", type=int, default=1,
                        help="fresh processes timing the cold compile (0: not measured)")
    parser.add_argument("--compile-only", action="store_true",
                        help="only the cold compile time (needs no GPU); writes no files")
    parser.add_argument("--no-triton", action="store_true", help="leave Triton out")
    parser.add_argument("--triton-mma-sync", action="store_true",
                        help="Triton on the mma.sync path tilec uses (DISABLE_MMA_V3=1) "
                             "instead of wgmma")
    parser.add_argument("--max-num-imprecise-acc", type=int, default=None,
                        help="tl.dot's max_num_imprecise_acc in the kernel (fp8: K products "
                             "summed at the tensor cores' precision before promotion to fp32; "
                             "at most BLOCK_K; default None, Triton's: no promotion)")
    parser.add_argument("--child-compile", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-precompile", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    global DTYPE, B_ORDER, IMPRECISE
    DTYPE = DTYPES[args.dtype]
    IMPRECISE = args.max_num_imprecise_acc
    B_ORDER = args.b_order or DTYPE.b_order
    if args.triton_mma_sync:  # read when Triton compiles; part of its cache key
        os.environ["DISABLE_MMA_V3"] = "1"
        NAMES["triton"] = "Triton (mma.sync)"
    if args.child_compile:
        print(MARKER + json.dumps(child_compile()), flush=True)
        return 0
    if args.child_precompile:
        return child_precompile()
    if args.compile_only:
        summary = measure_compile(max(args.compile_trials, 1))
        print(json.dumps(summary, indent=2, default=str))
        print_compile(summary)
        return 0

    # The cold compile first, before this process holds GPU memory.
    if args.dry_run:
        compile_summary = fake_compile(args.compile_trials)
    elif args.compile_trials > 0:
        compile_summary = measure_compile(args.compile_trials)
    else:
        compile_summary = {"skipped": True}
    if args.dry_run:
        runners = FakeRunners(args)
    else:
        runners = Runners(args)
        runners.compiled = precompile(args.shapes, args.configs)
    rows = []
    for shape in args.shapes:
        configs = configs_for(shape, args.configs)
        print(f"{shape_label(shape)} ({len(configs)} configs):")
        row = summarise(shape, runners.measure(shape, configs))
        rows.append(row)
        print(f"{row['label']:>16}: " + ", ".join(
            f"{NAMES[name]} {common.fmt(best_tflops(row, name), '.1f')}"
            for name in ("cublas", "triton", "tilec")) + " TFLOP/s")
    print_rows(rows)
    target = target_summary(rows)
    compile_target = print_compile(compile_summary) if not compile_summary.get("skipped") else None
    for note in runners.notes:
        print(f"note: {note}")
    wrong = [m for row in rows for m in mismatches(row)]
    slowed = [d for row in rows for d in degraded(row)]
    failed = [f"{e['label']} at {row['label']}: {e['error']}" for row in rows
              for e in row["tilec"].get("configs", []) if "error" in e]
    if failed:
        print(f"note: tilec failed {len(failed)} config(s); the first: {failed[0]}")
    env = common.environment(runners.modules, gpu=None if args.dry_run else runners.gpu)
    return common.finish(args.out, "matmul", {
        "benchmark": "matmul", "dry_run": args.dry_run, "environment": env,
        "config": {"kernel": f"bench/matmul_kernel.py:{KERNEL}", "dtype": DTYPE.name,
                   "max_num_imprecise_acc": IMPRECISE,
                   "accumulator": "int32" if DTYPE.acc_int else "float32",
                   "output": DTYPE.torch_out,
                   "layout": f"row-major A and C, {B_ORDER}-major B",
                   "group_m": GROUP_M, "sweep": {k: [c.label for c in v]
                                                 for k, v in CONFIGS.items()},
                   "configs_override": [c.label for c in args.configs] if args.configs else None,
                   "reference": "torch.matmul(a.float(), b.float()), TF32 off",
                   "check": f"|c - ref| <= {RTOL} * (|ref| + sqrt(K))",
                   "cublas": "torch.matmul(a, b, out=c)",
                   "triton_path": "mma.sync" if args.triton_mma_sync else "default (wgmma)",
                   "warmup": args.warmup,
                   "repeats": args.repeats, "cooldown_s": args.cooldown,
                   "l2_flush_bytes": common.L2_FLUSH_BYTES,
                   "tflops": "2 * M * N * K / median time", "timer": "CUDA events"},
        "results": rows, "target": target,
        "compile": {**compile_summary, "target": compile_target},
        "notes": runners.notes, "mismatches": wrong, "tilec_failures": failed,
        "tilec_spilled_or_serialised": slowed,
    }, draw(rows), [("MISMATCH: ", "; ".join(wrong)),
                    ("SPILLED OR SERIALISED: ", "; ".join(slowed))])


if __name__ == "__main__":
    sys.exit(main())
