// RUN: not tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm 2>/dev/null | filecheck %s
// The chunks that lower produce no diagnostics; the ones with a tile.tma_load or a
// tile.tma_store left produce exactly the errors they expect (and make the first RUN line exit
// non-zero, hence `not`).
// RUN: tilec-opt %s --split-input-file --verify-diagnostics --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm
// With cse after it, as the compiler's llvm stage runs it: the one-thread predicates are one value.
// RUN: not tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm --cse 2>/dev/null | filecheck %s --check-prefix=CSE
// convert-tilegpu-to-llvm: mbarriers and TMA copies (init_barrier, inval_barrier,
// wait_barrier, async_tma_copy_global_to_local, async_tma_copy_local_to_global,
// tma_store_wait; python/tilec/lowering/tma.py), and the kernel parameters that are TMA maps
// listed on the gpu.func for tilegpu-tensormap-params.

// A tile.tma_load of a 64x64 fp16 block as convert-tile-to-tilegpu leaves it, on 4 warps. The
// allocator puts the 8192-byte buffer (128-byte swizzle: on a 1024-byte period) at 0 and the
// barrier after it, at 8192. Thread 0 initialises the barrier for one arrival, every thread
// fences the inits for the async proxy; thread 0 arrives expecting the buffer's 64 x 64 x 2 =
// 8192 bytes and issues one copy (the buffer is one 128-byte column block) into the buffer's
// shared::cluster address, the coordinates innermost first (column, then row). Every thread
// then spins on try_wait.parity of phase 0 after the barrier tilegpu-membar put before the
// wait (every thread sees the init), and reads the buffer with no barrier in between: the wait
// itself makes the copy's writes visible to the threads that waited. After a second barrier
// (no thread may still be waiting) thread 0 invalidates the barrier. The map parameter is
// listed in tilec.tensormaps.
// CHECK-LABEL: gpu.func @tma_load
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[ROW:%[^:]*]]: i32, [[COL:%[^:]*]]: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tilec.tensormaps = array<i32: 0>}
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: [[BAR:%.*]] = llvm.getelementptr [[SMEM]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: [[ONE:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: nvvm.mbarrier.init [[BAR]], [[ONE]], predicate = {{%[0-9]+}} : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: [[BYTES:%.*]] = arith.constant 8192 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx [[BAR]], [[BYTES]], predicate = [[T0:%[0-9]+]] : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: [[DST:%.*]] = llvm.addrspacecast [[SMEM]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global [[DST]], [[MAP]], [[BAR]], box{{\[}}[[COL]], [[ROW]]{{\]}} predicate = [[T0]] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NEXT: [[PHASE:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.while : () -> () {
// CHECK-NEXT: [[DONE:%.*]] = nvvm.mbarrier.try_wait [[BAR]], [[PHASE]] : !llvm.ptr<3>, i32 -> i1
// CHECK-NEXT: [[TRUE:%.*]] = arith.constant true
// CHECK-NEXT: [[AGAIN:%.*]] = arith.xori [[DONE]], [[TRUE]] : i1
// CHECK-NEXT: scf.condition([[AGAIN]])
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// CHECK: llvm.load {{%.*}} : !llvm.ptr<3> -> f16
// CHECK: gpu.barrier
// CHECK-NEXT: scf.if {{%[0-9]+}} {
// CHECK-NEXT: nvvm.mbarrier.inval [[BAR]] : !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// The predicates are thread 0's: lane 0 (lane & 31 == 0) of warp 0 (warp & 3 == 0), the same
// one for the init, the arrival, the copy and the inval.
// CSE-LABEL: gpu.func @tma_load
// CSE: [[TID:%.*]] = arith.index_cast %thread_id_x : index to i32
// CSE-NEXT: %c31_i32 = arith.constant 31 : i32
// CSE-NEXT: [[LANE:%.*]] = arith.andi [[TID]], %c31_i32 : i32
// CSE: [[WARP:%.*]] = nvvm.shfl.sync{{.*}}idx
// CSE: [[L:%.*]] = arith.andi [[LANE]], %c31_i32 : i32
// CSE-NEXT: [[L0:%.*]] = arith.cmpi eq, [[L]], %c0_i32 : i32
// CSE-NEXT: %c3_i32 = arith.constant 3 : i32
// CSE-NEXT: [[W:%.*]] = arith.andi [[WARP]], %c3_i32 : i32
// CSE-NEXT: [[W0:%.*]] = arith.cmpi eq, [[W]], %c0_i32 : i32
// CSE-NEXT: [[T0:%.*]] = arith.andi [[L0]], [[W0]] : i1
// CSE: nvvm.mbarrier.init [[BAR:%[0-9]+]], %c1_i32, predicate = [[T0]]
// CSE: nvvm.mbarrier.arrive.expect_tx [[BAR]], %c8192_i32, predicate = [[T0]]
// CSE: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} predicate = [[T0]]
// CSE: scf.if [[T0]] {
// CSE-NEXT: nvvm.mbarrier.inval [[BAR]]
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_load(%map: !llvm.ptr, %row: i32, %col: i32) {
    %bar = "tilegpu.local_alloc"() : () -> !bar
    "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
    %buf = "tilegpu.local_alloc"() : () -> !buf
    "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %col) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
    %c0 = arith.constant 0 : i32
    "tilegpu.wait_barrier"(%bar, %c0) : (!bar, i32) -> ()
    %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<64x64xf16, #b>
    "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
    return
  }
}

// -----

// A 64x128 fp16 buffer with the 128-byte swizzle is two 64-column blocks stored one after the
// other: the arrival expects all 16384 bytes, then two copies, the second 64 rows x 128 bytes
// = 8192 bytes into the buffer and at column + 64 (the innermost coordinate), both completing
// on the one barrier (after the buffer, at 16384). The wait takes its phase as given.
// CHECK-LABEL: gpu.func @column_blocks
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[ROW:%[^:]*]]: i32, [[COL:%[^:]*]]: i32, [[PHASE:%[^:]*]]: i32)
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: [[BAR:%.*]] = llvm.getelementptr [[SMEM]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.mbarrier.init [[BAR]]
// CHECK: [[BYTES:%.*]] = arith.constant 16384 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx [[BAR]], [[BYTES]], predicate = [[T0:%[0-9]+]]
// CHECK-NEXT: [[DST0:%.*]] = llvm.addrspacecast [[SMEM]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global [[DST0]], [[MAP]], [[BAR]], box{{\[}}[[COL]], [[ROW]]{{\]}} predicate = [[T0]]
// CHECK-NEXT: [[C64:%.*]] = arith.constant 64 : i32
// CHECK-NEXT: [[COL1:%.*]] = arith.addi [[COL]], [[C64]] : i32
// CHECK-NEXT: [[BLOCK1:%.*]] = llvm.getelementptr [[SMEM]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: [[DST1:%.*]] = llvm.addrspacecast [[BLOCK1]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global [[DST1]], [[MAP]], [[BAR]], box{{\[}}[[COL1]], [[ROW]]{{\]}} predicate = [[T0]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.mbarrier.try_wait [[BAR]], [[PHASE]] : !llvm.ptr<3>, i32 -> i1
// CHECK: nvvm.mbarrier.inval [[BAR]]
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 128], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @column_blocks(%map: !llvm.ptr, %row: i32, %col: i32, %phase: i32) {
    %bar = "tilegpu.local_alloc"() : () -> !bar
    "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
    %buf = "tilegpu.local_alloc"() : () -> !buf
    "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %col) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
    "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
    "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
    "tilegpu.local_dealloc"(%buf) : (!buf) -> ()
    return
  }
}

// -----

// fp32 with the 64-byte swizzle: 16-column blocks, so a 32x32 buffer is two blocks of
// 32 x 16 x 4 = 2048 bytes (the second at +2048 bytes, column + 16), 4096 bytes expected. A
// buffer of two barriers initialised for three arrivals: one mbarrier.init per barrier (the
// second 8 bytes on: one i64), one fence after both, and one scf.if invalidating both. The copy
// completes on a barrier of its own (the allocator puts the buffer at 0, the pair at 4096 and
// the single barrier after it, at 4112).
// CHECK-LABEL: gpu.func @fp32_blocks
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[ROW:%[^:]*]]: i32, [[COL:%[^:]*]]: i32)
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: [[BARS:%.*]] = llvm.getelementptr [[SMEM]][4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: [[THREE:%.*]] = arith.constant 3 : i32
// CHECK-NEXT: nvvm.mbarrier.init [[BARS]], [[THREE]], predicate = [[P:%[0-9]+]]
// CHECK-NEXT: [[SECOND:%.*]] = llvm.getelementptr [[BARS]][1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i64
// CHECK-NEXT: nvvm.mbarrier.init [[SECOND]], [[THREE]], predicate = [[P]]
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: [[BAR:%.*]] = llvm.getelementptr [[SMEM]][4112] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.mbarrier.init [[BAR]], {{%.*}}, predicate
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: [[BYTES:%.*]] = arith.constant 4096 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx [[BAR]], [[BYTES]], predicate = [[T0:%[0-9]+]]
// CHECK-NEXT: [[DST0:%.*]] = llvm.addrspacecast [[SMEM]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global [[DST0]], [[MAP]], [[BAR]], box{{\[}}[[COL]], [[ROW]]{{\]}} predicate = [[T0]]
// CHECK-NEXT: [[C16:%.*]] = arith.constant 16 : i32
// CHECK-NEXT: [[COL1:%.*]] = arith.addi [[COL]], [[C16]] : i32
// CHECK-NEXT: [[BLOCK1:%.*]] = llvm.getelementptr [[SMEM]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: [[DST1:%.*]] = llvm.addrspacecast [[BLOCK1]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global [[DST1]], [[MAP]], [[BAR]], box{{\[}}[[COL1]], [[ROW]]{{\]}} predicate = [[T0]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: scf.if {{%[0-9]+}} {
// CHECK-NEXT: nvvm.mbarrier.inval [[BARS]] : !llvm.ptr<3>
// CHECK-NEXT: [[SECOND1:%.*]] = llvm.getelementptr [[BARS]][1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i64
// CHECK-NEXT: nvvm.mbarrier.inval [[SECOND1]] : !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nv64 = #tilegpu.nvmma_shared<64 : i32, 32 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!bars = !tilegpu.memdesc<[2], i64, #bs, true>
!buf = !tilegpu.memdesc<[32, 32], f32, #nv64, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @fp32_blocks(%map: !llvm.ptr, %row: i32, %col: i32) {
    %bars = "tilegpu.local_alloc"() : () -> !bars
    "tilegpu.init_barrier"(%bars) {count = 3 : i32} : (!bars) -> ()
    %bar = "tilegpu.local_alloc"() : () -> !bar
    "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
    %buf = "tilegpu.local_alloc"() : () -> !buf
    "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %col) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
    "tilegpu.local_dealloc"(%buf) : (!buf) -> ()
    "tilegpu.local_dealloc"(%bar) : (!bar) -> ()
    "tilegpu.inval_barrier"(%bars) : (!bars) -> ()
    return
  }
}

// -----

// Every kernel parameter of type !llvm.ptr is a TMA map: the gpu.func lists their indices in
// tilec.tensormaps (here 1 and 3; the global pointer, !llvm.ptr<1>, is not one). A kernel with
// no map has no such attribute, nor has one whose generic pointer (a !tile.ptr of address
// space 0, which lowers to !llvm.ptr too) is an ordinary pointer.
// CHECK-LABEL: gpu.func @maps
// CHECK-SAME: (%arg0: i32, %arg1: !llvm.ptr, %arg2: !llvm.ptr<1>, %arg3: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tilec.tensormaps = array<i32: 1, 3>} {
// CHECK-LABEL: gpu.func @no_maps
// CHECK-SAME: (%arg0: i32, %arg1: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
// CHECK-LABEL: gpu.func @generic_pointer
// CHECK-SAME: (%arg0: !llvm.ptr, %arg1: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @maps(%n: i32, %a: !llvm.ptr, %p: !tile.ptr<f32, 1 : i32>, %b: !llvm.ptr) {
    return
  }
  func.func @no_maps(%n: i32, %p: !tile.ptr<f32, 1 : i32>) {
    return
  }
  func.func @generic_pointer(%p: !tile.ptr<f32, 0 : i32>, %x: f32) {
    return
  }
}

// -----

// A barrier picked out of a buffer of two by a view is the second one (8 bytes in; the
// allocator puts the buffer at 0); a program of one thread invalidates its barriers without a branch.
// CHECK-LABEL: gpu.func @second_barrier
// CHECK: [[BARS:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: [[SECOND:%.*]] = llvm.getelementptr [[BARS]][1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i64
// CHECK: nvvm.mbarrier.try_wait [[SECOND]]
// CHECK-LABEL: gpu.func @one_thread
// CHECK-NOT: scf.if
// CHECK: nvvm.mbarrier.inval
// CHECK-NOT: scf.if
// CHECK: gpu.return
!bars = !tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
!bar = !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @second_barrier(%phase: i32) {
    %c1 = arith.constant 1 : i32
    %bars = "tilegpu.local_alloc"() {tilegpu.offset = 8192 : i32, tilegpu.bytes = 16 : i32} : () -> !bars
    %b1 = "tilegpu.memdesc_subview"(%bars, %c1) : (!bars, i32) -> !bar
    "tilegpu.wait_barrier"(%b1, %phase) : (!bar, i32) -> ()
    return
  }
}

// -----

!bar = !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.threads_per_warp = 1 : i32} {
  func.func @one_thread() {
    %bar = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32, tilegpu.bytes = 8 : i32} : () -> !bar
    "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
    return
  }
}

// -----

// A tile.tma_store of a 64x128 fp16 block as convert-tile-to-tilegpu leaves it, on 4 warps:
// the value written to an immutable nvmma_shared buffer (128-byte swizzle: two 64-column
// blocks of 64 rows x 128 bytes = 8192 bytes each; the allocator puts it at 0), fenced for the
// async proxy by every thread, then the barrier tilegpu-membar put before the copy (every
// thread's writes and fence before thread 0 reads the buffer). Thread 0 stores each column
// block from its shared::cta address, the coordinates innermost first (column, then row): the
// second 8192 bytes in, at column + 64. Then thread 0 alone commits both copies as one bulk
// group, and waits until none of its groups still reads shared memory (wait_group.read 0).
// Nothing else follows the fence: the stores of the value all come before it.
// CHECK-LABEL: gpu.func @tma_store
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[V:%[^:]*]]: f16, [[ROW:%[^:]*]]: i32, [[COL:%[^:]*]]: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tilec.tensormaps = array<i32: 0>}
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: llvm.store [[V]], {{%.*}} : f16, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta [[MAP]], [[SMEM]], box{{\[}}[[COL]], [[ROW]]{{\]}}, predicate = [[T0:%[0-9]+]] : !llvm.ptr, <3>
// CHECK-NEXT: [[C64:%.*]] = arith.constant 64 : i32
// CHECK-NEXT: [[COL1:%.*]] = arith.addi [[COL]], [[C64]] : i32
// CHECK-NEXT: [[BLOCK1:%.*]] = llvm.getelementptr [[SMEM]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta [[MAP]], [[BLOCK1]], box{{\[}}[[COL1]], [[ROW]]{{\]}}, predicate = [[T0]] : !llvm.ptr, <3>
// CHECK-NEXT: scf.if {{%[0-9]+}} {
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: }
// CHECK-NEXT: scf.if {{%[0-9]+}} {
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// The copies' predicate and the conditions of both branches are thread 0's, one value.
// CSE-LABEL: gpu.func @tma_store
// CSE: [[W:%.*]] = arith.andi {{%[0-9]+}}, %c3_i32 : i32
// CSE-NEXT: [[W0:%.*]] = arith.cmpi eq, [[W]], %c0_i32 : i32
// CSE-NEXT: [[T0:%.*]] = arith.andi {{%[0-9]+}}, [[W0]] : i1
// CSE: nvvm.cp.async.bulk.tensor.global.shared.cta {{.*}} predicate = [[T0]]
// CSE: nvvm.cp.async.bulk.tensor.global.shared.cta {{.*}} predicate = [[T0]]
// CSE-NEXT: scf.if [[T0]] {
// CSE-NEXT: nvvm.cp.async.bulk.commit.group
// CSE-NEXT: }
// CSE-NEXT: scf.if [[T0]] {
// CSE-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!sbuf = !tilegpu.memdesc<[64, 128], f16, #nvmma, false>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_store(%map: !llvm.ptr, %v: f16, %row: i32, %col: i32) {
    %x = "tile.splat"(%v) : (f16) -> tensor<64x128xf16, #b>
    %buf = "tilegpu.local_alloc"(%x) : (tensor<64x128xf16, #b>) -> !sbuf
    "tilegpu.fence_async_shared"() : () -> ()
    "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %row, %col) : (!llvm.ptr, !sbuf, i32, i32) -> ()
    "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
    return
  }
}

// -----

// A program of one thread stores without a predicate and commits and waits without a branch;
// the wait keeps its count of pending groups. A buffer of one column block is one copy.
// CHECK-LABEL: gpu.func @one_thread_store
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[ROW:%[^:]*]]: i32, [[COL:%[^:]*]]: i32)
// CHECK: [[SMEM:%.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK-NOT: scf.if
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta [[MAP]], [[SMEM]], box{{\[}}[[COL]], [[ROW]]{{\]}} : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 2 {read}
// CHECK-NEXT: gpu.return
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!sbuf = !tilegpu.memdesc<[8, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.threads_per_warp = 1 : i32} {
  func.func @one_thread_store(%map: !llvm.ptr, %row: i32, %col: i32) {
    %buf = "tilegpu.local_alloc"() : () -> !sbuf
    "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %row, %col) : (!llvm.ptr, !sbuf, i32, i32) -> ()
    "tilegpu.tma_store_wait"() {pendings = 2 : i32} : () -> ()
    return
  }
}

// -----

// A tile.tma_load is tile IR: it is an error here, at its location.
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tile_ir(%map: !llvm.ptr, %o: i32) {
    // expected-error@+1 {{tile.tma_load is tile IR: convert-tile-to-tilegpu turns it into a TMA copy through shared memory (run it first)}}
    %x = "tile.tma_load"(%map, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16, #b>
    return
  }
}

// -----

// A tile.tma_store is tile IR too: the same error, naming it.
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tile_ir_store(%map: !llvm.ptr, %v: f16, %o: i32) {
    %x = "tile.splat"(%v) : (f16) -> tensor<64x64xf16, #b>
    // expected-error@+1 {{tile.tma_store is tile IR: convert-tile-to-tilegpu turns it into a TMA copy through shared memory (run it first)}}
    "tile.tma_store"(%map, %x, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16, #b>, i32, i32) -> ()
    return
  }
}

// -----

// A map made in the kernel (tile.make_tensormap) of a bf16 tensor, 64 x 64 boxes with the
// 128-byte swizzle, slot 1 of the scratch. Slots are slot-major: program p's slot s is 256
// bytes at (s * programs + p) * 256 of the scratch, p and the program count linear over the
// grid (x fastest). A tensor with a zero-sized dimension is mapped as the slot's zero half
// (128 bytes in) seen as a 1 x 1 tensor with a 16-byte stride. Lane 0 of warp 0 zeroes that
// half (8 stores of 16 bytes) and the map's 128 bytes of shared memory (the op's scratch),
// sets every field there with tensormap.replace (global address, rank 2 - 1, box innermost
// first, sizes innermost first, the stride in bytes, element strides 1, bf16 = element type
// 10, no interleave, 128-byte swizzle = mode 3, zero fill); then warp 0 copies it to the slot,
// releasing it to the tensormap proxy (tensormap.cp_fenceproxy); after a barrier every thread
// acquires it. The map is the slot's generic address.
// CHECK-LABEL: gpu.func @make_map
// CHECK-SAME: ([[SCRATCH:%[^:]*]]: !llvm.ptr<1>, [[BASE:%[^:]*]]: !llvm.ptr<1>, [[ROWS:%[^:]*]]: i64, [[COLS:%[^:]*]]: i64, [[STRIDE:%[^:]*]]: i64)
// CHECK: [[X:%.*]] = arith.extui {{%.*}} : i32 to i64
// CHECK: [[Y:%.*]] = arith.extui {{%.*}} : i32 to i64
// CHECK: [[Z:%.*]] = arith.extui {{%.*}} : i32 to i64
// CHECK: [[NX:%.*]] = arith.extui {{%.*}} : i32 to i64
// CHECK: [[NY:%.*]] = arith.extui {{%.*}} : i32 to i64
// CHECK: [[NZ:%.*]] = arith.extui {{%.*}} : i32 to i64
// CHECK-NEXT: [[T1:%.*]] = arith.muli [[NY]], [[Z]] : i64
// CHECK-NEXT: [[T2:%.*]] = arith.addi [[Y]], [[T1]] : i64
// CHECK-NEXT: [[T3:%.*]] = arith.muli [[NX]], [[T2]] : i64
// CHECK-NEXT: [[PROGRAM:%.*]] = arith.addi [[X]], [[T3]] : i64
// CHECK-NEXT: [[T4:%.*]] = arith.muli [[NY]], [[NZ]] : i64
// CHECK-NEXT: [[PROGRAMS:%.*]] = arith.muli [[NX]], [[T4]] : i64
// CHECK-NEXT: [[SLOT:%.*]] = arith.constant 1 : i64
// CHECK-NEXT: [[T5:%.*]] = arith.muli [[SLOT]], [[PROGRAMS]] : i64
// CHECK-NEXT: [[INDEX:%.*]] = arith.addi [[T5]], [[PROGRAM]] : i64
// CHECK-NEXT: [[SIZE:%.*]] = arith.constant 256 : i64
// CHECK-NEXT: [[OFFSET:%.*]] = arith.muli [[INDEX]], [[SIZE]] : i64
// CHECK-NEXT: [[AT:%.*]] = llvm.getelementptr [[SCRATCH]]{{\[}}[[OFFSET]]{{\]}} : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: [[ZEROS:%.*]] = llvm.getelementptr [[AT]][128] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i64
// CHECK-NEXT: [[E1:%.*]] = arith.cmpi eq, [[ROWS]], [[C0]] : i64
// CHECK-NEXT: [[E2:%.*]] = arith.cmpi eq, [[COLS]], [[C0]] : i64
// CHECK-NEXT: [[EMPTY:%.*]] = arith.ori [[E1]], [[E2]] : i1
// CHECK-NEXT: [[ONE:%.*]] = arith.constant 1 : i64
// CHECK-NEXT: [[ZA:%.*]] = llvm.ptrtoint [[ZEROS]] : !llvm.ptr<1> to i64
// CHECK-NEXT: [[BA:%.*]] = llvm.ptrtoint [[BASE]] : !llvm.ptr<1> to i64
// CHECK-NEXT: [[ADDRESS:%.*]] = arith.select [[EMPTY]], [[ZA]], [[BA]] : i64
// CHECK-NEXT: [[INNER64:%.*]] = arith.select [[EMPTY]], [[ONE]], [[COLS]] : i64
// CHECK-NEXT: [[INNER:%.*]] = arith.trunci [[INNER64]] : i64 to i32
// CHECK-NEXT: [[OUTER64:%.*]] = arith.select [[EMPTY]], [[ONE]], [[ROWS]] : i64
// CHECK-NEXT: [[OUTER:%.*]] = arith.trunci [[OUTER64]] : i64 to i32
// CHECK-NEXT: [[SIXTEEN:%.*]] = arith.constant 16 : i64
// CHECK-NEXT: [[TWO:%.*]] = arith.constant 2 : i64
// CHECK-NEXT: [[BYTES:%.*]] = arith.muli [[STRIDE]], [[TWO]] : i64
// CHECK-NEXT: [[STRIDE_BYTES:%.*]] = arith.select [[EMPTY]], [[SIXTEEN]], [[BYTES]] : i64
// CHECK-NEXT: [[SMEM:%.*]] = llvm.ptrtoint {{%.*}} : !llvm.ptr<3> to i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: [[WARP0:%.*]] = arith.cmpi eq, {{%.*}}, {{%.*}} : i32
// CHECK-NEXT: scf.if [[WARP0]] {
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: [[LANE0:%.*]] = arith.cmpi eq, {{%.*}}, {{%.*}} : i32
// CHECK-NEXT: scf.if [[LANE0]] {
// CHECK-NEXT: [[ZERO:%.*]] = llvm.mlir.zero : vector<4xi32>
// CHECK-COUNT-8: llvm.store [[ZERO]], {{%[0-9]+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NEXT: llvm.inline_asm has_side_effects "st.shared.v4.b32 [$0+0], {0, 0, 0, 0};\0Ast.shared.v4.b32 [$0+16], {0, 0, 0, 0};\0Ast.shared.v4.b32 [$0+32], {0, 0, 0, 0};\0Ast.shared.v4.b32 [$0+48], {0, 0, 0, 0};\0Ast.shared.v4.b32 [$0+64], {0, 0, 0, 0};\0Ast.shared.v4.b32 [$0+80], {0, 0, 0, 0};\0Ast.shared.v4.b32 [$0+96], {0, 0, 0, 0};\0Ast.shared.v4.b32 [$0+112], {0, 0, 0, 0};", "r" [[SMEM]]
// CHECK: llvm.inline_asm has_side_effects "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [$0], $1;\0Atensormap.replace.tile.rank.shared::cta.b1024.b32 [$0], 1;\0Atensormap.replace.tile.box_dim.shared::cta.b1024.b32 [$0], 0, $2;\0Atensormap.replace.tile.box_dim.shared::cta.b1024.b32 [$0], 1, $3;\0Atensormap.replace.tile.global_dim.shared::cta.b1024.b32 [$0], 0, $4;\0Atensormap.replace.tile.global_dim.shared::cta.b1024.b32 [$0], 1, $5;\0Atensormap.replace.tile.global_stride.shared::cta.b1024.b64 [$0], 0, $6;\0Atensormap.replace.tile.element_stride.shared::cta.b1024.b32 [$0], 0, $7;\0Atensormap.replace.tile.element_stride.shared::cta.b1024.b32 [$0], 1, $7;\0Atensormap.replace.tile.elemtype.shared::cta.b1024.b32 [$0], 10;\0Atensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [$0], 0;\0Atensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [$0], 3;\0Atensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [$0], 0;", "r,l,r,r,r,r,l,r" [[SMEM]], [[ADDRESS]], {{%.*}}, {{%.*}}, [[INNER]], [[OUTER]], [[STRIDE_BYTES]], {{%.*}} : (i32, i64, i32, i32, i32, i32, i64, i32) -> !llvm.void
// CHECK-NEXT: }
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.warp.sync -1;\0Atensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$0], [$1], 128;", "l,r" [[AT]], [[SMEM]] : (!llvm.ptr<1>, i32) -> !llvm.void
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: llvm.inline_asm has_side_effects "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;\0Acp.async.bulk.commit_group;\0Acp.async.bulk.wait_group.read 0;", "l" [[AT]] : (!llvm.ptr<1>) -> !llvm.void
// CHECK-NEXT: llvm.addrspacecast [[AT]] : !llvm.ptr<1> to !llvm.ptr
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @make_map(%scratch: !tile.ptr<i8, 1 : i32>, %base: !tile.ptr<bf16, 1 : i32>, %rows: i64, %cols: i64, %stride: i64) {
    %map = "tile.make_tensormap"(%scratch, %base, %rows, %cols, %stride) {box = array<i32: 64, 64>, swizzle = 128 : i32, slot = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (!tile.ptr<i8, 1 : i32>, !tile.ptr<bf16, 1 : i32>, i64, i64, i64) -> !llvm.ptr
    return
  }
}

// -----

// A TMA reduction: thread 0 adds the buffer (one 128-byte column block of f32) into the box
// at the coordinates, innermost first, and commits the bulk group; the wait follows.
// CHECK-LABEL: gpu.func @tma_reduce
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, {{%[^:]*}}: f32, [[ROW:%[^:]*]]: i32, [[COL:%[^:]*]]: i32)
// CHECK: scf.if {{%[0-9]+}} {
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.reduce [[MAP]], {{%.*}}, box{{\[}}[[COL]], [[ROW]]{{\]}} {redKind = #nvvm.tma_redux_kind<add>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: }
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 32 : i32, [1, 0]>
!sbuf = !tilegpu.memdesc<[64, 32], f32, #nvmma, false>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_reduce(%map: !llvm.ptr, %v: f32, %row: i32, %col: i32) {
    %x = "tile.splat"(%v) : (f32) -> tensor<64x32xf32, #b>
    %buf = "tilegpu.local_alloc"(%x) : (tensor<64x32xf32, #b>) -> !sbuf
    "tilegpu.fence_async_shared"() : () -> ()
    "tilegpu.async_tma_reduce"(%map, %buf, %row, %col) {kind = "add"} : (!llvm.ptr, !sbuf, i32, i32) -> ()
    "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
    return
  }
}

// -----

// The other kinds name their operation the same way (xor of i32 here).
// CHECK-LABEL: gpu.func @tma_reduce_xor
// CHECK: nvvm.cp.async.bulk.tensor.reduce {{%.*}}, {{%.*}}, box{{\[}}{{%.*}}, {{%.*}}{{\]}} {redKind = #nvvm.tma_redux_kind<xor>
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 32 : i32, [1, 0]>
!sbuf = !tilegpu.memdesc<[64, 32], i32, #nvmma, false>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_reduce_xor(%map: !llvm.ptr, %v: i32, %row: i32, %col: i32) {
    %x = "tile.splat"(%v) : (i32) -> tensor<64x32xi32, #b>
    %buf = "tilegpu.local_alloc"(%x) : (tensor<64x32xi32, #b>) -> !sbuf
    "tilegpu.fence_async_shared"() : () -> ()
    "tilegpu.async_tma_reduce"(%map, %buf, %row, %col) {kind = "xor"} : (!llvm.ptr, !sbuf, i32, i32) -> ()
    "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
    return
  }
}

// -----

// In a program of 2 CTAs (tilegpu.num_ctas = 2): a cluster barrier is barrier.cluster's arrive
// (release) and wait (acquire), and counts as a barrier of the CTA's threads too (membar adds
// none before the wait). A copy with multicast = 2 expects the whole buffer on this CTA's
// barrier (the other CTA's copies land here too) and issues the column blocks of its rank:
// block 0 from CTA 0, block 1 (64 columns on, 8192 bytes in) from CTA 1, each into both CTAs
// (mask 0b11). An arrive with ctas = 2: the warp converges, then its lanes 0 and 1 arrive at
// once, lane c on the barrier's twin in CTA c (mapa), with mbarrier.arrive's default semantics
// (.release.cluster would cost a MEMBAR.ALL.GPU an arrive). The rank is read once, in
// the prologue: read between a wgmma and its wait, it makes ptxas serialise wgmma (C7514).
// CHECK-LABEL: gpu.func @multicast
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: [[RANK:%.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NOT: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: nvvm.mbarrier.init [[BAR:%[0-9]+]]
// CHECK: nvvm.mbarrier.init [[FREE:%[0-9]+]]
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: [[BYTES:%.*]] = arith.constant 16384 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx [[BAR]], [[BYTES]], predicate = [[T0:%[0-9]+]]
// CHECK-NEXT: [[BOTH:%.*]] = arith.constant 3 : i16
// CHECK: [[IS0:%.*]] = arith.cmpi eq, [[RANK]], {{%.*}} : i32
// CHECK-NEXT: [[MINE0:%.*]] = arith.andi [[T0]], [[IS0]] : i1
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{%.*}}, %arg0, [[BAR]], box[%arg2, %arg1] multicast_mask = [[BOTH]] predicate = [[MINE0]]
// CHECK: llvm.getelementptr {{%.*}}[8192]
// CHECK: [[IS1:%.*]] = arith.cmpi eq, [[RANK]], {{%.*}} : i32
// CHECK-NEXT: [[MINE1:%.*]] = arith.andi [[T0]], [[IS1]] : i1
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{%.*}}, %arg0, [[BAR]], box[{{%.*}}, %arg1] multicast_mask = [[BOTH]] predicate = [[MINE1]]
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.mbarrier.try_wait [[BAR]]
// CHECK: nvvm.bar.warp.sync
// CHECK-NEXT: [[ADDR:%.*]] = llvm.ptrtoint [[FREE]] : !llvm.ptr<3> to i32
// CHECK-NEXT: [[TWO:%.*]] = arith.constant 2 : i32
// CHECK-NEXT: [[MINE:%.*]] = arith.cmpi ult, [[LANE:%[0-9]+]], [[TWO]] : i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "{ .reg .b32 remote; @$0 mapa.shared::cluster.u32 remote, $1, $2; @$0 mbarrier.arrive.shared::cluster.b64 _, [remote]; }", "b,r,r" [[MINE]], [[ADDR]], [[LANE]] :
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 128], f16, #nvmma, true>
module attributes {tilegpu.num_ctas = 2 : i32, tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @multicast(%map: !llvm.ptr, %row: i32, %col: i32) attributes {tile.kernel, tile.split_ctas = 2 : i32} {
    %bar = "tilegpu.local_alloc"() : () -> !bar
    %free = "tilegpu.local_alloc"() : () -> !bar
    "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
    "tilegpu.init_barrier"(%free) {count = 8 : i32} : (!bar) -> ()
    "tilegpu.cluster_barrier"() : () -> ()
    %buf = "tilegpu.local_alloc"() : () -> !buf
    "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %row, %col) {multicast = 2 : i32} : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
    %phase = arith.constant 0 : i32
    "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
    "tilegpu.arrive_barrier"(%free) {ctas = 2 : i32} : (!bar) -> ()
    "tilegpu.cluster_barrier"() : () -> ()
    "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
    "tilegpu.inval_barrier"(%free) : (!bar) -> ()
    return
  }
}
