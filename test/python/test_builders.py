"""The Python builders of `tile` and `tilegpu` (dialects/tile.py, dialects/tilegpu.py).

Every op is built inside a `func.func`, the module verifies, and its printed text parses back to
the same text. The layout dataclasses and MemDesc round-trip through their attributes and types.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from mlir import ir
from mlir.dialects import arith, func, gpu

from tilec.context import make_context, parse_module
from tilec.dialects import tile
from tilec.dialects import tilegpu as tg

DIALECTS = Path(tile.__file__).parent

BLOCKED_1D = tg.BlockedLayout((4,), (32,), (4,), (0,))
BLOCKED = tg.BlockedLayout((1, 4), (8, 4), (4, 1), (1, 0))
BLOCKED_3D = tg.BlockedLayout((1, 1, 4), (1, 4, 8), (2, 2, 1), (2, 1, 0))
MMA = tg.MmaLayout((2, 0), (2, 2), (16, 8))
WGMMA = tg.MmaLayout((3, 0), (4, 1), (16, 64))
DOT_A = tg.DotOperandLayout(0, MMA, 2)
DOT_B = tg.DotOperandLayout(1, MMA, 2)
SHARED = tg.SharedLayout(8, 1, 8, (1, 0))


@pytest.fixture
def ctx():
    context = make_context()
    with context, ir.Location.unknown():
        yield context


def f16():
    return ir.F16Type.get()


def f32():
    return ir.F32Type.get()


def i1():
    return ir.IntegerType.get_signless(1)


def i32():
    return ir.IntegerType.get_signless(32)


def i64():
    return ir.IntegerType.get_signless(64)


def tensor(shape, element, layout=None):
    t = ir.RankedTensorType.get(list(shape), element)
    return t if layout is None else tg.with_layout(t, layout)


def build(arg_types, body) -> ir.Module:
    """A module with one `func.func @kernel(arg_types)` whose body `body(*args)` builds."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("kernel", (list(arg_types), []))
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            body(*entry.arguments)
            func.ReturnOp([])
    return module


def combine(op: ir.Operation, body) -> ir.Operation:
    """End the combine block of a reduce/scan with `gpu.yield body(*block arguments)`."""
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        gpu.YieldOp(list(body(*block.arguments)))
    return op


def assert_round_trip(module: ir.Module, context: ir.Context) -> str:
    assert module.operation.verify()
    text = str(module)
    assert str(parse_module(text, context)) == text
    return text


def op_names(module: ir.Module) -> set[str]:
    names = set()

    def visit(op):
        names.add(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


def declared_ops(dialect: str) -> set[str]:
    text = (DIALECTS / f"{dialect}.irdl.mlir").read_text()
    return {f"{dialect}.{name}" for name in re.findall(r"irdl\.operation @(\w+)", text)}


def attr(value: ir.Value | ir.OpView, name: str) -> str:
    op = value.owner if isinstance(value, ir.Value) else value
    return str(op.attributes[name])


# --- tile ops -----------------------------------------------------------------------------------

def build_tile_module() -> tuple[ir.Module, dict]:
    """Every `tile` op, at the tile stage (no encodings); returns the module and the values."""
    seen = {}

    def body(p, x, y, idx, a, b, c, cond, n, tensormap):
        s = seen
        s["pid"] = tile.program_id(0)
        s["num"] = tile.num_programs(1)
        s["rank"] = tile.cta_rank()
        s["range"] = tile.make_range(0, 128)
        s["splat"] = tile.splat(p, [128])
        s["ptrs"] = tile.addptr(s["splat"], s["range"])
        s["ptr_scalar"] = tile.addptr(p, s["pid"])
        s["mask"] = tile.splat(cond, [128])
        s["load"] = tile.load(s["ptrs"])
        s["load_mask"] = tile.load(s["ptrs"], s["mask"])
        s["load_other"] = tile.load(s["ptrs"], s["mask"], s["load"])
        s["load_scalar"] = tile.load(p, cache="ca", evict="evict_last", is_volatile=True)
        s["store_mask"] = tile.store(s["ptrs"], s["load_other"], s["mask"])
        s["store"] = tile.store(s["ptrs"], s["load_mask"], cache="wb", evict="evict_first")
        s["store_scalar"] = tile.store(p, s["load_scalar"])
        s["expand"] = tile.expand_dims(s["range"], 1)
        s["broadcast"] = tile.broadcast(s["expand"], [128, 4])
        s["reshape"] = tile.reshape(s["broadcast"], [512], allow_reorder=True)
        s["trans"] = tile.trans(x, [1, 0])
        s["join"] = tile.join(x, y)
        s["split"] = tile.split(s["join"])
        s["dot"] = tile.dot(a, b, c)
        s["dot_ieee"] = tile.dot(a, b, c, input_precision="ieee", max_num_imprecise_acc=32)
        s["sum"] = combine(tile.reduce([x], 1), lambda u, v: [arith.addf(u, v)])

        def argmax(v0, i0, v1, i1):
            gt = arith.cmpf(arith.CmpFPredicate.OGT, v0, v1)
            return [arith.select(gt, v0, v1), arith.select(gt, i0, i1)]

        s["argmax"] = combine(tile.reduce([x, idx], 1), argmax)
        s["total"] = combine(tile.reduce([s["range"]], 0), lambda u, v: [arith.addi(u, v)])
        s["cumsum"] = combine(tile.scan([x], 1), lambda u, v: [arith.addf(u, v)])
        s["cummax"] = combine(tile.scan([x, idx], 0, reverse=True), argmax)
        s["sort"] = tile.sort(x, 1)
        s["sort_desc"] = tile.sort(x, 1, descending=True)
        s["gather"] = tile.gather(x, tile.expand_dims(tile.make_range(0, 8), 0), 1)
        s["histogram"] = tile.histogram(s["range"], 16)
        s["cat"] = tile.cat(x, y)
        s["asm"], s["asm_i"] = tile.elementwise_inline_asm(
            "mov.b32 $0, $2; mov.b32 $1, $2;", "=f,=r,f", [x], [x.type, tile.like(x.type, i32())],
            True, 1)
        s["rmw"] = tile.atomic_rmw("fadd", s["ptrs"], s["load"])
        s["rmw_mask"] = tile.atomic_rmw("fadd", s["ptrs"], s["load"], s["mask"], sem="relaxed",
                                        scope="cta")
        s["iptr"] = tile.bitcast(p, tile.ptr_type(i32()))
        s["rmw_scalar"] = tile.atomic_rmw("max", s["iptr"], s["pid"], sem="acquire", scope="sys")
        s["cas"] = tile.atomic_cas(s["iptr"], s["pid"], s["num"])
        s["fp8"] = tile.fp_to_fp(x, tensor([4, 8], ir.Float8E4M3FNType.get()), rounding="rtne")
        s["fp16"] = tile.fp_to_fp(x, tensor([4, 8], f16()))
        s["bits"] = tile.bitcast(x, tensor([4, 8], i32()))
        s["int"] = tile.ptr_to_int(p, i64())
        s["ptr"] = tile.int_to_ptr(n, tile.ptr_type(f32()))
        s["print"] = tile.print_("hello")
        s["print_value"] = tile.print_("pid: ", s["pid"])
        s["print_hex"] = tile.print_("x: ", s["bits"], hex=True)
        s["assert"] = tile.assert_(s["mask"], "out of bounds")
        s["tma"] = tile.tma_load(tensormap, [s["pid"], s["pid"]], tensor([64, 64], f16()), 128)
        s["tma_store"] = tile.tma_store(tensormap, s["tma"], [s["pid"], s["pid"]], 128)
        scratch = tile.int_to_ptr(n, tile.ptr_type(ir.IntegerType.get_signless(8)))
        s["made_map"] = tile.make_tensormap(scratch, tile.bitcast(p, tile.ptr_type(f16())),
                                            [n, n], [n], [64, 64], 128, 0)
        s["tma_made"] = tile.tma_load(s["made_map"], [s["pid"], s["pid"]],
                                      tensor([64, 64], f16()), 128)
        s["tma_reduce"] = tile.tma_reduce(s["made_map"], s["tma_made"], [s["pid"], s["pid"]],
                                          128, "add")

    args = [tile.ptr_type(f32()), tensor([4, 8], f32()), tensor([4, 8], f32()),
            tensor([4, 8], i32()), tensor([64, 32], f16()), tensor([32, 64], f16()),
            tensor([64, 64], f32()), i1(), i64(), ir.Type.parse("!llvm.ptr")]
    return build(args, body), seen


def test_tile_ops_verify_and_round_trip(ctx):
    module, _ = build_tile_module()
    assert_round_trip(module, ctx)


def test_every_tile_op_is_built(ctx):
    module, _ = build_tile_module()
    assert declared_ops("tile") <= op_names(module)


def test_tile_result_types(ctx):
    _, s = build_tile_module()
    assert str(s["range"].type) == "tensor<128xi32>"
    assert str(s["splat"].type) == "tensor<128x!tile.ptr<f32, 1 : i32>>"
    assert s["ptrs"].type == s["splat"].type
    assert str(s["ptr_scalar"].type) == "!tile.ptr<f32, 1 : i32>"
    assert str(s["load"].type) == "tensor<128xf32>"
    assert str(s["load_scalar"].type) == "f32"
    assert str(s["expand"].type) == "tensor<128x1xi32>"
    assert str(s["broadcast"].type) == "tensor<128x4xi32>"
    assert str(s["reshape"].type) == "tensor<512xi32>"
    assert str(s["trans"].type) == "tensor<8x4xf32>"
    assert str(s["join"].type) == "tensor<4x8x2xf32>"
    assert [str(v.type) for v in s["split"]] == ["tensor<4x8xf32>"] * 2
    assert str(s["dot"].type) == "tensor<64x64xf32>"
    assert [str(r.type) for r in s["sum"].results] == ["tensor<4xf32>"]
    assert [str(r.type) for r in s["argmax"].results] == ["tensor<4xf32>", "tensor<4xi32>"]
    assert [str(r.type) for r in s["total"].results] == ["i32"]
    assert [str(r.type) for r in s["cummax"].results] == ["tensor<4x8xf32>", "tensor<4x8xi32>"]
    assert s["sort"].type == s["sort_desc"].type == ir.RankedTensorType.get([4, 8], f32())
    assert str(s["gather"].type) == "tensor<1x8xf32>"
    assert str(s["histogram"].type) == "tensor<16xi32>"
    assert str(s["cat"].type) == "tensor<8x8xf32>"
    assert str(s["iptr"].type) == "!tile.ptr<i32, 1 : i32>"
    assert str(s["rmw"].type) == "tensor<128xf32>"
    assert str(s["cas"].type) == "i32"
    assert str(s["fp8"].type) == "tensor<4x8xf8E4M3FN>"
    assert str(s["ptr"].type) == "!tile.ptr<f32, 1 : i32>"


def test_tile_optional_operands_and_attributes(ctx):
    _, s = build_tile_module()
    assert attr(s["load"], "operandSegmentSizes") == "array<i32: 1, 0, 0>"
    assert attr(s["load_mask"], "operandSegmentSizes") == "array<i32: 1, 1, 0>"
    assert attr(s["load_other"], "operandSegmentSizes") == "array<i32: 1, 1, 1>"
    assert len(s["load_other"].owner.operands) == 3
    assert (attr(s["load_scalar"], "cache"), attr(s["load_scalar"], "evict"),
            attr(s["load_scalar"], "is_volatile")) == ('"ca"', '"evict_last"', "true")
    assert attr(s["load"], "is_volatile") == "false"
    # store has a single optional operand and so no segment sizes.
    assert len(s["store_mask"].operands) == 3 and len(s["store"].operands) == 2
    assert "operandSegmentSizes" not in s["store"].attributes
    assert attr(s["store"], "cache") == '"wb"'
    assert attr(s["reshape"], "allow_reorder") == "true"
    assert attr(s["trans"], "order") == "array<i32: 1, 0>"
    assert attr(s["dot"], "input_precision") == '"tf32"'
    assert attr(s["dot_ieee"], "max_num_imprecise_acc") == "32 : i32"
    for key, count in (("sum", 1), ("argmax", 2), ("cumsum", 1), ("cummax", 2)):
        segments = "array<i32: " + ", ".join(["1"] * count + ["0"] * (4 - count)) + ">"
        assert attr(s[key], "operandSegmentSizes") == segments
        assert attr(s[key], "resultSegmentSizes") == segments
    argmax_block = s["argmax"].regions[0].blocks[0]
    assert [str(a.type) for a in argmax_block.arguments] == ["f32", "i32", "f32", "i32"]
    assert attr(s["cumsum"], "reverse") == "false" and attr(s["cummax"], "reverse") == "true"
    assert (attr(s["sort"], "axis"), attr(s["sort"], "descending")) == ("1 : i32", "false")
    assert attr(s["sort_desc"], "descending") == "true" and attr(s["gather"], "axis") == "1 : i32"
    assert len(s["rmw"].owner.operands) == 2 and len(s["rmw_mask"].owner.operands) == 3
    assert (attr(s["rmw"], "sem"), attr(s["rmw"], "scope")) == ('"acq_rel"', '"gpu"')
    assert attr(s["rmw_mask"], "rmw_op") == '"fadd"'
    assert attr(s["fp16"], "rounding") == '"none"'
    assert len(s["print"].operands) == 0 and len(s["print_value"].operands) == 1
    assert attr(s["print_hex"], "hex") == "true" and attr(s["print"], "hex") == "false"
    assert attr(s["assert"], "message") == '"out of bounds"'


@pytest.mark.parametrize("count", [0, 5])
def test_reduce_and_scan_take_one_to_four_tensors(ctx, count):
    def body(x):
        with pytest.raises(ValueError):
            tile.reduce([x] * count, 0)
        with pytest.raises(ValueError):
            tile.scan([x] * count, 0)

    build([tensor([8], f32())], body)


def test_four_operand_reduce(ctx):
    def body(a, b, c, d):
        op = combine(tile.reduce([a, b, c, d], 0), lambda *args: args[:4])
        assert attr(op, "operandSegmentSizes") == "array<i32: 1, 1, 1, 1>"
        assert [str(r.type) for r in op.results] == ["f32", "i32", "f16", "i64"]

    module = build([tensor([16], t()) for t in (f32, i32, f16, i64)], body)
    assert_round_trip(module, ctx)


# --- tilegpu ops --------------------------------------------------------------------------------

def build_tilegpu_module() -> tuple[ir.Module, dict]:
    """Every `tilegpu` op, on tensors with layouts and shared-memory buffers."""
    seen = {}

    def body(x, ptrs, mask, acc, stage, x64, wacc, tensormap):
        s = seen
        s["to_mma"] = tg.convert_layout(acc, BLOCKED)
        s["back"] = tg.convert_layout(s["to_mma"], MMA)
        s["buf"] = tg.local_alloc(tg.MemDesc((2, 64, 32), "f16", SHARED))
        s["init"] = tg.local_alloc(tg.MemDesc((64, 32), "f16", SHARED, mutable=False), x)
        zero = arith.constant(i32(), 0)
        s["sub"] = tg.memdesc_subview(s["buf"], [stage, zero, zero],
                                      tg.MemDesc((64, 32), "f16", SHARED))
        s["first"] = tg.memdesc_subview(s["buf"], [zero, zero, zero],
                                        tg.MemDesc((64, 32), "f16", SHARED))
        s["trans"] = tg.memdesc_trans(s["sub"])
        s["store"] = tg.local_store(x, s["sub"])
        s["load"] = tg.local_load(s["sub"], tensor([64, 32], f16(), DOT_A))
        s["copy"] = tg.async_copy_global_to_local(ptrs, s["sub"])
        s["copy_mask"] = tg.async_copy_global_to_local(ptrs, s["sub"], mask, cache="ca")
        s["copy_other"] = tg.async_copy_global_to_local(ptrs, s["sub"], mask, x, cache="cg",
                                                        evict="evict_first")
        s["group"] = tg.async_commit_group([s["copy"], s["copy_mask"], s["copy_other"]])
        s["empty_group"] = tg.async_commit_group()
        s["wait"] = tg.async_wait(1, [s["group"]])
        s["wait_all"] = tg.async_wait(0)
        s["barrier"] = tg.barrier()
        nvmma = tg.NvmmaSharedLayout(128, 16, (1, 0))
        s["wa"] = tg.local_alloc(tg.MemDesc((64, 64), "f16", nvmma, mutable=False), x64)
        s["fence"] = tg.fence_async_shared()
        s["wgmma"] = tg.warpgroup_dot(s["wa"], s["wa"], wacc, {
            "input_precision": ir.StringAttr.get("tf32"),
            "max_num_imprecise_acc": ir.IntegerAttr.get(i32(), 0)})
        s["waited"], = tg.warpgroup_dot_wait([s["wgmma"]], 1)
        s["dealloc"] = tg.local_dealloc(s["buf"])
        tg.local_dealloc(s["init"])
        s["bar"] = tg.local_alloc(tg.barrier_memdesc())
        s["init_barrier"] = tg.init_barrier(s["bar"], 1)
        s["tma_dst"] = tg.local_alloc(tg.MemDesc((64, 64), "f16", nvmma))
        s["tma_copy"] = tg.async_tma_copy_global_to_local(tensormap, s["bar"], s["tma_dst"],
                                                          [stage, stage])
        s["wait_barrier"] = tg.wait_barrier(s["bar"], stage)
        s["arrive_barrier"] = tg.arrive_barrier(s["bar"])
        s["cluster_arrive"] = tg.arrive_barrier(s["bar"], ctas=2)
        s["multicast_copy"] = tg.async_tma_copy_global_to_local(
            tensormap, s["bar"], s["tma_dst"], [stage, stage], multicast=2)
        s["cluster_barrier"] = tg.cluster_barrier()
        s["inval_barrier"] = tg.inval_barrier(s["bar"])
        s["tma_store"] = tg.async_tma_copy_local_to_global(tensormap, s["tma_dst"], [stage, stage])
        s["tma_reduce"] = tg.async_tma_reduce(tensormap, s["tma_dst"], [stage, stage], "add")
        s["tma_store_wait"] = tg.tma_store_wait(0)
        s["split"] = tg.warp_specialize(4, 40, 256)  # last: both regions end the kernel
        for region in s["split"].regions:
            with ir.InsertionPoint(region.blocks[0]):
                if region == s["split"].regions[1]:  # the consumers' turns
                    s["turn_wait"] = tg.warpgroup_turn_wait()
                    s["turn_pass"] = tg.warpgroup_turn_pass(1)
                ir.Operation.create("gpu.yield")

    args = [tensor([64, 32], f16(), BLOCKED), tensor([64, 32], tile.ptr_type(f16()), BLOCKED),
            tensor([64, 32], i1(), BLOCKED), tensor([64, 64], f32(), MMA), i32(),
            tensor([64, 64], f16(), BLOCKED), tensor([64, 64], f32(), WGMMA),
            ir.Type.parse("!llvm.ptr")]
    return build(args, body), seen


def test_tilegpu_ops_verify_and_round_trip(ctx):
    module, _ = build_tilegpu_module()
    assert_round_trip(module, ctx)


def test_every_tilegpu_op_is_built(ctx):
    module, _ = build_tilegpu_module()
    assert declared_ops("tilegpu") <= op_names(module)


def test_tilegpu_types_and_operands(ctx):
    _, s = build_tilegpu_module()
    assert tg.tensor_layout(s["to_mma"].type) == BLOCKED
    assert tg.tensor_layout(s["back"].type) == MMA
    assert tg.MemDesc.from_type(s["buf"].type) == tg.MemDesc((2, 64, 32), "f16", SHARED, True)
    assert tg.MemDesc.from_type(s["init"].type).mutable is False
    assert len(s["buf"].owner.operands) == 0 and len(s["init"].owner.operands) == 1
    assert len(s["sub"].owner.operands) == 4 and len(s["first"].owner.operands) == 4
    assert tg.MemDesc.from_type(s["sub"].type).shape == (64, 32)
    swapped = tg.MemDesc.from_type(s["trans"].type)  # dimensions and order swapped
    assert swapped.shape == (32, 64) and swapped.layout.order == (0, 1)
    assert swapped.layout.vec == SHARED.vec and swapped.mutable
    assert tg.tensor_layout(s["load"].type) == DOT_A
    assert len(s["store"].operands) == 2
    assert attr(s["copy"], "operandSegmentSizes") == "array<i32: 1, 1, 0, 0>"
    assert attr(s["copy_mask"], "operandSegmentSizes") == "array<i32: 1, 1, 1, 0>"
    assert attr(s["copy_other"], "operandSegmentSizes") == "array<i32: 1, 1, 1, 1>"
    assert (attr(s["copy"], "cache"), attr(s["copy"], "evict")) == ('"none"', '"evict_normal"')
    assert (attr(s["copy_other"], "cache"), attr(s["copy_other"], "evict")) == (
        '"cg"', '"evict_first"')
    for key in ("copy", "group", "empty_group", "wait", "wait_all"):
        assert s[key].type == tg.async_token_type()
    assert len(s["group"].owner.operands) == 3 and len(s["empty_group"].owner.operands) == 0
    assert attr(s["wait"], "num") == "1 : i32" and len(s["wait_all"].owner.operands) == 0
    assert len(s["barrier"].operands) == 0 and len(s["barrier"].results) == 0
    assert tg.MemDesc.from_type(s["wa"].type).layout == tg.NvmmaSharedLayout(128, 16, (1, 0))
    assert s["wgmma"].type == s["wgmma"].owner.operands[2].type
    assert attr(s["wgmma"].owner, "input_precision") == '"tf32"'
    assert len(s["fence"].operands) == 0 and len(s["fence"].results) == 0
    assert s["waited"].type == s["wgmma"].type and attr(s["waited"].owner, "pendings") == "1 : i32"


def test_builders_keep_layouts_of_typed_operands(ctx):
    """dot and addptr take their result type from an operand, so its layout survives."""
    def body(a, b, c, ptrs, offs):
        d = tile.dot(a, b, c)
        assert tg.tensor_layout(d.type) == MMA
        moved = tile.addptr(ptrs, offs)
        assert tg.tensor_layout(moved.type) == BLOCKED

    args = [tensor([64, 32], f16(), DOT_A), tensor([32, 64], f16(), DOT_B),
            tensor([64, 64], f32(), MMA), tensor([64, 32], tile.ptr_type(f32()), BLOCKED),
            tensor([64, 32], i32(), BLOCKED)]
    assert_round_trip(build(args, body), ctx)


def test_load_keeps_layout(ctx):
    def body(ptrs):
        assert tg.tensor_layout(tile.load(ptrs).type) == BLOCKED

    build([tensor([64, 32], tile.ptr_type(f32()), BLOCKED)], body)


# --- types ----------------------------------------------------------------------------------------

def test_ptr_type(ctx):
    p = tile.ptr_type(f32())
    assert str(p) == "!tile.ptr<f32, 1 : i32>"
    assert tile.is_ptr(p) and not tile.is_ptr(f32())
    assert tile.ptr_pointee(p) == f32() and tile.ptr_addrspace(p) == tile.GLOBAL == 1
    shared = tile.ptr_type(f16(), 3)
    assert tile.ptr_pointee(shared) == f16() and tile.ptr_addrspace(shared) == 3
    nested = tile.ptr_type(p)
    assert str(nested) == "!tile.ptr<!tile.ptr<f32, 1 : i32>, 1 : i32>"
    assert tile.ptr_pointee(nested) == p and tile.ptr_addrspace(nested) == 1
    ptrs = tensor([128], p)
    assert not tile.is_ptr(ptrs) and tile.is_ptr(tile.element_type(ptrs))
    assert tile.ptr_pointee(tile.element_type(ptrs)) == f32()
    assert tile.ptr_pointee(ir.Type.parse("!tile.ptr<i8, 0 : i32>")) == ir.IntegerType.get_signless(8)


def test_tensor_helpers(ctx):
    t = tensor([4, 8], f32())
    assert tile.shape_of(t) == [4, 8] and tile.shape_of(f32()) == []
    assert tile.element_type(t) == f32() and tile.element_type(i32()) == i32()
    assert str(tile.like(t, i1())) == "tensor<4x8xi1>" and tile.like(f32(), i1()) == i1()


LAYOUTS = [
    BLOCKED_1D,
    BLOCKED,
    BLOCKED_3D,
    tg.SliceLayout(1, BLOCKED),
    tg.SliceLayout(0, BLOCKED),
    tg.SliceLayout(0, tg.SliceLayout(1, BLOCKED_3D)),
    MMA,
    tg.MmaLayout((2, 0), (8, 1), (16, 8)),
    tg.SliceLayout(1, MMA),
    DOT_A,
    DOT_B,
    tg.DotOperandLayout(0, BLOCKED, 1),
    SHARED,
    tg.SharedLayout(1, 1, 1, (0,)),
]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.text())
def test_layout_round_trip(ctx, layout):
    attribute = tg.layout_attr(layout)
    assert str(attribute) == layout.text()
    assert tg.layout_from_attr(attribute) == layout
    assert tg.layout_from_text(layout.text()) == layout


@pytest.mark.parametrize("layout", [l for l in LAYOUTS if not isinstance(l, tg.SharedLayout)],
                         ids=lambda layout: layout.text())
def test_tensor_layout_round_trip(ctx, layout):
    t = tensor([16] * layout.rank, f32(), layout)
    assert tg.tensor_layout(t) == layout
    assert tg.tensor_layout(tensor([16], f32())) is None


def test_layout_ranks():
    assert BLOCKED_1D.rank == 1 and BLOCKED_3D.rank == 3
    assert tg.SliceLayout(0, tg.SliceLayout(1, BLOCKED_3D)).rank == 1
    assert MMA.rank == 2 and DOT_A.rank == 2 and SHARED.rank == 2


def test_not_a_layout(ctx):
    with pytest.raises(ValueError):
        tg.layout_from_text("#tilegpu.nope<1>")
    with pytest.raises(ValueError):
        tg.layout_from_attr(ir.Attribute.parse("1 : i32"))


@pytest.mark.parametrize("memdesc", [
    tg.MemDesc((64, 32), "f16", SHARED),
    tg.MemDesc((3, 64, 32), "f16", SHARED, True),
    tg.MemDesc((32, 64), "bf16", tg.SharedLayout(8, 2, 4, (0, 1)), False),
    tg.MemDesc((128,), "f32", tg.SharedLayout(1, 1, 1, (0,)), True),
], ids=lambda m: m.text())
def test_memdesc_round_trip(ctx, memdesc):
    t = memdesc.type()
    assert str(t) == memdesc.text()
    assert tg.is_memdesc(t) and not tg.is_memdesc(f32())
    assert tg.MemDesc.from_type(t) == memdesc


def test_async_token(ctx):
    assert str(tg.async_token_type()) == "!tilegpu.async_token"


@pytest.mark.parametrize("fields", [
    ((1, 4), (32,), (4, 1), (1, 0)),     # ranks differ
    ((1,), (32,), (4,), (0, 1)),         # order longer than the others
    ((1, 4), (8, 4), (4, 1), (1, 1)),    # order repeats a dimension
    ((1, 4), (8, 4), (4, 1), (2, 0)),    # order names a dimension that does not exist
], ids=["ranks", "order-rank", "order-repeat", "order-range"])
def test_invalid_blocked_layout(fields):
    with pytest.raises(ValueError):
        tg.BlockedLayout(*fields)


@pytest.mark.parametrize("make", [
    lambda: tg.SharedLayout(8, 1, 8, (0, 0)),
    lambda: tg.SharedLayout(0, 1, 8, (1, 0)),
    lambda: tg.SliceLayout(2, BLOCKED),
    lambda: tg.DotOperandLayout(2, MMA, 2),
    lambda: tg.MmaLayout((2, 0), (2, 2, 1), (16, 8)),
    lambda: tg.MmaLayout((2,), (2, 2), (16, 8)),
    # One leading buffer dimension beyond the layout's rank is allowed; two are not.
    lambda: tg.MemDesc((2, 2, 64, 32), "f16", SHARED),
    lambda: tg.BlockedLayout(["a"], [32], [4], [0]),
], ids=["shared-order", "shared-vec", "slice-dim", "dot-operand-idx", "mma-ranks",
        "mma-version", "memdesc-rank", "blocked-not-ints"])
def test_invalid_other_layouts(make):
    with pytest.raises(ValueError):
        make()


def test_layout_fields_are_normalised_to_tuples():
    from_lists = tg.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    assert from_lists == tg.BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0))
    assert hash(from_lists) == hash(tg.BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0)))


def test_memdesc_with_a_multi_buffer_dimension(ctx):
    m = tg.MemDesc((3, 64, 32), "f16", SHARED)
    assert tg.MemDesc.from_type(m.type()) == m


def test_memdesc_element_type_from_an_mlir_type(ctx):
    m = tg.MemDesc((64, 32), ir.F16Type.get(), SHARED)
    assert tg.MemDesc.from_type(m.type()) == m
