// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: ops that move elements between threads through shared memory: layout
// conversions, gather, cat, join, split, trans, reshape
// (python/tilec/lowering/data_movement.py).

// A conversion that moves data across threads (32x32 fp32, rows over lanes to columns over
// lanes) goes through shared memory: each thread stores its 8 registers to @global_smem at
// their row-major index (rows 4r apart: 128r + its thread's part; nothing used the memory
// before, so no barrier precedes), a barrier,
// each thread loads the 8 elements the new layout gives it (columns 4r apart: + 4r). The
// module records the bytes used and the op that needs them: element i lives at slot
// i + i / 32 (a padding slot after every 128 bytes keeps rows of 32 words in different
// banks), so the 1024 elements span 1055 slots, 4220 bytes.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 4220 : i32
// CHECK-SAME: tilegpu.shared_largest = "{{.*}}:[[# @LINE + 58]]"
// CHECK-LABEL: gpu.func @transpose_layout
// CHECK-SAME: ([[X:%[^:]*]]: f32, [[OUT:%[^:]*]]: !llvm.ptr<1>)
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK-NOT: gpu.barrier
// CHECK: [[I0:%.*]] = arith.addi {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK-NEXT: {{%.*}} = arith.constant 5 : i32
// CHECK-NEXT: [[SA0:%.*]] = arith.shrui [[I0]], %c5_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[PA0:%.*]] = arith.addi [[I0]], [[SA0]] : i32
// CHECK-NEXT: [[A0:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[PA0]]{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A0]] : f32, !llvm.ptr<3>
// CHECK: [[C128:%.*]] = arith.constant 128 : i32
// CHECK-NEXT: [[I1:%.*]] = arith.addi {{%.*}}, [[C128]] : i32
// CHECK-NEXT: {{%.*}} = arith.constant 5 : i32
// CHECK-NEXT: [[SA1:%.*]] = arith.shrui [[I1]], %c5_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[PA1:%.*]] = arith.addi [[I1]], [[SA1]] : i32
// CHECK-NEXT: [[A1:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[PA1]]{{\]}}
// CHECK-NEXT: llvm.store [[X]], [[A1]] : f32, !llvm.ptr<3>
// CHECK-COUNT-5: llvm.store [[X]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK: [[C896:%.*]] = arith.constant 896 : i32
// CHECK-NEXT: [[I7:%.*]] = arith.addi {{%.*}}, [[C896]] : i32
// CHECK-NEXT: {{%.*}} = arith.constant 5 : i32
// CHECK-NEXT: [[SA7:%.*]] = arith.shrui [[I7]], %c5_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[PA7:%.*]] = arith.addi [[I7]], [[SA7]] : i32
// CHECK-NEXT: [[A7:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[PA7]]{{\]}}
// CHECK-NEXT: llvm.store [[X]], [[A7]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[D0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[J0:%.*]] = arith.addi {{%.*}}, [[D0]] : i32
// CHECK-NEXT: {{%.*}} = arith.constant 5 : i32
// CHECK-NEXT: [[SB0:%.*]] = arith.shrui [[J0]], %c5_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[PB0:%.*]] = arith.addi [[J0]], [[SB0]] : i32
// CHECK-NEXT: [[B0:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[PB0]]{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: [[V0:%.*]] = llvm.load [[B0]] : !llvm.ptr<3> -> f32
// CHECK: [[D4:%.*]] = arith.constant 4 : i32
// CHECK-NEXT: [[J1:%.*]] = arith.addi {{%.*}}, [[D4]] : i32
// CHECK-NEXT: {{%.*}} = arith.constant 5 : i32
// CHECK-NEXT: [[SB1:%.*]] = arith.shrui [[J1]], %c5_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[PB1:%.*]] = arith.addi [[J1]], [[SB1]] : i32
// CHECK-NEXT: [[B1:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[PB1]]{{\]}}
// CHECK-NEXT: llvm.load [[B1]] : !llvm.ptr<3> -> f32
// CHECK-COUNT-5: llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK: [[D28:%.*]] = arith.constant 28 : i32
// CHECK-NEXT: [[J7:%.*]] = arith.addi {{%.*}}, [[D28]] : i32
// CHECK-NEXT: {{%.*}} = arith.constant 5 : i32
// CHECK-NEXT: [[SB7:%.*]] = arith.shrui [[J7]], %c5_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[PB7:%.*]] = arith.addi [[J7]], [[SB7]] : i32
// CHECK-NEXT: [[B7:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[PB7]]{{\]}}
// CHECK-NEXT: [[V7:%.*]] = llvm.load [[B7]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: llvm.store [[V0]], [[OUT]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-COUNT-6: llvm.store {{%.*}}, [[OUT]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT: llvm.store [[V7]], [[OUT]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT: gpu.return
#r = #tilegpu.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>
#c = #tilegpu.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @transpose_layout(%x: f32, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f32) -> tensor<32x32xf32, #r>
    %b = "tilegpu.convert_layout"(%a) : (tensor<32x32xf32, #r>) -> tensor<32x32xf32, #c>
    %ps = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<32x32x!tile.ptr<f32, 1 : i32>, #c>
    "tile.store"(%ps, %b) {cache = "none", evict = "evict_normal"} : (tensor<32x32x!tile.ptr<f32, 1 : i32>, #c>, tensor<32x32xf32, #c>) -> ()
    return
  }
}

// -----

// A conversion whose layouts both hold runs along the last dimension goes in vectors: on an
// sm_80 target the mma layout's pairs of fp16 are stored 4 bytes at a time and the [1, 8]
// blocked layout reads 16-byte vectors, at row-major indices with the 16-byte chunk of each
// 128-byte line XORed with the row (row & 7): 64 x 64 fp16 on 4 warps is 16 pairs stored and
// 4 vectors loaded per thread, around one barrier, with no element-wise shared access.
// CHECK-LABEL: gpu.func @convert_in_vectors
// CHECK-NOT: gpu.barrier
// CHECK: arith.xori
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK-COUNT-15: llvm.store {{%.*}}, {{%.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: llvm.load {{%.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: gpu.return
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
#v = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32, tilegpu.target = "cuda:80"} {
  func.func @convert_in_vectors(%x: f16, %p: !tile.ptr<f16, 1 : i32>) {
    %acc = "tile.splat"(%x) : (f16) -> tensor<64x64xf16, #mma>
    %b = "tilegpu.convert_layout"(%acc) : (tensor<64x64xf16, #mma>) -> tensor<64x64xf16, #v>
    %out = "tile.splat"(%p) : (!tile.ptr<f16, 1 : i32>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #v>
    "tile.store"(%out, %b) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #v>, tensor<64x64xf16, #v>) -> ()
    return
  }
}

// -----

// An fp32 accumulator goes in vectors too, but its pairs (8 bytes a lane, 4 lanes a row: 32
// bytes) are narrower than the 16-byte loads: with the 16-byte chunks XORed by row & 7, the
// 4 rows of a half-warp's store would share 2 chunk pairs of a line (2 wavefronts where 1
// serves). The bank model picks 32-byte chunks instead: column / 8 XORed with row & 3 (the
// column's low 3 bits kept: & 7); 16 pairs stored (8 bytes), 8 vectors of 4 loaded (16 bytes).
// CHECK-LABEL: gpu.func @convert_fp32_in_vectors
// CHECK-NOT: gpu.barrier
// CHECK: arith.constant 7 : i32
// CHECK-NEXT: arith.andi {{%.*}}, {{%c7_i32[_0-9]*}} : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: [[ROW:%.*]] = arith.shrui
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: [[PHASE:%.*]] = arith.andi [[ROW]], {{%c3_i32[_0-9]*}} : i32
// CHECK-NEXT: arith.xori {{%.*}}, [[PHASE]] : i32
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-COUNT-15: llvm.store {{%.*}}, {{%.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: llvm.load {{%.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: gpu.return
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
#v = #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32, tilegpu.target = "cuda:80"} {
  func.func @convert_fp32_in_vectors(%x: f32, %p: !tile.ptr<f32, 1 : i32>) {
    %acc = "tile.splat"(%x) : (f32) -> tensor<64x64xf32, #mma>
    %b = "tilegpu.convert_layout"(%acc) : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #v>
    %out = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #v>
    "tile.store"(%out, %b) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #v>, tensor<64x64xf32, #v>) -> ()
    return
  }
}

// -----

// On sm_90 the same conversion writes with stmatrix: the mma layout holds 8x8 matrices of fp16
// as stmatrix takes them (register bit 0 and lane bits 0-1 along the columns), so each thread
// stores its 16 pairs as 4 stmatrix.x4 (each lane giving the address of one 16-byte matrix row,
// swizzled as the vector loads read it), then one barrier and the same 4 vector loads.
// CHECK-LABEL: gpu.func @convert_with_stmatrix
// CHECK-NOT: gpu.barrier
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: arith.xori
// CHECK-COUNT-4: nvvm.stmatrix {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.load {{%.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: gpu.return
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
#v = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32, tilegpu.target = "cuda:90"} {
  func.func @convert_with_stmatrix(%x: f16, %p: !tile.ptr<f16, 1 : i32>) {
    %acc = "tile.splat"(%x) : (f16) -> tensor<64x64xf16, #mma>
    %b = "tilegpu.convert_layout"(%acc) : (tensor<64x64xf16, #mma>) -> tensor<64x64xf16, #v>
    %out = "tile.splat"(%p) : (!tile.ptr<f16, 1 : i32>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #v>
    "tile.store"(%out, %b) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #v>, tensor<64x64xf16, #v>) -> ()
    return
  }
}

// -----

// Conversions that keep every element in its thread cost nothing: #blocked<[1], [32], [4], [0]>
// and the slice of a column layout place 128 elements alike, and expand_dims reuses the
// registers. A mask converted across threads goes through shared memory as bytes: 256 of them
// (and one padding byte after the first 128: 257).
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 257 : i32
// CHECK-SAME: tilegpu.shared_largest = "{{.*}}:[[# @LINE + 34]]"
// CHECK-LABEL: gpu.func @converts
// CHECK-SAME: ([[P:%[^:]*]]: !llvm.ptr<1>, [[N:%[^:]*]]: i32)
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK-NOT: gpu.barrier
// CHECK: [[M0:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NEXT: [[M1:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NOT: gpu.barrier
// CHECK: [[E0:%.*]] = arith.extui [[M0]] : i1 to i8
// CHECK: [[A0:%.*]] = llvm.getelementptr [[SMEM]]{{.*}} -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store [[E0]], [[A0]] : i8, !llvm.ptr<3>
// CHECK: [[E1:%.*]] = arith.extui [[M1]] : i1 to i8
// CHECK: [[A1:%.*]] = llvm.getelementptr [[SMEM]]{{.*}} -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store [[E1]], [[A1]] : i8, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[L0:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> i8
// CHECK-NEXT: [[B0:%.*]] = arith.trunci [[L0]] : i8 to i1
// CHECK: [[L1:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> i8
// CHECK-NEXT: [[B1:%.*]] = arith.trunci [[L1]] : i8 to i1
// CHECK-NEXT: [[V0:%.*]] = arith.extui [[B0]] : i1 to i8
// CHECK-NEXT: [[V1:%.*]] = arith.extui [[B1]] : i1 to i8
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store {{%.*}}, [[P]] {alignment = 2 : i64} : vector<2xi8>, !llvm.ptr<1>
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b2 = #tilegpu.blocked<[2], [32], [4], [0]>
#col = #tilegpu.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @converts(%p: !tile.ptr<i8, 1 : i32>, %n: i32) {
    %r = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b1>
    %rs = "tilegpu.convert_layout"(%r) : (tensor<128xi32, #b1>) -> tensor<128xi32, #tilegpu.slice<1 : i32, #col>>
    %e = "tile.expand_dims"(%rs) {axis = 1 : i32} : (tensor<128xi32, #tilegpu.slice<1 : i32, #col>>) -> tensor<128x1xi32, #col>
    %m = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b1>
    %ns = "tile.splat"(%n) : (i32) -> tensor<256xi32, #b1>
    %mask = arith.cmpi slt, %m, %ns : tensor<256xi32, #b1>
    %mask2 = "tilegpu.convert_layout"(%mask) : (tensor<256xi1, #b1>) -> tensor<256xi1, #b2>
    %ps = "tile.splat"(%p) : (!tile.ptr<i8, 1 : i32>) -> tensor<256x!tile.ptr<i8, 1 : i32>, #b2>
    %v = arith.extui %mask2 : tensor<256xi1, #b2> to tensor<256xi8, #b2>
    "tile.store"(%ps, %v) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<i8, 1 : i32>, #b2>, tensor<256xi8, #b2>) -> ()
    return
  }
}

// -----

// A gather along axis 0 of 4x32 fp32 (rows over warps, columns over lanes): the source is
// written at its row-major index, 32 x row + column, a barrier, and each thread reads the row
// its index names in its own column: 32 x index + column. One slot per element, padded by one
// every 32: 524 bytes.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 524 : i32
// CHECK-LABEL: gpu.func @gather_rows
// CHECK: [[SRC:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT: [[IDX:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NOT: gpu.barrier
// CHECK: [[ROWOFF:%.*]] = arith.muli [[ROW:%.*]], %c32_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[W:%.*]] = arith.addi [[ROWOFF]], [[COL:%.*]] : i32
// CHECK: [[W0:%.*]] = arith.addi [[W]], %c0_i32{{[_0-9]*}} : i32
// CHECK: [[A:%.*]] = llvm.getelementptr [[SMEM:%.*]]{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[SRC]], [[A]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: [[C32:%.*]] = arith.constant 32 : i32
// CHECK-NEXT: [[PICK:%.*]] = arith.muli [[IDX]], [[C32]] : i32
// CHECK-NEXT: [[R:%.*]] = arith.addi [[PICK]], [[COL]] : i32
// CHECK: [[R0:%.*]] = arith.addi [[R]], %c0_i32{{[_0-9]*}} : i32
// CHECK: [[B:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: [[V:%.*]] = llvm.load [[B]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: llvm.store [[V]], {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @gather_rows(%x: !tile.ptr<f32, 1 : i32>, %idx: !tile.ptr<i32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %xs = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>
    %src = "tile.load"(%xs) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<4x32xf32, #b>
    %is = "tile.splat"(%idx) : (!tile.ptr<i32, 1 : i32>) -> tensor<4x32x!tile.ptr<i32, 1 : i32>, #b>
    %i = "tile.load"(%is) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x32x!tile.ptr<i32, 1 : i32>, #b>) -> tensor<4x32xi32, #b>
    %g = "tile.gather"(%src, %i) {axis = 0 : i32} : (tensor<4x32xf32, #b>, tensor<4x32xi32, #b>) -> tensor<4x32xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%os, %g) {cache = "none", evict = "evict_normal"} : (tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>, tensor<4x32xf32, #b>) -> ()
    return
  }
}

// -----

// cat of two 4x32 fp32 blocks (rows over warps) along axis 0: the lhs is written at its
// row-major index in the 8x32 result (32 x row + column), the rhs 4 rows (128 elements)
// further, a barrier, and each thread reads its two result registers (rows w and w + 4): + 0
// and + 128. One slot per result element, padded by one every 32: 1052 bytes.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 1052 : i32
// CHECK-LABEL: gpu.func @cat_rows
// CHECK-SAME: ([[X:%[^:]*]]: f32, [[Y:%[^:]*]]: f32, [[OUT:%[^:]*]]: !llvm.ptr<1>)
// CHECK-NOT: gpu.barrier
// CHECK: [[WL:%.*]] = arith.addi {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK: [[AL:%.*]] = llvm.getelementptr [[SMEM:%.*]]{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[AL]] : f32, !llvm.ptr<3>
// CHECK: [[WR:%.*]] = arith.addi {{%.*}}, %c128_i32{{[_0-9]*}} : i32
// CHECK: [[AR:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: llvm.store [[Y]], [[AR]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[R0:%.*]] = arith.addi {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK: llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: [[V0:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK: [[R1:%.*]] = arith.addi {{%.*}}, %c128_i32{{[_0-9]*}} : i32
// CHECK: llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: [[V1:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: llvm.store [[V0]], [[OUT]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT: llvm.store [[V1]], [[OUT]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @cat_rows(%x: f32, %y: f32, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f32) -> tensor<4x32xf32, #b>
    %c = "tile.splat"(%y) : (f32) -> tensor<4x32xf32, #b>
    %r = "tile.cat"(%a, %c) : (tensor<4x32xf32, #b>, tensor<4x32xf32, #b>) -> tensor<8x32xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<8x32x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%os, %r) {cache = "none", evict = "evict_normal"} : (tensor<8x32x!tile.ptr<f32, 1 : i32>, #b>, tensor<8x32xf32, #b>) -> ()
    return
  }
}

// -----

// join of two 4x32 fp32 blocks into 4x32x2 with each pair in one thread ([1, 1, 2] per
// thread): the lhs is written at 2 x (32 x row + column), the rhs at that + 1, a barrier, and
// the thread reads both halves of its pair (+ 0, + 1) and stores them as one vector<2xf32>.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 1052 : i32
// CHECK-LABEL: gpu.func @join_pairs
// CHECK-SAME: ([[X:%[^:]*]]: f32, [[Y:%[^:]*]]: f32, [[OUT:%[^:]*]]: !llvm.ptr<1>)
// CHECK-NOT: gpu.barrier
// CHECK: [[R:%.*]] = arith.muli {{%.*}}, %c64_i32{{[_0-9]*}} : i32
// CHECK: [[C:%.*]] = arith.muli {{%.*}}, %c2_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[RC:%.*]] = arith.addi [[R]], [[C]] : i32
// CHECK: [[I0:%.*]] = arith.addi [[RC]], %c0_i32{{[_0-9]*}} : i32
// CHECK: [[A0:%.*]] = llvm.getelementptr [[SMEM:%.*]]{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A0]] : f32, !llvm.ptr<3>
// CHECK: [[I1:%.*]] = arith.addi {{%.*}}, %c1_i32{{[_0-9]*}} : i32
// CHECK: [[A1:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: llvm.store [[Y]], [[A1]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[V0:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK: arith.addi {{%.*}}, %c1_i32{{[_0-9]*}} : i32
// CHECK: llvm.getelementptr
// CHECK-NEXT: [[V1:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.insertelement [[V0]]
// CHECK: [[VEC:%.*]] = llvm.insertelement [[V1]]
// CHECK-NEXT: llvm.store [[VEC]], [[OUT]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>
#p = #tilegpu.blocked<[1, 1, 2], [1, 32, 1], [4, 1, 1], [2, 1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @join_pairs(%x: f32, %y: f32, %out: !tile.ptr<f32, 1 : i32>) {
    %a = "tile.splat"(%x) : (f32) -> tensor<4x32xf32, #b>
    %c = "tile.splat"(%y) : (f32) -> tensor<4x32xf32, #b>
    %j = "tile.join"(%a, %c) : (tensor<4x32xf32, #b>, tensor<4x32xf32, #b>) -> tensor<4x32x2xf32, #p>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x2x!tile.ptr<f32, 1 : i32>, #p>
    "tile.store"(%os, %j) {cache = "none", evict = "evict_normal"} : (tensor<4x32x2x!tile.ptr<f32, 1 : i32>, #p>, tensor<4x32x2xf32, #p>) -> ()
    return
  }
}

// -----

// split of 4x32x2 fp32 (each pair in one thread) into two 4x32 blocks: each half is its own
// round trip, the source written at 2 x (32 x row + column) + 0 / + 1, a barrier, and a read
// of + 0 (lhs) or + 1 (rhs); lhs - rhs keeps the halves in order. (The second round trip
// rewrites the same values without a barrier after the first one's reads: a race, but a
// harmless one.)
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 1052 : i32
// CHECK-LABEL: gpu.func @split_pairs
// CHECK: [[V:%.*]] = llvm.load {{%.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK: [[E0:%.*]] = llvm.extractelement [[V]]
// CHECK: [[E1:%.*]] = llvm.extractelement [[V]]
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store [[E0]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store [[E1]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[I0:%.*]] = arith.addi {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK: llvm.getelementptr {{%.*}}{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: [[LO:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.store [[E1]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[I1:%.*]] = arith.addi {{%.*}}, %c1_i32{{[_0-9]*}} : i32
// CHECK: llvm.getelementptr {{%.*}}{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: [[HI:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: [[D:%.*]] = arith.subf [[LO]], [[HI]] : f32
// CHECK-NEXT: llvm.store [[D]], {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>
#p = #tilegpu.blocked<[1, 1, 2], [1, 32, 1], [4, 1, 1], [2, 1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @split_pairs(%in: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x2x!tile.ptr<f32, 1 : i32>, #p>
    %x = "tile.load"(%ps) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x32x2x!tile.ptr<f32, 1 : i32>, #p>) -> tensor<4x32x2xf32, #p>
    %lo, %hi = "tile.split"(%x) : (tensor<4x32x2xf32, #p>) -> (tensor<4x32xf32, #b>, tensor<4x32xf32, #b>)
    %d = arith.subf %lo, %hi : tensor<4x32xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%os, %d) {cache = "none", evict = "evict_normal"} : (tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>, tensor<4x32xf32, #b>) -> ()
    return
  }
}

// -----

// trans of 4x32 fp32 (rows over warps, columns over lanes) into 32x4 in
// #blocked<[1, 1], [8, 4], [4, 1], [1, 0]>: element (row, column) is written at its transposed
// place, 4 x column + row (column: the lane's part), a barrier, and each thread reads its
// (row, column) of the result at 4 x row + column. 524 bytes (padded).
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 524 : i32
// CHECK-LABEL: gpu.func @trans
// CHECK: [[L16:%.*]] = arith.muli {{%.*}}, %c16_i32 : i32
// CHECK-NEXT: [[COL:%.*]] = arith.addi {{%.*}}, [[L16]] : i32
// CHECK: [[X:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: gpu.barrier
// CHECK: [[C4:%.*]] = arith.muli [[COL]], %c4_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[W:%.*]] = arith.addi [[C4]], [[ROW:%.*]] : i32
// CHECK: [[W0:%.*]] = arith.addi [[W]], %c0_i32{{[_0-9]*}} : i32
// CHECK: [[A:%.*]] = llvm.getelementptr [[SMEM:%.*]]{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[R4:%.*]] = arith.muli [[TROW:%.*]], %c4_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[R:%.*]] = arith.addi [[R4]], [[TCOL:%.*]] : i32
// CHECK: [[R0:%.*]] = arith.addi [[R]], %c0_i32{{[_0-9]*}} : i32
// CHECK: [[B:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: [[V:%.*]] = llvm.load [[B]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: llvm.store [[V]], {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>
#t = #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @trans(%in: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>
    %x = "tile.load"(%ps) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<4x32xf32, #b>
    %t = "tile.trans"(%x) {order = array<i32: 1, 0>} : (tensor<4x32xf32, #b>) -> tensor<32x4xf32, #t>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<32x4x!tile.ptr<f32, 1 : i32>, #t>
    "tile.store"(%os, %t) {cache = "none", evict = "evict_normal"} : (tensor<32x4x!tile.ptr<f32, 1 : i32>, #t>, tensor<32x4xf32, #t>) -> ()
    return
  }
}

// -----

// reshape of 32x4 fp32 (rows over lanes, columns over warps) into 128 in
// #blocked<[1], [32], [4], [0]>: element (row, column) is written at its row-major index,
// 4 x row + column (row: the lane's part), a barrier, and each thread reads its result element
// at its thread offset (lane + 32 x warp). 524 bytes (padded).
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 524 : i32
// CHECK-LABEL: gpu.func @reshape
// CHECK: [[L16:%.*]] = arith.muli {{%.*}}, %c16_i32 : i32
// CHECK-NEXT: [[ROW:%.*]] = arith.addi {{%.*}}, [[L16]] : i32
// CHECK: [[X:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: gpu.barrier
// CHECK: [[R4:%.*]] = arith.muli [[ROW]], %c4_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[W:%.*]] = arith.addi [[R4]], [[COL:%.*]] : i32
// CHECK: [[W0:%.*]] = arith.addi [[W]], %c0_i32{{[_0-9]*}} : i32
// CHECK: [[A:%.*]] = llvm.getelementptr [[SMEM:%.*]]{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[R0:%.*]] = arith.addi [[T:%.*]], %c0_i32{{[_0-9]*}} : i32
// CHECK: [[B:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: [[V:%.*]] = llvm.load [[B]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: llvm.store [[V]], {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#c = #tilegpu.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @reshape(%in: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<32x4x!tile.ptr<f32, 1 : i32>, #c>
    %x = "tile.load"(%ps) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x4x!tile.ptr<f32, 1 : i32>, #c>) -> tensor<32x4xf32, #c>
    %r = "tile.reshape"(%x) {allow_reorder = false} : (tensor<32x4xf32, #c>) -> tensor<128xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%os, %r) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xf32, #b>) -> ()
    return
  }
}
