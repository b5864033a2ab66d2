"""convert-tilegpu-to-llvm: warp distribution.

After it runs, each kernel `func.func` of the `tilegpu` program is a `gpu.func` kernel in one
`gpu.module @kernels`, written per thread: every tensor became the SSA values of the elements
this thread holds (its layout says which), with `llvm`/`nvvm`/`arith`/`math`/`scf` ops; the
module is marked `gpu.container_module` (a kernel parameter that is a TMA map, `!llvm.ptr`, is
listed in the gpu.func's `tilec.tensormaps` for tilegpu-tensormap-params) and keeps the shared
memory the kernels need
(`tilegpu.shared_bytes`, from tilegpu-allocate-shared-memory; 0 without it). Ops using shared
memory take the offsets that pass gave them; the barriers between them are tilegpu-membar's. The rules are in python/tilec/lowering/, one per op; an op without
one is reported at its location. Its lit tests are in test/Conversion/tilegpu-to-llvm/, one file
per module of python/tilec/lowering/ (`frame.mlir` for the kernel's frame and thread ids).

A module with `tilegpu.num_ctas` N above 1 (each program a thread block cluster of N CTAs, on
sm_90) gets gpu.funcs with `nvvm.cluster_dim = array<i32: N, 1, 1>` (PTX `.reqnctapercluster`:
an ordinary launch of N times as many CTAs along x makes the clusters), `tile.program_id` and
`tile.num_programs` read the cluster's id and count (`gpu.cluster_id`, `gpu.cluster_dim`), and
unless tile-split-ctas shared the kernel's rows out among its CTAs (`tile.split_ctas`), the entry
branches on `%cluster_ctarank`: the first CTA of each cluster runs the program, the others return
at once.

With `enable-fp-fusion=true` (what the compiler passes unless a launch says
`enable_fp_fusion=False`, as in Triton) every float `arith.mulf`, `addf`, `subf` and `negf` of the
kernel is marked `contract`, so LLVM may fuse a multiply and the add or subtract of its product
into one `fma.rn` (one rounding instead of two); without it each rounds on its own, as the
interpreter does.

Example (a splat of %x into tensor<256xf32, #tilegpu.blocked<[1], [32], [4], [0]>>, 4 warps):
two registers per thread, both %x:
    %v = "tile.splat"(%x) : (f32) -> tensor<256xf32, #blocked>   ==>   (nothing: uses of %v
                                                                        read %x directly)
"""
from __future__ import annotations

import re

from mlir import ir
from mlir.dialects import arith, cf, gpu

from tilec.analysis.axis_info import analyze
from tilec.lowering import Lowering, LoweringError
from tilec.lowering.context import cluster_rank, value_type
from tilec.passbase import (Option, Pass, module_num_ctas, module_num_warps, register,
                             require_layouts, target_arch)
from tilec.passes.split_ctas import SPLIT_ATTR
from tilec.passes.tensormap_params import TENSORMAPS_ATTR

# The float ops whose `contract` flag lets LLVM fuse a multiply with an add or subtract of it.
_CONTRACTIBLE = frozenset({"arith.mulf", "arith.addf", "arith.subf", "arith.negf"})


def _allow_contraction(root: ir.Operation) -> None:
    """Add `contract` to the fastmath flags of every contractible op under `root`."""
    def visit(op):
        if op.name in _CONTRACTIBLE:
            flags = str(op.attributes["fastmath"]) if "fastmath" in op.attributes else ""
            kept = [f for f in re.findall(r"\w+", flags.partition("<")[2]) if f != "none"]
            if "contract" not in kept and "fast" not in kept:
                op.attributes["fastmath"] = ir.Attribute.parse(
                    f"#arith.fastmath<{','.join(kept + ['contract'])}>")
        return ir.WalkResult.ADVANCE
    root.walk(visit)


def producer_warps(func_op: ir.Operation) -> int:
    """The warps a kernel adds to num_warps for its warp specialisation (0: none)."""
    found = []

    def visit(op):
        if op.name == "tilegpu.warp_specialize":
            found.append(ir.IntegerAttr(op.attributes["producer_warps"]).value)
        return ir.WalkResult.ADVANCE
    func_op.walk(visit)
    return max(found, default=0)


def _kernel_module_text(name: str, arg_types: list[ir.Type], threads: int,
                        where: ir.Location, one_per_sm: bool = False, num_ctas: int = 1) -> str:
    """The kernel's frame, at the kernel's own location (diagnostics about the gpu.func, the
    module or its return point to the user's `def`, not to this text)."""
    args = ", ".join(f"%arg{i}: {t} {where}" for i, t in enumerate(arg_types))
    # setmaxnreg needs ptxas to know the block size and that one program runs per SM
    minimum = ", nvvm.minctasm = 1 : i32" if one_per_sm else ""
    if num_ctas > 1:  # .reqnctapercluster: a plain launch makes clusters of num_ctas CTAs
        minimum += f", nvvm.cluster_dim = array<i32: {num_ctas}, 1, 1>"
    return (f"gpu.module @kernels {{\n"
            f"  llvm.mlir.global external @global_smem() {{addr_space = 3 : i32, "
            f"alignment = 1024 : i64}} : !llvm.array<0 x i8> {where}\n"
            f"  gpu.func @{name}({args}) kernel attributes "
            f"{{known_block_size = array<i32: {threads}, 1, 1>{minimum}}} {{\n"
            f"    gpu.return {where}\n  }} {where}\n}} {where}")


def _first_cta_only(entry: ir.Block, gpu_return: ir.Operation,
                    where: ir.Location) -> ir.Operation:
    """Make the kernel's code run in the first CTA of each cluster only: the entry block
    branches on %cluster_ctarank to a new block holding `gpu_return` (the kernel's code goes
    before what this returns) or, in the cluster's other CTAs, to a return. A program whose
    work is not split across its CTAs runs whole in one of them (once, as its stores and
    atomics must be)."""
    body = entry.create_after()
    leave = body.create_after()
    with where:
        with ir.InsertionPoint(leave):
            gpu.ReturnOp([])
        with ir.InsertionPoint(body):
            kept = gpu.ReturnOp([])
        gpu_return.erase()
        with ir.InsertionPoint(entry):
            first = arith.cmpi(arith.CmpIPredicate.eq, cluster_rank(),
                               arith.constant(ir.IntegerType.get_signless(32), 0))
            cf.CondBranchOp(first, [], [], body, leave)
    return kept.operation


@register
class ConvertTileGPUToLLVM(Pass):
    name = "convert-tilegpu-to-llvm"
    summary = "Warp distribution: per-thread code in a gpu.func kernel"
    options = (Option("enable-fp-fusion", bool, False,
                      "mark float multiplies, adds and subtracts `contract` (fma fusion)"),)

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        attrs = module.attributes
        num_warps = module_num_warps(module)
        threads_per_warp = ir.IntegerAttr(attrs["tilegpu.threads_per_warp"]).value \
            if "tilegpu.threads_per_warp" in attrs else 32
        arch = target_arch(module)
        self.num_ctas = module_num_ctas(module)
        body = module.regions[0].blocks[0]
        kernels = [op.operation for op in body.operations if op.operation.name == "func.func"]
        gpu_module = None
        for func_op in kernels:
            gpu_module = self._lower(func_op, body, gpu_module, num_warps, threads_per_warp,
                                     arch)
            func_op.erase()
        if self.enable_fp_fusion and gpu_module is not None:
            _allow_contraction(gpu_module.operation)
        module.attributes["gpu.container_module"] = ir.UnitAttr.get()
        if "tilegpu.shared_bytes" not in attrs:  # no allocation ran: no op uses shared memory
            module.attributes["tilegpu.shared_bytes"] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(32), 0)

    def _lower(self, func_op: ir.Operation, body: ir.Block, gpu_module: ir.Operation | None,
               num_warps: int, threads_per_warp: int, arch: int) -> ir.Operation:
        """Lower one kernel into a new gpu.func of `gpu_module` (made by the first kernel:
        every kernel of the program lives in the one `gpu.module @kernels`)."""
        name = ir.StringAttr(func_op.attributes["sym_name"]).value
        if not func_op.regions[0].blocks:
            raise self.fail(func_op, f"cannot lower @{name}: a declaration has no body to lower")
        entry = func_op.regions[0].blocks[0]
        for i, arg in enumerate(entry.arguments):
            if isinstance(arg.type, ir.ShapedType) or "tilegpu.memdesc" in str(arg.type):
                raise self.fail(func_op, f"cannot lower @{name}: argument #{i} is {arg.type}; a "
                                "kernel takes scalars and pointers (pass a block through a pointer)")
        arg_types = [value_type(a.type) for a in entry.arguments]
        extra = producer_warps(func_op)
        with func_op.location:
            parsed = ir.Operation.parse(
                _kernel_module_text(name, arg_types, (num_warps + extra) * threads_per_warp,
                                    func_op.location, one_per_sm=extra > 0,
                                    num_ctas=self.num_ctas))
        gpu_func = [op.operation for op in parsed.regions[0].blocks[0].operations
                    if op.operation.name == "gpu.func"][0]
        maps = [i for i, a in enumerate(entry.arguments) if str(a.type) == "!llvm.ptr"]
        if maps:  # TMA maps, by value: tilegpu-tensormap-params makes them so
            gpu_func.attributes[TENSORMAPS_ATTR] = ir.DenseI32ArrayAttr.get(maps)
        if gpu_module is None:
            gpu_module = parsed
            body.append(gpu_module.operation)
        else:
            last = list(gpu_module.regions[0].blocks[0].operations)[-1]
            gpu_func.move_after(last.operation)
            parsed.erase()
        gpu_entry = gpu_func.regions[0].blocks[0]
        gpu_return = list(gpu_entry.operations)[-1]
        if self.num_ctas > 1 and SPLIT_ATTR not in func_op.attributes:
            gpu_return = _first_cta_only(gpu_entry, gpu_return, func_op.location)
        lowering = Lowering(num_warps, threads_per_warp, arch, self.num_ctas)
        lowering.axis = analyze(func_op)  # the kernel stays unchanged while it is lowered
        for arg, new_arg in zip(entry.arguments, gpu_entry.arguments):
            lowering.set(arg, new_arg)
        with ir.InsertionPoint(gpu_return), func_op.location:
            lowering.start_function()
            try:
                lowering.lower_block(entry)
            except LoweringError as err:
                raise self.fail(err.op, str(err)) from None
        return gpu_module
