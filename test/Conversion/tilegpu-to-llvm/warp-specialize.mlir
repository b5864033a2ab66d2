// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: tilegpu.warp_specialize (python/tilec/lowering/warp_specialize.py)
// and arrive_barrier (lowering/tma.py).

// A split of 8 consumer warps and a producer warpgroup: the kernel is launched with 384
// threads and one program per SM (what ptxas needs to honour setmaxnreg). The barrier before
// the split is every thread's (bar.sync 0). Warps 8 and up lower their registers to 40; of
// them, warp 8 alone runs the producer region, whose barrier is named barrier 2 of its 32
// threads. Warps 0-7 raise theirs to 232 and run the consumer region: each thread arrives on
// the barrier, and their barrier is named barrier 1 of 256 threads; thread 0 (a consumer)
// invalidates the barriers.
// CHECK-LABEL: gpu.func @split
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32}
// CHECK: [[WARP:%.*]] = nvvm.shfl.sync idx
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: [[C8:%.*]] = arith.constant 8 : i32
// CHECK-NEXT: [[PRODUCING:%.*]] = arith.cmpi uge, [[WARP]], [[C8]] : i32
// CHECK-NEXT: scf.if [[PRODUCING]] {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: [[FIRST:%.*]] = arith.cmpi eq, [[WARP]], {{%.*}} : i32
// CHECK-NEXT: scf.if [[FIRST]] {
// CHECK: nvvm.mbarrier.try_wait
// CHECK: [[TWO:%.*]] = arith.constant 2 : i32
// CHECK-NEXT: [[THIRTYTWO:%.*]] = arith.constant 32 : i32
// CHECK-NEXT: nvvm.barrier id = [[TWO]] number_of_threads = [[THIRTYTWO]]
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.arrive {{%.*}} : !llvm.ptr<3> -> i64
// CHECK-NEXT: [[ONE:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[N:%.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = [[ONE]] number_of_threads = [[N]]
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.mbarrier.inval
// CHECK: gpu.return
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!ring = !tilegpu.memdesc<[2, 1], i64, #bs, true>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @split(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = "tilegpu.local_alloc"() : () -> !ring
    "tilegpu.init_barrier"(%ring) {count = 256 : i32} : (!ring) -> ()
    "tilegpu.barrier"() : () -> ()
    "tilegpu.warp_specialize"() ({
      %b = "tilegpu.memdesc_subview"(%ring, %c1, %c0) : (!ring, i32, i32) -> !bar
      "tilegpu.wait_barrier"(%b, %c1) : (!bar, i32) -> ()
      "tilegpu.barrier"() : () -> ()
      gpu.yield
    }, {
      %b = "tilegpu.memdesc_subview"(%ring, %c0, %c0) : (!ring, i32, i32) -> !bar
      "tilegpu.arrive_barrier"(%b) : (!bar) -> ()
      "tilegpu.barrier"() : () -> ()
      "tilegpu.inval_barrier"(%ring) : (!ring) -> ()
      "tilegpu.local_dealloc"(%ring) : (!ring) -> ()
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}

// -----

// One consumer warpgroup (4 warps) beside the producer: 256 threads, each already given the
// 255 registers a thread may have, so the consumers do not ask for more.
// CHECK-LABEL: gpu.func @four_consumers
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: nvvm.setmaxregister decrease 40
// CHECK-NOT: setmaxregister
// CHECK: gpu.return
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @four_consumers() {
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 256 : i32} : () -> ()
    return
  }
}

// -----

// Turns of two consumer warpgroups (tilegpu-ping-pong): warpgroup w = (warp >> 2) & 1 waits
// on named barrier 3 + w (bar.sync of both warpgroups' 256 threads) and passes the turn by
// arriving on 3 + ((w + 1) & 1) (bar.arrive, no wait); both ids are computed once, before the
// split. The ring's first pass is warpgroup 1's alone, its last wait warpgroup 0's.
// CHECK-LABEL: gpu.func @turns
// CHECK: [[WARP:%.*]] = nvvm.shfl.sync idx
// CHECK: [[W:%.*]] = arith.shrui [[WARP]], [[TWO:%.*]] : i32
// CHECK-NEXT: [[ONE:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[G:%.*]] = arith.andi [[W]], [[ONE]] : i32
// CHECK: [[WW:%.*]] = arith.shrui [[WARP]], {{%.*}} : i32
// CHECK-NEXT: [[C1:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[GW:%.*]] = arith.andi [[WW]], [[C1]] : i32
// CHECK-NEXT: [[C3:%.*]] = arith.constant 3 : i32
// CHECK-NEXT: [[OWN:%.*]] = arith.addi [[GW]], [[C3]] : i32
// CHECK: [[WP:%.*]] = arith.shrui [[WARP]], {{%.*}} : i32
// CHECK-NEXT: [[C1P:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[GP:%.*]] = arith.andi [[WP]], [[C1P]] : i32
// CHECK-NEXT: [[C1N:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[NEXT:%.*]] = arith.addi [[GP]], [[C1N]] : i32
// CHECK-NEXT: [[C1M:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[TO:%.*]] = arith.andi [[NEXT]], [[C1M]] : i32
// CHECK-NEXT: [[C3P:%.*]] = arith.constant 3 : i32
// CHECK-NEXT: [[PASS:%.*]] = arith.addi [[TO]], [[C3P]] : i32
// CHECK: [[WF:%.*]] = arith.shrui [[WARP]], {{%.*}} : i32
// CHECK-NEXT: [[C1F:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[GF:%.*]] = arith.andi [[WF]], [[C1F]] : i32
// CHECK: } else {
// CHECK: [[N:%.*]] = arith.constant 256 : i32
// CHECK-NEXT: [[ONEB:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[LAST:%.*]] = arith.cmpi eq, [[G]], [[ONEB]] : i32
// CHECK-NEXT: scf.if [[LAST]] {
// CHECK-NEXT: [[THREE:%.*]] = arith.constant 3 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = [[THREE]] number_of_threads = [[N]]
// CHECK: scf.for
// CHECK-NEXT: [[NW:%.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = [[OWN]] number_of_threads = [[NW]]
// CHECK-NEXT: [[NP:%.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = [[PASS]] number_of_threads = [[NP]]
// CHECK-NEXT: }
// CHECK: [[Z:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[FIRST:%.*]] = arith.cmpi eq, [[GF]], [[Z]] : i32
// CHECK-NEXT: scf.if [[FIRST]] {
// CHECK-NEXT: [[C3C:%.*]] = arith.constant 3 : i32
// CHECK-NEXT: nvvm.barrier id = [[C3C]] number_of_threads = {{%.*}}
// CHECK: gpu.return
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @turns(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      "tilegpu.warpgroup_turn_pass"() {warpgroup = 1 : i32} : () -> ()
      scf.for %i = %c0 to %n step %c1 : i32 {
        "tilegpu.warpgroup_turn_wait"() {warpgroup = -1 : i32} : () -> ()
        "tilegpu.warpgroup_turn_pass"() {warpgroup = -1 : i32} : () -> ()
      }
      "tilegpu.warpgroup_turn_wait"() {warpgroup = 0 : i32} : () -> ()
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}
