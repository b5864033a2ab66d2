"""Builders and readers for the `tile` dialect (types in dialects/tile.irdl.mlir).

Builders run inside `with context, location, ir.InsertionPoint(...)` like upstream builders and
return the new op's result (or the op, for ops without results). Result types follow the
operand types as each op's semantics say (dialects/README.md).
"""
from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from tilec.dialects.params import split_parameters, to_value

# --- types ---------------------------------------------------------------------------------

GLOBAL = 1


def ptr_type(pointee: ir.Type, addrspace: int = GLOBAL) -> ir.Type:
    return ir.Type.parse(f"!tile.ptr<{pointee}, {addrspace} : i32>")


def is_ptr(t: ir.Type) -> bool:
    return str(t).startswith("!tile.ptr<")


def ptr_pointee(t: ir.Type) -> ir.Type:
    return ir.Type.parse(split_parameters(str(t), "!tile.ptr")[0])


def ptr_addrspace(t: ir.Type) -> int:
    return to_value(split_parameters(str(t), "!tile.ptr")[1])


def element_type(t: ir.Type) -> ir.Type:
    """The element type of a tensor, or the type itself for a scalar."""
    return t.element_type if isinstance(t, ir.RankedTensorType) else t


FP8_TYPES = ("f8E4M3FN", "f8E5M2")  # tl.float8e4nv, tl.float8e5


def is_fp8(t: ir.Type) -> bool:
    """Whether `t` (or a tensor's element type) is one of the fp8 types tilec takes."""
    return str(element_type(t)) in FP8_TYPES


def shape_of(t: ir.Type) -> list[int]:
    return list(t.shape) if isinstance(t, ir.RankedTensorType) else []


def tensor_type(shape: Sequence[int], element: ir.Type) -> ir.Type:
    return ir.RankedTensorType.get(list(shape), element)


def like(t: ir.Type, element: ir.Type) -> ir.Type:
    """`t`'s shape and layout encoding with another element type (a scalar stays a scalar)."""
    if not isinstance(t, ir.RankedTensorType):
        return element
    return ir.RankedTensorType.get(list(t.shape), element, t.encoding)


# --- op builders -----------------------------------------------------------------------------

def _i32(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value)


def _str(value: str) -> ir.Attribute:
    return ir.StringAttr.get(value)


def _bool(value: bool) -> ir.Attribute:
    return ir.BoolAttr.get(value)


def _create(name, results=(), operands=(), attributes=None, regions=0):
    return ir.Operation.create(f"tile.{name}", results=list(results), operands=list(operands),
                               attributes=attributes or {}, regions=regions)


def program_id(axis: int) -> ir.Value:
    return _create("program_id", [ir.IntegerType.get_signless(32)], [], {"axis": _i32(axis)}).result


def cta_rank() -> ir.Value:
    """The CTA's rank in its program's cluster (tile-split-ctas)."""
    return _create("cta_rank", [ir.IntegerType.get_signless(32)]).result


def num_programs(axis: int) -> ir.Value:
    return _create("num_programs", [ir.IntegerType.get_signless(32)], [],
                   {"axis": _i32(axis)}).result


def make_range(start: int, end: int) -> ir.Value:
    result = tensor_type([end - start], ir.IntegerType.get_signless(32))
    return _create("make_range", [result], [], {"start": _i32(start), "end": _i32(end)}).result


def splat(value: ir.Value, shape: Sequence[int]) -> ir.Value:
    return _create("splat", [tensor_type(shape, value.type)], [value]).result


def broadcast(src: ir.Value, shape: Sequence[int]) -> ir.Value:
    return _create("broadcast", [tensor_type(shape, element_type(src.type))], [src]).result


def expand_dims(src: ir.Value, axis: int) -> ir.Value:
    shape = shape_of(src.type)
    shape.insert(axis, 1)
    return _create("expand_dims", [tensor_type(shape, element_type(src.type))], [src],
                   {"axis": _i32(axis)}).result


def reshape(src: ir.Value, shape: Sequence[int], allow_reorder: bool = False) -> ir.Value:
    return _create("reshape", [tensor_type(shape, element_type(src.type))], [src],
                   {"allow_reorder": _bool(allow_reorder)}).result


def trans(src: ir.Value, order: Sequence[int]) -> ir.Value:
    shape = shape_of(src.type)
    result = tensor_type([shape[i] for i in order], element_type(src.type))
    return _create("trans", [result], [src], {"order": ir.DenseI32ArrayAttr.get(list(order))}).result


def join(lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    result = tensor_type(shape_of(lhs.type) + [2], element_type(lhs.type))
    return _create("join", [result], [lhs, rhs]).result


def split(src: ir.Value) -> tuple[ir.Value, ir.Value]:
    rest = shape_of(src.type)[:-1]  # a block of 2 splits into two scalars
    half = tensor_type(rest, element_type(src.type)) if rest else element_type(src.type)
    op = _create("split", [half, half], [src])
    return op.results[0], op.results[1]


def addptr(ptr: ir.Value, offset: ir.Value) -> ir.Value:
    return _create("addptr", [ptr.type], [ptr, offset]).result


def load(ptr: ir.Value, mask: ir.Value | None = None, other: ir.Value | None = None,
         cache: str = "none", evict: str = "evict_normal", is_volatile: bool = False) -> ir.Value:
    result = like(ptr.type, ptr_pointee(element_type(ptr.type)))
    operands = [ptr] + [v for v in (mask, other) if v is not None]
    attrs = {"cache": _str(cache), "evict": _str(evict), "is_volatile": _bool(is_volatile),
             "operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                 [1, int(mask is not None), int(other is not None)])}
    return _create("load", [result], operands, attrs).result


def tma_load(tensormap: ir.Value, offsets: Sequence[ir.Value], result: ir.Type,
             swizzle: int) -> ir.Value:
    return _create("tma_load", [result], [tensormap, *offsets],
                   {"swizzle": _i32(swizzle)}).result


def make_tensormap(scratch: ir.Value, base: ir.Value, dims: Sequence[ir.Value],
                   strides: Sequence[ir.Value], box: Sequence[int], swizzle: int,
                   slot: int) -> ir.Value:
    attrs = {"box": ir.DenseI32ArrayAttr.get(list(box)), "swizzle": _i32(swizzle),
             "slot": _i32(slot),
             "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, len(dims), len(strides)])}
    return _create("make_tensormap", [ir.Type.parse("!llvm.ptr")],
                   [scratch, base, *dims, *strides], attrs).result


def tma_reduce(tensormap: ir.Value, value: ir.Value, offsets: Sequence[ir.Value],
               swizzle: int, kind: str = "add") -> ir.Operation:
    return _create("tma_reduce", [], [tensormap, value, *offsets],
                   {"swizzle": _i32(swizzle), "kind": _str(kind)})


def tma_store(tensormap: ir.Value, value: ir.Value, offsets: Sequence[ir.Value],
              swizzle: int) -> ir.Operation:
    return _create("tma_store", [], [tensormap, value, *offsets], {"swizzle": _i32(swizzle)})


def store(ptr: ir.Value, value: ir.Value, mask: ir.Value | None = None, cache: str = "none",
          evict: str = "evict_normal") -> ir.Operation:
    operands = [ptr, value] + ([mask] if mask is not None else [])
    return _create("store", [], operands, {"cache": _str(cache), "evict": _str(evict)})


def dot(a: ir.Value, b: ir.Value, c: ir.Value, input_precision: str = "tf32",
        max_num_imprecise_acc: int = 0) -> ir.Value:
    attrs = {"input_precision": _str(input_precision),
             "max_num_imprecise_acc": _i32(max_num_imprecise_acc)}
    return _create("dot", [c.type], [a, b, c], attrs).result


def _segments(count: int) -> ir.Attribute:
    return ir.DenseI32ArrayAttr.get([1] + [int(i < count) for i in range(1, 4)])


def _combining(name: str, srcs: Sequence[ir.Value], results: Sequence[ir.Type],
               attrs: dict) -> ir.Operation:
    """A reduce or scan op with an empty combine block taking 2*N scalar arguments."""
    if not 1 <= len(srcs) <= 4:
        raise ValueError(f"tile.{name} takes 1 to 4 tensors, got {len(srcs)}")
    attrs = dict(attrs, operandSegmentSizes=_segments(len(srcs)),
                 resultSegmentSizes=_segments(len(srcs)))
    op = _create(name, results, srcs, attrs, regions=1)
    scalars = [element_type(s.type) for s in srcs] * 2
    op.regions[0].blocks.append(*scalars)
    return op


def reduce(srcs: Sequence[ir.Value], axis: int) -> ir.Operation:
    """Build the op; the caller fills `op.regions[0].blocks[0]` and ends it with `gpu.yield`."""
    results = []
    for s in srcs:
        shape = shape_of(s.type)
        del shape[axis]
        results.append(tensor_type(shape, element_type(s.type)) if shape else element_type(s.type))
    return _combining("reduce", srcs, results, {"axis": _i32(axis)})


def scan(srcs: Sequence[ir.Value], axis: int, reverse: bool = False) -> ir.Operation:
    return _combining("scan", srcs, [s.type for s in srcs],
                      {"axis": _i32(axis), "reverse": _bool(reverse)})


def elementwise_inline_asm(asm: str, constraints: str, args: Sequence[ir.Value],
                           results: Sequence[ir.Type], pure: bool, pack: int) -> list[ir.Value]:
    if not 0 <= len(args) <= 4 or not 1 <= len(results) <= 4:
        raise ValueError("tile.elementwise_inline_asm takes 0 to 4 arguments, 1 to 4 results")
    operand_groups = ir.DenseI32ArrayAttr.get([int(i < len(args)) for i in range(4)])
    attrs = {"asm": _str(asm), "constraints": _str(constraints), "pure": _bool(pure),
             "pack": _i32(pack), "operandSegmentSizes": operand_groups,
             "resultSegmentSizes": _segments(len(results))}
    return list(_create("elementwise_inline_asm", results, args, attrs).results)


def sort(src: ir.Value, axis: int, descending: bool = False) -> ir.Value:
    attrs = {"axis": _i32(axis), "descending": _bool(descending)}
    return _create("sort", [src.type], [src], attrs).result


def gather(src: ir.Value, index: ir.Value, axis: int) -> ir.Value:
    result = tensor_type(shape_of(index.type), element_type(src.type))
    return _create("gather", [result], [src, index], {"axis": _i32(axis)}).result


def histogram(src: ir.Value, num_bins: int) -> ir.Value:
    result = tensor_type([num_bins], ir.IntegerType.get_signless(32))
    return _create("histogram", [result], [src]).result


def cat(lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    shape = shape_of(lhs.type)
    shape[0] += shape_of(rhs.type)[0]
    return _create("cat", [tensor_type(shape, element_type(lhs.type))], [lhs, rhs]).result


def atomic_rmw(rmw_op: str, ptr: ir.Value, value: ir.Value, mask: ir.Value | None = None,
               sem: str = "acq_rel", scope: str = "gpu") -> ir.Value:
    operands = [ptr, value] + ([mask] if mask is not None else [])
    attrs = {"rmw_op": _str(rmw_op), "sem": _str(sem), "scope": _str(scope)}
    return _create("atomic_rmw", [value.type], operands, attrs).result


def atomic_cas(ptr: ir.Value, cmp: ir.Value, value: ir.Value, sem: str = "acq_rel",
               scope: str = "gpu") -> ir.Value:
    attrs = {"sem": _str(sem), "scope": _str(scope)}
    return _create("atomic_cas", [value.type], [ptr, cmp, value], attrs).result


def fp_to_fp(src: ir.Value, result_type: ir.Type, rounding: str = "none") -> ir.Value:
    return _create("fp_to_fp", [result_type], [src], {"rounding": _str(rounding)}).result


def bitcast(src: ir.Value, result_type: ir.Type) -> ir.Value:
    return _create("bitcast", [result_type], [src]).result


def int_to_ptr(src: ir.Value, result_type: ir.Type) -> ir.Value:
    return _create("int_to_ptr", [result_type], [src]).result


def ptr_to_int(src: ir.Value, result_type: ir.Type) -> ir.Value:
    return _create("ptr_to_int", [result_type], [src]).result


def print_(prefix: str, value: ir.Value | None = None, hex: bool = False) -> ir.Operation:
    operands = [value] if value is not None else []
    return _create("print", [], operands, {"prefix": _str(prefix), "hex": _bool(hex)})


def assert_(condition: ir.Value, message: str) -> ir.Operation:
    return _create("assert", [], [condition], {"message": _str(message)})
