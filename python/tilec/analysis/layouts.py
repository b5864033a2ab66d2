"""Layouts as linear maps over F2 (Zhou et al., "Linear Layouts", arXiv 2505.23819).

A distributed layout sends the bits of (register, lane, warp) to the bits of a tensor
coordinate; with power-of-two shapes each input bit contributes one fixed coordinate (its
basis) and a coordinate is the XOR of the bases of the set bits. Blocked and slice layouts
convert to this form; the code generator asks every question through it: which element a
register holds, whether two layouts place elements alike, which registers are contiguous.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tilec.dialects.tilegpu import BlockedLayout, DotOperandLayout, Layout, MmaLayout, SliceLayout


def _log2(n: int) -> int:
    if n <= 0 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


def default_blocked(shape, num_warps: int, threads_per_warp: int = 32,
                    size_per_thread=None, order=None) -> BlockedLayout:
    """The blocked layout that spreads `shape` over the lanes and warps of `num_warps` warps,
    fastest dimension first (`order`, default the last dimension first), each thread holding
    `size_per_thread` contiguous elements (default 1 in every dimension)."""
    rank = len(shape)
    order = list(order) if order is not None else list(range(rank - 1, -1, -1))
    spt = list(size_per_thread) if size_per_thread is not None else [1] * rank
    tpw, wpc = [1] * rank, [1] * rank
    lanes, warps, threads = threads_per_warp, num_warps, num_warps * threads_per_warp
    prev_lanes = prev_warps = 1
    for i in order[:-1]:
        per_cta = max(1, min(threads, max(1, shape[i] // spt[i])))
        tpw[i] = max(1, min(per_cta, lanes))
        wpc[i] = max(1, min(per_cta // tpw[i], warps))
        warps //= wpc[i]
        lanes //= tpw[i]
        threads //= per_cta
        prev_lanes *= tpw[i]
        prev_warps *= wpc[i]
    last = order[-1]
    tpw[last] = threads_per_warp // prev_lanes
    wpc[last] = num_warps // prev_warps
    return BlockedLayout(tuple(spt), tuple(tpw), tuple(wpc), tuple(order))


@dataclass(frozen=True)
class LinearLayout:
    """Bases of each input dimension ("register", "lane", "warp"): one coordinate tuple (one
    entry per tensor dimension) per input bit, lowest bit first."""
    register: tuple[tuple[int, ...], ...]
    lane: tuple[tuple[int, ...], ...]
    warp: tuple[tuple[int, ...], ...]
    shape: tuple[int, ...]

    @property
    def num_registers(self) -> int:
        return 1 << len(self.register)

    def _apply(self, bases, index: int) -> tuple[int, ...]:
        coord = [0] * len(self.shape)
        for bit, basis in enumerate(bases):
            if index >> bit & 1:
                coord = [c ^ b for c, b in zip(coord, basis)]
        return tuple(coord)

    def register_coords(self, reg: int) -> tuple[int, ...]:
        return self._apply(self.register, reg)

    def register_index(self) -> dict[tuple[int, ...], int]:
        """The register holding each coordinate this thread's registers cover (relative to
        the thread's offset)."""
        return {self.register_coords(r): r for r in range(self.num_registers)}

    def lane_coords(self, lane: int) -> tuple[int, ...]:
        return self._apply(self.lane, lane)

    def warp_coords(self, warp: int) -> tuple[int, ...]:
        return self._apply(self.warp, warp)

    def coords(self, reg: int, lane: int, warp: int) -> tuple[int, ...]:
        parts = (self.register_coords(reg), self.lane_coords(lane), self.warp_coords(warp))
        return tuple(a ^ b ^ c for a, b, c in zip(*parts))

    def replicated_bits(self) -> tuple[int, int]:
        """(lane mask, warp mask): the lane- and warp-id bits with a zero basis. Threads that
        differ only in those bits hold the same elements."""
        return tuple(sum(1 << bit for bit, basis in enumerate(bases) if not any(basis))
                     for bases in (self.lane, self.warp))

    def threads_hold_alike(self, source: "LinearLayout", project=lambda coord: coord) -> bool:
        """Whether every lane and warp holds, here, the elements it holds in `source` (this
        layout's coordinates mapped into the source's by `project`): then no data crosses
        threads between the two."""
        return all([project(b) for b in mine] == list(theirs)
                   for mine, theirs in ((self.lane, source.lane), (self.warp, source.warp)))

    def is_disjoint(self) -> bool:
        """Whether the bases of all inputs use disjoint coordinate bits, so XOR is addition
        (true for blocked layouts and their slices): lowering then adds offsets."""
        seen = [0] * len(self.shape)
        for basis in (*self.register, *self.lane, *self.warp):
            for d, b in enumerate(basis):
                if seen[d] & b:
                    return False
                seen[d] |= b
        return True


def _identity_bits(size: int, dim: int, rank: int, start_bit: int) -> list[tuple[int, ...]]:
    out = []
    for bit in range(_log2(size)):
        basis = [0] * rank
        basis[dim] = 1 << (start_bit + bit)
        out.append(tuple(basis))
    return out


@cache
def to_linear(layout: Layout, shape: tuple[int, ...]) -> LinearLayout:
    """The linear layout of `layout` over a tensor of `shape` (powers of two)."""
    shape = tuple(shape)
    if isinstance(layout, BlockedLayout):
        return _blocked_to_linear(layout, shape)
    if isinstance(layout, SliceLayout):
        return _slice_to_linear(layout, shape)
    if isinstance(layout, MmaLayout):
        return _mma_to_linear(layout, shape)
    if isinstance(layout, DotOperandLayout) and isinstance(layout.parent, MmaLayout):
        return _dot_operand_to_linear(layout, shape)
    raise NotImplementedError(f"linear layout of {type(layout).__name__} is not implemented yet")


def _blocked_to_linear(layout: BlockedLayout, shape: tuple[int, ...]) -> LinearLayout:
    rank = len(shape)
    if layout.rank != rank:
        raise ValueError(f"layout {layout.text()} has rank {layout.rank}, shape {shape} does not")
    registers, lanes, warps, extra_registers = [], [], [], []
    for d in layout.order:
        size = shape[d]
        used = 0  # coordinate bits of dimension d taken so far
        for count, target in ((layout.size_per_thread[d], registers),
                              (layout.threads_per_warp[d], lanes),
                              (layout.warps_per_cta[d], warps)):
            for _ in range(_log2(count)):
                basis = [0] * rank
                if (1 << used) < size:
                    basis[d] = 1 << used
                    used += 1
                elif target is registers:
                    continue  # a register beyond the tensor would only repeat an element
                target.append(tuple(basis))  # lanes and warps beyond it hold copies
        while (1 << used) < size:  # the tile repeats along d: more registers per thread
            extra_registers.extend(_identity_bits(2, d, rank, used))
            used += 1
    return LinearLayout(tuple(registers + extra_registers), tuple(lanes), tuple(warps), shape)


def _fit(shape, register, lane, warp, repeats) -> LinearLayout:
    """A linear layout from bases written for an unbounded tensor: a register basis outside
    `shape` is dropped (it would repeat an element), a lane or warp basis outside becomes zero
    (those threads hold copies); `repeats` (dimension, first coordinate) add register bits that
    tile the rest of each dimension."""
    def inside(basis):
        return all(b < size for b, size in zip(basis, shape))
    zero = tuple(0 for _ in shape)
    registers = [b for b in register if inside(b)]
    for d, start in repeats:
        step = start
        while step < shape[d]:
            basis = [0] * len(shape)
            basis[d] = step
            registers.append(tuple(basis))
            step *= 2
    return LinearLayout(tuple(registers), tuple(b if inside(b) else zero for b in lane),
                        tuple(b if inside(b) else zero for b in warp), tuple(shape))


def _mma_warps(layout: MmaLayout, m_basis: bool, n_basis: bool) -> list[tuple[int, int]]:
    """Warp bases of an mma layout (or its operands): the low warp-id bits step along M by
    one instruction, the next along N; an operand that is shared across one of them gets zero
    bases there (written as an out-of-range coordinate, see _fit)."""
    wm, wn = layout.warps_per_cta
    m, n = layout.instr_shape
    far = 1 << 30
    bases = [(m << i, 0) if m_basis else (far, 0) for i in range(_log2(wm))]
    return bases + [(0, n << i) if n_basis else (0, far) for i in range(_log2(wn))]


# One m16n8 accumulator tile of mma.sync: lane l holds rows l/4 and l/4 + 8, columns 2(l%4)
# and 2(l%4) + 1 (registers c0..c3).
_ACC_REGISTERS = [(0, 1), (8, 0)]
_ACC_LANES = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]


def _mma_to_linear(layout: MmaLayout, shape: tuple[int, ...]) -> LinearLayout:
    if layout.version[0] == 3:
        return _wgmma_to_linear(layout, shape)
    if layout.version[0] != 2 or tuple(layout.instr_shape[-2:]) != (16, 8) or \
            len(shape) != layout.rank:
        raise NotImplementedError(f"linear layout of {layout.text()}")
    if layout.rank == 3:
        return _batched(layout, shape, _mma_to_linear)
    wm, wn = layout.warps_per_cta
    return _fit(shape, _ACC_REGISTERS, _ACC_LANES, _mma_warps(layout, True, True),
                [(1, 8 * wn), (0, 16 * wm)])


def _batched(layout, shape: tuple[int, ...], to_2d) -> LinearLayout:
    """A batched dot's layout (mma rank 3, or an operand of one): per batch the 2-D layout of
    the last two dimensions (`to_2d` of the layout with the batch dropped); the batch goes to
    the high warp-id bits (warps_per_cta[0] of them), then to more registers."""
    mma = layout.parent if isinstance(layout, DotOperandLayout) else layout
    flat = MmaLayout(mma.version, mma.warps_per_cta[1:], mma.instr_shape[1:])
    inner = to_2d(DotOperandLayout(layout.op_idx, flat, layout.k_width)
                  if isinstance(layout, DotOperandLayout) else flat, shape[1:])
    def lift(bases):
        return [(0, *b) for b in bases]
    wb = mma.warps_per_cta[0]
    return _fit(shape, lift(inner.register), lift(inner.lane),
                lift(inner.warp) + [(1 << i, 0, 0) for i in range(_log2(wb))], [(0, wb)])


def _wgmma_to_linear(layout: MmaLayout, shape: tuple[int, ...]) -> LinearLayout:
    """The accumulator of wgmma m64nNk (version 3, instr_shape [16, N]): each warp of a
    warpgroup holds 16 rows in the mma.sync pattern, repeated every 8 columns across the N
    columns of one instruction (registers d0..d(N/2-1) in the instruction's order: the low two
    register bits are column + 1 and row + 8, the others step 8 columns); the warpgroup's 4
    warps stack 64 rows, further warps go along M (wm) then N (wn); instructions repeat along N
    by N * wn, then along M by 16 * wm."""
    m, n = layout.instr_shape
    wm, wn = layout.warps_per_cta
    if m != 16 or len(shape) != 2 or wm % 4 or n % 8:
        raise NotImplementedError(f"linear layout of {layout.text()}")
    registers = _ACC_REGISTERS + [(0, 8 << i) for i in range(_log2(n // 8))]
    return _fit(shape, registers, _ACC_LANES, _mma_warps(layout, True, True),
                [(1, n * wn), (0, 16 * wm)])


def _dot_operand_to_linear(layout: DotOperandLayout, shape: tuple[int, ...]) -> LinearLayout:
    """The fragments of mma.sync m16n8k(8 kw) (kw = k_width elements per 32-bit register:
    2 for fp16/bf16, 1 for tf32, 4 for int8): lane l holds A rows l/4 and l/4 + 8 at columns
    kw(l%4) .. kw(l%4) + kw - 1 and those + 4kw; B columns l/4 at rows kw(l%4) + [0, kw) and
    those + 4kw. wgmma's A operand from registers (an mma version-3 parent) is the same
    fragment in every warp, the 4 warps of a warpgroup stacking 16 rows each."""
    mma = layout.parent
    if mma.rank == 3 and len(shape) == 3:
        return _batched(layout, shape, _dot_operand_to_linear)
    _mma_to_linear(mma, (16, 8))  # checks the parent is supported
    if mma.version[0] == 3 and layout.op_idx == 1:
        raise NotImplementedError("wgmma reads B from shared memory, not from registers")
    kw = layout.k_width
    wm, wn = mma.warps_per_cta
    within = [1 << i for i in range(_log2(kw))]
    if layout.op_idx == 0:  # A [M, K]
        registers = [(0, k) for k in within] + [(8, 0), (0, 4 * kw)]
        lanes = [(0, kw), (0, 2 * kw), (1, 0), (2, 0), (4, 0)]
        return _fit(shape, registers, lanes, _mma_warps(mma, True, False),
                    [(1, 8 * kw), (0, 16 * wm)])
    registers = [(k, 0) for k in within] + [(4 * kw, 0)]  # B [K, N]
    lanes = [(kw, 0), (2 * kw, 0), (0, 1), (0, 2), (0, 4)]
    return _fit(shape, registers, lanes, _mma_warps(mma, False, True),
                [(0, 8 * kw), (1, 8 * wn)])


def _slice_to_linear(layout: SliceLayout, shape: tuple[int, ...]) -> LinearLayout:
    parent_shape = list(shape)
    parent_shape.insert(layout.dim, 1)
    parent = to_linear(layout.parent, tuple(parent_shape))

    def drop(bases, keep_zero: bool):
        out = []
        for basis in bases:
            reduced = tuple(b for i, b in enumerate(basis) if i != layout.dim)
            if not keep_zero and not any(reduced):
                continue
            out.append(reduced)
        return tuple(out)

    return LinearLayout(drop(parent.register, False), drop(parent.lane, True),
                        drop(parent.warp, True), tuple(shape))


def contiguous_registers(layout: Layout, shape: tuple[int, ...]) -> int:
    """How many consecutive registers hold consecutive elements along the fastest dimension
    (the widest vector one access can cover)."""
    return register_run(to_linear(layout, shape), layout_order(layout)[0])


def register_run(linear: LinearLayout, dim: int) -> int:
    """How many consecutive registers hold consecutive elements along `dim` (a power of two):
    the first register bases step it by 1, 2, 4, ..."""
    n = 0
    for basis in linear.register:
        expected = [0] * len(linear.shape)
        expected[dim] = 1 << n
        if tuple(expected) != tuple(basis):
            break
        n += 1
    return 1 << n


def _slice_order(layout: SliceLayout) -> tuple[int, ...]:
    order = layout_order(layout.parent)
    return tuple(d - (d > layout.dim) for d in order if d != layout.dim)


def layout_order(layout: Layout) -> tuple[int, ...]:
    """Dimensions fastest-varying first. An mma accumulator's consecutive registers step its
    columns, a dot operand's K (B's rows)."""
    if isinstance(layout, BlockedLayout):
        return layout.order
    if isinstance(layout, SliceLayout):
        return _slice_order(layout)
    if isinstance(layout, DotOperandLayout) and layout.op_idx == 1:
        return (0, 1)
    return tuple(range(layout.rank - 1, -1, -1))
