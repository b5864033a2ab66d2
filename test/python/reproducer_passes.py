"""Passes that fail on purpose, for test_reproducers.py. A tilec-opt reproducer loads this file
with --load-pass-plugin, so the passes exist in that process too."""
from __future__ import annotations

from mlir import ir

from tilec.passbase import Option, Pass, ops_in, register


@register
class _FailAtOp(Pass):
    name = "test-repro-fail"
    summary = "emits an error at the first op with the given name (test only)"
    options = (Option("op", str, "tile.store", "the op to fail at"),)

    def run(self, module):
        for op in ops_in(module, self.op):
            raise self.fail(op, f"planted failure at {self.op}")


@register
class _Raise(Pass):
    name = "test-repro-raise"
    summary = "raises an exception, as a bug in a pass would (test only)"

    def run(self, module):
        raise ValueError("planted bug")


@register
class _BreakIR(Pass):
    name = "test-repro-break"
    summary = "gives the first tile.load an invalid cache attribute (test only)"

    def run(self, module):
        for op in ops_in(module, "tile.load"):
            op.attributes["cache"] = ir.StringAttr.get("bogus")
            return
