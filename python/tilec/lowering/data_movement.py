"""Ops that move elements between threads through shared memory: layout conversions, `trans`,
`reshape`, `join`, `split`, `cat` and `gather`.

Each writes its source elements into a scratch buffer at the row-major index of where they go,
waits at a barrier, and reads back the elements its result's layout gives the thread. A
coordinate is known per dimension as a constant (the register's part) plus this thread's
offset (its lanes' and warps' part), so a permutation or a shift of coordinates costs nothing.
The scratch is the op's range from tilegpu-allocate-shared-memory; tilegpu-membar places the
barrier before it. Element `i` is stored at slot `i + i / (elements per 128 bytes)`: the padding
puts rows of 32 words in different banks, so neither the writes nor the reads of a transposing
conversion serialise on one bank. A conversion between layouts that both hold runs of elements
along the last dimension, over rows of at least 128 bytes (a dot's accumulator on its way to a
vectorised store), moves vectors instead, unpadded and swizzled (`_convert_in_vectors`).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache

from mlir import ir
from mlir.dialects import arith, llvm, nvvm

from tilec.analysis.banks import swizzled_offset, warp_wavefronts
from tilec.analysis.layouts import LinearLayout, register_run, to_linear
from tilec.analysis.shared_memory import (BANK_ROW_BYTES, numel, pad_shift, padded_slots,
                                          storage_bytes)
from tilec.dialects.tilegpu import MemDesc, SharedLayout
from tilec.lowering.context import (Distributed, Lowering, from_memory, i32, memory_type, rule,
                                    scalar_type, to_memory, vector_of)
from tilec.lowering.coordinates import (DYNAMIC_INDEX, Part, coordinate, flat_part, linear_index,
                                        strides)
from tilec.lowering.elementwise import remap_registers
from tilec.lowering.shared_buffer import SharedBuffer


class Scratch:
    """One round trip through shared memory for values of `element` type."""

    def __init__(self, ctx: Lowering, element: ir.Type, count: int):
        self.ctx = ctx
        self.element = element
        self.stored = memory_type(element)
        size = storage_bytes(self.stored)
        self.base = ctx.scratch(padded_slots(count, size) * size)
        self.shift = pad_shift(size)
        self.pointer = ir.Type.parse("!llvm.ptr<3>")

    def address(self, index: ir.Value) -> ir.Value:
        padded = arith.addi(index, arith.shrui(index, i32(self.shift)))
        return llvm.getelementptr(self.pointer, self.base, [padded], [DYNAMIC_INDEX],
                                  self.stored, 0)

    def write(self, value: ir.Value, index: ir.Value) -> None:
        llvm.store(to_memory(value), self.address(index))

    def wait(self) -> None:
        self.ctx.barrier()

    def read(self, index: ir.Value) -> ir.Value:
        return from_memory(llvm.load(self.stored, self.address(index)), self.element)


def move(ctx: Lowering, writes: list[tuple[Distributed, Callable]], layout, shape,
         read_index: Callable, element: ir.Type, count: int) -> Distributed:
    """Write each source register at `where(coordinate parts)`, then read each register of
    (layout, shape) at `read_index(coordinate parts, reg)`."""
    scratch = Scratch(ctx, element, count)
    for src, where in writes:
        for reg, value in enumerate(src.values):
            scratch.write(value, where(coordinate(ctx, src.layout, src.shape, reg)))
    scratch.wait()
    values = [scratch.read(read_index(coordinate(ctx, layout, shape, reg), reg))
              for reg in range(to_linear(layout, tuple(shape)).num_registers)]
    return Distributed(layout, tuple(shape), values)


def convert_through_shared(ctx: Lowering, src: Distributed, layout, shape,
                           element: ir.Type) -> Distributed:
    vectors = _vector_widths(src.layout, layout, shape, element, ctx.arch >= STMATRIX_ARCH)
    if vectors is not None:
        return _convert_in_vectors(ctx, src, layout, shape, element, *vectors)
    s = strides(shape)
    return move(ctx, [(src, lambda parts: linear_index(parts, s))], layout, shape,
                lambda parts, reg: linear_index(parts, s), element, numel(shape))


def _aligned_run(linear) -> int:
    """How many consecutive registers hold consecutive elements along the last dimension,
    starting at every register whose low bits are zero: a register run (register_run) that no
    other basis moves by less than its length."""
    width = register_run(linear, len(linear.shape) - 1)
    others = list(linear.register[width.bit_length() - 1:]) + list(linear.lane) + \
        list(linear.warp)
    while width > 1 and any(b[-1] % width for b in others):
        width //= 2
    return width


STMATRIX_ARCH = 90  # stmatrix exists from sm_90 on


def stmatrix_addresses(linear: LinearLayout, size: int) -> LinearLayout | None:
    """For a source of 16-bit elements (`size` bytes) whose registers and lanes hold 8x8
    matrices as stmatrix takes them (register bit 0 and lane bits 0 and 1 step the last
    dimension by 1, 2 and 4; every other basis by a multiple of 8, so each matrix row is 16
    aligned bytes of a tensor row), the layout of the row addresses the lanes give
    stmatrix.x4: its lane bits 0-2 pick a matrix's row (the source's lane bits 2-4), lane bits
    3 and 4 the matrix (the source's register bits 1 and 2), register bit k the group of 8
    registers (the source's register bit k + 3). None for any other source."""
    if size != 2 or len(linear.register) < 3 or len(linear.lane) != 5:
        return None
    last = len(linear.shape) - 1

    def along_last(step: int) -> tuple[int, ...]:
        return tuple(step if d == last else 0 for d in range(len(linear.shape)))
    if (linear.register[0], linear.lane[0], linear.lane[1]) != tuple(map(along_last, (1, 2, 4))):
        return None
    if any(b[last] % 8 for b in (*linear.register[1:], *linear.lane[2:], *linear.warp)):
        return None
    return LinearLayout(register=linear.register[3:],
                        lane=(*linear.lane[2:], *linear.register[1:3]), warp=linear.warp,
                        shape=linear.shape)


def _vector_widths(src_layout, dst_layout, shape, element: ir.Type, stmatrix: bool):
    """(write width, read width, chunk, stmatrix addresses) in elements for a conversion both
    of whose layouts hold runs of at least two elements along the last dimension, with rows of
    at least 128 bytes; None when the padded element-wise path is the one to take. Where
    `stmatrix` is allowed and the source holds its fragments (stmatrix_addresses), writes are
    stmatrix.x4, 16 bytes a matrix row. The chunk the swizzle moves is `_chunk`'s."""
    if memory_type(element) != element or not shape:
        return None
    size = storage_bytes(element)
    columns = shape[-1]
    if columns * size < BANK_ROW_BYTES:
        return None
    source = to_linear(src_layout, tuple(shape))
    dest = to_linear(dst_layout, tuple(shape))
    write = _aligned_run(source)
    read = _aligned_run(dest)
    addresses = stmatrix_addresses(source, size) if stmatrix else None
    if addresses is not None and read >= 2 and columns % 8 == 0:
        write, read, unit = 8, min(read, 8), 8
    else:
        addresses = None
        unit = min(max(write, read), max(16 // size, 1))
        write, read = min(write, unit), min(read, unit)
        if write < 2 or read < 2 or columns % unit:
            return None
    return write, read, _chunk(source, dest, tuple(shape), size, write, read, unit,
                               addresses), addresses


@cache
def _chunk(source: LinearLayout, dest: LinearLayout, shape: tuple[int, ...], size: int,
           write: int, read: int, unit: int, addresses: LinearLayout | None) -> int:
    """The chunk (elements) the vector conversion's swizzle XORs by the row: the vector
    `unit` (at most 16 bytes), or a multiple of it up to a 128-byte line where the bank model
    (analysis/banks.py) counts fewer wavefronts for warp 0's writes and reads. The unit is
    right where the rows a write phase covers (its lanes' rows: 8 for 16-byte stores) fill a
    chunk each; wider chunks serve writes narrower than the unit: a wgmma accumulator of fp32
    stores 8 bytes a lane, 4 lanes 32 bytes of a row, so a half-warp writes 4 rows of 32
    bytes, which 16-byte chunks XOR-ed by the row put in 2 pairs of chunks of a line, each
    pair twice (2 wavefronts a phase), 32-byte ones in the line's 4 different chunks."""
    columns = shape[-1]
    lead = strides(shape[:-1])
    # stmatrix: each lane gives one 16-byte row address a register of `addresses`
    writes = (source, write, write) if addresses is None else (addresses, 1, 16 // size)

    def offset(coords):  # the element offset of `coords` with the chunk under trial
        row = sum(c * s for c, s in zip(coords[:-1], lead))
        return swizzled_offset(row, coords[-1], columns, chunk, phases)

    best, fewest = unit, None
    chunk = unit
    while chunk * size <= BANK_ROW_BYTES and columns % chunk == 0:
        phases = min(BANK_ROW_BYTES // (chunk * size), columns // chunk)
        stores, stores_ideal = warp_wavefronts(*writes, size, offset)
        loads, loads_ideal = warp_wavefronts(dest, read, read, size, offset)
        cost = stores + loads
        if fewest is None or cost < fewest:
            best, fewest = chunk, cost
        if cost <= stores_ideal + loads_ideal:
            break
        chunk *= 2
    return best


def _convert_in_vectors(ctx: Lowering, src: Distributed, layout, shape, element: ir.Type,
                        write: int, read: int, chunk: int,
                        addresses: LinearLayout | None) -> Distributed:
    """A conversion through shared memory in vectors: each thread stores runs of `write`
    elements (or, given stmatrix `addresses`, its registers eight at a time with stmatrix.x4:
    four 16-byte matrix rows from each lane) and loads runs of `read`, row-major, with the
    `unit`-element (at most 16-byte) chunks of each 128-byte line XOR-swizzled by the row
    (chunk ^ row % chunks per line): the 8 rows a warp's mma-layout store (or one stmatrix
    matrix) covers land in 8 different chunks, so neither side waits on a bank conflict, and
    no padding breaks the vectors' alignment."""
    size = storage_bytes(element)
    columns = shape[-1]
    # A [rows, columns] tile whose chunks are XOR-ed by the row over the chunks of a 128-byte
    # line: shared_buffer.element_offset's swizzle (banks.swizzled_offset).
    swizzle = SharedLayout(chunk, 1, BANK_ROW_BYTES // (chunk * size), (1, 0))
    tile = SharedBuffer(ctx.scratch(padded_slots(numel(shape), size) * size),
                        MemDesc((numel(shape) // columns, columns), str(element), swizzle),
                        element)
    lead_strides = strides(shape[:-1])

    def address(parts: list[Part]) -> ir.Value:
        return tile.address([flat_part(parts[:-1], lead_strides), parts[-1]])

    if addresses is not None:
        _write_stmatrix(ctx, src, addresses, element, address)
    else:
        for reg in range(0, len(src.values), write):
            llvm.store(vector_of(src.values[reg:reg + write], element),
                       address(coordinate(ctx, src.layout, src.shape, reg)),
                       alignment=write * size)
    ctx.barrier()
    values = []
    for reg in range(0, to_linear(layout, tuple(shape)).num_registers, read):
        loaded = llvm.load(ir.VectorType.get([read], element),
                           address(coordinate(ctx, layout, shape, reg)),
                           alignment=read * size)
        values += [llvm.extractelement(loaded, i32(i)) for i in range(read)]
    return Distributed(layout, tuple(shape), values)


def _write_stmatrix(ctx: Lowering, src: Distributed, addresses: LinearLayout,
                    element: ir.Type, address: Callable) -> None:
    """Registers 8q .. 8q + 7 of each thread as one stmatrix.x4: matrix i is registers
    8q + 2i and 8q + 2i + 1 of every lane (one 32-bit word each), its row r stored at the
    address lane 8i + r gives (`addresses`, register q)."""
    offsets = ctx.linear_offsets(addresses)
    word = ir.IntegerType.get_signless(32)
    attributes = dict(layout=ir.Attribute.parse("#nvvm.mma_layout<row>"),
                      shape=ir.Attribute.parse("#nvvm.ld_st_matrix_shape<m = 8, n = 8>"),
                      elt_type=ir.Attribute.parse("#nvvm.ld_st_matrix_elt_type<b16>"))
    for q in range(addresses.num_registers):
        parts = list(zip(addresses.register_coords(q), offsets))
        words = [llvm.bitcast(word, vector_of(src.values[8 * q + 2 * i:8 * q + 2 * i + 2],
                                              element)) for i in range(4)]
        nvvm.stmatrix(address(parts), words, **attributes)


@rule("tile.trans")
def lower_trans(ctx: Lowering, op: ir.Operation):
    src = ctx.get(op.operands[0])
    order = list(ir.DenseI32ArrayAttr(op.attributes["order"]))
    layout, shape = ctx.layout_of(op.results[0])
    s = strides(shape)

    def where(parts):  # output dim k holds input dim order[k]
        return linear_index([parts[d] for d in order], s)
    return [move(ctx, [(src, where)], layout, shape, lambda parts, reg: linear_index(parts, s),
                 scalar_type(op.results[0].type), numel(shape))]


@rule("tile.reshape")
def lower_reshape(ctx: Lowering, op: ir.Operation):
    src = ctx.get(op.operands[0])
    layout, shape = ctx.layout_of(op.results[0])
    in_strides, out_strides = strides(src.shape), strides(shape)
    return [move(ctx, [(src, lambda parts: linear_index(parts, in_strides))], layout, shape,
                 lambda parts, reg: linear_index(parts, out_strides),
                 scalar_type(op.results[0].type), numel(shape))]


@rule("tile.join")
def lower_join(ctx: Lowering, op: ir.Operation):
    lhs, rhs = ctx.get(op.operands[0]), ctx.get(op.operands[1])
    layout, shape = ctx.layout_of(op.results[0])
    s = strides(shape)
    writes = [(lhs, lambda parts: linear_index(parts + [(0, None)], s)),
              (rhs, lambda parts: linear_index(parts + [(1, None)], s))]
    return [move(ctx, writes, layout, shape, lambda parts, reg: linear_index(parts, s),
                 scalar_type(op.results[0].type), numel(shape))]


@rule("tile.split")
def lower_split(ctx: Lowering, op: ir.Operation):
    src = ctx.get(op.operands[0])
    s = strides(src.shape)
    element = scalar_type(op.results[0].type)
    results = []
    for half, result in enumerate(op.results):
        if isinstance(result.type, ir.RankedTensorType):
            layout, shape = ctx.layout_of(result)
        else:
            layout, shape = None, ()
        if layout is None:  # splitting a block of 2 into two scalars
            scratch = Scratch(ctx, element, src.shape[-1])
            for reg, value in enumerate(src.values):
                scratch.write(value, linear_index(coordinate(ctx, src.layout, src.shape, reg), s))
            scratch.wait()
            results.append(scratch.read(i32(half)))
            continue
        results.append(move(ctx, [(src, lambda parts: linear_index(parts, s))], layout, shape,
                            lambda parts, reg, h=half: linear_index(parts + [(h, None)], s),
                            element, numel(src.shape)))
    return results


@rule("tile.cat")
def lower_cat(ctx: Lowering, op: ir.Operation):
    lhs, rhs = ctx.get(op.operands[0]), ctx.get(op.operands[1])
    layout, shape = ctx.layout_of(op.results[0])
    s = strides(shape)
    rows = lhs.shape[0]

    def shifted(parts):
        return linear_index([(parts[0][0] + rows, parts[0][1])] + parts[1:], s)
    writes = [(lhs, lambda parts: linear_index(parts, s)), (rhs, shifted)]
    return [move(ctx, writes, layout, shape, lambda parts, reg: linear_index(parts, s),
                 scalar_type(op.results[0].type), numel(shape))]


@rule("tile.gather")
def lower_gather(ctx: Lowering, op: ir.Operation):
    src, index = ctx.get(op.operands[0]), ctx.get(op.operands[1])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    layout, shape = ctx.layout_of(op.results[0])
    s = strides(src.shape)
    i32_type = ir.IntegerType.get_signless(32)

    def read(parts, reg):
        picked = index.values[reg]
        if picked.type != i32_type:
            picked = arith.trunci(i32_type, picked) if picked.type.width > 32 else \
                arith.extsi(i32_type, picked)
        parts = list(parts)
        parts[axis] = (0, picked)
        return linear_index(parts, s)
    return [move(ctx, [(src, lambda parts: linear_index(parts, s))], layout, shape, read,
                 scalar_type(op.results[0].type), numel(src.shape))]


@rule("tilegpu.convert_layout")
def lower_convert_layout(ctx: Lowering, op: ir.Operation):
    src = ctx.get(op.operands[0])
    layout, shape = ctx.layout_of(op.results[0])
    try:
        return [remap_registers(ctx, op, src, layout, shape, lambda coord: coord)]
    except NotImplementedError:
        element = scalar_type(op.results[0].type)
        return [convert_through_shared(ctx, src, layout, shape, element)]
