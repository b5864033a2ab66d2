"""Lowering of `tile.dot`, in the layouts tilegpu-accelerate-matmul chose.

- mma layout: one `mma.sync.m16n8k(8 kw)` per 16x8 accumulator tile and K step. The thread's
  fragments are read off the linear layouts: accumulator registers c0..c3 at (row, col),
  (row, col + 1), (row + 8, col), (row + 8, col + 1) of the tile; A's four 32-bit registers
  pack kw consecutive K elements at rows +0/+8 and K offsets +0/+4kw, B's two at K offsets
  +0/+4kw. fp32 operands are rounded to tf32 (to nearest, as the interpreter does) before the
  instruction, which would otherwise drop the low bits.
- blocked layouts (FMA): each result register is its accumulator plus the K products of the
  A registers of its row and the B registers of its column, all in the thread (the operand
  layouts hold whole K rows and columns); floats accumulate in fp32 (fp64 for fp64), integers
  in i32.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, math

from tilec.analysis.layouts import to_linear
from tilec.dialects.tilegpu import DotOperandLayout, MmaLayout
from tilec.lowering.context import Distributed, Lowering, i32, rule, scalar_type, vector_of
from tilec.lowering.shared import Elements, Fragments

_FLOAT_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def registers_by_coordinate(d: Distributed) -> dict[tuple, ir.Value]:
    """This thread's values of `d` by the coordinate (relative to the thread) each holds."""
    linear = to_linear(d.layout, tuple(d.shape))
    return {coord: d.values[r] for coord, r in linear.register_index().items()}


def _is_float(t: ir.Type) -> bool:
    return str(t) in _FLOAT_WIDTH


def _round_to_tf32(value: ir.Value) -> ir.Value:
    """fp32 rounded to tf32's 10 mantissa bits, to nearest (ties away), kept as fp32."""
    word = ir.IntegerType.get_signless(32)
    bits = arith.bitcast(word, value)
    rounded = arith.andi(arith.addi(bits, i32(0x1000)), i32(-0x2000))
    return arith.bitcast(ir.F32Type.get(), rounded)


@rule("tile.dot")
def lower_dot(ctx: Lowering, op: ir.Operation):
    a, b, c = (ctx.get(v) for v in op.operands)
    precision = ir.StringAttr(op.attributes["input_precision"]).value
    if isinstance(c.layout, MmaLayout):
        if not (isinstance(a.layout, DotOperandLayout) and isinstance(b.layout, DotOperandLayout)):
            raise NotImplementedError("an mma accumulator needs dot_operand A and B")
        return [_mma(ctx, op, a, b, c)]
    return [_fma(op, a, b, c, precision)]


# --- FMA --------------------------------------------------------------------------------------

def _fma(op: ir.Operation, a: Distributed, b: Distributed, c: Distributed,
         precision: str) -> Distributed:
    a_regs, b_regs = registers_by_coordinate(a), registers_by_coordinate(b)
    c_linear = to_linear(c.layout, tuple(c.shape))
    k_size = a.shape[-1]
    operand = scalar_type(op.operands[0].type)
    result = scalar_type(op.results[0].type)
    is_float = _is_float(result)
    wide = ir.F64Type.get() if str(operand) == "f64" or str(result) == "f64" else \
        ir.F32Type.get()
    acc_type = wide if is_float else ir.IntegerType.get_signless(32)
    tf32 = precision == "tf32" and str(operand) == "f32"
    cache: dict = {}

    def widen(value: ir.Value) -> ir.Value:
        if value in cache:
            return cache[value]
        out = value
        if is_float:
            if _FLOAT_WIDTH[str(value.type)] < acc_type.width:
                out = arith.extf(acc_type, value)
            if tf32:
                out = _round_to_tf32(out)
        elif value.type.width < 32:
            out = arith.extsi(acc_type, value)
        cache[value] = out
        return out

    values = []
    for reg in range(c_linear.num_registers):
        coord = c_linear.register_coords(reg)
        acc = c.values[reg]
        if is_float and _FLOAT_WIDTH[str(result)] < acc_type.width:
            acc = arith.extf(acc_type, acc)
        for k in range(k_size):
            try:
                x = a_regs[coord[:-1] + (k,)]
                y = b_regs[coord[:-2] + (k, coord[-1])]
            except KeyError:
                raise NotImplementedError(
                    f"dot operands in {a.layout.text()} / {b.layout.text()} do not hold the "
                    f"rows and columns of {c.layout.text()} (run tilegpu-accelerate-matmul)"
                ) from None
            if is_float:
                acc = math.fma(widen(x), widen(y), acc)
            else:
                acc = arith.addi(acc, arith.muli(widen(x), widen(y)))
        if acc.type != result:
            acc = arith.truncf(result, acc)
        values.append(acc)
    return Distributed(c.layout, tuple(c.shape), values)


# --- mma.sync ---------------------------------------------------------------------------------

class _Lookup:
    def __init__(self, registers: dict):
        self.registers = registers

    def register(self, coord) -> ir.Value:
        return self.registers[coord]


_PTX_TYPE = {"f16": "f16", "bf16": "bf16", "f32": "tf32", "i8": "s8"}


def _pack(values: list[ir.Value], element: ir.Type) -> ir.Value:
    """kw elements in one 32-bit register: vector<2xf16> for fp16 (what nvvm.mma.sync takes
    for it), an i32 otherwise."""
    word = ir.IntegerType.get_signless(32)
    if len(values) == 1:
        return llvm.bitcast(word, values[0])
    packed = vector_of(values, element)
    return packed if str(element) == "f16" else llvm.bitcast(word, packed)


def _mma(ctx: Lowering, op: ir.Operation, a: Distributed, b: Distributed,
         c: Distributed) -> Distributed:
    mma = c.layout
    kw = a.layout.k_width
    wm, wn = mma.warps_per_cta[-2:]
    m_size, n_size = c.shape[-2:]
    k_size = a.shape[-1]
    m_step, n_step, k_step = 16 * wm, 8 * wn, 8 * kw
    element = scalar_type(op.operands[0].type)
    accumulator = scalar_type(op.results[0].type)
    c_linear = to_linear(c.layout, tuple(c.shape))
    where = c_linear.register_index()
    values = list(c.values)
    rounded: dict = {}
    # Operands still in shared memory are loaded as the instructions reach them.
    a_regs = a if isinstance(a, (Fragments, Elements)) else _Lookup(registers_by_coordinate(a))
    b_regs = b if isinstance(b, (Fragments, Elements)) else _Lookup(registers_by_coordinate(b))

    def operand(regs, coord):
        value = regs.register(coord)
        if str(element) != "f32":
            return value
        if value not in rounded:
            rounded[value] = _round_to_tf32(value)
        return rounded[value]

    packed_a: dict = {}
    packed_b: dict = {}

    def a_fragment(batch, m0, k0):
        if (batch, m0, k0) not in packed_a:
            packed_a[(batch, m0, k0)] = [
                _pack([operand(a_regs, (*batch, m0 + dm, k0 + dk + j)) for j in range(kw)],
                      element)
                for dm, dk in ((0, 0), (8, 0), (0, 4 * kw), (8, 4 * kw))]
        return packed_a[(batch, m0, k0)]

    def b_fragment(batch, k0, n0):
        if (batch, k0, n0) not in packed_b:
            packed_b[(batch, k0, n0)] = [
                _pack([operand(b_regs, (*batch, k0 + dk + j, n0)) for j in range(kw)], element)
                for dk in (0, 4 * kw)]
        return packed_b[(batch, k0, n0)]

    attributes = {
        "layoutA": ir.Attribute.parse("#nvvm.mma_layout<row>"),
        "layoutB": ir.Attribute.parse("#nvvm.mma_layout<col>"),
        "shape": ir.Attribute.parse(f"#nvvm.shape<m = 16, n = 8, k = {k_step}>"),
        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([4, 2, 4]),
    }
    ptx = _PTX_TYPE.get(str(element))
    if ptx:
        for name in ("multiplicandAPtxType", "multiplicandBPtxType"):
            attributes[name] = ir.Attribute.parse(f"#nvvm.mma_type<{ptx}>")
    if isinstance(accumulator, ir.IntegerType):  # int8: .satfinite, as Triton's mma.sync
        attributes["intOverflowBehavior"] = ir.Attribute.parse(
            "#nvvm.mma_int_overflow<satfinite>")
    # an fp16 accumulator is two registers of packed pairs (columns +0/+1 of rows +0 and +8)
    halves = str(accumulator) == "f16"
    pairs = ir.VectorType.get([2], accumulator)
    struct = ir.Type.parse(f"!llvm.struct<({', '.join([str(pairs)] * 2)})>" if halves else
                           f"!llvm.struct<({', '.join([str(accumulator)] * 4)})>")
    if halves:
        attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([4, 2, 2])
    # a batched dot's batch elements in this thread's registers (the thread-relative batch
    # coordinate of each; () for a 2-D dot)
    batches = sorted({coord[:-2] for coord in where})
    tiles = [(batch, m0, n0) for batch in batches
             for m0 in range(0, max(m_size // m_step, 1) * m_step, m_step)
             for n0 in range(0, max(n_size // n_step, 1) * n_step, n_step)]
    # K outermost: consecutive instructions update different accumulators, so none waits
    # for the one before it.
    for k0 in range(0, k_size, k_step):
        for batch, m0, n0 in tiles:
            slots = [where[(*batch, m0 + dm, n0 + dn)]
                     for dm, dn in ((0, 0), (0, 1), (8, 0), (8, 1))]
            acc = [values[s] for s in slots]
            if halves:
                acc = [vector_of(acc[:2], accumulator), vector_of(acc[2:], accumulator)]
            result = ir.Operation.create(
                "nvvm.mma.sync", results=[struct],
                operands=a_fragment(batch, m0, k0) + b_fragment(batch, k0, n0) + acc,
                attributes=attributes).result
            if halves:
                got = [llvm.extractvalue(pairs, result, ir.DenseI64ArrayAttr.get([j]))
                       for j in range(2)]
                got = [llvm.extractelement(got[i // 2], i32(i % 2)) for i in range(4)]
            else:
                got = [llvm.extractvalue(accumulator, result, ir.DenseI64ArrayAttr.get([i]))
                       for i in range(4)]
            for s, value in zip(slots, got):
                values[s] = value
    return Distributed(c.layout, tuple(c.shape), values)
