"""The interpreter: kernels run on the CPU, one program instance after another, with NumPy.

`TILEC_INTERPRET=1` (read at launch) or `@tilec.jit(interpret=True)` sends launches here. The
kernel's own Python function runs, so `print` and `pdb` work inside it; the `tl` builtins it
calls run the semantic layer the compiler runs, on the NumPy builder (builder.py) instead of
the MLIR one. The checks a GPU cannot make are on by default and can be switched off:
`TILEC_CHECK_BOUNDS=0`, `TILEC_CHECK_OVERFLOW=0`, `TILEC_CHECK_RACES=0` (or `checks=` to
`launch`).
"""
from __future__ import annotations

import itertools
import linecache
import os

import numpy as np

from tilec.diagnostics import is_user_file
from tilec.errors import CompilationError, InterpretedCompilationError, KernelRuntimeError
from tilec.frontend import checks as frontend_checks
from tilec.frontend.codegen import constant_error
from tilec.interpreter import program
from tilec.interpreter.builder import NumPyBuilder
from tilec.interpreter.memory import Checks, Memory
from tilec.interpreter.state import LaunchState
from tilec.interpreter.values import Block, numpy_dtype
from tilec.language import builder as language_builder
from tilec.language.builder import interpreting as active  # whether a kernel runs here now
from tilec.language.block_pointer import tensor_descriptor
from tilec.language.core import SemanticError
from tilec.language.dtypes import parse_type

__all__ = ["Checks", "active", "checks_from_environment", "enabled", "launch"]


def enabled(fn) -> bool:
    if fn.interpret is not None:
        return bool(fn.interpret)
    return os.environ.get("TILEC_INTERPRET", "0") not in ("", "0")


def checks_from_environment() -> Checks:
    def on(name):
        return os.environ.get(name, "1") not in ("0", "")
    return Checks(bounds=on("TILEC_CHECK_BOUNDS"), overflow=on("TILEC_CHECK_OVERFLOW"),
                  races=on("TILEC_CHECK_RACES"))


def _argument(memory: Memory, param, value, key: tuple):
    """What the kernel's Python function receives for one argument, given the part of the
    specialisation the launch computed for it (runtime.specialize_argument)."""
    kind, parts = key
    if kind == "constexpr":
        return value
    if kind == "tuple":  # its elements, each an argument of its own (as the compiler sees them)
        return tuple(_argument(memory, param, v, k) for v, k in zip(value, parts))
    if kind == "descriptor":  # a host tensor descriptor: by its parts, as compiled
        return tensor_descriptor.from_parts(
            _argument(memory, param, v, k) for v, k in zip(value.tilec_descriptor_parts(), parts))
    if kind.startswith("*"):
        return memory.add_argument(param.name, value, const=param.is_const)
    ty = parse_type(kind)
    number = value.item() if hasattr(value, "item") else value
    return Block(np.array(number).astype(numpy_dtype(ty)), ty)


def launch(fn, grid: tuple[int, int, int], bound: dict, specialization: tuple,
           checks: Checks | None = None) -> None:
    """Run every program instance of `grid` of the kernel `fn` with arguments `bound`, whose
    types the launch's `specialization` (one entry per parameter) gives."""
    if active():
        raise RuntimeError("a kernel launched from inside an interpreted kernel")
    checks = checks or checks_from_environment()
    memory = Memory(checks)
    args = [bound[p.name] if p.is_constexpr else _argument(memory, p, bound[p.name], key)
            for p, key in zip(fn.params, specialization)]
    run = program.runnable(fn)  # the frontend's checks first, as when compiling
    state = LaunchState(memory, grid)
    language_builder.activate(NumPyBuilder(state, checks.overflow))
    try:
        for z, y, x in itertools.product(range(grid[2]), range(grid[1]), range(grid[0])):
            state.pid = (x, y, z)
            if run(*args) is not None:  # as the compiler: at the return statement
                raise frontend_checks.kernel_return_error(fn)
    except SemanticError as err:
        raise _at_kernel_line(err, state.pid) from err
    except (ZeroDivisionError, OverflowError, MemoryError) as err:  # Python arithmetic on
        # constants (True << 2**64 runs out of memory at the kernel's line)
        if not _in_kernel(err):
            raise
        raise _at_kernel_line(err, state.pid,
                              f"{constant_error(err)} ({str(err) or type(err).__name__})") from None
    except _PYTHON_ERRORS as err:  # Python's own error at a line of the kernel: the user's
        if isinstance(err, KernelRuntimeError) or not _through_kernel(err):
            raise
        raise _at_kernel_line(err, state.pid, f"{type(err).__name__}: {err}") from err
    finally:
        language_builder.activate(None)
        memory.finish()


# What Python raises for a mistake in code it runs (a name used before it is assigned, a
# method a value does not have, a call with the wrong arguments, a negative shift, ...).
_PYTHON_ERRORS = (NameError, AttributeError, TypeError, ValueError, IndexError, KeyError,
                  AssertionError)


def _through_kernel(err: Exception) -> bool:
    """Whether a kernel's own line is on `err`'s traceback."""
    tb = err.__traceback__
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            return True
        tb = tb.tb_next
    return False


_LANGUAGE_DIR = os.path.dirname(os.path.abspath(language_builder.__file__))


def _in_kernel(err: Exception) -> bool:
    """Whether `err` was raised by a kernel's own line, or by the language's library functions
    that it called (tl.cdiv(B, 0)); not inside the interpreter or another library."""
    tb = err.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    return is_user_file(filename) or (
        _through_kernel(err) and os.path.abspath(filename).startswith(_LANGUAGE_DIR + os.sep))


def _at_kernel_line(err: Exception, pid, message: str | None = None) -> CompilationError:
    """The same error the compiler gives, at the innermost kernel line of the traceback."""
    filename = line = None
    tb = err.__traceback__
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            filename, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next

    source = linecache.getline(filename, line) if filename else None
    col = len(source) - len(source.lstrip()) if source else 0
    return InterpretedCompilationError(f"{message or err} (while interpreting program {pid})",
                                       filename, line, col, source or None, program_id=pid)
