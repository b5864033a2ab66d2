// RUN: tilec-opt %s --split-input-file --convert-tile-to-tilegpu | filecheck %s
// RUN: tilec-opt %s --split-input-file --convert-tile-to-tilegpu=num-warps=8 | filecheck %s --check-prefix=W8
// RUN: tilec-opt %s --split-input-file '--convert-tile-to-tilegpu=num-warps=2 threads-per-warp=64 target=cuda:80' | filecheck %s --check-prefix=OPTS

// 1024 elements on 4 warps of 32 threads: one element per thread, 32 lanes, 4 warps, and the
// tile repeats (8 registers per thread). The module records warps, threads per warp and target.
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32}
// CHECK-LABEL: func.func @range_1d
// CHECK: "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #tilegpu.blocked<[1], [32], [4], [0]>>
// W8: module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32}
// W8-LABEL: func.func @range_1d
// W8: "tile.make_range"() {{.*}} -> tensor<1024xi32, #tilegpu.blocked<[1], [32], [8], [0]>>
// OPTS: module attributes {tilegpu.num_warps = 2 : i32, tilegpu.target = "cuda:80", tilegpu.threads_per_warp = 64 : i32}
// OPTS-LABEL: func.func @range_1d
// OPTS: "tile.make_range"() {{.*}} -> tensor<1024xi32, #tilegpu.blocked<[1], [64], [2], [0]>>
func.func @range_1d() {
  %r = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
  return
}

// -----

// 2-D: lanes go along the fastest (last) dimension first, up to its extent, then warps; what is
// left goes to the slower dimension. Scalars keep their types.
// CHECK-LABEL: func.func @shapes_2d
// CHECK-SAME: (%arg0: f32, %arg1: f16)
// CHECK: "tile.splat"(%arg0) : (f32) -> tensor<64x128xf32, #tilegpu.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
// CHECK: "tile.splat"(%arg0) : (f32) -> tensor<32x64xf32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
// CHECK: "tile.splat"(%arg1) : (f16) -> tensor<128x16xf16, #tilegpu.blocked<[1, 1], [2, 16], [4, 1], [1, 0]>>
// CHECK: "tile.splat"(%arg0) : (f32) -> tensor<8x8xf32, #tilegpu.blocked<[1, 1], [4, 8], [4, 1], [1, 0]>>
// CHECK: "tile.splat"(%arg0) : (f32) -> tensor<2x4x256xf32, #tilegpu.blocked<[1, 1, 1], [1, 1, 32], [1, 1, 4], [2, 1, 0]>>
// W8-LABEL: func.func @shapes_2d
// W8: tensor<64x128xf32, #tilegpu.blocked<[1, 1], [1, 32], [2, 4], [1, 0]>>
// W8: tensor<32x64xf32, #tilegpu.blocked<[1, 1], [1, 32], [4, 2], [1, 0]>>
// W8: tensor<128x16xf16, #tilegpu.blocked<[1, 1], [2, 16], [8, 1], [1, 0]>>
// W8: tensor<8x8xf32, #tilegpu.blocked<[1, 1], [4, 8], [8, 1], [1, 0]>>
// W8: tensor<2x4x256xf32, #tilegpu.blocked<[1, 1, 1], [1, 1, 32], [1, 1, 8], [2, 1, 0]>>
func.func @shapes_2d(%x: f32, %h: f16) {
  %a = "tile.splat"(%x) : (f32) -> tensor<64x128xf32>
  %b = "tile.splat"(%x) : (f32) -> tensor<32x64xf32>
  %c = "tile.splat"(%h) : (f16) -> tensor<128x16xf16>
  %d = "tile.splat"(%x) : (f32) -> tensor<8x8xf32>
  %e = "tile.splat"(%x) : (f32) -> tensor<2x4x256xf32>
  return
}

// -----

// A column of row offsets: expand_dims reads the slice of its result's layout (a conversion
// from the 1-D default is inserted), and the 64x1 result's default differs from the 64x128
// broadcast's, so the broadcast operand is converted too. The row of column offsets (1x128)
// already has the broadcast's layout: no conversion there.
// CHECK-LABEL: func.func @expand_and_broadcast
// CHECK: [[R:%.*]] = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, [[L1:#tilegpu.blocked<[^>]*>]]>
// CHECK-NEXT: [[RS:%.*]] = "tilegpu.convert_layout"([[R]]) : (tensor<64xi32, [[L1]]>) -> tensor<64xi32, #tilegpu.slice<1 : i32, [[COL:#tilegpu.blocked<[^>]*>]]>>
// CHECK-NEXT: [[E:%.*]] = "tile.expand_dims"([[RS]]) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.slice<1 : i32, [[COL]]>>) -> tensor<64x1xi32, [[COL]]>
// CHECK-NEXT: [[EC:%.*]] = "tilegpu.convert_layout"([[E]]) : (tensor<64x1xi32, [[COL]]>) -> tensor<64x1xi32, #tilegpu.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
// CHECK-NEXT: [[B:%.*]] = "tile.broadcast"([[EC]]) : (tensor<64x1xi32, [[L2:#tilegpu.blocked<[^>]*>]]>) -> tensor<64x128xi32, [[L2]]>
// CHECK-NEXT: [[C:%.*]] = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, [[L1]]>
// CHECK-NEXT: [[CS:%.*]] = "tilegpu.convert_layout"([[C]]) : (tensor<128xi32, [[L1]]>) -> tensor<128xi32, #tilegpu.slice<0 : i32, [[L2]]>>
// CHECK-NEXT: [[F:%.*]] = "tile.expand_dims"([[CS]]) {axis = 0 : i32} : ({{.*}}) -> tensor<1x128xi32, [[L2]]>
// CHECK-NEXT: [[G:%.*]] = "tile.broadcast"([[F]]) : (tensor<1x128xi32, [[L2]]>) -> tensor<64x128xi32, [[L2]]>
// CHECK-NEXT: arith.addi [[B]], [[G]] : tensor<64x128xi32, [[L2]]>
func.func @expand_and_broadcast() {
  %r = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %e = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %b = "tile.broadcast"(%e) : (tensor<64x1xi32>) -> tensor<64x128xi32>
  %c = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
  %f = "tile.expand_dims"(%c) {axis = 0 : i32} : (tensor<128xi32>) -> tensor<1x128xi32>
  %g = "tile.broadcast"(%f) : (tensor<1x128xi32>) -> tensor<64x128xi32>
  %s = arith.addi %b, %g : tensor<64x128xi32>
  return
}

// -----

// Dense splat constants are retyped with the layout (the attribute's type and the result's
// agree, or the op would not verify); scalar constants are untouched.
// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<1.500000e+00> : tensor<256xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK: arith.constant dense<true> : tensor<16x16xi1, #tilegpu.blocked<[1, 1], [2, 16], [4, 1], [1, 0]>>
// CHECK: arith.constant 7 : i32
func.func @constants() {
  %a = arith.constant dense<1.5> : tensor<256xf32>
  %b = arith.constant dense<true> : tensor<16x16xi1>
  %c = arith.constant 7 : i32
  return
}

// -----

// A tensor carried by scf.for: init, iter_arg, yield and result all get the same layout.
// CHECK-LABEL: func.func @loop
// CHECK: [[INIT:%.*]] = arith.constant dense<0.000000e+00> : tensor<256xf32, [[L:#tilegpu.blocked<[^>]*>]]>
// CHECK: [[RES:%.*]] = scf.for {{%.*}} = {{%.*}} to {{%.*}} step {{%.*}} iter_args([[ACC:%.*]] = [[INIT]]) -> (tensor<256xf32, [[L]]>)
// CHECK-NEXT: [[N:%.*]] = arith.addf [[ACC]], [[ACC]] : tensor<256xf32, [[L]]>
// CHECK-NEXT: scf.yield [[N]] : tensor<256xf32, [[L]]>
// CHECK: "tile.store"({{%.*}}, [[RES]]) {{.*}} : (tensor<256x!tile.ptr<f32, 1 : i32>, [[L]]>, tensor<256xf32, [[L]]>) -> ()
func.func @loop(%lb: i32, %ub: i32, %step: i32, %p: !tile.ptr<f32, 1 : i32>) {
  %init = arith.constant dense<0.0> : tensor<256xf32>
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (tensor<256xf32>) : i32 {
    %n = arith.addf %acc, %acc : tensor<256xf32>
    scf.yield %n : tensor<256xf32>
  }
  %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>>
  "tile.store"(%ps, %r) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f32, 1 : i32>>, tensor<256xf32>) -> ()
  return
}

// -----

// scf.while and scf.if: region arguments, yields and results share the layout.
// CHECK-LABEL: func.func @while_if
// CHECK: "tile.splat"(%arg1) : (f32) -> tensor<128xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK: scf.while ({{.*}}) : (i32, tensor<128xf32, [[L:#tilegpu.blocked<[^>]*>]]>) -> (i32, tensor<128xf32, [[L]]>)
// CHECK: scf.condition({{.*}}) {{.*}} : i32, tensor<128xf32, [[L]]>
// CHECK: ^bb0({{.*}}: i32, {{.*}}: tensor<128xf32, [[L]]>):
// CHECK: scf.yield {{.*}} : i32, tensor<128xf32, [[L]]>
// CHECK: scf.if {{.*}} -> (tensor<128xf32, [[L]]>)
func.func @while_if(%n: i32, %x: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = "tile.splat"(%x) : (f32) -> tensor<128xf32>
  %r:2 = scf.while (%i = %c0, %a = %t) : (i32, tensor<128xf32>) -> (i32, tensor<128xf32>) {
    %cond = arith.cmpi slt, %i, %n : i32
    scf.condition(%cond) %i, %a : i32, tensor<128xf32>
  } do {
  ^bb0(%i2: i32, %a2: tensor<128xf32>):
    %j = arith.addi %i2, %c1 : i32
    %b = arith.addf %a2, %a2 : tensor<128xf32>
    scf.yield %j, %b : i32, tensor<128xf32>
  }
  %cc = arith.cmpi slt, %c0, %n : i32
  %s = scf.if %cc -> tensor<128xf32> {
    scf.yield %t : tensor<128xf32>
  } else {
    scf.yield %r#1 : tensor<128xf32>
  }
  return
}

// -----

// A row reduction: the result is the slice (axis 1) of the operand's layout, converted back to
// the 1-D default for its users. A full reduction to a scalar needs nothing.
// CHECK-LABEL: func.func @reduce_rows
// CHECK: [[X:%.*]] = "tile.splat"({{.*}}) -> tensor<32x64xf32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
// CHECK: [[R:%.*]] = "tile.reduce"([[X]]) ({
// CHECK: }) {axis = 1 : i32, {{.*}}} : (tensor<32x64xf32, [[P:#tilegpu.blocked<[^>]*>]]>) -> tensor<32xf32, #tilegpu.slice<1 : i32, [[P]]>>
// CHECK-NEXT: [[RC:%.*]] = "tilegpu.convert_layout"([[R]]) : (tensor<32xf32, #tilegpu.slice<1 : i32, [[P]]>>) -> tensor<32xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK-NEXT: [[U:%.*]] = arith.addf [[RC]], [[RC]] : tensor<32xf32, [[L:#tilegpu.blocked<[^>]*>]]>
// CHECK-NEXT: "tile.reduce"([[U]]) ({
// CHECK: }) {axis = 0 : i32, {{.*}}} : (tensor<32xf32, [[L]]>) -> f32
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
func.func @reduce_rows(%x: f32) {
  %t = "tile.splat"(%x) : (f32) -> tensor<32x64xf32>
  %r = "tile.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x64xf32>) -> tensor<32xf32>
  %u = arith.addf %r, %r : tensor<32xf32>
  %v = "tile.reduce"(%u) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32xf32>) -> f32
  return
}

// -----

// A function taking and returning tensors: its signature gets the layouts its arguments and
// returned values get (it used to keep the plain tensor types, which does not verify).
// CHECK-LABEL: func.func @tensor_signature
// CHECK-SAME: (%arg0: tensor<64xf32, #tilegpu.blocked<[1], [32], [4], [0]>>) -> tensor<64xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
func.func @tensor_signature(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y = arith.addf %x, %x : tensor<64xf32>
  return %y : tensor<64xf32>
}
