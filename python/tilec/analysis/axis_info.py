"""Axis analysis: per dimension, how integer and pointer values are laid out in runs.

For every integer or pointer value (a scalar counts as a one-element tensor) and each dimension
`d` the analysis gives, as powers of two:
- `contiguity[d]`: the tensor splits along `d` into aligned runs of this length whose values grow
  by one (one element for pointers: `pointee` bytes);
- `divisibility[d]`: the largest power of two dividing the first value of every such run (in
  bytes for pointers, i.e. the address); with contiguity 1 it divides every element;
- `constancy[d]`: the tensor splits along `d` into aligned runs of this length of equal values;
- `constant`: the value of every element, when that is known.

It is a forward pass over the ops in order, nested regions included: kernel arguments start from
their `tile.divisibility` specialisation, each op has a transfer rule (`RULES`, in
analysis/axis_rules.py), and the
`tile.divisibility` / `tile.contiguity` / `tile.constancy` hints of `multiple_of`,
`max_contiguous` and `max_constancy` override what the rule found. Values without a rule get the
pessimistic facts (runs of one, divisibility 1). `scf.for` iteration arguments reach a fixpoint
by joining the initial value with the yielded one; `scf.if` results join both branches.

As in Triton, `divsi`/`remsi` rules assume non-negative operands (offsets), and integer overflow
is ignored.

    info = analyze(module).get(ptrs)      # -> AxisInfo
    info.contiguity, info.divisibility, info.constancy
"""

from __future__ import annotations

from dataclasses import replace

from mlir import ir

from tilec.analysis.axis_lattice import (HINTS, AxisInfo, AxisInfoMap, normalize, shape_of,
                                         unit_bytes)
from tilec.analysis.axis_rules import RULES

# --- the walk ---------------------------------------------------------------------------------

MAX_LOOP_ROUNDS = 8


class _Analysis:
    def __init__(self):
        self.map = AxisInfoMap()

    def get(self, value: ir.Value) -> AxisInfo:
        return self.map.get(value)

    def visit_block(self, block: ir.Block) -> None:
        for op in block.operations:
            self.visit(op.operation)

    def visit(self, op: ir.Operation) -> None:
        handler = _REGION_HANDLERS.get(op.name)
        if handler is not None:
            handler(self, op)
        else:
            for region in op.regions:
                for block in region.blocks:
                    self.visit_block(block)
            self.set_results(op, _apply(self, op))
        self.apply_hints(op)

    def set_results(self, op: ir.Operation, infos: list[AxisInfo | None]) -> None:
        for result, info in zip(op.results, infos):
            if info is not None:
                self.map.set(result, info)

    def apply_hints(self, op: ir.Operation) -> None:
        hints = {name: _hint_values(op.attributes[name]) for name in HINTS
                 if name in op.attributes}
        if not hints:
            return
        for result in op.results:
            self.map.set(result, _with_hints(self.get(result), hints, unit_bytes(result.type)))


def _apply(a: _Analysis, op: ir.Operation) -> list[AxisInfo | None]:
    fn = RULES.get(op.name)
    if fn is None or not op.results:
        return []
    info = fn(a, op)
    return info if isinstance(info, list) else [info]


def _hint_values(attr: ir.Attribute) -> list[int]:
    if isinstance(attr, ir.IntegerAttr):
        return [attr.value]
    if isinstance(attr, ir.DenseI32ArrayAttr):
        return list(attr)
    if isinstance(attr, ir.DenseIntElementsAttr):
        return [int(v) for v in attr]
    return []


def _with_hints(info: AxisInfo, hints: dict[str, list[int]], unit: int) -> AxisInfo:
    """`info` with the hinted facts in place of the computed ones (a single value applies to
    every dimension; hints of another rank are ignored)."""
    def values(name):
        given = hints.get(name)
        if not given:
            return None
        if len(given) == 1:
            given = given * info.rank
        return tuple(given) if len(given) == info.rank else None

    contig, div, const = values("tile.contiguity"), values("tile.divisibility"), \
        values("tile.constancy")
    if contig is not None:  # shorter runs start inside the old ones
        info = AxisInfo(contig, tuple(info.divisibility_at(d, c, unit)
                                      for d, c in enumerate(contig)),
                        info.constancy, info.constant)
    if div is not None:
        info = replace(info, divisibility=div)
    if const is not None:
        info = replace(info, constancy=const)
    return info


def _visit_func(a: _Analysis, op: ir.Operation) -> None:
    if not op.regions or not op.regions[0].blocks:
        return
    entry = op.regions[0].blocks[0]
    arg_attrs = list(op.attributes["arg_attrs"]) if "arg_attrs" in op.attributes else []
    for arg, attrs in zip(entry.arguments, arg_attrs):
        attrs = ir.DictAttr(attrs)
        hints = {name: _hint_values(attrs[name]) for name in HINTS if name in attrs}
        if hints:
            pessimistic = AxisInfo.pessimistic(len(shape_of(arg.type)))
            a.map.set(arg, _with_hints(pessimistic, hints, unit_bytes(arg.type)))
    for region in op.regions:
        for block in region.blocks:
            a.visit_block(block)


def _terminator_operands(region: ir.Region) -> list[ir.Value]:
    ops = list(region.blocks[0].operations) if region.blocks else []
    return list(ops[-1].operands) if ops else []


def _visit_for(a: _Analysis, op: ir.Operation) -> None:
    lower, _upper, step, *inits = op.operands
    body = op.regions[0].blocks[0]
    iv, *carried_args = body.arguments
    every = min(a.get(lower).element_divisibility(), a.get(step).element_divisibility())
    a.map.set(iv, AxisInfo((1,), (every,), (1,)))
    carried = [a.get(v) for v in inits]
    for _ in range(MAX_LOOP_ROUNDS):
        for arg, info in zip(carried_args, carried):
            a.map.set(arg, info)
        a.visit_block(body)
        yielded = [a.get(v) for v in _terminator_operands(op.regions[0])]
        # Joining what the body yields only ever weakens the facts: this terminates.
        merged = [c.join(y, unit_bytes(arg.type)) for c, y, arg in zip(carried, yielded, carried_args)]
        merged = [normalize(m, shape_of(arg.type)) for m, arg in zip(merged, carried_args)]
        if merged == carried:
            break
        carried = merged
    else:
        carried = [AxisInfo.pessimistic(len(shape_of(arg.type))) for arg in carried_args]
        for arg, info in zip(carried_args, carried):
            a.map.set(arg, info)
        a.visit_block(body)
    a.set_results(op, carried)


def _visit_if(a: _Analysis, op: ir.Operation) -> None:
    for region in op.regions:
        for block in region.blocks:
            a.visit_block(block)
    if len(op.regions) < 2 or not op.regions[1].blocks:
        return
    then_values = _terminator_operands(op.regions[0])
    else_values = _terminator_operands(op.regions[1])
    a.set_results(op, [a.get(x).join(a.get(y), unit_bytes(r.type))
                       for x, y, r in zip(then_values, else_values, op.results)])


_REGION_HANDLERS = {"func.func": _visit_func, "scf.for": _visit_for, "scf.if": _visit_if}


def analyze(module_op: ir.Operation | ir.OpView) -> AxisInfoMap:
    """Axis facts for every value in `module_op` (any op; its nested regions included)."""
    a = _Analysis()
    with module_op.context:
        a.visit(module_op.operation)
    return a.map
