"""Host tensor maps for the Tensor Memory Accelerator (TMA): the 128-byte `CUtensorMap` that
`cuTensorMapEncodeTiled` writes, which a kernel takes by value and hands to
`cp.async.bulk.tensor`.

    rules_broken(...)   why TMA cannot move boxes of this tensor (None when it can)
    tensor_map(...)     the encoded map (bytes), cached by everything the encoding reads

The rules are the driver's (CUDA driver API, cuTensorMapEncodeTiled): the global address
16-byte aligned; 1 to 5 dimensions, each of 1 to 2^32 elements; the byte strides of the outer
dimensions multiples of 16 below 2^40 (the innermost is contiguous); box dimensions of 1 to
256 elements, the innermost a multiple of 16 bytes and, when swizzled, at most the swizzle span.
Sizes are given outermost first, as a tensor's shape; the driver takes them innermost first.
A map depends only on its arguments, so an encoded map is kept and a warm launch reuses it.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache

MAP_BYTES = 128
MAP_ALIGN = 64
MAX_RANK = 5
MAX_BOX = 256
SWIZZLE_BYTES = (0, 32, 64, 128)  # CU_TENSOR_MAP_SWIZZLE_NONE, _32B, _64B, _128B by index

# CUtensorMapDataType of the element types kernels take (by their signature names); 8-bit
# floats move as bytes.
DATA_TYPES = {"u8": 0, "i8": 0, "fp8e4nv": 0, "fp8e5": 0, "fp8e4b15": 0, "fp8e4b8": 0,
              "fp8e5b16": 0, "u16": 1, "i16": 1, "u32": 2, "i32": 3, "u64": 4, "i64": 5,
              "fp16": 6, "fp32": 7, "fp64": 8, "bf16": 9}
ELEMENT_BYTES = {"u8": 1, "i8": 1, "fp8e4nv": 1, "fp8e5": 1, "fp8e4b15": 1, "fp8e4b8": 1,
                 "fp8e5b16": 1, "u16": 2, "i16": 2, "u32": 4, "i32": 4, "u64": 8, "i64": 8,
                 "fp16": 2, "fp32": 4, "fp64": 8, "bf16": 2}
# A map made in a kernel (tl.make_tensor_descriptor on sm_90) takes a slot of the kernel's
# global scratch: the 128-byte map, 64-byte aligned, then 128 zero bytes (what a map of a tensor
# with no elements points at instead; tile.make_tensormap).
DEVICE_MAP_SLOT_BYTES = 256
DEVICE_MAP_ALIGN = 128
_OOB_FILL = {"zero": 0, "nan": 1}  # CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, _NAN_REQUEST_ZERO_FMA
_L2_PROMOTION_128B = 2


class TensorMapError(ValueError):
    """The driver refused to encode a map the rules allowed (its CUresult in the message)."""


def rules_broken(element: str, address: int, shape, strides, box, swizzle: int = 0,
                 padding: str = "zero") -> str | None:
    """Why TMA cannot copy `box`-shaped tiles of the tensor at `address` (element type by its
    signature name; shape, element strides and box outermost first; swizzle span in bytes), or
    None when it can."""
    if element not in DATA_TYPES:
        return f"TMA does not move {element} elements"
    size = ELEMENT_BYTES[element]
    rank = len(shape)
    if not 1 <= rank <= MAX_RANK or len(strides) != rank or len(box) != rank:
        return f"TMA takes 1 to {MAX_RANK} dimensions with one stride and box size each"
    if address % 16:
        return f"the base address {address:#x} is not 16-byte aligned"
    if any(not 1 <= s <= 2**32 for s in shape):
        return f"dimensions must hold 1 to 2^32 elements, got {list(shape)}"
    if strides[-1] != 1:
        return f"the innermost dimension must be contiguous, got strides {list(strides)}"
    for stride in strides[:-1]:
        if stride * size % 16 or not 0 < stride * size < 2**40:
            return (f"strides of the outer dimensions must be multiples of 16 bytes, got "
                    f"{[s * size for s in strides[:-1]]} bytes")
    if any(not 1 <= b <= MAX_BOX for b in box):
        return f"box dimensions must be 1 to {MAX_BOX} elements, got {list(box)}"
    inner = box[-1] * size
    if inner % 16:
        return f"the box's innermost dimension must be a multiple of 16 bytes, got {inner}"
    if swizzle not in SWIZZLE_BYTES:
        return f"the swizzle span must be one of {SWIZZLE_BYTES} bytes, got {swizzle}"
    if swizzle and inner > swizzle:
        return (f"the box's innermost dimension ({inner} bytes) exceeds the {swizzle}-byte "
                f"swizzle span")
    if padding not in _OOB_FILL:
        return f"padding must be 'zero' or 'nan', got {padding!r}"
    if padding == "nan" and element not in ("fp16", "bf16", "fp32", "fp64"):
        return f"NaN padding needs floating-point elements, not {element}"
    return None


class _CUtensorMap(ctypes.Structure):
    _pack_ = MAP_ALIGN
    _fields_ = [("opaque", ctypes.c_uint64 * (MAP_BYTES // 8))]


def tensor_map(libcuda, element: str, address: int, shape, strides, box, swizzle: int = 0,
               padding: str = "zero") -> bytes:
    """The 128 bytes of the map (see rules_broken for the arguments; ValueError when it says
    why not, TensorMapError when the driver refuses). Cached: a warm call is a dict lookup."""
    return _encode(libcuda, element, int(address), tuple(int(s) for s in shape),
                   tuple(int(s) for s in strides), tuple(int(b) for b in box), swizzle, padding)


@lru_cache(maxsize=4096)
def _encode(libcuda, element, address, shape, strides, box, swizzle, padding) -> bytes:
    why = rules_broken(element, address, shape, strides, box, swizzle, padding)
    if why is not None:
        raise ValueError(f"no TMA descriptor for this tensor: {why}")
    rank, size = len(shape), ELEMENT_BYTES[element]
    dims = (ctypes.c_uint64 * rank)(*reversed(shape))
    byte_strides = (ctypes.c_uint64 * max(rank - 1, 1))(
        *[s * size for s in reversed(strides[:-1])] or [0])
    box_dims = (ctypes.c_uint32 * rank)(*reversed(box))
    element_strides = (ctypes.c_uint32 * rank)(*([1] * rank))
    out = _CUtensorMap()
    encode = libcuda.cuTensorMapEncodeTiled
    encode.restype = ctypes.c_int
    encode.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    code = encode(ctypes.byref(out), DATA_TYPES[element], rank, ctypes.c_void_p(address),
                  dims, byte_strides, box_dims, element_strides, 0,
                  SWIZZLE_BYTES.index(swizzle), _L2_PROMOTION_128B, _OOB_FILL[padding])
    if code != 0:
        raise TensorMapError(f"cuTensorMapEncodeTiled refused the map (CUresult {code}) for "
                             f"{element} {list(shape)}, strides {list(strides)}, box {list(box)}, "
                             f"swizzle {swizzle}")
    return bytes(out)
