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
// module records the 4096 bytes used and the op that needs them.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 4096 : i32
// CHECK-SAME: tilegpu.shared_largest = "{{.*}}:[[# @LINE + 40]]"
// CHECK-LABEL: gpu.func @transpose_layout
// CHECK-SAME: ([[X:%[^:]*]]: f32, [[OUT:%[^:]*]]: !llvm.ptr<1>)
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK-NOT: gpu.barrier
// CHECK: [[I0:%.*]] = arith.addi {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK-NEXT: [[A0:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[I0]]{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store [[X]], [[A0]] : f32, !llvm.ptr<3>
// CHECK: [[C128:%.*]] = arith.constant 128 : i32
// CHECK-NEXT: [[I1:%.*]] = arith.addi {{%.*}}, [[C128]] : i32
// CHECK-NEXT: [[A1:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[I1]]{{\]}}
// CHECK-NEXT: llvm.store [[X]], [[A1]] : f32, !llvm.ptr<3>
// CHECK-COUNT-5: llvm.store [[X]], {{%.*}} : f32, !llvm.ptr<3>
// CHECK: [[C896:%.*]] = arith.constant 896 : i32
// CHECK-NEXT: [[I7:%.*]] = arith.addi {{%.*}}, [[C896]] : i32
// CHECK-NEXT: [[A7:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[I7]]{{\]}}
// CHECK-NEXT: llvm.store [[X]], [[A7]] : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: [[D0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[J0:%.*]] = arith.addi {{%.*}}, [[D0]] : i32
// CHECK-NEXT: [[B0:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[J0]]{{\]}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: [[V0:%.*]] = llvm.load [[B0]] : !llvm.ptr<3> -> f32
// CHECK: [[D4:%.*]] = arith.constant 4 : i32
// CHECK-NEXT: [[J1:%.*]] = arith.addi {{%.*}}, [[D4]] : i32
// CHECK-NEXT: [[B1:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[J1]]{{\]}}
// CHECK-NEXT: llvm.load [[B1]] : !llvm.ptr<3> -> f32
// CHECK-COUNT-5: llvm.load {{%.*}} : !llvm.ptr<3> -> f32
// CHECK: [[D28:%.*]] = arith.constant 28 : i32
// CHECK-NEXT: [[J7:%.*]] = arith.addi {{%.*}}, [[D28]] : i32
// CHECK-NEXT: [[B7:%.*]] = llvm.getelementptr [[SMEM]]{{\[}}[[J7]]{{\]}}
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

// Conversions that keep every element in its thread cost nothing: #blocked<[1], [32], [4], [0]>
// and the slice of a column layout place 128 elements alike, and expand_dims reuses the
// registers. A mask converted across threads goes through shared memory as bytes: 256 of them.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 256 : i32
// CHECK-SAME: tilegpu.shared_largest = "{{.*}}:[[# @LINE + 34]]"
// CHECK-LABEL: gpu.func @converts
// CHECK-SAME: ([[P:%[^:]*]]: !llvm.ptr<1>, [[N:%[^:]*]]: i32)
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK-NOT: gpu.barrier
// CHECK: [[M0:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NEXT: [[M1:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NOT: gpu.barrier
// CHECK: [[E0:%.*]] = arith.extui [[M0]] : i1 to i8
// CHECK-NEXT: [[A0:%.*]] = llvm.getelementptr [[SMEM]]{{.*}} -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store [[E0]], [[A0]] : i8, !llvm.ptr<3>
// CHECK: [[E1:%.*]] = arith.extui [[M1]] : i1 to i8
// CHECK-NEXT: [[A1:%.*]] = llvm.getelementptr [[SMEM]]{{.*}} -> !llvm.ptr<3>, i8
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

// An op without a lowering rule is an error at its location.
#b = #tilegpu.blocked<[1, 1], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @dot(%x: f16) {
    %a = "tile.splat"(%x) : (f16) -> tensor<16x16xf16, #b>
    %c = arith.constant dense<0.0> : tensor<16x16xf32, #b>
    // expected-error@+1 {{no lowering rule for 'tile.dot' yet}}
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
