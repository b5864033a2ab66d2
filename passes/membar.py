"""tilegpu-membar: a barrier between shared-memory accesses that conflict, and nowhere else.

After it runs, a `tilegpu.barrier` separates every shared-memory write from earlier reads and
writes of overlapping bytes, and every read from earlier writes of overlapping bytes, along
every path of the kernel: through `scf.if` branches and around `scf.for`/`scf.while` loops
(an access early in a loop body conflicts with one late in the previous iteration). Reads
after reads, and accesses to disjoint bytes, need none. Runs after
`tilegpu-allocate-shared-memory`, whose offsets say which bytes each op touches:
- an op with scratch writes its bytes first and reads them last (its own barrier in between
  comes with its lowering), so it conflicts with any pending access to them and leaves reads
  pending;
- `local_alloc` with a value and `local_store` write their buffer, `local_load` reads it, an
  async copy writes it, `init_barrier` and `inval_barrier` write their barriers and
  `wait_barrier` reads its one (a memdesc reached through a block argument may be any buffer);
- an asynchronous copy (`async_copy_global_to_local`, `async_tma_copy_global_to_local`) must
  not overwrite bytes others still read, but its own writes only count from the next
  `async_wait` on (the pipeliner reads a stage only after waiting for it): a barrier after
  that wait orders them before readers; a TMA copy's writes are ordered before every thread
  that waits on its mbarrier by the wait itself (`wait_barrier`), so they need none; a copy
  marked `tilegpu.free_slot` writes a slot whose readers the pipeliner has already ordered
  before it;
- a TMA store or reduction (`async_tma_copy_local_to_global`, `async_tma_reduce`) reads its
  buffer asynchronously, until thread 0's `tma_store_wait {pendings = 0}`; from that wait on
  the read counts as an ordinary one, which a barrier completes for the other threads. A write
  to bytes such a copy may still be reading gets that wait, then a barrier, in front of it
  (tilegpu-pipeline places the wait itself where it defers it);
- an existing `tilegpu.barrier`, `gpu.barrier` or `tilegpu.cluster_barrier` (which all the
  CTA's threads reach too) completes everything pending but copies and TMA stores;
- a `tilegpu.warp_specialize` starts with everything before it completed (a barrier of all
  threads in front of it where needed), then each of its regions is a path of its own.

Example (two reductions across warps, both at offset 0):
    %s = "tile.reduce"(%x) ... {tilegpu.offset = 0 : i32, tilegpu.bytes = 16 : i32}
    %t = "tile.reduce"(%y) ... {tilegpu.offset = 0 : i32, tilegpu.bytes = 16 : i32}
becomes
    %s = "tile.reduce"(%x) ...
    "tilegpu.barrier"() : () -> ()
    %t = "tile.reduce"(%y) ...
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from tilec.analysis.op_facts import (SHARED_ALLOC, SHARED_COPY, SHARED_READ, SHARED_WRITE,
                                     buffer_operands, facts)
from tilec.analysis.shared_memory import BYTES_ATTR, FREE_SLOT_ATTR, OFFSET_ATTR, VIEWS
from tilec.dialects import tilegpu
from tilec.passbase import Pass, ops_in, register, require_layouts

Interval = tuple[int, int]  # [start, end) in bytes
_ANYWHERE: Interval = (0, 1 << 31)
_BARRIERS = ("tilegpu.barrier", "gpu.barrier", "tilegpu.cluster_barrier")
_LOOPS = ("scf.for", "scf.while")
_TMA_STORES = ("tilegpu.async_tma_copy_local_to_global", "tilegpu.async_tma_reduce")


@dataclass(frozen=True)
class Pending:
    """Shared-memory accesses made since the last barrier; `copies` are asynchronous copies
    not yet waited for (their writes land at the next `async_wait`); `bulk_reads` are buffers
    TMA stores may still be reading (until thread 0's `tma_store_wait`)."""
    reads: frozenset = field(default_factory=frozenset)
    writes: frozenset = field(default_factory=frozenset)
    copies: frozenset = field(default_factory=frozenset)
    bulk_reads: frozenset = field(default_factory=frozenset)

    def union(self, other: "Pending") -> "Pending":
        return Pending(self.reads | other.reads, self.writes | other.writes,
                       self.copies | other.copies, self.bulk_reads | other.bulk_reads)

    def landed(self) -> "Pending":
        return Pending(self.reads, self.writes | self.copies, bulk_reads=self.bulk_reads)

    def read_out(self) -> "Pending":
        """After a wait for every TMA store to have read its buffer: ordinary reads, which
        the next barrier completes for the other threads."""
        return Pending(self.reads | self.bulk_reads, self.writes, self.copies)

    def in_flight(self) -> "Pending":
        """What a barrier leaves pending: the copies and TMA stores, which it does not wait
        for."""
        return Pending(copies=self.copies, bulk_reads=self.bulk_reads)

    def conflicts(self, reads: list[Interval], writes: list[Interval]) -> bool:
        return any(_overlap(w, p) for w in writes for p in self.reads | self.writes) or \
            any(_overlap(r, p) for r in reads for p in self.writes)

    def overwrites_bulk_reads(self, writes: list[Interval]) -> bool:
        return any(_overlap(w, p) for w in writes for p in self.bulk_reads)


def _overlap(a: Interval, b: Interval) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _own_range(op: ir.Operation) -> Interval:
    offset = ir.IntegerAttr(op.attributes[OFFSET_ATTR]).value
    return offset, offset + ir.IntegerAttr(op.attributes[BYTES_ATTR]).value


def _buffer_range(value: ir.Value) -> Interval:
    """The bytes of the buffer a memdesc value points into."""
    while True:
        owner = value.owner
        if isinstance(owner, ir.Block):
            return _ANYWHERE
        owner = owner.operation
        if owner.name in VIEWS:
            value = owner.operands[0]
            continue
        if owner.name == "tilegpu.local_alloc" and OFFSET_ATTR in owner.attributes:
            return _own_range(owner)
        return _ANYWHERE


def accesses(op: ir.Operation) -> tuple[list[Interval], list[Interval], Pending]:
    """The bytes `op` reads and writes first, and the accesses it leaves pending."""
    found = facts(op)
    access = found.access if found is not None else None
    if access == SHARED_ALLOC:  # an alloc with an initial value writes it
        if not len(op.operands):
            return [], [], Pending()
        rng = _own_range(op)
        return [], [rng], Pending(writes=frozenset([rng]))
    if access == SHARED_WRITE:
        rng = _buffer_range(op.operands[found.buffer_operand])
        return [], [rng], Pending(writes=frozenset([rng]))
    if access == SHARED_COPY:  # must not overtake earlier readers
        rng = _buffer_range(op.operands[found.buffer_operand])
        if op.name == "tilegpu.async_tma_copy_global_to_local":
            return [], [rng], Pending()  # its writes are ordered by the waits on its barrier
        if FREE_SLOT_ATTR in op.attributes:  # the pipeliner knows its slot's readers are done
            return [], [], Pending(copies=frozenset([rng]))
        return [], [rng], Pending(copies=frozenset([rng]))
    if access == SHARED_READ:
        ranges = [_buffer_range(op.operands[i]) for i in buffer_operands(found)]
        if op.name in _TMA_STORES:  # read by the TMA unit until the tma_store_wait
            return ranges, [], Pending(bulk_reads=frozenset(ranges))
        return ranges, [], Pending(reads=frozenset(ranges))
    if OFFSET_ATTR in op.attributes:  # scratch: written first, read last
        rng = _own_range(op)
        return [], [rng], Pending(reads=frozenset([rng]))
    return [], [], Pending()


class _Barriers:
    def __init__(self):
        self.count = 0  # barriers placed (or that would be, while simulating)

    def block(self, block: ir.Block, state: Pending, insert: bool) -> Pending:
        """The accesses pending after `block` when `state` is pending before it, placing
        barriers where an op conflicts (only when `insert`: loops are first iterated to a
        fixed point without changing the IR)."""
        for op in list(block.operations):
            state = self.op(op.operation, state, insert)
        return state

    def op(self, op: ir.Operation, state: Pending, insert: bool) -> Pending:
        if op.name in _BARRIERS:
            return state.in_flight()  # a barrier does not wait for copies
        if op.name == "tilegpu.async_wait":
            return state.landed()
        if op.name == "tilegpu.tma_store_wait" and \
                ir.IntegerAttr(op.attributes["pendings"]).value == 0:
            return state.read_out()
        if op.name == "scf.if":
            branches = [self.block(region.blocks[0], state, insert)
                        for region in op.regions if len(region.blocks)]
            if len(branches) == 1:  # no else: the untaken path keeps `state`
                branches.append(state)
            return branches[0].union(branches[1])
        if op.name in _LOOPS:
            return self.loop(op, state, insert)
        if op.name == "tilegpu.warp_specialize":
            return self.split(op, state, insert)
        return self.access(op, state, insert)

    def split(self, op: ir.Operation, state: Pending, insert: bool) -> Pending:
        """The two sides of a warp specialisation run at once, each to the kernel's end, and
        a barrier inside one waits for its own threads only: what is pending before the split
        is completed by a barrier of every thread in front of it, and each region is its own
        path from there (nothing is pending after it: the kernel ends)."""
        if state.reads or state.writes:
            if insert:
                _barrier_before(op)
            self.count += 1
            state = state.in_flight()
        for region in op.regions:
            self.block(region.blocks[0], state, insert)
        return Pending()

    def access(self, op: ir.Operation, state: Pending, insert: bool) -> Pending:
        """`op`'s own accesses after `state`, with a barrier before it where they conflict."""
        reads, writes, after = accesses(op)
        if state.overwrites_bulk_reads(writes):
            if insert:
                _store_wait_before(op)
            state = state.read_out()
        if state.conflicts(reads, writes):
            if insert:
                _barrier_before(op)
            self.count += 1
            state = state.in_flight()
        return state.union(after)

    def loop(self, op: ir.Operation, entry: Pending, insert: bool) -> Pending:
        """Regions run in order, then back to the first: iterate the state at the loop's
        head to a fixed point (it only grows, over finitely many intervals). When what is
        pending before the loop would cost a barrier on every trip, one barrier before the
        loop is placed instead."""
        blocks = [region.blocks[0] for region in op.regions if len(region.blocks)]

        def through(state: Pending, insert_now: bool) -> tuple[Pending, Pending]:
            first = None
            for block in blocks:
                state = self.block(block, state, insert_now)
                first = state if first is None else first
            return first, state

        def fixed_point(head: Pending) -> tuple[Pending, int]:
            saved = self.count
            while True:
                self.count = 0
                _, back = through(head, False)
                grown = head.union(back)
                if grown == head:
                    inside, self.count = self.count, saved
                    return head, inside
                head = grown

        head, inside = fixed_point(entry)
        if entry.reads or entry.writes:
            cleared, inside_cleared = fixed_point(entry.in_flight())
            if inside_cleared < inside:
                if insert:
                    _barrier_before(op)
                self.count += 1
                head = cleared
        first, _ = through(head, insert)
        # scf.for leaves from its head (zero trips too); scf.while after its condition region.
        return head if op.name == "scf.for" else first


def _barrier_before(op: ir.Operation) -> None:
    with op.location, ir.InsertionPoint(op):
        ir.Operation.create("tilegpu.barrier")


def _store_wait_before(op: ir.Operation) -> None:
    with op.location, ir.InsertionPoint(op):
        tilegpu.tma_store_wait(0)


@register
class Membar(Pass):
    name = "tilegpu-membar"
    summary = "Barriers between conflicting shared-memory accesses, only where needed"

    def run(self, module: ir.Operation) -> None:
        require_layouts(self, module)
        unplaced = [op for op in ops_in(module, "tilegpu.local_alloc")
                    if OFFSET_ATTR not in op.attributes]
        if unplaced:
            raise self.fail(unplaced[0], "tilegpu-membar needs the shared-memory offsets: run "
                                         "tilegpu-allocate-shared-memory first")
        body = module.regions[0].blocks[0]
        for func_op in [op.operation for op in body.operations if op.operation.name == "func.func"]:
            barriers = _Barriers()
            for block in func_op.regions[0].blocks:
                barriers.block(block, Pending(), True)
