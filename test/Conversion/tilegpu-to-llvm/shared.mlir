// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: shared-memory buffers: cp.async copies into them, swizzled stores,
// ldmatrix loads of mma operands and where they are issued
// (python/tilec/lowering/shared.py).

// cp.async of a 64x64 fp16 tile by 4 warps of [1, 8] vectors: each thread copies rows r and
// r + 32 at columns c and c + 32. Rows 32 apart have the same swizzle phase (the period is 8
// rows), so the copies of row r + 32 reuse row r's address plus 32 * 64 elements as a constant
// (one register and an immediate once compiled); columns 32 apart swizzle differently and get
// their own address.
// CHECK-LABEL: gpu.func @async_copy_rows
// CHECK: [[A:%.*]] = llvm.getelementptr {{%.*}}{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NEXT: nvvm.cp.async.shared.global [[A]], {{.*}}, 16, cache =  cg
// CHECK: [[B:%.*]] = llvm.getelementptr {{%.*}}{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-NEXT: nvvm.cp.async.shared.global [[B]]
// CHECK: [[C:%.*]] = llvm.getelementptr {{%.*}}[2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f16
// CHECK-NEXT: nvvm.cp.async.shared.global [[C]]
// CHECK: [[D:%.*]] = llvm.getelementptr {{%.*}}[2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f16
// CHECK-NEXT: nvvm.cp.async.shared.global [[D]]
// CHECK-NOT: nvvm.cp.async.shared.global
#l = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#s = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @async_copy_rows(%p: !tile.ptr<f16, 1 : i32>) {
    %ps = "tile.splat"(%p) : (!tile.ptr<f16, 1 : i32>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #l>
    %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 64], f16, #s, true>
    %t = "tilegpu.async_copy_global_to_local"(%ps, %buf) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #l>, !tilegpu.memdesc<[64, 64], f16, #s, true>) -> !tilegpu.async_token
    "tilegpu.local_dealloc"(%buf) : (!tilegpu.memdesc<[64, 64], f16, #s, true>) -> ()
    return
  }
}

// -----

// mma operands staged in shared memory: each thread writes its 8 contiguous fp16 as one
// 16-byte vector at the swizzled address of the first (A's 16 rows of 32 bytes: 4 per 128-byte
// line, phase (row / 4) % 2 XORed into the 16-byte chunk index); one barrier; A comes back with
// one ldmatrix.x4 (four 8x8 matrices, row-major: K is A's fastest dimension) and B (16 x 8,
// N fastest) with one ldmatrix.x2.trans, feeding the mma.sync without any other shared load.
// CHECK-LABEL: gpu.func @staged_operands
// CHECK: [[ROW:%.*]] = arith.addi {{.*}}
// CHECK: arith.shrui {{%.*}}, %c2_i32{{[_0-9]*}} : i32
// CHECK: arith.xori
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.ldmatrix {{%.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix {{%.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: nvvm.mma.sync
#l = #tilegpu.blocked<[1, 8], [16, 2], [1, 1], [1, 0]>
#lb = #tilegpu.blocked<[1, 8], [16, 2], [1, 1], [1, 0]>
#mma = #tilegpu.mma<[2, 0], [1, 1], [16, 8]>
#da = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#db = #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>
#sa = #tilegpu.shared<8 : i32, 4 : i32, 2 : i32, [1, 0]>
#sb = #tilegpu.shared<8 : i32, 8 : i32, 1 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @staged_operands(%x: f16, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<16x16xf16, #l>
    %b = "tile.splat"(%x) : (f16) -> tensor<16x8xf16, #lb>
    %sa = "tilegpu.local_alloc"(%a) : (tensor<16x16xf16, #l>) -> !tilegpu.memdesc<[16, 16], f16, #sa, false>
    %sb = "tilegpu.local_alloc"(%b) : (tensor<16x8xf16, #lb>) -> !tilegpu.memdesc<[16, 8], f16, #sb, false>
    %ra = "tilegpu.local_load"(%sa) : (!tilegpu.memdesc<[16, 16], f16, #sa, false>) -> tensor<16x16xf16, #da>
    %rb = "tilegpu.local_load"(%sb) : (!tilegpu.memdesc<[16, 8], f16, #sb, false>) -> tensor<16x8xf16, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = "tile.dot"(%ra, %rb, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16, #da>, tensor<16x8xf16, #db>, tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma>
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

// Fragments read from shared memory where the IR reads them: %ra1/%rb1 stand before the first
// dot (a pipelined loop loads the next K step there), so their ldmatrix come first, in place;
// %ra0/%rb0 are followed by nothing but loads before their dot, so theirs are issued next to
// the mma.sync using them. Both mma.sync come after all four loads.
// CHECK-LABEL: gpu.func @fragments_loaded_where_read
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-NOT: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
#l = #tilegpu.blocked<[1, 8], [16, 2], [1, 1], [1, 0]>
#mma = #tilegpu.mma<[2, 0], [1, 1], [16, 8]>
#da = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#db = #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>
#sa = #tilegpu.shared<8 : i32, 4 : i32, 2 : i32, [1, 0]>
#sb = #tilegpu.shared<8 : i32, 8 : i32, 1 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @fragments_loaded_where_read(%x: f16, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<16x16xf16, #l>
    %b = "tile.splat"(%x) : (f16) -> tensor<16x8xf16, #l>
    %sa = "tilegpu.local_alloc"(%a) : (tensor<16x16xf16, #l>) -> !tilegpu.memdesc<[16, 16], f16, #sa, false>
    %sb = "tilegpu.local_alloc"(%b) : (tensor<16x8xf16, #l>) -> !tilegpu.memdesc<[16, 8], f16, #sb, false>
    %ra1 = "tilegpu.local_load"(%sa) : (!tilegpu.memdesc<[16, 16], f16, #sa, false>) -> tensor<16x16xf16, #da>
    %rb1 = "tilegpu.local_load"(%sb) : (!tilegpu.memdesc<[16, 8], f16, #sb, false>) -> tensor<16x8xf16, #db>
    %ra0 = "tilegpu.local_load"(%sa) : (!tilegpu.memdesc<[16, 16], f16, #sa, false>) -> tensor<16x16xf16, #da>
    %rb0 = "tilegpu.local_load"(%sb) : (!tilegpu.memdesc<[16, 8], f16, #sb, false>) -> tensor<16x8xf16, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d0 = "tile.dot"(%ra0, %rb0, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16, #da>, tensor<16x8xf16, #db>, tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma>
    %d1 = "tile.dot"(%ra1, %rb1, %d0) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16, #da>, tensor<16x8xf16, #db>, tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma>
    %s = "tile.reduce"(%d1) ({
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

// A transposing cp.async: a tf32 B tile (32 x 64, K x N) loaded along N (4 fp32 per thread
// contiguous in N) into the K-major NVMMA buffer wgmma reads (dim 0 fastest): no two of a
// thread's elements are neighbours in shared memory, so each is its own 4-byte copy (cache
// modifier ca: cg takes 16 bytes only), 32 * 64 / 128 = 16 per thread.
// CHECK-LABEL: gpu.func @async_copy_transposing
// CHECK-COUNT-16: nvvm.cp.async.shared.global {{%.*}}, {{%.*}}, 4, cache =  ca
// CHECK-NOT: nvvm.cp.async.shared.global
#l = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
#s = #tilegpu.nvmma_shared<128 : i32, 32 : i32, [0, 1]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @async_copy_transposing(%p: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<32x64x!tile.ptr<f32, 1 : i32>, #l>
    %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[32, 64], f32, #s, true>
    %t = "tilegpu.async_copy_global_to_local"(%ps, %buf) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<32x64x!tile.ptr<f32, 1 : i32>, #l>, !tilegpu.memdesc<[32, 64], f32, #s, true>) -> !tilegpu.async_token
    "tilegpu.local_dealloc"(%buf) : (!tilegpu.memdesc<[32, 64], f32, #s, true>) -> ()
    return
  }
}
