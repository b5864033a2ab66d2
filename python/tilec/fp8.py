"""The fp8 formats in NumPy (through ml_dtypes), for the interpreter and for the compiler's
constants, and the NaN bits of their conversions, which the compiler's lowering reads too.

Conversions to fp8 round to nearest even and saturate, as the GPU's cvt.rn.satfinite does (and
Triton): a value beyond the largest finite one becomes it (448 for float8e4nv, 57344 for
float8e5); infinities saturate too, as PTX's satfinite makes them (torch's conversions do not
saturate: there 448.5 is NaN in e4m3fn and 61440 infinite in e5m2). Conversions from fp8 are
exact. NaN comes out with the bits torch's CUDA conversions give it (measured on the H200, every
byte and every 16-bit NaN): see WIDENED_NAN and narrowed_nan."""
from __future__ import annotations

import ml_dtypes
import numpy as np

NUMPY = {"float8e4nv": ml_dtypes.float8_e4m3fn, "float8e5": ml_dtypes.float8_e5m2}
BY_MLIR = {"f8E4M3FN": "float8e4nv", "f8E5M2": "float8e5"}

# The largest finite magnitude of each format as a byte: a byte whose low 7 bits exceed it is
# NaN (e4m3fn: 0x7f only; e5m2: 0x7d-0x7f, 0x7c being infinity).
LARGEST_BYTE = {"float8e4nv": 0x7E, "float8e5": 0x7C}

# A NaN byte widened, as (positive, negative) bits of the target type: to fp16 and bf16 the
# canonical 0x7fff whatever the sign; to fp32 torch keeps the sign with a payload of its own per
# format; to fp64 those fp32 NaNs, widened keeping their payload.
WIDENED_NAN = {
    "float8e4nv": {16: (0x7FFF, 0x7FFF), 32: (0x7FF00000, 0xFFF00000),
                   64: (0x7FFE000000000000, 0xFFFE000000000000)},
    "float8e5": {16: (0x7FFF, 0x7FFF), 32: (0x7FFFFFFF, 0xFFFFFFFF),
                 64: (0x7FFFFFFFE0000000, 0xFFFFFFFFE0000000)},
}

# A NaN narrowed to fp8 is 0x7f with the NaN's sign (0xff when negative) from every source but
# fp16, whose NaNs become 0x7f whatever their sign.
NARROWED_NAN = 0x7F


def _nan_bytes(wide: np.ndarray, keep_sign: bool) -> np.ndarray:
    sign = np.signbit(wide).astype(np.uint8) << 7 if keep_sign else np.uint8(0)
    return (np.uint8(NARROWED_NAN) | sign).astype(np.uint8)


def to_fp8(values, name: str) -> np.ndarray:
    """`values` (any float or integer array) as the fp8 format `name`, saturating."""
    kind = NUMPY[name]
    wide = np.asarray(values)
    from_fp16 = wide.dtype == np.float16
    if wide.dtype.kind not in "f" or wide.dtype.itemsize > 4:
        wide = wide.astype(np.float64 if wide.dtype.itemsize > 4 else np.float32)
    if wide.dtype != np.float32 and wide.dtype != np.float64:
        wide = wide.astype(np.float32)  # float16, bfloat16: exactly
    largest = float(ml_dtypes.finfo(kind).max)
    clipped = np.where(np.isnan(wide), wide, np.clip(wide, -largest, largest))
    if clipped.dtype == np.float64:  # through f32, as the compiler narrows f64
        clipped = clipped.astype(np.float32)
    out = clipped.astype(kind)
    nan = np.isnan(wide)
    if nan.any():
        byte = np.where(nan, _nan_bytes(wide, not from_fp16), out.view(np.uint8))
        out = np.asarray(byte, np.uint8).view(kind).reshape(out.shape)
    return out


def from_fp8(values: np.ndarray, name: str, target: np.dtype) -> np.ndarray:
    """fp8 `values` (format `name`) widened to the float type `target`, exactly; NaN with the
    bits of WIDENED_NAN."""
    target = np.dtype(target)
    out = np.asarray(values).astype(target)
    byte = np.asarray(values).view(np.uint8)
    nan = (byte & 0x7F) > LARGEST_BYTE[name]
    if nan.any():
        positive, negative = WIDENED_NAN[name][target.itemsize * 8]
        word = np.dtype(f"u{target.itemsize}")
        bits = np.where(byte >= 0x80, word.type(negative), word.type(positive)).astype(word)
        out = np.where(nan, bits.view(target), out).astype(target)
    return out


def e5m2_of_halves(halves: np.ndarray, values: np.ndarray) -> np.ndarray:
    """fp16 `halves` (`values` rounded toward zero) truncated to e5m2, whose bytes are the upper
    halves of fp16 values: rounding toward zero to e5m2, as Triton's fp_downcast_rounding="rtz"
    does (no saturation: infinity stays, finite values stop at 57344); a NaN of `values` as
    to_fp8 makes it."""
    byte = (np.asarray(halves, np.float16).view(np.uint16) >> 8).astype(np.uint8)
    wide = np.asarray(values)
    nan = np.isnan(wide)
    byte = np.where(nan, _nan_bytes(wide, True), byte).astype(np.uint8)
    return byte.view(NUMPY["float8e5"]).reshape(np.shape(wide))


def bits(value: float, name: str) -> int:
    """The byte of `value` as fp8 format `name` (saturating)."""
    return int(to_fp8(np.float32(value), name).view(np.uint8))
