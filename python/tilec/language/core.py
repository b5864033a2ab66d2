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

from tilec.language.dtypes import block_type, dtype

# Attribute set on functions that the frontend calls with `_semantic=` (the builtins), and on
# those of them whose body runs in both modes (shared_builtin).
BUILTIN = "__tilec_builtin__"
SHARED_BUILTIN = "__tilec_shared_builtin__"


class SemanticError(Exception):
    """A mistake in the user's kernel found while building IR; the frontend adds the location."""


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


# The interpreter, once imported, registers here what a builtin called from running Python
# does (its NumPy implementation, by builtin name) and how to tell that a kernel is being
# interpreted: the language does not import the interpreter.
_INTERPRETER: dict[str, Any] = {"implementations": {}, "active": lambda: False, "call": None}


def register_interpreter(implementations: dict, active, call) -> None:
    """Called by tilec.interpreter: builtins run `implementations[name]` while `active()`, and
    a @tilec.jit function called from interpreted code runs as `call(fn, args, kwargs)`."""
    _INTERPRETER["implementations"] = implementations
    _INTERPRETER["active"] = active
    _INTERPRETER["call"] = call


def interpreted_call(fn, args, kwargs):
    """Run the @tilec.jit function `fn` as the interpreter runs kernel code."""
    return _INTERPRETER["call"](fn, args, kwargs)


def interpreting() -> bool:
    """Whether an interpreted kernel is running (on this thread)."""
    return _INTERPRETER["active"]()


def builtin(fn):
    """Mark `fn` as a builtin: the frontend calls it with `_semantic=`; called from running
    Python (an interpreted kernel), it runs the interpreter's NumPy implementation instead."""
    @functools.wraps(fn)
    def wrapper(*args, _semantic=None, **kwargs):
        if _semantic is not None:
            return fn(*args, _semantic=_semantic, **kwargs)
        if not interpreting():
            raise RuntimeError(f"tl.{wrapper.__name__} runs inside @tilec.jit kernels only")
        return _INTERPRETER["implementations"][wrapper.__name__](*args, **kwargs)

    setattr(wrapper, BUILTIN, True)
    return wrapper


def shared_builtin(fn):
    """Mark `fn` as a builtin whose own body runs in both modes: it only rearranges its
    arguments and calls other builtins with the `_semantic` it is given (the code generator
    when compiling, None when interpreting), so the compiler and the interpreter share it."""
    @functools.wraps(fn)
    def wrapper(*args, _semantic=None, **kwargs):
        if _semantic is None and not interpreting():
            raise RuntimeError(f"tl.{wrapper.__name__} runs inside @tilec.jit kernels only")
        return fn(*args, _semantic=_semantic, **kwargs)

    setattr(wrapper, BUILTIN, True)
    setattr(wrapper, SHARED_BUILTIN, True)
    return wrapper


def is_builtin(fn) -> bool:
    return getattr(fn, BUILTIN, False)


def is_shared_builtin(fn) -> bool:
    return getattr(fn, SHARED_BUILTIN, False)


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


@dataclass
class RangeSpec:
    """`range`/`tl.range`/`tl.static_range` as a kernel iterates over it."""
    start: Any
    end: Any
    step: Any
    static: bool = False
    attributes: dict | None = None
