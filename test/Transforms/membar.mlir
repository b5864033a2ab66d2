// RUN: tilec-opt %s --split-input-file --tilegpu-membar | filecheck %s
// The offsets are given (as tilegpu-allocate-shared-memory would record them) so each case
// says exactly which bytes overlap.

#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
!buf = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// Read after write and write after read of one buffer need a barrier; read after read does
// not; the first access of the kernel needs none.
// CHECK-LABEL: func.func @straight_line
// CHECK-NEXT: "tilegpu.local_alloc"
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: return
func.func @straight_line(%x: tensor<64x32xf16, #b>) {
  %a = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
  "tilegpu.local_store"(%x, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
  %y = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
  %z = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
  "tilegpu.local_store"(%z, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
  return
}

// -----

#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
!buf = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// Disjoint buffers do not wait for each other: the store to %b follows the store to %a with
// no barrier; loading %a waits (it was written), and that one barrier also covers %b.
// CHECK-LABEL: func.func @disjoint
// CHECK-NEXT: "tilegpu.local_alloc"
// CHECK-NEXT: "tilegpu.local_alloc"
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: return
func.func @disjoint(%x: tensor<64x32xf16, #b>) {
  %a = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
  %c = "tilegpu.local_alloc"() {tilegpu.offset = 4096 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
  "tilegpu.local_store"(%x, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
  "tilegpu.local_store"(%x, %c) : (tensor<64x32xf16, #b>, !buf) -> ()
  %y = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
  %z = "tilegpu.local_load"(%c) : (!buf) -> tensor<64x32xf16, #b>
  return
}

// -----

#row = #tilegpu.blocked<[1, 8], [32, 1], [1, 4], [1, 0]>
#col = #tilegpu.blocked<[8, 1], [1, 32], [4, 1], [0, 1]>

// Ops with scratch (here conversions across threads) write their bytes first and read them
// last: the second conversion at offset 0 waits for the first one's reads; a third in other
// bytes (4096..8192) does not wait, nor does one whose scratch was placed in bytes nothing
// touched since the last barrier.
// CHECK-LABEL: func.func @scratch
// CHECK-NEXT: "tilegpu.convert_layout"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.convert_layout"
// CHECK-NEXT: "tilegpu.convert_layout"
// CHECK-NEXT: return
func.func @scratch(%x: tensor<32x32xf32, #row>) {
  %a = "tilegpu.convert_layout"(%x) {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : (tensor<32x32xf32, #row>) -> tensor<32x32xf32, #col>
  %b = "tilegpu.convert_layout"(%x) {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : (tensor<32x32xf32, #row>) -> tensor<32x32xf32, #col>
  %c = "tilegpu.convert_layout"(%x) {tilegpu.offset = 4096 : i32, tilegpu.bytes = 4096 : i32} : (tensor<32x32xf32, #row>) -> tensor<32x32xf32, #col>
  return
}

// -----

#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
!buf = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// A barrier already there completes what is pending: none is added.
// CHECK-LABEL: func.func @existing_barrier
// CHECK-NEXT: "tilegpu.local_alloc"
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: return
func.func @existing_barrier(%x: tensor<64x32xf16, #b>) {
  %a = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
  "tilegpu.local_store"(%x, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
  gpu.barrier
  %y = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
  return
}

// -----

#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
!buf = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// Branches: the load in the `then` branch waits for the store before the `if`; the `else`
// branch does not touch the buffer and gets no barrier. After the `if`, the store waits
// (the `then` path left reads pending), and so does the load after it.
// CHECK-LABEL: func.func @branches
// CHECK: "tilegpu.local_store"
// CHECK-NEXT: scf.if
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: } else {
// CHECK-NEXT: arith.addi
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_load"
func.func @branches(%x: tensor<64x32xf16, #b>, %c: i1, %i: i32) {
  %a = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
  "tilegpu.local_store"(%x, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
  scf.if %c {
    %y = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
  } else {
    %j = arith.addi %i, %i : i32
  }
  "tilegpu.local_store"(%x, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
  %z = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
  return
}

// -----

#row = #tilegpu.blocked<[1, 8], [32, 1], [1, 4], [1, 0]>
#col = #tilegpu.blocked<[8, 1], [1, 32], [4, 1], [0, 1]>

// A conversion in a loop: the first trip needs no barrier, but each later trip's writes
// would race with the previous trip's reads, so the barrier goes inside the loop, before
// the conversion. A conversion after the loop waits as well (the loop left reads pending).
// CHECK-LABEL: func.func @loop_carried
// CHECK: scf.for
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.convert_layout"
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.convert_layout"
// CHECK-NEXT: return
func.func @loop_carried(%x: tensor<32x32xf32, #row>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = "tilegpu.convert_layout"(%x) {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : (tensor<32x32xf32, #row>) -> tensor<32x32xf32, #col>
  }
  %b = "tilegpu.convert_layout"(%x) {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : (tensor<32x32xf32, #row>) -> tensor<32x32xf32, #col>
  return
}

// -----

#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
!buf = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// A loop that reads then writes one buffer: the store waits for this trip's load, and the
// load waits for the previous trip's store. Both barriers are inside the loop.
// CHECK-LABEL: func.func @loop_read_write
// CHECK: scf.for
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: }
func.func @loop_read_write(%x: tensor<64x32xf16, #b>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
  scf.for %i = %c0 to %n step %c1 {
    %y = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
    "tilegpu.local_store"(%y, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
  }
  return
}

// -----

#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
!buf = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// A loop that only reads a buffer written before it: one barrier before the loop instead of
// one on every trip.
// CHECK-LABEL: func.func @loop_reads_only
// CHECK: "tilegpu.local_store"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: scf.for
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: }
// CHECK-NOT: "tilegpu.barrier"
func.func @loop_reads_only(%x: tensor<64x32xf16, #b>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
  "tilegpu.local_store"(%x, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
  scf.for %i = %c0 to %n step %c1 {
    %y = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
  }
  return
}

// -----

#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>
!all = !tilegpu.memdesc<[3, 64, 32], f16, #shared, true>
!one = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// A pipelined loop: asynchronous copies' writes count from the async_wait on, so one barrier
// per trip, after the wait, orders this trip's landed tiles before their reads and last trip's
// reads before this trip's copy; the copy issued after that barrier does not make the read of
// another slot wait. After the loop, the final wait's writes make the next scratch user wait.
// CHECK-LABEL: func.func @async_copies
// CHECK: "tilegpu.async_copy_global_to_local"
// CHECK-NEXT: "tilegpu.async_commit_group"
// CHECK-NEXT: scf.for
// CHECK-NEXT: "tilegpu.async_wait"() {num = 1 : i32}
// CHECK-NEXT: "tilegpu.memdesc_subview"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.async_copy_global_to_local"
// CHECK-NEXT: "tilegpu.async_commit_group"
// CHECK-NEXT: "tilegpu.memdesc_subview"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.async_wait"() {num = 0 : i32}
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.convert_layout"
func.func @async_copies(%p: tensor<64x32x!tile.ptr<f16, 1 : i32>, #b>, %n: i32, %s: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %all = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 12288 : i32} : () -> !all
  %v0 = "tilegpu.memdesc_subview"(%all, %c0, %c0, %c0) : (!all, i32, i32, i32) -> !one
  %t0 = "tilegpu.async_copy_global_to_local"(%p, %v0) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #b>, !one) -> !tilegpu.async_token
  %g0 = "tilegpu.async_commit_group"() : () -> !tilegpu.async_token
  scf.for %i = %c0 to %n step %c1 : i32 {
    %w = "tilegpu.async_wait"() {num = 1 : i32} : () -> !tilegpu.async_token
    %vw = "tilegpu.memdesc_subview"(%all, %s, %c0, %c0) : (!all, i32, i32, i32) -> !one
    %t = "tilegpu.async_copy_global_to_local"(%p, %vw) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #b>, !one) -> !tilegpu.async_token
    %g = "tilegpu.async_commit_group"() : () -> !tilegpu.async_token
    %vr = "tilegpu.memdesc_subview"(%all, %i, %c0, %c0) : (!all, i32, i32, i32) -> !one
    %x = "tilegpu.local_load"(%vr) : (!one) -> tensor<64x32xf16, #b>
  }
  %w0 = "tilegpu.async_wait"() {num = 0 : i32} : () -> !tilegpu.async_token
  %y = "tilegpu.convert_layout"(%p) {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #b>) -> tensor<64x32x!tile.ptr<f16, 1 : i32>, #tilegpu.blocked<[8, 1], [4, 8], [1, 4], [0, 1]>>
  return
}

// -----

#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>

// A TMA load as convert-tile-to-tilegpu leaves it: init_barrier writes the barrier and
// wait_barrier reads it, so the wait gets a barrier (every thread sees the init). The copy's
// writes of the buffer are visible to every thread that waited on its mbarrier once the wait
// returns, so the local_load right after the wait gets none. The inval_barrier writes the
// barrier the wait read (no thread may still be waiting on it): it gets one.
// CHECK-LABEL: func.func @tma_load
// CHECK-NEXT: [[BAR:%.*]] = "tilegpu.local_alloc"() {tilegpu.bytes = 8 : i32, tilegpu.offset = 8192 : i32}
// CHECK-NEXT: "tilegpu.init_barrier"([[BAR]])
// CHECK-NEXT: [[BUF:%.*]] = "tilegpu.local_alloc"() {tilegpu.bytes = 8192 : i32, tilegpu.offset = 0 : i32}
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, [[BAR]], [[BUF]], %arg1, %arg2)
// CHECK-NEXT: [[PHASE:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: "tilegpu.barrier"() : () -> ()
// CHECK-NEXT: "tilegpu.wait_barrier"([[BAR]], [[PHASE]])
// CHECK-NEXT: "tilegpu.local_load"([[BUF]])
// CHECK-NEXT: "tilegpu.barrier"() : () -> ()
// CHECK-NEXT: "tilegpu.inval_barrier"([[BAR]])
// CHECK-NEXT: return
func.func @tma_load(%map: !llvm.ptr, %o0: i32, %o1: i32) {
  %bar = "tilegpu.local_alloc"() {tilegpu.offset = 8192 : i32, tilegpu.bytes = 8 : i32} : () -> !bar
  "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
  %buf = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 8192 : i32} : () -> !buf
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %o0, %o1) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
  %c0 = arith.constant 0 : i32
  "tilegpu.wait_barrier"(%bar, %c0) : (!bar, i32) -> ()
  %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<64x64xf16, #b>
  "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
  return
}

// -----

#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>

// An inval_barrier right after the wait writes the barrier the wait read: a barrier between
// them (no thread may still be waiting). The local_load after it needs none: the wait already
// made the copy's writes visible, and the inval wrote other bytes.
// CHECK-LABEL: func.func @inval_after_wait
// CHECK: "tilegpu.async_tma_copy_global_to_local"
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.wait_barrier"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.inval_barrier"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: return
func.func @inval_after_wait(%map: !llvm.ptr, %o0: i32, %o1: i32) {
  %bar = "tilegpu.local_alloc"() {tilegpu.offset = 8192 : i32, tilegpu.bytes = 8 : i32} : () -> !bar
  "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
  %buf = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 8192 : i32} : () -> !buf
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %o0, %o1) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
  %c0 = arith.constant 0 : i32
  "tilegpu.wait_barrier"(%bar, %c0) : (!bar, i32) -> ()
  "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
  %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<64x64xf16, #b>
  return
}

// -----

#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>

// A buffer loaded twice through one barrier (phases 0 and 1). The first local_load follows
// its wait with no barrier. The second copy must not overwrite what the first local_load still
// reads (write after read: a TMA copy writes its bytes as any write does), so it gets a
// barrier; the second wait reads a barrier nobody wrote since (the copy's arrival is not a
// write here): none; the second local_load follows its wait: none; the inval_barrier writes
// the barrier both waits read: one.
// CHECK-LABEL: func.func @reused_buffer
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[C1:%.*]] = arith.constant 1 : i32
// CHECK: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.wait_barrier"({{%.*}}, [[C0]])
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, {{%.*}}, %arg2, %arg1)
// CHECK-NEXT: "tilegpu.wait_barrier"({{%.*}}, [[C1]])
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.inval_barrier"
// CHECK-NEXT: return
func.func @reused_buffer(%map: !llvm.ptr, %o0: i32, %o1: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %bar = "tilegpu.local_alloc"() {tilegpu.offset = 8192 : i32, tilegpu.bytes = 8 : i32} : () -> !bar
  "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
  %buf = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 8192 : i32} : () -> !buf
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %o0, %o1) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
  "tilegpu.wait_barrier"(%bar, %c0) : (!bar, i32) -> ()
  %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<64x64xf16, #b>
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %o1, %o0) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
  "tilegpu.wait_barrier"(%bar, %c1) : (!bar, i32) -> ()
  %y = "tilegpu.local_load"(%buf) : (!buf) -> tensor<64x64xf16, #b>
  "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
  return
}

// -----

#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>

// A TMA load in a loop: besides the two barriers of each load (before the wait, after the
// init; before the inval, after the wait), the init of each trip after the first writes the
// barrier the previous trip invalidated: a barrier at the top of the body. The copy overwrites
// what the previous trip's local_load read, but the barrier before that trip's inval already
// ordered the read before it; the local_load follows its wait with none.
// CHECK-LABEL: func.func @tma_loop
// CHECK: scf.for
// CHECK-NEXT: "tilegpu.local_alloc"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.init_barrier"
// CHECK-NEXT: "tilegpu.local_alloc"
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.wait_barrier"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.inval_barrier"
// CHECK-NEXT: arith.addf
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @tma_loop(%map: !llvm.ptr, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant dense<0.0> : tensor<64x64xf16, #b>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x64xf16, #b>) : i32 {
    %bar = "tilegpu.local_alloc"() {tilegpu.offset = 8192 : i32, tilegpu.bytes = 8 : i32} : () -> !bar
    "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
    %buf = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 8192 : i32} : () -> !buf
    "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %i, %c0) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
    %phase = arith.constant 0 : i32
    "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
    %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<64x64xf16, #b>
    "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
    %s = arith.addf %acc, %x : tensor<64x64xf16, #b>
    scf.yield %s : tensor<64x64xf16, #b>
  }
  return
}

// -----

#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#bc = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
!cbuf = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// A TMA copy and a cp.async copy in one function, both issued before either is waited for.
// The barrier before wait_barrier (after the init) leaves the cp.async copy in flight. The TMA
// buffer's local_load right after its wait_barrier gets no barrier; the async_wait lands only
// the cp.async copy's writes, which other threads made, so the local_load of that buffer gets
// one. That barrier also orders the wait's read of the mbarrier before the inval: none there.
// CHECK-LABEL: func.func @tma_and_cp_async
// CHECK: [[TBUF:%.*]] = "tilegpu.local_alloc"() {tilegpu.bytes = 8192 : i32, tilegpu.offset = 0 : i32}
// CHECK-NEXT: [[CBUF:%.*]] = "tilegpu.local_alloc"() {tilegpu.bytes = 4096 : i32, tilegpu.offset = 8192 : i32}
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, [[TBUF]], %arg2, %arg3)
// CHECK-NEXT: "tilegpu.async_copy_global_to_local"(%arg1, [[CBUF]])
// CHECK-NEXT: "tilegpu.async_commit_group"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.wait_barrier"
// CHECK-NEXT: "tilegpu.local_load"([[TBUF]])
// CHECK-NEXT: "tilegpu.async_wait"() {num = 0 : i32}
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_load"([[CBUF]])
// CHECK-NEXT: "tilegpu.inval_barrier"
// CHECK-NEXT: return
func.func @tma_and_cp_async(%map: !llvm.ptr, %p: tensor<64x32x!tile.ptr<f16, 1 : i32>, #bc>, %o0: i32, %o1: i32) {
  %c0 = arith.constant 0 : i32
  %bar = "tilegpu.local_alloc"() {tilegpu.offset = 12288 : i32, tilegpu.bytes = 8 : i32} : () -> !bar
  "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
  %tbuf = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 8192 : i32} : () -> !buf
  %cbuf = "tilegpu.local_alloc"() {tilegpu.offset = 8192 : i32, tilegpu.bytes = 4096 : i32} : () -> !cbuf
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %tbuf, %o0, %o1) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
  %t = "tilegpu.async_copy_global_to_local"(%p, %cbuf) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #bc>, !cbuf) -> !tilegpu.async_token
  %g = "tilegpu.async_commit_group"() : () -> !tilegpu.async_token
  "tilegpu.wait_barrier"(%bar, %c0) : (!bar, i32) -> ()
  %x = "tilegpu.local_load"(%tbuf) : (!buf) -> tensor<64x64xf16, #b>
  %w = "tilegpu.async_wait"() {num = 0 : i32} : () -> !tilegpu.async_token
  %y = "tilegpu.local_load"(%cbuf) : (!cbuf) -> tensor<64x32xf16, #bc>
  "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
  return
}

// -----

#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!sbuf = !tilegpu.memdesc<[64, 64], f16, #nvmma, false>

// A TMA store as convert-tile-to-tilegpu leaves it: every thread writes its part of the value
// (local_alloc), fences it for the async proxy, and thread 0's copy reads the whole buffer, so
// the copy gets one barrier, after the fence (each thread fences its own writes before the
// barrier hands them to thread 0). The wait touches no shared memory: nothing after the copy.
// CHECK-LABEL: func.func @tma_store
// CHECK-NEXT: [[BUF:%.*]] = "tilegpu.local_alloc"(%arg1) {tilegpu.bytes = 8192 : i32, tilegpu.offset = 0 : i32}
// CHECK-NEXT: "tilegpu.fence_async_shared"() : () -> ()
// CHECK-NEXT: "tilegpu.barrier"() : () -> ()
// CHECK-NEXT: "tilegpu.async_tma_copy_local_to_global"(%arg0, [[BUF]], %arg2, %arg3)
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
// CHECK-NEXT: return
func.func @tma_store(%map: !llvm.ptr, %x: tensor<64x64xf16, #b>, %o0: i32, %o1: i32) {
  %buf = "tilegpu.local_alloc"(%x) {tilegpu.offset = 0 : i32, tilegpu.bytes = 8192 : i32} : (tensor<64x64xf16, #b>) -> !sbuf
  "tilegpu.fence_async_shared"() : () -> ()
  "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %o0, %o1) : (!llvm.ptr, !sbuf, i32, i32) -> ()
  "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
  return
}

// -----

#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!sbuf = !tilegpu.memdesc<[64, 64], f16, #nvmma, false>

// Two TMA stores through the same bytes (the allocator reused them). The second local_alloc
// writes what the first copy read (write after read): it gets a barrier, after the
// tma_store_wait (thread 0 has waited for the copy's reads when the others pass it), not
// before it. Its own copy gets one after its fence, as the first did.
// CHECK-LABEL: func.func @tma_store_reused_bytes
// CHECK-NEXT: [[BUF0:%.*]] = "tilegpu.local_alloc"(%arg1) {tilegpu.bytes = 8192 : i32, tilegpu.offset = 0 : i32}
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK-NEXT: "tilegpu.barrier"()
// CHECK-NEXT: "tilegpu.async_tma_copy_local_to_global"(%arg0, [[BUF0]], %arg3, %arg4)
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: "tilegpu.barrier"()
// CHECK-NEXT: [[BUF1:%.*]] = "tilegpu.local_alloc"(%arg2) {tilegpu.bytes = 8192 : i32, tilegpu.offset = 0 : i32}
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK-NEXT: "tilegpu.barrier"()
// CHECK-NEXT: "tilegpu.async_tma_copy_local_to_global"(%arg0, [[BUF1]], %arg4, %arg3)
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: return
func.func @tma_store_reused_bytes(%map: !llvm.ptr, %x: tensor<64x64xf16, #b>, %y: tensor<64x64xf16, #b>, %o0: i32, %o1: i32) {
  %buf0 = "tilegpu.local_alloc"(%x) {tilegpu.offset = 0 : i32, tilegpu.bytes = 8192 : i32} : (tensor<64x64xf16, #b>) -> !sbuf
  "tilegpu.fence_async_shared"() : () -> ()
  "tilegpu.async_tma_copy_local_to_global"(%map, %buf0, %o0, %o1) : (!llvm.ptr, !sbuf, i32, i32) -> ()
  "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
  %buf1 = "tilegpu.local_alloc"(%y) {tilegpu.offset = 0 : i32, tilegpu.bytes = 8192 : i32} : (tensor<64x64xf16, #b>) -> !sbuf
  "tilegpu.fence_async_shared"() : () -> ()
  "tilegpu.async_tma_copy_local_to_global"(%map, %buf1, %o1, %o0) : (!llvm.ptr, !sbuf, i32, i32) -> ()
  "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
  return
}

// -----

#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
!buf = !tilegpu.memdesc<[64, 32], f16, #shared, true>

// A warp specialisation: a store pending before it gets a barrier of every thread in front of
// the split (a barrier inside a region waits for that region's threads only). Then each region
// is its own path from a clean state: the consumers' load of what they stored waits (one of
// their barriers), the producer's load of a buffer only it touches after the split does not.
// CHECK-LABEL: func.func @split
// CHECK: "tilegpu.local_store"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.warp_specialize"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: }, {
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_load"
// CHECK-NEXT: gpu.yield
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @split(%x: tensor<64x32xf16, #b>) {
    %a = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
    %c = "tilegpu.local_alloc"() {tilegpu.offset = 4096 : i32, tilegpu.bytes = 4096 : i32} : () -> !buf
    "tilegpu.local_store"(%x, %a) : (tensor<64x32xf16, #b>, !buf) -> ()
    "tilegpu.warp_specialize"() ({
      %y = "tilegpu.local_load"(%a) : (!buf) -> tensor<64x32xf16, #b>
      gpu.yield
    }, {
      "tilegpu.local_store"(%x, %c) : (tensor<64x32xf16, #b>, !buf) -> ()
      %z = "tilegpu.local_load"(%c) : (!buf) -> tensor<64x32xf16, #b>
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 256 : i32} : () -> ()
    return
  }
}

// -----

#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!out = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
!other = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>

// A TMA store whose wait tilegpu-pipeline deferred to the next trip: the barrier that the
// other buffer's store and load need early in the body (the load of the previous trip was
// followed by one: the store needs none) does not complete the copy (the TMA
// unit reads the buffer until thread 0's wait), so the write of the buffer after the wait gets
// a barrier of its own, between the wait and the write. The copy gets its barrier too (thread
// 0 reads what every thread wrote).
// CHECK-LABEL: func.func @deferred_tma_store
// CHECK: scf.for
// CHECK-NEXT: "tilegpu.local_store"(%arg2, %1)
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_load"(%1)
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_store"(%arg2, %0)
// CHECK-NEXT: "tilegpu.fence_async_shared"
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.async_tma_copy_local_to_global"
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.tma_store_wait"
// CHECK-NEXT: return
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @deferred_tma_store(%map: !llvm.ptr, %n: i32, %x: tensor<128x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 16384 : i32} : () -> !out
    %o = "tilegpu.local_alloc"() {tilegpu.offset = 16384 : i32, tilegpu.bytes = 16384 : i32} : () -> !other
    scf.for %i = %c0 to %n step %c1 : i32 {
      "tilegpu.local_store"(%x, %o) : (tensor<128x64xf16, #b>, !other) -> ()
      %y = "tilegpu.local_load"(%o) : (!other) -> tensor<128x64xf16, #b>
      "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
      "tilegpu.local_store"(%x, %buf) : (tensor<128x64xf16, #b>, !out) -> ()
      "tilegpu.fence_async_shared"() : () -> ()
      "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %i, %c0) : (!llvm.ptr, !out, i32, i32) -> ()
    }
    "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
    return
  }
}

// -----

#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!out = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>

// A write to a buffer a TMA store may still be reading, with no wait for the copy in between:
// the wait goes in front of it, then the barrier. A barrier alone would not do: the TMA unit
// reads the buffer until thread 0 has waited.
// CHECK-LABEL: func.func @tma_store_overwritten
// CHECK: "tilegpu.async_tma_copy_local_to_global"
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: "tilegpu.barrier"
// CHECK-NEXT: "tilegpu.local_store"
// CHECK-NEXT: return
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @tma_store_overwritten(%map: !llvm.ptr, %x: tensor<128x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %buf = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 16384 : i32} : () -> !out
    "tilegpu.local_store"(%x, %buf) : (tensor<128x64xf16, #b>, !out) -> ()
    "tilegpu.fence_async_shared"() : () -> ()
    "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %c0, %c0) : (!llvm.ptr, !out, i32, i32) -> ()
    "tilegpu.local_store"(%x, %buf) : (tensor<128x64xf16, #b>, !out) -> ()
    return
  }
}
