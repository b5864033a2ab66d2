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


# torch's CUDA conversions of NaN, measured on the H200 (every NaN byte, every 16-bit NaN, fp32
# NaNs of both signs and many payloads): widened, (positive, negative) bits per target; a NaN
# narrowed is 0x7f with its sign, except from fp16 (0x7f whatever the sign).
TORCH_WIDENED_NAN = {
    "float8e4nv": {"float16": (0x7FFF, 0x7FFF), "bfloat16": (0x7FFF, 0x7FFF),
                   "float32": (0x7FF00000, 0xFFF00000),
                   "float64": (0x7FFE000000000000, 0xFFFE000000000000)},
    "float8e5": {"float16": (0x7FFF, 0x7FFF), "bfloat16": (0x7FFF, 0x7FFF),
                 "float32": (0x7FFFFFFF, 0xFFFFFFFF),
                 "float64": (0x7FFFFFFFE0000000, 0xFFFFFFFFE0000000)}}
NAN_BYTES = {"float8e4nv": [0x7F, 0xFF], "float8e5": [0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF]}


def nans_of(wide: str) -> np.ndarray:
    """NaNs of a float type: both signs, quiet and signalling, several payloads."""
    if wide in ("float16", "bfloat16"):
        exponent = 0x7C00 if wide == "float16" else 0x7F80
        payloads = [1, 2, 0x40, 0x3F, exponent ^ 0x7FFF]
        words = [sign | exponent | p for sign in (0, 0x8000) for p in payloads]
        return np.array(words, np.uint16).view(WIDE[wide])
    words = [sign | 0x7F800000 | p for sign in (0, 0x80000000)
             for p in (1, 0x400000, 0x200000, 0x7FFFFF, 0x12345)]
    return np.array(words, np.uint32).view(np.float32)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("wide", list(WIDE) + ["float64"])
def test_nans_keep_the_bits_torch_gives_them_in_the_interpreter(fmt, wide):
    kind = FORMATS[fmt][0]
    src = np.array(NAN_BYTES[fmt], np.uint8).view(kind)
    dst = np.zeros(len(src), WIDE.get(wide, np.float64))
    interpret(widen, (1,), src, dst, len(src), BLOCK=8)
    positive, negative = TORCH_WIDENED_NAN[fmt][wide]
    want = [negative if b >= 0x80 else positive for b in NAN_BYTES[fmt]]
    assert [int(w) for w in dst.view(f"u{dst.itemsize}")] == want
    if wide == "float64":
        return
    nans = nans_of(wide)
    out = np.zeros(len(nans), kind)
    interpret(narrow, (1,), nans, out, len(nans), BLOCK=16)
    signs = np.signbit(nans.astype(np.float32))
    want = [0x7F if wide == "float16" or not negative else 0xFF for negative in signs]
    assert out.view(np.uint8).tolist() == want


@tilec.jit
def narrow_toward_zero(src, dst, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + o, mask=o < n)
    tl.store(dst + o, x.to(dst.dtype.element_ty, fp_downcast_rounding="rtz"), mask=o < n)


def toward_zero_inputs() -> np.ndarray:
    return np.concatenate([narrowing_inputs("float32"), nans_of("float32"),
                           np.array([np.inf, -np.inf, 57344.0, 61439.0, 1e9, -1e9, 2.0 ** -17,
                                     -2.0 ** -17, 1.75 * 2.0 ** -16], np.float32)])


def e5m2_toward_zero(values: np.ndarray) -> np.ndarray:
    """An independent model: each value's e5m2 value of largest magnitude not beyond it (by
    search over the bytes of its sign), infinities staying, NaN 0x7f with its sign."""
    table = every_byte("float8e5").astype(np.float64)
    out = np.empty(len(values), np.uint8)
    with np.errstate(invalid="ignore"):  # NaN of a 16-bit source widened
        wide = values.astype(np.float64)
    for i, v in enumerate(wide):
        sign = 0x80 if np.signbit(v) else 0
        if np.isnan(v) or np.isinf(v):
            out[i] = sign | (0x7F if np.isnan(v) else 0x7C)
            continue
        codes = [c for c in range(sign, sign + 0x7C) if abs(table[c]) <= abs(v)]
        out[i] = max(codes, key=lambda c: abs(table[c]))
    return out


def test_rounding_toward_zero_to_e5m2_as_triton_in_the_interpreter():
    """fp_downcast_rounding="rtz" to float8e5 from float32 (what Triton takes): truncation,
    without saturation (infinity stays; finite values stop at 57344); to float8e4nv, or from
    fp16, an error at the line as in Triton."""
    src = toward_zero_inputs()
    dst = np.zeros(len(src), ml_dtypes.float8_e5m2)
    interpret(narrow_toward_zero, (-(-len(src) // 256),), src, dst, len(src), BLOCK=256)
    np.testing.assert_array_equal(dst.view(np.uint8), e5m2_toward_zero(src))
    kernel = compile_specialized(narrow_toward_zero, (("*fp32", True), ("*fp8e5", True),
                                                      runtime.specialize_argument(1000),
                                                      ("constexpr", 512)), CompileOptions())
    assert "cvt.rz" in kernel.asm["ptx"] and "satfinite" not in kernel.asm["ptx"]
    for source, target in (("*fp32", "*fp8e4nv"), ("*fp16", "*fp8e5")):
        with pytest.raises(CompilationError, match="rounds to nearest even only") as err:
            compile_specialized(narrow_toward_zero, ((source, True), (target, True),
                                                     runtime.specialize_argument(1000),
                                                     ("constexpr", 512)), CompileOptions(),
                                stop_after="tile")
        assert 'fp_downcast_rounding="rtz"' in str(err.value)


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


def test_fp8_arithmetic_is_a_clear_error_naming_the_line():
    ptr = ("*fp8e4nv", True)
    with pytest.raises(CompilationError, match="fp8 values take no arithmetic") as err:
        compile_specialized(fp8_sum, (ptr, ptr, ("constexpr", 64)), CompileOptions(),
                            stop_after="tile")
    assert "a + a" in str(err.value)
    with pytest.raises(CompilationError, match="accumulates in float32"):
        compile_specialized(fp8_dot_into_fp16, (ptr, ("*fp16", True), ("constexpr", 64)),
                            CompileOptions(), stop_after="tile")


@tilec.jit
def fp8_dot_into_fp16(x, out, BLOCK: tl.constexpr):
    a = tl.load(x + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :])
    c = tl.dot(a, a, out_dtype=tl.float16)
    tl.store(out + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :], c)


@tilec.jit
def fp8_matmul(a, b, c, M, N, K, stride_bk, stride_bn, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, IMPRECISE: tl.constexpr = None):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn)
        acc = tl.dot(x, y, acc, max_num_imprecise_acc=IMPRECISE)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)


def fp8_matmul_key(fmt: str, b_col_major: bool, K: int = 256, imprecise=None):
    ptr = (f"*{getattr(tl, fmt).codegen_name()}", True)
    strides = (1, K) if b_col_major else (256, 1)
    return (ptr, ptr, ("*fp32", True)) + tuple(
        runtime.specialize_argument(v) for v in (256, 256, K) + strides) + (
        ("constexpr", 128), ("constexpr", 128), ("constexpr", 64), ("constexpr", imprecise))


@pytest.mark.parametrize("fmt", FORMATS)
def test_fp8_dots_run_on_wgmma_k32_with_b_k_major(fmt):
    """Both operands K-major (B column-major, as fp8 GEMMs take it): wgmma m64nNk32 on the fp8
    bytes, no spills, nothing serialised. B row-major: fp8 wgmma cannot read it transposed, so
    the operands go to fp16 exactly and the dot runs on fp16 wgmma."""
    name = FORMATS[fmt][1]
    kernel = compile_specialized(fp8_matmul, fp8_matmul_key(fmt, True),
                                 CompileOptions(num_warps=8, num_stages=3))
    assert f"k32.f32.{name}.{name}" in kernel.asm["ptx"]
    assert kernel.metadata["spill_stores"] == 0 and kernel.metadata["wgmma_serialized"] == []
    kernel = compile_specialized(fp8_matmul, fp8_matmul_key(fmt, False),
                                 CompileOptions(num_warps=8, num_stages=3))
    assert f".{name}." not in kernel.asm["ptx"].split("wgmma.mma_async")[1][:60]
    assert "k16.f32.f16.f16" in kernel.asm["ptx"]


def test_max_num_imprecise_acc_promotes_partial_sums_or_widens():
    """max_num_imprecise_acc 32 (64) with 64-deep blocks: each block's fp8 wgmmas are summed in
    groups of one (two) instructions, waited for and added to the fp32 result (two (one)
    wait_group 0 per iteration), still without spills or serialisation; 0 (full precision)
    widens the operands to fp16, whose wgmma sums in fp32; more than the block's K is an error
    at the line, as in Triton."""
    def compiled(imprecise):
        key = fp8_matmul_key("float8e4nv", True, imprecise=imprecise)
        return compile_specialized(fp8_matmul, key,
                                   CompileOptions(num_warps=8, num_stages=3))
    plain = compiled(None).asm["ptx"].count("wgmma.wait_group.sync.aligned 0;")
    for imprecise, groups in ((32, 2), (64, 1)):
        kernel = compiled(imprecise)
        ptx = kernel.asm["ptx"]
        assert "k32.f32.e4m3.e4m3" in ptx
        assert ptx.count("wgmma.wait_group.sync.aligned 0;") >= plain + groups
        assert kernel.metadata["spill_stores"] == 0 and kernel.metadata["wgmma_serialized"] == []
    ptx = compiled(0).asm["ptx"]
    assert "k16.f32.f16.f16" in ptx and "e4m3.e4m3" not in ptx
    with pytest.raises(CompilationError, match=r"max_num_imprecise_acc \(128\) must be <= K "
                       r"\(64\)") as err:
        compiled(128)
    assert "tl.dot(x, y, acc, max_num_imprecise_acc=IMPRECISE)" in str(err.value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_fp8_dot_in_the_interpreter(fmt):
    kind = FORMATS[fmt][0]
    rng = np.random.default_rng(5)
    a = rng.standard_normal((256, 256)).astype(kind)
    b = rng.standard_normal((256, 256)).astype(kind)
    c = np.zeros((256, 256), np.float32)
    interpret(fp8_matmul, (2, 2), a, b, c, 256, 256, 256, 256, 1, BM=128, BN=128, BK=64)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


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


def _bits(t, torch):
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
                  [t.element_size()])


def _check_same_bits(got, want, interpreted, torch, src):
    """`got` (the GPU's) holds the bits of `want` (torch's conversion) and of `interpreted`
    (the interpreter's, a NumPy array), NaN included."""
    gpu, ref = _bits(got, torch).cpu(), _bits(want, torch).cpu()
    host = torch.from_numpy(interpreted.view(f"{'u' if interpreted.itemsize == 1 else 'i'}"
                                             f"{interpreted.itemsize}"))
    for other, who in ((ref, "torch"), (host, "interpreter")):
        same = gpu == other
        bad = torch.nonzero(~same).flatten()[:8]
        assert bool(same.all()), (who, src.dtype, _bits(src, torch).cpu()[bad].tolist(),
                                  gpu[bad].tolist(), other[bad].tolist())


def _host(t, torch):
    """A CUDA tensor as a NumPy array of its type (fp8 and bf16 through ml_dtypes)."""
    kinds = {torch.float8_e4m3fn: ml_dtypes.float8_e4m3fn, torch.float8_e5m2: ml_dtypes.float8_e5m2,
             torch.bfloat16: ml_dtypes.bfloat16}
    if t.dtype in kinds:
        return _bits(t, torch).cpu().numpy().view(kinds[t.dtype])
    return t.cpu().numpy()


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", FORMATS)
def test_conversions_match_torch_bit_for_bit_on_the_gpu(fmt):
    """Widening every byte to fp32, fp64, fp16 and bf16; narrowing every fp16 and bf16 value,
    fp32 values (specials, NaNs, random, both edges of every binade), fp64 values and every byte
    of the other fp8 format: the same bits as torch's conversions of the same inputs (clamped
    to the largest finite value first: tilec saturates as Triton does, torch does not), NaN
    payloads and signs included, and as the interpreter's."""
    torch = pytest.importorskip("torch")
    names = {"float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2"}
    kind = getattr(torch, names[fmt])
    other = getattr(torch, names["float8e5" if fmt == "float8e4nv" else "float8e4nv"])
    largest = FORMATS[fmt][2]
    every = torch.arange(256, dtype=torch.uint8, device="cuda").view(kind)
    for wide in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        got = torch.empty(256, dtype=wide, device="cuda")
        widen[(1,)](every, got, 256, BLOCK=256)
        host = np.zeros(256, _host(got, torch).dtype)
        interpret(widen, (1,), _host(every, torch), host, 256, BLOCK=256)
        _check_same_bits(got, every.to(wide), host, torch, every)

    every16 = torch.arange(65536, dtype=torch.int32, device="cuda").to(torch.int16)
    singles = torch.from_numpy(np.concatenate([narrowing_inputs("float32"), nans_of("float32")]))
    binades = torch.tensor([2.0 ** e * m for e in range(-20, 17) for m in (1.0, 1.0625, 1.9375)])
    singles = torch.cat([singles, binades, -binades]).cuda()
    others = torch.arange(256, dtype=torch.uint8, device="cuda").view(other)
    for src in (every16.view(torch.float16), every16.view(torch.bfloat16), singles,
                singles.double(), others):
        got = torch.empty(src.numel(), dtype=kind, device="cuda")
        narrow[(-(-src.numel() // 1024),)](src, got, src.numel(), BLOCK=1024)
        wide = src.float() if src.dtype != torch.float64 else src
        want = torch.where(torch.isnan(wide), src.to(kind).view(torch.uint8),  # (no fp8 where)
                           wide.clamp(-largest, largest).to(kind).view(torch.uint8)).view(kind)
        host = np.zeros(src.numel(), FORMATS[fmt][0])
        interpret(narrow, (-(-src.numel() // 1024),), _host(src, torch), host, src.numel(),
                  BLOCK=1024)
        _check_same_bits(got, want, host, torch, src)


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("b_col_major", [True, False], ids=["b_col", "b_row"])
def test_fp8_dot_on_the_gpu(fmt, b_col_major):
    """C = A @ B of fp8 inputs against torch's fp32 product of the same values, on fp8 wgmma
    (B column-major) and on the fp16 path (B row-major). By default (max_num_imprecise_acc
    None, as in Triton) fp8 wgmma's partial sums are not promoted and carry less than fp32
    precision, so the bound is 10% of the entries' scale sqrt(K): a tile computed wrong is off
    by the whole."""
    torch = pytest.importorskip("torch")
    kind = getattr(torch, {"float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2"}[fmt])
    gen = torch.Generator(device="cuda").manual_seed(9)
    K = 512
    a = torch.randn(256, K, device="cuda", generator=gen).to(kind)
    b = torch.randn(K, 256, device="cuda", generator=gen).to(kind)
    if b_col_major:
        b = b.t().contiguous().t()
    c = torch.empty(256, 256, device="cuda")
    fp8_matmul[(2, 2)](a, b, c, 256, 256, K, b.stride(0), b.stride(1), BM=128, BN=128, BK=64,
                       num_warps=8, num_stages=3)
    want = a.float() @ b.float()
    torch.testing.assert_close(c, want, rtol=1e-2, atol=0.1 * K ** 0.5)


@pytest.mark.gpu
def test_max_num_imprecise_acc_on_the_gpu():
    """K = 4096 products of e4m3 values: left to the tensor cores (None, Triton's default) the
    sums drift (Triton's: 0.85 off at most on these shapes); promoted to fp32 every 32 or 64
    products they stay within 0.05 (Triton: 0.015, 0.021); full precision (0: the fp16 path)
    is as close as fp32 sums are."""
    torch = pytest.importorskip("torch")
    gen = torch.Generator(device="cuda").manual_seed(3)
    K = 4096
    a = torch.randn(256, K, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    b = torch.randn(256, K, device="cuda", generator=gen).to(torch.float8_e4m3fn).t()
    want = a.double() @ b.double()
    errors = {}
    for imprecise in (None, 0, 32, 64):
        c = torch.empty(256, 256, device="cuda")
        fp8_matmul[(2, 2)](a, b, c, 256, 256, K, b.stride(0), b.stride(1), BM=128, BN=128,
                           BK=64, IMPRECISE=imprecise, num_warps=8, num_stages=3)
        errors[imprecise] = (c.double() - want).abs().max().item()
    assert errors[0] < 2e-3, errors
    assert errors[32] < 0.05 and errors[64] < 0.05, errors
    assert errors[32] * 4 < errors[None] < 0.1 * K ** 0.5, errors


@pytest.mark.gpu
def test_rounding_toward_zero_to_e5m2_on_the_gpu():
    """The GPU's rtz narrowing to e5m2 against the model and the interpreter, bit for bit."""
    torch = pytest.importorskip("torch")
    src = toward_zero_inputs()
    got = torch.empty(len(src), dtype=torch.uint8, device="cuda")
    narrow_toward_zero[(-(-len(src) // 256),)](torch.from_numpy(src).cuda(),
                                               got.view(torch.float8_e5m2), len(src), BLOCK=256)
    host = np.zeros(len(src), ml_dtypes.float8_e5m2)
    interpret(narrow_toward_zero, (-(-len(src) // 256),), src, host, len(src), BLOCK=256)
    np.testing.assert_array_equal(got.cpu().numpy(), e5m2_toward_zero(src))
    np.testing.assert_array_equal(got.cpu().numpy(), host.view(np.uint8))


# --- float8e4b15 (Triton's e4m3 of bias 15) and the AMD-only names ---

def e4b15_value(byte: np.ndarray) -> np.ndarray:
    """An independent decoding of float8e4b15 bytes: sign, 4 exponent bits of bias 15 (0 being
    subnormal), 3 mantissa bits; no infinity or NaN."""
    byte = np.asarray(byte, np.int64)
    e, m = (byte >> 3) & 0xF, byte & 7
    magnitude = np.where(e == 0, m / 8 * 2.0 ** -14, (1 + m / 8) * 2.0 ** (e - 15.0))
    return np.where(byte & 0x80, -magnitude, magnitude)


def e4b15_model(halves: np.ndarray) -> np.ndarray:
    """Triton's fp16 -> float8e4b15 by search: |x| clamped to 1.75 (infinities and NaN too), the
    nearest of the 128 magnitudes with ties away from zero, the sign bit kept."""
    magnitudes = e4b15_value(np.arange(128))
    out = np.empty(len(halves), np.uint8)
    for i, h in enumerate(np.asarray(halves, np.float16)):
        v = 1.75 if np.isnan(h) else min(abs(float(h)), 1.75)
        distance = np.abs(magnitudes - v)
        out[i] = np.nonzero(distance == distance.min())[0].max() | (0x80 * bool(np.signbit(h)))
    return out


def toward_zero_half(singles: np.ndarray) -> np.ndarray:
    """fp32 -> fp16 rounding toward zero (NaN to a positive NaN), from NumPy's nearest."""
    halves = singles.astype(np.float16)
    over = np.abs(halves.astype(np.float64)) > np.abs(singles.astype(np.float64))
    halves[over] = np.nextafter(halves[over], np.float16(0))
    halves[np.isnan(singles)] = np.float16(np.nan)
    return halves


@tilec.jit
def convert(src, dst, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + o, tl.load(src + o, mask=o < n).to(dst.dtype.element_ty), mask=o < n)


E4B15_SINGLES = np.concatenate([
    np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.75, 1.8, 1.875, 1.9, 100.0, -1.7,
              2.0 ** -17, 1.5 * 2.0 ** -17, 2.0 ** -18, 0.1, -0.3], np.float32),
    np.random.default_rng(11).standard_normal(3000).astype(np.float32) *
    np.float32(2.0) ** np.random.default_rng(12).integers(-20, 2, 3000).astype(np.float32)])


def test_fp8e4b15_and_the_amd_names_are_tritons():
    assert (tl.float8e4b15.primitive_bitwidth, tl.float8e4b15.fp_mantissa_width,
            tl.float8e4b15.exponent_bias) == (8, 3, 15)
    assert tl.float8e4b8.exponent_bias == 8 and tl.float8e5b16.exponent_bias == 16
    assert tl.dtype("fp8e4b15") == tl.float8e4b15 and tl.float8e4b15.is_fp8()
    assert {"fp8e4b15", "fp8e4b8", "fp8e5b16"} <= set(tl.dtype.FP8_TYPES)
    assert tl.pointer_type(tl.float8e4b15).codegen_name() == "*fp8e4b15"


def test_fp8e4b15_narrowing_every_half_and_singles_in_the_interpreter():
    halves = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    dst = np.zeros(65536, np.uint8)
    interpret(convert, (64,), halves, tilec.reinterpret(dst, tl.float8e4b15), 65536,
              BLOCK=1024)
    np.testing.assert_array_equal(dst, e4b15_model(halves))
    dst = np.zeros(len(E4B15_SINGLES), np.uint8)
    interpret(convert, (4,), E4B15_SINGLES, tilec.reinterpret(dst, tl.float8e4b15),
              len(dst), BLOCK=1024)
    np.testing.assert_array_equal(dst, e4b15_model(toward_zero_half(E4B15_SINGLES)))
    assert dst[4] == 0x7E  # NaN: positive, saturated


@pytest.mark.parametrize("wide", ["float16", "float32"])
def test_fp8e4b15_widening_every_byte_in_the_interpreter(wide):
    src = np.arange(256, dtype=np.uint8)
    dst = np.zeros(256, WIDE[wide])
    interpret(convert, (1,), tilec.reinterpret(src, tl.float8e4b15), dst, 256, BLOCK=256)
    np.testing.assert_array_equal(dst.astype(np.float64), e4b15_value(src))
    assert dst[0x7F] == 1.875 and np.signbit(dst[0x80])


def test_fp8e4b15_conversions_compile_and_mistakes_are_errors_at_the_line():
    for sig in (("*fp16", "*fp8e4b15"), ("*fp32", "*fp8e4b15"), ("*fp8e4b15", "*fp32"),
                ("*fp8e4b15", "*bf16")):
        key = ((sig[0], True), (sig[1], True), ("i32", False), ("constexpr", 256))
        assert compile_specialized(convert, key, CompileOptions(), stop_after="ptx")
    key = (("*bf16", True), ("*fp8e4b15", True), ("i32", False), ("constexpr", 256))
    with pytest.raises(CompilationError, match="converts from float16 and float32 only") as err:
        compile_specialized(convert, key, CompileOptions(), stop_after="tile")
    assert ".to(dst.dtype.element_ty)" in str(err.value)
    ptr = ("*fp8e4b15", True)
    with pytest.raises(CompilationError, match="fp8 values take no arithmetic"):
        compile_specialized(fp8_sum, (ptr, ptr, ("constexpr", 64)), CompileOptions(),
                            stop_after="tile")


@pytest.mark.parametrize("name", ["fp8e4b8", "fp8e5b16"])
def test_amd_fp8_types_are_triton_s_error_in_both_modes(name):
    key = (("*fp16", True), (f"*{name}", True), ("i32", False), ("constexpr", 256))
    with pytest.raises(CompilationError, match=f"type {name} not supported in this "
                       r"architecture. The supported fp8 dtypes are \('fp8e4b15', 'fp8e4nv', "
                       r"'fp8e5'\)") as err:
        compile_specialized(convert, key, CompileOptions(), stop_after="tile")
    assert "argument 'dst'" in str(err.value) and "def convert(" in str(err.value)
    dst = np.zeros(4, np.uint8)
    with pytest.raises(CompilationError, match=f"type {name} not supported"):
        interpret(convert, (1,), np.ones(4, np.float16),
                  tilec.reinterpret(dst, getattr(tl, tl.dtype(name).name)), 4, BLOCK=4)


@pytest.mark.gpu
def test_fp8e4b15_conversions_on_the_gpu_match_the_model_and_the_interpreter():
    torch = pytest.importorskip("torch")
    halves = torch.arange(65536, dtype=torch.int32).to(torch.int16).view(torch.float16)
    singles = torch.from_numpy(E4B15_SINGLES)
    for src, model in ((halves, e4b15_model(halves.numpy())),
                       (singles, e4b15_model(toward_zero_half(E4B15_SINGLES)))):
        got = torch.zeros(src.numel(), dtype=torch.uint8, device="cuda")
        convert[(-(-src.numel() // 1024),)](src.cuda(), tilec.reinterpret(got, tl.float8e4b15),
                                            src.numel(), BLOCK=1024)
        np.testing.assert_array_equal(got.cpu().numpy(), model)
    every = torch.arange(256, dtype=torch.uint8, device="cuda")
    for wide in (torch.float16, torch.float32):
        got = torch.zeros(256, dtype=wide, device="cuda")
        convert[(1,)](tilec.reinterpret(every, tl.float8e4b15), got, 256, BLOCK=256)
        np.testing.assert_array_equal(got.cpu().double().numpy(),
                                      e4b15_value(np.arange(256)))


@tilec.jit
def fp8_abs(x, y, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(y + o, tl.abs(tl.load(x + o)))


ALL_FP8 = ("float8e4nv", "float8e5", "float8e4b15")


@pytest.mark.parametrize("fmt", ALL_FP8)
def test_abs_of_fp8_clears_the_sign_bit_in_both_modes(fmt):
    """tl.abs of an fp8 value is its byte with the sign bit cleared, as in Triton (every fp8
    format is sign-magnitude; a NaN stays a NaN): every byte in the interpreter, and compiled."""
    src = np.arange(256, dtype=np.uint8)
    dst = np.zeros(256, np.uint8)
    interpret(fp8_abs, (1,), tilec.reinterpret(src, getattr(tl, fmt)),
              tilec.reinterpret(dst, getattr(tl, fmt)), BLOCK=256)
    np.testing.assert_array_equal(dst, src & 0x7F)
    ptr = (f"*{getattr(tl, fmt).codegen_name()}", True)
    assert compile_specialized(fp8_abs, (ptr, ptr, ("constexpr", 256)), CompileOptions())


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ALL_FP8)
def test_abs_of_fp8_on_the_gpu(fmt):
    torch = pytest.importorskip("torch")
    every = torch.arange(256, dtype=torch.uint8, device="cuda")
    got = torch.zeros(256, dtype=torch.uint8, device="cuda")
    fp8_abs[(1,)](tilec.reinterpret(every, getattr(tl, fmt)),
                  tilec.reinterpret(got, getattr(tl, fmt)), BLOCK=256)
    np.testing.assert_array_equal(got.cpu().numpy(), np.arange(256, dtype=np.uint8) & 0x7F)


def e4b15_operands(seed: int):
    """Two 256x256 float8e4b15 operands (every byte value likely) and their exact values."""
    rng = np.random.default_rng(seed)
    a, b = (rng.integers(0, 256, (256, 256), dtype=np.uint8) for _ in range(2))
    return a, b, e4b15_value(a) @ e4b15_value(b)


def test_fp8e4b15_dot_widens_to_fp16_in_the_interpreter():
    """A dot of float8e4b15 operands computes on their values (widened to float16 exactly, as
    Triton does where no tensor core takes the format), not on their bytes."""
    a, b, want = e4b15_operands(11)
    c = np.zeros((256, 256), np.float32)
    interpret(fp8_matmul, (2, 2), tilec.reinterpret(a, tl.float8e4b15),
              tilec.reinterpret(b, tl.float8e4b15), c, 256, 256, 256, 256, 1, BM=128, BN=128,
              BK=64, IMPRECISE=32)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


def test_fp8e4b15_dot_compiles_to_fp16_wgmma():
    key = fp8_matmul_key("float8e4b15", True)
    ptx = compile_specialized(fp8_matmul, key, CompileOptions(num_warps=8, num_stages=3)
                              ).asm["ptx"]
    assert "k16.f32.f16.f16" in ptx and ".s8.s8" not in ptx and "e4m3" not in ptx


@pytest.mark.gpu
def test_fp8e4b15_dot_on_the_gpu_matches_the_interpreter():
    torch = pytest.importorskip("torch")
    a, b, want = e4b15_operands(12)
    c = torch.zeros((256, 256), dtype=torch.float32, device="cuda")
    fp8_matmul[(2, 2)](tilec.reinterpret(torch.from_numpy(a).cuda(), tl.float8e4b15),
                       tilec.reinterpret(torch.from_numpy(b).cuda(), tl.float8e4b15), c,
                       256, 256, 256, 256, 1, BM=128, BN=128, BK=64)
    np.testing.assert_allclose(c.cpu().numpy(), want, rtol=1e-5, atol=1e-5)
