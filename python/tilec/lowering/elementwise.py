"""Lowering rules for values computed per element: constants, ids, ranges, splats, arithmetic,
math, casts, pointer arithmetic, and layout changes that stay inside a thread."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec import fp8
from tilec.analysis.layouts import to_linear
from tilec.dialects import tile
from tilec.lowering import ptx
from tilec.lowering.context import (FP8, Distributed, Lowering, LoweringError, from_memory, i32,
                                    is_fp8, memory_type, rule, scalar_type, value_type,
                                    vector_of)
from tilec.lowering.coordinates import DYNAMIC_INDEX


def _attributes(op: ir.Operation) -> dict:
    return {name: op.attributes[name] for name in op.attributes}


def _fp8_bits(value: ir.Attribute, element: ir.Type) -> int:
    """The byte of an fp8 constant (saturating, as the conversions do)."""
    return fp8.bits(ir.FloatAttr(value).value, fp8.BY_MLIR[str(element)])


@rule("arith.constant")
def lower_constant(ctx: Lowering, op: ir.Operation):
    result = op.results[0]
    if not isinstance(result.type, ir.RankedTensorType):
        if is_fp8(result.type):
            return [i8(_fp8_bits(op.attributes["value"], result.type))]
        return [ir.Operation.create("arith.constant", results=[result.type],
                                    attributes=_attributes(op)).result]
    dense = ir.DenseElementsAttr(op.attributes["value"])
    if not dense.is_splat:
        raise NotImplementedError("non-splat tensor constants")
    element = scalar_type(result.type)
    if is_fp8(tile.element_type(result.type)):
        value = i8(_fp8_bits(dense.get_splat_value(), tile.element_type(result.type)))
    else:
        value = arith.constant(element, dense.get_splat_value())
    layout, shape = ctx.layout_of(result)
    return [Distributed(layout, shape, [value] * to_linear(layout, shape).num_registers)]


def _elementwise(ctx: Lowering, op: ir.Operation):
    operands = [ctx.get(v) for v in op.operands]
    tensors = [d for d in operands if isinstance(d, Distributed)]
    attributes = _attributes(op)
    if not tensors:
        types = [value_type(r.type) for r in op.results]
        return list(ir.Operation.create(op.name, results=types, operands=operands,
                                        attributes=attributes).results)
    count = len(tensors[0].values)
    types = [scalar_type(r.type) for r in op.results]
    per_result = [[] for _ in op.results]
    same = _equal_registers(ctx, op, count)
    for i in range(count):
        if same[i] != i:  # the value another of this thread's registers computes
            for lst in per_result:
                lst.append(lst[same[i]])
            continue
        args = [d.values[i] if isinstance(d, Distributed) else d for d in operands]
        new = ir.Operation.create(op.name, results=types, operands=args, attributes=attributes)
        for lst, value in zip(per_result, new.results):
            lst.append(value)
    out = []
    for result, values in zip(op.results, per_result):
        layout, shape = ctx.layout_of(result)
        out.append(Distributed(layout, shape, values))
    return out


def _equal_registers(ctx: Lowering, op: ir.Operation, count: int) -> list[int]:
    """For each register of `op`'s integer result, the first register that holds the same
    value: the axis analysis's constancy says the result is constant over aligned blocks of
    `c[d]` elements along each dimension d, and two registers whose coordinates differ only
    below those block sizes (for every thread alike: coordinates are the registers' bits XOR
    the thread's) share a block. A mask `offs_k[:, None] < K - k * BLOCK_K` with K divisible
    by 16 is computed once per 16 rows a thread holds, not once per row."""
    result = op.results[0]
    same = list(range(count))
    if ctx.axis is None or len(op.results) != 1 or \
            not isinstance(result.type, ir.RankedTensorType) or \
            not isinstance(tile.element_type(result.type), ir.IntegerType):
        return same
    constancy = ctx.axis.get(result).constancy
    if all(c == 1 for c in constancy):
        return same
    layout, shape = ctx.layout_of(result)
    linear = to_linear(layout, shape)
    shifts = [c.bit_length() - 1 for c in constancy]
    first: dict[tuple, int] = {}
    for reg in range(count):
        block = tuple(x >> k for x, k in zip(linear.register_coords(reg), shifts))
        same[reg] = first.setdefault(block, reg)
    return same


@rule("math.exp2")
def lower_exp2(ctx: Lowering, op: ir.Operation):
    """fp32 `tl.exp2` is one `ex2.approx.ftz.f32`, as in Triton: results below 2^-126 flush
    to zero (without ftz, ptxas wraps every ex2 in a range test and two multiplies to keep
    them denormal; an online softmax takes 32 exp2s per thread per trip). Other types take
    the generic path."""
    if str(scalar_type(op.results[0].type)) != "f32":
        return _elementwise(ctx, op)
    return _intrinsic(ctx, op, "llvm.nvvm.ex2.approx.ftz.f")


@rule("math.sqrt")
def lower_sqrt(ctx: Lowering, op: ir.Operation):
    """fp32 `tl.sqrt_rn` (a math.sqrt without `afn`) is `sqrt.rn.f32`, correctly rounded: the
    generic path goes through libdevice's __nv_sqrtf, which is approximate unless the module
    asks for precise square roots. `tl.sqrt` (with `afn`) and other types take the generic
    path."""
    fastmath = str(op.attributes["fastmath"]) if "fastmath" in op.attributes else ""
    if str(scalar_type(op.results[0].type)) != "f32" or "afn" in fastmath:
        return _elementwise(ctx, op)
    return _intrinsic(ctx, op, "llvm.nvvm.sqrt.rn.f")


@rule("math.trunc")
def lower_trunc(ctx: Lowering, op: ir.Operation):
    """Rounding toward zero is LLVM's trunc intrinsic (cvt.rzi), which the generic path (the
    GPU pipeline has no rule for math.trunc) does not reach."""
    element = str(scalar_type(op.results[0].type))
    if element not in ("f32", "f64"):
        return _elementwise(ctx, op)
    return _intrinsic(ctx, op, f"llvm.trunc.{element}")


def _intrinsic(ctx: Lowering, op: ir.Operation, name: str):
    """The unary op `op` as the LLVM or NVVM intrinsic `name`, per register."""
    source = ctx.get(op.operands[0])
    element = scalar_type(op.results[0].type)

    def call(x):
        return ir.Operation.create(
            "llvm.call_intrinsic", results=[element], operands=[x],
            attributes={"intrin": ir.StringAttr.get(name),
                        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0]),
                        "op_bundle_sizes": ir.DenseI32ArrayAttr.get([])}).result
    if not isinstance(source, Distributed):
        return [call(source)]
    return [Distributed(source.layout, source.shape, [call(x) for x in source.values])]


@rule("arith.*", "math.*")
def lower_elementwise(ctx: Lowering, op: ir.Operation):
    if op.regions:
        raise NotImplementedError("ops with regions")
    return _elementwise(ctx, op)


def grid_index(name: str, axis: int) -> ir.Value:
    """`gpu.block_id`, `gpu.grid_dim`, `gpu.cluster_id` or `gpu.cluster_dim` (`name`) along
    `axis`, as an i32."""
    dim = ir.Attribute.parse(f"#gpu<dim {'xyz'[axis]}>")
    index = ir.Operation.create(name, results=[ir.IndexType.get()],
                                attributes={"dimension": dim}).result
    return arith.index_cast(ir.IntegerType.get_signless(32), index)


def program_index(ctx: Lowering, axis: int, count: bool = False) -> ir.Value:
    """The program's id along `axis` (its number along it, `count`): a CTA's, or its
    cluster's where a program is a cluster of num_ctas CTAs."""
    if ctx.num_ctas > 1:
        return grid_index("gpu.cluster_dim" if count else "gpu.cluster_id", axis)
    return grid_index("gpu.grid_dim" if count else "gpu.block_id", axis)


@rule("tile.program_id")
def lower_program_id(ctx: Lowering, op: ir.Operation):
    return [program_index(ctx, ir.IntegerAttr(op.attributes["axis"]).value)]


@rule("tile.num_programs")
def lower_num_programs(ctx: Lowering, op: ir.Operation):
    return [program_index(ctx, ir.IntegerAttr(op.attributes["axis"]).value, count=True)]


@rule("tile.cta_rank")
def lower_cta_rank(ctx: Lowering, op: ir.Operation):
    return [ctx.cluster_rank()]


@rule("tile.make_range")
def lower_make_range(ctx: Lowering, op: ir.Operation):
    start = ir.IntegerAttr(op.attributes["start"]).value
    layout, shape = ctx.layout_of(op.results[0])
    linear = to_linear(layout, shape)
    offset = ctx.thread_offsets(layout, shape)[0]
    values = []
    for reg in range(linear.num_registers):
        base = i32(start + linear.register_coords(reg)[0])
        values.append(base if offset is None else arith.addi(offset, base))
    return [Distributed(layout, shape, values)]


@rule("tile.splat")
def lower_splat(ctx: Lowering, op: ir.Operation):
    value = ctx.get(op.operands[0])
    layout, shape = ctx.layout_of(op.results[0])
    return [Distributed(layout, shape, [value] * to_linear(layout, shape).num_registers)]


def remap_registers(ctx: Lowering, op: ir.Operation, src: Distributed, layout, shape,
                    project) -> Distributed:
    """Each register of (layout, shape) taken from the register of `src` holding the element
    `project(coordinate)`, when the lanes and warps hold the same elements in both (so no data
    crosses threads)."""
    dst_linear = to_linear(layout, shape)
    src_linear = to_linear(src.layout, src.shape)
    if not dst_linear.threads_hold_alike(src_linear, project):
        raise NotImplementedError(f"moving data between threads ({src.layout.text()} to "
                                  f"{layout.text()})")
    where = src_linear.register_index()
    values = []
    for reg in range(dst_linear.num_registers):
        coord = project(dst_linear.register_coords(reg))
        if coord not in where:
            raise LoweringError(op, f"register coordinate {coord} missing in {src.layout.text()}")
        values.append(src.values[where[coord]])
    return Distributed(layout, shape, values)


@rule("tile.broadcast")
def lower_broadcast(ctx: Lowering, op: ir.Operation):
    src = ctx.get(op.operands[0])
    layout, shape = ctx.layout_of(op.results[0])

    def project(coord):
        return tuple(0 if size == 1 else c for c, size in zip(coord, src.shape))
    return [remap_registers(ctx, op, src, layout, shape, project)]


@rule("tile.expand_dims")
def lower_expand_dims(ctx: Lowering, op: ir.Operation):
    src = ctx.get(op.operands[0])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    layout, shape = ctx.layout_of(op.results[0])

    def project(coord):
        return tuple(c for d, c in enumerate(coord) if d != axis)
    return [remap_registers(ctx, op, src, layout, shape, project)]


@rule("tile.addptr")
def lower_addptr(ctx: Lowering, op: ir.Operation):
    ptrs, offsets = ctx.get(op.operands[0]), ctx.get(op.operands[1])
    pointee = memory_type(tile.ptr_pointee(tile.element_type(op.operands[0].type)))
    ptr_type = scalar_type(op.results[0].type)

    def gep(p, o):
        return llvm.getelementptr(ptr_type, p, [o], [DYNAMIC_INDEX], pointee, 0)

    if not isinstance(ptrs, Distributed):
        return [gep(ptrs, offsets)]
    return [Distributed(ptrs.layout, ptrs.shape,
                        [gep(p, o) for p, o in zip(ptrs.values, offsets.values)])]


def _per_register(ctx: Lowering, op: ir.Operation, build):
    src = ctx.get(op.operands[0])
    if not isinstance(src, Distributed):
        return [build(src)]
    return [Distributed(src.layout, src.shape, [build(v) for v in src.values])]


@rule("tile.bitcast")
def lower_bitcast(ctx: Lowering, op: ir.Operation):
    target = scalar_type(op.results[0].type)
    source = scalar_type(op.operands[0].type)
    if source == target:
        return [ctx.get(op.operands[0])]
    return _per_register(ctx, op, lambda v: llvm.bitcast(target, v))


def _float_width(t: ir.Type) -> int:
    return ir.FloatType(t).width


# f32 -> 16-bit conversions toward zero: PTX's packed cvt.rz.{f16x2,bf16x2}.f32 (sm_80), two
# elements an instruction. Its result holds `src_hi` in the upper half, element 1 of the vector.
_PACKED_TOWARD_ZERO = {"f16": "nvvm.convert.f32x2.to.f16x2",
                       "bf16": "nvvm.convert.f32x2.to.bf16x2"}


def _packed_toward_zero(values: list[ir.Value], target: ir.Type) -> list[ir.Value]:
    name = _PACKED_TOWARD_ZERO.get(str(target))
    if name is None:
        raise NotImplementedError(f"rounding toward zero to {target}")
    pair = ir.VectorType.get([2], target)
    attributes = {"rnd": ir.Attribute.parse("#nvvm.fp_rnd_mode<rz>")}
    out = []
    for i in range(0, len(values), 2):
        lo = values[i]
        hi = values[i + 1] if i + 1 < len(values) else lo
        packed = ir.Operation.create(name, results=[pair], operands=[hi, lo],
                                     attributes=attributes).result
        out += [llvm.extractelement(packed, i32(k)) for k in range(min(2, len(values) - i))]
    return out


def _toward_zero(values: list[ir.Value], source: ir.Type, target: ir.Type) -> list[ir.Value]:
    """`values` (scalars of type `source`) narrowed to `target`, rounding toward zero. From f64
    the f32 step rounds toward zero too: truncating twice is truncating once, as every 16-bit
    float is an f32 (round to nearest would round twice, hence no such detour for it). To e5m2
    (whose bytes are the upper halves of fp16 values) from the fp16 rounded toward zero, its
    upper byte: truncating again, as Triton converts; NaN as _to_fp8 makes it."""
    f32 = ir.F32Type.get()
    if is_fp8(target):
        if str(target) != "f8E5M2":
            raise NotImplementedError(f"rounding {source} toward zero to {target}")
        signs = [_negative_nan(v, source) for v in values]
        i8_t, i16 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(16)
        halves = _toward_zero(values, source, ir.F16Type.get())
        eight = arith.constant(i16, 8)
        return [arith.ori(arith.trunci(i8_t, arith.shrui(arith.bitcast(i16, h), eight)),
                          arith.select(negative, i8(0x80), i8(0)))
                for h, negative in zip(halves, signs)]
    if _float_width(source) == 64:
        values = [llvm.call_intrinsic(f32, "llvm.nvvm.d2f.rz", [v], [], []) for v in values]
        source = f32
    if target == source:
        return values
    if source != f32:
        raise NotImplementedError(f"rounding {source} toward zero")
    return _packed_toward_zero(values, target)


def _each_element(values: list[ir.Value], convert, target: ir.Type) -> list[ir.Value]:
    """`convert` (a list of scalars to a list of scalars) applied to every element of
    `values`, whether each is a scalar or a vector of them (kept as vectors of `target`)."""
    sizes = [ir.VectorType(v.type).shape[0] if isinstance(v.type, ir.VectorType) else 0
             for v in values]
    scalars = []
    for v, n in zip(values, sizes):
        scalars += [llvm.extractelement(v, i32(k)) for k in range(n)] if n else [v]
    converted = iter(convert(scalars))
    return [vector_of([next(converted) for _ in range(n)], target) if n else next(converted)
            for n in sizes]


def i8(value: int) -> ir.Value:
    return arith.constant(ir.IntegerType.get_signless(8), value if value < 128 else value - 256)


# fp8 conversions (sm_89+), two elements an instruction: cvt.rn.f16x2.<fp8>x2 widens the two
# bytes of a 16-bit register (the upper byte to the upper half), exactly; cvt.rn.satfinite.
# <fp8>x2.{f32,f16x2} narrows two values (the first operand, or the upper half, to the upper
# byte) rounding to nearest even, saturating what exceeds the largest finite value to it (NaN
# stays NaN), as Triton converts. Other types go through f16 (widening) or f32 (narrowing),
# whose steps are exact: bf16 -> f32, f16 -> f32 -> f64 -> ..., e4m3/e5m2 -> f16.

def _pairs(values: list[ir.Value]):
    for i in range(0, len(values), 2):
        yield values[i], values[i + 1] if i + 1 < len(values) else values[i], \
            min(2, len(values) - i)


def _from_fp8(values: list[ir.Value], source: ir.Type, target: ir.Type) -> list[ir.Value]:
    i16, i32_t, f16 = (ir.IntegerType.get_signless(16), ir.IntegerType.get_signless(32),
                       ir.F16Type.get())
    halves = []
    for lo, hi, count in _pairs(values):
        word = arith.ori(arith.extui(i16, lo), arith.shli(arith.extui(i16, hi),
                                                          arith.constant(i16, 8)))
        (wide,) = ptx.asm([i32_t], [word], f"cvt.rn.f16x2.{FP8[str(source)]}x2 $0, $1;",
                          ["=r", "h"], side_effects=False)
        pair = llvm.bitcast(ir.VectorType.get([2], f16), wide)
        halves += [llvm.extractelement(pair, i32(k)) for k in range(count)]
    if str(target) == "f16":
        return halves
    if str(target) == "bf16":
        f32 = ir.F32Type.get()
        return [arith.truncf(target, arith.extf(f32, h)) for h in halves]
    return [_nan_widened(byte, arith.extf(target, h), source, target)
            for byte, h in zip(values, halves)]


def _signed(value: int, width: int) -> int:
    return value - (1 << width) if value >= 1 << (width - 1) else value


def _nan_widened(byte: ir.Value, value: ir.Value, source: ir.Type, target: ir.Type):
    """`value`, the fp8 `byte` widened to fp32 or fp64, with torch's NaN bits where the byte is
    NaN (fp8.WIDENED_NAN: the cvt to fp16 gives the canonical NaN, whose sign and payload
    torch's fp32 results do not share)."""
    name = fp8.BY_MLIR[str(source)]
    width = _float_width(target)
    word = ir.IntegerType.get_signless(width)
    positive, negative = fp8.WIDENED_NAN[name][width]
    is_nan = arith.cmpi(arith.CmpIPredicate.ugt, arith.andi(byte, i8(0x7F)),
                        i8(fp8.LARGEST_BYTE[name]))
    bits = arith.select(arith.cmpi(arith.CmpIPredicate.slt, byte, i8(0)),
                        arith.constant(word, _signed(negative, width)),
                        arith.constant(word, _signed(positive, width)))
    return arith.select(is_nan, arith.bitcast(target, bits), value)


def _negative_nan(value: ir.Value, source: ir.Type) -> ir.Value:
    """Whether `value` (of float type `source`, fp8 included) is a NaN with its sign bit set:
    its bits, unsigned, above those of negative infinity (of the largest negative fp8)."""
    if is_fp8(source):
        return arith.cmpi(arith.CmpIPredicate.ugt, value,
                          i8(0x80 | fp8.LARGEST_BYTE[fp8.BY_MLIR[str(source)]]))
    width = _float_width(source)
    word = ir.IntegerType.get_signless(width)
    mantissa = 7 if str(source) == "bf16" else {16: 10, 32: 23, 64: 52}[width]
    negative_infinity = ((1 << (width - mantissa)) - 1) << mantissa
    return arith.cmpi(arith.CmpIPredicate.ugt, arith.bitcast(word, value),
                      arith.constant(word, _signed(negative_infinity, width)))


def _to_fp8(values: list[ir.Value], source: ir.Type, target: ir.Type,
            nan_signs: list[ir.Value] | None = None) -> list[ir.Value]:
    """`values` narrowed to fp8 (see above). A NaN becomes 0x7f, 0xff when negative as torch
    converts it (fp8.NARROWED_NAN), but from fp16, whose NaNs torch narrows to 0x7f; `nan_signs`
    (an i1 per value: a negative NaN) stands for the values' own when they are a stand-in."""
    i8_t, i16, i32_t = (ir.IntegerType.get_signless(n) for n in (8, 16, 32))
    name = FP8[str(target)]
    if nan_signs is None and str(source) != "f16":
        nan_signs = [_negative_nan(v, source) for v in values]
    if str(source) not in ("f16", "f32"):  # bf16 (exactly) or f64 (rounding once) to f32
        f32 = ir.F32Type.get()
        values = [arith.extf(f32, v) if _float_width(source) < 32 else arith.truncf(f32, v)
                  for v in values]
        source = f32
    out = []
    for lo, hi, count in _pairs(values):
        if str(source) == "f32":
            (word,) = ptx.asm([i16], [hi, lo], f"cvt.rn.satfinite.{name}x2.f32 $0, $1, $2;",
                              ["=h", "f", "f"], side_effects=False)
        else:
            pair = vector_of([lo, hi], source)
            (word,) = ptx.asm([i16], [llvm.bitcast(i32_t, pair)],
                              f"cvt.rn.satfinite.{name}x2.f16x2 $0, $1;", ["=h", "r"],
                              side_effects=False)
        out.append(arith.trunci(i8_t, word))
        if count == 2:
            out.append(arith.trunci(i8_t, arith.shrui(word, arith.constant(i16, 8))))
    if nan_signs is None:
        return out
    return [arith.ori(byte, arith.select(negative, i8(0x80), i8(0)))
            for byte, negative in zip(out, nan_signs)]


@rule("arith.extf", "arith.truncf")
def lower_float_cast(ctx: Lowering, op: ir.Operation):
    """A float conversion; those to and from fp8 through PTX's fp8 cvt (see _from_fp8)."""
    source = tile.element_type(op.operands[0].type)
    target = tile.element_type(op.results[0].type)
    if not (is_fp8(source) or is_fp8(target)):
        return _elementwise(ctx, op)
    if is_fp8(source) and is_fp8(target):
        convert = lambda vs: _to_fp8(_from_fp8(vs, source, ir.F16Type.get()),  # noqa: E731
                                     ir.F16Type.get(), target,
                                     [_negative_nan(v, source) for v in vs])
    elif is_fp8(source):
        convert = lambda vs: _from_fp8(vs, source, target)  # noqa: E731
    else:
        convert = lambda vs: _to_fp8(vs, source, target)  # noqa: E731
    lowered = ctx.get(op.operands[0])
    converted = _each_element(ctx.flatten(lowered), convert, scalar_type(op.results[0].type))
    if not isinstance(lowered, Distributed):
        return converted
    return [Distributed(lowered.layout, lowered.shape, converted)]


@rule("tile.fp_to_fp")
def lower_fp_to_fp(ctx: Lowering, op: ir.Operation):
    """A float conversion with an explicit rounding: a narrowing toward zero ("rtz") through
    PTX's cvt.rz; any other narrowing ("rtne", or "none": the default) is arith.truncf, which
    rounds to nearest even; a widening is arith.extf, exact whatever the rounding."""
    rounding = ir.StringAttr(op.attributes["rounding"]).value
    source = scalar_type(op.operands[0].type)
    target = scalar_type(op.results[0].type)
    if is_fp8(tile.element_type(op.results[0].type)) or is_fp8(source):
        if rounding != "rtz" or is_fp8(source):
            return lower_float_cast(ctx, op)
        element = tile.element_type(op.results[0].type)
        lowered = ctx.get(op.operands[0])
        converted = _each_element(ctx.flatten(lowered),
                                  lambda vs: _toward_zero(vs, source, element), target)
        if not isinstance(lowered, Distributed):
            return converted
        return [Distributed(lowered.layout, lowered.shape, converted)]
    if _float_width(target) > _float_width(source):
        return _per_register(ctx, op, lambda v: arith.extf(_like(v, target), v))
    if _float_width(target) == _float_width(source):
        raise NotImplementedError(f"converting {source} to {target} (same width)")
    if rounding != "rtz":
        return _per_register(ctx, op, lambda v: arith.truncf(_like(v, target), v))
    lowered = ctx.get(op.operands[0])
    values = ctx.flatten(lowered)
    converted = _each_element(values, lambda vs: _toward_zero(vs, source, target), target)
    if not isinstance(lowered, Distributed):
        return converted
    return [Distributed(lowered.layout, lowered.shape, converted)]


def _like(value: ir.Value, element: ir.Type) -> ir.Type:
    """`value`'s type with `element` in place of its element type (scalar or vector)."""
    if isinstance(value.type, ir.VectorType):
        return ir.VectorType.get(ir.VectorType(value.type).shape, element)
    return element


@rule("tile.ptr_to_int")
def lower_ptr_to_int(ctx: Lowering, op: ir.Operation):
    target = scalar_type(op.results[0].type)
    return _per_register(ctx, op, lambda v: llvm.ptrtoint(target, v))


@rule("tile.int_to_ptr")
def lower_int_to_ptr(ctx: Lowering, op: ir.Operation):
    target = scalar_type(op.results[0].type)
    return _per_register(ctx, op, lambda v: llvm.inttoptr(target, v))


@rule("gpu.barrier", "tilegpu.barrier")
def lower_barrier(ctx: Lowering, op: ir.Operation):
    ctx.barrier()
    return []


@rule("tile.elementwise_inline_asm")
def lower_elementwise_inline_asm(ctx: Lowering, op: ir.Operation):
    """Each thread runs the asm on its registers, `pack` at a time: an elementwise op, so any
    grouping of a thread's registers is right (the arguments share the results' layout: the
    frontend broadcast them). A thread with fewer than `pack` registers pads with its last."""
    pack = ir.IntegerAttr(op.attributes["pack"]).value
    text = ir.StringAttr(op.attributes["asm"]).value
    constraints = ir.StringAttr(op.attributes["constraints"]).value
    pure = ir.BoolAttr(op.attributes["pure"]).value
    operands = [ctx.get(v) for v in op.operands]
    elements = [memory_type(scalar_type(r.type)) for r in op.results]
    distributed = bool(operands) and isinstance(operands[0], Distributed)
    args = [list(d.values) if distributed else [d] for d in operands]
    count = len(args[0]) if args else 1  # no arguments: scalar results
    padded = -(-count // pack) * pack
    args = [values + [values[-1]] * (padded - count) for values in args]
    registers = ptx.elementwise_asm(text, constraints, args, elements, pure, pack, padded)
    results = []
    for values, result in zip(registers, op.results):
        values = [from_memory(v, scalar_type(result.type)) for v in values[:count]]
        if not distributed:
            results.append(values[0])
            continue
        layout, shape = ctx.layout_of(result)
        results.append(Distributed(layout, shape, values))
    return results
