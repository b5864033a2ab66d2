// RUN: not tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm 2>/dev/null | filecheck %s
// The chunks that lower produce no diagnostics; the one with an unsupported op produces exactly
// the error it expects (and makes the first RUN line exit non-zero, hence `not`).
// RUN: tilec-opt %s --split-input-file --verify-diagnostics --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm
// convert-tilegpu-to-llvm: tile.dot on tensor cores (mma.sync) and on FMAs, and the error for
// operands in layouts it cannot use (python/tilec/lowering/dot.py).

// An op the rules cannot lower is an error at its location saying why: a dot whose operands
// were not put in layouts holding its rows and columns (tilegpu-accelerate-matmul does that).
#b = #tilegpu.blocked<[1, 1], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @dot(%x: f16) {
    %a = "tile.splat"(%x) : (f16) -> tensor<16x16xf16, #b>
    %c = arith.constant dense<0.0> : tensor<16x16xf32, #b>
    // expected-error@+1 {{cannot lower 'tile.dot' yet: dot operands in #tilegpu.blocked<[1, 1], [2, 16], [4, 1], [1, 0]> / #tilegpu.blocked<[1, 1], [2, 16], [4, 1], [1, 0]> do not hold the rows and columns of #tilegpu.blocked<[1, 1], [2, 16], [4, 1], [1, 0]> (run tilegpu-accelerate-matmul)}}
    %d = "tile.dot"(%a, %a, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16, #b>, tensor<16x16xf16, #b>, tensor<16x16xf32, #b>) -> tensor<16x16xf32, #b>
    return
  }
}

// -----

// A dot on tensor cores, one warp, one m16n8k16 tile: A's 4 registers pack fp16 pairs along K
// (rows +0/+8, K offsets +0/+8), B's 2 pack pairs along K (+0/+8), the 4 accumulator values go
// in as C and come out of the result struct in the same order.
// CHECK-LABEL: gpu.func @mma_tile
// CHECK-COUNT-6: llvm.insertelement {{.*}} : vector<2xf16>
// CHECK: [[R:%.*]] = nvvm.mma.sync A[{{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}] B[{{%.*}}, {{%.*}}] C[{{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}]
// CHECK-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME: (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: llvm.extractvalue [[R]][0]
// CHECK-NEXT: llvm.extractvalue [[R]][1]
// CHECK-NEXT: llvm.extractvalue [[R]][2]
// CHECK-NEXT: llvm.extractvalue [[R]][3]
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
#mma = #tilegpu.mma<[2, 0], [1, 1], [16, 8]>
#da = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#db = #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @mma_tile(%x: f16, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<16x16xf16, #da>
    %b = "tile.splat"(%x) : (f16) -> tensor<16x8xf16, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16, #da>, tensor<16x8xf16, #db>, tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma>
    %s = "tile.reduce"(%d) ({
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<16x8xf32, #mma>) -> tensor<8xf32, #tilegpu.slice<0 : i32, #mma>>
    %t = "tile.reduce"(%s) ({
    ^bb0(%p: f32, %q: f32):
      %u = arith.addf %p, %q : f32
      gpu.yield %u : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8xf32, #tilegpu.slice<0 : i32, #mma>>) -> f32
    "tile.store"(%out, %t) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
    return
  }
}

// -----

// An fp16 accumulator (fp16 operands, out_dtype float16): m16n8k16.f16.f16.f16.f16, its C and D
// two registers of packed pairs (columns +0/+1 of rows +0 and +8), unpacked after.
// CHECK-LABEL: gpu.func @mma_f16_acc
// CHECK: [[R:%.*]] = nvvm.mma.sync A[{{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}] B[{{%.*}}, {{%.*}}] C[{{%.*}}, {{%.*}}]
// CHECK-SAME: (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
// CHECK-NEXT: [[P0:%.*]] = llvm.extractvalue [[R]][0]
// CHECK-NEXT: [[P1:%.*]] = llvm.extractvalue [[R]][1]
// CHECK-COUNT-2: llvm.extractelement [[P0]]
// CHECK-COUNT-2: llvm.extractelement [[P1]]
#mma = #tilegpu.mma<[2, 0], [1, 1], [16, 8]>
#da = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#db = #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @mma_f16_acc(%x: f16, %out: !tile.ptr<f16, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<16x16xf16, #da>
    %b = "tile.splat"(%x) : (f16) -> tensor<16x8xf16, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf16, #mma>
    %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16, #da>, tensor<16x8xf16, #db>, tensor<16x8xf16, #mma>) -> tensor<16x8xf16, #mma>
    %p = "tile.splat"(%out) : (!tile.ptr<f16, 1 : i32>) -> tensor<16x8x!tile.ptr<f16, 1 : i32>, #mma>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<16x8x!tile.ptr<f16, 1 : i32>, #mma>, tensor<16x8xf16, #mma>) -> ()
    return
  }
}

// -----

// A dot on FMAs: each thread's result register adds the K = 4 products of its A row and B
// column, all in its own registers (A holds whole rows, B whole columns); fp16 operands are
// widened to fp32 once each.
// CHECK-LABEL: gpu.func @fma_dot
// CHECK-COUNT-2: arith.extf {{%.*}} : f16 to f32
// CHECK-COUNT-4: math.fma
// CHECK-NOT: math.fma
// CHECK: gpu.return
#c = #tilegpu.blocked<[1, 1], [4, 8], [1, 1], [1, 0]>
#a = #tilegpu.blocked<[1, 4], [4, 8], [1, 1], [1, 0]>
#b = #tilegpu.blocked<[4, 1], [4, 8], [1, 1], [1, 0]>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @fma_dot(%x: f16, %y: f16, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<4x4xf16, #a>
    %b = "tile.splat"(%y) : (f16) -> tensor<4x8xf16, #b>
    %c = arith.constant dense<0.0> : tensor<4x8xf32, #c>
    %d = "tile.dot"(%a, %b, %c) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<4x4xf16, #a>, tensor<4x8xf16, #b>, tensor<4x8xf32, #c>) -> tensor<4x8xf32, #c>
    %s = "tile.reduce"(%d) ({
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32, #c>) -> tensor<8xf32, #tilegpu.slice<0 : i32, #c>>
    %t = "tile.reduce"(%s) ({
    ^bb0(%p: f32, %q: f32):
      %u = arith.addf %p, %q : f32
      gpu.yield %u : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8xf32, #tilegpu.slice<0 : i32, #c>>) -> f32
    "tile.store"(%out, %t) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
    return
  }
}
