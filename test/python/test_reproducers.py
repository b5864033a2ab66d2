"""Failure reproducers: a failing pass or ptxas during tilec.compile leaves a file and a command
that fails the same way. Failures are planted by editing the compiler's stage pipelines (test
passes from reproducer_passes.py, or an upstream pass left out) or the PTX."""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import reproducer_passes  # noqa: F401  (registers the test-repro-* passes)

import tilec
import tilec.compiler as compiler
import tilec.language as tl
from tilec.passmanager import parse_pipeline
from tilec.reproducer import single_passes

PLUGIN = str(Path(reproducer_passes.__file__).resolve())


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@tilec.jit
def loop_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(n):
        acc += tl.load(x_ptr + i * BLOCK + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


ADD_SIGNATURE = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32"}
LOOP_SIGNATURE = {"x_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32"}

@pytest.fixture(autouse=True)
def repro_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE", "0")  # a cached kernel would not fail
    monkeypatch.setenv("TILEC_REPRODUCER_DIR", str(tmp_path / "repro"))
    monkeypatch.delenv("TILEC_TRACEBACK", raising=False)
    return tmp_path / "repro"


def plant(monkeypatch, stage: str, edit) -> None:
    """Edit the passes of `stage` (compiler.STAGES) with `edit(text) -> text`."""
    def checked(text):
        edited = edit(text)
        assert edited != text, f"nothing planted in {text}"
        return edited

    stages = []
    for entry in compiler.STAGES:
        if entry.name == stage:
            original = entry.passes
            entry = compiler.Stage(stage, lambda options: checked(original(options)))
        stages.append(entry)
    monkeypatch.setattr(compiler, "STAGES", tuple(stages))


def insert_first(planted: str):
    return lambda text: f"{planted},{text}"


def compile_error(kernel=add_kernel, signature=ADD_SIGNATURE, constexprs=None) -> str:
    with pytest.raises(tilec.CompilationError) as info:
        tilec.compile(kernel, signature=signature, constexprs=constexprs or {"BLOCK": 256})
    return str(info.value)


def printed_command(message: str) -> list[str]:
    last = message.splitlines()[-1]
    assert last.startswith("reproduce with: "), message
    return shlex.split(last.removeprefix("reproduce with: "))


def run_printed(words: list[str]) -> subprocess.CompletedProcess:
    """Run a printed command; `tilec-opt` is the console script of this Python when installed."""
    if words[0] == "tilec-opt":
        script = Path(sys.executable).parent / "tilec-opt"
        head = [str(script)] if script.exists() else [sys.executable, "-m", "tilec.tools.tilec_opt"]
        words = head + words[1:]
    return subprocess.run(words, capture_output=True, text=True)


def diagnostics(message: str) -> str:
    """The diagnostics of a pass failure message: between the first and the last line."""
    return "\n".join(message.splitlines()[1:-1])


def check_reproduces(message: str, status: int = 1) -> tuple[list[str], str]:
    """Runs the printed command and checks it fails with the same diagnostics and exit status
    (2 for a pass that raised: a bug in the pass, said so with a reproducer of its own);
    returns the command and the reproducer's text."""
    words = printed_command(message)
    assert words[0] == "tilec-opt"
    path = Path(words[1])
    assert path.is_file() and path.name.startswith("repro-") and path.suffix == ".mlir"
    result = run_printed(words)
    assert result.returncode == status, result.stderr
    stderr = result.stderr.strip()
    if status == 2:
        stderr, _, said = stderr.partition("\ntilec-opt: internal error in pass ")
        assert "reproduce with: tilec-opt " in said, result.stderr
    assert stderr == diagnostics(message)
    return words, path.read_text()


def test_planted_pass_failure_reproduces(monkeypatch, repro_dir):
    plant(monkeypatch, "tilegpu", lambda text: text.replace(
        "tilegpu-accelerate-matmul,", "tilegpu-accelerate-matmul,test-repro-fail{op=tile.store},"))
    message = compile_error()
    assert message.splitlines()[0].endswith("compiling add_kernel failed in the tilegpu stage:")
    line = add_kernel.def_line + 5  # the tl.store
    assert f"{add_kernel.filename}:{line}:5: error: planted failure at tile.store" in message
    words, text = check_reproduces(message)
    assert Path(words[1]).parent == repro_dir
    assert words[2:] == [f"--load-pass-plugin={PLUGIN}",
                         "--pass-pipeline=builtin.module(test-repro-fail{op=tile.store})"]
    # The IR just before the failing pass: after the layout passes before it, with the module
    # attributes they set and the kernel's own file in its locations.
    assert "tilegpu.num_warps = 4" in text and "#tilegpu.blocked" in text
    assert f'loc("{add_kernel.filename}":{line}:5)' in text


@pytest.mark.parametrize("stage, op", [("tile", "tile.store"), ("tilegpu", "tile.store"),
                                       ("llvm", "tile.store"), ("ptx", "llvm.load")])
def test_each_stage_input_reproduces(monkeypatch, stage, op):
    plant(monkeypatch, stage, insert_first(f"test-repro-fail{{op={op}}}"))
    message = compile_error()
    assert f"failed in the {stage} stage" in message.splitlines()[0]
    check_reproduces(message)


def test_exception_in_a_pass_reproduces(monkeypatch):
    plant(monkeypatch, "llvm", lambda text: text.replace(",cse", ",test-repro-raise,cse"))
    message = compile_error()
    assert "internal error in pass 'test-repro-raise'" in message
    assert "ValueError: planted bug" in message
    words, text = check_reproduces(message, status=2)
    assert words[-1] == "--pass-pipeline=builtin.module(test-repro-raise)"
    assert "gpu.func" in text  # after convert-tilegpu-to-llvm


def test_verifier_failure_after_a_pass_reproduces(monkeypatch):
    plant(monkeypatch, "tile", insert_first("test-repro-break"))
    message = compile_error()
    assert "does not satisfy the constraint" in message
    check_reproduces(message)


def test_upstream_pass_failure_reproduces_with_tilec_opt_alone(monkeypatch):
    # Without convert-scf-to-cf the loop reaches the LLVM translation of gpu-module-to-binary.
    plant(monkeypatch, "ptx", lambda text: text.replace("convert-scf-to-cf,", ""))
    message = compile_error(loop_sum, LOOP_SIGNATURE, {"BLOCK": 128})
    assert "scf.for" in message
    words, text = check_reproduces(message)
    assert not any(w.startswith("--load-pass-plugin") for w in words)
    assert words[-1] == "--pass-pipeline=builtin.module(gpu-module-to-binary{format=isa})"
    assert "#nvvm.target" in text


def test_ptxas_failure_keeps_the_ptx(monkeypatch, repro_dir):
    real = compiler.ptx_from_gpu_binary
    monkeypatch.setattr(compiler, "ptx_from_gpu_binary",
                        lambda asm: real(asm).replace("mul.wide.s32", "mul.bogus.s32", 1))
    message = compile_error()
    assert message.splitlines()[0].endswith("ptxas rejected the PTX of add_kernel:")
    words = printed_command(message)
    ptx = next(Path(w) for w in words if w.endswith(".ptx"))
    assert ptx.parent == repro_dir and "mul.bogus.s32" in ptx.read_text()
    assert "-arch=sm_90a" in words
    result = subprocess.run(words, capture_output=True, text=True)
    assert result.returncode != 0
    assert result.stderr.strip() == diagnostics(message)
    assert "Unknown modifier '.bogus'" in result.stderr


def test_no_reproducer_on_success(repro_dir):
    tilec.compile(add_kernel, signature=ADD_SIGNATURE, constexprs={"BLOCK": 256})
    assert not repro_dir.exists()


def test_unwritable_reproducer_dir_still_reports_the_error(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TILEC_REPRODUCER_DIR", str(blocker / "repro"))
    plant(monkeypatch, "tile", insert_first("test-repro-fail"))
    message = compile_error()
    assert "planted failure at tile.store" in message
    assert message.splitlines()[-1].startswith("(no reproducer: cannot write to ")


def test_nested_pipelines_split_one_pass_each():
    elements = single_passes(parse_pipeline("builtin.module(gpu.module(a,b{x=1}),c)"))
    assert [e.text() for e in elements] == ["gpu.module(a)", "gpu.module(b{x=1})", "c"]


def test_tilec_opt_rejects_a_missing_plugin(tmp_path):
    result = run_printed(["tilec-opt", f"--load-pass-plugin={tmp_path / 'none.py'}"])
    assert result.returncode == 1
    assert "cannot load pass plugin" in result.stderr
