// RUN: tilec-opt %s --split-input-file --tilegpu-accelerate-matmul | filecheck %s

// fp16 x fp16 -> fp32, 128x128x32 on 4 warps of an sm_80 target: mma.sync. Warps split M and N 2 x 2 (8 and
// 16 instruction tiles per dimension). A and B are written to swizzled shared buffers (16-byte
// vectors of 8 fp16; A's rows of 64 bytes share a 128-byte line by twos, so the swizzle phase
// changes every 2 rows over 4 phases; B's rows of 256 bytes change phase every row over 8),
// both writes first, then read back as dot operands of the mma layout (2 fp16 per register);
// the accumulator is converted in and the result back to the layout its user (the store) had.
// CHECK-LABEL: func.func @fp16
// CHECK: [[SA:%.*]] = "tilegpu.local_alloc"(%arg0) : ({{.*}}) -> !tilegpu.memdesc<[128, 32], f16, #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>, false>
// CHECK-NEXT: [[SB:%.*]] = "tilegpu.local_alloc"(%arg1) : ({{.*}}) -> !tilegpu.memdesc<[32, 128], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, false>
// CHECK-NEXT: [[A:%.*]] = "tilegpu.local_load"([[SA]]) : ({{.*}}) -> tensor<128x32xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>
// CHECK-NEXT: [[B:%.*]] = "tilegpu.local_load"([[SB]]) : ({{.*}}) -> tensor<32x128xf16, #tilegpu.dot_operand<1 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>
// CHECK-NEXT: [[C:%.*]] = "tilegpu.convert_layout"(%arg2) : ({{.*}}) -> tensor<128x128xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>
// CHECK-NEXT: [[D:%.*]] = "tile.dot"([[A]], [[B]], [[C]]) {{.*}} -> tensor<128x128xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>
// CHECK-NEXT: [[R:%.*]] = "tilegpu.convert_layout"([[D]]) : ({{.*}}) -> tensor<128x128xf32, #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: "tile.store"(%arg3, [[R]])
#b = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:80"} {
  func.func @fp16(%a: tensor<128x32xf16, #b>, %b: tensor<32x128xf16, #b>, %c: tensor<128x128xf32, #b>, %p: tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>) {
    %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x32xf16, #b>, tensor<32x128xf16, #b>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128x128xf32, #b>) -> ()
    return
  }
}

// -----

// A batched (3-D) dot takes mma.sync on sm_90 too (wgmma has no batch): the mma layout leads
// with the batch, which goes to warps first: [4, 32, 32] on 8 warps gives each batch element 2
// warps, split along N (4 instruction tiles there against 2 along M); the operands are staged
// in rank-3 swizzled buffers.
// CHECK-LABEL: func.func @batched
// CHECK: "tilegpu.local_alloc"(%arg0) : ({{.*}}) -> !tilegpu.memdesc<[4, 32, 16], f16, #tilegpu.shared<8 : i32, 4 : i32, 2 : i32, [2, 1, 0]>, false>
// CHECK: "tile.dot"{{.*}} -> tensor<4x32x32xf32, #tilegpu.mma<[2, 0], [4, 1, 2], [1, 16, 8]>>
#b3 = #tilegpu.blocked<[1, 1, 4], [1, 4, 8], [8, 1, 1], [2, 1, 0]>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90"} {
  func.func @batched(%a: tensor<4x32x16xf16, #b3>, %b: tensor<4x16x32xf16, #b3>, %c: tensor<4x32x32xf32, #b3>, %p: tensor<4x32x32x!tile.ptr<f32, 1 : i32>, #b3>) {
    %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<4x32x16xf16, #b3>, tensor<4x16x32xf16, #b3>, tensor<4x32x32xf32, #b3>) -> tensor<4x32x32xf32, #b3>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<4x32x32x!tile.ptr<f32, 1 : i32>, #b3>, tensor<4x32x32xf32, #b3>) -> ()
    return
  }
}

// -----

// The mma.sync instruction per type (sm_80): fp32 with tf32 precision takes m16n8k8 (1
// element per register), int8 -> int32 m16n8k32 (4 per register), bf16 2 per register. A tall
// block (256 x 16 on 4 warps) gives all warps to M.
// CHECK-LABEL: func.func @types
// CHECK: "tile.dot"{{.*}}dot_operand<0 : i32, {{.*}}, 1 : i32>{{.*}} -> tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>
// CHECK: "tile.dot"{{.*}}dot_operand<0 : i32, {{.*}}, 4 : i32>{{.*}} -> tensor<64x64xi32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>
// CHECK: "tile.dot"{{.*}}dot_operand<0 : i32, {{.*}}, 2 : i32>{{.*}} -> tensor<256x16xf32, #tilegpu.mma<[2, 0], [4, 1], [16, 8]>>
#b = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:80"} {
  func.func @types(%f: tensor<64x64xf32, #b>, %i: tensor<64x64xi8, #b>, %ci: tensor<64x64xi32, #b>, %h: tensor<256x16xbf16, #b>, %hb: tensor<16x16xbf16, #b>, %ch: tensor<256x16xf32, #b>) {
    %d1 = "tile.dot"(%f, %f, %f) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf32, #b>, tensor<64x64xf32, #b>, tensor<64x64xf32, #b>) -> tensor<64x64xf32, #b>
    %d2 = "tile.dot"(%i, %i, %ci) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xi8, #b>, tensor<64x64xi8, #b>, tensor<64x64xi32, #b>) -> tensor<64x64xi32, #b>
    return
  }
  func.func @tall(%h: tensor<256x16xbf16, #b>, %hb: tensor<16x16xbf16, #b>, %ch: tensor<256x16xf32, #b>) attributes {} {
    %d3 = "tile.dot"(%h, %hb, %ch) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<256x16xbf16, #b>, tensor<16x16xbf16, #b>, tensor<256x16xf32, #b>) -> tensor<256x16xf32, #b>
    return
  }
}

// -----

// An fp16 accumulator on tensor cores (mma.sync, sm_80): fp16 operands accumulate in fp16 on
// the instruction (m16n8k16.f16.f16.f16.f16), as in Triton; bf16 instructions take only fp32,
// so a bf16 dot's fp16 accumulator is widened around the dot and narrowed back for its users.
// CHECK-LABEL: func.func @fp16_acc
// CHECK: [[C:%.*]] = "tilegpu.convert_layout"(%arg1) : ({{.*}}) -> tensor<64x64xf16, [[MMA:#tilegpu.mma<[^>]*>]]>
// CHECK-NEXT: [[D:%.*]] = "tile.dot"({{.*}}, {{.*}}, [[C]]) {{.*}} -> tensor<64x64xf16, [[MMA]]>
// CHECK-NEXT: "tilegpu.convert_layout"([[D]]) : (tensor<64x64xf16, [[MMA]]>) -> tensor<64x64xf16, #tilegpu.blocked
// CHECK-LABEL: func.func @bf16_fp16_acc
// CHECK: [[C:%.*]] = "tilegpu.convert_layout"(%arg1) : ({{.*}}) -> tensor<64x64xf16, [[MMA:#tilegpu.mma<[^>]*>]]>
// CHECK-NEXT: [[W:%.*]] = arith.extf [[C]] : tensor<64x64xf16, [[MMA]]> to tensor<64x64xf32, [[MMA]]>
// CHECK-NEXT: [[D:%.*]] = "tile.dot"({{.*}}, {{.*}}, [[W]]) {{.*}} -> tensor<64x64xf32, [[MMA]]>
// CHECK-NEXT: [[N:%.*]] = arith.truncf [[D]] : tensor<64x64xf32, [[MMA]]> to tensor<64x64xf16, [[MMA]]>
// CHECK-NEXT: "tilegpu.convert_layout"([[N]]) : (tensor<64x64xf16, [[MMA]]>) -> tensor<64x64xf16, #tilegpu.blocked
#b = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:80"} {
  func.func @fp16_acc(%a: tensor<64x64xf16, #b>, %c: tensor<64x64xf16, #b>, %p: tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %d = "tile.dot"(%a, %a, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #b>, tensor<64x64xf16, #b>, tensor<64x64xf16, #b>) -> tensor<64x64xf16, #b>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<64x64xf16, #b>) -> ()
    return
  }
  func.func @bf16_fp16_acc(%a: tensor<64x64xbf16, #b>, %c: tensor<64x64xf16, #b>, %p: tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %d = "tile.dot"(%a, %a, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xbf16, #b>, tensor<64x64xbf16, #b>, tensor<64x64xf16, #b>) -> tensor<64x64xf16, #b>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<64x64xf16, #b>) -> ()
    return
  }
}

// -----

// FMA: "ieee" precision and a block smaller than one instruction (M = 8)
// keep the result's blocked layout; A gets that layout with K (here 16) in
// each thread's registers along dim 1, B along dim 0, so a thread holds the whole rows and
// columns its results need.
// CHECK-LABEL: func.func @fma
// CHECK: "tilegpu.convert_layout"(%arg0) : ({{.*}}) -> tensor<64x16xf32, #tilegpu.blocked<[1, 16], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: "tilegpu.convert_layout"(%arg1) : ({{.*}}) -> tensor<16x64xf32, #tilegpu.blocked<[16, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: "tile.dot"{{.*}} -> tensor<64x64xf32, #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: "tilegpu.convert_layout"(%arg3) : ({{.*}}) -> tensor<8x16xf16, #tilegpu.blocked<[1, 16], [2, 16], [4, 1], [1, 0]>>
// CHECK: "tile.dot"{{.*}} -> tensor<8x64xf32, #tilegpu.blocked
// CHECK-NOT: mma
// CHECK: return
#b = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90"} {
  func.func @fma(%a: tensor<64x16xf32, #b>, %b: tensor<16x64xf32, #b>, %c: tensor<64x64xf32, #b>, %a8: tensor<8x16xf16, #b>, %b8: tensor<16x64xf16, #b>, %c8: tensor<8x64xf32, #b>) {
    %d = "tile.dot"(%a, %b, %c) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<64x16xf32, #b>, tensor<16x64xf32, #b>, tensor<64x64xf32, #b>) -> tensor<64x64xf32, #b>
    %e = "tile.dot"(%a8, %b8, %c8) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<8x16xf16, #b>, tensor<16x64xf16, #b>, tensor<8x64xf32, #b>) -> tensor<8x64xf32, #b>
    return
  }
}

// -----

// sm_90: wgmma. The same fp16 dot as @fp16 on 4 warps (one warpgroup: 4 warps along M, one
// m64n128k16 instruction spans the 128 columns, two cover the rows). A and B are written to
// shared buffers in NVMMA layouts with the fastest dimension of their values: A's rows of 32
// fp16 (64 bytes) take the 64-byte swizzle, B's of 128 (256 bytes) two column blocks of the
// 128-byte one; a proxy fence orders those generic writes before wgmma's reads, and
// warpgroup_dot replaces tile.dot. An fp16 accumulator stays fp16 (wgmma's .f16 form).
// CHECK-LABEL: func.func @wgmma_fp16
// CHECK: [[SA:%.*]] = "tilegpu.local_alloc"(%arg0) : ({{.*}}) -> !tilegpu.memdesc<[128, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, false>
// CHECK-NEXT: [[SB:%.*]] = "tilegpu.local_alloc"(%arg1) : ({{.*}}) -> !tilegpu.memdesc<[32, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
// CHECK-NEXT: "tilegpu.fence_async_shared"() : () -> ()
// CHECK-NEXT: [[C:%.*]] = "tilegpu.convert_layout"(%arg2) : ({{.*}}) -> tensor<128x128xf32, #tilegpu.mma<[3, 0], [4, 1], [16, 128]>>
// CHECK-NEXT: [[D:%.*]] = "tilegpu.warpgroup_dot"([[SA]], [[SB]], [[C]]) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : ({{.*}}) -> tensor<128x128xf32, #tilegpu.mma<[3, 0], [4, 1], [16, 128]>>
// CHECK-NEXT: [[R:%.*]] = "tilegpu.convert_layout"([[D]]) : ({{.*}}) -> tensor<128x128xf32, #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: "tile.store"(%arg3, [[R]])
// CHECK-NOT: "tile.dot"
// CHECK-LABEL: func.func @wgmma_fp16_acc
// CHECK: [[C:%.*]] = "tilegpu.convert_layout"(%arg1) : ({{.*}}) -> tensor<64x64xf16, [[MMA:#tilegpu.mma<.3, 0.[^>]*>]]>
// CHECK-NEXT: [[D:%.*]] = "tilegpu.warpgroup_dot"({{.*}}, {{.*}}, [[C]]) {{.*}} -> tensor<64x64xf16, [[MMA]]>
// CHECK-NOT: arith.truncf
#b = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90"} {
  func.func @wgmma_fp16(%a: tensor<128x32xf16, #b>, %b: tensor<32x128xf16, #b>, %c: tensor<128x128xf32, #b>, %p: tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>) {
    %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x32xf16, #b>, tensor<32x128xf16, #b>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128x128xf32, #b>) -> ()
    return
  }
  func.func @wgmma_fp16_acc(%a: tensor<64x64xf16, #b>, %c: tensor<64x64xf16, #b>, %p: tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %d = "tile.dot"(%a, %a, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #b>, tensor<64x64xf16, #b>, tensor<64x64xf16, #b>) -> tensor<64x64xf16, #b>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<64x64xf16, #b>) -> ()
    return
  }
}

// -----

// wgmma's shape from the block and the warps: on 8 warps (two warpgroups) a 128-row block
// puts both warpgroups along M (warps [8, 1], one m64n256 instruction per warpgroup and K
// step); a 64-row block has rows for one, so the second takes the other half of N (warps
// [4, 2], n = 128). A B whose values run fastest along K (a transposed view: order [0, 1])
// stays K-major in shared memory; bf16 is read as fp16 is.
// CHECK-LABEL: func.func @wgmma_shapes
// CHECK: "tilegpu.warpgroup_dot"{{.*}} -> tensor<128x256xf32, #tilegpu.mma<[3, 0], [8, 1], [16, 256]>>
// CHECK: "tilegpu.local_alloc"(%arg4) : ({{.*}}) -> !tilegpu.memdesc<[64, 256], bf16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [0, 1]>, false>
// CHECK: "tilegpu.warpgroup_dot"{{.*}} -> tensor<64x256xf32, #tilegpu.mma<[3, 0], [4, 2], [16, 128]>>
#b = #tilegpu.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>
#t = #tilegpu.blocked<[8, 1], [8, 4], [1, 8], [0, 1]>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90"} {
  func.func @wgmma_shapes(%a: tensor<128x64xf16, #b>, %b: tensor<64x256xf16, #b>, %c: tensor<128x256xf32, #b>,
                          %a2: tensor<64x64xbf16, #b>, %b2: tensor<64x256xbf16, #t>, %c2: tensor<64x256xf32, #b>) {
    %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #b>, tensor<64x256xf16, #b>, tensor<128x256xf32, #b>) -> tensor<128x256xf32, #b>
    %e = "tile.dot"(%a2, %b2, %c2) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xbf16, #b>, tensor<64x256xbf16, #t>, tensor<64x256xf32, #b>) -> tensor<64x256xf32, #b>
    return
  }
}

// -----

// What wgmma cannot take stays on mma.sync on sm_90: fewer than 64 rows (a warpgroup's
// instruction) and int8 operands that do not run along K (wgmma transposes 16-bit operands
// only, and cp.async cannot copy single bytes to transpose them).
// CHECK-LABEL: func.func @mma_sync_on_sm90
// CHECK-COUNT-2: "tile.dot"{{.*}} -> tensor<{{.*}}, #tilegpu.mma<[2, 0]
// CHECK-NOT: warpgroup_dot
#b = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90"} {
  func.func @mma_sync_on_sm90(%a: tensor<32x64xf16, #b>, %b: tensor<64x64xf16, #b>, %c: tensor<32x64xf32, #b>,
                              %i: tensor<64x64xi8, #b>, %ci: tensor<64x64xi32, #b>) {
    %d1 = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x64xf16, #b>, tensor<64x64xf16, #b>, tensor<32x64xf32, #b>) -> tensor<32x64xf32, #b>
    %d4 = "tile.dot"(%i, %i, %ci) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xi8, #b>, tensor<64x64xi8, #b>, tensor<64x64xi32, #b>) -> tensor<64x64xi32, #b>
    return
  }
}

// -----

// A tf32 B that runs along N (row-major, as loaded) is staged K-major all the same: the NVMMA
// layout's dim 0 (K) fastest, which wgmma reads without a transpose; the copy into it
// transposes, one 4-byte element at a time. A, along K already, keeps its order.
// CHECK-LABEL: func.func @tf32_b_along_n
// CHECK: [[SA:%.*]] = "tilegpu.local_alloc"(%arg0) : ({{.*}}) -> !tilegpu.memdesc<[64, 64], f32, #tilegpu.nvmma_shared<128 : i32, 32 : i32, [1, 0]>, false>
// CHECK-NEXT: [[SB:%.*]] = "tilegpu.local_alloc"(%arg0) : ({{.*}}) -> !tilegpu.memdesc<[64, 64], f32, #tilegpu.nvmma_shared<128 : i32, 32 : i32, [0, 1]>, false>
// CHECK: "tilegpu.warpgroup_dot"([[SA]], [[SB]], %{{.*}}) {{.*}} -> tensor<64x64xf32, #tilegpu.mma<[3, 0], [4, 1], [16, 64]>>
#b = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90"} {
  func.func @tf32_b_along_n(%f: tensor<64x64xf32, #b>, %c: tensor<64x64xf32, #b>) {
    %d = "tile.dot"(%f, %f, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf32, #b>, tensor<64x64xf32, #b>, tensor<64x64xf32, #b>) -> tensor<64x64xf32, #b>
    return
  }
}

// -----

// An A the kernel computes (here the fp16 cast of a product) feeds wgmma from registers (the
// RS form): it is converted to the dot_operand 0 layout of the accumulator's mma layout (2
// fp16 per register) and only B is staged in shared memory, then fenced. A loaded A (the
// first dot's, a function argument here) is staged as before.
// CHECK-LABEL: func.func @wgmma_rs
// CHECK: [[D1:%.*]] = "tilegpu.warpgroup_dot"(%{{.*}}, %{{.*}}, %{{.*}}) {{.*}} : (!tilegpu.memdesc<[128, 64], f16
// CHECK: [[P:%.*]] = arith.truncf
// CHECK-NEXT: [[A:%.*]] = "tilegpu.convert_layout"([[P]]) : ({{.*}}) -> tensor<128x64xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[3, 0], [8, 1], [16, 128]>, 2 : i32>>
// CHECK-NEXT: [[SB:%.*]] = "tilegpu.local_alloc"(%arg2) : ({{.*}}) -> !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK: "tilegpu.warpgroup_dot"([[A]], [[SB]], %{{.*}}) {{.*}} : (tensor<128x64xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[3, 0], [8, 1], [16, 128]>, 2 : i32>>, !tilegpu.memdesc<[64, 128], f16
#b = #tilegpu.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90"} {
  func.func @wgmma_rs(%q: tensor<128x64xf16, #b>, %k: tensor<64x64xf16, #b>, %v: tensor<64x128xf16, #b>, %p: tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>) {
    %z1 = arith.constant dense<0.0> : tensor<128x64xf32, #b>
    %z2 = arith.constant dense<0.0> : tensor<128x128xf32, #b>
    %s = "tile.dot"(%q, %k, %z1) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #b>, tensor<64x64xf16, #b>, tensor<128x64xf32, #b>) -> tensor<128x64xf32, #b>
    %h = arith.truncf %s : tensor<128x64xf32, #b> to tensor<128x64xf16, #b>
    %o = "tile.dot"(%h, %v, %z2) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #b>, tensor<64x128xf16, #b>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    "tile.store"(%p, %o) {cache = "none", evict = "evict_normal"} : (tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128x128xf32, #b>) -> ()
    return
  }
}

// -----

// A dot in a loop whose A does not change in it (attention's Q): A is written to its NVMMA
// buffer once, before the loop, and fenced there; B, loaded every trip, is staged and fenced
// in the loop.
// CHECK-LABEL: func.func @wgmma_loop_invariant_a
// CHECK: [[SA:%.*]] = "tilegpu.local_alloc"(%arg0) : ({{.*}}) -> !tilegpu.memdesc<[128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK-NEXT: scf.for
// CHECK-NOT: "tilegpu.local_alloc"(%arg0)
// CHECK: [[B:%.*]] = "tile.load"
// CHECK: [[SB:%.*]] = "tilegpu.local_alloc"([[B]])
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK: "tilegpu.warpgroup_dot"([[SA]], [[SB]], %{{.*}})
#b = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_loop_invariant_a(%a: tensor<128x64xf16, #b>, %pb: tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>, %n: i32) -> tensor<128x64xf32, #b> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32, #b>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32, #b>) : i32 {
      %bt = "tile.load"(%pb) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<64x64xf16, #b>
      %d = "tile.dot"(%a, %bt, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #b>, tensor<64x64xf16, #b>, tensor<128x64xf32, #b>) -> tensor<128x64xf32, #b>
      scf.yield %d : tensor<128x64xf32, #b>
    }
    return %r : tensor<128x64xf32, #b>
  }
}

// -----

// Attention's backward reads dO twice: as the B of P^T dO and, transposed, as the B of
// V dO^T. The loaded tile is written to one NVMMA buffer in its own order (dim 1 fastest); the
// second dot reads it through a memdesc_trans view ([64, 64] with dim 0 fastest: K-major for
// that dot), so no transpose is done in registers and dO is not written twice (only V, that
// dot's A, is staged for it). The tile.trans is left without users.
// CHECK-LABEL: func.func @wgmma_transposed_b_shared
// CHECK: [[DO:%.*]] = "tile.load"
// CHECK: [[SB:%.*]] = "tilegpu.local_alloc"([[DO]]) : ({{.*}}) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK: "tilegpu.warpgroup_dot"({{%.*}}, [[SB]], %{{.*}})
// CHECK-NOT: "tilegpu.local_alloc"([[DO]])
// CHECK: "tilegpu.local_alloc"(%arg1)
// CHECK-NEXT: [[T:%.*]] = "tilegpu.memdesc_trans"([[SB]]) : (!tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [0, 1]>, false>
// CHECK-NOT: "tilegpu.local_alloc"
// CHECK: "tilegpu.warpgroup_dot"({{%.*}}, [[T]], %{{.*}})
// CHECK-NOT: "tilegpu.local_alloc"
// CHECK: return
#b = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_transposed_b_shared(%p: tensor<64x64xf16, #b>, %v: tensor<64x64xf16, #b>, %pd: tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>) -> (tensor<64x64xf32, #b>, tensor<64x64xf32, #b>) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #b>
    %do = "tile.load"(%pd) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<64x64xf16, #b>
    %dv = "tile.dot"(%p, %do, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #b>, tensor<64x64xf16, #b>, tensor<64x64xf32, #b>) -> tensor<64x64xf32, #b>
    %dot = "tile.trans"(%do) {order = array<i32: 1, 0>} : (tensor<64x64xf16, #b>) -> tensor<64x64xf16, #b>
    %dp = "tile.dot"(%v, %dot, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #b>, tensor<64x64xf16, #b>, tensor<64x64xf32, #b>) -> tensor<64x64xf32, #b>
    return %dv, %dp : tensor<64x64xf32, #b>, tensor<64x64xf32, #b>
  }
}

// -----

// A dot of two TMA-loaded tiles (local_loads of nvmma_shared buffers a TMA copy writes, as
// convert-tile-to-tilegpu leaves tile.tma_load) on 8 warps: each buffer already holds its value
// in the layout the pass would stage it in (128-byte swizzle: A's rows of 64 fp16, B's of 128
// in two column blocks), so warpgroup_dot reads the buffers themselves. Nothing is written to
// shared memory (no local_alloc of the loaded values) and nothing is fenced: the copies wrote
// through the async proxy, which wgmma reads.
// CHECK-LABEL: func.func @wgmma_from_tma_buffers
// CHECK: [[SA:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
// CHECK: [[SB:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
// CHECK-NOT: "tilegpu.local_alloc"
// CHECK-NOT: "tilegpu.fence_async_shared"
// CHECK: [[D:%.*]] = "tilegpu.warpgroup_dot"([[SA]], [[SB]], {{%.*}}) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : ({{.*}}) -> tensor<128x128xf32, #tilegpu.mma<[3, 0], [8, 1], [16, 128]>>
// CHECK-NOT: "tilegpu.local_alloc"
// CHECK-NOT: "tilegpu.fence_async_shared"
// CHECK-NOT: "tile.dot"
// CHECK: return
#b = #tilegpu.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>
#nv128 = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_from_tma_buffers(%map: !llvm.ptr, %o: i32, %c: tensor<128x128xf32, #b>,
                                    %p: tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>) {
    %c0 = arith.constant 0 : i32
    %bar = "tilegpu.local_alloc"() : () -> !bar
    "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
    %sa = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[128, 64], f16, #nv128, true>
    %sb = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #nv128, true>
    "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %sa, %o, %o) : (!llvm.ptr, !bar, !tilegpu.memdesc<[128, 64], f16, #nv128, true>, i32, i32) -> ()
    "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %sb, %o, %o) : (!llvm.ptr, !bar, !tilegpu.memdesc<[64, 128], f16, #nv128, true>, i32, i32) -> ()
    "tilegpu.wait_barrier"(%bar, %c0) : (!bar, i32) -> ()
    %a = "tilegpu.local_load"(%sa) : (!tilegpu.memdesc<[128, 64], f16, #nv128, true>) -> tensor<128x64xf16, #b>
    %bt = "tilegpu.local_load"(%sb) : (!tilegpu.memdesc<[64, 128], f16, #nv128, true>) -> tensor<64x128xf16, #b>
    "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
    %d = "tile.dot"(%a, %bt, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #b>, tensor<64x128xf16, #b>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128x128xf32, #b>) -> ()
    return
  }
}

// -----

// Buffers wgmma cannot read as they are: A's TMA buffer is in the 64-byte swizzle where the
// pass chooses the 128-byte one, and B's buffer is written by generic stores (a value stored,
// loaded, then another stored over it: the buffer no longer holds what was loaded). Both loaded
// values are staged as any loaded operand (a local_alloc in the 128-byte layout each, then one
// proxy fence for those generic writes).
// CHECK-LABEL: func.func @wgmma_buffers_not_read_in_place
// CHECK: [[A:%.*]] = "tilegpu.local_load"
// CHECK: [[B:%.*]] = "tilegpu.local_load"
// CHECK: [[SA:%.*]] = "tilegpu.local_alloc"([[A]]) : ({{.*}}) -> !tilegpu.memdesc<[128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
// CHECK-NEXT: [[SB:%.*]] = "tilegpu.local_alloc"([[B]]) : ({{.*}}) -> !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
// CHECK-NEXT: "tilegpu.fence_async_shared"() : () -> ()
// CHECK: "tilegpu.warpgroup_dot"([[SA]], [[SB]], {{%.*}})
#b = #tilegpu.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>
#nv128 = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#nv64 = #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_buffers_not_read_in_place(%map: !llvm.ptr, %o: i32, %x: tensor<64x128xf16, #b>,
                                             %y: tensor<64x128xf16, #b>, %c: tensor<128x128xf32, #b>,
                                             %p: tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>) {
    %c0 = arith.constant 0 : i32
    %bar = "tilegpu.local_alloc"() : () -> !bar
    "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
    %sa = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[128, 64], f16, #nv64, true>
    "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %sa, %o, %o) : (!llvm.ptr, !bar, !tilegpu.memdesc<[128, 64], f16, #nv64, true>, i32, i32) -> ()
    "tilegpu.wait_barrier"(%bar, %c0) : (!bar, i32) -> ()
    %a = "tilegpu.local_load"(%sa) : (!tilegpu.memdesc<[128, 64], f16, #nv64, true>) -> tensor<128x64xf16, #b>
    "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
    %sb = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #nv128, true>
    "tilegpu.local_store"(%x, %sb) : (tensor<64x128xf16, #b>, !tilegpu.memdesc<[64, 128], f16, #nv128, true>) -> ()
    %bt = "tilegpu.local_load"(%sb) : (!tilegpu.memdesc<[64, 128], f16, #nv128, true>) -> tensor<64x128xf16, #b>
    "tilegpu.local_store"(%y, %sb) : (tensor<64x128xf16, #b>, !tilegpu.memdesc<[64, 128], f16, #nv128, true>) -> ()
    %d = "tile.dot"(%a, %bt, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #b>, tensor<64x128xf16, #b>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    "tile.store"(%p, %d) {cache = "none", evict = "evict_normal"} : (tensor<128x128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128x128xf32, #b>) -> ()
    return
  }
}

// -----

// fp8 (e4m3) on sm_90: A along K and B along K (#t: dim 0 fastest, B column-major) are wgmma
// operands in NVMMA buffers of bytes (k32 instructions), with Triton's default
// max_num_imprecise_acc (2^30: sums left to the tensor cores) or one of at least an
// instruction's 32 products (kept for the lowering, which promotes the partial sums); a B that
// runs along N cannot be read by fp8 wgmma (it transposes 16-bit operands only) and no mma.sync
// here takes fp8, so both operands are widened to fp16 (exactly) and that dot takes the fp16
// path, as does one asking for full precision (max_num_imprecise_acc below 32).
// CHECK-LABEL: func.func @fp8
// CHECK: [[SA:%.*]] = "tilegpu.local_alloc"(%arg0) : ({{.*}}) -> !tilegpu.memdesc<[128, 64], f8E4M3FN, #tilegpu.nvmma_shared<64 : i32, 8 : i32, [1, 0]>, false>
// CHECK: [[SB:%.*]] = "tilegpu.local_alloc"(%arg1) : ({{.*}}) -> !tilegpu.memdesc<[64, 128], f8E4M3FN, #tilegpu.nvmma_shared<64 : i32, 8 : i32, [0, 1]>, false>
// CHECK: "tilegpu.warpgroup_dot"([[SA]], [[SB]], %{{.*}}) {input_precision = "tf32", max_num_imprecise_acc = 1073741824 : i32} {{.*}} -> tensor<128x128xf32, #tilegpu.mma<[3, 0]
// CHECK: arith.extf %arg0 : tensor<128x64xf8E4M3FN, #{{.*}}> to tensor<128x64xf16
// CHECK: arith.extf %arg2 : tensor<64x128xf8E4M3FN, #{{.*}}> to tensor<64x128xf16
// CHECK: "tilegpu.warpgroup_dot"{{.*}}f16
// CHECK: arith.extf %arg0 : tensor<128x64xf8E4M3FN, #{{.*}}> to tensor<128x64xf16
// CHECK: arith.extf %arg1 : tensor<64x128xf8E4M3FN, #{{.*}}> to tensor<64x128xf16
// CHECK: "tilegpu.warpgroup_dot"{{.*}}max_num_imprecise_acc = 16 : i32{{.*}}f16
// CHECK: "tilegpu.warpgroup_dot"({{.*}}) {input_precision = "tf32", max_num_imprecise_acc = 32 : i32} : (!tilegpu.memdesc<[128, 64], f8E4M3FN
#b = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
#t = #tilegpu.blocked<[4, 1], [16, 2], [1, 4], [0, 1]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90"} {
  func.func @fp8(%a: tensor<128x64xf8E4M3FN, #b>, %bk: tensor<64x128xf8E4M3FN, #t>, %bn: tensor<64x128xf8E4M3FN, #b>, %c: tensor<128x128xf32, #b>) {
    %d1 = "tile.dot"(%a, %bk, %c) {input_precision = "tf32", max_num_imprecise_acc = 1073741824 : i32} : (tensor<128x64xf8E4M3FN, #b>, tensor<64x128xf8E4M3FN, #t>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    %d2 = "tile.dot"(%a, %bn, %c) {input_precision = "tf32", max_num_imprecise_acc = 1073741824 : i32} : (tensor<128x64xf8E4M3FN, #b>, tensor<64x128xf8E4M3FN, #b>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    %d3 = "tile.dot"(%a, %bk, %c) {input_precision = "tf32", max_num_imprecise_acc = 16 : i32} : (tensor<128x64xf8E4M3FN, #b>, tensor<64x128xf8E4M3FN, #t>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    %d4 = "tile.dot"(%a, %bk, %c) {input_precision = "tf32", max_num_imprecise_acc = 32 : i32} : (tensor<128x64xf8E4M3FN, #b>, tensor<64x128xf8E4M3FN, #t>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    return
  }
}
