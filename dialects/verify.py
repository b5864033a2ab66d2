"""What IRDL cannot say about `tile` and `tilegpu` IR, checked in Python: shapes, element types,
pointees, layouts and memdescs that agree as dialects/README.md says.

`verify(module)` walks the module without recursion (an explicit stack: nesting depth is the
input's to choose) and returns one `Problem` (the op and a message) per broken rule; `tilec-opt`
reports them as diagnostics after parsing and after every pass (`check(module)` raises them as a
DiagnosticError). Regions nested deeper than `MAX_NESTING` are reported instead of walked further:
every pass keeps within the interpreter's recursion limit below that depth.

A rule is a function of the op in `RULES`, returning a message or None; helpers read types
(`_shape`, `_element`, `_pointee`) of scalars and tensors alike.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir

from tilec.diagnostics import Diagnostic, DiagnosticError, file_line_col
from tilec.analysis.registers import WARPGROUP, check_division
from tilec.analysis.shared_memory import BYTES_ATTR, OFFSET_ATTR, memdesc_bytes
from tilec.passbase import (NUM_CTAS, NUM_WARPS, TARGET, THREADS_PER_WARP, enclosing,
                             module_num_warps, split_side)
from tilec.dialects import tile
from tilec.language.core import MAX_NUM_STAGES
from tilec.dialects.params import split_parameters
from tilec.dialects.tilegpu import (BlockedLayout, DotOperandLayout, MemDesc, MmaLayout,
                                    NvmmaSharedLayout, SharedLayout, SliceLayout, layout_from_attr)

MAX_NESTING = 128  # region levels; Python allows 20 nested blocks in a kernel's source
# Levels a pass may add to an input within MAX_NESTING (convert-tilegpu-to-llvm puts each kernel
# inside gpu.module and gpu.func): what a pass produces is checked against the sum.
PASS_NESTING_GROWTH = 8


@dataclass
class Problem:
    op: ir.Operation
    message: str


# --- reading types ------------------------------------------------------------------------------

def _is_tensor(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType)


def _shape(t: ir.Type) -> list[int]:
    return list(t.shape) if _is_tensor(t) else []


def _element(t: ir.Type) -> ir.Type:
    return t.element_type if _is_tensor(t) else t


def _pointee(t: ir.Type) -> ir.Type | None:
    """The pointee of a pointer or of a tensor of pointers; None for anything else."""
    element = _element(t)
    if not tile.is_ptr(element):
        return None
    try:
        return tile.ptr_pointee(element)
    except ir.MLIRError:  # IRDL lets a pointee be any attribute: `!tile.ptr<3 : i32, 1 : i32>`
        raise ValueError(f"the pointee of {element} is not a type") from None


def _is_int(t: ir.Type) -> bool:
    return isinstance(_element(t), ir.IntegerType)


def _is_float(t: ir.Type) -> bool:
    return isinstance(_element(t), ir.FloatType)


def _is_i1(t: ir.Type) -> bool:
    e = _element(t)
    return isinstance(e, ir.IntegerType) and e.width == 1


def _bits(t: ir.Type) -> int:
    e = _element(t)
    if tile.is_ptr(e):
        return 64
    return e.width if isinstance(e, (ir.IntegerType, ir.FloatType)) else -1


def _text(t: ir.Type) -> str:
    return str(t)


def _same_shape(what: str, a: ir.Type, b: ir.Type) -> str | None:
    if _shape(a) != _shape(b):
        return f"{what}: shape {_shape(b)} differs from {_shape(a)}"
    return None


def _first(*messages: str | None) -> str | None:
    return next((m for m in messages if m), None)


def _int_attr(op: ir.Operation, name: str) -> int:
    return int_value(op.attributes[name], name)


def int_value(attr: ir.Attribute, name: str) -> int:
    """An integer attribute's value; ValueError for one that is not an integer or does not fit
    in 64 bits (reading a wider one aborts inside MLIR)."""
    if not isinstance(attr, ir.IntegerAttr):
        raise ValueError(f"{name} must be an integer, got {attr}")
    if isinstance(attr.type, ir.IntegerType) and attr.type.width > 64:
        raise ValueError(f"{name} is a {attr.type.width}-bit integer; at most 64 bits")
    return ir.IntegerAttr(attr).value


def _operand(op: ir.Operation, group: int, groups: str = "operandSegmentSizes") -> ir.Value | None:
    """The value of optional operand group `group` of an op with segment sizes (None: absent)."""
    sizes = list(ir.DenseI32ArrayAttr(op.attributes[groups]))
    if not sizes[group]:
        return None
    index = sum(sizes[:group])
    return op.operands[index] if groups == "operandSegmentSizes" else op.results[index]


# --- tile ops -------------------------------------------------------------------------------------

def _grid_axis(op) -> str | None:
    axis = _int_attr(op, "axis")
    return None if 0 <= axis <= 2 else f"axis {axis} is not a grid axis (0, 1 or 2)"


def _make_range(op) -> str | None:
    start, end, t = _int_attr(op, "start"), _int_attr(op, "end"), op.results[0].type
    if end <= start:
        return f"end ({end}) must be greater than start ({start})"
    if (end - start) & (end - start - 1):
        return f"the range's length {end - start} is not a power of two"
    if _shape(t) != [end - start] or _text(_element(t)) != "i32":
        return f"result must be tensor<{end - start}xi32>, got {t}"
    return None


def _splat(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    if _is_tensor(src):
        return f"operand must be a scalar, got {src}"
    if _element(result) != src:
        return f"result element type {_element(result)} differs from the operand's type {src}"
    return None


def _same_element(op, src: ir.Type, result: ir.Type) -> str | None:
    if _element(src) != _element(result):
        return f"result element type {_element(result)} differs from the operand's {_element(src)}"
    return None


def _broadcast(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    s, r = _shape(src), _shape(result)
    if len(s) != len(r) or any(a not in (1, b) for a, b in zip(s, r)):
        return f"cannot broadcast shape {s} to {r} (same rank; only dimensions of size 1 stretch)"
    return _same_element(op, src, result)


def _expand_dims(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    axis, s = _int_attr(op, "axis"), _shape(src)
    if not 0 <= axis <= len(s):
        return f"axis {axis} is out of range for an operand of rank {len(s)}"
    if _shape(result) != s[:axis] + [1] + s[axis:]:
        return f"result shape must be {s[:axis] + [1] + s[axis:]}, got {_shape(result)}"
    return _same_element(op, src, result)


def _reshape(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    if math.prod(_shape(src)) != math.prod(_shape(result)):
        return (f"cannot reshape {math.prod(_shape(src))} elements {_shape(src)} into "
                f"{_shape(result)}")
    return _same_element(op, src, result)


def _trans(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    order, s = list(ir.DenseI32ArrayAttr(op.attributes["order"])), _shape(src)
    if sorted(order) != list(range(len(s))):
        return f"order {order} is not a permutation of the operand's {len(s)} dimensions"
    if _shape(result) != [s[i] for i in order]:
        return f"result shape must be {[s[i] for i in order]}, got {_shape(result)}"
    return _same_element(op, src, result)


def _join(op) -> str | None:
    lhs, rhs, result = op.operands[0].type, op.operands[1].type, op.results[0].type
    if _shape(lhs) != _shape(rhs) or _element(lhs) != _element(rhs):
        return f"operands differ: {lhs} and {rhs}"
    if _shape(result) != _shape(lhs) + [2]:
        return f"result shape must be {_shape(lhs) + [2]}, got {_shape(result)}"
    return _same_element(op, lhs, result)


def _split(op) -> str | None:
    src, lhs, rhs = op.operands[0].type, op.results[0].type, op.results[1].type
    s = _shape(src)
    if not s or s[-1] != 2:
        return f"the operand's last dimension must be 2, got shape {s}"
    if _shape(lhs) != s[:-1] or _shape(rhs) != s[:-1]:
        return f"results must have shape {s[:-1]}, got {_shape(lhs)} and {_shape(rhs)}"
    return _first(_same_element(op, src, lhs), _same_element(op, src, rhs))


def _addptr(op) -> str | None:
    ptr, offset = op.operands[0].type, op.operands[1].type
    if _pointee(ptr) is None:
        return f"ptr must be a pointer or a tensor of pointers, got {ptr}"
    if not _is_int(offset) or _is_tensor(offset) and tile.is_ptr(_element(offset)):
        return f"offset must be an integer or a tensor of integers, got {offset}"
    return _same_shape("offset", ptr, offset)


def _mask(op, mask: ir.Value | None, like: ir.Type) -> str | None:
    if mask is None:
        return None
    if not _is_i1(mask.type):
        return f"mask must be i1, got {mask.type}"
    return _same_shape("mask", like, mask.type)


def _load(op) -> str | None:
    ptr, result = op.operands[0].type, op.results[0].type
    pointee = _pointee(ptr)
    if pointee is None:
        return f"ptr must be a pointer or a tensor of pointers, got {ptr}"
    if _element(result) != pointee:
        return f"result element type {_element(result)} differs from the pointee {pointee}"
    return _first(_same_shape("result", ptr, result), _mask(op, _operand(op, 1), ptr))


TMA_SWIZZLES = (32, 64, 128)  # bytes: the spans TMA's swizzle modes and nvmma_shared share


def _tma_load(op) -> str | None:
    return _tma_block(op, op.results[0].type, list(op.operands)[1:])


def _tma_store(op) -> str | None:
    return _tma_block(op, op.operands[1].type, list(op.operands)[2:])


# The element types each TMA reduction takes (cp.reduce.async.bulk.tensor; of the types TMA
# maps here: 8-, 16- and 32-bit).
TMA_REDUCE_ELEMENTS = {"add": ("f16", "bf16", "f32", "i32"), "min": ("f16", "bf16", "i32"),
                       "max": ("f16", "bf16", "i32"), "and": ("i32",), "or": ("i32",),
                       "xor": ("i32",)}
TMA_REDUCE_KINDS = tuple(TMA_REDUCE_ELEMENTS)


def _reduce_kind(op) -> str | None:
    kind = ir.StringAttr(op.attributes["kind"]).value
    return None if kind in TMA_REDUCE_KINDS else \
        f"kind must be one of {list(TMA_REDUCE_KINDS)}, got {kind!r}"


def _tma_reduce(op) -> str | None:
    problem = _reduce_kind(op)
    if problem:
        return problem
    kind, element = ir.StringAttr(op.attributes["kind"]).value, _element(op.operands[1].type)
    elements = TMA_REDUCE_ELEMENTS[kind]
    if _is_tensor(op.operands[1].type) and _text(element) not in elements:
        return f"a TMA {kind} takes {', '.join(elements)} elements, got {element}"
    return _tma_store(op)


def _tma_reduce_copy(op) -> str | None:
    return _reduce_kind(op) or _tma_store_copy(op)


def _tma_block(op, result: ir.Type, offsets: list) -> str | None:
    """The block a TMA load or store moves, and its offsets and swizzle."""
    if not _is_tensor(result):
        return f"TMA moves blocks (tensors), got {result}"
    if len(offsets) != len(_shape(result)):
        return f"{len(offsets)} offsets for a block of rank {len(_shape(result))}"
    if any(size > 256 for size in _shape(result)):
        return f"a TMA box holds at most 256 elements a dimension, got {_shape(result)}"
    swizzle = _int_attr(op, "swizzle")
    bits = _bits(_element(result))
    if swizzle not in TMA_SWIZZLES:
        return f"swizzle must be one of {list(TMA_SWIZZLES)} bytes, got {swizzle}"
    if bits not in (8, 16, 32):
        return f"TMA moves 8-, 16- or 32-bit elements, got {_element(result)}"
    if _shape(result)[-1] * bits // 8 % swizzle:
        return (f"the block's fastest dimension ({_shape(result)[-1]} x {_element(result)}) is "
                f"not a whole number of {swizzle}-byte swizzle spans")
    return None


def _make_tensormap(op) -> str | None:
    """An in-kernel TMA map: a 2-D tensor of 8-, 16- or 32-bit elements, boxes of whole
    swizzle spans, a slot of a global scratch of bytes."""
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    scratch, base = op.operands[0].type, op.operands[1].type
    if _is_tensor(scratch) or _text(_element(scratch)) != "!tile.ptr<i8, 1 : i32>":
        return f"scratch must be a scalar !tile.ptr<i8, 1 : i32>, got {scratch}"
    element = None if _is_tensor(base) else _pointee(base)
    if element is None or _bits(element) not in (8, 16, 32):
        return f"base must be a scalar pointer to 8-, 16- or 32-bit elements, got {base}"
    if sizes[2:] != [2, 1]:
        return f"a map of a 2-D tensor takes 2 dims and 1 stride, got {sizes[2]} and {sizes[3]}"
    box = list(ir.DenseI32ArrayAttr(op.attributes["box"]))
    swizzle, slot = _int_attr(op, "swizzle"), _int_attr(op, "slot")
    if len(box) != 2 or any(not 1 <= b <= 256 for b in box):
        return f"box must hold 2 sizes of 1 to 256 elements, got {box}"
    if swizzle not in TMA_SWIZZLES:
        return f"swizzle must be one of {list(TMA_SWIZZLES)} bytes, got {swizzle}"
    if box[1] * _bits(element) // 8 != swizzle:
        return (f"the box's fastest dimension ({box[1]} x {element}) must span the "
                f"{swizzle}-byte swizzle")
    return None if slot >= 0 else f"slot must be non-negative, got {slot}"


def _store(op) -> str | None:
    ptr, value = op.operands[0].type, op.operands[1].type
    pointee = _pointee(ptr)
    if pointee is None:
        return f"ptr must be a pointer or a tensor of pointers, got {ptr}"
    if _element(value) != pointee:
        return f"value element type {_element(value)} differs from the pointee {pointee}"
    mask = op.operands[2] if len(op.operands) > 2 else None
    return _first(_same_shape("value", ptr, value), _mask(op, mask, ptr))


def _matmul_shapes(a: list[int], b: list[int], c: list[int]) -> str | None:
    if len(a) not in (2, 3) or len(b) != len(a) or len(c) != len(a):
        return f"operands must all be 2-D (or 3-D, batched), got {a}, {b} and {c}"
    if a[-1] != b[-2] or c[-2:] != [a[-2], b[-1]] or a[:-2] != b[:-2] or a[:-2] != c[:-2]:
        return f"shapes do not multiply: {a} x {b} -> {c}"
    return None


def _dot(op) -> str | None:
    a, b, c = (v.type for v in op.operands)
    if _element(a) != _element(b) and not (_bits(a) == _bits(b) == 8 and _is_float(a)
                                           and _is_float(b)):
        return f"operands' element types differ: {_element(a)} and {_element(b)}"
    return _matmul_shapes(_shape(a), _shape(b), _shape(c))


def _combining(op) -> str | None:
    sources = [v for v in op.operands]
    axis, s = _int_attr(op, "axis"), _shape(sources[0].type)
    if any(_shape(v.type) != s for v in sources):
        return f"operands differ in shape: {[_shape(v.type) for v in sources]}"
    if not 0 <= axis < len(s):
        return f"axis {axis} is out of range for operands of rank {len(s)}"
    if len(op.results) != len(sources):
        return f"{len(op.results)} results for {len(sources)} operands: one result per operand"
    expected = s if op.name == "tile.scan" else s[:axis] + s[axis + 1:]
    for src, result in zip(sources, op.results):
        if _shape(result.type) != expected:
            return f"result shape must be {expected}, got {_shape(result.type)}"
        if _element(result.type) != _element(src.type):
            return (f"result element type {_element(result.type)} differs from the operand's "
                    f"{_element(src.type)}")
    blocks = list(op.regions[0].blocks)
    if len(blocks) != 1:
        return "the combine region must have one block"
    arguments = [a.type for a in blocks[0].arguments]
    wanted = [_element(v.type) for v in sources] * 2
    if arguments != wanted:
        return (f"the combine block takes ({', '.join(map(str, arguments))}); expected "
                f"({', '.join(map(str, wanted))})")
    ops = list(blocks[0].operations)
    yielded = [v.type for v in ops[-1].operands] if ops else []
    if not ops or ops[-1].name != "gpu.yield" or yielded != wanted[:len(sources)]:
        return (f"the combine block must end with gpu.yield of "
                f"({', '.join(map(str, wanted[:len(sources)]))})")
    return None


def _inline_asm(op) -> str | None:
    shapes = {tuple(_shape(v.type)) for v in [*op.operands, *op.results]}
    if len(shapes) > 1:
        return f"operands and results differ in shape: {sorted(shapes)}"
    return None


def _sort(op) -> str | None:
    src, axis = op.operands[0].type, _int_attr(op, "axis")
    if not _shape(src) or axis != len(_shape(src)) - 1:
        return f"sorts along the last dimension only: axis {axis}, shape {_shape(src)}"
    return None


def _gather(op) -> str | None:
    src, index, result = op.operands[0].type, op.operands[1].type, op.results[0].type
    axis, s, i = _int_attr(op, "axis"), _shape(src), _shape(index)
    if not _is_int(index):
        return f"index must be an integer tensor, got {index}"
    if len(i) != len(s) or not 0 <= axis < len(s):
        return f"index {i} must have the rank of src {s}, and axis {axis} be one of its dimensions"
    if any(a != b for d, (a, b) in enumerate(zip(s, i)) if d != axis):
        return f"index {i} and src {s} differ outside axis {axis}"
    return _first(_same_shape("result", index, result), _same_element(op, src, result))


def _histogram(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    if len(_shape(src)) != 1 or not _is_int(src):
        return f"operand must be a 1-D integer tensor, got {src}"
    if len(_shape(result)) != 1 or _text(_element(result)) != "i32":
        return f"result must be a 1-D i32 tensor, got {result}"
    return None


def _cat(op) -> str | None:
    lhs, rhs, result = op.operands[0].type, op.operands[1].type, op.results[0].type
    a, b = _shape(lhs), _shape(rhs)
    if not a or a[1:] != b[1:] or len(a) != len(b) or _element(lhs) != _element(rhs):
        return f"operands must agree except along dimension 0: {lhs} and {rhs}"
    if _shape(result) != [a[0] + b[0]] + a[1:]:
        return f"result shape must be {[a[0] + b[0]] + a[1:]}, got {_shape(result)}"
    return _same_element(op, lhs, result)


_FLOAT_RMW, _INT_RMW = {"fadd"}, {"add", "and", "or", "xor", "umax", "umin"}


def _atomic(op, value: ir.Type, mask: ir.Value | None) -> str | None:
    ptr = op.operands[0].type
    pointee = _pointee(ptr)
    if pointee is None:
        return f"ptr must be a pointer or a tensor of pointers, got {ptr}"
    if _element(value) != pointee:
        return f"value element type {_element(value)} differs from the pointee {pointee}"
    return _first(_same_shape("value", ptr, value), _mask(op, mask, ptr))


def _atomic_rmw(op) -> str | None:
    kind, value = ir.StringAttr(op.attributes["rmw_op"]).value, op.operands[1].type
    if kind in _FLOAT_RMW and not _is_float(value):
        return f"'{kind}' needs floating-point values, got {_element(value)}"
    if kind in _INT_RMW and not _is_int(value):
        return f"'{kind}' needs integer values, got {_element(value)}"
    return _atomic(op, value, op.operands[2] if len(op.operands) > 2 else None)


def _atomic_cas(op) -> str | None:
    return _atomic(op, op.operands[2].type, None)


def _fp_to_fp(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    if not (_is_float(src) and _is_float(result)):
        return f"converts floats to floats, not {_element(src)} to {_element(result)}"
    return _same_shape("result", src, result)


def _bitcast(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    if _bits(src) != _bits(result) or _bits(src) < 0:
        return f"cannot reinterpret {_element(src)} as {_element(result)}: the widths differ"
    return _same_shape("result", src, result)


def _ptr_to_int(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    if _pointee(src) is None or _text(_element(result)) != "i64":
        return f"converts pointers to i64, not {_element(src)} to {_element(result)}"
    return _same_shape("result", src, result)


def _int_to_ptr(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    if _text(_element(src)) != "i64" or _pointee(result) is None:
        return f"converts i64 to pointers, not {_element(src)} to {_element(result)}"
    return _same_shape("result", src, result)


def _assert(op) -> str | None:
    condition = op.operands[0].type
    return None if _is_i1(condition) else f"condition must be i1, got {condition}"


# --- tilegpu ops ----------------------------------------------------------------------------------

def _memdesc(t: ir.Type) -> MemDesc | None:
    return MemDesc.from_type(t) if str(t).startswith("!tilegpu.memdesc<") else None


def _same_data(what: str, tensor: ir.Type, desc: MemDesc) -> str | None:
    """A tensor and a buffer holding the same elements."""
    if tuple(_shape(tensor)) != desc.shape or _text(_element(tensor)) != desc.element_type:
        return (f"{what}: {_shape(tensor)} x {_element(tensor)} differs from the buffer's "
                f"{list(desc.shape)} x {desc.element_type}")
    return None


def _convert_layout(op) -> str | None:
    src, result = op.operands[0].type, op.results[0].type
    return _first(_same_shape("result", src, result), _same_element(op, src, result))


def _local_alloc(op) -> str | None:
    desc = _memdesc(op.results[0].type)
    if not len(op.operands):
        return None if desc.mutable else "an uninitialised buffer must be mutable"
    return _same_data("the initial value", op.operands[0].type, desc)


def _local_load(op) -> str | None:
    return _same_data("result", op.results[0].type, _memdesc(op.operands[0].type))


def _local_store(op) -> str | None:
    desc = _memdesc(op.operands[1].type)
    if not desc.mutable:
        return "stores into an immutable buffer"
    return _same_data("value", op.operands[0].type, desc)


def _memdesc_subview(op) -> str | None:
    src, result = _memdesc(op.operands[0].type), _memdesc(op.results[0].type)
    offsets = list(op.operands)[1:]
    if len(offsets) != len(src.shape):
        return f"{len(offsets)} offsets for a buffer of rank {len(src.shape)}"
    tail = src.shape[len(src.shape) - len(result.shape):]
    if len(result.shape) > len(src.shape) or any(r > s for r, s in zip(result.shape, tail)):
        return f"a view {list(result.shape)} does not fit in {list(src.shape)}"
    if result.element_type != src.element_type:
        return f"element type {result.element_type} differs from the buffer's {src.element_type}"
    return None


def _memdesc_trans(op) -> str | None:
    src, result = _memdesc(op.operands[0].type), _memdesc(op.results[0].type)
    if len(src.shape) != 2 or result.shape != src.shape[::-1]:
        return f"transposes 2-D buffers: {list(src.shape)} -> {list(result.shape)}"
    if result.element_type != src.element_type:
        return f"element type {result.element_type} differs from the buffer's {src.element_type}"
    return None


def _async_copy(op) -> str | None:
    src, desc = op.operands[0].type, _memdesc(op.operands[1].type)
    pointee = _pointee(src)
    if pointee is None or not _is_tensor(src):
        return f"src must be a tensor of pointers, got {src}"
    if tuple(_shape(src)) != desc.shape[len(desc.shape) - len(_shape(src)):] or \
            _text(pointee) != desc.element_type:
        return (f"copies {_shape(src)} x {pointee} into a buffer of {list(desc.shape)} x "
                f"{desc.element_type}")
    return _mask(op, _operand(op, 2), src)


def _async_wait(op) -> str | None:
    num = _int_attr(op, "num")
    return None if num >= 0 else f"num must not be negative, got {num}"


def _warpgroup_dot(op) -> str | None:
    a, b, c = (v.type for v in op.operands)
    da, db = _memdesc(a), _memdesc(b)
    if db is None:
        return f"b must be a buffer in shared memory, got {b}"
    a_shape = list(da.shape) if da is not None else _shape(a)
    return _matmul_shapes(a_shape, list(db.shape), _shape(c))


def _warpgroup_dot_wait(op) -> str | None:
    if [v.type for v in op.operands] != [r.type for r in op.results]:
        return "results must have the types of the inputs"
    pendings = _int_attr(op, "pendings")
    return None if pendings >= 0 else f"pendings must not be negative, got {pendings}"


def _barriers(value: ir.Value, one: bool = False) -> str | None:
    """A buffer of mbarriers (i64: [n], or a ring [stages, n]), of exactly one when `one`."""
    desc = _memdesc(value.type)
    if desc is None or desc.element_type != "i64" or desc.layout.rank != 1:
        return f"barriers are a 1-D buffer of i64 (or a ring of them), got {value.type}"
    if one and math.prod(desc.shape) != 1:
        return f"waits on one barrier, got a buffer of {math.prod(desc.shape)}"
    return None


MAX_ARRIVALS = 2**20 - 1  # what an mbarrier counts


def _init_barrier(op) -> str | None:
    count = _int_attr(op, "count")
    return _barriers(op.operands[0]) or (
        None if 1 <= count <= MAX_ARRIVALS else
        f"count must be from 1 to {MAX_ARRIVALS} arrivals, got {count}")


def _inval_barrier(op) -> str | None:
    return _barriers(op.operands[0])


def _wait_barrier(op) -> str | None:
    return _barriers(op.operands[0], one=True)


def _cluster_size(op, name: str) -> str | None:
    """A `ctas`/`multicast` attribute, where present: a cluster of 2, 4 or 8 CTAs."""
    if name not in op.attributes:
        return None
    value = op.attributes[name]
    if not isinstance(value, ir.IntegerAttr) or value.value not in (2, 4, 8):
        return f"{name} is the cluster's CTAs, 2, 4 or 8, not {value}"
    return None


def _arrive_barrier(op) -> str | None:
    return _barriers(op.operands[0], one=True) or _cluster_size(op, "ctas")


def _num_warps_around(op) -> int:
    """The num_warps of the module holding `op` (4 where none says)."""
    module = enclosing(op, "builtin.module")
    return module_num_warps(module) if module is not None else 4


def _warp_specialize(op) -> str | None:
    """Whole warpgroups whose registers fit the file; the op ends its kernel."""
    num_warps = _num_warps_around(op)
    problem = check_division(num_warps, _int_attr(op, "producer_warps"),
                             _int_attr(op, "producer_registers"),
                             _int_attr(op, "consumer_registers"))
    if problem:
        return problem
    for region in op.regions:
        if len(region.blocks) != 1 or not len(region.blocks[0].operations) or \
                list(region.blocks[0].operations)[-1].operation.name != "gpu.yield":
            return "each region must be one block ending with gpu.yield"
    ops = [o.operation for o in op.block.operations]
    following = ops[ops.index(op) + 1:]
    if op.parent is None or op.parent.name != "func.func" or \
            [o.name for o in following] != ["func.return"]:
        return "must be the last op of its kernel before the return (both regions end it)"
    return None


def _loop_hints(op) -> str | None:
    """What tl.range asks of an scf.for: `tile.num_stages` an integer from 0 to
    MAX_NUM_STAGES, `tile.warp_specialize` 0 or 1."""
    for name, low, high in (("tile.num_stages", 0, MAX_NUM_STAGES),
                            ("tile.warp_specialize", 0, 1)):
        if name not in op.attributes:
            continue
        attr = op.attributes[name]
        if not isinstance(attr, ir.IntegerAttr) or isinstance(attr, ir.BoolAttr) or \
                not low <= ir.IntegerAttr(attr).value <= high:
            return f"{name} must be an integer from {low} to {high}, got {attr}"
    return None


def _split_kernel(op) -> str | None:
    """A kernel whose rows tile-split-ctas shared out among N CTAs (`tile.split_ctas`) is
    launched as clusters of N: once the module says how many (tilegpu IR), the same N."""
    if "tile.split_ctas" not in op.attributes:
        return None
    problem = _cluster_size(op, "tile.split_ctas")
    if problem:
        return problem
    attr = op.attributes["tile.split_ctas"]
    module = enclosing(op, "builtin.module")
    if module is None or "tilegpu.num_warps" not in module.attributes:
        return None  # tile IR: convert-tile-to-tilegpu's num-ctas says it next
    ctas = int_value(module.attributes["tilegpu.num_ctas"], "tilegpu.num_ctas") \
        if "tilegpu.num_ctas" in module.attributes else 1
    if ctas != attr.value:
        return (f"shares its rows out among {attr.value} CTAs (tile.split_ctas) but the "
                f"module's programs have {ctas} (tilegpu.num_ctas)")
    return None


def _warpgroup_turn(op) -> str | None:
    """In a warp_specialize's consumer region, whose num_warps make two or more warpgroups;
    `warpgroup` -1 or one of them."""
    side = split_side(op)
    if side is None or side[1] != 1:
        return "must be in the consumer region of a tilegpu.warp_specialize"
    warpgroups = _num_warps_around(op) // WARPGROUP
    if warpgroups < 2:
        return f"turns need two or more consumer warpgroups, the module has {warpgroups}"
    warpgroup = _int_attr(op, "warpgroup")
    if not -1 <= warpgroup < warpgroups:
        return f"warpgroup must be -1 or below {warpgroups}, got {warpgroup}"
    return None


def _tma_copy(op) -> str | None:
    problem = _barriers(op.operands[1], one=True) or _cluster_size(op, "multicast")
    if problem:
        return problem
    desc = _memdesc(op.operands[2].type)
    if desc is not None and not desc.mutable:
        return "copies into an immutable buffer"
    return _tma_buffer("dst", op.operands[2], list(op.operands)[3:])


def _tma_store_copy(op) -> str | None:
    return _tma_buffer("src", op.operands[1], list(op.operands)[2:])


def _tma_store_wait(op) -> str | None:
    pendings = _int_attr(op, "pendings")
    return None if pendings >= 0 else f"pendings must not be negative, got {pendings}"


def _tma_buffer(what: str, buffer: ir.Value, coords: list) -> str | None:
    """The shared buffer of a TMA copy: one tile in an nvmma_shared layout of whole column
    blocks, one coordinate per dimension."""
    desc = _memdesc(buffer.type)
    if desc is None or not isinstance(desc.layout, NvmmaSharedLayout) or \
            len(desc.shape) != desc.layout.rank:
        return f"{what} must be one buffer in an nvmma_shared layout, got {buffer.type}"
    if len(coords) != len(desc.shape):
        return f"{len(coords)} coordinates for a buffer of rank {len(desc.shape)}"
    width = desc.shape[desc.layout.order[0]]
    if width % desc.layout.block_width:
        return (f"the fastest dimension ({width}) is not a whole number of "
                f"{desc.layout.block_width}-element column blocks")
    return None


RULES: dict[str, Callable[[ir.Operation], str | None]] = {
    "tile.program_id": _grid_axis, "tile.num_programs": _grid_axis,
    "tile.make_range": _make_range, "tile.splat": _splat, "tile.broadcast": _broadcast,
    "tile.expand_dims": _expand_dims, "tile.reshape": _reshape, "tile.trans": _trans,
    "tile.join": _join, "tile.split": _split, "tile.addptr": _addptr, "tile.load": _load,
    "tile.store": _store, "tile.dot": _dot, "tile.reduce": _combining, "tile.scan": _combining,
    "tile.elementwise_inline_asm": _inline_asm, "tile.sort": _sort, "tile.gather": _gather,
    "tile.histogram": _histogram, "tile.cat": _cat, "tile.atomic_rmw": _atomic_rmw,
    "tile.atomic_cas": _atomic_cas, "tile.fp_to_fp": _fp_to_fp, "tile.bitcast": _bitcast,
    "tile.ptr_to_int": _ptr_to_int, "tile.int_to_ptr": _int_to_ptr, "tile.assert": _assert,
    "tilegpu.convert_layout": _convert_layout, "tilegpu.local_alloc": _local_alloc,
    "tilegpu.local_load": _local_load, "tilegpu.local_store": _local_store,
    "tilegpu.memdesc_subview": _memdesc_subview, "tilegpu.memdesc_trans": _memdesc_trans,
    "tilegpu.async_copy_global_to_local": _async_copy, "tilegpu.async_wait": _async_wait,
    "tilegpu.warpgroup_dot": _warpgroup_dot, "tilegpu.warpgroup_dot_wait": _warpgroup_dot_wait,
    "tile.tma_load": _tma_load, "tilegpu.init_barrier": _init_barrier,
    "tilegpu.inval_barrier": _inval_barrier, "tilegpu.wait_barrier": _wait_barrier,
    "tilegpu.arrive_barrier": _arrive_barrier, "tilegpu.warp_specialize": _warp_specialize,
    "tilegpu.async_tma_copy_global_to_local": _tma_copy, "tile.tma_store": _tma_store,
    "tilegpu.async_tma_copy_local_to_global": _tma_store_copy,
    "tilegpu.tma_store_wait": _tma_store_wait, "tile.make_tensormap": _make_tensormap,
    "tile.tma_reduce": _tma_reduce, "tilegpu.async_tma_reduce": _tma_reduce_copy,
    "tilegpu.warpgroup_turn_wait": _warpgroup_turn, "tilegpu.warpgroup_turn_pass": _warpgroup_turn,
    "scf.for": _loop_hints, "func.func": _split_kernel,
}


# --- types of every value: static shapes, layouts that fit ----------------------------------------

@dataclass
class _Module:
    """What a module says of its threads (absent before convert-tile-to-tilegpu)."""
    num_warps: int | None
    threads_per_warp: int | None


def _layout_problem(layout, rank: int, where: _Module) -> str | None:
    """Why `layout` cannot lay out a tensor of `rank` in this module, or None."""
    if layout.rank != rank:
        return f"layout {layout.text()} has rank {layout.rank}, the tensor {rank}"
    while isinstance(layout, (SliceLayout, DotOperandLayout)):
        layout = layout.parent
    if isinstance(layout, (SharedLayout, NvmmaSharedLayout)):
        return f"{layout.text()} is a shared-memory layout, not one of registers"
    warps = None
    if isinstance(layout, BlockedLayout):
        lanes = math.prod(layout.threads_per_warp)
        if where.threads_per_warp is not None and lanes != where.threads_per_warp:
            return (f"layout {layout.text()} has {lanes} lanes a warp; the module's warps have "
                    f"{where.threads_per_warp}")
        warps = math.prod(layout.warps_per_cta)
    elif isinstance(layout, MmaLayout):
        warps = math.prod(layout.warps_per_cta)
    if where.num_warps is not None and warps is not None and warps != where.num_warps:
        return f"layout {layout.text()} spans {warps} warps; the module has {where.num_warps}"
    return None


def _address_space_problem(t: ir.Type) -> str | None:
    """A pointer's address space is an i32 (IRDL allows any integer: `1 : i1` reached LLVM as
    !llvm.ptr<True>)."""
    element = _element(t)
    if not tile.is_ptr(element):
        return None
    space = split_parameters(str(element), "!tile.ptr")[1].strip()
    number, _, width = space.partition(":")
    if width.strip() != "i32" or not number.strip().isdigit() or int(number) >= 2**24:
        return f"{element}: a pointer's address space is an i32 from 0 to 2^24 - 1, not {space}"
    return None


def _pointee_problem(t: ir.Type) -> str | None:
    """A pointer points to what a program loads and stores: an integer, a float (of a width
    memory holds: not tf32) or a pointer."""
    element = _element(t)
    if not tile.is_ptr(element):
        return None
    try:
        pointee = tile.ptr_pointee(element)
    except ir.MLIRError:
        return None  # not a type at all: said where the pointee is used
    if isinstance(pointee, ir.IntegerType) or tile.is_ptr(pointee) or (
            isinstance(pointee, ir.FloatType) and str(pointee) != "tf32"):
        return None
    return (f"{element}: a pointer points to an integer, a float or a pointer, not "
            f"{pointee}")


def _type_problem(t: ir.Type, where: _Module) -> str | None:
    problem = _address_space_problem(t) or _pointee_problem(t)
    if problem:
        return problem
    if isinstance(t, ir.UnrankedTensorType):
        return f"{t}: tensors of tile programs have static shapes"
    if _is_tensor(t):
        if not t.has_static_shape:
            return f"{t}: tensors of tile programs have static shapes"
        if any(d <= 0 or d & (d - 1) for d in t.shape):
            return (f"{t}: a tensor's dimensions are powers of two (as the language's blocks "
                    "are; layouts split them in halves)")
        if t.encoding is not None:
            try:
                layout = layout_from_attr(t.encoding)
            except ValueError as err:
                return f"{t}: {err}"
            return _layout_problem(layout, t.rank, where)
    elif str(t).startswith("!tilegpu.memdesc<"):
        try:
            desc = MemDesc.from_type(t)
        except ValueError as err:
            return f"{t}: {err}"
        if not all(d > 0 for d in desc.shape):
            return f"{t}: a buffer's dimensions must be positive"
        nbytes = memdesc_bytes(t)
        if nbytes > 2**31 - 1:
            return (f"{t}: a buffer of {nbytes} bytes; tilec places buffers of at most "
                    "2^31 - 1 bytes (a GPU has at most 228 KiB per block)")
        if not isinstance(desc.layout, (SharedLayout, NvmmaSharedLayout)):
            return f"{t}: a buffer's layout is a shared-memory one, not {desc.layout.text()}"
    return None


def _module_facts(module: ir.Operation) -> _Module:
    """What the module says of its threads; ValueError when it says it wrongly."""
    attrs = module.attributes

    def read(name: str, rule) -> int | None:
        if name not in attrs:
            return None
        value = int_value(attrs[name], name)
        valid, expected = rule
        if not valid(value):
            raise ValueError(f"{name} must be {expected}, got {value}")
        return value
    if "tilegpu.target" in attrs:
        target = attrs["tilegpu.target"]
        valid, expected = TARGET
        if not isinstance(target, ir.StringAttr) or not valid(target.value):
            raise ValueError(f"tilegpu.target must be {expected}, got {target}")
    read("tilegpu.num_ctas", NUM_CTAS)  # checked: the lowering makes clusters of that size
    return _Module(read("tilegpu.num_warps", NUM_WARPS),
                   read("tilegpu.threads_per_warp", THREADS_PER_WARP))


def verify(module: ir.Operation, max_nesting: int = MAX_NESTING) -> list[Problem]:
    """Every broken rule in `module` (the builtin.module op), in walk order."""
    module = module.operation
    problems: list[Problem] = []
    try:
        where = _module_facts(module)
    except ValueError as err:
        problems.append(Problem(module, f"'builtin.module' op {err}"))
        where = _Module(None, None)
    stack = [(module, 0)]
    too_deep = False
    while stack:
        op, depth = stack.pop()
        if depth > max_nesting:
            if not too_deep:  # once: what is nested inside is not looked at
                problems.append(Problem(op, f"regions nest more than {max_nesting} deep here; "
                                            "tilec handles at most that"))
            too_deep = True
            continue
        blocks = [block for region in op.regions for block in region.blocks]
        # every value's type: its results, and the arguments of the blocks it holds
        types = [r.type for r in op.results] + [a.type for b in blocks for a in b.arguments]
        if op.name == "func.func":  # declarations too: the signature's types
            signature = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            types += [*signature.inputs, *signature.results]
        message = next((m for m in (_type_problem(t, where) for t in types) if m), None)
        rule = RULES.get(op.name)
        if message is None and rule is not None:
            message = _checked(rule, op)
        if message is None:
            message = _placement_problem(op)
        if message:
            problems.append(Problem(op, f"'{op.name}' op {message}"))
        children = [(child.operation, depth + 1) for block in blocks
                    for child in block.operations]
        stack.extend(reversed(children))
    return problems


def _placement_problem(op: ir.Operation) -> str | None:
    """tilegpu-allocate-shared-memory places a buffer or scratch with an offset and a size,
    together; passes after it read both."""
    attrs = op.attributes
    present = [name for name in (OFFSET_ATTR, BYTES_ATTR) if name in attrs]
    if not present:
        return None
    if len(present) == 1:
        missing = BYTES_ATTR if present[0] == OFFSET_ATTR else OFFSET_ATTR
        return f"has {present[0]} without {missing}: shared memory is placed with both"
    for name in present:
        try:
            value = int_value(attrs[name], name)
        except ValueError as err:
            return str(err)
        if not 0 <= value < 2**31:
            return f"{name} must be from 0 to 2^31 - 1, got {value}"
    return None


def _checked(rule, op: ir.Operation) -> str | None:
    """A rule's verdict; a rule reading a malformed operand (a memdesc where IRDL allowed
    anything) says what it could not read rather than failing."""
    try:
        return rule(op)
    except (ValueError, TypeError, IndexError, KeyError, ir.MLIRError) as err:
        return f"has operands or attributes of the wrong kind ({type(err).__name__}: {err})"


def check(module: ir.Operation, max_nesting: int = MAX_NESTING) -> None:
    """Raise the problems of `module` as a DiagnosticError (each at its op's location)."""
    with module.context:
        problems = verify(module, max_nesting)
    if problems:
        raise DiagnosticError([Diagnostic("error", p.message,
                                          *(file_line_col(p.op.location) or (None,) * 3))
                               for p in problems])
