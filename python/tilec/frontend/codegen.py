"""The frontend: a kernel's Python AST walked into `tile`-dialect IR.

One `CodeGenerator` walks one function body. Values are `tensor`s (IR values) or plain Python
objects (compile-time constants). Calls to other `@tilec.jit` functions are inlined by a child
generator; their ops carry call-site locations, so errors point at both lines. Control flow
lives in control_flow.py. Every user mistake becomes a `CompilationError` at its line.
"""
from __future__ import annotations

import ast
import math as pymath
import operator
import types
from typing import Any

from mlir import ir

import tilec.language as tl
from tilec.errors import CompilationError, integer_text
from tilec.frontend import builder, checks, control_flow  # noqa: F401  (builder registers)
from tilec.frontend.returns import ReturnInLoop, normalize
from tilec.kernel import as_jit
from tilec.language import semantic, shapes
from tilec.language.core import BoundMethod, SemanticError, constexpr, tensor, unwrap
from tilec.language.dtypes import dtype

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.Pow: "**"}
_PY_BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
              "//": operator.floordiv, "%": operator.mod, "<<": operator.lshift,
              ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor,
              "**": operator.pow}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_PY_CMPOPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
              ">": operator.gt, ">=": operator.ge}



# Compile-time integers are Python's, of any size; past this many bits no kernel can use them
# (constants are at most 64 bits) and folding them further (2 ** 10 ** 9) would not end.
MAX_CONSTANT_BITS = 4096


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value) -> str:
    return integer_text(value) if _is_int(value) else repr(value)


def _check_constant_size(op: str, x, y=None) -> None:
    """SemanticError when `x op y` (or the result `x` alone) is an integer of more than
    MAX_CONSTANT_BITS bits, checked before computing powers and left shifts."""
    if y is None:
        bits = x.bit_length() if _is_int(x) else 0
    elif not (isinstance(x, int) and isinstance(y, int)):  # bools too: True << 2**64
        return
    elif op == "**" and abs(x) > 1 and y > 0:
        bits = (abs(x).bit_length() - 1) * y
    elif op == "<<" and x != 0 and y > 0:
        bits = x.bit_length() + y
    else:
        return
    if bits > MAX_CONSTANT_BITS:
        shown = "the result" if y is None else f"{_text(x)} {op} {_text(y)}"
        raise SemanticError(f"the compile-time integer {shown} has more than "
                            f"{MAX_CONSTANT_BITS} bits: no kernel can use it")


class CodeGenerator(ast.NodeVisitor):
    def __init__(self, fn, scope: dict[str, Any], call_sites: tuple = (),
                 call_locs: tuple = (), parent: "CodeGenerator | None" = None,
                 parent_node: ast.AST | None = None, debug: bool = False):
        self.fn = fn  # a JITFunction
        self.parent, self.parent_node = parent, parent_node  # the caller, for inlined code
        # CompileOptions.debug: device_assert is compiled only then (as in Triton).
        self.debug = parent.debug if parent is not None else debug
        self.scope = dict(scope)
        self.call_sites = call_sites  # ("file:line", ...) innermost first, for error messages
        self.call_locs = call_locs  # ir.Location of each call site, innermost first
        self.returned: Any = None
        self.has_returned = False
        self.return_node: ast.Return | None = None
        self.node_stack: list[ast.AST] = []  # the nodes being visited, innermost last

    # --- locations and errors ------------------------------------------------------------

    def location(self, node: ast.AST) -> ir.Location:
        line = self.fn.first_line + getattr(node, "lineno", 1) - 1
        col = getattr(node, "col_offset", 0) + self.fn.indent
        loc = ir.Location.file(self.fn.filename, line, col + 1)
        return ir.Location.callsite(loc, list(self.call_locs)) if self.call_locs else loc

    @property
    def is_library(self) -> bool:
        """Inlined from tilec.language's own functions (sum, softmax, rand, ...)."""
        return self.fn.__module__.startswith("tilec.language")

    def error(self, node: ast.AST, message: str) -> CompilationError:
        """The error at `node`; inside the language's library, at the user's call instead."""
        gen, called = self, None
        while gen.is_library and gen.parent is not None:
            called = gen.fn.__name__
            gen, node = gen.parent, gen.parent_node
        if called is not None:
            message = f"tl.{called}: {message}"
        return gen._error_here(node, message)

    def _error_here(self, node: ast.AST, message: str) -> CompilationError:
        return checks.error_at(self.fn, node, message, self.call_sites)

    def visit(self, node: ast.AST):
        if type(node) in checks.UNSUPPORTED:
            raise self.error(node, checks.UNSUPPORTED[type(node)])
        self.node_stack.append(node)
        with self.location(node):
            try:
                return super().visit(node)
            except CompilationError:
                raise
            except ReturnInLoop as err:
                raise self.error(err.node, str(err)) from None
            except SemanticError as err:  # kept as the cause, as Triton keeps its errors
                raise self.error(node, str(err)) from err
            except (ZeroDivisionError, OverflowError) as err:  # in arithmetic on constants
                raise self.error(node, f"{constant_error(err)}: {ast.unparse(node)} ({err})") \
                    from None
            except RecursionError:
                raise self.error(node, "too deeply nested (recursive @tilec.jit calls?)") from None
            except Exception as err:  # a bug in tilec: still point at the kernel's line
                raise self.error(node, f"internal compiler error: {type(err).__name__}: {err}") \
                    from err
            finally:
                self.node_stack.pop()

    def generic_visit(self, node: ast.AST):
        raise self.error(node, f"unsupported Python syntax in a kernel: {type(node).__name__}")

    # --- function bodies -------------------------------------------------------------------

    def generate_body(self) -> Any:
        """Visit the function's body; returns what it returns (None for kernels)."""
        checks.check_syntax(self.fn, CodeGenerator)
        try:
            body = normalize(self.fn.parse().body)
        except ReturnInLoop as err:
            raise self.error(err.node, str(err)) from None
        self.visit_block(body)
        return self.returned

    def visit_block(self, stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            if self.has_returned:
                break
            self.visit(stmt)

    # --- statements ------------------------------------------------------------------------

    def visit_Expr(self, node: ast.Expr):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None  # a docstring
        self.visit(node.value)

    def visit_Pass(self, node):
        return None

    def visit_Return(self, node: ast.Return):
        self.returned = None if node.value is None else self.visit(node.value)
        self.has_returned = True
        self.return_node = node

    def visit_Assign(self, node: ast.Assign):
        value = self.visit(node.value)
        if checks.is_number_literal(node.value) and not self.is_library:
            # As in Triton, `x = 0` makes x a scalar tensor (x.dtype is int32, x.to(...) works);
            # `x: tl.constexpr = 0` keeps a compile-time constant.
            value = semantic.to_tensor(value)
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            return
        value = self.visit(node.value)
        annotation = self.visit(node.annotation)
        if annotation is constexpr and isinstance(value, tensor):
            raise self.error(node, f"'{ast.unparse(node.target)}' is annotated tl.constexpr but "
                                   "its value is only known at run time")
        self.assign(node.target, value)

    def visit_AugAssign(self, node: ast.AugAssign):
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "augmented assignment works on names only (tensors are "
                                   "immutable values)")
        current = self.lookup(node.target, node.target.id)
        value = self.binary(_BINOPS[type(node.op)], current, self.visit(node.value))
        self.assign(node.target, value)

    def assign(self, target: ast.AST, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.scope[target.id] = unwrap(value) if not isinstance(value, tensor) else value
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, tensor) or not hasattr(value, "__len__"):
                raise self.error(target, "cannot unpack a single value into several names")
            if len(value) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(value)} values into "
                                         f"{len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.assign(t, v)
            return
        if isinstance(target, ast.Subscript):
            raise self.error(target, "tensors are immutable: item assignment is not supported; "
                                     "build a new block with tl.where")
        raise self.error(target, f"cannot assign to {type(target).__name__}")

    def visit_If(self, node: ast.If):
        control_flow.visit_if(self, node)

    def visit_For(self, node: ast.For):
        control_flow.visit_for(self, node)

    def visit_While(self, node: ast.While):
        control_flow.visit_while(self, node)

    def visit_Assert(self, node: ast.Assert):
        cond = self.visit(node.test)
        message = "" if node.msg is None else self.visit(node.msg)
        if not isinstance(cond, tensor):
            if not cond:
                raise self.error(node, f"assertion failed: {message or ast.unparse(node.test)}")
            return
        tl.device_assert(cond, str(message), _semantic=self)

    # --- expressions -----------------------------------------------------------------------

    def visit_Constant(self, node: ast.Constant):
        return node.value

    def visit_Name(self, node: ast.Name):
        return self.lookup(node, node.id)

    def lookup(self, node: ast.AST, name: str) -> Any:
        if name in self.scope:
            return self.scope[name]
        found, value = self.fn.resolve_global(name)
        if not found:
            raise self.error(node, f"name '{name}' is not defined: assign it before this line, "
                                   "pass it as an argument, or define it at module level")
        return check_global(self, node, name, value)

    def visit_Tuple(self, node: ast.Tuple):
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node: ast.List):
        return [self.visit(e) for e in node.elts]

    def visit_JoinedStr(self, node: ast.JoinedStr):
        parts = []
        for value in node.values:
            v = self.visit(value)
            if isinstance(v, tensor):
                raise self.error(value, "f-strings can format compile-time values only; pass "
                                        "tensors to tl.device_print as arguments")
            parts.append(str(v))
        return "".join(parts)

    def visit_FormattedValue(self, node: ast.FormattedValue):
        value = self.visit(node.value)
        if isinstance(value, tensor):
            return value
        spec = self.visit(node.format_spec) if node.format_spec else ""
        conv = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}[node.conversion]
        return format(conv(value), spec)

    def visit_Attribute(self, node: ast.Attribute):
        base = self.visit(node.value)
        if isinstance(base, tensor):
            return tensor_attribute(self, node, base, node.attr)
        try:
            return getattr(base, node.attr)
        except AttributeError:
            raise self.error(node, f"{type(base).__name__} has no attribute '{node.attr}'") from None

    def visit_BinOp(self, node: ast.BinOp):
        if type(node.op) not in _BINOPS:
            raise self.error(node, f"operator {type(node.op).__name__} is not supported")
        return self.binary(_BINOPS[type(node.op)], self.visit(node.left), self.visit(node.right))

    def binary(self, op: str, a, b):
        if not isinstance(a, tensor) and not isinstance(b, tensor):
            x, y = unwrap(a), unwrap(b)
            _check_constant_size(op, x, y)
            try:
                result = _PY_BINOPS[op](x, y)
            except (TypeError, ValueError) as err:  # 1.5 | 3, 3 >> -1: Python's own errors
                raise SemanticError(f"operator {op} on the compile-time values {_text(x)} "
                                    f"and {_text(y)}: {err}") from None
            _check_constant_size(op, result)
            return result
        if op == "**":
            raise SemanticError(semantic.POW_OF_TENSORS)
        for side in (a, b):
            if not isinstance(side, tensor) and not semantic.is_literal(side):
                raise SemanticError(f"operator {op} cannot combine a tensor with "
                                    f"{type(side).__name__} {side!r}")
        return semantic.binary(op, a, b)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        operand = self.visit(node.operand)
        if not isinstance(operand, tensor):
            try:
                return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                        ast.Invert: operator.invert}[type(node.op)](operand)
            except TypeError as err:  # ~1.5
                raise SemanticError(f"{ast.unparse(node)} on a compile-time value: {err}") \
                    from None
        if isinstance(node.op, ast.USub):
            return semantic.negate(operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Invert):
            return semantic.invert(operand)
        return semantic.logical_not(operand)

    def visit_Compare(self, node: ast.Compare):
        result, left = None, self.visit(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = self.visit(comparator)
            value = self.compare(node, op, left, right)
            result = value if result is None else self.logical("and", result, value)
            left = right
        return result

    def compare(self, node, op, a, b):
        if isinstance(op, (ast.Is, ast.IsNot)) and (unwrap(a) is None or unwrap(b) is None):
            # `x is None` is known at compile time for a tensor too (it is not None), as in
            # Triton: optional arguments such as a scale or an accumulator test it.
            same = unwrap(a) is unwrap(b) if not (isinstance(a, tensor) or
                                                  isinstance(b, tensor)) else False
            return same if isinstance(op, ast.Is) else not same
        if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
            if isinstance(a, tensor) or isinstance(b, tensor):
                raise self.error(node, "`is` and `in` compare compile-time values only")
            return {ast.Is: operator.is_, ast.IsNot: operator.is_not,
                    ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y}[type(op)](
                        unwrap(a), unwrap(b))
        symbol = _CMPOPS[type(op)]
        if not isinstance(a, tensor) and not isinstance(b, tensor):
            return _PY_CMPOPS[symbol](unwrap(a), unwrap(b))
        return semantic.compare(symbol, a, b)

    def visit_BoolOp(self, node: ast.BoolOp):
        kind = "and" if isinstance(node.op, ast.And) else "or"
        result = self.visit(node.values[0])
        for value_node in node.values[1:]:
            if not isinstance(result, tensor):  # Python short-circuit on compile-time values
                if (kind == "and") != bool(result):
                    return result
                result = self.visit(value_node)
                continue
            result = self.logical(kind, result, self.visit(value_node))
        return result

    def logical(self, kind: str, a, b):
        if not isinstance(a, tensor) and not isinstance(b, tensor):
            return (a and b) if kind == "and" else (a or b)
        a = semantic.cast(semantic.to_tensor(a), semantic.T.int1)
        b = semantic.cast(semantic.to_tensor(b), semantic.T.int1)
        return semantic.binary("&" if kind == "and" else "|", a, b)

    def visit_IfExp(self, node: ast.IfExp):
        return control_flow.visit_ifexp(self, node)

    def visit_Subscript(self, node: ast.Subscript):
        base = self.visit(node.value)
        if not isinstance(base, tensor):
            return base[self.visit(node.slice)]
        return subscript_tensor(self, node, base)

    def visit_Slice(self, node: ast.Slice):
        return slice(*(None if p is None else self.visit(p)
                       for p in (node.lower, node.upper, node.step)))

    def visit_Call(self, node: ast.Call):
        fn = self.visit(node.func)
        args = [self.visit(a) for a in node.args]
        kwargs = {k.arg: self.visit(k.value) for k in node.keywords if k.arg is not None}
        if any(k.arg is None for k in node.keywords):
            raise self.error(node, "**kwargs in calls is not supported in kernels")
        return self.call(node, fn, args, kwargs)

    def call(self, node: ast.AST, fn, args: list, kwargs: dict):
        kind = checks.call_kind(fn, args, kwargs)  # the interpreter asks the same question
        if kind == "method":
            return self.call(node, fn.fn, [fn.self, *args], kwargs)
        if kind == "jit":
            return self.call_jit(node, as_jit(fn), args, kwargs)
        if kind == "builtin":
            try:
                return fn(*args, **kwargs, _semantic=self)
            except TypeError as err:
                if "_semantic" in str(err) or "argument" in str(err):
                    raise self.error(node, f"{checks.display_name(fn)}(): {err}") from None
                raise
        if kind == "range":
            return tl.range(*args, **kwargs, _semantic=self)
        if kind == "print":
            return tl.device_print(*args, _semantic=self, **kwargs)
        if kind == "breakpoint":  # the interpreter's debugger; nothing to compile
            return None
        if kind == "min_max":
            return checks.min_max(fn, args, semantic.minimum, semantic.maximum)
        if kind == "constexpr":
            return constexpr(*args).value
        return fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})

    def call_jit(self, node: ast.AST, fn, args: list, kwargs: dict):
        if len(self.call_sites) >= checks.MAX_CALL_DEPTH:
            raise self.error(node, checks.CALL_DEPTH_MESSAGE)
        try:
            bound = checks.check_jit_call(fn, args, kwargs)
        except SemanticError as err:
            raise self.error(node, str(err)) from None
        here = f"{self.fn.filename}:{self.fn.first_line + getattr(node, 'lineno', 1) - 1}"
        child = CodeGenerator(fn, bound, (here,) + self.call_sites,
                              (self.location(node),) + self.call_locs, self, node)
        return child.generate_body()

    def combine_function(self, fn):
        """A combine callback for reduce/scan from a @tilec.jit function."""
        jit_fn = checks.combine_jit(fn)
        return lambda args: checks.as_list(self.call_jit(self.node_stack[-1], jit_fn, args, {}))


def constant_error(err: Exception) -> str:
    """What went wrong computing a compile-time value (both modes say it the same way)."""
    return ("division by zero at compile time" if isinstance(err, ZeroDivisionError) else
            "overflow at compile time")


def check_global(gen: CodeGenerator, node: ast.AST, name: str, value: Any) -> Any:
    """Module-level values a kernel may read: constants, constexprs, modules, functions, types."""
    if isinstance(value, constexpr):
        return value.value
    if isinstance(value, checks.CONSTANT_TYPES) or isinstance(value, (types.ModuleType, type)):
        return value
    if callable(value):
        return value
    if isinstance(value, (dtype, tuple)):
        return value
    raise gen.error(node, f"global '{name}' is a {type(value).__name__}: kernels read module-level "
                          "numbers, strings, dtypes and tl.constexpr values only; pass it as an "
                          "argument instead")


def tensor_attribute(gen: CodeGenerator, node: ast.AST, x: tensor, name: str):
    if name in ("dtype", "shape", "type", "numel"):
        return getattr(x, name)
    if name == "T":
        return shapes.trans(x)
    if name in tl.TENSOR_METHODS:
        return BoundMethod(tl.TENSOR_METHODS[name], x)
    raise gen.error(node, f"tensors have no attribute '{name}'")


def subscript_tensor(gen: CodeGenerator, node: ast.Subscript, x: tensor) -> tensor:
    return shapes.subscript(x, gen.visit(node.slice))


_ = pymath  # math functions on constants are allowed through the `math` module check
