"""Errors a user sees: each names their kernel's file and line and says what to do."""
from __future__ import annotations


class CompilationError(Exception):
    """A mistake in a kernel, found while compiling it.

    Printed as `file:line:col: error: message`, the source line with a caret under the column,
    and, for code inlined from a helper, the call sites it came through.
    """

    def __init__(self, message: str, filename: str | None = None, line: int | None = None,
                 col: int | None = None, source_line: str | None = None,
                 call_sites: tuple[str, ...] = ()):
        self.message = message
        self.error_message = message  # Triton's name for it
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.call_sites = call_sites
        Exception.__init__(self, self.format())  # (not the next class of a subclass's MRO)

    def format(self) -> str:
        if self.filename is None:
            return f"error: {self.message}"
        col = self.col or 0
        text = [f"{self.filename}:{self.line}:{col + 1}: error: {self.message}"]
        if self.source_line is not None:
            stripped = self.source_line.rstrip()
            indent = len(stripped) - len(stripped.lstrip())
            text.append("    " + stripped.lstrip())
            text.append("    " + " " * max(col - indent, 0) + "^")
        for site, count in _runs(self.call_sites):  # a recursion's sites once, with a count
            text.append(f"  called from {site}" + (f" ({count} times)" if count > 1 else ""))
        return "\n".join(text)

    def __str__(self) -> str:
        return self.format()


class OutOfResources(Exception):
    """A compiled kernel needs more of a resource (shared memory, registers) than the target has."""


class BackendUnavailable(RuntimeError):
    """Raised when a launch or a timing needs a GPU (or a part of the compiler) that is not
    there: the message says what to do instead."""


class LaunchError(RuntimeError):
    """The driver refused a launch (cuLaunchKernel's error, with the kernel's name)."""


class KernelRuntimeError(Exception):
    """A problem found while a kernel runs in the interpreter, at a line of the kernel."""

    def __init__(self, message: str, filename: str | None = None, line: int | None = None,
                 program_id: tuple[int, int, int] | None = None):
        self.message = message
        self.error_message = message  # Triton's name for it
        self.filename = filename
        self.line = line
        self.program_id = program_id
        where = f"{filename}:{line}: " if filename else ""
        pid = f" (program {program_id})" if program_id is not None else ""
        super().__init__(f"{where}{message}{pid}")


class InterpretedCompilationError(CompilationError, KernelRuntimeError):
    """A kernel mistake the interpreter finds: the CompilationError the compiler gives for it,
    at the same line, and also a KernelRuntimeError (where Triton's interpreter raises its
    InterpreterError), so code catching either catches it."""

    def __init__(self, message: str, filename: str | None = None, line: int | None = None,
                 col: int | None = None, source_line: str | None = None,
                 call_sites: tuple[str, ...] = (), program_id=None):
        CompilationError.__init__(self, message, filename, line, col, source_line, call_sites)
        self.program_id = program_id


class OutOfBoundsError(KernelRuntimeError):
    """A load, store or atomic touched memory outside the argument its pointer came from."""


class OffsetOverflowError(OutOfBoundsError):
    """A pointer was built from a signed 32-bit offset whose computation overflowed."""


class RaceError(KernelRuntimeError):
    """Two program instances stored to the same address in one launch without synchronising."""


class DeviceAssertionError(KernelRuntimeError, AssertionError):
    """tl.device_assert failed while interpreting."""


def integer_text(value: int) -> str:
    """`value` for a message: its digits, or its size where the digits would be too many to
    read (Python refuses to write integers of more than 4300 digits at all)."""
    if value.bit_length() <= 256:
        return str(value)
    return f"({'minus ' if value < 0 else ''}a {value.bit_length()}-bit integer)"


def _runs(items) -> list[tuple]:
    """(item, how many times in a row) for the runs of equal consecutive items."""
    runs: list[list] = []
    for item in items:
        if runs and runs[-1][0] == item:
            runs[-1][1] += 1
        else:
            runs.append([item, 1])
    return [tuple(run) for run in runs]
