"""What the IR says a value is at compile time: the attribute of an `arith.constant`, scalar or
splat, read the same way by every pass and lowering rule."""
from __future__ import annotations

from mlir import ir


def constant_value(value: ir.Value) -> ir.Attribute | None:
    """The scalar attribute of a constant or a splat constant tensor, else None."""
    owner = value.owner
    if not isinstance(owner, ir.OpView) and not isinstance(owner, ir.Operation):
        return None
    if owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if isinstance(attr, ir.DenseElementsAttr):
        return attr.get_splat_value() if attr.is_splat else None
    return attr


def constant_int(value: ir.Value) -> int | None:
    """The value of an integer or boolean (splat) constant, else None."""
    attr = constant_value(value)
    if isinstance(attr, ir.BoolAttr):
        return int(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        return attr.value
    return None


def is_constant_true(value: ir.Value) -> bool:
    return constant_int(value) not in (None, 0)


def is_constant_false(value: ir.Value) -> bool:
    return constant_int(value) == 0
