"""Type promotion, broadcasting and casts in tilec.language, as Triton defines them.

Each case compiles a tiny kernel and checks two things: the dtype of the result (the kernel
prints it at compile time with tl.static_print) and the ops in its `tile` IR (substring/regex
checks, no FileCheck). Every IR text produced here must parse back with `tilec-opt`.
"""
from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys

import pytest

import tilec
import tilec.language as tl


def compile_tile(*args, **kwargs):
    """tilec.compile up to the `tile` stage: these tests are about the frontend."""
    return tilec.compile(*args, stop_after="tile", **kwargs)

SHORT = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
         "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
         "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}
MLIR = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
        "uint8": "i8", "uint16": "i16", "uint32": "i32", "uint64": "i64",
        "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}


TILEC_OPT = [shutil.which("tilec-opt")] if shutil.which("tilec-opt") else \
    [sys.executable, "-m", "tilec.tools.tilec_opt"]


# --- kernels ----------------------------------------------------------------------------------

@tilec.jit
def apply_op(a, b, OP: tl.constexpr):
    if OP == "+":
        c = a + b
    elif OP == "-":
        c = a - b
    elif OP == "*":
        c = a * b
    elif OP == "/":
        c = a / b
    elif OP == "//":
        c = a // b
    elif OP == "%":
        c = a % b
    elif OP == "<":
        c = a < b
    elif OP == "<=":
        c = a <= b
    elif OP == ">":
        c = a > b
    elif OP == ">=":
        c = a >= b
    elif OP == "==":
        c = a == b
    elif OP == "!=":
        c = a != b
    elif OP == "&":
        c = a & b
    elif OP == "|":
        c = a | b
    elif OP == "^":
        c = a ^ b
    elif OP == "<<":
        c = a << b
    elif OP == ">>":
        c = a >> b
    elif OP == "where":
        c = tl.where(a == a, a, b)
    elif OP == "maximum":
        c = tl.maximum(a, b)
    elif OP == "div_rn":
        c = tl.div_rn(a, b)
    return c


@tilec.jit
def tensor_tensor(a_ptr, b_ptr, out_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 16)
    c = apply_op(tl.load(a_ptr + offs), tl.load(b_ptr + offs), OP)
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr + offs, c)


@tilec.jit
def tensor_literal(a_ptr, out_ptr, OP: tl.constexpr, LIT: tl.constexpr,
                   LIT_FIRST: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    if LIT_FIRST:
        c = apply_op(LIT, a, OP)
    else:
        c = apply_op(a, LIT, OP)
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr + offs, c)


@tilec.jit
def scalar_scalar(a, b, out_ptr, OP: tl.constexpr):
    c = apply_op(a, b, OP)
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr, c)


@tilec.jit
def block_scalar_arg(a_ptr, s, out_ptr):
    offs = tl.arange(0, 16)
    c = tl.load(a_ptr + offs) + s
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr + offs, c)


@tilec.jit
def outer_sum(a_ptr, b_ptr, out_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + tl.arange(0, 32))
    c = a[:, None] + b[None, :]
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr + offs[:, None] * 32 + tl.arange(0, 32)[None, :], c)


@tilec.jit
def column_plus_row(a_ptr, b_ptr, out_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    c = a[:, None] * b
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr + offs[:, None] * 16 + offs[None, :], c)


@tilec.jit
def cast_kernel(a_ptr, out_ptr, DST: tl.constexpr, BITCAST: tl.constexpr,
                ROUNDING: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    c = a.to(DST, bitcast=BITCAST, fp_downcast_rounding=ROUNDING)
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr + offs, c)


@tilec.jit
def tl_cast_kernel(a_ptr, out_ptr, DST: tl.constexpr):
    offs = tl.arange(0, 16)
    c = tl.cast(tl.load(a_ptr + offs), DST)
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr + offs, c)


@tilec.jit
def unary_kernel(a_ptr, out_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs)
    if OP == "neg":
        c = -a
    elif OP == "invert":
        c = ~a
    else:
        c = not a
    tl.static_print("dtype:", c.dtype, "shape:", c.shape)
    tl.store(out_ptr + offs, c)


# --- helpers ----------------------------------------------------------------------------------

def parse_back(text: str) -> None:
    """`tilec-opt` must parse (and verify) the IR the frontend printed."""
    result = subprocess.run(TILEC_OPT + ["-"], input=text, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, f"tilec-opt rejected the IR:\n{result.stderr}\n{text}"
    assert "Traceback" not in result.stderr


@contextlib.contextmanager
def compiled(fn, signature, constexprs=None):
    """Yields (ir_text, printed) where `printed` is what tl.static_print wrote."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        kernel = compile_tile(fn, signature=signature, constexprs=constexprs or {})
    text = kernel.asm["tile"]
    parse_back(text)
    yield text, buf.getvalue()


def result_of(printed: str) -> tuple[str, str]:
    m = re.search(r"dtype: (\S+) shape: (.*)", printed)
    assert m, f"nothing printed: {printed!r}"
    return m.group(1), m.group(2).strip()


def body(text: str) -> str:
    """The IR without location attributes (so regexes see only ops and types)."""
    text = re.sub(r" loc\([^)]*\)", "", text)
    return "\n".join(line for line in text.splitlines() if not line.startswith("#loc"))


def has(text: str, pattern: str) -> bool:
    return re.search(pattern, body(text)) is not None


def compile_tt(a: str, b: str, op: str, out: str | None = None):
    out = out or a
    return compiled(tensor_tensor, {"a_ptr": f"*{SHORT[a]}", "b_ptr": f"*{SHORT[b]}",
                                    "out_ptr": f"*{SHORT[out]}"}, {"OP": op})


def compile_tl(a: str, op: str, lit, lit_first=False, out: str | None = None):
    out = out or a
    return compiled(tensor_literal, {"a_ptr": f"*{SHORT[a]}", "out_ptr": f"*{SHORT[out]}"},
                    {"OP": op, "LIT": lit, "LIT_FIRST": lit_first})


def compile_ss(a: str, b: str, op: str, out: str):
    return compiled(scalar_scalar, {"a": SHORT[a], "b": SHORT[b], "out_ptr": f"*{SHORT[out]}"},
                    {"OP": op})


def t16(name: str) -> str:
    return f"tensor<16x{MLIR[name]}>"


# --- tensor op tensor -------------------------------------------------------------------------

@pytest.mark.parametrize("a,b,expected", [
    ("float16", "float32", "float32"),
    ("float32", "float16", "float32"),
    ("float16", "float16", "float16"),
    ("bfloat16", "bfloat16", "bfloat16"),
    ("bfloat16", "float32", "float32"),
    # Triton: "if one operand is half, the other is converted to half" comes before the bf16 rule
    ("float16", "bfloat16", "float16"),
    ("bfloat16", "float16", "float16"),
    ("float64", "float32", "float64"),
    ("float16", "float64", "float64"),
    ("int32", "float16", "float16"),
    ("int64", "bfloat16", "float32"),
    ("int8", "int32", "int32"),
    ("int32", "int8", "int32"),
    ("int8", "int16", "int16"),
    ("int64", "int32", "int64"),
    ("uint32", "int32", "uint32"),   # equal width: unsigned wins
    ("int32", "uint32", "uint32"),
    ("uint8", "int32", "int32"),     # signed wider: signed wins
    ("uint16", "int8", "uint16"),    # unsigned wider: unsigned wins
    ("int64", "uint32", "int64"),
    ("uint64", "int64", "uint64"),
    ("uint8", "uint16", "uint16"),
])
def test_binary_promotion(a, b, expected):
    with compile_tt(a, b, "+", out=expected) as (text, printed):
        assert result_of(printed) == (expected, "[16]")
        add = "arith.addf" if "float" in expected else "arith.addi"
        assert has(text, rf"{add} %\w+, %\w+ : {re.escape(t16(expected))}"), text
        # The stored value is the sum itself: no conversion after the add.
        assert has(text, rf'"tile.store"\(%\w+, %\w+\) .*\(tensor<16x!tile.ptr<{MLIR[expected]}, '
                         rf'1 : i32>>, {re.escape(t16(expected))}\)'), text


@pytest.mark.parametrize("src,dst,op", [
    ("float16", "float32", "arith.extf"),
    ("bfloat16", "float32", "arith.extf"),
    ("float32", "float64", "arith.extf"),
    ("int8", "int32", "arith.extsi"),
    ("uint8", "int32", "arith.extui"),
    ("int32", "float16", "arith.sitofp"),
    ("uint32", "int64", "arith.extui"),
])
def test_promotion_converts_the_narrower_operand(src, dst, op):
    with compile_tt(src, dst, "+", out=dst) as (text, _):
        assert has(text, rf"{op} %\w+ : {re.escape(t16(src))} to {re.escape(t16(dst))}"), text


def test_fp16_plus_bf16_goes_through_fp32():
    # bf16 -> fp16 has no direct instruction: extend to fp32, then truncate.
    with compile_tt("float16", "bfloat16", "+", out="float16") as (text, _):
        assert has(text, r"arith\.extf %\w+ : tensor<16xbf16> to tensor<16xf32>"), text
        assert has(text, r"arith\.truncf %\w+ : tensor<16xf32> to tensor<16xf16>"), text
        assert has(text, r"arith\.addf %\w+, %\w+ : tensor<16xf16>"), text


def test_same_type_needs_no_conversion():
    with compile_tt("float32", "float32", "*") as (text, _):
        assert not has(text, r"arith\.(extf|truncf|sitofp|extsi)"), text
        assert has(text, r"arith\.mulf %\w+, %\w+ : tensor<16xf32>"), text


@pytest.mark.parametrize("a,b", [("float16", "float16"), ("bfloat16", "bfloat16"),
                                 ("float16", "bfloat16")])
@pytest.mark.parametrize("op", ["/", "%"])
def test_half_precision_div_and_mod_compute_in_fp32(a, b, op):
    with compile_tt(a, b, op, out="float32") as (text, printed):
        assert result_of(printed)[0] == "float32"
        arith_op = "arith.divf" if op == "/" else "arith.remf"
        assert has(text, rf"{arith_op} %\w+, %\w+.*: tensor<16xf32>"), text


# --- division, modulo, shifts -----------------------------------------------------------------

@pytest.mark.parametrize("a,b,conv", [("int32", "int32", "arith.sitofp"),
                                      ("int8", "int8", "arith.sitofp"),
                                      ("uint32", "uint32", "arith.uitofp"),
                                      ("int64", "int64", "arith.sitofp")])
def test_int_true_division_is_fp32(a, b, conv):
    with compile_tt(a, b, "/", out="float32") as (text, printed):
        assert result_of(printed)[0] == "float32"
        assert len(re.findall(rf"{conv} %\w+ : {re.escape(t16(a))} to tensor<16xf32>",
                              body(text))) >= 1, text
        assert has(text, r"arith\.divf %\w+, %\w+.*: tensor<16xf32>"), text


def test_int_true_division_by_literal_is_fp32():
    with compile_tl("int32", "/", 2, out="float32") as (text, printed):
        assert result_of(printed)[0] == "float32"
        assert has(text, r"arith\.sitofp %\w+ : tensor<16xi32> to tensor<16xf32>"), text
        assert has(text, r"arith\.divf %\w+, %\w+.*: tensor<16xf32>"), text


def test_float_division_is_approximate_and_div_rn_is_not():
    with compile_tt("float32", "float32", "/") as (text, _):
        assert has(text, r"arith\.divf %\w+, %\w+ fastmath<afn> : tensor<16xf32>"), text
    with compile_tt("float32", "float32", "div_rn") as (text, _):
        assert has(text, r"arith\.divf %\w+, %\w+ : tensor<16xf32>"), text
        assert "afn" not in body(text)


@pytest.mark.parametrize("ty,op,arith_op", [
    ("int32", "//", "arith.divsi"), ("int32", "%", "arith.remsi"),
    ("int8", "//", "arith.divsi"), ("int64", "%", "arith.remsi"),
    ("uint32", "//", "arith.divui"), ("uint32", "%", "arith.remui"),
    ("uint8", "//", "arith.divui"), ("uint64", "%", "arith.remui"),
    ("int32", ">>", "arith.shrsi"), ("uint32", ">>", "arith.shrui"),
    ("int32", "<<", "arith.shli"), ("uint16", "<<", "arith.shli"),
    ("int32", "&", "arith.andi"), ("int32", "|", "arith.ori"), ("uint8", "^", "arith.xori"),
])
def test_integer_ops_follow_signedness(ty, op, arith_op):
    """`//` and `%` truncate toward zero (C semantics): divsi/remsi, never floordivsi."""
    with compile_tt(ty, ty, op) as (text, printed):
        assert result_of(printed)[0] == ty
        assert has(text, rf"{arith_op} %\w+, %\w+ : {re.escape(t16(ty))}"), text
        assert "floordiv" not in text and "ceildiv" not in text


def test_int_floordiv_by_literal_is_c_division():
    with compile_tl("int32", "//", 3) as (text, printed):
        assert result_of(printed)[0] == "int32"
        assert has(text, r"arith\.divsi %\w+, %\w+ : tensor<16xi32>"), text
    with compile_tl("int32", "%", -3) as (text, _):
        assert has(text, r"arith\.remsi %\w+, %\w+ : tensor<16xi32>"), text


def test_int_divmod_promotes_width_first():
    with compile_tt("int8", "int32", "//", out="int32") as (text, printed):
        assert result_of(printed)[0] == "int32"
        assert has(text, r"arith\.extsi %\w+ : tensor<16xi8> to tensor<16xi32>"), text
        assert has(text, r"arith\.divsi %\w+, %\w+ : tensor<16xi32>"), text


@pytest.mark.parametrize("a,b,op", [
    ("uint32", "int32", "//"), ("int32", "uint32", "%"),
    pytest.param("uint8", "int8", "/"),
])
def test_div_mod_of_mixed_signedness_is_an_error(a, b, op):
    with pytest.raises(tilec.CompilationError, match="signedness"):
        with compile_tt(a, b, op, out="float32"):
            pass


def test_float_floordiv_is_an_error():
    with pytest.raises(tilec.CompilationError, match="//"):
        with compile_tt("float32", "float32", "//"):
            pass


@pytest.mark.parametrize("op", ["&", "<<", ">>"])
def test_bitwise_ops_on_floats_are_errors(op):
    with pytest.raises(tilec.CompilationError, match="integer"):
        with compile_tt("float32", "float32", op):
            pass


# --- Python scalars are weakly typed ----------------------------------------------------------

@pytest.mark.parametrize("ty,op,lit,lit_first,expected", [
    ("float16", "+", 1.0, False, "float16"),
    ("float16", "+", 1.0, True, "float16"),
    ("float16", "*", 3, False, "float16"),
    ("bfloat16", "-", 2.5, True, "bfloat16"),
    ("float32", "+", 1, False, "float32"),
    ("float64", "*", 0.5, False, "float64"),
    ("int8", "+", 1, False, "int8"),
    ("int8", "+", 1, True, "int8"),
    ("int16", "*", -3, False, "int16"),
    ("int64", "+", 1, False, "int64"),
    ("uint32", "+", 1, False, "uint32"),
    ("int32", "+", 1.5, False, "float32"),
    ("int8", "*", 1.5, True, "float32"),
    ("int64", "+", 0.5, False, "float32"),
    ("int8", "+", True, False, "int8"),
    ("float16", "/", 2.0, False, "float32"),   # half-precision division computes in fp32
    ("bfloat16", "%", 2, False, "float32"),
    ("int32", "//", 2, False, "int32"),
])
def test_python_scalars_are_weak(ty, op, lit, lit_first, expected):
    with compile_tl(ty, op, lit, lit_first, out=expected) as (text, printed):
        assert result_of(printed) == (expected, "[16]")
        arith_op = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem",
                    "//": "div"}[op]
        suffix = "f" if "float" in expected else ("si" if op in ("//", "%") else "i")
        assert has(text, rf"arith\.{arith_op}{suffix} %\w+, %\w+.* : "
                         rf"{re.escape(t16(expected))}"), text
        # The literal is materialised directly in the result type.
        assert has(text, rf"arith\.constant dense<[^>]*> : {re.escape(t16(expected))}"), text


def test_fp16_plus_literal_has_no_fp32_anywhere():
    with compile_tl("float16", "+", 1.0) as (text, _):
        assert "f32" not in body(text), text


def test_int8_plus_literal_stays_8_bit():
    with compile_tl("int8", "+", 1) as (text, _):
        assert not has(text, r"arith\.(extsi|extui|trunci)"), text
        assert has(text, r"arith\.addi %\w+, %\w+ : tensor<16xi8>"), text


def test_int_tensor_plus_float_literal_converts_tensor():
    with compile_tl("int32", "+", 1.5, out="float32") as (text, _):
        assert has(text, r"arith\.sitofp %\w+ : tensor<16xi32> to tensor<16xf32>"), text
        assert has(text, r"arith\.constant dense<1\.5\d*e\+00> : tensor<16xf32>"), text


@pytest.mark.parametrize("ty", ["uint8", "uint16"])
def test_python_int_is_weak_against_narrow_unsigned(ty):
    with compile_tl(ty, "+", 1) as (_, printed):
        assert result_of(printed)[0] == ty


@pytest.mark.parametrize("ty,op,arith_op", [("uint32", "//", "arith.divui"),
                                            ("uint32", "%", "arith.remui"),
                                            ("uint8", "//", "arith.divui"),
                                            ("uint16", "%", "arith.remui")])
def test_unsigned_div_mod_by_python_int(ty, op, arith_op):
    with compile_tl(ty, op, 3) as (text, printed):
        assert result_of(printed)[0] == ty
        assert has(text, rf"{arith_op} %\w+, %\w+ : {re.escape(t16(ty))}"), text


def test_unsigned_shift_by_python_int():
    with compile_tl("uint32", ">>", 1) as (text, printed):
        assert result_of(printed)[0] == "uint32"
        assert has(text, r"arith\.shrui %\w+, %\w+ : tensor<16xi32>"), text


def test_literal_that_does_not_fit_is_an_error():
    with pytest.raises(tilec.CompilationError, match="200"):
        with compile_tl("int8", "+", 200):
            pass


def test_negative_literal_with_unsigned_tensor_is_an_error():
    with pytest.raises(tilec.CompilationError, match="negative"):
        with compile_tl("uint32", "+", -1):
            pass


def test_runtime_scalars_are_not_weak():
    """A scalar kernel argument is a typed value, not a Python literal: fp16 block + fp32 arg
    computes in fp32 (the scalar is splat with tile.splat)."""
    with compiled(block_scalar_arg, {"a_ptr": "*fp16", "s": "fp32", "out_ptr": "*fp32"}) \
            as (text, printed):
        assert result_of(printed) == ("float32", "[16]")
        assert has(text, r'"tile.splat"\(%arg1\) : \(f32\) -> tensor<16xf32>'), text
        assert has(text, r"arith\.extf %\w+ : tensor<16xf16> to tensor<16xf32>"), text


@pytest.mark.parametrize("a,b,expected", [("float16", "float32", "float32"),
                                          ("int8", "int32", "int32"),
                                          ("uint32", "int32", "uint32"),
                                          ("int16", "uint8", "int16")])
def test_scalar_scalar_promotion(a, b, expected):
    with compile_ss(a, b, "+", expected) as (text, printed):
        assert result_of(printed) == (expected, "[]")
        add = "arith.addf" if "float" in expected else "arith.addi"
        assert has(text, rf"{add} %\w+, %\w+ : {MLIR[expected]}\n"), text


# --- comparisons -------------------------------------------------------------------------------

@pytest.mark.parametrize("ty,op,pred", [
    ("int32", "<", "slt"), ("int32", "<=", "sle"), ("int32", ">", "sgt"), ("int32", ">=", "sge"),
    ("int8", "==", "eq"), ("int64", "!=", "ne"),
    ("uint32", "<", "ult"), ("uint32", "<=", "ule"), ("uint8", ">", "ugt"),
    ("uint16", ">=", "uge"), ("uint32", "==", "eq"),
])
def test_integer_comparisons(ty, op, pred):
    with compile_tt(ty, ty, op, out="int1") as (text, printed):
        assert result_of(printed) == ("int1", "[16]")
        assert has(text, rf"arith\.cmpi {pred}, %\w+, %\w+ : {re.escape(t16(ty))}"), text


@pytest.mark.parametrize("ty,op,pred", [
    ("float32", "<", "olt"), ("float32", "<=", "ole"), ("float16", ">", "ogt"),
    ("bfloat16", ">=", "oge"), ("float32", "==", "oeq"), ("float64", "!=", "une"),
])
def test_float_comparisons(ty, op, pred):
    with compile_tt(ty, ty, op, out="int1") as (text, printed):
        assert result_of(printed) == ("int1", "[16]")
        assert has(text, rf"arith\.cmpf {pred}, %\w+, %\w+ : {re.escape(t16(ty))}"), text


def test_comparison_promotes_operands_first():
    with compile_tt("int32", "uint32", "<", out="int1") as (text, _):
        assert has(text, r"arith\.cmpi ult, %\w+, %\w+ : tensor<16xi32>"), text
    with compile_tt("float16", "float32", ">=", out="int1") as (text, _):
        assert has(text, r"arith\.extf %\w+ : tensor<16xf16> to tensor<16xf32>"), text
        assert has(text, r"arith\.cmpf oge, %\w+, %\w+ : tensor<16xf32>"), text


def test_comparison_with_literal_is_weak():
    with compile_tl("float16", "<", 0.5, out="int1") as (text, printed):
        assert result_of(printed) == ("int1", "[16]")
        assert has(text, r"arith\.cmpf olt, %\w+, %\w+ : tensor<16xf16>"), text
    with compile_tl("int8", ">", 3, lit_first=True, out="int1") as (text, _):
        # `3 > a`; canonicalize may swap it into `a < 3`.
        assert has(text, r"arith\.cmpi (sgt, %cst\w*, %\w+|slt, %\w+, %cst\w*) : "
                         r"tensor<16xi8>"), text


def test_storing_booleans_writes_bytes():
    with compile_tt("int32", "int32", "<", out="int1") as (text, _):
        assert has(text, r'"tile.store"\(%\w+, %\w+\) .*\(tensor<16x!tile.ptr<i8, 1 : i32>>, '
                         r'tensor<16xi8>\)'), text


# --- where / maximum use the same promotion ---------------------------------------------------

def test_where_promotes_its_branches():
    with compile_tt("float16", "float32", "where", out="float32") as (text, printed):
        assert result_of(printed)[0] == "float32"
        assert has(text, r"arith\.select %\w+, %\w+, %\w+ : tensor<16xi1>, tensor<16xf32>"), text


@pytest.mark.parametrize("a,b,op", [("int32", "int32", "arith.maxsi"),
                                    ("uint32", "int32", "arith.maxui"),
                                    ("float32", "float16", "arith.maxnumf")])
def test_maximum_follows_signedness(a, b, op):
    expected = "uint32" if "uint32" in (a, b) else a
    with compile_tt(a, b, "maximum", out=expected) as (text, _):
        assert has(text, rf"{op} %\w+, %\w+ : {re.escape(t16(expected))}"), text


# --- unary operators ---------------------------------------------------------------------------

def test_unary_minus():
    with compiled(unary_kernel, {"a_ptr": "*fp16", "out_ptr": "*fp16"}, {"OP": "neg"}) \
            as (text, printed):
        assert result_of(printed)[0] == "float16"
        assert has(text, r"arith\.negf %\w+ : tensor<16xf16>"), text
    with compiled(unary_kernel, {"a_ptr": "*i32", "out_ptr": "*i32"}, {"OP": "neg"}) \
            as (text, printed):
        assert result_of(printed)[0] == "int32"
        assert has(text, r"arith\.subi %\w+, %\w+ : tensor<16xi32>"), text


def test_invert():
    with compiled(unary_kernel, {"a_ptr": "*u8", "out_ptr": "*u8"}, {"OP": "invert"}) \
            as (text, printed):
        assert result_of(printed)[0] == "uint8"
        assert has(text, r"arith\.xori %\w+, %\w+ : tensor<16xi8>"), text


# --- broadcasting ------------------------------------------------------------------------------

def test_outer_broadcast_with_none_indexing():
    with compiled(outer_sum, {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32"}) \
            as (text, printed):
        assert result_of(printed) == ("float32", "[16, 32]")
        assert has(text, r'"tile.expand_dims"\(%\w+\) \{axis = 1 : i32\} : \(tensor<16xf32>\) '
                         r'-> tensor<16x1xf32>'), text
        assert has(text, r'"tile.expand_dims"\(%\w+\) \{axis = 0 : i32\} : \(tensor<32xf32>\) '
                         r'-> tensor<1x32xf32>'), text
        assert has(text, r'"tile.broadcast"\(%\w+\) : \(tensor<16x1xf32>\) -> '
                         r'tensor<16x32xf32>'), text
        assert has(text, r'"tile.broadcast"\(%\w+\) : \(tensor<1x32xf32>\) -> '
                         r'tensor<16x32xf32>'), text
        assert has(text, r"arith\.addf %\w+, %\w+ : tensor<16x32xf32>"), text


def test_lower_rank_operand_is_expanded_on_the_left():
    with compiled(column_plus_row, {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32"}) \
            as (text, printed):
        assert result_of(printed) == ("float32", "[16, 16]")
        assert has(text, r"arith\.mulf %\w+, %\w+ : tensor<16x16xf32>"), text
        assert has(text, r'"tile.expand_dims"\(%\w+\) \{axis = 0 : i32\} : \(tensor<16xf32>\) '
                         r'-> tensor<1x16xf32>'), text


def test_runtime_scalar_is_splat():
    with compiled(block_scalar_arg, {"a_ptr": "*i32", "s": "i32", "out_ptr": "*i32"}) \
            as (text, printed):
        assert result_of(printed) == ("int32", "[16]")
        assert has(text, r'"tile.splat"\(%arg1\) : \(i32\) -> tensor<16xi32>'), text
        assert has(text, r"arith\.addi %\w+, %\w+ : tensor<16xi32>"), text


def test_pointer_plus_offsets_splats_the_pointer():
    with compile_tt("float32", "float32", "+") as (text, _):
        assert has(text, r'"tile.splat"\(%arg0\) : \(!tile.ptr<f32, 1 : i32>\) -> '
                         r'tensor<16x!tile.ptr<f32, 1 : i32>>'), text
        assert has(text, r'"tile.addptr"\(%\w+, %\w+\) : \(tensor<16x!tile.ptr<f32, 1 : i32>>, '
                         r'tensor<16xi32>\)'), text


# --- casts -------------------------------------------------------------------------------------

@pytest.mark.parametrize("src,dst,pattern", [
    ("float32", "float16", r"arith\.truncf %\w+ : tensor<16xf32> to tensor<16xf16>"),
    ("float32", "bfloat16", r"arith\.truncf %\w+ : tensor<16xf32> to tensor<16xbf16>"),
    ("float16", "float32", r"arith\.extf %\w+ : tensor<16xf16> to tensor<16xf32>"),
    ("float32", "float64", r"arith\.extf %\w+ : tensor<16xf32> to tensor<16xf64>"),
    ("int32", "float32", r"arith\.sitofp %\w+ : tensor<16xi32> to tensor<16xf32>"),
    ("int8", "float16", r"arith\.sitofp %\w+ : tensor<16xi8> to tensor<16xf16>"),
    ("uint32", "float32", r"arith\.uitofp %\w+ : tensor<16xi32> to tensor<16xf32>"),
    ("uint8", "float64", r"arith\.uitofp %\w+ : tensor<16xi8> to tensor<16xf64>"),
    ("float32", "int32", r"arith\.fptosi %\w+ : tensor<16xf32> to tensor<16xi32>"),
    ("float32", "uint8", r"arith\.fptoui %\w+ : tensor<16xf32> to tensor<16xi8>"),
    ("int8", "int32", r"arith\.extsi %\w+ : tensor<16xi8> to tensor<16xi32>"),
    ("uint8", "int32", r"arith\.extui %\w+ : tensor<16xi8> to tensor<16xi32>"),
    ("int64", "int16", r"arith\.trunci %\w+ : tensor<16xi64> to tensor<16xi16>"),
    ("int32", "int1", r"arith\.cmpi ne, %\w+, %\w+ : tensor<16xi32>"),
    ("float32", "int1", r"arith\.cmpf une, %\w+, %\w+ : tensor<16xf32>"),
])
def test_to_casts(src, dst, pattern):
    with compiled(cast_kernel, {"a_ptr": f"*{SHORT[src]}", "out_ptr": f"*{SHORT[dst]}"},
                  {"DST": getattr(tl, dst), "BITCAST": False, "ROUNDING": None}) \
            as (text, printed):
        assert result_of(printed) == (dst, "[16]")
        assert has(text, pattern), text


def test_tl_cast_is_to():
    with compiled(tl_cast_kernel, {"a_ptr": "*fp32", "out_ptr": "*fp16"},
                  {"DST": tl.float16}) as (text, printed):
        assert result_of(printed)[0] == "float16"
        assert has(text, r"arith\.truncf %\w+ : tensor<16xf32> to tensor<16xf16>"), text


def test_same_width_int_cast_changes_only_signedness():
    with compiled(cast_kernel, {"a_ptr": "*i32", "out_ptr": "*u32"},
                  {"DST": tl.uint32, "BITCAST": False, "ROUNDING": None}) as (text, printed):
        assert result_of(printed)[0] == "uint32"
        assert not has(text, r"arith\.(ext|trunc)"), text


def test_fp16_to_bf16_goes_through_fp32():
    with compiled(cast_kernel, {"a_ptr": "*fp16", "out_ptr": "*bf16"},
                  {"DST": tl.bfloat16, "BITCAST": False, "ROUNDING": None}) as (text, printed):
        assert result_of(printed)[0] == "bfloat16"
        assert has(text, r"arith\.extf %\w+ : tensor<16xf16> to tensor<16xf32>"), text
        assert has(text, r"arith\.truncf %\w+ : tensor<16xf32> to tensor<16xbf16>"), text


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"),
                                     ("float16", "int16"), ("uint32", "float32"),
                                     ("float16", "bfloat16")])
def test_bitcast(src, dst):
    with compiled(cast_kernel, {"a_ptr": f"*{SHORT[src]}", "out_ptr": f"*{SHORT[dst]}"},
                  {"DST": getattr(tl, dst), "BITCAST": True, "ROUNDING": None}) \
            as (text, printed):
        assert result_of(printed)[0] == dst
        assert has(text, rf'"tile.bitcast"\(%\w+\) : \({re.escape(t16(src))}\) -> '
                         rf'{re.escape(t16(dst))}'), text
        assert not has(text, r"arith\.(extf|truncf|sitofp|fptosi|uitofp)"), text


def test_bitcast_of_different_widths_is_an_error():
    with pytest.raises(tilec.CompilationError, match="bitcast"):
        with compiled(cast_kernel, {"a_ptr": "*fp32", "out_ptr": "*fp16"},
                      {"DST": tl.float16, "BITCAST": True, "ROUNDING": None}):
            pass


def test_rtz_downcast_uses_fp_to_fp():
    with compiled(cast_kernel, {"a_ptr": "*fp32", "out_ptr": "*fp16"},
                  {"DST": tl.float16, "BITCAST": False, "ROUNDING": "rtz"}) as (text, printed):
        assert result_of(printed)[0] == "float16"
        assert has(text, r'"tile.fp_to_fp"\(%\w+\).*rtz.*: \(tensor<16xf32>\) -> '
                         r'tensor<16xf16>'), text
        assert "arith.truncf" not in text


def test_store_converts_to_the_pointee_type():
    with compile_tt("float32", "float32", "+", out="float16") as (text, _):
        assert has(text, r"arith\.addf %\w+, %\w+ : tensor<16xf32>"), text
        assert has(text, r"arith\.truncf %\w+ : tensor<16xf32> to tensor<16xf16>"), text
