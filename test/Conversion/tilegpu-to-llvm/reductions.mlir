// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: tile.reduce: in-thread, warp shuffles, across warps through shared
// memory (python/tilec/lowering/reductions.py).

// A sum of 512 fp32 over 4 warps (4 registers per thread): the thread adds its 4 registers,
// the warp combines with butterfly shuffles over lane bits 1, 2, 4, 8, 16, each warp writes its
// partial to its slot of @global_smem (the first use of shared memory: no barrier before it),
// waits at a barrier, and every thread adds the 4 slots in order; thread 0 stores the scalar.
// The module records the 16 bytes the reduction needs.
// CHECK: tilegpu.shared_bytes = 16 : i32
// CHECK-LABEL: gpu.func @sum_512
// CHECK: [[V:%.*]] = llvm.load {{%.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: llvm.extractelement [[V]]
// CHECK-COUNT-3: arith.addf
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c1_i32{{[_0-9]*}},
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c2_i32{{[_0-9]*}},
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c4_i32{{[_0-9]*}},
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c8_i32{{[_0-9]*}},
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c16_i32{{[_0-9]*}},
// CHECK: [[WARP_SUM:%.*]] = arith.addf
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store [[WARP_SUM]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK: [[TOTAL:%.*]] = arith.addf
// CHECK-NEXT: [[BITS:%.*]] = llvm.bitcast [[TOTAL]] : f32 to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" {{%.*}}, %arg1, [[BITS]]
// CHECK-NEXT: gpu.return
#b = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @sum_512(%x: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %rg = "tile.make_range"() {end = 512 : i32, start = 0 : i32} : () -> tensor<512xi32, #b>
    %ps = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<512x!tile.ptr<f32, 1 : i32>, #b>, tensor<512xi32, #b>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%pp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<512x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<512xf32, #b>
    %s = "tile.reduce"(%v) ({
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512xf32, #b>) -> f32
    "tile.store"(%out, %s) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
    return
  }
}
