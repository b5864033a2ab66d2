"""`@tilec.jit` kernels: their source, parameters, binding and cache key.

A `JITFunction` wraps a Python function written in tilec.language. Its source, hash and
dependencies are read once. This module knows nothing of compiling or launching: `kernel[grid]`
is built by the factory tilec.launch registers (`set_launcher`), which specialises the
arguments (runtime.py), compiles once per specialisation (compiler.py) and launches.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import linecache
import textwrap
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tilec.errors import CompilationError
from tilec.language.core import (constexpr, interpreted_call, interpreting, is_constexpr_function,
                                 is_language_function, tensor, unwrap)
from tilec.language.dtypes import const, dtype


@dataclass(frozen=True)
class Param:
    name: str
    index: int
    is_constexpr: bool
    default: Any = inspect.Parameter.empty
    is_const: bool = False  # annotated tl.const: a read-only pointer


def _is_const_annotation(annotation) -> bool:
    if annotation is const:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "const"


def _is_constexpr_annotation(annotation) -> bool:
    if annotation is constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


try:  # `kernel[grid]` in C, without a Python frame (the launch path's extension)
    from tilec._launch import KernelBase as _KernelBase
except ImportError:  # no C compiler when tilec was installed
    class _KernelBase:
        """`kernel[grid]` in Python: the binder `_make_binder` gives, asked once."""
        _binder = None

        def __getitem__(self, grid):
            binder = self._binder
            if binder is None:
                binder = self._binder = self._make_binder()
            return binder(grid)


class JITFunction(_KernelBase):
    def __init__(self, fn, do_not_specialize=(), debug: bool | None = None,
                 noinline: bool = False, interpret: bool | None = None):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.signature = inspect.signature(fn)
        self.params = [Param(p.name, i, _is_constexpr_annotation(p.annotation), p.default,
                             _is_const_annotation(p.annotation))
                       for i, p in enumerate(self.signature.parameters.values())]
        self.arg_names = [p.name for p in self.params]
        self.constexpr_names = {p.name for p in self.params if p.is_constexpr}
        self.do_not_specialize = {self.arg_names[d] if isinstance(d, int) else d
                                  for d in do_not_specialize}
        unknown = self.do_not_specialize - set(self.arg_names)
        if unknown:
            raise ValueError(f"do_not_specialize names unknown parameters: {sorted(unknown)}")
        self.debug = debug
        self.noinline = noinline
        self.interpret = interpret
        self.filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
        lines, self.first_line = inspect.getsourcelines(fn)
        raw = "".join(lines)
        self.src = textwrap.dedent(raw)
        first = next(line for line in lines if line.strip())
        self.indent = len(first) - len(first.lstrip())
        self.cache: dict = {}  # (specialisation, CompileOptions) -> compiled kernel
        self.launches: dict = {}  # launch state of tilec.launch (the warm path's entries)

    def __repr__(self) -> str:
        return f"JITFunction({self.__module__}:{self.__qualname__})"

    # --- source -------------------------------------------------------------------------

    def parse(self) -> ast.FunctionDef:
        tree = ast.parse(self.src)
        fn_def = tree.body[0]
        if not isinstance(fn_def, ast.FunctionDef):
            raise CompilationError("@tilec.jit applies to functions", self.filename,
                                   self.first_line, 0)
        return fn_def

    @cached_property
    def def_line(self) -> int:
        """The line of the `def` (below any decorators)."""
        return self.first_line + self.parse().lineno - 1

    def source_line(self, line: int) -> str | None:
        return linecache.getline(self.filename, line) or None

    def resolve_global(self, name: str) -> tuple[bool, Any]:
        if name in self.fn.__globals__:
            return True, self.fn.__globals__[name]
        if self.fn.__closure__:
            for var, cell in zip(self.fn.__code__.co_freevars, self.fn.__closure__):
                if var == name:
                    return True, cell.cell_contents
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None

    # --- cache keys ---------------------------------------------------------------------

    @property
    def cache_key(self) -> str:
        """A hash of this function's source and of everything it reads: the jit functions it
        calls (their keys, recursively), constexpr functions' source and global constants.
        Computed once per function object; functions calling each other (recursion) are keyed
        by the sources of the whole cycle."""
        key = self.__dict__.get("_cache_key")
        return key if key is not None else self._key(())[0]

    def _key(self, stack: tuple) -> tuple[str, frozenset]:
        """(this function's key, the ids of functions on `stack`, the callers being keyed, that
        it stands on: a key that stands on one is not final and is not kept)."""
        done = self.__dict__.get("_cache_key")
        if done is not None:
            return done, frozenset()
        if any(f is self for f in stack):  # a call back into a function being keyed
            return f"recursive:{self.__qualname__}", frozenset([id(self)])
        h = hashlib.sha256(self.src.encode())
        open_calls: set[int] = set()
        for name, value in sorted(self._dependencies().items(), key=lambda item: item[0]):
            jit_fn = as_jit(value)
            if jit_fn is not None:
                key, stands_on = jit_fn._key(stack + (self,))
                open_calls |= stands_on
                dep = "jit:" + key
            else:
                dep = _dependency_key(value)
            h.update(f"\0{name}={dep}".encode())
        open_calls.discard(id(self))
        key = h.hexdigest()
        if not open_calls:
            self.__dict__["_cache_key"] = key
        return key, frozenset(open_calls)

    def _dependencies(self) -> dict[str, Any]:
        """What the function's names refer to (globals, attributes of modules), by name."""
        deps = {}
        names = {n.id for n in ast.walk(self.parse()) if isinstance(n, ast.Name)}
        attrs = {(n.value.id, n.attr) for n in ast.walk(self.parse())
                 if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        for name in sorted(names):
            if name in self.arg_names:
                continue
            found, value = self.resolve_global(name)
            if found:
                deps[name] = value
        for base, attr in sorted(attrs):
            found, module = self.resolve_global(base)
            if found and inspect.ismodule(module) and hasattr(module, attr):
                value = getattr(module, attr)
                if as_jit(value) not in (None, self):
                    deps[f"{base}.{attr}"] = value
        return deps

    # --- binding ------------------------------------------------------------------------

    def bind_for_inlining(self, args: list, kwargs: dict) -> dict[str, Any]:
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return {k: (v if isinstance(v, tensor) else unwrap(v)) for k, v in bound.arguments.items()}

    def bind_launch(self, args: tuple, kwargs: dict) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the kernel's arguments by parameter name, the other keywords): keywords naming a
        parameter bind to it, so a parameter may be called `num_warps`; the caller decides
        what the other keywords (launch options) may be. Constexpr wrappers are unwrapped."""
        variadic = [p for p in self.signature.parameters.values()
                    if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if variadic:
            stars = "**" if variadic[0].kind == variadic[0].VAR_KEYWORD else "*"
            raise TypeError(f"{self.__name__}: a kernel cannot take `{stars}{variadic[0].name}` "
                            "(nor does Triton's): declare each meta-parameter as a parameter "
                            "of its own, e.g. `BLOCK: tl.constexpr`, and pass it by keyword")
        if len(args) > len(self.params):
            raise TypeError(f"{self.__name__}: takes {len(self.params)} arguments but "
                            f"{len(args)} were given")
        bound = dict(zip(self.arg_names, args))
        extra = {}
        for name, value in kwargs.items():
            if name not in self.signature.parameters:
                extra[name] = value
            elif name in bound:
                raise TypeError(f"{self.__name__}: multiple values for argument '{name}'")
            else:
                bound[name] = value
        if len(bound) < len(self.params):
            for p in self.params:
                if p.name not in bound and p.default is not inspect.Parameter.empty:
                    bound[p.name] = p.default
        if len(bound) < len(self.params):
            missing = [p.name for p in self.params if p.name not in bound]
            raise TypeError(f"{self.__name__}: missing arguments {missing}")
        return {p.name: unwrap(bound[p.name]) for p in self.params}, extra

    # --- launching -----------------------------------------------------------------------

    # `kernel[grid]` (_KernelBase) binds the grid with what `_make_binder` gives once.
    def _make_binder(self):
        return _LAUNCHERS[0](self)

    def reset_launches(self) -> None:
        """Forget the launch state (warm entries, launchers, the binder): the next launch
        decides them again."""
        self.launches.clear()
        self._binder = None

    def warmup(self, *args, grid=None, **kwargs):
        """Compile for these arguments (and launch options) without launching, as Triton's
        `kernel.warmup`: returns the CompiledKernel (`n_regs`, `n_spills`, `metadata`,
        `_init_handles()`). `grid` is accepted and unused."""
        return _LAUNCHERS[1](self, args, kwargs)

    def __call__(self, *args, **kwargs):
        if interpreting():  # a helper called from an interpreted kernel runs as Python
            return interpreted_call(self, args, kwargs)
        raise RuntimeError(f"{self.__name__} is a @tilec.jit kernel: launch it with "
                           f"{self.__name__}[grid](...), or call it from another kernel")


# `kernel[grid]`'s binders' factory and `kernel.warmup`'s compiler, registered by tilec.launch,
# the layer that compiles and launches: factory(kernel) -> binder (a C Dispatcher, or a function
# of the grid); warmup(kernel, args, kwargs) -> CompiledKernel.
_LAUNCHERS: list = [None, None]


def set_launcher(factory, warmup=None) -> None:
    """Let `kernel[grid]` bind `grid` with `factory(kernel)` (and `kernel.warmup` compile with
    `warmup`)."""
    _LAUNCHERS[0] = factory
    if warmup is not None:
        _LAUNCHERS[1] = warmup


def as_jit(fn) -> "JITFunction | None":
    """The JITFunction of a @tilec.jit function or of a function of the language's library
    (marked with core.language_function, made into a JITFunction once, on first use); None for
    anything else."""
    if isinstance(fn, JITFunction):
        return fn
    if not is_language_function(fn):
        return None
    made = fn.__dict__.get(_JIT_OF)
    if made is None:
        made = JITFunction(fn)
        setattr(fn, _JIT_OF, made)
    return made


_JIT_OF = "__tilec_jit__"


def jit_function_of(obj) -> "JITFunction | None":
    """The @tilec.jit function `obj` is, or the one under decorators that keep what they wrap
    as `.fn` (@tilec.autotune, @tilec.heuristics); None when there is none."""
    while not isinstance(obj, JITFunction):
        obj = getattr(obj, "fn", None)
        if obj is None:
            return None
    return obj


def _dependency_key(value) -> str:
    """The key of a value a function reads that is not a jit function."""
    if is_constexpr_function(value):
        try:
            return "fn:" + hashlib.sha256(inspect.getsource(value).encode()).hexdigest()
        except (OSError, TypeError):
            return "fn:" + value.__qualname__
    value = unwrap(value)
    if isinstance(value, (int, float, bool, str, type(None), dtype, tuple)):
        return f"{type(value).__name__}:{value!r}"
    return type(value).__name__  # modules and other objects: by kind only


def jit(fn=None, *, do_not_specialize=(), debug=None, noinline=False, interpret=None,
        launch_metadata=None, repr=None):
    """Decorator: `@tilec.jit` or `@tilec.jit(do_not_specialize=["n"])`. `launch_metadata`
    (Triton's profiler hook, `fn(grid, kernel, args) -> dict`) and `repr` are kept as
    `kernel.launch_metadata` / `kernel.repr` for tools; tilec's launches do not call them."""
    def wrap(f):
        made = JITFunction(f, do_not_specialize=do_not_specialize, debug=debug,
                           noinline=noinline, interpret=interpret)
        made.launch_metadata, made.repr = launch_metadata, repr
        return made
    return wrap(fn) if fn is not None else wrap
