"""Memory for interpreted kernels: argument buffers, loads, stores, atomics and their checks.

Pointers are host addresses. Each array argument is a `Buffer` covering the bytes it spans;
every pointer remembers which argument it was derived from (its provenance), so an access is
checked against that argument's bytes — the check a GPU cannot make. Arrays on a GPU (CuPy,
torch) are copied to the host for the launch and back after it.

Races: a store to bytes that another program instance stored in the same launch is a race
unless that instance happened before this one through an atomic (a lock taken with atomic_cas
after the other released it with an atomic, as in a spin lock).
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import numpy as np

from tilec.errors import OffsetOverflowError, OutOfBoundsError, RaceError
from tilec.interpreter.values import Block, numpy_dtype, tilec_dtype
from tilec.language import dtypes as T


@dataclass
class Checks:
    """Which of the interpreter's checks run (all by default)."""
    bounds: bool = True
    overflow: bool = True
    races: bool = True


@dataclass
class Buffer:
    name: str
    lo: int  # host address of the first byte the argument spans
    nbytes: int
    data_ptr: int  # host address of the argument's first element
    itemsize: int
    raw: np.ndarray  # uint8 view of [lo, lo + nbytes)
    keep_alive: object = None
    write_back: object = None  # callable run after the launch (device arrays)
    writer: np.ndarray | None = None  # per byte: the program that stored it last, or -1
    atomic_writer: np.ndarray | None = None  # per byte: the program that wrote it atomically


def _extent(shape, strides, itemsize) -> tuple[int, int]:
    """(first, last + 1) byte offsets spanned by an array, relative to its data pointer."""
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n > 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0 and n > 0) + itemsize
    if any(n == 0 for n in shape):
        return 0, 0
    return lo, hi


def _host_view(address: int, nbytes: int) -> np.ndarray:
    if nbytes == 0:
        return np.zeros(0, np.uint8)
    return np.frombuffer((ctypes.c_uint8 * nbytes).from_address(address), dtype=np.uint8)


def _array_info(array):
    """(data pointer, shape, byte strides, itemsize, dtype name, on_device)."""
    if isinstance(array, np.ndarray):
        return (array.__array_interface__["data"][0], array.shape, array.strides,
                array.itemsize, array.dtype, False)
    if hasattr(array, "data_ptr") and hasattr(array, "element_size"):  # torch, CPU or GPU
        itemsize = array.element_size()
        strides = tuple(s * itemsize for s in array.stride())
        name = array.dtype if isinstance(array.dtype, T.dtype) else \
            str(array.dtype).replace("torch.", "")  # a TensorWrapper's dtype is tilec's
        return (array.data_ptr(), tuple(array.shape), strides, itemsize, name,
                bool(getattr(array, "is_cuda", False)))
    if hasattr(array, "__cuda_array_interface__"):  # CuPy and others
        cai = array.__cuda_array_interface__
        dt = np.dtype(cai["typestr"])
        strides = cai.get("strides") or tuple(
            int(np.prod(cai["shape"][i + 1:])) * dt.itemsize for i in range(len(cai["shape"])))
        return cai["data"][0], tuple(cai["shape"]), tuple(strides), dt.itemsize, dt.name, True
    raise TypeError(f"cannot pass {type(array).__name__} to an interpreted kernel")


@dataclass
class Memory:
    checks: Checks
    buffers: list[Buffer] = field(default_factory=list)
    synced: dict[int, set[int]] = field(default_factory=dict)

    def add_argument(self, name: str, array, const: bool = False) -> Block:
        """The pointer a kernel receives for `array`, registering the bytes it spans."""
        ptr, shape, strides, itemsize, dtype_name, on_device = _array_info(array)
        first, end = _extent(shape, strides, itemsize)
        elem = _element_type(dtype_name, array)
        if on_device:
            host = np.empty(end - first, np.uint8)
            _device_copy(host.ctypes.data, ptr + first, end - first, to_host=True)
            lo = host.ctypes.data
            data_ptr = lo - first
            write_back = (lambda h=host, d=ptr + first: _device_copy(d, h.ctypes.data, h.size,
                                                                     to_host=False))
            buffer = Buffer(name, lo, end - first, data_ptr, itemsize, host, host, write_back)
        else:
            lo = ptr + first
            buffer = Buffer(name, lo, end - first, ptr, itemsize, _host_view(lo, end - first),
                            array)
            data_ptr = ptr
        self.buffers.append(buffer)
        return Block(np.uint64(data_ptr), T.pointer_type(elem, const=const), None,
                     len(self.buffers) - 1)

    def finish(self) -> None:
        for buffer in self.buffers:
            if buffer.write_back is not None:
                buffer.write_back()

    # --- address resolution and checks ---------------------------------------------------

    def _resolve(self, ptr: Block, active, op: str, where) -> tuple[Buffer | None, np.ndarray]:
        """The buffer a pointer block points into and its byte offsets (int64)."""
        if self.checks.overflow and ptr.overflow is not None and (ptr.overflow & active).any():
            lane = int(np.flatnonzero(ptr.overflow & active)[0])
            raise OffsetOverflowError(
                f"tl.{op}: the pointer offset of element {lane} was computed in 32-bit signed "
                "integers and overflowed; compute it in int64 (e.g. offs.to(tl.int64))", *where)
        addresses = ptr.data.astype(np.uint64)
        if ptr.provenance is None:
            buffer = self._buffer_containing(addresses[active])
        else:
            buffer = self.buffers[ptr.provenance]
        if buffer is None:
            if not self.checks.bounds:
                raise OutOfBoundsError(f"tl.{op}: the pointer does not point into any argument",
                                       *where)
            lane = int(np.flatnonzero(active)[0]) if active.any() else 0
            raise OutOfBoundsError(f"tl.{op}: element {lane} points into no argument's memory",
                                   *where)
        offsets = (addresses - np.uint64(buffer.lo)).astype(np.int64)
        return buffer, offsets

    def _split_by_buffer(self, ptr: Block, active) -> list[tuple[Block, np.ndarray]] | None:
        """A pointer block of no single provenance (tl.where between pointers of two
        arguments) whose active lanes point into several arguments: (the block with one
        argument's provenance, the lanes pointing into it) per argument; None otherwise."""
        if ptr.provenance is not None or not np.ndim(ptr.data):
            return None
        addresses = np.broadcast_to(ptr.data, active.shape).astype(np.uint64)
        owner = np.full(active.shape, -1)
        for index, buffer in enumerate(self.buffers):
            inside = active & (addresses >= buffer.lo) & (addresses < buffer.lo + buffer.nbytes)
            owner[inside & (owner < 0)] = index
        found = np.unique(owner[active & (owner >= 0)])
        if len(found) < 2:
            return None
        return [(Block(ptr.data, ptr.elem, ptr.overflow, int(index)), active & (owner == index))
                for index in found] + [(ptr, active & (owner < 0))]

    def _buffer_containing(self, addresses) -> Buffer | None:
        if addresses.size == 0:
            return self.buffers[0] if self.buffers else None
        first = int(addresses.flat[0])
        for buffer in self.buffers:
            if buffer.lo <= first < buffer.lo + buffer.nbytes:
                return buffer
        return None

    def _check_bounds(self, buffer: Buffer, offsets, size: int, active, op: str, where) -> None:
        if not self.checks.bounds:
            return
        bad = active & ((offsets < 0) | (offsets + size > buffer.nbytes))
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            element = (int(offsets.flat[lane]) + buffer.lo - buffer.data_ptr) // max(size, 1)
            count = buffer.nbytes // max(buffer.itemsize, 1)
            raise OutOfBoundsError(
                f"tl.{op} out of bounds: element {lane} of the block accesses offset {element} "
                f"of '{buffer.name}', which has {count} elements; mask the access "
                f"(e.g. mask=offs < n)", *where)

    def _bytes(self, offsets, size: int):
        return offsets[:, None] + np.arange(size, dtype=np.int64)

    def _view(self, buffer: Buffer, offsets, size: int) -> tuple[np.ndarray, int]:
        """(a uint8 view, the offset of buffer.lo in it) covering every accessed byte. With the
        bounds check off, accesses outside the argument reach the real memory there."""
        if offsets.size == 0 or (offsets.min() >= 0 and offsets.max() + size <= buffer.nbytes):
            return buffer.raw, 0
        lo = min(int(offsets.min()), 0)
        hi = max(int(offsets.max()) + size, buffer.nbytes)
        return _host_view(buffer.lo + lo, hi - lo), -lo

    # --- loads and stores -----------------------------------------------------------------

    def load(self, ptr: Block, mask: Block | None, other: Block | None, where) -> Block:
        elem = ptr.elem.element_ty
        shape = ptr.data.shape
        active = np.ones(shape, bool) if mask is None else np.broadcast_to(mask.data, shape)
        result = np.zeros(shape, numpy_dtype(elem)) if other is None else \
            np.array(np.broadcast_to(other.data, shape), dtype=numpy_dtype(elem))
        if not active.any():
            return Block(result, elem)
        parts = self._split_by_buffer(ptr, active)
        if parts is not None:
            for part, lanes in parts:
                loaded = self.load(part, Block(lanes, T.int1), None, where)
                result[lanes] = loaded.data[lanes]
            return Block(result, elem)
        buffer, offsets = self._resolve(ptr, active, "load", where)
        size = numpy_dtype(elem).itemsize
        self._check_bounds(buffer, offsets, size, active, "load", where)
        lanes = offsets[active]
        view, shift = self._view(buffer, lanes, size)
        raw = view[self._bytes(lanes + shift, size)]
        result[active] = np.ascontiguousarray(raw).view(numpy_dtype(elem)).reshape(-1)
        return Block(result, elem)

    def store(self, ptr: Block, value: Block, mask: Block | None, pid: int, where) -> None:
        elem = ptr.elem.element_ty
        shape = ptr.data.shape
        active = np.ones(shape, bool) if mask is None else np.broadcast_to(mask.data, shape)
        if not active.any():
            return
        parts = self._split_by_buffer(ptr, active)
        if parts is not None:
            for part, lanes in parts:
                self.store(part, value, Block(lanes, T.int1), pid, where)
            return
        buffer, offsets = self._resolve(ptr, active, "store", where)
        size = numpy_dtype(elem).itemsize
        self._check_bounds(buffer, offsets, size, active, "store", where)
        lanes = offsets[active]
        view, shift = self._view(buffer, lanes, size)
        values = np.ascontiguousarray(np.broadcast_to(value.data, shape)[active],
                                      dtype=numpy_dtype(elem))
        new_bytes = values.view(np.uint8).reshape(-1, size)
        if self.checks.races and shift == 0 and view is buffer.raw:
            self._check_race(buffer, self._bytes(lanes, size), new_bytes, pid, where)
        view[self._bytes(lanes + shift, size)] = new_bytes

    def _check_race(self, buffer: Buffer, byte_index, new_bytes, pid: int, where) -> None:
        """A store racing with another program's earlier store to the same bytes, unless the
        two wrote the same value there (every order then leaves the same memory: a flag or a
        shared result that each program writes alike, as real kernels do)."""
        if buffer.writer is None:
            buffer.writer = np.full(buffer.nbytes, -1, np.int32)
        previous = buffer.writer[byte_index]
        differs = (buffer.raw[byte_index] != new_bytes).any(axis=1, keepdims=True)
        others = np.unique(previous[(previous >= 0) & (previous != pid) & differs])
        synced = self.synced.get(pid, set())
        racing = [int(p) for p in others if int(p) not in synced]
        if racing:
            first = byte_index[(np.isin(previous, racing) & differs).any(axis=1)][0, 0]
            element = (int(first) + buffer.lo - buffer.data_ptr) // max(buffer.itemsize, 1)
            raise RaceError(
                f"tl.store: program {racing[0]} already stored to element {element} of "
                f"'{buffer.name}' in this launch, without synchronising with this program; use "
                "an atomic, or give each program its own part of the output", *where)
        buffer.writer[byte_index] = pid

    # --- atomics -------------------------------------------------------------------------

    def atomic(self, kind: str, ptr: Block, value: Block, cmp: Block | None, mask: Block | None,
               pid: int, where) -> Block:
        """An atomic read-modify-write per active lane, in lane order; returns the old values."""
        elem = ptr.elem.element_ty
        shape = ptr.data.shape
        np_type = numpy_dtype(elem)
        active = np.ones(shape, bool) if mask is None else np.broadcast_to(mask.data, shape)
        old = np.zeros(shape, np_type)
        if not active.any():
            return Block(old, elem)
        buffer, offsets = self._resolve(ptr, active, f"atomic_{kind}", where)
        size = np_type.itemsize
        self._check_bounds(buffer, offsets, size, active, f"atomic_{kind}", where)
        self._synchronise(buffer, offsets[active], pid)
        view = buffer.raw
        flat_offsets = np.atleast_1d(offsets).reshape(-1)
        values = np.broadcast_to(value.data, shape).reshape(-1)
        cmps = None if cmp is None else np.broadcast_to(cmp.data, shape).reshape(-1)
        olds = old.reshape(-1)
        for lane in np.flatnonzero(np.atleast_1d(active)):  # in lane order: duplicates see
            index = self._bytes(flat_offsets[lane:lane + 1], size)[0]  # earlier lanes' writes
            current = view[index].copy().view(np_type)[0]
            olds[lane] = current
            new = _combine(kind, current, values[lane], None if cmps is None else cmps[lane],
                           np_type)
            view[index] = np.array([new], np_type).view(np.uint8)
        return Block(olds.reshape(shape), elem)

    def _synchronise(self, buffer: Buffer, offsets, pid: int) -> None:
        """Record that `pid` acquires whatever earlier programs released at these bytes."""
        if buffer.atomic_writer is None:
            buffer.atomic_writer = np.full(buffer.nbytes, -1, np.int32)
        previous = np.unique(buffer.atomic_writer[offsets])
        mine = self.synced.setdefault(pid, set())
        for p in previous:
            p = int(p)
            if p >= 0 and p != pid:
                mine |= {p} | self.synced.get(p, set())
        buffer.atomic_writer[offsets] = pid


def _combine(kind: str, current, value, cmp, np_type):
    with np.errstate(all="ignore"):
        if kind in ("add", "fadd"):
            return np_type.type(current + value)
        if kind == "and":
            return current & value
        if kind == "or":
            return current | value
        if kind == "xor":
            return current ^ value
        if kind in ("max", "umax"):
            return max(current, value)
        if kind in ("min", "umin"):
            return min(current, value)
        if kind == "xchg":
            return value
        if kind == "cas":
            return value if current == cmp else current
    raise ValueError(kind)


def _element_type(dtype_name, array) -> T.dtype:
    if isinstance(dtype_name, T.dtype):
        return dtype_name
    name = str(dtype_name).replace("torch.", "")
    if name == "bfloat16":
        return T.bfloat16
    if name in ("float8_e4m3fn", "float8_e5m2"):
        return T.float8e4nv if name == "float8_e4m3fn" else T.float8e5
    try:
        return tilec_dtype(np.dtype(name))
    except TypeError:
        raise TypeError(f"arrays of {name} cannot be passed to kernels") from None


def _device_copy(dst: int, src: int, nbytes: int, to_host: bool) -> None:
    import cupy
    cupy.cuda.runtime.deviceSynchronize()
    kind = cupy.cuda.runtime.memcpyDeviceToHost if to_host else cupy.cuda.runtime.memcpyHostToDevice
    cupy.cuda.runtime.memcpy(dst, src, nbytes, kind)
