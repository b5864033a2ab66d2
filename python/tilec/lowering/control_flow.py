"""Lowering rules for `scf` regions: carried tensors become their per-thread values."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import scf

from tilec.lowering.context import Lowering, rule


def _unflatten_all(ctx: Lowering, templates, values) -> list:
    out, i = [], 0
    for template in templates:
        lowered, n = ctx.unflatten(template, values[i:])
        out.append(lowered)
        i += n
    return out


def _flat(ctx: Lowering, values) -> list[ir.Value]:
    return [v for value in values for v in ctx.flatten(ctx.get(value))]


@rule("scf.yield")
def lower_yield(ctx: Lowering, op: ir.Operation):
    scf.YieldOp(_flat(ctx, op.operands))
    return []


@rule("scf.condition")
def lower_condition(ctx: Lowering, op: ir.Operation):
    operands = list(op.operands)
    scf.ConditionOp(ctx.get(operands[0]), _flat(ctx, operands[1:]))
    return []


@rule("scf.for")
def lower_for(ctx: Lowering, op: ir.Operation):
    lb, ub, step, *inits = list(op.operands)
    loop = scf.ForOp(ctx.get(lb), ctx.get(ub), ctx.get(step), _flat(ctx, inits))
    for name in op.attributes:
        if name.startswith("tile."):
            loop.attributes[name] = op.attributes[name]
    body = op.regions[0].blocks[0]
    ctx.set(body.arguments[0], loop.induction_variable)
    carried = list(body.arguments)[1:]
    for arg, lowered in zip(carried, _unflatten_all(ctx, carried, list(loop.inner_iter_args))):
        ctx.set(arg, lowered)
    with ir.InsertionPoint(loop.body):
        ctx.lower_block(body)
    return _unflatten_all(ctx, list(op.results), list(loop.results))


@rule("scf.if")
def lower_if(ctx: Lowering, op: ir.Operation):
    types = [t for r in op.results for t in ctx.flat_types(r)]
    has_else = len(op.regions[1].blocks) > 0
    new = scf.IfOp(ctx.get(op.operands[0]), types, has_else=has_else)
    with ir.InsertionPoint(new.then_block):
        ctx.lower_block(op.regions[0].blocks[0])
    if has_else:
        with ir.InsertionPoint(new.else_block):
            ctx.lower_block(op.regions[1].blocks[0])
    return _unflatten_all(ctx, list(op.results), list(new.results))


@rule("scf.while")
def lower_while(ctx: Lowering, op: ir.Operation):
    inits = list(op.operands)
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    result_types = [t for r in op.results for t in ctx.flat_types(r)]
    loop = scf.WhileOp(result_types, _flat(ctx, inits))
    before_types = [t for a in before.arguments for t in ctx.flat_types(a)]
    after_types = [t for a in after.arguments for t in ctx.flat_types(a)]
    new_before = loop.regions[0].blocks.append(*before_types)
    new_after = loop.regions[1].blocks.append(*after_types)
    for block, new_block in ((before, new_before), (after, new_after)):
        args = list(block.arguments)
        for arg, lowered in zip(args, _unflatten_all(ctx, args, list(new_block.arguments))):
            ctx.set(arg, lowered)
        with ir.InsertionPoint(new_block):
            ctx.lower_block(block)
    return _unflatten_all(ctx, list(op.results), list(loop.results))


@rule("func.return")
def lower_return(ctx: Lowering, op: ir.Operation):
    return []  # the kernel's gpu.return is already in place
