// Vector addition in the tile dialect, as the frontend will emit it for
//
//   @tilec.jit
//   def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
//       offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
//       mask = offs < n
//       x = tl.load(x_ptr + offs, mask=mask)
//       y = tl.load(y_ptr + offs, mask=mask)
//       tl.store(out_ptr + offs, x + y, mask=mask)
//
// Try: tilec-opt examples/vector_add.mlir --tile-combine --mlir-print-ir-after-all
module {
  func.func @add(%x: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32},
                 %y: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32},
                 %out: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32},
                 %n: i32) {
    %c1024 = arith.constant 1024 : i32
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %start = arith.muli %pid, %c1024 : i32
    %range = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
    %starts = "tile.splat"(%start) : (i32) -> tensor<1024xi32>
    %offs = arith.addi %starts, %range : tensor<1024xi32>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
    %xp = "tile.addptr"(%xs, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
    %xv = "tile.load"(%xp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi1>) -> tensor<1024xf32>
    %ys = "tile.splat"(%y) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
    %yp = "tile.addptr"(%ys, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
    %yv = "tile.load"(%yp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi1>) -> tensor<1024xf32>
    %sum = arith.addf %xv, %yv : tensor<1024xf32>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
    // Pointer arithmetic in two steps, as user code often writes it: tile-combine folds it.
    %op0 = "tile.addptr"(%os, %starts) : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
    %op = "tile.addptr"(%op0, %range) : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
    // A mask known to be all true is dropped.
    %all = arith.constant dense<true> : tensor<1024xi1>
    %m2 = arith.andi %mask, %all : tensor<1024xi1>
    "tile.store"(%op, %sum, %m2) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
    // Unused: erased.
    %unused = "tile.num_programs"() {axis = 0 : i32} : () -> i32
    return
  }
}
