"""tl.dot_scaled (OCP microscaling): e2m1 (two a byte along K), e4m3, e5m2, bf16 and fp16
operands with e8m0 scales per 32 elements along K, against a NumPy model of the MX definition;
in the interpreter, compiled for sm_90 (a bf16 wgmma dot after the upcast) and on the GPU."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.compiler import CompileOptions, compile_specialized
from tilec.errors import CompilationError
from interpreting import interpret

E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])
FP8 = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
SIGNATURE = {"e2m1": "*u8", "e4m3": "*fp8e4nv", "e5m2": "*u8", "bf16": "*bf16", "fp16": "*fp16"}


@tilec.jit
def scaled_product(a, sa, b, sb, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                   FA: tl.constexpr, FB: tl.constexpr, SCALED: tl.constexpr):
    KA: tl.constexpr = K // 2 if FA == "e2m1" else K
    KB: tl.constexpr = K // 2 if FB == "e2m1" else K
    x = tl.load(a + tl.arange(0, M)[:, None] * KA + tl.arange(0, KA)[None, :])
    y = tl.load(b + tl.arange(0, KB)[:, None] * N + tl.arange(0, N)[None, :])
    if SCALED:
        xs = tl.load(sa + tl.arange(0, M)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
        ys = tl.load(sb + tl.arange(0, N)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
        z = tl.dot_scaled(x, xs, FA, y, ys, FB)
    else:
        z = tl.dot_scaled(x, None, FA, y, None, FB, acc=tl.full([M, N], 1.0, tl.float32))
    tl.store(c + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], z)


def operand(fmt: str, rows: int, cols: int, rng, packed_dim: int):
    """(what the kernel loads, its values as float64)."""
    if fmt == "e2m1":
        shape = (rows // 2, cols) if packed_dim == 0 else (rows, cols // 2)
        data = rng.integers(0, 256, shape, dtype=np.uint8)
        values = np.empty((rows, cols))
        if packed_dim == 0:
            values[0::2], values[1::2] = E2M1[data & 15], E2M1[data >> 4]
        else:
            values[:, 0::2], values[:, 1::2] = E2M1[data & 15], E2M1[data >> 4]
        return data, values
    if fmt in FP8:
        data = rng.standard_normal((rows, cols)).astype(FP8[fmt])
        values = data.astype(np.float64)
        return (data.view(np.uint8) if fmt == "e5m2" else data), values
    kind = ml_dtypes.bfloat16 if fmt == "bf16" else np.float16
    data = rng.standard_normal((rows, cols)).astype(kind)
    return data, data.astype(np.float64)


def scales(rows: int, k: int, rng, fp16: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """e8m0 scales and their factors; within 2^-3 .. 2^4 when the product computes in fp16
    (whose range the scaled fp8 values must stay in), else 2^-9 .. 2^8."""
    low, high = (124, 132) if fp16 else (118, 136)
    s = rng.integers(low, high, (rows, k // 32), dtype=np.uint8)
    return s, np.repeat(2.0 ** (s.astype(np.float64) - 127), 32, axis=1)


CASES = [("e2m1", "e2m1"), ("e4m3", "e4m3"), ("e5m2", "e4m3"), ("bf16", "e2m1"),
         ("e4m3", "fp16")]


def case(fa, fb, scaled=True, M=64, N=64, K=128, seed=0):
    rng = np.random.default_rng(seed)
    a, av = operand(fa, M, K, rng, 1)
    b, bv = operand(fb, K, N, rng, 0)
    fp16 = "fp16" in (fa, fb)
    if scaled:
        sa, fa_ = scales(M, K, rng, fp16)
        sb, fb_ = scales(N, K, rng, fp16)
        av, bv = av * fa_, bv * fb_.T
    else:
        sa = sb = np.zeros((1, 1), np.uint8)
    want = av @ bv + (0 if scaled else 1.0)
    return (a, sa, b, sb), want


@pytest.mark.parametrize("fa, fb", CASES)
def test_dot_scaled_in_the_interpreter(fa, fb):
    args, want = case(fa, fb)
    c = np.zeros(want.shape, np.float32)
    interpret(scaled_product, (1,), *args, c, M=64, N=64, K=128, FA=fa, FB=fb, SCALED=True)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_unscaled_bf16_operands_and_an_accumulator():
    args, want = case("bf16", "bf16", scaled=False)
    c = np.zeros(want.shape, np.float32)
    interpret(scaled_product, (1,), *args, c, M=64, N=64, K=128, FA="bf16", FB="bf16",
              SCALED=False)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


def test_a_nan_scale_makes_its_rows_nan():
    (a, sa, b, sb), _ = case("e4m3", "e4m3")
    sa = sa.copy()
    sa[3, 1] = 255
    c = np.zeros((64, 64), np.float32)
    interpret(scaled_product, (1,), a, sa, b, sb, c, M=64, N=64, K=128, FA="e4m3", FB="e4m3",
              SCALED=True)
    assert np.isnan(c[3]).all() and not np.isnan(np.delete(c, 3, axis=0)).any()


def key(fa, fb, scaled=True, M=64, N=64, K=128):
    return ((SIGNATURE.get(fa, "*u8"), True), ("*u8", True), (SIGNATURE[fb], True), ("*u8", True),
            ("*fp32", True), ("constexpr", M), ("constexpr", N), ("constexpr", K),
            ("constexpr", fa), ("constexpr", fb), ("constexpr", scaled))


@pytest.mark.parametrize("fa, fb", CASES)
def test_dot_scaled_compiles_to_a_bf16_wgmma_dot(fa, fb):
    """bf16, or fp16 when either operand is fp16 (Triton's compute type on Hopper)."""
    kernel = compile_specialized(scaled_product, key(fa, fb), CompileOptions(num_warps=4))
    kind = "f16" if "fp16" in (fa, fb) else "bf16"
    assert f"k16.f32.{kind}.{kind}" in kernel.asm["ptx"]


@pytest.mark.parametrize("fa, fb", [("e4m3", "e5m2"), ("e2m1", "fp16")])
def test_operands_without_scales_are_unscaled(fa, fb):
    """None for a scale leaves that operand as it is, whatever its format (Triton's tests
    pass None for the operand that is not microscaled)."""
    args, want = case(fa, fb, scaled=False)
    c = np.zeros(want.shape, np.float32)
    interpret(scaled_product, (1,), *args, c, M=64, N=64, K=128, FA=fa, FB=fb, SCALED=False)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("fa, fb, message", [
    ("e3m2", "e4m3", "lhs_format must be one of"),
])
def test_mistakes_are_errors_at_the_line(fa, fb, message):
    with pytest.raises(CompilationError, match=message) as err:
        compile_specialized(scaled_product, key(fa, fb, scaled=fa == "e3m2"), CompileOptions(),
                            stop_after="tile")
    assert "tl.dot_scaled" in str(err.value)


@tilec.jit
def wrong_scale_shape(a, sa, b, c):
    x = tl.load(a + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :])
    xs = tl.load(sa + tl.arange(0, 64)[:, None] * 4 + tl.arange(0, 4)[None, :])
    z = tl.dot_scaled(x, xs, "e4m3", x, xs, "e4m3")
    tl.store(c + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :], z)


def test_a_scale_of_the_wrong_shape_is_an_error():
    with pytest.raises(CompilationError, match=r"lhs_scale must be \[64, 2\]"):
        compile_specialized(wrong_scale_shape, (("*fp8e4nv", True), ("*u8", True),
                                                ("*fp8e4nv", True), ("*fp32", True)),
                            CompileOptions(), stop_after="tile")


@tilec.jit
def optional_argument(x, out, BLOCK: tl.constexpr):
    v = tl.load(x + tl.arange(0, BLOCK))
    if v is None:
        v = v * 0
    if v is not None:
        v = v + 1
    tl.store(out + tl.arange(0, BLOCK), v)


def test_is_none_of_a_tensor_is_known_at_compile_time():
    """`x is None` of a tensor is False at compile time, as in Triton (optional arguments)."""
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    interpret(optional_argument, (1,), x, out, BLOCK=16)
    np.testing.assert_array_equal(out, x + 1)
    kernel = compile_specialized(optional_argument, (("*fp32", True), ("*fp32", True),
                                                     ("constexpr", 16)),
                                 CompileOptions(), stop_after="tile")
    assert "scf.if" not in kernel.asm["tile"]


@pytest.mark.gpu
@pytest.mark.parametrize("fa, fb", CASES)
def test_dot_scaled_on_the_gpu(fa, fb):
    torch = pytest.importorskip("torch")
    args, want = case(fa, fb, seed=1)
    gpu = [torch.from_numpy(a.view(np.uint8) if a.dtype.itemsize == 1 else a.view(np.int16))
           .cuda() for a in args]
    gpu = [g.view(torch.float8_e4m3fn) if a.dtype == ml_dtypes.float8_e4m3fn else
           g.view(torch.bfloat16) if a.dtype == ml_dtypes.bfloat16 else
           g.view(torch.float16) if a.dtype == np.float16 else g for g, a in zip(gpu, args)]
    c = torch.zeros(want.shape, dtype=torch.float32, device="cuda")
    scaled_product[(1,)](*gpu, c, M=64, N=64, K=128, FA=fa, FB=fb, SCALED=True)
    np.testing.assert_allclose(c.cpu().numpy(), want, rtol=1e-4,
                               atol=1e-4 * np.abs(want).max())
