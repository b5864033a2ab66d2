"""Lowering of the debug ops: `tile.print` (tl.device_print, `print`) and `tile.assert`
(tl.device_assert, `assert`, kept by the frontend only when compiling with debug=True).

Both become upstream ops that convert-gpu-to-nvvm knows: `gpu.printf` turns into a call of CUDA's
`vprintf` (floats promoted to double), `cf.assert` into a branch to CUDA's `__assertfail` with
the message, the file and line of the op's location and the name we give that location (the
kernel's), which is what the CUDA runtime prints when the kernel fails.

A print writes Triton's line for each element, `pid (x, y, z) idx (i, j) <prefix><value>`, once:
only the thread whose replicated lane and warp bits are zero prints (`owner_predicate`), and a
scalar is printed by thread 0 of the program (`idx ()`). Each print op carries one value (the
frontend emits one op per argument), so Triton's "(operand n)" never appears.
"""
from __future__ import annotations

from contextlib import contextmanager

from mlir import ir
from mlir.dialects import arith, llvm, scf

from tilec.analysis.layouts import to_linear
from tilec.diagnostics import file_line_col
from tilec.lowering.context import Lowering, owner_predicate, rule
from tilec.lowering.coordinates import coordinate, part_value
from tilec.lowering.elementwise import program_index
from tilec.passbase import enclosing


def display_prefix(prefix: str, has_value: bool) -> str:
    """Triton's spelling of the prefix: ending in ": " before a value, and starting with a
    space unless it is that short."""
    if has_value and not prefix.endswith(" "):
        prefix += " "
    if has_value and not prefix.endswith(": "):
        prefix = prefix[:-1] + ": "
    if len(prefix) > 2 and not prefix.startswith(" "):
        prefix = " " + prefix
    return prefix


def _program_ids(ctx: Lowering) -> list[ir.Value]:
    if "program_ids" not in ctx.memo:
        with ctx.prologue:
            ctx.memo["program_ids"] = [program_index(ctx, axis) for axis in range(3)]
    return ctx.memo["program_ids"]


def _as_int(value: ir.Value) -> ir.Value:
    """A float's bits as an integer of its width (for hex)."""
    if isinstance(value.type, ir.IntegerType):
        return value
    return arith.bitcast(ir.IntegerType.get_signless(ir.FloatType(value.type).width), value)


def printf_argument(value: ir.Value, hex: bool) -> tuple[str, ir.Value]:
    """The conversion of `value` and the value vprintf gets: integers narrower than 32 bits
    widened (vprintf reads ints as 32 or 64 bits; booleans and hex zero-extended), floats as
    they are (`gpu.printf` promotes them to double), pointers as addresses."""
    if isinstance(value.type, llvm.PointerType):
        return "%p", llvm.ptrtoint(ir.IntegerType.get_signless(64), value)
    if hex:
        value = _as_int(value)
    if not isinstance(value.type, ir.IntegerType):
        return "%f", value
    width = value.type.width
    if width < 32:
        i32_type = ir.IntegerType.get_signless(32)
        value = arith.extui(i32_type, value) if hex or width == 1 else \
            arith.extsi(i32_type, value)
    long = "ll" if width > 32 else ""
    return (f"0x%0{max(width // 4, 1)}{long}x" if hex else f"%{long}d"), value


def _index_width(size: int) -> str:
    """Triton pads each index to the digits of its dimension's largest index."""
    digits = len(str(max(size - 1, 0)))
    return str(digits) if digits > 1 else ""


def _print_line(ctx: Lowering, prefix: str, value: ir.Value | None, hex: bool,
                index: list[ir.Value] | None, shape: tuple[int, ...]) -> None:
    """One `gpu.printf` of `value` at `index` (None: no idx part, for a print without value)."""
    fmt, args = "pid (%d, %d, %d)", list(_program_ids(ctx))
    if index is not None:
        fmt += " idx (" + ", ".join(f"%{_index_width(size)}d" for size in shape) + ")"
        args += index
    fmt += prefix.replace("%", "%%")  # the user's text is not a format
    if value is not None:
        spec, value = printf_argument(value, hex)
        fmt += spec
        args.append(value)
    ir.Operation.create("gpu.printf", operands=args,
                        attributes={"format": ir.StringAttr.get(fmt + "\n")})


def _distinct_registers(layout, shape) -> list[int]:
    """The registers holding distinct elements (a zero register basis repeats elements)."""
    linear = to_linear(layout, tuple(shape))
    repeated = sum(1 << bit for bit, basis in enumerate(linear.register) if not any(basis))
    return [reg for reg in range(linear.num_registers) if not reg & repeated]


@contextmanager
def _only_if(condition: ir.Value | None):
    """Build the body under `scf.if condition` (unconditionally when None)."""
    if condition is None:
        yield
        return
    if_op = scf.IfOp(condition, [], has_else=False)
    with ir.InsertionPoint(if_op.then_block):
        yield
        scf.YieldOp([])


@rule("tile.print")
def lower_print(ctx: Lowering, op: ir.Operation):
    hex = ir.BoolAttr(op.attributes["hex"]).value
    operand = op.operands[0] if len(op.operands) else None
    prefix = display_prefix(ir.StringAttr(op.attributes["prefix"]).value, operand is not None)
    tensor = operand is not None and isinstance(operand.type, ir.RankedTensorType)
    layout, shape = ctx.layout_of(operand) if tensor else (None, ())
    with _only_if(owner_predicate(ctx, layout, shape)):
        if operand is None:
            _print_line(ctx, prefix, None, hex, None, ())
        elif not tensor:
            _print_line(ctx, prefix, ctx.get(operand), hex, [], ())
        else:
            values = ctx.get(operand).values
            for reg in _distinct_registers(layout, shape):
                index = [part_value(p) for p in coordinate(ctx, layout, shape, reg)]
                _print_line(ctx, prefix, values[reg], hex, index, shape)
    return []


def _kernel_name(op: ir.Operation) -> str:
    kernel = enclosing(op, "func.func")
    return ir.StringAttr(kernel.attributes["sym_name"]).value if kernel is not None else ""


def assert_location(op: ir.Operation) -> ir.Location:
    """The location `__assertfail` reports: the kernel's name around the op's innermost file
    position (cf.assert's lowering reads a name location's name as the function)."""
    where = file_line_col(op.location)
    child = ir.Location.file(*where) if where else None
    return ir.Location.name(_kernel_name(op), childLoc=child)


@rule("tile.assert")
def lower_assert(ctx: Lowering, op: ir.Operation):
    holds = None
    for value in ctx.flatten(ctx.get(op.operands[0])):
        holds = value if holds is None else arith.andi(holds, value)
    message = ir.StringAttr(op.attributes["message"]).value
    with assert_location(op):
        ir.Operation.create("cf.assert", operands=[holds],
                            attributes={"msg": ir.StringAttr.get(message)})
    return []
