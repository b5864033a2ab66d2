"""tilegpu-overlap-dots: in a warp-specialised loop of two dots with work between them
(attention: S = Q K^T, the softmax of S, O += P V), the second dot of trip j - 1 is issued
right after the first dot of trip j, and the work between them in trip j (the softmax) runs
while it is on the tensor cores: each warpgroup overlaps its own softmax with its own dots.

A loop of the consumer region of a `tilegpu.warp_specialize` qualifies when its body holds
two synchronous `tilegpu.warpgroup_dot` D1 and D2 (in that order, directly in the body) and
    - D2's result only goes to the yield, as the carried accumulator `acc`, which the body
      reads after D1 only (attention rescales it by the softmax's correction);
    - D2's A operand is a tensor (P, in registers) and its B operand a view of a slot of a
      ring of 3 or more stages (memdesc_subview and memdesc_trans ops of values from outside
      the loop and carried values);
    - the ops after D2 are the release of a ring slot (`arrive_barrier` of a view, which
      moves with D2: the slot is free once D2 has read it) and pure ops not reading D2;
    - every other op is pure or waits on a barrier, and nested regions read only their own
      values and values from outside the loop.
With A = the body but D2 and its release, the loop becomes

    if lb < ub:
        A(lb)                                  (the first trip's D1 and softmax, before the loop)
        for j = lb + step to ub (carrying D2's accumulator input, P and the slot of trip j - 1):
            A(j) up to D1 (D1 asynchronous)
            D2(j - 1)  (asynchronous)           then the wait for one pending group gives D1
            A(j) after D1 ...                   (the softmax: D2(j - 1) in flight)
            wait for no group before A first reads acc (D2(j - 1)'s result), then the release
            of trip j - 1's slot
        D2(last trip) and its release
    else: the loop's initial values

so the body keeps one more value of P alive (32 registers a thread at 64 x 128 fp16 a
warpgroup). The trip's slot is released one trip later, so the ring must have 3 stages or
more (with 2 the producer waits a trip for each slot: measured 7-11% slower on an H100, where
3 stages measured 4-12% faster than the loop as written). This is FlashAttention-3's
intra-warpgroup overlap; tilegpu-ping-pong (tilec-opt only) gives the pair one turn.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from tilec.analysis.op_facts import is_pure
from tilec.dialects import tilegpu
from tilec.dialects.tilegpu import ASYNC_ATTR
from tilec.passbase import Pass, ancestor_in, register, require_layouts
from tilec.passes.pipeline import _Loop, _clone_slice, _owner, _user
from tilec.passes.warp_specialize import consumer_loops

_VIEWS = ("tilegpu.memdesc_subview", "tilegpu.memdesc_trans")
# what the rewritten body holds between D1 and D2 of the trip before: D2's views, cloned
VIEWS_AND_CONSTANTS = _VIEWS + ("arith.constant",)
_WAITS = ("tilegpu.wait_barrier",)


def _closed(op: ir.Operation, loop: _Loop) -> bool:
    """Whether the ops nested in `op` read only their own regions' values and values from
    outside the loop."""
    ok = [True]

    def visit(inner):
        if inner.operation == op:
            return ir.WalkResult.ADVANCE
        for value in inner.operands:
            owner = _owner(value)
            if owner is None:
                if value == loop.iv or value in loop.args:
                    ok[0] = False
            elif loop.in_body(owner):
                ok[0] = False
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return ok[0]


class _Overlap:
    def __init__(self, loop_op: ir.Operation):
        self.loop = _Loop(loop_op)

    def _views(self, value: ir.Value, prev: set) -> list[ir.Operation] | None:
        """The view ops of the body computing `value` (a memdesc) and the constants they
        take, in body order, the carried values they read added to `prev`; None when anything
        else computes it."""
        loop, ops = self.loop, []
        while True:
            owner = _owner(value)
            if owner is None:
                if value in loop.args:
                    return None  # a carried buffer
                break
            if not loop.in_body(owner):
                break
            if owner.name not in _VIEWS:
                return None
            for operand in list(owner.operands)[1:]:
                inner = _owner(operand)
                if operand == loop.iv:
                    return None
                if operand in loop.args:
                    prev.add(loop.args.index(operand))
                elif inner is not None and loop.in_body(inner):
                    if inner.name != "arith.constant":
                        return None
                    ops.append(inner)
            ops.append(owner)
            value = owner.operands[0]
        order = {op: i for i, op in enumerate(o.operation for o in loop.body.operations)}
        return sorted(set(ops), key=lambda op: order[op])

    def find(self) -> bool:
        loop = self.loop
        ops = [o.operation for o in loop.body.operations][:-1]
        dots = [o for o in ops if o.name == "tilegpu.warpgroup_dot"]
        if len(dots) != 2 or any(ASYNC_ATTR in d.attributes for d in dots):
            return False
        self.d1, self.d2 = d1, d2 = dots
        uses = list(d2.results[0].uses)
        if len(uses) != 1 or uses[0].owner != loop.yield_op:
            return False
        self.carried = c = uses[0].operand_number
        acc = loop.args[c]
        order = {op: i for i, op in enumerate(ops + [loop.yield_op])}
        readers = [ancestor_in(_user(use), loop.body) for use in acc.uses]
        if any(top not in order or order[top] <= order[d1] or top == d2 for top in readers):
            return False
        # where the trip waits for D2 of the trip before (the end of the body if unread)
        self.first_read = min(readers, key=order.get) if readers else None
        a, b, accs = d2.operands
        if not isinstance(a.type, ir.RankedTensorType):
            return False
        self.prev: set[int] = set()
        self.b_views = self._views(b, self.prev)
        subviews = [v for v in self.b_views or () if v.name == "tilegpu.memdesc_subview"]
        if not subviews:
            return False
        ring = tilegpu.MemDesc.from_type(subviews[0].operands[0].type)
        if len(ring.shape) < 3 or ring.shape[0] < 3:
            return False  # a slot is held a trip longer: two stages would starve the producer
        self.release: list[ir.Operation] = []
        for op in ops[ops.index(d2) + 1:]:
            if op.name == "tilegpu.arrive_barrier":
                views = self._views(op.operands[0], self.prev)
                if views is None:
                    return False
                self.release += [v for v in views if v not in self.release] + [op]
            elif not is_pure(op) or any(v == d2.results[0] for v in op.operands):
                return False
        moved = set(self.b_views) | set(self.release) | {d2}
        for op in ops:
            if op in moved:
                continue
            if not (is_pure(op) or op.name in _WAITS or op == d1):
                return False
            if op.regions and not _closed(op, loop):
                return False
        # D2's views and the release are cloned for trip j - 1; a view A reads too stays in A
        self.a_ops = [op for op in ops if op not in moved or (
            op.name in VIEWS_AND_CONSTANTS and _used_by_others(op, moved))]
        return True

    def rewrite(self) -> None:
        loop, op = self.loop, self.loop.op
        lb, ub, step = op.operands[0], op.operands[1], op.operands[2]
        inits = list(op.operands[3:])
        c, prev = self.carried, sorted(self.prev)
        _, b, _ = self.d2.operands
        count = len(inits)
        with ir.InsertionPoint(op), op.location:
            ran = arith.cmpi(arith.CmpIPredicate.slt, lb, ub)
            guard = scf.IfOp(ran, [v.type for v in op.results], has_else=True)
        with ir.InsertionPoint(guard.else_block), op.location:
            scf.YieldOp(inits)
        with ir.InsertionPoint(guard.then_block), op.location:
            # the first trip's A
            first = {loop.iv: lb, **{arg: init for arg, init in zip(loop.args, inits)}}
            _clone_slice(self.a_ops, first)
            new_loop = scf.ForOp(arith.addi(lb, step), ub, step,
                                 self._carry(first, [inits[k] for k in prev]))
            body = new_loop.body
            args = list(body.arguments)[1:]
            with ir.InsertionPoint(body):
                self._body(new_loop.induction_variable, args, count)
            results = list(new_loop.results)
            last = {loop.args[k]: results[count + 1 + n] for n, k in enumerate(prev)}
            _clone_slice(self.b_views, last)
            final = tilegpu.warpgroup_dot(results[count], last.get(b, b), results[c],
                                          self.d2.attributes)
            _clone_slice(self.release, last)
            scf.YieldOp([final if i == c else r for i, r in enumerate(results[:count])])
        for old, new in zip(op.results, guard.results):
            old.replace_all_uses_with(new)
        op.erase()

    def _body(self, iv, args, count: int) -> None:
        loop, c, prev = self.loop, self.carried, sorted(self.prev)
        _, b, _ = self.d2.operands
        acc_in, p_in = args[c], args[count]
        mapping = {loop.iv: iv, **{arg: new for i, (arg, new) in
                                   enumerate(zip(loop.args, args[:count])) if i != c}}
        before = {loop.args[k]: args[count + 1 + n] for n, k in enumerate(prev)}
        acc = loop.args[c]

        def retire(dot: ir.Value) -> None:
            """D2 of trip j - 1 done: its result is this trip's acc, its slot released."""
            mapping[acc], = tilegpu.warpgroup_dot_wait([dot], 0)
            _clone_slice(self.release, dict(before))
        pending = None
        for op in self.a_ops:
            if pending is not None and op == self.first_read:
                retire(pending)
                pending = None
            _clone_slice([op], mapping)
            if op == self.d1:
                first = mapping[op.results[0]].owner
                first.attributes[ASYNC_ATTR] = ir.UnitAttr.get()
                views = dict(before)
                _clone_slice(self.b_views, views)
                pending = tilegpu.warpgroup_dot(p_in, views.get(b, b), acc_in,
                                                self.d2.attributes)
                pending.owner.attributes[ASYNC_ATTR] = ir.UnitAttr.get()
                mapping[op.results[0]], = tilegpu.warpgroup_dot_wait([first.results[0]], 1)
        if pending is not None:
            retire(pending)
        scf.YieldOp(self._carry(mapping, [args[k] for k in prev]))

    def _carry(self, mapping: dict, earlier: list[ir.Value]) -> list[ir.Value]:
        """What the new loop carries, from `mapping` (a trip's clone of A): the old loop's
        values (D2's accumulator input where it carried D2's result), P for D2, then `earlier`,
        the carried buffers D2's views read, as that trip saw them."""
        a, _, accs = self.d2.operands
        return [mapping.get(accs, accs) if i == self.carried else mapping.get(y, y)
                for i, y in enumerate(self.loop.yield_op.operands)] + \
            [mapping.get(a, a)] + earlier


def _used_by_others(op: ir.Operation, moved: set) -> bool:
    return any(_user(u) not in moved for r in op.results for u in r.uses)


@register
class OverlapDots(Pass):
    name = "tilegpu-overlap-dots"
    summary = ("In a warp-specialised loop of two dots with work between them, the second "
               "dot of a trip runs during the next trip's work")

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        for loop in consumer_loops(module):
            overlap = _Overlap(loop)
            if overlap.find():
                overlap.rewrite()
