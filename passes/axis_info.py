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
their `tile.divisibility` specialisation, each op has a transfer rule (`RULES`), and the
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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
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


# --- transfer rules ---------------------------------------------------------------------------

Rule = Callable[["_Analysis", ir.Operation], "AxisInfo | list[AxisInfo] | None"]
RULES: dict[str, Rule] = {}


def rule(*names: str):
    def add(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        return fn
    return add


def _wrap(value: int, t: ir.Type) -> int:
    """`value` as the signed integer of `t`'s width."""
    width = bit_width(tile.element_type(t))
    value &= (1 << width) - 1
    return value - (1 << width) if width > 1 and value >> (width - 1) else value


def _int_of(attr: ir.Attribute | None) -> int | None:
    if isinstance(attr, ir.BoolAttr):
        return int(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        return attr.value
    return None


@rule("arith.constant")
def _constant(a, op):
    attr = op.attributes["value"]
    if isinstance(attr, ir.DenseIntElementsAttr) and not attr.is_splat:
        return _facts_of_values(np.array(attr).astype(object))
    if isinstance(attr, ir.DenseElementsAttr):
        attr = attr.get_splat_value() if attr.is_splat else None
    value = _int_of(attr)
    return None if value is None else AxisInfo.uniform(shape_of(op.result.type), 1, value)


def _facts_of_values(values: np.ndarray) -> AxisInfo:
    """Exact facts of a dense constant, read from its elements."""
    def longest(moved, step):  # the longest aligned runs going up by `step`
        n = moved.shape[-1]
        while n > 1:
            runs = moved.reshape(moved.shape[:-1] + (-1, n))
            if (runs[..., 1:] - runs[..., :-1] == step).all():
                break
            n //= 2
        return n

    contig, div, const = [], [], []
    for d in range(values.ndim):
        moved = np.moveaxis(values, d, -1)
        contig.append(longest(moved, 1))
        const.append(longest(moved, 0))
        div.append(min(pow2_divisor(int(v)) for v in moved[..., ::contig[-1]].ravel()))
    return AxisInfo(tuple(contig), tuple(div), tuple(const))


@rule("tile.make_range")
def _make_range(a, op):
    start = op.attributes["start"].value
    size = op.attributes["end"].value - start
    return AxisInfo((size,), (pow2_divisor(start),), (1,))


@rule("tile.splat")
def _splat(a, op):
    src = a.get(op.operands[0])
    unit = _unit(op.operands[0].type)
    return AxisInfo.uniform(shape_of(op.result.type), src.element_divisibility(unit), src.constant)


@rule("tile.broadcast")
def _broadcast(a, op):
    src = a.get(op.operands[0])
    src_shape, shape = shape_of(op.operands[0].type), shape_of(op.result.type)
    contig, const = list(src.contiguity), list(src.constancy)
    for d, (before, after) in enumerate(zip(src_shape, shape)):
        if before == 1 and after != 1:
            contig[d], const[d] = 1, after
    return AxisInfo(tuple(contig), src.divisibility, tuple(const), src.constant)


@rule("tile.expand_dims")
def _expand_dims(a, op):
    src = a.get(op.operands[0])
    axis = op.attributes["axis"].value
    # Along a dimension of size 1 every element starts a run.
    every = src.element_divisibility(_unit(op.operands[0].type))
    insert = lambda values, new: values[:axis] + (new,) + values[axis:]  # noqa: E731
    return AxisInfo(insert(src.contiguity, 1), insert(src.divisibility, every),
                    insert(src.constancy, 1), src.constant)


@rule("tile.trans")
def _trans(a, op):
    src = a.get(op.operands[0])
    order = list(ir.DenseI32ArrayAttr(op.attributes["order"]))
    pick = lambda values: tuple(values[i] for i in order)  # noqa: E731
    return AxisInfo(pick(src.contiguity), pick(src.divisibility), pick(src.constancy),
                    src.constant)


@rule("tile.reshape")
def _reshape(a, op):
    src = a.get(op.operands[0])
    if src.constant is None:
        return None
    return AxisInfo.uniform(shape_of(op.result.type), 1, src.constant)


@rule("tilegpu.convert_layout")
def _same(a, op):
    return a.get(op.operands[0])


def _add_dim(lhs: AxisInfo, rhs: AxisInfo, d: int, lunit: int, runit: int, subtract: bool):
    """(contiguity, divisibility, constancy) along `d` of lhs + rhs (or lhs - rhs); `runit`
    scales rhs's divisibility (an addptr offset counts elements, its result bytes)."""
    contig = min(lhs.contiguity[d], rhs.constancy[d])
    if not subtract:
        contig = max(contig, min(lhs.constancy[d], rhs.contiguity[d]))
    div = min(lhs.divisibility_at(d, contig, lunit),
              rhs.divisibility_at(d, contig) * runit)
    const = min(lhs.constancy[d], rhs.constancy[d])
    together = min(lhs.contiguity[d], rhs.contiguity[d])
    if subtract and together > const:
        # Two runs going up together differ by what their starts differ by.
        const = together
        div = max(div, min(lhs.divisibility_at(d, together, lunit),
                           rhs.divisibility_at(d, together) * runit))
    return contig, div, const


def _per_dim(fn, rank: int, constant: int | None = None) -> AxisInfo:
    contig, div, const = zip(*(fn(d) for d in range(rank)))
    return AxisInfo(tuple(contig), tuple(div), tuple(const), constant)


def _fold(a, op, fn) -> int | None:
    values = [a.get(v).constant for v in op.operands]
    if any(v is None for v in values):
        return None
    try:
        return _wrap(fn(*values), op.result.type)
    except ZeroDivisionError:
        return None


@rule("arith.addi", "arith.subi")
def _addsub(a, op):
    lhs, rhs = (a.get(v) for v in op.operands)
    subtract = op.name == "arith.subi"
    constant = _fold(a, op, (lambda x, y: x - y) if subtract else (lambda x, y: x + y))
    return _per_dim(lambda d: _add_dim(lhs, rhs, d, 1, 1, subtract), lhs.rank, constant)


@rule("tile.addptr")
def _addptr(a, op):
    ptr, offset = (a.get(v) for v in op.operands)
    unit = _unit(op.operands[0].type)
    return _per_dim(lambda d: _add_dim(ptr, offset, d, unit, unit, False), ptr.rank)


def _mul_info(lhs: AxisInfo, rhs: AxisInfo, constant: int | None) -> AxisInfo:
    if rhs.constant == 1 or lhs.constant == 1:
        kept = lhs if rhs.constant == 1 else rhs
        const = tuple(min(x, y) for x, y in zip(lhs.constancy, rhs.constancy))
        return replace(kept, constancy=const, constant=constant)
    every = lhs.element_divisibility() * rhs.element_divisibility()
    const = tuple(min(x, y) for x, y in zip(lhs.constancy, rhs.constancy))
    return AxisInfo((1,) * lhs.rank, (min(every, MAX_DIVISIBILITY),) * lhs.rank, const, constant)


@rule("arith.muli")
def _muli(a, op):
    lhs, rhs = (a.get(v) for v in op.operands)
    return _mul_info(lhs, rhs, _fold(a, op, lambda x, y: x * y))


def _div_info(lhs: AxisInfo, rhs: AxisInfo, constant: int | None) -> AxisInfo:
    if rhs.constant == 1:
        return lhs
    if lhs.constant == 0:
        return replace(lhs, constant=0)
    every = rhs.element_divisibility()

    def dim(d):
        const = min(lhs.constancy[d], rhs.constancy[d])
        # An aligned block of g consecutive values, g dividing the divisor, has one quotient.
        block = min(lhs.contiguity[d], lhs.divisibility[d], every, rhs.constancy[d])
        return 1, 1, max(const, block)

    return _per_dim(dim, lhs.rank, constant)


def _rem_info(lhs: AxisInfo, rhs: AxisInfo, constant: int | None) -> AxisInfo:
    every = rhs.element_divisibility()
    lhs_every = lhs.element_divisibility()

    def dim(d):
        const = min(lhs.constancy[d], rhs.constancy[d])
        # An aligned block of g consecutive values, g dividing the divisor, does not wrap.
        block = min(lhs.contiguity[d], lhs.divisibility[d], every, rhs.constancy[d])
        if block > 1:
            div = min(lhs.divisibility[d], every) if block == lhs.contiguity[d] else block
            return block, div, const
        return 1, min(lhs_every, every), const

    return _per_dim(dim, lhs.rank, constant)


def _int_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _folder(op, signed_fn):
    """`signed_fn` on the operands, read as unsigned for the `...ui` ops."""
    if not op.name.endswith("ui"):
        return signed_fn
    modulus = 1 << bit_width(tile.element_type(op.operands[0].type))
    return lambda x, y: signed_fn(x % modulus, y % modulus)


@rule("arith.divsi", "arith.divui")
def _divi(a, op):
    lhs, rhs = (a.get(v) for v in op.operands)
    return _div_info(lhs, rhs, _fold(a, op, _folder(op, _int_div)))


@rule("arith.remsi", "arith.remui")
def _remi(a, op):
    lhs, rhs = (a.get(v) for v in op.operands)
    if rhs.constant == 1:
        return AxisInfo.uniform(shape_of(op.result.type), 1, 0)
    return _rem_info(lhs, rhs, _fold(a, op, _folder(op, lambda x, y: x - _int_div(x, y) * y)))


@rule("arith.shli", "arith.shrsi", "arith.shrui")
def _shift(a, op):
    """Shifts by a constant are products and (floor) quotients by a power of two."""
    lhs, rhs = (a.get(v) for v in op.operands)
    if rhs.constant is None or not 0 <= rhs.constant < 62:
        const = tuple(min(x, y) for x, y in zip(lhs.constancy, rhs.constancy))
        return AxisInfo((1,) * lhs.rank, (1,) * lhs.rank, const)
    factor = AxisInfo.uniform(shape_of(op.result.type), 1, 1 << rhs.constant)
    if op.name == "arith.shli":
        return _mul_info(lhs, factor, _fold(a, op, lambda x, y: x << y))
    return _div_info(lhs, factor, _fold(a, op, _folder(op, lambda x, y: x >> y)))


@rule("arith.andi", "arith.ori", "arith.xori")
def _bitwise(a, op):
    lhs, rhs = (a.get(v) for v in op.operands)
    name = op.name.split(".")[1]
    fns = {"andi": lambda x, y: x & y, "ori": lambda x, y: x | y, "xori": lambda x, y: x ^ y}
    constant = _fold(a, op, fns[name])
    if name == "andi" and rhs.constant is not None and rhs.constant > 0 \
            and rhs.constant & (rhs.constant + 1) == 0:
        # x & (2**k - 1) is x mod 2**k
        modulus = AxisInfo.uniform(shape_of(op.result.type), 1, rhs.constant + 1)
        return _rem_info(lhs, modulus, constant)
    if name == "andi" and 0 in (lhs.constant, rhs.constant):
        return AxisInfo.uniform(shape_of(op.result.type), 1, 0)
    lower = lhs.element_divisibility(), rhs.element_divisibility()
    # x & y keeps only bits both have; x | y and x ^ y none below the lower of the two.
    every = max(lower) if name == "andi" else min(lower)
    const = tuple(min(x, y) for x, y in zip(lhs.constancy, rhs.constancy))
    return AxisInfo((1,) * lhs.rank, (every,) * lhs.rank, const, constant)


@rule("arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui")
def _minmax(a, op):
    lhs, rhs = (a.get(v) for v in op.operands)
    pick = max if "max" in op.name else min
    both = lhs.join(rhs)  # each element is one of the two; runs of both go up together
    return replace(both, constant=_fold(a, op, _folder(op, pick)))


# arith.cmpi predicates, as numbered by the arith dialect
EQ, NE, SLT, SLE, SGT, SGE, ULT, ULE, UGT, UGE = range(10)
_COMPARE = {EQ: lambda x, y: x == y, NE: lambda x, y: x != y, SLT: lambda x, y: x < y,
            SLE: lambda x, y: x <= y, SGT: lambda x, y: x > y, SGE: lambda x, y: x >= y}


@rule("arith.cmpi")
def _cmpi(a, op):
    lhs, rhs = (a.get(v) for v in op.operands)
    predicate = op.attributes["predicate"].value
    if lhs.constant is not None and rhs.constant is not None:
        unsigned = ULT <= predicate
        modulus = 1 << bit_width(tile.element_type(op.operands[0].type))
        x, y = (v % modulus if unsigned else v for v in (lhs.constant, rhs.constant))
        constant = int(_COMPARE[predicate - 4 * unsigned](x, y))
        return AxisInfo.uniform(shape_of(op.result.type), 1, constant)
    lhs_every, rhs_every = lhs.element_divisibility(), rhs.element_divisibility()

    def dim(d):
        const = min(lhs.constancy[d], rhs.constancy[d])
        # Aligned blocks of g consecutive values compare alike with an n divisible by g, for
        # x < n and x >= n (and n > x, n <= x); not for x <= n, whose bound is n + 1.
        if predicate in (SLT, SGE, ULT, UGE):
            const = max(const, min(lhs.contiguity[d], lhs.divisibility[d], rhs_every,
                                   rhs.constancy[d]))
        elif predicate in (SGT, SLE, UGT, ULE):
            const = max(const, min(rhs.contiguity[d], rhs.divisibility[d], lhs_every,
                                   lhs.constancy[d]))
        return 1, 1, const

    return _per_dim(dim, lhs.rank)


@rule("arith.select")
def _select(a, op):
    cond, lhs, rhs = (a.get(v) for v in op.operands)
    if cond.constant is not None:
        return lhs if cond.constant else rhs
    shape = shape_of(op.result.type)
    if not isinstance(op.operands[0].type, ir.RankedTensorType):  # one choice for the tensor
        cond = AxisInfo.uniform(shape, 1)
    unit = _unit(op.result.type)

    def dim(d):
        contig = min(lhs.contiguity[d], rhs.contiguity[d], cond.constancy[d])
        div = min(lhs.divisibility_at(d, contig, unit), rhs.divisibility_at(d, contig, unit))
        const = min(lhs.constancy[d], rhs.constancy[d], cond.constancy[d])
        return contig, div, const

    if lhs.constant is not None and lhs.constant == rhs.constant:
        return lhs
    return _per_dim(dim, len(shape))


@rule("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui")
def _int_cast(a, op):
    src = a.get(op.operands[0])
    if src.constant is None:
        return src
    value = src.constant
    if op.name == "arith.extui" and value < 0:
        value += 1 << bit_width(tile.element_type(op.operands[0].type))
    return replace(src, constant=_wrap(value, op.result.type))


@rule("tile.ptr_to_int", "tile.int_to_ptr", "tile.bitcast")
def _reinterpret(a, op):
    """Addresses keep their divisibility; runs of elements stay runs only if the element
    size does not change (a pointer's runs count elements, an integer's count ones)."""
    src = a.get(op.operands[0])
    if _unit(op.operands[0].type) == _unit(op.result.type):
        return src
    return replace(src, contiguity=(1,) * src.rank,
                   divisibility=tuple(src.divisibility_at(d, 1, _unit(op.operands[0].type))
                                      for d in range(src.rank)))


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
