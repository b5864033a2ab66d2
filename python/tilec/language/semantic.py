"""The semantic layer: type promotion, broadcasting, casts and arithmetic.

Every function takes tilec values (tensors, or Python numbers where the language allows them),
checks them, promotes and broadcasts as Triton does, and asks the current builder
(language/builder.py) for the primitive ops that compute the result: the MLIR builder when
compiling, the NumPy builder when interpreting, so both modes share every rule and message.
Mistakes in the user's kernel raise `SemanticError`; the frontend (or the interpreter) turns it
into a `CompilationError` at the kernel's line.
"""
from __future__ import annotations

import numbers

from tilec.errors import integer_text
from tilec.language import dtypes as T
from tilec.language.builder import current as _builder
from tilec.language.core import SemanticError, block_of, tensor, unwrap
from tilec.language.dtypes import dtype

# --- constants ---------------------------------------------------------------------------------


def literal_type(value) -> dtype:
    """The type of a Python literal: bool -> int1, int -> int32, uint32, int64 or uint64 (the
    first that holds it), float -> float32."""
    if isinstance(value, bool):
        return T.int1
    if isinstance(value, numbers.Integral):
        if -2**31 <= value < 2**31:
            return T.int32
        if 2**31 <= value < 2**32:
            return T.uint32
        if -2**63 <= value < 2**63:
            return T.int64
        if 0 <= value < 2**64:
            return T.uint64
        raise SemanticError(f"integer constant {integer_text(value)} does not fit in 64 bits")
    if isinstance(value, numbers.Real):
        return T.float32
    raise SemanticError(f"expected a number, got {type(value).__name__} {value!r}")


def constant(value, ty: dtype, shape=()) -> tensor:
    """A constant scalar, or a block of `shape` filled with it. Integers may be given in either
    signedness's range of `ty`'s width (-1 is the all-ones uint32); they are stored as `ty`
    reads the bits."""
    ty = ty.scalar
    if ty.is_int():
        width = ty.primitive_bitwidth
        value = int(value)
        if width == 1:
            value = int(bool(value))
        elif not -2**(width - 1) <= value < 2**width:
            raise SemanticError(f"constant {value} is out of range for {ty} (it does not fit)")
        elif ty.is_int_unsigned() and value < 0:
            value += 2**width
        elif ty.is_int_signed() and value >= 2**(width - 1):
            value -= 2**width
    elif ty.is_fp8e4b15():  # an i8 in the IR: the float16 constant converted
        return _to_e4b15(constant(float(value), T.float16, shape))
    elif ty.is_floating():
        value = float(value)
    return _builder().constant(value, ty, list(shape))


def to_tensor(value, ty: dtype | None = None) -> tensor:
    value = unwrap(value)
    if isinstance(value, tensor):
        return value
    return constant(value, ty or literal_type(value))


def is_literal(value) -> bool:
    return isinstance(unwrap(value), (bool, numbers.Number))


# --- shapes -------------------------------------------------------------------------------------


def splat(x: tensor, shape) -> tensor:
    return _builder().splat(x, list(shape))


def broadcast_to(x: tensor, shape, what: str = "value") -> tensor:
    """`x` broadcast to `shape` (NumPy rules); raises SemanticError if it cannot be."""
    shape = list(shape)
    if x.shape == shape:
        return x
    if not x.is_block():
        return splat(x, shape) if shape else x
    if len(x.shape) > len(shape):
        raise SemanticError(f"cannot broadcast {what} of shape {x.shape} to shape {shape}")
    while len(x.shape) < len(shape):
        x = expand_dims(x, 0)
    for i, (have, want) in enumerate(zip(x.shape, shape)):
        if have != want and have != 1:
            raise SemanticError(f"cannot broadcast {what} of shape {x.shape} to shape {shape}: "
                                f"dimension {i} is {have}, not 1 or {want}")
    return _builder().broadcast(x, shape)


def broadcast_shapes(*shapes) -> list[int]:
    rank = max(len(s) for s in shapes)
    padded = [[1] * (rank - len(s)) + list(s) for s in shapes]
    out = []
    for i, dims in enumerate(zip(*padded)):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            shown = " and ".join(str(list(s)) for s in shapes)
            raise SemanticError(f"shapes {shown} are incompatible: dimension {i} differs "
                                f"({' vs '.join(str(d) for d in dims)}); make the shapes match "
                                "or add size-1 dimensions (x[:, None]) to broadcast")
        out.append(sizes.pop() if sizes else 1)
    return out


def broadcast_all(*xs: tensor) -> list[tensor]:
    shape = broadcast_shapes(*(x.shape for x in xs))
    return [broadcast_to(x, shape) for x in xs]


def expand_dims(x: tensor, axis: int) -> tensor:
    rank = len(x.shape)
    if not -rank - 1 <= axis <= rank:
        raise SemanticError(f"expand_dims axis {axis} is out of range for a tensor of rank {rank}")
    axis %= rank + 1
    if not x.is_block():
        return splat(x, [1])
    return _builder().expand_dims(x, axis)


# --- promotion and casts -----------------------------------------------------------------------

def _kind(ty: dtype) -> int:
    """bool < integer (signed or not) < floating point: a literal of a kind no higher than the
    tensor's takes the tensor's type."""
    if ty.is_bool():
        return 0
    return 1 if ty.is_int() else 2


def integer_promote(a: dtype, b: dtype) -> dtype:
    if a.is_int_signed() == b.is_int_signed():
        return a if a.int_bitwidth > b.int_bitwidth else b
    unsigned, signed = (a, b) if a.is_int_unsigned() else (b, a)
    return unsigned if unsigned.int_bitwidth >= signed.int_bitwidth else signed


def computation_type(a: dtype, a_literal: bool, b: dtype, b_literal: bool,
                     div_or_mod: bool = False) -> dtype:
    """The type both operands of an arithmetic op are converted to (Triton's rules)."""
    if a_literal != b_literal:
        lit, ten = (a, b) if a_literal else (b, a)
        if _kind(lit) <= _kind(ten):
            if div_or_mod and (ten.is_fp16() or ten.is_bf16()):
                return T.float32
            return ten
    if a.is_fp64() or b.is_fp64():
        return T.float64
    if a.is_fp32() or b.is_fp32():
        return T.float32
    if a.is_fp16() or b.is_fp16():
        return T.float32 if div_or_mod else T.float16
    if a.is_bf16() or b.is_bf16():
        if div_or_mod or not (a.is_bf16() and b.is_bf16()):
            return T.float32
        return T.bfloat16
    if a.is_fp8() and b.is_fp8():
        return a if a == b else T.float16
    if not (a.is_int() and b.is_int()):
        raise SemanticError(f"unsupported operand types {a} and {b}")
    if div_or_mod and a.is_int_signed() != b.is_int_signed():
        raise SemanticError(f"Cannot use /, // or % with {a} and {b} because they have different "
                            "signedness; cast one of them first")
    return integer_promote(a, b)


def cast(x, dst: dtype, fp_downcast_rounding: str | None = None, bitcast: bool = False) -> tensor:
    """`x` converted to `dst` (element type; the shape is kept)."""
    x = to_tensor(x)
    dst = dst.scalar
    src = x.dtype
    result = block_of(x.shape, dst)
    if src == dst:
        return x
    convert = _builder().convert
    if bitcast:
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError(f"cannot bitcast {src} to {dst}: sizes differ "
                                f"({src.primitive_bitwidth} vs {dst.primitive_bitwidth} bits)")
        if (src.is_fp8e4b15() and dst.is_int()) or (dst.is_fp8e4b15() and src.is_int()):
            return convert("retype", x, result)  # the same i8 in the IR
        return convert("bitcast", x, result)
    if src.is_ptr() or dst.is_ptr():
        return convert(_pointer_conversion(src, dst), x, result)
    if (src.is_fp8() and dst.is_int()) or (src.is_int() and dst.is_fp8()):
        return cast(cast(x, T.float32), dst)  # exactly (within fp8's range) through f32
    if src.is_floating() and dst.is_floating():
        if fp_downcast_rounding not in (None, "rtne", "rtz"):
            raise SemanticError(f"fp_downcast_rounding must be 'rtne' or 'rtz', "
                                f"not {fp_downcast_rounding!r}")
        if src.is_fp8e4b15():
            return cast(_from_e4b15(x), dst, fp_downcast_rounding)
        if dst.is_fp8e4b15():
            return _to_e4b15(x)
        narrowing = dst.primitive_bitwidth < src.primitive_bitwidth
        if dst.is_fp8() and fp_downcast_rounding == "rtz" and not (
                dst == T.float8e5 and src in (T.float32, T.float64)):
            raise SemanticError(f"casting {src} to {dst} rounds to nearest even only "
                                "(fp_downcast_rounding='rtz' is for fp16 and bf16 results, "
                                "and float8e5 from float32, as in Triton)")
        if dst.is_fp8() and src.is_fp64():  # the GPU narrows to fp8 from f32 or f16
            return cast(cast(x, T.float32, fp_downcast_rounding=fp_downcast_rounding), dst,
                        fp_downcast_rounding=fp_downcast_rounding)
        if fp_downcast_rounding == "rtz" and narrowing:
            return convert("truncf_rtz", x, result)
        if src.primitive_bitwidth == dst.primitive_bitwidth:  # fp16 <-> bf16 through fp32
            return cast(cast(x, T.float32), dst)
        return convert("truncf" if narrowing else "extf", x, result)
    if src.is_int() and dst.is_int():
        if dst.is_bool():
            return compare("!=", x, constant(0, src, x.shape))
        if dst.int_bitwidth < src.int_bitwidth:
            return convert("trunci", x, result)
        if dst.int_bitwidth == src.int_bitwidth:
            return convert("retype", x, result)  # same bits, other signedness
        return convert("extsi" if src.is_int_signed() else "extui", x, result)
    if src.is_floating() and dst.is_int():
        if dst.is_bool():
            return compare("!=", x, constant(0, src, x.shape))
        return convert("fptosi" if dst.is_int_signed() else "fptoui", x, result)
    if src.is_int() and dst.is_floating():
        return convert("sitofp" if src.is_int_signed() else "uitofp", x, result)
    raise SemanticError(f"cannot cast {src} to {dst}")


def _from_e4b15(x: tensor) -> tensor:
    """float8e4b15 values as float16, exactly: its bytes are fp16's with the exponent's top
    bit and the low 7 mantissa bits dropped (sign << 15 | (byte & 0x7f) << 7), so 0x7f is
    1.875 and there is no NaN or infinity."""
    b = cast(cast(x, T.uint8, bitcast=True), T.uint16)
    return cast(binary("|", binary("<<", binary("&", b, 0x80), 8),
                       binary("<<", binary("&", b, 0x7F), 7)), T.float16, bitcast=True)


def _to_e4b15(x: tensor) -> tensor:
    """float16 or float32 values as float8e4b15, as Triton converts them: float32 first to
    float16 rounding toward zero (NaN becoming positive), then the magnitude's fp16 bits
    clamped to 1.75's (0x3f00: larger values, infinities and NaN saturate at 0x7e) and rounded
    half away from zero to 7 bits, the sign kept (fp_downcast_rounding is not asked)."""
    src = x.dtype.scalar
    if src not in (T.float16, T.float32):
        raise SemanticError(f"cannot cast {src} to float8e4b15: it converts from float16 and "
                            "float32 only (as in Triton); convert to one of them first")
    half = x if src == T.float16 else cast(x, T.float16, fp_downcast_rounding="rtz")
    bits = cast(half, T.uint16, bitcast=True)
    sign = binary("&", bits, 0x8000)
    if src == T.float32:
        sign = where(compare("!=", x, x), 0, sign)
    magnitude = minimum(binary("&", bits, 0x7FFF), 0x3F00)
    byte = binary("|", binary(">>", binary("+", magnitude, 0x40), 7), binary(">>", sign, 8))
    return cast(cast(byte, T.uint8), T.float8e4b15, bitcast=True)


def _pointer_conversion(src: dtype, dst: dtype) -> str:
    if src.is_ptr() and dst.is_ptr():
        return "bitcast"
    if src.is_ptr() and dst.is_int() and dst.int_bitwidth == 64:
        return "ptr_to_int"
    if dst.is_ptr() and src.is_int() and src.int_bitwidth == 64:
        return "int_to_ptr"
    raise SemanticError(f"cannot cast {src} to {dst}: pointers convert only to and from int64 "
                        "and other pointers")


def check_floating(op: str, ty: dtype, operands: str = "a floating-point operand") -> None:
    """`tl.<op>` takes floating-point values only (the compiler and the interpreter both ask)."""
    if not ty.is_floating():
        raise SemanticError(f"tl.{op} needs {operands}, got {ty}; convert it first, e.g. "
                            "x.to(tl.float32)")
    check_not_fp8(f"tl.{op}", ty)


def check_not_fp8(what: str, ty: dtype) -> None:
    """fp8 values are loaded, stored, converted and multiplied by tl.dot, not computed with:
    the GPU has no fp8 arithmetic (the compiler and the interpreter both ask)."""
    if ty.scalar.is_fp8():
        raise SemanticError(f"{what} on {ty.scalar} values: fp8 values take no arithmetic; "
                            "convert them first, e.g. x.to(tl.float16) or x.to(tl.float32)")


def check_literal(value, ty: dtype) -> None:
    """A Python number taking part in an op of type `ty` must fit it."""
    value = unwrap(value)
    if ty.is_int_unsigned() and not isinstance(value, bool) and value < 0:
        raise SemanticError(f"cannot combine the negative constant {value} with unsigned {ty}")
    if ty.is_int() and not ty.is_bool() and not isinstance(value, bool) and isinstance(
            value, numbers.Integral):
        lo = 0 if ty.is_int_unsigned() else -2**(ty.int_bitwidth - 1)
        hi = 2**ty.int_bitwidth if ty.is_int_unsigned() else 2**(ty.int_bitwidth - 1)
        if not lo <= value < hi:
            raise SemanticError(f"constant {value} is out of range for {ty} (it does not fit)")


def operand_type(x) -> dtype:
    """The scalar type of an operand: a tensor's element type, or a literal's own type."""
    return literal_type(unwrap(x)) if is_literal(x) else x.dtype


def promoted_type(a, b, div_or_mod: bool = False) -> dtype:
    """The computation type of a binary op on `a` and `b` (tensors or Python numbers); shared
    by the compiler and the interpreter."""
    return computation_type(operand_type(a), is_literal(a), operand_type(b), is_literal(b),
                            div_or_mod)


def promote(a, b, div_or_mod: bool = False) -> tuple[tensor, tensor]:
    """Both operands in their computation type, broadcast to one shape."""
    ty = promoted_type(a, b, div_or_mod)
    check_not_fp8("an operator", ty)
    converted = []
    for x in (a, b):
        if is_literal(x):
            check_literal(x, ty)
            converted.append(constant(unwrap(x), ty))
        else:
            converted.append(cast(x, ty))
    return tuple(broadcast_all(*converted))


# --- arithmetic ---------------------------------------------------------------------------------

_FLOAT_OPS = {"+": "addf", "-": "subf", "*": "mulf", "%": "remf"}
_INT_OPS = {"+": "addi", "-": "subi", "*": "muli", "&": "andi", "|": "ori", "^": "xori",
            "<<": "shli"}
_SIGNED_OPS = {"//": "divsi", "%": "remsi", ">>": "shrsi"}
_UNSIGNED_OPS = {"//": "divui", "%": "remui", ">>": "shrui"}


POW_OF_TENSORS = ("operator ** works on compile-time values only (as in Triton); for tensors use "
                  "tl.exp2(y * tl.log2(x)), or repeated multiplication for small integer powers")


def binary(op: str, a, b) -> tensor:
    """`a op b` for the operators + - * / // % & | ^ << >>."""
    if op in ("+", "-") and _is_ptr(a) or op == "+" and _is_ptr(b):
        return _pointer_arith(op, a, b)
    if _is_ptr(a) or _is_ptr(b):
        raise SemanticError(f"operator {op} is not defined on pointers: add (or subtract) an "
                            "integer offset to a pointer, or convert it with .to(tl.int64)")
    if op == "/":
        return truediv(a, b)
    check_bitwise(op, a, b)
    signed = signed_result(op, a)
    a, b = promote(a, b, div_or_mod=op in ("//", "%"))
    ty = a.dtype
    if ty.is_floating():
        if op not in _FLOAT_OPS:
            raise SemanticError(f"operator {op} is not defined for floating-point {ty}")
        return _builder().binary(_FLOAT_OPS[op], a, b)
    if signed is None:
        signed = ty.is_int_signed()
    table = _INT_OPS if op in _INT_OPS else (_SIGNED_OPS if signed else _UNSIGNED_OPS)
    return _builder().binary(table[op], a, b)


def check_bitwise(op: str, a, b) -> None:
    """& | ^ << >> take integers (Triton's wording, with what the operator needs); shared by the
    compiler and the interpreter."""
    if op in ("&", "|", "^", "<<", ">>") and not all(
            operand_type(x).is_int() for x in (a, b)):
        raise SemanticError(f"invalid operands of type {operand_type(a)} and {operand_type(b)}: "
                            f"operator {op} needs integer operands")


def signed_result(op: str, a) -> bool | None:
    """For `>>`, whether the shift is arithmetic: as in Triton, by the left operand's own type
    (a signed value shifted by an unsigned amount keeps its sign, in the promoted type); None
    for the other operators (the promoted type decides)."""
    if op != ">>":
        return None
    return operand_type(a).is_int_signed()


def truediv(a, b, approximate: bool = True) -> tensor:
    """`a / b`: integers become float32 first; floats divide (`approximate`: fast division)."""
    if operand_type(a).is_int() and operand_type(b).is_int():
        promoted_type(a, b, div_or_mod=True)  # rejects mixed signedness
        a, b = cast(to_tensor(a), T.float32), cast(to_tensor(b), T.float32)
    a, b = promote(a, b, div_or_mod=True)
    return _builder().binary("divf", a, b, approximate)


def _is_ptr(x) -> bool:
    return isinstance(x, tensor) and x.dtype.is_ptr()


def _pointer_arith(op: str, a, b) -> tensor:
    ptr, offset = (a, b) if _is_ptr(a) else (b, a)
    if _is_ptr(offset):
        raise SemanticError("cannot add or subtract two pointers")
    offset = to_tensor(offset)
    if not offset.dtype.is_int():
        raise SemanticError(f"pointer offsets must be integers, got {offset.dtype}")
    if op == "-":
        offset = negate(offset)
    ptr, offset = broadcast_all(ptr, offset)
    return _builder().addptr(ptr, offset)


def negate(x) -> tensor:
    x = to_tensor(x)
    if x.dtype.is_ptr():
        raise SemanticError("cannot negate a pointer")
    check_not_fp8("negation", x.dtype)
    if x.dtype.is_floating():
        return _builder().unary("negf", x)
    return binary("-", constant(0, x.dtype, x.shape), x)


def invert(x) -> tensor:
    x = to_tensor(x)
    if not x.dtype.is_int():
        raise SemanticError(f"operator ~ needs an integer operand, got {x.dtype}")
    return binary("^", x, constant(-1 if not x.dtype.is_bool() else 1, x.dtype, x.shape))


def logical_not(x) -> tensor:
    x = to_tensor(x)
    return compare("==", x, constant(0, x.dtype, x.shape))


_CMP_SIGNED = {"==": "eq", "!=": "ne", "<": "slt", "<=": "sle", ">": "sgt", ">=": "sge"}
_CMP_UNSIGNED = {"==": "eq", "!=": "ne", "<": "ult", "<=": "ule", ">": "ugt", ">=": "uge"}
_CMP_FLOAT = {"==": "oeq", "!=": "une", "<": "olt", "<=": "ole", ">": "ogt", ">=": "oge"}


def compare(op: str, a, b) -> tensor:
    if _is_ptr(a) or _is_ptr(b):
        a, b = (cast(x, T.int64) if _is_ptr(x) else x for x in (a, b))
    a, b = promote(a, b)
    if a.dtype.is_floating():
        return _builder().compare(_CMP_FLOAT[op], a, b)
    table = _CMP_SIGNED if a.dtype.is_int_signed() else _CMP_UNSIGNED
    return _builder().compare(table[op], a, b)


def selects_pointers(x, y) -> bool:
    """Whether tl.where chooses between pointers, which need one pointer type (no promotion);
    shared by the compiler and the interpreter."""
    tx, ty = operand_type(x), operand_type(y)
    if not (tx.is_ptr() or ty.is_ptr()):
        return False
    if tx != ty:
        raise SemanticError(f"tl.where between a pointer and another type needs two pointers of "
                            f"one type, got {tx} and {ty}")
    return True


def where(cond, x, y) -> tensor:
    cond = cast(to_tensor(cond), T.int1)
    x, y = (to_tensor(x), to_tensor(y)) if selects_pointers(x, y) else promote(x, y)
    cond, x, y = broadcast_all(cond, x, y)
    return _builder().select(cond, x, y)


def minimum(a, b, propagate_nan: bool = False) -> tensor:
    return _min_max(a, b, propagate_nan, "min")


def maximum(a, b, propagate_nan: bool = False) -> tensor:
    return _min_max(a, b, propagate_nan, "max")


def _min_max(a, b, propagate_nan: bool, which: str) -> tensor:
    a, b = promote(a, b)
    ty = a.dtype
    if ty.is_floating():
        op = f"{which}imumf" if propagate_nan else f"{which}numf"
    else:
        op = f"{which}{'si' if ty.is_int_signed() else 'ui'}"
    return _builder().binary(op, a, b)


# --- math ---------------------------------------------------------------------------------------

UNARY_MATH_NAMES = ("exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "rsqrt", "erf", "floor",
                    "ceil",
                    # libdevice's (tl.extra.cuda.libdevice, tl.math)
                    "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh",
                    "atanh", "expm1", "log1p", "log10", "cbrt", "erfc", "trunc", "round", "rint")

# Two-operand math (float operands, promoted together): pow, atan2, copysign, fmod (C's: the
# remainder of truncated division), by the op each is.
_BINARY_MATH = {"pow": "powf", "atan2": "atan2", "copysign": "copysign", "fmod": "remf"}
BINARY_MATH_NAMES = tuple(_BINARY_MATH)


def check_binary_math(name: str, x, y) -> None:
    """Two-operand math takes a floating-point operand (shared with the interpreter)."""
    if operand_type(x).is_int() and operand_type(y).is_int():
        raise SemanticError(f"{name} needs floating-point operands, got {operand_type(x)} and "
                            f"{operand_type(y)}")


def binary_math(name: str, x, y) -> tensor:
    check_binary_math(name, x, y)
    x, y = promote(x, y)
    check_floating(name, x.dtype)
    return _builder().binary(_BINARY_MATH[name], x, y)
# `tl.sqrt` of 32 bits or fewer may be approximate (`sqrt.approx`, as in Triton); `tl.sqrt_rn`
# may not, nor fp64's, which is correctly rounded as Triton's (libdevice) is.
_APPROXIMATE = frozenset({"sqrt"})


def unary_math(name: str, x, rounded: bool = False) -> tensor:
    x = to_tensor(x)
    check_floating(name, x.dtype)
    approximate = name in _APPROXIMATE and not rounded and x.dtype != T.float64
    return _builder().unary(name, x, approximate)


def abs_(x) -> tensor:
    x = to_tensor(x)
    if x.dtype.is_fp8():  # as in Triton: the sign bit cleared (every fp8 format is sign-magnitude)
        byte = cast(x, T.uint8, bitcast=True)
        return cast(binary("&", byte, 0x7F), x.dtype, bitcast=True)
    if x.dtype.is_floating():
        return _builder().unary("absf", x)
    if x.dtype.is_int_unsigned():
        return x
    # max(x, 0 - x): what math.absi means (the most negative value maps to itself), for every
    # width (the GPU pipeline lowers math.absi of 32 bits only)
    negated = binary("-", constant(0, x.dtype, x.shape), x)
    return _builder().binary("maxsi", x, negated)


def fma(x, y, z) -> tensor:
    x, y = promote(x, y)
    x, z = promote(x, z)
    x, y, z = broadcast_all(x, cast(y, x.dtype), z)
    check_floating("fma", x.dtype, "floating-point operands")
    return _builder().fma(x, y, z)


def check_umulhi(ty: dtype) -> None:
    """tl.umulhi takes 32-bit integers (shared by the compiler and the interpreter)."""
    if not ty.is_int() or ty.int_bitwidth != 32:
        raise SemanticError(f"tl.umulhi needs 32-bit integer operands, got {ty}")


def umulhi(x, y) -> tensor:
    x, y = promote(x, y)
    check_umulhi(x.dtype)
    return _builder().mulhi(x, y)


def check_inline_asm(asm, constraints, args, dtypes, pack) -> tuple[list, list, int]:
    """tl.inline_asm_elementwise's arguments checked (shared by the compiler and the
    interpreter): (args, result dtypes, pack)."""
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise SemanticError("tl.inline_asm_elementwise: `asm` and `constraints` must be "
                            "compile-time strings")
    args = list(args) if isinstance(args, (tuple, list)) else [args]
    dtypes = list(dtypes) if isinstance(dtypes, (tuple, list)) else [dtypes]
    if not 0 <= len(args) <= 4 or not 1 <= len(dtypes) <= 4:
        raise SemanticError("tl.inline_asm_elementwise takes 0 to 4 arguments and gives 1 to 4 "
                            f"results, got {len(args)} and {len(dtypes)}")
    if not all(isinstance(d, dtype) for d in dtypes):
        raise SemanticError(f"tl.inline_asm_elementwise: `dtype` must be a tl dtype or a tuple "
                            f"of them, got {dtypes!r}")
    if not isinstance(pack, int) or pack < 1 or pack & (pack - 1):
        raise SemanticError(f"tl.inline_asm_elementwise: `pack` must be a power of two, got "
                            f"{pack!r}")
    kinds = [c.strip() for c in constraints.split(",") if c.strip()]
    outputs = [c for c in kinds if c.startswith("=")]
    want_out = sum(asm_registers(d, pack) for d in dtypes)
    want_in = sum(asm_registers(_operand_type(a), pack) for a in args)
    if len(outputs) != want_out or len(kinds) - len(outputs) != want_in:
        raise SemanticError(f"tl.inline_asm_elementwise: the constraints {constraints!r} name "
                            f"{len(outputs)} outputs and {len(kinds) - len(outputs)} inputs; "
                            f"{len(dtypes)} results and {len(args)} arguments with pack={pack} "
                            f"take {want_out} and {want_in}")
    return args, dtypes, pack


def _operand_type(value) -> dtype:
    value = unwrap(value)
    return value.dtype if isinstance(value, tensor) else literal_type(value)


def asm_registers(ty: dtype, pack: int) -> int:
    """Registers one inline-asm instance uses for `pack` elements of `ty`: elements narrower
    than 32 bits share 32-bit registers (four int8 in one), wider ones take one each."""
    bits = 64 if ty.is_ptr() else ty.primitive_bitwidth
    return pack // min(pack, 32 // bits) if bits < 32 else pack


def inline_asm_elementwise(asm: str, constraints: str, args, dtypes, is_pure: bool,
                           pack: int) -> list[tensor]:
    args, dtypes, pack = check_inline_asm(asm, constraints, args, dtypes, pack)
    args = broadcast_all(*(to_tensor(a) for a in args)) if args else []
    return _builder().inline_asm(asm, constraints, args, dtypes, bool(is_pure), pack)
