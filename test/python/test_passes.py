"""The pass machinery from Python: registration, typed options, pipelines, failures."""
from __future__ import annotations

import pytest
from mlir import ir

from tilec.context import make_context, parse_module
from tilec.diagnostics import DiagnosticError
from tilec.passbase import Option, OptionError, Pass, register
from tilec.passes import get_pass, registered_passes
from tilec.passmanager import Element, PipelineOptions, parse_pipeline, run_pipeline

CHAIN = """func.func @f(%p: !tile.ptr<f32, 1 : i32>, %a: i32, %b: i32) -> !tile.ptr<f32, 1 : i32> {
  %q = "tile.addptr"(%p, %a) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  %r = "tile.addptr"(%q, %b) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  return %r : !tile.ptr<f32, 1 : i32>
}
"""


@register
class _OptionsProbe(Pass):
    name = "test-options-probe"
    summary = "records its options on the module (test only)"
    options = (
        Option("num-stages", int, 3, "stages"),
        Option("fast", bool, False, "a flag"),
        Option("shape", list, [16, 16], "a list"),
        Option("label", str, "x", "a string"),
    )

    def run(self, module):
        module.attributes["test.probe"] = ir.StringAttr.get(self.option_text())


@register
class _FailingPass(Pass):
    name = "test-fail-on-addptr"
    summary = "fails at the first addptr (test only)"

    def run(self, module):
        def visit(op):
            if op.name == "tile.addptr":
                raise self.fail(op, "planted failure at this addptr")
            return ir.WalkResult.ADVANCE

        module.walk(visit, ir.WalkOrder.PRE_ORDER)


@register
class _CrashingPass(Pass):
    name = "test-crash"
    summary = "raises an unexpected exception (test only)"

    def run(self, module):
        raise KeyError("oops")


def _module(text=CHAIN, name="chain.mlir"):
    return parse_module(text, make_context(), name)


def test_registry_lists_tile_combine():
    passes = registered_passes()
    assert "tile-combine" in passes
    assert passes["tile-combine"].summary


def test_register_twice_is_an_error():
    with pytest.raises(ValueError, match="registered twice"):
        register(_FailingPass)


def test_typed_options_from_text():
    p = get_pass("test-options-probe").from_text("num-stages=4 fast shape=32,64 label=hi")
    assert (p.num_stages, p.fast, p.shape, p.label) == (4, True, [32, 64], "hi")
    assert str(p) == "test-options-probe{num-stages=4 fast=true shape=32,64 label=hi}"


def test_option_defaults_and_keywords():
    p = get_pass("test-options-probe")(num_stages=2)
    assert (p.num_stages, p.fast, p.shape) == (2, False, [16, 16])


@pytest.mark.parametrize("text, message", [
    ("stages=4", "has no option 'stages'"),
    ("num-stages=four", "expects int"),
    ("fast=maybe", "expects bool"),
    ("num-stages", "needs a value"),
])
def test_bad_options(text, message):
    with pytest.raises(OptionError, match=message):
        get_pass("test-options-probe").from_text(text)


def test_pipeline_parser():
    elements = parse_pipeline(
        "builtin.module(tile-combine, func.func(cse,canonicalize{max-iterations=3}),"
        "test-options-probe{num-stages=2 shape=1,2})")
    assert [e.name for e in elements] == ["tile-combine", "func.func", "test-options-probe"]
    assert elements[1].text() == "func.func(cse,canonicalize{max-iterations=3})"
    assert elements[2].options == "num-stages=2 shape=1,2"
    assert parse_pipeline("cse") == [Element("cse")]


def test_options_reach_the_pass_through_a_pipeline():
    module = _module()
    run_pipeline(module, parse_pipeline("builtin.module(test-options-probe{num-stages=5})"))
    assert module.attributes["test.probe"].value.startswith("num-stages=5 ")


def test_mixed_pipeline_from_python():
    module = _module()
    run_pipeline(module, parse_pipeline("builtin.module(tile-combine,canonicalize,cse)"))
    assert str(module).count("tile.addptr") == 1


def test_pass_objects_in_a_pipeline():
    module = _module()
    run_pipeline(module, [get_pass("tile-combine")()])
    assert "arith.addi" in str(module)


def test_pass_failure_is_a_located_diagnostic():
    module = _module()
    with pytest.raises(DiagnosticError) as info:
        run_pipeline(module, parse_pipeline("test-fail-on-addptr"))
    diag = info.value.diagnostics[0]
    assert (diag.filename, diag.line, diag.col) == ("chain.mlir", 2, 8)
    assert "planted failure" in diag.message


def test_internal_error_in_a_pass_is_a_diagnostic():
    with pytest.raises(DiagnosticError, match="internal error in pass 'test-crash'.*KeyError"):
        run_pipeline(_module(), parse_pipeline("test-crash"))


@register
class _Breaker(Pass):
    name = "test-break-ir"
    summary = "gives a load an invalid cache attribute (test only)"

    def run(self, module):
        def visit(op):
            if op.name == "tile.load":
                op.attributes["cache"] = ir.StringAttr.get("bogus")
            return ir.WalkResult.ADVANCE

        module.walk(visit, ir.WalkOrder.PRE_ORDER)


def test_verifier_runs_after_python_passes():
    text = ('func.func @g(%p: !tile.ptr<f32, 1 : i32>) -> f32 {\n'
            '  %v = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, '
            'operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32\n'
            '  return %v : f32\n}\n')
    with pytest.raises(DiagnosticError) as info:
        run_pipeline(_module(text), parse_pipeline("test-break-ir"))
    diag = info.value.diagnostics[0]
    assert diag.line == 2 and "bogus" in diag.message


def test_print_ir_before_named_pass(capfd):
    run_pipeline(_module(), parse_pipeline("canonicalize,tile-combine"),
                 PipelineOptions(print_ir_before={"tile-combine"}))
    err = capfd.readouterr().err
    assert "IR Dump Before tile-combine" in err
    assert "IR Dump Before canonicalize" not in err
