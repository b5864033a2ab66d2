"""`--verify-diagnostics`: compare produced diagnostics with `expected-*` comments in the input.

As in mlir-opt: `// expected-error {{text}}` expects an error on its own line whose message
contains `text`; `@+N`, `@-N`, `@above` and `@below` move the expected line. Severities: error,
warning, note, remark. Every expectation must be met and every diagnostic expected.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tilec.diagnostics import Diagnostic

EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}")


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    written_at: int
    met: bool = False


def expectations(text: str, first_line: int = 1) -> list[Expectation]:
    found = []
    for offset, line in enumerate(text.splitlines()):
        lineno = first_line + offset
        for match in EXPECTED.finditer(line):
            severity, where, message = match.groups()
            target = lineno
            if where == "above":
                target = lineno - 1
            elif where == "below":
                target = lineno + 1
            elif where:
                target = lineno + int(where)
            found.append(Expectation(severity, target, message, lineno))
    return found


def _flatten(diags: list[Diagnostic]) -> list[Diagnostic]:
    out = []
    for d in diags:
        out.append(d)
        # The verifier's "see current operation" notes are context, not diagnostics to expect.
        out += [n for n in _flatten(list(d.notes))
                if not n.message.startswith("see current operation")]
    return out


def check(diags: list[Diagnostic], expected: list[Expectation], filename: str) -> list[str]:
    """Problems found, as messages to print; empty when diagnostics and expectations agree."""
    problems = []
    for diag in _flatten(diags):
        match = next((e for e in expected if not e.met and e.severity == diag.severity
                      and e.line == diag.line and e.text in diag.message), None)
        if match is None:
            where = f"{diag.filename}:{diag.line}:{diag.col}: " if diag.filename else ""
            problems.append(f"{where}error: unexpected {diag.severity}: {diag.message}")
        else:
            match.met = True
    for exp in expected:
        if not exp.met:
            problems.append(f"{filename}:{exp.written_at}: error: expected {exp.severity} "
                            f"\"{exp.text}\" was not produced")
    return problems
