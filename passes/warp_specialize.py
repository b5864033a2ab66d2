"""tilegpu-warp-specialize: a producer warpgroup issues the TMA loads of a loop marked
`tl.range(..., warp_specialize=True)` (the loop's `tile.warp_specialize` attribute, 1), so the
num_warps warps that compute (the consumers) only wait for tiles and release them. Where no
loop is marked, a persistent matmul loop with no word on it (no attribute: `warp_specialize=
False` sets 0) is specialised by the compiler when 8 warps compute (AUTO_WARPS, below).

A marked `scf.for` qualifies when it is in its kernel's top block, its body holds TMA loads as
convert-tile-to-tilegpu leaves them (what tilegpu-pipeline would put in mbarrier rings: see
its docstring), the loads' coordinates and the loop's bounds are scalars computed by pure ops
from the induction variable, values the loop advances by pure ops and values computed before
the loop by pure ops from the kernel's arguments, the loop's step is a positive constant, it
has at least 2 stages (`tile.num_stages`, else the `num-stages` option) and num_warps is whole
warpgroups with room for one more (at most 1,024 threads). Others are left to tilegpu-pipeline
as they are: the request is a hint, as in Triton. A kernel gets at most one split.

After it runs, such a kernel is
    rings of S buffers per load; `full` rings of S mbarriers per load (count 1: the producer's
    expect_tx); an `empty` ring of S mbarriers and a spare (count num_warps * 32: every
    consumer arrives; the spare takes arrivals that release nothing, nobody waits on it)
    init_barrier of each ring; tilegpu.barrier (every thread sees the inits)
    "tilegpu.warp_specialize"() ({   producer region:
        the pure scalar ops before the loop that the loads need, cloned
        scf.for %i = lb to ub step s iter_args(carried load operands, %slot = 0, %phase = 0) {
          wait_barrier(empty[%slot], %phase ^ 1)  (a fresh barrier has completed parity 1)
          the trip's copies into slot %slot, completing on full[%slot]
          advance; %slot = (%slot + 1) % S, %phase flips when %slot wraps to 0 }
        gpu.yield
      }, {                            consumer region: the whole kernel as it was, but the loop:
        scf.for %i ... iter_args(..., %slot = 0, %phase = 0) {
          wait_barrier(full[%slot], %phase) for each load; the body reads the slots in place
          release: arrive_barrier(empty[%slot]) at the end of the body; when the body's last
            wgmma can stay in flight (as tilegpu-pipeline makes it), it does, a wait for one
            pending group follows it, and the slot of the previous trip, which that wait
            retires, is released there instead (from the second trip on; the first arrives on
            the spare: a branch between a wgmma and its wait makes ptxas serialise them all)
          ... }
        (warpgroup_dot_wait for none pending) inval_barrier of every ring, dealloc
        ... the rest of the kernel
        gpu.yield
      }) {producer_warps = 4, producer_registers = 40, consumer_registers = C}
    func.return
TMA maps the kernel makes (tile.make_tensormap, in its top block) move to the front of the
kernel with the pure ops computing their operands, before the rings and the split: every
thread makes them once, and the producer's copies use them.
In a kernel whose rows tile-split-ctas shared out among the N CTAs of its cluster
(`tile.split_ctas`), a load of whole rows (its map a parameter without `tile.split_rows`, and
N dividing its column blocks) is the same block in every CTA: each producer copies 1/N of it
into all of them (`multicast = N`). A slot is then free only when the consumers of every CTA
released it: the empty ring counts num_warps * N arrivals, one per consumer warp and CTA
(`arrive_barrier {ctas = N}`); a `cluster_barrier` replaces the barrier after the inits (no
copy or arrival reaches a CTA before its barriers exist) and ends both regions, the consumers
invalidating the rings after it (another CTA may still release slots here until it is done).
The producer runs up to S trips ahead of the slowest consumer. C is the most registers the
consumers can raise to beside a 40-register producer warpgroup (analysis/registers.py).

A persistent kernel's tile loop qualifies too when it is marked and exactly one loop directly
in its body holds the TMA loads (the K loop): their coordinates may then also come from the
tile loop's induction variable through pure scalar ops of its body. The producer region then
repeats the tile loop (those ops cloned) around its producing loop, and the consumers' tile
loop carries the ring's slot and phase into and out of their K loop, so the producer loads the
next tile while the consumers finish this one. With a wgmma kept in flight, the K loop's last
slot is released after the wait that follows the loop (on the spare when it ran no trip).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from tilec.analysis.op_facts import is_pure
from tilec.analysis.registers import (PRODUCER_REGISTERS, WARPGROUP, check_division,
                                      consumer_registers)
from tilec.dialects import tilegpu
from tilec.passbase import (SPLIT, Pass, module_num_warps, ops_in, register, require_layouts,
                            split_side)
from tilec.passes.pipeline import (NUM_STAGES, _AsyncDot, _barrier_slot, _clone_slice, _i32,
                                   _Loop, _owner, _Pipeliner, _subview, _tma_candidates,
                                   loop_stages, nested_tma_loop, next_slot, tma_rings)
from tilec.passes.split_ctas import split_ctas, split_rows

WS_ATTR = "tile.warp_specialize"


def _scalar(op: ir.Operation) -> bool:
    return not any(isinstance(r.type, ir.ShapedType) for r in op.results)


def _outer_slice(top: ir.Block, outer: _Loop | None,
                 values) -> tuple[list[ir.Operation], list[ir.Operation]] | None:
    """The pure scalar ops without regions computing `values` from the kernel's arguments (and,
    with an `outer` loop, its induction variable): (those of `top`, the kernel's top block, in
    block order; those of the outer loop's body, in body order), or None when another op or
    value is involved (a loop-carried value of the outer loop, a load)."""
    seen: set = set()
    blocks = [top] + ([outer.body] if outer is not None else [])

    def visit(value) -> bool:
        owner = _owner(value)
        if owner is None:  # an argument of the kernel, or the outer loop's induction variable
            return value.owner == top or (outer is not None and value == outer.iv)
        if owner.name == MAKE_MAP and owner.block == top:  # made before the split (_hoist_maps)
            return True
        if owner in seen:
            return True
        if owner.block not in blocks or not is_pure(owner) or owner.regions or \
                not _scalar(owner):
            return False
        seen.add(owner)
        return all(visit(v) for v in owner.operands)

    if not all(visit(v) for v in values):
        return None
    return tuple([op.operation for op in block.operations if op.operation in seen]
                 for block in blocks) + (() if outer is not None else ([],))


MAKE_MAP = "tile.make_tensormap"


def _hoist_maps(top: ir.Block) -> list[ir.Operation] | None:
    """The TMA maps the kernel makes (tile.make_tensormap, which only its top block holds),
    moved with the pure scalar ops computing their operands from the kernel's arguments
    (_outer_slice) to the front of `top`: every thread makes them before the split, and both
    sides use them. Returns the moved ops (none when the kernel makes no map), or None, moving
    nothing, when an operand needs another op."""
    maps = [op.operation for op in top.operations if op.operation.name == MAKE_MAP]
    found = _outer_slice(top, None, [v for op in maps for v in op.operands])
    if found is None:
        return None
    seen = set(found[0]) | set(maps)
    moved = [op.operation for op in top.operations if op.operation in seen]
    anchor = next(op.operation for op in top.operations if op.operation not in seen)
    for op in moved:
        op.move_before(anchor)
    return moved


def _multicast_stages(kernel: ir.Operation, stages) -> list[bool]:
    """Per TMA load, whether the cluster's CTAs copy it once for all (multicast): in a kernel
    whose rows tile-split-ctas shared out, a load of whole rows (its map a parameter without
    tile.split_rows) is the same block in every CTA, and each copies 1/N of its column
    blocks into all of them; only where N divides its column blocks."""
    n = split_ctas(kernel)
    if n == 1:
        return [False] * len(stages)
    entry = kernel.regions[0].blocks[0]
    split = split_rows(kernel)

    def whole(stage) -> bool:
        arg = stage.map
        if not isinstance(arg.owner, ir.Block) or arg.owner != entry:
            return False
        return ir.BlockArgument(arg).arg_number not in split

    def blocks(stage) -> int:
        layout = stage.desc.layout
        return stage.desc.shape[layout.order[0]] // layout.block_width
    return [whole(s) and blocks(s) % n == 0 for s in stages]


class _Specializer(_Pipeliner):
    """The split of one marked loop. `self.loop` is the loop whose body holds the TMA loads:
    the marked loop itself, or the one loop nested in it that does (`self.outer` is then the
    marked loop: a persistent kernel's tiles, the producer running ahead across them)."""

    def __init__(self, loop: ir.Operation, num_stages: int, num_warps: int):
        nested = nested_tma_loop(loop)
        super().__init__(nested or loop, num_stages)
        self.outer = _Loop(loop) if nested is not None else None
        self.num_warps = num_warps
        self.ctas = 1  # the cluster's CTAs that multicast copies and release slots together

    def run(self) -> bool:
        loop = self.loop
        marked = (self.outer or loop).op
        top = marked.block
        if marked.parent is None or marked.parent.name != "func.func":
            return False
        stages = _tma_candidates(loop)
        if not stages:
            return False
        slices = self._slices([v for s in stages for v in (s.map, *s.coords)])
        if slices is None:
            return False
        load_slice, advance_slice, carried = slices
        if not all(_scalar(op) for op in load_slice + advance_slice):
            return False
        inits = list(loop.op.operands[3:])
        needed = list(loop.op.operands[:3]) + [inits[i] for i in carried]
        if self.outer is not None:
            needed += list(self.outer.op.operands[:3])
        for op in load_slice + advance_slice:
            needed += [v for v in op.operands if not self.loop.defines(v)]
        for stage in stages:
            needed += [v for v in (stage.map, *stage.coords) if not self.loop.defines(v)]
        outside = _outer_slice(top, self.outer, needed)
        if outside is None:
            return False
        hoisted = _hoist_maps(top)
        if hoisted is None:
            return False
        self.wgmma = _AsyncDot.find(loop, stages)
        self.multicast = _multicast_stages(marked.parent, stages)
        if any(self.multicast):
            self.ctas = split_ctas(marked.parent)
        self._split(top, stages, outside, load_slice, advance_slice, carried, hoisted)
        return True

    def _split(self, top: ir.Block, stages, outside, load_slice, advance_slice,
               carried, hoisted: list[ir.Operation]) -> None:
        op, S = self.loop.op, self.num_stages
        # every consumer thread releases a slot; in a cluster, each consumer warp of every CTA
        consumers = self.num_warps * 32 if self.ctas == 1 else self.num_warps * self.ctas
        first = next(o.operation for o in top.operations if o.operation not in hoisted)
        with ir.InsertionPoint(first), op.location:
            rings, fulls = tma_rings(stages, S)
            empty = tilegpu.local_alloc(tilegpu.barrier_memdesc(1, S + 1))  # + a spare
            tilegpu.init_barrier(empty, consumers)
            if self.ctas == 1:
                ir.Operation.create("tilegpu.barrier")
            else:  # no CTA copies into, or releases, another's slots before it made them
                tilegpu.cluster_barrier()
            split = tilegpu.warp_specialize(
                WARPGROUP, PRODUCER_REGISTERS,
                consumer_registers(self.num_warps, WARPGROUP, PRODUCER_REGISTERS))
        producer, consumer = (region.blocks[0] for region in split.regions)
        ret = list(top.operations)[-1].operation
        kernel_ops = [o.operation for o in top.operations]
        for moved in kernel_ops[kernel_ops.index(split) + 1:-1]:
            consumer.append(moved)
        with ir.InsertionPoint(consumer), ret.location:
            ir.Operation.create("gpu.yield")
        rings = _Rings(rings, fulls, empty, S, self.ctas)
        with ir.InsertionPoint(producer), op.location:
            self._produce(stages, outside, load_slice, advance_slice, carried, rings)
            if self.ctas > 1:  # (the other producer warps have left: the barrier skips them)
                tilegpu.cluster_barrier()
            ir.Operation.create("gpu.yield")
        self._consume(stages, rings)
        if self.ctas > 1:  # the other CTAs may release slots here until they are done
            with ir.InsertionPoint(list(consumer.operations)[-1].operation), ret.location:
                tilegpu.cluster_barrier()
                rings.release(fulls=False)

    def _produce(self, stages, outside, load_slice, advance_slice, carried,
                 rings: "_Rings") -> None:
        """The producer region: what the copies need, cloned; the outer loop's trips around
        the producing loop when there is one (the slot and phase carried through both)."""
        top_ops, body_ops = outside
        mapping: dict = {}
        _clone_slice(top_ops, mapping)
        if self.outer is None:
            self._produce_loop(stages, load_slice, advance_slice, carried, rings, mapping,
                               [_i32(0), _i32(0)])
            return
        bounds = [mapping.get(v, v) for v in list(self.outer.op.operands)[:3]]
        tiles = scf.ForOp(*bounds, [_i32(0), _i32(0)])
        with ir.InsertionPoint(tiles.body):
            mapping[self.outer.iv] = tiles.induction_variable
            _clone_slice(body_ops, mapping)
            scf.YieldOp(self._produce_loop(stages, load_slice, advance_slice, carried, rings,
                                           mapping, list(tiles.inner_iter_args)))

    def _produce_loop(self, stages, load_slice, advance_slice, carried, rings: "_Rings",
                      mapping: dict, ring_state: list[ir.Value]) -> list[ir.Value]:
        """The producing loop from `ring_state` (slot, phase); the state after it."""
        loop, S = self.loop, self.num_stages
        bounds = [mapping.get(v, v) for v in list(loop.op.operands)[:3]]
        inits = [mapping.get(v, v) for v in [list(loop.op.operands)[3 + i] for i in carried]]
        producer = scf.ForOp(*bounds, inits + ring_state)
        args = list(producer.inner_iter_args)
        slot, phase = args[-2:]
        with ir.InsertionPoint(producer.body):
            tilegpu.wait_barrier(rings.empty_at(slot), arith.xori(phase, _i32(1)))
            trip = dict(mapping)
            trip[loop.iv] = producer.induction_variable
            trip.update({loop.args[i]: v for i, v in zip(carried, args)})
            _clone_slice(load_slice, trip)
            for stage, ring, full, shared in zip(stages, rings.buffers, rings.fulls,
                                                 self.multicast):
                tilegpu.async_tma_copy_global_to_local(
                    trip.get(stage.map, stage.map), _barrier_slot(full, slot),
                    _subview(ring, slot, stage.desc), [trip.get(c, c) for c in stage.coords],
                    multicast=self.ctas if shared else 1)
            scf.YieldOp(self._advance(advance_slice, carried, trip) + next_slot(slot, phase, S))
        return list(producer.results)[-2:]

    def _consume(self, stages, rings: "_Rings") -> None:
        """The consumers' loops: the outer one (if any) carries the ring's slot and phase into
        and out of the consuming loop; the rings are invalidated and freed after the outermost."""
        outer = self.outer
        where = self.loop.op.location
        if outer is None:
            with ir.InsertionPoint(self.loop.op), self.loop.op.location:
                state = [_i32(0), _i32(0)]
            last = self._consume_loop(stages, rings, state)
            if self.wgmma is not None:  # after the wait that retires the last group
                last = self.wgmma.final
        else:
            n_outer = len(outer.args)
            with ir.InsertionPoint(outer.op), outer.op.location:
                tiles = scf.ForOp(*list(outer.op.operands)[:3],
                                  list(outer.op.operands)[3:] + [_i32(0), _i32(0)])
            mover = _Pipeliner(outer.op, self.num_stages)
            _, tile_args, _ = mover._move_body(tiles)
            old_yield = mover.loop.yield_op
            after = self._consume_loop(stages, rings, tile_args[-2:])
            with ir.InsertionPoint(old_yield), outer.op.location:
                scf.YieldOp(list(old_yield.operands) + list(after.results)[-2:])
            old_yield.erase()
            for old, new in zip(outer.op.results, list(tiles.results)[:n_outer]):
                old.replace_all_uses_with(new)
            outer.op.erase()
            last = tiles
        with ir.InsertionPoint.after(last.operation), where:
            if rings.ctas == 1:
                rings.release()
            else:  # every copy into this CTA was waited for: its full barriers are done with;
                # its empty ones wait for the split's closing cluster barrier (the other CTAs
                # may release slots here until they are done)
                for bar in rings.fulls:
                    tilegpu.inval_barrier(bar)

    def _consume_loop(self, stages, rings: "_Rings", state: list[ir.Value]):
        """The consuming loop from ring state `state`: it waits for each trip's slot, reads it
        in place and releases it; the new loop (its last two results: the state after it)."""
        loop, op, S = self.loop, self.loop.op, self.num_stages
        lb, ub, step = op.operands[0], op.operands[1], op.operands[2]
        inits = list(op.operands[3:])
        with ir.InsertionPoint(op), op.location:
            if self.wgmma is not None:
                inits = self.wgmma.opaque_init(inits)
            new_loop = scf.ForOp(lb, ub, step, inits + list(state))
        new_body, new_args, _ = self._move_body(new_loop)
        slot, phase = new_args[-2:]
        with ir.InsertionPoint(list(new_body.operations)[0].operation), op.location:
            for stage, ring, full in zip(stages, rings.buffers, rings.fulls):
                tilegpu.wait_barrier(_barrier_slot(full, slot), phase)
                stage.alloc.results[0].replace_all_uses_with(_subview(ring, slot, stage.desc))
        for stage in stages:
            stage.erase()
        old_yield = loop.yield_op
        if self.wgmma is not None:
            with ir.InsertionPoint.after(self.wgmma.dot), op.location:
                self.wgmma.wait()
                # no branch here, between a wgmma and the wait for it (ptxas would serialise
                # every wgmma, C7514): the first trip arrives on the ring's spare barrier
                later = arith.cmpi(arith.CmpIPredicate.ne, loop.iv, lb)
                tilegpu.arrive_barrier(rings.empty_at(
                    arith.select(later, rings.before(slot), _i32(S))), rings.ctas)
        with ir.InsertionPoint(old_yield), op.location:
            if self.wgmma is None:
                tilegpu.arrive_barrier(rings.empty_at(slot), rings.ctas)
            scf.YieldOp(list(old_yield.operands) + next_slot(slot, phase, S))
        old_yield.erase()
        results = list(new_loop.results)[:len(inits)]
        if self.wgmma is not None:
            results = self.wgmma.finish(new_loop, results)
            self.wgmma.final = results[self.wgmma.carried].owner
            if self.outer is not None:
                # the last trip's slot, read by the group the wait after the loop retired:
                # released there, or the producer, already on the next tile, would wait forever
                with ir.InsertionPoint.after(self.wgmma.final), op.location:
                    ran = arith.cmpi(arith.CmpIPredicate.slt, lb, ub)
                    out_slot = list(new_loop.results)[-2]
                    tilegpu.arrive_barrier(rings.empty_at(
                        arith.select(ran, rings.before(out_slot), _i32(S))), rings.ctas)
        for old, new in zip(op.results, results):
            old.replace_all_uses_with(new)
        op.erase()
        return new_loop


class _Rings:
    """The split's shared state: a ring of buffers and of full barriers per load, and the
    ring of empty barriers, `stages` slots each."""

    def __init__(self, buffers, fulls, empty, stages: int, ctas: int = 1):
        self.buffers, self.fulls, self.empty, self.stages = buffers, fulls, empty, stages
        self.ctas = ctas  # the CTAs whose consumers release each slot (1: this CTA's)

    def release(self, fulls: bool = True) -> None:
        """The barriers invalidated (every copy issued was waited for; the full ones only when
        `fulls`) and the rings freed."""
        for bar in [*self.fulls] * fulls + [self.empty]:
            tilegpu.inval_barrier(bar)
        for buffer in [*self.buffers, *self.fulls, self.empty]:
            tilegpu.local_dealloc(buffer)

    def empty_at(self, slot: ir.Value) -> ir.Value:
        return _barrier_slot(self.empty, slot)

    def before(self, slot: ir.Value) -> ir.Value:
        """The slot before `slot` (the previous trip's)."""
        return arith.remui(arith.addi(slot, _i32(self.stages - 1)), _i32(self.stages))


def consumer_loops(module: ir.Operation) -> list[ir.Operation]:
    """The scf.for ops of the consumer regions of the module's splits (at any depth)."""
    return [loop for split in ops_in(module, SPLIT) for loop in ops_in(split, "scf.for")
            if split_side(loop)[:2] == (split, 1)]


@register
class WarpSpecialize(Pass):
    name = "tilegpu-warp-specialize"
    summary = "A producer warpgroup for the TMA loads of loops marked warp_specialize"
    options = (NUM_STAGES,)  # tilegpu-pipeline's: the two agree on the depth

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        num_warps = module_num_warps(module)
        if check_division(num_warps, WARPGROUP, PRODUCER_REGISTERS,
                          consumer_registers(num_warps, WARPGROUP, PRODUCER_REGISTERS)):
            return  # not whole warpgroups, or no room for a producer: the hint is dropped
        for kernel in ops_in(module, "func.func"):
            # the first marked loop that qualifies, else the first persistent matmul loop
            # with no word on it (AUTO); a split rewrites the kernel (the loops found before
            # it are gone), so the search of this kernel ends there
            if not self._split_first(kernel, num_warps, _marked) and num_warps == AUTO_WARPS:
                self._split_first(kernel, num_warps, _persistent_matmul)

    def _split_first(self, kernel: ir.Operation, num_warps: int, wanted) -> bool:
        for loop in ops_in(kernel, "scf.for"):
            if wanted(loop) and \
                    _Specializer(loop, loop_stages(loop, self.num_stages), num_warps).run():
                return True
        return False


# Unmarked loops the compiler specialises: a persistent kernel's tile loop (in the kernel's top
# block) whose one nested loop holds TMA loads feeding a wgmma kept in flight, with 8 warps
# computing. Measured on an H100 (tutorials/09, fp16, 4096^3 and 8192^3): 128x128x64 tiles
# went from 609 and 566 TFLOP/s to 655 and 638, 128x256x64 from 693 and 650 to 722 and 680;
# one tile a program gained nothing, so other loops wait for the hint.
AUTO_WARPS = 8


def _marked(loop: ir.Operation) -> bool:
    return WS_ATTR in loop.attributes and bool(ir.IntegerAttr(loop.attributes[WS_ATTR]).value)


def _persistent_matmul(loop: ir.Operation) -> bool:
    if WS_ATTR in loop.attributes or loop.parent is None or loop.parent.name != "func.func":
        return False
    nested = nested_tma_loop(loop)
    if nested is None:
        return False
    inner = _Loop(nested)
    return _AsyncDot.find(inner, _tma_candidates(inner)) is not None
