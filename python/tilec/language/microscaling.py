"""tl.dot_scaled: the product of two blocks in the OCP microscaling (MX) formats, written in the
kernel language (compiled and interpreted alike).

An operand is e2m1 (fp4, two to a uint8 along K, the first element in the low nibble), e4m3 or
e5m2 (fp8, as uint8 bytes or the fp8 type), bf16 or fp16; its scales are e8m0 bytes, one per 32
elements along K: `lhs_scale` is [M, K // 32] for lhs [M, K], `rhs_scale` [N, K // 32] for rhs
[K, N] (not transposed), or None for no scaling (any format; Triton's tests scale the MX
operand and leave the other one's None). The scale byte s means 2^(s - 127), s = 255 NaN.
Hopper has no microscaled instruction, so, as Triton does there, each operand is upcast to the
compute type (fp16 when either operand is fp16, else bf16), exactly in fp32, multiplied by its
scales in fp32 (exact: powers of two, within range) and rounded to the compute type, and the two
go to one tl.dot of that type accumulating in fp32.
"""
from __future__ import annotations

import tilec.language.builtins as tl
from tilec.language import dtypes as T
from tilec.language.core import SemanticError, constexpr_function, language_function
from tilec.language.standard import interleave

FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")
GROUP = 32  # elements along K per e8m0 scale


@constexpr_function
def _check(lhs_shape, lhs_format, lhs_scaled, rhs_shape, rhs_format, rhs_scaled, lhs_k_pack,
           rhs_k_pack):
    """The product's K, or a SemanticError naming what is wrong."""
    for fmt, side in ((lhs_format, "lhs"), (rhs_format, "rhs")):
        if fmt not in FORMATS:
            raise SemanticError(f"tl.dot_scaled: {side}_format must be one of "
                                f"{', '.join(FORMATS)}, not {fmt!r}")
    if not (lhs_k_pack and rhs_k_pack):
        raise SemanticError("tl.dot_scaled: fp4 packed along M or N (lhs_k_pack=False, "
                            "rhs_k_pack=False) is not supported; pack along K")
    if len(lhs_shape) != 2 or len(rhs_shape) != 2:
        raise SemanticError(f"tl.dot_scaled needs 2-D blocks, got {list(lhs_shape)} and "
                            f"{list(rhs_shape)}")
    k = lhs_shape[1] * (2 if lhs_format == "e2m1" else 1)
    k_rhs = rhs_shape[0] * (2 if rhs_format == "e2m1" else 1)
    if k != k_rhs:
        raise SemanticError(f"tl.dot_scaled: lhs has K = {k} and rhs K = {k_rhs} (an e2m1 "
                            "block holds two elements a byte along K)")
    if (lhs_scaled or rhs_scaled) and k % GROUP:
        raise SemanticError(f"tl.dot_scaled: K = {k} is not a multiple of {GROUP}, the "
                            "elements one scale covers")
    return k


@constexpr_function
def _compute_type(lhs_format, rhs_format):
    return T.float16 if "fp16" in (lhs_format, rhs_format) else T.bfloat16


@constexpr_function
def _check_scale(shape, rows, k, side):
    if list(shape) != [rows, k // GROUP]:
        raise SemanticError(f"tl.dot_scaled: {side}_scale must be [{rows}, {k // GROUP}] (one "
                            f"e8m0 byte per {GROUP} elements along K), got {list(shape)}")
    return True


@constexpr_function
def _byte_type(dtype):
    if dtype not in (T.uint8, T.int8, T.float8e4nv, T.float8e5):
        raise SemanticError(f"tl.dot_scaled: fp4 and fp8 operands are bytes (uint8 or an fp8 "
                            f"type), got {dtype}")
    return True


@language_function
def _e2m1_to_float(nibble):
    """e2m1 (sign, 2 exponent bits of bias 1, 1 mantissa bit) nibbles as fp32: 0, 0.5, 1, 1.5,
    2, 3, 4, 6 and their negatives."""
    n = nibble.to(tl.int32)
    exponent = (n >> 1) & 3
    half = (n & 1).to(tl.float32) * 0.5
    power = tl.where(exponent == 3, 4.0, tl.where(exponent == 2, 2.0, 1.0))
    magnitude = tl.where(exponent == 0, half, (1.0 + half) * power)
    return tl.where((n & 8) != 0, -magnitude, magnitude)


@language_function
def _unpack_fp4(x, along_rows):
    """The e2m1 values of bytes `x` as fp32, twice as many along K (dim 1 of lhs, 0 of rhs)."""
    b = x.to(tl.uint8, bitcast=True)
    low = _e2m1_to_float(b & 15)
    high = _e2m1_to_float(b >> 4)
    if along_rows:  # [K/2, N] -> [K/2, 2, N] -> [K, N]
        pairs = tl.permute(tl.join(low, high), (0, 2, 1))
        return tl.reshape(pairs, [x.shape[0] * 2, x.shape[1]])
    return interleave(low, high)


@language_function
def _to_float(x, fmt, along_rows):
    """An operand of format `fmt` as fp32 values (exactly)."""
    if fmt == "e2m1":
        _byte_type(x.dtype)
        return _unpack_fp4(x, along_rows)
    if fmt == "e4m3":
        _byte_type(x.dtype)
        return x.to(T.float8e4nv, bitcast=True).to(tl.float32)
    if fmt == "e5m2":
        _byte_type(x.dtype)
        return x.to(T.float8e5, bitcast=True).to(tl.float32)
    return x.to(tl.float32)


@language_function
def _scale_factors(scale):
    """e8m0 bytes as fp32: 2^(s - 127) (s = 0: 2^-127, a subnormal), s = 255 NaN."""
    s = scale.to(tl.uint8, bitcast=True).to(tl.int32)
    factor = (s << 23).to(tl.float32, bitcast=True)
    tiny = tl.full(s.shape, 0x00400000, tl.int32).to(tl.float32, bitcast=True)
    nan = tl.full(s.shape, 0x7FC00000, tl.int32).to(tl.float32, bitcast=True)
    return tl.where(s == 255, nan, tl.where(s == 0, tiny, factor))


@language_function
def _factors(scale, rows, k):
    """The [rows, k] fp32 factors of e8m0 `scale` [rows, k // GROUP]: each repeated GROUP
    times along k."""
    factor = _scale_factors(scale)
    return tl.reshape(tl.broadcast_to(tl.expand_dims(factor, 2), [rows, k // GROUP, GROUP]),
                      [rows, k])


@language_function
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None,
               fast_math=False, lhs_k_pack=True, rhs_k_pack=True, out_dtype=tl.float32):
    k = _check(lhs.shape, lhs_format, lhs_scale is not None, rhs.shape, rhs_format,
               rhs_scale is not None, lhs_k_pack, rhs_k_pack)
    m = lhs.shape[0]
    n = rhs.shape[1]
    a = _to_float(lhs, lhs_format, False)
    b = _to_float(rhs, rhs_format, True)
    if lhs_scale is not None:
        _check_scale(lhs_scale.shape, m, k, "lhs")
        a = a * _factors(lhs_scale, m, k)
    if rhs_scale is not None:
        _check_scale(rhs_scale.shape, n, k, "rhs")
        b = b * tl.trans(_factors(rhs_scale, n, k))
    compute = _compute_type(lhs_format, rhs_format)
    return tl.dot(a.to(compute), b.to(compute), acc, out_dtype=out_dtype)
