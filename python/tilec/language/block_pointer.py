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

from tilec.language.core import BoundMethod, SemanticError, tensor, unwrap
from tilec.language.dtypes import block_type

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
        made = block_pointer(values[0], tuple(values[1:1 + rank]),
                             tuple(values[1 + rank:1 + 2 * rank]), tuple(values[1 + 2 * rank:]),
                             self.block_shape, self.order)
        return self._same_kind(made)

    def _same_kind(self, made: "block_pointer") -> "block_pointer":
        return made

    def same_static(self, other) -> bool:
        return (type(other) is type(self) and self.block_shape == other.block_shape
                and self.order == other.order and self._static() == other._static())

    def _static(self) -> tuple:
        return ()

    def __repr__(self) -> str:
        return f"block_pointer<{self.base.dtype}, block {list(self.block_shape)}>"

    def __bool__(self):
        raise SemanticError("a block pointer has no truth value")


def sequence(value, what: str, op: str = "tl.make_block_ptr") -> tuple:
    value = unwrap(value)
    if not isinstance(value, (tuple, list)):
        raise SemanticError(f"{op}: `{what}` must be a tuple, got {value!r}")
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


# --- tensor descriptors ------------------------------------------------------------------------

# desc.load, desc.store, desc.atomic_add, ...: the builtins (filled in by tilec.language), with
# the descriptor as their first argument.
DESCRIPTOR_METHODS: dict = {}

MAX_DESCRIPTOR_RANK = 5
MAX_DESCRIPTOR_BLOCK = 256  # elements along one dimension (what a TMA box holds)


class tensor_descriptor(block_pointer):
    """What tl.make_tensor_descriptor returns (Triton's tensor descriptor): a block pointer
    without offsets of its own; `desc.load(offsets)` and `desc.store(offsets, value)` read and
    write the block at `offsets`, out-of-bounds elements read as the padding and not written.
    (On sm_90 the compiler moves the blocks of the 2-D ones TMA takes with TMA copies through
    a map: a parameter for a host descriptor, one the kernel writes for a descriptor it makes;
    it expands the others into masked pointer blocks, as for block pointers.)"""

    def __init__(self, base, shape: tuple, strides: tuple, block_shape: tuple, padding: str,
                 offsets: tuple | None = None, tensormap=None, tma_swizzle: int = 0,
                 tma_usable=None):
        rank = len(block_shape)
        super().__init__(base, shape, strides, offsets or (0,) * rank, block_shape,
                         tuple(range(rank - 1, -1, -1)))
        self.padding = padding
        # A host descriptor the compiler moves with TMA: its map parameter and the map's
        # swizzle (bytes); loads then copy through the map (memory.tma_load).
        self.tensormap = tensormap
        self.tma_swizzle = tma_swizzle
        # A map made in the kernel: an i1 saying whether TMA may use it (the base and strides
        # 16-byte aligned at run time), or None where the compiler knows (a host descriptor).
        self.tma_usable = tma_usable

    @classmethod
    def from_parts(cls, parts, tensormap=None, tma_swizzle: int = 0) -> "tensor_descriptor":
        """A descriptor passed as a kernel argument: its parts (base, *shape, *strides,
        block_shape, padding), as `TensorDescriptor.tilec_descriptor_parts()` lists them;
        `tensormap`: its TMA map parameter, when the compiler gave it one."""
        parts = list(parts)
        block_shape, padding = tuple(unwrap(parts[-2])), unwrap(parts[-1])
        rank = len(block_shape)
        return cls(parts[0], tuple(parts[1:1 + rank]), tuple(parts[1 + rank:1 + 2 * rank]),
                   block_shape, padding, tensormap=tensormap, tma_swizzle=tma_swizzle)

    def _same_kind(self, made: block_pointer) -> "tensor_descriptor":
        return tensor_descriptor(made.base, made.shape, made.strides, made.block_shape,
                                 self.padding, made.offsets, self.tensormap, self.tma_swizzle,
                                 self.tma_usable)

    def _static(self) -> tuple:
        return (self.padding,)

    @property
    def block_type(self):
        return block_type(self.base.dtype.element_ty, list(self.block_shape))

    @property
    def dtype(self):
        """The element type (Triton's `desc.dtype`), not the base's pointer type."""
        return self.base.dtype.element_ty

    def __getattr__(self, name: str):  # desc.load(...) and the other methods, run as Python
        if name in DESCRIPTOR_METHODS:
            return BoundMethod(DESCRIPTOR_METHODS[name], self)
        raise AttributeError(f"tensor descriptors have no attribute '{name}'")

    def __repr__(self) -> str:
        return f"tensor_descriptor<{self.base.dtype}, block {list(self.block_shape)}>"


def check_descriptor(base, shape, strides, block_shape, padding_option) -> tuple:
    """tl.make_tensor_descriptor's arguments checked (Triton's rules, TMA's limits)."""
    base = unwrap(base)
    if not isinstance(base, tensor) or not base.dtype.is_ptr() or base.shape:
        raise SemanticError("tl.make_tensor_descriptor: `base` must be a scalar pointer, got "
                            f"{base!r}")
    what = "tl.make_tensor_descriptor"
    shape, strides = sequence(shape, "shape", what), sequence(strides, "strides", what)
    block_shape = sequence(block_shape, "block_shape", what)
    rank = len(block_shape)
    if not 1 <= rank <= MAX_DESCRIPTOR_RANK or not len(shape) == len(strides) == rank:
        raise SemanticError(f"{what}: shape, strides and block_shape must have one entry per "
                            f"dimension, 1 to {MAX_DESCRIPTOR_RANK}; got {len(shape)}, "
                            f"{len(strides)} and {rank}")
    for size in block_shape:
        if not is_int(size) or size <= 0 or size & (size - 1) or size > MAX_DESCRIPTOR_BLOCK:
            raise SemanticError(f"{what}: `block_shape` must hold compile-time powers of two up "
                                f"to {MAX_DESCRIPTOR_BLOCK}, got {list(block_shape)}")
    element = base.dtype.element_ty
    width = max(element.primitive_bitwidth // 8, 1)
    if block_shape[-1] * width < 16:
        raise SemanticError(f"Descriptor block shape must have at least 16 bytes in the last "
                            f"dimension: {block_shape[-1]} x {element} is "
                            f"{block_shape[-1] * width} bytes")
    if not is_int(strides[-1]) or unwrap(strides[-1]) != 1:
        raise SemanticError(f"{what}: the last dimension must be contiguous (stride 1), got "
                            f"stride {strides[-1]!r}")
    padding_option = unwrap(padding_option) or "zero"
    if padding_option not in ("zero", "nan"):
        raise SemanticError(f"{what}: padding_option must be 'zero' or 'nan', got "
                            f"{padding_option!r}")
    if padding_option == "nan" and not element.is_floating():
        raise SemanticError(f"{what}: padding_option='nan' needs a floating-point tensor, not "
                            f"{element}")
    return base, shape, strides, tuple(int(s) for s in block_shape), padding_option


def check_descriptor_access(desc, offsets, op: str) -> tuple:
    desc = unwrap(desc)
    if not isinstance(desc, tensor_descriptor):
        raise SemanticError(f"{op} needs a tensor descriptor (tl.make_tensor_descriptor), got "
                            f"{desc!r}")
    offsets = sequence(offsets, "offsets", op)
    if len(offsets) != len(desc.block_shape):
        raise SemanticError(f"{op}: {len(offsets)} offsets for a descriptor of rank "
                            f"{len(desc.block_shape)}")
    return desc, offsets
