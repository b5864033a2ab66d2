"""From a launch's arguments to `cuLaunchKernel`: specialisation, grids and launchers.

Every launch, the first and the warm ones, goes one way:

- Each argument is specialised by the specialiser of its kind (`SPECIALISERS`, chosen once per
  Python type): it gives the argument's part of the compile key, `("constexpr", value)` for a
  value folded into the kernel or `(type name, divisible by 16)`, and the value the kernel
  receives (an address, an integer, a float).
- `normalise_grid` turns a grid (an int, a tuple or list of 1-3 ints, or a function of the
  arguments returning one) into the driver's three dimensions, in one place.
- A compiled kernel's `Launcher` loads its cubin once per device and owns the buffer its
  arguments are packed into: one slot per parameter, laid out by the slot table `SLOTS` (a new
  parameter kind is one row there and, where it needs one, one specialiser).

`tilec._launch` (a C extension, built at install where a C compiler is present) is the same path
for the kinds launches mostly pass (Python ints, bools and floats, torch tensors, CuPy arrays):
it computes a warm key from the arguments, finds the launcher a first launch registered for it,
packs the arguments on its own stack and calls `cuLaunchKernel`. Anything it does not know takes
the Python path (tilec/launch.py), which is complete on its own: without the extension (no
compiler at install, or TILEC_NATIVE_LAUNCH=0) every launch takes it.

`driver` is the runtime API Triton's programs call around their kernels
(`tilec.runtime.driver.active.utils.get_device_properties(device)`, `get_current_target()`,
`get_active_torch_device()`, ...).
"""
from __future__ import annotations

import ctypes
import operator
import os
import struct
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from tilec import tma
from tilec.errors import BackendUnavailable, LaunchError, integer_text
from tilec.language.core import unwrap
from tilec.language.dtypes import dtype

try:  # the native launch path; optional (see the module docstring)
    from tilec import _launch as native
except ImportError:  # no C compiler when tilec was installed: the Python path does everything
    native = None

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
STATIC_SHARED_LIMIT = 48 * 1024
GRID_LIMITS = (2**31 - 1, 65535, 65535)


# --- specialisation -----------------------------------------------------------------------------

_ARRAY_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",  # torch's and ml_dtypes' names
}


_DTYPE_NAMES: dict = {}  # dtype object -> signature name (str() of a NumPy dtype is slow)


def pointer_dtype_name(array) -> str:
    """Signature name of the element type of a torch/CuPy/NumPy array (or NumPy scalar)."""
    dt = array.dtype
    try:
        return _DTYPE_NAMES[dt]
    except (KeyError, TypeError):
        pass
    if isinstance(dt, dtype):  # a TensorWrapper's
        return dt.codegen_name()
    name = str(dt).replace("torch.", "")
    if name not in _ARRAY_DTYPES:
        raise TypeError(f"arrays of {dt} cannot be passed to kernels")
    try:
        _DTYPE_NAMES[dt] = _ARRAY_DTYPES[name]
    except TypeError:  # an unhashable dtype object
        pass
    return _ARRAY_DTYPES[name]


class TensorWrapper:
    """An array whose elements a kernel reads as another dtype of the same size (what
    `tilec.reinterpret(array, dtype)` makes, Triton's `triton.reinterpret`): passed to a kernel,
    it is a pointer of type `*dtype` to the array's memory. Shape, strides and device are the
    array's; `base` is the array."""

    def __init__(self, base, dtype_: dtype):
        self.base = base
        self.dtype = dtype_

    @property
    def shape(self) -> tuple:
        return tuple(self.base.shape)

    @property
    def is_cuda(self) -> bool:
        return bool(getattr(self.base, "is_cuda", not isinstance(self.base, np.ndarray)))

    def data_ptr(self) -> int:
        return data_pointer(self.base)

    def element_size(self) -> int:
        return _itemsize(self.base)

    def stride(self, dim: int | None = None):
        base = self.base
        strides = (tuple(base.stride()) if callable(getattr(base, "stride", None)) else
                   tuple(s // base.itemsize for s in base.strides))
        return strides if dim is None else strides[dim]

    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __getattr__(self, name):  # device, is_pinned, ndim, ...: the array's
        if name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)

    def _rewrap(self, base) -> "TensorWrapper":
        return TensorWrapper(base, self.dtype)

    def to(self, *args, **kwargs) -> "TensorWrapper":
        return self._rewrap(self.base.to(*args, **kwargs))

    def cpu(self) -> "TensorWrapper":
        return self._rewrap(self.base.cpu())

    def clone(self) -> "TensorWrapper":
        return self._rewrap(self.base.clone() if hasattr(self.base, "clone") else self.base.copy())

    def copy_(self, other) -> "TensorWrapper":
        self.base.copy_(other.base if isinstance(other, TensorWrapper) else other)
        return self

    def __repr__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base!r})"


def _itemsize(array) -> int:
    if hasattr(array, "element_size"):  # torch
        return array.element_size()
    return np.dtype(array.dtype).itemsize


def reinterpret(array, dtype_: dtype):
    """`array`'s memory, read by kernels as elements of `dtype_` (of the same size: an int8
    tensor as float8, an int16 one as float16). Reinterpreting a wrapper as its array's own
    dtype gives the array back."""
    if not isinstance(dtype_, dtype) or dtype_.is_ptr() or dtype_.is_block():
        raise TypeError(f"reinterpret: expected a scalar tl dtype, got {dtype_!r}")
    if isinstance(array, TensorWrapper):
        array = array.base
    if not (hasattr(array, "shape") and hasattr(array, "dtype")):
        raise TypeError(f"reinterpret: expected an array or tensor, got {type(array).__name__}")
    itemsize, size = _itemsize(array), max(dtype_.primitive_bitwidth // 8, 1)
    if itemsize != size:
        raise TypeError(f"reinterpret: an array of {itemsize}-byte elements ({array.dtype}) "
                        f"cannot be read as {dtype_} ({size} byte{'s' if size > 1 else ''})")
    try:
        if pointer_dtype_name(array) == dtype_.codegen_name():
            return array
    except TypeError:  # the array's own dtype is not a kernel type (float8 bytes, say)
        pass
    return TensorWrapper(array, dtype_)


_ALLOCATOR: list = [None]


def set_allocator(allocator) -> None:
    """Triton's `set_allocator(fn)`: `fn(size, alignment, stream)` gives global scratch memory
    (an object with `data_ptr()`, a CuPy array, or an address) to kernels that need it: on
    sm_90 a kernel making tensor descriptors (`tl.make_tensor_descriptor`) writes their TMA
    maps there, 256 bytes a map and program, asked for at every launch on the launch's
    stream. Without an allocator tilec takes the memory from torch's caching allocator when
    torch tensors are passed, else from CuPy's pool (Triton requires one)."""
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator takes a function (size, alignment, stream) -> buffer, "
                        f"got {type(allocator).__name__}")
    _ALLOCATOR[0] = allocator


def data_pointer(value) -> int:
    """The address of a CuPy array, torch tensor, __cuda_array_interface__/DLPack object, or
    (for the interpreter and specialisation only) a NumPy array."""
    if isinstance(value, np.ndarray):  # its .data is a memoryview, which bf16 arrays refuse
        return value.__array_interface__["data"][0]
    data = getattr(value, "data", None)
    ptr = getattr(data, "ptr", None)  # CuPy
    if ptr is not None:
        return ptr
    if hasattr(value, "data_ptr"):  # torch
        return value.data_ptr()
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return interface["data"][0]
    host = getattr(value, "__array_interface__", None)
    if host is not None:
        return host["data"][0]
    if hasattr(value, "__dlpack__"):
        import cupy  # only DLPack-only arrays need it; CuPy is heavy to import
        return cupy.from_dlpack(value).data.ptr
    raise TypeError(f"cannot pass {type(value).__name__} to a GPU kernel: expected a CuPy array, "
                    "a torch CUDA tensor, or an object with __cuda_array_interface__ or DLPack")


def _integer_type(value: int) -> str:
    if -2**31 <= value < 2**31:
        return "i32"
    if -2**63 <= value < 2**63:
        return "i64"
    if 0 <= value < 2**64:
        return "u64"
    raise OverflowError(f"integer argument {integer_text(value)} does not fit in 64 bits")


def _integer(value: int, specialize: bool, ty: str | None = None) -> tuple:
    if specialize and value == 1:
        return ("constexpr", 1)
    return (ty or _integer_type(value), specialize and value % 16 == 0)


def _specialize_numpy_scalar(value, specialize: bool) -> tuple:
    ty = pointer_dtype_name(value)
    if ty.startswith(("i", "u")) and ty != "i1":
        return _integer(int(value), specialize, ty)
    return (ty, False)


def _specialize_array(value, specialize: bool) -> tuple:
    return ("*" + pointer_dtype_name(value), specialize and data_pointer(value) % 16 == 0)


@dataclass(frozen=True)
class Specialiser:
    """One kind of argument: its part of the compile key (`key(value, specialize)`) and what is
    packed for the kernel (`value(argument)`)."""
    kind: str
    key: Callable[[Any, bool], tuple]
    value: Callable[[Any], Any]


def _specialize_tuple(value: tuple, specialize: bool) -> tuple:
    return ("tuple", tuple(specialize_argument(v, specialize) for v in value))


def _specialize_descriptor(value, specialize: bool) -> tuple:
    """A host tensor descriptor (tilec.tools.tensor_descriptor): its base and each size and
    stride an argument of its own, its block shape and padding compile-time."""
    *runtime_parts, block_shape, padding = value.tilec_descriptor_parts()
    return ("descriptor", (*(specialize_argument(v, specialize) for v in runtime_parts),
                           ("constexpr", tuple(block_shape)), ("constexpr", padding)))


SPECIALISERS = {
    "bool": Specialiser("bool", lambda v, s: ("i1", False), bool),
    "int": Specialiser("int", lambda v, s: _integer(v, s), int),
    "float": Specialiser("float", lambda v, s: ("fp32", False), float),
    "numpy scalar": Specialiser("numpy scalar", _specialize_numpy_scalar, lambda v: v.item()),
    "array": Specialiser("array", _specialize_array, data_pointer),
    "constant": Specialiser("constant", lambda v, s: ("constexpr", v), lambda v: None),
    # a tuple is its elements (nested tuples too), each specialised as an argument of its own
    "tuple": Specialiser("tuple", _specialize_tuple, lambda v: v),
    "descriptor": Specialiser("descriptor", _specialize_descriptor, lambda v: v),
}

_BY_TYPE: dict[type, Specialiser] = {}


def specialiser_for(value) -> Specialiser:
    """The specialiser of `value`'s kind, found once per Python type."""
    t = type(value)
    found = _BY_TYPE.get(t)
    if found is None:
        found = _BY_TYPE[t] = SPECIALISERS[_kind_of(t, value)]
    return found


def _kind_of(t: type, value) -> str:
    if issubclass(t, bool):
        return "bool"
    if issubclass(t, int):
        return "int"
    if issubclass(t, float):
        return "float"
    if issubclass(t, np.generic):  # np.int32(5), np.float16(1): scalars of their type
        return "numpy scalar"
    if value is None or issubclass(t, (str, dtype)):
        return "constant"
    if issubclass(t, tuple):
        return "tuple"
    if hasattr(t, "tilec_descriptor_parts"):
        return "descriptor"
    # A 0-d torch tensor or CuPy array is an array: the kernel gets its address.
    if any(hasattr(value, a) for a in ("data_ptr", "__cuda_array_interface__",
                                       "__array_interface__", "__dlpack__")) or \
            getattr(getattr(value, "data", None), "ptr", None) is not None:
        return "array"
    raise TypeError(f"kernel arguments must be numbers, arrays or tl.constexpr values, got "
                    f"{t.__name__}")


def specialize_argument(value, specialize: bool = True) -> tuple:
    """The compile-key part of one runtime argument: ("constexpr", value) when it is folded into
    the kernel, else (type name, divisible by 16)."""
    return specialiser_for(value).key(value, specialize)


def leaves(name: str, key: tuple, value=None) -> list[tuple[str, tuple, Any]]:
    """(name, key, value) of each element of an argument, a tuple's elements (recursively) and
    a tensor descriptor's parts named `name.0`, `name.1`, ... in order: what the compiled kernel takes as parameters (the
    constexpr ones folded). `value` None: the keys only."""
    kind, parts = key
    if kind not in ("tuple", "descriptor"):
        return [(name, key, value)]
    values = ([None] * len(parts) if value is None else
              value.tilec_descriptor_parts() if kind == "descriptor" else value)
    return [leaf for i, (k, v) in enumerate(zip(parts, values))
            for leaf in leaves(f"{name}.{i}", k, v)]


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """The inverse of `leaves` over a scope: `name.0`, `name.1`, ... gathered into the tuple
    `name` (nested tuples from deeper names); other names kept."""
    out: dict[str, Any] = {}
    parts: dict[str, dict] = {}
    for name, value in flat.items():
        head, dot, rest = name.partition(".")
        if dot:
            parts.setdefault(head, {})[rest] = value
        else:
            out[name] = value
    for head, sub in parts.items():
        inner = nest(sub)
        out[head] = tuple(inner[str(i)] for i in range(len(inner)))
    return out


def _hashable(value):
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def specialization(fn, bound: dict[str, Any]) -> tuple:
    """The compile key of a launch of the JITFunction `fn` with arguments `bound`: per
    parameter, its constexpr value or its runtime argument's specialisation."""
    key = []
    for p in fn.params:
        value = bound[p.name]
        if p.is_constexpr:
            key.append(("constexpr", _hashable(value)))
        else:
            key.append(specialize_argument(value, p.name not in fn.do_not_specialize))
    return tuple(key)


# --- grids ----------------------------------------------------------------------------------------

def normalise_grid(grid, bound: dict[str, Any]) -> tuple[int, int, int]:
    """The driver's (x, y, z) of `grid`: an int, a tuple or list of 1 to 3 ints, or a function
    of the dict of the launch's arguments that returns one. A dimension may be 0 (the launch
    then does nothing, as in Triton)."""
    if type(grid) is tuple and 1 <= len(grid) <= 3 and all(
            type(g) is int and 0 <= g <= limit for g, limit in zip(grid, GRID_LIMITS)):
        return grid + (1,) * (3 - len(grid))  # the common case, checked as the general one
    if callable(grid):
        grid = grid(dict(bound))
    grid = unwrap(grid)
    if not isinstance(grid, (tuple, list)):
        grid = (grid,)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, got {tuple(grid)}")
    try:
        dims = [operator.index(unwrap(g)) for g in grid]
    except TypeError:
        raise TypeError(f"grid dimensions must be integers, got {tuple(grid)}") from None
    dims += [1] * (3 - len(dims))
    for axis, (size, limit) in enumerate(zip(dims, GRID_LIMITS)):
        if not 0 <= size <= limit:
            raise ValueError(f"grid dimension {axis} is {size}: it must be between 0 and {limit}")
    return tuple(dims)


# --- argument slots -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    """How one kernel parameter's value lies in the argument buffer: its size and alignment in
    bytes, its struct format (the Python path packs with it) and its code in the C launcher
    (None where the C path does not pack it; such kernels then launch through the Python path)."""
    size: int
    align: int
    format: str
    native: int | None
    convert: Callable[[Any], Any] = lambda v: v


def _bf16_bits(value) -> int:
    return int(np.asarray(value, dtype=np.float32).view(np.uint32)) >> 16


# The C launcher's codes are the same numbers (tilec/_launch.c, enum slot).
SLOTS = {
    "i1": Slot(1, 1, "?", 1), "i8": Slot(1, 1, "b", None), "i16": Slot(2, 2, "h", None),
    "i32": Slot(4, 4, "i", 2), "i64": Slot(8, 8, "q", 3), "u8": Slot(1, 1, "B", None),
    "u16": Slot(2, 2, "H", None), "u32": Slot(4, 4, "I", None), "u64": Slot(8, 8, "Q", 3),
    "fp16": Slot(2, 2, "e", None), "bf16": Slot(2, 2, "H", None, _bf16_bits),
    "fp32": Slot(4, 4, "f", 4), "fp64": Slot(8, 8, "d", 5), "pointer": Slot(8, 8, "Q", 6),
    # a TMA map (CUtensorMap), passed by value: 128 bytes on a 64-byte boundary
    "tensormap": Slot(tma.MAP_BYTES, tma.MAP_ALIGN, f"{tma.MAP_BYTES}s", 7),
}


def slot_of(type_name: str) -> Slot:
    slot = SLOTS.get("pointer" if type_name.startswith("*") else type_name)
    if slot is None:
        raise TypeError(f"kernel parameters of type {type_name} are not supported yet")
    return slot


class ArgumentBuffer:
    """The packed arguments of one kernel: each parameter's slot at an offset aligned for it,
    and the array of slot addresses the driver reads (`params`). Owned by the Launcher: the
    buffer lives exactly as long as the kernel that is launched with it."""

    def __init__(self, type_names: list[str]):
        self.slots = [slot_of(t) for t in type_names]
        offsets, fmt, end = [], "<", 0
        for slot in self.slots:
            start = -(-end // slot.align) * slot.align
            fmt += f"{start - end}x" if start > end else ""
            fmt += slot.format
            offsets.append(start)
            end = start + slot.size
        self._struct = struct.Struct(fmt)
        self._memory = ctypes.create_string_buffer(max(end, 8) + 64)
        base = ctypes.addressof(self._memory)
        base += -base % 64  # 64-byte aligned, as 128-byte by-value parameters will need
        self._base = base
        self._view = (ctypes.c_char * max(end, 8)).from_address(base)
        self._addresses = (ctypes.c_void_p * max(len(offsets), 1))(*[base + o for o in offsets])
        self.params = ctypes.addressof(self._addresses)
        self._converts = [slot.convert for slot in self.slots]

    def pack(self, values: list) -> None:
        self._struct.pack_into(self._view, 0, *[c(v) for c, v in zip(self._converts, values)])


# --- TMA maps among the parameters ---------------------------------------------------------------

@dataclass(frozen=True)
class TensorMapSource:
    """A kernel parameter that is a TMA map (tilec.tma) of a host tensor descriptor: made at
    launch from the descriptor's base, sizes and strides, which the kernel also takes as
    parameters. `base` is the index of the base pointer among the kernel's parameters; each
    size and stride is ("p", index) or ("c", value) (a value specialised into the kernel);
    `box` and `swizzle` are what the kernel's copies expect. The compiler lists these in the
    kernel's metadata["tensormaps"]."""
    param: int
    element: str
    base: int
    shape: tuple
    strides: tuple
    box: tuple
    swizzle: int
    padding: str

    @classmethod
    def from_metadata(cls, entry: dict) -> "TensorMapSource":
        def parts(values):
            return tuple((kind, int(v)) for kind, v in values)
        return cls(int(entry["param"]), entry["element"], int(entry["base"]),
                   parts(entry["shape"]), parts(entry["strides"]),
                   tuple(int(b) for b in entry["box"]), int(entry["swizzle"]), entry["padding"])

    def inputs(self) -> tuple[int, ...]:
        """The parameters the map is made from: the base, then each size and stride passed."""
        return (self.base, *(v for kind, v in self.shape + self.strides if kind == "p"))

    def encode(self, *inputs) -> bytes:
        """The map for the values of `inputs()`, in that order."""
        base, rest = inputs[0], iter(inputs[1:])
        shape = [next(rest) if kind == "p" else v for kind, v in self.shape]
        strides = [next(rest) if kind == "p" else v for kind, v in self.strides]
        return DRIVER.tensor_map(self.element, base, shape, strides, self.box, self.swizzle,
                                 self.padding)


def with_tensor_maps(maps: list[TensorMapSource], values: list) -> list:
    """The kernel's parameter values: `values` (every parameter but the maps, in order) with
    each map made from them and put in its place."""
    out = list(values)
    for source in maps:  # in parameter order: each lands where the kernel expects it
        out.insert(source.param, None)
    for source in maps:
        made = source.encode(*(out[i] for i in source.inputs()))
        if type(made) is not bytes:  # (the C launcher's checks, the same errors)
            raise TypeError(f"a TMA map is {tma.MAP_BYTES} bytes, got {type(made).__name__}")
        if len(made) != tma.MAP_BYTES:
            raise ValueError(f"a TMA map is {tma.MAP_BYTES} bytes, got {len(made)}")
        out[source.param] = made
    return out


# --- the driver -----------------------------------------------------------------------------------

class Driver:
    """What the Python path asks of CUDA, through CuPy (imported on first use: it is heavy).
    Tests put a fake in `DRIVER` to run launches on a machine without a GPU."""

    def __init__(self):
        self._cupy = None
        self._cuda = None

    @property
    def cupy(self):
        if self._cupy is None:
            import cupy
            self._cupy = cupy
        return self._cupy

    def launch(self, function: int, grid, block: int, shared: int, stream: int,
               params: int, cooperative: bool = False) -> None:
        if cooperative:  # every program resident at once, or the driver refuses the launch
            code = self._libcuda().cuLaunchCooperativeKernel(
                ctypes.c_void_p(function), *(ctypes.c_uint(g) for g in grid),
                ctypes.c_uint(block), ctypes.c_uint(1), ctypes.c_uint(1), ctypes.c_uint(shared),
                ctypes.c_void_p(stream), ctypes.c_void_p(params))
            if code:
                raise LaunchError(f"cuLaunchCooperativeKernel failed with CUDA error {code} "
                                  "(a grid larger than the GPU holds at once is refused: "
                                  "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE is 720)")
            return
        self.cupy.cuda.driver.launchKernel(function, grid[0], grid[1], grid[2], block, 1, 1,
                                           shared, stream, params, 0)

    def _libcuda(self):
        """The CUDA driver library, for the calls CuPy does not wrap."""
        if self._cuda is None:
            self._cuda = ctypes.CDLL("libcuda.so.1")
        return self._cuda

    def current_device(self) -> int:
        return self.cupy.cuda.runtime.getDevice()

    def tensor_map(self, element: str, address: int, shape, strides, box, swizzle: int,
                   padding: str) -> bytes:
        """A TMA map, encoded by the driver (tilec.tma.tensor_map: cached, so a warm launch
        pays a dict lookup)."""
        return tma.tensor_map(self._libcuda(), element, address, shape, strides, box, swizzle,
                              padding)

    def current_context(self) -> int:
        return self.cupy.cuda.driver.ctxGetCurrent()

    def scratch(self, nbytes: int, torch_arrays: bool, device: int, stream: int):
        """`nbytes` of global memory for one launch on `stream` when no allocator was set
        (see set_allocator): the object holding it, which the launch keeps until the kernel is
        queued (freeing it then is ordered after the kernel on that stream, by both pools)."""
        if torch_arrays:
            import torch
            return torch.empty(nbytes, dtype=torch.uint8, device=f"cuda:{device}")
        return self.cupy.empty(nbytes, dtype=np.uint8)

    def load(self, cubin: bytes, name: str, shared: int, device: int):
        """(the module, which must stay loaded, and the CUfunction) of `cubin` on `device`."""
        cupy = self.cupy
        with cupy.cuda.Device(device):
            module = cupy.cuda.function.Module()
            module.load(cubin)
            function = module.get_function(name)
            if shared > STATIC_SHARED_LIMIT:
                cupy.cuda.driver.funcSetAttribute(
                    function.ptr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
        return (module, function), function.ptr

    def stream(self, torch_arrays: bool, device: int) -> int:
        """The caller's current stream on `device`: torch's when torch tensors are passed."""
        if torch_arrays:
            import torch
            return torch.cuda.current_stream(device).cuda_stream
        return self.cupy.cuda.get_current_stream().ptr

    def native_functions(self) -> dict[str, int]:
        """The addresses of the driver functions the C launcher calls."""
        libcuda = self._libcuda()
        return {name: ctypes.cast(getattr(libcuda, name), ctypes.c_void_p).value
                for name in ("cuLaunchKernel", "cuCtxGetCurrent", "cuGetErrorName")}


DRIVER = Driver()


class Launcher:
    """A compiled kernel as the driver launches it: loaded once per device, its arguments
    packed into the buffer it owns. `arguments` are the JITFunction's runtime arguments in
    parameter order; `kept` are the positions among them the compiled kernel takes (an integer
    specialised as 1 is folded into the kernel, so not passed)."""

    def __init__(self, kernel, kept: list[int]):
        self.kernel = kernel
        self.name = kernel.name
        # warp-specialised kernels add producer warps to num_warps
        self.block = (kernel.options.num_warps + kernel.metadata.get("producer_warps", 0)) * 32
        # a program is a cluster of this many CTAs along x (its kernel says so to the driver:
        # .reqnctapercluster), so the launch has that many times the grid's x CTAs
        self.ctas = kernel.metadata.get("num_ctas", 1)
        self.shared = kernel.metadata.get("shared", 0)
        self.type_names = [p.type.codegen_name() for p in kernel.params]
        self.kept = kept
        self.maps = [TensorMapSource.from_metadata(m)
                     for m in kernel.metadata.get("tensormaps", ())]
        # bytes of global scratch a program writes (TMA maps made in the kernel): the kernel
        # then takes a pointer to scratch for the whole grid as its last parameter
        self.scratch = kernel.metadata.get("global_scratch", 0)
        self.buffer = ArgumentBuffer(self.type_names + ["pointer"] * bool(self.scratch))
        self._lock = threading.Lock()  # one launch packs the buffer at a time
        self._loaded: dict[int, tuple] = {}  # device -> (keep-alive, CUfunction)
        self._native = None

    def native(self):
        """The C launcher of this kernel (made on first use), or None where the C path cannot
        pack its parameters or has no driver. It makes each TMA map as `run` does, calling
        its source's `encode` only when the map's inputs differ from the last launch's."""
        if self._native is not None or not native_ready():
            return self._native
        # the global scratch, a pointer passed last, has the kept index -2: the C path asks
        # _scratch for it
        slots = [slot_of(t).native for t in self.type_names + ["pointer"] * bool(self.scratch)]
        if None not in slots:
            self._native = native.Launcher(self.block, self.shared, slots,
                                           self.kept + [-2] * bool(self.scratch),
                                           self._load_current, self.kernel,
                                           [self._native_map(m) for m in self.maps],
                                           self._scratch if self.scratch else None, self.ctas)
        return self._native

    def _scratch(self, programs: int, torch_arrays: bool, device: int, stream: int):
        """(holder, address) of the global scratch of a launch of `programs` CTAs (programs
        times num_ctas: each CTA has its slots): from
        the allocator set with set_allocator, else from the pool of the stream it launches
        on; the holder must live until the kernel is queued (both paths keep it so)."""
        nbytes = self.scratch * programs
        allocator = _ALLOCATOR[0]
        holder = (allocator(nbytes, tma.DEVICE_MAP_ALIGN, stream) if allocator is not None
                  else DRIVER.scratch(nbytes, torch_arrays, device, stream))
        return holder, scratch_address(self.name, holder)

    def _native_map(self, source: TensorMapSource) -> tuple:
        """(param, inputs, encode) of one map, for the C launcher. It passes a u64 parameter
        as the signed value of its bits (u64 and i64 share a slot): encode gets it back."""
        inputs = source.inputs()
        unsigned = [self.type_names[i] == "u64" for i in inputs]
        if not any(unsigned):
            return source.param, inputs, source.encode

        def encode(*values):
            return source.encode(*(v & (2**64 - 1) if u else v
                                   for v, u in zip(values, unsigned)))
        return source.param, inputs, encode

    def function(self, device: int) -> int:
        loaded = self._loaded.get(device)
        if loaded is None:
            loaded = self._loaded[device] = DRIVER.load(self.kernel.asm["cubin"], self.name,
                                                        self.shared, device)
        return loaded[1]

    def _load_current(self) -> tuple[int, int, int]:
        """For the C launcher: (current context, CUfunction, device) on the current device."""
        device = DRIVER.current_device()
        function = self.function(device)
        return DRIVER.current_context(), function, device

    def run(self, grid: tuple[int, int, int], arguments: list, cooperative: bool = False) -> bool:
        """Launch over `grid` with the JITFunction's runtime `arguments`, on the current device
        and the caller's current stream (torch's when torch tensors are passed, else CuPy's);
        returns whether torch's stream was used. A grid with a 0 launches nothing.
        `cooperative`: all programs resident at once (cuLaunchCooperativeKernel)."""
        values, torch_arrays = [], False
        for i in self.kept:
            value = arguments[i]
            specialiser = specialiser_for(value)
            if specialiser.kind == "array":
                check_device_array(self.name, value)
                torch_arrays = torch_arrays or type(value).__module__.startswith("torch")
            values.append(specialiser.value(value))
        if 0 in grid:
            return torch_arrays
        grid = cta_grid(self.name, grid, self.ctas)
        if self.maps:
            values = with_tensor_maps(self.maps, values)
        try:
            device = DRIVER.current_device()
            function = self.function(device)
            stream = DRIVER.stream(torch_arrays, device)
        except Exception as err:  # CuPy's errors when there is no driver or no device
            if type(err).__module__.startswith("cupy") or isinstance(err, (ImportError, OSError)):
                raise BackendUnavailable(
                    f"cannot launch {self.name} on a GPU ({err}); set TILEC_INTERPRET=1 to run "
                    "it on the CPU") from err
            raise
        scratch = None  # (holder, address), held until the kernel is queued
        if self.scratch:
            scratch = self._scratch(grid[0] * grid[1] * grid[2], torch_arrays, device, stream)
            values.append(scratch[1])
        with self._lock:
            self.buffer.pack(values)
            try:
                DRIVER.launch(function, grid, self.block, self.shared, stream,
                              self.buffer.params, cooperative)
            except Exception as err:
                if type(err).__name__ != "CUDADriverError":
                    raise
                raise LaunchError(f"cuLaunchKernel of {self.name} failed: {err}") from err
        return torch_arrays


def cta_grid(name: str, grid: tuple[int, int, int], ctas: int) -> tuple[int, int, int]:
    """The CTAs a launch of `grid` programs makes, each program a cluster of `ctas` CTAs along
    x: a ValueError (as for any grid too large) where x overflows what CUDA launches."""
    if ctas == 1:
        return grid
    if grid[0] * ctas > GRID_LIMITS[0]:
        raise ValueError(f"{name}: a grid of {grid[0]} programs along x, each a cluster of "
                          f"{ctas} CTAs, is {grid[0] * ctas} CTAs; CUDA launches at most "
                          f"{GRID_LIMITS[0]} along x")
    return (grid[0] * ctas, grid[1], grid[2])


def scratch_address(name: str, scratch) -> int:
    """The address of a launch's global scratch (see set_allocator), checked."""
    address = scratch if isinstance(scratch, int) else data_pointer(scratch)
    if not isinstance(address, int) or address % tma.DEVICE_MAP_ALIGN:
        raise ValueError(f"the global scratch given to {name} (by the allocator set with "
                         f"tilec.set_allocator) is at {address!r}: it must be "
                         f"{tma.DEVICE_MAP_ALIGN}-byte aligned device memory")
    return address


_DEVICE_ARRAY_TYPE: dict[type, bool] = {}


def _in_host_memory(t: type) -> bool:
    """Whether arrays of type `t` live in host memory (NumPy): known once per type."""
    host = _DEVICE_ARRAY_TYPE.get(t)
    if host is None:
        host = _DEVICE_ARRAY_TYPE[t] = hasattr(t, "__array_interface__") and not any(
            hasattr(t, a) for a in ("__cuda_array_interface__", "data_ptr"))
    return host


def check_device_array(name: str, value) -> None:
    """Host arrays cannot be launched on: say what to pass instead."""
    if isinstance(value, TensorWrapper):
        value = value.base
    if _in_host_memory(type(value)):
        raise TypeError(f"a {type(value).__name__} in host memory was passed to GPU kernel "
                        f"{name}: pass CuPy arrays or torch CUDA tensors, or set "
                        "TILEC_INTERPRET=1 to run the kernel on the CPU")
    if getattr(value, "is_cuda", True) is False and not value.is_pinned():
        # a torch tensor in pageable host memory (ValueError, as Triton); pinned host memory
        # is mapped into the GPU's address space and can be passed
        raise ValueError(f"a torch tensor on {value.device} was passed to GPU kernel {name}: "
                         "move it to the GPU (.cuda()), or set TILEC_INTERPRET=1 to run the "
                         "kernel on the CPU")


def native_enabled() -> bool:
    """Whether launches go through the C extension (TILEC_NATIVE_LAUNCH=0 turns it off)."""
    return native is not None and os.environ.get("TILEC_NATIVE_LAUNCH", "1") != "0"


def native_ready() -> bool:
    """Whether the C launcher has the driver's functions (given once, on first use; there are
    none without a driver, and every launch then takes the Python path)."""
    if not native_enabled():
        return False
    if native.configured():
        return True
    try:
        functions = DRIVER.native_functions()
        cupy_stream = DRIVER.cupy.cuda.get_current_stream
    except (OSError, AttributeError, ImportError):
        return False
    native.configure(functions["cuLaunchKernel"], functions["cuCtxGetCurrent"],
                     functions["cuGetErrorName"], cupy_stream, _torch_stream(), LaunchError,
                     _cupy_stream_capsule())
    return True


def _cupy_stream_capsule():
    """The capsule of CuPy's C function `get_stream_ptr(device)` (its Cython C API), where the
    imported CuPy exports one: the C launcher reads CuPy's current stream through it without a
    Python call, once it has checked the capsule's signature."""
    module = sys.modules.get("cupy_backends.cuda.stream")
    return getattr(module, "__pyx_capi__", {}).get("get_stream_ptr")


def _torch_stream():
    """torch's current raw stream of a device, where torch is imported (torch tensors are
    passed only then), else None."""
    torch = sys.modules.get("torch")
    return getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)


def register_native_arrays(arguments: list, torch_arrays: bool) -> None:
    """Tell the C launcher how to read the address of these arguments' array types: by
    `data_ptr()` (torch's tensors) or by `.data.ptr` (CuPy's arrays). Types it is not told of
    take the Python path."""
    for value in arguments:
        t = type(value)
        if t in _NATIVE_ARRAY_TYPES or specialiser_for(value).kind != "array":
            continue
        if hasattr(t, "data_ptr"):
            native.register_array_type(t, 0)
        elif getattr(getattr(value, "data", None), "ptr", None) is not None:
            native.register_array_type(t, 1)
        _NATIVE_ARRAY_TYPES.add(t)
    if torch_arrays and not native.has_torch_stream():
        native.set_torch_stream(_torch_stream())


_NATIVE_ARRAY_TYPES: set[type] = set()


__all__ = ["DRIVER", "GRID_LIMITS", "SLOTS", "SPECIALISERS", "ArgumentBuffer", "Launcher",
           "TensorWrapper", "data_pointer", "normalise_grid", "pointer_dtype_name", "reinterpret",
           "set_allocator",
           "leaves", "nest", "specialization", "specialize_argument", "specialiser_for"]


# --- the runtime API Triton programs call around their kernels --------------------------------

class GPUTarget(NamedTuple):
    """What `driver.active.get_current_target()` says (Triton's GPUTarget): the backend, the
    compute capability as major * 10 + minor, and the warp size."""
    backend: str
    arch: int
    warp_size: int


class _Utils:
    def get_device_properties(self, device: int) -> dict:
        """Triton's keys: multiprocessor_count, max_shared_mem (bytes a block can opt in to),
        max_num_regs (per block), warpSize, sm_clock_rate, mem_clock_rate (kHz),
        mem_bus_width (bits)."""
        props = DRIVER.cupy.cuda.runtime.getDeviceProperties(int(device))
        return {"multiprocessor_count": props["multiProcessorCount"],
                "max_shared_mem": props["sharedMemPerBlockOptin"],
                "max_num_regs": props["regsPerBlock"], "warpSize": props["warpSize"],
                "sm_clock_rate": props["clockRate"], "mem_clock_rate": props["memoryClockRate"],
                "mem_bus_width": props["memoryBusWidth"]}


class ActiveDriver:
    """`tilec.runtime.driver.active`: the CUDA driver as Triton's programs ask for it."""
    utils = _Utils()
    backend = "cuda"

    def get_current_device(self) -> int:
        return DRIVER.current_device()

    def set_current_device(self, device: int) -> None:
        DRIVER.cupy.cuda.runtime.setDevice(int(device))

    def get_current_stream(self, device: int | None = None) -> int:
        return DRIVER.stream(False, self.get_current_device() if device is None else device)

    def get_current_target(self) -> GPUTarget:
        major, minor = DRIVER.cupy.cuda.Device(self.get_current_device()).compute_capability
        return GPUTarget("cuda", int(major) * 10 + int(minor), 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("cuda", self.get_current_device())

    def get_device_interface(self):
        import torch
        return torch.cuda

    def is_active(self) -> bool:
        try:
            return DRIVER.cupy.cuda.runtime.getDeviceCount() > 0
        except Exception:
            return False


class _DriverConfig:
    """`tilec.runtime.driver` (Triton's `triton.runtime.driver`): `.active` is the driver."""

    def __init__(self):
        self.active = ActiveDriver()
        self.default = self.active

    def set_active(self, driver) -> None:
        self.active = driver

    def reset_active(self) -> None:
        self.active = self.default


driver = _DriverConfig()
