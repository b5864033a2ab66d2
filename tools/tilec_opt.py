"""tilec-opt: an mlir-opt for tilec — parse IR, run tilec and upstream passes, print the result.

    tilec-opt in.mlir --tile-combine --canonicalize
    tilec-opt in.mlir --pass-pipeline='builtin.module(tile-combine,func.func(cse))'
    tilec-opt --list-passes

Errors (syntax, unknown op or pass, failed verification, a failing pass) are printed as MLIR
diagnostics, `file:line:col: error: message`, and the exit code is 1.
"""
from __future__ import annotations

import importlib.util
import os
import re
import sys
import traceback
from dataclasses import dataclass, field

from tilec.context import make_context, parse_module
from tilec.diagnostics import Diagnostic, DiagnosticError
from tilec.passes import registered_passes
from tilec.dialects import verify
from tilec.passmanager import (Element, InternalPassError, PipelineOptions, build_pass_manager,
                               parse_pipeline, run_pipeline)
from tilec.reproducer import pipeline_reproducer
from tilec.tools import verify_diagnostics

USAGE = """usage: tilec-opt [options] [--PASS[=OPTIONS] ...] [FILE | -]

Options:
  -o FILE                         write the output to FILE (default: stdout)
  --pass-pipeline=PIPELINE        e.g. 'builtin.module(tile-combine,canonicalize)'
  --PASS[="opt=value ..."]        add a tilec or upstream pass (in command-line order)
  --load-pass-plugin=FILE.py      run FILE.py first: the passes it registers become usable
  --list-passes                   list tilec's passes with their options
  --split-input-file              process each '// -----' chunk separately
  --verify-diagnostics            check diagnostics against 'expected-*' comments
  --mlir-print-ir-after-all       print the IR after every pass (stderr)
  --mlir-print-ir-before-all      print the IR before every pass (stderr)
  --mlir-print-ir-before=PASS     print the IR before the named pass(es), comma-separated
  --mlir-print-ir-after=PASS      print the IR after the named pass(es), comma-separated
  --mlir-print-op-generic         print ops in generic form
  --mlir-print-debuginfo          print locations
  --allow-unregistered-dialect    accept ops of unknown dialects
  -h, --help                      show this help
"""

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.MULTILINE)


class UsageError(Exception):
    pass


class InputError(UsageError):
    """Input or output that cannot be used (binary, not UTF-8, empty, unwritable)."""


@dataclass
class Args:
    input: str = "-"
    output: str = "-"
    elements: list[Element] = field(default_factory=list)
    pipeline_given: bool = False
    split_input_file: bool = False
    verify_diagnostics: bool = False
    list_passes: bool = False
    print_generic: bool = False
    print_debuginfo: bool = False
    allow_unregistered: bool = False
    pipeline_options: PipelineOptions = field(default_factory=PipelineOptions)


FLAGS = {
    "--split-input-file": "split_input_file",
    "--verify-diagnostics": "verify_diagnostics",
    "--list-passes": "list_passes",
    "--mlir-print-op-generic": "print_generic",
    "--mlir-print-debuginfo": "print_debuginfo",
    "--allow-unregistered-dialect": "allow_unregistered",
}


def parse_args(argv: list[str]) -> Args:
    args = Args()
    popts = args.pipeline_options
    positional = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        key, eq, value = arg.partition("=")
        if arg in ("-h", "--help"):
            print(USAGE, end="")
            raise SystemExit(0)
        if arg in FLAGS:
            setattr(args, FLAGS[arg], True)
        elif arg == "--mlir-print-ir-after-all":
            popts.print_ir_after_all = True
        elif arg == "--mlir-print-ir-before-all":
            popts.print_ir_before_all = True
        elif key in ("--mlir-print-ir-before", "--mlir-print-ir-after", "--pass-pipeline", "-o",
                     "--load-pass-plugin"):
            if not eq:
                if i >= len(argv):
                    raise UsageError(f"option '{key}' needs a value")
                value = argv[i]
                i += 1
            if key == "-o":
                args.output = value
            elif key == "--load-pass-plugin":
                load_plugin(value)
            elif key == "--pass-pipeline":
                args.elements += parse_pipeline(value)
                args.pipeline_given = True
            else:
                target = popts.print_ir_before if key.endswith("before") else popts.print_ir_after
                target.update(v.strip() for v in value.split(",") if v.strip())
        elif arg.startswith("--") and len(arg) > 2:
            element = Element(key[2:], options=value.strip().strip("'\"") if eq else "",
                              implicit_nesting=True)
            args.elements.append(element)
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unknown option '{arg}'")
        else:
            positional.append(arg)
    if len(positional) > 1:
        raise UsageError(f"expected one input file, got {len(positional)}")
    if positional:
        args.input = positional[0]
    popts.print_generic = args.print_generic
    popts.verify_ir = True
    return args


def load_plugin(path: str) -> None:
    """Run a Python file that registers passes (`@tilec.passbase.register`), once."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise UsageError(f"cannot load pass plugin '{path}': no such file")
    if any(getattr(m, "__file__", None) == path for m in list(sys.modules.values())):
        return  # already imported (registering its passes again would be an error)
    spec = importlib.util.spec_from_file_location(f"tilec_plugin_{len(sys.modules)}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the plugin's own error: say where, and go no further
        del sys.modules[spec.name]
        line = getattr(err, "lineno", None) or _plugin_line(err, path)
        raise InputError(f"cannot load pass plugin '{path}'{f' (line {line})' if line else ''}: "
                         f"{type(err).__name__}: {err}") from None


def _plugin_line(err: Exception, path: str) -> int | None:
    """The line of the plugin file where `err` was raised."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == path]
    return frames[-1].lineno if frames else None


def list_passes() -> str:
    lines = ["tilec passes:"]
    for name, cls in registered_passes().items():
        lines.append(f"  --{name:<38} {cls.summary}")
        for opt in cls.options:
            default = opt.format(opt.default)
            lines.append(f"      {opt.name}={default:<30} {opt.help}")
    lines.append("Upstream MLIR passes (e.g. --canonicalize, --cse, --convert-scf-to-cf) "
                 "are accepted too.")
    return "\n".join(lines) + "\n"


def split_chunks(text: str, split: bool) -> list[tuple[int, str]]:
    """(first line number, chunk text) for each chunk of the input."""
    if not split:
        return [(1, text)]
    chunks, start_line, start = [], 1, 0
    for match in SPLIT_MARKER.finditer(text):
        chunks.append((start_line, text[start:match.start()]))
        start_line += text.count("\n", start, match.end()) + 1
        start = match.end() + 1
    chunks.append((start_line, text[start:]))
    return chunks


def process_chunk(text: str, first_line: int, source_name: str, args: Args) -> str:
    """The output IR of one chunk; raises DiagnosticError (InternalPassError for a bug in a
    pass, with `reproducer` set to the line that reproduces it)."""
    context = make_context(allow_unregistered_dialects=args.allow_unregistered)
    # Leading newlines keep line numbers those of the whole file.
    module = parse_module("\n" * (first_line - 1) + text, context, source_name)
    verify.check(module)  # the dialects' rules IRDL cannot state, and the nesting depth
    stage_input = module.operation.clone() if args.elements else None
    try:
        run_pipeline(module, args.elements, args.pipeline_options)
    except InternalPassError as err:
        name = os.path.splitext(os.path.basename(source_name))[0] or "input"
        err.reproducer = pipeline_reproducer(name, stage_input, args.elements, verify_ir=True)
        raise
    # after upstream passes too; and at the depth tilec-opt reads, so that what it prints it
    # reads back (passes may nest an input at the limit a few levels deeper)
    verify.check(module)
    return module.operation.get_asm(print_generic_op_form=args.print_generic,
                                    enable_debug_info=args.print_debuginfo)


def run(args: Args) -> int:
    if args.list_passes:
        _write(args.output, list_passes())
        return 0
    # Reject unknown passes and bad options once, before reading any input.
    build_pass_manager(args.elements, make_context(), args.pipeline_options)
    source_name = "<stdin>" if args.input == "-" else args.input
    try:
        data = sys.stdin.buffer.read() if args.input == "-" else open(args.input, "rb").read()
    except OSError as err:
        print(f"tilec-opt: error: cannot read '{args.input}': {err.strerror}", file=sys.stderr)
        return 1
    text = input_text(data, source_name)
    outputs, failed, internal = [], False, False
    for first_line, chunk in split_chunks(text, args.split_input_file):
        try:
            outputs.append(process_chunk(chunk, first_line, source_name, args))
            diags: list[Diagnostic] = []
        except InternalPassError as err:  # a bug in a pass: status 2, with its reproducer
            print(err.format(), file=sys.stderr)
            print(f"tilec-opt: internal error in pass '{err.pass_name}' (a bug in the pass, not "
                  f"in the input)\n{err.reproducer}", file=sys.stderr)
            internal = True
            continue
        except DiagnosticError as err:
            diags = err.diagnostics
        if args.verify_diagnostics:
            expected = verify_diagnostics.expectations(chunk, first_line)
            problems = verify_diagnostics.check(diags, expected, source_name)
            for problem in problems:
                print(problem, file=sys.stderr)
            failed |= bool(problems)
        elif diags:
            print("\n".join(d.format() for d in diags), file=sys.stderr)
            failed = True
    if not args.verify_diagnostics and not internal:
        _write(args.output, "// -----\n".join(outputs))
    return 2 if internal else 1 if failed else 0


def input_text(data: bytes, source_name: str) -> str:
    """The input as text; binary, non-UTF-8 or empty input is a usage error."""
    if b"\0" in data:
        raise InputError(f"'{source_name}' is binary (a NUL byte at offset {data.index(0)}), not "
                         "MLIR text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"'{source_name}' is not UTF-8 text (byte 0x{data[err.start]:02x} at "
                         f"offset {err.start})") from None
    if not text.strip():
        raise InputError(f"'{source_name}' is empty: expected MLIR (a module or functions)")
    return text


def _write(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as err:
        raise InputError(f"cannot write '{path}': {err.strerror or err}") from None


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        return run(args)
    except InputError as err:
        print(f"tilec-opt: error: {err}", file=sys.stderr)
        return 1
    except UsageError as err:
        print(f"tilec-opt: error: {err}\n(see tilec-opt --help)", file=sys.stderr)
        return 1
    except DiagnosticError as err:
        print(err.format(), file=sys.stderr)
        return 1
    except Exception as exc:  # a bug in tilec, not in the input
        if os.environ.get("TILEC_TRACEBACK"):
            raise
        print(f"tilec-opt: internal error: {type(exc).__name__}: {exc} "
              "(set TILEC_TRACEBACK=1 for the traceback)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
