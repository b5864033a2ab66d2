// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: per-element values and layout changes that stay inside a thread
// (python/tilec/lowering/elementwise.py).

// expand_dims and broadcast keep every element in its thread: in
// #blocked<[1, 4], [32, 1], [4, 1], [1, 0]> over 128x4, a thread holds row t and all 4 columns,
// so the row range (slice 1) expanded and broadcast is one value in all 4 registers, and the
// column range (slice 0) the constants 0..3: offsets 4 x row + column take no shared memory
// and no barrier, and the 4 contiguous elements store as one vector.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 0 : i32
// CHECK-LABEL: gpu.func @outer_offsets
// CHECK-NOT: gpu.barrier
// CHECK: [[ROW:%.*]] = arith.addi {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK: [[C4:%.*]] = arith.constant 4 : i32
// CHECK-NEXT: [[R0:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NEXT: [[R1:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NEXT: [[R2:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NEXT: [[R3:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NEXT: arith.addi [[R0]], %c0_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R1]], %c1_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R2]], %c2_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R3]], %c3_i32{{[_0-9]*}} : i32
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NEXT: gpu.return
#p = #tilegpu.blocked<[1, 4], [32, 1], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @outer_offsets(%out: !tile.ptr<i32, 1 : i32> {tile.divisibility = 16 : i32}) {
    %rows = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #tilegpu.slice<1 : i32, #p>>
    %cols = "tile.make_range"() {end = 4 : i32, start = 0 : i32} : () -> tensor<4xi32, #tilegpu.slice<0 : i32, #p>>
    %r2 = "tile.expand_dims"(%rows) {axis = 1 : i32} : (tensor<128xi32, #tilegpu.slice<1 : i32, #p>>) -> tensor<128x1xi32, #p>
    %c2 = "tile.expand_dims"(%cols) {axis = 0 : i32} : (tensor<4xi32, #tilegpu.slice<0 : i32, #p>>) -> tensor<1x4xi32, #p>
    %rb = "tile.broadcast"(%r2) : (tensor<128x1xi32, #p>) -> tensor<128x4xi32, #p>
    %cb = "tile.broadcast"(%c2) : (tensor<1x4xi32, #p>) -> tensor<128x4xi32, #p>
    %c4 = arith.constant dense<4> : tensor<128x4xi32, #p>
    %rs = arith.muli %rb, %c4 : tensor<128x4xi32, #p>
    %offs = arith.addi %rs, %cb : tensor<128x4xi32, #p>
    %ps = "tile.splat"(%out) : (!tile.ptr<i32, 1 : i32>) -> tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>
    %pp = "tile.addptr"(%ps, %offs) : (tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>, tensor<128x4xi32, #p>) -> tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>
    "tile.store"(%pp, %offs) {cache = "none", evict = "evict_normal"} : (tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>, tensor<128x4xi32, #p>) -> ()
    return
  }
}
