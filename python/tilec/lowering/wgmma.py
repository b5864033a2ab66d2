"""Lowering of `tilegpu.warpgroup_dot` (wgmma) and `tilegpu.fence_async_shared`.

Each warpgroup (4 consecutive warps) computes its part of the result: the warps' low bits of
the mma version-3 layout step 16 rows, so warpgroup g holds rows 64 (g % (wm / 4)) and columns
N (g / (wm / 4)) of every instruction tile, and the instruction tiles repeat along N by N * wn
and along M by 16 * wm (analysis/layouts.py). For every K step of 32 bytes and every
instruction tile, one `wgmma.mma_async` m64nNk reads A's and B's tiles through matrix
descriptors (analysis/wgmma.py: start address, leading and stride byte offsets, swizzle) and
updates the tile's accumulator registers, which are the thread's registers of the result in
the instruction's order. The sequence is bracketed by `wgmma.fence` (the accumulator registers
were written by other instructions) and one commit group, waited for (`wait_group 0`) before
the registers are read. The descriptors' start addresses add a warpgroup's offset (its rows of
A, its columns of B, whole swizzle blocks) to the tile's constant offset in the buffer.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.analysis.layouts import to_linear
from tilec.analysis.wgmma import K_BYTES, byte_offset, descriptor, k_major
from tilec.dialects import tile
from tilec.dialects.tilegpu import ASYNC_ATTR, MmaLayout, NvmmaSharedLayout
from tilec.lowering.context import Distributed, Lowering, group_index, i32, rule, vector_of
from tilec.lowering.dot import registers_by_coordinate
from tilec.lowering.ptx import retype
from tilec.lowering.shared_buffer import SharedBuffer

_WGMMA_TYPE = {"f16": "f16", "bf16": "bf16", "f32": "tf32", "i8": "s8", "f8E4M3FN": "e4m3",
               "f8E5M2": "e5m2"}
_ACCUMULATOR = {"f32": "f32", "i32": "s32", "f16": "f16"}  # wgmma's name of the accumulator type


def _i64(value: int) -> ir.Value:
    """A 64-bit constant of these bits (the swizzle modes set bit 63)."""
    return arith.constant(ir.IntegerType.get_signless(64),
                          value - (1 << 64) if value >= 1 << 63 else value)


class _Operand:
    """One operand's buffer and the descriptors of its instruction tiles."""

    def __init__(self, buffer: SharedBuffer, k_dim: int, group: ir.Value | None,
                 group_step: int, extent: int):
        """`group`: this thread's warpgroup index along the operand's MN (None: one), each
        warpgroup `group_step` rows (A) or columns (B) further; `extent`: an instruction tile's
        MN (64 rows of A, n columns of B)."""
        if any(buffer.origin):
            raise NotImplementedError("wgmma reads whole tiles, not views into one")
        layout = buffer.desc.layout
        if not isinstance(layout, NvmmaSharedLayout):
            raise NotImplementedError(f"wgmma reads NVMMA layouts, not {layout.text()}")
        self.layout, self.shape, self.k_dim = layout, tuple(buffer.desc.shape), k_dim
        self.group_step, self.extent = group_step, extent
        high = descriptor(layout, self.shape, k_dim, 0, 0).fixed_bits()
        # the buffer's 32-bit shared address, plus this warpgroup's whole-block offset
        address = llvm.ptrtoint(ir.IntegerType.get_signless(32), buffer.base)
        self.group_bytes = self._offset_of(group_step) if group is not None else 0
        if group is not None and self.group_bytes:
            address = arith.addi(address, arith.muli(group, i32(self.group_bytes)))
        start = arith.andi(arith.shrui(address, i32(4)), i32(0x3FFF))
        self.base = arith.ori(arith.extui(ir.IntegerType.get_signless(64), start), _i64(high))
        self.cache: dict = {}

    def _offset_of(self, mn: int, k: int = 0) -> int:
        coord = [0, 0]
        coord[1 - self.k_dim], coord[self.k_dim] = mn, k
        return byte_offset(self.layout, self.shape, coord)

    def at(self, mn0: int, k0: int, groups: int) -> ir.Value:
        """The descriptor of the tile at (mn0, k0) for this thread's warpgroup (mn0: the
        tile's MN offset for warpgroup 0)."""
        key = (mn0, k0)
        if key not in self.cache:
            try:  # each warpgroup's tile has a descriptor, the first's plus whole blocks
                starts = [descriptor(self.layout, self.shape, self.k_dim,
                                     mn0 + g * self.group_step, k0, self.extent).start
                          for g in range(groups)]
            except ValueError as err:
                raise NotImplementedError(str(err)) from None
            start = starts[0]
            if any(s != start + g * self.group_bytes for g, s in enumerate(starts)):
                raise NotImplementedError("a warpgroup's tile does not start on a swizzle "
                                          "block of the operand")
            self.cache[key] = self.base if not start else arith.addi(self.base,
                                                                    _i64(start >> 4))
        return self.cache[key]


def _attr(text: str) -> ir.Attribute:
    return ir.Attribute.parse(text)


class _Registers:
    """A from registers (the RS form): each instruction tile's 4 32-bit registers per thread,
    packed pairs of fp16/bf16 in the mma.sync A fragment (rows +0/+8, K +0/+8), read off the
    operand's linear layout."""

    def __init__(self, a: Distributed, element: ir.Type):
        self.values = registers_by_coordinate(a)
        self.element = element
        self.cache: dict = {}

    def at(self, m0: int, k0: int) -> list[ir.Value]:
        if (m0, k0) not in self.cache:
            word = ir.IntegerType.get_signless(32)
            regs = []
            for dm, dk in ((0, 0), (8, 0), (0, 8), (8, 8)):
                pair = [self.values[(m0 + dm, k0 + dk + j)] for j in range(2)]
                regs.append(llvm.bitcast(word, vector_of(pair, self.element)))
            self.cache[(m0, k0)] = regs
        return self.cache[(m0, k0)]


_CONSTRAINT = {"f32": "f", "i32": "r", "f16": "h"}


def _through_asm(text: str, values: list[ir.Value]) -> list[ir.Value]:
    """`values` (f32, i32 or f16) passed through the inline asm `text`, each output tied to
    its input: whatever reads the returned values comes after the asm, and everything computing
    `values` before it. fp16 values go by consecutive pairs in 32-bit registers (an fp16 wgmma
    accumulator's registers, when they are its values in register order)."""
    halves = [i for i, v in enumerate(values) if str(v.type) == "f16"]
    if len(halves) > 1:
        pairs = [halves[i:i + 2] for i in range(0, len(halves) - 1, 2)]
        paired = {i for pair in pairs for i in pair}
        rest = [i for i in range(len(values)) if i not in paired]
        word = ir.IntegerType.get_signless(32)
        words = [retype([values[i] for i in pair], 1, word)[0] for pair in pairs]
        out = _through_asm(text, words + [values[i] for i in rest])
        result: list = [None] * len(values)
        for pair, packed in zip(pairs, out):
            for i, half in zip(pair, retype([packed], 2, values[pair[0]].type)):
                result[i] = half
        for i, value in zip(rest, out[len(pairs):]):
            result[i] = value
        return result
    kinds = [_CONSTRAINT[str(v.type)] for v in values]
    constraints = ",".join([f"={k}" for k in kinds] + [str(i) for i in range(len(values))])
    struct = ir.Type.parse(f"!llvm.struct<({', '.join(str(v.type) for v in values)})>")
    result = llvm.InlineAsmOp(struct, values, text, constraints, has_side_effects=True).result
    return [llvm.extractvalue(v.type, result, ir.DenseI64ArrayAttr.get([i]))
            for i, v in enumerate(values)]


def _fence_registers(a: "_Registers", values: list[ir.Value],
                     tiles: list[tuple[int, int]]) -> list[ir.Value]:
    """`wgmma.fence` with every register the wgmmas read from the register file (A's packed
    tiles, the accumulator) passed through it (inline asm, outputs tied to inputs): all of them
    are then written before the fence, so the wgmmas issue back to back. Left free, LLVM sinks
    each tile's packing (and the softmax computing it) down to its wgmma and ptxas injects a
    warpgroup.arrive before each one (its C7519 note). Returns the accumulator's values as
    fenced; A's tiles are replaced in `a`."""
    packed = [r for corner in tiles for r in a.at(*corner)]
    out = _through_asm("wgmma.fence.sync.aligned;", packed + values)
    for n, corner in enumerate(tiles):
        a.cache[corner] = out[4 * n:4 * n + 4]
    return out[len(packed):]


def _mma_async_rs(acc: ir.Value, struct: ir.Type, member: ir.Type, a_regs: list[ir.Value],
                  b_desc: ir.Value, n: int, k: int, element: str, b_transposed: bool) -> ir.Value:
    """wgmma.mma_async with A from registers, as inline asm (no NVVM op has this form):
    outputs $0.. the accumulator ("=f"; "=r" for fp16's packed pairs), then A's 4 registers,
    B's descriptor, and the accumulator again tied to the outputs (LLVM has no "+f")."""
    halves = isinstance(member, ir.VectorType)
    count = n // 4 if halves else n // 2
    d = ", ".join(f"${i}" for i in range(count))
    a = ", ".join(f"${count + i}" for i in range(4))
    accumulator = "f16" if halves else "f32"
    text = ("{ .reg .pred p; setp.ne.b32 p, 1, 0; "
            f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{accumulator}.{element}.{element} "
            f"{{{d}}}, {{{a}}}, ${count + 4}, p, 1, 1, {int(b_transposed)}; }}")
    kind = "r" if halves else "f"
    constraints = ",".join([f"={kind}"] * count + ["r"] * 4 + ["l"] +
                           [str(i) for i in range(count)])
    accs = [llvm.extractvalue(member, acc, ir.DenseI64ArrayAttr.get([i])) for i in range(count)]
    if not halves:
        return llvm.InlineAsmOp(struct, [*a_regs, b_desc, *accs], text, constraints,
                                has_side_effects=True).result
    word = ir.IntegerType.get_signless(32)
    words = ir.Type.parse(f"!llvm.struct<({', '.join([str(word)] * count)})>")
    out = llvm.InlineAsmOp(words, [*a_regs, b_desc, *(retype([x], 1, word)[0] for x in accs)],
                           text, constraints, has_side_effects=True).result
    result = llvm.mlir_undef(struct)
    for i in range(count):
        packed = llvm.extractvalue(word, out, ir.DenseI64ArrayAttr.get([i]))
        result = llvm.insertvalue(result, retype([packed], 1, member)[0],
                                  ir.DenseI64ArrayAttr.get([i]))
    return result


@rule("tilegpu.warpgroup_dot")
def lower_warpgroup_dot(ctx: Lowering, op: ir.Operation):
    a_buf, b_buf, c = (ctx.get(v) for v in op.operands)
    layout: MmaLayout = c.layout
    if not isinstance(layout, MmaLayout) or layout.version[0] != 3:
        raise NotImplementedError("a wgmma accumulator has an mma version-3 layout")
    wm, wn = layout.warps_per_cta
    n = layout.instr_shape[1]
    m_size, n_size = c.shape
    groups_m = wm // 4
    element = b_buf.desc.element_type
    in_registers = isinstance(a_buf, Distributed)
    a_element = str(tile.element_type(op.operands[0].type)) if in_registers else \
        a_buf.desc.element_type
    if element not in _WGMMA_TYPE or a_element != element:
        raise NotImplementedError(f"wgmma of {a_element} and {element} operands")
    k_size = b_buf.desc.shape[0]
    k_step = K_BYTES * 8 // b_buf.desc.layout.element_bits

    group_m = group_index(ctx, 2, groups_m)
    group_n = group_index(ctx, (wm - 1).bit_length(), wn)
    a = _Registers(a_buf, tile.element_type(op.operands[0].type)) if in_registers else \
        _Operand(a_buf, 1, group_m, 64, 64)
    b = _Operand(b_buf, 0, group_n, n, n)

    where = to_linear(layout, tuple(c.shape)).register_index()
    acc_type = tile.element_type(op.operands[2].type)
    if str(acc_type) not in _ACCUMULATOR:
        raise NotImplementedError(f"a wgmma accumulator of {acc_type}")
    # an fp16 accumulator's registers hold pairs of its values (columns +0/+1)
    per_register = 2 if str(acc_type) == "f16" else 1
    member = ir.VectorType.get([2], acc_type) if per_register == 2 else acc_type
    struct = ir.Type.parse(f"!llvm.struct<({', '.join([str(member)] * (n // 2 // per_register))})>")
    m_tiles = range(0, m_size, 16 * wm)
    n_tiles = range(0, n_size, n * wn)
    slots = {}
    for m0 in m_tiles:
        for n0 in n_tiles:
            slots[(m0, n0)] = [where[(m0 + 8 * (i >> 1 & 1), n0 + 8 * (i >> 2) + (i & 1))]
                               for i in range(n // 2)]
    values = list(c.values)
    k_steps = range(0, k_size, k_step)
    if in_registers:
        values = _fence_registers(a, values, [(m0, k0) for k0 in k_steps for m0 in m_tiles])
    accumulators = {}
    for key, regs in slots.items():
        acc = llvm.mlir_undef(struct)
        for i in range(0, len(regs), per_register):
            value = values[regs[i]] if per_register == 1 else \
                vector_of([values[r] for r in regs[i:i + 2]], acc_type)
            acc = llvm.insertvalue(acc, value, ir.DenseI64ArrayAttr.get([i // per_register]))
        accumulators[key] = acc

    wgmma_type = _WGMMA_TYPE[element]
    attributes = {
        "shape": _attr(f"#nvvm.shape<m = 64, n = {n}, k = {k_step}>"),
        "typeA": _attr(f"#nvvm.wgmma_type<{wgmma_type}>"),
        "typeB": _attr(f"#nvvm.wgmma_type<{wgmma_type}>"),
        "typeD": _attr(f"#nvvm.wgmma_type<{_ACCUMULATOR[str(acc_type)]}>"),
        "scaleD": _attr("#nvvm.wgmma_scale_out<one>"),
        "scaleA": _attr("#nvvm.wgmma_scale_in<one>"),
        "scaleB": _attr("#nvvm.wgmma_scale_in<one>"),
        # B column-major (K-major) or transposed
        "layoutB": _attr(f"#nvvm.mma_layout<{'col' if k_major(b.layout, 0) else 'row'}>"),
    }
    if not in_registers:  # A row-major (K-major) or transposed
        attributes["layoutA"] = _attr(
            f"#nvvm.mma_layout<{'row' if k_major(a.layout, 1) else 'col'}>")
    imprecise = ir.IntegerAttr(op.attributes["max_num_imprecise_acc"]).value
    if element in _FP8 and imprecise <= k_size:
        if in_registers:
            raise NotImplementedError("promoted fp8 sums of an A in registers")
        return _promoted(op, layout, c, slots, list(k_steps), max(1, -(-imprecise // k_step)),
                         struct, acc_type, lambda acc, k0, m0, n0, zero: ir.Operation.create(
                             "nvvm.wgmma.mma_async", results=[struct],
                             operands=[acc, a.at(m0, k0, groups_m), b.at(n0, k0, wn)],
                             attributes=dict(attributes, **({"scaleD": _attr(_FIRST)} if zero else {}))).result)
    if not in_registers:
        ir.Operation.create("nvvm.wgmma.fence.aligned")
    for k0 in k_steps:
        for (m0, n0), acc in accumulators.items():
            if in_registers:
                accumulators[(m0, n0)] = _mma_async_rs(
                    acc, struct, member, a.at(m0, k0), b.at(n0, k0, wn), n, k_step,
                    wgmma_type, not k_major(b.layout, 0))
                continue
            accumulators[(m0, n0)] = ir.Operation.create(
                "nvvm.wgmma.mma_async", results=[struct],
                operands=[acc, a.at(m0, k0, groups_m), b.at(n0, k0, wn)],
                attributes=attributes).result
    ir.Operation.create("nvvm.wgmma.commit.group.sync.aligned")
    if ASYNC_ATTR not in op.attributes:
        ir.Operation.create("nvvm.wgmma.wait.group.sync.aligned",
                            attributes={"group": ir.IntegerAttr.get(
                                ir.IntegerType.get_signless(64), 0)})
    else:
        for use in op.results[0].uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if user.name not in ("tilegpu.warpgroup_dot_wait", "tilegpu.warpgroup_dot",
                                 "scf.yield"):
                raise NotImplementedError(f"the result of an asynchronous warpgroup_dot is read "
                                          f"by '{user.name}' before a warpgroup_dot_wait")
    for key, regs in slots.items():
        for i, r in enumerate(regs):
            value = llvm.extractvalue(member, accumulators[key],
                                      ir.DenseI64ArrayAttr.get([i // per_register]))
            values[r] = value if per_register == 1 else llvm.extractelement(value, i32(i % 2))
    return [Distributed(layout, tuple(c.shape), values)]


_FP8 = ("f8E4M3FN", "f8E5M2")
# The first wgmma of a partial sum ignores the accumulator registers it is given (scale-d 0).
_FIRST = "#nvvm.wgmma_scale_out<zero>"


def _promoted(op: ir.Operation, layout, c: Distributed, slots: dict, k_steps: list[int],
              per_sum: int, struct: ir.Type, acc_type: ir.Type, mma) -> list[Distributed]:
    """An fp8 warpgroup_dot whose partial sums are promoted (max_num_imprecise_acc at most
    its K): fp8 wgmma adds its products in less than fp32 precision, so the K steps go in
    groups of `per_sum` (max_num_imprecise_acc / 32 rounded up), each summed by wgmma alone
    into fresh registers (its first instruction with scale-d 0), committed and waited for,
    then added to the fp32 result with fp32 adds. `mma(acc, k0, m0, n0, first)` issues one
    instruction. The result is complete on return, whether the dot was asynchronous or not."""
    values = list(c.values)
    for start in range(0, len(k_steps), per_sum):
        ir.Operation.create("nvvm.wgmma.fence.aligned")
        partial = {key: llvm.mlir_undef(struct) for key in slots}
        for i, k0 in enumerate(k_steps[start:start + per_sum]):
            for (m0, n0), acc in partial.items():
                partial[(m0, n0)] = mma(acc, k0, m0, n0, i == 0)
        ir.Operation.create("nvvm.wgmma.commit.group.sync.aligned")
        sums = [llvm.extractvalue(acc_type, partial[key], ir.DenseI64ArrayAttr.get([i]))
                for key, regs in slots.items() for i in range(len(regs))]
        sums = iter(_through_asm("wgmma.wait_group.sync.aligned 0;", sums))
        for key, regs in slots.items():
            for r in regs:
                values[r] = arith.addf(values[r], next(sums))
    return [Distributed(layout, tuple(c.shape), values)]


@rule("tilegpu.warpgroup_dot_wait")
def lower_warpgroup_dot_wait(ctx: Lowering, op: ir.Operation):
    """`wgmma.wait_group N` as inline asm whose operands are every register of the waited
    accumulators, tied to its results: the registers are read only through the results, so
    nothing reads them before the wait."""
    pendings = ir.IntegerAttr(op.attributes["pendings"]).value
    inputs = [ctx.get(v) for v in op.operands]
    flat = [v for d in inputs for v in d.values]
    if not flat:
        ir.Operation.create("nvvm.wgmma.wait.group.sync.aligned", attributes={
            "group": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), pendings)})
        return []
    values = _through_asm(f"wgmma.wait_group.sync.aligned {pendings};", flat)
    out, at = [], 0
    for d in inputs:
        out.append(Distributed(d.layout, d.shape, values[at:at + len(d.values)]))
        at += len(d.values)
    return out


@rule("tilegpu.fence_async_shared")
def lower_fence_async_shared(ctx: Lowering, op: ir.Operation):
    ir.Operation.create("nvvm.fence.proxy", attributes={
        "kind": _attr("#nvvm.proxy_kind<async.shared>"),
        "space": _attr("#nvvm.shared_space<cta>")})
    return []
