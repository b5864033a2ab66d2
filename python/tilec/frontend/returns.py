"""Early returns made structured, before code generation.

`if c: ...; return a` followed by more statements becomes `if c: ...; return a  else: <rest>`,
so that every `return` ends a branch and an `if` whose branches return yields the returned
values (`scf.if` results). A `return` inside a loop has no structured form and is rejected.
"""
from __future__ import annotations

import ast
import copy


class ReturnInLoop(Exception):
    def __init__(self, node: ast.Return):
        super().__init__("`return` inside a loop is not supported: set a flag or a result "
                         "variable in the loop and return after it")
        self.node = node


def _contains_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def always_returns(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return always_returns(last.body) and always_returns(last.orelse)
    return False


def _check_loops(stmts: list[ast.stmt]) -> None:
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.For, ast.While)):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Return):
                        raise ReturnInLoop(inner)


def normalize(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """Statements with every `return` at the end of a branch."""
    _check_loops(stmts)
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Return):
            out.append(stmt)
            return out  # what follows a return never runs
        if isinstance(stmt, ast.If) and _contains_return(stmt):
            rest = stmts[i + 1:]
            new = copy.copy(stmt)
            new.body = normalize(stmt.body + ([] if always_returns(stmt.body) else
                                              copy.deepcopy(rest)))
            new.orelse = normalize(stmt.orelse + ([] if always_returns(stmt.orelse) else
                                                  copy.deepcopy(rest)))
            out.append(new)
            return out
        out.append(stmt)
    return out
