// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: tile.histogram, tile.atomic_rmw and tile.atomic_cas
// (python/tilec/lowering/atomics.py).

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
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" [[OWNER]], {{%.*}}, [[COUNT]]
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

// atomic_rmw. A masked fadd on 128 fp32 (one element per thread, no copies) is one PTX atom per
// element under its mask (inline asm: LLVM's atomics do not carry the semantics and scope to
// PTX), its operand and old value in integer registers, and a masked-off element yields undef. A scalar add whose old value is used: every thread holds
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
// CHECK-NEXT: [[XB:%.*]] = arith.bitcast [[X]] : f32 to i32
// CHECK-NEXT: [[OB:%.*]] = llvm.inline_asm has_side_effects "atom.global.gpu.relaxed.add.f32 $0, [$1], $2;", "=r,l,r" [[PP]], [[XB]] : (!llvm.ptr<1>, i32) -> i32
// CHECK-NEXT: arith.bitcast [[OB]] : i32 to f32
// CHECK: llvm.mlir.undef : f32
// CHECK-NOT: gpu.barrier
// CHECK: [[OLD:%.*]] = scf.if [[THREAD0]] -> (i32) {
// CHECK-NEXT: llvm.inline_asm has_side_effects "atom.global.gpu.acq_rel.add.u32 $0, [$1], $2;", "=r,l,r" [[CNT]], {{%.*}} : (!llvm.ptr<1>, i32) -> i32
// CHECK: scf.if [[THREAD0]] {
// CHECK: llvm.store [[OLD]], {{%.*}} : i32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: [[B:%.*]] = llvm.load {{%.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" {{%.*}}, {{%.*}}, [[B]]
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

// atomic_cas on 128 i64 (one per thread): one PTX atom.cas per element, unguarded, with its
// semantics and scope (acq_rel, cta). A scalar cas (release, scope sys) is issued by thread 0
// only; its old value is unused, so it needs no shared memory.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 0 : i32
// CHECK-LABEL: gpu.func @cas
// CHECK-SAME: ([[P:%[^:]*]]: !llvm.ptr<1>, [[C:%[^:]*]]: i64, [[V:%[^:]*]]: i64, [[OUT:%[^:]*]]: !llvm.ptr<1>, [[F:%[^:]*]]: !llvm.ptr<1>)
// CHECK: [[THREAD0:%.*]] = arith.andi {{%.*}}, {{%.*}} : i1
// CHECK: [[PP:%.*]] = llvm.getelementptr [[P]]{{\[}}[[I:%.*]]{{\]}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
// CHECK-NEXT: [[OLD:%.*]] = llvm.inline_asm has_side_effects "atom.global.acq_rel.cta.cas.b64 $0, [$1], $2, $3;", "=l,l,l,l" [[PP]], [[C]], [[V]] : (!llvm.ptr<1>, i64, i64) -> i64
// CHECK-NEXT: [[OP:%.*]] = llvm.getelementptr [[OUT]]{{\[}}[[I]]{{\]}}
// CHECK-NEXT: llvm.store [[OLD]], [[OP]] {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK: {{%.*}} = scf.if [[THREAD0]] -> (i32) {
// CHECK-NEXT: llvm.inline_asm has_side_effects "atom.global.release.sys.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r" [[F]], {{%.*}}, {{%.*}} : (!llvm.ptr<1>, i32, i32) -> i32
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

// fp32 max has no PTX atom: one integer atom on the bits, chosen by the value's sign (floats of
// one sign order as their bits: signed max for non-negative values, unsigned min for negative).
// CHECK-LABEL: gpu.func @float_max
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred neg; setp.lt.s32 neg, $2, 0; @!neg atom.global.gpu.acq_rel.max.s32 $0, [$1], $2; @neg atom.global.gpu.acq_rel.min.u32 $0, [$1], $2; }", "=r,l,r"
// CHECK-NOT: llvm.cmpxchg
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @float_max(%p: !tile.ptr<f32, 1 : i32>, %x: f32) {
    %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xi32, #b>) -> tensor<128x!tile.ptr<f32, 1 : i32>, #b>
    %xs = "tile.splat"(%x) : (f32) -> tensor<128xf32, #b>
    %old = "tile.atomic_rmw"(%pp, %xs) {rmw_op = "max", scope = "gpu", sem = "acq_rel"} : (tensor<128x!tile.ptr<f32, 1 : i32>, #b>, tensor<128xf32, #b>) -> tensor<128xf32, #b>
    return
  }
}
