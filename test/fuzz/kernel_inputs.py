"""The kernel half of the fuzzer: random small `@tilec.jit` kernels from a grammar of
tilec.language constructs, compiled for cuda:90 and run in the interpreter.

`make_kernel(seed, index)` is a pure function of its arguments (the parent rebuilds a failing
kernel from them). Block dimensions stay at most 64 and blocks at most 64x64 elements, so a
compile takes a fraction of a second. About one kernel in four carries a deliberate mistake
(wrong arity, wrong types, mismatched shapes, constexpr division by zero, unbounded recursion,
bad launch arguments, ...).

Outcomes, per mode (`compile:` and `interp:`):
    ok, diagnostic    success, or a CompilationError naming the kernel's file and a line
    resources         tilec.errors.OutOfResources naming the file and line (a block too large)
    runtime-error     interpreter only: a tilec.errors KernelRuntimeError (out of bounds, ...)
    launch-error      interpreter only: TypeError/ValueError at launch for a deliberately wrong
                      argument kind
    exception         any other exception type (a failure)
    ice               an "internal compiler error" message (a failure)
    no-location       an error that does not name the kernel's file and a line (a failure)
"""
from __future__ import annotations

import importlib.util
import os
import random
import re
import sys
import traceback
import warnings

POW2 = [1, 2, 4, 8, 16, 32, 64]
ARRAY_SIZE = 4096
X_DTYPES = {"fp32": ("float32", "tl.float32"), "fp16": ("float16", "tl.float16"),
            "i32": ("int32", "tl.int32")}
CAST_TYPES = ["tl.float32", "tl.float16", "tl.int32", "tl.int1", "tl.int64", "tl.bfloat16",
              "tl.uint8", "tl.float64", "tl.int8"]
BINOPS = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>"]
CMPOPS = ["<", "<=", ">", ">=", "==", "!="]
SAFE_BINOPS = ["+", "-", "*"]

HELPERS = '''
@tilec.jit
def helper(a, b):
    return a * b + 1


@tilec.jit
def pair(a, b):
    return a + b, a - b


@tilec.jit
def rec(a, N: tl.constexpr):
    if N <= 0:
        return a
    return rec(a + 1, N - 1)


@tilec.jit
def rec_forever(a):
    return rec_forever(a + 1)


@tilec.jit
def early(a, flag: tl.constexpr):
    if flag:
        return a * 2
    return a
'''


class Gen:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines: list[str] = []
        self.indent = 1
        self.n = 0
        self.vals: list[tuple[str, tuple]] = []  # (name, shape) of the 1-D / 2-D / scalar values
        self.mistake = None

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def fresh(self) -> str:
        self.n += 1
        return f"v{self.n}"

    def pick(self, *weighted):
        """weighted: (weight, value) pairs."""
        total = sum(w for w, _ in weighted)
        r = self.rng.random() * total
        for w, v in weighted:
            r -= w
            if r < 0:
                return v
        return weighted[-1][1]

    # ---- expressions of a known shape: () scalar, ("B",), ("B", "C") ---------------------------

    def leaf(self, shape):
        names = [n for n, s in self.vals if s == shape]
        r = self.rng.random()
        if names and r < 0.5:
            return self.rng.choice(names)
        if shape == ():
            return self.rng.choice(["n", "s", "3", "1.5", "B", "(C * 2)", "(B // C)", "-1",
                                    "tl.program_id(0)", "tl.num_programs(0)", "n.to(tl.float32)",
                                    "0", "True", "(D + 1)", "tl.cdiv(n, B)"])
        if shape == ("B",):
            return self.rng.choice(["offs", "x", "tl.arange(0, B)", "tl.zeros([B], tl.float32)",
                                    "tl.full([B], 2, tl.int32)", "tl.full((B,), 1.5, tl.float16)",
                                    "tl.load(x_ptr + offs)", "tl.load(x_ptr + offs, mask=mask)",
                                    "tl.load(x_ptr + offs, mask=offs < n, other=1)"])
        return self.rng.choice(["x2", "tl.zeros([B, C], tl.float32)", "tl.full([B, C], 7, tl.int32)",
                                "tl.load(x_ptr + offs2)", "(offs[:, None] + tl.arange(0, C)[None, :])",
                                "tl.broadcast_to(offs[:, None], [B, C])",
                                "tl.load(x_ptr + offs2, mask=offs2 < n, other=0)"])

    def expr(self, shape, depth=0):
        if depth > 3 or self.rng.random() < 0.3:
            return self.leaf(shape)
        e = lambda s=shape: self.expr(s, depth + 1)  # noqa: E731
        r = self.rng
        choice = self.pick((6, "bin"), (2, "cmp"), (3, "cast"), (2, "where"), (2, "math"),
                           (2, "reduce"), (1, "helper"), (1, "tuple"), (1, "shape"),
                           (1, "minmax"))
        if choice == "bin":
            op = r.choice(SAFE_BINOPS if r.random() < 0.6 else BINOPS)
            other = e(()) if r.random() < 0.3 else e()
            return f"({e()} {op} {other})"
        if choice == "cmp":
            return f"({e()} {r.choice(CMPOPS)} {e()})"
        if choice == "cast":
            bitcast = ", bitcast=True" if r.random() < 0.1 else ""
            if shape == () and r.random() < 0.8:  # a number has no .to (a scalar tensor has)
                return f"tl.cast({e()}, {r.choice(CAST_TYPES)}{bitcast})"
            return f"{self.wrap(e())}.to({r.choice(CAST_TYPES)}{bitcast})"
        if choice == "where":
            return f"tl.where({e()} > 0, {e()}, {e()})"
        if choice == "math":
            fn = r.choice(["tl.exp", "tl.sqrt", "tl.abs", "tl.log", "tl.sigmoid", "tl.math.rsqrt",
                           "tl.floor", "tl.cos"])
            return f"{fn}({self.wrap(e())}.to(tl.float32))"
        if choice == "minmax":
            fn = r.choice(["tl.maximum", "tl.minimum"])
            return f"{fn}({e()}, {e()})"
        if choice == "reduce":
            return self.reduce(shape, depth)
        if choice == "helper":
            fn = r.choice(["helper({a}, {b})", "pair({a}, {b})[0]", "rec({a}, 3)",
                           "early({a}, B > 8)", "pair({a}, {b})[1]"])
            return fn.format(a=e(), b=e())
        if choice == "tuple":
            t = self.fresh()
            self.emit(f"{t} = ({e()}, {e()})")
            return r.choice([f"{t}[0]", f"{t}[1]", f"({t}[0] + {t}[-1])", f"{t}[len({t}) - 1]"])
        return self.reshape(shape, depth)

    def wrap(self, code: str) -> str:
        plain = re.fullmatch(r"[A-Za-z_][\w.]*", code) or code.startswith("(") and code.endswith(")")
        return code if plain else f"({code})"

    def reduce(self, shape, depth):
        r = self.rng
        fn = r.choice(["tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin", "tl.xor_sum",
                       "tl.cumsum"])
        if fn == "tl.cumsum":
            return f"{fn}({self.expr(shape, depth + 1)}, 0)" if shape else self.leaf(shape)
        if fn == "tl.xor_sum":
            src = f"{self.wrap(self.expr(shape + ('B',) if len(shape) < 2 else shape, depth + 1))}.to(tl.int32)"
        else:
            src = None
        if shape == ():
            return f"{fn}({src or self.expr(('B',), depth + 1)}, axis=0)"
        if shape == ("B",):
            return f"{fn}({src or self.expr(('B', 'C'), depth + 1)}, axis=1)"
        return self.leaf(shape)

    def reshape(self, shape, depth):
        r = self.rng
        if shape == ("B", "C"):
            return r.choice([
                f"tl.broadcast_to(tl.expand_dims({self.expr(('B',), depth + 1)}, 1), [B, C])",
                f"tl.reshape({self.expr(('B', 'C'), depth + 1)}, [B, C])",
                f"tl.trans(tl.trans({self.expr(('B', 'C'), depth + 1)}))",
                f"tl.reshape(tl.reshape({self.expr(('B', 'C'), depth + 1)}, [B * C]), [B, C])",
                f"tl.permute({self.expr(('B', 'C'), depth + 1)}, (0, 1))",
                f"({self.expr(('B',), depth + 1)}[:, None] * {self.expr(('B', 'C'), depth + 1)})",
            ])
        if shape == ("B",):
            return r.choice([
                f"tl.reshape(tl.expand_dims({self.expr(('B',), depth + 1)}, 0), [B])",
                f"tl.ravel(tl.expand_dims({self.expr(('B',), depth + 1)}, 1))",
                f"tl.sum(tl.trans(tl.broadcast_to({self.expr(('B',), depth + 1)}[:, None], [B, C])), 0)",
            ])
        return self.leaf(shape)

    # ---- statements ---------------------------------------------------------------------------

    def assign(self, shape=None):
        shape = shape if shape is not None else self.rng.choice([(), ("B",), ("B",), ("B", "C")])
        name = self.fresh()
        self.emit(f"{name} = {self.expr(shape)}")
        self.vals.append((name, shape))
        return name

    def statement(self, depth=0):
        r = self.rng
        kind = self.pick((6, "assign"), (2, "store"), (2, "if"), (2, "for"), (1, "dot"),
                         (1, "aug"), (1, "while"), (1, "static"))
        if kind == "assign" or depth > 1:
            self.assign()
        elif kind == "store":
            self.store()
        elif kind == "aug" and self.vals:
            name, shape = r.choice(self.vals)
            self.emit(f"{name} {r.choice(SAFE_BINOPS)}= {self.expr(shape if r.random() < 0.7 else ())}")
        elif kind == "if":
            cond = r.choice(["B > 8", "C == 1", "D > 0", "n > 3", "s > 0", "tl.program_id(0) == 0",
                             "(n > 1) and (B > 1)", "B == 0"])
            shape = r.choice([(), ("B",)])
            target = self.fresh()
            self.emit(f"{target} = {self.expr(shape)}")
            self.emit(f"if {cond}:")
            self.indent += 1
            self.emit(f"{target} = {self.expr(shape)}")
            if r.random() < 0.4:
                self.statement(depth + 1)
            self.indent -= 1
            if r.random() < 0.6:
                self.emit("else:")
                self.indent += 1
                self.emit(f"{target} = {self.expr(shape)}")
                self.indent -= 1
            self.vals.append((target, shape))
        elif kind == "for":
            acc = self.fresh()
            shape = r.choice([(), ("B",), ("B", "C")])
            self.emit(f"{acc} = {self.expr(shape)}")
            bound = r.choice(["range(0, C)", "range(3)", "tl.range(0, n)", "tl.static_range(4)",
                              "range(0, n, 2)", "tl.range(0, 8, num_stages=2)", "range(C, 0, -1)",
                              "range(0, D % 5)"])  # D may be 2**40: not as a trip count
            self.emit(f"for i in {bound}:")
            self.indent += 1
            self.emit(f"{acc} = {acc} + {self.expr(shape)} * i")
            if r.random() < 0.3:
                self.statement(depth + 1)
            self.indent -= 1
            self.vals.append((acc, shape))
        elif kind == "while":
            i = self.fresh()
            self.emit(f"{i} = 0")
            # n may be 4096: nested in a loop over n, n trips ran for minutes interpreted
            self.emit(f"while {i} < {r.choice(['n % 16', '4', 'C'])}:")
            self.indent += 1
            self.emit(f"{i} += 1")
            self.indent -= 1
            self.vals.append((i, ()))
        elif kind == "static":
            self.emit(r.choice(["tl.static_assert(B > 0)", "tl.static_assert(C <= 64, 'big')",
                                "tl.device_assert(n >= 0)", "tl.debug_barrier()"]))
        else:
            self.dot()

    def dot(self):
        r = self.rng
        m, k, n = (r.choice([16, 16, 32, 64, 8, 1]) for _ in range(3))
        k2 = k if r.random() < 0.85 else r.choice([16, 32, 8])
        dt = r.choice(["tl.float16", "tl.float16", "tl.float32", "tl.bfloat16", "tl.int8"])
        a, b, c = self.fresh(), self.fresh(), self.fresh()
        self.emit(f"{a} = tl.load(x_ptr + tl.arange(0, {m})[:, None] * {k} + "
                  f"tl.arange(0, {k})[None, :]).to({dt})")
        self.emit(f"{b} = tl.load(x_ptr + tl.arange(0, {k2})[:, None] * {n} + "
                  f"tl.arange(0, {n})[None, :]).to({dt})")
        extra = r.choice(["", "", ", input_precision='ieee'", ", input_precision='tf32'",
                          f", acc=tl.zeros([{m}, {n}], tl.float32)", ", out_dtype=tl.float32"])
        self.emit(f"{c} = tl.dot({a}, {b}{extra})")
        if r.random() < 0.5:
            self.emit(f"{c} = tl.dot({c}.to({dt}), tl.trans({c}).to({dt}))")
        self.emit(f"tl.store(y_ptr + tl.arange(0, {m})[:, None] * {n} + tl.arange(0, {n})[None, :], "
                  f"{c})")

    def store(self):
        r = self.rng
        if r.random() < 0.6:
            self.emit(f"tl.store(y_ptr + offs, {self.expr(('B',))}, mask=mask)")
        elif r.random() < 0.5:
            self.emit(f"tl.store(y_ptr + offs2, {self.expr(('B', 'C'))})")
        else:
            self.emit(f"tl.store(y_ptr + tl.program_id(0), {self.expr(())})")

    MISTAKES = [
        "tl.arange(0)", "tl.load()", "tl.sum()", "tl.dot(x)", "tl.where(mask, x)",
        "tl.dot(offs, offs)", "tl.load(n)", "tl.arange(0.5, B)", "tl.arange(0, 2 ** 40)",
        "tl.arange(0, B * 3)", "tl.arange(B, 0)", "tl.full([B], 2 ** 70, tl.int32)",
        "tl.zeros(B, tl.float32)", "x.to('float32')", "tl.full([B], 1, 3)", "undefined_name + 1",
        "tl.foobar(x)", "x.nonexistent", "offs + tl.arange(0, 2 * B)", "tl.reshape(x, [B + 1])",
        "tl.trans(x, 5)", "tl.expand_dims(x, 7)", "tl.sum(x, axis=3)", "tl.broadcast_to(x2, [B])",
        "B // 0", "B % 0", "B / 0", "tl.cdiv(B, 0)", "tl.full([B], B // (C - C), tl.int32)",
        "2 ** 100000", "rec_forever(x)", "rec(x, 100000)", "helper(x)", "helper(x, x, x)",
        "pair(x)", "x_ptr * 2", "tl.load(x_ptr + offs, mask=3.5)", "tl.sum(x_ptr + offs, 0)",
        "tl.dot(x2, x2)", "tl.static_assert(B < 0)", "tl.exp(x_ptr)", "x[B]", "x[0]",
        "tl.full([B, C], 1, tl.float32)[:, :, None, None, None]", "tl.load(y_ptr + offs2d)",
        "tl.arange(0, B)[None, None, None, None, None, None, None, None]",
        "tl.dot(tl.zeros([16, 16], tl.float16), tl.zeros([32, 16], tl.float16))",
        "tl.dot(tl.zeros([16, 16], tl.float16), tl.zeros([16, 16], tl.float32))",
        "tl.dot(tl.zeros([2, 2], tl.float16), tl.zeros([2, 2], tl.float16))",
        "tl.dot(tl.zeros([16, 16], tl.int1), tl.zeros([16, 16], tl.int1))",
        "tl.static_range(n)", "tl.reduce(x, 0, helper)", "tl.sort(x, 5)", "tl.gather(x, x, 0)",
        "tl.histogram(x, 0)", "tl.atomic_add(x_ptr + offs, 1.0, sem='bogus')", "s.to(tl.int1) + x2",
        "tl.view(x, [3])", "tl.split(x)", "tl.join(x, x2)", "tl.cat(x, x2)",
        "tl.device_print('v', x_ptr)", "tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (B,), (0,))",
    ]
    STATEMENT_MISTAKES = [
        "return x", "a1, a2 = (x, x, x)", "a1, a2 = x", "B = 3", "x_ptr = x_ptr + 1.5",
        "del x", "import os", "for i in range(n):\n        x = tl.zeros([2 * B], tl.float32)",
        "if n > 0:\n        only_here = x\n    tl.store(y_ptr + offs, only_here)",
        "if n > 0:\n        x = tl.zeros([B], tl.float16)\n    else:\n        x = tl.zeros([2 * B], tl.int32)",
        "while n > 0:\n        x = x.to(tl.float16)\n        n -= 1", "assert B > 1000", "print(x)", "x += x_ptr",
        "tl.store(y_ptr + offs, x, mask=offs2 < 0)", "tl.store(x_ptr, x_ptr)", "tl.store(y_ptr)",
        "global gg", "pass", "x = tl.load(x_ptr + offs, eviction_policy='never')",
        "x = tl.load(x_ptr + offs, cache_modifier='.zz')",
    ]

    def mistake_line(self):
        r = self.rng
        if r.random() < 0.6:
            m = r.choice(self.MISTAKES)
            self.emit(f"bad = {m}")
            self.emit("tl.store(y_ptr + offs, bad)")
        else:
            m = r.choice(self.STATEMENT_MISTAKES)
            self.emit(m)
        self.mistake = m


def make_kernel(seed: int, index: int) -> dict:
    """{'source', 'signature', 'constexprs', 'xdtype', 'launch', 'mistake'} of one kernel."""
    rng = random.Random(f"kernel-{seed}-{index}")
    g = Gen(rng)
    b, c = rng.choice(POW2[2:]), rng.choice(POW2)
    while b * c > ARRAY_SIZE:
        c //= 2
    d = rng.choice([0, 1, 3, 4, -1, 2**31, 2**40, 2**64])
    if rng.random() < 0.05:  # invalid block sizes on purpose
        b = rng.choice([0, 3, 100, 2**20, -4])
    xd = rng.choice(list(X_DTYPES))
    g.emit("offs = tl.arange(0, B)")
    g.emit("mask = offs < n")
    g.emit("x = tl.load(x_ptr + offs, mask=mask, other=0)")
    g.emit("offs2 = offs[:, None] * C + tl.arange(0, C)[None, :]")
    g.emit("x2 = tl.load(x_ptr + offs2)")
    g.vals += [("x", ("B",)), ("offs", ("B",)), ("x2", ("B", "C"))]
    mistake_at = rng.randrange(8) if rng.random() < 0.25 else -1
    for i in range(rng.randrange(2, 9)):
        if i == mistake_at:
            g.mistake_line()
        g.statement()
    g.store()
    body = "\n".join(g.lines)
    source = ("import tilec\nimport tilec.language as tl\n\n" + HELPERS + "\n\n@tilec.jit\n"
              "def kern(x_ptr, y_ptr, n, s, B: tl.constexpr, C: tl.constexpr, D: tl.constexpr):\n"
              f"{body}\n")
    launch = "ok"
    if rng.random() < 0.05:
        launch = rng.choice(["list", "string-n", "missing", "extra", "tuple-x", "none-y"])
    return {"source": source, "signature": {"x_ptr": f"*{xd}", "y_ptr": "*fp32", "n": "i32",
                                            "s": "fp32"},
            "constexprs": {"B": b, "C": c, "D": d}, "xdtype": xd, "launch": launch,
            "mistake": g.mistake, "n": rng.choice([0, 5, 16, 64, ARRAY_SIZE]),
            "s": rng.choice([0.0, 1.5, -2.0]),
            # three kernels in eight compile as programs of clusters (drawn apart from rng, so a
            # seed's kernels are those it gave before)
            "num_ctas": (1, 1, 2, 1, 1, 1, 4, 8)[index % 8]}


# ---- running one kernel (inside a worker) -------------------------------------------------------

def load_kernel(path: str):
    name = "fuzz_kernel_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.kern


def classify(exc: BaseException, path: str, mode: str, spec: dict) -> tuple[str, str]:
    import tilec
    from tilec import errors
    text = str(exc)
    tb = "".join(traceback.format_exception(exc))
    if "internal compiler error" in text.lower():
        return "ice", tb
    located = re.search(re.escape(path) + r":\d+", text) is not None
    if isinstance(exc, tilec.CompilationError):
        return ("diagnostic" if located else "no-location"), tb
    if isinstance(exc, errors.OutOfResources):  # a block too large for the registers
        return ("resources" if located else "no-location"), tb
    if mode == "interp" and isinstance(exc, errors.KernelRuntimeError):
        return ("runtime-error" if located else "no-location"), tb
    if mode == "interp" and spec["launch"] != "ok" and isinstance(exc, (TypeError, ValueError)):
        return "launch-error", tb
    return "exception", tb


def run_kernel(seed: int, index: int, workdir: str) -> dict:
    import numpy as np
    import tilec
    spec = make_kernel(seed, index)
    path = os.path.join(workdir, f"kernel_{seed}_{index}.py")
    with open(path, "w") as f:
        f.write(spec["source"])
    results = {}
    try:
        kern = load_kernel(path)
    except Exception as exc:  # the generator wrote bad Python
        return {"kinds": {"load": "generator-error"}, "details": {"load": traceback.format_exc()},
                "sigs": {"load": f"{type(exc).__name__}: {exc}"}}
    os.environ.pop("TILEC_INTERPRET", None)
    try:
        tilec.compile(kern, signature=spec["signature"], constexprs=spec["constexprs"],
                      target="cuda:90", num_ctas=spec["num_ctas"])
        results["compile"] = ("ok", "")
    except Exception as exc:
        results["compile"] = classify(exc, path, "compile", spec)
    x = (np.arange(ARRAY_SIZE) % 7).astype(X_DTYPES[spec["xdtype"]][0])
    y = np.zeros(ARRAY_SIZE, np.float32)
    args = [x, y, spec["n"], spec["s"]]
    launch = spec["launch"]
    if launch == "list":
        args[0] = [1, 2, 3]
    elif launch == "string-n":
        args[2] = "abc"
    elif launch == "missing":
        args = args[:2]
    elif launch == "extra":
        args.append(7)
    elif launch == "tuple-x":
        args[0] = (x, x)
    elif launch == "none-y":
        args[1] = None
    os.environ["TILEC_INTERPRET"] = "1"
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            kern[(1,)](*args, **spec["constexprs"])
        results["interp"] = ("ok", "")
    except Exception as exc:
        results["interp"] = classify(exc, path, "interp", spec)
    finally:
        os.environ.pop("TILEC_INTERPRET", None)
        sys.modules.pop("fuzz_kernel_" + os.path.basename(path)[:-3], None)
        os.unlink(path)
    return {"kinds": {mode: kind for mode, (kind, _) in results.items()},
            "details": {mode: detail[-6000:] for mode, (_, detail) in results.items() if detail},
            "sigs": {mode: signature(detail) for mode, (kind, detail) in results.items()
                     if kind in ("exception", "ice", "no-location")}}


FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def signature(tb: str) -> str:
    frames = [m for m in FRAME.finditer(tb) if "/tilec/" in m.group(1)]
    where = ""
    if frames:
        f = frames[-1]
        where = f"{f.group(1).split('/python/')[-1]}:{f.group(2)} in {f.group(3)}"
    last = tb.strip().splitlines()[-1] if tb.strip() else "?"
    exc = last.split(":")[0]
    return f"{exc} at {where or '?'}"
