// RUN: tilec-opt %s --convert-tilegpu-to-llvm | filecheck %s --check-prefix=SEPARATE
// RUN: tilec-opt %s --convert-tilegpu-to-llvm=enable-fp-fusion=true | filecheck %s --check-prefix=FUSED
// convert-tilegpu-to-llvm{enable-fp-fusion}: whether a float multiply and the add of its product
// may become one fma (passes/tilegpu_to_llvm.py). The compiler turns it on unless a launch says
// enable_fp_fusion=False.

// a * b + c - a over 128 fp32 in one warp (4 registers per thread): with the option every
// mulf, addf and subf, also the adds a tile.reduce lowers to, carries `contract` (kept beside
// the flags it had: afn stays), while divf and integer ops are left alone; without it no op
// gets the flag, so each rounds on its own as in the interpreter.
// SEPARATE-LABEL: gpu.func @axpb
// SEPARATE-NOT: contract
// SEPARATE: gpu.return
// FUSED-LABEL: gpu.func @axpb
// FUSED: arith.mulf {{%.*}}, {{%.*}} fastmath<contract,afn> : f32
// FUSED: arith.addf {{%.*}}, {{%.*}} fastmath<contract> : f32
// FUSED: arith.subf {{%.*}}, {{%.*}} fastmath<contract> : f32
// FUSED: arith.divf {{%.*}}, {{%.*}} fastmath<afn> : f32
// FUSED: arith.addi {{%.*}}, {{%.*}} : i32
// FUSED: arith.addf {{%.*}}, {{%.*}} fastmath<contract> : f32
// FUSED: gpu.return
#b = #tilegpu.blocked<[4], [32], [1], [0]>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @axpb(%x: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>, %iout: !tile.ptr<i32, 1 : i32>) {
    %i = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    %xp = "tile.addptr"(%xs, %i) : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xi32, #b>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    %a = "tile.load"(%xp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<128xf32, #b>
    %b = arith.constant dense<2.0> : tensor<128xf32, #b>
    %c = arith.constant dense<0.5> : tensor<128xf32, #b>
    %m = arith.mulf %a, %b fastmath<afn> : tensor<128xf32, #b>
    %s = arith.addf %m, %c : tensor<128xf32, #b>
    %d = arith.subf %s, %a : tensor<128xf32, #b>
    %q = arith.divf %d, %c fastmath<afn> : tensor<128xf32, #b>
    %j = arith.addi %i, %i : tensor<128xi32, #b>
    %r = "tile.reduce"(%q) ({
    ^bb0(%u: f32, %v: f32):
      %t = arith.addf %u, %v : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xf32, #b>) -> f32
    %ri = "tile.reduce"(%j) ({
    ^bb0(%u: i32, %v: i32):
      %t = arith.addi %u, %v : i32
      gpu.yield %t : i32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xi32, #b>) -> i32
    "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
    "tile.store"(%iout, %ri) {cache = "none", evict = "evict_normal"} : (!tile.ptr<i32, 1 : i32>, i32) -> ()
    return
  }
}
