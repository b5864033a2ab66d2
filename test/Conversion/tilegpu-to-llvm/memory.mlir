// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: global loads and stores: vectors, masks, `other`, replicated
// elements (python/tilec/lowering/memory.py).

// Vector add as tilegpu-coalesce leaves it: 1024 fp32 in #tilegpu.blocked<[4], [32], [4], [0]>,
// two runs of 4 contiguous elements per thread (at 4t and 4t + 512). Each run is one 16-byte
// vector access; a masked one is guarded by the mask of the run's first element: a load yields
// zeros when masked off, a store is one predicated `@p st.global.v4.b32` (no branch around
// it). program_id is the block id.
// CHECK-LABEL: gpu.func @vector_add
// CHECK-SAME: ([[X:%[^:]*]]: !llvm.ptr<1>, [[Y:%[^:]*]]: !llvm.ptr<1>, [[OUT:%[^:]*]]: !llvm.ptr<1>, [[N:%[^:]*]]: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: [[BID:%.*]] = gpu.block_id x
// CHECK-NEXT: [[PID:%.*]] = arith.index_cast [[BID]] : index to i32
// CHECK-NEXT: [[START:%.*]] = arith.muli [[PID]], {{%.*}} : i32
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[R0:%.*]] = arith.addi [[TOFF:%.*]], [[C0]] : i32
// CHECK-NEXT: [[C1:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[R1:%.*]] = arith.addi [[TOFF]], [[C1]] : i32
// CHECK: [[C512:%.*]] = arith.constant 512 : i32
// CHECK-NEXT: [[R4:%.*]] = arith.addi [[TOFF]], [[C512]] : i32
// CHECK: [[OFF0:%.*]] = arith.addi [[START]], [[R0]] : i32
// CHECK: [[OFF4:%.*]] = arith.addi [[START]], [[R4]] : i32
// CHECK: [[M0:%.*]] = arith.cmpi slt, [[OFF0]], [[N]] : i32
// CHECK: [[M4:%.*]] = arith.cmpi slt, [[OFF4]], [[N]] : i32
// CHECK: [[XP0:%.*]] = llvm.getelementptr [[X]]{{\[}}[[OFF0]]{{\]}}
// CHECK: [[XP4:%.*]] = llvm.getelementptr [[X]]{{\[}}[[OFF4]]{{\]}}
// CHECK: [[XV0:%.*]] = scf.if [[M0]] -> (vector<4xf32>) {
// CHECK-NEXT: [[L:%.*]] = llvm.load [[XP0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NEXT: scf.yield [[L]] : vector<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: [[ZERO:%.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT: scf.yield [[ZERO]] : vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: [[E0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[X0:%.*]] = llvm.extractelement [[XV0]]{{\[}}[[E0]] : i32] : vector<4xf32>
// CHECK: [[E3:%.*]] = arith.constant 3 : i32
// CHECK-NEXT: [[X3:%.*]] = llvm.extractelement [[XV0]]{{\[}}[[E3]] : i32] : vector<4xf32>
// CHECK-NEXT: [[XV4:%.*]] = scf.if [[M4]] -> (vector<4xf32>) {
// CHECK-NEXT: llvm.load [[XP4]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: [[YP0:%.*]] = llvm.getelementptr [[Y]]{{\[}}[[OFF0]]{{\]}}
// CHECK: [[YV0:%.*]] = scf.if [[M0]] -> (vector<4xf32>) {
// CHECK-NEXT: llvm.load [[YP0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: [[Y0:%.*]] = llvm.extractelement [[YV0]]
// CHECK: [[S0:%.*]] = arith.addf [[X0]], [[Y0]] : f32
// CHECK-COUNT-7: arith.addf {{.*}} : f32
// CHECK: [[OP0:%.*]] = llvm.getelementptr [[OUT]]{{\[}}[[OFF0]]{{\]}}
// CHECK: [[W0:%.*]] = llvm.bitcast [[S0]] : f32 to i32
// CHECK-NOT: scf.if
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.v4.b32 [$1], {$2, $3, $4, $5};", "b,l,r,r,r,r" [[M0]], [[OP0]], [[W0]], {{%.*}}, {{%.*}}, {{%.*}} : (i1, !llvm.ptr<1>, i32, i32, i32, i32) -> !llvm.void
// CHECK-NOT: scf.if
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.v4.b32 [$1], {$2, $3, $4, $5};", "b,l,r,r,r,r" [[M4]],
// CHECK-NEXT: gpu.return
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @vector_add(%x: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %c1024 = arith.constant 1024 : i32
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %start = arith.muli %pid, %c1024 : i32
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b4>
    %starts = "tile.splat"(%start) : (i32) -> tensor<1024xi32, #b4>
    %offs = arith.addi %starts, %range : tensor<1024xi32, #b4>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32, #b4>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #b4>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %xp = "tile.addptr"(%xs, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi32, #b4>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %xv = "tile.load"(%xp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi1, #b4>) -> tensor<1024xf32, #b4>
    %ys = "tile.splat"(%y) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %yp = "tile.addptr"(%ys, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi32, #b4>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %yv = "tile.load"(%yp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi1, #b4>) -> tensor<1024xf32, #b4>
    %sum = arith.addf %xv, %yv : tensor<1024xf32, #b4>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %op = "tile.addptr"(%os, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi32, #b4>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    "tile.store"(%op, %sum, %mask) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xf32, #b4>, tensor<1024xi1, #b4>) -> ()
    return
  }
}

// -----

// Without a mask, the same accesses are plain vector loads and stores; with `other`, a masked
// scalar load (one element per thread and run) yields the other value when masked off.
// CHECK-LABEL: gpu.func @unmasked_and_other
// CHECK-SAME: ([[P:%[^:]*]]: !llvm.ptr<1>, [[Q:%[^:]*]]: !llvm.ptr<1>, [[N:%[^:]*]]: i32, [[OTHER:%[^:]*]]: f32)
// CHECK: [[P0:%.*]] = llvm.getelementptr [[P]]
// CHECK-NOT: scf.if
// CHECK: [[V:%.*]] = llvm.load [[P0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: llvm.extractelement [[V]]{{\[}}[[C0]] : i32] : vector<4xf32>
// CHECK-NOT: scf.if
// CHECK: llvm.store {{%.*}}, [[P0]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: [[R:%.*]] = arith.addi
// CHECK-NEXT: [[M:%.*]] = arith.cmpi slt, [[R]], [[N]] : i32
// CHECK-NEXT: [[Q0:%.*]] = llvm.getelementptr [[Q]]
// CHECK-NEXT: [[S:%.*]] = scf.if [[M]] -> (f32) {
// CHECK-NEXT: [[L:%.*]] = llvm.load [[Q0]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT: scf.yield [[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield [[OTHER]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[SB:%.*]] = llvm.bitcast [[S]] : f32 to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" [[M]], [[Q0]], [[SB]]
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @unmasked_and_other(%p: !tile.ptr<f32, 1 : i32>, %q: !tile.ptr<f32, 1 : i32>, %n: i32, %other: f32) {
    %r4 = "tile.make_range"() {end = 512 : i32, start = 0 : i32} : () -> tensor<512xi32, #b4>
    %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b4>
    %pp = "tile.addptr"(%ps, %r4) : (tensor<512x!tile.ptr<f32, 1 : i32>, #b4>, tensor<512xi32, #b4>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b4>
    %v = "tile.load"(%pp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<512x!tile.ptr<f32, 1 : i32>, #b4>) -> tensor<512xf32, #b4>
    "tile.store"(%pp, %v) {cache = "none", evict = "evict_normal"} : (tensor<512x!tile.ptr<f32, 1 : i32>, #b4>, tensor<512xf32, #b4>) -> ()
    %r1 = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b1>
    %ns = "tile.splat"(%n) : (i32) -> tensor<128xi32, #b1>
    %m = arith.cmpi slt, %r1, %ns : tensor<128xi32, #b1>
    %qs = "tile.splat"(%q) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b1>
    %qq = "tile.addptr"(%qs, %r1) : (tensor<128x!tile.ptr<f32, 1 : i32>, #b1>, tensor<128xi32, #b1>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b1>
    %os = "tile.splat"(%other) : (f32) -> tensor<128xf32, #b1>
    %w = "tile.load"(%qq, %m, %os) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b1>, tensor<128xi1, #b1>, tensor<128xf32, #b1>) -> tensor<128xf32, #b1>
    "tile.store"(%qq, %w, %m) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b1>, tensor<128xf32, #b1>, tensor<128xi1, #b1>) -> ()
    return
  }
}

// -----

// 64 elements over 128 threads: warps 2 and 3 hold copies of warps 0 and 1's elements, so only
// threads whose replicated warp bit is 0 store (one predicate, computed once).
// CHECK-LABEL: gpu.func @replicated_store
// CHECK: [[WARP:%.*]] = nvvm.shfl.sync idx {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}} : i32 -> i32
// CHECK: [[BIT:%.*]] = arith.andi [[WARP]], {{%.*}} : i32
// CHECK: [[OWNER:%.*]] = arith.cmpi eq, [[BIT]], {{%.*}} : i32
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" [[OWNER]],
// CHECK-NOT: st.global
// CHECK: gpu.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @replicated_store(%out: !tile.ptr<f32, 1 : i32>, %x: f32) {
    %xs = "tile.splat"(%x) : (f32) -> tensor<64xf32, #b>
    %ps = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<64x!tile.ptr<f32, 1 : i32>, #b>, tensor<64xi32, #b>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%pp, %xs) {cache = "none", evict = "evict_normal"} : (tensor<64x!tile.ptr<f32, 1 : i32>, #b>, tensor<64xf32, #b>) -> ()
    return
  }
}

// -----

// A cache modifier or an eviction policy makes the access the PTX instruction that has it
// (inline asm: LLVM's loads and stores cannot carry them): 4 fp32 per thread as one
// ld.global.cg.v4.b32 into four 32-bit registers, stored with st.global.L1::evict_last (an
// eviction policy wins over a cache operator: PTX takes one or the other). A scalar store
// (every thread holds it) is thread 0's.
// CHECK-LABEL: gpu.func @hinted
// CHECK: llvm.inline_asm has_side_effects "ld.global.cg.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l" {{%.*}} : (!llvm.ptr<1>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.inline_asm has_side_effects "st.global.L1::evict_last.v4.b32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r"
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" {{%.*}}, %arg1,
#b = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @hinted(%x: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %s: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 512 : i32, start = 0 : i32} : () -> tensor<512xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<512x!tile.ptr<f32, 1 : i32>, #b>, tensor<512xi32, #b>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%pp) {cache = "cg", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<512x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<512xf32, #b>
    "tile.store"(%pp, %v) {cache = "cs", evict = "evict_last"} : (tensor<512x!tile.ptr<f32, 1 : i32>, #b>, tensor<512xf32, #b>) -> ()
    %c = arith.constant 1.0 : f32
    "tile.store"(%s, %c) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
    return
  }
}
