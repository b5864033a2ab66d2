// RUN: tilec-opt %s --split-input-file --tilegpu-ping-pong | filecheck %s
// RUN: tilec-opt %s --split-input-file --tilegpu-ping-pong --tilegpu-ping-pong | filecheck %s

// Two consumer warpgroups (8 warps) run a loop that computes between two dots, as attention
// does (S = Q K^T, exp2, O += P V). Each dot becomes a turn: wait for it, issue the wgmma
// group (now asynchronous), pass the turn, then wait for the group (no group pending) and read
// its result there. Warpgroup 1 passes first, before the loop, so warpgroup 0 takes the first
// turn; warpgroup 0 takes the last pass after it. Run again, the pass leaves the loop as it is
// (second RUN line).
// CHECK-LABEL: func.func @two_dots
// CHECK: "tilegpu.warp_specialize"() ({
// CHECK-NOT: warpgroup_turn
// CHECK: }, {
// CHECK-NEXT: "tilegpu.warpgroup_turn_pass"() {warpgroup = 1 : i32}
// CHECK-NEXT: [[LOOP:%.*]] = scf.for {{.*}} iter_args([[ACC:%.*]] = %cst)
// CHECK-NEXT: "tilegpu.warpgroup_turn_wait"() {warpgroup = -1 : i32}
// CHECK-NEXT: [[S:%.*]] = "tilegpu.warpgroup_dot"(%0, %1, %cst) {input_precision = "tf32", is_async,
// CHECK-NEXT: "tilegpu.warpgroup_turn_pass"() {warpgroup = -1 : i32}
// CHECK-NEXT: [[SW:%.*]] = "tilegpu.warpgroup_dot_wait"([[S]]) {pendings = 0 : i32}
// CHECK-NEXT: [[P:%.*]] = math.exp2 [[SW]]
// CHECK-NEXT: "tilegpu.warpgroup_turn_wait"() {warpgroup = -1 : i32}
// CHECK-NEXT: [[O:%.*]] = "tilegpu.warpgroup_dot"(%0, %2, [[ACC]]) {input_precision = "tf32", is_async,
// CHECK-NEXT: "tilegpu.warpgroup_turn_pass"() {warpgroup = -1 : i32}
// CHECK-NEXT: [[OW:%.*]] = "tilegpu.warpgroup_dot_wait"([[O]]) {pendings = 0 : i32}
// CHECK-NEXT: [[R:%.*]] = arith.addf [[OW]], [[P]]
// CHECK-NEXT: scf.yield [[R]]
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.warpgroup_turn_wait"() {warpgroup = 0 : i32}
// CHECK-NEXT: gpu.yield
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
!a = !tilegpu.memdesc<[128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
!b = !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
!acc = tensor<128x64xf32, #mma>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @two_dots(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !acc
    %qa = "tilegpu.local_alloc"() : () -> !a
    %kb = "tilegpu.local_alloc"() : () -> !b
    %vb = "tilegpu.local_alloc"() : () -> !b
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      %o = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
        %s = "tilegpu.warpgroup_dot"(%qa, %kb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        %p = math.exp2 %s : !acc
        %d = "tilegpu.warpgroup_dot"(%qa, %vb, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        %r = arith.addf %d, %p : !acc
        scf.yield %r : !acc
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}

// -----

// A dot tilegpu-pipeline already keeps in flight (its wait, for one pending group, follows)
// gets its turn and stays as it is: no wait is added after the pass. Four warpgroups (16
// warps) take turns round-robin: the last, warpgroup 3, passes before the loop.
// CHECK-LABEL: func.func @in_flight
// CHECK: "tilegpu.warpgroup_turn_pass"() {warpgroup = 3 : i32}
// CHECK-NEXT: scf.for
// CHECK-NEXT: "tilegpu.warpgroup_turn_wait"() {warpgroup = -1 : i32}
// CHECK-NEXT: "tilegpu.warpgroup_dot"
// CHECK-NEXT: "tilegpu.warpgroup_turn_pass"() {warpgroup = -1 : i32}
// CHECK-NEXT: "tilegpu.warpgroup_dot_wait"({{.*}}) {pendings = 0 : i32}
// CHECK-NEXT: math.exp2
// CHECK-NEXT: "tilegpu.warpgroup_turn_wait"() {warpgroup = -1 : i32}
// CHECK-NEXT: [[D:%.*]] = "tilegpu.warpgroup_dot"
// CHECK-NEXT: "tilegpu.warpgroup_turn_pass"() {warpgroup = -1 : i32}
// CHECK-NEXT: [[W:%.*]] = "tilegpu.warpgroup_dot_wait"([[D]]) {pendings = 1 : i32}
// CHECK-NEXT: scf.yield [[W]]
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.warpgroup_turn_wait"() {warpgroup = 0 : i32}
// CHECK-NEXT: "tilegpu.warpgroup_dot_wait"({{.*}}) {pendings = 0 : i32}
#mma = #tilegpu.mma<[3, 0], [16, 1], [16, 64]>
!a = !tilegpu.memdesc<[256, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
!b = !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
!acc = tensor<256x64xf32, #mma>
module attributes {tilegpu.num_warps = 16 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @in_flight(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !acc
    %qa = "tilegpu.local_alloc"() : () -> !a
    %kb = "tilegpu.local_alloc"() : () -> !b
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      %o = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
        %s = "tilegpu.warpgroup_dot"(%qa, %kb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        %p = math.exp2 %s : !acc
        %d = "tilegpu.warpgroup_dot"(%qa, %kb, %p) {input_precision = "tf32", is_async, max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        %w = "tilegpu.warpgroup_dot_wait"(%d) {pendings = 1 : i32} : (!acc) -> !acc
        scf.yield %w : !acc
      }
      %f = "tilegpu.warpgroup_dot_wait"(%o) {pendings = 0 : i32} : (!acc) -> !acc
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 112 : i32} : () -> ()
    return
  }
}

// -----

// Left alone: a loop of one dot (a matmul's K loop: the warpgroups' groups go to the tensor
// cores back to back anyway), a dot under an scf.if (a turn every warpgroup might not take),
// a loop outside the consumer region, and one consumer warpgroup (4 warps, below).
// CHECK-LABEL: func.func @no_turns
// CHECK-NOT: warpgroup_turn
// CHECK: return
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
!a = !tilegpu.memdesc<[128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
!b = !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
!acc = tensor<128x64xf32, #mma>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @no_turns(%n: i32, %c: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !acc
    %qa = "tilegpu.local_alloc"() : () -> !a
    %kb = "tilegpu.local_alloc"() : () -> !b
    %u = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
      %s = "tilegpu.warpgroup_dot"(%qa, %kb, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
      %d = "tilegpu.warpgroup_dot"(%qa, %kb, %s) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
      scf.yield %d : !acc
    }
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      %o = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
        %s = "tilegpu.warpgroup_dot"(%qa, %kb, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        scf.yield %s : !acc
      }
      %o2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
        %s = "tilegpu.warpgroup_dot"(%qa, %kb, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        %t = scf.if %c -> (!acc) {
          %d = "tilegpu.warpgroup_dot"(%qa, %kb, %s) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
          scf.yield %d : !acc
        } else {
          scf.yield %s : !acc
        }
        scf.yield %t : !acc
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}

// -----

// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NOT: warpgroup_turn
// CHECK: return
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
!a = !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
!b = !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
!acc = tensor<64x64xf32, #mma>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @one_warpgroup(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !acc
    %qa = "tilegpu.local_alloc"() : () -> !a
    %kb = "tilegpu.local_alloc"() : () -> !b
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      %o = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
        %s = "tilegpu.warpgroup_dot"(%qa, %kb, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        %d = "tilegpu.warpgroup_dot"(%qa, %kb, %s) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        scf.yield %d : !acc
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 256 : i32} : () -> ()
    return
  }
}

// -----

// tilegpu-overlap-dots' pair, two asynchronous dots with only a view of a buffer between
// them, is one turn: the warpgroup issues both, then passes (FlashAttention-3's order).
// CHECK-LABEL: func.func @pair
// CHECK: scf.for
// CHECK-NEXT: "tilegpu.warpgroup_turn_wait"() {warpgroup = -1 : i32}
// CHECK-NEXT: [[S:%.*]] = "tilegpu.warpgroup_dot"
// CHECK-NEXT: "tilegpu.memdesc_subview"
// CHECK-NEXT: [[O:%.*]] = "tilegpu.warpgroup_dot"
// CHECK-NEXT: "tilegpu.warpgroup_turn_pass"() {warpgroup = -1 : i32}
// CHECK-NEXT: "tilegpu.warpgroup_dot_wait"([[S]]) {pendings = 1 : i32}
// CHECK-NOT: warpgroup_turn
// CHECK: scf.yield
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
#nv = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!a = !tilegpu.memdesc<[128, 64], f16, #nv, true>
!ring = !tilegpu.memdesc<[3, 64, 64], f16, #nv, true>
!b = !tilegpu.memdesc<[64, 64], f16, #nv, true>
!acc = tensor<128x64xf32, #mma>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @pair(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : !acc
    %qa = "tilegpu.local_alloc"() : () -> !a
    %kb = "tilegpu.local_alloc"() : () -> !b
    %vs = "tilegpu.local_alloc"() : () -> !ring
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      %o = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!acc) : i32 {
        %s = "tilegpu.warpgroup_dot"(%qa, %kb, %zero) {input_precision = "tf32", is_async, max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        %v = "tilegpu.memdesc_subview"(%vs, %i, %c0, %c0) : (!ring, i32, i32, i32) -> !b
        %d = "tilegpu.warpgroup_dot"(%qa, %v, %acc) {input_precision = "tf32", is_async, max_num_imprecise_acc = 0 : i32} : (!a, !b, !acc) -> !acc
        %sw = "tilegpu.warpgroup_dot_wait"(%s) {pendings = 1 : i32} : (!acc) -> !acc
        %e = math.exp2 %sw : !acc
        %dw = "tilegpu.warpgroup_dot_wait"(%d) {pendings = 0 : i32} : (!acc) -> !acc
        %r = arith.addf %dw, %e : !acc
        scf.yield %r : !acc
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}
