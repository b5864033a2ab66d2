"""tilec: a Python-embedded block-level GPU kernel language and its MLIR compiler."""
# tilec.language first: its library (standard.py, random.py) is written with tilec.jit.
import tilec.language  # noqa: F401  (isort: skip)
from tilec.context import make_context, parse_module
from tilec.diagnostics import Diagnostic, DiagnosticError
from tilec.errors import BackendUnavailable, CompilationError, OutOfResources
from tilec.jit import JITFunction, jit
from tilec.language.core import constexpr_function
from tilec.compiler import CompiledKernel, CompileOptions, compile  # noqa: E402  (needs jit)

__version__ = "0.1.0"

__all__ = ["BackendUnavailable", "CompilationError", "CompiledKernel", "CompileOptions",
           "Diagnostic", "DiagnosticError", "JITFunction", "OutOfResources", "compile",
           "constexpr_function", "jit", "make_context", "parse_module"]
