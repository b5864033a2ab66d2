"""The NVIDIA tools tilec uses without a CUDA install: ptxas (PTX -> cubin) and libdevice.

ptxas is found by, in order: the `TILEC_PTXAS` environment variable, the `nvidia-cuda-nvcc` pip
package, then `PATH`. libdevice comes from `TILEC_LIBDEVICE`, the `nvidia-nvvm` pip package, or
the CUDA install the ptxas found belongs to.
Neither needs a GPU.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path


class ToolchainError(RuntimeError):
    pass


class PtxasError(ToolchainError):
    """ptxas ran and rejected the PTX."""


def _nvidia_package_dirs() -> list[Path]:
    """Install folders of the `nvidia` namespace package (pip's CUDA components)."""
    try:
        import nvidia
    except ImportError:
        return []
    roots = [Path(p) for p in getattr(nvidia, "__path__", [])]
    # CUDA 13 wheels install under nvidia/cu13/, older ones under nvidia/<component>/.
    return [d for root in roots for d in (root / "cu13", root / "cuda_nvcc", root)]


def find_ptxas() -> str:
    override = os.environ.get("TILEC_PTXAS")
    if override:
        if not os.access(override, os.X_OK):
            raise ToolchainError(f"TILEC_PTXAS={override} is not an executable file")
        return override
    for base in _nvidia_package_dirs():
        candidate = base / "bin" / "ptxas"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    on_path = shutil.which("ptxas")
    if on_path:
        return on_path
    raise ToolchainError("ptxas not found: install the pip package nvidia-cuda-nvcc, put ptxas "
                         "on PATH, or set TILEC_PTXAS to its path")


def find_libdevice() -> str:
    override = os.environ.get("TILEC_LIBDEVICE")
    if override:
        return override
    for base in _nvidia_package_dirs():
        candidate = base / "nvvm" / "libdevice" / "libdevice.10.bc"
        if candidate.is_file():
            return str(candidate)
    try:  # a CUDA install: libdevice sits beside the ptxas found
        cuda = Path(find_ptxas()).resolve().parent.parent
        candidate = cuda / "nvvm" / "libdevice" / "libdevice.10.bc"
        if candidate.is_file():
            return str(candidate)
    except ToolchainError:
        pass
    raise ToolchainError("libdevice.10.bc not found: install the pip package nvidia-nvvm or set "
                         "TILEC_LIBDEVICE to its path")


@cache
def ptxas_version(ptxas: str) -> str:
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()[-1]


def assemble(ptx: str, arch: str = "sm_90a", verbose: bool = False) -> tuple[bytes, str]:
    """PTX text -> (cubin bytes, ptxas log). Raises PtxasError with ptxas's message, or
    ToolchainError when there is no ptxas."""
    ptxas = find_ptxas()
    with tempfile.TemporaryDirectory(prefix="tilec-ptxas-") as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        cmd = ptxas_command(ptxas, arch, src, out, verbose)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise PtxasError(f"ptxas failed ({' '.join(cmd)}):\n{proc.stderr.strip()}")
        return out.read_bytes(), proc.stderr


def ptxas_command(ptxas: str, arch: str, ptx: Path, cubin: Path, verbose: bool) -> list[str]:
    return [ptxas, f"-arch={arch}", str(ptx), "-o", str(cubin)] + (["-v"] if verbose else [])


def ptx_from_gpu_binary(module_asm: str) -> str:
    """The PTX that `gpu-module-to-binary{format=isa}` embedded in printed IR (one object).

    The bindings expose no accessor for `#gpu.object`'s payload, so it is read from the printed
    attribute, where bytes outside printable ASCII appear as `\\XX` escapes.
    """
    marker = 'assembly = "'
    start = module_asm.find(marker)
    if start < 0:
        raise ToolchainError("no gpu.binary object with an assembly payload in the module")
    i, out = start + len(marker), bytearray()
    while module_asm[i] != '"':
        if module_asm[i] == "\\":
            out.append(int(module_asm[i + 1:i + 3], 16))
            i += 3
        else:
            out += module_asm[i].encode()
            i += 1
    return out.decode()
