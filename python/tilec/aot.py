"""Ahead-of-time kernels: `tilec compile ... -o DIR` writes them, `tilec.load(DIR)` launches them.

`save` writes the requested stages of a compiled kernel (`KERNEL.tile.mlir`, ...,
`KERNEL.ptx`, `KERNEL.cubin`) and `KERNEL.metadata.json`: the kernel's runtime parameters in
launch order with their types and 16-divisibility, the constexpr values it was compiled with,
num_warps, num_stages, target, shared memory, registers, spills, the tilec version and the
kernel cache key.

`load` rebuilds a `CompiledKernel` from those files, without compiling anything, and wraps it in
an `AOTKernel`: `k = tilec.load(DIR); k[grid](x, y, out, n)` launches on the current stream as a
`@tilec.jit` kernel does. Constexpr parameters were fixed at compile time, so the loaded kernel
takes only the runtime parameters (a constexpr may still be passed by keyword if it has the
compiled value). Metadata written in another AOT format is an error; a cubin written by another
tilec version loads with a warning, since the cubin and the parameter layout do not depend on it.
"""
from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

from tilec.compiler import (CompiledKernel, CompileOptions, KernelParam, cache_key_of,
                            compiler_versions, parse_target)
from tilec.language.dtypes import parse_type
from tilec.runtime import DRIVER, Launcher, data_pointer, normalise_grid, pointer_dtype_name
from tilec.version import __version__

FORMAT = 1
METADATA_SUFFIX = ".metadata.json"
_METADATA_FIELDS = ("shared", "registers", "spill_stores", "spill_loads", "producer_warps",
                    "num_ctas")


def stage_file(name: str, stage: str) -> str:
    """The file a stage of kernel `name` is written to."""
    return f"{name}.{stage}" if stage in ("ptx", "cubin") else f"{name}.{stage}.mlir"


def target_name(target: str) -> str:
    """`sm_90a`, `sm_90` or `cuda:90` -> `cuda:90`, tilec's spelling. From sm_90 on tilec always
    builds the arch-specific `sm_XXa` cubin, so `sm_90` and `sm_90a` name the same target."""
    text = target.strip()
    if text.startswith("sm_"):
        arch = text[3:].removesuffix("a")
        if arch.isdigit():
            return f"cuda:{arch}"
        raise ValueError(f"target must look like 'sm_90a', 'sm_90' or 'cuda:90', got {target!r}")
    return text


def specialization_key(fn, kernel) -> tuple:
    """The key `tilec.compile` built for `kernel` (see compiler.compile)."""
    types = {p.name: p for p in kernel.params}
    if any("." in name for name in [*types, *kernel.constants]):
        raise ValueError(f"{kernel.name} takes a tuple argument: ahead-of-time kernels take "
                         "pointers and scalars only")
    key = []
    for p in fn.params:
        if p.name in kernel.constants:
            key.append(("constexpr", kernel.constants[p.name]))
        else:
            param = types[p.name]
            key.append((param.type.codegen_name(), param.divisible_by_16))
    return tuple(key)


def save(fn, kernel, out: Path | str, stages, source: str = "") -> Path:
    """Write `stages` of `kernel` (compiled from the JITFunction `fn`) and its metadata to `out`.
    Returns the metadata file."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for stage in stages:
        data = kernel.asm[stage]
        files[stage] = stage_file(kernel.name, stage)
        (out / files[stage]).write_bytes(data if isinstance(data, bytes) else data.encode())
    arch = parse_target(kernel.options.target)
    metadata = {
        "format": FORMAT,
        "name": kernel.name,
        "source": source,
        "params": [{"name": p.name, "type": p.type.codegen_name(),
                    "divisible_by_16": p.divisible_by_16} for p in kernel.params],
        "constexprs": {name: _json_value(value) for name, value in kernel.constants.items()},
        "num_warps": kernel.options.num_warps,
        "num_stages": kernel.options.num_stages,
        "target": kernel.options.target,
        "arch": f"sm_{arch}a" if arch >= 90 else f"sm_{arch}",
        "debug": kernel.options.debug,
        "enable_fp_fusion": kernel.options.enable_fp_fusion,
        "maxnreg": kernel.options.maxnreg,
        "num_ctas": kernel.options.num_ctas,
        **{k: kernel.metadata[k] for k in _METADATA_FIELDS if k in kernel.metadata},
        "tilec_version": __version__,
        "versions": compiler_versions(),
        "cache_key": cache_key_of(fn, specialization_key(fn, kernel), kernel.options),
        "files": files,
    }
    if "cubin" in files:
        metadata["cubin_sha256"] = hashlib.sha256(kernel.asm["cubin"]).hexdigest()
    path = out / f"{kernel.name}{METADATA_SUFFIX}"
    path.write_text(json.dumps(metadata, indent=2) + "\n")
    return path


def _json_value(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    return str(value)  # a tl dtype and the like: for reading, not for relaunching


class AOTKernel:
    """A kernel loaded by `tilec.load`: `kernel[grid](*runtime_args)`."""

    def __init__(self, compiled, metadata: dict, path: Path):
        self.compiled = compiled
        self.metadata = metadata
        self.path = path
        self.name = compiled.name
        self.params = compiled.params
        self.constexprs = dict(compiled.constants)
        self.asm = compiled.asm
        self._names = [p.name for p in self.params]
        self._checked_devices: set[int] = set()
        # Every parameter of an AOT kernel is passed (nothing was folded at launch) but the TMA
        # maps, which the launcher makes.
        passed = len(self.params) - len(compiled.metadata.get("tensormaps", ()))
        self.launcher = Launcher(compiled, list(range(passed)))

    def __repr__(self) -> str:
        return (f"<tilec AOT kernel {self.name}({', '.join(self._names)}) "
                f"{self.metadata['arch']} from {self.path}>")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.name} is a loaded kernel: launch it with "
                           f"{self.name}[grid](...)")

    def run(self, *args, grid, **kwargs):
        bound = self._bind(args, kwargs)
        self._check_values(bound)
        grid_size = normalise_grid(grid, {**self.constexprs, **bound})
        self._check_device()
        self.launcher.run(grid_size, [bound[name] for name in self._names])
        return self.compiled

    def _bind(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        bound = dict(zip(self._names, args))
        keywords = {}
        for name, value in kwargs.items():
            if name not in self.constexprs:
                keywords[name] = value
            elif value != self.constexprs[name]:
                raise TypeError(f"{self.name} was compiled with {name}="
                                f"{self.constexprs[name]!r}, not {value!r}: compile it again "
                                "with tilec compile --constexpr")
        twice = set(bound) & set(keywords)
        if twice:
            raise TypeError(f"{self.name}: argument(s) {sorted(twice)} given twice")
        bound.update(keywords)
        if len(args) > len(self._names) or set(bound) != set(self._names):
            fixed = ", ".join(f"{k}={v!r}" for k, v in self.constexprs.items())
            unknown = sorted(set(keywords) - set(self._names))
            raise TypeError(f"{self.name} takes {len(self._names)} runtime arguments "
                            f"({', '.join(self._names)}), got {len(args) + len(keywords)}"
                            + (f" (unknown: {', '.join(unknown)})" if unknown else "")
                            + (f"; its constexprs were fixed at compile time ({fixed})"
                               if fixed else ""))
        return bound

    def _check_values(self, bound: dict) -> None:
        """What `tilec.compile`'s signature promised: pointer element types, 16-divisibility."""
        for p in self.params:
            value = bound[p.name]
            kind = p.type.codegen_name()
            if kind.startswith("*"):
                if not hasattr(value, "dtype"):
                    raise TypeError(f"{self.name}: {p.name} is a {kind} pointer, got a "
                                    f"{type(value).__name__}")
                if "*" + pointer_dtype_name(value) != kind:
                    raise TypeError(f"{self.name}: {p.name} was compiled as {kind}, got an "
                                    f"array of {value.dtype}")
                number = data_pointer(value)
            elif isinstance(value, (int, float)) or hasattr(value, "item"):
                number = value
            else:
                raise TypeError(f"{self.name}: {p.name} is a {kind}, got a "
                                f"{type(value).__name__}")
            if p.divisible_by_16 and int(number) % 16:
                raise ValueError(f"{self.name}: {p.name} was compiled as divisible by 16 "
                                 f"({kind}:16), got {'an address' if kind[0] == '*' else ''} "
                                 f"{number}")

    def _check_device(self) -> None:
        """A cubin runs only on the architecture it was built for: say so instead of CUDA."""
        try:
            device = DRIVER.current_device()
            if device in self._checked_devices:
                return
            capability = DRIVER.cupy.cuda.Device(device).compute_capability
        except Exception:  # no CuPy or no GPU: the launch itself reports that
            return
        arch = self.metadata["arch"]
        want = arch.removeprefix("sm_").removesuffix("a")
        # An sm_XXa cubin runs on XX only; a plain one on later minors of the same major.
        runs = capability == want if arch.endswith("a") else (
            capability[:-1] == want[:-1] and capability >= want)
        if not runs:
            raise RuntimeError(f"{self.name} was compiled for {self.metadata['arch']} but device "
                               f"{device} is sm_{capability}: compile it with --target "
                               f"sm_{capability}")
        self._checked_devices.add(device)


def load(path: Path | str, name: str | None = None) -> AOTKernel:
    """The kernel `tilec compile -o DIR` wrote to `path` (the folder, or its
    KERNEL.metadata.json); `name` picks one when the folder holds several. Nothing is compiled."""
    meta_path = _metadata_path(Path(path), name)
    try:
        metadata = json.loads(meta_path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"tilec.load: cannot read {meta_path}: {err}") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise ValueError(f"tilec.load: {meta_path} is in AOT format "
                         f"{metadata.get('format') if isinstance(metadata, dict) else None}, "
                         f"this tilec ({__version__}) reads format {FORMAT}: compile the "
                         "kernel again with this tilec's `tilec compile`")
    try:
        kernel = _kernel_from(metadata, meta_path)
    except (KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"tilec.load: {meta_path} is malformed ({type(err).__name__}: {err}): "
                         "compile the kernel again") from None
    if metadata.get("tilec_version") != __version__:
        warnings.warn(f"{kernel.name} in {meta_path.parent} was compiled by tilec "
                      f"{metadata.get('tilec_version')}, this is tilec {__version__}; "
                      "it is loaded as is", stacklevel=2)
    return kernel


def _kernel_from(metadata: dict, meta_path: Path) -> AOTKernel:
    folder = meta_path.parent
    cubin_file = metadata["files"].get("cubin")
    if cubin_file is None or not (folder / cubin_file).is_file():
        emitted = ",".join(metadata["files"]) or "nothing"
        raise ValueError(f"tilec.load: {folder} has no cubin for {metadata['name']} "
                         f"(emitted: {emitted}): compile it with `--emit ...,cubin` "
                         f"(e.g. --emit cubin) to launch it")
    cubin = (folder / cubin_file).read_bytes()
    if hashlib.sha256(cubin).hexdigest() != metadata.get("cubin_sha256"):
        raise ValueError(f"tilec.load: {cubin_file} does not match {meta_path.name} (was it "
                         "overwritten by another compile?): compile the kernel again")
    asm = {"cubin": cubin}
    for stage, file in metadata["files"].items():
        if stage != "cubin" and (folder / file).is_file():
            asm[stage] = (folder / file).read_text()
    params = [KernelParam(p["name"], parse_type(p["type"]), p["divisible_by_16"])
              for p in metadata["params"]]
    options = CompileOptions(num_warps=metadata["num_warps"],
                             num_stages=metadata["num_stages"], target=metadata["target"],
                             debug=metadata.get("debug", False),
                             enable_fp_fusion=metadata.get("enable_fp_fusion", True),
                             maxnreg=metadata.get("maxnreg"),
                             num_ctas=metadata.get("num_ctas", 1))
    runtime_metadata = {k: metadata[k] for k in ("name", "num_warps", "num_stages", "target",
                                                 *_METADATA_FIELDS) if k in metadata}
    compiled = CompiledKernel(metadata["name"], asm, params, dict(metadata["constexprs"]),
                              options, runtime_metadata)
    return AOTKernel(compiled, metadata, folder)


def _metadata_path(path: Path, name: str | None) -> Path:
    if path.is_file():
        return path
    if not path.is_dir():
        raise FileNotFoundError(f"tilec.load: no such folder {path}")
    if name is not None:
        found = path / f"{name}{METADATA_SUFFIX}"
        if not found.is_file():
            raise FileNotFoundError(f"tilec.load: {path} has no kernel {name!r} ({found.name} "
                                    "is missing)")
        return found
    found = sorted(path.glob(f"*{METADATA_SUFFIX}"))
    if not found:
        raise FileNotFoundError(f"tilec.load: {path} holds no *{METADATA_SUFFIX}: write one with "
                                "`tilec compile FILE.py:KERNEL ... -o DIR`")
    if len(found) > 1:
        names = ", ".join(f.name.removesuffix(METADATA_SUFFIX) for f in found)
        raise ValueError(f"tilec.load: {path} holds several kernels ({names}): pass the one to "
                         "load, tilec.load(DIR, name)")
    return found[0]
