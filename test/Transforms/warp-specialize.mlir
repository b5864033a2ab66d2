// RUN: tilec-opt %s --split-input-file --tilegpu-warp-specialize=num-stages=3 | filecheck %s
// RUN: tilec-opt %s --split-input-file --tilegpu-warp-specialize=num-stages=3 --tilegpu-allocate-shared-memory --tilegpu-membar | filecheck %s --check-prefix=MEM

// A loop of two TMA loads feeding a wgmma, marked warp_specialize, at the kernel's top level
// (4 consumer warps). Before the split: a ring of 3 buffers per load, a `full` ring of 3
// barriers per load (one arrival: the producer's expect_tx), an `empty` ring of 3 (128
// arrivals: every consumer thread), all initialised, then a barrier of every thread. The
// producer region recomputes what the copies need from the kernel's arguments (the row
// %pid * 64) and runs the trips: wait on empty[slot] with the phase flipped (a fresh barrier
// has completed parity 1), both copies into the slot completing on full[slot], the slot and
// phase moved on. The consumer region holds the kernel as it was with the loop rewritten:
// each trip waits on both full barriers of its slot, the dot (kept in flight) reads the slots
// in place, the wait for one pending group retires the previous trip's group, and from the
// second trip on that trip's slot is released (arrive on empty[(slot + 2) % 3]); the first
// trip arrives on the spare barrier, which nothing waits for (a branch between the wgmma and
// its wait would make ptxas serialise every wgmma, C7514). After the
// loop: the wait for no group, the rings invalidated and freed, then the store. The producer
// gets 40 registers, the consumers 256 (one warpgroup: the launch's 255 already).
// CHECK-LABEL: func.func @tma_wgmma_loop
// CHECK: [[RA:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 64, 64], f16,
// CHECK-NEXT: [[RB:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 64, 64], f16,
// CHECK-NEXT: [[FA:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 1], i64,
// CHECK-NEXT: [[FB:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 1], i64,
// CHECK-NEXT: "tilegpu.init_barrier"([[FA]]) {count = 1 : i32}
// CHECK-NEXT: "tilegpu.init_barrier"([[FB]]) {count = 1 : i32}
// CHECK-NEXT: [[EMPTY:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[4, 1], i64,
// CHECK-NEXT: "tilegpu.init_barrier"([[EMPTY]]) {count = 128 : i32}
// CHECK-NEXT: "tilegpu.barrier"()
// CHECK-NEXT: "tilegpu.warp_specialize"() ({
// CHECK: [[ROW:%.*]] = arith.muli %arg2, %c64
// CHECK: scf.for [[PI:%.*]] = %c0{{.*}} to %arg4 step %c1{{.*}} iter_args([[PSLOT:%.*]] = %c0{{.*}}, [[PPHASE:%.*]] = %c0{{.*}}) -> (i32, i32)
// CHECK: [[E:%.*]] = "tilegpu.memdesc_subview"([[EMPTY]], [[PSLOT]],
// CHECK: [[FLIP:%.*]] = arith.xori [[PPHASE]], %c1
// CHECK-NEXT: "tilegpu.wait_barrier"([[E]], [[FLIP]])
// CHECK: [[K:%.*]] = arith.muli [[PI]], %c64
// CHECK: "tilegpu.memdesc_subview"([[FA]], [[PSLOT]],
// CHECK: "tilegpu.memdesc_subview"([[RA]], [[PSLOT]],
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, {{%.*}}, [[ROW]], [[K]])
// CHECK: "tilegpu.async_tma_copy_global_to_local"(%arg1, {{%.*}}, {{%.*}}, [[K]], %arg3)
// CHECK: scf.yield
// CHECK: gpu.yield
// CHECK-NEXT: }, {
// CHECK: [[INIT:%.*]] = "tilegpu.warpgroup_dot_wait"(%cst) {pendings = 0 : i32}
// CHECK: [[LOOP:%.*]]:3 = scf.for [[I:%.*]] = [[LB:%c0[_0-9a-z]*]] to %arg4 step %c1{{.*}} iter_args({{%.*}} = [[INIT]], [[SLOT:%.*]] = %c0{{.*}}, [[PHASE:%.*]] = %c0{{.*}})
// CHECK: "tilegpu.memdesc_subview"([[FA]], [[SLOT]],
// CHECK-NEXT: "tilegpu.wait_barrier"({{%.*}}, [[PHASE]])
// CHECK: "tilegpu.memdesc_subview"([[FB]], [[SLOT]],
// CHECK-NEXT: "tilegpu.wait_barrier"({{%.*}}, [[PHASE]])
// CHECK-NOT: async_tma_copy
// CHECK: [[D:%.*]] = "tilegpu.warpgroup_dot"({{.*}}) {input_precision = "tf32", is_async
// CHECK-NEXT: [[W:%.*]] = "tilegpu.warpgroup_dot_wait"([[D]]) {pendings = 1 : i32}
// CHECK-NEXT: [[LATER:%.*]] = arith.cmpi ne, [[I]], [[LB]]
// CHECK: [[PREV:%.*]] = arith.remui {{%.*}}, %c3
// CHECK: [[SLOT_OR_SPARE:%.*]] = arith.select [[LATER]], [[PREV]], %c3
// CHECK: [[PE:%.*]] = "tilegpu.memdesc_subview"([[EMPTY]], [[SLOT_OR_SPARE]],
// CHECK-NEXT: "tilegpu.arrive_barrier"([[PE]])
// CHECK: scf.yield [[W]],
// CHECK: "tilegpu.warpgroup_dot_wait"([[LOOP]]#0) {pendings = 0 : i32}
// CHECK-NEXT: "tilegpu.inval_barrier"([[FA]])
// CHECK-NEXT: "tilegpu.inval_barrier"([[FB]])
// CHECK-NEXT: "tilegpu.inval_barrier"([[EMPTY]])
// CHECK: "tilegpu.local_dealloc"([[EMPTY]])
// CHECK-NEXT: "tile.store"
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: }) {consumer_registers = 256 : i32, producer_registers = 40 : i32, producer_warps = 4 : i32}
// CHECK-NEXT: return
// After allocation the rings are live until the consumers free them (the producer is done
// with them by then), and membar adds no barrier of all threads in either region: the one
// before the split is the pass's own; the consumers' wait after the loop is followed by one
// of theirs before the barriers are invalidated (lowered as named barrier 1).
// MEM-LABEL: func.func @tma_wgmma_loop
// MEM: "tilegpu.barrier"()
// MEM-NEXT: "tilegpu.warp_specialize"() ({
// MEM-NOT: "tilegpu.barrier"
// MEM: }, {
// MEM: "tilegpu.warpgroup_dot_wait"({{%.*}}#0) {pendings = 0 : i32}
// MEM-NEXT: "tilegpu.barrier"()
// MEM-NEXT: "tilegpu.inval_barrier"
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_wgmma_loop(%amap: !llvm.ptr, %bmap: !llvm.ptr, %pid: i32, %nn: i32, %n: i32,
                            %out: tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %m = arith.muli %pid, %c64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %abar = "tilegpu.local_alloc"() : () -> !bar
      "tilegpu.init_barrier"(%abar) {count = 1 : i32} : (!bar) -> ()
      %abuf = "tilegpu.local_alloc"() : () -> !buf
      "tilegpu.async_tma_copy_global_to_local"(%amap, %abar, %abuf, %m, %k) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
      %p0 = arith.constant 0 : i32
      "tilegpu.wait_barrier"(%abar, %p0) : (!bar, i32) -> ()
      "tilegpu.inval_barrier"(%abar) : (!bar) -> ()
      %bbar = "tilegpu.local_alloc"() : () -> !bar
      "tilegpu.init_barrier"(%bbar) {count = 1 : i32} : (!bar) -> ()
      %bbuf = "tilegpu.local_alloc"() : () -> !buf
      "tilegpu.async_tma_copy_global_to_local"(%bmap, %bbar, %bbuf, %k, %nn) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
      %p1 = arith.constant 0 : i32
      "tilegpu.wait_barrier"(%bbar, %p1) : (!bar, i32) -> ()
      "tilegpu.inval_barrier"(%bbar) : (!bar) -> ()
      %d = "tilegpu.warpgroup_dot"(%abuf, %bbuf, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!buf, !buf, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    } {tile.warp_specialize = 1 : i32}
    "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    return
  }
}

// -----

// No dot: the consumers read each slot with local_load, so a slot is released at the end of
// its trip (no wgmma group outlives it). The consumers' cross-thread reads follow their own
// waits, nothing else changes; 8 consumer warps leave room for 232 registers each.
// CHECK-LABEL: func.func @tma_stream
// CHECK: "tilegpu.init_barrier"([[EMPTY:%.*]]) {count = 256 : i32}
// CHECK: "tilegpu.warp_specialize"() ({
// CHECK: }, {
// CHECK: scf.for {{.*}} iter_args({{%.*}} = %cst, [[SLOT:%.*]] = %c0{{.*}}, {{%.*}} = %c0{{.*}})
// CHECK: "tilegpu.local_load"
// CHECK: arith.addf
// CHECK: [[E:%.*]] = "tilegpu.memdesc_subview"([[EMPTY]], [[SLOT]],
// CHECK-NEXT: "tilegpu.arrive_barrier"([[E]])
// CHECK: scf.yield
// CHECK: consumer_registers = 232 : i32
#b = #tilegpu.blocked<[1, 8], [8, 4], [8, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_stream(%map: !llvm.ptr, %n: i32, %col: i32, %out: tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf16, #b>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf16, #b>) : i32 {
      %row = arith.muli %i, %c128 : i32
      %bar = "tilegpu.local_alloc"() : () -> !bar
      "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
      %buf = "tilegpu.local_alloc"() : () -> !buf
      "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %col) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
      %phase = arith.constant 0 : i32
      "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
      %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<128x64xf16, #b>
      "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
      %s = arith.addf %acc, %x : tensor<128x64xf16, #b>
      scf.yield %s : tensor<128x64xf16, #b>
    } {tile.warp_specialize = 1 : i32}
    "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xf16, #b>) -> ()
    return
  }
}

// -----

// Left as they are (the hint dropped): a marked loop nested in another loop, and a marked
// loop whose coordinates come from a value loaded before it (not recomputable by the
// producer from the arguments by pure ops).
// CHECK-LABEL: func.func @not_specialized
// CHECK-NOT: warp_specialize"
// CHECK-NOT: arrive_barrier
// CHECK: return
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @not_specialized(%map: !llvm.ptr, %n: i32, %colp: !tile.ptr<i32, 1 : i32>, %out: tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf16, #b>
    %col = "tile.load"(%colp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<i32, 1 : i32>) -> i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf16, #b>) : i32 {
      %row = arith.muli %i, %c128 : i32
      %bar = "tilegpu.local_alloc"() : () -> !bar
      "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
      %buf = "tilegpu.local_alloc"() : () -> !buf
      "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %col) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
      %phase = arith.constant 0 : i32
      "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
      %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<128x64xf16, #b>
      "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
      %s = arith.addf %acc, %x : tensor<128x64xf16, #b>
      scf.yield %s : tensor<128x64xf16, #b>
    } {tile.warp_specialize = 1 : i32}
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc2 = %r) -> (tensor<128x64xf16, #b>) : i32 {
      %r3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc2) -> (tensor<128x64xf16, #b>) : i32 {
        %row = arith.muli %i, %c128 : i32
        %bar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
        %buf = "tilegpu.local_alloc"() : () -> !buf
        "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %c0) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
        %phase = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
        %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<128x64xf16, #b>
        "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
        %s = arith.addf %acc, %x : tensor<128x64xf16, #b>
        scf.yield %s : tensor<128x64xf16, #b>
      } {tile.warp_specialize = 1 : i32}
      scf.yield %r3 : tensor<128x64xf16, #b>
    }
    "tile.store"(%out, %r2) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xf16, #b>) -> ()
    return
  }
}

// -----

// A persistent kernel: the marked loop walks tiles, the TMA loads are in the K loop nested in
// it. The producer region repeats the tile loop (the row %t * 128 recomputed from its
// induction variable) around its producing loop, the ring's slot and phase carried through
// both; so does the consumers' tile loop, into and out of their K loop. The producer thus
// runs ahead into the next tile while the consumers finish this one (its store). With a wgmma
// kept in flight, the K loop's last slot is released after the wait that follows it, when
// the loop ran at all (else the spare barrier takes the arrival). The rings are freed after
// the tile loop.
// CHECK-LABEL: func.func @persistent
// CHECK: "tilegpu.warp_specialize"() ({
// CHECK: [[PT:%.*]]:2 = scf.for [[T:%.*]] = %arg2 to %arg3 step %arg4 iter_args([[S0:%.*]] = %c0{{.*}}, [[P0:%.*]] = %c0{{.*}}) -> (i32, i32)
// CHECK-NEXT: [[ROW:%.*]] = arith.muli [[T]], %c128
// CHECK-NEXT: [[PK:%.*]]:2 = scf.for {{%.*}} = %c0{{.*}} to %arg5 step %c1{{.*}} iter_args({{%.*}} = [[S0]], {{%.*}} = [[P0]]) -> (i32, i32)
// CHECK: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, {{%.*}}, [[ROW]], {{%.*}})
// CHECK: scf.yield [[PK]]#0, [[PK]]#1 : i32, i32
// CHECK: gpu.yield
// CHECK-NEXT: }, {
// CHECK: [[CT:%.*]]:2 = scf.for [[T2:%.*]] = %arg2 to %arg3 step %arg4 iter_args([[S1:%.*]] = %c0{{.*}}, [[P1:%.*]] = %c0{{.*}}) -> (i32, i32)
// CHECK: [[CK:%.*]]:3 = scf.for [[K:%.*]] = [[LB:%c0[_0-9a-z]*]] to %arg5 step %c1{{.*}} iter_args({{%.*}} = {{%.*}}, {{%.*}} = [[S1]], {{%.*}} = [[P1]])
// CHECK: "tilegpu.warpgroup_dot"
// CHECK: "tilegpu.arrive_barrier"
// CHECK: scf.yield
// CHECK: "tilegpu.warpgroup_dot_wait"([[CK]]#0) {pendings = 0 : i32}
// CHECK-NEXT: [[RAN:%.*]] = arith.cmpi slt, [[LB]], %arg5
// CHECK: arith.select [[RAN]], {{%.*}}, %c3
// CHECK: "tilegpu.arrive_barrier"
// CHECK: "tile.store"
// CHECK-NEXT: scf.yield [[CK]]#1, [[CK]]#2 : i32, i32
// CHECK: "tilegpu.inval_barrier"
// CHECK: gpu.yield
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @persistent(%amap: !llvm.ptr, %bmap: !llvm.ptr, %first: i32, %tiles: i32, %nsm: i32, %n: i32,
                        %out: tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    scf.for %t = %first to %tiles step %nsm : i32 {
      %m = arith.muli %t, %c128 : i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
        %k = arith.muli %i, %c64 : i32
        %abar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%abar) {count = 1 : i32} : (!bar) -> ()
        %abuf = "tilegpu.local_alloc"() : () -> !buf
        "tilegpu.async_tma_copy_global_to_local"(%amap, %abar, %abuf, %m, %k) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
        %p0 = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%abar, %p0) : (!bar, i32) -> ()
        "tilegpu.inval_barrier"(%abar) : (!bar) -> ()
        %bbar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%bbar) {count = 1 : i32} : (!bar) -> ()
        %bbuf = "tilegpu.local_alloc"() : () -> !buf
        "tilegpu.async_tma_copy_global_to_local"(%bmap, %bbar, %bbuf, %k, %c0) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
        %p1 = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%bbar, %p1) : (!bar, i32) -> ()
        "tilegpu.inval_barrier"(%bbar) : (!bar) -> ()
        %d = "tilegpu.warpgroup_dot"(%abuf, %bbuf, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!buf, !buf, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
        scf.yield %d : tensor<64x64xf32, #mma>
      }
      "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    } {tile.warp_specialize = 1 : i32}
    return
  }
}

// -----

// Two marked loops one after the other: the first is split off; the second, now in the
// consumer region, stays the consumers' (a kernel gets one split).
// CHECK-LABEL: func.func @two_marked
// CHECK: "tilegpu.warp_specialize"() ({
// CHECK: }, {
// CHECK: "tilegpu.async_tma_copy_global_to_local"
// CHECK-NOT: "tilegpu.warp_specialize"
// CHECK: return
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @two_marked(%map: !llvm.ptr, %n: i32, %out: tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf16, #b>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf16, #b>) : i32 {
      %row = arith.muli %i, %c128 : i32
      %bar = "tilegpu.local_alloc"() : () -> !bar
      "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
      %buf = "tilegpu.local_alloc"() : () -> !buf
      "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %c0) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
      %phase = arith.constant 0 : i32
      "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
      %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<128x64xf16, #b>
      "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
      %s = arith.addf %acc, %x : tensor<128x64xf16, #b>
      scf.yield %s : tensor<128x64xf16, #b>
    } {tile.warp_specialize = 1 : i32}
    %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<128x64xf16, #b>) : i32 {
      %row = arith.muli %i, %c128 : i32
      %bar = "tilegpu.local_alloc"() : () -> !bar
      "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
      %buf = "tilegpu.local_alloc"() : () -> !buf
      "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %c1) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
      %phase = arith.constant 0 : i32
      "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
      %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<128x64xf16, #b>
      "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
      %s = arith.addf %acc, %x : tensor<128x64xf16, #b>
      scf.yield %s : tensor<128x64xf16, #b>
    } {tile.warp_specialize = 1 : i32}
    "tile.store"(%out, %r2) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xf16, #b>) -> ()
    return
  }
}

// -----

// A map made in the kernel (tl.make_tensor_descriptor): the make_tensormap and the pure ops
// computing its operands from the arguments move to the front of the kernel, before the rings
// and the split, so every thread makes it once and both regions use it; what the kernel does
// before it otherwise (here a store) stays with the consumers. The producer's copies read the
// map the kernel made (nothing is cloned for it).
// CHECK-LABEL: func.func @made_map
// CHECK-SAME: ([[SCRATCH:%[^:]*]]: !tile.ptr<i8, 1 : i32>, [[BASE:%[^:]*]]: !tile.ptr<f16, 1 : i32>, [[M:%[^:]*]]: i32,
// CHECK-NEXT: [[ROWS:%.*]] = arith.extsi [[M]] : i32 to i64
// CHECK-NEXT: [[COLS:%.*]] = arith.constant 64 : i64
// CHECK-NEXT: [[MAP:%.*]] = "tile.make_tensormap"([[SCRATCH]], [[BASE]], [[ROWS]], [[COLS]], [[COLS]])
// CHECK-NEXT: "tilegpu.local_alloc"
// CHECK: "tilegpu.warp_specialize"() ({
// CHECK-NOT: make_tensormap
// CHECK: "tilegpu.async_tma_copy_global_to_local"([[MAP]],
// CHECK: }, {
// CHECK: "tile.store"
// CHECK: scf.for
// CHECK: consumer_registers = 232 : i32
#b = #tilegpu.blocked<[1, 8], [8, 4], [8, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @made_map(%scratch: !tile.ptr<i8, 1 : i32>, %base: !tile.ptr<f16, 1 : i32>, %m: i32, %n: i32, %col: i32, %out: tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf16, #b>
    "tile.store"(%out, %zero) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xf16, #b>) -> ()
    %rows = arith.extsi %m : i32 to i64
    %cols = arith.constant 64 : i64
    %map = "tile.make_tensormap"(%scratch, %base, %rows, %cols, %cols) {box = array<i32: 128, 64>, swizzle = 128 : i32, slot = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (!tile.ptr<i8, 1 : i32>, !tile.ptr<f16, 1 : i32>, i64, i64, i64) -> !llvm.ptr
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf16, #b>) : i32 {
      %row = arith.muli %i, %c128 : i32
      %bar = "tilegpu.local_alloc"() : () -> !bar
      "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
      %buf = "tilegpu.local_alloc"() : () -> !buf
      "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %col) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
      %phase = arith.constant 0 : i32
      "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
      %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<128x64xf16, #b>
      "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
      %s = arith.addf %acc, %x : tensor<128x64xf16, #b>
      scf.yield %s : tensor<128x64xf16, #b>
    } {tile.warp_specialize = 1 : i32}
    "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xf16, #b>) -> ()
    return
  }
}

// -----

// No word on the loop (tl.range without warp_specialize): a persistent kernel's tile loop
// whose nested K loop feeds a wgmma from TMA loads, with 8 warps computing, is specialised by
// the compiler (AUTO_WARPS), as if marked.
// CHECK-LABEL: func.func @auto
// CHECK: "tilegpu.warp_specialize"() ({
// CHECK: "tilegpu.async_tma_copy_global_to_local"
// CHECK: }, {
// CHECK: "tilegpu.warpgroup_dot"
// CHECK: producer_warps = 4 : i32
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!abuf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
!bbuf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @auto(%amap: !llvm.ptr, %bmap: !llvm.ptr, %first: i32, %tiles: i32, %nsm: i32, %n: i32,
                  %out: tensor<128x64x!tile.ptr<f32, 1 : i32>, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    scf.for %t = %first to %tiles step %nsm : i32 {
      %m = arith.muli %t, %c128 : i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
        %k = arith.muli %i, %c64 : i32
        %abar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%abar) {count = 1 : i32} : (!bar) -> ()
        %abuf = "tilegpu.local_alloc"() : () -> !abuf
        "tilegpu.async_tma_copy_global_to_local"(%amap, %abar, %abuf, %m, %k) : (!llvm.ptr, !bar, !abuf, i32, i32) -> ()
        %p0 = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%abar, %p0) : (!bar, i32) -> ()
        "tilegpu.inval_barrier"(%abar) : (!bar) -> ()
        %bbar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%bbar) {count = 1 : i32} : (!bar) -> ()
        %bbuf = "tilegpu.local_alloc"() : () -> !bbuf
        "tilegpu.async_tma_copy_global_to_local"(%bmap, %bbar, %bbuf, %k, %c0) : (!llvm.ptr, !bar, !bbuf, i32, i32) -> ()
        %p1 = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%bbar, %p1) : (!bar, i32) -> ()
        "tilegpu.inval_barrier"(%bbar) : (!bar) -> ()
        %d = "tilegpu.warpgroup_dot"(%abuf, %bbuf, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!abuf, !bbuf, tensor<128x64xf32, #mma>) -> tensor<128x64xf32, #mma>
        scf.yield %d : tensor<128x64xf32, #mma>
      }
      "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<128x64xf32, #mma>) -> ()
    }
    return
  }
}

// -----

// tl.range(..., warp_specialize=False): the same loop is left as it is.
// CHECK-LABEL: func.func @auto_off
// CHECK-NOT: tilegpu.warp_specialize"
// CHECK: tile.warp_specialize = 0 : i32
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#mma = #tilegpu.mma<[3, 0], [8, 1], [16, 64]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!abuf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
!bbuf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @auto_off(%amap: !llvm.ptr, %bmap: !llvm.ptr, %first: i32, %tiles: i32, %nsm: i32, %n: i32,
                  %out: tensor<128x64x!tile.ptr<f32, 1 : i32>, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    scf.for %t = %first to %tiles step %nsm : i32 {
      %m = arith.muli %t, %c128 : i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
        %k = arith.muli %i, %c64 : i32
        %abar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%abar) {count = 1 : i32} : (!bar) -> ()
        %abuf = "tilegpu.local_alloc"() : () -> !abuf
        "tilegpu.async_tma_copy_global_to_local"(%amap, %abar, %abuf, %m, %k) : (!llvm.ptr, !bar, !abuf, i32, i32) -> ()
        %p0 = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%abar, %p0) : (!bar, i32) -> ()
        "tilegpu.inval_barrier"(%abar) : (!bar) -> ()
        %bbar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%bbar) {count = 1 : i32} : (!bar) -> ()
        %bbuf = "tilegpu.local_alloc"() : () -> !bbuf
        "tilegpu.async_tma_copy_global_to_local"(%bmap, %bbar, %bbuf, %k, %c0) : (!llvm.ptr, !bar, !bbuf, i32, i32) -> ()
        %p1 = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%bbar, %p1) : (!bar, i32) -> ()
        "tilegpu.inval_barrier"(%bbar) : (!bar) -> ()
        %d = "tilegpu.warpgroup_dot"(%abuf, %bbuf, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!abuf, !bbuf, tensor<128x64xf32, #mma>) -> tensor<128x64xf32, #mma>
        scf.yield %d : tensor<128x64xf32, #mma>
      }
      "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<128x64xf32, #mma>) -> ()
    } {tile.warp_specialize = 0 : i32}
    return
  }
}

// -----

// The persistent kernel in a program of 2 CTAs whose rows tile-split-ctas shared out
// (tile.split_ctas = 2; A's map moves this CTA's rows, tile.split_rows): B's block is the same in
// both CTAs, so each producer copies half its column blocks into both (multicast = 2), and a
// slot is free only when the consumers of both CTAs released it: each consumer warp arrives on
// the empty barrier of both CTAs (ctas = 2), 4 warps x 2 CTAs = 8 arrivals. A cluster barrier
// follows the barriers' inits (no CTA copies into, or arrives on, another's before they are
// made) and ends both regions. The consumers invalidate the full barriers after their tile loop
// (every copy into this CTA was waited for) but the empty ones after the cluster barrier (the
// other CTA may release slots here until it is done). (Barrier.cluster waits for the threads
// that have not exited: the producer warps that issue nothing leave.)
// CHECK-LABEL: func.func @cluster
// CHECK: "tilegpu.init_barrier"([[FULL_A:%.*]]) {count = 1 : i32}
// CHECK: "tilegpu.init_barrier"([[FULL_B:%.*]]) {count = 1 : i32}
// CHECK: "tilegpu.init_barrier"([[EMPTY:%.*]]) {count = 8 : i32}
// CHECK-NEXT: "tilegpu.cluster_barrier"() : () -> ()
// CHECK-NEXT: "tilegpu.warp_specialize"() ({
// CHECK: "tilegpu.wait_barrier"
// CHECK: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{.*}}) :
// CHECK: "tilegpu.async_tma_copy_global_to_local"(%arg1, {{.*}}) {multicast = 2 : i32}
// CHECK: "tilegpu.cluster_barrier"() : () -> ()
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: }, {
// CHECK: "tilegpu.warpgroup_dot"
// CHECK: "tilegpu.arrive_barrier"({{%.*}}) {ctas = 2 : i32}
// CHECK: "tilegpu.warpgroup_dot_wait"
// CHECK: "tilegpu.arrive_barrier"({{%.*}}) {ctas = 2 : i32}
// CHECK: "tile.store"
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.inval_barrier"([[FULL_A]])
// CHECK-NEXT: "tilegpu.inval_barrier"([[FULL_B]])
// CHECK-NEXT: "tilegpu.cluster_barrier"() : () -> ()
// CHECK-NEXT: "tilegpu.inval_barrier"([[EMPTY]])
// CHECK: gpu.yield
// CHECK-NEXT: })
// CHECK-NEXT: return
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 128]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!abuf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
!bbuf = !tilegpu.memdesc<[64, 128], f16, #nvmma, true>
module attributes {tilegpu.num_ctas = 2 : i32, tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @cluster(%amap: !llvm.ptr {tile.split_rows = 64 : i32}, %bmap: !llvm.ptr, %first: i32, %tiles: i32, %nsm: i32, %n: i32,
                     %out: tensor<64x128x!tile.ptr<f32, 1 : i32>, #mma>) attributes {tile.kernel, tile.split_ctas = 2 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
    scf.for %t = %first to %tiles step %nsm : i32 {
      %m = arith.muli %t, %c128 : i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %k = arith.muli %i, %c64 : i32
        %abar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%abar) {count = 1 : i32} : (!bar) -> ()
        %abuf = "tilegpu.local_alloc"() : () -> !abuf
        "tilegpu.async_tma_copy_global_to_local"(%amap, %abar, %abuf, %m, %k) : (!llvm.ptr, !bar, !abuf, i32, i32) -> ()
        %p0 = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%abar, %p0) : (!bar, i32) -> ()
        "tilegpu.inval_barrier"(%abar) : (!bar) -> ()
        %bbar = "tilegpu.local_alloc"() : () -> !bar
        "tilegpu.init_barrier"(%bbar) {count = 1 : i32} : (!bar) -> ()
        %bbuf = "tilegpu.local_alloc"() : () -> !bbuf
        "tilegpu.async_tma_copy_global_to_local"(%bmap, %bbar, %bbuf, %k, %c0) : (!llvm.ptr, !bar, !bbuf, i32, i32) -> ()
        %p1 = arith.constant 0 : i32
        "tilegpu.wait_barrier"(%bbar, %p1) : (!bar, i32) -> ()
        "tilegpu.inval_barrier"(%bbar) : (!bar) -> ()
        %d = "tilegpu.warpgroup_dot"(%abuf, %bbuf, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!abuf, !bbuf, tensor<64x128xf32, #mma>) -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<64x128x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x128xf32, #mma>) -> ()
    } {tile.warp_specialize = 1 : i32}
    return
  }
}
