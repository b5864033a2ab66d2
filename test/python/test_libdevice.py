"""libdevice's functions in the tl.math and tl.extra.cuda.libdevice namespaces: the interpreter
computes what NumPy does, the compiler links libdevice for them (test_gpu_backend.py compares
the GPU with the interpreter); tl.extra.cuda's special registers."""
from __future__ import annotations

import math

import numpy as np
import pytest

import gpu_kernels as G
import tilec
import tilec.language as tl
from tilec.errors import CompilationError

UNARY = {"tan": np.tan, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin,
         "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
         "atanh": np.arctanh, "expm1": np.expm1, "log1p": np.log1p, "log10": np.log10,
         "cbrt": np.cbrt, "erfc": np.vectorize(math.erfc), "trunc": np.trunc,
         "round": lambda v: np.copysign(np.floor(np.abs(v) + 0.5), v), "rint": np.rint}
BINARY = {"pow": np.power, "atan2": np.arctan2, "copysign": np.copysign, "fmod": np.fmod}


def inputs(fn: str, n: int = 128):
    rng = np.random.default_rng(3)
    x = rng.uniform(-0.9, 0.9, n).astype(np.float32)
    if fn == "acosh":
        x = 1 + np.abs(x) * 3
    if fn in ("log10", "pow"):
        x = np.abs(x) + 0.1
    if fn in ("round", "rint"):
        x = (x * 10).round() / 2  # halves: where the two roundings differ
    return x, rng.uniform(-2, 2, n).astype(np.float32)


@pytest.mark.parametrize("fn", sorted(UNARY) + sorted(BINARY))
def test_the_interpreter_computes_libdevices_functions_as_numpy(fn):
    x, y = inputs(fn)
    out = np.zeros_like(x)
    G.libdevice_math.interpret = True
    try:
        G.libdevice_math[(1,)](x, y, out, FN=fn, BLOCK=len(x))
    finally:
        G.libdevice_math.interpret = None
    expected = BINARY[fn](x, y) if fn in BINARY else UNARY[fn](x.astype(np.float64))
    np.testing.assert_allclose(out, expected.astype(np.float32), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fn", sorted(UNARY) + sorted(BINARY))
def test_libdevices_functions_compile_to_cubin(fn):
    """libdevice is linked: no call to __nv_* stays in the PTX."""
    ptx = tilec.compile(G.libdevice_math, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                     "out_ptr": "*fp32"},
                        constexprs={"FN": fn, "BLOCK": 128}).asm["ptx"]
    assert "__nv_" not in ptx and "call.uni" not in ptx


def test_the_namespaces_hold_one_definition_of_each_function():
    assert tl.extra.cuda.libdevice.tanh is tl.math.tanh is tl.extra.libdevice.tanh
    assert tl.math.exp is tl.exp and tl.extra.cuda.libdevice.sqrt is tl.sqrt
    assert not hasattr(tl, "pow") and not hasattr(tl, "round")  # Python's, at top level


def test_integer_operands_of_two_operand_math_are_an_error_in_both_modes():
    @tilec.jit
    def bad(x_ptr):
        v = tl.load(x_ptr + tl.arange(0, 8))
        tl.store(x_ptr + tl.arange(0, 8), tl.math.pow(v, v))

    with pytest.raises(CompilationError, match="pow needs floating-point operands"):
        tilec.compile(bad, signature={"x_ptr": "*i32"})
    bad.interpret = True
    with pytest.raises(CompilationError, match="pow needs floating-point operands"):
        bad[(1,)](np.zeros(8, np.int32))


def test_special_registers_are_inline_asm_reads():
    ptx = tilec.compile(G.special_registers, signature={"out_ptr": "*i64"}).asm["ptx"]
    assert "%smid" in ptx and "%ntid.x" in ptx and ptx.count("%globaltimer") == 2
