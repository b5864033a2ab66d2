"""The one place an MLIR context is made, and the parsing of textual IR into it.

Every context tilec creates has the upstream dialects (registered by the bindings) and tilec's
IRDL dialects loaded, so IR from any stage of the pipeline parses in it.
"""
from __future__ import annotations

import re

from mlir import ir

from tilec.dialects import load_dialects
from tilec.diagnostics import DiagnosticError


def make_context(*, allow_unregistered_dialects: bool = False) -> ir.Context:
    context = ir.Context()
    context.allow_unregistered_dialects = allow_unregistered_dialects
    load_dialects(context)
    return context


_ALIAS = re.compile(r"^[#!][\w.$-]+\s*=")


def _wrap_in_module(text: str) -> str:
    """`text` inside `module { ... }` with line numbers unchanged.

    Alias definitions (`#x = ...`) must stay outside the module, so the opening brace goes at
    the end of the last line that defines one (or on the first line when there is none).
    """
    lines = text.split("\n")
    last_alias = max((i for i, line in enumerate(lines) if _ALIAS.match(line)), default=None)
    if last_alias is None:
        return "module {" + text + "\n}"
    lines[last_alias] += " module {"
    return "\n".join(lines) + "\n}"


def parse_module(text: str, context: ir.Context, source_name: str = "<stdin>") -> ir.OpView:
    """Parse and verify `text`; top-level ops other than one `builtin.module` are wrapped in one.

    Returns the `builtin.module` op. Locations keep `source_name` and the line numbers of `text`, so diagnostics point into the
    user's file. Raises `DiagnosticError` on a syntax or verification error.
    """
    with context:
        try:
            op = ir.Operation.parse(text, source_name=source_name)
        except ir.MLIRError as err:
            if "single top-level operation" not in str(err):
                raise DiagnosticError.from_mlir(err) from None
            op = None
        if op is None or op.operation.name != "builtin.module":
            try:
                op = ir.Operation.parse(_wrap_in_module(text), source_name=source_name)
            except ir.MLIRError as err:
                raise DiagnosticError.from_mlir(err) from None
        return op
