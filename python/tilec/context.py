"""The one place an MLIR context is made, and the parsing of textual IR into it.

Every context tilec creates has the upstream dialects (registered by the bindings) and tilec's
IRDL dialects loaded, so IR from any stage of the pipeline parses in it.
"""
from __future__ import annotations

import re

from mlir import ir

from tilec.dialects import load_dialects
from tilec.diagnostics import Diagnostic, DiagnosticError


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


# MLIR's parser recurses once per nested region, type, attribute or bracket: deep enough
# nesting overflows its stack (a crash, not an error). Text nested deeper is refused first.
MAX_TEXT_NESTING = 1000
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|[{(\[<]|[})\]>]|\n')


def _error_at(text: str, offset: int, source_name: str, message: str) -> DiagnosticError:
    """The error `message` at character `offset` of `text` (its line and column)."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return DiagnosticError([Diagnostic("error", message, source_name, line, col)])


def nesting_error(text: str, source_name: str) -> DiagnosticError | None:
    """The error for `text` whose brackets nest deeper than MAX_TEXT_NESTING, or None."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "{([<":
            depth += 1
            if depth > MAX_TEXT_NESTING:
                return _error_at(text, match.start(), source_name,
                                 f"brackets nest more than {MAX_TEXT_NESTING} deep here (regions, "
                                 "types or attributes): tilec does not parse IR nested that deep")
        elif token in "})]>":
            depth -= 1
    return None


# `array<index: ...>` aborts MLIR 22's parser (an assertion: index has no bit width) instead of
# being a syntax error; dense arrays hold integers and floats of fixed width only. A dense array
# of signed or unsigned integers (`array<ui32: ...>`) parses, but the Python bindings cannot
# read it back: an attribute lookup raises, and walking an op's attributes aborts the process
# (the fuzzer's seed 1700), so such arrays are refused here too.
_INDEX_ARRAY = re.compile(r"array\s*<\s*(index\b|[us]i\d+\b)")


def index_array_error(text: str, source_name: str) -> DiagnosticError | None:
    """The error for a dense array of `index` or of signed or unsigned integers in `text` (see
    _INDEX_ARRAY), or None."""
    match = next((m for m in _INDEX_ARRAY.finditer(text)
                  if "//" not in text[text.rfind("\n", 0, m.start()) + 1:m.start()]), None)
    if match is None:
        return None
    return _error_at(text, match.start(), source_name,
                     f"a dense array cannot hold '{match.group(1)}' elements: use array<i32: ...> "
                     "or array<i64: ...>")


# A generic op name without a dialect prefix ("scf"() or "x"()) aborts MLIR 22's parser when
# unregistered dialects are not allowed ("created with unregistered dialect", a fatal error).
# Such a name is a string followed by `(` where an op starts: not inside a location, where
# "name"( begins a name location after `(`, `[` or `,`.
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*')


def op_name_error(text: str, source_name: str) -> DiagnosticError | None:
    """The error for a generic op whose name has no dialect prefix (see above), or None."""
    for match in _STRING_OR_COMMENT.finditer(text):
        token = match.group()
        if token.startswith("//") or "." in token:
            continue
        after = text[match.end():match.end() + 64].lstrip()
        before = text[max(0, match.start() - 64):match.start()].rstrip()
        if not after.startswith("(") or before.endswith(("(", "[", ",")):
            continue
        return _error_at(text, match.start(), source_name,
                         f"{token} is not an operation name: operations are named "
                         "'dialect.operation'")
    return None


# A string literal that runs into the end of its line is a lexer error, but MLIR 22's parser can
# recover from it and return an operation with the error still pending, which aborts the
# Python bindings (an assertion: "unhandled captured errors"). It is reported first, as MLIR
# words it.
_STRING_TO_END = re.compile(r'"(?:[^"\\\n]|\\.)*("?)|//[^\n]*')


def string_error(text: str, source_name: str) -> DiagnosticError | None:
    """The error for a string literal left open at the end of its line (see above), or None."""
    for match in _STRING_TO_END.finditer(text):
        if match.group().startswith('"') and not match.group(1):
            return _error_at(text, match.end(), source_name,
                             "expected '\"' in string literal")
    return None


# A struct position of 2^32 or more in llvm.extractvalue / llvm.insertvalue aborts MLIR 22 (an
# assertion: the bounds check truncates it to 32 bits, then indexes the struct with it).
_POSITION_OP = re.compile(r"llvm\.(?:extract|insert)value\b[^\n]*")
_POSITIONS = re.compile(r"\[([-\d,\s]*)\]|array\s*<\s*i64\s*:([-\d,\s]*)>")


def position_error(text: str, source_name: str) -> DiagnosticError | None:
    """The error for a struct position out of 32-bit range (see above), or None."""
    for op in _POSITION_OP.finditer(text):
        for group in _POSITIONS.finditer(op.group()):
            numbers = [n for n in (group.group(1) or group.group(2) or "").split(",")
                       if n.strip().lstrip("-").isdigit()]
            bad = next((int(n) for n in numbers if abs(int(n)) >= 2**31), None)
            if bad is not None:
                return _error_at(text, op.start(), source_name,
                                 f"struct position {bad} is out of bounds")
    return None


# A negative n or k in an MMA shape (#nvvm.shape<m = 16, n = -8, k = 16>) aborts MLIR 22's
# nvvm.mma.sync verifier (it sizes a SmallVector by a negative fragment count) instead of
# being one of its "unimplemented variant for MMA shape" errors.
_MMA_SHAPE = re.compile(r"#nvvm\.shape\s*<([^>]*)>")
_SHAPE_FIELD = re.compile(r"\b([mnk])\s*=\s*(-?\d+)")


def mma_shape_error(text: str, source_name: str) -> DiagnosticError | None:
    """The error for an MMA shape with a negative dimension (see above), or None."""
    for match in _MMA_SHAPE.finditer(text):
        fields = dict(_SHAPE_FIELD.findall(match.group(1)))
        if any(int(v) < 0 for v in fields.values()):
            shape = ", ".join(fields.get(d, "?") for d in "mnk")
            return _error_at(text, match.start(), source_name,
                             f"MMA shape <{shape}> has a negative dimension")
    return None


def parse_module(text: str, context: ir.Context, source_name: str = "<stdin>") -> ir.OpView:
    """Parse and verify `text`; top-level ops other than one `builtin.module` are wrapped in one.

    Returns the `builtin.module` op. Locations keep `source_name` and the line numbers of `text`, so diagnostics point into the
    user's file. Raises `DiagnosticError` on a syntax or verification error.
    """
    too_deep = (nesting_error(text, source_name) or string_error(text, source_name) or
                index_array_error(text, source_name) or position_error(text, source_name) or
                mma_shape_error(text, source_name))
    if too_deep is None and not context.allow_unregistered_dialects:
        too_deep = op_name_error(text, source_name)
    if too_deep is not None:
        raise too_deep
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
