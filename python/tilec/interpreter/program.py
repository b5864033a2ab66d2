"""The kernel's own code as the interpreter runs it: checked as the compiler checks it.

Before a @tilec.jit function first runs here, the frontend's syntax check (frontend/checks.py)
walks its body, so a construct the compiler rejects is rejected here, with the same error at the
same line, before anything runs. The function then runs as a copy of its source in which every
call `f(a, b)` is `__tilec_call__(f, a, b)` and every f-string field `{x}` is
`{__tilec_format__(x)}`: `checked_call` asks the frontend's `call_kind` what the call is, so a
call the compiler would reject (a plain Python or NumPy function, `len` of a run-time value, a
constexpr parameter given a run-time value) raises the same error, and otherwise runs it as
Python; a number literal assigned to a name (`x = 0`) is a scalar tensor, as when compiling.
The copy keeps the original's file name and line numbers, globals, closure and defaults, so
tracebacks, `print` and `breakpoint()` behave as in the original.
"""
from __future__ import annotations

import ast
import threading
import types

from tilec.frontend import checks
from tilec.frontend.codegen import CodeGenerator
from tilec.kernel import as_jit
from tilec.language import builtins as tl
from tilec.language.core import SemanticError, unwrap
from tilec.language.semantic import to_tensor

CALL, FORMAT, LITERAL = "__tilec_call__", "__tilec_format__", "__tilec_literal__"
_RUNNABLE = "__tilec_interpreted__"
BODY = "__tilec_body__"  # the name of the instrumented copy of a kernel's function


def runnable(fn):
    """The Python function the interpreter runs for the JITFunction `fn` (made once)."""
    made = fn.__dict__.get(_RUNNABLE)
    if made is None:
        checks.check_syntax(fn, CodeGenerator)
        made = _instrumented(fn)
        fn.__dict__[_RUNNABLE] = made
    return made


_DEPTH = threading.local()  # @jit calls in progress in this thread's interpreted kernel


def call_jit(fn, args, kwargs):
    """A call of the JITFunction `fn` from interpreted code (as deep as the compiler inlines)."""
    checks.check_jit_call(fn, args, kwargs)
    depth = getattr(_DEPTH, "calls", 0)
    if depth >= checks.MAX_CALL_DEPTH:
        raise SemanticError(checks.CALL_DEPTH_MESSAGE)
    _DEPTH.calls = depth + 1
    try:
        return runnable(fn)(*args, **kwargs)
    finally:
        _DEPTH.calls = depth


def checked_call(fn, *args, **kwargs):
    kind = checks.call_kind(fn, args, kwargs)
    if kind == "method":
        return checked_call(fn.fn, fn.self, *args, **kwargs)
    if kind == "jit":
        return call_jit(as_jit(fn), args, kwargs)
    if kind == "min_max":
        return checks.min_max(fn, args, tl.minimum, tl.maximum)
    if kind == "constexpr":
        return fn(*args, **kwargs).value
    if kind == "python":
        return fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})
    return fn(*args, **kwargs)  # builtins, range, print, breakpoint


class _Instrument(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        return ast.copy_location(
            ast.Call(func=ast.Name(CALL, ast.Load()), args=[node.func, *node.args],
                     keywords=node.keywords), node)

    def visit_Assign(self, node: ast.Assign):
        self.generic_visit(node)
        if checks.is_number_literal(node.value):  # `x = 0`: a scalar tensor, as compiled
            node.value = ast.copy_location(
                ast.Call(func=ast.Name(LITERAL, ast.Load()), args=[node.value], keywords=[]),
                node.value)
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue):
        self.generic_visit(node)
        node.value = ast.copy_location(
            ast.Call(func=ast.Name(FORMAT, ast.Load()), args=[node.value], keywords=[]),
            node.value)
        return node


def _instrumented(fn):
    original = fn.fn
    fn_def = fn.parse()
    fn_def.decorator_list = []
    fn_def = _Instrument().visit(fn_def)
    # Under a name of its own: under the function's, a recursive call would read the copy
    # from the outer function's closure (a cell the outer function never fills).
    fn_def.name = BODY
    ast.increment_lineno(fn_def, fn.first_line - 1)  # the file's line numbers
    # An outer function whose parameters are the names the copy reads from its closure: the
    # instrumentation's three, and the original's free variables.
    free = list(original.__code__.co_freevars)
    outer = ast.FunctionDef(
        name="__tilec_outer__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in [CALL, FORMAT, LITERAL,
                                                                         *free]],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fn_def, ast.Return(ast.Name(fn_def.name, ast.Load()))], decorator_list=[],
        returns=None, type_params=[])
    for node in (outer, outer.body[1]):
        ast.copy_location(node, fn_def)
    module = ast.Module(body=[outer], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, fn.filename, "exec")
    outer_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner_code = next(c for c in outer_code.co_consts
                      if isinstance(c, types.CodeType) and c.co_name == BODY)
    inner_code = inner_code.replace(co_name=original.__name__,
                                    co_qualname=original.__qualname__)  # for tracebacks
    cells = {CALL: types.CellType(checked_call), FORMAT: types.CellType(checks.check_format),
             LITERAL: types.CellType(to_tensor)}
    cells.update(zip(free, original.__closure__ or ()))
    made = types.FunctionType(inner_code, original.__globals__, original.__name__,
                              original.__defaults__,
                              tuple(cells[name] for name in inner_code.co_freevars))
    made.__kwdefaults__ = original.__kwdefaults__
    return made
