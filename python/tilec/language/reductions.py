"""Ops that combine elements across a block: reduce, scan, sort, gather, histogram and dot."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from tilec.language import dtypes as T
from tilec.language.builder import current as _builder
from tilec.language.core import SemanticError, tensor
from tilec.language.semantic import binary, broadcast_to, cast, constant, expand_dims, to_tensor
from tilec.language.shapes import reshape

# combine(accumulated + new values) -> combined values: the user's combine_fn, called by the
# builder on scalars (compiling: a region) or on whole blocks of lanes (interpreting).
Combine = Callable[[list[tensor]], Sequence[tensor]]


def normalize_axis(axis: int, rank: int, op: str) -> int:
    if not -rank <= axis < rank:
        raise SemanticError(f"tl.{op}: axis {axis} is out of range for a block of rank {rank}")
    return axis % rank


def check_inputs(inputs: Sequence[tensor], op: str) -> list[tensor]:
    """Reduce/scan/sort operands: 1 to 4 blocks of one shape."""
    inputs = list(inputs)
    if not all(isinstance(x, tensor) for x in inputs):
        raise SemanticError(f"tl.{op} needs blocks, got a Python value")
    if not all(x.is_block() for x in inputs):
        raise SemanticError(f"tl.{op} needs blocks, got a scalar")
    if len({tuple(x.shape) for x in inputs}) != 1:
        raise SemanticError(f"tl.{op}: all inputs need one shape, got "
                            f"{[x.shape for x in inputs]}")
    if len(inputs) > 4:
        raise SemanticError(f"tl.{op} takes at most 4 tensors at once, got {len(inputs)}")
    return inputs


def _checked(combine: Combine, inputs: list[tensor], what: str) -> Combine:
    """`combine` with its results checked (one per input, each of the arguments' shape: a
    scalar per scalar, or broadcast to the block of lanes) and cast to the inputs' types."""
    def run(args: list[tensor]) -> list[tensor]:
        results = list(combine(args))
        if len(results) != len(inputs):
            raise SemanticError(f"the {what} combine function must return {len(inputs)} "
                                f"value(s), one per input; it returned {len(results)}")
        lanes = args[0].shape
        values = []
        for r, x in zip(results, inputs):
            r = to_tensor(r)
            if r.is_block() and r.shape != lanes:
                raise SemanticError(f"the {what} combine function must return scalars")
            values.append(broadcast_to(cast(r, x.dtype), lanes))
        return values
    return run


def reduce(inputs: Sequence[tensor], axis: int | None, combine: Combine,
           keep_dims: bool = False) -> list[tensor]:
    inputs = check_inputs([to_tensor(x) for x in inputs], "reduce")
    rank = len(inputs[0].shape)
    whole = axis is None
    if whole:
        inputs = [reshape(x, [x.numel], can_reorder=True) for x in inputs]
        axis = 0
    axis = normalize_axis(axis, len(inputs[0].shape), "reduce")
    results = _builder().reduce(inputs, axis, _checked(combine, inputs, "reduce"))
    if keep_dims:  # a whole reduction keeps every dimension, as 1 (Triton's [1, 1] of [M, N])
        results = [expand_dims(r, axis) for r in results]
        if whole and rank != 1:
            results = [reshape(r, [1] * rank) for r in results]
    return results


def scan(inputs: Sequence[tensor], axis: int, combine: Combine, reverse: bool = False) -> list[tensor]:
    inputs = check_inputs([to_tensor(x) for x in inputs], "associative_scan")
    axis = normalize_axis(axis, len(inputs[0].shape), "associative_scan")
    return _builder().scan(inputs, axis, _checked(combine, inputs, "scan"), bool(reverse))


def sort_dim(x: tensor, dim: int | None) -> int:
    x = check_inputs([x], "sort")[0]
    rank = len(x.shape)
    dim = rank - 1 if dim is None else normalize_axis(dim, rank, "sort")
    if dim != rank - 1:
        raise SemanticError("tl.sort sorts along the last dimension only")
    return dim


def sort(x: tensor, dim: int | None = None, descending: bool = False) -> tensor:
    dim = sort_dim(to_tensor(x), dim)
    if not x.dtype.is_int_unsigned():
        return _builder().sort(x, dim, bool(descending))
    # tile.sort compares integers as signed: flipping the sign bit maps unsigned order onto
    # signed order (and back after sorting).
    flip = constant(1 << (x.dtype.int_bitwidth - 1), x.dtype)
    flipped = binary("^", x, flip)
    return binary("^", _builder().sort(flipped, dim, bool(descending)), flip)


def check_gather(src: tensor, index: tensor, axis: int) -> int:
    if not index.dtype.is_int():
        raise SemanticError(f"tl.gather: the index must be integers, got {index.dtype}")
    if len(src.shape) != len(index.shape) or not src.is_block():
        raise SemanticError(f"tl.gather: source {src.shape} and index {index.shape} need one rank")
    axis = normalize_axis(axis, len(src.shape), "gather")
    for d, (s, i) in enumerate(zip(src.shape, index.shape)):
        if d != axis and s != i:
            raise SemanticError(f"tl.gather: source {src.shape} and index {index.shape} differ "
                                f"in dimension {d}, which is not the gather axis")
    return axis


def gather(src: tensor, index: tensor, axis: int) -> tensor:
    src, index = to_tensor(src), to_tensor(index)
    axis = check_gather(src, index, axis)
    return _builder().gather(src, index, axis)


def check_histogram(x: tensor, num_bins: int) -> None:
    if len(x.shape) != 1 or not x.dtype.is_int():
        raise SemanticError(f"tl.histogram needs a 1-D block of integers, got {x.type}")
    if num_bins <= 0 or num_bins & (num_bins - 1):
        raise SemanticError(f"tl.histogram: num_bins must be a power of two, got {num_bins}")


def histogram(x: tensor, num_bins: int) -> tensor:
    x = to_tensor(x)
    check_histogram(x, num_bins)
    return _builder().histogram(x, num_bins)


_PRECISIONS = ("tf32", "tf32x3", "ieee")


def check_dot(a: tensor, b: tensor, acc: tensor | None, input_precision: str | None,
              allow_tf32: bool | None, out_dtype: T.dtype) -> tuple[T.dtype, list[int], str]:
    """(result element type, result shape, input precision) of tl.dot, or SemanticError."""
    if len(a.shape) not in (2, 3) or len(b.shape) != len(a.shape):
        raise SemanticError(f"tl.dot needs two 2-D (or two 3-D, batched) blocks, got shapes "
                            f"{a.shape} and {b.shape}")
    if a.shape[-1] != b.shape[-2]:
        raise SemanticError(f"tl.dot: the inner dimensions differ: a is {a.shape} and b is "
                            f"{b.shape}, so K = {a.shape[-1]} vs {b.shape[-2]}; a must be "
                            "[M, K] and b [K, N]")
    if len(a.shape) == 3 and a.shape[0] != b.shape[0]:
        raise SemanticError(f"tl.dot: batch sizes differ: {a.shape[0]} vs {b.shape[0]}")
    if a.dtype != b.dtype:
        raise SemanticError(f"tl.dot needs operands of one type, got {a.dtype} and {b.dtype}; "
                            "cast one of them")
    if a.dtype.is_fp8() and (out_dtype != T.float32 or (acc is not None
                                                        and acc.dtype != T.float32)):
        raise SemanticError(f"tl.dot of {a.dtype} operands accumulates in float32 "
                            f"(out_dtype=tl.float32), not {out_dtype}")
    if not (a.dtype.is_floating() or a.dtype in (T.int8, T.uint8)):
        raise SemanticError(f"tl.dot supports floating-point and 8-bit integer operands, "
                            f"got {a.dtype}")
    if input_precision is None:
        input_precision = "tf32" if allow_tf32 in (None, True) else "ieee"
    if input_precision not in _PRECISIONS:
        raise SemanticError(f"input_precision must be one of {', '.join(_PRECISIONS)}, "
                            f"not {input_precision!r}")
    if a.dtype.is_int():
        out_dtype = T.int32
    shape = a.shape[:-1] + [b.shape[-1]]
    if acc is not None:
        if acc.shape != shape:
            raise SemanticError(f"tl.dot: the accumulator has shape {acc.shape}, the product "
                                f"{shape}")
        if acc.dtype != out_dtype:
            raise SemanticError(f"tl.dot: the accumulator is {acc.dtype} but out_dtype is "
                                f"{out_dtype}")
    return out_dtype, shape, input_precision


def dot(a: tensor, b: tensor, acc=None, input_precision: str | None = None,
        allow_tf32: bool | None = None, max_num_imprecise_acc: int | None = None,
        out_dtype: T.dtype = T.float32) -> tensor:
    a, b = to_tensor(a), to_tensor(b)
    acc = None if acc is None else to_tensor(acc)
    out_dtype, shape, input_precision = check_dot(a, b, acc, input_precision, allow_tf32,
                                                  out_dtype)
    if acc is None:
        acc = constant(0, out_dtype, shape)
    imprecise = _imprecise_sums(a, b, max_num_imprecise_acc)
    if a.dtype == T.uint8:  # tile.dot's i8 is signed: widen unsigned bytes first
        a, b = cast(a, T.int16), cast(b, T.int16)
    elif a.dtype.is_fp8e4b15():  # no tensor core takes it: float16 holds its values exactly
        a, b, imprecise = cast(a, T.float16), cast(b, T.float16), 0
    return _builder().dot(a, b, acc, input_precision, imprecise)


# With no max_num_imprecise_acc an fp8 dot leaves its partial sums to the tensor cores (fp8 wgmma
# adds products in less than fp32 precision), as Triton's default on sm_90 does.
FP8_IMPRECISE_DEFAULT = 1 << 30


def _imprecise_sums(a: tensor, b: tensor, given) -> int:
    """max_num_imprecise_acc as tile.dot takes it, checked as Triton does: how many K products
    an fp8 dot may sum at the tensor cores' precision before promoting the sum to fp32 (0: full
    precision); ignored for other operands."""
    fp8 = a.dtype.is_fp8() and b.dtype.is_fp8()
    if given is None:
        return FP8_IMPRECISE_DEFAULT if fp8 else 0
    if not isinstance(given, int) or isinstance(given, bool) or given < 0:
        raise SemanticError(f"max_num_imprecise_acc must be a non-negative integer, not "
                            f"{given!r}")
    k = a.shape[-1]
    if fp8 and given > k:
        raise SemanticError(f"max_num_imprecise_acc ({given}) must be <= K ({k})")
    return given
