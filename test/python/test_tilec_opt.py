"""tilec-opt as a user runs it: exit codes, diagnostics on stderr, never a Python traceback."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tilec.tools.tilec_opt import split_chunks

ADD_CHAIN = """func.func @f(%p: !tile.ptr<f32, 1 : i32>, %a: i32, %b: i32) -> !tile.ptr<f32, 1 : i32> {
  %q = "tile.addptr"(%p, %a) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  %r = "tile.addptr"(%q, %b) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  return %r : !tile.ptr<f32, 1 : i32>
}
"""


def tilec_opt(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tilec.tools.tilec_opt", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def assert_clean_failure(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_unknown_op_names_its_line():
    result = tilec_opt(stdin='func.func @f() {\n "tile.nope"() : () -> ()\n return\n}\n')
    assert_clean_failure(result)
    assert "<stdin>:2:2: error:" in result.stderr
    assert "tile.nope" in result.stderr


def test_unknown_op_in_file_names_the_file(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text('// a comment\nfunc.func @f() {\n "tile.nope"() : () -> ()\n return\n}\n')
    result = tilec_opt(str(path))
    assert_clean_failure(result)
    assert f"{path}:3:2: error:" in result.stderr


def test_syntax_error():
    result = tilec_opt(stdin="func.func @f( {\n")
    assert_clean_failure(result)
    assert "<stdin>:1:" in result.stderr and "error:" in result.stderr


def test_failed_verification():
    bad = ('func.func @f(%p: !tile.ptr<f32, 1 : i32>, %a: i32) {\n'
           '  %q = "tile.addptr"(%p, %a) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f16, 1 : i32>\n'
           '  return\n}\n')
    result = tilec_opt(stdin=bad)
    assert_clean_failure(result)
    assert "<stdin>:2:8: error:" in result.stderr


@pytest.mark.parametrize("args", [
    ["--no-such-pass"],
    ["--pass-pipeline=builtin.module(no-such-pass)"],
    ["--pass-pipeline=builtin.module(tile-combine"],
    ["--tile-combine=bogus=1"],
    ["--canonicalize=bogus=1"],
    ["--pass-pipeline=builtin.module(func.func(tile-combine))"],
])
def test_bad_pass_arguments(args):
    result = tilec_opt(*args, stdin=ADD_CHAIN)
    assert_clean_failure(result)
    assert "error:" in result.stderr


def test_unsupported_constant_is_reported_at_its_line():
    kernel = ('func.func @k(%out: !tile.ptr<f32, 1 : i32>) {\n'
              '  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>\n'
              '  return\n}\n')
    result = tilec_opt("--convert-tile-to-tilegpu", stdin=kernel)
    assert_clean_failure(result)
    assert "<stdin>:2:8: error: tensor constants with different elements" in result.stderr


def test_unknown_pass_is_named():
    result = tilec_opt("--no-such-pass", stdin=ADD_CHAIN)
    assert "no-such-pass" in result.stderr


def test_missing_input_file(tmp_path):
    result = tilec_opt(str(tmp_path / "missing.mlir"))
    assert_clean_failure(result)
    assert "cannot read" in result.stderr


def test_passes_run_in_command_line_order():
    result = tilec_opt("--tile-combine", "--canonicalize", stdin=ADD_CHAIN)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("tile.addptr") == 1
    assert "arith.addi" in result.stdout


def test_upstream_pass_anchored_on_another_op_is_nested():
    # convert-gpu-to-nvvm runs on gpu.module: as a flag it nests like mlir-opt does.
    result = tilec_opt("--convert-gpu-to-nvvm", stdin="module {}\n")
    assert result.returncode == 0, result.stderr


def test_output_file(tmp_path):
    out = tmp_path / "out.mlir"
    result = tilec_opt("--tile-combine", "-o", str(out), stdin=ADD_CHAIN)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "arith.addi" in out.read_text()


def test_list_passes():
    result = tilec_opt("--list-passes")
    assert result.returncode == 0
    assert "--tile-combine" in result.stdout


def test_print_ir_before_named_pass():
    result = tilec_opt("--canonicalize", "--tile-combine", "--mlir-print-ir-before=tile-combine",
                       stdin=ADD_CHAIN)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("IR Dump Before") == 1
    assert "IR Dump Before tile-combine" in result.stderr
    # Before the pass, both addptrs are still there.
    assert result.stderr.count('"tile.addptr"') == 2


def test_print_ir_after_all_covers_python_and_upstream_passes():
    result = tilec_opt("--tile-combine", "--canonicalize", "--mlir-print-ir-after-all",
                       stdin=ADD_CHAIN)
    assert result.returncode == 0, result.stderr
    assert "(tile-combine)" in result.stderr
    assert "(canonicalize)" in result.stderr


def test_split_input_file_keeps_going_and_fails():
    text = ADD_CHAIN + "// -----\n" + 'func.func @g() {\n "tile.nope"() : () -> ()\n return\n}\n'
    result = tilec_opt("--split-input-file", "--tile-combine", stdin=text)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "@f" in result.stdout  # the good chunk is still printed
    # Line numbers are those of the whole file.
    assert "<stdin>:8:2: error:" in result.stderr


def test_split_chunks_line_numbers():
    chunks = split_chunks("a\nb\n// -----\nc\n// -----\nd\n", split=True)
    assert [line for line, _ in chunks] == [1, 4, 6]
    assert [text.strip() for _, text in chunks] == ["a\nb", "c", "d"]


def test_verify_diagnostics_reports_mismatch(tmp_path):
    path = tmp_path / "v.mlir"
    path.write_text('func.func @f() {\n  // expected-error@+1 {{no such thing}}\n'
                    '  "tile.nope"() : () -> ()\n  return\n}\n')
    result = tilec_opt(str(path), "--verify-diagnostics")
    assert result.returncode == 1
    assert "unexpected error" in result.stderr
    assert "was not produced" in result.stderr


def test_verify_diagnostics_accepts_match(tmp_path):
    path = tmp_path / "v.mlir"
    path.write_text('func.func @f() {\n  // expected-error@+1 {{unregistered operation}}\n'
                    '  "tile.nope"() : () -> ()\n  return\n}\n')
    result = tilec_opt(str(path), "--verify-diagnostics")
    assert result.returncode == 0, result.stderr


def test_help():
    result = tilec_opt("--help")
    assert result.returncode == 0
    assert "--pass-pipeline" in result.stdout


def test_alias_definitions_without_explicit_module():
    text = ("#b = #tilegpu.blocked<[1], [32], [4], [0]>\n"
            "func.func @a(%x: tensor<128xf32, #b>) {\n  return\n}\n"
            "func.func @c() {\n  \"tile.nope\"() : () -> ()\n  return\n}\n")
    result = tilec_opt(stdin=text)
    # The alias parses; the error is found at its own line (6), so line numbers are kept.
    assert "<stdin>:6:3: error:" in result.stderr, result.stderr
    ok = tilec_opt(stdin=text.replace('  "tile.nope"() : () -> ()\n', ""))
    assert ok.returncode == 0, ok.stderr
    assert "#tilegpu.blocked<[1], [32], [4], [0]>" in ok.stdout
