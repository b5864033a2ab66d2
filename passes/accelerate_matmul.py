"""tilegpu-accelerate-matmul: every `tile.dot` in the layouts its instructions need.

After it runs, each `tile.dot` is in one of three forms, which convert-tilegpu-to-llvm lowers:
- **wgmma** (sm_90): fp16/bf16 dots, and tf32 (fp32 with input_precision "tf32") and
  int8 -> int32 dots whose operands both run fastest along K, with a multiple of 64 result
  rows per warpgroup (4 warps) and K a multiple of one instruction's 32 bytes, become
  `tilegpu.warpgroup_dot`: A and B are written to shared
  buffers in `#tilegpu.nvmma_shared` layouts (the widest of the 128/64/32-byte swizzles their
  fastest dimension, kept from the value's layout, takes), a `tilegpu.fence_async_shared`
  follows the writes, and the accumulator has an `#tilegpu.mma<[3, 0], [wm, wn], [16, n]>`
  layout: warpgroups go along M while each keeps 64 rows, the rest along N, an instruction
  spanning a warpgroup's n columns (at most 256; an N-major B tile must not straddle a swizzle
  block, analysis/wgmma.py). A value loaded from a buffer that holds it in that layout already
  (a TMA copy's, see convert-tile-to-tilegpu) is read there: no write, no fence. An A that the
  kernel computes rather than loads (a softmax's P, a
  converted accumulator) is not staged: it goes in registers, in the `dot_operand` 0 layout of
  the accumulator's (the RS form; from another wgmma accumulator split the same way over the
  warps this is a register renaming). An operand `tl.trans(x)` of a loaded x is x written in
  its own order and read through a `tilegpu.memdesc_trans` view (wgmma reads 16-bit tiles
  K-major or MN-major alike), and a value two dots stage in the same layout is written once
  (attention's backward reads dO as it is and transposed). Other dots, and every dot of an
  sm_80 target, take the next form.
- **tensor cores** (`mma.sync`, sm_80 and later): the result (accumulator) has an
  `#tilegpu.mma<[2, 0], [wm, wn], [16, 8]>` layout, A and B `#tilegpu.dot_operand` layouts of it
  with `k_width` = elements per 32-bit register (2 for fp16/bf16, 1 for tf32, 4 for int8). Used
  for fp16/bf16 → fp32, fp32 with input_precision "tf32" → fp32, and int8 → int32, when M >= 16,
  N >= 8 and K covers one instruction (16, 8 or 32). fp16 operands with an fp16 accumulator
  (`out_dtype=tl.float16`) accumulate in fp16 on the instruction (wgmma too), as in Triton;
  a bf16 dot's fp16 accumulator is widened to fp32 around it. Warps go to the
  dimension with more instruction tiles left per warp (M first on ties).
- **FMA** (everything else: "ieee" and "tf32x3" precision, small or batched dots, other types):
  the result keeps its blocked layout L; A and B get blocked layouts that hold, in each thread,
  the full K extent of the rows (columns) of L's elements: L with K in registers, so the lanes
  and warps along N (M) hold copies of A (B).
Operands and the accumulator are converted (`tilegpu.convert_layout`) into those layouts and
the result back to its old layout for its users; tilegpu-remove-layout-conversions then removes
what it can.

Example (fp16, 128x128x32 block, 4 warps):
    %d = "tile.dot"(%a, %b, %c) : (tensor<128x32xf16, #L>, tensor<32x128xf16, #L>, tensor<128x128xf32, #L>) -> ...
becomes
    %a2 = "tilegpu.convert_layout"(%a) : ... -> tensor<128x32xf16, #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>>
    %b2 = ... #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>
    %c2 = ... #mma        (#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>)
    %d2 = "tile.dot"(%a2, %b2, %c2) ... -> tensor<128x128xf32, #mma>
    %d = "tilegpu.convert_layout"(%d2) : ... -> tensor<128x128xf32, #L>
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from tilec.analysis.layouts import layout_order
from tilec.analysis.wgmma import instruction_fits, nvmma_layout
from tilec.dialects import tile, tilegpu
from tilec.dialects.tilegpu import (BlockedLayout, DotOperandLayout, MemDesc, MmaLayout,
                                    NvmmaSharedLayout, SharedLayout, transposed_order)
from tilec.passbase import (TARGET, Option, Pass, module_num_warps, ops_in, register,
                             require_layouts, target_arch)

MMA_INSTR = (16, 8)  # m, n of mma.sync; k = 8 * k_width


def mma_k_width(a: ir.Type, c: ir.Type, precision: str) -> int | None:
    """Elements per 32-bit operand register of the mma.sync that computes a dot of `a`
    operands into `c` (None: no instruction does)."""
    a_name, c_name = str(a), str(c)
    if a_name in ("f16", "bf16") and c_name in ("f32", "f16"):
        return 2
    if a_name == "f32" and c_name == "f32" and precision == "tf32":
        return 1
    if a_name == "i8" and c_name == "i32":
        return 4
    if a_name in tile.FP8_TYPES and c_name == "f32":  # wgmma only: other fp8 dots run on fp16 operands
        return 4
    return None


def mma_warps(m: int, n: int, num_warps: int) -> tuple[int, int]:
    """warps_per_cta [wm, wn]: each doubling goes where more instruction tiles remain per warp
    (M on ties), while that dimension has tiles left to split."""
    wm = wn = 1
    while wm * wn < num_warps:
        tiles_m, tiles_n = m // (MMA_INSTR[0] * wm), n // (MMA_INSTR[1] * wn)
        if tiles_m >= tiles_n and tiles_m > 1 or tiles_n <= 1:
            wm *= 2
        else:
            wn *= 2
    return wm, wn


def mma_layout(shape, num_warps: int) -> MmaLayout:
    """The mma.sync layout of a dot's [M, N] (or batched [B, M, N]) result: a batch goes to
    warps first (one batch element a warp while both last), the remaining warps over M and N
    (mma_warps)."""
    if len(shape) == 2:
        return MmaLayout((2, 0), mma_warps(shape[0], shape[1], num_warps), MMA_INSTR)
    wb = min(shape[0], num_warps)
    return MmaLayout((2, 0), (wb, *mma_warps(shape[1], shape[2], num_warps // wb)),
                     (1, *MMA_INSTR))


WGMMA_ROWS = 64  # rows of one wgmma instruction: one warpgroup (4 warps)
WGMMA_MAX_N = 256


def wgmma_shape(m: int, n: int, num_warps: int) -> tuple[tuple[int, int], int] | None:
    """(warps_per_cta [wm, wn], the instruction's N) of a wgmma dot of an [m, n] result, or
    None when wgmma cannot take it: warpgroups (4 warps stacked along M) go along M while each
    keeps 64 rows, the rest along N; an instruction spans a warpgroup's columns, up to 256."""
    if num_warps % 4 or m % WGMMA_ROWS:
        return None
    groups = num_warps // 4
    groups_m = 1
    while groups_m < groups and m % (WGMMA_ROWS * groups_m * 2) == 0:
        groups_m *= 2
    wn = groups // groups_m
    if n % (8 * wn):
        return None
    return (4 * groups_m, wn), min(n // wn, WGMMA_MAX_N)


def fma_operand_layouts(layout: BlockedLayout, k: int) -> tuple[BlockedLayout, BlockedLayout]:
    """Blocked layouts of A [.., M, K] and B [.., K, N] for an FMA dot whose result is in
    `layout`: the result's distribution of M (N), with all of K in each thread's registers."""
    spt = list(layout.size_per_thread)
    a_spt, b_spt = spt[:-1] + [k], spt[:-2] + [k, spt[-1]]
    keep = (layout.threads_per_warp, layout.warps_per_cta, layout.order)
    return BlockedLayout(tuple(a_spt), *keep), BlockedLayout(tuple(b_spt), *keep)


def operand_shared_layout(shape, order, element_bytes: int) -> SharedLayout:
    """The swizzled layout staging an mma operand: 16-byte vectors along the fastest
    dimension, XOR-swizzled so that the 8 rows one ldmatrix reads (and 8 consecutive rows
    written) sit in different 16-byte bank groups of a 128-byte line."""
    inner = shape[order[0]]
    vec = max(16 // element_bytes, 1)
    per_phase = max(1, 128 // (inner * element_bytes))
    max_phase = max(1, min(8 // per_phase, inner // vec))
    return SharedLayout(vec, per_phase, max_phase, tuple(order))


def _stage(operands: list[tuple[ir.Value, DotOperandLayout]], before: ir.Operation):
    """Each value written to a swizzled shared buffer, then each read back in its operand
    layout (all writes first: one barrier separates them from the reads)."""
    buffers = []
    with ir.InsertionPoint(before), before.location:
        for value, _ in operands:
            shape = list(value.type.shape)
            element = tile.element_type(value.type)
            shared = operand_shared_layout(shape, _source_order(value),
                                           max(element.width // 8, 1))
            desc = MemDesc(tuple(shape), str(element), shared, False)
            buffers.append(tilegpu.local_alloc(desc, value))
        return [tilegpu.local_load(buffer, tilegpu.with_layout(value.type, layout))
                for buffer, (value, layout) in zip(buffers, operands)]


class _Staged:
    """The NVMMA buffers written so far, by (value, layout): a tile two dots read (attention's
    dO, once as it is and once transposed) is written to shared memory once."""

    def __init__(self):
        self.buffers: dict[tuple, ir.Value] = {}

    def find(self, value: ir.Value, layout, before: ir.Operation) -> ir.Value | None:
        buffer = self.buffers.get((value, layout))
        if buffer is None:
            return None
        block = buffer.owner.operation.block
        op = before
        while op is not None:  # the buffer's block holds `before` (or an op around it)
            if op.block == block:
                return buffer
            op = _parent(op)
        return None


def _stage_nvmma(operands: list[tuple[ir.Value, "WgmmaOperand"]], before: ir.Operation,
                 staged: _Staged) -> list[ir.Value]:
    """Each value written to a shared buffer in its NVMMA layout (wgmma reads it there), then
    a proxy fence: the writes are generic, wgmma's reads asynchronous. A transposed value
    (`tl.trans(x)`) is x written in x's own order and read through a `memdesc_trans` view. A
    value that does not change in the loops around the dot (attention's Q) is written once,
    before the outermost of them, and stays in shared memory across them; a value written
    for an earlier dot is not written again."""
    buffers, fence_here = [], False
    for value, operand in operands:
        stored, layout = operand.stored(value)
        buffer = staged.find(stored, layout, before)
        if buffer is None:
            buffer = _loaded_from(stored, layout)
        if buffer is None:
            where = _outside_invariant_loops(stored, before)
            with ir.InsertionPoint(where), before.location:
                buffer = tilegpu.local_alloc(
                    MemDesc(tuple(stored.type.shape), str(tile.element_type(stored.type)),
                            layout, False), stored)
                if where == before:
                    fence_here = True
                else:
                    tilegpu.fence_async_shared()
            staged.buffers[(stored, layout)] = buffer
        if operand.transposed is not None:
            with ir.InsertionPoint(before), before.location:
                buffer = tilegpu.memdesc_trans(buffer)
        buffers.append(buffer)
    if fence_here:
        with ir.InsertionPoint(before), before.location:
            tilegpu.fence_async_shared()
    return buffers


def _loaded_from(value: ir.Value, layout: NvmmaSharedLayout) -> ir.Value | None:
    """The buffer `value` was loaded from when it holds it in `layout` and one TMA copy is all
    that writes it (convert-tile-to-tilegpu's form of a TMA load): wgmma reads that buffer,
    and nothing is written or fenced (TMA writes through the async proxy, as wgmma reads)."""
    owner = value.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or \
            owner.operation.name != "tilegpu.local_load":
        return None
    buffer = owner.operation.operands[0]
    desc = MemDesc.from_type(buffer.type)
    if desc.layout != layout or desc.shape != tuple(value.type.shape):
        return None
    alloc = buffer.owner
    if not isinstance(alloc, (ir.Operation, ir.OpView)) or \
            alloc.operation.name != "tilegpu.local_alloc" or len(alloc.operation.operands):
        return None
    users = [use.owner.operation if hasattr(use.owner, "operation") else use.owner
             for use in buffer.uses]
    copies = [u for u in users if u.name == "tilegpu.async_tma_copy_global_to_local"]
    others = [u for u in users if u.name in _BUFFER_READERS]
    if len(copies) != 1 or len(copies) + len(others) != len(users):
        return None  # written by something else too (or viewed, which this does not follow)
    return buffer


# What may use a TMA buffer that wgmma reads in place: reads (and the copy itself).
_BUFFER_READERS = ("tilegpu.local_load", "tilegpu.warpgroup_dot")


def _parent(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    return None if parent is None else parent.operation


def _outside_invariant_loops(value: ir.Value, before: ir.Operation) -> ir.Operation:
    """`before`, or the outermost `scf.for` around it that `value` is defined outside of."""
    owner = value.owner
    defined = owner.owner if isinstance(owner, ir.Block) else owner
    defined = defined.operation if defined is not None else None
    ancestors = []
    while defined is not None:
        ancestors.append(defined)
        defined = _parent(defined)
    where, loop = before, _parent(before)
    while loop is not None and loop.name == "scf.for" and \
            not any(loop == a for a in ancestors):
        where, loop = loop, _parent(loop)
    return where


def _source_order(value: ir.Value, produced: bool = False) -> tuple[int, ...]:
    """The fastest dimension first of `value`'s layout, or (`produced`) of the layout it is
    produced in, looking through layout conversions: a load's coalesced layout, which copies
    into shared memory follow. (The mma.sync staging keeps the value's own order.)"""
    while produced:
        owner = value.owner
        if not isinstance(owner, (ir.Operation, ir.OpView)) or \
                owner.operation.name != "tilegpu.convert_layout":
            break
        value = owner.operation.operands[0]
    source = tilegpu.tensor_layout(value.type)
    return layout_order(source) if isinstance(source, BlockedLayout) else \
        tuple(reversed(range(len(value.type.shape))))


def _unconverted(value: ir.Value) -> ir.Value:
    """`value` before the layout conversions it went through."""
    while True:
        owner = value.owner
        if not isinstance(owner, (ir.Operation, ir.OpView)) or \
                owner.operation.name != "tilegpu.convert_layout":
            return value
        value = owner.operation.operands[0]


def transposed_source(value: ir.Value) -> ir.Value | None:
    """x when `value` is `tl.trans(x)` of a 2-D x (through layout conversions), else None."""
    owner = _unconverted(value).owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or owner.operation.name != "tile.trans" \
            or len(value.type.shape) != 2:
        return None
    return _unconverted(owner.operation.operands[0])


def computed_in_registers(value: ir.Value) -> bool:
    """Whether `value` (through layout conversions and a transpose) is computed by the kernel
    rather than loaded: an A operand that is (a softmax's P, a converted accumulator) feeds
    wgmma from registers; loaded ones (and arguments) are staged in shared memory, where
    cp.async can fill them."""
    value = transposed_source(value) or _unconverted(value)
    owner = value.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)):
        return False
    return owner.operation.name not in ("tile.load", "tilegpu.local_load")  # (TMA's buffers)


_WGMMA_BITS = {"f16": 16, "bf16": 16, "f32": 32, "i8": 8, "f8E4M3FN": 8, "f8E5M2": 8}


@dataclass(frozen=True)
class WgmmaOperand:
    """How wgmma reads one operand: through a buffer in `layout` (the operand's shape and
    order), which holds the operand itself or, when `transposed` is the x of an operand
    `tl.trans(x)`, x in the swapped order (read through a `memdesc_trans` view)."""
    layout: NvmmaSharedLayout
    transposed: ir.Value | None = None

    def stored(self, value: ir.Value) -> tuple[ir.Value, NvmmaSharedLayout]:
        """The value written to shared memory for operand `value`, and its layout."""
        if self.transposed is None:
            return _unconverted(value), self.layout
        return self.transposed, dataclasses.replace(
            self.layout, order=transposed_order(self.layout.order))


def wgmma_operand_layouts(a: ir.Value, b: ir.Value) -> list[WgmmaOperand] | None:
    """How wgmma reads a dot's A and B, each in the order of the layout the value is produced
    in (so copies into it stay contiguous; for `tl.trans(x)`, x's order swapped: x is stored
    as it is and read transposed), or None where wgmma cannot read them. wgmma transposes
    16-bit operands only: a tf32 operand running fastest along M or N is staged K-major all
    the same (each element its own 4-byte copy, transposing it), an int8 one (whose single
    bytes cp.async cannot copy) is left to mma.sync."""
    operands = []
    for value, k_dim in ((a, 1), (b, 0)):
        bits = _WGMMA_BITS.get(str(tile.element_type(value.type)))
        source = transposed_source(value)
        if source is not None:
            order = transposed_order(_source_order(source, produced=True))
            if bits != 16 and order[0] != k_dim:
                source = None  # staged from the transposed registers instead
        if source is None:
            order = _source_order(value, produced=True)
        if bits == 32 and order[0] != k_dim:
            order = (k_dim, 1 - k_dim)
        if bits is None or (bits != 16 and order[0] != k_dim):
            return None
        found = nvmma_layout(list(value.type.shape), order, bits)
        if found is None:
            return None
        operands.append(WgmmaOperand(found, source))
    return operands


def _convert(value: ir.Value, layout, before: ir.Operation) -> ir.Value:
    if tilegpu.tensor_layout(value.type) == layout:
        return value
    with ir.InsertionPoint(before), before.location:
        return tilegpu.convert_layout(value, layout)


def _elementwise_cast(value: ir.Value, element: ir.Type, before: ir.Operation) -> ir.Value:
    target = tile.like(value.type, element)
    with ir.InsertionPoint(before), before.location:
        if ir.FloatType(element).width > ir.FloatType(tile.element_type(value.type)).width:
            return arith.extf(target, value)
        return arith.truncf(target, value)


@register
class AccelerateMatmul(Pass):
    name = "tilegpu-accelerate-matmul"
    summary = "dot results to mma layouts, operands to dot-operand layouts (or FMA layouts)"
    options = (Option("target", str, "cuda:90", "the GPU (cuda:<compute capability>)", *TARGET),)

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        num_warps = module_num_warps(module)
        arch = target_arch(module, self.target)
        staged = _Staged()
        for op in ops_in(module, "tile.dot"):
            self._rewrite(op, num_warps, arch, staged)

    def _rewrite(self, op: ir.Operation, num_warps: int, arch: int, staged: _Staged) -> None:
        a, b, c = op.operands
        result = op.results[0]
        shape = list(c.type.shape)
        old = tilegpu.tensor_layout(result.type)
        precision = ir.StringAttr(op.attributes["input_precision"]).value
        k = a.type.shape[-1]
        kw = mma_k_width(tile.element_type(a.type), tile.element_type(c.type), precision)
        use_mma = (arch >= 80 and kw is not None and len(shape) in (2, 3) and
                   shape[-2] >= 16 and shape[-1] >= 8 and k >= 8 * kw)
        wgmma = None
        bits = tile.element_type(a.type).width
        if use_mma and arch >= 90 and len(shape) == 2 and k % (256 // bits) == 0:
            found = wgmma_shape(shape[0], shape[1], num_warps)
            layouts = wgmma_operand_layouts(a, b)
            if found is not None and layouts is not None and \
                    instruction_fits(layouts[0].layout, 1, WGMMA_ROWS) and \
                    instruction_fits(layouts[1].layout, 0, found[1]):
                (warps, n), wgmma = found, layouts
                c_layout = MmaLayout((3, 0), warps, (16, n))
        imprecise = ir.IntegerAttr(op.attributes["max_num_imprecise_acc"]).value
        if tile.is_fp8(a.type) and (wgmma is None or imprecise < 256 // bits):
            # No mma.sync here takes fp8, and fp8 wgmma sums at least one instruction's 32
            # products in less than fp32 precision: the operands go to fp16 (exactly), and the
            # dot with them, where wgmma cannot read them or full precision is asked for.
            op.operands[0] = _elementwise_cast(a, ir.F16Type.get(), op)
            op.operands[1] = _elementwise_cast(b, ir.F16Type.get(), op)
            return self._rewrite(op, num_warps, arch, staged)
        if wgmma is not None:
            pass
        elif use_mma:
            mma = mma_layout(shape, num_warps)
            a_layout = DotOperandLayout(0, mma, kw)
            b_layout = DotOperandLayout(1, mma, kw)
            c_layout = mma
        elif isinstance(old, BlockedLayout):
            a_layout, b_layout = fma_operand_layouts(old, k)
            c_layout = old
        else:
            return  # already rewritten (or a layout this pass does not know): leave it
        if wgmma is not None and bits == 16 and computed_in_registers(a):  # A in registers
            a_smem = _convert(a, DotOperandLayout(0, c_layout, 2), op)
            b_smem, = _stage_nvmma([(b, wgmma[1])], op, staged)
        elif wgmma is not None:  # both read by wgmma from shared memory
            a_smem, b_smem = _stage_nvmma([(a, wgmma[0]), (b, wgmma[1])], op, staged)
        elif use_mma:  # operands are staged in shared memory (where ldmatrix reads them)
            op.operands[0], op.operands[1] = _stage([(a, a_layout), (b, b_layout)], op)
        else:
            op.operands[0] = _convert(a, a_layout, op)
            op.operands[1] = _convert(b, b_layout, op)
        # fp16 products accumulate in fp16 (mma.sync and wgmma have it, as in Triton); bf16's
        # instructions take only an fp32 accumulator
        wide = use_mma and str(tile.element_type(c.type)) == "f16" and \
            str(tile.element_type(a.type)) != "f16"
        acc = _convert(c, c_layout, op)
        if wide:  # products are summed in fp32
            acc = _elementwise_cast(acc, ir.F32Type.get(), op)
        if wgmma is not None:
            with ir.InsertionPoint(op), op.location:
                replacement = tilegpu.warpgroup_dot(a_smem, b_smem, acc, {
                    name: op.attributes[name]
                    for name in ("input_precision", "max_num_imprecise_acc")})
            uses = [(use.owner, use.operand_number) for use in result.uses]
            anchor = op
        else:
            op.operands[2] = acc
            if c_layout == old and not wide:
                return
            result.set_type(acc.type)
            uses = [(use.owner, use.operand_number) for use in result.uses]
            after = list(op.block.operations)
            index = [o.operation for o in after].index(op)
            anchor = after[index + 1].operation
            replacement = result
        value = replacement
        if wide:
            value = _elementwise_cast(value, tile.element_type(c.type), anchor)
        value = _convert(value, old, anchor)
        for owner, number in uses:
            owner.operands[number] = value
        if wgmma is not None:
            op.erase()
