"""tilegpu-remove-layout-conversions: make `tilegpu.convert_layout` ops disappear.

A conversion of a value that is cheap to recompute is replaced by recomputing it in the
wanted layout: elementwise `arith`/`math` ops, `tile.splat`, `tile.make_range`, constants,
`tile.addptr`, `tile.broadcast`, `tile.expand_dims` and chains of them, back to values that
cannot be moved (loads, block arguments, reduction results); such a value is converted where
that is free (the two linear layouts place every lane's and warp's elements alike, so the
conversion renames registers: the row statistics of one wgmma accumulator used with another),
or, when it has at most 1/SMALL_FRACTION of the converted value's elements, loaded again in
the wanted layout (a load from computed pointers: a row vector broadcast over a tile is read
by every thread that holds a column of it, no data crosses threads) or converted all the same
(64 values move instead of 64x64).
Conversions to the same layout and conversions of conversions fold. Afterwards dead ops are
erased and identical side-effect-free ops merged.
Loads and stores keep the layouts tilegpu-coalesce chose: the conversions next to them are
pushed away from them. A reduction whose operands are conversions reduces the unconverted
values instead (a reduction works in any layout; also through elementwise ops between the
conversions and the reduction: `tl.sum(o.to(f32) * do.to(f32), 1)`), and a value written to
shared memory is written unconverted. An elementwise op of a conversion that does not widen
its values (`acc.to(tl.float16)` of a dot result, a `tl.where` on it) runs before it, so no
more bytes are converted and the conversion may vanish further on. Loop-carried values take
the layout their loop wants (see retype_loop_carried).

Example:
    %x = "tile.load"(...) : ... -> tensor<1024xf32, #L4>
    %a = "tilegpu.convert_layout"(%x) : ... -> tensor<1024xf32, #L1>
    %b = arith.addf %a, %a : tensor<1024xf32, #L1>
    %c = "tilegpu.convert_layout"(%b) : ... -> tensor<1024xf32, #L4>
    "tile.store"(%p, %c) ...
becomes
    %x = "tile.load"(...) : ... -> tensor<1024xf32, #L4>
    %b = arith.addf %x, %x : tensor<1024xf32, #L4>
    "tile.store"(%p, %b) ...
"""
from __future__ import annotations

from mlir import ir

from tilec.analysis.axis_lattice import bit_width
from tilec.analysis.layouts import to_linear
from tilec.analysis.op_facts import free_to_recompute
from tilec.analysis.shared_memory import numel
from tilec.dialects import tilegpu
from tilec.dialects.tilegpu import SliceLayout
from tilec.passbase import Pass, ops_in, register, require_layouts
from tilec.passes.combine import cse_pure_ops, erase_dead_ops


def _is_elementwise(op: ir.Operation) -> bool:
    dialect = op.name.split(".")[0]
    return dialect in ("arith", "math") and not op.regions and all(
        isinstance(r.type, ir.RankedTensorType) for r in op.results)


def _layout(value: ir.Value):
    return tilegpu.tensor_layout(value.type)


class _Rematerializer:
    """Recomputes values in other layouts, remembering what it built by (value, layout).

    The memo is keyed by MLIR values, whose identity is their address: an op erased while the
    memo lives could give its address to a new op, whose results would then find the erased
    op's entries (the statistics of one flash-attention row taken for another's). So ops a
    phase replaces are only `retire`d, left dead in place, and erased by `finish` when the
    memo is dropped."""

    def __init__(self):
        self.done: dict[tuple, ir.Value] = {}
        self.retired: list[ir.Operation] = []
        # Values of at most this many elements that cannot be recomputed are loaded again in
        # the wanted layout (loads) or converted (others) instead (set per conversion being
        # removed: see remove_conversions).
        self.small = 0

    def retire(self, op: ir.Operation) -> None:
        """`op` (its results unused, or used only by ops retired before it) is erased by
        `finish`."""
        self.retired.append(op)

    def retired_op(self, op: ir.Operation) -> bool:
        return any(op == old for old in self.retired)

    def finish(self) -> None:
        self.done.clear()
        for op in self.retired:
            op.erase()
        self.retired.clear()

    def value_in(self, value: ir.Value, layout, free: bool = True,
                 small: bool = True) -> ir.Value | None:
        """`value` recomputed in `layout`, or None when that would mean moving a load. A value
        that cannot be recomputed is converted where that is free (`_free_conversion`) unless
        `free` is False (a conversion asked for itself)."""
        if not isinstance(value.type, ir.RankedTensorType):
            return value  # scalars need no layout
        if _layout(value) == layout:
            return value
        key = (value, layout)
        if key in self.done:
            return self.done[key]
        owner = value.owner
        op = owner.operation if isinstance(owner, (ir.Operation, ir.OpView)) else None
        result = self._recompute(op, value, layout) if op is not None else None
        if result is None and free:
            result = _free_conversion(value, layout, op)
        if result is None and free and small and _elements(value) <= self.small:
            result = _convert_after(value, layout, op)
        if result is not None:
            self.done[key] = result
        return result

    def _recompute(self, op: ir.Operation, value: ir.Value, layout) -> ir.Value | None:
        if op.name == "tilegpu.convert_layout":
            source = op.operands[0]
            found = self.value_in(source, layout, small=False)
            if found is None and _elements(source) <= self.small:
                # converted where the old conversion was (so a load's latency stays hidden
                # behind what the kernel does between the two)
                with ir.InsertionPoint(op), op.location:
                    found = tilegpu.convert_layout(source, layout)
            return found
        if op.name == "tile.load":
            return self._reload(op, value, layout)
        if not (_is_elementwise(op) or free_to_recompute(op)):
            return None
        if len(op.results) != 1:
            return None
        operands = []
        for operand in op.operands:
            wanted = layout
            if op.name == "tile.expand_dims":
                axis = ir.IntegerAttr(op.attributes["axis"]).value
                wanted = SliceLayout(axis, layout)
            new = self.value_in(operand, wanted)
            if new is None:
                return None
            operands.append(new)
        return _clone_in(op, operands, layout, ir.InsertionPoint.after(op))

    def _reload(self, op: ir.Operation, value: ir.Value, layout) -> ir.Value | None:
        """A small load (at most `small` elements: a row statistic) issued again in `layout`,
        right after the original, from its pointers (and mask and other) recomputed there, so
        no data crosses threads: threads holding the same element read the same address (one
        transaction, from L1). Not for volatile loads. Pointers (or masks) computed from
        another load are recomputed from that load issued again the same way when it is small
        too; otherwise nothing is issued again and None is returned."""
        if _elements(value) > self.small or ir.BoolAttr(op.attributes["is_volatile"]).value:
            return None
        operands = [self.value_in(v, layout, free=False) for v in op.operands]
        if any(v is None for v in operands):
            return None
        return _clone_in(op, operands, layout, ir.InsertionPoint.after(op))


def _elements(value: ir.Value) -> int:
    return numel(ir.RankedTensorType(value.type).shape)


def _free_conversion(value: ir.Value, layout, owner: ir.Operation | None) -> ir.Value | None:
    """`value` converted to `layout` right after it is defined, when no data crosses threads
    between the two (their linear layouts place every lane's and warp's elements alike: the
    conversion renames registers), else None. Such a conversion costs nothing, so values that
    cannot be recomputed (a reduction's result, a loop-carried value) still let what depends on
    them be recomputed in `layout`."""
    source = _layout(value)
    if source is None or layout is None:
        return None
    shape = tuple(ir.RankedTensorType(value.type).shape)
    try:
        if not to_linear(layout, shape).threads_hold_alike(to_linear(source, shape)):
            return None
    except (NotImplementedError, ValueError):
        return None
    return _convert_after(value, layout, owner)


def _convert_after(value: ir.Value, layout, owner: ir.Operation | None) -> ir.Value:
    """`value` converted to `layout` right after it is defined (`owner`, or the start of its
    block for a block argument)."""
    if owner is None:
        block = value.owner
        first = list(block.operations)[0] if len(list(block.operations)) else None
        where = ir.InsertionPoint(first.operation) if first is not None else \
            ir.InsertionPoint(block)
        location = first.location if first is not None else ir.Location.unknown()
    else:
        where, location = ir.InsertionPoint.after(owner), owner.location
    with where, location:
        return tilegpu.convert_layout(value, layout)


def _clone_in(op: ir.Operation, operands: list, layout, where: ir.InsertionPoint) -> ir.Value:
    """`op` (one tensor result) computed from `operands` with its result in `layout`, inserted
    at `where`."""
    result_type = tilegpu.with_layout(op.results[0].type, layout)
    attributes = {name: op.attributes[name] for name in op.attributes}
    if op.name == "arith.constant":
        attributes["value"] = ir.DenseElementsAttr.get_splat(
            result_type, ir.DenseElementsAttr(op.attributes["value"]).get_splat_value())
    with where, op.location:
        clone = ir.Operation.create(op.name, results=[result_type], operands=operands,
                                    attributes=attributes)
    return clone.results[0]


# A conversion of a tile may be replaced by conversions of the values it is computed from when
# those are this many times smaller (the row statistics a 2-D tile is offset by:
# `exp2(qk - lse[:, None])` with `lse` loaded converts 64 values, not the 64x64 tile).
SMALL_FRACTION = 8


def remove_conversions(module: ir.Operation) -> bool:
    remat = _Rematerializer()
    changed = False
    for op in ops_in(module, "tilegpu.convert_layout"):
        remat.small = _elements(op.operands[0]) // SMALL_FRACTION
        replacement = remat.value_in(op.operands[0], _layout(op.results[0]), free=False)
        if replacement is None:
            changed |= _skip_inner_conversion(op, remat) or _convert_later(op, remat)
            continue
        op.results[0].replace_all_uses_with(replacement)
        remat.retire(op)
        changed = True
    remat.finish()
    return changed


def compute_before_conversions(module: ir.Operation) -> bool:
    """f(convert(x)) with f elementwise and elements out no wider than in becomes
    convert(f(x)): the conversion moves no more bytes (half with `acc.to(tl.float16)` of a dot
    result) and comes later, where it may vanish (into a reduction: `tl.where(mask, acc, m)`
    then `tl.max` of a dot result reduces in the accumulator's layout). Only when f is the
    conversion's one user (else both values would be converted) and f's other operands can be
    recomputed in x's layout."""
    remat = _Rematerializer()
    changed = False
    for op in ops_in(module, "tilegpu.convert_layout"):
        uses = list(op.results[0].uses)
        if len(uses) != 1:
            continue
        user = uses[0].owner.operation if hasattr(uses[0].owner, "operation") else uses[0].owner
        if remat.retired_op(user):  # also read another conversion, already moved after it
            continue
        if not _is_elementwise(user) or len(user.results) != 1:
            continue
        wide, narrow = (bit_width(ir.RankedTensorType(v.type).element_type)
                        for v in (op.results[0], user.results[0]))
        if narrow > wide:
            continue
        source = op.operands[0]
        layout = _layout(source)
        operands = [source if v == op.results[0] else remat.value_in(v, layout)
                    for v in user.operands]
        if any(v is None for v in operands):
            continue
        computed = _clone_in(user, operands, layout, ir.InsertionPoint(user))
        with ir.InsertionPoint(user), user.location:
            converted = tilegpu.convert_layout(computed, _layout(user.results[0]))
        user.results[0].replace_all_uses_with(converted)
        remat.retire(user)
        remat.retire(op)
        changed = True
    remat.finish()
    return changed


def _skip_inner_conversion(op: ir.Operation, remat: _Rematerializer) -> bool:
    """convert(convert(x)) of a value that cannot be recomputed: one conversion from x."""
    source = op.operands[0].owner
    if not isinstance(source, (ir.Operation, ir.OpView)) or \
            source.name != "tilegpu.convert_layout":
        return False
    op.operands[0] = source.operands[0]
    if op.operands[0].type == op.results[0].type:
        op.results[0].replace_all_uses_with(op.operands[0])
        remat.retire(op)
    return True


def _convert_later(op: ir.Operation, remat: _Rematerializer) -> bool:
    """convert_B(f(convert_A(x))) with f elementwise (`acc.to(tl.float16)` of a dot result):
    f is computed in x's own layout so only one conversion is left."""
    source = op.operands[0]
    inner = _wanted_layouts(source, None, set())
    if len(inner) != 1:
        return False
    layout = inner.pop()
    if layout == _layout(source):
        return False
    moved = remat.value_in(source, layout)
    if moved is None:
        return False
    op.operands[0] = moved
    if moved.type == op.results[0].type:
        op.results[0].replace_all_uses_with(moved)
        remat.retire(op)
    return True


def sink_into_reductions(module: ir.Operation) -> bool:
    """A reduction accepts any layout: one whose operands are computed by elementwise ops from
    conversions out of a single layout (`tl.sum(o.to(f32) * do.to(f32), 1)` of two loaded
    tiles converted to a compute layout) reduces values computed in that layout instead (its
    results take the matching slice layout and are converted back for their users)."""
    remat = _Rematerializer()
    changed = False
    for op in ops_in(module, "tile.reduce"):
        layouts = set()
        for operand in op.operands:
            layouts |= _wanted_layouts(operand, None, set())
        if len(layouts) != 1:
            continue
        layout = layouts.pop()
        if all(_layout(v) == layout for v in op.operands):
            continue
        operands = [remat.value_in(v, layout) for v in op.operands]
        if any(v is None for v in operands):
            continue
        axis = ir.IntegerAttr(op.attributes["axis"]).value
        for i, operand in enumerate(operands):
            op.operands[i] = operand
        for result in op.results:
            if not isinstance(result.type, ir.RankedTensorType):
                continue
            old_type = result.type
            result.set_type(tilegpu.with_layout(old_type, SliceLayout(axis, layout)))
            uses = [(use.owner, use.operand_number) for use in result.uses]
            with ir.InsertionPoint.after(op), op.location:
                back = tilegpu.convert_layout(result, tilegpu.tensor_layout(old_type))
            for owner, number in uses:
                owner.operands[number] = back
        changed = True
    remat.finish()
    return changed


def _wanted_layouts(value: ir.Value, body: ir.Block | None, seen: set) -> set:
    """Source layouts of the conversions feeding `value` through elementwise ops (of `body`,
    when given)."""
    owner = value.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or value in seen:
        return set()
    seen.add(value)
    op = owner.operation
    if body is not None and op.block != body:
        return set()
    if op.name == "tilegpu.convert_layout":
        return {_layout(op.operands[0])}
    if not _is_elementwise(op):
        return set()
    found = set()
    for operand in op.operands:
        if isinstance(operand.type, ir.RankedTensorType):
            found |= _wanted_layouts(operand, body, seen)
    return found


def _converted_uses(arg: ir.Value, yielded: ir.Value) -> set:
    """The layouts `arg` is converted to in the loop body, when each of its uses is such a
    conversion or a cheap op computing the value the loop yields for it (a pointer advanced
    every trip); empty otherwise."""
    found = set()
    for use in arg.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if owner.name == "tilegpu.convert_layout":
            found.add(_layout(owner.results[0]))
            continue
        advances = (free_to_recompute(owner) or _is_elementwise(owner)) and \
            len(owner.results) == 1 and owner.results[0] == yielded
        if not advances:
            return set()
    return found


def retype_loop_carried(module: ir.Operation) -> bool:
    """A tensor carried by an `scf.for` in one layout but wanted in another is carried in
    that one instead, converted once before the loop (free for a constant or computed
    pointers) and once after it rather than on every trip. Wanted means: its next value is
    computed from conversions out of one other layout (an accumulator of loads), or every use
    in the body converts it to one other layout (pointers advanced each trip and loaded)."""
    changed = False
    for loop in ops_in(module, "scf.for"):
        body = loop.regions[0].blocks[0]
        yield_op = list(body.operations)[-1].operation
        for i, arg in enumerate(list(body.arguments)[1:]):
            if not isinstance(arg.type, ir.RankedTensorType):
                continue
            yielded = yield_op.operands[i]
            wanted = _wanted_layouts(yielded, body, set()) or _converted_uses(arg, yielded)
            if len(wanted) != 1 or _layout(arg) in wanted:
                continue
            _carry_in(loop, i, wanted.pop())
            changed = True
    return changed


def _carry_in(loop: ir.Operation, i: int, layout) -> None:
    """Carry iteration argument `i` of `loop` in `layout`, converting at the loop's edges."""
    body = loop.regions[0].blocks[0]
    arg, result = body.arguments[1 + i], loop.results[i]
    old = _layout(arg)
    new_type = tilegpu.with_layout(arg.type, layout)
    with ir.InsertionPoint(loop), loop.location:
        loop.operands[3 + i] = tilegpu.convert_layout(loop.operands[3 + i], layout)
    arg.set_type(new_type)
    uses = [(use.owner, use.operand_number) for use in arg.uses]
    with ir.InsertionPoint(list(body.operations)[0]), loop.location:
        back = tilegpu.convert_layout(arg, old)
    for owner, number in uses:
        owner.operands[number] = back
    yield_op = list(body.operations)[-1].operation
    with ir.InsertionPoint(yield_op), loop.location:
        yield_op.operands[i] = tilegpu.convert_layout(yield_op.operands[i], layout)
    result.set_type(new_type)
    uses = [(use.owner, use.operand_number) for use in result.uses]
    with ir.InsertionPoint.after(loop), loop.location:
        after = tilegpu.convert_layout(result, old)
    for owner, number in uses:
        owner.operands[number] = after


def sink_into_shared_stores(module: ir.Operation) -> bool:
    """A value written to shared memory (`local_alloc`, `local_store`) may be in any layout:
    one that is a conversion is written unconverted."""
    changed = False
    for op in ops_in(module, "tilegpu.local_alloc", "tilegpu.local_store"):
        if not len(op.operands):
            continue
        owner = op.operands[0].owner
        if isinstance(owner, (ir.Operation, ir.OpView)) and \
                owner.name == "tilegpu.convert_layout":
            op.operands[0] = owner.operands[0]
            changed = True
    return changed


@register
class RemoveLayoutConversions(Pass):
    name = "tilegpu-remove-layout-conversions"
    summary = "Recompute cheap values in the layout their users want so conversions vanish"

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        for _ in range(8):
            changed = retype_loop_carried(module)
            changed |= remove_conversions(module)
            changed |= compute_before_conversions(module)
            changed |= sink_into_reductions(module)
            changed |= sink_into_shared_stores(module)
            erase_dead_ops(module)
            cse_pure_ops(module)
            if not changed:
                break
