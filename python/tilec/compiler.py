"""The compiler driver: a specialised kernel through the stages of ../shared/DESIGN.md.

`tilec.compile(fn, signature=..., constexprs=...)` compiles ahead of time without a GPU; a
launch compiles through `compile_specialized` with the key computed from its arguments. Each
stage's IR is kept as text in `CompiledKernel.asm` (today: "tile").
"""
from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlir import ir
from mlir.dialects import func

from tilec.context import make_context
from tilec.diagnostics import DiagnosticError
from tilec.errors import BackendUnavailable, CompilationError
from tilec.frontend.codegen import CodeGenerator
from tilec.jit import JITFunction
from tilec.language.core import tensor
from tilec.language.dtypes import dtype, parse_type
from tilec.pipeline import parse_pipeline, run_pipeline

_EMPTY = inspect.Parameter.empty

# The passes that turn the frontend's output into the `tile` stage.
TILE_PIPELINE = "builtin.module(tile-combine,canonicalize,cse,tile-combine)"


@dataclass(frozen=True)
class CompileOptions:
    num_warps: int = 4
    num_stages: int = 3
    target: str = "cuda:90"
    debug: bool = False

    def __post_init__(self):
        if self.num_warps <= 0 or self.num_warps & (self.num_warps - 1):
            raise ValueError(f"num_warps must be a power of two, got {self.num_warps}")
        if self.num_stages < 1:
            raise ValueError(f"num_stages must be at least 1, got {self.num_stages}")
        parse_target(self.target)


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


@dataclass
class CompiledKernel:
    name: str
    asm: dict[str, str]
    params: list[KernelParam]
    constants: dict[str, Any]
    options: CompileOptions
    metadata: dict[str, Any] = field(default_factory=dict)

    def launch(self, grid, bound_args: dict[str, Any]):
        raise BackendUnavailable(
            f"cannot launch {self.name}: the GPU backend (layout passes, warp distribution, "
            "PTX/cubin) is not built yet. Inspect the IR with tilec.compile(...).asm['tile'].")


def _signature_entry(text: str) -> tuple[dtype, bool]:
    text = text.strip()
    base, _, attr = text.partition(":")
    if attr not in ("", "16"):
        raise ValueError(f"signature entry {text!r}: only ':16' (divisible by 16) is supported")
    return parse_type(base), attr == "16"


def compile(fn: JITFunction, signature: dict[str, str] | None = None,
            constexprs: dict[str, Any] | None = None, target: str = "cuda:90",
            num_warps: int = 4, num_stages: int = 3, debug: bool = False) -> CompiledKernel:
    """Compile `fn` ahead of time: `signature` gives each runtime parameter's type
    (`"*fp32"`, `"i32:16"`, ...), `constexprs` the value of each constexpr parameter (and may fix
    ordinary ones). Needs no GPU."""
    if not isinstance(fn, JITFunction):
        raise TypeError("tilec.compile takes a @tilec.jit function")
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
            ty, div = _signature_entry(signature[p.name])
            key.append((ty.codegen_name(), div))
        else:
            raise TypeError(f"{fn.__name__}: parameter '{p.name}' needs a type in signature= "
                            "or a value in constexprs=")
    options = CompileOptions(num_warps=num_warps, num_stages=num_stages, target=target,
                             debug=debug)
    return compile_specialized(fn, tuple(key), options)


def compile_specialized(fn: JITFunction, key: tuple, options: CompileOptions) -> CompiledKernel:
    """Compile `fn` for one specialisation key (see JITFunction.specialization)."""
    missing = [p.name for p, (kind, value) in zip(fn.params, key)
               if kind == "constexpr" and value is _EMPTY]
    if missing:
        raise CompilationError(
            f"kernel {fn.__name__} needs a value for tl.constexpr parameter(s) "
            f"{', '.join(missing)}: pass them as constexprs= (or as launch arguments)",
            fn.filename, fn.def_line, fn.indent, fn.source_line(fn.def_line))
    params, constants = [], {}
    for p, (kind, value) in zip(fn.params, key):
        if kind == "constexpr":
            constants[p.name] = value
        else:
            params.append(KernelParam(p.name, parse_type(kind), bool(value)))
    context = make_context()
    module = generate_tile_ir(fn, params, constants, context)
    try:
        run_pipeline(module, parse_pipeline(TILE_PIPELINE))
    except DiagnosticError as err:
        raise CompilationError(f"the tile-stage passes failed:\n{err.format()}") from None
    asm = {"tile": module.operation.get_asm(enable_debug_info=True)}
    kernel = CompiledKernel(fn.__name__, asm, params, constants, options,
                            metadata={"name": fn.__name__, "num_warps": options.num_warps,
                                      "num_stages": options.num_stages,
                                      "target": options.target})
    _dump(kernel)
    return kernel


def generate_tile_ir(fn: JITFunction, params: list[KernelParam], constants: dict[str, Any],
                     context: ir.Context) -> ir.OpView:
    """The frontend's `tile` IR for `fn` with `params` as arguments and `constants` folded."""
    def_loc = ir.Location.file(fn.filename, fn.def_line, fn.indent + 1, context=context)
    with context, def_loc:
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            ftype = ir.FunctionType.get([p.type.to_ir() for p in params], [])
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
        with ir.InsertionPoint(entry):
            returned = CodeGenerator(fn, scope).generate_body()
            if returned is not None:
                raise CompilationError(f"kernel {fn.__name__} returns a value: kernels write "
                                       "their results through pointers", fn.filename,
                                       fn.def_line, fn.indent, fn.source_line(fn.def_line))
            func.ReturnOp([])
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
        (path / f"{kernel.name}.{stage}.mlir").write_text(text)
