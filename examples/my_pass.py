"""An example pass plugin: `tilec-opt FILE --load-pass-plugin=examples/my_pass.py --my-pass`.

A plugin is a Python file that registers passes as the ones in `passes/` do; tilec-opt runs it
before parsing the pipeline, so its passes work as flags and inside `--pass-pipeline`.
"""
from mlir import ir

from tilec.passbase import Option, Pass, ops_in, register


@register
class MyPass(Pass):
    name = "my-pass"
    summary = "records on each function how many tile.load and tile.store ops it has"
    options = (Option("prefix", str, "my", "prefix of the attribute names"),)

    def run(self, module):
        i32 = ir.IntegerType.get_signless(32)
        for func in ops_in(module, "func.func"):
            for kind in ("load", "store"):
                count = len(ops_in(func, f"tile.{kind}"))
                func.attributes[f"{self.prefix}.{kind}s"] = ir.IntegerAttr.get(i32, count)
