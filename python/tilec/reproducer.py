"""Reproducers for compiler failures: a file and the one command that fails the same way.

When a pass of a compile stage fails (a diagnostic, a verifier error after it, or an exception
inside a Python pass), the stage is run again pass by pass from a copy of its input, taken before
the stage ran (a clone: about 50 µs for a small kernel, the only cost when nothing fails). The IR
before the failing pass is written, with its locations, to `repro-<kernel>-<hash>.mlir` and the
error ends with the `tilec-opt` command running that one pass with its options. When ptxas rejects
the PTX, the PTX is kept the same way with the `ptxas` command.

Files go to `$TILEC_REPRODUCER_DIR`, else `reproducers/` in the kernel cache folder.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
from pathlib import Path

from mlir import ir

from tilec.cache import cache_dir
from tilec.diagnostics import DiagnosticError
from tilec.passbase import OptionError, Pass
from tilec.passes import get_pass
from tilec.passmanager import MODULE_ANCHOR, Element, PipelineOptions, run_pipeline
from tilec.toolchain import find_ptxas, ptxas_command


def reproducer_dir() -> Path:
    env = os.environ.get("TILEC_REPRODUCER_DIR")
    return Path(env).expanduser() if env else cache_dir() / "reproducers"


def _write(kernel: str, text: str, suffix: str) -> Path:
    folder = reproducer_dir()
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = folder / f"repro-{kernel}-{digest}{suffix}"
    temp = path.with_name(f".{path.name}.{os.getpid()}")  # whole or absent, for other processes
    temp.write_text(text)
    os.replace(temp, path)
    return path.resolve()


def single_passes(elements: list[Element | Pass]) -> list[Element | Pass]:
    """`elements` one pass each, nested passes keeping their anchor: `gpu.module(a,b)` becomes
    `gpu.module(a)`, `gpu.module(b)`, which runs the same passes in the same order."""
    single = []
    for element in elements:
        if isinstance(element, Pass) or element.nested is None:
            single.append(element)
            continue
        single += [Element(element.name, nested=[inner]) for inner in single_passes(element.nested)]
    return single


def _pass_class(element: Element | Pass) -> type[Pass] | None:
    if isinstance(element, Pass):
        return type(element)
    while element.nested:
        element = element.nested[0]
    return get_pass(element.name)


def _element_text(element: Element | Pass) -> str:
    if isinstance(element, Pass):
        return str(element)
    cls = get_pass(element.name) if element.nested is None else None
    if cls is None:
        return element.text()
    try:  # every option spelled out, so a changed default cannot hide a value
        return str(cls.from_text(element.options))
    except OptionError:
        return element.text()


def _plugin(element: Element | Pass) -> str | None:
    """The file defining a pass that is not one of tilec's own (tilec-opt must load it)."""
    cls = _pass_class(element)
    if cls is None or cls.__module__.startswith("tilec."):
        return None
    source = getattr(sys.modules.get(cls.__module__), "__file__", None)
    return str(Path(source).resolve()) if source else None


def tilec_opt_command(path: Path, elements: list[Element | Pass]) -> str:
    words = ["tilec-opt", str(path)]
    plugins = {_plugin(e) for e in elements} - {None}
    words += [f"--load-pass-plugin={p}" for p in sorted(plugins)]
    pipeline = ",".join(_element_text(e) for e in elements)
    return f"{shlex.join(words)} --pass-pipeline={shlex.quote(f'{MODULE_ANCHOR}({pipeline})')}"


def pipeline_reproducer(kernel: str, stage_input: ir.Operation,
                        elements: list[Element | Pass], verify_ir: bool = False) -> str:
    """Runs `elements` pass by pass on `stage_input` (consumed) to find the one that fails
    (checking the dialects' rules after each with `verify_ir`, as tilec-opt does); writes the IR
    before it and returns the line that ends the error message."""
    options = PipelineOptions(verify_ir=verify_ir)
    for element in single_passes(elements):
        # Generic form: custom printers drop properties that hold their default value, and the
        # parser then sets them, which changes the op dumps in the notes of an error.
        text = stage_input.get_asm(enable_debug_info=True, print_generic_op_form=True)
        try:
            run_pipeline(stage_input, [element], options)
        except DiagnosticError:
            break
    else:
        return "(no reproducer: the stage did not fail again when rerun pass by pass)"
    try:
        path = _write(kernel, text, ".mlir")
    except OSError as err:
        return f"(no reproducer: cannot write to {reproducer_dir()}: {err.strerror or err})"
    return f"reproduce with: {tilec_opt_command(path, [element])}"


def ptxas_reproducer(kernel: str, ptx: str, arch: str, verbose: bool) -> str:
    """Keeps `ptx` and runs ptxas on the kept file; returns ptxas's error and its command."""
    try:
        path = _write(kernel, ptx, ".ptx")
    except OSError as err:
        return f"(no reproducer: cannot write to {reproducer_dir()}: {err.strerror or err})"
    cmd = ptxas_command(find_ptxas(), arch, path, path.with_suffix(".cubin"), verbose)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return f"{proc.stderr.strip()}\nreproduce with: {shlex.join(cmd)}"
