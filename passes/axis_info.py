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
passes/axis_rules.py), and the
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

from collections.abc import Sequence
from dataclasses import dataclass, replace

from mlir import ir

from tilec.dialects import tile

MAX_DIVISIBILITY = 1 << 62  # what divides zero; large enough for any address or offset
HINTS = ("tile.contiguity", "tile.divisibility", "tile.constancy")


def pow2_divisor(value: int) -> int:
    """The largest power of two dividing `value` (MAX_DIVISIBILITY for 0)."""
    return MAX_DIVISIBILITY if value == 0 else min(value & -value, MAX_DIVISIBILITY)


def floor_pow2(value: int) -> int:
    """The largest power of two not above `value` (1 for values below 2)."""
    return 1 << (max(int(value), 1).bit_length() - 1)


def bit_width(t: ir.Type) -> int:
    if tile.is_ptr(t) or isinstance(t, ir.IndexType):
        return 64
    if isinstance(t, (ir.IntegerType, ir.FloatType)):
        return t.width
    raise ValueError(f"no bit width for {t}")


_POINTEE_BYTES: dict[str, int] = {}


def element_bytes(ptr_type: ir.Type) -> int:
    """Bytes of the pointee of a pointer or tensor of pointers (at least 1)."""
    ptr = tile.element_type(ptr_type)
    key = str(ptr)
    if key not in _POINTEE_BYTES:
        with ptr.context:
            _POINTEE_BYTES[key] = max(bit_width(tile.ptr_pointee(ptr)) // 8, 1)
    return _POINTEE_BYTES[key]


def _unit(t: ir.Type) -> int:
    """How far apart in value consecutive elements are: pointee bytes for pointers, else 1."""
    return element_bytes(t) if tile.is_ptr(tile.element_type(t)) else 1


def shape_of(t: ir.Type) -> tuple[int, ...]:
    """The shape the facts describe: a tensor's, `(1,)` for a scalar."""
    if isinstance(t, ir.RankedTensorType) and t.rank > 0:
        return tuple(t.shape)
    return (1,)


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    constant: int | None = None

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    @classmethod
    def pessimistic(cls, rank: int) -> "AxisInfo":
        return cls((1,) * rank, (1,) * rank, (1,) * rank)

    @classmethod
    def uniform(cls, shape: Sequence[int], divisibility: int, constant: int | None = None):
        """All elements equal (to `constant` when known), each divisible by `divisibility`."""
        if constant is not None:
            divisibility = pow2_divisor(constant)
        rank = len(shape)
        return cls((1,) * rank, (divisibility,) * rank, tuple(shape), constant)

    def divisibility_at(self, d: int, run: int, unit: int = 1) -> int:
        """What divides the value at the start of every aligned run of `run` elements along `d`
        (a result's runs may start inside this value's longer runs)."""
        if self.contiguity[d] <= run:
            return self.divisibility[d]
        return min(self.divisibility[d], run * unit)

    def element_divisibility(self, unit: int = 1) -> int:
        """What divides every element."""
        if self.constant is not None:
            return pow2_divisor(self.constant)
        return max(self.divisibility_at(d, 1, unit) for d in range(self.rank))

    def join(self, other: "AxisInfo", unit: int = 1) -> "AxisInfo":
        """Facts true of both (for a value that may be either)."""
        contig = tuple(min(a, b) for a, b in zip(self.contiguity, other.contiguity))
        div = tuple(min(self.divisibility_at(d, c, unit), other.divisibility_at(d, c, unit))
                    for d, c in enumerate(contig))
        const = tuple(min(a, b) for a, b in zip(self.constancy, other.constancy))
        constant = self.constant if self.constant == other.constant else None
        return AxisInfo(contig, div, const, constant)

    def __str__(self) -> str:
        text = (f"contiguity={list(self.contiguity)} divisibility={list(self.divisibility)} "
                f"constancy={list(self.constancy)}")
        return text if self.constant is None else f"{text} constant={self.constant}"


class AxisInfoMap:
    """The analysis result: facts for every value it reached, pessimistic ones for the rest."""

    def __init__(self, infos: dict[ir.Value, AxisInfo] | None = None):
        self._infos = infos if infos is not None else {}

    def get(self, value: ir.Value) -> AxisInfo:
        info = self._infos.get(value)
        return info if info is not None else AxisInfo.pessimistic(len(shape_of(value.type)))

    def set(self, value: ir.Value, info: AxisInfo) -> None:
        self._infos[value] = _normalize(info, shape_of(value.type))

    def __contains__(self, value: ir.Value) -> bool:
        return value in self._infos


def _normalize(info: AxisInfo, shape: tuple[int, ...]) -> AxisInfo:
    """Powers of two, runs no longer than the dimension, divisibility capped."""
    if info.rank != len(shape):
        return AxisInfo.pessimistic(len(shape))
    contig = tuple(min(floor_pow2(c), floor_pow2(s)) for c, s in zip(info.contiguity, shape))
    const = tuple(min(floor_pow2(c), floor_pow2(s)) for c, s in zip(info.constancy, shape))
    div = tuple(min(floor_pow2(v), MAX_DIVISIBILITY) for v in info.divisibility)
    return AxisInfo(contig, div, const, info.constant)


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
            self.map.set(result, _with_hints(self.get(result), hints, _unit(result.type)))


def _apply(a: _Analysis, op: ir.Operation) -> list[AxisInfo | None]:
    from tilec.passes.axis_rules import RULES  # the rules need the lattice above: import late
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
            a.map.set(arg, _with_hints(pessimistic, hints, _unit(arg.type)))
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
        merged = [c.join(y, _unit(arg.type)) for c, y, arg in zip(carried, yielded, carried_args)]
        merged = [_normalize(m, shape_of(arg.type)) for m, arg in zip(merged, carried_args)]
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
    a.set_results(op, [a.get(x).join(a.get(y), _unit(r.type))
                       for x, y, r in zip(then_values, else_values, op.results)])


_REGION_HANDLERS = {"func.func": _visit_func, "scf.for": _visit_for, "scf.if": _visit_if}


def analyze(module_op: ir.Operation | ir.OpView) -> AxisInfoMap:
    """Axis facts for every value in `module_op` (any op; its nested regions included)."""
    a = _Analysis()
    with module_op.context:
        a.visit(module_op.operation)
    return a.map
