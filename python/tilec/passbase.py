"""What a tilec pass is: a name, a one-line summary, typed options and a `run(module)` body.

A pass module in `passes/` declares a subclass of `Pass` and decorates it with `@register`; from
then on the same name works in `tilec-opt --NAME`, in `builtin.module(NAME{opt=value})`, in the
compiler's pipelines and from Python (`tilec.passes.get_pass("NAME")(**options)`).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from mlir import ir


class PassFailure(Exception):
    """Raised by a pass body after it has emitted its error diagnostics."""


class OptionError(ValueError):
    """A pass option that does not exist or whose value does not parse."""


@dataclass(frozen=True)
class Option:
    """A typed pass option, spelled `name=value` (lists as `a,b,c`)."""

    name: str
    type: type  # int, float, bool, str or list (of int)
    default: Any
    help: str = ""
    # the values the option takes, and how to say so ("a power of two from 1 to 32")
    valid: Callable[[Any], bool] | None = None
    valid_text: str = ""

    def check(self, value: Any, pass_name: str) -> Any:
        if self.valid is not None and not self.valid(value):
            raise OptionError(f"option '{self.name}' of pass '{pass_name}' must be "
                              f"{self.valid_text}, got {self.format(value)}")
        return value

    @property
    def attribute(self) -> str:
        return self.name.replace("-", "_")

    def parse(self, text: str) -> Any:
        try:
            if self.type is bool:
                if text.lower() in ("1", "true", "on"):
                    return True
                if text.lower() in ("0", "false", "off"):
                    return False
                raise ValueError(text)
            if self.type is list:
                return [int(part) for part in text.split(",") if part.strip()]
            return self.type(text)
        except ValueError:
            kind = "list of int" if self.type is list else self.type.__name__
            raise OptionError(f"option '{self.name}' expects {kind}, got '{text}'") from None

    def format(self, value: Any) -> str:
        if self.type is bool:
            return "true" if value else "false"
        if self.type is list:
            return ",".join(str(v) for v in value)
        return str(value)


class Pass:
    """Subclasses set `name`, `summary`, `options` and implement `run(module)`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    options: ClassVar[tuple[Option, ...]] = ()

    def __init__(self, **values: Any):
        known = {opt.attribute: opt for opt in self.options}
        for key in values:
            if key not in known:
                raise OptionError(self._unknown_option(key))
        for attr, opt in known.items():
            setattr(self, attr, opt.check(values.get(attr, opt.default), self.name))

    @classmethod
    def from_text(cls, text: str) -> "Pass":
        """From an MLIR-style option string: `num-stages=3 other=true`."""
        by_name = {opt.name: opt for opt in cls.options}
        values = {}
        for item in text.split():
            key, eq, value = item.partition("=")
            if key not in by_name:
                raise OptionError(cls._unknown_option(key))
            if not eq:
                if by_name[key].type is not bool:
                    raise OptionError(f"option '{key}' of pass '{cls.name}' needs a value")
                value = "true"
            values[by_name[key].attribute] = by_name[key].parse(value)
        return cls(**values)

    @classmethod
    def _unknown_option(cls, key: str) -> str:
        names = ", ".join(opt.name for opt in cls.options) or "none"
        return f"pass '{cls.name}' has no option '{key}' (its options: {names})"

    def option_text(self) -> str:
        return " ".join(f"{o.name}={o.format(getattr(self, o.attribute))}" for o in self.options)

    def __str__(self) -> str:
        return f"{self.name}{{{self.option_text()}}}" if self.options else self.name

    def run(self, module: ir.Operation) -> None:
        raise NotImplementedError

    @staticmethod
    def fail(op: ir.Operation | ir.OpView, message: str) -> PassFailure:
        """Emit `message` as an error at `op` and return the exception to raise."""
        op.location.emit_error(message)
        return PassFailure(message)


def enclosing(op: ir.Operation, name: str) -> ir.Operation | None:
    """The nearest op around `op` named `name` (a loop, the kernel, the module), or None."""
    parent = op.parent
    while parent is not None and parent.name != name:
        parent = parent.parent
    return parent.operation if parent is not None else None


def ancestor_in(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The op enclosing `op` (or `op` itself) that lies directly in `block`, or None."""
    while op is not None and op.block != block:
        parent = op.parent
        op = parent.operation if parent is not None and parent.name != "builtin.module" else None
    return op


SPLIT = "tilegpu.warp_specialize"


def split_side(op: ir.Operation) -> tuple[ir.Operation, int, ir.Operation] | None:
    """(the warp_specialize op enclosing `op`, which region: 0 the producer's, 1 the
    consumers', the op of that region's block enclosing `op`), or None outside any."""
    inner = op
    while inner is not None:
        parent = inner.parent
        if parent is None or parent.name == "builtin.module":
            return None
        parent = parent.operation
        if parent.name == SPLIT:
            region = 0 if inner.block == parent.regions[0].blocks[0] else 1
            return parent, region, inner
        inner = parent
    return None


def ops_in(module: ir.Operation, *names: str) -> list[ir.Operation]:
    """The ops of `module` (nested ones too, in pre-order) named one of `names`, or all of them
    when no name is given: collected first, so the caller may rewrite while going through."""
    found = []

    def visit(op):
        if not names or op.name in names:
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def power_of_two(low: int, high: int) -> tuple[Callable[[int], bool], str]:
    """(valid, valid_text) of an Option taking the powers of two from `low` to `high`."""
    return (lambda v: low <= v <= high and v & (v - 1) == 0,
            f"a power of two from {low} to {high}")


# What a module's warps may be (tilegpu.num_warps, tilegpu.threads_per_warp; the options of
# convert-tile-to-tilegpu that set them).
NUM_WARPS = power_of_two(1, 32)
# What a module's CTAs per program may be (tilegpu.num_ctas: a thread block cluster's size).
NUM_CTAS = power_of_two(1, 8)
THREADS_PER_WARP = power_of_two(1, 64)

TARGET = (lambda v: re.fullmatch(r"cuda:(\d+)", v) is not None and int(v[5:]) >= 70,
          "cuda:<compute capability>, 70 or later (cuda:80, cuda:90)")


def target_arch(module: ir.Operation, default: str = "cuda:90") -> int:
    """The compute capability of the module's tilegpu.target (convert-tile-to-tilegpu sets it;
    `default` where it is absent): 90 for cuda:90."""
    attrs = module.attributes
    target = ir.StringAttr(attrs["tilegpu.target"]).value if "tilegpu.target" in attrs \
        else default
    return int(target.partition(":")[2] or 0)


def module_num_ctas(module: ir.Operation) -> int:
    """The module's tilegpu.num_ctas: the CTAs of each program's thread block cluster
    (convert-tile-to-tilegpu sets it above 1; absent, 1)."""
    attrs = module.attributes
    return ir.IntegerAttr(attrs["tilegpu.num_ctas"]).value if "tilegpu.num_ctas" in attrs \
        else 1


def module_num_warps(module: ir.Operation, default: int = 4) -> int:
    """The module's tilegpu.num_warps (convert-tile-to-tilegpu sets it; `default` where it is
    absent)."""
    attrs = module.attributes
    return ir.IntegerAttr(attrs["tilegpu.num_warps"]).value if "tilegpu.num_warps" in attrs \
        else default


def op_with_tensor(module: ir.Operation, laid_out: bool) -> ir.Operation | None:
    """The first op (pre-order) with a result or block argument (a function's too) that is a
    tensor with a layout (`laid_out`) or without one; None when there is none."""
    for op in ops_in(module):
        values = [*op.results] + [a for region in op.regions for block in region.blocks
                                  for a in block.arguments]
        if any(isinstance(v.type, ir.RankedTensorType) and
               (v.type.encoding is not None) == laid_out for v in values):
            return op
    return None


def require_layouts(p: Pass, module: ir.Operation) -> None:
    """Fail `p` unless `module` is tilegpu IR: every tensor has a layout, as
    convert-tile-to-tilegpu leaves them."""
    op = op_with_tensor(module, laid_out=False)
    if op is not None:
        raise p.fail(op, f"{p.name} expects tilegpu IR (tensors with layout encodings): "
                         "run convert-tile-to-tilegpu first")


_REGISTRY: dict[str, type[Pass]] = {}


def register(cls: type[Pass]) -> type[Pass]:
    if cls.name in _REGISTRY:
        raise ValueError(f"pass '{cls.name}' registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> dict[str, type[Pass]]:
    """Every pass registered so far, by name: tilec's own once `tilec.passes` is imported (it
    registers all of them), and those of loaded plugins."""
    return _REGISTRY
