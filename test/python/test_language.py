"""Every part of the language surface compiles to verified `tile` IR that tilec-opt parses."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

import lang_kernels as K
import tilec
from tilec.context import make_context, parse_module


def compile_tile(*args, **kwargs):
    """tilec.compile up to the `tile` stage: these tests are about the frontend."""
    return tilec.compile(*args, stop_after="tile", **kwargs)


def compile_ir(kernel, signature, constexprs=None, **options) -> str:
    compiled = compile_tile(kernel, signature=signature, constexprs=constexprs or {}, **options)
    text = compiled.asm["tile"]
    parse_module(text, make_context(), "reparse.mlir")  # the stage parses back
    return text


def ops(text: str) -> set[str]:
    return set(re.findall(r'"?((?:tile|arith|math|scf|gpu)\.[a-z_0-9.]+)"?', text))


def test_control_flow():
    text = compile_ir(K.control_flow, {"X": "*fp32", "Y": "*fp32", "n": "i32"}, {"FLAG": True})
    found = ops(text)
    # if/elif/else yielding y: two nested scf.if with results; the constexpr `if FLAG` folded.
    assert len(re.findall(r"= scf\.if", text)) >= 2
    assert "scf.for" in found and "scf.while" in found
    # static_range(3) unrolled: three multiplications by 2.0 after the loop, no second loop.
    assert text.count("scf.for") == 1
    # the for loop carries acc (tensor) and count (a Python 0 promoted to i32).
    assert re.search(r"scf\.for .* iter_args\(.*\) -> \(tensor<16xf32>, i32\)", text)
    assert "arith.minsi" in found and "arith.maxsi" in found  # Python min/max on scalars
    assert "tile.print" in found  # print(...) is tl.device_print
    # helper_nested: early return in a helper is an scf.if yielding the returned value.
    assert re.search(r"= scf\.if .* -> \(i32\)", text)


def test_constexpr_false_branch_is_folded():
    on = compile_ir(K.control_flow, {"X": "*fp32", "Y": "*fp32", "n": "i32"}, {"FLAG": True})
    off = compile_ir(K.control_flow, {"X": "*fp32", "Y": "*fp32", "n": "i32"}, {"FLAG": False})
    assert on.count("arith.subf") == off.count("arith.subf") + 1


def test_module_constants_reach_the_kernel():
    text = compile_ir(K.control_flow, {"X": "*fp32", "Y": "*fp32", "n": "i32"}, {"FLAG": False})
    assert "arith.constant 3 : i32" in text  # SCALE
    assert "arith.constant 5 : i32" in text  # OFFSET (a tl.constexpr global)


def test_shapes():
    found = ops(compile_ir(K.shapes, {"X": "*fp32", "Y": "*fp32"}, {"BLOCK": 64}))
    for op in ("tile.make_range", "tile.reshape", "tile.trans", "tile.expand_dims",
               "tile.broadcast", "tile.join", "tile.split", "tile.cat", "tile.bitcast",
               "arith.truncf", "arith.extf", "arith.sitofp"):
        assert op in found, op


def test_memory_ops_and_modifiers():
    text = compile_ir(K.memory, {"X": "*fp32", "I": "*i32", "Y": "*fp32"}, {"BLOCK": 16})
    assert 'cache = "cg", evict = "evict_last"' in text
    assert 'cache = "cs", evict = "evict_first"' in text
    assert "is_volatile = true" in text
    for rmw in ("fadd", "max", "min", "xchg", "and", "or", "xor"):
        assert f'rmw_op = "{rmw}"' in text, rmw
    assert 'scope = "cta", sem = "relaxed"' in text
    assert "tile.atomic_cas" in text


def test_math():
    text = compile_ir(K.math_ops, {"X": "*fp32", "Y": "*fp32"}, {"BLOCK": 16})
    found = ops(text)
    for op in ("math.exp", "math.exp2", "math.log", "math.log2", "math.sin", "math.cos",
               "math.sqrt", "math.rsqrt", "math.erf", "math.floor", "math.ceil", "math.absf",
               "math.fma", "arith.select", "arith.minnumf", "arith.maxnumf",
               "arith.mului_extended", "tile.reduce"):
        assert op in found, op
    # sqrt and / may be approximate; sqrt_rn and div_rn may not.
    assert re.search(r"math\.sqrt %\w+ fastmath<afn>", text)
    assert re.search(r"math\.sqrt %\w+ : tensor", text)
    assert re.search(r"arith\.divf %\w+, %\w+ : tensor", text)


def test_reductions_scans_sort():
    text = compile_ir(K.reductions, {"X": "*fp32", "Y": "*fp32"}, {"BLOCK": 64})
    found = ops(text)
    for op in ("tile.reduce", "tile.scan", "tile.sort", "tile.gather", "tile.histogram"):
        assert op in found, op
    # argmax/argmin and the custom pair reduction take two operands.
    assert "operandSegmentSizes = array<i32: 1, 1, 0, 0>" in text
    assert "descending = true" in text
    assert "reverse = true" in text


def test_dot_variants():
    text = compile_ir(K.dots, {"A": "*fp16", "B": "*fp16", "C": "*fp32"}, {"BLOCK": 32})
    assert text.count("tile.dot") == 3
    assert 'input_precision = "ieee"' in text
    assert 'input_precision = "tf32"' in text


def test_random_is_written_in_the_language():
    text = compile_ir(K.random, {"Y": "*fp32", "seed": "i32"}, {"BLOCK": 128})
    # Philox: 10 rounds of two 32x32->64 multiplications (a few fold away: the zero counters of
    # the first round), shared by the calls with the same seed and offsets.
    assert text.count("arith.mului_extended") >= 15
    assert "math.log" in text and "math.cos" in text


def test_hints_and_debug(capsys):
    text = compile_ir(K.hints_and_debug, {"X": "*fp32", "Y": "*fp32", "n": "i32"},
                      {"BLOCK": 64}, debug=True)  # device_assert is kept only with debug
    assert "compiling hints_and_debug with BLOCK = 64" in capsys.readouterr().out
    assert "tile.divisibility = array<i32: 16>" in text
    assert "tile.contiguity = array<i32: 16>" in text
    assert 'prefix = "x="' in text
    assert 'message = "no NaNs"' in text
    assert "gpu.barrier" in text
    assert "tile.num_stages = 4 : i32" in text


def test_every_op_carries_a_kernel_location():
    text = compile_ir(K.shapes, {"X": "*fp32", "Y": "*fp32"}, {"BLOCK": 64})
    assert "lang_kernels.py" in text
    assert "loc(unknown)" not in text


def test_dump_ir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_DUMP_IR", str(tmp_path))
    compile_tile(K.dots, signature={"A": "*fp16", "B": "*fp16", "C": "*fp32"},
                  constexprs={"BLOCK": 16})
    assert "tile.dot" in (tmp_path / "dots.tile.mlir").read_text()


@pytest.mark.parametrize("tutorial, kernel, signature, constexprs", [
    ("01-vector-add.py", "add_kernel", "*fp32,*fp32,*fp32,i32", "BLOCK_SIZE=1024"),
    ("02-fused-softmax.py", "softmax_kernel", "*fp32,*fp32,i32,i32,i32,i32", "BLOCK_SIZE=256"),
    ("05-layer-norm.py", "layer_norm_fwd", "*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,i32,i32,fp32",
     "BLOCK_SIZE=512"),
])
def test_tutorial_cli_output_parses_with_tilec_opt(tutorial, kernel, signature, constexprs,
                                                    tmp_path):
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-m", "tilec.tools.tilec_cli", "compile",
                          f"{root / 'tutorials' / tutorial}:{kernel}", "--signature", signature,
                          "--constexpr", constexprs, "-o", str(tmp_path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    stage = tmp_path / f"{kernel}.tile.mlir"
    again = subprocess.run([sys.executable, "-m", "tilec.tools.tilec_opt", str(stage)],
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stderr


def test_interleave_and_cast_method_compile():
    """tl.interleave (of tiles and of two scalars) and `x.cast(...)` compile to the GPU, as the
    interpreter runs them (test_interpreter.py)."""
    import interp_kernels
    kernel = tilec.compile(interp_kernels.interleave_pairs,
                           signature={"a": "*i32", "b": "*i32", "out": "*i32", "pair": "*i32"},
                           constexprs={"N": 8}, stop_after="ptx")
    assert "tile.join" in kernel.asm["tile"] and "st.global" in kernel.asm["ptx"]
