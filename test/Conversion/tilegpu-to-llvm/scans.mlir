// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: tile.scan and tile.sort through shared memory
// (python/tilec/lowering/scans.py).

// Inclusive scans (cumsum) along axis 0 of 4x32 fp32, rows over the 4 warps, one register per
// thread: Hillis-Steele doubling through shared memory, log2(4) = 2 steps. A step writes the
// thread's value at its row-major index (32 x row + column), waits at a barrier, reads the
// element `step` rows earlier (32 x step before; for the reverse scan, later: + 32 x step) where
// that row exists, and adds it. A barrier separates a step's reads from the next step's writes;
// the kernel's first write has none before it, and tilegpu-membar puts one between the two
// scans, which reuse the same 128 slots of 8 bytes.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 1024 : i32
// CHECK-LABEL: gpu.func @cumsum
// CHECK: [[X:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: gpu.barrier
// CHECK: [[A:%.*]] = llvm.getelementptr [[SCR:%.*]]{{\[}}[[I:%.*]]{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[HAS:%.*]] = arith.cmpi sge, [[ROW:%.*]], %c1_i32{{[_0-9]*}} : i32
// CHECK: [[J:%.*]] = arith.subi [[I]], %c32_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[SAFE:%.*]] = arith.select [[HAS]], [[J]], [[I]] : i32
// CHECK-NEXT: [[B:%.*]] = llvm.getelementptr [[SCR]]{{\[}}[[SAFE]]{{\]}}
// CHECK-NEXT: [[E:%.*]] = llvm.load [[B]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: [[SUM:%.*]] = arith.addf [[E]], [[X]] : f32
// CHECK-NEXT: [[V1:%.*]] = arith.select [[HAS]], [[SUM]], [[X]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store [[V1]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: arith.subi [[I]], %c64_i32{{[_0-9]*}} : i32
// CHECK: [[V2:%.*]] = arith.select {{%.*}}, {{%.*}}, [[V1]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store [[V2]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi slt, {{%.*}}, %c4_i32{{[_0-9]*}} : i32
// CHECK: arith.addi {{%.*}}, %c32_i32{{[_0-9]*}} : i32
// CHECK: arith.addi {{%.*}}, %c64_i32{{[_0-9]*}} : i32
// CHECK: [[R:%.*]] = arith.select {{.*}} : f32
// CHECK-NEXT: llvm.store [[R]], {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @cumsum(%in: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>
    %x = "tile.load"(%ps) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<4x32xf32, #b>
    %f = "tile.scan"(%x) ({
    ^bb0(%a: f32, %c: f32):
      %s = arith.addf %a, %c : f32
      gpu.yield %s : f32
    }) {axis = 0 : i32, reverse = false, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x32xf32, #b>) -> tensor<4x32xf32, #b>
    %r = "tile.scan"(%f) ({
    ^bb0(%a: f32, %c: f32):
      %s = arith.addf %a, %c : f32
      gpu.yield %s : f32
    }) {axis = 0 : i32, reverse = true, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x32xf32, #b>) -> tensor<4x32xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%os, %r) {cache = "none", evict = "evict_normal"} : (tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>, tensor<4x32xf32, #b>) -> ()
    return
  }
}

// -----

// A sort of 32 rows of 4 fp32 along axis 1 (the 4 columns over 4 lanes): a bitonic network of
// 3 compare-exchange stages, (k, j) = (2, 1), (4, 2), (4, 1). A stage writes the thread's value
// at its row-major index, waits at a barrier, and reads its partner at position XOR j (index +
// (partner - position)); a barrier separates a stage's reads from the next one's writes, none
// precedes the first. Both threads of a pair order it as (first = lower position, second) and
// swap when `second olt first`, so they agree even when neither is smaller (NaN, -0.0 vs 0.0)
// and no element is lost; the thread keeps the smaller when bit j of its position is clear in
// an ascending block (bit k clear), the larger otherwise.
// Slots are 8 bytes: 1024 bytes.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 1024 : i32
// CHECK-LABEL: gpu.func @sort_rows
// CHECK: [[X:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: gpu.barrier
// CHECK: [[A:%.*]] = llvm.getelementptr [[SMEM:%.*]]{{\[}}[[I:%.*]]{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[PARTNER:%.*]] = arith.xori [[POS:%.*]], %c1_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[D:%.*]] = arith.subi [[PARTNER]], [[POS]] : i32
// CHECK: [[J:%.*]] = arith.addi [[I]], {{%.*}} : i32
// CHECK-NEXT: [[B:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[J]]{{\]}}
// CHECK-NEXT: [[O:%.*]] = llvm.load [[B]] : !llvm.ptr<3> -> f32
// CHECK: [[LOWER:%.*]] = arith.cmpi eq, {{%.*}} : i32
// CHECK: arith.andi [[POS]], %c2_i32{{[_0-9]*}} : i32
// CHECK: [[FIRST:%.*]] = arith.select [[LOWER]], [[X]], [[O]] : f32
// CHECK-NEXT: [[SECOND:%.*]] = arith.select [[LOWER]], [[O]], [[X]] : f32
// CHECK-NEXT: [[LT:%.*]] = arith.cmpf olt, [[SECOND]], [[FIRST]] : f32
// CHECK-NEXT: [[MIN:%.*]] = arith.select [[LT]], [[SECOND]], [[FIRST]] : f32
// CHECK-NEXT: [[MAX:%.*]] = arith.select [[LT]], [[FIRST]], [[SECOND]] : f32
// CHECK-NEXT: [[S1:%.*]] = arith.select {{%.*}}, [[MIN]], [[MAX]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store [[S1]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: arith.xori [[POS]], %c2_i32{{[_0-9]*}} : i32
// CHECK: arith.andi [[POS]], %c4_i32{{[_0-9]*}} : i32
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: arith.xori [[POS]], %c1_i32{{[_0-9]*}} : i32
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @sort_rows(%in: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<32x4x!tile.ptr<f32, 1 : i32>, #b>
    %x = "tile.load"(%ps) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x4x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<32x4xf32, #b>
    %s = "tile.sort"(%x) {axis = 1 : i32, descending = false} : (tensor<32x4xf32, #b>) -> tensor<32x4xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<32x4x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%os, %s) {cache = "none", evict = "evict_normal"} : (tensor<32x4x!tile.ptr<f32, 1 : i32>, #b>, tensor<32x4xf32, #b>) -> ()
    return
  }
}
