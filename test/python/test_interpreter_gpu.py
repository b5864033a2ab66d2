"""Interpreting kernels whose arguments live on the GPU (CuPy, torch): copied to the host for
the launch and back after it. Needs a GPU: run with `pytest -m gpu` on the GPU machine."""
from __future__ import annotations

import numpy as np
import pytest

import interp_kernels as K
from tilec.errors import OutOfBoundsError

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")


def test_cupy_arrays_are_read_and_written_back():
    cupy = pytest.importorskip("cupy")
    src = cupy.arange(100, dtype=cupy.float32)
    dst = cupy.zeros(100, dtype=cupy.float32)
    K.copy_masked[(4,)](src, dst, 100, BLOCK=32)
    np.testing.assert_array_equal(cupy.asnumpy(dst), np.arange(100, dtype=np.float32))


def test_cupy_out_of_bounds_is_reported():
    cupy = pytest.importorskip("cupy")
    src = cupy.arange(100, dtype=cupy.float32)
    dst = cupy.zeros(100, dtype=cupy.float32)
    with pytest.raises(OutOfBoundsError):
        K.copy_unmasked[(4,)](src, dst, 100, BLOCK=32)


def test_torch_cuda_strided_view():
    torch = pytest.importorskip("torch")
    base = torch.arange(64 * 64, dtype=torch.float32, device="cuda").reshape(64, 64)
    view = base[::4, 1::8]
    dst = torch.zeros(16 * 8, dtype=torch.float32, device="cuda")
    K.strided_copy[(1,)](view, dst, view.stride(0), view.stride(1), R=16, C=8)
    assert torch.equal(dst.reshape(16, 8), view)


def test_torch_bfloat16_on_the_gpu():
    torch = pytest.importorskip("torch")
    x = torch.randn(128, device="cuda").to(torch.bfloat16)
    y = torch.zeros(128, device="cuda", dtype=torch.bfloat16)
    K.copy_masked[(1,)](x, y, 128, BLOCK=128)
    assert torch.equal(x, y)


def test_torch_cpu_tensor():
    torch = pytest.importorskip("torch")
    x = torch.arange(100, dtype=torch.float32)
    y = torch.zeros(100, dtype=torch.float32)
    K.copy_masked[(4,)](x, y, 100, BLOCK=32)
    assert torch.equal(x, y)
