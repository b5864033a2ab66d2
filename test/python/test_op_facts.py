"""The table of op facts (analysis/op_facts.py) is complete: every op the dialects define has its
facts and a lowering rule; and the builder protocol the semantic layer builds ops through is
implemented by both builders, the MLIR one and the interpreter's NumPy one."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import tilec.language as tl
from tilec.analysis import op_facts
from tilec.analysis.op_facts import OP_FACTS
from tilec.frontend.builder import MLIRBuilder
from tilec.interpreter.builder import NumPyBuilder
from tilec.language import builder as protocol
from tilec.language.core import is_builtin
from tilec.lowering import RULES

DIALECTS = Path(__file__).resolve().parents[2] / "dialects"


def irdl_ops() -> set[str]:
    """`dialect.op` for every irdl.operation of the IRDL files."""
    ops = set()
    for path in DIALECTS.glob("*.irdl.mlir"):
        dialect = None
        for line in path.read_text().splitlines():
            found = re.match(r"\s*irdl\.dialect @(\w+)", line)
            if found:
                dialect = found.group(1)
            found = re.match(r"\s*irdl\.operation @(\w+)", line)
            if found:
                ops.add(f"{dialect}.{found.group(1)}")
    return ops


def test_every_op_of_the_dialects_has_its_facts():
    assert len(irdl_ops()) >= 38
    assert set(OP_FACTS) == irdl_ops()


@pytest.mark.parametrize("op", sorted(irdl_ops()))
def test_every_op_of_the_dialects_has_a_lowering_rule(op):
    assert op in RULES, f"{op} has no rule in convert-tilegpu-to-llvm (python/tilec/lowering)"


@pytest.mark.parametrize("builder", [MLIRBuilder, NumPyBuilder])
def test_both_builders_implement_the_whole_protocol(builder):
    assert len(protocol.PROTOCOL) > 35
    missing = [name for name in protocol.PROTOCOL
               if getattr(builder, name) is getattr(protocol.Builder, name)]
    assert missing == []


@pytest.mark.parametrize("op", sorted(OP_FACTS))
def test_each_ops_facts_hold_together(op):
    facts = OP_FACTS[op]
    assert facts.effects in ("none", "read", "write")
    for name in facts.builtins:  # the builtins that make it exist and are interpreted
        fn = getattr(tl, name, None)
        assert is_builtin(fn), name
    if facts.access is not None:
        assert facts.effects != "none", "an op that touches memory has effects"
    if facts.access in (op_facts.SHARED_READ, op_facts.SHARED_WRITE, op_facts.SHARED_COPY):
        assert facts.buffer_operand is not None
    if facts.effects == "none":
        assert facts.access is None
