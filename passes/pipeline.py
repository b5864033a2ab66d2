"""tilegpu-pipeline: software pipelining of loops that stage loads in shared memory.

After it runs, an `scf.for` whose body loads a tile from global memory only to write it to
shared memory (`tile.load` feeding `tilegpu.local_alloc`: a dot operand) copies it there with
`cp.async`, `num-stages - 1` trips ahead of its use (the loop's `tile.num_stages` attribute,
from `tl.range(..., num_stages=)`, overrides the option):
- one multi-buffered allocation of `num-stages` tiles per load, made before the loop;
- a prologue issuing the copies of trips 0 .. S-2 (each one commit group);
- in the body: wait until the copies of this trip have landed (`async_wait` with S-2 groups
  left in flight), issue the copies of trip i + S - 1 into the slot trip i - 1 used, read this
  trip's slot; the loop carries the load's operands S-1 trips ahead and the two slot indices;
- when the loop's dot multiplies two staged 16-bit tiles (ldmatrix fragments) over K >= 32,
  the dot is split into K steps of 16 and fragments are loaded one step ahead of their use:
  each step's fragments are read from the slot before the step ahead of it multiplies, and
  before the last step the body waits for trip i + 1 (the one barrier per trip goes there) and
  loads that trip's step-0 fragments, which the loop carries; the next trip multiplies them at
  once, issuing its copies first (`tilegpu.free_slot`: every read of that slot came before the
  barrier);
- when a `tilegpu.warpgroup_dot` of the loop reads staged tiles (or transposed views of them;
  A may be registers) and the loop carries its accumulator to nothing else, the last such dot's
  wgmma group stays in flight across the trip boundary: the dot is `is_async`, a
  `warpgroup_dot_wait` with one group pending follows it and a wait with none pending follows
  the loop. The copies refill the slot the previous trip's group read once that group has
  retired: after the first synchronous warpgroup_dot of the body ahead of it (its own wait
  retires every group), else after that wait (a matmul's one dot: then only from 3 stages on,
  since with 2 the copies would be waited for right after they are issued); a proxy fence in
  front of a warpgroup_dot whose operands both come from the copies goes (as in Triton,
  cp.async writes are not fenced for wgmma);
- a copy for a trip past the end is masked off entirely (cp.async then writes zeros, reads
  nothing), so any trip count, 0 and 1 included, gives the same results; after the loop all
  copies are waited for before the buffers are released.
A loop whose body holds TMA loads (as convert-tile-to-tilegpu leaves a `tile.tma_load`: a
barrier allocated, initialised, waited on and invalidated in the body, a buffer only the copy
writes) has those pipelined instead (`_TmaPipeliner`): a ring of S buffers and a ring of S
mbarriers per load, initialised before the loop; the copies of trips 0 .. S-2 issued before it
(each in an `scf.if` of its trip being in range); each trip waits on its slot's barrier with
the ring's phase bit (carried, flipped each time the read slot wraps to 0) and reads the slot
in place (wgmma included: accelerate-matmul reads a TMA buffer directly); the copies of trip
i + S - 1 go into the slot trip i - 1 read, after an asynchronous wgmma's wait as above, else
first in the body; no copy is left in flight after the loop, whose barriers are invalidated.
A persistent kernel's tile loop whose one nested loop holds such loads (the K loop: bounds the
same for every tile, the loads' coordinates pure ops of the two induction variables and of
values from before the tile loop), outside a warp specialisation, has them staged across its
tiles instead (`_TmaTilePipeliner`), where the kernel's shared memory fits its target with the
rings live across the tile loop: the rings are made before the tile loop and the copies run
S - 1 trips ahead in the walk of every tile's trips, through a cursor (tile, k, and what the
copies need from the tile's body, computed again only when the cursor moves to the next tile)
that both loops carry with the ring's slots and phase; so the next tile's first copies are in
flight while this tile's epilogue runs (Triton's `flatten=True`; measured on an H100: +3 to +7%
for the persistent matmul through descriptors).
A load qualifies when its value is used only by one `local_alloc`, its `other` is absent or
zero (what cp.async's zero fill gives), each thread's part of it comes in runs of at least 4
contiguous bytes along the buffer's fastest dimension (cp.async copies 4, 8 or 16) and its operands are computed from the induction
variable, loop-invariant values and loop-carried values that the loop advances with pure ops
(pointers stepped each trip). Other loads, and loops with `num-stages` < 2, are left alone.
A TMA store (or reduction) in a loop of warp-specialised consumers, as convert-tile-to-tilegpu
leaves it (the value written to a buffer, the copy, a wait for the copy to have read the
buffer), keeps one buffer for every trip, made before the loop, when the kernel's shared memory
still fits its target with it (after the loads above are staged): the wait moves to just before
the next trip writes the buffer, so the copy overlaps the next trip's wgmma (its data already
loaded by the producer) instead of holding up thread 0's warp group, and one more wait follows
the loop, before the buffer is released. (Measured on an H100: +1.1% for a persistent matmul's
128x128 tiles at 4096^3. Without specialisation the next trip waits for its first loads anyway,
and the larger shared memory, less L1, cost 0.5% at 8192^3.)

Example (S = 3, one load):
    scf.for %i = %lb to %ub step %s iter_args(%acc = %z, %p = %p0) {
      %x = "tile.load"(%p, %m) ...; %buf = "tilegpu.local_alloc"(%x); ... uses %buf ...
      %p1 = "tile.addptr"(%p, %inc); scf.yield %acc1, %p1 }
becomes
    %all = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, ...], ...>
    copy trip 0 into slot 0, commit; copy trip 1 (%p0 + %inc) into slot 1, commit
    scf.for %i ... iter_args(%acc, %p, %q = %p0 + 2 %inc, %read = 0, %write = 2) {
      "tilegpu.async_wait"() {num = 1}
      copy trip i + 2 (from %q, masked by %i + 2 %s < %ub) into slot %write, commit
      %buf = "tilegpu.memdesc_subview"(%all, %read, 0, 0); ... uses %buf ...
      scf.yield %acc1, %p1, %q + %inc, (%read + 1) % 3, (%write + 1) % 3 }
    "tilegpu.async_wait"() {num = 0}; "tilegpu.local_dealloc"(%all)
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from tilec.analysis.constants import constant_int, constant_value
from tilec.analysis.op_facts import is_pure
from tilec.analysis.shared_memory import FREE_SLOT_ATTR, copy_width, memdesc_bytes, shared_limit
from tilec.dialects import tile, tilegpu
from tilec.dialects.tilegpu import ASYNC_ATTR, MemDesc
from tilec.language.core import MAX_NUM_STAGES
from tilec.passbase import (Option, Pass, enclosing, ops_in, register, require_layouts,
                            target_arch)
from tilec.passes.allocate_shared_memory import shared_bytes
from tilec.passes.coalesce import access_mask
from tilec.passes.combine import erase_dead_ops

_STAGES_ATTR = "tile.num_stages"


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return owner.operation if isinstance(owner, (ir.Operation, ir.OpView)) else None


def _is_zero(value: ir.Value) -> bool:
    """A (splat) constant zero, integer or float."""
    attr = constant_value(value)
    return attr.value == 0.0 if isinstance(attr, ir.FloatAttr) else constant_int(value) == 0


class _Loop:
    """The pieces of one scf.for the rewrite needs."""

    def __init__(self, loop: ir.Operation):
        self.op = loop
        self.body = loop.regions[0].blocks[0]
        self.iv = self.body.arguments[0]
        self.args = list(self.body.arguments)[1:]
        self.yield_op = list(self.body.operations)[-1].operation

    def in_body(self, op: ir.Operation) -> bool:
        return op.block == self.body

    def defines(self, value: ir.Value) -> bool:
        """Defined by the loop: by a body op, or its induction variable or a carried value."""
        owner = _owner(value)
        if owner is None:
            return value == self.iv or value in self.args
        return self.in_body(owner)

    def slice_of(self, values, carried: set) -> list[ir.Operation] | None:
        """The pure body ops computing `values` from the induction variable, the loop-carried
        arguments (collected into `carried`) and outside values, in body order (None when
        something else is involved)."""
        seen: set = set()
        ops: list[ir.Operation] = []

        def visit(value) -> bool:
            owner = _owner(value)
            if owner is None:
                if value == self.iv:
                    return True
                if value in self.args:
                    carried.add(self.args.index(value))
                    return True
                return value.owner != self.body  # a block argument of an outer region
            if not self.in_body(owner):
                return True
            if owner in seen:
                return True
            if not is_pure(owner) or owner.regions:
                return False
            seen.add(owner)
            if not all(visit(v) for v in owner.operands):
                return False
            ops.append(owner)
            return True

        if not all(visit(v) for v in values):
            return None
        order = {op: i for i, op in enumerate(o.operation for o in self.body.operations)}
        return sorted(ops, key=lambda op: order[op])


def _clone_slice(ops: list[ir.Operation], mapping: dict) -> None:
    """Clone `ops` at the current insertion point with operands renamed by `mapping`
    (results are added to it)."""
    for op in ops:
        clone = op.clone()
        for i, operand in enumerate(op.operands):
            if operand in mapping:
                clone.operands[i] = mapping[operand]
        for old, new in zip(op.results, clone.results):
            mapping[old] = new


class _Stage:
    """One pipelined load: its op, its local_alloc, and the operands it copies."""

    def __init__(self, load: ir.Operation, alloc: ir.Operation):
        self.load = load
        self.alloc = alloc
        self.ptr = load.operands[0]
        self.mask = access_mask(load)
        self.desc = MemDesc.from_type(alloc.results[0].type)


def _candidates(loop: _Loop) -> list[_Stage]:
    stages = []
    for op in list(loop.body.operations):
        op = op.operation
        if op.name != "tile.load" or op.attributes["is_volatile"].value:
            continue
        uses = list(op.results[0].uses)
        if len(uses) != 1:
            continue
        user = uses[0].owner.operation if hasattr(uses[0].owner, "operation") else uses[0].owner
        if user.name != "tilegpu.local_alloc" or not loop.in_body(user):
            continue
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        if segments[2] and not _is_zero(op.operands[-1]):
            continue  # cp.async fills masked elements with zeros only
        stage = _Stage(op, user)
        ptr_type = stage.ptr.type
        if not copy_width(tilegpu.tensor_layout(ptr_type), ptr_type.shape,
                          tile.element_type(op.results[0].type), stage.desc.layout):
            continue  # under 4 contiguous bytes per thread: cp.async cannot copy it
        stages.append(stage)
    return stages


def _i32(value: int) -> ir.Value:
    return arith.constant(ir.IntegerType.get_signless(32), value)


def _positive_constant(value: ir.Value) -> bool:
    return (constant_int(value) or 0) > 0


class _Pipeliner:
    def __init__(self, loop: ir.Operation, num_stages: int):
        self.loop = _Loop(loop)
        self.num_stages = num_stages
        self.prefetch: _Prefetch | None = None
        self.wgmma: _AsyncDot | None = None

    def run(self) -> bool:
        loop = self.loop
        tma = _tma_candidates(loop)
        if tma:
            return _TmaPipeliner(loop.op, self.num_stages).pipeline(tma)
        stages = _candidates(loop)
        slices = self._slices([v for s in stages for v in (s.ptr, s.mask) if v is not None])
        if not stages or slices is None:
            return False
        load_slice, advance_slice, carried = slices
        self.prefetch = _Prefetch.find(loop, stages)
        wgmma = _AsyncDot.find(loop, stages)
        # The copies of trip i + S - 1 wait for the previous trip's group to retire. With 2
        # stages they are waited for at the start of the next trip, so they must be issued
        # well before the end of this one: only where a synchronous dot ahead of the
        # asynchronous one retires that group early.
        if wgmma is not None and (self.num_stages >= 3 or wgmma.retiring_dot() is not None):
            self.wgmma = wgmma
        self._rewrite(stages, load_slice, advance_slice, carried)
        return True

    def _slices(self, operands: list[ir.Value]) -> tuple[list, list, list[int]] | None:
        """(the body ops computing the loads' `operands`, the ops advancing the loop-carried
        values they read, those values' indices), or None when the loop cannot be pipelined:
        fewer than 2 stages, a step not known positive, operands computed by other than pure
        ops of the induction variable, carried and outside values, or carried values that
        advance by more than pure ops of themselves."""
        loop = self.loop
        if self.num_stages < 2 or not _positive_constant(loop.op.operands[2]):
            return None
        carried: set = set()
        load_slice = loop.slice_of(operands, carried)
        if load_slice is None:
            return None
        advance_carried: set = set()
        advance_slice = loop.slice_of([loop.yield_op.operands[i] for i in carried],
                                      advance_carried)
        if advance_slice is None or not advance_carried <= carried:
            return None
        return load_slice, advance_slice, sorted(carried)

    def _split_dot(self, prefetch: _Prefetch, fetched, views) -> ir.Operation:
        """The dot as a chain over K steps: step 0 from the fragments the loop carries, each
        later step's fragments loaded from this trip's slot before the step ahead of it, so
        they are in flight while that step multiplies. Returns the last step's dot (the trip's
        wait, barrier and next step-0 loads go in front of it)."""
        dot = prefetch.dot
        steps = prefetch.k // prefetch.STEP
        with ir.InsertionPoint(dot), dot.location:
            acc = dot.operands[2]
            a, b = fetched
            for j in range(steps):
                following = prefetch.load_step(views, j + 1) if j + 1 < steps else None
                last = ir.Operation.create("tile.dot", results=[acc.type],
                                           operands=[a, b, acc],
                                           attributes={n: dot.attributes[n]
                                                       for n in dot.attributes})
                acc = last.result
                if following is not None:
                    a, b = following
        dot.results[0].replace_all_uses_with(acc)
        dot.erase()
        prefetch.a_load.erase()
        prefetch.b_load.erase()
        return last

    def _copy(self, stages, load_slice, mapping: dict, in_range: ir.Value, slot: ir.Value,
              buffers, free_slot: bool = False) -> None:
        """Issue the copies of one trip (the load operands' slice cloned with `mapping`) into
        `slot`, masked off unless `in_range`. `free_slot`: the slot's last readers are known to
        have passed a barrier since (tilegpu-membar need not order the copy after them)."""
        mapping = dict(mapping)
        _clone_slice(load_slice, mapping)
        for stage, buffer in zip(stages, buffers):
            ptr = mapping.get(stage.ptr, stage.ptr)
            mask_type = tile.like(ptr.type, ir.IntegerType.get_signless(1))
            valid = ir.Operation.create("tile.splat", results=[mask_type],
                                        operands=[in_range]).result
            if stage.mask is not None:
                valid = arith.andi(mapping.get(stage.mask, stage.mask), valid)
            copy = tilegpu.async_copy_global_to_local(ptr, _subview(buffer, slot, stage.desc),
                                                      valid)
            if free_slot:
                copy.owner.attributes[FREE_SLOT_ATTR] = ir.UnitAttr.get()
        tilegpu.async_commit_group()

    def _move_body(self, new_loop) -> tuple[ir.Block, list[ir.Value], dict]:
        """The loop's body moved into `new_loop` (which carries the old values first, then
        the pipeline's), its induction variable and carried values renamed to the new loop's;
        (the new body, its arguments, old value -> new) and `self.loop` follows the move."""
        loop, op = self.loop, self.loop.op
        if _STAGES_ATTR in op.attributes:
            new_loop.operation.attributes[_STAGES_ATTR] = op.attributes[_STAGES_ATTR]
        new_body = new_loop.body
        new_args = list(new_body.arguments)
        n_old = len(loop.args)
        rename = dict(zip([loop.iv, *loop.args], new_args[:1 + n_old]))
        for old, new in rename.items():
            old.replace_all_uses_with(new)
        for body_op in list(loop.body.operations):
            new_body.append(body_op.operation)
        loop.body = new_body
        loop.iv, loop.args = new_args[0], new_args[1:1 + n_old]
        return new_body, new_args, rename

    def _replace_loop(self, op: ir.Operation, new_loop, count: int) -> None:
        """`op`'s results taken from the first `count` of `new_loop`'s (an asynchronous
        wgmma's accumulator waited for right after it), and `op` erased."""
        results = list(new_loop.results)[:count]
        if self.wgmma is not None:
            results = self.wgmma.finish(new_loop, results)
        for old, new in zip(op.results, results):
            old.replace_all_uses_with(new)
        op.erase()

    def _advance(self, advance_slice, carried, mapping: dict) -> list[ir.Value]:
        """The carried values one trip later (the yields' slice cloned with `mapping`)."""
        mapping = dict(mapping)
        _clone_slice(advance_slice, mapping)
        yields = [self.loop.yield_op.operands[i] for i in carried]
        return [mapping.get(y, y) for y in yields]

    def _rewrite(self, stages, load_slice, advance_slice, carried) -> None:
        loop, op, S = self.loop, self.loop.op, self.num_stages
        D = S - 1  # trips the copies run ahead of their use
        lb, ub, step = op.operands[0], op.operands[1], op.operands[2]
        inits = list(op.operands[3:])
        with ir.InsertionPoint(op), op.location:
            buffers = [tilegpu.local_alloc(MemDesc((S, *s.desc.shape), s.desc.element_type,
                                                   s.desc.layout, True)) for s in stages]
            values = [inits[i] for i in carried]  # the carried operands of trip s
            iv = lb
            for s in range(D):  # prologue: trips 0 .. D-1
                mapping = {loop.iv: iv, **{loop.args[i]: v for i, v in zip(carried, values)}}
                in_range = arith.cmpi(arith.CmpIPredicate.slt, iv, ub)
                self._copy(stages, load_slice, mapping, in_range, _i32(s), buffers)
                values = self._advance(advance_slice, carried, mapping)
                iv = arith.addi(iv, step)
            ahead_step = arith.muli(step, arith.constant(step.type, D))
            fetched = []
            if self.prefetch is not None:  # trip 0's first K step, ready before the loop
                tilegpu.async_wait(D - 1)
                views = [_subview(b, _i32(0), st.desc, mutable=False)
                         for b, st in zip(buffers, (self.prefetch.a_stage, self.prefetch.b_stage))]
                fetched = self.prefetch.load_step(views, 0)
            if self.wgmma is not None:
                inits = self.wgmma.opaque_init(inits)
            new_loop = scf.ForOp(lb, ub, step,
                                 inits + values + fetched + [_i32(0), _i32(D)])
        new_body, new_args, rename = self._move_body(new_loop)
        n_old = len(inits)
        for stage in stages:
            stage.ptr = rename.get(stage.ptr, stage.ptr)
            stage.mask = rename.get(stage.mask, stage.mask) if stage.mask is not None else None
        ahead = new_args[1 + n_old:1 + n_old + len(carried)]
        fetched_args = new_args[1 + n_old + len(carried):-2]
        read_slot, write_slot = new_args[-2], new_args[-1]
        first = list(new_body.operations)[0].operation
        prefetch = self.prefetch
        with ir.InsertionPoint(first), op.location:
            if prefetch is None:
                tilegpu.async_wait(D - 1)  # this trip's tiles have landed (in this thread)
            ahead_iv = arith.addi(loop.iv, ahead_step)
            mapping = {loop.iv: ahead_iv, **{loop.args[i]: v for i, v in zip(carried, ahead)}}
            in_range = arith.cmpi(arith.CmpIPredicate.slt, ahead_iv, ub)
            # With prefetching the slot written here was last read before the barrier that
            # ended the previous trip. With an asynchronous wgmma it was read by the previous
            # trip's group: the copies follow this trip's dot and the wait that retires that
            # group (tilegpu-membar puts a barrier between the wait and the copies).
            if self.wgmma is None:
                self._copy(stages, load_slice, mapping, in_range, write_slot, buffers,
                           free_slot=prefetch is not None)
            else:
                with ir.InsertionPoint.after(self.wgmma.dot):
                    self.wgmma.wait()
                retired = self.wgmma.retiring_dot() or self.wgmma.waited.owner
                with ir.InsertionPoint.after(retired):
                    self._copy(stages, load_slice, mapping, in_range, write_slot, buffers)
            views = {}
            for stage, buffer in zip(stages, buffers):
                views[stage.alloc] = _subview(buffer, read_slot, stage.desc, mutable=False)
                stage.alloc.results[0].replace_all_uses_with(views[stage.alloc])
        last_step = None
        if prefetch is not None:
            last_step = self._split_dot(prefetch, fetched_args,
                                        [views[prefetch.a_stage.alloc],
                                         views[prefetch.b_stage.alloc]])
        for stage in stages:
            stage.alloc.erase()
            stage.load.erase()
        _drop_copy_fences(loop.body, buffers)
        old_yield = loop.yield_op
        next_fetched = []
        # The slot the next trip reads; with prefetching, the next trip's first K step is
        # loaded from it while this trip's last step multiplies (every read of this trip's slot
        # comes before the wait and the barrier in front of that step).
        where = last_step if prefetch is not None else old_yield
        with ir.InsertionPoint(where), op.location:
            next_read = arith.remui(arith.addi(read_slot, _i32(1)), _i32(S))
            if prefetch is not None:
                tilegpu.async_wait(D - 1)
                next_views = [_subview(b, next_read, st.desc, mutable=False)
                              for b, st in zip(buffers, (prefetch.a_stage, prefetch.b_stage))]
                next_fetched = prefetch.load_step(next_views, 0)
        with ir.InsertionPoint(old_yield), op.location:
            next_ahead = self._advance(advance_slice, carried, mapping)
            bump = [next_read, arith.remui(arith.addi(write_slot, _i32(1)), _i32(S))]
            scf.YieldOp(list(old_yield.operands) + next_ahead + next_fetched + bump)
        old_yield.erase()
        with ir.InsertionPoint.after(new_loop.operation), op.location:
            tilegpu.async_wait(0)  # copies past the end write (zeros) too
            for buffer in buffers:
                tilegpu.local_dealloc(buffer)
        self._replace_loop(op, new_loop, n_old)  # the wait right after it: before the deallocs


class _Prefetch:
    """The dot whose operands are this loop's two staged tiles (A [M, K], B [K, N], 16-bit:
    ldmatrix fragments), split into K steps of 16: the first step's fragments of the next trip
    are loaded at the end of this one (after the wait and barrier that make them ready), so the
    next trip starts multiplying at once while its later steps load."""

    STEP = 16

    def __init__(self, dot: ir.Operation, a_load: ir.Operation, b_load: ir.Operation,
                 a_stage: _Stage, b_stage: _Stage):
        self.dot, self.a_load, self.b_load = dot, a_load, b_load
        self.a_stage, self.b_stage = a_stage, b_stage
        self.k = a_load.results[0].type.shape[1]
        a, b = a_load.results[0].type, b_load.results[0].type  # kept: the loads get erased
        self.a_step = ir.RankedTensorType.get([a.shape[0], self.STEP], a.element_type,
                                              a.encoding)
        self.b_step = ir.RankedTensorType.get([self.STEP, b.shape[1]], b.element_type,
                                              b.encoding)

    @classmethod
    def find(cls, loop: _Loop, stages: list[_Stage]) -> "_Prefetch | None":
        by_alloc = {s.alloc: s for s in stages}
        for op in loop.body.operations:
            op = op.operation
            if op.name != "tile.dot":
                continue
            loads = [_owner(v) for v in op.operands[:2]]
            if any(l is None or l.name != "tilegpu.local_load" for l in loads):
                continue
            allocs = [_owner(l.operands[0]) for l in loads]
            if any(a not in by_alloc for a in allocs):
                continue
            if any(len(list(l.results[0].uses)) != 1 for l in loads):
                continue
            element = str(tile.element_type(op.operands[0].type))
            k = op.operands[0].type.shape[-1]
            if element not in ("f16", "bf16") or k < 2 * cls.STEP or k % cls.STEP:
                continue
            if len(op.operands[0].type.shape) != 2:  # a batched dot: no ldmatrix fragments
                continue
            return cls(op, loads[0], loads[1], by_alloc[allocs[0]], by_alloc[allocs[1]])
        return None

    def load_step(self, views, j: int):
        """The fragments of K step j from the two slot views."""
        out = []
        for view, desc, result, k_dim in ((views[0], self.a_stage.desc, self.a_step, 1),
                                          (views[1], self.b_stage.desc, self.b_step, 0)):
            offsets = [_i32(0), _i32(0)]
            offsets[k_dim] = _i32(j * self.STEP)
            shape = list(desc.shape)
            shape[k_dim] = self.STEP
            part = MemDesc(tuple(shape), desc.element_type, desc.layout, False)
            out.append(tilegpu.local_load(tilegpu.memdesc_subview(view, offsets, part), result))
        return out


def _drop_copy_fences(body: ir.Block, buffers: list[ir.Value]) -> None:
    """The proxy fence in front of a warpgroup_dot whose shared operands now all come from
    cp.async copies: like Triton, tilec fences only the shared-memory stores of registers
    (local_alloc of a value, local_store) before wgmma reads them, not what cp.async wrote.
    An A in registers (the RS form) needs none, nor a value written to shared memory once
    before the loop (accelerate-matmul fenced it there)."""
    def fenced_elsewhere(value: ir.Value) -> bool:
        if isinstance(value.type, ir.RankedTensorType):
            return True  # registers
        owner = _owner(value)
        while owner is not None and owner.name == "tilegpu.memdesc_trans":
            owner = _owner(owner.operands[0])  # a transposed view of the same buffer
        if owner is None:
            return False
        if owner.name == "tilegpu.memdesc_subview":
            return owner.operands[0] in buffers
        return owner.name == "tilegpu.local_alloc" and len(owner.operands) == 1 and \
            owner.block != body
    ops = [op.operation for op in body.operations]
    for before, op in zip(ops, ops[1:]):
        if op.name == "tilegpu.warpgroup_dot" and before.name == "tilegpu.fence_async_shared" \
                and all(fenced_elsewhere(v) for v in op.operands[:2]):
            before.erase()


class _AsyncDot:
    """A warpgroup_dot of two staged tiles whose accumulator the loop carries and nothing else
    reads: its wgmma group is left in flight (`is_async`); right after it a warpgroup_dot_wait
    with one group pending retires the previous trip's group, and only then are the next
    copies issued, into the slot that group read; after the loop a wait with none pending
    gives the result. Per trip: wait for this trip's tiles, barrier, issue the dot, retire the
    previous one, barrier, issue the copies S - 1 trips ahead."""

    def __init__(self, dot: ir.Operation, carried: int):
        self.dot, self.carried = dot, carried
        self.waited: ir.Value | None = None

    @classmethod
    def find(cls, loop: _Loop, stages: list[_Stage]) -> "_AsyncDot | None":
        """The last such dot of the body (the one whose group can overlap the most: the end
        of this trip and the start of the next, up to the next dot's wait). Its shared
        operands are staged tiles or transposed views of them; A may be registers (the RS
        form: ptxas keeps them until the group retires)."""
        allocs = {s.alloc for s in stages}

        def staged(value: ir.Value) -> bool:
            if isinstance(value.type, ir.RankedTensorType):
                return True
            owner = _owner(value)
            while owner is not None and owner.name == "tilegpu.memdesc_trans":
                owner = _owner(owner.operands[0])
            return owner in allocs
        found = None
        for op in loop.body.operations:
            op = op.operation
            if op.name != "tilegpu.warpgroup_dot":
                continue
            if not all(staged(v) for v in op.operands[:2]):
                continue
            acc, result = op.operands[2], op.results[0]
            if acc not in loop.args or len(list(acc.uses)) != 1:
                continue
            carried = loop.args.index(acc)
            uses = list(result.uses)
            if len(uses) != 1 or uses[0].owner != loop.yield_op or \
                    uses[0].operand_number != carried:
                continue
            found = cls(op, carried)
        return found

    def retiring_dot(self) -> ir.Operation | None:
        """The first synchronous warpgroup_dot of the body ahead of this one: its own wait
        (for no group pending) retires the previous trip's asynchronous group there, so the
        copies into the slot that group read may follow it (attention's dK/dV loop: Q @ K
        comes first, dK last). None when this dot is the body's first."""
        for op in self.dot.block.operations:
            op = op.operation
            if op == self.dot:
                return None
            if op.name == "tilegpu.warpgroup_dot" and ASYNC_ATTR not in op.attributes:
                return op
        return None

    def opaque_init(self, inits: list[ir.Value]) -> list[ir.Value]:
        """The loop's initial accumulator passed through a wait for no group (before the
        loop, where none is in flight): its registers are then defined once, ahead of the
        loop's guard, and carried into the loop and past it on the zero-trip path as they are.
        A constant there (zeros) would be rematerialised by moves on the zero-trip edge, which
        reaches the wait after the loop: ptxas takes those moves for writes to the in-flight
        group's accumulator and serialises every wgmma of the function (C7515)."""
        inits = list(inits)
        inits[self.carried], = tilegpu.warpgroup_dot_wait([inits[self.carried]], 0)
        return inits

    def wait(self) -> None:
        """The wait that retires the previous trip's group (at the insertion point)."""
        self.dot.attributes[ASYNC_ATTR] = ir.UnitAttr.get()
        self.waited, = tilegpu.warpgroup_dot_wait([self.dot.results[0]], 1)

    def finish(self, loop, results: list[ir.Value]) -> list[ir.Value]:
        """The loop yields the waited accumulator; its results with the accumulator waited for
        (no group pending) after the loop."""
        yield_op = list(loop.body.operations)[-1].operation
        yield_op.operands[self.carried] = self.waited
        with ir.InsertionPoint.after(loop.operation), self.dot.location:
            final, = tilegpu.warpgroup_dot_wait([results[self.carried]], 0)
        results = list(results)
        results[self.carried] = final
        return results


class _TmaStage:
    """One TMA load of a loop body as convert-tile-to-tilegpu left it: a barrier allocated,
    initialised, waited on (phase 0) and invalidated in the body, and a buffer the copy alone
    writes."""

    def __init__(self, copy: ir.Operation, bar: ir.Operation, alloc: ir.Operation,
                 barrier_ops: list[ir.Operation]):
        self.copy, self.bar, self.alloc, self.barrier_ops = copy, bar, alloc, barrier_ops
        self.map = copy.operands[0]
        self.coords = list(copy.operands[3:])
        self.desc = MemDesc.from_type(alloc.results[0].type)

    def erase(self) -> None:
        """The per-trip copy, its barrier and buffer (their uses already replaced)."""
        self.copy.erase()
        for barrier_op in self.barrier_ops:
            barrier_op.erase()
        self.bar.erase()
        self.alloc.erase()


_BARRIER_USES = ("tilegpu.init_barrier", "tilegpu.async_tma_copy_global_to_local",
                 "tilegpu.wait_barrier", "tilegpu.inval_barrier")
_WRITERS = ("tilegpu.local_store", "tilegpu.async_copy_global_to_local",
            "tilegpu.async_tma_copy_global_to_local")


def _user(use) -> ir.Operation:
    return use.owner.operation if hasattr(use.owner, "operation") else use.owner


def _tma_candidates(loop: _Loop) -> list[_TmaStage]:
    stages = []
    for op in list(loop.body.operations):
        op = op.operation
        if op.name != "tilegpu.async_tma_copy_global_to_local":
            continue
        bar, alloc = _owner(op.operands[1]), _owner(op.operands[2])
        if any(o is None or o.name != "tilegpu.local_alloc" or len(o.operands) or
               not loop.in_body(o) for o in (bar, alloc)):
            continue
        users = [_user(u) for u in bar.results[0].uses]
        if sorted(u.name for u in users) != sorted(_BARRIER_USES) or \
                any(not loop.in_body(u) for u in users):
            continue
        wait = next(u for u in users if u.name == "tilegpu.wait_barrier")
        if constant_int(wait.operands[1]) != 0:
            continue
        if any(_user(u).name in _WRITERS and _user(u) != op for u in alloc.results[0].uses):
            continue
        stages.append(_TmaStage(op, bar, alloc, [u for u in users if u != op]))
    return stages


class _TmaPipeliner(_Pipeliner):
    """The loop's TMA loads, S - 1 trips ahead: a ring of S buffers and S mbarriers per load,
    allocated and initialised before the loop; a prologue issuing the copies of trips
    0 .. S-2; in the body, a wait on this trip's barrier (its phase bit flips each time the
    ring wraps), the trip's slot read in place, and the copies of trip i + S - 1 into the slot
    trip i - 1 read: right after a wgmma that leaves its group in flight and the wait that
    retires the previous one (as for cp.async), else first in the body. A copy for a trip past
    the end is not issued, so no copy is in flight after the loop, whose barriers are then
    invalidated."""

    def pipeline(self, stages: list[_TmaStage]) -> bool:
        slices = self._slices([v for s in stages for v in (s.map, *s.coords)])
        if slices is None:
            return False
        if self.num_stages >= 3:
            self.wgmma = _AsyncDot.find(self.loop, stages)
        self._rewrite_tma(stages, *slices)
        return True

    def _issue(self, stages, load_slice, mapping: dict, in_range: ir.Value, slot: ir.Value,
               rings, bars) -> None:
        """The copies of one trip into `slot`, when `in_range`."""
        if_op = scf.IfOp(in_range, [], has_else=False)
        with ir.InsertionPoint(if_op.then_block):
            mapping = dict(mapping)
            _clone_slice(load_slice, mapping)
            for stage, ring, bar in zip(stages, rings, bars):
                coords = [mapping.get(c, c) for c in stage.coords]
                tilegpu.async_tma_copy_global_to_local(
                    mapping.get(stage.map, stage.map), _barrier_slot(bar, slot),
                    _subview(ring, slot, stage.desc), coords)
            scf.YieldOp([])

    def _read_and_issue(self, stages, load_slice, trip, rings, bars,
                        slots: tuple[ir.Value, ir.Value, ir.Value]) -> dict:
        """At the top of the body: wait for the read slot (of the phase), read it in place of
        the per-trip buffers, and issue the copies of the trip `trip()` gives ((its mapping,
        whether it is in range), made here) into the write slot (after the asynchronous
        wgmma's wait, if any); the per-trip copies, barriers and buffers go. Returns the
        mapping."""
        read_slot, write_slot, phase = slots
        for stage, ring, bar in zip(stages, rings, bars):
            tilegpu.wait_barrier(_barrier_slot(bar, read_slot), phase)
            stage.alloc.results[0].replace_all_uses_with(_subview(ring, read_slot, stage.desc))
        mapping, in_range = trip()
        if self.wgmma is None:
            self._issue(stages, load_slice, mapping, in_range, write_slot, rings, bars)
        else:
            with ir.InsertionPoint.after(self.wgmma.dot):
                self.wgmma.wait()
                self._issue(stages, load_slice, mapping, in_range, write_slot, rings, bars)
        for stage in stages:
            stage.erase()
        return mapping

    def _rewrite_tma(self, stages, load_slice, advance_slice, carried) -> None:
        loop, op, S = self.loop, self.loop.op, self.num_stages
        D = S - 1
        lb, ub, step = op.operands[0], op.operands[1], op.operands[2]
        inits = list(op.operands[3:])
        with ir.InsertionPoint(op), op.location:
            rings, bars = tma_rings(stages, S)
            values = [inits[i] for i in carried]
            iv = lb
            for s in range(D):  # prologue: trips 0 .. D-1
                mapping = {loop.iv: iv, **{loop.args[i]: v for i, v in zip(carried, values)}}
                self._issue(stages, load_slice, mapping,
                            arith.cmpi(arith.CmpIPredicate.slt, iv, ub), _i32(s), rings, bars)
                values = self._advance(advance_slice, carried, mapping)
                iv = arith.addi(iv, step)
            ahead_step = arith.muli(step, arith.constant(step.type, D))
            if self.wgmma is not None:
                inits = self.wgmma.opaque_init(inits)
            new_loop = scf.ForOp(lb, ub, step, inits + values + [_i32(0), _i32(D), _i32(0)])
        new_body, new_args, rename = self._move_body(new_loop)
        n_old = len(inits)
        for stage in stages:  # a coordinate may be the induction variable itself
            stage.coords = [rename.get(c, c) for c in stage.coords]
        ahead = new_args[1 + n_old:1 + n_old + len(carried)]
        read_slot, write_slot, phase = new_args[-3:]
        first = list(new_body.operations)[0].operation
        with ir.InsertionPoint(first), op.location:
            def trip():
                ahead_iv = arith.addi(loop.iv, ahead_step)
                return ({loop.iv: ahead_iv, **{loop.args[i]: v for i, v in zip(carried, ahead)}},
                        arith.cmpi(arith.CmpIPredicate.slt, ahead_iv, ub))
            mapping = self._read_and_issue(stages, load_slice, trip, rings, bars,
                                           (read_slot, write_slot, phase))
        old_yield = loop.yield_op
        with ir.InsertionPoint(old_yield), op.location:
            next_ahead = self._advance(advance_slice, carried, mapping)
            scf.YieldOp(list(old_yield.operands) + next_ahead +
                        _next_slots(read_slot, write_slot, phase, S))
        old_yield.erase()
        with ir.InsertionPoint.after(new_loop.operation), op.location:
            _release(rings, bars)
        self._replace_loop(op, new_loop, n_old)


def nested_tma_loop(loop: ir.Operation) -> ir.Operation | None:
    """The one scf.for directly in `loop`'s body whose body holds TMA loads (a persistent
    kernel's K loop inside its tile loop), when `loop`'s own body holds none; else None."""
    if _tma_candidates(_Loop(loop)):
        return None
    found = [op.operation for op in _Loop(loop).body.operations
             if op.operation.name == "scf.for" and _tma_candidates(_Loop(op.operation))]
    return found[0] if len(found) == 1 else None


class _TmaTilePipeliner(_TmaPipeliner):
    """A persistent kernel's TMA loads, staged across its tiles: the tile loop `tiles` has one
    nested loop (`self.loop`, the K loop) whose body holds the loads, their coordinates pure
    ops of the two induction variables and of values from before the tile loop, and the K
    loop's bounds the same for every tile. The rings and barriers are made before the tile
    loop, and the copies run S - 1 trips ahead in the walk of every tile's trips: a cursor
    (tile, k, and what the copies need from the tile loop's body for that tile, computed
    again only when the cursor moves to the next tile) carried through both loops with the
    ring's slots and phase, so the copies of the next tile's first trips are issued during
    this tile's last ones and land while its epilogue runs. Done only where the kernel's
    shared memory fits `limit` with the rings live across the tile loop."""

    def __init__(self, tiles: ir.Operation, inner: ir.Operation, num_stages: int):
        super().__init__(inner, num_stages)
        self.tiles = _Loop(tiles)
        self.tile_slice: list[ir.Operation] = []
        self.per_tile: list[ir.Value] = []  # the tile body's values the copies read

    def pipeline_across(self, limit: int) -> bool:
        tiles, loop, S = self.tiles, self.loop, self.num_stages
        stages = _tma_candidates(loop)
        if not stages or not _positive_constant(tiles.op.operands[2]):
            return False
        slices = self._slices([v for s in stages for v in (s.map, *s.coords)])
        if slices is None or slices[2]:  # no values the K loop carries
            return False
        load_slice = slices[0]
        needed = [v for op in load_slice for v in op.operands] + \
            [v for s in stages for v in (s.map, *s.coords)]
        outer = [v for v in needed if not loop.defines(v)]
        carried: set = set()
        tile_slice = tiles.slice_of(outer, carried)
        bounds = list(loop.op.operands[:3])
        bounds_slice = tiles.slice_of(bounds, carried)
        if tile_slice is None or bounds_slice is None or carried or tiles.iv in bounds or \
                any(v == tiles.iv for op in bounds_slice for v in op.operands):
            return False
        rings = sum(S * (memdesc_bytes(s.desc.type()) + 8) for s in stages)
        if shared_bytes(enclosing(tiles.op, "func.func")) + rings > limit:
            return False
        produced = {r for op in tile_slice for r in op.results}
        self.tile_slice = tile_slice
        self.per_tile = list(dict.fromkeys(v for v in outer if v in produced))
        if S >= 3:
            self.wgmma = _AsyncDot.find(loop, stages)
        self._rewrite_across(stages, load_slice, bounds_slice)
        return True

    def _tile_values(self, tile_iv: ir.Value, tile: ir.Value) -> list[ir.Value]:
        """per_tile for `tile` (the tile loop's body slice cloned, its induction variable
        `tile_iv` as `tile`)."""
        mapping = {tile_iv: tile}
        _clone_slice(self.tile_slice, mapping)
        return [mapping[v] for v in self.per_tile]

    def _next(self, cursor: list[ir.Value], inner: list[ir.Value], tile_iv: ir.Value,
              tile_step: ir.Value) -> list[ir.Value]:
        """The cursor (tile, k, per_tile values) one trip on in the walk of every tile's trips
        lb, lb + step, ... < ub of the K loop (`inner`: its bounds); the per_tile values
        computed again when it moves to the next tile."""
        tile, k, values = cursor[0], cursor[1], cursor[2:]
        lb, ub, step = inner
        following = arith.addi(k, step)
        wrap = arith.cmpi(arith.CmpIPredicate.sge, following, ub)
        next_tile = arith.select(wrap, arith.addi(tile, tile_step), tile)
        if values:
            branch = scf.IfOp(wrap, [v.type for v in values], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp(self._tile_values(tile_iv, next_tile))
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp(values)
            values = list(branch.results)
        return [next_tile, arith.select(wrap, lb, following), *values]

    def _mapping(self, tile_iv: ir.Value, cursor: list[ir.Value]) -> dict:
        """What the copies of the cursor's trip see: the induction variables and per_tile."""
        return {tile_iv: cursor[0], self.loop.iv: cursor[1],
                **dict(zip(self.per_tile, cursor[2:]))}

    def _rewrite_across(self, stages, load_slice, bounds_slice) -> None:
        tiles, loop, S = self.tiles, self.loop, self.num_stages
        D = S - 1
        t_op, k_op = tiles.op, loop.op
        t_lb, t_ub, t_step = list(t_op.operands)[:3]
        n_cursor = 2 + len(self.per_tile)
        with ir.InsertionPoint(t_op), t_op.location:
            rings, bars = tma_rings(stages, S)
            mapping: dict = {}
            _clone_slice(bounds_slice, mapping)
            inner = [mapping.get(v, v) for v in list(k_op.operands)[:3]]
            some_trips = arith.cmpi(arith.CmpIPredicate.slt, inner[0], inner[1])
            cursor = [t_lb, inner[0], *self._tile_values(tiles.iv, t_lb)]
            for s in range(D):  # prologue: the walk's first D trips
                valid = arith.andi(some_trips,
                                   arith.cmpi(arith.CmpIPredicate.slt, cursor[0], t_ub))
                self._issue(stages, load_slice, self._mapping(tiles.iv, cursor), valid,
                            _i32(s), rings, bars)
                cursor = self._next(cursor, inner, tiles.iv, t_step)
            new_tiles = scf.ForOp(t_lb, t_ub, t_step, list(t_op.operands)[3:] +
                                  [*cursor, _i32(0), _i32(D), _i32(0)])
        mover = _Pipeliner(t_op, S)
        _, tile_args, _ = mover._move_body(new_tiles)
        tile_iv = tile_args[0]
        state = tile_args[-(n_cursor + 3):]
        k_inits = list(k_op.operands)[3:]
        n_k = len(k_inits)
        with ir.InsertionPoint(k_op), k_op.location:
            if self.wgmma is not None:
                k_inits = self.wgmma.opaque_init(k_inits)
            new_k = scf.ForOp(*list(k_op.operands)[:3], k_inits + state)
        new_body, new_args, _ = self._move_body(new_k)
        cursor = new_args[-(n_cursor + 3):-3]
        read_slot, write_slot, phase = new_args[-3:]
        first = list(new_body.operations)[0].operation
        with ir.InsertionPoint(first), k_op.location:
            self._read_and_issue(
                stages, load_slice, lambda: (self._mapping(tile_iv, cursor), arith.cmpi(
                    arith.CmpIPredicate.slt, cursor[0], t_ub)), rings, bars,
                (read_slot, write_slot, phase))
        old_yield = loop.yield_op
        with ir.InsertionPoint(old_yield), k_op.location:
            following = self._next(cursor, list(new_k.operation.operands)[:3], tile_iv, t_step)
            scf.YieldOp(list(old_yield.operands) + following +
                        _next_slots(read_slot, write_slot, phase, S))
        old_yield.erase()
        self._replace_loop(k_op, new_k, n_k)
        tile_yield = mover.loop.yield_op
        with ir.InsertionPoint(tile_yield), t_op.location:
            scf.YieldOp(list(tile_yield.operands) + list(new_k.results)[-(n_cursor + 3):])
        tile_yield.erase()
        where = t_op.location
        for old, new in zip(t_op.results, list(new_tiles.results)[:len(t_op.results)]):
            old.replace_all_uses_with(new)
        t_op.erase()
        with ir.InsertionPoint.after(new_tiles.operation), where:
            _release(rings, bars)


_TMA_STORES = ("tilegpu.async_tma_copy_local_to_global", "tilegpu.async_tma_reduce")


def _next_op(op: ir.Operation) -> ir.Operation | None:
    ops = [o.operation for o in op.block.operations]
    index = ops.index(op) + 1
    return ops[index] if index < len(ops) else None


def _tma_stores(loop: ir.Operation) -> list[ir.Operation]:
    """The TMA stores (and reductions) of `loop`'s body, not in a loop nested in it, as
    convert-tile-to-tilegpu leaves them: a buffer made of the value just before the copy, and
    a wait for the copy to have read it right after."""
    stores = []
    for op in ops_in(loop, *_TMA_STORES):
        if op == loop or enclosing(op, "scf.for") != loop:
            continue
        alloc, wait = _owner(op.operands[1]), _next_op(op)
        if (alloc is None or alloc.name != "tilegpu.local_alloc" or len(alloc.operands) != 1
                or alloc.block != op.block or len(list(alloc.results[0].uses)) != 1
                or wait is None or wait.name != "tilegpu.tma_store_wait"
                or ir.IntegerAttr(wait.attributes["pendings"]).value != 0):
            continue
        stores.append(op)
    return stores


def _defer_tma_store_wait(loop: ir.Operation, store: ir.Operation, limit: int) -> None:
    """One buffer for the TMA store of every trip, made before the loop, and the wait for the
    previous trip's copy to have read it moved to just before the buffer is written again (and
    after the loop, before the buffer is released). The buffer is live across the whole loop,
    so this is done only where the kernel's shared memory still fits `limit`."""
    alloc, wait = _owner(store.operands[1]), _next_op(store)
    desc = MemDesc.from_type(alloc.results[0].type)
    func = enclosing(loop, "func.func")
    if shared_bytes(func, (alloc, loop)) > limit:
        return
    with ir.InsertionPoint(loop), loop.location:
        buf = tilegpu.local_alloc(MemDesc(desc.shape, desc.element_type, desc.layout))
    with ir.InsertionPoint(alloc), alloc.location:
        tilegpu.tma_store_wait(0)
        tilegpu.local_store(alloc.operands[0], buf)
    store.operands[1] = buf
    wait.erase()
    alloc.erase()
    with ir.InsertionPoint(_next_op(loop)), loop.location:
        tilegpu.tma_store_wait(0)
        tilegpu.local_dealloc(buf)


def tma_rings(stages, count: int) -> tuple[list[ir.Value], list[ir.Value]]:
    """Per TMA load (`stages`), a ring of `count` buffers and a ring of `count` mbarriers
    (each initialised for one arrival: the copy's expect_tx), made here."""
    rings = [tilegpu.local_alloc(MemDesc((count, *s.desc.shape), s.desc.element_type,
                                         s.desc.layout, True)) for s in stages]
    bars = [tilegpu.local_alloc(tilegpu.barrier_memdesc(1, count)) for _ in stages]
    for bar in bars:
        tilegpu.init_barrier(bar, 1)
    return rings, bars


def next_slot(slot: ir.Value, phase: ir.Value, stages: int) -> list[ir.Value]:
    """The next trip's slot of a ring of `stages`, and its phase bit (flipped when the slot
    wraps to 0: a slot's mbarrier completes once per lap of the ring)."""
    following = arith.remui(arith.addi(slot, _i32(1)), _i32(stages))
    wrapped = arith.extui(ir.IntegerType.get_signless(32),
                          arith.cmpi(arith.CmpIPredicate.eq, following, _i32(0)))
    return [following, arith.xori(phase, wrapped)]


def _release(rings: list[ir.Value], bars: list[ir.Value]) -> None:
    """The rings' barriers invalidated and the rings released (every copy issued into them was
    waited for)."""
    for bar in bars:
        tilegpu.inval_barrier(bar)
    for buffer in rings + bars:
        tilegpu.local_dealloc(buffer)


def _next_slots(read_slot: ir.Value, write_slot: ir.Value, phase: ir.Value,
                stages: int) -> list[ir.Value]:
    """A TMA ring's read slot, write slot and phase one trip on."""
    next_read, next_phase = next_slot(read_slot, phase, stages)
    return [next_read, arith.remui(arith.addi(write_slot, _i32(1)), _i32(stages)), next_phase]


def loop_stages(loop: ir.Operation, default: int) -> int:
    """The stages a loop asks for (`tl.range(..., num_stages=)`), else `default`."""
    if _STAGES_ATTR in loop.attributes:
        return ir.IntegerAttr(loop.attributes[_STAGES_ATTR]).value
    return default


NUM_STAGES = Option("num-stages", int, 3, "tiles in flight per pipelined load",
                    lambda v: 0 <= v <= MAX_NUM_STAGES, f"from 0 to {MAX_NUM_STAGES}")


def _barrier_slot(ring: ir.Value, slot: ir.Value) -> ir.Value:
    """The barrier of `slot` of a ring of barriers."""
    return tilegpu.memdesc_subview(ring, [slot, _i32(0)], tilegpu.barrier_memdesc(1))


def _subview(buffer: ir.Value, slot: ir.Value, desc: MemDesc, mutable: bool = True) -> ir.Value:
    view = MemDesc(desc.shape, desc.element_type, desc.layout, mutable)
    return tilegpu.memdesc_subview(buffer, [slot, *[_i32(0) for _ in desc.shape]], view)


@register
class Pipeline(Pass):
    name = "tilegpu-pipeline"
    summary = "Software pipelining: multi-buffered shared memory, async copies"
    options = (NUM_STAGES,)

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        limit = shared_limit(target_arch(module))
        nests = [(tiles, nested_tma_loop(tiles)) for tiles in ops_in(module, "scf.for")
                 if enclosing(tiles, "tilegpu.warp_specialize") is None]
        for tiles, inner in nests:
            if inner is not None:
                _TmaTilePipeliner(tiles, inner, loop_stages(inner, self.num_stages)) \
                    .pipeline_across(limit)
        for loop in ops_in(module, "scf.for"):
            _Pipeliner(loop, loop_stages(loop, self.num_stages)).run()
        for loop in ops_in(module, "scf.for"):
            if loop_stages(loop, self.num_stages) < 2 or \
                    enclosing(loop, "tilegpu.warp_specialize") is None:
                continue
            for store in _tma_stores(loop):
                _defer_tma_store_wait(loop, store, limit)
        erase_dead_ops(module)
