"""device_print and device_assert on the GPU backend.

Without a GPU: kernels that print and assert compile to cubin, the PTX calls vprintf with
Triton's format strings and __assertfail with the message, file, line and kernel name, and an
assert is compiled only with debug=True. With one (`pytest -m gpu`): each kernel runs in a
subprocess, because vprintf writes to the process's C stdout and a failed device assert leaves
the CUDA context unusable."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import debug_kernels as K
import numpy as np
import pytest

import tilec
import tilec.compiler
from tilec.compiler import CompileOptions, cache_key_of

HERE = Path(__file__).resolve().parent
PID = "pid (%d, %d, %d)"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))


def ptx_strings(ptx: str) -> dict[str, str]:
    """The PTX's global byte-array constants (format strings, assert strings) as text."""
    found = re.findall(r"\.global \.align 1 \.b8 (\w+)\[\d+\] = \{([^}]*)\}", ptx)
    return {name: bytes(int(b) for b in body.split(",")).rstrip(b"\0").decode()
            for name, body in found}


def source_line(text: str, path=Path(K.__file__)) -> int:
    """The line of debug_kernels.py containing `text`."""
    lines = path.read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def compile_print_values():
    return tilec.compile(K.print_values, signature={"x_ptr": "*i32:16", "y_ptr": "*fp32:16"},
                         constexprs={"BLOCK": 64, "ROWS": 4, "COLS": 8})


def compile_check_positive(kernel, debug=False):
    return tilec.compile(kernel, signature={"x_ptr": "*i32:16"}, constexprs={"BLOCK": 256},
                         debug=debug)


# --- without a GPU ------------------------------------------------------------------------------

def test_prints_compile_to_vprintf_calls_with_tritons_format():
    k = compile_print_values()
    assert k.asm["cubin"][:4] == b"\x7fELF"  # ptxas accepted it
    formats = set(ptx_strings(k.asm["ptx"]).values())
    assert formats == {f"{PID} idx (%2d) x: %d\n", f"{PID} idx (%2d) h: 0x%08x\n",
                       f"{PID} idx (%d, %d) y: %f\n", f"{PID} idx () pid: %d\n",
                       f"{PID} done\n"}
    assert ".extern .func  (.param .b32 func_retval0) vprintf" in k.asm["ptx"]
    assert "call.uni (retval0), vprintf" in k.asm["ptx"]
    assert "cvt.f64.f32" in k.asm["ptx"]  # %f gets a double


def test_print_widens_what_vprintf_cannot_read():
    k = tilec.compile(K.print_types, signature={"h_ptr": "*fp16:16", "b_ptr": "*i32:16"},
                      constexprs={"BLOCK": 128})
    formats = set(ptx_strings(k.asm["ptx"]).values())
    assert formats == {f"{PID} idx (%3d) h: %f\n", f"{PID} idx (%3d) bits: 0x%04x\n",
                       f"{PID} idx (%3d) big: %lld\n", f"{PID} idx (%3d) b: %d\n"}
    llvm = k.asm["llvm"]
    assert "arith.bitcast" in llvm and "f16 to i16" in llvm  # hex shows a float's bits
    assert "arith.extui" in llvm and "i1 to i32" in llvm  # booleans print as 0 or 1
    assert "cvt.f64.f16" in k.asm["ptx"]


def test_unsigned_values_print_zero_extended():
    k = tilec.compile(K.print_unsigned, signature={"u_ptr": "*u32:16", "v_ptr": "*u8:16"},
                      constexprs={"BLOCK": 128})
    formats = set(ptx_strings(k.asm["ptx"]).values())
    assert formats == {f"{PID} idx (%3d) u: %lld\n", f"{PID} idx (%3d) v: %d\n"}
    assert "arith.extui %" in k.asm["tile"]
    assert "tensor<128xi32> to tensor<128xi64>" in k.asm["tile"]
    assert "tensor<128xi8> to tensor<128xi32>" in k.asm["tile"]


def test_percent_in_a_prefix_is_printed_as_is():
    k = tilec.compile(K.print_percent, signature={"x_ptr": "*i32"})
    assert set(ptx_strings(k.asm["ptx"]).values()) == {f"{PID} idx () 100%%: %d\n"}


def test_assert_compiles_to_assertfail_with_message_file_line_and_kernel():
    k = compile_check_positive(K.check_positive, debug=True)
    assert k.asm["cubin"][:4] == b"\x7fELF"
    ptx = k.asm["ptx"]
    assert "call.uni __assertfail" in ptx
    strings = set(ptx_strings(ptx).values())
    assert {"x must be positive", K.positive.__code__.co_filename, "positive"} <= strings
    line = source_line('"x must be positive"')
    assert re.search(rf"st\.param\.b32\s+\[param2\], {line};", ptx), ptx


def test_assert_is_dropped_without_debug():
    k = compile_check_positive(K.unchecked_positive)
    assert "tile.assert" not in k.asm["tile"]
    assert "__assertfail" not in k.asm["ptx"]
    # debug= of tilec.compile decides, whatever the decorator said
    assert "__assertfail" not in compile_check_positive(K.check_positive).asm["ptx"]
    assert "__assertfail" in compile_check_positive(K.unchecked_positive, debug=True).asm["ptx"]


def test_python_assert_in_an_inlined_function_reports_its_own_line():
    k = tilec.compile(K.copy_checked, signature={"x_ptr": "*fp32:16", "out_ptr": "*fp32:16",
                                                 "n": "i32"}, constexprs={"BLOCK": 128},
                      debug=True)
    ptx = k.asm["ptx"]
    assert "index past n" in ptx_strings(ptx).values()
    line = source_line('"index past n"')
    assert re.search(rf"st\.param\.b32\s+\[param2\], {line};", ptx), ptx


def test_debug_is_an_option_of_the_jit_and_of_the_cache_key(monkeypatch):
    assert K.check_positive.debug is True and K.unchecked_positive.debug is None
    key = (("*i32", True), ("constexpr", 256))
    assert cache_key_of(K.check_positive, key, CompileOptions(debug=True)) != \
        cache_key_of(K.check_positive, key, CompileOptions(debug=False))
    seen = []

    def compile_specialized(fn, key, options, stop_after="cubin"):
        seen.append(options.debug)
        raise RuntimeError("stop before launching")
    monkeypatch.setattr(tilec.launch, "compile_specialized", compile_specialized)
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    for kernel in (K.check_positive, K.unchecked_positive):
        with pytest.raises(RuntimeError, match="stop before launching"):
            kernel[(1,)](np.ones(256, dtype=np.int32), BLOCK=256)
    assert seen == [True, False]


# --- on the GPU (each in a subprocess) ----------------------------------------------------------

def run_on_gpu(body: str, tmp_path) -> subprocess.CompletedProcess:
    """Run `body` (which has `cupy`, `np` and the kernels as `K`) in a fresh process, then
    synchronise; "FINISHED" on stdout says no CUDA error was raised."""
    code = "\n".join([f"import sys; sys.path.insert(0, {str(HERE)!r})",
                      "import cupy, numpy as np", "import debug_kernels as K", body,
                      "cupy.cuda.runtime.deviceSynchronize()", "print('FINISHED', flush=True)"])
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TILEC_INTERPRET", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)


LINE = re.compile(r"^pid \((\d+), (\d+), (\d+)\)(?: idx \(([\d ,]*)\))? ?(\w*):? ?(.*)$")


def printed(stdout: str) -> dict[str, list[tuple]]:
    """The lines of device prints, by prefix: (pid, index, value text)."""
    out: dict[str, list[tuple]] = {}
    for line in stdout.splitlines():
        found = LINE.match(line)
        if found:
            x, y, z, idx, prefix, value = found.groups()
            index = tuple(int(i) for i in idx.split(",")) if idx and idx.strip() else ()
            out.setdefault(prefix, []).append(((int(x), int(y), int(z)), index, value))
    return out


@pytest.mark.gpu
def test_device_print_writes_one_line_per_element(tmp_path):
    result = run_on_gpu(
        "x = cupy.arange(128, dtype=cupy.int32) * 3 - 100\n"
        "y = cupy.arange(64, dtype=cupy.float32) * 0.25 - 4\n"
        "K.print_values[(2,)](x, y, BLOCK=64, ROWS=4, COLS=8)", tmp_path)
    assert "FINISHED" in result.stdout, result.stderr
    lines = printed(result.stdout)
    programs = [(0, 0, 0), (1, 0, 0)]
    # 64 elements over 128 threads: replicas stay silent, so exactly one line per element
    assert sorted(lines["x"]) == sorted(
        (pid, (i,), str((pid[0] * 64 + i) * 3 - 100)) for pid in programs for i in range(64))
    assert sorted(lines["h"]) == sorted(
        (pid, (i,), f"0x{((pid[0] * 64 + i) * 3 - 100) & 0xffffffff:08x}")
        for pid in programs for i in range(64))
    assert len(lines["y"]) == 2 * 4 * 8
    for pid, (r, c), value in lines["y"]:
        assert float(value) == (pid[0] * 32 + r * 8 + c) * 0.25 - 4
    assert sorted({(pid, idx) for pid, idx, _ in lines["y"]}) == sorted(
        (pid, (r, c)) for pid in programs for r in range(4) for c in range(8))
    assert sorted(lines["pid"]) == [((0, 0, 0), (), "0"), ((1, 0, 0), (), "1")]  # once each
    assert sorted(lines["done"]) == [((0, 0, 0), (), ""), ((1, 0, 0), (), "")]


@pytest.mark.gpu
def test_device_print_of_half_int64_and_bool(tmp_path):
    result = run_on_gpu(
        "h = (cupy.arange(128, dtype=cupy.float32) - 64).astype(cupy.float16) / 4\n"
        "b = cupy.arange(128, dtype=cupy.int32) % 3\n"
        "K.print_types[(1,)](h, b, BLOCK=128)", tmp_path)
    assert "FINISHED" in result.stdout, result.stderr
    lines = printed(result.stdout)
    h = ((np.arange(128, dtype=np.float32) - 64).astype(np.float16) / 4)
    assert sorted((i, float(v)) for _, (i,), v in lines["h"]) == \
        [(i, float(h[i])) for i in range(128)]
    assert sorted((i, v) for _, (i,), v in lines["bits"]) == \
        [(i, f"0x{int(h.view(np.uint16)[i]):04x}") for i in range(128)]
    assert sorted((i, int(v)) for _, (i,), v in lines["big"]) == \
        [(i, int(h[i]) * 1000000000000) for i in range(128)]
    assert sorted((i, v) for _, (i,), v in lines["b"]) == \
        [(i, "1" if i % 3 else "0") for i in range(128)]


@pytest.mark.gpu
def test_failing_device_assert_stops_the_kernel_with_file_line_and_message(tmp_path):
    result = run_on_gpu(
        "x = cupy.ones(256, dtype=cupy.int32)\n"
        "x[77] = -5\n"
        "K.check_positive[(1,)](x, BLOCK=256)", tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "FINISHED" not in result.stdout, output
    line = source_line('"x must be positive"')
    assert f"debug_kernels.py:{line}" in output, output  # CUDA prints "FILE:LINE: FUNCTION: ..."
    assert "x must be positive" in output
    assert re.search(r"device-side assert|cudaErrorAssert|CUDA_ERROR_ASSERT", output), output


@pytest.mark.gpu
def test_device_assert_that_holds_or_is_compiled_out_does_not_fail(tmp_path):
    result = run_on_gpu(
        "x = cupy.ones(256, dtype=cupy.int32)\n"
        "K.check_positive[(1,)](x, BLOCK=256)\n"
        "x[77] = -5\n"
        "K.unchecked_positive[(1,)](x, BLOCK=256)  # debug off: no check\n"
        "src = cupy.arange(128, dtype=cupy.float32)\n"
        "out = cupy.zeros(128, dtype=cupy.float32)\n"
        "K.copy_checked[(1,)](src, out, 128, BLOCK=128)\n"
        "assert (out == src).all()", tmp_path)
    assert result.returncode == 0 and "FINISHED" in result.stdout, result.stdout + result.stderr
