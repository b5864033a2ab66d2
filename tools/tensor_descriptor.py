"""Host tensor descriptors (Triton's `triton.tools.tensor_descriptor`): a tensor's base, shape,
strides and the block shape a kernel reads it in, passed to a kernel as one argument.

    desc = TensorDescriptor.from_tensor(x, [64, 64])
    kernel[grid](desc, ...)          # in the kernel: desc.load([m, n]), desc.store([m, n], v)

The kernel receives the base pointer and each size and stride as arguments of their own, the
block shape and padding as compile-time values (runtime.py's "descriptor" specialiser), and
rebuilds the same tensor descriptor `tl.make_tensor_descriptor` makes in a kernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tilec.runtime import pointer_dtype_name

MAX_RANK = 5
MAX_BLOCK = 256


def _element_bytes(base) -> int:
    if hasattr(base, "element_size"):
        return base.element_size()
    return base.dtype.itemsize


def _strides(tensor) -> list[int]:
    """Strides in elements (torch's `stride()`, NumPy's and CuPy's byte strides divided)."""
    if callable(getattr(tensor, "stride", None)):
        return [int(s) for s in tensor.stride()]
    return [int(s) // tensor.dtype.itemsize for s in tensor.strides]


@dataclass
class TensorDescriptor:
    base: Any
    shape: list[int]
    strides: list[int]
    block_shape: list[int]
    padding: str = field(default="zero")

    def __post_init__(self):
        self.shape, self.strides = [int(s) for s in self.shape], [int(s) for s in self.strides]
        self.block_shape = [int(b) for b in self.block_shape]
        rank = len(self.block_shape)
        if not 1 <= rank <= MAX_RANK or not len(self.shape) == len(self.strides) == rank:
            raise ValueError(f"TensorDescriptor: shape, strides and block_shape need one entry "
                             f"per dimension, 1 to {MAX_RANK}; got {self.shape}, {self.strides}, "
                             f"{self.block_shape}")
        if self.strides[-1] != 1:
            raise ValueError(f"TensorDescriptor: the last dimension must be contiguous (stride "
                             f"1), got strides {self.strides}")
        if any(b <= 0 or b & (b - 1) or b > MAX_BLOCK for b in self.block_shape):
            raise ValueError(f"TensorDescriptor: block_shape must hold powers of two up to "
                             f"{MAX_BLOCK}, got {self.block_shape}")
        width = _element_bytes(self.base)
        if self.block_shape[-1] * width < 16:
            raise ValueError(f"Descriptor block shape must have at least 16 bytes in the last "
                             f"dimension: {self.block_shape[-1]} elements of {width} bytes")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding must be 'zero' or 'nan', got "
                             f"{self.padding!r}")
        pointer_dtype_name(self.base)  # an array of a type kernels take

    @staticmethod
    def from_tensor(tensor, block_shape, padding: str = "zero") -> "TensorDescriptor":
        return TensorDescriptor(tensor, list(tensor.shape), _strides(tensor), list(block_shape),
                                padding)

    def tilec_descriptor_parts(self) -> tuple:
        """What a kernel receives: base, sizes, strides (run-time), block shape, padding."""
        return (self.base, *self.shape, *self.strides, tuple(self.block_shape), self.padding)
