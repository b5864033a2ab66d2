"""The fp8 formats in NumPy (through ml_dtypes), for the interpreter and for the compiler's
constants: conversions to fp8 round to nearest even and saturate, as the GPU's
cvt.rn.satfinite does (and Triton): a value beyond the largest finite one becomes it (448 for
float8e4nv, 57344 for float8e5), NaN stays NaN; infinities saturate too, as PTX's satfinite
makes them. Conversions from fp8 are exact."""
from __future__ import annotations

import ml_dtypes
import numpy as np

NUMPY = {"float8e4nv": ml_dtypes.float8_e4m3fn, "float8e5": ml_dtypes.float8_e5m2}
BY_MLIR = {"f8E4M3FN": "float8e4nv", "f8E5M2": "float8e5"}


def to_fp8(values, name: str) -> np.ndarray:
    """`values` (any float or integer array) as the fp8 format `name`, saturating."""
    kind = NUMPY[name]
    wide = np.asarray(values)
    if wide.dtype.kind not in "f" or wide.dtype.itemsize > 4:
        wide = wide.astype(np.float64 if wide.dtype.itemsize > 4 else np.float32)
    if wide.dtype != np.float32 and wide.dtype != np.float64:
        wide = wide.astype(np.float32)  # float16, bfloat16: exactly
    largest = float(ml_dtypes.finfo(kind).max)
    clipped = np.where(np.isnan(wide), wide, np.clip(wide, -largest, largest))
    if clipped.dtype == np.float64:  # through f32, as the compiler narrows f64
        clipped = clipped.astype(np.float32)
    return clipped.astype(kind)


def bits(value: float, name: str) -> int:
    """The byte of `value` as fp8 format `name` (saturating)."""
    return int(to_fp8(np.float32(value), name).view(np.uint8))
