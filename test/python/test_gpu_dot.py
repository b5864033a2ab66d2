"""`tl.dot` on the GPU (issue 7): dtypes and input precisions, out_dtype, transposed operands
through strides, masked K tails, odd and small shapes, num_stages 1-4 and loops of 0 to 7 trips,
batching through the grid, fused epilogues. Results are compared with NumPy (float64 on the same,
already rounded, inputs) and, for some, with the interpreter.

The `gpu` tests need an NVIDIA GPU and CuPy (torch too for bf16): `pytest -m gpu` on the GPU
machine. The last test is not one of them: it compiles every kernel of dot_kernels.py to tile IR,
which needs no GPU.

Tolerances (`TOL`) bound |out - ref| <= tol * (|ref| + sqrt(K)) elementwise: with standard
normal inputs an entry of a K-term product is ~sqrt(K) in size, so sqrt(K) is the scale of the
absolute part and entries that happen to be near 0 do not fail on rounding noise.
- fp16 and bf16 inputs are exact in fp32, so with fp32 accumulation only the order of additions
  (~1e-6) and the rounding of an fp16/bf16 output (2^-11 / 2^-8 relative) show: 1e-2 for K up to
  512, as Triton's tests allow.
- fp16 accumulation (out_dtype=tl.float16) rounds the running sum to fp16 at least once per
  BLOCK_K: ~2e-3 measured at K=512 in the interpreter; 2e-2.
- tf32 (the default for fp32) rounds each input to 10 mantissa bits: ~1.2e-3 of sqrt(K) measured
  at K=512; 1e-2.
- tf32x3 and ieee keep fp32 products: ~1e-6 measured; 1e-4, which a tf32 path (~1e-3) fails.
- int8 -> int32 is exact.
"""
from __future__ import annotations

import contextlib
import math
import os

import ml_dtypes
import numpy as np
import pytest

import dot_kernels as D
import tilec
import tilec.language as tl
from tutorial_loader import tutorial

try:
    import cupy
except Exception:  # the CPU test below needs no CuPy; the GPU tests are skipped without a GPU
    cupy = None

gpu = pytest.mark.gpu
BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(20240607)

TOL = {"fp16": 1e-2, "bf16": 1e-2, "fp16_acc": 2e-2, "tf32": 1e-2, "tf32x3": 1e-4,
       "ieee": 1e-4, "int8": 0}
# The GPU against the interpreter on the same inputs: only the order of additions differs (and
# the accumulator's roundings for fp16 outputs). For tf32 both must round the inputs the same way
# (round to nearest, ties away, as Triton's cvt.rna.tf32.f32): ~2e-6 apart when they do, ~3e-3
# when the GPU truncates the low bits instead (what mma.sync does with raw fp32 registers).
TOL_VS_INTERPRETER = {"fp16": 1e-4, "tf32": 1e-4, "int8": 0}


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# --- data and arrays -----------------------------------------------------------------------------

def operand(dtype, shape, transposed: bool = False) -> np.ndarray:
    """Random host data: integers in [-100, 100] for int8, else standard normal rounded to
    `dtype`. `transposed`: the same values as a transposed view of a contiguous array (what
    `x.T` of a row-major matrix gives), so the kernel sees stride 1 on the first dimension."""
    dtype = np.dtype(dtype)
    if dtype.kind == "i":
        x = RNG.integers(-100, 101, shape).astype(dtype)
    else:
        x = RNG.standard_normal(shape).astype(np.float32).astype(dtype)
    return np.ascontiguousarray(x.T).T if transposed else x


def poisoned(shape, dtype) -> np.ndarray:
    """An output filled with NaN (or a sentinel), so a kernel that stores nothing fails."""
    dtype = np.dtype(dtype)
    return np.full(shape, -12345 if dtype.kind == "i" else np.nan, dtype)


def strides(x) -> list[int]:
    return [s // x.itemsize for s in x.strides]


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A @ B (batched over a leading dimension too) in float64, exact for int8."""
    if a.dtype.kind == "i":
        return np.matmul(a.astype(np.int64), b.astype(np.int64))
    return np.matmul(a.astype(np.float64), b.astype(np.float64))


def assert_dot_close(out: np.ndarray, ref: np.ndarray, tol: float, K: int) -> None:
    if tol == 0:
        np.testing.assert_array_equal(out, ref.astype(out.dtype))
        return
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=tol,
                               atol=tol * math.sqrt(max(K, 1)))


def to_gpu(hosts: list[np.ndarray]) -> list:
    """GPU copies with the same strides (a transposed view stays one): CuPy arrays, or torch
    tensors for all of them when one is bf16 (CuPy has no bf16)."""
    use_torch = any(h.dtype == BF16 for h in hosts)
    torch = pytest.importorskip("torch") if use_torch else None
    copies = []
    for h in hosts:
        transposed = h.ndim == 2 and not h.flags.c_contiguous
        base = np.ascontiguousarray(h.T if transposed else h)
        if torch is None:
            d = cupy.asarray(base)
        elif base.dtype == BF16:
            d = torch.from_numpy(base.view(np.int16)).view(torch.bfloat16).cuda()
        else:
            d = torch.from_numpy(base).cuda()
        copies.append(d.T if transposed else d)
    return copies


def to_host(d) -> np.ndarray:
    if cupy is not None and isinstance(d, cupy.ndarray):
        return cupy.asnumpy(d)
    return d.cpu().numpy()  # torch: the outputs here are fp32, fp16 or int32, never bf16


@contextlib.contextmanager
def interpreted():
    old = os.environ.get("TILEC_INTERPRET")
    os.environ["TILEC_INTERPRET"] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ["TILEC_INTERPRET"]
        else:
            os.environ["TILEC_INTERPRET"] = old


def launch(kernel, grid, args: list, out_index: int, on_gpu: bool, **meta) -> np.ndarray:
    """Runs `kernel[grid](*args, **meta)` on the GPU (the arrays of `args` copied there) or in
    the interpreter (on the host arrays themselves); returns the host copy of args[out_index]."""
    if not on_gpu:
        with interpreted():
            kernel[grid](*args, **meta)
        return args[out_index]
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    copies = dict(zip(arrays, to_gpu([args[i] for i in arrays])))
    kernel[grid](*[copies.get(i, a) for i, a in enumerate(args)], **meta)
    return to_host(copies[out_index])


def run_matmul(a, b, out_dtype, on_gpu: bool = True, block=(32, 32, 32), precision="tf32",
               acc=tl.float32, kernel=None, **meta) -> np.ndarray:
    """C = A @ B through dot_kernels.matmul (or `kernel`, of the same parameters)."""
    (M, K), N = a.shape, b.shape[1]
    c = poisoned((M, N), out_dtype)
    bm, bn, bk = block
    extra = {"PRECISION": precision, "ACC_DTYPE": acc} if kernel is None else {}
    return launch(kernel or D.matmul, (cdiv(M, bm), cdiv(N, bn)),
                  [a, b, c, M, N, K, *strides(a), *strides(b), *strides(c)], 2, on_gpu,
                  BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, **extra, **meta)


# --- dtypes, input precisions, out_dtype ---------------------------------------------------------

# (name, input dtype, C's dtype, input_precision, out_dtype of tl.dot, tolerance key)
DTYPE_CASES = [
    ("fp16", np.float16, np.float32, "tf32", tl.float32, "fp16"),
    ("fp16_to_fp16", np.float16, np.float16, "tf32", tl.float32, "fp16"),  # fp32 acc, fp16 C
    ("fp16_out_dtype_fp16", np.float16, np.float16, "tf32", tl.float16, "fp16_acc"),
    ("bf16", BF16, np.float32, "tf32", tl.float32, "bf16"),
    ("fp32_tf32", np.float32, np.float32, "tf32", tl.float32, "tf32"),
    ("fp32_tf32x3", np.float32, np.float32, "tf32x3", tl.float32, "tf32x3"),
    ("fp32_ieee", np.float32, np.float32, "ieee", tl.float32, "ieee"),
    ("int8", np.int8, np.int32, "tf32", tl.int32, "int8"),
]
ODD = (100, 72, 50)  # M, N, K: no dimension a multiple of 16 or of a block; a K tail of 18


@gpu
@pytest.mark.parametrize("shape", [ODD, (256, 128, 512)], ids=["100x72x50", "256x128x512"])
@pytest.mark.parametrize("name, dtype, out, precision, acc, tol",
                         DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_dot_dtypes_against_numpy(name, dtype, out, precision, acc, tol, shape):
    M, N, K = shape
    a, b = operand(dtype, (M, K)), operand(dtype, (K, N))
    c = run_matmul(a, b, out, precision=precision, acc=acc)
    assert c.dtype == np.dtype(out)
    assert_dot_close(c, reference(a, b), TOL[tol], K)


@gpu
@pytest.mark.parametrize("block", [(64, 128, 32), (128, 64, 64)], ids=["64x128x32", "128x64x64"])
@pytest.mark.parametrize("name, dtype, out, precision, acc, tol",
                         DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_dot_epilogue_rows_of_128_bytes(name, dtype, out, precision, acc, tol, block):
    # Blocks whose output rows span >= 128 bytes: the accumulator's conversion to the store
    # layout goes through shared memory in swizzled vectors (32x32 blocks take the padded
    # element-wise path). M, N and K are not multiples of the blocks.
    M, N, K = 200, 264, 96
    a, b = operand(dtype, (M, K)), operand(dtype, (K, N))
    c = run_matmul(a, b, out, precision=precision, acc=acc, block=block)
    assert_dot_close(c, reference(a, b), TOL[tol], K)


TRANSPOSED_CASES = [("fp16", "a"), ("fp16", "b"), ("fp16", "ab"), ("bf16", "ab"),
                    ("fp32_tf32", "ab"), ("fp32_ieee", "a"), ("int8", "a"), ("int8", "b")]


@gpu
@pytest.mark.parametrize("name, which", TRANSPOSED_CASES,
                         ids=[f"{n}-{w}T" for n, w in TRANSPOSED_CASES])
def test_transposed_operands_through_strides(name, which):
    """A given as the view A^T.T of a contiguous [K, M] array (stride 1 along M), B likewise:
    the ldmatrix.trans / transposed-operand paths."""
    _, dtype, out, precision, acc, tol = next(c for c in DTYPE_CASES if c[0] == name)
    M, N, K = ODD
    a = operand(dtype, (M, K), transposed="a" in which)
    b = operand(dtype, (K, N), transposed="b" in which)
    assert strides(a)[0] == (1 if "a" in which else K)
    c = run_matmul(a, b, out, precision=precision, acc=acc)
    assert_dot_close(c, reference(a, b), TOL[tol], K)


INTERPRETER_CASES = [("fp16", ""), ("fp32_tf32", ""), ("int8", ""), ("fp16", "ab")]


@gpu
@pytest.mark.parametrize("name, which", INTERPRETER_CASES,
                         ids=[f"{n}{'-' + w + 'T' if w else ''}" for n, w in INTERPRETER_CASES])
def test_dot_agrees_with_the_interpreter(name, which):
    _, dtype, out, precision, acc, _ = next(c for c in DTYPE_CASES if c[0] == name)
    M, N, K = ODD
    a = operand(dtype, (M, K), transposed="a" in which)
    b = operand(dtype, (K, N), transposed="b" in which)
    on_gpu = run_matmul(a, b, out, precision=precision, acc=acc)
    interpreted_c = run_matmul(a, b, out, on_gpu=False, precision=precision, acc=acc)
    tol = TOL_VS_INTERPRETER["tf32" if name == "fp32_tf32" else name]
    assert_dot_close(on_gpu, interpreted_c.astype(np.float64), tol, K)


# --- shapes: K tails, small blocks ---------------------------------------------------------------

@gpu
@pytest.mark.parametrize("K", [33, 47, 100, 161], ids=lambda k: f"K{k}")
def test_masked_k_tails(K):
    """K not a multiple of BLOCK_K = 32: the last iteration loads a partial, zero-filled tile."""
    a, b = operand(np.float16, (64, K)), operand(np.float16, (K, 64))
    c = run_matmul(a, b, np.float32)
    assert_dot_close(c, reference(a, b), TOL["fp16"], K)


# (input, BLOCK_M, BLOCK_N, BLOCK_K): one mma instruction (m16n8k16 fp16, m16n8k8 tf32,
# m16n8k32 int8) or less in some dimension, padded by the compiler where needed.
SMALL_BLOCKS = [("fp16", 16, 16, 16), ("fp16", 8, 16, 16), ("fp16", 16, 8, 16),
                ("fp16", 16, 16, 8), ("fp16", 8, 8, 8), ("fp32_tf32", 16, 16, 8),
                ("int8", 16, 16, 16)]


@gpu
@pytest.mark.parametrize("name, bm, bn, bk", SMALL_BLOCKS,
                         ids=[f"{n}-{m}x{n_}x{k}" for n, m, n_, k in SMALL_BLOCKS])
def test_small_dot_shapes(name, bm, bn, bk):
    _, dtype, out, precision, acc, tol = next(c for c in DTYPE_CASES if c[0] == name)
    M, N, K = 40, 24, 56  # several tiles in each dimension, partial last ones
    a, b = operand(dtype, (M, K)), operand(dtype, (K, N))
    c = run_matmul(a, b, out, block=(bm, bn, bk), precision=precision, acc=acc)
    assert_dot_close(c, reference(a, b), TOL[tol], K)


# --- loops: num_stages, short trip counts --------------------------------------------------------

@gpu
@pytest.mark.parametrize("num_stages", [1, 2, 3, 4], ids=lambda s: f"stages{s}")
@pytest.mark.parametrize("K", [0, 5, 32, 64, 96, 200], ids=lambda k: f"K{k}")
def test_num_stages_and_short_loops(num_stages, K):
    """Trip counts 0 (K=0: the zero accumulator is stored), 1 (K=5 < BLOCK_K and K=32), 2, 3
    and 7 (with a tail), below and above num_stages - 1: a pipeline whose prologue or epilogue
    runs a stage too many or too few gives wrong sums, or NaN from the poisoned output."""
    M, N = 48, 40
    a, b = operand(np.float16, (M, K)), operand(np.float16, (K, N))
    c = run_matmul(a, b, np.float32, num_stages=num_stages)
    if K == 0:
        np.testing.assert_array_equal(c, np.zeros((M, N), np.float32))
    assert_dot_close(c, reference(a, b), TOL["fp16"], K)


@gpu
@pytest.mark.parametrize("stages", [1, 2, 4], ids=lambda s: f"stages{s}")
@pytest.mark.parametrize("K", [40, 200], ids=lambda k: f"K{k}")
def test_num_stages_per_loop_with_tl_range(stages, K):
    """`tl.range(..., num_stages=)` on the loop; the launch asks for 3."""
    a, b = operand(np.float16, (48, K)), operand(np.float16, (K, 40))
    c = run_matmul(a, b, np.float32, kernel=D.matmul_loop_stages, STAGES=stages, num_stages=3)
    assert_dot_close(c, reference(a, b), TOL["fp16"], K)


# --- batching, epilogues, the tutorial -----------------------------------------------------------

@gpu
def test_batched_through_the_grid():
    Z, (M, N, K) = 3, ODD
    a, b = operand(np.float16, (Z, M, K)), operand(np.float16, (Z, K, N))
    c = poisoned((Z, M, N), np.float32)
    grid = (cdiv(M, 32), cdiv(N, 32), Z)
    out = launch(D.batched_matmul, grid, [a, b, c, M, N, K, *strides(a), *strides(b),
                                          *strides(c)], 2, True,
                 BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    assert_dot_close(out, reference(a, b), TOL["fp16"], K)


@gpu
def test_batched_dot_of_3d_blocks():
    Z, M, N, K = 2, 16, 16, 16
    a, b = operand(np.float16, (Z, M, K)), operand(np.float16, (Z, K, N))
    c = poisoned((Z, M, N), np.float32)
    out = launch(D.dot_3d, (1,), [a, b, c], 2, True, B=Z, M=M, N=N, K=K)
    assert_dot_close(out, reference(a, b), TOL["fp16"], K)


# (B, M, N, K, num_warps): a batch per warp, more warps than batch elements, fewer
BATCHED_BLOCKS = [(2, 16, 16, 16, 1), (4, 32, 32, 64, 4), (8, 32, 32, 32, 8),
                  (2, 64, 64, 32, 2), (1, 64, 32, 16, 16), (4, 64, 64, 64, 4)]
BATCHED_DTYPES = [c for c in DTYPE_CASES if c[0] in
                  ("fp16", "fp16_out_dtype_fp16", "bf16", "fp32_tf32", "int8")]


@gpu
@pytest.mark.parametrize("name, dtype, out, precision, acc, tol", BATCHED_DTYPES,
                         ids=[c[0] for c in BATCHED_DTYPES])
@pytest.mark.parametrize("Z, M, N, K, warps", BATCHED_BLOCKS,
                         ids=["x".join(map(str, b)) for b in BATCHED_BLOCKS])
def test_batched_dots_on_mma(name, dtype, out, precision, acc, tol, Z, M, N, K, warps):
    """3-D dots run on mma.sync with the batch over warps and registers (they used to take the
    FMA path, a [4, 64, 64] fp16 dot spilling 86 KB)."""
    a, b = operand(dtype, (Z, M, K)), operand(dtype, (Z, K, N))
    c = poisoned((Z, M, N), out)
    got = launch(D.dot_3d, (1,), [a, b, c], 2, True, B=Z, M=M, N=N, K=K, PRECISION=precision,
                 ACC_DTYPE=acc, num_warps=warps)
    assert_dot_close(got, reference(a, b), TOL[tol], K)


@pytest.mark.parametrize("dtype, out, acc, blocks, layout, instruction", [
    ("fp16", "fp32", tl.float32, (4, 64, 64, 64), "[4, 1, 1]", "m16n8k16.row.col.f32.f16.f16.f32"),
    ("fp32", "fp32", tl.float32, (8, 32, 32, 64), "[4, 1, 1]", "m16n8k8.row.col.f32.tf32.tf32.f32"),
    ("i8", "i32", tl.int32, (4, 64, 64, 64), "[4, 1, 1]",
     "m16n8k32.row.col.satfinite.s32.s8.s8.s32")])
def test_batched_dot_compiles_to_mma_without_spills(dtype, out, acc, blocks, layout, instruction,
                                                    tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    Z, M, N, K = blocks
    k = tilec.compile(D.dot_3d, signature={"a_ptr": f"*{dtype}:16", "b_ptr": f"*{dtype}:16",
                                           "c_ptr": f"*{out}:16"},
                      constexprs={"B": Z, "M": M, "N": N, "K": K, "ACC_DTYPE": acc},
                      num_warps=4, target="cuda:90")
    assert f"#tilegpu.mma<[2, 0], {layout}, [1, 16, 8]>" in k.asm["tilegpu"]
    assert f"mma.sync.aligned.{instruction}" in k.asm["ptx"]
    assert k.metadata["spill_stores"] == 0


@gpu
@pytest.mark.parametrize("stages", [1, 3])
def test_batched_dots_in_a_pipelined_loop(stages):
    Z, M, N, K = 4, 32, 32, 96
    a, b = operand(np.float16, (Z, M, K)), operand(np.float16, (Z, K, N))
    c = poisoned((Z, M, N), np.float32)
    got = launch(D.dot_3d_loop, (1,), [a, b, c, K], 2, True, B=Z, M=M, N=N, BLOCK_K=32,
                 num_warps=4, num_stages=stages)
    assert_dot_close(got, reference(a, b), TOL["fp16"], K)


def test_batched_dot_loop_compiles_with_stages(tmp_path, monkeypatch):
    """The pipeliner stages a loop's 3-D operands (rank-3 rings of buffers) and leaves their
    dot whole (its K-step fragment prefetch is for 2-D ldmatrix operands)."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    k = tilec.compile(D.dot_3d_loop, signature={"a_ptr": "*fp16:16", "b_ptr": "*fp16:16",
                                                "c_ptr": "*fp32:16", "K": "i32:16"},
                      constexprs={"B": 4, "M": 32, "N": 32, "BLOCK_K": 32}, num_warps=4,
                      num_stages=3, target="cuda:90")
    assert "cp.async.cg.shared.global" in k.asm["ptx"] and "mma.sync.aligned" in k.asm["ptx"]
    assert k.metadata["spill_stores"] == 0


@gpu
@pytest.mark.parametrize("epilogue", ["to_fp16", "bias_relu"])
def test_fused_epilogues(epilogue):
    M, N, K = ODD
    a, b = operand(np.float16, (M, K)), operand(np.float16, (K, N))
    bias = operand(np.float32, (N,))
    c = poisoned((M, N), np.float16)
    out = launch(D.matmul_epilogue, (cdiv(M, 32), cdiv(N, 32)),
                 [a, b, bias, c, M, N, K, *strides(a), *strides(b), *strides(c)], 3, True,
                 BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, EPILOGUE=epilogue)
    expected = reference(a, b)
    if epilogue == "bias_relu":
        expected = np.maximum(expected + bias[None, :], 0.0)
        assert (out == 0).any() and (out > 0).any()
    assert_dot_close(out, expected, TOL["fp16"], K)


@gpu
def test_matmul_tutorial_on_the_gpu():
    t = tutorial("03-matrix-multiplication")
    M = N = K = 512
    a, b = operand(np.float16, (M, K)), operand(np.float16, (K, N))
    c = poisoned((M, N), np.float16)
    out = launch(t.matmul_kernel.fn, (cdiv(M, 64) * cdiv(N, 64),),  # .fn: the @jit under autotune
                 [a, b, c, M, N, K, *strides(a), *strides(b), *strides(c)], 2, True,
                 BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
                 ACTIVATION="leaky_relu")
    expected = reference(a, b)
    expected = np.where(expected >= 0, expected, 0.01 * expected)
    assert_dot_close(out, expected, TOL["fp16"], K)


# --- without a GPU: every kernel through the frontend --------------------------------------------

MATMUL_PARAMS = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak",
                 "stride_bk", "stride_bn", "stride_cm", "stride_cn"]


def matmul_signature(a: str, c: str, extra=()) -> dict:
    ptrs = {"a_ptr": f"*{a}:16", "b_ptr": f"*{a}:16", "c_ptr": f"*{c}:16", **dict(extra)}
    return {**ptrs, **{p: "i32" for p in MATMUL_PARAMS[3:]}}


BLOCKS = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}
FRONTEND_CASES = [
    (D.matmul, matmul_signature(a, c), {**BLOCKS, "PRECISION": p, "ACC_DTYPE": acc}, p)
    for a, c, p, acc in [("fp16", "fp32", "tf32", tl.float32), ("fp16", "fp16", "tf32", tl.float16),
                         ("bf16", "fp32", "tf32", tl.float32), ("fp32", "fp32", "tf32", tl.float32),
                         ("fp32", "fp32", "tf32x3", tl.float32),
                         ("fp32", "fp32", "ieee", tl.float32), ("i8", "i32", "tf32", tl.int32)]
] + [
    (D.matmul, matmul_signature("fp16", "fp32"),
     {"BLOCK_M": 8, "BLOCK_N": 16, "BLOCK_K": 8, "PRECISION": "tf32", "ACC_DTYPE": tl.float32},
     "tf32"),
    (D.matmul_loop_stages, matmul_signature("fp16", "fp32"), {**BLOCKS, "STAGES": 4}, "tf32"),
    (D.matmul_epilogue, matmul_signature("fp16", "fp16", {"bias_ptr": "*fp32:16"}),
     {**BLOCKS, "EPILOGUE": "bias_relu"}, "tf32"),
    (D.batched_matmul,
     {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp32:16",
      **{p: "i32" for p in ["M", "N", "K", "stride_ab", "stride_am", "stride_ak", "stride_bb",
                            "stride_bk", "stride_bn", "stride_cb", "stride_cm", "stride_cn"]}},
     BLOCKS, "tf32"),
    (D.dot_3d, {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp32:16"},
     {"B": 2, "M": 16, "N": 16, "K": 16}, "tf32"),
]


@pytest.mark.parametrize("kernel, signature, constexprs, precision", FRONTEND_CASES,
                         ids=[f"{k.__name__}-{i}" for i, (k, *_) in enumerate(FRONTEND_CASES)])
def test_dot_kernels_compile_to_tile_ir(kernel, signature, constexprs, precision, tmp_path,
                                        monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    k = tilec.compile(kernel, signature=signature, constexprs=constexprs, stop_after="tile")
    assert list(k.asm) == ["tile"]
    ir = k.asm["tile"]
    assert '"tile.dot"' in ir and f'input_precision = "{precision}"' in ir, ir
    if kernel is D.matmul_loop_stages:
        assert "num_stages" in ir, ir
