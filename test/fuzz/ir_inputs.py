"""The IR half of the fuzzer: mutated lit inputs through `tilec-opt` with one random pass.

An input is a pure function of (seed, index): `make_input` rebuilds it, so a failure seen by a
worker is saved by the parent without shipping the input back. `run_input` runs it in-process
(`tilec.tools.tilec_opt.main`) and classifies the outcome:

    ok          exit 0 and the output parses again
    diagnostic  exit 1 with an error message
    internal    exit 2 (tilec-opt's "internal error": a bug in tilec)
    traceback   a Python traceback on stdout/stderr, or an exception out of main()
    reparse     exit 0 but the printed output does not parse again
    exit-N      any other exit status

(signals and hangs are seen by the parent, fuzz.py.)
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import traceback
from functools import lru_cache
from pathlib import Path

TEST_ROOT = Path(__file__).resolve().parent.parent
SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
DIRECTIVE = re.compile(r"^\s*//\s*(RUN|CHECK[-A-Z]*|expected-[a-z]+)\b.*$", re.MULTILINE)

EXTREME_NUMBERS = ["0", "-1", "1", "2", "3", "7", "31", "32", "33", "64", "1024", "65536",
                   str(2**31 - 1), str(2**31), str(-2**31), str(2**32), str(2**63), str(2**64),
                   str(-2**64), str(10**30), "1e308", "-1e308", "1e309", "0.5", "-0.0",
                   "0x7fffffff", "0xFFFFFFFFFFFFFFFF", "nan", "inf"]
SHAPE_DIMS = ["0", "1", "2", "3", "4", "8", "16", "17", "32", "64", "128", "256", "1024",
              "65536", str(2**31), str(2**40), "?"]
SCALAR_TYPES = ["f32", "i32", "f16", "bf16", "f64", "i1", "i8", "i16", "i64", "index", "ui32",
                "f8E4M3FN", "none", "!tile.ptr<f32, 1 : i32>", "!tile.ptr<f16, 1 : i32>",
                "!tile.ptr<i1, 1 : i32>", "!tile.ptr<f32, 3 : i32>", "!tile.ptr<f32, 0 : i32>",
                "!tile.ptr<!tile.ptr<f32, 1 : i32>, 1 : i32>", "!tile.ptr<index, 1 : i32>",
                "!tile.ptr<tensor<4xf32>, 1 : i32>", "tensor<4xf32>", "vector<4xf32>",
                "memref<4xf32>", "!tile.ptr<f32, -1 : i32>"]
TYPE_TOKEN = re.compile(r"(?<![\w.])(f16|bf16|f32|f64|i1|i8|i16|i32|i64|index)(?![\w])")
NUMBER_TOKEN = re.compile(r"(?<![\w#%.^])-?\d+(\.\d+)?([eE][+-]?\d+)?(?![\w])")
SHAPE_TOKEN = re.compile(r"(?<=[<x\[ ,])(\d+)(?=x)")
OP_NAME = re.compile(r'"(tile|tilegpu)\.[a-z_]+"')
LAYOUT_START = re.compile(r"#tilegpu\.[a-z_]+<|!tile\.ptr<|!tilegpu\.memdesc<")

UPSTREAM_PASSES = ["canonicalize", "cse", "convert-scf-to-cf", "convert-arith-to-llvm",
                   "symbol-dce", "loop-invariant-code-motion", "sccp"]
FULL_PIPELINE = ["tile-combine", "convert-tile-to-tilegpu", "tilegpu-coalesce",
                 "tilegpu-accelerate-matmul", "tilegpu-remove-layout-conversions",
                 "tilegpu-pipeline", "tilegpu-allocate-shared-memory", "tilegpu-membar",
                 "convert-tilegpu-to-llvm"]
OPTION_VALUES = ["0", "1", "2", "3", "4", "8", "16", "-1", "64", str(2**31), str(2**64), "abc",
                 "", "1.5", "true", "cuda:90", "cuda:80", "cuda:0", "cuda:", "hip:90",
                 "cuda:99999999999999999999", "sm_90a"]
EXTRA_FLAGS = ["--mlir-print-op-generic", "--mlir-print-debuginfo", "--allow-unregistered-dialect",
               "--mlir-print-ir-after-all", "--verify-diagnostics", "--mlir-print-ir-before-all"]


@lru_cache(maxsize=None)
def corpus() -> tuple[tuple[str, str], ...]:
    """(path relative to test/, chunk text) of every `// -----` chunk of the lit inputs."""
    chunks = []
    for path in sorted(TEST_ROOT.rglob("*.mlir")):
        if "Output" in path.parts or "fuzz" in path.parts:
            continue
        rel = str(path.relative_to(TEST_ROOT))
        text = path.read_text()
        chunks.append((rel, text))  # the whole file too: for --split-input-file
        chunks += [(rel, c) for c in SPLIT.split(text) if c.strip()]
    return tuple(chunks)


@lru_cache(maxsize=None)
def vocabulary() -> dict[str, list[str]]:
    """Layout attributes, pointer and memdesc types, and op names seen in the lit inputs."""
    attrs, ops = set(), set()
    for _, text in corpus():
        ops.update(m.group(0) for m in OP_NAME.finditer(text))
        for m in LAYOUT_START.finditer(text):
            end = _balanced_end(text, m.end() - 1)
            if end is not None and end - m.start() < 300:
                attrs.add(text[m.start():end])
    return {"attrs": sorted(attrs), "ops": sorted(ops)}


def _balanced_end(text: str, open_at: int) -> int | None:
    depth = 0
    for i in range(open_at, min(len(text), open_at + 400)):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">" and text[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


@lru_cache(maxsize=None)
def pass_choices() -> tuple[tuple[str, tuple], ...]:
    """(pass name, its options as (name, type)) for every registered tilec pass."""
    from tilec.passes import registered_passes
    return tuple((name, tuple((o.name, o.type) for o in cls.options))
                 for name, cls in registered_passes().items())


# ---- mutations: each takes (rng, text) and returns text -----------------------------------------

def _replace_match(rng, text, pattern, choices):
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[:m.start()] + rng.choice(choices) + text[m.end():]


def m_number(rng, text):
    return _replace_match(rng, text, NUMBER_TOKEN, EXTREME_NUMBERS)


def m_type(rng, text):
    return _replace_match(rng, text, TYPE_TOKEN, SCALAR_TYPES)


def m_type_all(rng, text):
    """One element type swapped for another everywhere (keeps the IR more often valid)."""
    found = sorted(set(TYPE_TOKEN.findall(text)))
    if not found:
        return text
    old, new = rng.choice(found), rng.choice(SCALAR_TYPES[:10])
    return re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, text)


def m_shape(rng, text):
    return _replace_match(rng, text, SHAPE_TOKEN, SHAPE_DIMS)


def m_layout(rng, text):
    vocab = vocabulary()["attrs"]
    matches = list(LAYOUT_START.finditer(text))
    if not matches or not vocab:
        return text
    m = rng.choice(matches)
    end = _balanced_end(text, m.end() - 1)
    if end is None:
        return text
    new = rng.choice(vocab)
    if rng.random() < 0.5:  # change a number inside the attribute too
        new = m_number(rng, new)
    return text[:m.start()] + new + text[end:]


def m_op_name(rng, text):
    return _replace_match(rng, text, OP_NAME, vocabulary()["ops"])


def m_lines(rng, text):
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    i = rng.randrange(len(lines))
    what = rng.random()
    if what < 0.4:
        del lines[i]
    elif what < 0.7:
        lines.insert(i, lines[rng.randrange(len(lines))])
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def m_nesting(rng, text):
    """Wrap a line in nested regions, or nest brackets or types very deep."""
    depth = rng.choice([2, 8, 50, 300, 3000, 20000])
    what = rng.random()
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if what < 0.5:
        head = '"scf.execute_region"() ({\n' * depth
        tail = '"scf.yield"() : () -> ()\n}) : () -> ()\n' * depth
        lines[i] = head + lines[i] + "\n" + tail
    elif what < 0.75:
        lines[i] = lines[i].replace("tensor<", "tensor<" * depth, 1) + ">" * depth
    else:
        lines[i] = lines[i] + " [" * depth + "]" * depth
    return "\n".join(lines)


def m_attribute(rng, text):
    """Drop, or mess with, a module or op attribute."""
    key = rng.choice(["tilegpu.num_warps", "tilegpu.threads_per_warp", "tilegpu.shared",
                      "tilegpu.num_ctas",
                      "tile.divisibility", "axis", "start", "end", "offset", "allocation.offset",
                      "opIdx", "num", "operandSegmentSizes"])
    value = rng.choice(["0 : i32", "-1 : i32", "3 : i32", f"{2**40} : i64", "\"x\"", "unit",
                        "[1, 2]", "array<i32: 1, 1>", "1.5 : f32", "0 : i1"])
    pos = text.find("{")
    if pos < 0 or rng.random() < 0.3:
        return text.replace("module {", f"module attributes {{{key} = {value}}} {{", 1)
    return text[:pos + 1] + f"{key} = {value}, " + text[pos + 1:]


TOKEN_MUTATIONS = [m_number, m_number, m_type, m_type_all, m_shape, m_shape, m_layout, m_layout,
                   m_op_name, m_lines, m_lines, m_nesting, m_attribute]


def mutate_bytes(rng, data: bytes) -> bytes:
    if not data:
        return bytes(rng.randrange(256) for _ in range(8))
    b = bytearray(data)
    i = rng.randrange(len(b))
    what = rng.random()
    if what < 0.25:
        b[i] ^= 1 << rng.randrange(8)
    elif what < 0.45:
        del b[i:i + rng.randrange(1, 64)]
    elif what < 0.65:
        n = rng.randrange(1, 64)
        b[i:i] = b[i:i + n]
    else:
        junk = rng.choice([b"\0", b"\xff", b"\xc3", b"\xe2\x82", "é∑😀".encode(), b"\x1b[",
                           bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16))),
                           bytes(rng.choice(b"{}()<>[]%#@!:,=\"-x0123456789")
                                 for _ in range(rng.randrange(1, 16)))])
        b[i:i] = junk
    return bytes(b)


def _pass_flag(rng) -> list[str]:
    """One pass (tilec or upstream) or a short pipeline, as tilec-opt arguments."""
    what = rng.random()
    if what < 0.15:
        return ["--" + rng.choice(UPSTREAM_PASSES)]
    if what < 0.35:
        start = rng.randrange(len(FULL_PIPELINE))
        stop = rng.randrange(start + 1, len(FULL_PIPELINE) + 1)
        names = FULL_PIPELINE[start:stop]
        if rng.random() < 0.3:
            return [f"--pass-pipeline=builtin.module({','.join(names)})"]
        return ["--" + n for n in names]
    name, options = rng.choice(pass_choices())
    if options and rng.random() < 0.5:
        parts = []
        for opt, typ in options:
            if rng.random() < 0.6:
                value = rng.choice(OPTION_VALUES[:9] if rng.random() < 0.5 else OPTION_VALUES)
                parts.append(f"{opt}={value}")
        if rng.random() < 0.1:
            parts.append(rng.choice(["bogus=1", "num-warps", "=3", "num-warps==4"]))
        if parts:
            if rng.random() < 0.3:
                return [f"--pass-pipeline=builtin.module({name}{{{' '.join(parts)}}})"]
            return [f"--{name}={' '.join(parts)}"]
    return ["--" + name]


def make_input(seed: int, index: int) -> tuple[bytes, list[str], str]:
    """(input bytes, tilec-opt arguments after the file name, corpus origin) of one input."""
    rng = random.Random(f"ir-{seed}-{index}")
    origin, text = rng.choice(corpus())
    split = SPLIT.search(text) is not None
    if rng.random() < 0.5:
        text = DIRECTIVE.sub("", text)
    for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3, 5])):
        text = rng.choice(TOKEN_MUTATIONS)(rng, text)
    data = text.encode()
    if rng.random() < 0.2:
        for _ in range(rng.randrange(1, 4)):
            data = mutate_bytes(rng, data)
    args = _pass_flag(rng)
    if rng.random() < 0.1:
        args += _pass_flag(rng)
    if split:
        args.insert(0, "--split-input-file")
    if rng.random() < 0.1:
        args.append(rng.choice(EXTRA_FLAGS))
    return data, args, origin


# ---- running one input (inside a worker) --------------------------------------------------------

def _call(argv: list[str]) -> tuple[int, str, str, str | None]:
    """(status, stdout, stderr, traceback of an exception out of main or None)."""
    from tilec.tools import tilec_opt
    out, err = io.StringIO(), io.StringIO()
    tb = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = tilec_opt.main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: B036 - anything out of main is what we look for
            tb = traceback.format_exc()
            rc = -1000
    return rc, out.getvalue(), err.getvalue(), tb


def run_input(seed: int, index: int, workdir: str) -> dict:
    data, args, _ = make_input(seed, index)
    path = os.path.join(workdir, "input.mlir")
    with open(path, "wb") as f:
        f.write(data)
    argv = [path, *args, "-o", os.path.join(workdir, "output.mlir")]
    rc, out, err, tb = _call(argv)
    if tb is not None:
        return {"kind": "traceback", "detail": tb, "sig": _signature(tb)}
    if "Traceback (most recent call last)" in out + err:
        return {"kind": "traceback", "detail": err[-4000:], "sig": _signature(err)}
    if rc == 2:
        return _internal(argv, err)
    if rc == 1:
        return {"kind": "diagnostic" if "error" in err else "silent-exit-1", "detail": err[-2000:],
                "sig": "exit 1 without a message"}
    if rc != 0:
        return {"kind": f"exit-{rc}", "detail": err[-2000:], "sig": f"exit {rc}"}
    return _reparse(args, workdir)


def _reparse(args: list[str], workdir: str) -> dict:
    if "--verify-diagnostics" in args:
        return {"kind": "ok"}
    out_path = os.path.join(workdir, "output.mlir")
    if not os.path.exists(out_path) or not open(out_path).read().strip():
        return {"kind": "ok"}
    argv = [out_path, "-o", os.path.join(workdir, "output2.mlir")]
    argv += [a for a in args if a in ("--split-input-file", "--allow-unregistered-dialect")]
    rc, _, err, tb = _call(argv)
    if rc == 0:
        return {"kind": "ok"}
    detail = tb or err
    return {"kind": "reparse", "detail": detail[-3000:], "sig": "reparse: " + _signature(detail)}


def _internal(argv: list[str], err: str) -> dict:
    """Exit 2: run it again with TILEC_TRACEBACK=1 for the traceback."""
    os.environ["TILEC_TRACEBACK"] = "1"
    try:
        _, _, err2, tb = _call(argv)
    finally:
        del os.environ["TILEC_TRACEBACK"]
    detail = tb or _internal_part(err2 or err)
    return {"kind": "internal", "detail": detail[:8000], "sig": _signature(detail)}


def _internal_part(err: str) -> str:
    """The internal errors and their tracebacks, without the input's ordinary diagnostics."""
    keep, in_tb = [], False
    for line in err.splitlines():
        if "internal error" in line or "reproduce with" in line or "produced)" in line:
            keep.append(line)
            in_tb = "Traceback" in line
        elif in_tb and (line.startswith(" ") or re.match(r"\w+(Error|Exception)\b", line)):
            keep.append(line)
        else:
            in_tb = False
    return "\n".join(keep) or err[-4000:]


FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _signature(text: str) -> str:
    """Where in tilec it went wrong (innermost tilec frame) and the exception type: the key
    failures are grouped by."""
    first = text.find("Traceback")
    if first >= 0:  # the first traceback only
        second = text.find("Traceback", first + 1)
        text = text[first:second if second > 0 else None]
    frames = [m for m in FRAME.finditer(text)
              if "/tilec/" in m.group(1) or "/passes/" in m.group(1)
              or "/dialects/" in m.group(1) or "/tools/" in m.group(1)]
    where = ""
    if frames:
        f = frames[-1]
        where = f"{f.group(1).split('/main/')[-1]}:{f.group(2)} in {f.group(3)}"
    if not frames:  # the dialects' rules broken by a pass: the pass and the rule
        m = re.search(r"error: (?:'[\w.]+' op )?(.*?) \(in the IR pass '([\w-]+)' produced\)", text)
        if m:
            return f"pass {m.group(2)} produced invalid IR: " + re.sub(r"\d+", "N", m.group(1))[:120]
    exc = re.findall(r"^(\w+(?:Error|Exception|Exit)\b)", text, re.MULTILINE)
    if not exc:
        exc = re.findall(r"internal error[^:]*: (\w+)", text)
    return f"{exc[-1] if exc else '?'} at {where or '?'}"
