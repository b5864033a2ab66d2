"""How long the interpreter takes for the sizes issue 4 names (CPU only; no GPU needed).

    TILEC_INTERPRET=1 python bench/interpreter_speed.py

Prints wall-clock seconds for a 1M-element vector add (BLOCK_SIZE=1024, 1024 programs) and a
512x512x512 fp16 matmul with 64x64x32 blocks (64 programs), each checked against NumPy, with
all checks on and then off.
"""
import importlib.util
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def tutorial(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"),
                                                  ROOT / "tutorials" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def matmul_64x64x32(mm, a, b):
    """The matmul tutorial's kernel (under its autotuner) with 64x64x32 blocks."""
    M, K = a.shape
    N = b.shape[1]
    c = np.empty((M, N), np.float16)
    kernel = mm.matmul_kernel.fn  # the @tilec.jit kernel the autotuner wraps
    kernel[(M // 64 * (N // 64),)](a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_SIZE_M=64,
                                   BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
                                   ACTIVATION="")
    return c


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def main():
    os.environ["TILEC_INTERPRET"] = "1"
    add, mm = tutorial("01-vector-add"), tutorial("03-matrix-multiplication")
    rng = np.random.default_rng(0)
    x = rng.random(1 << 20, dtype=np.float32)
    y = rng.random(1 << 20, dtype=np.float32)
    a = rng.standard_normal((512, 512)).astype(np.float16)
    b = rng.standard_normal((512, 512)).astype(np.float16)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    for checks in ("on", "off"):
        for var in ("TILEC_CHECK_BOUNDS", "TILEC_CHECK_OVERFLOW", "TILEC_CHECK_RACES"):
            os.environ[var] = "1" if checks == "on" else "0"
        out, t_add = timed(lambda: add.add(x, y))
        assert np.array_equal(out, x + y)
        c, t_mm = timed(lambda: matmul_64x64x32(mm, a, b))
        assert np.allclose(c.astype(np.float32), expected, rtol=1e-2, atol=1e-1)
        print(f"checks {checks:3}: vector add 1M {t_add:6.2f} s   matmul 512^3 {t_mm:6.2f} s")


if __name__ == "__main__":
    main()
