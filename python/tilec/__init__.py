"""tilec: a Python-embedded block-level GPU kernel language and its MLIR compiler."""
# tilec.language first: its library (standard.py, random.py) is written with tilec.jit.
import tilec.language  # noqa: F401  (isort: skip)
from tilec.context import make_context, parse_module
from tilec.diagnostics import Diagnostic, DiagnosticError
from tilec.errors import BackendUnavailable, CompilationError, OutOfResources
from tilec.jit import JITFunction, jit
from tilec.language.core import constexpr_function
from tilec.compiler import CompiledKernel, CompileOptions, compile  # noqa: E402  (needs jit)
from tilec.autotuner import Config, autotune, heuristics  # noqa: E402  (needs jit)
from tilec.aot import load  # noqa: E402  (tilec compile -o DIR output)
from tilec import testing  # noqa: E402,F401  (tilec.testing, as triton.testing)

__version__ = "0.1.0"


def cdiv(x: int, y: int) -> int:
    """Ceiling division for host code (grid sizes), as triton.cdiv."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n, as triton.next_power_of_2."""
    return 1 << (n - 1).bit_length() if n > 0 else 1

__all__ = ["BackendUnavailable", "CompilationError", "CompiledKernel", "CompileOptions", "Config",
           "Diagnostic", "DiagnosticError", "JITFunction", "OutOfResources", "autotune", "cdiv",
           "compile", "constexpr_function", "heuristics", "jit", "load", "make_context",
           "next_power_of_2", "parse_module", "testing"]
