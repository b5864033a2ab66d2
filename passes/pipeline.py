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
- a copy for a trip past the end is masked off entirely (cp.async then writes zeros, reads
  nothing), so any trip count, 0 and 1 included, gives the same results; after the loop all
  copies are waited for before the buffers are released.
A load qualifies when its value is used only by one `local_alloc`, its `other` is absent or
zero (what cp.async's zero fill gives), each thread's part of it comes in runs of at least 4
contiguous bytes along the buffer's fastest dimension (cp.async copies 4, 8 or 16) and its operands are computed from the induction
variable, loop-invariant values and loop-carried values that the loop advances with pure ops
(pointers stepped each trip). Other loads, and loops with `num-stages` < 2, are left alone.

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

from tilec.dialects import tile, tilegpu
from tilec.dialects.tilegpu import MemDesc
from tilec.passbase import Option, Pass, ops_in, register
from tilec.passes.combine import erase_dead_ops, is_pure
from tilec.shared_memory import copy_width

_STAGES_ATTR = "tile.num_stages"


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return owner.operation if isinstance(owner, (ir.Operation, ir.OpView)) else None


def _is_zero(value: ir.Value) -> bool:
    op = _owner(value)
    if op is None or op.name != "arith.constant":
        return False
    attr = op.attributes["value"]
    if isinstance(attr, ir.DenseElementsAttr):
        if not attr.is_splat:
            return False
        attr = attr.get_splat_value()
    if isinstance(attr, ir.FloatAttr):
        return attr.value == 0.0
    return isinstance(attr, ir.IntegerAttr) and attr.value == 0


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
        segments = list(ir.DenseI32ArrayAttr(load.attributes["operandSegmentSizes"]))
        self.mask = load.operands[1] if segments[1] else None
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
    op = _owner(value)
    return op is not None and op.name == "arith.constant" and \
        isinstance(op.attributes["value"], ir.IntegerAttr) and \
        ir.IntegerAttr(op.attributes["value"]).value > 0


class _Pipeliner:
    def __init__(self, loop: ir.Operation, num_stages: int):
        self.loop = _Loop(loop)
        self.num_stages = num_stages

    def run(self) -> bool:
        loop = self.loop
        stages = _candidates(loop)
        if not stages or self.num_stages < 2 or not _positive_constant(loop.op.operands[2]):
            return False
        carried: set = set()
        operands = [v for s in stages for v in (s.ptr, s.mask) if v is not None]
        load_slice = loop.slice_of(operands, carried)
        if load_slice is None:
            return False
        # The carried values the loads read must advance by pure ops of themselves alone.
        advance_carried: set = set()
        advance_slice = loop.slice_of([loop.yield_op.operands[i] for i in carried],
                                      advance_carried)
        if advance_slice is None or not advance_carried <= carried:
            return False
        self._rewrite(stages, load_slice, advance_slice, sorted(carried))
        return True

    def _copy(self, stages, load_slice, mapping: dict, in_range: ir.Value, slot: ir.Value,
              buffers) -> None:
        """Issue the copies of one trip (the load operands' slice cloned with `mapping`) into
        `slot`, masked off unless `in_range`."""
        mapping = dict(mapping)
        _clone_slice(load_slice, mapping)
        for stage, buffer in zip(stages, buffers):
            ptr = mapping.get(stage.ptr, stage.ptr)
            mask_type = tile.like(ptr.type, ir.IntegerType.get_signless(1))
            valid = ir.Operation.create("tile.splat", results=[mask_type],
                                        operands=[in_range]).result
            if stage.mask is not None:
                valid = arith.andi(mapping.get(stage.mask, stage.mask), valid)
            tilegpu.async_copy_global_to_local(ptr, _subview(buffer, slot, stage.desc), valid)
        tilegpu.async_commit_group()

    def _advance(self, advance_slice, carried, mapping: dict) -> list[ir.Value]:
        """The carried values one trip later (the yields' slice cloned with `mapping`)."""
        mapping = dict(mapping)
        _clone_slice(advance_slice, mapping)
        yields = [self.loop.yield_op.operands[i] for i in carried]
        return [mapping.get(y, y) for y in yields]

    def _rewrite(self, stages, load_slice, advance_slice, carried) -> None:
        loop, op, S = self.loop, self.loop.op, self.num_stages
        lb, ub, step = op.operands[0], op.operands[1], op.operands[2]
        inits = list(op.operands[3:])
        with ir.InsertionPoint(op), op.location:
            buffers = [tilegpu.local_alloc(MemDesc((S, *s.desc.shape), s.desc.element_type,
                                                   s.desc.layout, True)) for s in stages]
            values = [inits[i] for i in carried]  # the carried operands of trip s
            iv = lb
            for s in range(S - 1):  # prologue: trips 0 .. S-2
                mapping = {loop.iv: iv, **{loop.args[i]: v for i, v in zip(carried, values)}}
                in_range = arith.cmpi(arith.CmpIPredicate.slt, iv, ub)
                self._copy(stages, load_slice, mapping, in_range, _i32(s), buffers)
                values = self._advance(advance_slice, carried, mapping)
                iv = arith.addi(iv, step)
            ahead_step = arith.muli(step, arith.constant(step.type, S - 1))
            new_loop = scf.ForOp(lb, ub, step, inits + values + [_i32(0), _i32(S - 1)])
        if _STAGES_ATTR in op.attributes:
            new_loop.operation.attributes[_STAGES_ATTR] = op.attributes[_STAGES_ATTR]
        new_body = new_loop.body
        new_args = list(new_body.arguments)
        n_old = len(inits)
        rename = dict(zip([loop.iv, *loop.args], new_args[:1 + n_old]))
        for old, new in rename.items():
            old.replace_all_uses_with(new)
        for body_op in list(loop.body.operations):
            new_body.append(body_op.operation)
        loop.body = new_body
        loop.iv, loop.args = new_args[0], new_args[1:1 + n_old]
        for stage in stages:
            stage.ptr = rename.get(stage.ptr, stage.ptr)
            stage.mask = rename.get(stage.mask, stage.mask) if stage.mask is not None else None
        ahead = new_args[1 + n_old:1 + n_old + len(carried)]
        read_slot, write_slot = new_args[-2], new_args[-1]
        first = list(new_body.operations)[0].operation
        with ir.InsertionPoint(first), op.location:
            tilegpu.async_wait(S - 2)  # this trip's tiles have landed (in this thread)
            ahead_iv = arith.addi(loop.iv, ahead_step)
            mapping = {loop.iv: ahead_iv, **{loop.args[i]: v for i, v in zip(carried, ahead)}}
            in_range = arith.cmpi(arith.CmpIPredicate.slt, ahead_iv, ub)
            self._copy(stages, load_slice, mapping, in_range, write_slot, buffers)
            for stage, buffer in zip(stages, buffers):
                view = _subview(buffer, read_slot, stage.desc, mutable=False)
                stage.alloc.results[0].replace_all_uses_with(view)
        for stage in stages:
            stage.alloc.erase()
            stage.load.erase()
        old_yield = loop.yield_op
        with ir.InsertionPoint(old_yield), op.location:
            next_ahead = self._advance(advance_slice, carried, mapping)
            bump = [arith.remui(arith.addi(slot, _i32(1)), _i32(S))
                    for slot in (read_slot, write_slot)]
            scf.YieldOp(list(old_yield.operands) + next_ahead + bump)
        old_yield.erase()
        for old, new in zip(op.results, list(new_loop.results)[:n_old]):
            old.replace_all_uses_with(new)
        with ir.InsertionPoint.after(new_loop.operation), op.location:
            tilegpu.async_wait(0)  # copies past the end write (zeros) too
            for buffer in buffers:
                tilegpu.local_dealloc(buffer)
        op.erase()


def _subview(buffer: ir.Value, slot: ir.Value, desc: MemDesc, mutable: bool = True) -> ir.Value:
    view = MemDesc(desc.shape, desc.element_type, desc.layout, mutable)
    return tilegpu.memdesc_subview(buffer, [slot, *[_i32(0) for _ in desc.shape]], view)


@register
class Pipeline(Pass):
    name = "tilegpu-pipeline"
    summary = "Software pipelining: multi-buffered shared memory, async copies"
    options = (Option("num-stages", int, 3, "tiles in flight per pipelined load"),)

    def run(self, module: ir.Operation) -> None:
        for loop in ops_in(module, "scf.for"):
            stages = self.num_stages
            if _STAGES_ATTR in loop.attributes:
                stages = ir.IntegerAttr(loop.attributes[_STAGES_ATTR]).value
            _Pipeliner(loop, stages).run()
        erase_dead_ops(module)
