"""Float downcasts with an explicit rounding (`fp_downcast_rounding`), and inputs that tell the
roundings apart: the interpreter is checked against NumPy with them (test_fp_downcast.py), the
GPU against the interpreter (test_gpu_backend.py)."""
import ml_dtypes
import numpy as np

import tilec
import tilec.language as tl

BF16 = np.dtype(ml_dtypes.bfloat16)


@tilec.jit
def downcast(x_ptr, out_ptr, n, ROUNDING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty, fp_downcast_rounding=ROUNDING),
             mask=mask)


def finfo(dtype):
    return ml_dtypes.finfo(dtype) if np.dtype(dtype) == BF16 else np.finfo(dtype)


def bits_type(dtype):
    return {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]


def rounding_inputs(source, target, seed: int = 0) -> np.ndarray:
    """Values of `source` around values of `target`: each representable value (a sample of them,
    subnormals and the largest finite included), the next `source` value on either side, the
    midpoint to the next representable value (a tie) and its neighbours; the negatives of all;
    values past the largest finite one (the tie there rounds to infinity to nearest), zeros,
    infinities, NaNs (one with a payload, one negative), `source` subnormals and random values
    of every magnitude."""
    with np.errstate(over="ignore"):  # values past the largest finite `source` are infinite
        return _rounding_inputs(np.dtype(source), np.dtype(target), seed)


def _rounding_inputs(source, target, seed):
    rng = np.random.default_rng(seed)
    top = int(np.array(finfo(target).max, target).view(bits_type(target)))
    sample = np.unique(np.r_[np.arange(0, top, max(1, top // 3000)), 1, 2, 3, top - 1, top])
    exact = sample.astype(bits_type(target)).view(target).astype(np.float64)
    above = (sample + 1).astype(bits_type(target)).view(target).astype(np.float64)
    ties = ((exact + above) / 2)[np.isfinite(above)]
    base = np.r_[exact, ties].astype(source)
    inf = np.array(np.inf, source)
    near = np.r_[base, np.nextafter(base, inf), np.nextafter(base, -inf)]
    big = float(finfo(target).max)
    ulp = big - float(np.nextafter(np.array(big, target), np.array(0, target)))
    past = np.array([big + ulp / 4, big + ulp / 2, big + ulp, 2 * big, finfo(source).max],
                    source)
    tiny = finfo(source).smallest_subnormal
    special = np.array([0, tiny, 3 * tiny, finfo(source).tiny, np.inf], source)
    nans = np.array([np.nan, -np.nan], source)
    payload = np.array(np.nan, source).view(bits_type(source)) | 0x5
    nans = np.r_[nans, payload.view(source)]
    magnitudes = 10.0 ** rng.uniform(-12, np.log10(big) + 1, 4000)
    random = (rng.standard_normal(4000) * magnitudes).astype(source)
    values = np.r_[near, past, special]
    return np.r_[values, -values, nans, random].astype(source)
