"""Lowering of mbarriers and TMA copies: `init_barrier`, `inval_barrier`, `wait_barrier`,
`arrive_barrier`, `cluster_barrier`, `async_tma_copy_global_to_local`,
`async_tma_copy_local_to_global`, `tma_store_wait` (and `tile.tma_load`/`tile.tma_store`, which
convert-tilegpu-to-llvm expects convert-tile-to-tilegpu to have turned into them).

A buffer of barriers is `count` 8-byte mbarrier objects in shared memory. Thread 0 of the program
initialises them (`mbarrier.init`, then `fence.mbarrier_init` so the async proxy sees the
inits), invalidates them, and issues a copy: it arrives on the copy's barrier expecting the
buffer's bytes (`mbarrier.arrive.expect_tx`) and issues one `cp.async.bulk.tensor` per column
block of the `nvmma_shared` buffer (the map's box is one block: the swizzle span wide along the
fastest dimension, the whole tile along the others; block j goes `j * rows * swizzle` bytes in,
at coordinate `coord + j * block_width`). Every thread waits with `mbarrier.try_wait.parity`
in a loop until the phase of the given parity has completed, which happens when the bytes have
landed: what the copy wrote is then visible to the threads that waited.

In a program of N CTAs (a thread block cluster), a copy marked `multicast = N` is the same
in every CTA: each issues the column blocks j with j mod N equal to its rank
(`%cluster_ctarank`), with `.multicast::cluster` to all N, and still expects all the bytes on
its own barrier (the blocks the others issue land on it too). An `arrive_barrier` marked
`ctas = N` is one arrival per warp on the barrier of each CTA: the warp converges
(`bar.warp.sync`), then lane c < N maps the address into CTA c (`mapa.shared::cluster`) and
arrives there (`mbarrier.arrive.shared::cluster`). `cluster_barrier` is
`barrier.cluster.arrive` then `.wait`.

A TMA store is thread 0's: one `cp.async.bulk.tensor` from shared memory per column block,
committed as a bulk group; `tma_store_wait` is its `cp.async.bulk.wait_group.read`, after which
the buffer may be written again (the other threads learn it at the next barrier).

The map operand is the kernel's by-value map parameter or a map made in the kernel (a generic
`!llvm.ptr` to either); the coordinates go to the instruction innermost first.

`tile.make_tensormap` writes a map in the kernel (PTX ISA 8.3) into the program's 256-byte slot
of the global scratch (slot-major: slot s of program p is at (s * programs + p) * 256): lane 0
of warp 0 zeroes the map's 128 bytes of shared memory (the op's scratch, 128-byte aligned) and
sets each field with `tensormap.replace` there (the global address, rank, box, sizes, byte
stride, element type and swizzle; element strides 1, zero fill), then warp 0 copies it to the
slot releasing it to the tensormap proxy (`tensormap.cp_fenceproxy ... release.gpu`); after a
barrier every thread acquires it (`fence.proxy.tensormap::generic.acquire.gpu`, then an empty
bulk-group wait, which keeps ptxas from moving copies above the fence). A tensor with a
zero-sized dimension is mapped as the slot's other 128 bytes, zeroed by the same lane and seen
as a 1 x 1 tensor (16-byte stride), so a box reads zeros.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, llvm, nvvm, scf

from tilec.analysis.shared_memory import storage_bytes
from tilec.dialects import tile, tilegpu
from tilec.dialects.tilegpu import MemDesc
from tilec.lowering.context import Lowering, LoweringError, i32, owner_predicate, rule
from tilec.lowering.coordinates import DYNAMIC_INDEX
from tilec.lowering.elementwise import grid_index
from tilec.lowering.ptx import asm
from tilec.lowering.shared_buffer import SMEM, SharedBuffer
from tilec.tma import DEVICE_MAP_SLOT_BYTES, MAP_BYTES, SWIZZLE_BYTES

def _barrier(buffer: SharedBuffer, index: int = 0) -> ir.Value:
    """The address of barrier `index` of the buffer (a view of one starts at its origin)."""
    index += buffer.origin[0] if buffer.origin else 0
    if not index:
        return buffer.base
    return llvm.getelementptr(ir.Type.parse(SMEM), buffer.base, [], [index],
                              ir.IntegerType.get_signless(64), 0)


def _thread0(ctx: Lowering) -> ir.Value:
    return owner_predicate(ctx, None, None)


@rule("tile.tma_load", "tile.tma_store", "tile.tma_reduce")
def lower_tile_tma(ctx: Lowering, op: ir.Operation):
    raise LoweringError(op, f"{op.name} is tile IR: convert-tile-to-tilegpu turns it into a "
                            "TMA copy through shared memory (run it first)")


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

    def inval():
        for index in range(math.prod(buffer.desc.shape)):
            nvvm.MBarrierInvalOp(_barrier(buffer, index))
    _thread0_only(ctx, inval)
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


@rule("tilegpu.arrive_barrier")
def lower_arrive_barrier(ctx: Lowering, op: ir.Operation):
    """Each thread arrives once (mbarrier.arrive; the state it returns is not used). With
    `ctas` N, each warp arrives once on the barrier of each of the cluster's N CTAs: the warp
    converges (bar.warp.sync, so every lane is done with what it read), then lane c < N maps the
    barrier's address into CTA c's shared memory (mapa) and arrives there, the N lanes at once.
    The arrive keeps mbarrier.arrive's default semantics (release at CTA scope): what the slot's
    readers read, wgmma read through the async proxy and their wait retired. At cluster scope
    (.release.cluster) ptxas fences every arrive with MEMBAR.ALL.GPU, which made the multicast
    matmul 2.3x slower."""
    bar = _barrier(ctx.get(op.operands[0]))
    if tilegpu.CLUSTER_ATTR not in op.attributes:
        nvvm.MBarrierArriveOp(ir.IntegerType.get_signless(64), bar)
        return []
    ctas = ir.IntegerAttr(op.attributes[tilegpu.CLUSTER_ATTR]).value
    nvvm.SyncWarpOp(i32(-1))
    address = llvm.ptrtoint(ir.IntegerType.get_signless(32), bar)
    mine = arith.cmpi(arith.CmpIPredicate.ult, ctx.lane, i32(ctas))
    asm([], [mine, address, ctx.lane],
        "{ .reg .b32 remote; @$0 mapa.shared::cluster.u32 remote, $1, $2; "
        "@$0 mbarrier.arrive.shared::cluster.b64 _, [remote]; }", ["b", "r", "r"])
    return []


@rule("tilegpu.async_tma_copy_global_to_local")
def lower_tma_copy(ctx: Lowering, op: ir.Operation):
    tensormap = ctx.get(op.operands[0])
    bar = _barrier(ctx.get(op.operands[1]))
    dst: SharedBuffer = ctx.get(op.operands[2])
    first = _thread0(ctx)
    nbytes = math.prod(dst.desc.shape) * storage_bytes(dst.element)
    nvvm.MBarrierArriveExpectTxOp(None, bar, i32(nbytes), predicate=first)
    cluster = ir.Type.parse("!llvm.ptr<7>")
    ctas = ir.IntegerAttr(op.attributes[tilegpu.MULTICAST_ATTR]).value \
        if tilegpu.MULTICAST_ATTR in op.attributes else 1
    every = None  # multicast: this CTA's blocks, into every CTA (their barriers expect all)
    if ctas > 1:
        rank = ctx.cluster_rank()
        every = arith.constant(ir.IntegerType.get_signless(16), (1 << ctas) - 1)
    blocks = _column_blocks(dst, [ctx.get(v) for v in list(op.operands)[3:]])
    for j, (base, coords) in enumerate(blocks):
        mine = first if every is None else arith.andi(
            first, arith.cmpi(arith.CmpIPredicate.eq, rank, i32(j % ctas)))
        nvvm.CpAsyncBulkTensorGlobalToSharedClusterOp(
            llvm.addrspacecast(cluster, base), tensormap, coords, bar, [], multicastMask=every,
            predicate=mine)
    return []


@rule("tilegpu.cluster_barrier")
def lower_cluster_barrier(ctx: Lowering, op: ir.Operation):
    """barrier.cluster.arrive (release) then barrier.cluster.wait (acquire): every thread of
    every CTA of the cluster (a CTA's own threads included)."""
    nvvm.ClusterArriveOp()
    nvvm.ClusterWaitOp()
    return []


def _column_blocks(buffer: SharedBuffer, coords: list[ir.Value]):
    """(shared address, coordinates innermost first) of each column block of an nvmma_shared
    buffer: block j is j * rows * swizzle bytes in, j * block_width elements along the
    fastest dimension."""
    desc: MemDesc = buffer.desc
    fastest, width = desc.layout.order[0], desc.layout.block_width
    blocks = desc.shape[fastest] // width
    block_bytes = math.prod(desc.shape) // blocks * storage_bytes(buffer.element)
    byte = ir.IntegerType.get_signless(8)
    for j in range(blocks):
        at = list(coords)
        base = buffer.base
        if j:
            at[fastest] = arith.addi(at[fastest], i32(j * width))
            base = llvm.getelementptr(ir.Type.parse(SMEM), buffer.base, [], [j * block_bytes],
                                      byte, 0)
        yield base, list(reversed(at))


@rule("tilegpu.async_tma_copy_local_to_global")
def lower_tma_store_copy(ctx: Lowering, op: ir.Operation):
    """Thread 0 stores each column block (cp.async.bulk.tensor shared::cta -> global) and
    commits them as one bulk group."""
    tensormap = ctx.get(op.operands[0])
    src: SharedBuffer = ctx.get(op.operands[1])
    first = _thread0(ctx)
    for base, coords in _column_blocks(src, [ctx.get(v) for v in list(op.operands)[2:]]):
        nvvm.CpAsyncBulkTensorSharedCTAToGlobalOp(tensormap, base, coords, predicate=first)
    _thread0_only(ctx, nvvm.CpAsyncBulkCommitGroupOp)
    return []


@rule("tilegpu.async_tma_reduce")
def lower_tma_reduce(ctx: Lowering, op: ir.Operation):
    """Thread 0 reduces each column block into the tensor (cp.reduce.async.bulk.tensor, the
    operation `kind`) and commits them as one bulk group."""
    tensormap = ctx.get(op.operands[0])
    src: SharedBuffer = ctx.get(op.operands[1])
    kind = ir.Attribute.parse(f"#nvvm.tma_redux_kind<{ir.StringAttr(op.attributes['kind']).value}>")
    blocks = list(_column_blocks(src, [ctx.get(v) for v in list(op.operands)[2:]]))

    def reduce():
        for base, coords in blocks:
            nvvm.CpAsyncBulkTensorReduceOp(tensormap, base, kind, coords)
        nvvm.CpAsyncBulkCommitGroupOp()
    _thread0_only(ctx, reduce)
    return []


@rule("tilegpu.tma_store_wait")
def lower_tma_store_wait(ctx: Lowering, op: ir.Operation):
    pendings = ir.IntegerAttr(op.attributes["pendings"]).value
    _thread0_only(ctx, lambda: nvvm.CpAsyncBulkWaitGroupOp(
        ir.IntegerAttr.get(ir.IntegerType.get_signless(32), pendings), read=True))
    return []


def _thread0_only(ctx: Lowering, make) -> None:
    """`make()` (an op without a predicate operand) in thread 0 only."""
    first = _thread0(ctx)
    if first is None:
        make()
        return
    if_op = scf.IfOp(first, [], has_else=False)
    with ir.InsertionPoint(if_op.then_block):
        make()
        scf.YieldOp([])


# tensormap.replace's element types (PTX ISA), by the MLIR element type; 8-bit floats move as
# bytes, integers by width (a copy moves bits); 32-bit integers are signed, which TMA's minima
# and maxima need (a signless i32 is a tl.int32 more often than a tl.uint32, whose minima and
# maxima take pointers: memory.tma_reduces).
_PTX_ELEMENT = {"f16": 6, "bf16": 10, "f32": 7, "i8": 0, "i16": 1, "i32": 3}


def _ptx_element(t: ir.Type) -> int:
    if isinstance(t, ir.FloatType) and t.width == 8:
        return 0
    return _PTX_ELEMENT[str(t)]


@rule("tile.make_tensormap")
def lower_make_tensormap(ctx: Lowering, op: ir.Operation):
    i64 = ir.IntegerType.get_signless(64)
    scratch, base = ctx.get(op.operands[0]), ctx.get(op.operands[1])
    rows, cols, stride = (ctx.get(v) for v in list(op.operands)[2:5])
    element = tile.ptr_pointee(op.operands[1].type)
    size = storage_bytes(element)
    box = list(ir.DenseI32ArrayAttr(op.attributes["box"]))
    swizzle = ir.IntegerAttr(op.attributes["swizzle"]).value
    slot = ir.IntegerAttr(op.attributes["slot"]).value

    ids = [arith.extui(i64, grid_index("gpu.block_id", a)) for a in range(3)]
    dims = [arith.extui(i64, grid_index("gpu.grid_dim", a)) for a in range(3)]
    program = arith.addi(ids[0], arith.muli(dims[0], arith.addi(
        ids[1], arith.muli(dims[1], ids[2]))))
    programs = arith.muli(dims[0], arith.muli(dims[1], dims[2]))
    index = arith.addi(arith.muli(arith.constant(i64, slot), programs), program)
    byte = ir.IntegerType.get_signless(8)
    global_ptr = ir.Type.parse("!llvm.ptr<1>")
    at = llvm.getelementptr(global_ptr, scratch, [arith.muli(
        index, arith.constant(i64, DEVICE_MAP_SLOT_BYTES))], [DYNAMIC_INDEX], byte, 0)
    zeros = llvm.getelementptr(global_ptr, at, [], [MAP_BYTES], byte, 0)

    zero64 = arith.constant(i64, 0)
    empty = arith.ori(arith.cmpi(arith.CmpIPredicate.eq, rows, zero64),
                      arith.cmpi(arith.CmpIPredicate.eq, cols, zero64))
    one64 = arith.constant(i64, 1)
    address = arith.select(empty, llvm.ptrtoint(i64, zeros), llvm.ptrtoint(i64, base))
    i32t = ir.IntegerType.get_signless(32)
    inner = arith.trunci(i32t, arith.select(empty, one64, cols))
    outer = arith.trunci(i32t, arith.select(empty, one64, rows))
    stride_bytes = arith.select(empty, arith.constant(i64, 16),
                                arith.muli(stride, arith.constant(i64, size)))

    smem = llvm.ptrtoint(i32t, ctx.scratch(MAP_BYTES))
    vector = ir.VectorType.get([4], i32t)

    def write():
        """Lane 0 of warp 0: the slot's zero area (global) and the map (in shared memory)
        zeroed, then each field of the map set."""
        zero = llvm.mlir_zero(vector)
        for chunk in range((DEVICE_MAP_SLOT_BYTES - MAP_BYTES) // 16):
            llvm.store(zero, llvm.getelementptr(global_ptr, zeros, [], [16 * chunk], byte, 0),
                       alignment=16)
        asm([], [smem], "\n".join(f"st.shared.v4.b32 [$0+{16 * chunk}], {{0, 0, 0, 0}};"
                                  for chunk in range(MAP_BYTES // 16)), ["r"])
        field = "tensormap.replace.tile.{}.shared::cta.b1024.{} [$0], {};"
        text = "\n".join([
            field.format("global_address", "b64", "$1"),
            field.format("rank", "b32", "1"),
            field.format("box_dim", "b32", "0, $2"), field.format("box_dim", "b32", "1, $3"),
            field.format("global_dim", "b32", "0, $4"), field.format("global_dim", "b32", "1, $5"),
            field.format("global_stride", "b64", "0, $6"),
            field.format("element_stride", "b32", "0, $7"),
            field.format("element_stride", "b32", "1, $7"),
            field.format("elemtype", "b32", str(_ptx_element(element))),
            field.format("interleave_layout", "b32", "0"),
            # the swizzle modes are numbered as the driver's (tilec.tma.SWIZZLE_BYTES)
            field.format("swizzle_mode", "b32", str(SWIZZLE_BYTES.index(swizzle))),
            field.format("fill_mode", "b32", "0")])
        asm([], [smem, address, i32(box[1]), i32(box[0]), inner, outer, stride_bytes, i32(1)],
            text, ["r", "l", "r", "r", "r", "r", "l", "r"])

    first_warp = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, ctx.warp, i32(0)), [],
                          has_else=False)
    with ir.InsertionPoint(first_warp.then_block):
        lane0 = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, ctx.lane, i32(0)), [],
                         has_else=False)
        with ir.InsertionPoint(lane0.then_block):
            write()
            scf.YieldOp([])
        # the warp copies the map to its slot and releases it to the tensormap proxy
        asm([], [at, smem], "bar.warp.sync -1;\n"
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu."
            "sync.aligned [$0], [$1], 128;", ["l", "r"])
        scf.YieldOp([])
    ctx.barrier()
    asm([], [at], "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;\n"
        "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;", ["l"])
    return [llvm.addrspacecast(ir.Type.parse("!llvm.ptr"), at)]
