"""tile-combine: canonicalisations on `tile` ops.

After it runs:
- chains of `addptr` are one `addptr` whose offset is the sum (`arith.addi`) of the offsets;
- `addptr` by a constant zero offset is gone;
- `splat` of a constant is a dense `arith.constant`;
- `broadcast` to its own type is gone, and `broadcast`/`expand_dims` of a `splat` is a `splat`;
- `load`/`store` masks that are constant true are dropped, a `store` with a constant-false mask
  is erased and a `load` with a constant-false mask and an `other` is that `other`;
- `tile` ops without side effects whose results are unused are erased, and identical ones
  merged (upstream canonicalisation and cse cannot: IRDL ops declare no memory effects);
- an integer remainder the axis analysis proves zero (`x % 8` of an `x` it knows to be a
  multiple of 8, such as `pid * 64`) is the constant 0, so the checks built on it fold (the
  TMA alignment test of `desc.load`/`desc.store`, see language/memory.py).

Example:
    %q = "tile.addptr"(%p, %a) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
    %r = "tile.addptr"(%q, %b) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
becomes
    %s = arith.addi %a, %b : i32
    %r = "tile.addptr"(%p, %s) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith
from mlir.rewrite import RewritePatternSet, apply_patterns_and_fold_greedily

from tilec.analysis import axis_info
from tilec.analysis.constants import (constant_int, constant_value, is_constant_false,
                                      is_constant_true)
from tilec.analysis.op_facts import erasable_when_unused, is_pure
from tilec.dialects import tile
from tilec.passbase import Pass, register

NO_MATCH = True  # what a pattern returns when it does not apply


def _owner_name(value: ir.Value) -> str | None:
    owner = value.owner
    return owner.name if isinstance(owner, (ir.Operation, ir.OpView)) else None


def fold_addptr_chain(op, rewriter):
    ptr, offset = op.operands
    if _owner_name(ptr) != "tile.addptr":
        return NO_MATCH
    base, inner_offset = ptr.owner.operands
    if inner_offset.type != offset.type:
        return NO_MATCH
    with rewriter.ip, op.location:
        total = arith.addi(inner_offset, offset)
        rewriter.replace_op(op, [tile.addptr(base, total)])


def fold_addptr_zero(op, rewriter):
    if constant_int(op.operands[1]) != 0:
        return NO_MATCH
    rewriter.replace_op(op, [op.operands[0]])


def fold_splat_constant(op, rewriter):
    attr = constant_value(op.operands[0])
    if attr is None or tile.is_ptr(op.operands[0].type):
        return NO_MATCH
    with rewriter.ip, op.location:
        dense = ir.DenseElementsAttr.get_splat(op.results[0].type, attr)
        rewriter.replace_op(op, [arith.constant(op.results[0].type, dense)])


def fold_broadcast(op, rewriter):
    src = op.operands[0]
    result_type = op.results[0].type
    if src.type == result_type:
        rewriter.replace_op(op, [src])
        return None
    return _resplat(op, rewriter)


def _resplat(op, rewriter):
    """`broadcast`/`expand_dims` of a `splat` is a `splat` of the result shape."""
    src = op.operands[0]
    if _owner_name(src) != "tile.splat":
        return NO_MATCH
    with rewriter.ip, op.location:
        shape = tile.shape_of(op.results[0].type)
        rewriter.replace_op(op, [tile.splat(src.owner.operands[0], shape)])


def _mask_and_other(op):
    """(mask, other) of a load, each None when absent."""
    segments = op.attributes["operandSegmentSizes"]
    operands = list(op.operands)[1:]
    mask = operands.pop(0) if segments[1] else None
    other = operands.pop(0) if segments[2] else None
    return mask, other


def fold_load_mask(op, rewriter):
    mask, other = _mask_and_other(op)
    if mask is None:
        return NO_MATCH
    if is_constant_false(mask) and other is not None:
        rewriter.replace_op(op, [other])
        return None
    if not is_constant_true(mask):
        return NO_MATCH
    attrs = op.attributes
    with rewriter.ip, op.location:
        new = tile.load(op.operands[0], cache=attrs["cache"].value, evict=attrs["evict"].value,
                        is_volatile=attrs["is_volatile"].value)
        rewriter.replace_op(op, [new])


def fold_store_mask(op, rewriter):
    if len(op.operands) < 3:
        return NO_MATCH
    mask = op.operands[2]
    if is_constant_false(mask):
        rewriter.erase_op(op.operation)
        return None
    if not is_constant_true(mask):
        return NO_MATCH
    with rewriter.ip, op.location:
        tile.store(op.operands[0], op.operands[1],
                   cache=op.attributes["cache"].value, evict=op.attributes["evict"].value)
    rewriter.erase_op(op.operation)


PATTERNS = {
    "tile.addptr": (fold_addptr_chain, fold_addptr_zero),
    "tile.splat": (fold_splat_constant,),
    "tile.broadcast": (fold_broadcast,),
    "tile.expand_dims": (_resplat,),
    "tile.load": (fold_load_mask,),
    "tile.store": (fold_store_mask,),
}


def is_dead(op: ir.Operation) -> bool:
    return erasable_when_unused(op) and not _has_uses(op)


def _has_uses(op: ir.Operation) -> bool:
    return any(True for r in op.results for _ in r.uses)


def erase_dead_ops(module: ir.Operation) -> bool:
    """Erase dead side-effect-free tile ops (users first); True if any was erased."""
    dead = []

    def visit(op):
        if is_dead(op.operation):
            dead.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.POST_ORDER)
    erased = False
    # Erasing one op can make its operands' producers dead: repeat from the last found.
    while dead:
        op = dead.pop()
        if _has_uses(op):
            continue
        producers = []
        for v in op.operands:  # once each: `x * x` must not queue x's producer twice
            if isinstance(v.owner, (ir.Operation, ir.OpView)) and \
                    v.owner.operation not in producers:
                producers.append(v.owner.operation)
        op.erase()
        erased = True
        dead += [p for p in producers if p not in dead and is_dead(p)]
    return erased


def _cse_key(op: ir.Operation):
    attributes = tuple(sorted((name, str(op.attributes[name])) for name in op.attributes))
    return (op.name, tuple(op.operands), attributes, tuple(str(r.type) for r in op.results))


def cse_pure_ops(module: ir.Operation) -> None:
    """Merge identical side-effect-free ops (upstream cse skips IRDL ops: they declare no
    effects); an op in a nested region may reuse an identical one that dominates it."""
    def visit_block(block: ir.Block, seen: dict) -> None:
        for op in list(block.operations):
            op = op.operation
            if is_pure(op) and not op.regions and op.results:
                key = _cse_key(op)
                if key in seen:
                    for old, new in zip(op.results, seen[key].results):
                        old.replace_all_uses_with(new)
                    op.erase()
                    continue
                seen[key] = op
            for region in op.regions:
                for inner in region.blocks:
                    visit_block(inner, dict(seen))

    for region in module.regions:
        for block in region.blocks:
            visit_block(block, {})


def fold_known_remainders(module: ir.Operation) -> None:
    """Integer `remsi`/`remui` results the axis analysis proves constant become constants."""
    facts = axis_info.analyze(module)
    known = []

    def visit(op):
        op = op.operation
        if op.name in ("arith.remsi", "arith.remui") and \
                isinstance(op.results[0].type, ir.IntegerType):
            value = facts.get(op.results[0]).constant
            if value is not None:
                known.append((op, value))
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    for op, value in known:
        with ir.InsertionPoint(op), op.location:
            op.results[0].replace_all_uses_with(arith.constant(op.results[0].type, value))
        op.erase()


@register
class TileCombine(Pass):
    name = "tile-combine"
    summary = "Canonicalise tile ops: fold addptr chains, constant splats and masks, erase dead ops"

    def run(self, module: ir.Operation) -> None:
        fold_known_remainders(module)
        patterns = RewritePatternSet(module.context)
        for root, fns in PATTERNS.items():
            for fn in fns:
                patterns.add(root, fn)
        frozen = patterns.freeze()
        for _ in range(10):
            apply_patterns_and_fold_greedily(module, frozen)
            if not erase_dead_ops(module):
                break
        cse_pure_ops(module)
