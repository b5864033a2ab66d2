"""tl.topk (Triton's): the k largest values along the last dimension, largest first, in both
modes and on the GPU; mistakes in k or dim are errors at the line."""
from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.compiler import CompileOptions, compile_specialized
from tilec.errors import CompilationError
from interpreting import interpret

RNG = np.random.default_rng(7)


@tilec.jit
def topk_rows(x, out, N: tl.constexpr, K: tl.constexpr, ROWS: tl.constexpr, METHOD: tl.constexpr):
    rows = tl.arange(0, ROWS)[:, None]
    v = tl.load(x + rows * N + tl.arange(0, N)[None, :])
    top = v.topk(K) if METHOD else tl.topk(v, K)
    tl.store(out + rows * K + tl.arange(0, K)[None, :], top)


def expected(x: np.ndarray, k: int) -> np.ndarray:
    return -np.sort(-x, axis=-1)[..., :k]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
@pytest.mark.parametrize("n, k", [(64, 8), (128, 1), (32, 32), (256, 16)])
def test_topk_in_the_interpreter(dtype, n, k):
    x = (RNG.standard_normal((4, n)) * 100).astype(dtype)
    x[0, :3] = x[0, 3]  # ties
    out = np.zeros((4, k), dtype)
    interpret(topk_rows, (1,), x, out, N=n, K=k, ROWS=4, METHOD=k == 8)
    np.testing.assert_array_equal(out, expected(x, k))


def test_topk_compiles():
    key = (("*fp32", True), ("*fp32", True), ("constexpr", 128), ("constexpr", 8),
           ("constexpr", 4), ("constexpr", False))
    assert compile_specialized(topk_rows, key, CompileOptions(), stop_after="ptx")


@tilec.jit
def topk_bad(x, out, K: tl.constexpr, DIM: tl.constexpr):
    v = tl.load(x + tl.arange(0, 4)[:, None] * 64 + tl.arange(0, 64)[None, :])
    tl.store(out + tl.arange(0, 4), tl.max(tl.topk(v, K, dim=DIM), 1))


@pytest.mark.parametrize("k, dim, message", [
    (6, None, "k must be a power of two no larger than the last dimension"),
    (128, None, "k must be a power of two no larger than the last dimension"),
    (4, 0, "selects along the last dimension only")])
def test_topk_mistakes_are_errors_at_the_line(k, dim, message):
    key = (("*fp32", True), ("*fp32", True), ("constexpr", k), ("constexpr", dim))
    with pytest.raises(CompilationError, match=message) as err:
        compile_specialized(topk_bad, key, CompileOptions(), stop_after="tile")
    assert "tl.topk(v, K, dim=DIM)" in str(err.value)
    with pytest.raises(CompilationError, match=message):
        interpret(topk_bad, (1,), np.zeros(256, np.float32), np.zeros(4, np.float32), K=k, DIM=dim)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_topk_on_the_gpu(dtype):
    cupy = pytest.importorskip("cupy")
    x = (RNG.standard_normal((8, 256)) * 100).astype(dtype)
    out = cupy.zeros((8, 16), dtype)
    topk_rows[(1,)](cupy.asarray(x), out, N=256, K=16, ROWS=8, METHOD=False)
    np.testing.assert_array_equal(out.get(), expected(x, 16))
