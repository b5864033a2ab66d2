"""The interpreter's semantic layer for values: casts, promotion, broadcasting, arithmetic.

Types follow the same rules as the compiler (`promoted_type`, `broadcast_shapes` and the other
pure functions of tilec.language.semantic); only the computation differs: NumPy over whole
blocks. Integer ops wrap like the GPU; `//` and `%` truncate toward zero as in C. Signed 32-bit
overflow is recorded per element (`Block.overflow`) so that a pointer built from an overflowed
offset is reported when it is dereferenced.
"""
from __future__ import annotations

import math as pymath
import sys

import numpy as np

from tilec.interpreter import values
from tilec.interpreter.values import Block, numpy_dtype
from tilec.language import dtypes as T
from tilec.language import shapes as lang_shapes
from tilec.language.core import SemanticError, unwrap
from tilec.language.semantic import (broadcast_shapes, check_binary_math, check_bitwise,
                                     check_floating,
                                     check_literal, check_umulhi, is_literal, literal_type,
                                     operand_type, promoted_type, selects_pointers,
                                     signed_result)

CHECK_OVERFLOW = True  # set by the launch from the interpreter's checks


def _quiet():
    return np.errstate(all="ignore")


def to_block(x, ty: T.dtype | None = None) -> Block:
    x = unwrap(x)
    if isinstance(x, Block):
        return x
    if not is_literal(x):
        raise SemanticError(f"expected a tensor or a number, got {type(x).__name__} {x!r}")
    ty = ty or literal_type(x)
    check_literal(x, ty)
    return Block(np.array(x).astype(numpy_dtype(ty)), ty)


def _merge(*flags):
    present = [f for f in flags if f is not None]
    if not present:
        return None
    out = present[0]
    for f in present[1:]:
        out = out | f
    return out


def _flag_like(block: Block, shape):
    return None if block.overflow is None else np.broadcast_to(block.overflow, shape)


def broadcast_to(x: Block, shape, what: str = "value") -> Block:
    shape = list(shape)
    if x.shape == shape:
        return x
    if len(x.shape) > len(shape) or broadcast_shapes(x.shape, shape) != shape:
        raise SemanticError(f"cannot broadcast {what} of shape {x.shape} to shape {shape}")
    data = np.broadcast_to(x.data, shape)
    return Block(data, x.elem, _flag_like(x, shape), x.provenance)


def broadcast_all(*xs: Block) -> list[Block]:
    shape = broadcast_shapes(*(x.shape for x in xs))
    return [broadcast_to(x, shape) for x in xs]


def cast(x, dst: T.dtype, fp_downcast_rounding: str | None = None, bitcast: bool = False) -> Block:
    x = to_block(x)
    dst = dst.scalar
    src = x.elem
    if src == dst:
        return x
    if bitcast:
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError(f"cannot bitcast {src} to {dst}: sizes differ")
        data = np.ascontiguousarray(x.data).view(numpy_dtype(dst))
        return Block(data, dst, x.overflow, x.provenance if dst.is_ptr() else None)
    if src.is_ptr() or dst.is_ptr():
        ok = (src.is_ptr() and dst.is_ptr()) or (src.is_ptr() and dst in (T.int64, T.uint64)) \
            or (dst.is_ptr() and src in (T.int64, T.uint64))
        if not ok:
            raise SemanticError(f"cannot cast {src} to {dst}: pointers convert only to and from "
                                "int64 and other pointers")
        data = x.data.astype(np.uint64 if dst.is_ptr() else numpy_dtype(dst))
        return Block(data, dst, x.overflow, x.provenance if src.is_ptr() and dst.is_ptr() else None)
    with _quiet():
        if dst.is_bool():
            return Block(x.data != 0, T.int1)
        if src.is_floating() and dst.is_floating() and \
                dst.primitive_bitwidth < src.primitive_bitwidth:
            return Block(_narrow_float(x.data, dst, fp_downcast_rounding), dst)
        if src.is_floating() and dst.is_int():
            return Block(np.trunc(x.data.astype(np.float64)).astype(numpy_dtype(dst)), dst)
        data = x.data.astype(numpy_dtype(dst))
    return Block(data, dst, x.overflow if dst.is_int() else None)


# What the GPU's conversions to 16-bit floats return for a NaN. From fp32 (cvt.rn and cvt.rz to
# f16 and bf16, and fp64 rounded toward zero, which goes through fp32): one positive NaN with
# every payload bit set, as the host versions of those conversions in CUDA's cuda_fp16.hpp and
# cuda_bf16.hpp spell out. From fp64 to nearest (cvt.rn.f16.f64, cvt.rn.bf16.f64): the quiet NaN
# with the input's sign (measured on the H200). NumPy keeps the sign and the top payload bits.
_CANONICAL_NAN_BITS = {T.float16: 0x7FFF, T.bfloat16: 0x7FFF}
_QUIET_NAN_BITS = {T.float16: 0x7E00, T.bfloat16: 0x7FC0}


def _narrow_float(values, dst: T.dtype, rounding: str | None):
    """`values` converted to the narrower float type `dst`: to nearest even, or toward zero for
    "rtz" (finite values past the largest finite one become it, as in IEEE 754 and PTX's cvt.rz;
    infinities stay). Each rounds once, from the value itself, as the GPU's conversions do."""
    target = numpy_dtype(dst)
    if rounding == "rtz":
        out = _round_toward_zero(values, target)
    elif dst == T.bfloat16 and values.dtype == np.float64:
        out = _fp64_to_bf16_nearest(values)
    else:
        out = values.astype(target)
    if dst in _CANONICAL_NAN_BITS:
        if values.dtype == np.float64 and rounding != "rtz":
            sign = np.signbit(values).astype(np.uint16) << 15
            nan = (sign | np.uint16(_QUIET_NAN_BITS[dst])).view(target)
        else:
            nan = np.array(_CANONICAL_NAN_BITS[dst], np.uint16).view(target)
        out = np.where(np.isnan(values), nan, out).astype(target)
    return out


def _fp64_to_bf16_nearest(values):
    """fp64 to bf16 rounded once to nearest even (ml_dtypes rounds through fp32, twice): fp32
    rounded toward zero with the last bit set when inexact ("round to odd") keeps enough to
    decide, then bf16's to-nearest-even on the fp32 bits."""
    wide = values.astype(np.float64)
    single = _round_toward_zero(wide, np.float32)
    bits = single.view(np.uint32).copy()
    inexact = (single.astype(np.float64) != wide) & np.isfinite(wide)
    bits |= inexact.astype(np.uint32)
    keep = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    rounded = np.where(np.isfinite(single), (bits + keep) >> 16, bits >> 16).astype(np.uint16)
    return rounded.view(numpy_dtype(T.bfloat16))


def _round_toward_zero(values, target):
    wide = values.astype(np.float64)
    nearest = values.astype(target)
    too_far = np.abs(nearest.astype(np.float64)) > np.abs(wide)
    stepped = np.nextafter(nearest, np.zeros_like(nearest))
    return np.where(too_far, stepped, nearest).astype(target)


def promote(a, b, div_or_mod: bool = False) -> tuple[Block, Block]:
    ty = promoted_type(a, b, div_or_mod)
    converted = [to_block(x, ty) if is_literal(x) else cast(x, ty) for x in (a, b)]
    return tuple(broadcast_all(*converted))


def _signed32(ty: T.dtype) -> bool:
    return ty.is_int_signed() and ty.int_bitwidth <= 32


_EXACT = {"+": np.add, "-": np.subtract, "*": np.multiply, "<<": np.left_shift}


def binary(op: str, a, b) -> Block:
    a, b = unwrap(a), unwrap(b)
    a_ptr = isinstance(a, Block) and a.elem.is_ptr()
    b_ptr = isinstance(b, Block) and b.elem.is_ptr()
    if a_ptr and op in ("+", "-") or b_ptr and op == "+":
        return pointer_arith(op, a, b)
    check_bitwise(op, a, b)
    signed = signed_result(op, a)
    a, b = promote(a, b, div_or_mod=op in ("//", "%"))
    ty = a.elem
    with _quiet():
        if ty.is_floating():
            if op == "//":
                raise SemanticError(f"operator // is not defined for floating-point {ty}")
            functions = {"+": np.add, "-": np.subtract, "*": np.multiply, "%": np.fmod}
            if op not in functions:
                raise SemanticError(f"operator {op} is not defined for floating-point {ty}")
            return Block(functions[op](a.data, b.data).astype(a.data.dtype), ty)
        data = _integer_op(op, a.data, b.data, ty, signed)
        flags = _merge(_flag_like(a, data.shape), _flag_like(b, data.shape))
        if CHECK_OVERFLOW and _signed32(ty) and op in _EXACT:
            exact = _EXACT[op](a.data.astype(np.int64), b.data.astype(np.int64))
            flags = _merge(flags, exact != data.astype(np.int64))
    return Block(data, ty, flags)


def _integer_op(op: str, x, y, ty: T.dtype, signed: bool | None = None):
    dt = x.dtype
    if op == "//":
        safe = np.where(y == 0, 1, y)
        q = np.floor_divide(x, safe)
        fix = (np.remainder(x, safe) != 0) & ((x < 0) != (safe < 0))
        return np.where(y == 0, 0, q + fix).astype(dt)  # C truncation; x / 0 gives 0
    if op == "%":
        return np.where(y == 0, 0, np.fmod(x, np.where(y == 0, 1, y))).astype(dt)
    if op in ("<<", ">>"):
        width = ty.int_bitwidth
        shift = y.astype(np.int64) % max(width, 1) if width > 1 else y.astype(np.int64)
        if op == "<<":
            return np.left_shift(x, shift.astype(dt)).astype(dt)
        if signed is not None and signed != (dt.kind == "i") and dt.kind in "iu":
            # the other signedness of the same width: arithmetic or logical as asked
            other = np.dtype(f"{'i' if signed else 'u'}{dt.itemsize}")
            return np.right_shift(x.view(other), shift.astype(other)).view(dt)
        return np.right_shift(x, shift.astype(dt)).astype(dt)
    if ty.is_bool():
        functions = {"+": np.logical_xor, "-": np.logical_xor, "*": np.logical_and,
                     "&": np.logical_and, "|": np.logical_or, "^": np.logical_xor}
        return functions[op](x, y)
    functions = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and,
                 "|": np.bitwise_or, "^": np.bitwise_xor}
    return functions[op](x, y).astype(dt)


def pointer_arith(op: str, a, b) -> Block:
    ptr, offset = (a, b) if isinstance(a, Block) and a.elem.is_ptr() else (b, a)
    offset = to_block(offset)
    if offset.elem.is_ptr():
        raise SemanticError("cannot add or subtract two pointers")
    if not offset.elem.is_int():
        raise SemanticError(f"pointer offsets must be integers, got {offset.elem}")
    ptr, offset = broadcast_all(ptr, offset)
    size = max(ptr.elem.element_ty.primitive_bitwidth // 8, 1)
    with _quiet():
        delta = offset.data.astype(np.int64) * size
        if op == "-":
            delta = -delta
        data = (ptr.data.astype(np.uint64) + delta.astype(np.uint64)).astype(np.uint64)
    flags = _merge(ptr.overflow, offset.overflow)
    return Block(data, ptr.elem, flags, ptr.provenance)


def truediv(a, b, approximate: bool = True) -> Block:
    a, b = unwrap(a), unwrap(b)
    if operand_type(a).is_int() and operand_type(b).is_int():
        promoted_type(a, b, div_or_mod=True)  # rejects mixed signedness, as compiled
        a, b = cast(to_block(a), T.float32), cast(to_block(b), T.float32)
    a, b = promote(a, b, div_or_mod=True)
    with _quiet():
        return Block(np.divide(a.data, b.data).astype(a.data.dtype), a.elem)


def negate(x) -> Block:
    x = to_block(x)
    if x.elem.is_ptr():
        raise SemanticError("cannot negate a pointer")
    if x.elem.is_floating():
        return Block(-x.data, x.elem)
    return binary("-", to_block(0, x.elem), x)


def invert(x) -> Block:
    x = to_block(x)
    if not x.elem.is_int():
        raise SemanticError(f"operator ~ needs an integer operand, got {x.elem}")
    return Block(~x.data, x.elem, x.overflow)


def compare(op: str, a, b) -> Block:
    a, b = unwrap(a), unwrap(b)
    if isinstance(a, Block) and a.elem.is_ptr():
        a = cast(a, T.int64)
    if isinstance(b, Block) and b.elem.is_ptr():
        b = cast(b, T.int64)
    a, b = promote(a, b)
    functions = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
                 ">": np.greater, ">=": np.greater_equal}
    with _quiet():
        return Block(functions[op](a.data, b.data), T.int1)


def where(cond, x, y) -> Block:
    cond = cast(to_block(cond), T.int1)
    x, y = (to_block(x), to_block(y)) if selects_pointers(x, y) else promote(x, y)
    cond, x, y = broadcast_all(cond, x, y)
    flags = None
    if x.overflow is not None or y.overflow is not None:
        fx = x.overflow if x.overflow is not None else np.zeros(x.data.shape, bool)
        fy = y.overflow if y.overflow is not None else np.zeros(y.data.shape, bool)
        flags = np.where(cond.data, fx, fy)
    # pointers into two arguments have no single provenance (memory resolves them per lane)
    provenance = x.provenance if y.provenance in (None, x.provenance) else \
        y.provenance if x.provenance is None else None
    return Block(np.where(cond.data, x.data, y.data), x.elem, flags, provenance)


def min_max(a, b, propagate_nan: bool, which: str) -> Block:
    a, b = promote(a, b)
    if a.elem.is_floating():
        fn = (np.minimum if propagate_nan else np.fmin) if which == "min" else \
            (np.maximum if propagate_nan else np.fmax)
    else:
        fn = np.minimum if which == "min" else np.maximum
    return Block(fn(a.data, b.data), a.elem)


_vector_erf = np.vectorize(pymath.erf, otypes=[np.float64])

_vector_erfc = np.vectorize(pymath.erfc, otypes=[np.float64])


def _round_half_away(v):
    return np.copysign(np.floor(np.abs(v) + 0.5), v)


_MATH = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sin": np.sin,
         "cos": np.cos, "sqrt": np.sqrt, "rsqrt": lambda v: 1.0 / np.sqrt(v), "erf": _vector_erf,
         "floor": np.floor, "ceil": np.ceil, "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh,
         "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
         "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "expm1": np.expm1,
         "log1p": np.log1p, "log10": np.log10, "cbrt": np.cbrt, "erfc": _vector_erfc,
         "trunc": np.trunc, "round": _round_half_away, "rint": np.rint}
_BINARY_MATH = {"pow": np.power, "atan2": np.arctan2, "copysign": np.copysign, "fmod": np.fmod}


def binary_math(name: str, x, y) -> Block:
    check_binary_math(name, x, y)
    x, y = promote(x, y)
    check_floating(name, x.elem)
    wide = np.float64 if x.elem.is_fp64() else np.float32
    with _quiet():
        return Block(_BINARY_MATH[name](x.data.astype(wide), y.data.astype(wide))
                     .astype(x.data.dtype), x.elem)


def unary_math(name: str, x) -> Block:
    x = to_block(x)
    check_floating(name, x.elem)
    wide = np.float64 if x.elem.is_fp64() else np.float32  # fp16/bf16 math runs in fp32
    with _quiet():
        return Block(_MATH[name](x.data.astype(wide)).astype(x.data.dtype), x.elem)


def abs_(x) -> Block:
    x = to_block(x)
    if x.elem.is_int_unsigned():
        return x
    with _quiet():
        return Block(np.abs(x.data), x.elem)


def fma(x, y, z) -> Block:
    x, y = promote(x, y)
    x, z = promote(x, z)
    x, y, z = broadcast_all(x, cast(y, x.elem), z)
    check_floating("fma", x.elem, "floating-point operands")
    wide = np.longdouble if x.elem.is_fp64() else np.float64
    with _quiet():
        exact = x.data.astype(wide) * y.data.astype(wide) + z.data.astype(wide)
    return Block(exact.astype(x.data.dtype), x.elem)


def umulhi(x, y) -> Block:
    x, y = promote(x, y)
    check_umulhi(x.elem)
    product = x.data.view(np.uint32).astype(np.uint64) * y.data.view(np.uint32).astype(np.uint64)
    return Block((product >> np.uint64(32)).astype(np.uint32).view(x.data.dtype), x.elem)


def subscript(x: Block, index) -> Block:
    data, flags = x.data, x.overflow
    for dim in lang_shapes.subscript_axes(index, x.shape):
        data = np.expand_dims(data, dim)
        flags = None if flags is None else np.expand_dims(flags, dim)
    return Block(data, x.elem, flags, x.provenance)


def transpose(x: Block) -> Block:
    if x.data.ndim != 2:
        raise SemanticError(f".T transposes 2-D blocks; this one has shape {x.shape}")
    return Block(x.data.T, x.elem, None if x.overflow is None else x.overflow.T, x.provenance)


values.use_arithmetic(sys.modules[__name__])
