"""The frontend's checks of a kernel's program, shared by the compiler and the interpreter.

Both modes accept and reject the same programs with the same message at the same line:
- `check_syntax` walks a @tilec.jit function's whole body before it is compiled or interpreted
  and rejects the first construct kernels do not have (`try`, `lambda`, comprehensions,
  `global`, `yield`, nested `def`s, ...: UNSUPPORTED, and any statement or expression the code
  generator has no rule for);
- `call_kind` decides what a call in a kernel is (a builtin, a @tilec.jit function, a
  compile-time Python call, ...) and rejects the calls a kernel cannot make (plain Python or
  NumPy functions, Python builtins on run-time values); the code generator builds IR by its
  answer, and the interpreter, which runs the kernel as Python, routes every call of the
  kernel's own code through it (interpreter/program.py);
- `check_jit_call` binds the arguments of a @tilec.jit call and checks its constexprs;
- `check_format` rejects tensors in f-strings.
"""
from __future__ import annotations

import ast
import builtins
import types

from tilec.errors import CompilationError
from tilec.kernel import as_jit
from tilec.language.core import (BoundMethod, SemanticError, constexpr, is_builtin,
                                 is_constexpr_function, tensor, unwrap)

UNSUPPORTED = {
    ast.Try: "`try` blocks are not supported in kernels: kernels cannot raise or catch "
             "exceptions; check conditions with tl.device_assert",
    ast.With: "`with` blocks are not supported in kernels: kernels have no context managers; "
              "move this code out of the `with` block",
    ast.Lambda: "lambdas are not supported in kernels: write a @tilec.jit function instead",
    ast.ListComp: "list comprehensions are not supported in kernels: use a loop over "
                  "tl.static_range, or block operations",
    ast.SetComp: "set comprehensions are not supported in kernels",
    ast.DictComp: "dict comprehensions are not supported in kernels",
    ast.GeneratorExp: "generator expressions are not supported in kernels: use a loop over "
                      "tl.static_range, or block operations",
    ast.Break: "`break` is not supported in kernels: make the exit condition part of a `while` "
               "loop's condition",
    ast.Continue: "`continue` is not supported in kernels: guard the rest of the loop body "
                  "with `if`",
    ast.Raise: "`raise` is not supported in kernels: use tl.device_assert or tl.static_assert",
    ast.Global: "`global` is not supported in kernels",
    ast.Nonlocal: "`nonlocal` is not supported in kernels",
    ast.Delete: "`del` is not supported in kernels",
    ast.Yield: "generators are not supported in kernels",
    ast.YieldFrom: "generators are not supported in kernels",
    ast.Await: "`await` is not supported in kernels",
    ast.AsyncFor: "async loops are not supported in kernels",
    ast.AsyncWith: "`async with` is not supported in kernels",
    ast.Set: "sets are not supported in kernels",
    ast.Dict: "dicts are not supported in kernels",
    ast.Starred: "starred expressions are not supported in kernels",
    ast.NamedExpr: "the walrus operator is not supported in kernels",
    ast.ClassDef: "classes cannot be defined in kernels",
    ast.FunctionDef: "functions cannot be defined inside kernels: define a @tilec.jit "
                     "function at module level",
    ast.AsyncFunctionDef: "functions cannot be defined inside kernels",
    ast.Import: "imports are not supported inside kernels: import at module level",
    ast.ImportFrom: "imports are not supported inside kernels: import at module level",
}

# Python builtins a kernel may call on compile-time values.
PY_FUNCTIONS = {builtins.len, builtins.int, builtins.float, builtins.bool, builtins.abs,
                builtins.isinstance, builtins.getattr, builtins.hasattr, builtins.tuple,
                builtins.list, builtins.str, builtins.range, builtins.enumerate, builtins.zip,
                builtins.round, builtins.pow, builtins.divmod, builtins.repr, builtins.type}
CONSTANT_TYPES = (int, float, bool, str, type(None), bytes, complex)


def error_at(fn, node: ast.AST, message: str, call_sites: tuple = ()) -> CompilationError:
    """A CompilationError at `node` of the @tilec.jit function `fn`'s parsed source."""
    line = fn.first_line + getattr(node, "lineno", 1) - 1
    col = getattr(node, "col_offset", 0) + fn.indent
    return CompilationError(message, fn.filename, line, col, fn.source_line(line), call_sites)


def parameter_error(fn, name: str, message: str) -> CompilationError:
    """A CompilationError at the parameter `name` (or the part `name.i` of a tuple one) of
    `fn`'s def: a mistake in the type an argument gives it."""
    tree = fn.parse()
    base = name.split(".")[0]
    node = next((a for a in ast.walk(tree) if isinstance(a, ast.arg) and a.arg == base), tree)
    return error_at(fn, node, f"argument '{name}': {message}")


def _unsupported(node: ast.AST, visitor: type) -> str | None:
    if type(node) in UNSUPPORTED:
        return UNSUPPORTED[type(node)]
    if isinstance(node, (ast.stmt, ast.expr)) and \
            not hasattr(visitor, f"visit_{type(node).__name__}"):
        return f"unsupported Python syntax in a kernel: {type(node).__name__}"
    return None


_CHECKED = "__tilec_syntax_checked__"


def check_syntax(fn, visitor: type) -> None:
    """Raise the CompilationError of the first construct (in source order) of `fn`'s body that
    kernels do not have; `visitor` is the code generator's class (what it has rules for).
    Dead code is checked too: the interpreter cannot know it is dead, so neither mode runs it."""
    if fn.__dict__.get(_CHECKED):
        return
    stack = list(reversed(fn.parse().body))
    while stack:  # depth-first, in source order, without recursion (deep nesting is input)
        node = stack.pop()
        message = _unsupported(node, visitor)
        if message is not None:
            raise error_at(fn, node, message)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    fn.__dict__[_CHECKED] = True


# --- calls --------------------------------------------------------------------------------------

def display_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def combine_jit(fn):
    """reduce/scan's `combine_fn` as the JITFunction both modes call, or SemanticError."""
    jit_fn = as_jit(fn)
    if jit_fn is None:
        raise SemanticError(f"combine_fn must be a @tilec.jit function, got {display_name(fn)}")
    return jit_fn


def as_list(result) -> list:
    """A call's result as the list of its values (a tuple's items, or the one value)."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _is_compile_time_method(fn) -> bool:
    """A method of a compile-time value (`dtype.is_int`, `str.upper`, ...)."""
    owner = getattr(fn, "__self__", None)
    return owner is not None and not isinstance(owner, (types.ModuleType, tensor))


def _runtime_values(args, kwargs) -> bool:
    return any(isinstance(unwrap(a), tensor) for a in list(args) + list(kwargs.values()))


def call_kind(fn, args, kwargs) -> str:
    """What calling `fn` in a kernel is: "method", "jit", "builtin", "range", "print",
    "breakpoint", "min_max", "constexpr" or "python" (a call of Python on compile-time
    values, done while compiling). Raises SemanticError for a call kernels cannot make."""
    if isinstance(fn, BoundMethod):
        return "method"
    if as_jit(fn) is not None:
        return "jit"
    if is_builtin(fn):
        return "builtin"
    if is_constexpr_function(fn):
        if _runtime_values(args, kwargs):
            raise SemanticError(f"{display_name(fn)} is a constexpr function: call it with "
                                "compile-time values only")
        return "python"
    if fn is builtins.range:
        return "range"
    if fn is builtins.print:
        return "print"
    if fn is builtins.breakpoint:
        return "breakpoint"
    if fn in (builtins.min, builtins.max):
        return "min_max"
    if fn is constexpr:
        return "constexpr"
    if fn is builtins.isinstance:  # a question about the value's kind: known when compiling
        return "python"
    if fn in PY_FUNCTIONS or isinstance(fn, type) and issubclass(fn, CONSTANT_TYPES):
        if _runtime_values(args, kwargs):
            raise SemanticError(f"Python's {display_name(fn)}() works on compile-time values "
                                "only; use the tl functions on tensors")
        return "python"
    if _is_compile_time_method(fn) or getattr(fn, "__module__", "") == "math":
        if _runtime_values(args, kwargs):
            raise SemanticError(f"{display_name(fn)}() works on compile-time values only")
        return "python"
    name = display_name(fn)
    raise SemanticError(f"'{name}' is not a @tilec.jit function: a kernel can call "
                        f"tilec.language builtins and other @tilec.jit functions; decorate "
                        f"'{name}' with @tilec.jit")


def min_max(fn, args, minimum, maximum):
    """Python's `min`/`max` (`fn`) in a kernel: of constants, Python's; of tensors, the
    elementwise `minimum`/`maximum` folded over the arguments (the compiler's or the
    interpreter's builtin); of one argument, an error."""
    if len(args) < 2:
        raise SemanticError(f"{fn.__name__}() of one argument is not supported in kernels; "
                            "use tl.min/tl.max to reduce a block")
    if not any(isinstance(unwrap(a), tensor) for a in args):
        return fn(*[unwrap(a) for a in args])
    combine = minimum if fn is builtins.min else maximum
    result = args[0]
    for a in args[1:]:
        result = combine(result, a)
    return result


def kernel_return_error(fn, node: ast.Return | None = None) -> CompilationError:
    """A kernel returning a value, at its return statement (the first one returning a value
    when `node` is not known: the interpreter only sees the value come back)."""
    if node is None:
        node = next(n for n in ast.walk(fn.parse()) if isinstance(n, ast.Return) and n.value)
    return error_at(fn, node, f"kernel {fn.__name__} returns a value: kernels write their "
                              "results through pointers", ())


MAX_CALL_DEPTH = 32  # @jit calls inlined into one another (recursion ends at compile time)

CALL_DEPTH_MESSAGE = (f"@tilec.jit calls nest more than {MAX_CALL_DEPTH} deep: a recursive call "
                      "must stop at compile time (on a tl.constexpr argument, as `if n == 0: "
                      "return ...`)")


def check_jit_call(fn, args, kwargs) -> dict:
    """The arguments of a call of the @tilec.jit function `fn`, bound to its parameters;
    a run-time value for a constexpr parameter is an error."""
    try:
        bound = fn.bind_for_inlining(list(args), dict(kwargs))
    except TypeError as err:
        raise SemanticError(f"{fn.__name__}(): {err}") from None
    for name in fn.constexpr_names:
        if isinstance(unwrap(bound.get(name)), tensor):
            raise SemanticError(f"argument '{name}' of {fn.__name__} is tl.constexpr but gets a "
                                "runtime value; pass a compile-time constant")
    return bound


def check_format(value):
    """A value an f-string formats: compile-time values only."""
    if isinstance(unwrap(value), tensor):
        raise SemanticError("f-strings can format compile-time values only; pass tensors to "
                            "tl.device_print as arguments")
    return value


def is_number_literal(node: ast.AST) -> bool:
    """`0`, `1.5`, `True`, `-3`: a number written in the source (what Triton makes a tensor when
    it is assigned to a name)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float))
