// RUN: tilec-opt %s --split-input-file --tilegpu-overlap-dots | filecheck %s

// An attention-like loop of the consumers of a warp specialisation: D1 = Q K^T from the
// trip's slot, work on it (exp2), the carried accumulator rescaled after D1, D2 = P V from
// the slot into it, the slot released. The first trip's D1 and work move before the loop
// (under a guard that the loop runs), which then starts a trip later and carries D2's
// accumulator input, P and the slot of the trip before. Each trip issues its D1 and the
// previous trip's D2 (both asynchronous), waits for D1 alone (one group pending: D2 runs
// during the work), waits for D2 before the rescale reads it, then releases the previous
// trip's slot. The last trip's D2 and release follow the loop.
// CHECK-LABEL: func.func @attention_like
// CHECK: }, {
// CHECK-NEXT: [[RAN:%.*]] = arith.cmpi slt, %c0{{.*}}, %arg0
// CHECK-NEXT: [[IF:%.*]]:3 = scf.if [[RAN]]
// CHECK: "tilegpu.wait_barrier"
// CHECK: [[S0:%.*]] = "tilegpu.warpgroup_dot"(%0, {{%.*}}, %cst) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32}
// CHECK-NEXT: [[E0:%.*]] = math.exp2 [[S0]]
// CHECK-NEXT: [[SC0:%.*]] = arith.mulf %cst, [[E0]]
// CHECK: [[P0:%.*]] = arith.truncf
// CHECK: [[NEXT0:%.*]] = arith.remui
// CHECK: [[LB:%.*]] = arith.addi %c0{{.*}}, %c1
// CHECK-NEXT: [[LOOP:%.*]]:5 = scf.for {{%.*}} = [[LB]] to %arg0 step %c1{{.*}} iter_args([[ACC:%.*]] = [[SC0]], [[SLOT:%.*]] = [[NEXT0]], [[PHASE:%.*]] = %c0{{.*}}, [[P:%.*]] = [[P0]], [[PREV:%.*]] = %c0{{.*}})
// CHECK: "tilegpu.wait_barrier"({{%.*}}, [[PHASE]])
// CHECK-NEXT: [[K:%.*]] = "tilegpu.memdesc_subview"(%1, [[SLOT]],
// CHECK-NEXT: [[S:%.*]] = "tilegpu.warpgroup_dot"(%0, [[K]], %cst) {input_precision = "tf32", is_async,
// CHECK-NEXT: [[V:%.*]] = "tilegpu.memdesc_subview"(%2, [[PREV]],
// CHECK-NEXT: [[O:%.*]] = "tilegpu.warpgroup_dot"([[P]], [[V]], [[ACC]]) {input_precision = "tf32", is_async,
// CHECK-NEXT: [[SW:%.*]] = "tilegpu.warpgroup_dot_wait"([[S]]) {pendings = 1 : i32}
// CHECK-NEXT: [[E:%.*]] = math.exp2 [[SW]]
// CHECK-NEXT: [[OW:%.*]] = "tilegpu.warpgroup_dot_wait"([[O]]) {pendings = 0 : i32}
// CHECK-NEXT: [[R:%.*]] = "tilegpu.memdesc_subview"(%4, [[PREV]],
// CHECK-NEXT: "tilegpu.arrive_barrier"([[R]])
// CHECK-NEXT: [[SC:%.*]] = arith.mulf [[OW]], [[E]]
// CHECK: [[PN:%.*]] = arith.truncf
// CHECK: [[NEXT:%.*]] = arith.remui
// CHECK-NEXT: scf.yield [[SC]], [[NEXT]], [[PHASE]], [[PN]], [[SLOT]]
// CHECK-NEXT: }
// CHECK-NEXT: [[VL:%.*]] = "tilegpu.memdesc_subview"(%2, [[LOOP]]#4,
// CHECK-NEXT: [[F:%.*]] = "tilegpu.warpgroup_dot"([[LOOP]]#3, [[VL]], [[LOOP]]#0) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32}
// CHECK-NEXT: [[RL:%.*]] = "tilegpu.memdesc_subview"(%4, [[LOOP]]#4,
// CHECK-NEXT: "tilegpu.arrive_barrier"([[RL]])
// CHECK-NEXT: scf.yield [[F]], [[LOOP]]#1, [[LOOP]]#2
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %cst, %c0{{.*}}, %c0{{.*}}
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
#dop = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#nv = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
!q = !tilegpu.memdesc<[128, 64], f16, #nv, true>
!ring = !tilegpu.memdesc<[3, 64, 64], f16, #nv, true>
!slot = !tilegpu.memdesc<[64, 64], f16, #nv, true>
!bars = !tilegpu.memdesc<[3, 1], i64, #bs, true>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!acc = tensor<128x64xf32, #mma>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @attention_like(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %zero = arith.constant dense<0.0> : !acc
    %q = "tilegpu.local_alloc"() : () -> !q
    %ks = "tilegpu.local_alloc"() : () -> !ring
    %vs = "tilegpu.local_alloc"() : () -> !ring
    %full = "tilegpu.local_alloc"() : () -> !bars
    %empty = "tilegpu.local_alloc"() : () -> !bars
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      %o:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %slot = %c0, %phase = %c0) -> (!acc, i32, i32) : i32 {
        %f = "tilegpu.memdesc_subview"(%full, %slot, %c0) : (!bars, i32, i32) -> !bar
        "tilegpu.wait_barrier"(%f, %phase) : (!bar, i32) -> ()
        %k = "tilegpu.memdesc_subview"(%ks, %slot, %c0, %c0) : (!ring, i32, i32, i32) -> !slot
        %v = "tilegpu.memdesc_subview"(%vs, %slot, %c0, %c0) : (!ring, i32, i32, i32) -> !slot
        %s = "tilegpu.warpgroup_dot"(%q, %k, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!q, !slot, !acc) -> !acc
        %e = math.exp2 %s : !acc
        %scaled = arith.mulf %acc, %e : !acc
        %pc = "tilegpu.convert_layout"(%e) : (!acc) -> tensor<128x64xf32, #dop>
        %p = arith.truncf %pc : tensor<128x64xf32, #dop> to tensor<128x64xf16, #dop>
        %d = "tilegpu.warpgroup_dot"(%p, %v, %scaled) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #dop>, !slot, !acc) -> !acc
        %r = "tilegpu.memdesc_subview"(%empty, %slot, %c0) : (!bars, i32, i32) -> !bar
        "tilegpu.arrive_barrier"(%r) : (!bar) -> ()
        %next = arith.addi %slot, %c1 : i32
        %wrap = arith.remui %next, %c3 : i32
        scf.yield %d, %wrap, %phase : !acc, i32, i32
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}

// -----

// Left alone: the accumulator read before D1 (its D2 would have to be waited for before D1
// is issued), D2's A operand in shared memory, and a loop outside the consumer region.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK-NOT: pendings
// CHECK: return
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
#dop = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#nv = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!q = !tilegpu.memdesc<[128, 64], f16, #nv, true>
!slot = !tilegpu.memdesc<[64, 64], f16, #nv, true>
!acc = tensor<128x64xf32, #mma>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @left_alone(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !acc
    %q = "tilegpu.local_alloc"() : () -> !q
    %k = "tilegpu.local_alloc"() : () -> !slot
    %u = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
      %s = "tilegpu.warpgroup_dot"(%q, %k, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!q, !slot, !acc) -> !acc
      %e = math.exp2 %s : !acc
      %scaled = arith.mulf %acc, %e : !acc
      %pc = "tilegpu.convert_layout"(%e) : (!acc) -> tensor<128x64xf32, #dop>
      %p = arith.truncf %pc : tensor<128x64xf32, #dop> to tensor<128x64xf16, #dop>
      %d = "tilegpu.warpgroup_dot"(%p, %k, %scaled) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #dop>, !slot, !acc) -> !acc
      scf.yield %d : !acc
    }
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      %early = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
        %pre = math.exp2 %acc : !acc
        %s = "tilegpu.warpgroup_dot"(%q, %k, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!q, !slot, !acc) -> !acc
        %scaled = arith.mulf %pre, %s : !acc
        %pc = "tilegpu.convert_layout"(%s) : (!acc) -> tensor<128x64xf32, #dop>
        %p = arith.truncf %pc : tensor<128x64xf32, #dop> to tensor<128x64xf16, #dop>
        %d = "tilegpu.warpgroup_dot"(%p, %k, %scaled) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #dop>, !slot, !acc) -> !acc
        scf.yield %d : !acc
      }
      %shared = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
        %s = "tilegpu.warpgroup_dot"(%q, %k, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!q, !slot, !acc) -> !acc
        %scaled = arith.mulf %acc, %s : !acc
        %d = "tilegpu.warpgroup_dot"(%q, %k, %scaled) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!q, !slot, !acc) -> !acc
        scf.yield %d : !acc
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}

// -----

// The same loop on a ring of 2 stages is left alone: its slots would be held a trip longer,
// and the producer would wait a trip for each.
// CHECK-LABEL: func.func @two_stages
// CHECK-NOT: scf.if
// CHECK-NOT: pendings
// CHECK: return
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
#dop = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#nv = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
!q = !tilegpu.memdesc<[128, 64], f16, #nv, true>
!ring = !tilegpu.memdesc<[2, 64, 64], f16, #nv, true>
!slot = !tilegpu.memdesc<[64, 64], f16, #nv, true>
!bars = !tilegpu.memdesc<[3, 1], i64, #bs, true>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!acc = tensor<128x64xf32, #mma>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @two_stages(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %zero = arith.constant dense<0.0> : !acc
    %q = "tilegpu.local_alloc"() : () -> !q
    %ks = "tilegpu.local_alloc"() : () -> !ring
    %vs = "tilegpu.local_alloc"() : () -> !ring
    %full = "tilegpu.local_alloc"() : () -> !bars
    %empty = "tilegpu.local_alloc"() : () -> !bars
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      %o:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %slot = %c0, %phase = %c0) -> (!acc, i32, i32) : i32 {
        %f = "tilegpu.memdesc_subview"(%full, %slot, %c0) : (!bars, i32, i32) -> !bar
        "tilegpu.wait_barrier"(%f, %phase) : (!bar, i32) -> ()
        %k = "tilegpu.memdesc_subview"(%ks, %slot, %c0, %c0) : (!ring, i32, i32, i32) -> !slot
        %v = "tilegpu.memdesc_subview"(%vs, %slot, %c0, %c0) : (!ring, i32, i32, i32) -> !slot
        %s = "tilegpu.warpgroup_dot"(%q, %k, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!q, !slot, !acc) -> !acc
        %e = math.exp2 %s : !acc
        %scaled = arith.mulf %acc, %e : !acc
        %pc = "tilegpu.convert_layout"(%e) : (!acc) -> tensor<128x64xf32, #dop>
        %p = arith.truncf %pc : tensor<128x64xf32, #dop> to tensor<128x64xf16, #dop>
        %d = "tilegpu.warpgroup_dot"(%p, %v, %scaled) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #dop>, !slot, !acc) -> !acc
        %r = "tilegpu.memdesc_subview"(%empty, %slot, %c0) : (!bars, i32, i32) -> !bar
        "tilegpu.arrive_barrier"(%r) : (!bar) -> ()
        %next = arith.addi %slot, %c1 : i32
        %wrap = arith.remui %next, %c2 : i32
        scf.yield %d, %wrap, %phase : !acc, i32, i32
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}
