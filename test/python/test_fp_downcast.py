"""Float downcasts with `fp_downcast_rounding` without a GPU: the PTX conversion a kernel
compiles to, the lowering rule of tile.fp_to_fp on vectors of registers, and the interpreter's
exact bits against NumPy (the GPU against the interpreter is in test_gpu_backend.py)."""
from __future__ import annotations

import re

from fractions import Fraction

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import func

import downcast_kernels as D
import tilec
from tilec.context import make_context, parse_module
from tilec.lowering import Distributed, Lowering

BF16 = D.BF16
NAMES = {np.dtype(np.float64): "fp64", np.dtype(np.float32): "fp32",
         np.dtype(np.float16): "fp16", BF16: "bf16"}
PAIRS = [(np.float32, np.float16), (np.float32, BF16), (np.float64, np.float16),
         (np.float64, BF16), (np.float64, np.float32)]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))


def ptx_of(source, target, rounding: str, n_type: str = "i32") -> str:
    signature = {"x_ptr": f"*{NAMES[np.dtype(source)]}:16",
                 "out_ptr": f"*{NAMES[np.dtype(target)]}:16", "n": n_type}
    compiled = tilec.compile(D.downcast, signature=signature,
                             constexprs={"ROUNDING": rounding, "BLOCK": 1024},
                             stop_after="cubin")
    assert compiled.asm["cubin"], "ptxas produced no cubin"
    return compiled.asm["ptx"]


def conversions(ptx: str) -> set[str]:
    return {c for c in re.findall(r"\bcvt(?:\.\w+)+", ptx) if re.search(r"f16|f32|f64", c)}


# rtz: two f32 an instruction to f16/bf16 (cvt.rz.{f16x2,bf16x2}.f32, sm_80); from f64 first
# cvt.rz.f32.f64 (truncating twice is truncating once).
@pytest.mark.parametrize("source, target, expected", [
    (np.float32, np.float16, {"cvt.rz.f16x2.f32"}),
    (np.float32, BF16, {"cvt.rz.bf16x2.f32"}),
    (np.float64, np.float16, {"cvt.rz.f32.f64", "cvt.rz.f16x2.f32"}),
    (np.float64, BF16, {"cvt.rz.f32.f64", "cvt.rz.bf16x2.f32"}),
    (np.float64, np.float32, {"cvt.rz.f32.f64"}),
])
@pytest.mark.parametrize("n_type", ["i32", "i32:16"])  # scalar and vector memory accesses
def test_rtz_downcast_compiles_to_cvt_rz(source, target, expected, n_type):
    assert conversions(ptx_of(source, target, "rtz", n_type)) == expected


def test_rtne_downcast_rounds_to_nearest():
    found = conversions(ptx_of(np.float32, np.float16, "rtne"))
    assert found and all(".rn." in c for c in found), found


# --- the lowering rule on registers held as vectors ------------------------------------------

RULE_INPUT = """
#b = #tilegpu.blocked<[1], [32], [4], [0]>
func.func @f(%t: tensor<256xf32, #b>) {
  %h = "tile.fp_to_fp"(%t) {rounding = "ROUNDING"} : (tensor<256xf32, #b>) -> tensor<256xf16, #b>
  return
}
"""


@pytest.mark.parametrize("rounding, op_name, count", [("rtz", "nvvm.convert.f32x2.to.f16x2", 4),
                                                       ("rtne", "arith.truncf", 2)])
def test_rule_keeps_vectors_of_registers_as_vectors(rounding, op_name, count):
    """The rule is given a thread's elements as vector<4xf32> and vector<3xf32> (7 elements: the
    last packed conversion has one) and gives back vector<4xf16> and vector<3xf16>."""
    context = make_context()
    module = parse_module(RULE_INPUT.replace("ROUNDING", rounding), context)
    with context, ir.Location.unknown():
        fp_to_fp = next(op for op in module.regions[0].blocks[0].operations[0].regions[0]
                        .blocks[0].operations if op.operation.name == "tile.fp_to_fp").operation
        f32 = ir.F32Type.get()
        shapes = [4, 3]
        out = ir.Module.create()
        with ir.InsertionPoint(out.body):
            lowered = func.FuncOp("g", ([ir.VectorType.get([n], f32) for n in shapes], []))
            entry = lowered.add_entry_block()
        with ir.InsertionPoint(entry):
            lowering = Lowering(num_warps=4)
            layout = None
            lowering.set(fp_to_fp.operands[0], Distributed(layout, (256,), list(entry.arguments)))
            lowering.lower_op(fp_to_fp)
            result = lowering.get(fp_to_fp.results[0])
            func.ReturnOp([])
        assert out.operation.verify()
        assert [str(v.type) for v in result.values] == [f"vector<{n}xf16>" for n in shapes]
        names = [op.operation.name for op in entry.operations]
        assert names.count(op_name) == count, names


# --- the interpreter: exact bits against NumPy -------------------------------------------------

def canonical_nan(result: np.ndarray, values: np.ndarray, rounding: str = "rtz") -> np.ndarray:
    """What the GPU's conversions to 16-bit floats give for NaN: 0x7fff, whatever the NaN, from
    fp32 (and from fp64 toward zero, through fp32); from fp64 to nearest (cvt.rn.f16.f64,
    cvt.rn.bf16.f64) the quiet NaN with the input's sign."""
    if result.dtype.itemsize != 2:
        return result
    result = result.copy()
    nan = np.isnan(values)
    if values.dtype == np.float64 and rounding == "rtne":
        quiet = 0x7E00 if result.dtype == np.float16 else 0x7FC0
        result.view(np.uint16)[nan] = quiet | (np.signbit(values[nan]).astype(np.uint16) << 15)
    else:
        result.view(np.uint16)[nan] = 0x7FFF
    return result


def nearest_even(values: np.ndarray, target) -> np.ndarray:
    """Rounding to nearest even, once, from the value itself: of the two neighbours in `target`
    (toward zero and away from it), the nearer, by exact arithmetic; the even one on a tie."""
    target = np.dtype(target)
    low = toward_zero(values, target)
    bits = D.bits_type(target)
    out = low.copy()
    info = D.finfo(target)
    for i, (x, lo) in enumerate(zip(values.astype(np.float64), low)):
        if not np.isfinite(x) or float(lo) == x:
            continue
        hi = (np.array([lo]).view(bits) + 1).view(target)[0]  # one step away from zero
        if not np.isfinite(float(hi)):  # past the largest finite: to nearest overflows
            hi = np.array([np.copysign(np.inf, x)], target)[0]
            if abs(x) < float(info.max) + (float(info.max) - float(np.nextafter(
                    np.array(info.max, target), 0))) / 2:
                continue
            out[i] = hi
            continue
        below, above = Fraction(x) - Fraction(float(lo)), Fraction(float(hi)) - Fraction(x)
        below, above = abs(below), abs(above)
        if above < below or (above == below and np.array([lo]).view(bits)[0] & 1):
            out[i] = hi
    return canonical_nan(out, values, "rtne")


def toward_zero(values: np.ndarray, target) -> np.ndarray:
    """Rounding toward zero computed on the float64 bits: a normal value keeps the top
    mantissa bits of `target` (the rest cleared), a smaller one the multiple of the smallest
    subnormal below it; finite values past the largest finite one become it; infinities
    stay."""
    target = np.dtype(target)
    info = D.finfo(target)
    wide = values.astype(np.float64)
    cleared = wide.view(np.uint64) & ~np.uint64((1 << (52 - int(info.nmant))) - 1)
    step = float(info.smallest_subnormal)
    with np.errstate(all="ignore"):
        small = np.trunc(wide / step) * step  # exact: step is a power of two
        out = np.where(np.abs(wide) < float(info.tiny), small, cleared.view(np.float64))
        out = np.where(np.isfinite(wide), np.clip(out, -float(info.max), float(info.max)), wide)
    return canonical_nan(out.astype(target), values)


def run_interpreted(values: np.ndarray, target, rounding: str, monkeypatch) -> np.ndarray:
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    out = np.zeros(values.size, target)
    block = 1024
    D.downcast[(-(-values.size // block),)](values, out, values.size, ROUNDING=rounding,
                                            BLOCK=block)
    return out


def assert_same_bits(got: np.ndarray, expected: np.ndarray, values: np.ndarray):
    bits = D.bits_type(got.dtype)
    differ = np.nonzero(got.view(bits) != expected.view(bits))[0]
    shown = [f"{values[i]!r} ({values.view(D.bits_type(values.dtype))[i]:#x}): got "
             f"{got.view(bits)[i]:#x}, expected {expected.view(bits)[i]:#x}" for i in differ[:10]]
    assert not differ.size, f"{differ.size} of {values.size} differ:\n" + "\n".join(shown)


@pytest.mark.parametrize("source, target", PAIRS,
                         ids=[f"{NAMES[np.dtype(s)]}-{NAMES[np.dtype(t)]}" for s, t in PAIRS])
@pytest.mark.parametrize("rounding, reference", [("rtne", nearest_even), ("rtz", toward_zero)])
def test_interpreter_downcast_bits(source, target, rounding, reference, monkeypatch):
    values = D.rounding_inputs(source, target)
    got = run_interpreted(values, target, rounding, monkeypatch)
    assert_same_bits(got, reference(values, target), values)


def test_interpreter_rtz_cases_by_hand(monkeypatch):
    """A few fp32 -> fp16 cases spelled out (rtne, rtz)."""
    cases = [
        (1 + 2 ** -11, 0x3C00, 0x3C00),                  # tie: to even (1.0); truncated: 1.0
        (1 + 2 ** -11 + 2 ** -23, 0x3C01, 0x3C00),       # just above the tie
        (-(1 + 2 ** -10 - 2 ** -23), 0xBC01, 0xBC00),    # just below -(1 + ulp)
        (65519.0, 0x7BFF, 0x7BFF),
        (65520.0, 0x7C00, 0x7BFF),                       # the tie past the largest finite
        (-1e30, 0xFC00, 0xFBFF),
        (float("inf"), 0x7C00, 0x7C00),
        (float("-inf"), 0xFC00, 0xFC00),
        (float("nan"), 0x7FFF, 0x7FFF),
        (-float("nan"), 0x7FFF, 0x7FFF),
        (2 ** -25, 0x0000, 0x0000),                      # half the smallest subnormal: to even
        (2 ** -25 + 2 ** -40, 0x0001, 0x0000),
        (-3 * 2 ** -26, 0x8001, 0x8000),                 # -0.75 of the smallest subnormal
    ]
    values = np.array([c[0] for c in cases], np.float32)
    for rounding, column in (("rtne", 1), ("rtz", 2)):
        got = run_interpreted(values, np.float16, rounding, monkeypatch)
        assert_same_bits(got, np.array([c[column] for c in cases], np.uint16).view(np.float16),
                         values)
