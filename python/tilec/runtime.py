"""Launching compiled kernels through CuPy.

A `Launcher` loads a kernel's cubin once per device and keeps a packed argument buffer (one
ctypes slot per kernel parameter and the array of their addresses the driver wants), so a warm
launch only writes the argument values and calls `cuLaunchKernel` on the current stream.
"""
from __future__ import annotations

import ctypes

from tilec.language import dtypes as T

_SCALAR_SLOTS = {
    "i1": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64, "fp32": ctypes.c_float, "fp64": ctypes.c_double,
}
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
STATIC_SHARED_LIMIT = 48 * 1024


def data_pointer(value) -> int:
    """The address of a CuPy array, torch tensor, __cuda_array_interface__/DLPack object, or
    (for specialisation only) a NumPy array."""
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
        import cupy
        return cupy.from_dlpack(value).data.ptr
    raise TypeError(f"cannot pass {type(value).__name__} to a GPU kernel: expected a CuPy array, "
                    "a torch CUDA tensor, or an object with __cuda_array_interface__ or DLPack")


class Launcher:
    def __init__(self, name: str, cubin: bytes, params, num_warps: int, shared: int):
        self.name = name
        self.cubin = cubin
        self.block = num_warps * 32
        self.shared = shared
        self.kinds = [p.type.codegen_name() for p in params]
        self.slots = [ctypes.c_uint64() if kind.startswith("*") else _slot(kind)()
                      for kind in self.kinds]
        self.is_pointer = [kind.startswith("*") for kind in self.kinds]
        self.addresses = (ctypes.c_void_p * max(len(self.slots), 1))(
            *[ctypes.addressof(s) for s in self.slots])
        self.params_address = ctypes.addressof(self.addresses)
        self.functions: dict[int, int] = {}  # device id -> CUfunction
        self._modules = []

    def function(self, device: int) -> int:
        fn = self.functions.get(device)
        if fn is None:
            fn = self._load(device)
        return fn

    def _load(self, device: int) -> int:
        import cupy
        with cupy.cuda.Device(device):
            module = cupy.cuda.function.Module()
            module.load(self.cubin)
            function = module.get_function(self.name)
            if self.shared > STATIC_SHARED_LIMIT:
                cupy.cuda.driver.funcSetAttribute(
                    function.ptr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.shared)
        self._modules.append((module, function))  # keep the module loaded
        self.functions[device] = function.ptr
        return function.ptr

    def check_arguments(self, values) -> None:
        """Host arrays cannot be launched on (a check done once per new specialisation)."""
        for pointer, value in zip(self.is_pointer, values):
            if pointer and hasattr(value, "__array_interface__") and not hasattr(
                    value, "__cuda_array_interface__") and not hasattr(value, "data_ptr"):
                raise TypeError(f"a {type(value).__name__} in host memory was passed to GPU "
                                f"kernel {self.name}: pass CuPy arrays or torch CUDA tensors, or "
                                "set TILEC_INTERPRET=1 to run the kernel on the CPU")

    def __call__(self, grid, values, stream: int, device: int) -> None:
        for slot, pointer, value in zip(self.slots, self.is_pointer, values):
            slot.value = data_pointer(value) if pointer else value
        from cupy.cuda import driver
        driver.launchKernel(self.function(device), grid[0], grid[1], grid[2], self.block, 1, 1,
                            self.shared, stream, self.params_address, 0)


def _slot(kind: str):
    if kind not in _SCALAR_SLOTS:
        raise TypeError(f"kernel parameters of type {kind} are not supported yet")
    return _SCALAR_SLOTS[kind]


def current_stream(values) -> int:
    """The caller's current stream: torch's when torch tensors are passed, else CuPy's."""
    for value in values:
        if type(value).__module__.startswith("torch"):
            import torch
            return torch.cuda.current_stream().cuda_stream
    import cupy
    return cupy.cuda.get_current_stream().ptr


def current_device(values) -> int:
    for value in values:
        device = getattr(value, "device", None)
        index = getattr(device, "index", None)  # torch
        if isinstance(index, int):
            return index
        if device is not None and hasattr(device, "id"):  # CuPy
            return device.id
    import cupy
    return cupy.cuda.Device().id


_ = T
