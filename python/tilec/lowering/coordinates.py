"""Where a thread's elements are: each coordinate of a register as a constant (the register's part
of the linear layout) plus this thread's offset (its lanes' and warps' part), and the row-major
indices built from them. A permutation or a shift of coordinates then costs nothing, and the
constants fold into address immediates."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from tilec.analysis.layouts import to_linear
from tilec.lowering.context import Lowering, i32

DYNAMIC_INDEX = -2147483648  # GEP's marker for an index given as an operand

Part = tuple[int, ir.Value | None]  # constant + runtime offset of one coordinate


def strides(shape) -> list[int]:
    out, stride = [], 1
    for size in reversed(shape):
        out.append(stride)
        stride *= size
    return list(reversed(out))


def coordinate(ctx: Lowering, layout, shape, reg: int) -> list[Part]:
    offsets = ctx.thread_offsets(layout, tuple(shape))
    consts = to_linear(layout, tuple(shape)).register_coords(reg)
    return list(zip(consts, offsets))


def part_value(part: Part) -> ir.Value:
    """One coordinate as an i32: its constant plus this thread's offset."""
    constant, offset = part
    return i32(constant) if offset is None else arith.addi(offset, i32(constant))


def linear_index(parts: list[Part], strides_: list[int]) -> ir.Value:
    return part_value(flat_part(parts, strides_))


def flat_part(parts: list[Part], strides_: list[int]) -> Part:
    """The row-major index of `parts` (with `strides_`) as one part: the constants summed apart
    from this thread's offsets."""
    constant, total = 0, None
    for (c, off), stride in zip(parts, strides_):
        constant += c * stride
        if off is not None:
            term = off if stride == 1 else arith.muli(off, i32(stride))
            total = term if total is None else arith.addi(total, term)
    return constant, total


def linear_offsets(ctx: Lowering, layout, shape) -> ir.Value | None:
    """This thread's part of the row-major index of its elements in (layout, shape)."""
    key = ("row-major", layout, tuple(shape))
    if key not in ctx.memo:
        offsets = ctx.thread_offsets(layout, shape)
        total = None
        with ctx.prologue:
            for d, off in enumerate(offsets):
                if off is None:
                    continue
                stride = 1
                for size in shape[d + 1:]:
                    stride *= size
                term = off if stride == 1 else arith.muli(off, i32(stride))
                total = term if total is None else arith.addi(total, term)
        ctx.memo[key] = total
    return ctx.memo[key]


def row_major(coord, shape) -> int:
    index = 0
    for c, size in zip(coord, shape):
        index = index * size + c
    return index
