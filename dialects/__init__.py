"""tilec's MLIR dialects, defined in IRDL (`*.irdl.mlir` beside this file) and loaded at run time.

`load_dialects(context)` makes `tile` and `tilegpu` known to a context; the Python modules
`tile` and `tilegpu` build and read their types, attributes and ops.
"""
from __future__ import annotations

from functools import cache
from pathlib import Path

from mlir import ir
from mlir.dialects import irdl

DIALECT_FILES = ("tile.irdl.mlir", "tilegpu.irdl.mlir")


@cache
def _definition_text(name: str) -> str:
    return (Path(__file__).parent / name).read_text()


def load_dialects(context: ir.Context) -> None:
    """Register every tilec dialect in `context` (once per context)."""
    with context:
        for name in DIALECT_FILES:
            irdl.load_dialects(ir.Module.parse(_definition_text(name)))
