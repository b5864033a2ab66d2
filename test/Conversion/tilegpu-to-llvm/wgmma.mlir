// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s

// A 128x32 fp16 A (64-byte swizzle, K-major) times a 32x128 B (two column blocks of the
// 128-byte swizzle, N-major) on one warpgroup: a proxy fence after the generic writes, the
// barrier tilegpu-membar puts before the reads, then wgmma.fence, two K steps of 16 for each of
// the two m64n128k16 row tiles (A's descriptor 64 rows = 4096 bytes = 256 units further for
// the second; a K step moves A 32 bytes = 2 units inside its rows and B 16 rows = 2048 bytes =
// 128 units), one commit group and its wait. Descriptor high bits: A: LBO 16 B (unused,
// 1 << 16), SBO 8 rows x 64 B = 512 B (32 << 32), 64-byte swizzle (2 << 62); B: LBO = the 32
// rows x 128 B of a column block (256 << 16), SBO 1024 B (64 << 32), 128-byte swizzle
// (1 << 62). Both buffers sit on their swizzle period.
// CHECK-LABEL: gpu.func @wgmma_ss
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: llvm.ptrtoint {{.*}} : !llvm.ptr<3> to i32
// CHECK: [[DA:%.*]] = arith.ori {{.*}}, %c-9223371899415756800_i64 : i64
// CHECK: [[DB:%.*]] = arith.ori {{.*}}, %c4611686293322072064_i64 : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: [[ACC0:%.*]] = nvvm.wgmma.mma_async [[DA]], [[DB]], {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-NEXT: %c256_i64 = arith.constant 256 : i64
// CHECK-NEXT: [[DA1:%.*]] = arith.addi [[DA]], %c256_i64 : i64
// CHECK-NEXT: nvvm.wgmma.mma_async [[DA1]], [[DB]]
// CHECK-NEXT: %c2_i64 = arith.constant 2 : i64
// CHECK-NEXT: [[DAK:%.*]] = arith.addi [[DA]], %c2_i64 : i64
// CHECK-NEXT: %c128_i64 = arith.constant 128 : i64
// CHECK-NEXT: [[DBK:%.*]] = arith.addi [[DB]], %c128_i64 : i64
// CHECK-NEXT: nvvm.wgmma.mma_async [[DAK]], [[DBK]], [[ACC0]]
// CHECK: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: gpu.return
#b = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 128]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_ss(%x: f16, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<128x32xf16, #b>
    %b = "tile.splat"(%x) : (f16) -> tensor<32x128xf16, #b>
    %c = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
    %sa = "tilegpu.local_alloc"(%a) : (tensor<128x32xf16, #b>) -> !tilegpu.memdesc<[128, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>
    %sb = "tilegpu.local_alloc"(%b) : (tensor<32x128xf16, #b>) -> !tilegpu.memdesc<[32, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
    "tilegpu.fence_async_shared"() : () -> ()
    %d = "tilegpu.warpgroup_dot"(%sa, %sb, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[128, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>, !tilegpu.memdesc<[32, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, tensor<128x128xf32, #mma>) -> tensor<128x128xf32, #mma>
    %p = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x128x!tile.ptr<f32, 1 : i32>, #mma>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<128x128x!tile.ptr<f32, 1 : i32>, #mma>, tensor<128x128xf32, #mma>) -> ()
    return
  }
}

// -----

// An asynchronous warpgroup_dot leaves its group in flight (no wait after the commit); the
// warpgroup_dot_wait is inline asm over every accumulator register (32 f32 for m64n64 on one
// warpgroup), tied to its results, so nothing reads them before the wait.
// CHECK-LABEL: gpu.func @wgmma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_async(%x: f16, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<64x64xf16, #b>
    %c = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %sa = "tilegpu.local_alloc"(%a) : (tensor<64x64xf16, #b>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
    "tilegpu.fence_async_shared"() : () -> ()
    %d = "tilegpu.warpgroup_dot"(%sa, %sa, %c) {input_precision = "tf32", is_async, max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
    %w = "tilegpu.warpgroup_dot_wait"(%d) {pendings = 1 : i32} : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
    %p = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>
    "tile.store"(%p, %w) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    return
  }
}

// -----

// A from registers (RS): wgmma as inline asm, one per K step of the m64n64k16 tile: 32
// accumulator outputs, A's 4 registers (fp16 pairs of the mma.sync A fragment, bitcast to
// i32), B's descriptor, the accumulator tied in; B N-major, so its transpose bit is 1. The
// wgmma.fence passes A's 2 x 4 registers and the 32 accumulator values through it (inline
// asm, outputs tied to inputs), so all are written before it and the wgmmas issue back to
// back (no warpgroup.arrive injected between them by ptxas).
// CHECK-LABEL: gpu.func @wgmma_rs
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: llvm.bitcast {{.*}} : vector<2xf16> to i32
// CHECK: llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;", "=r,=r,=r,=r,=r,=r,=r,=r,=f,{{.*}},=f,0,1,2,{{.*}},39" {{.*}} -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, f32,
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1; }", "=f,{{.*}},=f,r,r,r,r,l,0,1,{{.*}},31"
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p;
// CHECK-NOT: llvm.inline_asm has_side_effects "{ .reg .pred p;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
#a = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_rs(%x: f16, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<64x32xf16, #a>
    %b = "tile.splat"(%x) : (f16) -> tensor<32x64xf16, #b>
    %c = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %sb = "tilegpu.local_alloc"(%b) : (tensor<32x64xf16, #b>) -> !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
    "tilegpu.fence_async_shared"() : () -> ()
    %d = "tilegpu.warpgroup_dot"(%a, %sb, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #a>, !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
    %p = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    return
  }
}

// -----

// B read through a memdesc_trans view (tl.trans of a tile staged as it was loaded): the
// 64x32 buffer (N rows of 32 K-contiguous fp16, 64-byte swizzle) viewed as the [32, 64] B is
// K-major, so B's descriptor is that of a K-major tile at the same address (the high bits
// equal A's: LBO 16 B, SBO 512 B, 64-byte swizzle), the instruction reads B untransposed
// (<col>), and the view itself emits nothing.
// CHECK-LABEL: gpu.func @wgmma_transposed_view
// CHECK: [[DA:%.*]] = arith.ori {{.*}}, %c-9223371899415756800_i64{{[_0-9]*}} : i64
// CHECK: [[DB:%.*]] = arith.ori {{.*}}, %c-9223371899415756800_i64{{[_0-9]*}} : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.mma_async [[DA]], [[DB]], {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: gpu.return
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_transposed_view(%x: f16, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<64x32xf16, #b>
    %b = "tile.splat"(%x) : (f16) -> tensor<64x32xf16, #b>
    %c = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %sa = "tilegpu.local_alloc"(%a) : (tensor<64x32xf16, #b>) -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>
    %sb = "tilegpu.local_alloc"(%b) : (tensor<64x32xf16, #b>) -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>
    %tb = "tilegpu.memdesc_trans"(%sb) : (!tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>) -> !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [0, 1]>, false>
    "tilegpu.fence_async_shared"() : () -> ()
    %d = "tilegpu.warpgroup_dot"(%sa, %tb, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>, !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [0, 1]>, false>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
    %p = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    return
  }
}

// -----

// An fp16 accumulator (fp16 operands, out_dtype float16): wgmma's .f16 form, whose registers
// hold pairs of accumulator values (columns +0/+1 of a row): m64n64 on one warpgroup is 16
// registers of vector<2xf16> a thread, in the NVVM op (A and B from shared memory) and in the
// RS form's inline asm ("=r", the pairs as i32).
// CHECK-LABEL: gpu.func @wgmma_f16_acc_ss
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f16>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>] : !llvm.struct<(vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)>
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-LABEL: gpu.func @wgmma_f16_acc_rs
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {$0, {{.*}}, $15}, {$16, $17, $18, $19}, $20, p, 1, 1, 1; }", "=r,{{.*}},=r,r,r,r,r,l,0,1,{{.*}},15"
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
#a = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_f16_acc_ss(%x: f16, %out: !tile.ptr<f16, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<64x32xf16, #b>
    %b = "tile.splat"(%x) : (f16) -> tensor<32x64xf16, #b>
    %c = arith.constant dense<0.0> : tensor<64x64xf16, #mma>
    %sa = "tilegpu.local_alloc"(%a) : (tensor<64x32xf16, #b>) -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>
    %sb = "tilegpu.local_alloc"(%b) : (tensor<32x64xf16, #b>) -> !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
    "tilegpu.fence_async_shared"() : () -> ()
    %d = "tilegpu.warpgroup_dot"(%sa, %sb, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>, !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, tensor<64x64xf16, #mma>) -> tensor<64x64xf16, #mma>
    %p = "tile.splat"(%out) : (!tile.ptr<f16, 1 : i32>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #mma>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #mma>, tensor<64x64xf16, #mma>) -> ()
    return
  }
  func.func @wgmma_f16_acc_rs(%x: f16, %out: !tile.ptr<f16, 1 : i32>) {
    %a = "tile.splat"(%x) : (f16) -> tensor<64x32xf16, #a>
    %b = "tile.splat"(%x) : (f16) -> tensor<32x64xf16, #b>
    %c = arith.constant dense<0.0> : tensor<64x64xf16, #mma>
    %sb = "tilegpu.local_alloc"(%b) : (tensor<32x64xf16, #b>) -> !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
    "tilegpu.fence_async_shared"() : () -> ()
    %d = "tilegpu.warpgroup_dot"(%a, %sb, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #a>, !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, tensor<64x64xf16, #mma>) -> tensor<64x64xf16, #mma>
    %p = "tile.splat"(%out) : (!tile.ptr<f16, 1 : i32>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #mma>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #mma>, tensor<64x64xf16, #mma>) -> ()
    return
  }
}
