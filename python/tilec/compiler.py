"""The compiler driver: a specialised kernel through the stages of ../shared/DESIGN.md.

`tilec.compile(fn, signature=..., constexprs=...)` compiles ahead of time without a GPU; a
launch compiles through `compile_specialized` with the key computed from its arguments. The
stages and the passes that make each are one table, `STAGES`; each stage's IR is kept as text in
`CompiledKernel.asm`, and the cubin that ptxas makes of the last under `asm["cubin"]`.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import json
import math
import os
import platform
import re
import subprocess
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata as package_metadata
from pathlib import Path
from typing import Any

from mlir import ir
from mlir.dialects import func

import tilec.dialects
import tilec.passes
from tilec.cache import KernelCache, make_key
from tilec.context import make_context
from tilec.diagnostics import DiagnosticError, user_file_line_col
from tilec.errors import CompilationError, OutOfResources
from tilec.frontend import checks
from tilec.frontend.builder import COMPILER as MLIR_BUILDER
from tilec.frontend.codegen import CodeGenerator
from tilec.kernel import JITFunction, jit_function_of
from tilec.language.block_pointer import tensor_descriptor
from tilec.language.core import MAX_NUM_STAGES, SemanticError, tensor
from tilec import remote_cache, tma
from tilec.analysis.shared_memory import shared_limit
from tilec.analysis.wgmma import tma_box
from tilec.language.dtypes import dtype, parse_type, tensormap_type
from tilec.passes.split_ctas import split_rows
from tilec.passes.tilegpu_to_llvm import producer_warps
from tilec.passmanager import PipelineOptions, parse_pipeline, run_pipeline
from tilec.ptx_offsets import keep_copy_offsets
from tilec.runtime import leaves, nest
from tilec.reproducer import pipeline_reproducer, ptxas_reproducer
from tilec.toolchain import (PtxasError, ToolchainError, assemble, find_libdevice, find_ptxas,
                             ptx_from_gpu_binary, ptxas_version)
from tilec.version import __version__

_EMPTY = inspect.Parameter.empty


class OptionError(ValueError, AssertionError):
    """A launch or compile option out of range. A ValueError, and an AssertionError as Triton
    raises for the same options, so code written for either catches it."""


@dataclass(frozen=True)
class CompileOptions:
    num_warps: int = 4
    num_stages: int = 3
    target: str = "cuda:90"
    debug: bool = False
    # Let LLVM fuse a float multiply and an add of its product into one fma (one rounding), as
    # Triton's `enable_fp_fusion` does (default on there too).
    enable_fp_fusion: bool = True
    # At most this many registers per thread (Triton's `maxnreg`: the PTX `.maxnreg` directive
    # of the kernel, which ptxas honours, spilling if it must); None: ptxas chooses.
    maxnreg: int | None = None
    # CTAs per program (Triton's `num_ctas`): above 1, each program is a thread block cluster
    # of that many CTAs (sm_90). tile-split-ctas shares the rows of the program's dots out
    # among them where it can; elsewhere the cluster's first CTA runs the program alone.
    num_ctas: int = 1

    def __post_init__(self):
        if self.num_warps <= 0 or self.num_warps & (self.num_warps - 1):
            raise OptionError(f"num_warps must be a power of 2, got {self.num_warps}")
        if not 1 <= self.num_stages <= MAX_NUM_STAGES:
            raise OptionError(f"num_stages must be from 1 to {MAX_NUM_STAGES}, got "
                              f"{self.num_stages}")
        if self.maxnreg is not None and (not isinstance(self.maxnreg, int) or
                                         isinstance(self.maxnreg, bool) or
                                         not 16 <= self.maxnreg <= 255):
            raise ValueError(f"maxnreg must be an integer from 16 to 255 (registers per thread), "
                             f"got {self.maxnreg!r}")
        arch = parse_target(self.target)
        if (not isinstance(self.num_ctas, int) or isinstance(self.num_ctas, bool) or
                self.num_ctas not in CLUSTER_SIZES):
            raise OptionError(f"num_ctas must be 1, 2, 4 or 8 (CTAs in a program's thread "
                              f"block cluster), got {self.num_ctas!r}")
        if self.num_ctas > 1 and arch < 90:
            raise OptionError(f"num_ctas={self.num_ctas} needs thread block clusters, which "
                              f"{self.target} does not have (sm_90 and later do)")


# The CTAs a program may have (num_ctas): the cluster sizes every sm_90 GPU can launch.
CLUSTER_SIZES = (1, 2, 4, 8)


def parse_target(target: str) -> int:
    """`cuda:90` -> 90 (the compute capability)."""
    backend, _, arch = target.partition(":")
    if backend != "cuda" or not arch.isdigit():
        raise ValueError(f"target must look like 'cuda:90', got {target!r}")
    return int(arch)


@dataclass
class KernelParam:
    """A runtime parameter of the compiled kernel, in launch order."""
    name: str
    type: dtype
    divisible_by_16: bool


class Metadata(dict):
    """A compiled kernel's metadata: a dict (it is written as JSON) whose entries also read as
    attributes, as Triton's (`kernel.metadata.shared`, `kernel.metadata["num_warps"]`)."""

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"the kernel's metadata has no {name!r}") from None


@dataclass
class CompiledKernel:
    """What compiling a kernel gives, and what `kernel[grid](...)` returns (as Triton's
    handle): every stage in `asm`, and in `metadata` the name, warps, stages, target, shared
    bytes, ptxas' registers and spills and its notes that it serialised wgmma
    (`wgmma_serialized`) or injected warpgroup.arrives (`wgmma_arrives_injected`)."""
    name: str
    asm: dict[str, str]
    params: list[KernelParam]
    constants: dict[str, Any]
    options: CompileOptions
    metadata: dict[str, Any] = field(default_factory=dict)
    # Set by kernel.warmup (tilec.launch): loads the cubin on the current device.
    loader: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self.metadata = Metadata(self.metadata)

    def _init_handles(self) -> None:
        """Load the kernel on the current device now (Triton's name; a launch does it on
        first use). Needs a kernel from `kernel.warmup` or a launch."""
        if self.loader is None:
            raise RuntimeError(f"{self.name}: only a kernel from kernel.warmup(...) or a launch "
                               "can be loaded; this one was compiled ahead of time (tilec.load "
                               "loads those)")
        self.loader()

    @property
    def n_regs(self) -> int:
        """Registers per thread, as ptxas reports them."""
        return self.metadata.get("registers", 0)

    @property
    def n_spills(self) -> int:
        """Registers spilled to local memory: ptxas' spill-store bytes over 4, as Triton counts."""
        return self.metadata.get("spill_stores", 0) // 4


def _signature_key(entry) -> tuple:
    """The specialisation key of one `signature=` entry: "*fp32:16", or a tuple of entries for a
    tuple argument (as runtime.specialize_argument gives for a tuple)."""
    if isinstance(entry, tuple):
        return ("tuple", tuple(_signature_key(e) for e in entry))
    ty, div = _signature_entry(entry)
    return (ty.codegen_name(), div)


def _signature_entry(text: str) -> tuple[dtype, bool]:
    if not isinstance(text, str):
        raise TypeError(f"signature entry {text!r}: expected a type such as '*fp32:16' or 'i32', "
                        "or a tuple of them")
    text = text.strip()
    base, _, attr = text.partition(":")
    if attr not in ("", "16"):
        raise ValueError(f"signature entry {text!r}: only ':16' (divisible by 16) is supported")
    return parse_type(base), attr == "16"


@dataclass(frozen=True)
class Stage:
    """One stage of the compiler: its name (the `asm` key) and the passes that make it from the
    stage before, as a function of the options."""
    name: str
    passes: Callable[[CompileOptions], str]


def _chip(options: CompileOptions) -> str:
    arch = parse_target(options.target)
    return f"sm_{arch}a" if arch >= 90 else f"sm_{arch}"


# The compiler, stage by stage (see ../shared/DESIGN.md). The llvm stage does not canonicalize:
# the ptx stage does after convert-gpu-to-nvvm anyway, and doing it twice doubled the compile
# time of a matmul (2.2 s -> 0.9 s without, same PTX registers).
STAGES = (
    Stage("tile", lambda options: "tile-combine,canonicalize,cse,tile-combine"),
    Stage("tilegpu", lambda options: (
        (f"tile-split-ctas{{num-ctas={options.num_ctas}}}," if options.num_ctas > 1 else "") +
        f"convert-tile-to-tilegpu{{num-warps={options.num_warps} num-ctas={options.num_ctas} "
        f"target={options.target}}},"
        "tilegpu-coalesce,tilegpu-accelerate-matmul,tilegpu-remove-layout-conversions,"
        f"tilegpu-warp-specialize{{num-stages={options.num_stages}}},"
        f"tilegpu-pipeline{{num-stages={options.num_stages}}},tilegpu-overlap-dots,"
        "canonicalize,cse,"
        "tilegpu-allocate-shared-memory,tilegpu-membar")),
    Stage("llvm", lambda options: (
        f"convert-tilegpu-to-llvm{{enable-fp-fusion={str(options.enable_fp_fusion).lower()}}},"
        "cse")),
    Stage("ptx", lambda options: (
        "gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,"
        "convert-arith-to-llvm,canonicalize,"
        "cse),tilegpu-tensormap-params,"
        f"nvvm-attach-target{{chip={_chip(options)} features={PTX_FEATURES} O=3 "
        f"l={find_libdevice()}}},"
        "reconcile-unrealized-casts,gpu-module-to-binary{format=isa}")),
)
# Every stage a compilation can stop after: the pass stages, then ptxas' cubin.
STAGE_NAMES = tuple(stage.name for stage in STAGES) + ("cubin",)


def compile(fn: JITFunction, signature: dict[str, str] | None = None,
            constexprs: dict[str, Any] | None = None, target: str = "cuda:90",
            num_warps: int = 4, num_stages: int = 3, debug: bool = False,
            enable_fp_fusion: bool | None = None, maxnreg: int | None = None,
            num_ctas: int = 1, stop_after: str = "cubin") -> CompiledKernel:
    """Compile `fn` ahead of time: `signature` gives each runtime parameter's type
    (`"*fp32"`, `"i32:16"`, ...), `constexprs` the value of each constexpr parameter (and may fix
    ordinary ones). Needs no GPU. `stop_after` names the last stage to produce (see STAGES)."""
    if stop_after not in STAGE_NAMES:
        raise ValueError(f"stop_after must be one of {', '.join(STAGE_NAMES)}, not "
                         f"{stop_after!r}")
    kernel = jit_function_of(fn)  # under @tilec.autotune / @tilec.heuristics too
    if kernel is None:
        raise TypeError("tilec.compile takes a @tilec.jit function")
    fn = kernel
    signature = dict(signature or {})
    constexprs = dict(constexprs or {})
    unknown = (set(signature) | set(constexprs)) - set(fn.arg_names)
    if unknown:
        raise TypeError(f"{fn.__name__} has no parameters {sorted(unknown)}")
    key = []
    for p in fn.params:
        if p.name in constexprs:
            key.append(("constexpr", constexprs[p.name]))
        elif p.is_constexpr:
            key.append(("constexpr", p.default))  # _EMPTY when it has none: reported below
        elif p.name in signature:
            key.append(_signature_key(signature[p.name]))
        else:
            raise TypeError(f"{fn.__name__}: parameter '{p.name}' needs a type in signature= "
                            "or a value in constexprs=")
    if enable_fp_fusion is None:
        enable_fp_fusion = default_fp_fusion()
    options = CompileOptions(num_warps=num_warps, num_stages=num_stages, target=target,
                             debug=debug, enable_fp_fusion=enable_fp_fusion, maxnreg=maxnreg,
                             num_ctas=num_ctas)
    return compile_specialized(fn, tuple(key), options, stop_after)


def default_fp_fusion() -> bool:
    """enable_fp_fusion where a launch or tilec.compile does not give it: on, unless
    TILEC_DEFAULT_FP_FUSION (or, where that is unset, Triton's TRITON_DEFAULT_FP_FUSION) is 0,
    false, off or no."""
    value = os.environ.get("TILEC_DEFAULT_FP_FUSION",
                           os.environ.get("TRITON_DEFAULT_FP_FUSION"))
    return value is None or value.strip().lower() not in ("0", "false", "off", "no")


def _run_stage(module, stage: str, pipeline: str, fn: JITFunction) -> None:
    dump = os.environ.get("TILEC_DUMP_IR") if os.environ.get("TILEC_DUMP_IR_AFTER_EACH") else None
    dump_dir = Path(dump) / f"{fn.__name__}.{stage}.passes" if dump else None
    if dump_dir is not None:
        dump_dir.mkdir(parents=True, exist_ok=True)  # MLIR writes one file per pass inside
    options = PipelineOptions(dump_dir=str(dump_dir) if dump_dir else None)
    elements = parse_pipeline(pipeline)
    stage_input = module.operation.clone()  # for a reproducer
    try:
        run_pipeline(module, elements, options)
    except DiagnosticError as err:
        raise CompilationError(f"compiling {fn.__name__} failed in the {stage} stage:\n"
                               f"{err.format()}\n"
                               f"{pipeline_reproducer(fn.__name__, stage_input, elements)}"
                               ) from None


_PTXAS_STATS = {"registers": r"Used (\d+) registers", "spill_stores": r"(\d+) bytes spill stores",
                "spill_loads": r"(\d+) bytes spill loads"}
# ptxas' notes that it serialised wgmma instructions (the kernel then runs them one at a time):
# every "wgmma.mma_async instructions are serialized due to ..." (C7510, C7511, C7514, C7515 so
# far; whatever the reason, the same loss).
_WGMMA_SERIALIZED = re.compile(r"\(C75\d\d\)[^\n]*serialized[^\n]*")
# ptxas' note that it put a warpgroup.arrive (wgmma.fence) before a wgmma whose registers were
# written after the fence: wgmmas that could have issued back to back wait for each other.
_WGMMA_ARRIVE_INJECTED = re.compile(r"\(C7519\)[^\n]*")


def ptxas_stats(log: str) -> dict:
    """What the metadata records of ptxas' `-v` log: registers, spill bytes, and the messages
    saying it serialised wgmma (`wgmma_serialized`, empty when it did not) or injected a
    warpgroup.arrive between wgmmas (`wgmma_arrives_injected`)."""
    stats = {}
    for field_name, pattern in _PTXAS_STATS.items():
        found = re.search(pattern, log)
        stats[field_name] = int(found.group(1)) if found else 0
    stats["wgmma_serialized"] = [m.group(0).strip() for m in _WGMMA_SERIALIZED.finditer(log)]
    stats["wgmma_arrives_injected"] = [m.group(0).strip()
                                       for m in _WGMMA_ARRIVE_INJECTED.finditer(log)]
    return stats


def compile_specialized(fn: JITFunction, key: tuple, options: CompileOptions,
                        stop_after: str = "cubin") -> CompiledKernel:
    """Compile `fn` for one specialisation key (one entry per parameter: ("constexpr", value)
    or (type name, divisible by 16), as runtime.specialization makes it), through every stage up
    to `stop_after`, or take it from the disk cache."""
    missing = [p.name for p, (kind, value) in zip(fn.params, key)
               if kind == "constexpr" and value is _EMPTY]
    if missing:
        raise CompilationError(
            f"kernel {fn.__name__} needs a value for tl.constexpr parameter(s) "
            f"{', '.join(missing)}: pass them as constexprs= (or as launch arguments)",
            fn.filename, fn.def_line, fn.indent, fn.source_line(fn.def_line))
    params, constants, tensormaps = [], {}, []
    for p, param_key in zip(fn.params, key):
        if param_key[0] == "tuple" and not param_key[1]:
            constants[p.name] = ()
        for name, (kind, value), _ in leaves(p.name, param_key):  # a tuple: one per element
            if kind == "constexpr":
                constants[name] = value
            else:
                params.append(KernelParam(name, parse_type(kind, const=p.is_const), bool(value)))
        if param_key[0] == "descriptor":
            tensormap = tma_descriptor(p.name, param_key[1], params, options)
            if tensormap is not None:  # its map follows its parts
                tensormaps.append(tensormap)
                params.append(KernelParam(f"{p.name}.{MAP_PART}", tensormap_type(), False))
    if stop_after != "cubin":
        return _compile(fn, key, options, stop_after, params, constants, tensormaps)
    cache_key = cache_key_of(fn, key, options)
    cached = _from_cache(cache_key, fn, params, constants, options)
    if cached is not None:
        return cached
    remote = remote_cache.backend(compiler_versions) if cache_enabled() else None
    token = remote.lock("kernel", cache_key) if remote is not None else None
    if remote is not None and token is None:  # another process compiles it: wait for it
        if remote.wait("kernel", cache_key) is not None:
            cached = _from_cache(cache_key, fn, params, constants, options)
            if cached is not None:
                return cached
        token = remote.lock("kernel", cache_key)
    try:
        started = time.perf_counter()
        kernel = _compile(fn, key, options, stop_after, params, constants, tensormaps)
        remote_cache.log(f"compiled {fn.__name__} {cache_key[:16]} in "
                         f"{time.perf_counter() - started:.2f} s")
        _to_cache(cache_key, kernel)
        return kernel
    finally:
        if token is not None:
            remote.unlock("kernel", cache_key, token)


def _compile(fn: JITFunction, key: tuple, options: CompileOptions, stop_after: str, params,
             constants, tensormaps) -> CompiledKernel:
    """compile_specialized's compilation proper (no cache)."""
    context = make_context()
    descriptors = {p.name: 0 for p, k in zip(fn.params, key) if k[0] == "descriptor"}
    descriptors.update({m["name"]: m["swizzle"] for m in tensormaps})
    module = generate_tile_ir(fn, params, constants, context, debug=options.debug,
                              descriptors=descriptors, target_arch=parse_target(options.target))
    asm = {}
    metadata = {"name": fn.__name__, "num_warps": options.num_warps,
                "num_stages": options.num_stages, "target": options.target}
    if tensormaps:
        metadata["tensormaps"] = tensormaps
    if SCRATCH_ATTR in module.attributes:  # bytes a program of the launch (see Launcher)
        metadata["global_scratch"] = ir.IntegerAttr(module.attributes[SCRATCH_ATTR]).value
    if options.maxnreg is not None:
        metadata["maxnreg"] = options.maxnreg
    if options.num_ctas > 1:  # launched as clusters of num_ctas CTAs per program
        metadata["num_ctas"] = options.num_ctas
    for stage in STAGES:
        passes = stage.passes(options)
        if "global_scratch" in metadata:  # tensormap.replace and its fences: PTX ISA 8.3
            passes = passes.replace(f"features={PTX_FEATURES}", f"features={PTX_TENSORMAP}")
        _run_stage(module, stage.name, f"builtin.module({passes})", fn)
        if stage.name == "ptx":
            ptx = keep_copy_offsets(ptx_from_gpu_binary(module.operation.get_asm()))
            asm["ptx"] = limit_registers(ptx, options.maxnreg)
        else:
            asm[stage.name] = module.operation.get_asm(enable_debug_info=True)
        if stage.name == "tile":
            _check_block_sizes(fn, module, options)
        if stage.name == "tilegpu":
            if "tensormaps" in metadata:
                metadata["tensormaps"] = split_boxes(module, metadata["tensormaps"])
            metadata["shared"] = ir.IntegerAttr(module.attributes["tilegpu.shared_bytes"]).value
            _check_shared(fn, module, metadata["shared"], options)
            extra = producer_warps(module.operation)
            if extra:  # launched with num_warps + extra warps (tilegpu-warp-specialize)
                metadata["producer_warps"] = extra
        if stage.name == stop_after:
            kernel = CompiledKernel(fn.__name__, asm, params, constants, options, metadata)
            _dump(kernel)
            return kernel
    asm["cubin"], log = _assemble(fn, asm["ptx"], options)
    metadata.update(ptxas_stats(log))
    _warn_of_spills(fn, metadata)
    kernel = CompiledKernel(fn.__name__, asm, params, constants, options, metadata)
    _dump(kernel)
    return kernel


_ENTRY_PARAMS = re.compile(r"(\.entry\s+[\w$]+\s*\([^)]*\))")


def split_boxes(module, tensormaps: list[dict]) -> list[dict]:
    """`tensormaps` with the box of each map whose copies tile-split-ctas shared out among a
    cluster's CTAs cut to a CTA's rows (its parameter's `tile.split_rows`)."""
    kernel = next((op.operation for op in module.body.operations
                   if op.operation.name == "func.func" and
                   "tile.kernel" in op.operation.attributes), None)
    rows = split_rows(kernel) if kernel is not None else {}
    return [{**m, "box": [rows[m["param"]], *m["box"][1:]]} if m["param"] in rows else m
            for m in tensormaps]


def limit_registers(ptx: str, maxnreg: int | None) -> str:
    """`ptx` with a `.maxnreg` directive after each kernel's parameter list (none: unchanged)."""
    if maxnreg is None:
        return ptx
    return _ENTRY_PARAMS.sub(lambda m: f"{m.group(1)}\n.maxnreg {maxnreg}", ptx)


def _assemble(fn: JITFunction, ptx: str, options: CompileOptions) -> tuple[bytes, str]:
    """ptxas: (the cubin, ptxas' -v report)."""
    chip = _chip(options)
    try:
        return assemble(ptx, chip, verbose=True)
    except PtxasError:
        raise CompilationError(f"ptxas rejected the PTX of {fn.__name__}:\n"
                               f"{ptxas_reproducer(fn.__name__, ptx, chip, True)}") from None
    except ToolchainError as err:
        raise CompilationError(f"cannot assemble the PTX of {fn.__name__}: {err}") from None


# 32-bit registers a thread has. One block value needing more than SPILL_FACTOR times that in
# every thread, and that the threads must hold whole (see _WHOLE), cannot be compiled into
# anything useful (a 2^20-element block took 46 s and spilled 40k registers): it is refused
# before lowering. (Elementwise chains, loads and stores of much larger blocks compile without
# spills: their lowering goes through them a few registers at a time.)
# A kernel whose registers ptxas spills by more than SPILL_WARNING bytes gets a warning.
REGISTERS_PER_THREAD = 255
SPILL_FACTOR = 32
SPILL_WARNING = 1024


# Ops whose operands are held in registers whole (others, elementwise ones, loads and stores,
# go through their block a few registers at a time), and loops, whose carried values are.
_WHOLE = ("tile.reduce", "tile.scan", "tile.sort", "tile.gather", "tile.histogram", "tile.dot",
          "tile.cat", "tile.join", "tile.trans")
_CARRYING = ("scf.for", "scf.while")


def _check_block_sizes(fn: JITFunction, module, options: CompileOptions) -> None:
    """OutOfResources, naming the line that makes it, for a block value far too large for the
    program's threads' registers: one they must hold whole (an operand of a reduction, sort,
    dot, ...; a loop-carried value), else any other op's result (elementwise code over such a
    block unrolls into a program LLVM takes minutes to compile: a 2^20-element block on 4
    warps did not finish in 20 minutes)."""
    whole: list = [0, None, None]
    streamed: list = [0, None, None]

    def note(largest: list, types, op) -> None:
        for t in types:
            if isinstance(t, ir.RankedTensorType) and t.has_static_shape:
                element = t.element_type
                bits = 64 if str(element).startswith("!tile.ptr") else getattr(element, "width",
                                                                                32)
                size = math.prod(t.shape) * max(bits, 32) // 32
                if size > largest[0]:
                    largest[:] = [size, op.operation, t]

    def visit(op):
        if op.name in _WHOLE:
            note(whole, [v.type for v in op.operands], op)
        elif op.name in _CARRYING:
            note(whole, [r.type for r in op.results], op)
        else:
            note(streamed, [r.type for r in op.results], op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    threads = options.num_warps * 32
    for words, op, held in (whole, streamed):
        per_thread = -(-words // threads)
        if per_thread <= SPILL_FACTOR * REGISTERS_PER_THREAD:
            continue
        where = user_file_line_col(op.location)
        at = f"{where[0]}:{where[1]}: " if where else ""
        raise OutOfResources(f"{at}a block value of {held} needs about {per_thread} "
                             f"registers in each of the {threads} threads of {fn.__name__} (a "
                             f"thread has {REGISTERS_PER_THREAD}): use smaller blocks or more "
                             "warps")


def _warn_of_spills(fn: JITFunction, stats: dict) -> None:
    spilled = stats.get("spill_stores", 0)
    if spilled > SPILL_WARNING:
        warnings.warn(f"{fn.__name__}: ptxas spills {spilled} bytes of registers to local "
                      f"memory per thread ({fn.filename}:{fn.def_line}); smaller blocks or more "
                      "warps keep them in registers", stacklevel=3)


def _check_shared(fn: JITFunction, module, shared: int, options: CompileOptions) -> None:
    arch = parse_target(options.target)
    limit = shared_limit(arch)
    if shared <= limit:
        return
    where = ""
    if "tilegpu.shared_largest" in module.attributes:
        line = ir.StringAttr(module.attributes["tilegpu.shared_largest"]).value
        where = f"; the largest buffer is for {line}"
    raise OutOfResources(f"{fn.__name__} needs {shared} bytes of shared memory but "
                         f"{options.target} allows {limit}{where}: use smaller blocks")


def compiler_versions() -> dict[str, str]:
    try:
        ptxas = ptxas_version(find_ptxas())
    except (ToolchainError, OSError, subprocess.CalledProcessError):
        ptxas = "none"
    return {"tilec": __version__, "compiler": _compiler_digest(),
            "python": platform.python_version(), "mlir": _mlir_version(), "ptxas": ptxas}


@functools.cache
def _compiler_digest() -> str:
    """A hash of the compiler's own sources (language, passes, lowering, dialects), so a
    changed compiler never loads kernels an older one compiled under the same version."""
    digest = hashlib.sha256()
    roots = {Path(__file__).parent}
    roots |= {Path(m.__file__).parent for m in (tilec.dialects, tilec.passes)}
    for root in sorted(roots):
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".mlir") and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _mlir_version() -> str:
    try:
        return package_metadata.version("xtc-mlir-python-bindings")
    except package_metadata.PackageNotFoundError:
        return "unknown"


def cache_key_of(fn: JITFunction, key: tuple, options: CompileOptions) -> str:
    # Where the kernel is defined matters too: its IR carries the file and line locations.
    where = f"{fn.filename}:{fn.first_line}"
    return make_key(fn.cache_key, where, repr(key), repr(options), versions=compiler_versions())


def cache_enabled() -> bool:
    return os.environ.get("TILEC_CACHE", "1") != "0"


# The metadata of a complete (cubin) kernel, as compile_specialized writes it: field -> type.
_CACHED_METADATA = {"name": str, "num_warps": int, "num_stages": int, "target": str,
                    "shared": int, "registers": int, "spill_stores": int, "spill_loads": int,
                    "wgmma_serialized": list, "wgmma_arrives_injected": list}


def _valid_metadata(metadata: Any) -> bool:
    """Whether `metadata` (parsed from a cache entry) is a dict with every field of
    _CACHED_METADATA, each of its type (bool is not an int here, nor 4.0). Extra fields are
    allowed."""
    return isinstance(metadata, dict) and all(
        type(metadata.get(name)) is kind for name, kind in _CACHED_METADATA.items())


def _from_cache(cache_key: str, fn, params, constants, options) -> CompiledKernel | None:
    if not cache_enabled():
        return None
    cache = KernelCache()
    files, level = cache.get(cache_key), "local"
    remote = remote_cache.backend(compiler_versions)
    if files is None and remote is not None:
        files, level = remote.get("kernel", cache_key), "remote"
        if files is not None:
            try:
                cache.put(cache_key, files)  # the next process on this host reads it locally
            except OSError:
                pass
    if files is None:
        remote_cache.log(f"miss {fn.__name__} {cache_key[:16]}")
        return None
    try:
        metadata = json.loads(files["metadata.json"])
        asm = {stage: files[f"{stage}.mlir"].decode() for stage in ("tile", "tilegpu", "llvm")}
        asm["ptx"] = files["kernel.ptx"].decode()
        asm["cubin"] = files["kernel.cubin"]
        usable = _valid_metadata(metadata)
    except (KeyError, ValueError, UnicodeDecodeError):
        usable = False
    if not usable:
        # The checksums hold but the files are not what compile_specialized writes. Remove the
        # entry and compile again: put keeps an entry that is already there, so without the
        # remove the good one _to_cache writes would be dropped and every compile miss again.
        try:
            cache.remove(cache_key)
        except OSError:
            pass  # a read-only cache: compile in memory, as for a corrupt entry
        if remote is not None and level == "remote":
            remote.remove("kernel", cache_key)
        remote_cache.log(f"unusable {level} entry {fn.__name__} {cache_key[:16]}: rebuilding")
        return None
    remote_cache.log(f"{level} hit {fn.__name__} {cache_key[:16]}")
    kernel = CompiledKernel(fn.__name__, asm, params, constants, options, metadata)
    _dump(kernel)
    return kernel


def _to_cache(cache_key: str, kernel: CompiledKernel) -> None:
    if not cache_enabled():
        return
    files = {f"{stage}.mlir": kernel.asm[stage].encode() for stage in ("tile", "tilegpu", "llvm")}
    files["kernel.ptx"] = kernel.asm["ptx"].encode()
    files["kernel.cubin"] = kernel.asm["cubin"]
    files["metadata.json"] = json.dumps(kernel.metadata).encode()
    try:
        KernelCache().put(cache_key, files)
    except OSError:
        pass  # an unwritable cache only costs a recompilation next time
    remote = remote_cache.backend(compiler_versions)
    if remote is not None:
        remote.put("kernel", cache_key, files)


PTX_FEATURES = "+ptx80"  # the PTX ISA every kernel is written in,
PTX_TENSORMAP = "+ptx83"  # and that of kernels making TMA maps (tensormap.replace)
MAP_PART = "map"  # a TMA descriptor's map parameter is named `name.map`
SCRATCH_ATTR = "tile.global_scratch"  # the scratch parameter, and the bytes a program uses


def tma_descriptor(name: str, parts: tuple, params: list[KernelParam],
                   options: CompileOptions) -> dict | None:
    """The TMA map of the host descriptor parameter `name` (its key's `parts`: base, sizes,
    strides, block shape, padding; `params`: the kernel's parameters so far, its own parts
    last) as metadata["tensormaps"] lists it for the launcher (runtime.TensorMapSource), or
    None where its loads go through pointers: before sm_90, or when what the key knows does
    not guarantee TMA can move its blocks into a layout wgmma reads (2-D blocks of 8-, 16- or
    32-bit elements, at least 8 rows of 32 bytes; a 16-byte-aligned base; outer strides
    multiples of 16 elements; zero padding)."""
    (base_type, base_aligned), *runtime = parts[:-2]
    block_shape, padding = parts[-2][1], parts[-1][1]
    rank = len(block_shape)
    element = base_type[1:]
    if (parse_target(options.target) < 90 or padding != "zero" or not base_aligned or
            element not in tma.ELEMENT_BYTES):
        return None
    found = tma_box(block_shape, 8 * tma.ELEMENT_BYTES[element])
    sizes, strides = runtime[:rank], runtime[rank:]
    if found is None or strides[-1] != ("constexpr", 1) or any(
            kind == "constexpr" or not aligned for kind, aligned in strides[:-1]):
        return None
    box, swizzle = found
    index = {p.name: i for i, p in enumerate(params)}

    def part(i: int, key: tuple) -> list:
        return ["c", key[1]] if key[0] == "constexpr" else ["p", index[f"{name}.{i}"]]

    return {"name": name, "param": len(params), "element": element, "base": index[f"{name}.0"],
            "shape": [part(1 + d, k) for d, k in enumerate(sizes)],
            "strides": [part(1 + rank + d, k) for d, k in enumerate(strides)],
            "box": list(box), "swizzle": swizzle,
            "padding": padding}


def _parameter_type(fn: JITFunction, param: KernelParam) -> ir.Type:
    try:
        return param.type.to_ir()
    except SemanticError as err:  # a type the target lacks (fp8e4b8, fp8e5b16)
        raise checks.parameter_error(fn, param.name, str(err)) from None


def generate_tile_ir(fn: JITFunction, params: list[KernelParam], constants: dict[str, Any],
                     context: ir.Context, debug: bool = False,
                     descriptors: dict[str, int] | None = None,
                     target_arch: int = 90) -> ir.OpView:
    """The frontend's `tile` IR for `fn` with `params` as arguments and `constants` folded
    (device_assert only when `debug`); the parameters named in `descriptors` are host tensor
    descriptors passed by their parts, those given a swizzle there (not 0) with a TMA map
    parameter (`name.map`) too. On sm_`target_arch` >= 90 descriptors made in the kernel may
    get TMA maps, written to a global scratch: the kernel then takes one more parameter, last
    (marked `tile.global_scratch`), and the module's `tile.global_scratch` attribute gives the
    bytes each program uses of it."""
    descriptors = descriptors or {}
    def_loc = ir.Location.file(fn.filename, fn.def_line, fn.indent + 1, context=context)
    with context, def_loc:
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            ftype = ir.FunctionType.get([_parameter_type(fn, p) for p in params], [])
            kernel = func.FuncOp(fn.__name__, ftype)
            kernel.attributes["tile.kernel"] = ir.UnitAttr.get()
            arg_attrs = []
            for p in params:
                attrs = {}
                if p.divisible_by_16:
                    attrs["tile.divisibility"] = ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(32), 16)
                arg_attrs.append(ir.DictAttr.get(attrs))
            kernel.arg_attrs = ir.ArrayAttr.get(arg_attrs)
            entry = kernel.add_entry_block()
        scope = dict(constants)
        for p, arg in zip(params, entry.arguments):
            scope[p.name] = tensor(arg, p.type)
        maps = {name: scope.pop(f"{name}.{MAP_PART}") for name, swizzle in descriptors.items()
                if swizzle}
        scope = nest(scope)  # tuple arguments' elements (`name.0`, ...) back into tuples
        for name, swizzle in descriptors.items():
            scope[name] = tensor_descriptor.from_parts(scope[name], maps.get(name), swizzle)
        with ir.InsertionPoint(entry), MLIR_BUILDER.kernel(target_arch, entry) as state:
            generator = CodeGenerator(fn, scope, debug=debug)
            if generator.generate_body() is not None:
                raise checks.kernel_return_error(fn, generator.return_node)
            func.ReturnOp([])
        if state.scratch is not None:  # maps made in the kernel: the scratch parameter, last
            kernel.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get([a.type for a in entry.arguments], []))
            kernel.arg_attrs = ir.ArrayAttr.get(
                arg_attrs + [ir.DictAttr.get({SCRATCH_ATTR: ir.UnitAttr.get()})])
            module.operation.attributes[SCRATCH_ATTR] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(32), state.maps * tma.DEVICE_MAP_SLOT_BYTES)
        try:
            module.operation.verify()
        except ir.MLIRError as err:
            raise CompilationError("internal compiler error: the frontend produced invalid IR:\n"
                                   + DiagnosticError.from_mlir(err).format()) from None
    return module.operation.opview


def _dump(kernel: CompiledKernel) -> None:
    """TILEC_DUMP_IR=DIR writes every stage of every compiled kernel to DIR."""
    target = os.environ.get("TILEC_DUMP_IR")
    if not target:
        return
    path = Path(target)
    path.mkdir(parents=True, exist_ok=True)
    for stage, text in kernel.asm.items():
        name = {"ptx": "ptx", "cubin": "cubin"}.get(stage, f"{stage}.mlir")
        data = text if isinstance(text, bytes) else text.encode()
        (path / f"{kernel.name}.{name}").write_bytes(data)
