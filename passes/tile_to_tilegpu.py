"""convert-tile-to-tilegpu: layout assignment.

After it runs, every tensor value carries a layout encoding: the default blocked layout for its
shape and `num-warps` (threads walk the fastest dimension first), except where an op fixes
the relation between layouts: the operand of `tile.expand_dims` is the slice of its result's
layout, a reduction's result is the slice of its operand's, `tile.broadcast` keeps its
operand's layout and `tile.gather`'s index has its result's layout. Where the default would
break such a relation a `tilegpu.convert_layout` is inserted; tilegpu-remove-layout-conversions
removes most of them later. The module records `tilegpu.num_warps`, `tilegpu.threads_per_warp`
and `tilegpu.target`, and `tilegpu.num_ctas` when `num-ctas` is above 1 (each program a thread
block cluster of that many CTAs: see convert-tilegpu-to-llvm).

A `tile.tma_load` gets its shared layout here too: it becomes a TMA copy into a buffer in the
`nvmma_shared` layout of its swizzle (the layout TMA writes and wgmma reads), completed on an
mbarrier of its own, and a `local_load` of the buffer into the default layout:
    %bar = local_alloc : memdesc<[1], i64>;  init_barrier %bar {count = 1}
    %buf = local_alloc : memdesc<[M, N], f16, #tilegpu.nvmma_shared<128, 16, [1, 0]>>
    async_tma_copy_global_to_local %map, %bar, %buf, %offsets;  wait_barrier %bar, 0
    %x = local_load %buf;  inval_barrier %bar
and a `tile.tma_store` the value written to such a buffer, fenced for the async proxy, copied
out by TMA and waited for:
    %buf = local_alloc %x;  fence_async_shared;  async_tma_copy_local_to_global %map, %buf,
    %offsets;  tma_store_wait {pendings = 0}

Example (num-warps=4):
    %r = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
becomes
    %r = "tile.make_range"() {...} : () -> tensor<128xi32, #tilegpu.blocked<[1], [32], [4], [0]>>
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from tilec.analysis.layouts import default_blocked
from tilec.dialects import tilegpu
from tilec.dialects import tile
from tilec.dialects.tilegpu import MemDesc, NvmmaSharedLayout, SliceLayout
from tilec.passbase import (NUM_CTAS, NUM_WARPS, TARGET, THREADS_PER_WARP, Option, Pass,
                            op_with_tensor, ops_in, register)


def _i32(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value)


class _Assigner:
    def __init__(self, num_warps: int, threads_per_warp: int):
        self.num_warps = num_warps
        self.threads_per_warp = threads_per_warp

    def default(self, t: ir.RankedTensorType):
        return default_blocked(list(t.shape), self.num_warps, self.threads_per_warp)

    def encode(self, value: ir.Value) -> None:
        t = value.type
        if isinstance(t, ir.RankedTensorType) and t.encoding is None:
            value.set_type(tilegpu.with_layout(t, self.default(t)))

    def run(self, module: ir.Operation) -> None:
        ops = ops_in(module)
        for op in ops:
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.arguments:
                        self.encode(arg)
            for result in op.results:
                self.encode(result)
        for op in ops:
            self.fix(op.operation)

    def fix(self, op: ir.Operation) -> None:
        name = op.name
        if name == "func.func" and len(op.regions[0].blocks):
            # the signature follows the arguments and returned values, which now have layouts
            entry = op.regions[0].blocks[0]
            returns = [o for b in op.regions[0].blocks for o in b.operations
                       if o.operation.name == "func.return"]
            results = ([v.type for v in returns[0].operation.operands] if returns else
                       ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value).results)
            op.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get([a.type for a in entry.arguments], list(results)))
        elif name == "arith.constant" and isinstance(op.results[0].type, ir.RankedTensorType):
            value = op.attributes["value"]
            if isinstance(value, ir.DenseElementsAttr) and value.type != op.results[0].type:
                if not value.is_splat:
                    raise Pass.fail(op, "tensor constants with different elements are not "
                                        "supported yet: build the tensor from tl.arange/"
                                        "tl.where, or load it from memory")
                op.attributes["value"] = ir.DenseElementsAttr.get_splat(
                    op.results[0].type, value.get_splat_value())
        elif name == "tile.expand_dims":
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            parent = tilegpu.tensor_layout(op.results[0].type)
            self.convert_operand(op, 0, SliceLayout(axis, parent))
        elif name == "tile.broadcast":
            self.convert_operand(op, 0, tilegpu.tensor_layout(op.results[0].type))
        elif name == "tile.reduce":
            self.fix_reduce(op)
        elif name == "tile.gather":  # the index is read where the result is held
            self.convert_operand(op, 1, tilegpu.tensor_layout(op.results[0].type))
        elif name == "tile.tma_load":
            _tma_copy(op)
        elif name in ("tile.tma_store", "tile.tma_reduce"):
            _tma_store(op)

    def convert_operand(self, op: ir.Operation, index: int, layout) -> None:
        src = op.operands[index]
        if tilegpu.tensor_layout(src.type) == layout:
            return
        with ir.InsertionPoint(op), op.location:
            op.operands[index] = tilegpu.convert_layout(src, layout)

    def fix_reduce(self, op: ir.Operation) -> None:
        axis = ir.IntegerAttr(op.attributes["axis"]).value
        operand_layouts = [tilegpu.tensor_layout(v.type) for v in op.operands]
        for result, layout in zip(op.results, operand_layouts):
            if not isinstance(result.type, ir.RankedTensorType):
                continue  # a full reduction to a scalar
            wanted = SliceLayout(axis, layout)
            if tilegpu.tensor_layout(result.type) == wanted:
                continue
            default_type = result.type
            result.set_type(tilegpu.with_layout(default_type, wanted))
            uses = [(use.owner, use.operand_number) for use in result.uses]
            with ir.InsertionPoint.after(op), op.location:
                back = tilegpu.convert_layout(result, tilegpu.tensor_layout(default_type))
            for owner, number in uses:
                owner.operands[number] = back


def _tma_layout(op: ir.Operation, block: ir.Type) -> NvmmaSharedLayout:
    """The shared layout a TMA load or store of `block` moves through (its map's swizzle)."""
    rank = len(block.shape)
    swizzle = ir.IntegerAttr(op.attributes["swizzle"]).value
    return NvmmaSharedLayout(swizzle, tile.element_type(block).width,
                             tuple(range(rank - 1, -1, -1)))


def _tma_store(op: ir.Operation) -> None:
    """A tile.tma_store (tile.tma_reduce) as the value written to shared memory, fenced for
    the async proxy, copied out (reduced into the tensor) by TMA, and waited for (until then
    the buffer must not be reused)."""
    value = op.operands[1]
    desc = MemDesc(tuple(value.type.shape), str(tile.element_type(value.type)),
                   _tma_layout(op, value.type), False)
    with ir.InsertionPoint(op), op.location:
        buf = tilegpu.local_alloc(desc, value)
        tilegpu.fence_async_shared()
        if op.name == "tile.tma_reduce":
            tilegpu.async_tma_reduce(op.operands[0], buf, list(op.operands[2:]),
                                     ir.StringAttr(op.attributes["kind"]).value)
        else:
            tilegpu.async_tma_copy_local_to_global(op.operands[0], buf, list(op.operands[2:]))
        tilegpu.tma_store_wait(0)
    op.erase()


def _tma_copy(op: ir.Operation) -> None:
    """A tile.tma_load as its TMA copy into shared memory and a load of the buffer."""
    result = op.results[0]
    element = tile.element_type(result.type)
    layout = _tma_layout(op, result.type)
    with ir.InsertionPoint(op), op.location:
        bar = tilegpu.local_alloc(tilegpu.barrier_memdesc())
        tilegpu.init_barrier(bar, 1)
        buf = tilegpu.local_alloc(MemDesc(tuple(result.type.shape), str(element), layout))
        tilegpu.async_tma_copy_global_to_local(op.operands[0], bar, buf, list(op.operands[1:]))
        tilegpu.wait_barrier(bar, arith.constant(ir.IntegerType.get_signless(32), 0))
        value = tilegpu.local_load(buf, result.type)
        tilegpu.inval_barrier(bar)
    result.replace_all_uses_with(value)
    op.erase()


@register
class ConvertTileToTileGPU(Pass):
    name = "convert-tile-to-tilegpu"
    summary = "Give every tensor a layout (default blocked layouts from num-warps)"
    options = (
        Option("num-warps", int, 4, "warps per program instance", *NUM_WARPS),
        Option("num-ctas", int, 1, "CTAs per program instance (a thread block cluster)",
               *NUM_CTAS),
        Option("threads-per-warp", int, 32, "threads per warp", *THREADS_PER_WARP),
        Option("target", str, "cuda:90", "the target the module is compiled for", *TARGET),
    )

    def run(self, module: ir.Operation) -> None:
        self.require_tile_ir(module)
        _Assigner(self.num_warps, self.threads_per_warp).run(module)
        module.attributes["tilegpu.num_warps"] = _i32(self.num_warps)
        module.attributes["tilegpu.threads_per_warp"] = _i32(self.threads_per_warp)
        if self.num_ctas > 1:
            module.attributes["tilegpu.num_ctas"] = _i32(self.num_ctas)
        module.attributes["tilegpu.target"] = ir.StringAttr.get(self.target)

    def require_tile_ir(self, module: ir.Operation) -> None:
        """The pass assigns every layout at once: input that already has some (tilegpu IR, or
        a mix) would keep layouts that disagree with the ones it assigns."""
        if "tilegpu.num_warps" in module.attributes:
            raise self.fail(module, f"{self.name} expects tile IR, and this module is already "
                                    "tilegpu IR (it has tilegpu.num_warps)")
        op = op_with_tensor(module, laid_out=True)
        if op is not None:
            raise self.fail(op, f"{self.name} expects tile IR (tensors without layouts); "
                                "this value already has one")
