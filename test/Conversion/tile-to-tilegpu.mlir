// RUN: tilec-opt %s --split-input-file --convert-tile-to-tilegpu | filecheck %s
// RUN: tilec-opt %s --split-input-file '--convert-tile-to-tilegpu=num-warps=8 num-ctas=2' | filecheck %s --check-prefix=W8
// RUN: tilec-opt %s --split-input-file '--convert-tile-to-tilegpu=num-warps=2 threads-per-warp=64 target=cuda:80' | filecheck %s --check-prefix=OPTS

// 1024 elements on 4 warps of 32 threads: one element per thread, 32 lanes, 4 warps, and the
// tile repeats (8 registers per thread). The module records warps, threads per warp and target,
// and CTAs per program where they are more than one (the second run: 2, layouts unchanged).
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32}
// CHECK-LABEL: func.func @range_1d
// CHECK: "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #tilegpu.blocked<[1], [32], [4], [0]>>
// W8: module attributes {tilegpu.num_ctas = 2 : i32, tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32}
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

// -----

// A TMA load becomes its copy into shared memory, completed on an mbarrier of its own: the
// barrier (one i64) is allocated and initialised for one arrival, the buffer gets the
// nvmma_shared layout of the load's swizzle (128 bytes of f16: 64-element column blocks), the
// copy takes the map, the barrier, the buffer and the offsets as they were, every thread waits
// for phase 0, reads the buffer into the default layout of the result, and the barrier is
// invalidated. The users of the load read the local_load; no tile.tma_load is left.
// CHECK-LABEL: func.func @tma_load
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[O0:%[^:]*]]: i32, [[O1:%[^:]*]]: i32) -> tensor<64x64xf16, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
// CHECK-NEXT: [[BAR:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
// CHECK-NEXT: "tilegpu.init_barrier"([[BAR]]) {count = 1 : i32} : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
// CHECK-NEXT: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"([[MAP]], [[BAR]], [[BUF]], [[O0]], [[O1]]) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>, i32, i32) -> ()
// CHECK-NEXT: [[PHASE:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: "tilegpu.wait_barrier"([[BAR]], [[PHASE]]) : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, i32) -> ()
// CHECK-NEXT: [[X:%.*]] = "tilegpu.local_load"([[BUF]]) : (!tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>) -> tensor<64x64xf16, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
// CHECK-NEXT: "tilegpu.inval_barrier"([[BAR]]) : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
// CHECK-NEXT: [[Y:%.*]] = arith.addf [[X]], [[X]] : tensor<64x64xf16, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
// CHECK-NEXT: return [[Y]]
// W8-LABEL: func.func @tma_load
// W8: "tilegpu.local_load"({{%.*}}) : {{.*}} -> tensor<64x64xf16, #tilegpu.blocked<[1, 1], [1, 32], [4, 2], [1, 0]>>
func.func @tma_load(%map: !llvm.ptr, %o0: i32, %o1: i32) -> tensor<64x64xf16> {
  %x = "tile.tma_load"(%map, %o0, %o1) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %y = arith.addf %x, %x : tensor<64x64xf16>
  return %y : tensor<64x64xf16>
}

// -----

// The layout follows the load's swizzle and element width: 64-byte swizzle of f32
// (16-element column blocks), 32-byte swizzle of i8 in 3-D (order [2, 1, 0]: the last
// dimension is the fastest). Each load gets a barrier of its own, and the offsets keep their
// order (outermost first).
// CHECK-LABEL: func.func @tma_load_layouts
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[A:%[^:]*]]: i32, [[B:%[^:]*]]: i32, [[C:%[^:]*]]: i32)
// CHECK: [[BAR0:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[1], i64,
// CHECK: [[BUF0:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[32, 16], f32, #tilegpu.nvmma_shared<64 : i32, 32 : i32, [1, 0]>, true>
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"([[MAP]], [[BAR0]], [[BUF0]], [[B]], [[A]])
// CHECK: "tilegpu.local_load"([[BUF0]]) : {{.*}} -> tensor<32x16xf32, #tilegpu.blocked<[1, 1], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: "tilegpu.inval_barrier"([[BAR0]])
// CHECK-NEXT: [[BAR1:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[1], i64,
// CHECK-NEXT: "tilegpu.init_barrier"([[BAR1]]) {count = 1 : i32}
// CHECK-NEXT: [[BUF1:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2, 8, 32], i8, #tilegpu.nvmma_shared<32 : i32, 8 : i32, [2, 1, 0]>, true>
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"([[MAP]], [[BAR1]], [[BUF1]], [[A]], [[B]], [[C]])
// CHECK: "tilegpu.wait_barrier"([[BAR1]], {{%.*}})
// CHECK-NEXT: "tilegpu.local_load"([[BUF1]]) : {{.*}} -> tensor<2x8x32xi8, #tilegpu.blocked<[1, 1, 1], [1, 1, 32], [1, 4, 1], [2, 1, 0]>>
// CHECK-NEXT: "tilegpu.inval_barrier"([[BAR1]])
// CHECK-NOT: tile.tma_load
// CHECK: return
func.func @tma_load_layouts(%map: !llvm.ptr, %a: i32, %b: i32, %c: i32) {
  %x = "tile.tma_load"(%map, %b, %a) {swizzle = 64 : i32} : (!llvm.ptr, i32, i32) -> tensor<32x16xf32>
  %y = "tile.tma_load"(%map, %a, %b, %c) {swizzle = 32 : i32} : (!llvm.ptr, i32, i32, i32) -> tensor<2x8x32xi8>
  return
}

// -----

// A TMA store becomes the value written to shared memory, fenced for the async proxy, copied
// out by TMA and waited for: the buffer is an immutable one (local_alloc of the value) in the
// nvmma_shared layout of the store's swizzle (128 bytes of f16: 64-element column blocks), the
// fence follows it, the copy takes the map, the buffer and the offsets as they were, and the
// wait lets no store group still read the buffer (pendings 0). No tile.tma_store is left.
// CHECK-LABEL: func.func @tma_store
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[X:%[^:]*]]: tensor<64x64xf16, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>, [[O0:%[^:]*]]: i32, [[O1:%[^:]*]]: i32)
// CHECK-NEXT: [[Y:%.*]] = arith.addf [[X]], [[X]] : tensor<64x64xf16, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
// CHECK-NEXT: [[BUF:%.*]] = "tilegpu.local_alloc"([[Y]]) : (tensor<64x64xf16, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
// CHECK-NEXT: "tilegpu.fence_async_shared"() : () -> ()
// CHECK-NEXT: "tilegpu.async_tma_copy_local_to_global"([[MAP]], [[BUF]], [[O0]], [[O1]]) : (!llvm.ptr, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, i32, i32) -> ()
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
// CHECK-NEXT: return
// CHECK-NOT: tile.tma_store
// W8-LABEL: func.func @tma_store
// W8: "tilegpu.local_alloc"({{%.*}}) : (tensor<64x64xf16, #tilegpu.blocked<[1, 1], [1, 32], [4, 2], [1, 0]>>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
func.func @tma_store(%map: !llvm.ptr, %x: tensor<64x64xf16>, %o0: i32, %o1: i32) {
  %y = arith.addf %x, %x : tensor<64x64xf16>
  "tile.tma_store"(%map, %y, %o0, %o1) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16>, i32, i32) -> ()
  return
}

// -----

// A TMA reduction (desc.atomic_add) is a store's sequence with async_tma_reduce in place of
// the copy, its kind kept.
// CHECK-LABEL: func.func @tma_reduce
// CHECK: [[BUF:%.*]] = "tilegpu.local_alloc"
// CHECK-NEXT: "tilegpu.fence_async_shared"() : () -> ()
// CHECK-NEXT: "tilegpu.async_tma_reduce"(%arg0, [[BUF]], %arg2, %arg3) {kind = "add"}
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
// CHECK-NOT: tile.tma_reduce
func.func @tma_reduce(%map: !llvm.ptr, %x: tensor<64x32xf32>, %o0: i32, %o1: i32) {
  "tile.tma_reduce"(%map, %x, %o0, %o1) {swizzle = 128 : i32, kind = "add"} : (!llvm.ptr, tensor<64x32xf32>, i32, i32) -> ()
  return
}

// -----

// The buffer's layout follows the store's swizzle and element width, as a load's does: 64-byte
// swizzle of f32 (16-element column blocks), 32-byte swizzle of i8 in 3-D (order [2, 1, 0]).
// Each store gets a buffer, a fence and a wait of its own, in program order, and the offsets
// keep their order (outermost first).
// CHECK-LABEL: func.func @tma_store_layouts
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[X:%[^:]*]]: tensor<32x16xf32, {{.*}}>, [[Y:%[^:]*]]: tensor<2x8x32xi8, {{.*}}>, [[A:%[^:]*]]: i32, [[B:%[^:]*]]: i32, [[C:%[^:]*]]: i32)
// CHECK-NEXT: [[BUF0:%.*]] = "tilegpu.local_alloc"([[X]]) : {{.*}} -> !tilegpu.memdesc<[32, 16], f32, #tilegpu.nvmma_shared<64 : i32, 32 : i32, [1, 0]>, false>
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK-NEXT: "tilegpu.async_tma_copy_local_to_global"([[MAP]], [[BUF0]], [[B]], [[A]])
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: [[BUF1:%.*]] = "tilegpu.local_alloc"([[Y]]) : {{.*}} -> !tilegpu.memdesc<[2, 8, 32], i8, #tilegpu.nvmma_shared<32 : i32, 8 : i32, [2, 1, 0]>, false>
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK-NEXT: "tilegpu.async_tma_copy_local_to_global"([[MAP]], [[BUF1]], [[A]], [[B]], [[C]])
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: return
// CHECK-NOT: tile.tma_store
func.func @tma_store_layouts(%map: !llvm.ptr, %x: tensor<32x16xf32>, %y: tensor<2x8x32xi8>, %a: i32, %b: i32, %c: i32) {
  "tile.tma_store"(%map, %x, %b, %a) {swizzle = 64 : i32} : (!llvm.ptr, tensor<32x16xf32>, i32, i32) -> ()
  "tile.tma_store"(%map, %y, %a, %b, %c) {swizzle = 32 : i32} : (!llvm.ptr, tensor<2x8x32xi8>, i32, i32, i32) -> ()
  return
}
