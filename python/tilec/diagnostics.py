"""MLIR diagnostics as values, printed the way `mlir-opt` prints them (`file:line:col: error: msg`).

Parsing, verification and pass failures all surface as `DiagnosticError`, so tools print the
diagnostics and exit instead of showing a Python traceback.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from mlir import ir

_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


def file_line_col(loc: ir.Location) -> tuple[str, int, int] | None:
    """The innermost file position a location refers to (through names, call sites, fusions)."""
    positions = _positions(loc)
    return positions[0] if positions else None


def _positions(loc: ir.Location) -> list[tuple[str, int, int]]:
    """Every file position of `loc`, innermost first (a call site's callee before its caller)."""
    if loc.is_a_file():
        return [(loc.filename, loc.start_line, loc.start_col)]
    if loc.is_a_name():
        return _positions(loc.child_loc)
    if loc.is_a_callsite():
        return _positions(loc.callee) + _positions(loc.caller)
    if loc.is_a_fused():
        return [p for part in loc.locations for p in _positions(part)]
    return []


TILEC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_user_file(filename: str) -> bool:
    """Whether `filename` is the user's, not one of tilec's own (its language library too)."""
    return not os.path.abspath(filename).startswith(TILEC_DIR)


def user_file_line_col(loc: ir.Location) -> tuple[str, int, int] | None:
    """The innermost position of `loc` in the user's code: an op that tilec's language library
    (tl.cdiv, tl.softmax, ...) made is reported where the kernel called it."""
    positions = _positions(loc)
    return next((p for p in positions if is_user_file(p[0])),
                positions[0] if positions else None)


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning" | "note" | "remark"
    message: str
    filename: str | None = None
    line: int | None = None
    col: int | None = None
    notes: tuple["Diagnostic", ...] = ()

    @classmethod
    def from_mlir(cls, diag) -> "Diagnostic":
        """From an `ir.Diagnostic` or `ir.DiagnosticInfo`."""
        where = file_line_col(diag.location) or (None, None, None)
        notes = tuple(cls.from_mlir(n) for n in diag.notes)
        return cls(_SEVERITY[diag.severity], diag.message, *where, notes=notes)

    def format(self) -> str:
        where = f"{self.filename}:{self.line}:{self.col}: " if self.filename else ""
        lines = [f"{where}{self.severity}: {self.message}"]
        lines += [note.format() for note in self.notes]
        return "\n".join(lines)


class DiagnosticError(Exception):
    """One or more error diagnostics from parsing, verifying or running passes."""

    def __init__(self, diagnostics: list[Diagnostic], summary: str = ""):
        self.diagnostics = list(diagnostics)
        self.summary = summary
        super().__init__(self.format())

    @classmethod
    def from_mlir(cls, err: ir.MLIRError) -> "DiagnosticError":
        diags = [Diagnostic.from_mlir(d) for d in err.error_diagnostics]
        if not diags:
            diags = [Diagnostic("error", err.message)]
        return cls(diags, err.message)

    @classmethod
    def simple(cls, message: str) -> "DiagnosticError":
        return cls([Diagnostic("error", message)], message)

    def format(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)
