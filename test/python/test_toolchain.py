"""ptxas and libdevice are found as documented and turn PTX into a cubin without a GPU."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tilec import toolchain

TEST_DIR = Path(__file__).resolve().parent.parent
TAIL = TEST_DIR / "Conversion" / "nvvm-tail.mlir"


def _pipeline() -> str:
    return ("builtin.module(nvvm-attach-target{chip=sm_90a features=+ptx80 O=3 l="
            f"{toolchain.find_libdevice()}}},gpu.module(convert-gpu-to-nvvm,convert-arith-to-llvm,"
            "canonicalize,cse),reconcile-unrealized-casts,gpu-module-to-binary{format=isa})")


def test_ptxas_override_comes_first(tmp_path, monkeypatch):
    fake = tmp_path / "my-ptxas"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("TILEC_PTXAS", str(fake))
    assert toolchain.find_ptxas() == str(fake)


def test_ptxas_override_must_exist(monkeypatch, tmp_path):
    monkeypatch.setenv("TILEC_PTXAS", str(tmp_path / "missing"))
    with pytest.raises(toolchain.ToolchainError, match="TILEC_PTXAS"):
        toolchain.find_ptxas()


def test_ptxas_from_pip_package_before_path(monkeypatch, tmp_path):
    monkeypatch.delenv("TILEC_PTXAS", raising=False)
    decoy = tmp_path / "ptxas"
    decoy.write_text("#!/bin/sh\n")
    decoy.chmod(decoy.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    found = toolchain.find_ptxas()
    assert found != str(decoy)
    assert "nvidia" in found


def test_ptxas_falls_back_to_path(monkeypatch, tmp_path):
    monkeypatch.delenv("TILEC_PTXAS", raising=False)
    monkeypatch.setattr(toolchain, "_nvidia_package_dirs", lambda: [])
    decoy = tmp_path / "ptxas"
    decoy.write_text("#!/bin/sh\n")
    decoy.chmod(decoy.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert toolchain.find_ptxas() == str(decoy)


def test_no_ptxas_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("TILEC_PTXAS", raising=False)
    monkeypatch.setattr(toolchain, "_nvidia_package_dirs", lambda: [])
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(toolchain.ToolchainError, match="nvidia-cuda-nvcc"):
        toolchain.find_ptxas()


def test_libdevice_from_pip_package():
    assert toolchain.find_libdevice().endswith("libdevice.10.bc")
    assert Path(toolchain.find_libdevice()).is_file()


def test_ptx_to_cubin_without_gpu():
    result = subprocess.run(
        [sys.executable, "-m", "tilec.tools.tilec_opt", str(TAIL), f"--pass-pipeline={_pipeline()}"],
        capture_output=True, text=True, check=True)
    ptx = toolchain.ptx_from_gpu_binary(result.stdout)
    assert ".target sm_90a" in ptx and "mma.sync.aligned" in ptx
    cubin, log = toolchain.assemble(ptx, "sm_90a", verbose=True)
    assert cubin[:4] == b"\x7fELF"
    assert "Used" in log and "registers" in log


def test_ptxas_error_is_reported():
    with pytest.raises(toolchain.ToolchainError, match="ptxas failed"):
        toolchain.assemble(".version 8.0\n.target sm_90a\nthis is not ptx\n")
