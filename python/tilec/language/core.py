"""The values a kernel computes with while it is compiled: tensors and compile-time constants.

A `tensor` wraps one MLIR value and its tilec type (scalar dtype, pointer or block). Everything
else a kernel touches — Python numbers, dtypes, strings, tuples, jit functions — is a
compile-time constant; `constexpr` marks parameters that must be one.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from mlir import ir

from tilec.language import builder
from tilec.language.dtypes import SemanticError, block_type, dtype  # noqa: F401 (re-exported)

# Attribute set on functions that the frontend calls with `_semantic=` (the builtins).
BUILTIN = "__tilec_builtin__"


class constexpr:
    """A compile-time constant. As an annotation (`BLOCK: tl.constexpr`) it marks a parameter
    that is specialised at compile time; wrapped values unwrap to themselves."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    def __eq__(self, other):
        return self.value == unwrap(other)

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return bool(self.value)

    def __index__(self):
        return int(self.value)


def unwrap(value):
    return value.value if isinstance(value, constexpr) else value


class tensor:
    """A value in the kernel: `handle` is its MLIR value, `type` its tilec type."""

    def __init__(self, handle: ir.Value, type: dtype):
        self.handle = handle
        self.type = type

    @property
    def dtype(self) -> dtype:
        """The element type (for a block) or the type itself (for a scalar)."""
        return self.type.scalar

    @property
    def shape(self) -> list[int]:
        return list(self.type.shape) if self.type.is_block() else []

    @property
    def numel(self) -> int:
        return self.type.numel if self.type.is_block() else 1

    def is_block(self) -> bool:
        return self.type.is_block()

    def __repr__(self) -> str:
        return f"tensor<{self.type!r}>"

    def __bool__(self):
        raise SemanticError("a tensor's truth value is only known at run time; use it in a "
                            "runtime `if`, or compare constexprs instead")


def block_of(shape, element: dtype) -> dtype:
    return block_type(element, shape) if shape else element


def interpreted_call(fn, args, kwargs):
    """Run the @tilec.jit function `fn` as the interpreter runs kernel code."""
    return builder.current().call_jit(fn, args, kwargs)


def interpreting() -> bool:
    """Whether an interpreted kernel is running (on this thread)."""
    return builder.interpreting()


def builtin(fn):
    """Mark `fn` as a builtin: the frontend calls it with `_semantic=` (the code generator).
    Called from running Python (an interpreted kernel), the same body runs with the NumPy
    builder as `_semantic`: it stands in for the code generator (`debug`, `combine_function`),
    and the semantic layer the body calls computes instead of building IR."""
    @functools.wraps(fn)
    def wrapper(*args, _semantic=None, **kwargs):
        if _semantic is None:
            if not builder.interpreting():
                raise RuntimeError(f"tl.{wrapper.__name__} runs inside @tilec.jit kernels only")
            _semantic = builder.current()
        return fn(*args, _semantic=_semantic, **kwargs)

    setattr(wrapper, BUILTIN, True)
    return wrapper


def is_builtin(fn) -> bool:
    return getattr(fn, BUILTIN, False)


CONSTEXPR_FUNCTION = "__tilec_constexpr_function__"


def constexpr_function(fn):
    """Let kernels call plain Python `fn` on compile-time values (its result is a constant)."""
    setattr(fn, CONSTEXPR_FUNCTION, True)
    return fn


def is_constexpr_function(fn) -> bool:
    return getattr(fn, CONSTEXPR_FUNCTION, False)


LANGUAGE_FUNCTION = "__tilec_language_function__"


def language_function(fn):
    """Mark `fn`, written in the kernel language, as a function of the language's library
    (tl.sum, tl.softmax, tl.rand, ...): a kernel calling it inlines it as it does a @tilec.jit
    helper (kernel.as_jit makes the JITFunction on first use), and an interpreted kernel calls it
    as Python. The library is written this way, not with @tilec.jit, so that the language does
    not import the kernel layer above it."""
    setattr(fn, LANGUAGE_FUNCTION, True)
    return fn


def is_language_function(fn) -> bool:
    return getattr(fn, LANGUAGE_FUNCTION, False)


# The deepest software pipeline tilec builds (a ring of that many tiles in shared memory):
# `tl.range(..., num_stages=)` takes 0 to this many stages, the num_stages option 1 to it.
MAX_NUM_STAGES = 32


@dataclass
class RangeSpec:
    """`range`/`tl.range`/`tl.static_range` as a kernel iterates over it: the frontend builds
    a loop from it; an interpreted kernel iterates over it as over Python's range."""
    start: Any
    end: Any
    step: Any
    static: bool = False
    attributes: dict | None = None

    def __iter__(self):
        return iter(range(int(unwrap(self.start)), int(unwrap(self.end)),
                          int(unwrap(self.step))))


@dataclass(frozen=True)
class BoundMethod:
    """`x.sum`, `desc.load` and friends: a language function with the value (a tensor, a
    tensor descriptor) as its first argument."""
    fn: Any
    self: Any

    def __call__(self, *args, **kwargs):  # called as Python (the interpreter's library code)
        return self.fn(self.self, *args, **kwargs)
