"""The launch being interpreted: memory, grid and the current program instance."""
from __future__ import annotations

import sys
from dataclasses import dataclass

from tilec.diagnostics import is_user_file


@dataclass
class LaunchState:
    memory: object  # interpreter.memory.Memory
    grid: tuple[int, int, int]
    pid: tuple[int, int, int] = (0, 0, 0)

    @property
    def linear_pid(self) -> int:
        x, y, z = self.pid
        return x + self.grid[0] * (y + self.grid[1] * z)


def user_location(frame=None) -> tuple[str | None, int | None]:
    """(file, line) of the innermost frame outside tilec itself: the kernel line running."""
    frame = frame or sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None, None


def where(pid: tuple[int, int, int]) -> tuple[str | None, int | None, tuple[int, int, int]]:
    """(file, line, program id) for an error raised now in program `pid`."""
    filename, line = user_location(sys._getframe(1))
    return filename, line, pid
