"""Launching compiled kernels through CuPy.

A `Launcher` loads a kernel's cubin once per device and keeps a packed argument buffer (one
ctypes slot per kernel parameter and the array of their addresses the driver wants), so a warm
launch only writes the argument values and calls `cuLaunchKernel` on the current stream.
"""
from __future__ import annotations

import ctypes
import inspect
import os
import struct


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



# --- the warm launch path ----------------------------------------------------------------------

_POINTER_GETTERS: dict[type, object] = {}


def _pointer_getter(t: type):
    """How to read the device address of arrays of type `t` (found once per type)."""
    getter = _POINTER_GETTERS.get(t)
    if getter is None:
        if t.__module__.startswith("torch"):
            getter = t.data_ptr
        elif t.__module__.startswith("cupy"):
            getter = _cupy_pointer
        else:
            getter = data_pointer
        _POINTER_GETTERS[t] = getter
    return getter


def _cupy_pointer(array) -> int:
    return array.data.ptr


def key_parts(value, specialize: bool) -> tuple:
    """(tag, flag, launch value) of one runtime argument: the two entries it adds to the fast
    launch key, and what to pass to the kernel. Ints: ("i", 0 when folded as 1, else 1 +
    divisible by 16 + 2 * 64-bit); arrays: (dtype, 16-byte aligned); floats: ("f", 0). The
    generated launcher computes the same inline; this is the reference and the fallback."""
    t = type(value)
    if t is int:
        wide = not -2**31 <= value < 2**31
        if specialize and value == 1:
            return "i", 0, value
        return "i", 1 + (specialize and value % 16 == 0) + 2 * wide, value
    if t is float:
        return "f", 0, value
    if hasattr(value, "dtype") and getattr(value, "shape", ()) != ():
        pointer = _pointer_getter(t)(value)
        return value.dtype, specialize and pointer % 16 == 0, pointer
    from tilec.jit import specialize_argument
    key = specialize_argument(value, specialize)
    launch = None if key[0] == "constexpr" else value.item() if hasattr(value, "item") else value
    return ("other", key), key[0] == "constexpr", launch


def is_folded(tag, flag) -> bool:
    """Whether key_parts' (tag, flag) means the argument was folded into the kernel."""
    return (tag == "i" and flag == 0) or (isinstance(tag, tuple) and bool(flag))


def _stream_getter(values):
    """How to read the caller's current stream, decided once per compiled entry: torch's raw
    stream when torch tensors are passed, else CuPy's."""
    if any(type(v).__module__.startswith("torch") for v in values):
        import torch
        return torch._C._cuda_getCurrentRawStream
    import cupy
    current = cupy.cuda.get_current_stream
    return lambda device: current().ptr


def make_fast_launch(fn, slow):
    """A launch function with `fn`'s own parameter list that computes the specialisation key
    argument by argument (inline, for ints and arrays) and launches a compiled kernel from the
    in-memory cache; anything else (a new key, the interpreter, other argument types) goes to
    `slow`."""
    names = [p.name for p in fn.params]
    defaults = {f"_default_{p.name}": p.default for p in fn.params
                if p.default is not inspect.Parameter.empty}
    signature = ", ".join(p.name + (f"=_default_{p.name}" if f"_default_{p.name}" in defaults
                                    else "") for p in fn.params)
    # Named after the kernel, so argument errors name it.
    name = fn.__name__ if fn.__name__ not in names and fn.__name__.isidentifier() else "launch"
    everything = f"({', '.join(names)},)"
    lines = [f"def {name}({signature}, *, grid, num_warps=4, num_stages=3):",
             "    if _interpret is not None and _interpret or _interpret is None and "
             "_environ_get(_INTERPRET_KEY, b'0') not in (b'', b'0'):",
             f"        return _slow({everything}, grid, num_warps, num_stages)"]
    key_names, value_names = [], []
    for i, p in enumerate(fn.params):
        if p.is_constexpr:
            key_names.append(p.name)
            continue
        specialize = p.name not in fn.do_not_specialize
        a, tag, flag, v = p.name, f"p{i}", f"q{i}", f"v{i}"
        int_flag = (f"0 if {a} == 1 else 1 + ({a} % 16 == 0) + 2 * "
                    f"(not -2147483648 <= {a} < 2147483648)" if specialize else
                    f"1 + 2 * (not -2147483648 <= {a} < 2147483648)")
        array_flag = f"not {v} & 15" if specialize else "False"
        lines += [
            f"    t = type({a})",
            f"    if t is int:",
            f"        {tag} = 'i'; {flag} = {int_flag}; {v} = {a}",
            f"    else:",
            f"        g = _getters_get(t)",
            f"        if g is not None:",
            f"            {v} = g({a}); {tag} = {a}.dtype; {flag} = {array_flag}",
            f"        else:",
            f"            {tag}, {flag}, {v} = _key_parts({a}, {specialize})",
        ]
        key_names += [tag, flag]
        value_names.append(v)
    lines += [
        f"    entry = _cache.get(({', '.join(key_names)}, num_warps, num_stages))",
        "    if entry is None:",
        f"        return _slow({everything}, grid, num_warps, num_stages)",
        "    if type(grid) is not tuple:",
        f"        grid = grid(dict({', '.join(f'{n}={n}' for n in names)})) "
        "if callable(grid) else (grid,)",
        "    pack, buffer, params, block, shared, stream, functions, load = entry",
        f"    pack(buffer, 0{''.join(', ' + v for v in value_names)})",
        "    device = _get_device()",
        "    n = len(grid)",
        "    _launch(functions.get(device) or load(device), grid[0], grid[1] if n > 1 else 1,"
        " grid[2] if n > 2 else 1, block, 1, 1, shared, stream(device), params, 0)",
    ]
    from cupy.cuda import driver, runtime
    # os.environ's own dict (bytes keys): the variable is still read at every launch, without
    # os.environ's per-call key encoding.
    environ = getattr(os.environ, "_data", None)
    environ_get = environ.get if isinstance(environ, dict) else (
        lambda key, default: os.environ.get(key.decode(), default.decode()).encode())
    namespace = dict(defaults, _slow=slow, _key_parts=key_parts, _cache=fn.fast_cache,
                     _getters_get=_POINTER_GETTERS.get, _environ_get=environ_get,
                     _INTERPRET_KEY=os.environ.encodekey("TILEC_INTERPRET")
                     if hasattr(os.environ, "encodekey") else b"TILEC_INTERPRET",
                     _interpret=fn.interpret, _launch=driver.launchKernel,
                     _get_device=runtime.getDevice)
    exec("\n".join(lines), namespace)  # noqa: S102  (generated from the parameter names only)
    return namespace[name]


_SLOT_FORMATS = {"i1": "?7x", "i8": "b7x", "i16": "h6x", "i32": "i4x", "i64": "q", "u8": "B7x",
                 "u16": "H6x", "u32": "I4x", "u64": "Q", "fp32": "f4x", "fp64": "d"}


def fast_entry(kernel, keep: list[int], values: list) -> tuple:
    """What the generated launcher needs to launch `kernel`: (pack, buffer, argument array,
    block, shared bytes, stream getter, loaded functions by device, loader). Every runtime
    argument is packed with one struct call into its own 8-byte slot; the driver's argument
    array points at the slots of the parameters the kernel kept (`keep`), so arguments folded
    into it (integers equal to 1) are packed but not passed."""
    launcher = kernel.launcher()
    kept_kinds = dict(zip(keep, launcher.kinds))
    formats = []
    for position in range(len(values)):
        kind = kept_kinds.get(position, "i64")  # a folded argument: packed, never passed
        formats.append("Q" if kind.startswith("*") else _SLOT_FORMATS[kind])
    pack = struct.Struct("<" + "".join(formats)).pack_into
    buffer = ctypes.create_string_buffer(max(8 * len(values), 8))
    base = ctypes.addressof(buffer)
    addresses = (ctypes.c_void_p * max(len(keep), 1))(*[base + 8 * i for i in keep])
    launcher._keep_alive = (buffer, addresses)
    return (pack, buffer, ctypes.addressof(addresses), launcher.block, launcher.shared,
            _stream_getter(values), launcher.functions, launcher.function)
