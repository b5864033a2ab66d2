"""`@tilec.jit` kernels: their source, parameters, specialisation and cache keys.

A `JITFunction` wraps a Python function written in tilec.language. Its source, hash and
dependencies are read once; `kernel[grid](*args)` binds arguments, computes the specialisation
key (argument types, integers equal to 1, 16-divisibility) and compiles once per key;
`tilec.compile` (compiler.py) does the same ahead of time from a signature.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import linecache
import textwrap
import types
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tilec.errors import CompilationError
from tilec.language.core import constexpr, is_constexpr_function, tensor, unwrap
from tilec.language.dtypes import dtype


@dataclass(frozen=True)
class Param:
    name: str
    index: int
    is_constexpr: bool
    default: Any = inspect.Parameter.empty


def _is_constexpr_annotation(annotation) -> bool:
    if annotation is constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


class JITFunction:
    def __init__(self, fn, do_not_specialize=(), debug: bool | None = None,
                 noinline: bool = False, interpret: bool | None = None):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.signature = inspect.signature(fn)
        self.params = [Param(p.name, i, _is_constexpr_annotation(p.annotation), p.default)
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
        self.cache: dict = {}  # specialisation key -> compiled kernel
        self.fast_cache: dict = {}  # runtime.key_parts of the arguments -> runtime.fast_entry
        self._fast_launch = None
        self._by_grid: dict = {}  # grid -> launcher with that grid built in

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

    @cached_property
    def cache_key(self) -> str:
        """A hash of this function's source and of everything it reads: the jit functions it
        calls (their keys, recursively), constexpr functions' source and global constants.
        Computed once per function object."""
        h = hashlib.sha256(self.src.encode())
        for name, dep in sorted(self._dependencies().items()):
            h.update(f"\0{name}={dep}".encode())
        return h.hexdigest()

    def _dependencies(self) -> dict[str, str]:
        deps = {}
        names = {n.id for n in ast.walk(self.parse()) if isinstance(n, ast.Name)}
        attrs = {(n.value.id, n.attr) for n in ast.walk(self.parse())
                 if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        for name in sorted(names):
            if name in self.arg_names:
                continue
            found, value = self.resolve_global(name)
            if found:
                deps[name] = _dependency_key(value)
        for base, attr in sorted(attrs):
            found, module = self.resolve_global(base)
            if found and inspect.ismodule(module) and hasattr(module, attr):
                value = getattr(module, attr)
                if isinstance(value, JITFunction) and value is not self:
                    deps[f"{base}.{attr}"] = _dependency_key(value)
        return deps

    # --- binding ------------------------------------------------------------------------

    def bind_for_inlining(self, args: list, kwargs: dict) -> dict[str, Any]:
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return {k: (v if isinstance(v, tensor) else unwrap(v)) for k, v in bound.arguments.items()}

    def bind_launch(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{self.__name__}: {err}") from None
        bound.apply_defaults()
        missing = [p.name for p in self.params if p.name not in bound.arguments
                   or bound.arguments[p.name] is inspect.Parameter.empty]
        if missing:
            raise TypeError(f"{self.__name__}: missing arguments {missing}")
        return {k: unwrap(v) for k, v in bound.arguments.items()}

    def specialization(self, bound: dict[str, Any]) -> tuple:
        """The part of a launch that selects a compiled kernel: for each parameter either its
        constexpr value or (type, 16-divisible)."""
        key = []
        for p in self.params:
            value = bound[p.name]
            if p.is_constexpr:
                key.append(("constexpr", _hashable(value)))
            else:
                key.append(specialize_argument(value, p.name not in self.do_not_specialize))
        return tuple(key)

    # --- launching ------------------------------------------------------------------------

    def __getitem__(self, grid):
        """`kernel[grid]`: the generated launcher with `grid` as its default (one function
        object per distinct grid, kept for reuse), so the call goes straight into it."""
        try:
            return self._by_grid[grid]
        except KeyError:
            pass
        except TypeError:  # an unhashable grid (a list): build one for this call only
            return self._launcher_for(grid)
        if len(self._by_grid) >= 256:
            self._by_grid.clear()
        launcher = self._by_grid[grid] = self._launcher_for(grid)
        return launcher

    def _launcher_for(self, grid):
        fast = self._fast_launch
        if fast is None:
            fast = self._fast_launch = self._make_fast_launch()
        bound = types.FunctionType(fast.__code__, fast.__globals__, fast.__name__,
                                   fast.__defaults__, fast.__closure__)
        bound.__kwdefaults__ = dict(fast.__kwdefaults__ or {}, grid=grid)
        return bound

    def _make_fast_launch(self):
        try:
            from tilec.runtime import make_fast_launch
            return make_fast_launch(self, self._slow_launch)
        except ImportError:  # no CuPy: every launch takes the general path
            return lambda *args, grid, num_warps=4, num_stages=3, **kwargs: self.run(
                *args, grid=grid, num_warps=num_warps, num_stages=num_stages, **kwargs)

    def _slow_launch(self, args: tuple, grid, num_warps: int, num_stages: int):
        return self.run(*args, grid=grid, num_warps=num_warps, num_stages=num_stages)

    def run(self, *args, grid, num_warps: int = 4, num_stages: int = 3, **kwargs):
        from tilec import interpreter
        from tilec.compiler import compile_specialized
        bound = self.bind_launch(args, kwargs)
        if interpreter.enabled(self):
            return interpreter.launch(self, resolve_grid(grid, bound), bound)
        key = self.compile_key(bound, num_warps, num_stages)
        kernel = self.cache.get(key)
        if kernel is None:
            kernel = compile_specialized(self, *key)
            self.cache[key] = kernel
        grid_size = resolve_grid(grid, bound)
        result = kernel.launch(grid_size, bound)
        self._remember_fast(bound, kernel, num_warps, num_stages)
        return result

    def compile_key(self, bound: dict[str, Any], num_warps: int, num_stages: int) -> tuple:
        """(specialisation, CompileOptions): what selects the compiled kernel of a launch with
        arguments `bound`, the key of `self.cache` and the arguments of `compile_specialized`
        (the autotuner compiles its configs ahead of their launches with it)."""
        from tilec.compiler import CompileOptions
        options = CompileOptions(num_warps=num_warps, num_stages=num_stages,
                                 debug=bool(self.debug))
        return self.specialization(bound), options

    def _remember_fast(self, bound: dict, kernel, num_warps: int, num_stages: int) -> None:
        """Let the generated fast launcher find `kernel` for arguments like these."""
        from tilec.runtime import fast_entry, is_folded, key_parts
        parts, keep, values = [], [], []
        for p in self.params:
            if p.is_constexpr:
                parts.append(bound[p.name])
                continue
            tag, flag, _ = key_parts(bound[p.name], p.name not in self.do_not_specialize)
            parts += [tag, flag]
            if not is_folded(tag, flag):
                keep.append(len(values))
            values.append(bound[p.name])
        try:
            self.fast_cache[(*parts, num_warps, num_stages)] = fast_entry(kernel, keep, values)
        except TypeError:
            pass  # an unhashable constexpr: such launches stay on the slow path

    def __call__(self, *args, **kwargs):
        from tilec.interpreter import active
        if active():  # a helper called from an interpreted kernel runs as Python
            return self.fn(*args, **kwargs)
        raise RuntimeError(f"{self.__name__} is a @tilec.jit kernel: launch it with "
                           f"{self.__name__}[grid](...), or call it from another kernel")


def _hashable(value):
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def _dependency_key(value) -> str:
    if isinstance(value, JITFunction):
        return "jit:" + value.cache_key
    if is_constexpr_function(value):
        try:
            return "fn:" + hashlib.sha256(inspect.getsource(value).encode()).hexdigest()
        except (OSError, TypeError):
            return "fn:" + value.__qualname__
    value = unwrap(value)
    if isinstance(value, (int, float, bool, str, type(None), dtype, tuple)):
        return f"{type(value).__name__}:{value!r}"
    return type(value).__name__  # modules and other objects: by kind only


def resolve_grid(grid, bound: dict) -> tuple[int, int, int]:
    if callable(grid):
        grid = grid(dict(bound))
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(unwrap(g)) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, got {grid}")
    return grid + (1,) * (3 - len(grid))


# --- argument specialisation -------------------------------------------------------------------

_TORCH_OR_NUMPY_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
}


def pointer_dtype_name(array) -> str:
    """Signature name of the element type of a torch/CuPy/NumPy array."""
    name = str(array.dtype).replace("torch.", "")
    if name not in _TORCH_OR_NUMPY_DTYPES:
        raise TypeError(f"arrays of {array.dtype} cannot be passed to kernels")
    return _TORCH_OR_NUMPY_DTYPES[name]


def specialize_argument(value, specialize: bool = True) -> tuple:
    """("constexpr", value) for values folded into the kernel, else (type, divisible_by_16)."""
    if isinstance(value, bool):
        return ("i1", False)
    if isinstance(value, int):
        if specialize and value == 1:
            return ("constexpr", 1)
        if -2**31 <= value < 2**31:
            ty = "i32"
        elif -2**63 <= value < 2**63:
            ty = "i64"
        else:
            ty = "u64"
        return (ty, specialize and value % 16 == 0)
    if isinstance(value, float):
        return ("fp32", False)
    if value is None or isinstance(value, (str, dtype)):
        return ("constexpr", value)
    if getattr(value, "shape", None) == () and hasattr(value, "item"):  # a NumPy scalar
        ty = pointer_dtype_name(value)
        if ty.startswith(("i", "u")) and ty != "i1":
            number = int(value.item())
            if specialize and number == 1:
                return ("constexpr", 1)
            return (ty, specialize and number % 16 == 0)
        return (ty, False)
    if hasattr(value, "dtype"):
        from tilec.runtime import data_pointer
        return ("*" + pointer_dtype_name(value), specialize and data_pointer(value) % 16 == 0)
    raise TypeError(f"kernel arguments must be numbers, arrays or tl.constexpr values, got "
                    f"{type(value).__name__}")


def jit(fn=None, *, do_not_specialize=(), debug=None, noinline=False, interpret=None):
    """Decorator: `@tilec.jit` or `@tilec.jit(do_not_specialize=["n"])`."""
    def wrap(f):
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug,
                           noinline=noinline, interpret=interpret)
    return wrap(fn) if fn is not None else wrap
