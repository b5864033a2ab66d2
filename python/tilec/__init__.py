"""tilec: a Python-embedded block-level GPU kernel language and its MLIR compiler."""
from tilec import language, testing  # noqa: F401
from tilec.aot import load
from tilec.autotuner import Config, autotune, heuristics
from tilec.compiler import CompiledKernel, CompileOptions, compile
from tilec.context import make_context, parse_module
from tilec.diagnostics import Diagnostic, DiagnosticError
from tilec.errors import BackendUnavailable, CompilationError, OutOfResources
from tilec.kernel import JITFunction, jit
from tilec.language.core import constexpr_function
from tilec.launch import LAUNCH_OPTIONS  # noqa: F401  (importing it makes kernel[grid] launch)
from tilec.runtime import TensorWrapper, reinterpret, set_allocator
from tilec.version import __version__  # noqa: F401


def cdiv(x: int, y: int) -> int:
    """Ceiling division for host code (grid sizes), as triton.cdiv."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n, as triton.next_power_of_2."""
    return 1 << (n - 1).bit_length() if n > 0 else 1


__all__ = ["BackendUnavailable", "CompilationError", "CompiledKernel", "CompileOptions", "Config",
           "Diagnostic", "DiagnosticError", "JITFunction", "OutOfResources", "autotune", "cdiv",
           "compile", "constexpr_function", "heuristics", "jit", "load", "make_context",
           "next_power_of_2", "parse_module", "reinterpret", "set_allocator", "testing",
           "TensorWrapper"]
