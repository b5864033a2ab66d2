// RUN: not tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm 2>/dev/null | filecheck %s
// The chunks that lower produce no diagnostics; the one with an unsupported op produces exactly
// the error it expects (and makes the first RUN line exit non-zero, hence `not`).
// RUN: tilec-opt %s --split-input-file --verify-diagnostics --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm
// Through the upstream tail, gpu.printf becomes vprintf and cf.assert __assertfail with the
// op's file and line and the kernel's name (NVVM lines):
// RUN: not tilec-opt %s --split-input-file --pass-pipeline='builtin.module(tilegpu-allocate-shared-memory,tilegpu-membar,convert-tilegpu-to-llvm,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm))' 2>/dev/null | filecheck %s --check-prefix=NVVM

// The kernel's frame: the module becomes a gpu.container_module recording its shared memory, the
// func.func a gpu.func kernel of 4 x 32 threads in gpu.module @kernels (beside the dynamic
// shared-memory global), pointers global LLVM pointers. The thread id splits into lane (low 5
// bits) and warp; each thread's offset in a layout is built from their bits (here lane + 32 x
// warp). A 256-element block in #tilegpu.blocked<[1], [32], [4], [0]> is 2 registers per thread
// (elements t and t + 128): make_range adds the thread offset to 0 and 128, splat reuses its
// scalar, addf becomes 2 scalar addf, addptr 2 GEPs, the store 2 scalar stores.
// CHECK: module attributes {gpu.container_module, tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 0 : i32, tilegpu.threads_per_warp = 32 : i32}
// CHECK-NEXT: gpu.module @kernels {
// CHECK-NEXT: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NEXT: gpu.func @add_256([[X:%[^:]*]]: f32, [[OUT:%[^:]*]]: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
// CHECK-NEXT: [[TID:%.*]] = gpu.thread_id x
// CHECK-NEXT: [[T:%.*]] = arith.index_cast [[TID]] : index to i32
// CHECK-NEXT: [[C31:%.*]] = arith.constant 31 : i32
// CHECK-NEXT: [[LANE:%.*]] = arith.andi [[T]], [[C31]] : i32
// CHECK-NEXT: [[C5:%.*]] = arith.constant 5 : i32
// CHECK-NEXT: [[WARP:%.*]] = arith.shrui [[T]], [[C5]] : i32
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

// Vector add as tilegpu-coalesce leaves it: 1024 fp32 in #tilegpu.blocked<[4], [32], [4], [0]>,
// two runs of 4 contiguous elements per thread (at 4t and 4t + 512). Each run is one 16-byte
// vector access; a masked one is guarded by the mask of the run's first element and yields zeros
// when masked off. program_id is the block id.
// CHECK-LABEL: gpu.func @vector_add
// CHECK-SAME: ([[X:%[^:]*]]: !llvm.ptr<1>, [[Y:%[^:]*]]: !llvm.ptr<1>, [[OUT:%[^:]*]]: !llvm.ptr<1>, [[N:%[^:]*]]: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: [[BID:%.*]] = gpu.block_id x
// CHECK-NEXT: [[PID:%.*]] = arith.index_cast [[BID]] : index to i32
// CHECK-NEXT: [[START:%.*]] = arith.muli [[PID]], {{%.*}} : i32
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[R0:%.*]] = arith.addi [[TOFF:%.*]], [[C0]] : i32
// CHECK-NEXT: [[C1:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[R1:%.*]] = arith.addi [[TOFF]], [[C1]] : i32
// CHECK: [[C512:%.*]] = arith.constant 512 : i32
// CHECK-NEXT: [[R4:%.*]] = arith.addi [[TOFF]], [[C512]] : i32
// CHECK: [[OFF0:%.*]] = arith.addi [[START]], [[R0]] : i32
// CHECK: [[OFF4:%.*]] = arith.addi [[START]], [[R4]] : i32
// CHECK: [[M0:%.*]] = arith.cmpi slt, [[OFF0]], [[N]] : i32
// CHECK: [[M4:%.*]] = arith.cmpi slt, [[OFF4]], [[N]] : i32
// CHECK: [[XP0:%.*]] = llvm.getelementptr [[X]]{{\[}}[[OFF0]]{{\]}}
// CHECK: [[XP4:%.*]] = llvm.getelementptr [[X]]{{\[}}[[OFF4]]{{\]}}
// CHECK: [[XV0:%.*]] = scf.if [[M0]] -> (vector<4xf32>) {
// CHECK-NEXT: [[L:%.*]] = llvm.load [[XP0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NEXT: scf.yield [[L]] : vector<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: [[ZERO:%.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT: scf.yield [[ZERO]] : vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: [[E0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[X0:%.*]] = llvm.extractelement [[XV0]]{{\[}}[[E0]] : i32] : vector<4xf32>
// CHECK: [[E3:%.*]] = arith.constant 3 : i32
// CHECK-NEXT: [[X3:%.*]] = llvm.extractelement [[XV0]]{{\[}}[[E3]] : i32] : vector<4xf32>
// CHECK-NEXT: [[XV4:%.*]] = scf.if [[M4]] -> (vector<4xf32>) {
// CHECK-NEXT: llvm.load [[XP4]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: [[YP0:%.*]] = llvm.getelementptr [[Y]]{{\[}}[[OFF0]]{{\]}}
// CHECK: [[YV0:%.*]] = scf.if [[M0]] -> (vector<4xf32>) {
// CHECK-NEXT: llvm.load [[YP0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: [[Y0:%.*]] = llvm.extractelement [[YV0]]
// CHECK: [[S0:%.*]] = arith.addf [[X0]], [[Y0]] : f32
// CHECK-COUNT-7: arith.addf {{.*}} : f32
// CHECK: [[OP0:%.*]] = llvm.getelementptr [[OUT]]{{\[}}[[OFF0]]{{\]}}
// CHECK: [[U:%.*]] = llvm.mlir.undef : vector<4xf32>
// CHECK-NEXT: [[I0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[V0:%.*]] = llvm.insertelement [[S0]], [[U]]{{\[}}[[I0]] : i32] : vector<4xf32>
// CHECK: [[I3:%.*]] = arith.constant 3 : i32
// CHECK-NEXT: [[V3:%.*]] = llvm.insertelement {{%.*}}, {{%.*}}{{\[}}[[I3]] : i32] : vector<4xf32>
// CHECK-NEXT: scf.if [[M0]] {
// CHECK-NEXT: llvm.store [[V3]], [[OP0]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT: }
// CHECK: scf.if [[M4]] {
// CHECK-NEXT: llvm.store {{%.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @vector_add(%x: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %c1024 = arith.constant 1024 : i32
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %start = arith.muli %pid, %c1024 : i32
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b4>
    %starts = "tile.splat"(%start) : (i32) -> tensor<1024xi32, #b4>
    %offs = arith.addi %starts, %range : tensor<1024xi32, #b4>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32, #b4>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #b4>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %xp = "tile.addptr"(%xs, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi32, #b4>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %xv = "tile.load"(%xp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi1, #b4>) -> tensor<1024xf32, #b4>
    %ys = "tile.splat"(%y) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %yp = "tile.addptr"(%ys, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi32, #b4>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %yv = "tile.load"(%yp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi1, #b4>) -> tensor<1024xf32, #b4>
    %sum = arith.addf %xv, %yv : tensor<1024xf32, #b4>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    %op = "tile.addptr"(%os, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xi32, #b4>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>
    "tile.store"(%op, %sum, %mask) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b4>, tensor<1024xf32, #b4>, tensor<1024xi1, #b4>) -> ()
    return
  }
}

// -----

// Without a mask, the same accesses are plain vector loads and stores; with `other`, a masked
// scalar load (one element per thread and run) yields the other value when masked off.
// CHECK-LABEL: gpu.func @unmasked_and_other
// CHECK-SAME: ([[P:%[^:]*]]: !llvm.ptr<1>, [[Q:%[^:]*]]: !llvm.ptr<1>, [[N:%[^:]*]]: i32, [[OTHER:%[^:]*]]: f32)
// CHECK: [[P0:%.*]] = llvm.getelementptr [[P]]
// CHECK-NOT: scf.if
// CHECK: [[V:%.*]] = llvm.load [[P0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: llvm.extractelement [[V]]{{\[}}[[C0]] : i32] : vector<4xf32>
// CHECK-NOT: scf.if
// CHECK: llvm.store {{%.*}}, [[P0]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: [[R:%.*]] = arith.addi
// CHECK-NEXT: [[M:%.*]] = arith.cmpi slt, [[R]], [[N]] : i32
// CHECK-NEXT: [[Q0:%.*]] = llvm.getelementptr [[Q]]
// CHECK-NEXT: [[S:%.*]] = scf.if [[M]] -> (f32) {
// CHECK-NEXT: [[L:%.*]] = llvm.load [[Q0]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT: scf.yield [[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield [[OTHER]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.if [[M]] {
// CHECK-NEXT: llvm.store [[S]], [[Q0]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b1 = #tilegpu.blocked<[1], [32], [4], [0]>
#b4 = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @unmasked_and_other(%p: !tile.ptr<f32, 1 : i32>, %q: !tile.ptr<f32, 1 : i32>, %n: i32, %other: f32) {
    %r4 = "tile.make_range"() {end = 512 : i32, start = 0 : i32} : () -> tensor<512xi32, #b4>
    %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b4>
    %pp = "tile.addptr"(%ps, %r4) : (tensor<512x!tile.ptr<f32, 1 : i32>, #b4>, tensor<512xi32, #b4>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b4>
    %v = "tile.load"(%pp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<512x!tile.ptr<f32, 1 : i32>, #b4>) -> tensor<512xf32, #b4>
    "tile.store"(%pp, %v) {cache = "none", evict = "evict_normal"} : (tensor<512x!tile.ptr<f32, 1 : i32>, #b4>, tensor<512xf32, #b4>) -> ()
    %r1 = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b1>
    %ns = "tile.splat"(%n) : (i32) -> tensor<128xi32, #b1>
    %m = arith.cmpi slt, %r1, %ns : tensor<128xi32, #b1>
    %qs = "tile.splat"(%q) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b1>
    %qq = "tile.addptr"(%qs, %r1) : (tensor<128x!tile.ptr<f32, 1 : i32>, #b1>, tensor<128xi32, #b1>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b1>
    %os = "tile.splat"(%other) : (f32) -> tensor<128xf32, #b1>
    %w = "tile.load"(%qq, %m, %os) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b1>, tensor<128xi1, #b1>, tensor<128xf32, #b1>) -> tensor<128xf32, #b1>
    "tile.store"(%qq, %w, %m) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b1>, tensor<128xf32, #b1>, tensor<128xi1, #b1>) -> ()
    return
  }
}

// -----

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

// -----

// 64 elements over 128 threads: warps 2 and 3 hold copies of warps 0 and 1's elements, so only
// threads whose replicated warp bit is 0 store (one predicate, computed once).
// CHECK-LABEL: gpu.func @replicated_store
// CHECK: [[WARP:%.*]] = arith.shrui {{%.*}}, {{%.*}} : i32
// CHECK: [[BIT:%.*]] = arith.andi [[WARP]], {{%.*}} : i32
// CHECK: [[OWNER:%.*]] = arith.cmpi eq, [[BIT]], {{%.*}} : i32
// CHECK: scf.if [[OWNER]] {
// CHECK-NEXT: llvm.store {{%.*}}, {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK: gpu.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @replicated_store(%out: !tile.ptr<f32, 1 : i32>, %x: f32) {
    %xs = "tile.splat"(%x) : (f32) -> tensor<64xf32, #b>
    %ps = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<64x!tile.ptr<f32, 1 : i32>, #b>, tensor<64xi32, #b>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%pp, %xs) {cache = "none", evict = "evict_normal"} : (tensor<64x!tile.ptr<f32, 1 : i32>, #b>, tensor<64xf32, #b>) -> ()
    return
  }
}

// -----

// A sum of 512 fp32 over 4 warps (4 registers per thread): the thread adds its 4 registers,
// the warp combines with butterfly shuffles over lane bits 1, 2, 4, 8, 16, each warp writes its
// partial to its slot of @global_smem (the first use of shared memory: no barrier before it),
// waits at a barrier, and every thread adds the 4 slots in order. The module records the 16
// bytes the reduction needs.
// CHECK: tilegpu.shared_bytes = 16 : i32
// CHECK-LABEL: gpu.func @sum_512
// CHECK: [[V:%.*]] = llvm.load {{%.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: llvm.extractelement [[V]]
// CHECK-COUNT-3: arith.addf
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c1_i32{{[_0-9]*}},
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c2_i32{{[_0-9]*}},
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c4_i32{{[_0-9]*}},
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c8_i32{{[_0-9]*}},
// CHECK: nvvm.shfl.sync  bfly {{%.*}}, {{%.*}}, %c16_i32{{[_0-9]*}},
// CHECK: [[WARP_SUM:%.*]] = arith.addf
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store [[WARP_SUM]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK: [[TOTAL:%.*]] = arith.addf
// CHECK-NEXT: llvm.store [[TOTAL]], %arg1
// CHECK-NEXT: gpu.return
#b = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @sum_512(%x: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %rg = "tile.make_range"() {end = 512 : i32, start = 0 : i32} : () -> tensor<512xi32, #b>
    %ps = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<512x!tile.ptr<f32, 1 : i32>, #b>, tensor<512xi32, #b>) -> tensor<512x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%pp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<512x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<512xf32, #b>
    %s = "tile.reduce"(%v) ({
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512xf32, #b>) -> f32
    "tile.store"(%out, %s) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
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

// A conversion whose layouts both hold runs along the last dimension goes in vectors: the
// mma layout's pairs of fp16 are stored 4 bytes at a time and the [1, 8] blocked layout reads
// 16-byte vectors, at row-major indices with the 16-byte chunk of each 128-byte line XORed
// with the row (row & 7): 64 x 64 fp16 on 4 warps is 16 pairs stored and 4 vectors loaded per
// thread, around one barrier, with no element-wise shared access.
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
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @convert_in_vectors(%x: f16, %p: !tile.ptr<f16, 1 : i32>) {
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

// A print of a 256-element tensor, 2 registers per thread (elements t and t + 128): one
// gpu.printf per register in Triton's format, the program ids (gpu.block_id x, y, z) first,
// then the element's index (the thread offset plus the register's constant, padded to the 3
// digits of 255), the prefix written as " x: " and the value (%f; vprintf gets a double). No
// thread holds a copy of another's elements, so none is guarded.
// CHECK-LABEL: gpu.func @print_tensor
// CHECK: [[BX:%.*]] = gpu.block_id x
// CHECK-NEXT: [[PX:%.*]] = arith.index_cast [[BX]] : index to i32
// CHECK-NEXT: [[BY:%.*]] = gpu.block_id y
// CHECK-NEXT: [[PY:%.*]] = arith.index_cast [[BY]] : index to i32
// CHECK-NEXT: [[BZ:%.*]] = gpu.block_id z
// CHECK-NEXT: [[PZ:%.*]] = arith.index_cast [[BZ]] : index to i32
// CHECK: [[X0:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT: [[X1:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: scf.if
// CHECK: [[I0:%.*]] = arith.addi [[TOFF:%[^ ,]+]], {{%.*}} : i32
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) idx (%3d) x: %f\0A", [[PX]], [[PY]], [[PZ]], [[I0]], [[X0]] : i32, i32, i32, i32, f32
// CHECK-NEXT: [[C128:%.*]] = arith.constant 128 : i32
// CHECK-NEXT: [[I1:%.*]] = arith.addi [[TOFF]], [[C128]] : i32
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) idx (%3d) x: %f\0A", [[PX]], [[PY]], [[PZ]], [[I1]], [[X1]] : i32, i32, i32, i32, f32
// CHECK-NEXT: gpu.return
// NVVM: llvm.mlir.global internal constant @printfFormat_0("pid (%d, %d, %d) idx (%3d) x: %f\0A\00")
// NVVM: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// NVVM-LABEL: llvm.func @print_tensor
// NVVM: llvm.fpext {{%.*}} : f32 to f64
// NVVM: llvm.call @vprintf
// NVVM: llvm.fpext {{%.*}} : f32 to f64
// NVVM: llvm.call @vprintf
// NVVM-NOT: llvm.call @vprintf
// NVVM: llvm.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @print_tensor(%in: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %x = "tile.load"(%pp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<256xf32, #b>
    "tile.print"(%x) {prefix = "x", hex = false} : (tensor<256xf32, #b>) -> ()
    return
  }
}

// -----

// 64 i16 elements over 128 threads: warps 2 and 3 hold copies of warps 0 and 1's elements, so
// only threads whose replicated warp bit is 0 print. In hex, the value is zero-extended to the
// 32 bits vprintf reads and printed as Triton does, padded to the type's 4 hex digits.
// CHECK-LABEL: gpu.func @print_replicated_hex
// CHECK: [[WARP:%.*]] = arith.shrui {{%.*}}, {{%.*}} : i32
// CHECK: [[BIT:%.*]] = arith.andi [[WARP]], {{%.*}} : i32
// CHECK: [[OWNER:%.*]] = arith.cmpi eq, [[BIT]], {{%.*}} : i32
// CHECK: [[V:%.*]] = arith.trunci {{%.*}} : i32 to i16
// CHECK-NEXT: scf.if [[OWNER]] {
// CHECK: [[W:%.*]] = arith.extui [[V]] : i16 to i32
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) idx (%2d) v: 0x%04x\0A", {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}, [[W]] : i32, i32, i32, i32, i32
// CHECK-NEXT: }
// CHECK-NOT: gpu.printf
// CHECK: gpu.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @print_replicated_hex() {
    %rg = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #b>
    %v = arith.trunci %rg : tensor<64xi32, #b> to tensor<64xi16, #b>
    "tile.print"(%v) {prefix = "v", hex = true} : (tensor<64xi16, #b>) -> ()
    return
  }
}

// -----

// A scalar is printed once per program, by thread 0 (lane and warp ids zero), with an empty
// index; a print without a value prints the program ids and the prefix only.
// CHECK-LABEL: gpu.func @print_scalar
// CHECK-SAME: ([[N:%[^:]*]]: i32)
// CHECK: [[TID:%.*]] = arith.index_cast {{%.*}} : index to i32
// CHECK: [[LANE:%.*]] = arith.andi [[TID]], {{%.*}} : i32
// CHECK: [[WARP:%.*]] = arith.shrui [[TID]], {{%.*}} : i32
// CHECK: [[LBITS:%.*]] = arith.andi [[LANE]], {{%.*}} : i32
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[L0:%.*]] = arith.cmpi eq, [[LBITS]], [[C0]] : i32
// CHECK: [[WBITS:%.*]] = arith.andi [[WARP]], {{%.*}} : i32
// CHECK-NEXT: [[C0W:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[W0:%.*]] = arith.cmpi eq, [[WBITS]], [[C0W]] : i32
// CHECK-NEXT: [[THREAD0:%.*]] = arith.andi [[L0]], [[W0]] : i1
// CHECK: [[PX:%.*]] = arith.index_cast {{%.*}} : index to i32
// CHECK: [[PY:%.*]] = arith.index_cast {{%.*}} : index to i32
// CHECK: [[PZ:%.*]] = arith.index_cast {{%.*}} : index to i32
// CHECK: scf.if [[THREAD0]] {
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) idx () n: %d\0A", [[PX]], [[PY]], [[PZ]], [[N]] : i32, i32, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.if {{%.*}} {
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) done\0A", [[PX]], [[PY]], [[PZ]] : i32, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// NVVM-LABEL: llvm.func @print_scalar
// NVVM: llvm.call @vprintf
// NVVM: llvm.call @vprintf
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @print_scalar(%n: i32) {
    "tile.print"(%n) {prefix = "n", hex = false} : (i32) -> ()
    "tile.print"() {prefix = "done", hex = false} : () -> ()
    return
  }
}

// -----

// An assert checks every register this thread holds (the conditions and-ed) with one cf.assert
// carrying the message; its location names the kernel around the op's file and line, which
// the tail passes to __assertfail (message, file, line, function, char size 1).
// CHECK-LABEL: gpu.func @check_in_range
// CHECK-SAME: ([[N:%[^:]*]]: i32)
// CHECK: [[OK0:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NEXT: [[OK1:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NEXT: [[ALL:%.*]] = arith.andi [[OK0]], [[OK1]] : i1
// CHECK-NEXT: cf.assert [[ALL]], "index out of range"
// CHECK-NEXT: gpu.return
// NVVM-DAG: llvm.mlir.global internal constant @[[FUNC:assert_func_[0-9]+]]("check_in_range\00")
// NVVM-DAG: llvm.mlir.global internal constant @[[FILE:assert_file_[0-9]+]]("kernel.py\00")
// NVVM-DAG: llvm.mlir.global internal constant @[[MSG:assert_message_[0-9]+]]("index out of range\00")
// NVVM-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
// NVVM-LABEL: llvm.func @check_in_range
// NVVM: llvm.cond_br {{%.*}}, ^[[OK:bb[0-9]+]], ^[[FAIL:bb[0-9]+]]
// NVVM: ^[[FAIL]]:
// NVVM: llvm.mlir.addressof @[[MSG]]
// NVVM: llvm.mlir.addressof @[[FILE]]
// NVVM: llvm.mlir.addressof @[[FUNC]]
// NVVM: [[LINE:%.*]] = llvm.mlir.constant(12 : i32) : i32
// NVVM: llvm.call @__assertfail({{%.*}}, {{%.*}}, [[LINE]], {{%.*}}, {{%.*}})
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @check_in_range(%n: i32) {
    %rg = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %ns = "tile.splat"(%n) : (i32) -> tensor<256xi32, #b>
    %ok = arith.cmpi slt, %rg, %ns : tensor<256xi32, #b>
    "tile.assert"(%ok) {message = "index out of range"} : (tensor<256xi1, #b>) -> () loc("kernel.py":12:5)
    return
  }
}

// -----

// Inclusive scans (cumsum) along axis 0 of 4x32 fp32, rows over the 4 warps, one register per
// thread: Hillis-Steele doubling through shared memory, log2(4) = 2 steps. A step writes the
// thread's value at its row-major index (32 x row + column), waits at a barrier, reads the
// element `step` rows earlier (32 x step before; for the reverse scan, later: + 32 x step) where
// that row exists, and adds it. A barrier separates a step's reads from the next step's writes;
// the kernel's first write has none before it, and tilegpu-membar puts one between the two
// scans, which reuse the same 128 slots of 8 bytes.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 1024 : i32
// CHECK-LABEL: gpu.func @cumsum
// CHECK: [[X:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: gpu.barrier
// CHECK: [[A:%.*]] = llvm.getelementptr [[SCR:%.*]]{{\[}}[[I:%.*]]{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[HAS:%.*]] = arith.cmpi sge, [[ROW:%.*]], %c1_i32{{[_0-9]*}} : i32
// CHECK: [[J:%.*]] = arith.subi [[I]], %c32_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[SAFE:%.*]] = arith.select [[HAS]], [[J]], [[I]] : i32
// CHECK-NEXT: [[B:%.*]] = llvm.getelementptr [[SCR]]{{\[}}[[SAFE]]{{\]}}
// CHECK-NEXT: [[E:%.*]] = llvm.load [[B]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: [[SUM:%.*]] = arith.addf [[E]], [[X]] : f32
// CHECK-NEXT: [[V1:%.*]] = arith.select [[HAS]], [[SUM]], [[X]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store [[V1]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: arith.subi [[I]], %c64_i32{{[_0-9]*}} : i32
// CHECK: [[V2:%.*]] = arith.select {{%.*}}, {{%.*}}, [[V1]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store [[V2]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi slt, {{%.*}}, %c4_i32{{[_0-9]*}} : i32
// CHECK: arith.addi {{%.*}}, %c32_i32{{[_0-9]*}} : i32
// CHECK: arith.addi {{%.*}}, %c64_i32{{[_0-9]*}} : i32
// CHECK: [[R:%.*]] = arith.select {{.*}} : f32
// CHECK-NEXT: llvm.store [[R]], {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @cumsum(%in: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>
    %x = "tile.load"(%ps) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<4x32xf32, #b>
    %f = "tile.scan"(%x) ({
    ^bb0(%a: f32, %c: f32):
      %s = arith.addf %a, %c : f32
      gpu.yield %s : f32
    }) {axis = 0 : i32, reverse = false, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x32xf32, #b>) -> tensor<4x32xf32, #b>
    %r = "tile.scan"(%f) ({
    ^bb0(%a: f32, %c: f32):
      %s = arith.addf %a, %c : f32
      gpu.yield %s : f32
    }) {axis = 0 : i32, reverse = true, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x32xf32, #b>) -> tensor<4x32xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%os, %r) {cache = "none", evict = "evict_normal"} : (tensor<4x32x!tile.ptr<f32, 1 : i32>, #b>, tensor<4x32xf32, #b>) -> ()
    return
  }
}

// -----

// A sort of 32 rows of 4 fp32 along axis 1 (the 4 columns over 4 lanes): a bitonic network of
// 3 compare-exchange stages, (k, j) = (2, 1), (4, 2), (4, 1). A stage writes the thread's value
// at its row-major index, waits at a barrier, and reads its partner at position XOR j (index +
// (partner - position)); a barrier separates a stage's reads from the next one's writes, none
// precedes the first. Both threads of a pair order it as (first = lower position, second) and
// swap when `second olt first`, so they agree even when neither is smaller (NaN, -0.0 vs 0.0)
// and no element is lost; the thread keeps the smaller when bit j of its position is clear in
// an ascending block (bit k clear), the larger otherwise.
// Slots are 8 bytes: 1024 bytes.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 1024 : i32
// CHECK-LABEL: gpu.func @sort_rows
// CHECK: [[X:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: gpu.barrier
// CHECK: [[A:%.*]] = llvm.getelementptr [[SMEM:%.*]]{{\[}}[[I:%.*]]{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[PARTNER:%.*]] = arith.xori [[POS:%.*]], %c1_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[D:%.*]] = arith.subi [[PARTNER]], [[POS]] : i32
// CHECK: [[J:%.*]] = arith.addi [[I]], {{%.*}} : i32
// CHECK-NEXT: [[B:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[J]]{{\]}}
// CHECK-NEXT: [[O:%.*]] = llvm.load [[B]] : !llvm.ptr<3> -> f32
// CHECK: [[LOWER:%.*]] = arith.cmpi eq, {{%.*}} : i32
// CHECK: arith.andi [[POS]], %c2_i32{{[_0-9]*}} : i32
// CHECK: [[FIRST:%.*]] = arith.select [[LOWER]], [[X]], [[O]] : f32
// CHECK-NEXT: [[SECOND:%.*]] = arith.select [[LOWER]], [[O]], [[X]] : f32
// CHECK-NEXT: [[LT:%.*]] = arith.cmpf olt, [[SECOND]], [[FIRST]] : f32
// CHECK-NEXT: [[MIN:%.*]] = arith.select [[LT]], [[SECOND]], [[FIRST]] : f32
// CHECK-NEXT: [[MAX:%.*]] = arith.select [[LT]], [[FIRST]], [[SECOND]] : f32
// CHECK-NEXT: [[S1:%.*]] = arith.select {{%.*}}, [[MIN]], [[MAX]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store [[S1]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: arith.xori [[POS]], %c2_i32{{[_0-9]*}} : i32
// CHECK: arith.andi [[POS]], %c4_i32{{[_0-9]*}} : i32
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: arith.xori [[POS]], %c1_i32{{[_0-9]*}} : i32
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @sort_rows(%in: !tile.ptr<f32, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<32x4x!tile.ptr<f32, 1 : i32>, #b>
    %x = "tile.load"(%ps) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x4x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<32x4xf32, #b>
    %s = "tile.sort"(%x) {axis = 1 : i32, descending = false} : (tensor<32x4xf32, #b>) -> tensor<32x4xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<32x4x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%os, %s) {cache = "none", evict = "evict_normal"} : (tensor<32x4x!tile.ptr<f32, 1 : i32>, #b>, tensor<32x4xf32, #b>) -> ()
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

// A histogram of 128 i32 (one per thread) into 16 bins: 16 i32 counters in shared memory (64
// bytes), zeroed by the threads holding the bins (lanes 0-15 of every warp, in the result's
// layout), a barrier, then each thread whose value is in [0, 16) adds 1 to that counter with a
// block-scope monotonic atomic on shared memory, a barrier, and the counts are read back; of
// the copies of each bin, only the owner (lane bit 4 and warp bits zero) stores it.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 64 : i32
// CHECK-LABEL: gpu.func @histogram
// CHECK: [[OWNER:%.*]] = arith.andi {{%.*}}, {{%.*}} : i1
// CHECK: [[V:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NOT: gpu.barrier
// CHECK: [[Z:%.*]] = llvm.getelementptr [[SMEM:%.*]]{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NEXT: llvm.store %c0_i32{{[_0-9]*}}, [[Z]] : i32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[GE:%.*]] = arith.cmpi sge, [[V]], %c0_i32{{[_0-9]*}} : i32
// CHECK: [[LT:%.*]] = arith.cmpi slt, [[V]], %c16_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[IN:%.*]] = arith.andi [[GE]], [[LT]] : i1
// CHECK-NEXT: scf.if [[IN]] {
// CHECK: [[P:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NEXT: [[ONE:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: llvm.atomicrmw add [[P]], [[ONE]] syncscope("block") monotonic : !llvm.ptr<3>, i32
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: [[R:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}{{%.*}}{{\]}}
// CHECK-NEXT: [[COUNT:%.*]] = llvm.load [[R]] : !llvm.ptr<3> -> i32
// CHECK: scf.if [[OWNER]] {
// CHECK-NEXT: llvm.store [[COUNT]], {{%.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @histogram(%in: !tile.ptr<i32, 1 : i32>, %out: !tile.ptr<i32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<i32, 1 : i32>) -> tensor<128x!tile.ptr<i32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<128x!tile.ptr<i32, 1 : i32>, #b>, tensor<128xi32, #b>) -> tensor<128x!tile.ptr<i32, 1 : i32>, #b>
    %x = "tile.load"(%pp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<i32, 1 : i32>, #b>) -> tensor<128xi32, #b>
    %h = "tile.histogram"(%x) : (tensor<128xi32, #b>) -> tensor<16xi32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<i32, 1 : i32>) -> tensor<16x!tile.ptr<i32, 1 : i32>, #b>
    %r16 = "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #b>
    %op = "tile.addptr"(%os, %r16) : (tensor<16x!tile.ptr<i32, 1 : i32>, #b>, tensor<16xi32, #b>) -> tensor<16x!tile.ptr<i32, 1 : i32>, #b>
    "tile.store"(%op, %h) {cache = "none", evict = "evict_normal"} : (tensor<16x!tile.ptr<i32, 1 : i32>, #b>, tensor<16xi32, #b>) -> ()
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

// -----

// atomic_rmw. A masked fadd on 128 fp32 (one element per thread, no copies) is one atomicrmw per
// element under its mask: relaxed is `monotonic`, scope gpu `syncscope("device")`, and a
// masked-off element yields undef. A scalar add whose old value is used: every thread holds
// the scalar, so only thread 0 (lane and warp ids zero) issues it, writes the old value to
// shared memory (4 bytes, the first use: no barrier before), and after a barrier every thread
// reads it back.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 4 : i32
// CHECK-LABEL: gpu.func @atomic_add
// CHECK-SAME: ([[P:%[^:]*]]: !llvm.ptr<1>, [[X:%[^:]*]]: f32, [[N:%[^:]*]]: i32, [[CNT:%[^:]*]]: !llvm.ptr<1>, [[OUT:%[^:]*]]: !llvm.ptr<1>)
// CHECK: [[LANE0:%.*]] = arith.cmpi eq, {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK: [[WARP0:%.*]] = arith.cmpi eq, {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[THREAD0:%.*]] = arith.andi [[LANE0]], [[WARP0]] : i1
// CHECK: [[M:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NEXT: [[PP:%.*]] = llvm.getelementptr [[P]]
// CHECK-NEXT: scf.if [[M]] -> (f32) {
// CHECK-NEXT: llvm.atomicrmw fadd [[PP]], [[X]] syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK: llvm.mlir.undef : f32
// CHECK-NOT: gpu.barrier
// CHECK: [[OLD:%.*]] = scf.if [[THREAD0]] -> (i32) {
// CHECK-NEXT: llvm.atomicrmw add [[CNT]], {{%.*}} syncscope("device") acq_rel : !llvm.ptr<1>, i32
// CHECK: scf.if [[THREAD0]] {
// CHECK: llvm.store [[OLD]], {{%.*}} : i32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: [[B:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.store [[B]], {{%.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @atomic_add(%p: !tile.ptr<f32, 1 : i32>, %x: f32, %n: i32, %cnt: !tile.ptr<i32, 1 : i32>, %out: !tile.ptr<i32, 1 : i32>) {
    %rg = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b>
    %ns = "tile.splat"(%n) : (i32) -> tensor<128xi32, #b>
    %m = arith.cmpi slt, %rg, %ns : tensor<128xi32, #b>
    %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xi32, #b>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    %xs = "tile.splat"(%x) : (f32) -> tensor<128xf32, #b>
    %old = "tile.atomic_rmw"(%pp, %xs, %m) {rmw_op = "fadd", sem = "relaxed", scope = "gpu"} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xf32, #b>, tensor<128xi1, #b>) -> tensor<128xf32, #b>
    %c1 = arith.constant 1 : i32
    %ticket = "tile.atomic_rmw"(%cnt, %c1) {rmw_op = "add", sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
    %op = "tile.addptr"(%out, %ticket) : (!tile.ptr<i32, 1 : i32>, i32) -> !tile.ptr<i32, 1 : i32>
    "tile.store"(%op, %ticket) {cache = "none", evict = "evict_normal"} : (!tile.ptr<i32, 1 : i32>, i32) -> ()
    return
  }
}

// -----

// atomic_cas on 128 i64 (one per thread): one cmpxchg per element, unguarded, acq_rel on
// success and acquire on failure, scope cta `syncscope("block")`; the old value is field 0 of
// its result. A scalar cas (release, scope sys: no syncscope; monotonic on failure) is issued
// by thread 0 only; its old value is unused, so it needs no shared memory.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 0 : i32
// CHECK-LABEL: gpu.func @cas
// CHECK-SAME: ([[P:%[^:]*]]: !llvm.ptr<1>, [[C:%[^:]*]]: i64, [[V:%[^:]*]]: i64, [[OUT:%[^:]*]]: !llvm.ptr<1>, [[F:%[^:]*]]: !llvm.ptr<1>)
// CHECK: [[THREAD0:%.*]] = arith.andi {{%.*}}, {{%.*}} : i1
// CHECK: [[PP:%.*]] = llvm.getelementptr [[P]]{{\[}}[[I:%.*]]{{\]}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
// CHECK-NEXT: [[R:%.*]] = llvm.cmpxchg [[PP]], [[C]], [[V]] syncscope("block") acq_rel acquire : !llvm.ptr<1>, i64
// CHECK-NEXT: [[OLD:%.*]] = llvm.extractvalue [[R]][0] : !llvm.struct<(i64, i1)>
// CHECK-NEXT: [[OP:%.*]] = llvm.getelementptr [[OUT]]{{\[}}[[I]]{{\]}}
// CHECK-NEXT: llvm.store [[OLD]], [[OP]] {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK: {{%.*}} = scf.if [[THREAD0]] -> (i32) {
// CHECK-NEXT: llvm.cmpxchg [[F]], {{%.*}}, {{%.*}} release monotonic : !llvm.ptr<1>, i32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @cas(%p: !tile.ptr<i64, 1 : i32>, %c: i64, %v: i64, %out: !tile.ptr<i64, 1 : i32>, %flag: !tile.ptr<i32, 1 : i32>) {
    %rg = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b>
    %ps = "tile.splat"(%p) : (!tile.ptr<i64, 1 : i32>) -> tensor<128x!tile.ptr<i64, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<128x!tile.ptr<i64, 1 : i32>, #b>, tensor<128xi32, #b>) -> tensor<128x!tile.ptr<i64, 1 : i32>, #b>
    %cs = "tile.splat"(%c) : (i64) -> tensor<128xi64, #b>
    %vs = "tile.splat"(%v) : (i64) -> tensor<128xi64, #b>
    %old = "tile.atomic_cas"(%pp, %cs, %vs) {sem = "acq_rel", scope = "cta"} : (tensor<128x!tile.ptr<i64, 1 : i32>, #b>, tensor<128xi64, #b>, tensor<128xi64, #b>) -> tensor<128xi64, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<i64, 1 : i32>) -> tensor<128x!tile.ptr<i64, 1 : i32>, #b>
    %op = "tile.addptr"(%os, %rg) : (tensor<128x!tile.ptr<i64, 1 : i32>, #b>, tensor<128xi32, #b>) -> tensor<128x!tile.ptr<i64, 1 : i32>, #b>
    "tile.store"(%op, %old) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<i64, 1 : i32>, #b>, tensor<128xi64, #b>) -> ()
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %prev = "tile.atomic_cas"(%flag, %zero, %one) {sem = "release", scope = "sys"} : (!tile.ptr<i32, 1 : i32>, i32, i32) -> i32
    return
  }
}

// -----

// expand_dims and broadcast keep every element in its thread: in
// #blocked<[1, 4], [32, 1], [4, 1], [1, 0]> over 128x4, a thread holds row t and all 4 columns,
// so the row range (slice 1) expanded and broadcast is one value in all 4 registers, and the
// column range (slice 0) the constants 0..3: offsets 4 x row + column take no shared memory
// and no barrier, and the 4 contiguous elements store as one vector.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 0 : i32
// CHECK-LABEL: gpu.func @outer_offsets
// CHECK-NOT: gpu.barrier
// CHECK: [[ROW:%.*]] = arith.addi {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK: [[C4:%.*]] = arith.constant 4 : i32
// CHECK-NEXT: [[R0:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NEXT: [[R1:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NEXT: [[R2:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NEXT: [[R3:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NEXT: arith.addi [[R0]], %c0_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R1]], %c1_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R2]], %c2_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R3]], %c3_i32{{[_0-9]*}} : i32
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NEXT: gpu.return
#p = #tilegpu.blocked<[1, 4], [32, 1], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @outer_offsets(%out: !tile.ptr<i32, 1 : i32> {tile.divisibility = 16 : i32}) {
    %rows = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #tilegpu.slice<1 : i32, #p>>
    %cols = "tile.make_range"() {end = 4 : i32, start = 0 : i32} : () -> tensor<4xi32, #tilegpu.slice<0 : i32, #p>>
    %r2 = "tile.expand_dims"(%rows) {axis = 1 : i32} : (tensor<128xi32, #tilegpu.slice<1 : i32, #p>>) -> tensor<128x1xi32, #p>
    %c2 = "tile.expand_dims"(%cols) {axis = 0 : i32} : (tensor<4xi32, #tilegpu.slice<0 : i32, #p>>) -> tensor<1x4xi32, #p>
    %rb = "tile.broadcast"(%r2) : (tensor<128x1xi32, #p>) -> tensor<128x4xi32, #p>
    %cb = "tile.broadcast"(%c2) : (tensor<1x4xi32, #p>) -> tensor<128x4xi32, #p>
    %c4 = arith.constant dense<4> : tensor<128x4xi32, #p>
    %rs = arith.muli %rb, %c4 : tensor<128x4xi32, #p>
    %offs = arith.addi %rs, %cb : tensor<128x4xi32, #p>
    %ps = "tile.splat"(%out) : (!tile.ptr<i32, 1 : i32>) -> tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>
    %pp = "tile.addptr"(%ps, %offs) : (tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>, tensor<128x4xi32, #p>) -> tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>
    "tile.store"(%pp, %offs) {cache = "none", evict = "evict_normal"} : (tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>, tensor<128x4xi32, #p>) -> ()
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
