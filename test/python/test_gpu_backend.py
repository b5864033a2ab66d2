"""The GPU backend: tutorials and a differential test against the interpreter.

Needs an NVIDIA GPU and CuPy: `pytest -m gpu` on the GPU machine."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import downcast_kernels as D
import gpu_kernels as G
import launch_kernels as L
from tutorial_loader import tutorial

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

RNG = np.random.default_rng(1234)




@pytest.mark.parametrize("n", [1, 1000, 98432, 1 << 20])
def test_vector_add_tutorial_on_the_gpu(n):
    t = tutorial("01-vector-add")
    x = cupy.asarray(RNG.random(n, dtype=np.float32))
    y = cupy.asarray(RNG.random(n, dtype=np.float32))
    out = cupy.empty_like(x)
    grid = (-(-n // 1024),)
    t.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    cupy.testing.assert_array_equal(out, x + y)


def run_both(kernel, grid, host_args, out_index, monkeypatch, **meta):
    """Run on the GPU (CuPy arrays) and in the interpreter (NumPy); return both outputs."""
    device_args = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in host_args]
    kernel[grid](*device_args, **meta)
    gpu_out = cupy.asnumpy(device_args[out_index])
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    kernel[grid](*host_args, **meta)
    monkeypatch.delenv("TILEC_INTERPRET")
    return gpu_out, host_args[out_index]


def make(dtype, n, positive=False):
    if np.dtype(dtype).kind in "iu":
        lo = 1 if positive else -50
        return RNG.integers(lo, 50, n).astype(dtype)
    data = RNG.standard_normal(n).astype(np.float32)
    return (np.abs(data) + 0.5 if positive else data).astype(dtype)


def assert_agree(gpu, interp, dtype):
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(gpu, interp)
    else:
        np.testing.assert_allclose(gpu.astype(np.float32), interp.astype(np.float32),
                                   rtol=2e-3 if np.dtype(dtype).itemsize == 2 else 1e-5,
                                   atol=1e-5)


@pytest.mark.parametrize("op, dtype, n, block", [
    (op, dtype, n, block)
    for op, dtype in itertools.product(["add", "sub", "mul", "max", "lt", "select"],
                                       [np.float32, np.float16, np.int32])
    for n, block in [(1000, 256), (4096, 1024)]
] + [("floordiv", np.int32, 777, 128), ("mod", np.int32, 777, 128)])
def test_binary_ops_agree_with_the_interpreter(op, dtype, n, block, monkeypatch):
    x = make(dtype, n)
    y = make(dtype, n, positive=op in ("floordiv", "mod"))
    out = np.zeros(n, dtype)
    grid = (-(-n // block),)
    gpu, interp = run_both(G.binary, grid, [x, y, out, n], 2, monkeypatch, OP=op, BLOCK=block)
    assert_agree(gpu, interp, dtype)


@pytest.mark.parametrize("fusion", [True, False])
def test_enable_fp_fusion_rounds_a_multiply_add_once_or_twice(fusion, monkeypatch):
    n = 1 << 16
    x, y, z = (make(np.float32, n) for _ in range(3))
    out = np.zeros(n, np.float32)
    gpu, interp = run_both(L.multiply_add, (n // 1024,), [x, y, z, out, n], 3, monkeypatch,
                           BLOCK=1024, enable_fp_fusion=fusion)
    # The interpreter rounds the product, then the sum; an fma rounds x * y + z once (the
    # product is exact in float64, the float64 sum rounds away only bits float32 drops).
    fma = (x.astype(np.float64) * y + z).astype(np.float32)
    np.testing.assert_array_equal(gpu, fma if fusion else interp)
    assert (fma != interp).sum() > n // 100  # the two roundings differ often enough to tell


@pytest.mark.parametrize("op", ["neg", "abs", "exp", "square_plus_one", "relu"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_unary_ops_agree_with_the_interpreter(op, dtype, monkeypatch):
    n = 3001
    x = make(dtype, n)
    out = np.zeros(n, dtype)
    gpu, interp = run_both(G.unary, (-(-n // 512),), [x, out, n], 1, monkeypatch, OP=op,
                           BLOCK=512)
    assert_agree(gpu, interp, dtype)


@pytest.mark.parametrize("src, dst", [(np.float32, np.float16), (np.float16, np.float32),
                                      (np.float32, np.int32), (np.int32, np.float32),
                                      (np.int8, np.int32), (np.int32, np.int8)])
def test_casts_agree_with_the_interpreter(src, dst, monkeypatch):
    n = 2000
    x = make(src, n)
    out = np.zeros(n, dst)
    gpu, interp = run_both(G.cast_kernel, (8,), [x, out, n], 1, monkeypatch, BLOCK=256)
    np.testing.assert_array_equal(gpu, interp)


DOWNCASTS = [(np.float32, np.float16), (np.float32, D.BF16), (np.float64, np.float16),
             (np.float64, D.BF16), (np.float64, np.float32)]


@pytest.mark.parametrize("source, target", DOWNCASTS,
                         ids=["f32-f16", "f32-bf16", "f64-f16", "f64-bf16", "f64-f32"])
@pytest.mark.parametrize("rounding", ["rtne", "rtz"])
@pytest.mark.parametrize("aligned", [False, True], ids=["scalar-access", "vector-access"])
def test_rounded_downcasts_are_bit_identical_to_the_interpreter(source, target, rounding,
                                                                 aligned, monkeypatch):
    """x.to(target, fp_downcast_rounding=...) on values around representable ones (ties and
    their neighbours, subnormals, overflow, infinities, NaNs): the same bits as the
    interpreter, NaNs included for 16-bit targets (0x7fff). For an f32 target only NaN-ness is
    compared: what cvt.rz.f32.f64 makes of a NaN's payload is not what the interpreter claims.
    With n a multiple of 16 the loads and stores are vectors; else one element each."""
    torch = pytest.importorskip("torch")
    values = D.rounding_inputs(source, target)
    if aligned:
        values = values[:values.size // 16 * 16]
    n, block = values.size, 1024
    grid = (-(-n // block),)
    dtypes = {np.dtype(np.float16): torch.float16, D.BF16: torch.bfloat16,
              np.dtype(np.float32): torch.float32}
    ints = {2: torch.int16, 4: torch.int32}
    bits = D.bits_type(target)
    x_gpu = torch.from_numpy(values).cuda()
    out_gpu = torch.zeros(n, dtype=dtypes[np.dtype(target)], device="cuda")
    D.downcast[grid](x_gpu, out_gpu, n, ROUNDING=rounding, BLOCK=block)
    gpu = out_gpu.view(ints[np.dtype(target).itemsize]).cpu().numpy().view(bits)
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    out = np.zeros(n, target)
    D.downcast[grid](values, out, n, ROUNDING=rounding, BLOCK=block)
    interp = out.view(bits)
    if np.dtype(target).itemsize == 4:
        nan = np.isnan(out)
        np.testing.assert_array_equal(np.isnan(gpu.view(target)), nan)
        gpu, interp = gpu[~nan], interp[~nan]
        values = values[~nan]
    differ = np.nonzero(gpu != interp)[0]
    shown = [f"{values[i]!r}: gpu {gpu[i]:#x}, interpreter {interp[i]:#x}" for i in differ[:10]]
    assert not differ.size, f"{differ.size} of {values.size} differ:\n" + "\n".join(shown)


@pytest.mark.parametrize("transpose", [False, True])
def test_strided_2d_agrees_with_the_interpreter(transpose, monkeypatch):
    M, N = 100, 72
    base = RNG.standard_normal((N, M) if transpose else (M, N)).astype(np.float32)
    x = base.T if transpose else base
    out = np.zeros((M, N), np.float32)
    s0, s1 = x.strides[0] // 4, x.strides[1] // 4
    contiguous = np.ascontiguousarray(base)
    device_x = cupy.asarray(contiguous)
    device_x = device_x.T if transpose else device_x
    device_out = cupy.zeros((M, N), cupy.float32)
    grid = (-(-M // 32), -(-N // 32))
    G.strided_2d[grid](device_x, device_out, M, N, s0, s1, BLOCK_M=32, BLOCK_N=32)
    np.testing.assert_allclose(cupy.asnumpy(device_out), x * 2.0 + 1.0, rtol=1e-6)
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    G.strided_2d[grid](x, out, M, N, s0, s1, BLOCK_M=32, BLOCK_N=32)
    np.testing.assert_allclose(out, cupy.asnumpy(device_out), rtol=1e-6)


def test_loops_and_branches_agree(monkeypatch):
    n = 5000
    x = make(np.float32, n)
    out = np.zeros(n, np.float32)
    gpu, interp = run_both(G.loop_accumulate, (-(-n // 1024),), [x, out, n, 7], 1, monkeypatch,
                           BLOCK=1024)
    np.testing.assert_allclose(gpu, interp, rtol=1e-5, atol=1e-5)


def test_torch_tensors_on_torch_stream():
    torch = pytest.importorskip("torch")
    n = 10000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        tutorial("01-vector-add").add_kernel[(-(-n // 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    stream.synchronize()
    assert torch.equal(out, x + y)


def test_compiled_kernel_reports_resources():
    import tilec
    t = tutorial("01-vector-add")
    k = tilec.compile(t.add_kernel, signature={"x_ptr": "*fp32:16", "y_ptr": "*fp32:16",
                                               "output_ptr": "*fp32:16", "n_elements": "i32:16"},
                      constexprs={"BLOCK_SIZE": 1024})
    assert k.metadata["registers"] > 0 and k.metadata["spill_stores"] == 0
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_warm_launches_respecialise_correctly():
    """The fast launch path must pick a different compiled kernel whenever the specialisation
    changes: n == 1, n not divisible by 16, misaligned views, dtypes."""
    t = tutorial("01-vector-add")
    base = cupy.asarray(RNG.random(5000, dtype=np.float32))
    for n, offset in [(1024, 0), (1024, 0), (1, 0), (1000, 0), (1024, 1), (4096, 3), (1, 1)]:
        x = base[offset:offset + n]
        y = base[offset + 1:offset + 1 + n]
        out = cupy.zeros(n, cupy.float32)
        t.add_kernel[(-(-n // 256),)](x, y, out, n, BLOCK_SIZE=256)
        cupy.testing.assert_array_equal(out, x + y)
    halves = cupy.asarray(RNG.random(512).astype(np.float16))
    out16 = cupy.zeros(512, cupy.float16)
    t.add_kernel[(2,)](halves, halves, out16, 512, BLOCK_SIZE=256)
    cupy.testing.assert_array_equal(out16, halves + halves)


REDUCTIONS = [(op, dtype) for op in ("sum", "max", "min", "argmax", "argmin")
              for dtype in (np.float32, np.float16, np.int32)] + [("xor_sum", np.int32)]


@pytest.mark.parametrize("op, dtype", REDUCTIONS)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("M, N, BM, BN", [(37, 100, 64, 128), (256, 8, 256, 8), (4, 1000, 4, 1024)])
def test_reductions_agree_with_the_interpreter(op, dtype, axis, M, N, BM, BN, monkeypatch):
    x = make(dtype, M * N)
    if op.startswith("arg"):
        out_dtype = np.int32
    elif op == "sum" and dtype is np.float16:
        out_dtype = np.float32
    else:
        out_dtype = dtype
    out = np.zeros(N if axis == 0 else M, out_dtype)
    gpu, interp = run_both(G.reduce_2d, (1,), [x, out, M, N], 1, monkeypatch, OP=op, AXIS=axis,
                           BLOCK_M=BM, BLOCK_N=BN)
    if op.startswith("arg") or dtype is np.int32:
        np.testing.assert_array_equal(gpu, interp)
    elif op == "sum" and dtype is np.float16:
        # fp16 sums accumulate in fp16 (as Triton's): the order of additions shows.
        np.testing.assert_allclose(gpu, interp, rtol=2e-2, atol=5e-2)
    else:
        np.testing.assert_allclose(gpu, interp, rtol=2e-3 if dtype is np.float16 else 1e-5,
                                   atol=1e-3)


def test_full_reduction_to_a_scalar(monkeypatch):
    x = make(np.float32, 3000)
    out = np.zeros(2, np.float32)
    gpu, interp = run_both(G.reduce_all, (1,), [x, out, 3000], 1, monkeypatch, BLOCK=4096)
    np.testing.assert_allclose(gpu, interp, rtol=1e-4)  # 3000 fp32 terms in another order


def test_fused_softmax_tutorial_on_the_gpu():
    t = tutorial("02-fused-softmax")
    x = RNG.standard_normal((1823, 781)).astype(np.float32)
    dx, dy = cupy.asarray(x), cupy.empty((1823, 781), cupy.float32)
    t.softmax_kernel[(1823,)](dy, dx, 781, 781, 1823, 781, BLOCK_SIZE=1024)
    np.testing.assert_allclose(cupy.asnumpy(dy), t.reference(x), rtol=1e-5, atol=1e-6)
    t.softmax_kernel[(100,)](dy, dx, 781, 781, 1823, 781, BLOCK_SIZE=1024)  # rows per program
    np.testing.assert_allclose(cupy.asnumpy(dy), t.reference(x), rtol=1e-5, atol=1e-6)


def test_layer_norm_forward_tutorial_on_the_gpu():
    t = tutorial("05-layer-norm")
    M, N = 151, 8192
    x = RNG.standard_normal((M, N)).astype(np.float16)
    w = RNG.random(N).astype(np.float16)
    b = RNG.random(N).astype(np.float16)
    dx, dw, db = cupy.asarray(x), cupy.asarray(w), cupy.asarray(b)
    y = cupy.empty_like(dx)
    mean = cupy.empty(M, cupy.float32)
    rstd = cupy.empty(M, cupy.float32)
    t.layer_norm_fwd[(M,)](dx, y, dw, db, mean, rstd, N, N, 1e-5, BLOCK_SIZE=1024)
    np.testing.assert_allclose(cupy.asnumpy(y).astype(np.float32),
                               t.reference(x, w, b).astype(np.float32), rtol=1e-2, atol=1e-2)


def test_atomic_add_accumulates_across_programs():
    import interp_kernels as K
    src = cupy.ones(1024, cupy.float32)
    out = cupy.zeros(1, cupy.float32)
    K.atomic_sum[(16,)](src, out, BLOCK=64)
    assert float(out[0]) == 1024.0


def test_atomics_return_old_values_and_cas_has_one_winner():
    import interp_kernels as K
    counter = cupy.zeros(5, cupy.int32)
    flags = cupy.zeros(1, cupy.int32)
    out = cupy.zeros(1100, cupy.int32)
    K.atomics[(3,)](counter, flags, out, BLOCK=8)
    counter, flags, out = cupy.asnumpy(counter), cupy.asnumpy(flags), cupy.asnumpy(out)
    np.testing.assert_array_equal(counter, [6, 6, 6, 6, 2])
    # Each address got 6 increments: the old values seen are 0..5, each once.
    olds = out[:24]
    for address in range(4):
        lanes = [olds[p * 8 + r] for p in range(3) for r in range(8) if r % 4 == address]
        assert sorted(lanes) == list(range(6))
    winners = out[1000:1003]
    assert (winners == 0).sum() == 1 and flags[0] in (1, 2, 3)


def test_layer_norm_backward_with_locks_on_the_gpu():
    t = tutorial("05-layer-norm")
    M, N, G = 64, 512, 8
    x = RNG.standard_normal((M, N)).astype(np.float16)
    w = RNG.random(N).astype(np.float16)
    b = RNG.random(N).astype(np.float16)
    dy = RNG.standard_normal((M, N)).astype(np.float16)
    dx_, dy_, dw_, db_ = (cupy.asarray(a) for a in (x, dy, w, b))
    y = cupy.empty_like(dx_)
    mean = cupy.empty(M, cupy.float32)
    rstd = cupy.empty(M, cupy.float32)
    t.layer_norm_fwd[(M,)](dx_, y, dw_, db_, mean, rstd, N, N, 1e-5, BLOCK_SIZE=512)
    grad_x = cupy.empty_like(dx_)
    partial_dw = cupy.zeros((G, N), cupy.float16)
    partial_db = cupy.zeros((G, N), cupy.float16)
    locks = cupy.zeros(2 * G, cupy.int32)
    t.layer_norm_bwd_dx_fused[(M,)](grad_x, dy_, partial_dw, partial_db, dx_, dw_, mean, rstd,
                                    locks, N, N, GROUP_SIZE_M=G, BLOCK_SIZE_N=N)
    dw = cupy.empty(N, cupy.float16)
    db = cupy.empty(N, cupy.float16)
    t.layer_norm_bwd_dwdb[(N // 32,)](partial_dw, partial_db, dw, db, G, N, BLOCK_SIZE_M=8,
                                      BLOCK_SIZE_N=32)
    x32, dy32 = x.astype(np.float32), dy.astype(np.float32)
    m, r = cupy.asnumpy(mean), cupy.asnumpy(rstd)
    xhat = (x32 - m[:, None]) * r[:, None]
    np.testing.assert_allclose(cupy.asnumpy(dw).astype(np.float32), (dy32 * xhat).sum(axis=0),
                               rtol=5e-2, atol=1e-1)
    np.testing.assert_allclose(cupy.asnumpy(db).astype(np.float32), dy32.sum(axis=0),
                               rtol=5e-2, atol=1e-1)
    assert (cupy.asnumpy(locks)[:G] == 0).all()


@pytest.mark.parametrize("op", ["trans", "reshape", "join_split", "interleave", "cat", "gather"])
def test_data_movement_agrees_with_the_interpreter(op, monkeypatch):
    M, N = 32, 64
    x = make(np.float32, M * N)
    out = np.zeros(2 * M * N, np.float32)
    # Without fma contraction: join_split's a + b * 10 then rounds as the interpreter does.
    gpu, interp = run_both(G.shapes_2d, (1,), [x, out], 1, monkeypatch, OP=op, M=M, N=N,
                           enable_fp_fusion=False)
    np.testing.assert_array_equal(gpu, interp)


@pytest.mark.parametrize("x_type, y_type", [(np.int8, np.uint8), (np.uint8, np.int8),
                                             (np.int32, np.uint32), (np.int16, np.int64)])
def test_right_shifts_keep_the_left_operands_sign_as_the_interpreter(x_type, y_type,
                                                                      monkeypatch):
    """`x >> y` is arithmetic when x is signed, whatever y's type (as in Triton)."""
    n = 256
    x = RNG.integers(np.iinfo(x_type).min, np.iinfo(x_type).max, n, endpoint=True).astype(x_type)
    bits = 8 * max(np.dtype(x_type).itemsize, np.dtype(y_type).itemsize)
    y = RNG.integers(0, min(bits, 8 * np.dtype(x_type).itemsize), n).astype(y_type)
    out = np.zeros(n, np.int64)  # the promoted result, extended as its signedness says
    gpu, interp = run_both(G.shift_right, (1,), [x, y, out], 2, monkeypatch, BLOCK=n)
    np.testing.assert_array_equal(gpu, interp)


def test_where_between_pointers_agrees_with_the_interpreter(monkeypatch):
    import interp_kernels
    a, b = make(np.int32, 64), make(np.int32, 64)
    cond = RNG.integers(0, 2, 64).astype(np.int32)
    out = np.zeros(128, np.int32)
    gpu, interp = run_both(interp_kernels.where_pointers, (1,), [a, b, cond, out], 3,
                           monkeypatch, N=64)
    np.testing.assert_array_equal(gpu, interp)
    np.testing.assert_array_equal(gpu[:64], np.where(cond != 0, a, b))


def test_random_numbers_are_bit_identical_to_the_interpreter(monkeypatch):
    n = 4096
    u, z, i = np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.uint32)
    dev = [cupy.zeros(n, cupy.float32), cupy.zeros(n, cupy.float32), cupy.zeros(n, cupy.uint32)]
    G.philox_gpu[(n // 512,)](1234567, *dev, BLOCK=512)
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    G.philox_gpu[(n // 512,)](1234567, u, z, i, BLOCK=512)
    np.testing.assert_array_equal(cupy.asnumpy(dev[2]), i)  # the raw bits
    np.testing.assert_array_equal(cupy.asnumpy(dev[0]), u)
    np.testing.assert_allclose(cupy.asnumpy(dev[1]), z, rtol=1e-5, atol=1e-6)  # log/cos


@pytest.mark.parametrize("op", ["cumsum", "cumsum_reverse", "cumprod"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_scans_agree_with_the_interpreter(op, axis, dtype, monkeypatch):
    M, N = 16, 128
    x = make(dtype, M * N) if op != "cumprod" else (RNG.integers(1, 3, M * N).astype(dtype))
    out = np.zeros(M * N, dtype)
    gpu, interp = run_both(G.scans, (1,), [x, out], 1, monkeypatch, OP=op, AXIS=axis, M=M, N=N)
    if dtype is np.int32:
        np.testing.assert_array_equal(gpu, interp)
    else:
        np.testing.assert_allclose(gpu, interp, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n, bins", [(1024, 64), (64, 256), (4096, 8)])
def test_histogram_agrees_with_the_interpreter(n, bins, monkeypatch):
    x = RNG.integers(-3, bins + 3, n).astype(np.int32)  # some outside [0, bins): not counted
    out = np.zeros(bins, np.int32)
    gpu, interp = run_both(G.histogram_kernel, (1,), [x, out], 1, monkeypatch, N=n, BINS=bins)
    np.testing.assert_array_equal(gpu, interp)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
@pytest.mark.parametrize("M, N", [(4, 256), (32, 16), (1, 2048)])
def test_sort_agrees_with_the_interpreter(descending, dtype, M, N, monkeypatch):
    x = make(dtype, M * N)
    out = np.zeros(M * N, dtype)
    gpu, interp = run_both(G.sort_kernel, (1,), [x, out], 1, monkeypatch, DESCENDING=descending,
                           M=M, N=N)
    np.testing.assert_array_equal(gpu, interp)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", [np.uint32, np.uint8])
def test_sort_unsigned_orders_high_values_last(descending, dtype, monkeypatch):
    """Values with the top bit set are the largest unsigned values, not negative ones."""
    info = np.iinfo(dtype)
    x = RNG.integers(0, int(info.max) + 1, 4 * 64, dtype=np.uint64).astype(dtype)
    x[:4] = [0, info.max, 1 << (info.bits - 1), (1 << (info.bits - 1)) - 1]
    out = np.zeros_like(x)
    gpu, interp = run_both(G.sort_kernel, (1,), [x, out], 1, monkeypatch, DESCENDING=descending,
                           M=4, N=64)
    expected = np.sort(x.reshape(4, 64), axis=1)
    expected = expected[:, ::-1] if descending else expected
    np.testing.assert_array_equal(interp.reshape(4, 64), expected)
    np.testing.assert_array_equal(gpu, interp)


def test_block_pointer_matmul_on_the_gpu_agrees_with_numpy():
    """tl.make_block_ptr / tl.advance / boundary_check: partial edge tiles in every dimension,
    B K-major (its strides say so), fp16 in, fp32 out."""
    M, N, K = 200, 136, 120
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b_t = RNG.standard_normal((N, K)).astype(np.float16)  # B = b_t.T: strides (1, K)
    c = cupy.full(M * N + 64, -7.0, cupy.float32)
    G.block_ptr_matmul[(4, 3)](cupy.asarray(a), cupy.asarray(b_t), c, M, N, K, K, 1, 1, K,
                               BM=64, BN=64, BK=32)
    out = cupy.asnumpy(c)
    ref = a.astype(np.float32) @ b_t.T.astype(np.float32)
    np.testing.assert_allclose(out[:M * N].reshape(M, N), ref, rtol=1e-2, atol=1e-2)
    assert (out[M * N:] == -7.0).all()


@pytest.mark.parametrize("check, pad, start", [(True, "zero", -3), (True, "nan", 5),
                                               (False, "", 2)])
def test_block_pointer_padding_agrees_with_the_interpreter(check, pad, start, monkeypatch):
    n, BLOCK = 12, 8
    x = np.arange(1, n + 1, dtype=np.float32)
    out = np.full(n + BLOCK, -1.0, np.float32)
    gpu, interp = run_both(G.block_ptr_padding, (1,), [x, out, n, start], 1, monkeypatch,
                           CHECK=check, PAD=pad, BLOCK=BLOCK)
    np.testing.assert_array_equal(gpu, interp)


def test_loops_carrying_tuples_and_block_pointers_agree_with_the_interpreter(monkeypatch):
    x = np.array([1, -1, 2, 3, -5, 1, 2, 2] * 6, np.float32) + np.arange(48, dtype=np.float32)
    x[16] = -3.0
    out = np.zeros(8, np.float32)
    gpu, interp = run_both(G.carried_structures, (1,), [x, out, len(x)], 1, monkeypatch, BLOCK=8)
    np.testing.assert_array_equal(gpu, interp)


@pytest.mark.parametrize("cache, evict, store_cache", [(".ca", "", ".cs"), (".cg", "", ".wt"),
                                                       ("", "evict_last", ""),
                                                       (".cv", "evict_first", ".wb")])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, np.float64])
def test_hinted_loads_and_stores_copy_exactly(cache, evict, store_cache, dtype):
    n = 5000  # a partial last block: the masked lanes are not written
    x = make(dtype, n)
    y = cupy.full(n + 8, 7, dtype)
    G.hinted_copy[(-(-n // 1024),)](cupy.asarray(x), y, n, CACHE=cache, EVICT=evict,
                                    STORE_CACHE=store_cache, BLOCK=1024)
    out = cupy.asnumpy(y)
    np.testing.assert_array_equal(out[:n], x)
    assert (out[n:] == 7).all()


@pytest.mark.parametrize("sem, scope", [("acq_rel", "gpu"), ("acquire", "cta"),
                                        ("release", "gpu"), ("relaxed", "sys")])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.float16, np.float64])
def test_atomics_with_semantics_and_scope_give_the_sums(sem, scope, dtype):
    programs, BLOCK = 64, 128
    v = make(dtype, programs * BLOCK)
    if np.dtype(dtype).kind == "f":  # exact sums in any order: small integers
        v = np.round(v * 4).astype(dtype)
    total = cupy.zeros(BLOCK, dtype)
    biggest = cupy.full(BLOCK, -1000, dtype)
    flag = cupy.zeros(1, np.int32)
    G.ordered_atomics[(programs,)](total, biggest, flag, cupy.asarray(v), SEM=sem, SCOPE=scope,
                                   BLOCK=BLOCK)
    blocks = v.reshape(programs, BLOCK).astype(np.float64)
    np.testing.assert_array_equal(cupy.asnumpy(total).astype(np.float64), blocks.sum(0))
    np.testing.assert_array_equal(cupy.asnumpy(biggest).astype(np.float64), blocks.max(0))
    assert 1 <= int(flag[0]) <= programs


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_abs_of_every_integer_width_agrees_with_the_interpreter(dtype, monkeypatch):
    """The most negative value maps to itself (two's complement), as in NumPy."""
    info = np.iinfo(dtype)
    x = np.concatenate([np.array([info.min, info.max, -1, 0, 1], dtype), make(dtype, 507)])
    out = np.zeros(len(x), dtype)
    gpu, interp = run_both(G.unary, (1,), [x, out, len(x)], 1, monkeypatch, OP="abs",
                           BLOCK=512)
    np.testing.assert_array_equal(gpu, interp)
    np.testing.assert_array_equal(gpu, np.abs(x))


def test_a_scalar_store_is_one_threads_so_in_place_updates_happen_once():
    for _ in range(20):
        x = cupy.ones(65536, cupy.float32)
        G.double_in_place[(65536,)](x, num_warps=32)
        assert bool((x == 2).all())


def test_inline_asm_elementwise_in_its_forms():
    n = 512
    run = lambda op, *arrays: G.asm_kernels[(1,)](*arrays, OP=op, BLOCK=n)  # noqa: E731
    x = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    y = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    z = cupy.zeros(n, cupy.uint32)
    run("shift", cupy.asarray(x), cupy.asarray(y), z, z)
    expected = ((y.astype(np.uint64) << 32 | x) << 5 >> 32).astype(np.uint32)  # shf.l.wrap
    np.testing.assert_array_equal(cupy.asnumpy(z), expected)

    b = RNG.integers(0, 256, n, dtype=np.uint8)
    packed = cupy.zeros(n, cupy.int8)
    run("packed", cupy.asarray(b), cupy.asarray(b), packed, packed)
    np.testing.assert_array_equal(cupy.asnumpy(packed), ((b & 0x1F) << 3).astype(np.int8))

    f = RNG.standard_normal(n).astype(np.float32)
    i = RNG.integers(-1000, 1000, n).astype(np.int32)
    total, diff = cupy.zeros(n, cupy.float32), cupy.zeros(n, cupy.int32)
    run("two_results", cupy.asarray(f), cupy.asarray(i), total, diff)
    np.testing.assert_array_equal(cupy.asnumpy(total), f + i.view(np.float32))
    np.testing.assert_array_equal(cupy.asnumpy(diff), f.view(np.int32) - i)

    wide, doubled = cupy.zeros(n, cupy.int32), cupy.zeros(n, cupy.float32)
    run("packed_two", cupy.asarray(b), cupy.asarray(f), doubled, wide)
    np.testing.assert_array_equal(cupy.asnumpy(wide), b.astype(np.int32))
    np.testing.assert_array_equal(cupy.asnumpy(doubled), f + f)

    out = cupy.zeros(n, cupy.int32)
    run("pointer", cupy.asarray(i), cupy.asarray(i), out, out)
    np.testing.assert_array_equal(cupy.asnumpy(out), i + 1)


def test_a_block_of_two_splits_into_two_scalars(monkeypatch):
    x = np.array([7, -3], np.int64)
    z1, z2 = np.zeros(1, np.int64), np.zeros(1, np.int64)
    gpu, interp = run_both(G.split_pair, (1,), [x, z1, z2], 1, monkeypatch)
    np.testing.assert_array_equal(gpu, [7])
    np.testing.assert_array_equal(interp, [7])


def test_assigned_number_literals_are_tensors_on_the_gpu_too(monkeypatch):
    import parity_kernels as P
    x = np.arange(1, 6, dtype=np.int32)
    out = np.zeros(4, np.float32)
    gpu, interp = run_both(P.k_assigned_literals, (1,), [x, out], 1, monkeypatch, N=5)
    np.testing.assert_array_equal(gpu, interp)
    np.testing.assert_array_equal(gpu, (15 + 1) * 0.5)


def test_sqrt_rn_is_bitwise_the_correctly_rounded_root():
    n = 1024
    x = np.abs(RNG.standard_normal(n)).astype(np.float32) * np.float32(1e3)
    rn, wide = cupy.zeros(n, cupy.float32), cupy.zeros(n, cupy.float64)
    G.square_roots[(1,)](cupy.asarray(x), rn, wide, BLOCK=n)
    np.testing.assert_array_equal(cupy.asnumpy(rn), np.sqrt(x))  # NumPy's is IEEE-rounded
    np.testing.assert_array_equal(cupy.asnumpy(wide), np.sqrt(x.astype(np.float64)))


@pytest.mark.parametrize("lo, hi, step", [(22, 18, -1), (15, -16, -3), (3, 10, -1),
                                          (2**35 + 20, 2**35, -2)])
def test_ranges_with_negative_steps_count_down_on_the_gpu(lo, hi, step):
    import parity_kernels as P
    out = cupy.zeros(2, cupy.int64)
    P.k_descending_range[(1,)](out, lo, hi, STEP=step)
    expected = list(range(lo, hi, step))
    np.testing.assert_array_equal(cupy.asnumpy(out), [sum(expected), len(expected)])


@pytest.mark.parametrize("fn", ["tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "asinh",
                                "acosh", "atanh", "expm1", "log1p", "log10", "cbrt", "erfc",
                                "trunc", "round", "rint", "pow", "atan2", "copysign", "fmod"])
def test_libdevice_functions_agree_with_the_interpreter(fn, monkeypatch):
    from test_libdevice import inputs
    x, y = inputs(fn)
    out = np.zeros_like(x)
    gpu, interp = run_both(G.libdevice_math, (1,), [x, y, out], 2, monkeypatch, FN=fn,
                           BLOCK=len(x))
    np.testing.assert_allclose(gpu, interp, rtol=2e-6, atol=1e-6)  # libdevice: within 2 ulp


def test_special_registers_read_the_sm_the_threads_and_the_timer():
    out = cupy.zeros(3, cupy.int64)
    G.special_registers[(1,)](out, num_warps=8)
    smid, threads, ticks = (int(v) for v in cupy.asnumpy(out))
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    assert 0 <= smid < 2 * sms and threads == 8 * 32 and 0 <= ticks < 10**9


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_flip_agrees_with_the_interpreter(dim, monkeypatch):
    x = make(np.float32, 64 * 32)
    out = np.zeros_like(x)
    gpu, interp = run_both(G.flips, (1,), [x, out], 1, monkeypatch, M=64, N=32, DIM=dim)
    np.testing.assert_array_equal(gpu, interp)
