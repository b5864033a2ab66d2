// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: the kernel's frame (gpu.module @kernels, gpu.func,
// gpu.container_module; passes/tilegpu_to_llvm.py), the thread id split into lane and
// warp and a layout's thread offsets (python/tilec/lowering/context.py).

// The kernel's frame: the module becomes a gpu.container_module recording its shared memory, the
// func.func a gpu.func kernel of 4 x 32 threads in gpu.module @kernels (beside the dynamic
// shared-memory global), pointers global LLVM pointers. The thread id splits into lane (low 5
// bits) and warp (read from lane 0 by shfl.sync.idx, so ptxas knows every lane holds the same
// value and keeps what is computed from it in uniform registers); each thread's offset in a
// layout is built from their bits (here lane + 32 x warp). A 256-element block in
// #tilegpu.blocked<[1], [32], [4], [0]> is 2 registers per thread
// (elements t and t + 128): make_range adds the thread offset to 0 and 128, splat reuses its
// scalar, addf becomes 2 scalar addf, addptr 2 GEPs, the store 2 scalar stores.
// CHECK: module attributes {gpu.container_module, tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 0 : i32, tilegpu.threads_per_warp = 32 : i32}
// CHECK-NEXT: gpu.module @kernels {
// CHECK-NEXT: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-NEXT: gpu.func @add_256([[X:%[^:]*]]: f32, [[OUT:%[^:]*]]: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
// CHECK-NEXT: [[TID:%.*]] = gpu.thread_id x
// CHECK-NEXT: [[T:%.*]] = arith.index_cast [[TID]] : index to i32
// CHECK-NEXT: [[C31:%.*]] = arith.constant 31 : i32
// CHECK-NEXT: [[LANE:%.*]] = arith.andi [[T]], [[C31]] : i32
// CHECK-NEXT: [[C5:%.*]] = arith.constant 5 : i32
// CHECK-NEXT: [[W:%.*]] = arith.shrui [[T]], [[C5]] : i32
// CHECK: [[WARP:%.*]] = nvvm.shfl.sync idx {{%.*}}, [[W]], {{%.*}}, {{%.*}} : i32 -> i32
// CHECK: arith.shrui [[LANE]], {{%.*}} : i32
// CHECK: [[C16:%.*]] = arith.constant 16 : i32
// CHECK-NEXT: [[L4:%.*]] = arith.muli {{%.*}}, [[C16]] : i32
// CHECK: arith.shrui [[WARP]], {{%.*}} : i32
// CHECK: [[C64:%.*]] = arith.constant 64 : i32
// CHECK-NEXT: [[W1:%.*]] = arith.muli {{%.*}}, [[C64]] : i32
// CHECK-NEXT: [[TOFF:%.*]] = arith.addi {{%.*}}, [[W1]] : i32
// CHECK: [[I0:%.*]] = arith.addi [[TOFF]], {{%.*}} : i32
// CHECK-NEXT: [[C128:%.*]] = arith.constant 128 : i32
// CHECK-NEXT: [[I1:%.*]] = arith.addi [[TOFF]], [[C128]] : i32
// CHECK-NEXT: [[A0:%.*]] = arith.addf [[X]], [[X]] : f32
// CHECK-NEXT: [[A1:%.*]] = arith.addf [[X]], [[X]] : f32
// CHECK-NEXT: [[P0:%.*]] = llvm.getelementptr [[OUT]]{{\[}}[[I0]]{{\]}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK-NEXT: [[P1:%.*]] = llvm.getelementptr [[OUT]]{{\[}}[[I1]]{{\]}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK-NEXT: llvm.store [[A0]], [[P0]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT: llvm.store [[A1]], [[P1]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT: gpu.return
// CHECK-NOT: func.func
// CHECK-NOT: tensor<
// CHECK-NOT: tile.
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @add_256(%x: f32, %out: !tile.ptr<f32, 1 : i32>) {
    %r = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %s = "tile.splat"(%x) : (f32) -> tensor<256xf32, #b>
    %t = arith.addf %s, %s : tensor<256xf32, #b>
    %ps = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %r) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%pp, %t) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xf32, #b>) -> ()
    return
  }
}

// -----

// Two kernels in one program: both become gpu.funcs of the one gpu.module @kernels (with one
// @global_smem), in their order.
// CHECK: gpu.module @kernels {
// CHECK-NEXT: llvm.mlir.global external @global_smem
// CHECK-LABEL: gpu.func @first
// CHECK: gpu.return
// CHECK-NEXT: }
// CHECK-NOT: gpu.module
// CHECK-LABEL: gpu.func @second
// CHECK: llvm.store
// CHECK: gpu.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @first(%out: !tile.ptr<f32, 1 : i32>, %x: f32) {
    %xs = "tile.splat"(%x) : (f32) -> tensor<128xf32, #b>
    %ps = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xi32, #b>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%pp, %xs) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xf32, #b>) -> ()
    return
  }
  func.func @second(%out: !tile.ptr<f32, 1 : i32>, %x: f32) {
    %xs = "tile.splat"(%x) : (f32) -> tensor<128xf32, #b>
    %ps = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xi32, #b>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%pp, %xs) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xf32, #b>) -> ()
    return
  }
}

// -----

// Programs of 2-CTA thread block clusters (tilegpu.num_ctas = 2): the gpu.func says its cluster
// size (nvvm.cluster_dim, PTX .reqnctapercluster), the entry branches on the CTA's rank in its
// cluster, rank 0 to the kernel's code and the others to a return, and program_id and
// num_programs are the cluster's id and the number of clusters.
// CHECK-LABEL: gpu.func @cluster_ids
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-NEXT: [[RANK:%.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[FIRST:%.*]] = arith.cmpi eq, [[RANK]], [[C0]] : i32
// CHECK-NEXT: cf.cond_br [[FIRST]], ^[[BODY:bb[0-9]+]], ^[[LEAVE:bb[0-9]+]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK: [[PID:%.*]] = gpu.cluster_id y
// CHECK-NEXT: [[PID32:%.*]] = arith.index_cast [[PID]] : index to i32
// CHECK-NEXT: [[NUM:%.*]] = gpu.cluster_dim x
// CHECK-NEXT: [[NUM32:%.*]] = arith.index_cast [[NUM]] : index to i32
// CHECK: st.global.b32 {{.*}} [[PID32]] :
// CHECK-NEXT: st.global.b32 {{.*}} [[NUM32]] :
// CHECK-NEXT: gpu.return
// CHECK-NEXT: ^[[LEAVE]]:
// CHECK-NEXT: gpu.return
// CHECK-NOT: gpu.block_id
module attributes {tilegpu.num_ctas = 2 : i32, tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @cluster_ids(%out: !tile.ptr<i32, 1 : i32>) {
    %pid = "tile.program_id"() {axis = 1 : i32} : () -> i32
    %num = "tile.num_programs"() {axis = 0 : i32} : () -> i32
    %c1 = arith.constant 1 : i32
    %second = "tile.addptr"(%out, %c1) : (!tile.ptr<i32, 1 : i32>, i32) -> !tile.ptr<i32, 1 : i32>
    "tile.store"(%out, %pid) {cache = "none", evict = "evict_normal"} : (!tile.ptr<i32, 1 : i32>, i32) -> ()
    "tile.store"(%second, %num) {cache = "none", evict = "evict_normal"} : (!tile.ptr<i32, 1 : i32>, i32) -> ()
    return
  }
}

// -----

// A kernel whose rows tile-split-ctas shared out among its CTAs (tile.split_ctas): every CTA runs
// it (no branch at the entry), and tile.cta_rank reads the CTA's rank in its cluster.
// CHECK-LABEL: gpu.func @split_rows
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-NOT: cf.cond_br
// CHECK: [[RANK:%.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: st.global.b32 {{.*}} [[RANK]] :
// CHECK-NEXT: gpu.return
// CHECK-NEXT: }
module attributes {tilegpu.num_ctas = 2 : i32, tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @split_rows(%out: !tile.ptr<i32, 1 : i32>) attributes {tile.kernel, tile.split_ctas = 2 : i32} {
    %rank = "tile.cta_rank"() : () -> i32
    "tile.store"(%out, %rank) {cache = "none", evict = "evict_normal"} : (!tile.ptr<i32, 1 : i32>, i32) -> ()
    return
  }
}
