"""Lowering of shared-memory buffers: `local_alloc`, `local_store`, `local_load`,
`memdesc_subview`, `memdesc_trans`, `local_dealloc`.

A buffer lowers to a `SharedBuffer`: the address of its first element (the offset
tilegpu-allocate-shared-memory gave the alloc) and its memdesc. Element (s, f) of a 2-D tile
whose fastest dimension is f (the layout's `order[0]`) lives at
    s * F + ((f / vec) ^ ((s / per_phase) % max_phase)) * vec + f % vec
(F the size of dimension f): vectors of `vec` elements are XOR-swizzled across a row, so the
rows that one `ldmatrix` (or a column of threads) reads fall into different banks. Addresses
are computed from a coordinate's thread part and the remainder of its constant part modulo the
swizzle's period; whole periods are added last as a constant (`SharedBuffer.address`), so a
thread's copies and ldmatrix tiles share a few base addresses and differ by immediates.

Stores write each thread's registers, as vectors where they are contiguous along f. Loads into
an mma operand of 16-bit elements use `ldmatrix` (x4: four 8x8 matrices, each lane giving one
row's address; `.trans` when K is not the fastest dimension), which leaves each lane exactly the
fragment `mma.sync` wants; any other load reads element by element.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.analysis.constants import constant_int
from tilec.analysis.layouts import contiguous_registers, layout_order, to_linear
from tilec.analysis.shared_memory import copy_width, memdesc_bytes, numel, storage_bytes
from tilec.dialects.tilegpu import DotOperandLayout, MemDesc, MmaLayout, SharedLayout
from tilec.lowering.context import (Distributed, Lowering, from_memory, i32, memory_type, rule,
                                    scalar_type, to_memory, vector_of)
from tilec.lowering.coordinates import coordinate
from tilec.lowering.shared_buffer import SharedBuffer, offset_address


def store(ctx: Lowering, buffer: SharedBuffer, value: Distributed) -> None:
    """Each thread writes its registers: runs contiguous along the buffer's fastest dimension
    as one vector (at most `vec` elements, which the swizzle keeps together)."""
    layout: SharedLayout = buffer.desc.layout
    linear = to_linear(value.layout, tuple(value.shape))
    run = 1
    if layout_order(value.layout)[0] == layout.order[0]:
        run = min(contiguous_registers(value.layout, tuple(value.shape)), layout.vec)
    for reg in range(0, linear.num_registers, run):
        pointer = buffer.address(coordinate(ctx, value.layout, value.shape, reg))
        items = [to_memory(v) for v in value.values[reg:reg + run]]
        if run == 1:
            llvm.store(items[0], pointer)
            continue
        llvm.store(vector_of(items, buffer.element), pointer,
                   alignment=run * storage_bytes(buffer.element))


@rule("tilegpu.local_alloc")
def lower_local_alloc(ctx: Lowering, op: ir.Operation):
    result = op.results[0]
    desc = MemDesc.from_type(result.type)
    element = memory_type(ir.Type.parse(desc.element_type))
    base = ctx.scratch(memdesc_bytes(result.type))
    buffer = SharedBuffer(base, desc, element)
    if len(op.operands):
        store(ctx, buffer, ctx.get(op.operands[0]))
    return [buffer]


@rule("tilegpu.local_store")
def lower_local_store(ctx: Lowering, op: ir.Operation):
    store(ctx, ctx.get(op.operands[1]), ctx.get(op.operands[0]))
    return []


@rule("tilegpu.local_dealloc")
def lower_local_dealloc(ctx: Lowering, op: ir.Operation):
    return []


@rule("tilegpu.memdesc_subview")
def lower_memdesc_subview(ctx: Lowering, op: ir.Operation):
    """A slice of the leading dimensions (a stage of a multi-buffered allocation): the base
    moves by whole tiles, so the swizzle of each tile is unchanged. A part of a tile (a K step
    of an mma operand; constant offsets) keeps the tile and records where the part starts."""
    src: SharedBuffer = ctx.get(op.operands[0])
    offsets = list(op.operands[1:])
    shape = src.desc.shape
    desc = MemDesc.from_type(op.results[0].type)
    lead = len(shape) - len(desc.shape)
    if lead == 0:
        origin = tuple(a + _constant(v) for a, v in
                       zip(src.origin or (0,) * len(offsets), offsets))
        return [SharedBuffer(src.base, src.desc, src.element, origin)]
    total = None
    for d, value in enumerate(offsets[:lead]):
        term = arith.muli(ctx.get(value), i32(numel(shape[d + 1:])))
        total = term if total is None else arith.addi(total, term)
    base = src.base if total is None else offset_address(src, total)
    return [SharedBuffer(base, desc, src.element)]


@rule("tilegpu.memdesc_trans")
def lower_memdesc_trans(ctx: Lowering, op: ir.Operation):
    """The same buffer, its dimensions (and a view's origin) swapped: addresses follow the
    layout's order, which the result type has swapped too."""
    src: SharedBuffer = ctx.get(op.operands[0])
    origin = tuple(reversed(src.origin)) if src.origin else ()
    return [SharedBuffer(src.base, MemDesc.from_type(op.results[0].type), src.element, origin)]


def _constant(value: ir.Value) -> int:
    found = constant_int(value)
    if found is None:
        raise NotImplementedError("a view inside a shared tile needs constant offsets")
    return found


@rule("tilegpu.local_load")
def lower_local_load(ctx: Lowering, op: ir.Operation):
    buffer: SharedBuffer = ctx.get(op.operands[0])
    layout, shape = ctx.layout_of(op.results[0])
    element = scalar_type(op.results[0].type)
    if _uses_ldmatrix(layout, buffer):
        fragments = Fragments(ctx, buffer, layout, shape)
        if not _dot_follows(op):
            fragments.values  # noqa: B018  (loads every fragment here)
        return [fragments]
    loads = Elements(ctx, buffer, layout, shape, element)
    if not (isinstance(layout, DotOperandLayout) and _dot_follows(op)):
        loads.values  # noqa: B018  (loads every element here)
    return [loads]


# --- ldmatrix ---------------------------------------------------------------------------------

_BETWEEN_LOAD_AND_DOT = frozenset({"tilegpu.local_load", "tilegpu.memdesc_subview"})


def _dot_follows(op: ir.Operation) -> bool:
    """Whether `op`'s one user is a `tile.dot` reached with nothing in between but other
    operand loads, views and scalar arithmetic: then its fragments may be loaded lazily, next
    to the instructions using them. Otherwise (another dot, a barrier, an async copy between,
    or a loop-carried value) they are loaded where `op` stands, which is where the IR (and
    tilegpu-membar) places the read."""
    uses = list(op.results[0].uses)
    if len(uses) != 1:
        return False
    user = uses[0].owner
    user = user.operation if hasattr(user, "operation") else user
    if user.name != "tile.dot" or user.block != op.block:
        return False
    ops = [o.operation for o in op.block.operations]
    start, end = ops.index(op), ops.index(user)
    for between in ops[start + 1:end]:
        scalar = between.name.split(".")[0] == "arith" and not any(
            isinstance(r.type, ir.ShapedType) for r in between.results)
        if not (scalar or between.name in _BETWEEN_LOAD_AND_DOT):
            return False
    return start < end


def _uses_ldmatrix(layout, buffer: SharedBuffer) -> bool:
    return (isinstance(layout, DotOperandLayout) and isinstance(layout.parent, MmaLayout) and
            layout.k_width == 2 and str(buffer.element) in ("f16", "bf16") and
            buffer.desc.layout.rank == 2 and buffer.desc.layout.vec >= 8)


def _warp_offsets(ctx: Lowering, linear) -> list[ir.Value]:
    """Per dimension, the part of this thread's coordinate that comes from its warp id."""
    out = []
    for d in range(len(linear.shape)):
        total = i32(0)
        for bit, basis in enumerate(linear.warp):
            if basis[d]:
                picked = arith.andi(arith.shrui(ctx.warp, i32(bit)), i32(1))
                total = arith.addi(total, arith.muli(picked, i32(basis[d])))
        out.append(total)
    return out


class _Lazy(Distributed):
    """A tile of shared memory whose registers are loaded when first asked for
    (`register(coord)`; the subclass's `_load(reg)` fills register `reg`, and may fill others
    with it), so a dot lowered right after (`_dot_follows`) loads a K step's operands next to
    the instructions using them instead of holding all of them at once; `values` loads
    whatever is left."""

    def __init__(self, buffer: SharedBuffer, layout, shape):
        self.layout, self.shape = layout, tuple(shape)
        self.buffer = buffer
        self.linear = to_linear(layout, self.shape)
        self.where = self.linear.register_index()
        self.loaded: list[ir.Value | None] = [None] * self.linear.num_registers

    @property
    def values(self) -> list[ir.Value]:
        for reg in range(len(self.loaded)):
            self._get(reg)
        return list(self.loaded)

    def register(self, coord) -> ir.Value:
        """The value of the register at (thread-relative) `coord`, loaded if it is not yet."""
        return self._get(self.where[coord])

    def _get(self, reg: int) -> ir.Value:
        if self.loaded[reg] is None:
            self._load(reg)
        return self.loaded[reg]

    def _load(self, reg: int) -> None:
        raise NotImplementedError


class Elements(_Lazy):
    """A tile read from shared memory one element a register (`_Lazy`)."""

    def __init__(self, ctx: Lowering, buffer: SharedBuffer, layout, shape, element: ir.Type):
        super().__init__(buffer, layout, shape)
        self.ctx, self.element = ctx, element

    def _load(self, reg: int) -> None:
        address = self.buffer.address(coordinate(self.ctx, self.layout, self.shape, reg))
        self.loaded[reg] = from_memory(llvm.load(self.buffer.element, address), self.element)


class Fragments(_Lazy):
    """Fragments of A (op 0, [M, K]) or B (op 1, [K, N]) for mma.sync m16n8k16, loaded with
    ldmatrix when first asked for (`register(coord)`), so a dot lowered right after emits each
    load next to the instructions using it and keeps only a K step of fragments live; `values`
    loads whatever is left. Each x4 loads four 8x8 matrices; lanes 8j..8j+7 give the rows of
    matrix j. For A the matrices are (m, k) + (0, 0), (8, 0), (0, 8), (8, 8): registers a0a1,
    a2a3, a4a5, a6a7. For B they are (k, n) + (0, n_a), (8, n_a), (0, n_b), (8, n_b) for two N
    tiles of this thread."""

    def __init__(self, ctx: Lowering, buffer: SharedBuffer, layout: DotOperandLayout, shape):
        super().__init__(buffer, layout, shape)
        linear = self.linear
        self.k_dim = 1 if layout.op_idx == 0 else 0
        self.other = 1 - self.k_dim
        self.trans = buffer.desc.layout.order[0] != self.k_dim
        with ctx.prologue:
            self.warp = _warp_offsets(ctx, linear)
            group = arith.shrui(ctx.lane, i32(3))  # which matrix this lane addresses
            self.row = arith.andi(ctx.lane, i32(7))  # which of its rows
            self.low = arith.andi(group, i32(1))
            self.high = arith.shrui(group, i32(1))
        if layout.op_idx == 0:  # 16-row fragments (rows +8 are inside them)
            origins = sorted({c[self.other] for c in self.where if c[self.other] % 16 == 0})
            self.tiles = [(m0,) for m0 in origins]
        else:  # every N tile of 8 columns this thread holds, in pairs
            origins = sorted({c[self.other] for c in self.where})
            self.tiles = [tuple(origins[i:i + 2]) for i in range(0, len(origins), 2)]
        self.tile_of = {o: t for t in self.tiles for o in t}

    def _load(self, reg: int) -> None:
        """The fragment holding register `reg` (and the registers it shares an ldmatrix
        with)."""
        coord = self.linear.register_coords(reg)
        k0 = coord[self.k_dim] - coord[self.k_dim] % 16
        o = coord[self.other]
        if self.layout.op_idx == 0:
            o -= o % 16
        self._load_matrices(k0, self.tile_of[o])

    def _load_matrices(self, k0: int, tile: tuple) -> None:
        i32_ = i32
        # Where this lane's row starts, per dimension: the tile's constant origin plus the
        # lane's and warp's offset (kept apart, so tiles share one address computation).
        if self.layout.op_idx == 0:
            # matrix j: rows m0 + 8 (j & 1), columns k0 + 8 (j >> 1)
            o_part = (tile[0], arith.addi(self.warp[self.other], arith.muli(self.low, i32_(8))))
            k_part = (k0, arith.muli(self.high, i32_(8)))
            count = 4
        else:
            n_a = tile[0]
            n_b = tile[1] if len(tile) > 1 else n_a
            # matrix j: rows k0 + 8 (j & 1), columns n_a or n_b (j >> 1)
            k_part = (k0, arith.muli(self.low, i32_(8)))
            o_part = (n_a, arith.addi(self.warp[self.other],
                                      arith.muli(self.high, i32_(n_b - n_a))))
            count = 4 if len(tile) > 1 else 2
        if self.trans:  # rows run along K: this lane's row is k_start + row
            k_part = (k_part[0], arith.addi(k_part[1], self.row))
        else:  # rows run along M (A) or N (B)
            o_part = (o_part[0], arith.addi(o_part[1], self.row))
        parts = [None, None]
        parts[self.k_dim], parts[self.other] = k_part, o_part
        pointer = self.buffer.address(parts)
        half = ir.VectorType.get([2], self.buffer.element)
        for j, word in enumerate(_ldmatrix_op(pointer, count, self.trans)):
            pair = llvm.bitcast(half, word)
            if self.layout.op_idx == 0:
                dm, dk = 8 * (j & 1), 8 * (j >> 1)
                targets = [(tile[0] + dm, k0 + dk), (tile[0] + dm, k0 + dk + 1)]
            else:
                dk = 8 * (j & 1)
                targets = [(k0 + dk, tile[j >> 1]), (k0 + dk + 1, tile[j >> 1])]
            for i, target in enumerate(targets):
                if target not in self.where:
                    raise NotImplementedError(
                        f"ldmatrix does not cover {self.layout.text()} over {list(self.shape)}")
                self.loaded[self.where[target]] = llvm.extractelement(pair, i32_(i))


def _ldmatrix_op(pointer: ir.Value, count: int, trans: bool) -> list[ir.Value]:
    word = ir.IntegerType.get_signless(32)
    struct = ir.Type.parse(f"!llvm.struct<({', '.join(['i32'] * count)})>")
    attributes = {
        "num": ir.IntegerAttr.get(word, count),
        "layout": ir.Attribute.parse(f"#nvvm.mma_layout<{'col' if trans else 'row'}>"),
        "shape": ir.Attribute.parse("#nvvm.ld_st_matrix_shape<m = 8, n = 8>"),
        "eltType": ir.Attribute.parse("#nvvm.ld_st_matrix_elt_type<b16>"),
    }
    result = ir.Operation.create("nvvm.ldmatrix", results=[struct], operands=[pointer],
                                 attributes=attributes).result
    return [llvm.extractvalue(word, result, ir.DenseI64ArrayAttr.get([i])) for i in range(count)]


# --- asynchronous copies ----------------------------------------------------------------------

@rule("tilegpu.async_copy_global_to_local")
def lower_async_copy(ctx: Lowering, op: ir.Operation):
    """Each thread copies its elements, `copy_width` at a time, global to shared without
    passing through registers; a masked-off vector copies 0 bytes and zero-fills."""
    src = ctx.get(op.operands[0])
    buffer: SharedBuffer = ctx.get(op.operands[1])
    segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    mask = ctx.get(op.operands[2]) if segments[2] else None
    run = copy_width(src.layout, src.shape, buffer.element, buffer.desc.layout)
    if not run:
        raise NotImplementedError(f"cp.async of {src.layout.text()} into "
                                  f"{buffer.desc.layout.text()} (under 4 contiguous bytes)")
    nbytes = run * storage_bytes(buffer.element)
    modifier = ir.Attribute.parse(f"#nvvm<load_cache_modifier {'cg' if nbytes == 16 else 'ca'}>")
    linear = to_linear(src.layout, tuple(src.shape))
    for reg in range(0, linear.num_registers, run):
        dst = buffer.address(coordinate(ctx, src.layout, src.shape, reg))
        size = None
        if mask is not None:
            size = arith.select(mask.values[reg], i32(nbytes), i32(0))
        ir.Operation.create("nvvm.cp.async.shared.global",
                            operands=[dst, src.values[reg]] + ([size] if size is not None else []),
                            attributes={"size": ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                                                   nbytes),
                                        "modifier": modifier})
    return [i32(0)]  # the token orders nothing once lowered


@rule("tilegpu.async_commit_group")
def lower_async_commit_group(ctx: Lowering, op: ir.Operation):
    ir.Operation.create("nvvm.cp.async.commit.group")
    return [i32(0)]


@rule("tilegpu.async_wait")
def lower_async_wait(ctx: Lowering, op: ir.Operation):
    num = ir.IntegerAttr(op.attributes["num"]).value
    ir.Operation.create("nvvm.cp.async.wait.group",
                        attributes={"n": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), num)})
    return [i32(0)]
