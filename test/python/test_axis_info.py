"""The axis analysis (analysis/axis_info.py): each transfer rule on small modules, and a random
check that what it claims holds of the values the programs compute."""
from __future__ import annotations

import random

import numpy as np
import pytest

from tilec.analysis.axis_info import analyze
from tilec.analysis.axis_lattice import MAX_DIVISIBILITY, AxisInfo
from tilec.context import make_context, parse_module

MAX = MAX_DIVISIBILITY


def returned(body: str, args: str = "", results: str | None = None) -> list[AxisInfo]:
    """Facts of the values `body` returns; `results` is the function's result type list."""
    text = f"func.func @f({args}) -> ({results}) {{\n{body}\n}}"
    module = parse_module(text, make_context())
    infos = analyze(module)
    func = module.body.operations[0]
    ret = list(func.regions[0].blocks[0].operations)[-1]
    return [infos.get(v) for v in ret.operands]


def facts(info: AxisInfo):
    return list(info.contiguity), list(info.divisibility), list(info.constancy)


RANGE = '%r = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>'


def splat(name, src, shape="128", ty="i32"):
    return f'%{name} = "tile.splat"(%{src}) : ({ty}) -> tensor<{shape}x{ty}>'


# --- constants, ranges, shapes ----------------------------------------------------------------

def test_constants():
    [s, z, t, d] = returned(
        """%s = arith.constant 48 : i32
        %z = arith.constant 0 : i64
        %t = arith.constant dense<64> : tensor<8x16xi32>
        %d = arith.constant dense<[4, 5, 6, 7, 8, 9, 10, 11]> : tensor<8xi32>
        return %s, %z, %t, %d : i32, i64, tensor<8x16xi32>, tensor<8xi32>""",
        results="i32, i64, tensor<8x16xi32>, tensor<8xi32>")
    assert facts(s) == ([1], [16], [1]) and s.constant == 48
    assert facts(z) == ([1], [MAX], [1]) and z.constant == 0
    assert facts(t) == ([1, 1], [64, 64], [8, 16]) and t.constant == 64
    assert facts(d) == ([8], [4], [1])  # one run of 8 that starts at 4


def test_make_range():
    [a, b] = returned(
        """%a = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
        %b = "tile.make_range"() {end = 48 : i32, start = 32 : i32} : () -> tensor<16xi32>
        return %a, %b : tensor<128xi32>, tensor<16xi32>""",
        results="tensor<128xi32>, tensor<16xi32>")
    assert facts(a) == ([128], [MAX], [1])
    assert facts(b) == ([16], [32], [1])


def test_splat_broadcast_expand_dims():
    [sp, col, row, bc, br] = returned(
        f"""{RANGE}
        {splat("sp", "n", "4x8")}
        %r64 = "tile.make_range"() {{end = 64 : i32, start = 0 : i32}} : () -> tensor<64xi32>
        %col = "tile.expand_dims"(%r64) {{axis = 1 : i32}} : (tensor<64xi32>) -> tensor<64x1xi32>
        %row = "tile.expand_dims"(%r64) {{axis = 0 : i32}} : (tensor<64xi32>) -> tensor<1x64xi32>
        %bc = "tile.broadcast"(%col) : (tensor<64x1xi32>) -> tensor<64x32xi32>
        %br = "tile.broadcast"(%row) : (tensor<1x64xi32>) -> tensor<16x64xi32>
        return %sp, %col, %row, %bc, %br : tensor<4x8xi32>, tensor<64x1xi32>, tensor<1x64xi32>, tensor<64x32xi32>, tensor<16x64xi32>""",
        args="%n: i32 {tile.divisibility = 16 : i32}",
        results="tensor<4x8xi32>, tensor<64x1xi32>, tensor<1x64xi32>, tensor<64x32xi32>, "
                "tensor<16x64xi32>")
    assert facts(sp) == ([1, 1], [16, 16], [4, 8])
    # The new size-1 dimension: every element counts, and 1, 3, ... are odd.
    assert facts(col) == ([64, 1], [MAX, 1], [1, 1])
    assert facts(row) == ([1, 64], [1, MAX], [1, 1])
    assert facts(bc) == ([64, 1], [MAX, 1], [1, 32])
    assert facts(br) == ([1, 64], [1, MAX], [16, 1])


def test_trans_and_convert_layout_keep_facts():
    [t, c] = returned(
        """%r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #tilegpu.blocked<[1], [32], [4], [0]>>
        %c = "tilegpu.convert_layout"(%r) : (tensor<64xi32, #tilegpu.blocked<[1], [32], [4], [0]>>) -> tensor<64xi32, #tilegpu.blocked<[2], [32], [4], [0]>>
        %e = "tile.expand_dims"(%c) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.blocked<[2], [32], [4], [0]>>) -> tensor<64x1xi32>
        %b = "tile.broadcast"(%e) : (tensor<64x1xi32>) -> tensor<64x8xi32>
        %t = "tile.trans"(%b) {order = array<i32: 1, 0>} : (tensor<64x8xi32>) -> tensor<8x64xi32>
        return %t, %c : tensor<8x64xi32>, tensor<64xi32, #tilegpu.blocked<[2], [32], [4], [0]>>""",
        results="tensor<8x64xi32>, tensor<64xi32, #tilegpu.blocked<[2], [32], [4], [0]>>")
    assert facts(t) == ([1, 64], [1, MAX], [8, 1])
    assert facts(c) == ([64], [MAX], [1])


# --- arithmetic -------------------------------------------------------------------------------

def test_addi_of_block_start_and_range():
    [start, offs, back] = returned(
        f"""%c = arith.constant 1024 : i32
        %pid = "tile.program_id"() {{axis = 0 : i32}} : () -> i32
        %start = arith.muli %pid, %c : i32
        {RANGE}
        {splat("s", "start")}
        %offs = arith.addi %s, %r : tensor<128xi32>
        %back = arith.subi %offs, %r : tensor<128xi32>
        return %start, %offs, %back : i32, tensor<128xi32>, tensor<128xi32>""",
        results="i32, tensor<128xi32>, tensor<128xi32>")
    assert facts(start) == ([1], [1024], [1])
    assert facts(offs) == ([128], [1024], [1])
    assert facts(back) == ([1], [1024], [128])  # both go up together: the difference is constant


def test_addi_keeps_divisibility_of_shorter_runs_honest():
    # Runs of 4 cut out of a range that starts at 0: their starts 0, 4, 8, ... divide by 4 only.
    [x] = returned(
        f"""{RANGE}
        %q = "tile.make_range"() {{end = 32 : i32, start = 0 : i32}} : () -> tensor<32xi32>
        %qe = "tile.expand_dims"(%q) {{axis = 1 : i32}} : (tensor<32xi32>) -> tensor<32x1xi32>
        %c = arith.constant dense<64> : tensor<32x1xi32>
        %qm = arith.muli %qe, %c : tensor<32x1xi32>
        %qb = "tile.broadcast"(%qm) : (tensor<32x1xi32>) -> tensor<32x4xi32>
        %flat = "tile.reshape"(%qb) {{allow_reorder = false}} : (tensor<32x4xi32>) -> tensor<128xi32>
        %blocks = arith.addi %r, %flat {{tile.constancy = array<i32: 1>}} : tensor<128xi32>
        return %blocks : tensor<128xi32>""",
        results="tensor<128xi32>")
    assert facts(x) == ([1], [1], [1])  # reshape forgets; the sum of unknowns is unknown


def test_a_reshape_that_only_adds_or_drops_unit_dimensions_keeps_the_facts():
    """[128] -> [1, 128] -> [128, 1] -> [128]: the dimension of size 128 keeps its run and
    divisibility; along a unit dimension every element is a run of its own. A reshape that merges dimensions
    (the test above) forgets."""
    [row, col, back] = returned(
        f"""{RANGE}
        %row = "tile.reshape"(%r) {{allow_reorder = false}} : (tensor<128xi32>) -> tensor<1x128xi32>
        %col = "tile.reshape"(%row) {{allow_reorder = false}} : (tensor<1x128xi32>) -> tensor<128x1xi32>
        %back = "tile.reshape"(%col) {{allow_reorder = false}} : (tensor<128x1xi32>) -> tensor<128xi32>
        return %row, %col, %back : tensor<1x128xi32>, tensor<128x1xi32>, tensor<128xi32>""",
        results="tensor<1x128xi32>, tensor<128x1xi32>, tensor<128xi32>")
    # along the unit dimension, each element alone: 0, 1, 2, ... divide by 1
    assert facts(row) == ([1, 128], [1, MAX], [1, 1])
    assert facts(col) == ([128, 1], [MAX, 1], [1, 1])
    assert facts(back) == ([128], [MAX], [1])


def test_add_contiguous_plus_blockwise_constant():
    [x] = returned(
        """%a = "tile.make_range"() {end = 8 : i32, start = 0 : i32} : () -> tensor<8xi32>
        %b = arith.constant dense<[16, 16, 16, 16, 32, 32, 32, 32]> : tensor<8xi32>
        %x = arith.addi %a, %b : tensor<8xi32>
        return %x : tensor<8xi32>""", results="tensor<8xi32>")
    # [16..19, 36..39]: runs of 4 starting at 16 and 36, so divisibility 4, not 16.
    assert facts(x) == ([4], [4], [1])


def test_muli():
    [by_one, by_four, both] = returned(
        f"""{RANGE}
        %one = arith.constant dense<1> : tensor<128xi32>
        %four = arith.constant dense<4> : tensor<128xi32>
        {splat("ns", "n")}
        %by_one = arith.muli %r, %one : tensor<128xi32>
        %by_four = arith.muli %r, %four : tensor<128xi32>
        %both = arith.muli %ns, %four : tensor<128xi32>
        return %by_one, %by_four, %both : tensor<128xi32>, tensor<128xi32>, tensor<128xi32>""",
        args="%n: i32 {tile.divisibility = 8 : i32}",
        results="tensor<128xi32>, tensor<128xi32>, tensor<128xi32>")
    assert facts(by_one) == ([128], [MAX], [1])
    assert facts(by_four) == ([1], [4], [1])
    assert facts(both) == ([1], [32], [128])


def test_divsi_remsi():
    [q, m, m_unknown, q_one] = returned(
        f"""{RANGE}
        %c16 = arith.constant dense<16> : tensor<128xi32>
        %one = arith.constant dense<1> : tensor<128xi32>
        {splat("ns", "n")}
        %q = arith.divsi %r, %c16 : tensor<128xi32>
        %m = arith.remsi %r, %c16 : tensor<128xi32>
        %mu = arith.remsi %r, %ns : tensor<128xi32>
        %q1 = arith.divsi %r, %one : tensor<128xi32>
        return %q, %m, %mu, %q1 : tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>""",
        args="%n: i32",
        results="tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>")
    assert facts(q) == ([1], [1], [16])  # 0 x16, 1 x16, ...
    assert facts(m) == ([16], [16], [1])  # 0..15, 0..15, ...
    assert facts(m_unknown) == ([1], [1], [1])
    assert facts(q_one) == ([128], [MAX], [1])


def test_shifts_and_andi():
    [shl, shr, low, masks] = returned(
        f"""{RANGE}
        %c2 = arith.constant dense<2> : tensor<128xi32>
        %c7 = arith.constant dense<7> : tensor<128xi32>
        {splat("ns", "n")}
        %shl = arith.shli %r, %c2 : tensor<128xi32>
        %shr = arith.shrui %r, %c2 : tensor<128xi32>
        %low = arith.andi %r, %c7 : tensor<128xi32>
        %m1 = arith.cmpi slt, %r, %ns : tensor<128xi32>
        %m2 = arith.cmpi sge, %r, %c2 : tensor<128xi32>
        %masks = arith.andi %m1, %m2 : tensor<128xi1>
        return %shl, %shr, %low, %masks : tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi1>""",
        args="%n: i32 {tile.divisibility = 16 : i32}",
        results="tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi1>")
    assert facts(shl) == ([1], [4], [1])
    assert facts(shr) == ([1], [1], [4])
    assert facts(low) == ([8], [8], [1])  # r & 7 is r mod 8
    assert facts(masks)[2] == [2]  # gcd of 16 (r < n) and 2 (r >= 2)


def test_cmpi_constancy():
    [lt16, lt_any, le16, gt16, eq16] = returned(
        f"""{RANGE}
        {splat("a", "n16")}
        {splat("b", "n")}
        %lt16 = arith.cmpi slt, %r, %a : tensor<128xi32>
        %lt_any = arith.cmpi slt, %r, %b : tensor<128xi32>
        %le16 = arith.cmpi sle, %r, %a : tensor<128xi32>
        %gt16 = arith.cmpi sgt, %a, %r : tensor<128xi32>
        %eq16 = arith.cmpi eq, %r, %a : tensor<128xi32>
        return %lt16, %lt_any, %le16, %gt16, %eq16 : tensor<128xi1>, tensor<128xi1>, tensor<128xi1>, tensor<128xi1>, tensor<128xi1>""",
        args="%n16: i32 {tile.divisibility = 16 : i32}, %n: i32",
        results=", ".join(["tensor<128xi1>"] * 5))
    assert facts(lt16)[2] == [16]
    assert facts(lt_any)[2] == [1]
    assert facts(le16)[2] == [1]  # r <= n flips between n and n + 1
    assert facts(gt16)[2] == [16]  # n > r is r < n
    assert facts(eq16)[2] == [1]


def test_select():
    [x, same, pick] = returned(
        f"""{RANGE}
        {splat("a", "n16")}
        %m = arith.cmpi slt, %r, %a : tensor<128xi32>
        %c64 = arith.constant dense<64> : tensor<128xi32>
        %x = arith.select %m, %r, %c64 : tensor<128xi1>, tensor<128xi32>
        %same = arith.select %m, %c64, %c64 : tensor<128xi1>, tensor<128xi32>
        %t = arith.constant true
        %pick = arith.select %t, %r, %c64 : tensor<128xi32>
        return %x, %same, %pick : tensor<128xi32>, tensor<128xi32>, tensor<128xi32>""",
        args="%n16: i32 {tile.divisibility = 16 : i32}",
        results="tensor<128xi32>, tensor<128xi32>, tensor<128xi32>")
    assert facts(x) == ([1], [1], [1])  # r has runs, 64 has none
    assert same.constant == 64 and facts(same) == ([1], [64], [128])
    assert facts(pick) == ([128], [MAX], [1])


def test_select_between_ranges_cuts_runs_at_mask_changes():
    [x] = returned(
        f"""{RANGE}
        %c256 = arith.constant dense<256> : tensor<128xi32>
        %r2 = arith.addi %r, %c256 : tensor<128xi32>
        {splat("a", "n16")}
        %m = arith.cmpi slt, %r, %a : tensor<128xi32>
        %x = arith.select %m, %r, %r2 : tensor<128xi1>, tensor<128xi32>
        return %x : tensor<128xi32>""",
        args="%n16: i32 {tile.divisibility = 16 : i32}", results="tensor<128xi32>")
    assert facts(x) == ([16], [16], [1])


def test_casts():
    [ext, trunc, idx] = returned(
        f"""{RANGE}
        %ext = arith.extsi %r : tensor<128xi32> to tensor<128xi64>
        %trunc = arith.trunci %ext : tensor<128xi64> to tensor<128xi16>
        %c = arith.constant 96 : index
        %idx = arith.index_cast %c : index to i32
        return %ext, %trunc, %idx : tensor<128xi64>, tensor<128xi16>, i32""",
        results="tensor<128xi64>, tensor<128xi16>, i32")
    assert facts(ext) == facts(trunc) == ([128], [MAX], [1])
    assert idx.constant == 96 and facts(idx) == ([1], [32], [1])


# --- pointers, ids, arguments, hints ----------------------------------------------------------

def test_addptr_divisibility_in_bytes():
    [f32, f16, scalar, odd] = returned(
        f"""{RANGE}
        %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
        %f32 = "tile.addptr"(%ps, %r) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
        %hs = "tile.splat"(%h) : (!tile.ptr<f16, 1 : i32>) -> tensor<128x!tile.ptr<f16, 1 : i32>>
        %f16 = "tile.addptr"(%hs, %r) : (tensor<128x!tile.ptr<f16, 1 : i32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f16, 1 : i32>>
        %c2 = arith.constant 2 : i32
        %scalar = "tile.addptr"(%p, %c2) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
        %c1 = arith.constant dense<1> : tensor<128xi32>
        %r1 = arith.addi %r, %c1 : tensor<128xi32>
        %odd = "tile.addptr"(%ps, %r1) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
        return %f32, %f16, %scalar, %odd : tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128x!tile.ptr<f16, 1 : i32>>, !tile.ptr<f32, 1 : i32>, tensor<128x!tile.ptr<f32, 1 : i32>>""",
        args="%p: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, "
             "%h: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}",
        results="tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128x!tile.ptr<f16, 1 : i32>>, "
                "!tile.ptr<f32, 1 : i32>, tensor<128x!tile.ptr<f32, 1 : i32>>")
    assert facts(f32) == ([128], [16], [1])
    assert facts(f16) == ([128], [16], [1])
    assert facts(scalar) == ([1], [8], [1])  # p + 2 floats = p + 8 bytes
    assert facts(odd) == ([128], [4], [1])  # starts one float in: 4-byte aligned


def test_program_id_and_unknown_values_are_pessimistic():
    [pid, loaded, arg] = returned(
        """%pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
        %v = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<i32, 1 : i32>) -> i32
        return %pid, %v, %t : i32, i32, tensor<4x8xi32>""",
        args="%p: !tile.ptr<i32, 1 : i32>, %t: tensor<4x8xi32>",
        results="i32, i32, tensor<4x8xi32>")
    assert facts(pid) == facts(loaded) == ([1], [1], [1])
    assert facts(arg) == ([1, 1], [1, 1], [1, 1])


def test_argument_divisibility():
    [p, n, m] = returned(
        "return %p, %n, %m : !tile.ptr<f16, 1 : i32>, i32, i64",
        args="%p: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}, "
             "%n: i32 {tile.divisibility = 16 : i32}, %m: i64",
        results="!tile.ptr<f16, 1 : i32>, i32, i64")
    assert facts(p) == facts(n) == ([1], [16], [1])
    assert facts(m) == ([1], [1], [1])


def test_hints_override():
    [x, y] = returned(
        f"""%v = "tile.load"(%p) {{cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>}} : (!tile.ptr<i32, 1 : i32>) -> i32
        {RANGE}
        {splat("vs", "v")}
        %x = arith.addi %vs, %r {{tile.contiguity = array<i32: 128>, tile.divisibility = array<i32: 16>}} : tensor<128xi32>
        %y = arith.addi %vs, %r {{tile.constancy = array<i32: 4>}} : tensor<128xi32>
        return %x, %y : tensor<128xi32>, tensor<128xi32>""",
        args="%p: !tile.ptr<i32, 1 : i32>", results="tensor<128xi32>, tensor<128xi32>")
    assert facts(x) == ([128], [16], [1])
    assert facts(y) == ([128], [1], [4])


# --- regions ----------------------------------------------------------------------------------

def test_for_induction_variable_and_carried_values():
    [iv_offs, carried, yielded, drifting] = returned(
        f"""%c0 = arith.constant 0 : i32
        %c64 = arith.constant 64 : i32
        %c3 = arith.constant dense<3> : tensor<128xi32>
        {RANGE}
        %res:4 = scf.for %i = %c0 to %n step %c64 iter_args(%o = %r, %a = %r, %u = %r, %w = %r) -> (tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>) : i32 {{
          {splat("is", "i")}
          %o2 = arith.addi %is, %r : tensor<128xi32>
          %a2 = arith.addi %a, %is : tensor<128xi32>
          %w2 = arith.addi %w, %c3 : tensor<128xi32>
          scf.yield %o2, %a2, %a2, %w2 : tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>
        }}
        return %res#0, %res#1, %res#2, %res#3 : tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>""",
        args="%n: i32", results=", ".join(["tensor<128xi32>"] * 4))
    assert facts(iv_offs) == ([128], [64], [1])  # r, then i + r with i = 0, 64, ...
    assert facts(carried) == ([128], [64], [1])  # r, then r + i + ...: a fixpoint
    assert facts(yielded) == ([128], [64], [1])
    assert facts(drifting) == ([128], [1], [1])  # r + 3k: runs stay, alignment goes


def test_values_in_nested_regions_and_if():
    [inner, joined] = returned(
        f"""{RANGE}
        %c16 = arith.constant dense<16> : tensor<128xi32>
        %c32 = arith.constant dense<32> : tensor<128xi32>
        %a = arith.addi %r, %c16 : tensor<128xi32>
        %b = arith.addi %r, %c32 : tensor<128xi32>
        %j = scf.if %cond -> (tensor<128xi32>) {{
          scf.yield %a : tensor<128xi32>
        }} else {{
          scf.yield %b : tensor<128xi32>
        }}
        %k = scf.if %cond -> (tensor<128xi32>) {{
          %in = arith.muli %r, %c16 : tensor<128xi32>
          scf.yield %in : tensor<128xi32>
        }} else {{
          scf.yield %c16 : tensor<128xi32>
        }}
        return %k, %j : tensor<128xi32>, tensor<128xi32>""",
        args="%cond: i1", results="tensor<128xi32>, tensor<128xi32>")
    assert facts(joined) == ([128], [16], [1])
    assert facts(inner) == ([1], [16], [1])


def test_nested_region_values_are_reached():
    module = parse_module(
        """func.func @f(%n: i32) {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          scf.for %i = %c0 to %n step %c1 : i32 {
            %r = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
            "tile.print"(%r) {hex = false, prefix = "r"} : (tensor<32xi32>) -> ()
          }
          return
        }""", make_context())
    infos = analyze(module)
    loop = list(module.body.operations[0].regions[0].blocks[0].operations)[2]
    make_range = list(loop.regions[0].blocks[0].operations)[0]
    assert facts(infos.get(make_range.result)) == ([32], [MAX], [1])


# --- random programs: every claim holds of the computed values ---------------------------------

def _holds(values: np.ndarray, info: AxisInfo) -> bool:
    values = values.astype(object)
    if values.ndim == 0:
        values = values.reshape(1)
    for d in range(values.ndim):
        moved = np.moveaxis(values, d, -1)
        c, k, div = info.contiguity[d], info.constancy[d], info.divisibility[d]
        runs = moved.reshape(moved.shape[:-1] + (-1, c))
        if not (runs[..., 1:] - runs[..., :-1] == 1).all():
            return False
        if not all(int(v) % div == 0 for v in runs[..., 0].ravel()):
            return False
        blocks = moved.reshape(moved.shape[:-1] + (-1, k))
        if not (blocks == blocks[..., :1]).all():
            return False
    return info.constant is None or (values == info.constant).all()


class _Program:
    """A random straight-line program on 4x8 i32 tensors, evaluated as it is built."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines, self.values, self.args, self.arg_values = [], [], [], []
        self.count = 0

    def new(self, value, line_fn):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(line_fn(name))
        self.values.append((name, value))
        return name, value

    def scalar_arg(self):
        div = self.rng.choice([1, 2, 4, 16, 64])
        value = div * self.rng.randrange(0, 40)
        name = f"%a{len(self.args)}"
        self.args.append(f"{name}: i32 {{tile.divisibility = {div} : i32}}")
        self.arg_values.append(value)
        return name, value

    def leaf(self):
        rng = self.rng
        kind = rng.choice(["range", "splat", "const", "cols"])
        if kind == "range":
            start = rng.choice([0, 8, 16, 4])
            row = np.arange(start, start + 8)
            name, _ = self.new(row, lambda n: f'{n} = "tile.make_range"() {{end = {start + 8} : i32, start = {start} : i32}} : () -> tensor<8xi32>')
            e, _ = self.new(row[None, :], lambda n: f'{n} = "tile.expand_dims"({name}) {{axis = 0 : i32}} : (tensor<8xi32>) -> tensor<1x8xi32>')
            return self.new(np.broadcast_to(row[None, :], (4, 8)), lambda n: f'{n} = "tile.broadcast"({e}) : (tensor<1x8xi32>) -> tensor<4x8xi32>')
        if kind == "cols":
            col = np.arange(0, 4)
            name, _ = self.new(col, lambda n: f'{n} = "tile.make_range"() {{end = 4 : i32, start = 0 : i32}} : () -> tensor<4xi32>')
            e, _ = self.new(col[:, None], lambda n: f'{n} = "tile.expand_dims"({name}) {{axis = 1 : i32}} : (tensor<4xi32>) -> tensor<4x1xi32>')
            return self.new(np.broadcast_to(col[:, None], (4, 8)), lambda n: f'{n} = "tile.broadcast"({e}) : (tensor<4x1xi32>) -> tensor<4x8xi32>')
        if kind == "splat":
            arg, value = self.scalar_arg()
            return self.new(np.full((4, 8), value), lambda n: f'{n} = "tile.splat"({arg}) : (i32) -> tensor<4x8xi32>')
        value = rng.choice([0, 1, 2, 3, 4, 8, 16, 7])
        return self.new(np.full((4, 8), value), lambda n: f"{n} = arith.constant dense<{value}> : tensor<4x8xi32>")

    def expr(self, depth):
        rng = self.rng
        if depth == 0 or rng.random() < 0.25:
            return self.leaf()
        op = rng.choice(["addi", "subi", "muli", "divsi", "remsi", "andi", "select", "shrsi"])
        (a, av), (b, bv) = self.expr(depth - 1), self.expr(depth - 1)
        ty = "tensor<4x8xi32>"
        if op in ("divsi", "remsi", "shrsi"):
            if (av < 0).any() or (bv <= 0).any() or (op == "shrsi" and (bv > 8).any()):
                op = "addi"
        if op == "select":
            (c, cv) = self.expr(depth - 1)
            mask_name, mask = self.new(av < cv, lambda n: f"{n} = arith.cmpi slt, {a}, {c} : {ty}")
            return self.new(np.where(mask, av, bv), lambda n: f"{n} = arith.select {mask_name}, {a}, {b} : tensor<4x8xi1>, {ty}")
        fns = {"addi": np.add, "subi": np.subtract, "muli": np.multiply,
               "divsi": np.floor_divide, "remsi": np.remainder, "andi": np.bitwise_and,
               "shrsi": np.right_shift}
        return self.new(fns[op](av, bv), lambda n: f"{n} = arith.{op} {a}, {b} : {ty}")


@pytest.mark.parametrize("seed", range(6))
def test_random_programs_claims_hold(seed):
    rng = random.Random(seed)
    context = make_context()
    for _ in range(40):
        program = _Program(rng)
        program.expr(rng.choice([2, 3, 4]))
        names = [n for n, _ in program.values]
        types = []
        for _, v in program.values:
            elem = "i1" if np.asarray(v).dtype == bool else "i32"
            types.append("tensor<" + "x".join(map(str, v.shape)) + f"x{elem}>")
        text = (f"func.func @f({', '.join(program.args)}) -> ({', '.join(types)}) {{\n"
                + "\n".join(program.lines)
                + f"\nreturn {', '.join(names)} : {', '.join(types)}\n}}")
        module = parse_module(text, context)
        infos = analyze(module)
        ret = list(module.body.operations[0].regions[0].blocks[0].operations)[-1]
        for (name, value), operand in zip(program.values, ret.operands):
            info = infos.get(operand)
            assert _holds(np.asarray(value), info), (
                f"{name}: {info} does not hold of\n{np.asarray(value)}\nin\n{text}\n"
                f"arguments {program.arg_values}")
