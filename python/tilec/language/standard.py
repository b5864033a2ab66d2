"""Library functions written in the kernel language itself, compiled like user helpers."""
from __future__ import annotations

import tilec.language.builtins as tl
from tilec.language import dtypes as T
from tilec.language.core import constexpr_function, language_function


@language_function
def cdiv(x, div):
    """Ceiling division; on compile-time values it folds to a Python int."""
    return (x + div - 1) // div


@language_function
def sigmoid(x):
    return 1 / (1 + tl.exp(-x))


@language_function
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    axis = 0 if dim is None else dim
    z = x - max(x, axis, keep_dims=keep_dims)
    num = tl.exp(z)
    den = sum(num, axis, keep_dims=keep_dims)
    return tl.fdiv(num, den, ieee_rounding)


@language_function
def interleave(a, b):
    """The elements of `a` and `b` alternating along the last dimension (a0, b0, a1, b1, ...):
    join then merge the last two dimensions; scalars give a pair."""
    c = tl.join(a, b)
    if len(c.shape) == 1:
        return c
    return tl.reshape(c, c.shape[:-2] + [2 * c.shape[-2]])


@language_function
def swizzle2d(i, j, size_i, size_j, size_g):
    """Maps a row-major (i, j) in a size_i x size_j grid to grouped order (groups of size_g
    rows), as used for L2-friendly matmul tile orders."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    rows = tl.minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % rows
    new_j = ij // rows
    return new_i, new_j


# --- reductions -----------------------------------------------------------------------------

@language_function
def _sum_combine(a, b):
    return a + b


@language_function
def _prod_combine(a, b):
    return a * b


@language_function
def _xor_combine(a, b):
    return a ^ b


@language_function
def _min_combine(a, b):
    return tl.minimum(a, b)


@language_function
def _max_combine(a, b):
    return tl.maximum(a, b)


@language_function
def _argmin_combine(value1, index1, value2, index2, tie_break_left):
    if tie_break_left:
        lt = (value1 < value2) | ((value1 == value2) & (index1 < index2))
    else:
        lt = value1 < value2
    return tl.where(lt, value1, value2), tl.where(lt, index1, index2)


@language_function
def _argmax_combine(value1, index1, value2, index2, tie_break_left):
    if tie_break_left:
        gt = (value1 > value2) | ((value1 == value2) & (index1 < index2))
    else:
        gt = value1 > value2
    return tl.where(gt, value1, value2), tl.where(gt, index1, index2)


@language_function
def _argmin_combine_left(value1, index1, value2, index2):
    return _argmin_combine(value1, index1, value2, index2, True)


@language_function
def _argmin_combine_fast(value1, index1, value2, index2):
    return _argmin_combine(value1, index1, value2, index2, False)


@language_function
def _argmax_combine_left(value1, index1, value2, index2):
    return _argmax_combine(value1, index1, value2, index2, True)


@language_function
def _argmax_combine_fast(value1, index1, value2, index2):
    return _argmax_combine(value1, index1, value2, index2, False)


@constexpr_function
def _accumulation_dtype(dtype, requested):
    """Integers narrower than 32 bits accumulate in 32 bits of their signedness (as Triton)."""
    if requested is not None:
        return requested
    if dtype.is_int_signed() and dtype.int_bitwidth < 32:
        return T.int32
    if dtype.is_int_unsigned() and dtype.int_bitwidth < 32:
        return T.uint32
    return None


@constexpr_function
def _min_max_dtype(dtype):
    """min/max of narrow types compute in 32 bits (as Triton)."""
    if dtype.primitive_bitwidth < 32:
        return T.float32 if dtype.is_floating() else T.int32
    return None


@language_function
def sum(input, axis=None, keep_dims=False, dtype=None):
    acc_dtype = _accumulation_dtype(input.dtype, dtype)
    if acc_dtype is not None:
        input = input.to(acc_dtype)
    return tl.reduce(input, axis, _sum_combine, keep_dims=keep_dims)


@language_function
def xor_sum(input, axis=None, keep_dims=False):
    tl.static_assert(input.dtype.is_int(), "xor_sum needs integers")
    return tl.reduce(input, axis, _xor_combine, keep_dims=keep_dims)


@language_function
def _indices_like(input, axis):
    """Each element's index along `axis`, broadcast to the input's shape."""
    n = input.shape[axis]
    index = tl.arange(0, n)
    shape = input.shape
    if len(shape) > 1:
        for _d in tl.static_range(len(shape) - 1 - axis):
            index = tl.expand_dims(index, 1)
        for _d in tl.static_range(axis):
            index = tl.expand_dims(index, 0)
        index = tl.broadcast_to(index, shape)
    return index


@language_function
def _extreme(input, axis, return_indices, tie_break_left, keep_dims, combine, combine_left,
             combine_fast):
    """max or min (by the combine functions given), optionally with the index of the winner."""
    wide = _min_max_dtype(input.dtype)
    if wide is not None:
        input = input.to(wide)
    if return_indices:
        pick = combine_left if tie_break_left else combine_fast
        if axis is None:  # the index into the row-major flattened block
            indices = tl.reshape(tl.arange(0, input.numel), input.shape)
            return tl.reduce((input, indices), None, pick, keep_dims=keep_dims)
        return tl.reduce((input, _indices_like(input, axis)), axis, pick, keep_dims=keep_dims)
    return tl.reduce(input, axis, combine, keep_dims=keep_dims)


@language_function
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False):
    return _extreme(input, axis, return_indices, return_indices_tie_break_left, keep_dims,
                    _max_combine, _argmax_combine_left, _argmax_combine_fast)


@language_function
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False):
    return _extreme(input, axis, return_indices, return_indices_tie_break_left, keep_dims,
                    _min_combine, _argmin_combine_left, _argmin_combine_fast)


@language_function
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    _, index = max(input, axis, return_indices=True, return_indices_tie_break_left=tie_break_left,
                   keep_dims=keep_dims)
    return index


@language_function
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    _, index = min(input, axis, return_indices=True, return_indices_tie_break_left=tie_break_left,
                   keep_dims=keep_dims)
    return index


@language_function
def cumsum(input, axis=0, reverse=False, dtype=None):
    acc_dtype = _accumulation_dtype(input.dtype, dtype)
    if acc_dtype is not None:
        input = input.to(acc_dtype)
    return tl.associative_scan(input, axis, _sum_combine, reverse)


@language_function
def cumprod(input, axis=0, reverse=False):
    return tl.associative_scan(input, axis, _prod_combine, reverse)


# --- creation and reordering ------------------------------------------------------------------

@language_function
def full_like(input, value, dtype=None):
    """A block of `input`'s shape filled with `value`, of `dtype` (default `input`'s)."""
    return tl.full(input.shape, value, input.dtype if dtype is None else dtype)


@language_function
def ones_like(input, dtype=None):
    return tl.full(input.shape, 1, input.dtype if dtype is None else dtype)


@language_function
def topk(x, k, dim=None):
    """The `k` largest elements of `x` along its last dimension, largest first (`k` a power of
    two, at most that dimension): `x` sorted in descending order, then position j of the
    result is the maximum over positions j, j + k, j + 2k, ... of the sorted values, which is
    position j itself."""
    n = x.shape[-1]
    tl.static_assert(dim is None or dim == -1 or dim == len(x.shape) - 1,
                     "tl.topk selects along the last dimension only")
    tl.static_assert(k > 0 and (k & (k - 1)) == 0 and k <= n,
                     "tl.topk: k must be a power of two no larger than the last dimension")
    ordered = tl.sort(x, None, descending=True)
    if k == n:
        return ordered
    return max(tl.reshape(ordered, x.shape[:-1] + [n // k, k]), len(x.shape) - 1)


@language_function
def flip(x, dim=None):
    """`x` with the order of its elements along `dim` (default: the last dimension)
    reversed: a gather of the indices n - 1, n - 2, ..., 0."""
    rank = len(x.shape)
    d = rank - 1 if dim is None else (dim + rank if dim < 0 else dim)
    n = x.shape[d]
    backwards = tl.reshape(n - 1 - tl.arange(0, n), [1] * d + [n] + [1] * (rank - d - 1))
    return tl.gather(x, tl.broadcast_to(backwards, x.shape), d)
