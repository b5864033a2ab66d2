"""Block pointers (`tl.make_block_ptr`, `tl.advance`), written once for both modes.

A block pointer is a compile-time structure, not an IR value: a scalar base pointer, the
parent tensor's shape and strides, the block's offsets into it, and the block's shape and
order. `tl.load`/`tl.store` of one expand it into the block of element pointers
base + sum_d (offsets[d] + arange(block_shape[d])) * strides[d], with `boundary_check`'s
dimensions masked to 0 <= index < shape[d] and `padding_option` giving the masked-off lanes'
value. This module holds the structure and its checks; the builtins that make, move and
expand block pointers (builtins.py) call the other builtins and the semantic layer, which run
on the MLIR builder when compiling and on the NumPy builder when interpreting, so the compiler
and the interpreter run one code. Like Triton, shapes and strides are int64 and
offsets int32; `order` (the fastest-varying dimension first) is checked and kept, and the
coalescing analysis finds the contiguous dimension from the strides.

The frontend carries a block pointer through loops and `if`s by its run-time fields
(`fields()`/`with_fields()`); the block shape and order are compile-time.
"""
from __future__ import annotations

from tilec.language.core import SemanticError, tensor, unwrap

PADDING = {"": None, "zero": 0.0, "nan": float("nan")}


def is_int(value) -> bool:
    value = unwrap(value)
    return isinstance(value, int) and not isinstance(value, bool)


class block_pointer:
    """What tl.make_block_ptr returns; see the module docstring."""

    def __init__(self, base, shape: tuple, strides: tuple, offsets: tuple, block_shape: tuple,
                 order: tuple):
        self.base, self.shape, self.strides, self.offsets = base, shape, strides, offsets
        self.block_shape, self.order = block_shape, order

    @property
    def dtype(self):
        return self.base.dtype

    @property
    def type(self):
        return self.base.dtype

    def fields(self) -> tuple:
        """The run-time values, in a fixed order (the frontend carries them through loops)."""
        return (self.base, *self.shape, *self.strides, *self.offsets)

    def with_fields(self, values) -> "block_pointer":
        values, rank = list(values), len(self.block_shape)
        return block_pointer(values[0], tuple(values[1:1 + rank]),
                             tuple(values[1 + rank:1 + 2 * rank]), tuple(values[1 + 2 * rank:]),
                             self.block_shape, self.order)

    def same_static(self, other) -> bool:
        return (isinstance(other, block_pointer) and self.block_shape == other.block_shape
                and self.order == other.order)

    def __repr__(self) -> str:
        return f"block_pointer<{self.base.dtype}, block {list(self.block_shape)}>"

    def __bool__(self):
        raise SemanticError("a block pointer has no truth value")


def sequence(value, what: str) -> tuple:
    value = unwrap(value)
    if not isinstance(value, (tuple, list)):
        raise SemanticError(f"tl.make_block_ptr: `{what}` must be a tuple, got {value!r}")
    return tuple(unwrap(v) for v in value)


def checked_dims(dims, rank: int, what: str) -> tuple[int, ...]:
    """tl.load/tl.store's `boundary_check` as a tuple of dimensions of a rank-`rank` block."""
    dims = unwrap(dims)
    dims = (dims,) if is_int(dims) else tuple(unwrap(d) for d in (dims or ()))
    for d in dims:
        if not is_int(d) or not 0 <= d < rank:
            raise SemanticError(f"{what}: `boundary_check` holds dimensions of the block "
                                f"(0 to {rank - 1}), got {d!r}")
    return dims


def check_make(base, shape, strides, offsets, block_shape, order) -> tuple:
    """tl.make_block_ptr's arguments checked: (base, shape, strides, offsets, block_shape,
    order), the sequences as tuples and block_shape and order as ints."""
    base = unwrap(base)
    if not isinstance(base, tensor) or not base.dtype.is_ptr() or base.shape:
        raise SemanticError("tl.make_block_ptr: `base` must be a scalar pointer (a pointer "
                            f"argument, possibly plus an offset), got {base!r}")
    shape, strides = sequence(shape, "shape"), sequence(strides, "strides")
    offsets, block_shape = sequence(offsets, "offsets"), sequence(block_shape, "block_shape")
    order = sequence(order, "order")
    rank = len(block_shape)
    if not len(shape) == len(strides) == len(offsets) == rank == len(order):
        raise SemanticError("tl.make_block_ptr: shape, strides, offsets, block_shape and order "
                            f"must have one entry per dimension; got {len(shape)}, "
                            f"{len(strides)}, {len(offsets)}, {rank} and {len(order)}")
    for size in block_shape:
        if not is_int(size) or size <= 0 or size & (size - 1):
            raise SemanticError("tl.make_block_ptr: `block_shape` must hold compile-time powers "
                                f"of two, got {list(block_shape)}")
    if not all(is_int(o) for o in order) or sorted(order) != list(range(rank)):
        raise SemanticError(f"tl.make_block_ptr: `order` must be a permutation of "
                            f"{tuple(range(rank))}, got {order}")
    return (base, shape, strides, offsets, tuple(int(s) for s in block_shape),
            tuple(int(o) for o in order))


def check_advance(bp, offsets) -> tuple:
    bp, offsets = unwrap(bp), sequence(offsets, "offsets")
    if not isinstance(bp, block_pointer):
        raise SemanticError(f"tl.advance needs a block pointer (tl.make_block_ptr), got {bp!r}")
    if len(offsets) != len(bp.block_shape):
        raise SemanticError(f"tl.advance: {len(offsets)} offsets for a block pointer of rank "
                            f"{len(bp.block_shape)}")
    return bp, offsets


def check_padding(bp, padding_option, op: str):
    padding_option = unwrap(padding_option) or ""
    if padding_option not in PADDING:
        raise SemanticError(f"{op}: padding_option must be 'zero' or 'nan', got "
                            f"{padding_option!r}")
    if padding_option == "nan" and not bp.dtype.element_ty.is_floating():
        raise SemanticError(f"{op}: padding_option='nan' needs a floating-point block, the "
                            f"block pointer is to {bp.dtype.element_ty}")
    return PADDING[padding_option]


def check_int_scalar(value, what: str):
    if not isinstance(value, tensor) or value.shape or not value.dtype.is_int():
        raise SemanticError(f"tl.make_block_ptr: the elements of `{what}` must be integer "
                            f"scalars, got {value!r}")
