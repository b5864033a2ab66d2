// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: tensors carried through scf control flow as registers
// (python/tilec/lowering/control_flow.py).

// A tensor carried by scf.for becomes the thread's registers: 256 fp32 in 4 warps are 2 f32
// iter_args, updated by 2 scalar addf, stored from the loop's 2 results.
// CHECK-LABEL: gpu.func @loop
// CHECK-SAME: ([[OUT:%[^:]*]]: !llvm.ptr<1>, [[X:%[^:]*]]: f32, [[N:%[^:]*]]: i32)
// CHECK: [[INIT:%.*]] = arith.constant 0.000000e+00 : f32
// CHECK: [[R:%.*]]:2 = scf.for {{%.*}} = {{%.*}} to [[N]] step {{%.*}} iter_args([[A0:%.*]] = [[INIT]], [[A1:%.*]] = [[INIT]]) -> (f32, f32) : i32 {
// CHECK-NEXT: [[B0:%.*]] = arith.addf [[A0]], [[X]] : f32
// CHECK-NEXT: [[B1:%.*]] = arith.addf [[A1]], [[X]] : f32
// CHECK-NEXT: scf.yield [[B0]], [[B1]] : f32, f32
// CHECK-NEXT: }
// CHECK: llvm.store [[R]]#0, {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT: llvm.store [[R]]#1, {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @loop(%out: !tile.ptr<f32, 1 : i32>, %x: f32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<256xf32, #b>
    %xs = "tile.splat"(%x) : (f32) -> tensor<256xf32, #b>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<256xf32, #b>) : i32 {
      %next = arith.addf %acc, %xs : tensor<256xf32, #b>
      scf.yield %next : tensor<256xf32, #b>
    }
    %ps = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%pp, %r) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xf32, #b>) -> ()
    return
  }
}
