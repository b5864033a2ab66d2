// RUN: tilec-opt %s | filecheck %s
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s > %t.1 && tilec-opt %t.1 > %t.2 && diff %t.1 %t.2

// Round trip of every `tilegpu` op, and of `tile` ops on tensors that carry layouts, in the
// generic form. Aliases need an explicit `module`; the printer writes layouts inline.

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#blocked1d = #tilegpu.blocked<[4], [32], [4], [0]>
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
#dotA = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#dotB = #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>

module {

// --- convert_layout ----------------------------------------------------------------------------

// CHECK-LABEL: func.func @convert_layout
// CHECK-SAME: ([[X:%[^:]*]]: tensor<64x64xf32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>)
// CHECK: [[M:%.*]] = "tilegpu.convert_layout"([[X]]) : (tensor<64x64xf32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>
// CHECK: "tilegpu.convert_layout"([[M]]) : (tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>) -> tensor<64x64xf32, #tilegpu.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
func.func @convert_layout(%x: tensor<64x64xf32, #blocked>) {
  %m = "tilegpu.convert_layout"(%x) : (tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #mma>
  %0 = "tilegpu.convert_layout"(%m) : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #tilegpu.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
  return
}

// --- shared memory -----------------------------------------------------------------------------

// local_alloc without src (an empty mutable buffer) and with src (initialised from registers).
// CHECK-LABEL: func.func @local_memory
// CHECK-SAME: ([[X:%[^:]*]]: tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>)
// CHECK: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
// CHECK: [[INIT:%.*]] = "tilegpu.local_alloc"([[X]]) : (tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, false>
// CHECK: "tilegpu.local_store"([[X]], [[BUF]]) : (tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>) -> ()
// CHECK: [[A:%.*]] = "tilegpu.local_load"([[BUF]]) : (!tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>) -> tensor<64x32xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>
// CHECK: "tilegpu.local_load"([[INIT]]) : (!tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, false>) -> tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK: "tilegpu.local_dealloc"([[BUF]]) : (!tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>) -> ()
// CHECK: "tilegpu.local_dealloc"([[INIT]])
// CHECK: return [[A]]
func.func @local_memory(%x: tensor<64x32xf16, #blocked>) -> tensor<64x32xf16, #dotA> {
  %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
  %init = "tilegpu.local_alloc"(%x) : (tensor<64x32xf16, #blocked>) -> !tilegpu.memdesc<[64, 32], f16, #shared, false>
  "tilegpu.local_store"(%x, %buf) : (tensor<64x32xf16, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
  %a = "tilegpu.local_load"(%buf) : (!tilegpu.memdesc<[64, 32], f16, #shared, true>) -> tensor<64x32xf16, #dotA>
  %b = "tilegpu.local_load"(%init) : (!tilegpu.memdesc<[64, 32], f16, #shared, false>) -> tensor<64x32xf16, #blocked>
  "tilegpu.local_dealloc"(%buf) : (!tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
  "tilegpu.local_dealloc"(%init) : (!tilegpu.memdesc<[64, 32], f16, #shared, false>) -> ()
  return %a : tensor<64x32xf16, #dotA>
}

// memdesc_subview with one i32 offset per source dimension, selecting one stage of a
// multi-buffered allocation (the leading dimension is indexed away).
// CHECK-LABEL: func.func @memdesc_subview
// CHECK-SAME: ([[STAGE:%[^:]*]]: i32)
// CHECK: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
// CHECK: [[ZERO:%.*]] = arith.constant 0 : i32
// CHECK: "tilegpu.memdesc_subview"([[BUF]], [[STAGE]], [[ZERO]], [[ZERO]]) : (!tilegpu.memdesc<[3, 64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
// CHECK: "tilegpu.memdesc_subview"([[BUF]], [[ZERO]], [[ZERO]], [[ZERO]]) : ({{.*}}, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
func.func @memdesc_subview(%stage: i32) {
  %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 64, 32], f16, #shared, true>
  %c0 = arith.constant 0 : i32
  %0 = "tilegpu.memdesc_subview"(%buf, %stage, %c0, %c0) : (!tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
  %1 = "tilegpu.memdesc_subview"(%buf, %c0, %c0, %c0) : (!tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
  return
}

// memdesc_trans: the same 2-D buffer with its dimensions (and the layout's order) swapped.
// CHECK-LABEL: func.func @memdesc_trans
// CHECK: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, true>
// CHECK: "tilegpu.memdesc_trans"([[BUF]]) : (!tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, true>) -> !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [0, 1]>, true>
func.func @memdesc_trans() {
  %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, true>
  %t = "tilegpu.memdesc_trans"(%buf) : (!tilegpu.memdesc<[64, 32], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>, true>) -> !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [0, 1]>, true>
  return
}

// --- asynchronous copies -----------------------------------------------------------------------

// CHECK-LABEL: func.func @async_copy
// CHECK-SAME: ([[P:%[^:]*]]: tensor<64x32x!tile.ptr<f16, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, [[M:%[^:]*]]: tensor<64x32xi1, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, [[O:%[^:]*]]: tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, [[D:%[^:]*]]: !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>)
// CHECK: [[T0:%.*]] = "tilegpu.async_copy_global_to_local"([[P]], [[D]]) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>) -> !tilegpu.async_token
// CHECK: [[T1:%.*]] = "tilegpu.async_copy_global_to_local"([[P]], [[D]], [[M]]) {cache = "ca", evict = "evict_last", operandSegmentSizes = array<i32: 1, 1, 1, 0>} : ({{.*}}) -> !tilegpu.async_token
// CHECK: [[T2:%.*]] = "tilegpu.async_copy_global_to_local"([[P]], [[D]], [[M]], [[O]]) {cache = "cg", evict = "evict_first", operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>, tensor<64x32xi1, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> !tilegpu.async_token
// CHECK: [[G:%.*]] = "tilegpu.async_commit_group"([[T0]], [[T1]], [[T2]]) : (!tilegpu.async_token, !tilegpu.async_token, !tilegpu.async_token) -> !tilegpu.async_token
// CHECK: [[E:%.*]] = "tilegpu.async_commit_group"() : () -> !tilegpu.async_token
// CHECK: "tilegpu.async_wait"([[G]], [[E]]) {num = 1 : i32} : (!tilegpu.async_token, !tilegpu.async_token) -> !tilegpu.async_token
// CHECK: "tilegpu.async_wait"() {num = 0 : i32} : () -> !tilegpu.async_token
// CHECK: "tilegpu.barrier"() : () -> ()
func.func @async_copy(%p: tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>,
                      %m: tensor<64x32xi1, #blocked>, %o: tensor<64x32xf16, #blocked>,
                      %d: !tilegpu.memdesc<[64, 32], f16, #shared, true>) {
  %t0 = "tilegpu.async_copy_global_to_local"(%p, %d) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> !tilegpu.async_token
  %t1 = "tilegpu.async_copy_global_to_local"(%p, %d, %m) {cache = "ca", evict = "evict_last", operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>, tensor<64x32xi1, #blocked>) -> !tilegpu.async_token
  %t2 = "tilegpu.async_copy_global_to_local"(%p, %d, %m, %o) {cache = "cg", evict = "evict_first", operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked>) -> !tilegpu.async_token
  %g = "tilegpu.async_commit_group"(%t0, %t1, %t2) : (!tilegpu.async_token, !tilegpu.async_token, !tilegpu.async_token) -> !tilegpu.async_token
  %e = "tilegpu.async_commit_group"() : () -> !tilegpu.async_token
  %w = "tilegpu.async_wait"(%g, %e) {num = 1 : i32} : (!tilegpu.async_token, !tilegpu.async_token) -> !tilegpu.async_token
  %w0 = "tilegpu.async_wait"() {num = 0 : i32} : () -> !tilegpu.async_token
  "tilegpu.barrier"() : () -> ()
  return
}

// --- mbarriers and TMA copies ------------------------------------------------------------------

// A buffer of one barrier and one of two: init (with its arrival count), a TMA copy into an
// nvmma_shared buffer completing on the barrier (map, barrier, buffer, then one coordinate per
// dimension of the buffer), a wait for a phase parity, and inval.
// CHECK-LABEL: func.func @mbarriers_and_tma
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[X:%[^:]*]]: i32, [[Y:%[^:]*]]: i32, [[PHASE:%[^:]*]]: i32)
// CHECK: [[BAR:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
// CHECK: [[BARS:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
// CHECK: "tilegpu.init_barrier"([[BAR]]) {count = 1 : i32} : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
// CHECK: "tilegpu.init_barrier"([[BARS]]) {count = 128 : i32} : (!tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
// CHECK: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
// CHECK: "tilegpu.async_tma_copy_global_to_local"([[MAP]], [[BAR]], [[BUF]], [[X]], [[Y]]) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>, i32, i32) -> ()
// CHECK: "tilegpu.wait_barrier"([[BAR]], [[PHASE]]) : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, i32) -> ()
// CHECK: "tilegpu.inval_barrier"([[BAR]]) : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
// CHECK: "tilegpu.inval_barrier"([[BARS]]) : (!tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
func.func @mbarriers_and_tma(%map: !llvm.ptr, %x: i32, %y: i32, %phase: i32) {
  %bar = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
  %bars = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
  "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  "tilegpu.init_barrier"(%bars) {count = 128 : i32} : (!tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %x, %y) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>, i32, i32) -> ()
  "tilegpu.wait_barrier"(%bar, %phase) : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, i32) -> ()
  "tilegpu.inval_barrier"(%bar) : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  "tilegpu.inval_barrier"(%bars) : (!tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  return
}

// A TMA store: the value written to an (immutable) nvmma_shared buffer, the proxy fence, the
// copy out of the buffer (map, buffer, then one coordinate per dimension of the buffer; also
// from a mutable buffer), and waits until at most `pendings` store groups still read shared
// memory.
// CHECK-LABEL: func.func @tma_store
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[V:%[^:]*]]: tensor<64x64xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, [[X:%[^:]*]]: i32, [[Y:%[^:]*]]: i32)
// CHECK: [[BUF:%.*]] = "tilegpu.local_alloc"([[V]]) : (tensor<64x64xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
// CHECK: "tilegpu.fence_async_shared"() : () -> ()
// CHECK: "tilegpu.async_tma_copy_local_to_global"([[MAP]], [[BUF]], [[X]], [[Y]]) : (!llvm.ptr, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, i32, i32) -> ()
// CHECK: "tilegpu.tma_store_wait"() {pendings = 1 : i32} : () -> ()
// CHECK: [[MBUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
// CHECK: "tilegpu.async_tma_copy_local_to_global"([[MAP]], [[MBUF]], [[Y]], [[X]]) : (!llvm.ptr, !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>, i32, i32) -> ()
// CHECK: "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
// A TMA reduction takes the store's operands and its kind.
// CHECK: "tilegpu.async_tma_reduce"([[MAP]], [[BUF]], [[X]], [[Y]]) {kind = "add"} : (!llvm.ptr, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, i32, i32) -> ()
func.func @tma_store(%map: !llvm.ptr, %v: tensor<64x64xf16, #blocked>, %x: i32, %y: i32) {
  %buf = "tilegpu.local_alloc"(%v) : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
  "tilegpu.fence_async_shared"() : () -> ()
  "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %x, %y) : (!llvm.ptr, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, i32, i32) -> ()
  "tilegpu.tma_store_wait"() {pendings = 1 : i32} : () -> ()
  %mbuf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
  "tilegpu.async_tma_copy_local_to_global"(%map, %mbuf, %y, %x) : (!llvm.ptr, !tilegpu.memdesc<[64, 128], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>, i32, i32) -> ()
  "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
  "tilegpu.async_tma_reduce"(%map, %buf, %x, %y) {kind = "add"} : (!llvm.ptr, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, i32, i32) -> ()
  return
}

// --- tile ops on tensors with layouts ----------------------------------------------------------

// Index tensors in slice layouts, expanded back to the parent layout and broadcast (the usual
// 2-D offset computation), then a masked load and store in a blocked layout.
// CHECK-LABEL: func.func @blocked_load_store
// CHECK-SAME: ([[P:%[^:]*]]: !tile.ptr<f32, 1 : i32>)
// CHECK: [[ROWS:%.*]] = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>
// CHECK: [[COLS:%.*]] = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #tilegpu.slice<0 : i32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>
// CHECK: [[R2:%.*]] = "tile.expand_dims"([[ROWS]]) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>) -> tensor<64x1xi32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK: [[C2:%.*]] = "tile.expand_dims"([[COLS]]) {axis = 0 : i32} : (tensor<32xi32, #tilegpu.slice<0 : i32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>) -> tensor<1x32xi32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK: [[RB:%.*]] = "tile.broadcast"([[R2]]) : (tensor<64x1xi32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xi32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK: [[CB:%.*]] = "tile.broadcast"([[C2]])
// CHECK: [[OFFS:%.*]] = arith.addi [[RB]], [[CB]] : tensor<64x32xi32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK: [[PS:%.*]] = "tile.splat"([[P]]) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x32x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK: [[PT:%.*]] = "tile.addptr"([[PS]], [[OFFS]]) : (tensor<64x32x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK: [[MASK:%.*]] = arith.cmpi slt, [[OFFS]], {{%.*}}
// CHECK: [[V:%.*]] = "tile.load"([[PT]], [[MASK]]) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x32x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi1, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK: "tile.store"([[PT]], [[V]], [[MASK]]) {cache = "none", evict = "evict_normal"} : (tensor<64x32x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xf32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi1, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> ()
func.func @blocked_load_store(%p: !tile.ptr<f32, 1 : i32>) {
  %rows = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32, #tilegpu.slice<1 : i32, #blocked>>
  %cols = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32, #tilegpu.slice<0 : i32, #blocked>>
  %r2 = "tile.expand_dims"(%rows) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.slice<1 : i32, #blocked>>) -> tensor<64x1xi32, #blocked>
  %c2 = "tile.expand_dims"(%cols) {axis = 0 : i32} : (tensor<32xi32, #tilegpu.slice<0 : i32, #blocked>>) -> tensor<1x32xi32, #blocked>
  %rb = "tile.broadcast"(%r2) : (tensor<64x1xi32, #blocked>) -> tensor<64x32xi32, #blocked>
  %cb = "tile.broadcast"(%c2) : (tensor<1x32xi32, #blocked>) -> tensor<64x32xi32, #blocked>
  %offs = arith.addi %rb, %cb : tensor<64x32xi32, #blocked>
  %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x32x!tile.ptr<f32, 1 : i32>, #blocked>
  %pt = "tile.addptr"(%ps, %offs) : (tensor<64x32x!tile.ptr<f32, 1 : i32>, #blocked>, tensor<64x32xi32, #blocked>) -> tensor<64x32x!tile.ptr<f32, 1 : i32>, #blocked>
  %limit = arith.constant dense<1000> : tensor<64x32xi32, #blocked>
  %mask = arith.cmpi slt, %offs, %limit : tensor<64x32xi32, #blocked>
  %v = "tile.load"(%pt, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x32x!tile.ptr<f32, 1 : i32>, #blocked>, tensor<64x32xi1, #blocked>) -> tensor<64x32xf32, #blocked>
  "tile.store"(%pt, %v, %mask) {cache = "none", evict = "evict_normal"} : (tensor<64x32x!tile.ptr<f32, 1 : i32>, #blocked>, tensor<64x32xf32, #blocked>, tensor<64x32xi1, #blocked>) -> ()
  return
}

// A dot on dot_operand inputs accumulating in an mma layout; a row reduction of the result lands
// in a slice of the mma layout.
// CHECK-LABEL: func.func @mma_dot
// CHECK-SAME: ([[A:%[^:]*]]: tensor<64x32xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>, [[B:%[^:]*]]: tensor<32x64xf16, #tilegpu.dot_operand<1 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>, [[C:%[^:]*]]: tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>)
// CHECK: [[D:%.*]] = "tile.dot"([[A]], [[B]], [[C]]) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>, tensor<32x64xf16, #tilegpu.dot_operand<1 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>, tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>) -> tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>
// CHECK: [[R:%.*]] = "tile.reduce"([[D]]) ({
// CHECK: }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>) -> tensor<64xf32, #tilegpu.slice<1 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>>
// CHECK: return [[R]]
func.func @mma_dot(%a: tensor<64x32xf16, #dotA>, %b: tensor<32x64xf16, #dotB>,
                   %c: tensor<64x64xf32, #mma>) -> tensor<64xf32, #tilegpu.slice<1 : i32, #mma>> {
  %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #dotA>, tensor<32x64xf16, #dotB>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
  %r = "tile.reduce"(%d) ({
  ^bb0(%x: f32, %y: f32):
    %m = arith.maximumf %x, %y : f32
    gpu.yield %m : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #tilegpu.slice<1 : i32, #mma>>
  return %r : tensor<64xf32, #tilegpu.slice<1 : i32, #mma>>
}

// One stage of a software-pipelined matmul loop: wait for the copy of stage i, barrier, read both
// operands from shared memory, dot, then issue the copies of the next stage.
// CHECK-LABEL: func.func @pipelined_step
// CHECK: [[W:%.*]] = "tilegpu.async_wait"({{%.*}}) {num = 1 : i32}
// CHECK: "tilegpu.barrier"()
// CHECK: [[SA:%.*]] = "tilegpu.memdesc_subview"({{%.*}}, [[I:%[^,]*]], {{%.*}}, {{%.*}})
// CHECK: [[SB:%.*]] = "tilegpu.memdesc_subview"({{%.*}}, [[I]], {{%.*}}, {{%.*}})
// CHECK: [[A:%.*]] = "tilegpu.local_load"([[SA]]) : {{.*}} -> tensor<64x32xf16, #tilegpu.dot_operand<0 : i32,
// CHECK: [[B:%.*]] = "tilegpu.local_load"([[SB]]) : {{.*}} -> tensor<32x64xf16, #tilegpu.dot_operand<1 : i32,
// CHECK: [[D:%.*]] = "tile.dot"([[A]], [[B]], {{%.*}})
// CHECK: [[NA:%.*]] = "tilegpu.async_copy_global_to_local"
// CHECK: [[NB:%.*]] = "tilegpu.async_copy_global_to_local"
// CHECK: [[G:%.*]] = "tilegpu.async_commit_group"([[NA]], [[NB]])
// CHECK: return [[D]], [[G]]
func.func @pipelined_step(%bufa: !tilegpu.memdesc<[2, 64, 32], f16, #shared, true>,
                          %bufb: !tilegpu.memdesc<[2, 32, 64], f16, #shared, true>,
                          %i: i32, %next: i32, %tok: !tilegpu.async_token,
                          %pa: tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>,
                          %pb: tensor<32x64x!tile.ptr<f16, 1 : i32>, #blocked>,
                          %acc: tensor<64x64xf32, #mma>)
    -> (tensor<64x64xf32, #mma>, !tilegpu.async_token) {
  %c0 = arith.constant 0 : i32
  %w = "tilegpu.async_wait"(%tok) {num = 1 : i32} : (!tilegpu.async_token) -> !tilegpu.async_token
  "tilegpu.barrier"() : () -> ()
  %sa = "tilegpu.memdesc_subview"(%bufa, %i, %c0, %c0) : (!tilegpu.memdesc<[2, 64, 32], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
  %sb = "tilegpu.memdesc_subview"(%bufb, %i, %c0, %c0) : (!tilegpu.memdesc<[2, 32, 64], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[32, 64], f16, #shared, true>
  %a = "tilegpu.local_load"(%sa) : (!tilegpu.memdesc<[64, 32], f16, #shared, true>) -> tensor<64x32xf16, #dotA>
  %b = "tilegpu.local_load"(%sb) : (!tilegpu.memdesc<[32, 64], f16, #shared, true>) -> tensor<32x64xf16, #dotB>
  %d = "tile.dot"(%a, %b, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #dotA>, tensor<32x64xf16, #dotB>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
  %na_buf = "tilegpu.memdesc_subview"(%bufa, %next, %c0, %c0) : (!tilegpu.memdesc<[2, 64, 32], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
  %nb_buf = "tilegpu.memdesc_subview"(%bufb, %next, %c0, %c0) : (!tilegpu.memdesc<[2, 32, 64], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[32, 64], f16, #shared, true>
  %na = "tilegpu.async_copy_global_to_local"(%pa, %na_buf) {cache = "cg", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> !tilegpu.async_token
  %nb = "tilegpu.async_copy_global_to_local"(%pb, %nb_buf) {cache = "cg", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<32x64x!tile.ptr<f16, 1 : i32>, #blocked>, !tilegpu.memdesc<[32, 64], f16, #shared, true>) -> !tilegpu.async_token
  %g = "tilegpu.async_commit_group"(%na, %nb) : (!tilegpu.async_token, !tilegpu.async_token) -> !tilegpu.async_token
  return %d, %g : tensor<64x64xf32, #mma>, !tilegpu.async_token
}

}
