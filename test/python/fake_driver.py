"""A fake CUDA driver for launch tests on a machine without a GPU.

Kernels are compiled for real (ptxas runs on the CPU); what would reach the driver is recorded
instead: for every launch, the path it took (the Python path calls `runtime.DRIVER.launch`, the C
path calls the `cuLaunchKernel` address it was configured with, here a ctypes callback), the
grid, block, shared bytes, stream, and the argument values read back through the `void**` the
driver was given, at the moment of the call (a later read could not tell a dangling buffer): a
TMA map parameter's 128 bytes, with where each value lay (`addresses`). TMA maps are encoded by
`fake_map` (after tilec.tma's rules), every call recorded in `tensor_maps`.
Arrays are `FakeCupyArray`s (read by `.data.ptr`, as CuPy's) and `FakeTorchTensor`s (read by
`data_ptr()`, launched on "torch's stream"), over real host memory.
"""
from __future__ import annotations

import ctypes
import hashlib
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from tilec import runtime, tma
from tilec.errors import LaunchError

CONTEXT = 0xC0FFEE
CUPY_STREAM = 0x5101
TORCH_STREAM = 0x5202

_READERS = {"i1": ctypes.c_uint8, "i8": ctypes.c_int8, "i16": ctypes.c_int16,
            "i32": ctypes.c_int32, "i64": ctypes.c_int64, "u8": ctypes.c_uint8,
            "u16": ctypes.c_uint16, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
            "fp16": ctypes.c_uint16, "bf16": ctypes.c_uint16, "fp32": ctypes.c_float,
            "fp64": ctypes.c_double}

LAUNCH_T = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint,
                            ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                            ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
CONTEXT_T = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p))
ERROR_NAME_T = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p))


def fake_map(element: str, address: int, shape, strides, box, swizzle: int = 0,
             padding: str = "zero") -> bytes:
    """128 bytes that stand for the TMA map of these arguments (a ValueError where tilec.tma's
    rules say the driver would be refused, as tma.tensor_map raises): one map per argument
    list."""
    call = (element, int(address), tuple(map(int, shape)), tuple(map(int, strides)),
            tuple(map(int, box)), int(swizzle), padding)
    why = tma.rules_broken(*call)
    if why is not None:
        raise ValueError(f"no TMA descriptor for this tensor: {why}")
    return hashlib.sha512(repr(call).encode()).digest() * 2


@dataclass
class Launch:
    path: str  # "python" or "native"
    kernel: str
    grid: tuple
    block: int
    shared: int
    stream: int
    values: list
    addresses: list = field(default_factory=list)  # where the driver read each value


class _Memory:
    """Host memory standing in for device memory (kept alive by the array)."""

    def __init__(self, nbytes: int, offset: int):
        self.buffer = ctypes.create_string_buffer(nbytes + 128)
        base = ctypes.addressof(self.buffer)
        self.ptr = base + (-base % 128) + offset


class FakeCupyArray:
    """Read by `.data.ptr` and `.dtype`, as a CuPy array is."""

    def __init__(self, n: int, dtype=np.float32, offset: int = 0):
        self.dtype = np.dtype(dtype)
        self.shape = (n,)
        self.data = _Memory(n * self.dtype.itemsize, offset)

    @property
    def __cuda_array_interface__(self):
        return {"data": (self.data.ptr, False), "shape": self.shape, "typestr": self.dtype.str,
                "version": 3}


class _TorchDtype:
    def __init__(self, name: str):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


TORCH_DTYPES = {name: _TorchDtype(name) for name in ("float32", "float16", "int32", "int64")}


class FakeTorchTensor:
    """Read by `data_ptr()`, `.dtype` and `.is_cuda`, as a torch tensor is; its module says
    torch."""
    __module__ = "torch.fake"
    is_cuda = True

    def __init__(self, n: int, dtype: str = "float32", offset: int = 0):
        self.dtype = TORCH_DTYPES[dtype]
        self.shape = (n,)
        self._memory = _Memory(n * np.dtype(dtype).itemsize, offset)

    def data_ptr(self) -> int:
        return self._memory.ptr

    def element_size(self) -> int:
        return np.dtype(self.dtype.name).itemsize


@dataclass
class FakeDriver(runtime.Driver):
    """runtime.Driver with CUDA replaced by records (see the module docstring)."""
    launches: list = field(default_factory=list)
    kernels: dict = field(default_factory=dict)  # function id -> CompiledKernel
    fail_with: str | None = None  # a driver error for every launch
    device: int = 0
    tensor_maps: list = field(default_factory=list)  # the arguments of each tensor_map call
    scratches: list = field(default_factory=list)  # (bytes, torch?, stream, address) a launch

    def __post_init__(self):
        super().__init__()
        self._callbacks = (LAUNCH_T(self._native_launch), CONTEXT_T(self._context),
                           ERROR_NAME_T(self._error_name))
        self._error = ctypes.c_char_p(b"CUDA_ERROR_FAKE")

    # The compiled kernels a launch may use, so launches can be decoded by their types.
    def watch(self, *jit_functions) -> None:
        self._watched = jit_functions

    def _kernel_of(self, cubin: bytes):
        for fn in getattr(self, "_watched", ()):
            for kernel in fn.cache.values():
                if kernel.asm.get("cubin") == cubin:
                    return kernel
        raise AssertionError("a launch of a kernel the fake driver does not watch")

    def load(self, cubin: bytes, name: str, shared: int, device: int):
        kernel = self._kernel_of(cubin)
        function = 0x1000 + len(self.kernels)
        self.kernels[function] = kernel
        return (None, None), function

    def current_device(self) -> int:
        return self.device

    def current_context(self) -> int:
        return CONTEXT

    def stream(self, torch_arrays: bool, device: int) -> int:
        return TORCH_STREAM if torch_arrays else CUPY_STREAM

    def scratch(self, nbytes, torch_arrays, device, stream):
        """Host memory standing in for the launch's global scratch (recorded in `scratches`)."""
        memory = _Memory(nbytes, 0)
        self.scratches.append((nbytes, torch_arrays, stream, memory.ptr))
        return memory.ptr  # (nothing is written there: the memory may go)

    def tensor_map(self, element, address, shape, strides, box, swizzle, padding) -> bytes:
        self.tensor_maps.append((element, address, tuple(shape), tuple(strides), tuple(box),
                                 swizzle, padding))
        return fake_map(element, address, shape, strides, box, swizzle, padding)

    @property
    def cupy(self):
        return SimpleNamespace(cuda=SimpleNamespace(
            get_current_stream=lambda device=-1: SimpleNamespace(ptr=CUPY_STREAM)))

    def native_functions(self) -> dict[str, int]:
        return {name: ctypes.cast(cb, ctypes.c_void_p).value for name, cb in zip(
            ("cuLaunchKernel", "cuCtxGetCurrent", "cuGetErrorName"), self._callbacks)}

    def _record(self, path, function, grid, block, shared, stream, params) -> None:
        kernel = self.kernels[function]
        count = len(kernel.params) + bool(kernel.metadata.get("global_scratch"))
        slots = (ctypes.c_void_p * max(count, 1)).from_address(params)
        values = []
        for i, p in enumerate(kernel.params):
            name = p.type.codegen_name()
            if name == "tensormap":  # a CUtensorMap, by value
                values.append(ctypes.string_at(slots[i], tma.MAP_BYTES))
                continue
            reader = ctypes.c_uint64 if name.startswith("*") else _READERS[name]
            values.append(reader.from_address(slots[i]).value)
        if count > len(kernel.params):  # the global scratch, last
            values.append(ctypes.c_uint64.from_address(slots[count - 1]).value)
        self.launches.append(Launch(path, kernel.name, tuple(grid), block, shared, stream,
                                    values, [slots[i] for i in range(count)]))

    def launch(self, function, grid, block, shared, stream, params, cooperative=False) -> None:
        if self.fail_with:
            raise type("CUDADriverError", (RuntimeError,), {})(self.fail_with)
        self._record("cooperative" if cooperative else "python", function, grid, block, shared,
                     stream, params)

    def _native_launch(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        if self.fail_with:
            return 700
        self._record("native", function, (gx, gy, gz), bx, shared, stream or 0, params)
        return 0

    def _context(self, out) -> int:
        out[0] = CONTEXT
        return 0

    def _error_name(self, code, out) -> int:
        out[0] = self._error.value
        return 0


def install(monkeypatch, *kernels) -> FakeDriver:
    """Put a FakeDriver under both launch paths for one test, for launches of `kernels` (their
    launch state is reset: its launchers hold functions of an earlier driver). The C launcher is
    configured with the fake's callbacks; `uninstall` gives it back unconfigured."""
    fake = FakeDriver()
    fake.watch(*kernels)
    monkeypatch.setattr(runtime, "DRIVER", fake)
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    for kernel in kernels:
        kernel.reset_launches()
    if runtime.native is not None:
        functions = fake.native_functions()
        runtime.native.configure(functions["cuLaunchKernel"], functions["cuCtxGetCurrent"],
                                 functions["cuGetErrorName"], fake.cupy.cuda.get_current_stream,
                                 lambda device: TORCH_STREAM, LaunchError)
    return fake


def uninstall(*kernels) -> None:
    for kernel in kernels:
        kernel.reset_launches()
    if runtime.native is not None:
        runtime.native.configure(0, 0, 0, None, None, LaunchError)
