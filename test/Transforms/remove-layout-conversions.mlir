// RUN: tilec-opt %s --split-input-file --tilegpu-remove-layout-conversions | filecheck %s
// Running it twice changes nothing more.
// RUN: tilec-opt %s --split-input-file --tilegpu-remove-layout-conversions --tilegpu-remove-layout-conversions | filecheck %s

// The store wants 4 elements per thread (#b4); its pointers, values and mask come from a
// make_range/splat/constant chain in #b1. The whole chain is recomputed in #b4, the
// conversions and the #b1 originals disappear, and the shared offsets are computed once.
// CHECK-LABEL: func.func @range_chain
// CHECK-NOT: tilegpu.convert_layout
// CHECK-NOT: #tilegpu.blocked<[1], [32], [4], [0]>
// CHECK: [[R:%.*]] = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, [[L4:#tilegpu.blocked<[^>]*>]]>
// CHECK-NEXT: [[S:%.*]] = "tile.splat"({{%.*}}) : (i32) -> tensor<1024xi32, [[L4]]>
// CHECK-NEXT: [[OFFS:%.*]] = arith.addi [[S]], [[R]] : tensor<1024xi32, [[L4]]>
// CHECK-NEXT: [[N:%.*]] = "tile.splat"(%arg1) : (i32) -> tensor<1024xi32, [[L4]]>
// CHECK-NEXT: [[M:%.*]] = arith.cmpi slt, [[OFFS]], [[N]] : tensor<1024xi32, [[L4]]>
// CHECK-NEXT: [[PS:%.*]] = "tile.splat"(%arg0) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, [[L4]]>
// CHECK-NEXT: [[PP:%.*]] = "tile.addptr"([[PS]], [[OFFS]])
// CHECK-NEXT: [[ONE:%.*]] = arith.constant dense<1.000000e+00> : tensor<1024xf32, [[L4]]>
// CHECK-NEXT: "tile.store"([[PP]], [[ONE]], [[M]]) {{.*}} : (tensor<1024x!tile.ptr<f32, 1 : i32>, [[L4]]>, tensor<1024xf32, [[L4]]>, tensor<1024xi1, [[L4]]>) -> ()
// CHECK-NOT: tilegpu.convert_layout
// CHECK-NOT: #tilegpu.blocked<[1], [32], [4], [0]>
// CHECK: return
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @range_chain(%p: !tile.ptr<f32, 1 : i32>, %n: i32) {
    %c1024 = arith.constant 1024 : i32
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %start = arith.muli %pid, %c1024 : i32
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b1>
    %starts = "tile.splat"(%start) : (i32) -> tensor<1024xi32, #b1>
    %offs = arith.addi %starts, %range : tensor<1024xi32, #b1>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32, #b1>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #b1>
    %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
    %pp = "tile.addptr"(%ps, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, tensor<1024xi32, #b1>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
    %one = arith.constant dense<1.0> : tensor<1024xf32, #b1>
    %pp4 = "tilegpu.convert_layout"(%pp) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %one4 = "tilegpu.convert_layout"(%one) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b4>
    %mask4 = "tilegpu.convert_layout"(%mask) : (tensor<1024xi1, #b1>) -> tensor<1024xi1, #b4>
    "tile.store"(%pp4, %one4, %mask4) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xf32, #b4>, tensor<1024xi1, #b4>) -> ()
    return
  }
}

// -----

// The docstring's example, longer: an elementwise chain (arith and math) between a load and a
// store in #b4, written in #b1, is recomputed in #b4 from the loaded value; the load keeps its
// layout.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-NOT: tilegpu.convert_layout
// CHECK: [[X:%.*]] = "tile.load"(%arg0) {{.*}} -> tensor<1024xf32, [[L4:#tilegpu.blocked<.4., [^>]*>]]>
// CHECK-NEXT: [[TWO:%.*]] = arith.constant dense<2.000000e+00> : tensor<1024xf32, [[L4]]>
// CHECK-NEXT: [[B:%.*]] = arith.mulf [[X]], [[TWO]] : tensor<1024xf32, [[L4]]>
// CHECK-NEXT: [[C:%.*]] = math.exp [[B]] : tensor<1024xf32, [[L4]]>
// CHECK-NEXT: [[D:%.*]] = arith.addf [[C]], [[X]] : tensor<1024xf32, [[L4]]>
// CHECK-NEXT: "tile.store"(%arg0, [[D]])
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @elementwise_chain(%p: tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>) {
    %x = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>) -> tensor<1024xf32, #b4>
    %a = "tilegpu.convert_layout"(%x) : (tensor<1024xf32, #b4>) -> tensor<1024xf32, #b1>
    %two = arith.constant dense<2.0> : tensor<1024xf32, #b1>
    %b = arith.mulf %a, %two : tensor<1024xf32, #b1>
    %c = math.exp %b : tensor<1024xf32, #b1>
    %d = arith.addf %c, %a : tensor<1024xf32, #b1>
    %e = "tilegpu.convert_layout"(%d) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b4>
    "tile.store"(%p, %e) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xf32, #b4>) -> ()
    return
  }
}

// -----

// A loaded value used in two layouts: stored where it was loaded (#b4) and through pointers in
// #b1. Loads are anchors (never recomputed), so the conversion of the loaded value stays; the
// cheap pointer chain feeding the load is recomputed in #b4 instead of converted.
// CHECK-LABEL: func.func @load_in_two_layouts
// CHECK: [[R4:%.*]] = "tile.make_range"() {{.*}} -> tensor<1024xi32, [[L4:#tilegpu.blocked<.4., [^>]*>]]>
// CHECK: [[P4:%.*]] = "tile.addptr"
// CHECK-NOT: tilegpu.convert_layout
// CHECK: [[X:%.*]] = "tile.load"([[P4]]) {{.*}} -> tensor<1024xf32, [[L4]]>
// CHECK-NEXT: "tile.store"([[P4]], [[X]])
// CHECK: [[P1:%.*]] = "tile.addptr"({{.*}}) : (tensor<1024x!tile.ptr<f32, 1 : i32>, [[L1:#tilegpu.blocked<.1., [^>]*>]]>
// CHECK: [[X1:%.*]] = "tilegpu.convert_layout"([[X]]) : (tensor<1024xf32, [[L4]]>) -> tensor<1024xf32, [[L1]]>
// CHECK-NEXT: "tile.store"([[P1]], [[X1]]) {{.*}} tensor<1024xf32, [[L1]]>) -> ()
// CHECK-NOT: "tile.load"
// CHECK: return
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @load_in_two_layouts(%p: !tile.ptr<f32, 1 : i32>, %q: !tile.ptr<f32, 1 : i32>) {
    %r = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b1>
    %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
    %pp = "tile.addptr"(%ps, %r) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, tensor<1024xi32, #b1>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
    %pp4 = "tilegpu.convert_layout"(%pp) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %x = "tile.load"(%pp4) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>) -> tensor<1024xf32, #b4>
    "tile.store"(%pp4, %x) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xf32, #b4>) -> ()
    %qs = "tile.splat"(%q) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
    %qq = "tile.addptr"(%qs, %r) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, tensor<1024xi32, #b1>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
    %x1 = "tilegpu.convert_layout"(%x) : (tensor<1024xf32, #b4>) -> tensor<1024xf32, #b1>
    "tile.store"(%qq, %x1) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, tensor<1024xf32, #b1>) -> ()
    return
  }
}

// -----

// A round trip (#b1 -> #b4 -> #b1) folds to the original value, even a loaded one; a conversion
// of a conversion of a cheap value (make_range) to a third layout leaves just the make_range in
// that layout.
// CHECK-LABEL: func.func @convert_of_convert
// CHECK-NOT: tilegpu.convert_layout
// CHECK: [[X:%.*]] = "tile.load"(%arg0) {{.*}} -> tensor<1024xf32, [[L1:#tilegpu.blocked<.1., [^>]*>]]>
// CHECK-NEXT: "tile.store"(%arg0, [[X]]) {{.*}} : (tensor<1024x!tile.ptr<f32, 1 : i32>, [[L1]]>, tensor<1024xf32, [[L1]]>) -> ()
// CHECK-NEXT: [[R:%.*]] = "tile.make_range"() {{.*}} -> tensor<1024xi32, [[L2:#tilegpu.blocked<.2., [^>]*>]]>
// CHECK-NEXT: "tile.store"(%arg1, [[R]]) {{.*}} : (tensor<1024x!tile.ptr<i32, 1 : i32>, [[L2]]>, tensor<1024xi32, [[L2]]>) -> ()
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b2 = #tilegpu.blocked<[2], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @convert_of_convert(%p: tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, %q: tensor<1024x!tile.ptr<i32, 1 : i32>, #b2>) {
    %x = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>) -> tensor<1024xf32, #b1>
    %a = "tilegpu.convert_layout"(%x) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b4>
    %b = "tilegpu.convert_layout"(%a) : (tensor<1024xf32, #b4>) -> tensor<1024xf32, #b1>
    "tile.store"(%p, %b) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, tensor<1024xf32, #b1>) -> ()
    %r = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b1>
    %r4 = "tilegpu.convert_layout"(%r) : (tensor<1024xi32, #b1>) -> tensor<1024xi32, #b4>
    %r2 = "tilegpu.convert_layout"(%r4) : (tensor<1024xi32, #b4>) -> tensor<1024xi32, #b2>
    "tile.store"(%q, %r2) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<i32, 1 : i32>, #b2>, tensor<1024xi32, #b2>) -> ()
    return
  }
}

// -----

// A conversion of a conversion of a value that cannot be recomputed (a load) to a third layout
// becomes one conversion from the value.
// CHECK-LABEL: func.func @convert_of_convert_of_load
// CHECK: [[X:%.*]] = "tile.load"(%arg0) {{.*}} -> tensor<1024xf32, [[L1:#tilegpu.blocked<.1., [^>]*>]]>
// CHECK-NEXT: [[C:%.*]] = "tilegpu.convert_layout"([[X]]) : (tensor<1024xf32, [[L1]]>) -> tensor<1024xf32, [[L2:#tilegpu.blocked<.2., [^>]*>]]>
// CHECK-NEXT: "tile.store"(%arg1, [[C]])
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b2 = #tilegpu.blocked<[2], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @convert_of_convert_of_load(%p: tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, %q: tensor<1024x!tile.ptr<f32, 1 : i32>, #b2>) {
    %x = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>) -> tensor<1024xf32, #b1>
    %a = "tilegpu.convert_layout"(%x) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b4>
    %b = "tilegpu.convert_layout"(%a) : (tensor<1024xf32, #b4>) -> tensor<1024xf32, #b2>
    "tile.store"(%q, %b) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b2>, tensor<1024xf32, #b2>) -> ()
    return
  }
}

// -----

// A conversion to the layout the value already has folds, even of a block argument (which
// could not be recomputed).
// CHECK-LABEL: func.func @convert_to_same_layout
// CHECK-SAME: ([[P:%[^:]*]]: tensor<128x!tile.ptr<f32, 1 : i32>, {{.*}}>, [[V:%[^:]*]]: tensor<128xf32, {{.*}}>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: "tile.store"([[P]], [[V]])
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @convert_to_same_layout(%p: tensor<128x!tile.ptr<f32, 1 : i32>, #b1>, %v: tensor<128xf32, #b1>) {
    %w = "tilegpu.convert_layout"(%v) : (tensor<128xf32, #b1>) -> tensor<128xf32, #b1>
    "tile.store"(%p, %w) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b1>, tensor<128xf32, #b1>) -> ()
    return
  }
}

// -----

// A 2-D copy as convert-tile-to-tilegpu and tilegpu-coalesce leave it: expand_dims read slice
// conversions of 1-D make_ranges, the column's broadcast operand is converted, and the load and
// store want 4 elements per thread ([1, 4]), with the loaded value converted out and back in.
// Everything is recomputed in the load's layout: each make_range directly in the slice of it,
// then expand_dims, the muli by a constant, broadcast, addi, splat and addptr; the loaded value
// goes straight to the store. No conversion is left.
// CHECK-LABEL: func.func @copy_2d
// CHECK-NOT: tilegpu.convert_layout
// CHECK: [[C128:%.*]] = arith.constant dense<128> : tensor<64x1xi32, [[L:#tilegpu.blocked<.1, 4., [^>]*>]]>
// CHECK-NEXT: [[R:%.*]] = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #tilegpu.slice<1 : i32, [[L]]>>
// CHECK-NEXT: [[E:%.*]] = "tile.expand_dims"([[R]]) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.slice<1 : i32, [[L]]>>) -> tensor<64x1xi32, [[L]]>
// CHECK-NEXT: [[ROWS:%.*]] = arith.muli [[E]], [[C128]] : tensor<64x1xi32, [[L]]>
// CHECK-NEXT: [[B:%.*]] = "tile.broadcast"([[ROWS]]) : (tensor<64x1xi32, [[L]]>) -> tensor<64x128xi32, [[L]]>
// CHECK-NEXT: [[C:%.*]] = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #tilegpu.slice<0 : i32, [[L]]>>
// CHECK-NEXT: [[F:%.*]] = "tile.expand_dims"([[C]]) {axis = 0 : i32} : (tensor<128xi32, #tilegpu.slice<0 : i32, [[L]]>>) -> tensor<1x128xi32, [[L]]>
// CHECK-NEXT: [[G:%.*]] = "tile.broadcast"([[F]]) : (tensor<1x128xi32, [[L]]>) -> tensor<64x128xi32, [[L]]>
// CHECK-NEXT: [[O:%.*]] = arith.addi [[B]], [[G]] : tensor<64x128xi32, [[L]]>
// CHECK-NEXT: [[PS:%.*]] = "tile.splat"(%arg0)
// CHECK-NEXT: [[PP:%.*]] = "tile.addptr"([[PS]], [[O]])
// CHECK-NEXT: [[X:%.*]] = "tile.load"([[PP]]) {{.*}} -> tensor<64x128xf32, [[L]]>
// CHECK-NEXT: [[QS:%.*]] = "tile.splat"(%arg1)
// CHECK-NEXT: [[QP:%.*]] = "tile.addptr"([[QS]], [[O]])
// CHECK-NEXT: "tile.store"([[QP]], [[X]]) {{.*}} : (tensor<64x128x!tile.ptr<f32, 1 : i32>, [[L]]>, tensor<64x128xf32, [[L]]>) -> ()
// CHECK-NOT: tilegpu.convert_layout
// CHECK-NOT: #tilegpu.blocked<[1], [32], [4], [0]>
// CHECK-NOT: #tilegpu.blocked<[1, 1],
// CHECK: return
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#col = #tilegpu.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>
#d = #tilegpu.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>
#v = #tilegpu.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @copy_2d(%arg0: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<128> : tensor<64x1xi32, #col>
    %0 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #b1>
    %1 = "tilegpu.convert_layout"(%0) : (tensor<64xi32, #b1>) -> tensor<64xi32, #tilegpu.slice<1 : i32, #col>>
    %2 = "tile.expand_dims"(%1) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.slice<1 : i32, #col>>) -> tensor<64x1xi32, #col>
    %3 = arith.muli %2, %cst : tensor<64x1xi32, #col>
    %4 = "tilegpu.convert_layout"(%3) : (tensor<64x1xi32, #col>) -> tensor<64x1xi32, #d>
    %5 = "tile.broadcast"(%4) : (tensor<64x1xi32, #d>) -> tensor<64x128xi32, #d>
    %6 = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b1>
    %7 = "tilegpu.convert_layout"(%6) : (tensor<128xi32, #b1>) -> tensor<128xi32, #tilegpu.slice<0 : i32, #d>>
    %8 = "tile.expand_dims"(%7) {axis = 0 : i32} : (tensor<128xi32, #tilegpu.slice<0 : i32, #d>>) -> tensor<1x128xi32, #d>
    %9 = "tile.broadcast"(%8) : (tensor<1x128xi32, #d>) -> tensor<64x128xi32, #d>
    %10 = arith.addi %5, %9 : tensor<64x128xi32, #d>
    %11 = "tile.splat"(%arg0) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x128x!tile.ptr<f32, 1 : i32>, #d>
    %12 = "tile.addptr"(%11, %10) : (tensor<64x128x!tile.ptr<f32, 1 : i32>, #d>, tensor<64x128xi32, #d>) -> tensor<64x128x!tile.ptr<f32, 1 : i32>, #d>
    %13 = "tilegpu.convert_layout"(%12) : (tensor<64x128x!tile.ptr<f32, 1 : i32>, #d>) -> tensor<64x128x!tile.ptr<f32, 1 : i32>, #v>
    %14 = "tile.load"(%13) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x128x!tile.ptr<f32, 1 : i32>, #v>) -> tensor<64x128xf32, #v>
    %15 = "tilegpu.convert_layout"(%14) : (tensor<64x128xf32, #v>) -> tensor<64x128xf32, #d>
    %16 = "tile.splat"(%arg1) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x128x!tile.ptr<f32, 1 : i32>, #d>
    %17 = "tile.addptr"(%16, %10) : (tensor<64x128x!tile.ptr<f32, 1 : i32>, #d>, tensor<64x128xi32, #d>) -> tensor<64x128x!tile.ptr<f32, 1 : i32>, #d>
    %18 = "tilegpu.convert_layout"(%17) : (tensor<64x128x!tile.ptr<f32, 1 : i32>, #d>) -> tensor<64x128x!tile.ptr<f32, 1 : i32>, #v>
    %19 = "tilegpu.convert_layout"(%15) : (tensor<64x128xf32, #d>) -> tensor<64x128xf32, #v>
    "tile.store"(%18, %19) {cache = "none", evict = "evict_normal"} : (tensor<64x128x!tile.ptr<f32, 1 : i32>, #v>, tensor<64x128xf32, #v>) -> ()
    return
  }
}

// -----

// Cleanup afterwards (upstream cse/canonicalize skip IRDL ops): dead side-effect-free ops go
// (a muli, a splat, a make_range only they used, a non-volatile load nobody reads), a volatile
// load stays, and two identical make_ranges become one.
// CHECK-LABEL: func.func @dead_and_duplicate
// CHECK-NEXT: [[R:%.*]] = "tile.make_range"() {end = 256 : i32, start = 0 : i32}
// CHECK-NOT: "tile.make_range"
// CHECK-NOT: arith.muli
// CHECK-NOT: "tile.splat"
// CHECK: "tile.load"(%arg0) {{.*}}is_volatile = true
// CHECK-NOT: "tile.load"
// CHECK: [[S:%.*]] = arith.addi [[R]], [[R]]
// CHECK-NEXT: [[Q:%.*]] = "tile.addptr"(%arg0, [[S]])
// CHECK-NOT: "tile.make_range"
// CHECK: return
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @dead_and_duplicate(%p: tensor<256x!tile.ptr<f32, 1 : i32>, #b1>, %n: i32) {
    %r0 = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b1>
    %r1 = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b1>
    %r2 = "tile.make_range"() {end = 512 : i32, start = 256 : i32} : () -> tensor<256xi32, #b1>
    %dead = arith.muli %r0, %r2 : tensor<256xi32, #b1>
    %ns = "tile.splat"(%n) : (i32) -> tensor<256xi32, #b1>
    %unread = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b1>) -> tensor<256xf32, #b1>
    %vol = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = true, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b1>) -> tensor<256xf32, #b1>
    %s = arith.addi %r0, %r1 : tensor<256xi32, #b1>
    %q = "tile.addptr"(%p, %s) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b1>, tensor<256xi32, #b1>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b1>
    %one = arith.constant dense<1.0> : tensor<256xf32, #b1>
    "tile.store"(%q, %one) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b1>, tensor<256xf32, #b1>) -> ()
    return
  }
}

// -----

// A loop-carried accumulator of loads is carried in the loads' layout: the loop's init, its
// block argument, its yield and its result all become #b4, so neither the load inside the
// loop nor the result stored after it is converted.
// CHECK-LABEL: func.func @loop_carried
// CHECK: [[INIT:%.*]] = arith.constant {{.*}} : tensor<1024xf32, [[L4:#tilegpu.blocked<.4., [^>]*>]]>
// CHECK: [[RES:%.*]] = scf.for {{.*}} iter_args([[ACC:%.*]] = [[INIT]]) -> (tensor<1024xf32, [[L4]]>)
// CHECK: [[X:%.*]] = "tile.load"
// CHECK-NEXT: [[N:%.*]] = arith.addf [[ACC]], [[X]] : tensor<1024xf32, [[L4]]>
// CHECK-NEXT: scf.yield [[N]]
// CHECK-NEXT: }
// CHECK-NEXT: "tile.store"(%arg0, [[RES]])
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @loop_carried(%p: tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, %lb: i32, %ub: i32, %step: i32) {
    %init = arith.constant dense<0.0> : tensor<1024xf32, #b1>
    %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (tensor<1024xf32, #b1>) : i32 {
      %x = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>) -> tensor<1024xf32, #b4>
      %x1 = "tilegpu.convert_layout"(%x) : (tensor<1024xf32, #b4>) -> tensor<1024xf32, #b1>
      %n = arith.addf %acc, %x1 : tensor<1024xf32, #b1>
      scf.yield %n : tensor<1024xf32, #b1>
    }
    %r4 = "tilegpu.convert_layout"(%r) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b4>
    "tile.store"(%p, %r4) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xf32, #b4>) -> ()
    return
  }
}

// -----

// A reduction works in any layout: one whose operand is a conversion of a loaded value reduces
// the loaded value itself (no shared-memory round trip before it). A full reduction yields a
// scalar; a row reduction's result takes the slice of the load's layout and is converted back to
// what its users had.
// CHECK-LABEL: func.func @reduce_of_converted_loads
// CHECK: [[X:%.*]] = "tile.load"(%arg0) {{.*}} -> tensor<1024xf32, [[L4:#tilegpu.blocked<.4., [^>]*>]]>
// CHECK-NEXT: [[S:%.*]] = "tile.reduce"([[X]]) ({
// CHECK: }) {axis = 0 : i32, {{.*}}} : (tensor<1024xf32, [[L4]]>) -> f32
// CHECK: [[Y:%.*]] = "tile.load"(%arg2) {{.*}} -> tensor<32x128xf32, [[L:#tilegpu.blocked<.1, 4., [^>]*>]]>
// CHECK-NEXT: [[M:%.*]] = "tile.reduce"([[Y]]) ({
// CHECK: }) {axis = 1 : i32, {{.*}}} : (tensor<32x128xf32, [[L]]>) -> tensor<32xf32, #tilegpu.slice<1 : i32, [[L]]>>
// CHECK-NEXT: "tilegpu.convert_layout"([[M]]) : (tensor<32xf32, #tilegpu.slice<1 : i32, [[L]]>>) -> tensor<32xf32, #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>>
// CHECK-NOT: "tilegpu.convert_layout"({{%.*}}) : (tensor<32x128xf32
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
#l = #tilegpu.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>
#d = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @reduce_of_converted_loads(%p: tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, %out: !tile.ptr<f32, 1 : i32>, %q: tensor<32x128x!tile.ptr<f32, 1 : i32>, #l>, %r: tensor<32x!tile.ptr<f32, 1 : i32>, #tilegpu.slice<1 : i32, #d>>) {
    %x = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>) -> tensor<1024xf32, #b4>
    %a = "tilegpu.convert_layout"(%x) : (tensor<1024xf32, #b4>) -> tensor<1024xf32, #b1>
    %s = "tile.reduce"(%a) ({
    ^bb0(%u: f32, %v: f32):
      %t = arith.addf %u, %v : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1024xf32, #b1>) -> f32
    "tile.store"(%out, %s) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
    %y = "tile.load"(%q) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x128x!tile.ptr<f32, 1 : i32>, #l>) -> tensor<32x128xf32, #l>
    %yd = "tilegpu.convert_layout"(%y) : (tensor<32x128xf32, #l>) -> tensor<32x128xf32, #d>
    %m = "tile.reduce"(%yd) ({
    ^bb0(%u: f32, %v: f32):
      %t = arith.maximumf %u, %v : f32
      gpu.yield %t : f32
    }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x128xf32, #d>) -> tensor<32xf32, #tilegpu.slice<1 : i32, #d>>
    "tile.store"(%r, %m) {cache = "none", evict = "evict_normal"} : (tensor<32x!tile.ptr<f32, 1 : i32>, #tilegpu.slice<1 : i32, #d>>, tensor<32xf32, #tilegpu.slice<1 : i32, #d>>) -> ()
    return
  }
}

// -----

// An accumulator carried by a loop in #b1 while each trip's loads come in #b4: the loop
// carries it in #b4 instead (the zero constant is built in #b4, no conversion is left in the
// loop body, and the reduction after the loop takes the #b4 result). `%c * %c` uses the
// converted load twice, which must not confuse the clean-up of dead ops.
// CHECK-LABEL: func.func @loop_accumulator
// CHECK: [[ZERO:%.*]] = arith.constant dense<0.000000e+00> : tensor<1024xf32, [[L4:#tilegpu.blocked<.4., [^>]*>]]>
// CHECK: [[R:%.*]] = scf.for {{.*}} iter_args([[ACC:%.*]] = [[ZERO]]) -> (tensor<1024xf32, [[L4]]>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: [[X:%.*]] = "tile.load"{{.*}} -> tensor<1024xf32, [[L4]]>
// CHECK-NEXT: [[SQ:%.*]] = arith.mulf [[X]], [[X]] : tensor<1024xf32, [[L4]]>
// CHECK-NEXT: [[S:%.*]] = arith.addf [[ACC]], [[SQ]] : tensor<1024xf32, [[L4]]>
// CHECK-NEXT: scf.yield [[S]] : tensor<1024xf32, [[L4]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: "tile.reduce"([[R]])
// CHECK-NOT: tilegpu.convert_layout
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
func.func @loop_accumulator(%p: tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, %n: i32, %out: !tile.ptr<f32, 1 : i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<1024xf32, #b1>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<1024xf32, #b1>) : i32 {
    %x = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>) -> tensor<1024xf32, #b4>
    %c = "tilegpu.convert_layout"(%x) : (tensor<1024xf32, #b4>) -> tensor<1024xf32, #b1>
    %sq = arith.mulf %c, %c : tensor<1024xf32, #b1>
    %s = arith.addf %acc, %sq : tensor<1024xf32, #b1>
    scf.yield %s : tensor<1024xf32, #b1>
  }
  %sum = "tile.reduce"(%r) ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    gpu.yield %t : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1024xf32, #b1>) -> f32
  "tile.store"(%out, %sum) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
  return
}

// -----

// Pointers carried by a loop in #b1 but loaded in #b4 every trip (a matmul's `a_ptrs += BLOCK`):
// every use in the body converts them or advances them, so they are carried in #b4. The initial
// pointers are recomputed in #b4 before the loop, the advance happens in #b4, and no conversion
// is left in the loop.
// CHECK-LABEL: func.func @loop_pointers
// CHECK: [[P0:%.*]] = "tile.addptr"({{.*}}) : (tensor<1024x!tile.ptr<f32, 1 : i32>, [[L4:#tilegpu.blocked<.4., [^>]*>]]>, tensor<1024xi32, [[L4]]>)
// CHECK: scf.for {{.*}} iter_args([[ACC:%.*]] = {{%.*}}, [[P:%.*]] = [[P0]]) -> (tensor<1024xf32, [[L4]]>, tensor<1024x!tile.ptr<f32, 1 : i32>, [[L4]]>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: [[X:%.*]] = "tile.load"([[P]])
// CHECK: [[NEXT:%.*]] = "tile.addptr"([[P]], {{%.*}}) : (tensor<1024x!tile.ptr<f32, 1 : i32>, [[L4]]>, tensor<1024xi32, [[L4]]>)
// CHECK: scf.yield {{%.*}}, [[NEXT]]
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
func.func @loop_pointers(%base: !tile.ptr<f32, 1 : i32>, %n: i32, %out: tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<1024xf32, #b4>
  %step = arith.constant dense<1024> : tensor<1024xi32, #b1>
  %r = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b1>
  %s = "tile.splat"(%base) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
  %p0 = "tile.addptr"(%s, %r) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, tensor<1024xi32, #b1>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<1024xf32, #b4>, tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>) : i32 {
    %p4 = "tilegpu.convert_layout"(%p) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %x = "tile.load"(%p4) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>) -> tensor<1024xf32, #b4>
    %a = arith.addf %acc, %x : tensor<1024xf32, #b4>
    %next = "tile.addptr"(%p, %step) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>, tensor<1024xi32, #b1>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
    scf.yield %a, %next : tensor<1024xf32, #b4>, tensor<1024x!tile.ptr<f32, 1 : i32>, #b1>
  }
  "tile.store"(%out, %res#0) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xf32, #b4>) -> ()
  return
}

// -----

// convert_B(f(convert_A(x))) for an elementwise f and an x that cannot be recomputed (a loop
// result, here a block argument): f runs in x's layout and one conversion remains, of the
// narrower fp16 values (a dot's `acc.to(tl.float16)` before its store).
// CHECK-LABEL: func.func @convert_later
// CHECK: [[H:%.*]] = arith.truncf %arg0 : tensor<1024xf32, [[L1:#tilegpu.blocked<.1., [^>]*>]]> to tensor<1024xf16, [[L1]]>
// CHECK-NEXT: [[C:%.*]] = "tilegpu.convert_layout"([[H]]) : (tensor<1024xf16, [[L1]]>) -> tensor<1024xf16, [[L4:#tilegpu.blocked<.4., [^>]*>]]>
// CHECK-NEXT: "tile.store"(%arg1, [[C]])
// CHECK-NOT: tilegpu.convert_layout
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b2 = #tilegpu.blocked<[2], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
func.func @convert_later(%acc: tensor<1024xf32, #b1>, %out: tensor<1024x!tile.ptr<f16, 1 : i32>, #b4>) {
  %a2 = "tilegpu.convert_layout"(%acc) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b2>
  %h = arith.truncf %a2 : tensor<1024xf32, #b2> to tensor<1024xf16, #b2>
  %h4 = "tilegpu.convert_layout"(%h) : (tensor<1024xf16, #b2>) -> tensor<1024xf16, #b4>
  "tile.store"(%out, %h4) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f16, 1 : i32>, #b4>, tensor<1024xf16, #b4>) -> ()
  return
}

// -----

// f(convert(x)) with f elementwise and narrowing (an fp32 accumulator truncated to fp16 for its
// store): f runs in x's layout and the conversion moves the fp16 values, half the bytes.
// Operands of f besides the conversion are recomputed in x's layout (the splat).
// CHECK-LABEL: func.func @narrow_before_converting
// CHECK: [[H:%.*]] = arith.truncf %arg0 : tensor<1024xf32, [[L1:#tilegpu.blocked<.1., [^>]*>]]> to tensor<1024xf16, [[L1]]>
// CHECK-NEXT: [[C:%.*]] = "tilegpu.convert_layout"([[H]]) : (tensor<1024xf16, [[L1]]>) -> tensor<1024xf16, [[L4:#tilegpu.blocked<.4., [^>]*>]]>
// CHECK-NEXT: "tile.store"(%arg1, [[C]])
// CHECK: [[S:%.*]] = "tile.splat"(%arg3) : (f32) -> tensor<1024xf32, [[L1]]>
// CHECK: [[P:%.*]] = arith.cmpf olt, %arg2, [[S]] : tensor<1024xf32, [[L1]]>
// CHECK-NEXT: "tilegpu.convert_layout"([[P]]) : (tensor<1024xi1, [[L1]]>) -> tensor<1024xi1, [[L4]]>
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
func.func @narrow_before_converting(%acc: tensor<1024xf32, #b1>, %out: tensor<1024x!tile.ptr<f16, 1 : i32>, #b4>, %y: tensor<1024xf32, #b1>, %t: f32) -> tensor<1024xi1, #b4> {
  %a4 = "tilegpu.convert_layout"(%acc) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b4>
  %h = arith.truncf %a4 : tensor<1024xf32, #b4> to tensor<1024xf16, #b4>
  "tile.store"(%out, %h) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f16, 1 : i32>, #b4>, tensor<1024xf16, #b4>) -> ()
  %y4 = "tilegpu.convert_layout"(%y) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b4>
  %ts = "tile.splat"(%t) : (f32) -> tensor<1024xf32, #b4>
  %p = arith.cmpf olt, %y4, %ts : tensor<1024xf32, #b4>
  return %p : tensor<1024xi1, #b4>
}

// -----

// Not moved: a widening f (more bytes to convert after it), and a conversion with a second
// user (the wide value would be converted anyway).
// CHECK-LABEL: func.func @keep_conversion_before
// CHECK: [[W:%.*]] = "tilegpu.convert_layout"(%arg0) : (tensor<1024xf16, [[L1:#tilegpu.blocked<.1., [^>]*>]]>) -> tensor<1024xf16, [[L4:#tilegpu.blocked<.4., [^>]*>]]>
// CHECK-NEXT: arith.extf [[W]] : tensor<1024xf16, [[L4]]> to tensor<1024xf32, [[L4]]>
// CHECK: [[T:%.*]] = "tilegpu.convert_layout"(%arg1) : (tensor<1024xf32, [[L1]]>) -> tensor<1024xf32, [[L4]]>
// CHECK-NEXT: arith.truncf [[T]] : tensor<1024xf32, [[L4]]> to tensor<1024xf16, [[L4]]>
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
func.func @keep_conversion_before(%x: tensor<1024xf16, #b1>, %acc: tensor<1024xf32, #b1>) -> (tensor<1024xf32, #b4>, tensor<1024xf16, #b4>, tensor<1024xf32, #b4>) {
  %x4 = "tilegpu.convert_layout"(%x) : (tensor<1024xf16, #b1>) -> tensor<1024xf16, #b4>
  %w = arith.extf %x4 : tensor<1024xf16, #b4> to tensor<1024xf32, #b4>
  %a4 = "tilegpu.convert_layout"(%acc) : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b4>
  %h = arith.truncf %a4 : tensor<1024xf32, #b4> to tensor<1024xf16, #b4>
  return %w, %h, %a4 : tensor<1024xf32, #b4>, tensor<1024xf16, #b4>, tensor<1024xf32, #b4>
}

// -----

// f(convert(x)) with f elementwise and its values no wider (a `tl.where` on a dot's accumulator
// before a row maximum): f runs in x's layout (the mask recomputed there) and the conversion
// follows it, where the reduction then takes it in: the maximum is taken in x's layout and only
// its result is converted.
// CHECK-LABEL: func.func @where_then_reduce
// CHECK: [[M:%.*]] = arith.cmpi slt, {{.*}} : tensor<64x64xi32, [[MMA:#tilegpu.mma<[^>]*>]]>
// CHECK: [[W:%.*]] = arith.select [[M]], %arg0, {{.*}} : tensor<64x64xi1, [[MMA]]>, tensor<64x64xf32, [[MMA]]>
// CHECK: "tile.reduce"([[W]])
// CHECK: -> tensor<64xf32, #tilegpu.slice<1 : i32, [[MMA]]>>
// CHECK-NOT: "tilegpu.convert_layout"({{.*}}) : (tensor<64x64xf32
#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
func.func @where_then_reduce(%acc: tensor<64x64xf32, #mma>, %n: i32) -> tensor<64xf32, #tilegpu.slice<1 : i32, #b>> {
  %a = "tilegpu.convert_layout"(%acc) : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #b>
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #tilegpu.slice<0 : i32, #b>>
  %r2 = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<64xi32, #tilegpu.slice<0 : i32, #b>>) -> tensor<1x64xi32, #b>
  %rb = "tile.broadcast"(%r2) : (tensor<1x64xi32, #b>) -> tensor<64x64xi32, #b>
  %ns = "tile.splat"(%n) : (i32) -> tensor<64x64xi32, #b>
  %m = arith.cmpi slt, %rb, %ns : tensor<64x64xi32, #b>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #b>
  %w = arith.select %m, %a, %ninf : tensor<64x64xi1, #b>, tensor<64x64xf32, #b>
  %max = "tile.reduce"(%w) ({
  ^bb0(%x: f32, %y: f32):
    %z = arith.maxnumf %x, %y : f32
    gpu.yield %z : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x64xf32, #b>) -> tensor<64xf32, #tilegpu.slice<1 : i32, #b>>
  return %max : tensor<64xf32, #tilegpu.slice<1 : i32, #b>>
}

// -----

// A value that cannot be recomputed (a reduction's result: the running maximum of attention)
// converted where no data crosses threads: from the row slice of one wgmma accumulator layout
// to that of another (the warps split only M in both, so every thread holds the same rows: a
// register renaming). What depends on it (the broadcast rescaling the second accumulator) is
// then recomputed in the second accumulator's layout instead of converting that accumulator
// through shared memory and back.
// CHECK-LABEL: func.func @free_conversion
// CHECK: [[R:%.*]] = "tile.reduce"
// CHECK: [[F:%.*]] = "tilegpu.convert_layout"([[R]]) : (tensor<128xf32, #tilegpu.slice<1 : i32, #tilegpu.mma<[3, 0], [8, 1], [16, 64]>>>) -> tensor<128xf32, #tilegpu.slice<1 : i32, [[M2:#tilegpu.mma<.3, 0., .8, 1., .16, 128.>]]>>
// CHECK: [[E:%.*]] = "tile.expand_dims"([[F]])
// CHECK: [[B:%.*]] = "tile.broadcast"([[E]])
// CHECK: arith.mulf %arg1, [[B]] : tensor<128x128xf32, [[M2]]>
// CHECK-NOT: "tilegpu.convert_layout"(%arg1)
#b = #tilegpu.blocked<[1, 4], [4, 8], [8, 1], [1, 0]>
#m1 = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
#m2 = #tilegpu.mma<[3, 0], [8, 1], [16, 128]>
func.func @free_conversion(%s: tensor<128x64xf32, #m1>, %acc: tensor<128x128xf32, #m2>) -> tensor<128x128xf32, #m2> {
  %max = "tile.reduce"(%s) ({
  ^bb0(%x: f32, %y: f32):
    %z = arith.maxnumf %x, %y : f32
    gpu.yield %z : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128x64xf32, #m1>) -> tensor<128xf32, #tilegpu.slice<1 : i32, #m1>>
  %c = "tilegpu.convert_layout"(%max) : (tensor<128xf32, #tilegpu.slice<1 : i32, #m1>>) -> tensor<128xf32, #tilegpu.slice<1 : i32, #b>>
  %e = "tile.expand_dims"(%c) {axis = 1 : i32} : (tensor<128xf32, #tilegpu.slice<1 : i32, #b>>) -> tensor<128x1xf32, #b>
  %bc = "tile.broadcast"(%e) : (tensor<128x1xf32, #b>) -> tensor<128x128xf32, #b>
  %a = "tilegpu.convert_layout"(%acc) : (tensor<128x128xf32, #m2>) -> tensor<128x128xf32, #b>
  %scaled = arith.mulf %a, %bc : tensor<128x128xf32, #b>
  %back = "tilegpu.convert_layout"(%scaled) : (tensor<128x128xf32, #b>) -> tensor<128x128xf32, #m2>
  return %back : tensor<128x128xf32, #m2>
}

// -----

// The flash-attention loop (tl.dot(q, k), the online softmax, tl.dot(p.to(f16), v, acc)) as
// accelerate-matmul leaves it, d = 64, BLOCK_N = 64 on 8 warps. P is needed in the
// accumulator's layout (its row sum) and in the A-operand layout (the second dot); both
// copies of `exp2(qk * scale - m_ij[:, None])` must subtract the running maximum m_ij
// (maxnumf(m_i, rowmax * scale)), not the raw row maximum. The rematerializer's memo is
// keyed by values; an op erased while it lived once gave its address to a new op, which then
// found the erased op's entry and read the row maximum of qk instead.
// CHECK-LABEL: func.func @online_softmax_loop
// CHECK: scf.for
// CHECK: [[ROWMAX:%.*]] = "tile.reduce"
// CHECK: [[SCALED:%.*]] = arith.mulf [[ROWMAX]], %{{.*}} : tensor<128xf32, #tilegpu.slice<1 : i32, [[MMA:#tilegpu.mma<[^>]*>]]>>
// CHECK: [[MIJ:%.*]] = arith.maxnumf %{{.*}}, [[SCALED]] : tensor<128xf32, #tilegpu.slice<1 : i32, [[MMA]]>>
// CHECK-NOT: "tile.expand_dims"([[ROWMAX]])
// CHECK: [[EXP:%.*]] = "tile.expand_dims"([[MIJ]]) {axis = 1 : i32} : {{.*}} -> tensor<128x1xf32, [[MMA]]>
// CHECK-NOT: "tile.expand_dims"([[ROWMAX]])
// CHECK: [[BCAST:%.*]] = "tile.broadcast"([[EXP]])
// CHECK: [[SUB:%.*]] = arith.subf %{{.*}}, [[BCAST]] : tensor<128x64xf32, [[MMA]]>
// CHECK: [[P:%.*]] = math.exp2 [[SUB]] : tensor<128x64xf32, [[MMA]]>
// CHECK: "tile.reduce"([[P]])
// CHECK: scf.yield
#r = #tilegpu.blocked<[1], [32], [8], [0]>
#b = #tilegpu.blocked<[1, 1], [1, 32], [4, 2], [1, 0]>
#c = #tilegpu.blocked<[1, 1], [32, 1], [8, 1], [1, 0]>
#kt = #tilegpu.blocked<[8, 1], [8, 4], [1, 8], [0, 1]>
#v = #tilegpu.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
#pa = #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[3, 0], [8, 1], [16, 64]>, 2 : i32>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @online_softmax_loop(%arg0: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}, %arg4: f32, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %arg8: i32 {tile.divisibility = 16 : i32}, %arg9: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<1.000000e+00> : tensor<128xf32, #r>
    %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32, #r>
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_1 = arith.constant 1.44269502 : f32
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #b>
    %c128_i32 = arith.constant 128 : i32
    %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %1 = "tile.program_id"() {axis = 1 : i32} : () -> i32
    %2 = arith.muli %1, %arg5 : i32
    %3 = arith.muli %0, %c128_i32 : i32
    %4 = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #r>
    %5 = "tile.splat"(%3) : (i32) -> tensor<128xi32, #r>
    %6 = arith.addi %5, %4 : tensor<128xi32, #r>
    %7 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #r>
    %8 = "tile.splat"(%2) : (i32) -> tensor<128xi32, #r>
    %9 = arith.addi %8, %6 : tensor<128xi32, #r>
    %10 = "tilegpu.convert_layout"(%9) : (tensor<128xi32, #r>) -> tensor<128xi32, #tilegpu.slice<1 : i32, #c>>
    %11 = "tile.expand_dims"(%10) {axis = 1 : i32} : (tensor<128xi32, #tilegpu.slice<1 : i32, #c>>) -> tensor<128x1xi32, #c>
    %12 = "tile.splat"(%arg6) : (i32) -> tensor<128x1xi32, #c>
    %13 = arith.muli %11, %12 : tensor<128x1xi32, #c>
    %14 = "tile.splat"(%arg0) : (!tile.ptr<f16, 1 : i32>) -> tensor<128x1x!tile.ptr<f16, 1 : i32>, #c>
    %15 = "tile.addptr"(%14, %13) : (tensor<128x1x!tile.ptr<f16, 1 : i32>, #c>, tensor<128x1xi32, #c>) -> tensor<128x1x!tile.ptr<f16, 1 : i32>, #c>
    %16 = "tilegpu.convert_layout"(%7) : (tensor<64xi32, #r>) -> tensor<64xi32, #tilegpu.slice<0 : i32, #b>>
    %17 = "tile.expand_dims"(%16) {axis = 0 : i32} : (tensor<64xi32, #tilegpu.slice<0 : i32, #b>>) -> tensor<1x64xi32, #b>
    %18 = "tilegpu.convert_layout"(%15) : (tensor<128x1x!tile.ptr<f16, 1 : i32>, #c>) -> tensor<128x1x!tile.ptr<f16, 1 : i32>, #b>
    %19 = "tile.broadcast"(%18) : (tensor<128x1x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>
    %20 = "tile.broadcast"(%17) : (tensor<1x64xi32, #b>) -> tensor<128x64xi32, #b>
    %21 = "tile.addptr"(%19, %20) : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xi32, #b>) -> tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>
    %22 = "tilegpu.convert_layout"(%21) : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<128x64x!tile.ptr<f16, 1 : i32>, #v>
    %23 = "tile.load"(%22) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #v>) -> tensor<128x64xf16, #v>
    %24 = "tilegpu.convert_layout"(%23) : (tensor<128x64xf16, #v>) -> tensor<128x64xf16, #b>
    %25 = arith.mulf %arg4, %cst_1 : f32
    %26:3 = scf.for %arg10 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg11 = %cst, %arg12 = %cst_2, %arg13 = %cst_0) -> (tensor<128xf32, #r>, tensor<128x64xf32, #b>, tensor<128xf32, #r>)  : i32 {
      %42 = arith.addi %2, %arg10 : i32
      %43 = "tile.splat"(%42) : (i32) -> tensor<64xi32, #r>
      %44 = arith.addi %43, %7 : tensor<64xi32, #r>
      %45 = "tilegpu.convert_layout"(%44) : (tensor<64xi32, #r>) -> tensor<64xi32, #tilegpu.slice<0 : i32, #b>>
      %46 = "tile.expand_dims"(%45) {axis = 0 : i32} : (tensor<64xi32, #tilegpu.slice<0 : i32, #b>>) -> tensor<1x64xi32, #b>
      %47 = "tile.splat"(%arg7) : (i32) -> tensor<1x64xi32, #b>
      %48 = arith.muli %46, %47 : tensor<1x64xi32, #b>
      %49 = "tile.splat"(%arg1) : (!tile.ptr<f16, 1 : i32>) -> tensor<1x64x!tile.ptr<f16, 1 : i32>, #b>
      %50 = "tile.addptr"(%49, %48) : (tensor<1x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<1x64xi32, #b>) -> tensor<1x64x!tile.ptr<f16, 1 : i32>, #b>
      %51 = "tilegpu.convert_layout"(%7) : (tensor<64xi32, #r>) -> tensor<64xi32, #tilegpu.slice<1 : i32, #c>>
      %52 = "tile.expand_dims"(%51) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.slice<1 : i32, #c>>) -> tensor<64x1xi32, #c>
      %53 = "tile.broadcast"(%50) : (tensor<1x64x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>
      %54 = "tilegpu.convert_layout"(%52) : (tensor<64x1xi32, #c>) -> tensor<64x1xi32, #b>
      %55 = "tile.broadcast"(%54) : (tensor<64x1xi32, #b>) -> tensor<64x64xi32, #b>
      %56 = "tile.addptr"(%53, %55) : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<64x64xi32, #b>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>
      %57 = "tilegpu.convert_layout"(%56) : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #kt>
      %58 = "tile.load"(%57) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #kt>) -> tensor<64x64xf16, #kt>
      %59 = "tilegpu.convert_layout"(%58) : (tensor<64x64xf16, #kt>) -> tensor<64x64xf16, #b>
      %60 = "tilegpu.local_alloc"(%24) : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<[128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
      %61 = "tilegpu.local_alloc"(%59) : (tensor<64x64xf16, #b>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [0, 1]>, false>
      "tilegpu.fence_async_shared"() : () -> ()
      %62 = "tilegpu.convert_layout"(%cst_2) : (tensor<128x64xf32, #b>) -> tensor<128x64xf32, #mma>
      %63 = "tilegpu.warpgroup_dot"(%60, %61, %62) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [0, 1]>, false>, tensor<128x64xf32, #mma>) -> tensor<128x64xf32, #mma>
      %64 = "tilegpu.convert_layout"(%63) : (tensor<128x64xf32, #mma>) -> tensor<128x64xf32, #b>
      %65 = "tile.reduce"(%64) ({
      ^bb0(%arg14: f32, %arg15: f32):
        %108 = arith.maxnumf %arg14, %arg15 : f32
        gpu.yield %108 : f32
      }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128x64xf32, #b>) -> tensor<128xf32, #tilegpu.slice<1 : i32, #b>>
      %66 = "tilegpu.convert_layout"(%65) : (tensor<128xf32, #tilegpu.slice<1 : i32, #b>>) -> tensor<128xf32, #r>
      %67 = "tile.splat"(%25) : (f32) -> tensor<128xf32, #r>
      %68 = arith.mulf %66, %67 : tensor<128xf32, #r>
      %69 = arith.maxnumf %arg13, %68 : tensor<128xf32, #r>
      %70 = "tile.splat"(%25) : (f32) -> tensor<128x64xf32, #b>
      %71 = arith.mulf %64, %70 : tensor<128x64xf32, #b>
      %72 = "tilegpu.convert_layout"(%69) : (tensor<128xf32, #r>) -> tensor<128xf32, #tilegpu.slice<1 : i32, #c>>
      %73 = "tile.expand_dims"(%72) {axis = 1 : i32} : (tensor<128xf32, #tilegpu.slice<1 : i32, #c>>) -> tensor<128x1xf32, #c>
      %74 = "tilegpu.convert_layout"(%73) : (tensor<128x1xf32, #c>) -> tensor<128x1xf32, #b>
      %75 = "tile.broadcast"(%74) : (tensor<128x1xf32, #b>) -> tensor<128x64xf32, #b>
      %76 = arith.subf %71, %75 : tensor<128x64xf32, #b>
      %77 = math.exp2 %76 : tensor<128x64xf32, #b>
      %78 = arith.subf %arg13, %69 : tensor<128xf32, #r>
      %79 = math.exp2 %78 : tensor<128xf32, #r>
      %80 = arith.mulf %arg11, %79 : tensor<128xf32, #r>
      %81 = "tile.reduce"(%77) ({
      ^bb0(%arg14: f32, %arg15: f32):
        %108 = arith.addf %arg14, %arg15 : f32
        gpu.yield %108 : f32
      }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128x64xf32, #b>) -> tensor<128xf32, #tilegpu.slice<1 : i32, #b>>
      %82 = "tilegpu.convert_layout"(%81) : (tensor<128xf32, #tilegpu.slice<1 : i32, #b>>) -> tensor<128xf32, #r>
      %83 = arith.addf %80, %82 : tensor<128xf32, #r>
      %84 = "tilegpu.convert_layout"(%79) : (tensor<128xf32, #r>) -> tensor<128xf32, #tilegpu.slice<1 : i32, #c>>
      %85 = "tile.expand_dims"(%84) {axis = 1 : i32} : (tensor<128xf32, #tilegpu.slice<1 : i32, #c>>) -> tensor<128x1xf32, #c>
      %86 = "tilegpu.convert_layout"(%85) : (tensor<128x1xf32, #c>) -> tensor<128x1xf32, #b>
      %87 = "tile.broadcast"(%86) : (tensor<128x1xf32, #b>) -> tensor<128x64xf32, #b>
      %88 = arith.mulf %arg12, %87 : tensor<128x64xf32, #b>
      %89 = "tilegpu.convert_layout"(%44) : (tensor<64xi32, #r>) -> tensor<64xi32, #tilegpu.slice<1 : i32, #c>>
      %90 = "tile.expand_dims"(%89) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.slice<1 : i32, #c>>) -> tensor<64x1xi32, #c>
      %91 = "tile.splat"(%arg8) : (i32) -> tensor<64x1xi32, #c>
      %92 = arith.muli %90, %91 : tensor<64x1xi32, #c>
      %93 = "tile.splat"(%arg2) : (!tile.ptr<f16, 1 : i32>) -> tensor<64x1x!tile.ptr<f16, 1 : i32>, #c>
      %94 = "tile.addptr"(%93, %92) : (tensor<64x1x!tile.ptr<f16, 1 : i32>, #c>, tensor<64x1xi32, #c>) -> tensor<64x1x!tile.ptr<f16, 1 : i32>, #c>
      %95 = "tilegpu.convert_layout"(%94) : (tensor<64x1x!tile.ptr<f16, 1 : i32>, #c>) -> tensor<64x1x!tile.ptr<f16, 1 : i32>, #b>
      %96 = "tile.broadcast"(%95) : (tensor<64x1x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>
      %97 = "tile.broadcast"(%17) : (tensor<1x64xi32, #b>) -> tensor<64x64xi32, #b>
      %98 = "tile.addptr"(%96, %97) : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<64x64xi32, #b>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>
      %99 = "tilegpu.convert_layout"(%98) : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #v>
      %100 = "tile.load"(%99) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #v>) -> tensor<64x64xf16, #v>
      %101 = "tilegpu.convert_layout"(%100) : (tensor<64x64xf16, #v>) -> tensor<64x64xf16, #b>
      %102 = arith.truncf %77 : tensor<128x64xf32, #b> to tensor<128x64xf16, #b>
      %103 = "tilegpu.convert_layout"(%102) : (tensor<128x64xf16, #b>) -> tensor<128x64xf16, #pa>
      %104 = "tilegpu.local_alloc"(%101) : (tensor<64x64xf16, #b>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
      "tilegpu.fence_async_shared"() : () -> ()
      %105 = "tilegpu.convert_layout"(%88) : (tensor<128x64xf32, #b>) -> tensor<128x64xf32, #mma>
      %106 = "tilegpu.warpgroup_dot"(%103, %104, %105) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #pa>, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, tensor<128x64xf32, #mma>) -> tensor<128x64xf32, #mma>
      %107 = "tilegpu.convert_layout"(%106) : (tensor<128x64xf32, #mma>) -> tensor<128x64xf32, #b>
      scf.yield %83, %107, %69 : tensor<128xf32, #r>, tensor<128x64xf32, #b>, tensor<128xf32, #r>
    }
    %27 = "tilegpu.convert_layout"(%26#0) : (tensor<128xf32, #r>) -> tensor<128xf32, #tilegpu.slice<1 : i32, #c>>
    %28 = "tile.expand_dims"(%27) {axis = 1 : i32} : (tensor<128xf32, #tilegpu.slice<1 : i32, #c>>) -> tensor<128x1xf32, #c>
    %29 = "tilegpu.convert_layout"(%28) : (tensor<128x1xf32, #c>) -> tensor<128x1xf32, #b>
    %30 = "tile.broadcast"(%29) : (tensor<128x1xf32, #b>) -> tensor<128x64xf32, #b>
    %31 = arith.divf %26#1, %30 fastmath<afn> : tensor<128x64xf32, #b>
    %32 = "tile.splat"(%arg9) : (i32) -> tensor<128x1xi32, #c>
    %33 = arith.muli %11, %32 : tensor<128x1xi32, #c>
    %34 = "tile.splat"(%arg3) : (!tile.ptr<f16, 1 : i32>) -> tensor<128x1x!tile.ptr<f16, 1 : i32>, #c>
    %35 = "tile.addptr"(%34, %33) : (tensor<128x1x!tile.ptr<f16, 1 : i32>, #c>, tensor<128x1xi32, #c>) -> tensor<128x1x!tile.ptr<f16, 1 : i32>, #c>
    %36 = "tilegpu.convert_layout"(%35) : (tensor<128x1x!tile.ptr<f16, 1 : i32>, #c>) -> tensor<128x1x!tile.ptr<f16, 1 : i32>, #b>
    %37 = "tile.broadcast"(%36) : (tensor<128x1x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>
    %38 = "tile.addptr"(%37, %20) : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xi32, #b>) -> tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>
    %39 = arith.truncf %31 : tensor<128x64xf32, #b> to tensor<128x64xf16, #b>
    %40 = "tilegpu.convert_layout"(%38) : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<128x64x!tile.ptr<f16, 1 : i32>, #v>
    %41 = "tilegpu.convert_layout"(%39) : (tensor<128x64xf16, #b>) -> tensor<128x64xf16, #v>
    "tile.store"(%40, %41) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #v>, tensor<128x64xf16, #v>) -> ()
    return
  }
}

// -----

// exp2(qk - lse[None, :]) with qk a wgmma accumulator and lse a loaded row vector (attention's
// backward), wanted back in the accumulator's layout: the loaded lse cannot be recomputed, but
// it has 64 elements against the tile's 4096 (at most an eighth), so it is converted instead
// (to the slice of the mma layout) and the subtraction and exp2 run in the mma layout: the
// 64x64 tile is not converted at all.
// CHECK-LABEL: func.func @small_leaf_converted
// CHECK: [[L:%.*]] = "tile.load"
// CHECK-NEXT: [[LS:%.*]] = "tilegpu.convert_layout"([[L]]) : (tensor<64xf32, #tilegpu.blocked<[1], [32], [4], [0]>>) -> tensor<64xf32, #tilegpu.slice<0 : i32, #tilegpu.mma<[3, 0], [4, 1], [16, 64]>>>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: "tile.expand_dims"([[LS]])
// CHECK: arith.subf %arg0, {{%.*}} : tensor<64x64xf32, #tilegpu.mma<[3, 0], [4, 1], [16, 64]>>
// CHECK-NEXT: math.exp2 {{%.*}} : tensor<64x64xf32, #tilegpu.mma<[3, 0], [4, 1], [16, 64]>>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
#v = #tilegpu.blocked<[1], [32], [4], [0]>
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @small_leaf_converted(%qk: tensor<64x64xf32, #mma>, %pl: tensor<64x!tile.ptr<f32, 1 : i32>, #v>) -> tensor<64x64xf32, #mma> {
    %lse = "tile.load"(%pl) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x!tile.ptr<f32, 1 : i32>, #v>) -> tensor<64xf32, #v>
    %t = "tilegpu.convert_layout"(%qk) : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #b>
    %l = "tilegpu.convert_layout"(%lse) : (tensor<64xf32, #v>) -> tensor<64xf32, #tilegpu.slice<0 : i32, #b>>
    %e = "tile.expand_dims"(%l) {axis = 0 : i32} : (tensor<64xf32, #tilegpu.slice<0 : i32, #b>>) -> tensor<1x64xf32, #b>
    %bb = "tile.broadcast"(%e) : (tensor<1x64xf32, #b>) -> tensor<64x64xf32, #b>
    %s = arith.subf %t, %bb : tensor<64x64xf32, #b>
    %x = math.exp2 %s : tensor<64x64xf32, #b>
    %r = "tilegpu.convert_layout"(%x) : (tensor<64x64xf32, #b>) -> tensor<64x64xf32, #mma>
    return %r : tensor<64x64xf32, #mma>
  }
}

// -----

// A small load (64 row statistics, at most an eighth of the 64x64 tile they offset) whose
// pointers are computed (splat, make_range, addptr) is issued again in the layout its users
// want, the slice of the mma layout, instead of being converted through shared memory: the
// pointers are recomputed there, the new load follows the old one (erased), and no
// conversion is left. Threads of one column read the same address.
// CHECK-LABEL: func.func @small_load_reissued
// CHECK-NOT: tilegpu.convert_layout
// CHECK: [[R:%.*]] = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #tilegpu.slice<0 : i32, #tilegpu.mma<[3, 0], [4, 1], [16, 64]>>>
// CHECK: [[P:%.*]] = "tile.addptr"({{%.*}}, [[R]])
// CHECK-NEXT: [[L:%.*]] = "tile.load"([[P]]) {{.*}} -> tensor<64xf32, #tilegpu.slice<0 : i32, #tilegpu.mma<[3, 0], [4, 1], [16, 64]>>>
// CHECK-NEXT: "tile.expand_dims"([[L]])
// CHECK-NOT: tilegpu.convert_layout
// CHECK-NOT: #tilegpu.blocked
// CHECK: return
#v = #tilegpu.blocked<[1], [32], [4], [0]>
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @small_load_reissued(%qk: tensor<64x64xf32, #mma>, %base: !tile.ptr<f32, 1 : i32>) -> tensor<64x64xf32, #mma> {
    %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #v>
    %ps = "tile.splat"(%base) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #v>
    %pl = "tile.addptr"(%ps, %r) : (tensor<64x!tile.ptr<f32, 1 : i32>, #v>, tensor<64xi32, #v>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #v>
    %lse = "tile.load"(%pl) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x!tile.ptr<f32, 1 : i32>, #v>) -> tensor<64xf32, #v>
    %t = "tilegpu.convert_layout"(%qk) : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #b>
    %l = "tilegpu.convert_layout"(%lse) : (tensor<64xf32, #v>) -> tensor<64xf32, #tilegpu.slice<0 : i32, #b>>
    %e = "tile.expand_dims"(%l) {axis = 0 : i32} : (tensor<64xf32, #tilegpu.slice<0 : i32, #b>>) -> tensor<1x64xf32, #b>
    %bb = "tile.broadcast"(%e) : (tensor<1x64xf32, #b>) -> tensor<64x64xf32, #b>
    %s = arith.subf %t, %bb : tensor<64x64xf32, #b>
    %x = math.exp2 %s : tensor<64x64xf32, #b>
    %res = "tilegpu.convert_layout"(%x) : (tensor<64x64xf32, #b>) -> tensor<64x64xf32, #mma>
    return %res : tensor<64x64xf32, #mma>
  }
}

// -----

// The same with a volatile load: it is not issued twice, the 64 values are converted.
// CHECK-LABEL: func.func @small_volatile_load_converted
// CHECK: [[L:%.*]] = "tile.load"({{%.*}}) {{.*}}is_volatile = true{{.*}} -> tensor<64xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK-NEXT: "tilegpu.convert_layout"([[L]]) : (tensor<64xf32, #tilegpu.blocked<[1], [32], [4], [0]>>) -> tensor<64xf32, #tilegpu.slice<0 : i32, #tilegpu.mma<[3, 0], [4, 1], [16, 64]>>>
// CHECK-NOT: "tile.load"
// CHECK: return
#v = #tilegpu.blocked<[1], [32], [4], [0]>
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @small_volatile_load_converted(%qk: tensor<64x64xf32, #mma>, %base: !tile.ptr<f32, 1 : i32>) -> tensor<64x64xf32, #mma> {
    %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #v>
    %ps = "tile.splat"(%base) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #v>
    %pl = "tile.addptr"(%ps, %r) : (tensor<64x!tile.ptr<f32, 1 : i32>, #v>, tensor<64xi32, #v>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #v>
    %lse = "tile.load"(%pl) {cache = "none", evict = "evict_normal", is_volatile = true, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x!tile.ptr<f32, 1 : i32>, #v>) -> tensor<64xf32, #v>
    %t = "tilegpu.convert_layout"(%qk) : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #b>
    %l = "tilegpu.convert_layout"(%lse) : (tensor<64xf32, #v>) -> tensor<64xf32, #tilegpu.slice<0 : i32, #b>>
    %e = "tile.expand_dims"(%l) {axis = 0 : i32} : (tensor<64xf32, #tilegpu.slice<0 : i32, #b>>) -> tensor<1x64xf32, #b>
    %bb = "tile.broadcast"(%e) : (tensor<1x64xf32, #b>) -> tensor<64x64xf32, #b>
    %s = arith.subf %t, %bb : tensor<64x64xf32, #b>
    %res = "tilegpu.convert_layout"(%s) : (tensor<64x64xf32, #b>) -> tensor<64x64xf32, #mma>
    return %res : tensor<64x64xf32, #mma>
  }
}

// -----

// A row sum of a product of two loaded tiles widened to f32 (`tl.sum(o.to(f32) * do.to(f32),
// 1)`), the tiles converted from the loads' layout #l to #b: the widening and the product are
// computed in #l and the reduction reduces there; only its 64 results are converted (for the
// store), not the two 64x64 tiles.
// CHECK-LABEL: func.func @reduce_through_elementwise
// CHECK: [[X:%.*]] = "tile.load"(%arg0) {{.*}} -> tensor<64x64xf16, [[L:#tilegpu.blocked<.1, 8.[^>]*>]]>
// CHECK: [[Y:%.*]] = "tile.load"(%arg1) {{.*}} -> tensor<64x64xf16, [[L]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: arith.mulf {{%.*}}, {{%.*}} : tensor<64x64xf32, [[L]]>
// CHECK: [[S:%.*]] = "tile.reduce"
// CHECK: -> tensor<64xf32, #tilegpu.slice<1 : i32, [[L]]>>
// CHECK-NEXT: "tilegpu.convert_layout"([[S]]) : (tensor<64xf32, #tilegpu.slice<1 : i32, [[L]]>>) -> tensor<64xf32, #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
#l = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @reduce_through_elementwise(%p: tensor<64x64x!tile.ptr<f16, 1 : i32>, #l>, %q: tensor<64x64x!tile.ptr<f16, 1 : i32>, #l>) -> tensor<64xf32, #tilegpu.slice<1 : i32, #b>> {
    %x = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #l>) -> tensor<64x64xf16, #l>
    %y = "tile.load"(%q) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #l>) -> tensor<64x64xf16, #l>
    %xb = "tilegpu.convert_layout"(%x) : (tensor<64x64xf16, #l>) -> tensor<64x64xf16, #b>
    %yb = "tilegpu.convert_layout"(%y) : (tensor<64x64xf16, #l>) -> tensor<64x64xf16, #b>
    %xf = arith.extf %xb : tensor<64x64xf16, #b> to tensor<64x64xf32, #b>
    %yf = arith.extf %yb : tensor<64x64xf16, #b> to tensor<64x64xf32, #b>
    %m = arith.mulf %xf, %yf : tensor<64x64xf32, #b>
    %s = "tile.reduce"(%m) ({
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      gpu.yield %t : f32
    }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x64xf32, #b>) -> tensor<64xf32, #tilegpu.slice<1 : i32, #b>>
    return %s : tensor<64xf32, #tilegpu.slice<1 : i32, #b>>
  }
}
