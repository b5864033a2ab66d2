"""Interpreter values: a NumPy array plus its tilec type (and an int32-overflow record).

`Block` is the NumPy builder's tensor: what `tl` operations return while a kernel is
interpreted. Its operators are the semantic layer's (promotion, C-style division, wrap-around),
as the frontend's are for compiled tensors, so kernels run unchanged.
Pointers are arrays of uint64 host addresses.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from tilec.language import TENSOR_METHODS, semantic, shapes
from tilec.language import dtypes as T
from tilec.language.core import BoundMethod, SemanticError, tensor
from tilec.language.dtypes import dtype

_NUMPY = {
    "int1": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
    "float64": np.float64, "float8e4nv": ml_dtypes.float8_e4m3fn,
    "float8e5": ml_dtypes.float8_e5m2,
    "float8e4b15": np.uint8,  # its bytes (the semantic layer converts them)
}


def numpy_dtype(ty: dtype):
    ty = ty.scalar
    if ty.is_ptr():
        return np.uint64
    return np.dtype(_NUMPY[ty.check_supported().name])


def tilec_dtype(np_dtype) -> dtype:
    name = np.dtype(np_dtype).name
    if name == "bool":
        return T.int1
    for key, value in _NUMPY.items():
        if np.dtype(value).name == name:
            return T.dtype(key)
    raise TypeError(f"no tilec type for NumPy dtype {name}")


class Block(tensor):
    """An interpreted value: `data` (a NumPy array, 0-d for scalars) of tilec type `dtype`.

    `overflow` marks the elements whose value went through a signed 32-bit integer operation
    that overflowed (None when none did): pointers built from them are reported at access.
    `provenance` names the argument buffer a pointer was derived from.
    """

    def __init__(self, data, elem: dtype, overflow=None, provenance=None):
        self.data = np.asarray(data, dtype=numpy_dtype(elem))
        if self.data.size > T.MAX_NUMEL:  # as the compiler's block types
            T.check_numel(self.data.shape)
        self.elem = elem.scalar
        self.overflow = overflow if overflow is None or overflow.any() else None
        self.provenance = provenance

    # --- what kernels ask of a value ---
    @property
    def dtype(self) -> dtype:
        return self.elem

    @property
    def shape(self) -> list[int]:
        return list(self.data.shape)

    @property
    def type(self) -> dtype:
        return T.block_type(self.elem, self.data.shape) if self.data.shape else self.elem

    @property
    def numel(self) -> int:
        return int(self.data.size)

    def is_block(self) -> bool:
        return self.data.ndim > 0

    def __repr__(self) -> str:
        return f"Block({self.data!r}, {self.elem})"

    def __str__(self) -> str:
        return str(self.data)

    # --- Python control flow on scalars ---
    def _scalar(self, what: str):
        if self.data.ndim:
            raise SemanticError(f"{what} of a block of shape {self.shape} is ambiguous: reduce "
                                "it first (e.g. tl.max(x, 0)), or use & and | on masks")
        return self.data.item()

    def __bool__(self):
        return bool(self._scalar("the truth value"))

    def __index__(self):
        if not self.elem.is_int():
            raise SemanticError(f"a {self.elem} value cannot be used as an integer index")
        return int(self._scalar("the integer value"))

    def __int__(self):
        return int(self._scalar("the integer value"))

    def __float__(self):
        return float(self._scalar("the float value"))

    def __hash__(self):
        return id(self)

    # --- operators: the semantic layer's, on the NumPy builder ---
    def __add__(self, other): return semantic.binary("+", self, other)
    def __radd__(self, other): return semantic.binary("+", other, self)
    def __sub__(self, other): return semantic.binary("-", self, other)
    def __rsub__(self, other): return semantic.binary("-", other, self)
    def __mul__(self, other): return semantic.binary("*", self, other)
    def __rmul__(self, other): return semantic.binary("*", other, self)
    def __truediv__(self, other): return semantic.truediv(self, other)
    def __rtruediv__(self, other): return semantic.truediv(other, self)
    def __floordiv__(self, other): return semantic.binary("//", self, other)
    def __rfloordiv__(self, other): return semantic.binary("//", other, self)
    def __mod__(self, other): return semantic.binary("%", self, other)
    def __rmod__(self, other): return semantic.binary("%", other, self)
    def __lshift__(self, other): return semantic.binary("<<", self, other)
    def __rlshift__(self, other): return semantic.binary("<<", other, self)
    def __rshift__(self, other): return semantic.binary(">>", self, other)
    def __rrshift__(self, other): return semantic.binary(">>", other, self)
    def __and__(self, other): return semantic.binary("&", self, other)
    def __rand__(self, other): return semantic.binary("&", other, self)
    def __or__(self, other): return semantic.binary("|", self, other)
    def __ror__(self, other): return semantic.binary("|", other, self)
    def __xor__(self, other): return semantic.binary("^", self, other)
    def __rxor__(self, other): return semantic.binary("^", other, self)
    def __pow__(self, other): raise SemanticError(semantic.POW_OF_TENSORS)
    def __rpow__(self, other): raise SemanticError(semantic.POW_OF_TENSORS)
    def __neg__(self): return semantic.negate(self)
    def __pos__(self): return self
    def __invert__(self): return semantic.invert(self)
    def __eq__(self, other): return semantic.compare("==", self, other)
    def __ne__(self, other): return semantic.compare("!=", self, other)
    def __lt__(self, other): return semantic.compare("<", self, other)
    def __le__(self, other): return semantic.compare("<=", self, other)
    def __gt__(self, other): return semantic.compare(">", self, other)
    def __ge__(self, other): return semantic.compare(">=", self, other)

    def __getitem__(self, index):
        return shapes.subscript(self, index)

    def __getattr__(self, name):
        if name == "T":
            return shapes.trans(self)
        if name in TENSOR_METHODS:  # the frontend's bound method: calls check it the same way
            return BoundMethod(TENSOR_METHODS[name], self)
        raise AttributeError(f"tensors have no attribute '{name}'")

    def __iter__(self):
        raise SemanticError("blocks cannot be iterated over in kernels; use tl.static_range "
                            "over indices or block operations")
