"""The transfer rules of the axis analysis (analysis/axis_info.py): for each op, the facts about
its results from the facts about its operands (`a.get(value)` gives an operand's `AxisInfo`).

A rule is registered for op names with `@rule(...)`; an op without one gets the pessimistic
facts. Each rule reasons per dimension, over powers of two, as the lattice in axis_info.py
defines contiguity, divisibility and constancy.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from mlir import ir

from tilec.analysis.axis_lattice import (MAX_DIVISIBILITY, AxisInfo, bit_width, pow2_divisor,
                                         shape_of, unit_bytes)
from tilec.dialects import tile

Rule = Callable[[Any, ir.Operation], "AxisInfo | list[AxisInfo] | None"]
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
    unit = unit_bytes(op.operands[0].type)
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
    every = src.element_divisibility(unit_bytes(op.operands[0].type))
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
    src_shape, shape = shape_of(op.operands[0].type), shape_of(op.result.type)
    if src.constant is not None:
        return AxisInfo.uniform(shape, 1, src.constant)
    kept = [d for d, n in enumerate(src_shape) if n != 1]
    if [src_shape[d] for d in kept] != [n for n in shape if n != 1]:
        return None  # dimensions merged or split: no facts kept
    # Only dimensions of size 1 come or go: the others keep their facts, in order; along a
    # new dimension of size 1 every element starts a run (as for expand_dims).
    every = src.element_divisibility(unit_bytes(op.operands[0].type))
    facts = iter(kept)
    contig, div, const = [], [], []
    for n in shape:
        d = next(facts) if n != 1 else None
        contig.append(1 if d is None else src.contiguity[d])
        div.append(every if d is None else src.divisibility[d])
        const.append(1 if d is None else src.constancy[d])
    return AxisInfo(tuple(contig), tuple(div), tuple(const), None)


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
    unit = unit_bytes(op.operands[0].type)
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
    if rhs.constant == 1 or (rhs.constant is not None and rhs.constant > 0
                             and lhs.element_divisibility() % rhs.constant == 0):
        return AxisInfo.uniform(shape_of(op.result.type), 1, 0)  # every element divisible
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
    unit = unit_bytes(op.result.type)

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
    if unit_bytes(op.operands[0].type) == unit_bytes(op.result.type):
        return src
    return replace(src, contiguity=(1,) * src.rank,
                   divisibility=tuple(src.divisibility_at(d, 1, unit_bytes(op.operands[0].type))
                                      for d in range(src.rank)))
