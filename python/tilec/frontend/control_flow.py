"""`if`, `for` and `while` in kernels: constexpr conditions fold, runtime ones become `scf`.

Values that a branch or loop body rebinds flow out as `scf.if` results or loop-carried values.
Which names a loop carries is known before its body is visited (the names it assigns), so the
`scf.for`/`scf.while` is built first; an `scf.if`'s results are known only after both branches,
so its blocks are built under a result-less op and moved into the final one.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from mlir import ir
from mlir.dialects import scf

from tilec.language import dtypes as T
from tilec.language import semantic
from tilec.language.block_pointer import block_pointer
from tilec.language.core import RangeSpec, SemanticError, tensor, unwrap

_MISSING = object()


# --- merging what two branches produce -----------------------------------------------------

@dataclass
class _Slot:
    """A value that differs between branches: result `index` of the final `scf.if`."""
    index: int
    type: T.dtype


# What a type mismatch between two branches is called (Triton's words), by what was merged.
_MISMATCH = {"the returned value": "Inconsistent return types:",
             "the value": "Ternary expression with dynamic condition has inconsistent type:"}


class _Merger:
    """Pairs up the values two branches produce; differing ones become yielded results."""

    def __init__(self, then_block: ir.Block, else_block: ir.Block):
        self.blocks = (then_block, else_block)
        self.then_values: list[ir.Value] = []
        self.else_values: list[ir.Value] = []
        self.types: list[T.dtype] = []

    def merge(self, what: str, a: Any, b: Any) -> Any:
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            return tuple(self.merge(f"{what}[{i}]", x, y) for i, (x, y) in enumerate(zip(a, b)))
        if isinstance(a, block_pointer) or isinstance(b, block_pointer):
            if not (isinstance(a, block_pointer) and a.same_static(b)):
                raise SemanticError(f"{what} is a block pointer in one branch of a runtime `if` "
                                    f"and {b!r} in the other; give both the same block shape "
                                    "and order")
            return _Structure(a, [self.merge(what, x, y)
                                  for x, y in zip(a.fields(), b.fields())])
        a_tensor, b_tensor = isinstance(a, tensor), isinstance(b, tensor)
        if not a_tensor and not b_tensor:
            if type(a) is type(b) and a == b:
                return a
            if not (semantic.is_literal(a) and semantic.is_literal(b)):
                raise SemanticError(f"{what} is a compile-time value that differs between the "
                                    f"branches ({a!r} vs {b!r}) of a runtime `if`")
        if a_tensor and b_tensor and a.handle == b.handle:
            return a
        if a_tensor or b_tensor:
            ty = a.type if a_tensor else b.type
        else:  # two different literals: float if either is one
            ty = max(semantic.literal_type(unwrap(a)), semantic.literal_type(unwrap(b)),
                     key=lambda t: (t.is_floating(), t.primitive_bitwidth))
        if b_tensor and a_tensor and a.type != b.type:
            raise SemanticError(_MISMATCH.get(what, f"Mismatched type for {what}:") +
                                f" it is {a.type} in the `if` branch but {b.type} in the "
                                "`else` branch; give both branches the same type")
        self.then_values.append(self._as_value(a, ty, self.blocks[0], what))
        self.else_values.append(self._as_value(b, ty, self.blocks[1], what))
        self.types.append(ty)
        return _Slot(len(self.types) - 1, ty)

    @staticmethod
    def _as_value(v: Any, ty: T.dtype, block: ir.Block, what: str) -> ir.Value:
        if isinstance(v, tensor):
            return v.handle
        if not semantic.is_literal(v) or ty.is_block():
            raise SemanticError(f"{what} is a tensor in one branch of a runtime `if` and "
                                f"{v!r} in the other")
        with ir.InsertionPoint(block):
            return semantic.constant(unwrap(v), ty).handle


@dataclass
class _Structure:
    """A block pointer whose fields were merged: rebuilt from the `scf.if` results."""
    like: Any
    fields: list


def _resolve(value: Any, results: list[ir.Value]) -> Any:
    if isinstance(value, _Slot):
        return tensor(results[value.index], value.type)
    if isinstance(value, tuple):
        return tuple(_resolve(v, results) for v in value)
    if isinstance(value, _Structure):
        return value.like.with_fields([_resolve(v, results) for v in value.fields])
    return value


@dataclass
class _Branch:
    scope: dict
    returned: Any
    has_returned: bool


def _run_branch(gen, block: ir.Block, build) -> _Branch:
    saved = gen.scope, gen.returned, gen.has_returned
    gen.scope, gen.returned, gen.has_returned = dict(saved[0]), None, False
    try:
        with ir.InsertionPoint(block):
            value = build()
        branch = _Branch(gen.scope, value if value is not None else gen.returned,
                         gen.has_returned)
    finally:
        gen.scope, gen.returned, gen.has_returned = saved
    return branch


def _runtime_condition(cond: tensor, what: str) -> tensor:
    if cond.is_block():
        raise SemanticError(f"the condition of a runtime {what} must be a scalar, got a block "
                            f"of shape {cond.shape}; reduce it first (e.g. tl.max(x, 0) > 0)")
    return semantic.cast(cond, T.int1)


def build_if(gen, cond: tensor, then_build, else_build, *, merge_scope: bool,
             value_name: str = "the returned value"):
    """Build `scf.if`; returns (merged scope or None, merged return/expression value, returned)."""
    probe = scf.IfOp(cond.handle, [], has_else=True)
    then = _run_branch(gen, probe.then_block, then_build)
    other = _run_branch(gen, probe.else_block, else_build)
    merger = _Merger(probe.then_block, probe.else_block)
    merged_scope = {}
    if merge_scope:
        for name in list(dict.fromkeys([*then.scope, *other.scope])):
            a = then.scope.get(name, _MISSING)
            b = other.scope.get(name, _MISSING)
            if a is _MISSING or b is _MISSING:
                continue  # defined in one branch only: not visible after the `if`
            merged_scope[name] = merger.merge(f"'{name}'", a, b)
    if then.has_returned != other.has_returned:
        # The branch that does not return reaches the end of the function.
        if (then.returned if then.has_returned else other.returned) is not None:
            raise SemanticError("not every path through this `if` returns a value")
        returned, has_returned = None, True
    else:
        has_returned = then.has_returned
        returned = merger.merge(value_name, then.returned, other.returned) \
            if (then.returned is not None or other.returned is not None) else None
    for block, values in ((probe.then_block, merger.then_values),
                          (probe.else_block, merger.else_values)):
        with ir.InsertionPoint(block):
            scf.YieldOp(values)
    op = probe
    if merger.types:
        op = ir.Operation.create("scf.if", results=[t.to_ir() for t in merger.types],
                                 operands=[cond.handle], regions=2, ip=ir.InsertionPoint(probe))
        probe.then_block.append_to(op.regions[0])
        probe.else_block.append_to(op.regions[1])
        probe.operation.erase()
    results = list(op.results)
    scope = {k: _resolve(v, results) for k, v in merged_scope.items()} if merge_scope else None
    return scope, _resolve(returned, results), has_returned


def visit_if(gen, node: ast.If) -> None:
    cond = gen.visit(node.test)
    if not isinstance(cond, tensor):
        gen.visit_block(node.body if unwrap(cond) else node.orelse)
        return
    cond = _runtime_condition(cond, "`if`")
    scope, returned, has_returned = build_if(
        gen, cond, lambda: gen.visit_block(node.body), lambda: gen.visit_block(node.orelse),
        merge_scope=True)
    gen.scope.update(scope)
    if has_returned:
        gen.returned, gen.has_returned = returned, True


def visit_ifexp(gen, node: ast.IfExp) -> Any:
    cond = gen.visit(node.test)
    if not isinstance(cond, tensor):
        return gen.visit(node.body if unwrap(cond) else node.orelse)
    cond = _runtime_condition(cond, "conditional expression")
    _, value, _ = build_if(gen, cond, lambda: gen.visit(node.body),
                           lambda: gen.visit(node.orelse), merge_scope=False,
                           value_name="the value")
    return value


# --- loops ---------------------------------------------------------------------------------

def assigned_names(stmts: list[ast.stmt]) -> list[str]:
    names = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.append(node.id)
    return list(dict.fromkeys(names))


def _leaves(value) -> list:
    """The run-time parts of a value a loop carries: the value itself (a tensor or a number),
    or those of each element of a tuple or field of a block pointer; other compile-time values
    (dtypes, strings, None, ...) are not carried."""
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, block_pointer):
        return _leaves(value.fields())
    return [value] if isinstance(value, tensor) or semantic.is_literal(value) else []


def _rebuild(value, leaves):
    """`value` with its run-time parts taken, in order, from the iterator `leaves`."""
    if isinstance(value, tuple):
        return tuple(_rebuild(v, leaves) for v in value)
    if isinstance(value, block_pointer):
        return value.with_fields(_rebuild(value.fields(), leaves))
    return next(leaves) if isinstance(value, tensor) or semantic.is_literal(value) else value


def _same_structure(a, b) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same_structure, a, b))
    if isinstance(a, block_pointer):
        return a.same_static(b) and _same_structure(a.fields(), b.fields())
    if isinstance(a, tensor) or semantic.is_literal(a):
        return isinstance(b, tensor) or semantic.is_literal(b)
    return type(a) is type(b) and a == b


@dataclass
class _Carried:
    """A name a loop rebinds: its value before the loop and that value's run-time parts."""
    name: str
    init: Any
    leaves: list  # tensors


def _carried(gen, body: list[ast.stmt], exclude: set[str]) -> list[_Carried]:
    """Names the body rebinds that exist before the loop, with their initial values."""
    carried = []
    for name in assigned_names(body):
        if name in exclude or name not in gen.scope:
            continue
        value = gen.scope[name]
        leaves = [semantic.to_tensor(v) for v in _leaves(value)]
        if leaves:
            carried.append(_Carried(name, value, leaves))
    return carried


def _carried_values(carried: list[_Carried]) -> list[tensor]:
    return [leaf for c in carried for leaf in c.leaves]


def _bind(gen, carried: list[_Carried], values) -> None:
    """Bind each carried name to its value rebuilt from the IR values `values`."""
    values = iter(values)
    for c in carried:
        leaves = iter([tensor(next(values), leaf.type) for leaf in c.leaves])
        gen.scope[c.name] = _rebuild(c.init, leaves)


def _loop_results(gen, node: ast.AST, carried: list[_Carried], kind: str) -> list[ir.Value]:
    values = []
    for c in carried:
        now = gen.scope.get(c.name)
        if not _same_structure(c.init, now):
            raise gen.error(node, f"loop-carried variable '{c.name}' becomes {now!r} in the "
                                  f"{kind} body; it must keep the form it has before the loop "
                                  f"({c.init!r})")
        for init, leaf in zip(c.leaves, _leaves(now)):
            if not isinstance(leaf, tensor):
                leaf = semantic.constant(unwrap(leaf), init.type)
            if leaf.type != init.type:
                raise gen.error(node, f"loop-carried variable '{c.name}' changes type in the "
                                      f"{kind} body: it is {init.type} before the loop and "
                                      f"{leaf.type} after one iteration; give it its loop type "
                                      f"before the loop (e.g. tl.zeros(shape, dtype), or 0.0 "
                                      f"for a float)")
            values.append(leaf.handle)
    return values


def visit_for(gen, node: ast.For) -> None:
    if node.orelse:
        raise gen.error(node, "`for ... else` is not supported in kernels")
    iterable = gen.visit(node.iter)
    if isinstance(iterable, RangeSpec) and not iterable.static:
        return _scf_for(gen, node, iterable)
    if isinstance(iterable, RangeSpec):
        bounds = [unwrap(b) for b in (iterable.start, iterable.end, iterable.step)]
        if not all(isinstance(b, int) for b in bounds):
            raise gen.error(node.iter, "tl.static_range needs compile-time integer bounds")
        iterable = range(*bounds)
    if isinstance(iterable, tensor):
        raise gen.error(node.iter, "a kernel can loop over range(...), tl.range(...), "
                                   "tl.static_range(...) or a tuple, not over a tensor")
    for item in iterable:  # unrolled at compile time
        gen.assign(node.target, item)
        gen.visit_block(node.body)


def _scf_for(gen, node: ast.For, spec: RangeSpec) -> None:
    if not isinstance(node.target, ast.Name):
        raise gen.error(node.target, "the loop variable of a range loop must be a single name")
    step = unwrap(spec.step)
    if isinstance(step, int) and step == 0:
        raise gen.error(node.iter, "range() arg 3 must not be zero")
    # A compile-time negative step counts down: `scf.for` counts k = 0, 1, ... up to the trip
    # count and the body sees start - k * |step| (a run-time step must be positive).
    descending = isinstance(step, int) and step < 0
    bounds = [semantic.to_tensor(b) for b in (spec.start, spec.end, -step if descending
                                              else spec.step)]
    for b in bounds:
        if b.is_block() or not b.dtype.is_int():
            raise gen.error(node.iter, f"range bounds must be integer scalars, got {b.type}")
    index_type = T.int64 if any(b.dtype.int_bitwidth == 64 for b in bounds) else T.int32
    lb, ub, st = (semantic.cast(b, index_type) for b in bounds)
    first = lb
    if descending:
        span = semantic.binary("+", semantic.binary("-", lb, ub), -step - 1)
        trips = semantic.maximum(semantic.binary("//", span, st), 0)
        lb, ub, st = semantic.constant(0, index_type), trips, semantic.constant(1, index_type)
    carried = _carried(gen, node.body, {node.target.id})
    loop = scf.ForOp(lb.handle, ub.handle, st.handle,
                     [v.handle for v in _carried_values(carried)])
    for key, value in (spec.attributes or {}).items():
        loop.attributes[f"tile.{key}"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                                            value)
    saved = gen.scope
    gen.scope = dict(saved)
    _bind(gen, carried, loop.inner_iter_args)
    with ir.InsertionPoint(loop.body):
        iv = tensor(loop.induction_variable, index_type)
        if descending:
            iv = semantic.binary("-", first, semantic.binary("*", iv, -step))
        gen.scope[node.target.id] = iv
        gen.visit_block(node.body)
        scf.YieldOp(_loop_results(gen, node, carried, "loop"))
    gen.scope = saved
    _bind(gen, carried, loop.results)


def visit_while(gen, node: ast.While) -> None:
    if node.orelse:
        raise gen.error(node, "`while ... else` is not supported in kernels")
    carried = _carried(gen, node.body, set())
    types = [v.type for v in _carried_values(carried)]
    loop = scf.WhileOp([t.to_ir() for t in types], [v.handle for v in _carried_values(carried)])
    before = loop.regions[0].blocks.append(*[t.to_ir() for t in types])
    after = loop.regions[1].blocks.append(*[t.to_ir() for t in types])
    saved = gen.scope
    gen.scope = dict(saved)
    _bind(gen, carried, before.arguments)
    with ir.InsertionPoint(before):
        cond = gen.visit(node.test)
        if not isinstance(cond, tensor):
            raise gen.error(node.test, "a `while` condition must depend on run-time values; "
                                       "for a fixed trip count use tl.static_range")
        cond = _runtime_condition(cond, "`while`")
        scf.ConditionOp(cond.handle, list(before.arguments))
    gen.scope = dict(saved)
    _bind(gen, carried, after.arguments)
    with ir.InsertionPoint(after):
        gen.visit_block(node.body)
        scf.YieldOp(_loop_results(gen, node, carried, "`while`"))
    gen.scope = saved
    _bind(gen, carried, loop.results)
