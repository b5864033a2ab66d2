"""Creating blocks and changing their shape: the semantic layer for shapes (see semantic.py)."""
from __future__ import annotations

from tilec.language import dtypes as T
from tilec.language.builder import current as _builder
from tilec.language.core import SemanticError, tensor
from tilec.language.dtypes import check_numel
from tilec.language.semantic import (broadcast_all, broadcast_to, cast, constant, expand_dims,
                                     splat, to_tensor)

def check_shape(shape) -> list[int]:
    shape = [int(s) for s in shape]
    for s in shape:
        if s <= 0 or s & (s - 1):
            raise SemanticError(f"block shapes must be powers of two, got {shape}")
    check_numel(shape)
    return shape


def check_arange(start: int, end: int) -> int:
    """The length of tl.arange(start, end), or SemanticError."""
    if not isinstance(start, int) or not isinstance(end, int):
        raise SemanticError("tl.arange(start, end) needs constexpr integer bounds")
    if end <= start:
        raise SemanticError(f"tl.arange: end ({end}) must be greater than start ({start})")
    if not -2**31 <= start < end <= 2**31:
        raise SemanticError("tl.arange bounds must fit in int32")
    check_shape([end - start])
    return end - start


def arange(start: int, end: int) -> tensor:
    check_arange(start, end)
    return _builder().make_range(start, end)


def full(shape, value, element: T.dtype) -> tensor:
    shape = check_shape(shape)
    if isinstance(value, tensor):
        return splat(cast(value, element), shape) if shape else cast(value, element)
    return constant(value, element, shape)


def check_reshape(x: tensor, shape) -> list[int]:
    shape = check_shape(shape) if shape else []
    numel = 1
    for s in shape:
        numel *= s
    if numel != x.numel:
        raise SemanticError(f"cannot reshape a block of shape {x.shape} ({x.numel} elements) "
                            f"to {shape} ({numel} elements)")
    return shape


def reshape(x: tensor, shape, can_reorder: bool = False) -> tensor:
    x = to_tensor(x)
    shape = check_reshape(x, shape)
    if not x.is_block():
        return splat(x, shape) if shape else x
    if x.shape == shape:
        return x
    return _builder().reshape(x, shape, bool(can_reorder))


def check_permutation(x: tensor, order) -> list[int]:
    order = [int(d) for d in order]
    if sorted(order) != list(range(len(x.shape))):
        raise SemanticError(f"permutation {order} does not match a tensor of rank {len(x.shape)}")
    return order


def transpose_dims(x: tensor, dims) -> list[int]:
    """tl.trans's permutation: the given dims, or (1, 0) for a 2-D block."""
    if not dims:
        if len(x.shape) != 2:
            raise SemanticError(f"tl.trans without dims transposes 2-D blocks; this one has shape "
                                f"{x.shape}: pass the permutation, e.g. tl.trans(x, 0, 2, 1)")
        dims = (1, 0)
    return check_permutation(x, dims)


def permute(x: tensor, order) -> tensor:
    order = check_permutation(x, order)
    if order == sorted(order):
        return x
    return _builder().trans(x, order)


def trans(x: tensor, dims=()) -> tensor:
    return permute(x, transpose_dims(x, dims))


def subscript(x: tensor, index) -> tensor:
    """`x[index]` (`:` and None only): x with a size-1 dimension at each None."""
    for dim in subscript_axes(index, x.shape):
        x = expand_dims(x, dim)
    return x


def subscript_axes(index, shape) -> list[int]:
    """The dimensions `x[index]` inserts, in order (each `None` of the index; `:` keeps a
    dimension). Anything else is an error, as in Triton; as there, a ':' past the last
    dimension is no error (`s[None, None, :]` of a scalar is a [1, 1] block), and a None
    past it is expand_dims' error."""
    items = index if isinstance(index, tuple) else (index,)
    inserted, dim = [], 0
    for item in items:
        if item is None:
            inserted.append(dim)
        elif not (isinstance(item, slice) and item == slice(None)):
            raise SemanticError(f"unsupported tensor index {item!r}: tensors can be indexed with "
                                "':' and None only (e.g. x[:, None]); use tl.gather or masks to "
                                "select elements")
        dim += 1
    return inserted


def expand_dims_axes(rank: int, axis) -> list[int]:
    """The new dimensions of tl.expand_dims(x, axis) for an `x` of `rank`, ascending and
    non-negative (negative axes count from the end of the result, as in Triton and NumPy)."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    new_rank = rank + len(axes)
    found = []
    for a in axes:
        if not isinstance(a, int) or not -new_rank <= a < new_rank:
            raise SemanticError(f"tl.expand_dims: invalid axis {a} for a result of rank {new_rank} "
                                f"(axes run from {-new_rank} to {new_rank - 1})")
        found.append(a % new_rank)
    if len(set(found)) != len(found):
        raise SemanticError(f"tl.expand_dims: duplicate axes, normalized axes = {found} (from "
                            f"{list(axes)}: each names one new dimension)")
    return sorted(found)


def check_join(a: tensor, b: tensor) -> None:
    if a.dtype != b.dtype:
        raise SemanticError(f"tl.join needs operands of one type, got {a.dtype} and {b.dtype}")


def join(a, b) -> tensor:
    a, b = to_tensor(a), to_tensor(b)
    check_join(a, b)
    a, b = broadcast_all(a, b)
    if not a.is_block():  # two scalars join into a block of 2
        joined = join(splat(a, [1]), splat(b, [1]))
        return reshape(joined, [2])
    return _builder().join(a, b)


def check_split(x: tensor) -> None:
    if not x.shape or x.shape[-1] != 2:
        raise SemanticError(f"tl.split needs a last dimension of size 2, got shape {x.shape}")


def split(x: tensor) -> tuple[tensor, tensor]:
    check_split(x)
    return _builder().split(x)


def check_cat(a: tensor, b: tensor) -> list[int]:
    if a.dtype != b.dtype or a.shape[1:] != b.shape[1:] or not a.is_block():
        raise SemanticError(f"tl.cat needs blocks of one type that differ at most in their first "
                            f"dimension, got {a.type} and {b.type}")
    return check_shape([a.shape[0] + b.shape[0]] + a.shape[1:])


def cat(a: tensor, b: tensor) -> tensor:
    check_cat(a, b)
    return _builder().cat(a, b)


def broadcast(x, shape) -> tensor:
    return broadcast_to(to_tensor(x), check_shape(shape) if shape else [])
