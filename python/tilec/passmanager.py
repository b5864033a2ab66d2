"""Pass pipelines that mix tilec's Python passes with upstream MLIR passes.

A pipeline is written as MLIR writes it: `builtin.module(tile-combine,canonicalize,
func.func(cse),tilegpu-pipeline{num-stages=3})`. Upstream elements go to MLIR's own parser;
tilec passes become Python passes in the same `PassManager`, so verification after each pass and
IR printing cover both. tilec passes run on the top-level module.
"""
from __future__ import annotations

import os
import re
import sys
import traceback
from dataclasses import dataclass, field

from mlir import ir
from mlir.passmanager import PassManager

from tilec.diagnostics import DiagnosticError
from tilec.dialects.verify import MAX_NESTING, PASS_NESTING_GROWTH, verify
from tilec.passbase import OptionError, Pass, PassFailure
from tilec.passes import get_pass

MODULE_ANCHOR = "builtin.module"


@dataclass
class Element:
    """One pipeline element: a pass `name{options}` or a nested `anchor(elements)`."""

    name: str
    options: str = ""
    nested: list["Element"] | None = None
    # Set for elements given as command-line flags: an upstream pass anchored on another op
    # (e.g. gpu.module) is then nested under that op, as mlir-opt does.
    implicit_nesting: bool = False

    def text(self) -> str:
        if self.nested is not None:
            return f"{self.name}({','.join(e.text() for e in self.nested)})"
        return f"{self.name}{{{self.options}}}" if self.options else self.name

    def pass_names(self) -> list[str]:
        if self.nested is None:
            return [self.name]
        return [n for e in self.nested for n in e.pass_names()]


def parse_pipeline(text: str) -> list[Element]:
    """Parse a textual pipeline; a leading `builtin.module(...)` anchor is optional."""
    parser = _PipelineParser(text)
    elements = parser.elements()
    parser.expect_end()
    if len(elements) == 1 and elements[0].name == MODULE_ANCHOR and elements[0].nested is not None:
        return elements[0].nested
    return elements


class _PipelineParser:
    NAME = re.compile(r"[A-Za-z0-9_.\-]+")

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, message: str) -> DiagnosticError:
        return DiagnosticError.simple(
            f"invalid pass pipeline '{self.text}' at column {self.pos + 1}: {message}")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect_end(self) -> None:
        if self.peek():
            raise self.error(f"unexpected '{self.peek()}'")

    def elements(self) -> list[Element]:
        items = [self.element()]
        while self.peek() == ",":
            self.pos += 1
            items.append(self.element())
        return items

    def element(self) -> Element:
        self.skip_space()
        match = self.NAME.match(self.text, self.pos)
        if not match:
            raise self.error("expected a pass name")
        self.pos = match.end()
        name = match.group()
        if self.peek() == "(":
            self.pos += 1
            nested = [] if self.peek() == ")" else self.elements()
            if self.peek() != ")":
                raise self.error("expected ')'")
            self.pos += 1
            return Element(name, nested=nested)
        if self.peek() == "{":
            return Element(name, options=self.options())
        return Element(name)

    def options(self) -> str:
        start, depth = self.pos + 1, 0
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            depth += {"{": 1, "}": -1}.get(ch, 0)
            self.pos += 1
            if depth == 0:
                return self.text[start:self.pos - 1].strip()
        raise self.error("unterminated '{'")


@dataclass
class PipelineOptions:
    """How to run a pipeline: IR printing around passes (printed to stderr)."""

    print_ir_after_all: bool = False
    print_ir_before_all: bool = False
    print_ir_before: set[str] = field(default_factory=set)
    print_ir_after: set[str] = field(default_factory=set)
    print_generic: bool = False
    verify_each: bool = True
    # also check the rules of dialects/verify.py after every tilec pass (tilec-opt does)
    verify_ir: bool = False
    dump_dir: str | None = None  # write the IR after every pass into this folder


class InternalPassError(DiagnosticError):
    """A tilec pass raised, or left IR that breaks the dialects' rules: a bug in tilec (or in a
    plugin's pass), not in its input. `pass_name` names the pass."""

    def __init__(self, diagnostics, pass_name: str):
        super().__init__(diagnostics)
        self.pass_name = pass_name


def _print_ir_pass(when: str, pass_name: str, generic: bool):
    def run(op: ir.Operation, _handle) -> None:
        sys.stdout.flush()
        print(f"// -----// IR Dump {when} {pass_name} //----- //", file=sys.stderr)
        print(op.get_asm(print_generic_op_form=generic), file=sys.stderr, flush=True)

    return run


def _python_pass(p: Pass, options: PipelineOptions, internal: list[str], after_upstream: bool):
    """The pass manager's callback running `p`; a pass that raises, or (with `verify_ir`) leaves
    IR breaking the dialects' rules, is recorded in `internal`. With `verify_ir`, the IR an
    upstream pass just left (`after_upstream`) is checked before `p` runs: one that breaks the
    rules is a diagnostic, not `p`'s failure (the parsed input and what a tilec pass leaves are
    checked already)."""
    def run(op: ir.Operation, handle) -> None:
        if options.verify_ir and after_upstream and _report(
                op, f"in the IR given to pass '{p.name}': an upstream pass before it does not "
                    "keep this rule"):
            handle.signal_pass_failure()
            return
        try:
            with op.context, op.location:
                p.run(op)
        except PassFailure:
            handle.signal_pass_failure()
            return
        except Exception as exc:  # an internal compiler error: report it as a diagnostic
            detail = "".join(traceback.format_exception(exc)) if os.environ.get(
                "TILEC_TRACEBACK") else f"{type(exc).__name__}: {exc}"
            op.location.emit_error(
                f"internal error in pass '{p.name}' (set TILEC_TRACEBACK=1 for the traceback): "
                f"{detail}")
            internal.append(p.name)
            handle.signal_pass_failure()
            return
        if options.verify_ir and _report(op, f"in the IR pass '{p.name}' produced"):
            internal.append(p.name)
            handle.signal_pass_failure()

    return run


def _report(op: ir.Operation, where: str) -> bool:
    """Emit an error for each rule of dialects/verify.py the IR under `op` breaks, saying
    `where`; whether there was any."""
    with op.context:
        problems = verify(op, MAX_NESTING + PASS_NESTING_GROWTH)
    for problem in problems:
        problem.op.location.emit_error(f"{problem.message} ({where})")
    return bool(problems)


def instantiate(element: Element) -> Pass | None:
    """The tilec pass an element names, with its options; None for upstream passes."""
    cls = get_pass(element.name) if element.nested is None else None
    if cls is None:
        return None
    try:
        return cls.from_text(element.options)
    except OptionError as err:
        raise DiagnosticError.simple(str(err)) from None


def build_pass_manager(elements: list[Element | Pass], context: ir.Context,
                       options: PipelineOptions | None = None,
                       internal: list[str] | None = None) -> PassManager:
    """A PassManager on `builtin.module` running `elements` in order (Pass objects allowed);
    the tilec passes that fail internally are added to `internal`."""
    options = options or PipelineOptions()
    internal = [] if internal is None else internal
    with context:
        pm = PassManager(MODULE_ANCHOR)
        pm.enable_verifier(options.verify_each)
        if options.print_ir_after_all or options.print_ir_before_all or options.dump_dir:
            pm.enable_ir_printing(print_before_all=options.print_ir_before_all,
                                  print_after_all=options.print_ir_after_all or
                                  bool(options.dump_dir),
                                  print_generic_op_form=options.print_generic,
                                  tree_printing_dir_path=options.dump_dir)
        after_upstream = False
        for element in elements:
            after_upstream = _add(pm, element, options, internal, after_upstream)
    return pm


def _add(pm: PassManager, element: Element | Pass, options: PipelineOptions,
         internal: list[str], after_upstream: bool) -> bool:
    """Add `element` (after an upstream pass if `after_upstream`); whether it is upstream."""
    tilec_pass = element if isinstance(element, Pass) else instantiate(element)
    names = [element.name] if isinstance(element, Pass) else element.pass_names()
    label = str(element) if isinstance(element, Pass) else element.text()
    if any(n in options.print_ir_before for n in names):
        pm.add(_print_ir_pass("Before", label, options.print_generic), name="print-ir")
    if tilec_pass is not None:
        pm.add(_python_pass(tilec_pass, options, internal, after_upstream),
               name=type(tilec_pass).__name__, argument=tilec_pass.name,
               description=tilec_pass.summary)
    else:
        _add_upstream(pm, element)
    if any(n in options.print_ir_after for n in names):
        pm.add(_print_ir_pass("After", label, options.print_generic), name="print-ir")
    return tilec_pass is None


def _add_upstream(pm: PassManager, element: Element) -> None:
    misplaced = [n for n in element.pass_names() if get_pass(n)] if element.nested else []
    if misplaced:
        raise DiagnosticError.simple(
            f"tilec pass '{misplaced[0]}' runs on the top-level module; move it out of "
            f"'{element.name}(...)'")
    try:
        pm.add(element.text())
    except ValueError as err:
        anchor = re.search(r"restricted to '([^']+)'", str(err))
        if element.implicit_nesting and anchor:
            pm.add(f"{anchor.group(1)}({element.text()})")
            return
        if element.implicit_nesting and "does not refer to a registered pass" in str(err):
            raise DiagnosticError.simple(
                f"unknown pass or option '--{element.name}' (see tilec-opt --list-passes)") from None
        raise DiagnosticError.simple(_clean_pipeline_error(str(err), element.text())) from None


def _clean_pipeline_error(message: str, text: str) -> str:
    first = message.strip().splitlines()[0]
    first = re.sub(r"^MLIR Textual PassPipeline Parser:\d+:\d+: error: ", "", first)
    first = first.replace("<Pass-Options-Parser>: ", "")
    return f"{first} (in '{text}')"


def run_pipeline(module: ir.OpView | ir.Operation, elements: list[Element | Pass],
                 options: PipelineOptions | None = None) -> None:
    """Run `elements` on `module` in place; raises DiagnosticError on failure (an
    InternalPassError when a tilec pass failed internally)."""
    internal: list[str] = []
    pm = build_pass_manager(elements, module.context, options, internal)
    try:
        pm.run(module.operation)
    except ir.MLIRError as err:
        failure = DiagnosticError.from_mlir(err)
        if internal:
            raise InternalPassError(failure.diagnostics, internal[0]) from None
        raise failure from None
