"""fp8 types (tl.float8e4nv: e4m3fn, tl.float8e5: e5m2): Triton's names, attributes and
promotion; loads, stores and conversions to and from fp16/bf16/fp32/fp64 and integers (to
nearest even, saturating at the largest finite value, as the GPU's cvt.rn.satfinite does), in
the interpreter, compiled (PTX's fp8 cvt), and on the GPU against torch's conversions."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import runtime
from tilec.compiler import CompileOptions, compile_specialized
from tilec.errors import CompilationError
from interpreting import interpret

FORMATS = {"float8e4nv": (ml_dtypes.float8_e4m3fn, "e4m3", 448.0),
           "float8e5": (ml_dtypes.float8_e5m2, "e5m2", 57344.0)}
WIDE = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


@tilec.jit
def widen(src, dst, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + o, tl.load(src + o, mask=o < n).to(dst.dtype.element_ty), mask=o < n)


@tilec.jit
def narrow(src, dst, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + o, tl.load(src + o, mask=o < n).to(dst.dtype.element_ty), mask=o < n)


def every_byte(fmt: str) -> np.ndarray:
    return np.arange(256, dtype=np.uint8).view(FORMATS[fmt][0])


def nearest_fp8(values: np.ndarray, fmt: str) -> np.ndarray:
    """An independent model of the narrowing: each value's nearest finite fp8 value by search
    over all 256 bytes (ties to the even byte), saturating at the largest, NaN to NaN."""
    kind, _, largest = FORMATS[fmt]
    table = every_byte(fmt)
    finite = np.isfinite(table.astype(np.float64))
    codes = np.nonzero(finite)[0]
    points = table.astype(np.float64)[codes]
    wide = np.asarray(values).astype(np.float64)
    out = np.empty(wide.shape, np.uint8)
    for i, v in enumerate(wide.ravel()):
        if np.isnan(v):
            out.flat[i] = 0x7F
            continue
        v = min(max(v, -largest), largest)
        distance = np.abs(points - v)
        best = codes[distance == distance.min()]
        if len(best) > 1:  # a tie: the even mantissa (the even byte); -0 vs +0 by sign
            best = best[best % 2 == 0]
            if len(best) > 1:
                best = best[(best >= 128) == bool(np.signbit(v))]
        out.flat[i] = best[0]
    return out.view(kind)


def test_the_types_are_tritons():
    assert tl.float8e4nv is tl.dtype("fp8e4nv") or tl.float8e4nv == tl.dtype("fp8e4nv")
    assert (tl.float8e4nv.primitive_bitwidth, tl.float8e4nv.fp_mantissa_width,
            tl.float8e4nv.exponent_bias) == (8, 3, 7)
    assert (tl.float8e5.primitive_bitwidth, tl.float8e5.fp_mantissa_width,
            tl.float8e5.exponent_bias) == (8, 2, 15)
    assert tl.float8e4nv.is_fp8() and tl.float8e4nv.is_floating() and not tl.float16.is_fp8()
    assert "fp8e4nv" in tl.dtype.FP8_TYPES and "fp8e5" in tl.dtype.FP_TYPES
    assert str(tl.pointer_type(tl.float8e5).codegen_name()) == "*fp8e5"
    array = np.zeros(4, ml_dtypes.float8_e4m3fn)
    assert runtime.pointer_dtype_name(array) == "fp8e4nv"
    assert runtime.pointer_dtype_name(np.zeros(4, ml_dtypes.float8_e5m2)) == "fp8e5"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("wide", WIDE)
def test_widening_every_byte_in_the_interpreter(fmt, wide):
    src = every_byte(fmt)
    dst = np.zeros(256, WIDE[wide])
    interpret(widen, (1,), src, dst, 256, BLOCK=256)
    expected = src.astype(np.float64)
    np.testing.assert_array_equal(dst.astype(np.float64), expected)


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 448.0, 449.0, 464.0,
                     465.0, 57344.0, 61440.0, 61441.0, 2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -11,
                     2.0 ** -16, 2.0 ** -17, 1.5 * 2.0 ** -17, 0.1, -0.3, 1.0625, 1.1875],
                    np.float64)


def narrowing_inputs(wide: str) -> np.ndarray:
    rng = np.random.default_rng(3)
    randoms = np.concatenate([rng.standard_normal(2000) * 10.0 ** rng.integers(-6, 5, 2000),
                              rng.uniform(-70000, 70000, 500)])
    with np.errstate(over="ignore"):  # fp16: the largest values become infinities
        return np.concatenate([SPECIALS, randoms]).astype(WIDE[wide])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("wide", WIDE)
def test_narrowing_rounds_to_nearest_even_and_saturates_in_the_interpreter(fmt, wide):
    src = narrowing_inputs(wide)
    dst = np.zeros(len(src), FORMATS[fmt][0])
    interpret(narrow, (-(-len(src) // 256),), src, dst, len(src), BLOCK=256)
    expected = nearest_fp8(src, fmt)
    got, want = dst.view(np.uint8), expected.view(np.uint8)
    nan = np.isnan(src.astype(np.float64))
    np.testing.assert_array_equal(got[~nan], want[~nan])
    assert np.isnan(dst[nan].astype(np.float32)).all()


@pytest.mark.parametrize("fmt", FORMATS)
def test_conversions_compile_to_ptx_fp8_cvt(fmt):
    _, name, _ = FORMATS[fmt]
    short = getattr(tl, fmt).codegen_name()
    ptr = lambda t: (f"*{t}", True)  # noqa: E731
    n = runtime.specialize_argument(1000)
    for src, dst, instruction in [(short, "fp32", f"cvt.rn.f16x2.{name}x2"),
                                  (short, "bf16", f"cvt.rn.f16x2.{name}x2"),
                                  ("fp32", short, f"cvt.rn.satfinite.{name}x2.f32"),
                                  ("fp16", short, f"cvt.rn.satfinite.{name}x2.f16x2"),
                                  ("bf16", short, f"cvt.rn.satfinite.{name}x2.f32")]:
        kernel = compile_specialized(narrow, (ptr(src), ptr(dst), n, ("constexpr", 512)),
                                     CompileOptions())
        ptx = kernel.asm["ptx"]
        assert instruction in ptx, (src, dst)
        assert kernel.metadata["spill_stores"] == 0


@tilec.jit
def fp8_sum(x, out, BLOCK: tl.constexpr):
    a = tl.load(x + tl.arange(0, BLOCK))
    tl.store(out + tl.arange(0, BLOCK), a + a)


@tilec.jit
def fp8_dot(x, out, BLOCK: tl.constexpr):
    a = tl.load(x + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :])
    tl.store(out + tl.arange(0, BLOCK), tl.sum(tl.dot(a, a), axis=1))


def test_fp8_arithmetic_is_a_clear_error_naming_the_line():
    ptr = ("*fp8e4nv", True)
    with pytest.raises(CompilationError, match="fp8 values take no arithmetic") as err:
        compile_specialized(fp8_sum, (ptr, ptr, ("constexpr", 64)), CompileOptions(),
                            stop_after="tile")
    assert "a + a" in str(err.value)
    with pytest.raises(CompilationError, match="not supported yet"):
        compile_specialized(fp8_dot, (ptr, ("*fp32", True), ("constexpr", 16)),
                            CompileOptions(), stop_after="tile")


@tilec.jit
def mixed(a, b, out, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(out + o, tl.load(a + o) + tl.load(b + o))


def test_two_fp8_formats_compute_in_fp16_as_in_triton():
    a = np.array([1.5, -2.0, 448.0, 0.0625], ml_dtypes.float8_e4m3fn)
    b = np.array([0.25, 3.0, 1024.0, -0.0625], ml_dtypes.float8_e5m2)
    out = np.zeros(4, np.float16)
    interpret(mixed, (1,), a, b, out, BLOCK=4)
    np.testing.assert_array_equal(out, a.astype(np.float16) + b.astype(np.float16))
    kernel = compile_specialized(mixed, (("*fp8e4nv", True), ("*fp8e5", True),
                                         ("*fp16", True), ("constexpr", 64)),
                                 CompileOptions(), stop_after="tile")
    assert "arith.addf" in kernel.asm["tile"] and "f16" in kernel.asm["tile"]


def _same_bits(got, want, torch):
    """Where `got` and `want` (tensors of one float type) hold the same bits, or both NaN (the
    GPU's NaN payloads and signs are its own: the PTX cvt instructions do not keep them as
    torch's conversions do)."""
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[got.element_size()]
    both_nan = torch.isnan(got.float()) & torch.isnan(want.float())
    return (got.view(bits) == want.view(bits)) | both_nan


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", FORMATS)
def test_conversions_match_torch_bit_for_bit_on_the_gpu(fmt):
    """Widening every byte to fp32, fp16 and bf16; narrowing every fp16 value and fp32 values
    (specials, random, both edges of every binade), against torch's conversions of the same
    inputs (clamped to the largest finite value first: the GPU saturates, torch does not):
    the same bits for every finite and infinite result, NaN where torch gives NaN."""
    torch = pytest.importorskip("torch")
    kind = getattr(torch, {"float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2"}[fmt])
    largest = FORMATS[fmt][2]
    every = torch.arange(256, dtype=torch.uint8, device="cuda").view(kind)
    for wide in (torch.float32, torch.float16, torch.bfloat16):
        got = torch.empty(256, dtype=wide, device="cuda")
        widen[(1,)](every, got, 256, BLOCK=256)
        same = _same_bits(got, every.to(wide), torch)
        assert bool(same.all()), (wide, torch.nonzero(~same)[:8].flatten().tolist())

    halves = torch.arange(65536, dtype=torch.int32, device="cuda").to(torch.int16) \
        .view(torch.float16)
    singles = torch.from_numpy(narrowing_inputs("float32")).cuda()
    binades = torch.tensor([2.0 ** e * m for e in range(-20, 17) for m in (1.0, 1.0625, 1.9375)],
                           device="cuda")
    singles = torch.cat([singles, binades, -binades])
    for src in (halves, singles, singles.to(torch.bfloat16)):
        got = torch.empty(src.numel(), dtype=kind, device="cuda")
        narrow[(-(-src.numel() // 1024),)](src, got, src.numel(), BLOCK=1024)
        clamped = src.float().clamp(-largest, largest)
        want = torch.where(torch.isnan(src.float()), src.float(), clamped).to(kind)
        same = _same_bits(got, want, torch)
        bad = torch.nonzero(~same).flatten()[:8]
        assert bool(same.all()), (src.dtype, src[bad].tolist(),
                                  got.view(torch.uint8)[bad].tolist(),
                                  want.view(torch.uint8)[bad].tolist())
