"""tilec: a Python-embedded block-level GPU kernel language and its MLIR compiler."""
from tilec.context import make_context, parse_module
from tilec.diagnostics import Diagnostic, DiagnosticError

__version__ = "0.1.0"

__all__ = ["Diagnostic", "DiagnosticError", "make_context", "parse_module"]
