"""tilegpu-ping-pong: the consumer warpgroups of a warp specialisation take turns to issue the
wgmma groups of a loop that computes between its dots (attention: S = Q K^T, the softmax of S,
O += P V), so that one warpgroup's softmax runs while the other's dots keep the tensor cores
busy.

Without turns the warpgroups run the loop in step: both issue S, both wait for it, both compute
the softmax while the tensor cores idle, both issue P V. With turns, warpgroup w issues a dot
only after w - 1 has issued its own (round-robin over the G consumer warpgroups; ping-pong for
two), so their dots alternate on the tensor cores and each warpgroup's softmax overlaps the
others' dots.

A loop qualifies when it is in the consumer region of a `tilegpu.warp_specialize` whose
num_warps make two or more warpgroups, and its body holds two or more `tilegpu.warpgroup_dot`
directly (not under an `scf.if`: every warpgroup must take every turn; scalar loop bounds are
the same in every warpgroup) and no turn yet (the pass ran before). Each such dot becomes

    tilegpu.warpgroup_turn_wait {warpgroup = -1}
    %d = tilegpu.warpgroup_dot ... {is_async}      (already asynchronous: left so)
    tilegpu.warpgroup_turn_pass {warpgroup = -1}
    %r = tilegpu.warpgroup_dot_wait %d {pendings = 0}   (a synchronous dot's own wait; its
                                                         uses read %r)

and the ring of turns starts before the loop with the last warpgroup's pass
(`warpgroup_turn_pass {warpgroup = G - 1}`, which lets warpgroup 0 take the first turn) and
ends after it with warpgroup 0's wait for the last pass (`warpgroup_turn_wait {warpgroup =
0}`), so no arrival is left on a barrier when the loop runs again (the next tile of a
persistent kernel) or the kernel ends.

A pair of asynchronous dots with only views of buffers between them (what
tilegpu-overlap-dots makes: this trip's Q K^T and the previous trip's P V) is one turn: the
warpgroup issues both, then passes.

Only the issue is ordered: a turn passes once the group is committed, before its wait, and
the barriers order no memory (tilegpu-membar places its own).

The compiler's pipeline does not run this pass (tilec-opt does): measured on an H100
(2026-12-07, attention_fwd_tma d128 with warp specialisation, one round), a turn a dot gained
nothing alone (-7% to +2%) and cost 2-10% beside tilegpu-overlap-dots; the pair as one turn
is not measured yet.
"""
from __future__ import annotations

from mlir import ir

from tilec.analysis.registers import WARPGROUP
from tilec.dialects import tilegpu
from tilec.dialects.tilegpu import ASYNC_ATTR
from tilec.passbase import Pass, module_num_warps, register, require_layouts
from tilec.passes.overlap_dots import VIEWS_AND_CONSTANTS
from tilec.passes.warp_specialize import consumer_loops


def _dots(loop: ir.Operation) -> list[ir.Operation]:
    return [op.operation for op in loop.regions[0].blocks[0].operations
            if op.operation.name == "tilegpu.warpgroup_dot"]


def _taking_turns(loop: ir.Operation) -> bool:
    """Whether the loop's body has turns already (the pass ran before)."""
    return any(op.operation.name == "tilegpu.warpgroup_turn_wait"
               for op in loop.regions[0].blocks[0].operations)


def _groups(loop: ir.Operation) -> list[list[ir.Operation]]:
    """The body's dots in turns: asynchronous dots with only views of buffers between them
    (tilegpu-overlap-dots' pair) share one; any other dot has its own."""
    groups, current = [], None
    for op in loop.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "tilegpu.warpgroup_dot":
            if current is not None and ASYNC_ATTR in op.attributes and \
                    ASYNC_ATTR in current[-1].attributes:
                current.append(op)
            else:
                current = [op]
                groups.append(current)
        elif op.name not in VIEWS_AND_CONSTANTS:
            current = None
    return groups


def _take_turns(loop: ir.Operation, warpgroups: int) -> None:
    for group in _groups(loop):
        with ir.InsertionPoint(group[0]), group[0].location:
            tilegpu.warpgroup_turn_wait()
        dot = group[-1]
        with ir.InsertionPoint.after(dot), dot.location:
            passed = tilegpu.warpgroup_turn_pass()
        if ASYNC_ATTR in dot.attributes:
            continue
        dot.attributes[ASYNC_ATTR] = ir.UnitAttr.get()
        result = dot.results[0]
        uses = list(result.uses)
        with ir.InsertionPoint.after(passed), dot.location:
            waited, = tilegpu.warpgroup_dot_wait([result], 0)
        for use in uses:
            use.owner.operands[use.operand_number] = waited
    with ir.InsertionPoint(loop), loop.location:
        tilegpu.warpgroup_turn_pass(warpgroups - 1)
    with ir.InsertionPoint.after(loop), loop.location:
        tilegpu.warpgroup_turn_wait(0)


@register
class PingPong(Pass):
    name = "tilegpu-ping-pong"
    summary = ("Consumer warpgroups of a warp specialisation take turns to issue the dots of "
               "loops that compute between them")

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        warpgroups = module_num_warps(module) // WARPGROUP
        if warpgroups < 2:
            return
        for loop in consumer_loops(module):
            if len(_dots(loop)) >= 2 and not _taking_turns(loop):
                _take_turns(loop, warpgroups)
