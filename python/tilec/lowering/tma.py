"""Lowering of mbarriers and TMA copies: `init_barrier`, `inval_barrier`, `wait_barrier`,
`async_tma_copy_global_to_local` (and `tile.tma_load`, which convert-tile-to-tilegpu has
already turned into them).

A buffer of barriers is `count` 8-byte mbarrier objects in shared memory. Thread 0 of the program
initialises them (`mbarrier.init`, then `fence.mbarrier_init` so the async proxy sees the
inits), invalidates them, and issues a copy: it arrives on the copy's barrier expecting the
buffer's bytes (`mbarrier.arrive.expect_tx`) and issues one `cp.async.bulk.tensor` per column
block of the `nvmma_shared` buffer (the map's box is one block: the swizzle span wide along the
fastest dimension, the whole tile along the others; block j goes `j * rows * swizzle` bytes in,
at coordinate `coord + j * block_width`). Every thread waits with `mbarrier.try_wait.parity`
in a loop until the phase of the given parity has completed, which happens when the bytes have
landed: what the copy wrote is then visible to the threads that waited.

The map operand is the kernel's by-value map parameter (a generic `!llvm.ptr` to it); the
coordinates go to the instruction innermost first.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, llvm, nvvm, scf

from tilec.analysis.shared_memory import storage_bytes
from tilec.dialects.tilegpu import MemDesc
from tilec.lowering.context import Lowering, LoweringError, i32, owner_predicate, rule
from tilec.lowering.shared_buffer import SMEM, SharedBuffer

def _barrier(buffer: SharedBuffer, index: int = 0) -> ir.Value:
    """The address of barrier `index` of the buffer (a view of one starts at its origin)."""
    index += buffer.origin[0] if buffer.origin else 0
    if not index:
        return buffer.base
    return llvm.getelementptr(ir.Type.parse(SMEM), buffer.base, [], [index],
                              ir.IntegerType.get_signless(64), 0)


def _thread0(ctx: Lowering) -> ir.Value:
    return owner_predicate(ctx, None, None)


@rule("tile.tma_load")
def lower_tma_load(ctx: Lowering, op: ir.Operation):
    raise LoweringError(op, "tile.tma_load is tile IR: convert-tile-to-tilegpu turns it into a "
                            "TMA copy into shared memory (run it first)")


@rule("tilegpu.init_barrier")
def lower_init_barrier(ctx: Lowering, op: ir.Operation):
    buffer: SharedBuffer = ctx.get(op.operands[0])
    count = i32(ir.IntegerAttr(op.attributes["count"]).value)
    first = _thread0(ctx)
    for index in range(math.prod(buffer.desc.shape)):
        nvvm.MBarrierInitOp(_barrier(buffer, index), count, predicate=first)
    nvvm.FenceMbarrierInitOp()
    return []


@rule("tilegpu.inval_barrier")
def lower_inval_barrier(ctx: Lowering, op: ir.Operation):
    buffer: SharedBuffer = ctx.get(op.operands[0])

    def invalidate():
        for index in range(math.prod(buffer.desc.shape)):
            nvvm.MBarrierInvalOp(_barrier(buffer, index))
    first = _thread0(ctx)
    if first is None:  # a program of one thread
        invalidate()
        return []
    if_op = scf.IfOp(first, [], has_else=False)
    with ir.InsertionPoint(if_op.then_block):
        invalidate()
        scf.YieldOp([])
    return []


@rule("tilegpu.wait_barrier")
def lower_wait_barrier(ctx: Lowering, op: ir.Operation):
    """Spin on try_wait.parity (each try suspends the thread for a while in hardware)."""
    bar = _barrier(ctx.get(op.operands[0]))
    phase = ctx.get(op.operands[1])
    loop = scf.WhileOp([], [])
    before = loop.before.blocks.append()
    with ir.InsertionPoint(before):
        done = nvvm.MBarrierTryWaitOp(ir.IntegerType.get_signless(1), bar, phase).result
        scf.ConditionOp(arith.xori(done, arith.constant(ir.IntegerType.get_signless(1), 1)),
                        [])
    after = loop.after.blocks.append()
    with ir.InsertionPoint(after):
        scf.YieldOp([])
    return []


@rule("tilegpu.async_tma_copy_global_to_local")
def lower_tma_copy(ctx: Lowering, op: ir.Operation):
    tensormap = ctx.get(op.operands[0])
    bar = _barrier(ctx.get(op.operands[1]))
    dst: SharedBuffer = ctx.get(op.operands[2])
    coords = [ctx.get(v) for v in list(op.operands)[3:]]
    desc: MemDesc = dst.desc
    layout = desc.layout
    fastest = layout.order[0]
    width = layout.block_width
    blocks = desc.shape[fastest] // width
    block_bytes = math.prod(desc.shape) // blocks * storage_bytes(dst.element)
    first = _thread0(ctx)
    nvvm.MBarrierArriveExpectTxOp(None, bar, i32(block_bytes * blocks), predicate=first)
    cluster = ir.Type.parse("!llvm.ptr<7>")
    byte = ir.IntegerType.get_signless(8)
    for j in range(blocks):
        at = list(coords)
        if j:
            at[fastest] = arith.addi(at[fastest], i32(j * width))
            base = llvm.getelementptr(ir.Type.parse(SMEM), dst.base, [], [j * block_bytes],
                                      byte, 0)
        else:
            base = dst.base
        nvvm.CpAsyncBulkTensorGlobalToSharedClusterOp(
            llvm.addrspacecast(cluster, base), tensormap, list(reversed(at)), bar, [],
            predicate=first)
    return []
