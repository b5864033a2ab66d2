"""The compiler driver without a GPU: every stage down to cubin, metadata, dumps and the disk
cache (corrupt entries rebuilt, concurrent compiles)."""
from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gpu_kernels as G
import tilec
from tilec.cache import KernelCache

ROOT = Path(__file__).resolve().parents[2]
SIGNATURE = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32:16"}


def compile_binary(**kwargs):
    return tilec.compile(G.binary, signature=SIGNATURE,
                         constexprs={"OP": kwargs.pop("op", "add"), "BLOCK": 1024}, **kwargs)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))


def test_every_stage_down_to_cubin_without_a_gpu():
    k = compile_binary()
    assert list(k.asm) == ["tile", "tilegpu", "llvm", "ptx", "cubin"]
    assert "#tilegpu.blocked<[4], [32], [4], [0]>" in k.asm["tilegpu"]  # coalesced, 16-byte
    assert "gpu.func @binary" in k.asm["llvm"] and "kernel" in k.asm["llvm"]
    assert ".target sm_90a" in k.asm["ptx"]
    assert "ld.global.v4" in k.asm["ptx"] and "st.global.v4" in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"
    assert k.metadata["registers"] > 0
    assert k.metadata["spill_stores"] == 0 and k.metadata["spill_loads"] == 0
    assert k.metadata["shared"] == 0 and k.metadata["num_warps"] == 4


def test_stages_parse_back_with_tilec_opt(tmp_path):
    k = compile_binary()
    for stage in ("tile", "tilegpu", "llvm"):
        path = tmp_path / f"{stage}.mlir"
        path.write_text(k.asm[stage])
        result = subprocess.run([sys.executable, "-m", "tilec.tools.tilec_opt", str(path)],
                                capture_output=True, text=True)
        assert result.returncode == 0, (stage, result.stderr)


def test_llvm_stage_locations_point_to_the_kernel_source():
    """The gpu.func frame, its arguments and return carry the kernel's `def` location, so a
    diagnostic about them names the user's file, not the text the frame was parsed from."""
    llvm = compile_binary().asm["llvm"]
    assert 'loc("-"' not in llvm
    assert "gpu_kernels.py" in llvm


def test_num_warps_reaches_the_kernel():
    k = compile_binary(num_warps=8)
    assert "known_block_size = array<i32: 256, 1, 1>" in k.asm["llvm"]
    assert k.metadata["num_warps"] == 8


def test_stop_after():
    k = compile_binary(stop_after="tilegpu")
    assert list(k.asm) == ["tile", "tilegpu"]
    with pytest.raises(ValueError, match="stop_after"):
        compile_binary(stop_after="sass")


def test_dump_ir_writes_every_stage_and_every_pass(tmp_path, monkeypatch):
    dump = tmp_path / "dump"
    monkeypatch.setenv("TILEC_DUMP_IR", str(dump))
    monkeypatch.setenv("TILEC_DUMP_IR_AFTER_EACH", "1")
    monkeypatch.setenv("TILEC_CACHE", "0")
    compile_binary()
    names = {p.name for p in dump.iterdir()}
    assert {"binary.tile.mlir", "binary.tilegpu.mlir", "binary.llvm.mlir", "binary.ptx",
            "binary.cubin"} <= names
    after_each = [p for p in (dump / "binary.tilegpu.passes").rglob("*") if p.is_file()]
    assert any("coalesce" in p.name for p in after_each), after_each


def test_disk_cache_hit_gives_the_same_kernel():
    first = compile_binary()
    assert len(KernelCache().keys()) == 1
    again = compile_binary()
    assert again.asm == first.asm
    assert again.metadata == first.metadata


def test_corrupt_cache_entry_is_rebuilt_not_loaded():
    first = compile_binary()
    (key,) = KernelCache().keys()
    entry = next(Path(os.environ["TILEC_CACHE_DIR"]).rglob("kernel.cubin"))
    data = bytearray(entry.read_bytes())
    data[100] ^= 0xFF
    entry.write_bytes(bytes(data))
    rebuilt = compile_binary()
    assert rebuilt.asm["cubin"] == first.asm["cubin"]  # compiled again, not the flipped bytes
    assert KernelCache().get(key)["kernel.cubin"] == first.asm["cubin"]


def _compile_in_child(cache_dir: str) -> bytes:
    os.environ["TILEC_CACHE_DIR"] = cache_dir
    sys.path.insert(0, str(Path(__file__).parent))
    import gpu_kernels

    import tilec as t
    k = t.compile(gpu_kernels.binary, signature=SIGNATURE, constexprs={"OP": "mul",
                                                                       "BLOCK": 1024})
    return k.asm["cubin"]


def test_two_processes_compiling_at_once_both_succeed(tmp_path):
    cache_dir = str(tmp_path / "shared-cache")
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        cubins = pool.map(_compile_in_child, [cache_dir, cache_dir])
    assert cubins[0] == cubins[1] and cubins[0][:4] == b"\x7fELF"
    os.environ["TILEC_CACHE_DIR"] = cache_dir
    assert len(KernelCache().keys()) == 1


def test_ptxas_failure_is_a_compilation_error(monkeypatch, tmp_path):
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho 'ptxas fatal : planted failure' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TILEC_PTXAS", str(fake))
    monkeypatch.setenv("TILEC_CACHE", "0")
    with pytest.raises(tilec.CompilationError, match="planted failure"):
        compile_binary(op="sub")


class _FakeDeviceArray:
    """Looks like a device array, so the launch gets as far as asking for a GPU."""
    dtype = "float32"
    shape = (1024,)
    __cuda_array_interface__ = {"data": (1 << 20, False), "shape": (1024,),
                                "typestr": "<f4", "version": 3}


def _gpu_available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@pytest.mark.skipif(_gpu_available(), reason="checks the error given when there is no GPU")
def test_launch_without_a_gpu_says_so():
    a = _FakeDeviceArray()
    with pytest.raises(tilec.BackendUnavailable, match="TILEC_INTERPRET=1"):
        G.binary[(1,)](a, a, a, 1024, OP="add", BLOCK=1024)


def test_too_much_shared_memory_fails_at_compile_time():
    with pytest.raises(tilec.OutOfResources) as info:
        tilec.compile(G.big_transpose, signature={"x_ptr": "*fp32", "out_ptr": "*fp32"},
                      constexprs={"M": 256, "N": 512})
    message = str(info.value)
    # 256 x 512 fp32 through the padded conversion scratch: 131072 slots plus one after every
    # 32 (131071 >> 5 = 4095) = 135167 slots of 4 bytes.
    assert "540668 bytes" in message and str(227 * 1024) in message
    assert "gpu_kernels.py:" in message  # the kernel line of the largest buffer
    small = tilec.compile(G.big_transpose, signature={"x_ptr": "*fp32", "out_ptr": "*fp32"},
                          constexprs={"M": 64, "N": 128})
    assert small.metadata["shared"] == (64 * 128 + (64 * 128 - 1 >> 5)) * 4  # padded slots
