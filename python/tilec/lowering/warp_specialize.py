"""Lowering of `tilegpu.warp_specialize`: the program's warps split in two.

The module's num_warps warps are the consumers; `producer_warps` more (one or more whole
warpgroups, after them) are the producers, so every layout, thread offset and owner predicate
of the consumers' code stays what it would be without the split. The op becomes

    if warp >= num_warps:            (the producers)
        setmaxnreg.dec producer_registers
        if warp == num_warps:        (one warp runs the producer region: its scalar loop issues
            <producer region>         TMA copies from lane 0, which the thread-0 predicates
    else:                             pick: num_warps is a power of 2)
        setmaxnreg.inc consumer_registers   (when above what the launch gave)
        <consumer region>

Barriers inside a region wait for its threads only: named barrier 1 for the consumers (every
consumer thread), 2 for the producer warp (`Lowering.barrier_group`). Consumer warpgroup w's
turns (`warpgroup_turn_wait`/`_pass`) are named barrier 3 + w, of two warpgroups' threads: w
waits on its own (`bar.sync`), and passes by arriving on w + 1's (`bar.arrive`). ptxas honours
setmaxnreg only in a kernel with a known block size and one program per SM
(convert-tilegpu-to-llvm gives it both).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, nvvm, scf

from tilec.analysis.registers import WARPGROUP, launch_registers
from tilec.lowering.context import Lowering, group_index, i32, rule

CONSUMER_BARRIER, PRODUCER_BARRIER, TURN_BARRIERS = 1, 2, 3


def _int(op: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def _lower_region(ctx: Lowering, region: ir.Region, group: tuple[int, int]) -> None:
    """The region's ops but its terminator (gpu.yield), with barriers for `group`."""
    outer, ctx.barrier_group = ctx.barrier_group, group
    try:
        for op in list(region.blocks[0].operations)[:-1]:
            ctx.lower_op(op.operation)
    finally:
        ctx.barrier_group = outer


@rule("tilegpu.warp_specialize")
def lower_warp_specialize(ctx: Lowering, op: ir.Operation):
    producer_warps = _int(op, "producer_warps")
    consumer_registers = _int(op, "consumer_registers")
    threads = (ctx.num_warps + producer_warps) * ctx.threads_per_warp
    launched = -(-launch_registers(threads) // 8) * 8  # what a warp is given, in units of 8
    producing = arith.cmpi(arith.CmpIPredicate.uge, ctx.warp, i32(ctx.num_warps))
    split = scf.IfOp(producing, [], has_else=True)
    with ir.InsertionPoint(split.then_block):
        nvvm.SetMaxRegisterOp(_int(op, "producer_registers"), nvvm.SetMaxRegisterAction.decrease)
        first = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, ctx.warp, i32(ctx.num_warps)), [],
                         has_else=False)
        with ir.InsertionPoint(first.then_block):
            _lower_region(ctx, op.regions[0], (PRODUCER_BARRIER, ctx.threads_per_warp))
            scf.YieldOp([])
        scf.YieldOp([])
    with ir.InsertionPoint(split.else_block):
        if consumer_registers > launched:
            nvvm.SetMaxRegisterOp(consumer_registers, nvvm.SetMaxRegisterAction.increase)
        _lower_region(ctx, op.regions[1],
                      (CONSUMER_BARRIER, ctx.num_warps * ctx.threads_per_warp))
        scf.YieldOp([])
    return []


def _turn(ctx: Lowering, op: ir.Operation, emit) -> None:
    """`emit(barrier, threads)` for the turn op of warpgroup w (every consumer warpgroup, or
    only the op's `warpgroup`): barrier TURN_BARRIERS + w for a wait, + (w + 1) mod G for a
    pass, computed once in the prologue."""
    warpgroups = ctx.num_warps // WARPGROUP
    shift = int(op.name.endswith("_pass"))
    threads = i32(2 * WARPGROUP * ctx.threads_per_warp)
    only = _int(op, "warpgroup")
    if only < 0:
        key = ("turn barrier", shift)
        if key not in ctx.memo:
            group = group_index(ctx, 2, warpgroups)
            with ctx.prologue:
                if shift:
                    group = arith.andi(arith.addi(group, i32(1)), i32(warpgroups - 1))
                ctx.memo[key] = arith.addi(group, i32(TURN_BARRIERS))
        emit(ctx.memo[key], threads)
        return
    mine = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, group_index(ctx, 2, warpgroups),
                               i32(only)), [], has_else=False)
    with ir.InsertionPoint(mine.then_block):
        emit(i32(TURN_BARRIERS + (only + shift) % warpgroups), threads)
        scf.YieldOp([])


@rule("tilegpu.warpgroup_turn_wait")
def lower_warpgroup_turn_wait(ctx: Lowering, op: ir.Operation):
    _turn(ctx, op, lambda barrier, threads: nvvm.BarrierOp(
        None, barrierId=barrier, numberOfThreads=threads))
    return []


@rule("tilegpu.warpgroup_turn_pass")
def lower_warpgroup_turn_pass(ctx: Lowering, op: ir.Operation):
    _turn(ctx, op, lambda barrier, threads: nvvm.BarrierArriveOp(threads, barrierId=barrier))
    return []
