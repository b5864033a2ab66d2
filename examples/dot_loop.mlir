// A loop feeding tl.dot at the tilegpu stage, as the layout passes leave it before
// tilegpu-pipeline: each trip loads a 64x32 tile of A and a 32x64 tile of B, stages them in
// shared memory and multiplies them on mma.sync layouts. In Python:
//
//   for k in range(n):
//       acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
//       a_ptrs += 32
//       b_ptrs += 32 * 64
//
// Try: tilec-opt examples/dot_loop.mlir --tilegpu-pipeline=num-stages=3
// (the loads become cp.async copies into a 3-slot buffer, two trips ahead of the dot).

#l = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#s = #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>
#sb = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
#da = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#db = #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @dot_loop(%pa0: tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, %pb0: tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %inca = arith.constant dense<32> : tensor<64x32xi32, #l>
    %incb = arith.constant dense<2048> : tensor<32x64xi32, #l>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>) : i32 {
      %a = "tile.load"(%pa) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>) -> tensor<64x32xf16, #l>
      %b = "tile.load"(%pb) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>) -> tensor<32x64xf16, #l>
      %sa = "tilegpu.local_alloc"(%a) : (tensor<64x32xf16, #l>) -> !tilegpu.memdesc<[64, 32], f16, #s, false>
      %sb = "tilegpu.local_alloc"(%b) : (tensor<32x64xf16, #l>) -> !tilegpu.memdesc<[32, 64], f16, #sb, false>
      %fa = "tilegpu.local_load"(%sa) : (!tilegpu.memdesc<[64, 32], f16, #s, false>) -> tensor<64x32xf16, #da>
      %fb = "tilegpu.local_load"(%sb) : (!tilegpu.memdesc<[32, 64], f16, #sb, false>) -> tensor<32x64xf16, #db>
      %d = "tile.dot"(%fa, %fb, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #da>, tensor<32x64xf16, #db>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %na = "tile.addptr"(%pa, %inca) : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<64x32xi32, #l>) -> tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>
      %nb = "tile.addptr"(%pb, %incb) : (tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>, tensor<32x64xi32, #l>) -> tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>
      scf.yield %d, %na, %nb : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>
    }
    return %r#0 : tensor<64x64xf32, #mma>
  }
}
