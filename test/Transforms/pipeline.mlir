// RUN: tilec-opt %s --split-input-file --tilegpu-pipeline=num-stages=2 | filecheck %s --check-prefixes=CHECK,S2
// RUN: tilec-opt %s --split-input-file --tilegpu-pipeline=num-stages=3 | filecheck %s --check-prefixes=CHECK,S3
// RUN: tilec-opt %s --split-input-file --tilegpu-pipeline=num-stages=4 | filecheck %s --check-prefixes=CHECK,S4
// RUN: tilec-opt %s --split-input-file --tilegpu-pipeline=num-stages=1 | filecheck %s --check-prefix=S1

// A loop loading a 64x32 fp16 tile per trip (masked by K - i) into shared memory. With S stages:
// one [S, 64, 32] buffer; a prologue copying trips 0 .. S-2 into slots 0 .. S-2, each masked
// by `trip < n` as well and committed as one group; in the loop, wait for all but S-2 groups,
// copy trip i + S - 1 (mask recomputed for it) into the write slot, read the read slot; the
// loop carries the pointers S-1 trips ahead and both slots, which advance modulo S; after the
// loop, wait for every copy before the buffer is released. One stage means no pipelining.
// S1-LABEL: func.func @stream
// S1-NOT: async
// S1: "tile.load"
// S1: "tilegpu.local_alloc"(%{{.*}})
// CHECK-LABEL: func.func @stream
// S2: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2, 64, 32], f16, #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>, true>
// S3: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 64, 32], f16, #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>, true>
// S4: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[4, 64, 32], f16, #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>, true>
// CHECK-NEXT: [[OK0:%.*]] = arith.cmpi slt, %c0_i32, %arg1 : i32
// CHECK: [[M0:%.*]] = arith.cmpi slt, {{%.*}}, {{%.*}} : tensor<64x32xi32
// CHECK-NEXT: [[V0:%.*]] = "tile.splat"([[OK0]])
// CHECK-NEXT: [[MASK0:%.*]] = arith.andi [[M0]], [[V0]]
// CHECK: [[SLOT0:%.*]] = "tilegpu.memdesc_subview"([[BUF]], %c0_i32{{[_0-9]*}},
// CHECK-NEXT: "tilegpu.async_copy_global_to_local"(%arg0, [[SLOT0]], [[MASK0]])
// CHECK-NEXT: "tilegpu.async_commit_group"()
// CHECK-NEXT: [[P1:%.*]] = "tile.addptr"(%arg0,
// S2-NOT: async_copy
// S3: "tilegpu.async_copy_global_to_local"([[P1]],
// S3-NEXT: "tilegpu.async_commit_group"()
// S3-NOT: async_copy
// S4: "tilegpu.async_copy_global_to_local"([[P1]],
// S4: "tilegpu.async_copy_global_to_local"(
// S4-NOT: async_copy
// CHECK: scf.for [[I:%.*]] = {{.*}} iter_args({{.*}}, [[AHEAD:%[^ ]*]] = {{%.*}}, [[READ:%[^ ]*]] = %c0_i32{{[_0-9]*}}, [[WRITE:%[^ ]*]] = %c{{[0-9]}}_i32{{[_0-9]*}})
// S2-NEXT: "tilegpu.async_wait"() {num = 0 : i32}
// S3-NEXT: "tilegpu.async_wait"() {num = 1 : i32}
// S4-NEXT: "tilegpu.async_wait"() {num = 2 : i32}
// CHECK-NEXT: [[TRIP:%.*]] = arith.addi [[I]], {{%.*}} : i32
// CHECK-NEXT: [[OK:%.*]] = arith.cmpi slt, [[TRIP]], %arg1 : i32
// CHECK-NEXT: [[LIM:%.*]] = arith.subi %arg2, [[TRIP]] : i32
// CHECK: [[W:%.*]] = "tilegpu.memdesc_subview"([[BUF]], [[WRITE]],
// CHECK-NEXT: "tilegpu.async_copy_global_to_local"([[AHEAD]], [[W]],
// CHECK-NEXT: "tilegpu.async_commit_group"()
// CHECK: [[R:%.*]] = "tilegpu.memdesc_subview"([[BUF]], [[READ]],
// CHECK-NEXT: "tilegpu.local_load"([[R]])
// CHECK-NOT: "tile.load"
// CHECK: "tile.addptr"([[AHEAD]],
// S2: arith.remui {{%.*}}, %c2_i32
// S3: arith.remui {{%.*}}, %c3_i32
// S4: arith.remui {{%.*}}, %c4_i32
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.async_wait"() {num = 0 : i32}
// CHECK-NEXT: "tilegpu.local_dealloc"([[BUF]])
#l = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#s = #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @stream(%p0: tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, %n: i32, %k: i32) -> tensor<64x32xf16, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x32xf16, #l>
    %inc = arith.constant dense<32> : tensor<64x32xi32, #l>
    %cols = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #tilegpu.slice<0 : i32, #l>>
    %cols2 = "tile.expand_dims"(%cols) {axis = 0 : i32} : (tensor<32xi32, #tilegpu.slice<0 : i32, #l>>) -> tensor<1x32xi32, #l>
    %colsb = "tile.broadcast"(%cols2) : (tensor<1x32xi32, #l>) -> tensor<64x32xi32, #l>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<64x32xf16, #l>, tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>) : i32 {
      %lim = arith.subi %k, %i : i32
      %lims = "tile.splat"(%lim) : (i32) -> tensor<64x32xi32, #l>
      %m = arith.cmpi slt, %colsb, %lims : tensor<64x32xi32, #l>
      %x = "tile.load"(%p, %m, %zero) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<64x32xi1, #l>, tensor<64x32xf16, #l>) -> tensor<64x32xf16, #l>
      %buf = "tilegpu.local_alloc"(%x) : (tensor<64x32xf16, #l>) -> !tilegpu.memdesc<[64, 32], f16, #s, false>
      %y = "tilegpu.local_load"(%buf) : (!tilegpu.memdesc<[64, 32], f16, #s, false>) -> tensor<64x32xf16, #l>
      %a = arith.addf %acc, %y : tensor<64x32xf16, #l>
      %q = "tile.addptr"(%p, %inc) : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<64x32xi32, #l>) -> tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>
      scf.yield %a, %q : tensor<64x32xf16, #l>, tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>
    }
    return %r#0 : tensor<64x32xf16, #l>
  }
}

// -----

// Not pipelined: a load whose masked elements must read 1.0 (cp.async fills zeros), and a
// loop whose tl.range asked for one stage (`tile.num_stages` overrides the option).
// CHECK-LABEL: func.func @not_pipelined
// CHECK-NOT: async_copy
// CHECK: return
#l = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#s = #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @not_pipelined(%p: tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, %m: tensor<64x32xi1, #l>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %one = arith.constant dense<1.0> : tensor<64x32xf16, #l>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %x = "tile.load"(%p, %m, %one) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<64x32xi1, #l>, tensor<64x32xf16, #l>) -> tensor<64x32xf16, #l>
      %buf = "tilegpu.local_alloc"(%x) : (tensor<64x32xf16, #l>) -> !tilegpu.memdesc<[64, 32], f16, #s, false>
      %y = "tilegpu.local_load"(%buf) : (!tilegpu.memdesc<[64, 32], f16, #s, false>) -> tensor<64x32xf16, #l>
    }
    scf.for %i = %c0 to %n step %c1 : i32 {
      %x = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>) -> tensor<64x32xf16, #l>
      %buf = "tilegpu.local_alloc"(%x) : (tensor<64x32xf16, #l>) -> !tilegpu.memdesc<[64, 32], f16, #s, false>
      %y = "tilegpu.local_load"(%buf) : (!tilegpu.memdesc<[64, 32], f16, #s, false>) -> tensor<64x32xf16, #l>
    } {tile.num_stages = 1 : i32}
    return
  }
}

// -----

// Two staged fp16 tiles feeding a dot (K = 32): the dot is split into K steps of 16 and the
// fragments are loaded a step ahead of their use. Before the loop, after the prologue copies,
// wait for trip 0 and load its step-0 fragments ([64, 16] of A, [16, 64] of B); the loop
// carries them. In the body: issue the copies of trip i + S - 1 first (marked free_slot: the
// slot's last readers came before the barrier of the previous trip), load step 1 from this
// trip's slot, multiply step 0 from the carried fragments, then wait for trip i + 1 and load
// its step-0 fragments from the next slot (for the next trip) before multiplying step 1.
// S3-LABEL: func.func @prefetch
// S3: "tilegpu.async_commit_group"
// S3: "tilegpu.async_commit_group"
// S3-NEXT: "tile.addptr"
// S3: "tilegpu.async_wait"() {num = 1 : i32}
// S3: [[A0:%.*]] = "tilegpu.local_load"({{.*}}) : (!tilegpu.memdesc<[64, 16], f16, {{.*}}) -> tensor<64x16xf16
// S3: [[B0:%.*]] = "tilegpu.local_load"({{.*}}) : (!tilegpu.memdesc<[16, 64], f16, {{.*}}) -> tensor<16x64xf16
// S3: scf.for {{.*}} iter_args([[ACC:%[^ ]*]] = {{.*}}, [[FA:%[^ ]*]] = [[A0]], [[FB:%[^ ]*]] = [[B0]], [[READ:%[^ ]*]] = {{.*}}, {{%[^ ]*}} = {{.*}})
// S3-NOT: async_wait
// S3: "tilegpu.async_copy_global_to_local"{{.*}}tilegpu.free_slot
// S3: "tilegpu.async_copy_global_to_local"{{.*}}tilegpu.free_slot
// S3-NEXT: "tilegpu.async_commit_group"
// S3: [[A1:%.*]] = "tilegpu.local_load"({{.*}}) : (!tilegpu.memdesc<[64, 16], f16
// S3: [[B1:%.*]] = "tilegpu.local_load"({{.*}}) : (!tilegpu.memdesc<[16, 64], f16
// S3-NEXT: [[D0:%.*]] = "tile.dot"([[FA]], [[FB]], [[ACC]])
// S3: [[NEXT:%.*]] = arith.remui {{%.*}}, %c3_i32
// S3: "tilegpu.async_wait"() {num = 1 : i32}
// S3: [[NA:%.*]] = "tilegpu.memdesc_subview"({{%.*}}, [[NEXT]],
// S3: [[PA:%.*]] = "tilegpu.local_load"
// S3: [[PB:%.*]] = "tilegpu.local_load"
// S3-NEXT: [[D1:%.*]] = "tile.dot"([[A1]], [[B1]], [[D0]])
// S3: scf.yield [[D1]], {{.*}}, [[PA]], [[PB]], [[NEXT]],
#l = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#s = #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>
#sb = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
#da = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#db = #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @prefetch(%pa0: tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, %pb0: tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %inca = arith.constant dense<32> : tensor<64x32xi32, #l>
    %incb = arith.constant dense<2048> : tensor<32x64xi32, #l>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %pa = %pa0, %pb = %pb0) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>) : i32 {
      %a = "tile.load"(%pa) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>) -> tensor<64x32xf16, #l>
      %b = "tile.load"(%pb) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>) -> tensor<32x64xf16, #l>
      %sa = "tilegpu.local_alloc"(%a) : (tensor<64x32xf16, #l>) -> !tilegpu.memdesc<[64, 32], f16, #s, false>
      %sb = "tilegpu.local_alloc"(%b) : (tensor<32x64xf16, #l>) -> !tilegpu.memdesc<[32, 64], f16, #sb, false>
      %fa = "tilegpu.local_load"(%sa) : (!tilegpu.memdesc<[64, 32], f16, #s, false>) -> tensor<64x32xf16, #da>
      %fb = "tilegpu.local_load"(%sb) : (!tilegpu.memdesc<[32, 64], f16, #sb, false>) -> tensor<32x64xf16, #db>
      %d = "tile.dot"(%fa, %fb, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #da>, tensor<32x64xf16, #db>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %na = "tile.addptr"(%pa, %inca) : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<64x32xi32, #l>) -> tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>
      %nb = "tile.addptr"(%pb, %incb) : (tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>, tensor<32x64xi32, #l>) -> tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>
      scf.yield %d, %na, %nb : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16, 1 : i32>, #l>, tensor<32x64x!tile.ptr<f16, 1 : i32>, #l>
    }
    return %r#0 : tensor<64x64xf32, #mma>
  }
}

// -----

// A wgmma loop: both operands staged in NVMMA buffers, the accumulator carried to nothing but
// the dot. From 3 stages on, the dot's group stays in flight across trips: the trip waits for
// its tiles, issues the dot (`is_async`), retires the previous trip's group
// (`warpgroup_dot_wait`, one pending) and only then copies trip i + S - 1 into the slot that
// group read; the loop yields the waited accumulator and a wait with none pending follows the
// loop, before the copies are waited for and the buffers released. The proxy fence for the
// register stores goes: cp.async wrote both tiles. With 2 stages the dot waits for its own
// group (no `is_async`).
// CHECK-LABEL: func.func @wgmma_loop
// S3-NOT: fence_async_shared
// S3: scf.for
// S3-NEXT: "tilegpu.async_wait"() {num = 1 : i32}
// S3-NOT: fence_async_shared
// S3: [[D:%.*]] = "tilegpu.warpgroup_dot"({{.*}}) {input_precision = "tf32", is_async, max_num_imprecise_acc = 0 : i32}
// S3-NEXT: [[W:%.*]] = "tilegpu.warpgroup_dot_wait"([[D]]) {pendings = 1 : i32}
// S3: "tilegpu.async_copy_global_to_local"
// S3: "tilegpu.async_copy_global_to_local"
// S3: scf.yield [[W]],
// S3: [[F:%.*]] = "tilegpu.warpgroup_dot_wait"(%{{.*}}#0) {pendings = 0 : i32}
// S3-NEXT: "tilegpu.async_wait"() {num = 0 : i32}
// S3: "tile.store"({{.*}}, [[F]])
// S2: "tilegpu.warpgroup_dot"
// S2-NOT: is_async
// S2-NOT: warpgroup_dot_wait
// S2: return
#la = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#lb = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_loop(%pa: tensor<64x64x!tile.ptr<f16, 1 : i32>, #la>, %pb: tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>,
                        %n: i32, %out: tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %stepa = arith.constant dense<64> : tensor<64x64xi32, #la>
    %stepb = arith.constant dense<4096> : tensor<64x64xi32, #lb>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %a_ptr = %pa, %b_ptr = %pb) -> (tensor<64x64xf32, #mma>, tensor<64x64x!tile.ptr<f16, 1 : i32>, #la>, tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>) : i32 {
      %a = "tile.load"(%a_ptr) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #la>) -> tensor<64x64xf16, #la>
      %b = "tile.load"(%b_ptr) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>) -> tensor<64x64xf16, #lb>
      %sa = "tilegpu.local_alloc"(%a) : (tensor<64x64xf16, #la>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
      %sb = "tilegpu.local_alloc"(%b) : (tensor<64x64xf16, #lb>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>
      "tilegpu.fence_async_shared"() : () -> ()
      %d = "tilegpu.warpgroup_dot"(%sa, %sb, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, false>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %na = "tile.addptr"(%a_ptr, %stepa) : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #la>, tensor<64x64xi32, #la>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #la>
      %nb = "tile.addptr"(%b_ptr, %stepb) : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>, tensor<64x64xi32, #lb>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>
      scf.yield %d, %na, %nb : tensor<64x64xf32, #mma>, tensor<64x64x!tile.ptr<f16, 1 : i32>, #la>, tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>
    }
    "tile.store"(%out, %r#0) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    return
  }
}

// -----

// A wgmma loop of the RS form (A in registers, P @ V) and a shared A written once before the
// loop (Q): once B comes from cp.async, the proxy fences in front of both dots go (cp.async
// writes need none, registers need none, and Q's buffer was fenced before the loop).
// CHECK-LABEL: func.func @wgmma_rs_loop
// CHECK: "tilegpu.local_alloc"(%arg0)
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK: scf.for
// CHECK-NOT: fence_async_shared
// CHECK: "tilegpu.warpgroup_dot"(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: fence_async_shared
// CHECK: "tilegpu.warpgroup_dot"(%arg1, %{{.*}}, %{{.*}})
// CHECK: scf.yield
#lb = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
#pa = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#s = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_rs_loop(%q: tensor<64x64xf16, #lb>, %p: tensor<64x64xf16, #pa>, %pb: tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>,
                           %n: i32, %out: tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %stepb = arith.constant dense<4096> : tensor<64x64xi32, #lb>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %sq = "tilegpu.local_alloc"(%q) : (tensor<64x64xf16, #lb>) -> !tilegpu.memdesc<[64, 64], f16, #s, false>
    "tilegpu.fence_async_shared"() : () -> ()
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %b_ptr = %pb) -> (tensor<64x64xf32, #mma>, tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>) : i32 {
      %b = "tile.load"(%b_ptr) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>) -> tensor<64x64xf16, #lb>
      %sb = "tilegpu.local_alloc"(%b) : (tensor<64x64xf16, #lb>) -> !tilegpu.memdesc<[64, 64], f16, #s, false>
      "tilegpu.fence_async_shared"() : () -> ()
      %s = "tilegpu.warpgroup_dot"(%sq, %sb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[64, 64], f16, #s, false>, !tilegpu.memdesc<[64, 64], f16, #s, false>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      "tilegpu.fence_async_shared"() : () -> ()
      %d = "tilegpu.warpgroup_dot"(%p, %sb, %s) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #pa>, !tilegpu.memdesc<[64, 64], f16, #s, false>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %nb = "tile.addptr"(%b_ptr, %stepb) : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>, tensor<64x64xi32, #lb>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>
      scf.yield %d, %nb : tensor<64x64xf32, #mma>, tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>
    }
    "tile.store"(%out, %r#0) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    return
  }
}

// -----

// Two dots whose accumulators the loop carries, as in attention's dK/dV loop: dV = P @ dO and
// dK = dS @ dO^T, both RS (A in registers), B this trip's staged tile and a transposed view of
// it. The last of them (dK) is the one left in flight, so its group overlaps the end of this
// trip and the start of the next; the earlier one waits for its own group, which retires the
// previous trip's dK too, so the copies into the slot that group read follow it. With 2
// stages as well: the copies still come early in the trip (a loop whose asynchronous dot is
// its first, as @wgmma_loop, keeps its own group waited for at 2 stages).
// CHECK-LABEL: func.func @wgmma_two_carried_rs
// CHECK: scf.for
// CHECK: [[V:%.*]] = "tilegpu.warpgroup_dot"(%arg0, %{{.*}}, %{{.*}}) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32}
// CHECK: "tilegpu.async_copy_global_to_local"
// CHECK: "tilegpu.async_commit_group"
// CHECK: [[T:%.*]] = "tilegpu.memdesc_trans"
// CHECK-NEXT: [[K:%.*]] = "tilegpu.warpgroup_dot"(%arg1, [[T]], %{{.*}}) {input_precision = "tf32", is_async, max_num_imprecise_acc = 0 : i32}
// CHECK-NEXT: [[W:%.*]] = "tilegpu.warpgroup_dot_wait"([[K]]) {pendings = 1 : i32}
// CHECK-NOT: async_copy_global_to_local
// CHECK: scf.yield [[V]], [[W]],
// CHECK: "tilegpu.warpgroup_dot_wait"(%{{.*}}#1) {pendings = 0 : i32}
#lb = #tilegpu.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
#pa = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#s = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#st = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [0, 1]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @wgmma_two_carried_rs(%p: tensor<64x64xf16, #pa>, %ds: tensor<64x64xf16, #pa>, %pb: tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>,
                                  %n: i32, %out: tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %stepb = arith.constant dense<4096> : tensor<64x64xi32, #lb>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%dv = %zero, %dk = %zero, %b_ptr = %pb) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>) : i32 {
      %b = "tile.load"(%b_ptr) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>) -> tensor<64x64xf16, #lb>
      %sb = "tilegpu.local_alloc"(%b) : (tensor<64x64xf16, #lb>) -> !tilegpu.memdesc<[64, 64], f16, #s, false>
      %v = "tilegpu.warpgroup_dot"(%p, %sb, %dv) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #pa>, !tilegpu.memdesc<[64, 64], f16, #s, false>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %t = "tilegpu.memdesc_trans"(%sb) : (!tilegpu.memdesc<[64, 64], f16, #s, false>) -> !tilegpu.memdesc<[64, 64], f16, #st, false>
      %k = "tilegpu.warpgroup_dot"(%ds, %t, %dk) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #pa>, !tilegpu.memdesc<[64, 64], f16, #st, false>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %nb = "tile.addptr"(%b_ptr, %stepb) : (tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>, tensor<64x64xi32, #lb>) -> tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>
      scf.yield %v, %k, %nb : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64x!tile.ptr<f16, 1 : i32>, #lb>
    }
    "tile.store"(%out, %r#0) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    "tile.store"(%out, %r#1) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    return
  }
}

// -----

// A TMA load in a loop as convert-tile-to-tilegpu leaves it (a barrier of its own allocated,
// initialised for one arrival, waited on for phase 0 and invalidated each trip; a buffer only
// the copy writes; the row coordinate computed from the induction variable). With S stages the
// copies run S - 1 trips ahead: before the loop, one ring of S buffers and one ring of S
// barriers ([S, 1] of i64), initialised once; a prologue of S - 1 `scf.if`s, each issuing the
// copy of trip s (when s < ub) into slot s, with slot s's barrier and the coordinates of trip
// s. The loop carries the read slot (0), the write slot (S - 1) and the phase (0). The body
// starts by waiting on the read slot's barrier with the phase, reads that slot's buffer in place
// of the old buffer, and issues the copy of trip i + (S - 1) step into the write slot when that
// trip is in range. The yield moves both slots on modulo S and flips the phase whenever the read
// slot wraps back to 0 (the mbarrier of a slot completes once per lap of the ring). After the
// loop no copy is in flight: the barriers are invalidated and both rings released. Nothing of
// the per-trip barrier (its alloc, init, wait or inval) is left in the body.
// CHECK-LABEL: func.func @tma_stream
// S2: "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2, 128, 64], f16,
// S2-NEXT: "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2, 1], i64,
// S4: "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[4, 128, 64], f16,
// S4-NEXT: "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[4, 1], i64,
// S3: [[RING:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
// S3-NEXT: [[BARS:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
// S3-NEXT: "tilegpu.init_barrier"([[BARS]]) {count = 1 : i32}
// S3-NEXT: [[OK0:%.*]] = arith.cmpi slt, %c0_i32, %arg1 : i32
// S3-NEXT: [[SLOT0:%.*]] = arith.constant 0 : i32
// S3-NEXT: scf.if [[OK0]] {
// S3-NEXT: [[ROW0:%.*]] = arith.muli %c0_i32, %c128_i32 : i32
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: [[BAR0:%.*]] = "tilegpu.memdesc_subview"([[BARS]], [[SLOT0]], {{%.*}}) : (!tilegpu.memdesc<[3, 1], i64, {{.*}}) -> !tilegpu.memdesc<[1], i64,
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: [[BUF0:%.*]] = "tilegpu.memdesc_subview"([[RING]], [[SLOT0]], {{%.*}}, {{%.*}}) : {{.*}} -> !tilegpu.memdesc<[128, 64], f16,
// S3-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, [[BAR0]], [[BUF0]], [[ROW0]], %arg2)
// S3-NEXT: }
// S3-NEXT: [[TRIP1:%.*]] = arith.addi %c0_i32, %c1_i32 : i32
// S3-NEXT: [[OK1:%.*]] = arith.cmpi slt, [[TRIP1]], %arg1 : i32
// S3-NEXT: [[SLOT1:%.*]] = arith.constant 1 : i32
// S3-NEXT: scf.if [[OK1]] {
// S3-NEXT: [[ROW1:%.*]] = arith.muli [[TRIP1]], %c128_i32 : i32
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: [[BAR1:%.*]] = "tilegpu.memdesc_subview"([[BARS]], [[SLOT1]], {{%.*}})
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: [[BUF1:%.*]] = "tilegpu.memdesc_subview"([[RING]], [[SLOT1]], {{%.*}}, {{%.*}})
// S3-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, [[BAR1]], [[BUF1]], [[ROW1]], %arg2)
// S3-NEXT: }
// S3-NEXT: [[C2:%.*]] = arith.constant 2 : i32
// S3-NEXT: [[AHEAD:%.*]] = arith.muli %c1_i32, [[C2]] : i32
// S3-NEXT: [[READ0:%.*]] = arith.constant 0 : i32
// S3-NEXT: [[WRITE0:%.*]] = arith.constant 2 : i32
// S3-NEXT: [[PHASE0:%.*]] = arith.constant 0 : i32
// S3-NEXT: scf.for [[I:%.*]] = %c0_i32 to %arg1 step %c1_i32 iter_args([[ACC:%[^ ]*]] = %cst, [[READ:%[^ ]*]] = [[READ0]], [[WRITE:%[^ ]*]] = [[WRITE0]], [[PHASE:%[^ ]*]] = [[PHASE0]])
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: [[RBAR:%.*]] = "tilegpu.memdesc_subview"([[BARS]], [[READ]], {{%.*}})
// S3-NEXT: "tilegpu.wait_barrier"([[RBAR]], [[PHASE]])
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: [[RBUF:%.*]] = "tilegpu.memdesc_subview"([[RING]], [[READ]], {{%.*}}, {{%.*}})
// S3-NEXT: [[TRIP:%.*]] = arith.addi [[I]], [[AHEAD]] : i32
// S3-NEXT: [[OK:%.*]] = arith.cmpi slt, [[TRIP]], %arg1 : i32
// S3-NEXT: scf.if [[OK]] {
// S3-NEXT: [[ROW:%.*]] = arith.muli [[TRIP]], %c128_i32 : i32
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: [[WBAR:%.*]] = "tilegpu.memdesc_subview"([[BARS]], [[WRITE]], {{%.*}})
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: arith.constant 0 : i32
// S3-NEXT: [[WBUF:%.*]] = "tilegpu.memdesc_subview"([[RING]], [[WRITE]], {{%.*}}, {{%.*}})
// S3-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, [[WBAR]], [[WBUF]], [[ROW]], %arg2)
// S3-NEXT: }
// S3-NEXT: [[X:%.*]] = "tilegpu.local_load"([[RBUF]])
// S3-NEXT: [[SUM:%.*]] = arith.addf [[ACC]], [[X]]
// S3-NEXT: [[ONE:%.*]] = arith.constant 1 : i32
// S3-NEXT: [[R1:%.*]] = arith.addi [[READ]], [[ONE]] : i32
// S3-NEXT: [[C3:%.*]] = arith.constant 3 : i32
// S3-NEXT: [[NEXT_READ:%.*]] = arith.remui [[R1]], [[C3]] : i32
// S3-NEXT: [[ZERO:%.*]] = arith.constant 0 : i32
// S3-NEXT: [[WRAPPED:%.*]] = arith.cmpi eq, [[NEXT_READ]], [[ZERO]] : i32
// S3-NEXT: [[FLIP:%.*]] = arith.extui [[WRAPPED]] : i1 to i32
// S3-NEXT: [[NEXT_PHASE:%.*]] = arith.xori [[PHASE]], [[FLIP]] : i32
// S3-NEXT: [[ONE_W:%.*]] = arith.constant 1 : i32
// S3-NEXT: [[W1:%.*]] = arith.addi [[WRITE]], [[ONE_W]] : i32
// S3-NEXT: [[C3_W:%.*]] = arith.constant 3 : i32
// S3-NEXT: [[NEXT_WRITE:%.*]] = arith.remui [[W1]], [[C3_W]] : i32
// S3-NEXT: scf.yield [[SUM]], [[NEXT_READ]], [[NEXT_WRITE]], [[NEXT_PHASE]]
// S3-NEXT: }
// S3-NEXT: "tilegpu.inval_barrier"([[BARS]])
// S3-NEXT: "tilegpu.local_dealloc"([[RING]])
// S3-NEXT: "tilegpu.local_dealloc"([[BARS]])
// S3-NEXT: return
// With one stage the loop is left as it was: its per-trip barrier and buffer, no ring.
// S1-LABEL: func.func @tma_stream
// S1-NOT: memdesc<[{{[0-9]+}}, 1], i64
// S1: scf.for
// S1-NEXT: arith.muli
// S1-NEXT: [[BAR:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[1], i64,
// S1-NEXT: "tilegpu.init_barrier"([[BAR]])
// S1-NEXT: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[128, 64], f16,
// S1-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, [[BAR]], [[BUF]],
// S1-NEXT: arith.constant 0 : i32
// S1-NEXT: "tilegpu.wait_barrier"([[BAR]],
// S1-NEXT: "tilegpu.local_load"([[BUF]])
// S1-NEXT: "tilegpu.inval_barrier"([[BAR]])
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_stream(%map: !llvm.ptr, %n: i32, %col: i32) -> tensor<128x64xf16, #b> {
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
    }
    return %r : tensor<128x64xf16, #b>
  }
}

// -----

// A wgmma loop whose operands are two TMA loads (the dot reads their buffers directly, as
// tilegpu-accelerate-matmul leaves a dot of TMA-loaded tiles: no staging store, no fence), the
// accumulator carried to nothing but the dot. Both loads get a ring of buffers and of barriers,
// initialised before the loop, and the prologue issues both copies of a trip in one `scf.if`.
// From 3 stages on, the dot's group stays in flight across trips as for cp.async: the body
// waits on both read slots' barriers, the dot (`is_async`) reads the read slots, a
// warpgroup_dot_wait with one group pending retires the previous trip's group, and only then
// does the `scf.if` issue the copies of trip i + 2 into the write slots, the ones that group
// read. The loop yields the waited accumulator; a wait with none pending follows the loop,
// before the barriers are invalidated and the rings released. The initial accumulator enters
// the loop through a wait for no group (defined once before the loop's guard: a constant
// would be rematerialised on the zero-trip edge, which ptxas takes for writes to the
// in-flight group's registers, C7515).
// CHECK-LABEL: func.func @tma_wgmma_loop
// S3: [[RA:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 64, 64], f16,
// S3-NEXT: [[RB:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 64, 64], f16,
// S3-NEXT: [[BA:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 1], i64,
// S3-NEXT: [[BB:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 1], i64,
// S3-NEXT: "tilegpu.init_barrier"([[BA]])
// S3-NEXT: "tilegpu.init_barrier"([[BB]])
// S3: scf.if
// S3: "tilegpu.async_tma_copy_global_to_local"(%arg0,
// S3: "tilegpu.async_tma_copy_global_to_local"(%arg1,
// S3-NEXT: }
// S3: scf.if
// S3: "tilegpu.async_tma_copy_global_to_local"(%arg0,
// S3: "tilegpu.async_tma_copy_global_to_local"(%arg1,
// S3-NEXT: }
// S3: [[INIT:%.*]] = "tilegpu.warpgroup_dot_wait"(%cst) {pendings = 0 : i32}
// S3: scf.for {{.*}} iter_args([[ACC:%[^ ]*]] = [[INIT]], [[READ:%[^ ]*]] = {{%[^ ]*}}, [[WRITE:%[^ ]*]] = {{%[^ ]*}}, [[PHASE:%[^ ]*]] = {{%[^ ]*}})
// S3: [[WA:%.*]] = "tilegpu.memdesc_subview"([[BA]], [[READ]],
// S3-NEXT: "tilegpu.wait_barrier"([[WA]], [[PHASE]])
// S3: [[A:%.*]] = "tilegpu.memdesc_subview"([[RA]], [[READ]],
// S3: [[WB:%.*]] = "tilegpu.memdesc_subview"([[BB]], [[READ]],
// S3-NEXT: "tilegpu.wait_barrier"([[WB]], [[PHASE]])
// S3: [[B:%.*]] = "tilegpu.memdesc_subview"([[RB]], [[READ]],
// S3-NOT: fence_async_shared
// S3: [[D:%.*]] = "tilegpu.warpgroup_dot"([[A]], [[B]], [[ACC]]) {input_precision = "tf32", is_async, max_num_imprecise_acc = 0 : i32}
// S3-NEXT: [[W:%.*]] = "tilegpu.warpgroup_dot_wait"([[D]]) {pendings = 1 : i32}
// S3-NEXT: scf.if
// S3: [[CA:%.*]] = "tilegpu.memdesc_subview"([[RA]], [[WRITE]],
// S3-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, [[CA]],
// S3: [[CB:%.*]] = "tilegpu.memdesc_subview"([[RB]], [[WRITE]],
// S3-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg1, {{%.*}}, [[CB]],
// S3-NEXT: }
// S3-NOT: _barrier
// S3: scf.yield [[W]],
// S3-NEXT: }
// S3-NEXT: [[F:%.*]] = "tilegpu.warpgroup_dot_wait"(%{{.*}}#0) {pendings = 0 : i32}
// S3-NEXT: "tilegpu.inval_barrier"([[BA]])
// S3-NEXT: "tilegpu.inval_barrier"([[BB]])
// S3-NEXT: "tilegpu.local_dealloc"([[RA]])
// S3-NEXT: "tilegpu.local_dealloc"([[RB]])
// S3-NEXT: "tilegpu.local_dealloc"([[BA]])
// S3-NEXT: "tilegpu.local_dealloc"([[BB]])
// S3-NEXT: "tile.store"({{.*}}, [[F]])
// With 2 stages the dot waits for its own group, and the copies come first in the body.
// S2: scf.for
// S2: "tilegpu.wait_barrier"
// S2: "tilegpu.wait_barrier"
// S2: scf.if
// S2: "tilegpu.warpgroup_dot"
// S2-NOT: is_async
// S2-NOT: warpgroup_dot_wait
// S2: return
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
#mma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:90", tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_wgmma_loop(%amap: !llvm.ptr, %bmap: !llvm.ptr, %m: i32, %nn: i32, %n: i32,
                            %out: tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
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
    }
    "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #mma>, tensor<64x64xf32, #mma>) -> ()
    return
  }
}

// -----

// A TMA loop whose tl.range asked for one stage (`tile.num_stages` overrides the option): left
// as it was at every num-stages, its per-trip barrier initialised, waited on and invalidated
// in the body, and no ring of buffers or barriers made.
// CHECK-LABEL: func.func @tma_one_stage
// CHECK-NOT: memdesc<[{{[0-9]+}}, 1], i64
// CHECK: scf.for
// CHECK-NEXT: arith.muli
// CHECK-NEXT: [[BAR:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[1], i64,
// CHECK-NEXT: "tilegpu.init_barrier"([[BAR]])
// CHECK-NEXT: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[128, 64], f16,
// CHECK-NEXT: "tilegpu.async_tma_copy_global_to_local"(%arg0, [[BAR]], [[BUF]],
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: "tilegpu.wait_barrier"([[BAR]],
// CHECK-NEXT: "tilegpu.local_load"([[BUF]])
// CHECK-NEXT: "tilegpu.inval_barrier"([[BAR]])
// CHECK: } {tile.num_stages = 1 : i32}
// CHECK-NOT: memdesc<[{{[0-9]+}}, 1], i64
// CHECK: return
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_one_stage(%map: !llvm.ptr, %n: i32, %col: i32) -> tensor<128x64xf16, #b> {
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
    } {tile.num_stages = 1 : i32}
    return %r : tensor<128x64xf16, #b>
  }
}

// -----

// A TMA load whose coordinate is the induction variable itself (found by the fuzzer: the copy
// in the body kept the old loop's variable, and erasing the old loop aborted): the copy of trip
// i + 2 takes the new loop's variable plus two steps.
// S3-LABEL: func.func @tma_coordinate_is_the_induction_variable
// S3: scf.for [[I:%[^ ]*]] = {{.*}} iter_args(
// S3: [[AHEAD:%.*]] = arith.addi [[I]], {{%.*}} : i32
// S3: scf.if
// S3: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, {{%.*}}, [[AHEAD]], %c0_i32)
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[64, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @tma_coordinate_is_the_induction_variable(%map: !llvm.ptr, %n: i32) -> tensor<64x64xf16, #b> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<64x64xf16, #b>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x64xf16, #b>) : i32 {
      %bar = "tilegpu.local_alloc"() : () -> !bar
      "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!bar) -> ()
      %buf = "tilegpu.local_alloc"() : () -> !buf
      "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %i, %c0) : (!llvm.ptr, !bar, !buf, i32, i32) -> ()
      %phase = arith.constant 0 : i32
      "tilegpu.wait_barrier"(%bar, %phase) : (!bar, i32) -> ()
      %x = "tilegpu.local_load"(%buf) : (!buf) -> tensor<64x64xf16, #b>
      "tilegpu.inval_barrier"(%bar) : (!bar) -> ()
      %s = arith.addf %acc, %x : tensor<64x64xf16, #b>
      scf.yield %s : tensor<64x64xf16, #b>
    }
    return %r : tensor<64x64xf16, #b>
  }
}

// -----

// A TMA store in a loop of warp-specialised consumers (a persistent kernel's epilogue, in a
// branch of its own): one buffer for every trip, made before the loop; the wait for the
// previous trip's copy to have read it goes just before the value is written to it, and once
// more after the loop, before the buffer is released. Nothing waits right after the copy. One
// stage leaves it as it was, and so does a loop outside a warp specialisation (the same loop,
// second function).
// CHECK-LABEL: func.func @tma_store_loop
// CHECK: gpu.yield
// CHECK-NEXT: }, {
// CHECK-NEXT: [[BUF:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[128, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>
// CHECK-NEXT: scf.for
// CHECK: scf.if
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: "tilegpu.local_store"({{%.*}}, [[BUF]])
// CHECK-NEXT: "tilegpu.fence_async_shared"()
// CHECK-NEXT: "tilegpu.async_tma_copy_local_to_global"(%arg0, [[BUF]],
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: "tilegpu.local_dealloc"([[BUF]])
// CHECK-NEXT: gpu.yield
// S1-LABEL: func.func @tma_store_loop
// S1: scf.for
// S1: "tilegpu.local_alloc"(%{{.*}})
// S1: "tilegpu.async_tma_copy_local_to_global"
// S1-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-LABEL: func.func @tma_store_loop_unspecialised
// CHECK: scf.for
// CHECK: "tilegpu.local_alloc"(%arg2)
// CHECK: "tilegpu.async_tma_copy_local_to_global"
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NOT: tma_store_wait
// CHECK: return
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!out = !tilegpu.memdesc<[128, 64], f16, #nvmma, false>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32, tilegpu.target = "cuda:90"} {
  func.func @tma_store_loop(%map: !llvm.ptr, %n: i32, %x: tensor<128x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %row = arith.muli %i, %c128 : i32
        %ok = arith.cmpi sge, %row, %c0 : i32
        scf.if %ok {
          %buf = "tilegpu.local_alloc"(%x) : (tensor<128x64xf16, #b>) -> !out
          "tilegpu.fence_async_shared"() : () -> ()
          "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %row, %c0) : (!llvm.ptr, !out, i32, i32) -> ()
          "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
        }
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
  func.func @tma_store_loop_unspecialised(%map: !llvm.ptr, %n: i32, %x: tensor<128x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %row = arith.muli %i, %c128 : i32
      %buf = "tilegpu.local_alloc"(%x) : (tensor<128x64xf16, #b>) -> !out
      "tilegpu.fence_async_shared"() : () -> ()
      "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %row, %c0) : (!llvm.ptr, !out, i32, i32) -> ()
      "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
    }
    return
  }
}

// -----

// The same store in a loop whose body first uses 224 KiB of buffers of its own: the store's
// buffer shares their bytes now, but live across the whole loop it would not, and 240 KiB
// exceed an sm_90 block's 227 KiB. Left as it was, the copy waited for at once.
// CHECK-LABEL: func.func @tma_store_loop_no_room
// CHECK: scf.for
// CHECK: "tilegpu.local_alloc"(%arg2)
// CHECK: "tilegpu.async_tma_copy_local_to_global"
// CHECK-NEXT: "tilegpu.tma_store_wait"() {pendings = 0 : i32}
// CHECK-NOT: tma_store_wait
// CHECK: return
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#s = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!out = !tilegpu.memdesc<[128, 64], f16, #nvmma, false>
!a = !tilegpu.memdesc<[32768], f32, #s, true>
!c = !tilegpu.memdesc<[16384], f32, #s, true>
!d = !tilegpu.memdesc<[8192], f32, #s, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32, tilegpu.target = "cuda:90"} {
  func.func @tma_store_loop_no_room(%map: !llvm.ptr, %n: i32, %x: tensor<128x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    "tilegpu.warp_specialize"() ({
      gpu.yield
    }, {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %row = arith.muli %i, %c128 : i32
        %ra = "tilegpu.local_alloc"() : () -> !a
        %rc = "tilegpu.local_alloc"() : () -> !c
        %rd = "tilegpu.local_alloc"() : () -> !d
        "tilegpu.local_dealloc"(%ra) : (!a) -> ()
        "tilegpu.local_dealloc"(%rc) : (!c) -> ()
        "tilegpu.local_dealloc"(%rd) : (!d) -> ()
        %buf = "tilegpu.local_alloc"(%x) : (tensor<128x64xf16, #b>) -> !out
        "tilegpu.fence_async_shared"() : () -> ()
        "tilegpu.async_tma_copy_local_to_global"(%map, %buf, %row, %c0) : (!llvm.ptr, !out, i32, i32) -> ()
        "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
      }
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
    return
  }
}

// -----

// A persistent kernel's tile loop (step 132) whose one nested loop holds a TMA load, its row
// from the tile (%t * 128) and its column from k: the ring and its barriers are made before
// the tile loop and the copies run S - 1 trips ahead in the walk of every tile's trips. The
// prologue issues the walk's first two trips (when the K loop has trips and the tile is in
// range), moving the cursor (tile, k, row) on: k + 1, and at the end of a tile's trips the next
// tile, k = 0 and that tile's row (computed again only then). Both loops carry the cursor, the
// read and write slots and the phase; the K loop waits on its read slot, issues the cursor's
// copy into its write slot while the cursor's tile is in range, and moves everything on. After
// the tile loop the barriers are invalidated and the ring released. One stage leaves it alone.
// S3-LABEL: func.func @tma_tiles
// S3: [[RING:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 128, 64], f16,
// S3-NEXT: [[BARS:%.*]] = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 1], i64,
// S3-NEXT: "tilegpu.init_barrier"([[BARS]])
// S3-NEXT: [[SOME:%.*]] = arith.cmpi slt, %c0_i32, %arg3 : i32
// S3-NEXT: [[ROW0:%.*]] = arith.muli %arg1, %c128_i32 : i32
// S3-NEXT: [[IN0:%.*]] = arith.cmpi slt, %arg1, %arg2 : i32
// S3-NEXT: [[OK0:%.*]] = arith.andi [[SOME]], [[IN0]] : i1
// S3: scf.if [[OK0]] {
// S3: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, {{%.*}}, [[ROW0]], {{%.*}})
// S3: [[K1:%.*]] = arith.addi %c0_i32, %c1_i32 : i32
// S3-NEXT: [[WRAP1:%.*]] = arith.cmpi sge, [[K1]], %arg3 : i32
// S3-NEXT: [[NEXT1:%.*]] = arith.addi %arg1, %c132_i32 : i32
// S3-NEXT: [[T1:%.*]] = arith.select [[WRAP1]], [[NEXT1]], %arg1 : i32
// S3-NEXT: [[ROW1:%.*]] = scf.if [[WRAP1]] -> (i32) {
// S3-NEXT: [[NEWROW:%.*]] = arith.muli [[T1]], %c128_i32 : i32
// S3-NEXT: scf.yield [[NEWROW]] : i32
// S3-NEXT: } else {
// S3-NEXT: scf.yield [[ROW0]] : i32
// S3: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, {{%.*}}, [[ROW1]], {{%.*}})
// S3: scf.for {{%.*}} = %arg1 to %arg2 step %c132_i32 iter_args({{%[^ ]*}} = [[T2:%[^,]*]], {{%[^ ]*}} = [[K2:%[^,]*]], {{%[^ ]*}} = [[ROW2:%[^,]*]], {{%[^ ]*}} = %c0_i32{{[_0-9]*}}, {{%[^ ]*}} = %c2_i32, {{%[^ ]*}} = %c0_i32{{[_0-9]*}}) -> (i32, i32, i32, i32, i32, i32)
// S3-NEXT: scf.for {{%.*}} = %c0_i32 to %arg3 step %c1_i32 iter_args({{%[^ ]*}} = %cst, [[CT:%[^ ]*]] = %arg6, [[CK:%[^ ]*]] = %arg7, [[CROW:%[^ ]*]] = %arg8, [[READ:%[^ ]*]] = %arg9, [[WRITE:%[^ ]*]] = %arg10, [[PHASE:%[^ ]*]] = %arg11)
// S3: "tilegpu.wait_barrier"({{%.*}}, [[PHASE]])
// S3: [[INRANGE:%.*]] = arith.cmpi slt, [[CT]], %arg2 : i32
// S3-NEXT: scf.if [[INRANGE]] {
// S3-NEXT: [[COL:%.*]] = arith.muli [[CK]], %c64_i32 : i32
// S3: "tilegpu.memdesc_subview"([[BARS]], [[WRITE]],
// S3: "tilegpu.async_tma_copy_global_to_local"(%arg0, {{%.*}}, {{%.*}}, [[CROW]], [[COL]])
// S3: "tilegpu.local_load"
// S3: scf.yield {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}} : tensor<128x64xf16,
// S3: "tile.store"
// S3-NEXT: scf.yield
// S3-NEXT: }
// S3-NEXT: "tilegpu.inval_barrier"([[BARS]])
// S3-NEXT: "tilegpu.local_dealloc"([[RING]])
// S3-NEXT: "tilegpu.local_dealloc"([[BARS]])
// S1-LABEL: func.func @tma_tiles
// S1-NOT: memdesc<[{{[0-9]+}}, 1], i64
// S1: return
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32, tilegpu.target = "cuda:90"} {
  func.func @tma_tiles(%map: !llvm.ptr, %first: i32, %tiles: i32, %n: i32, %out: tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %c132 = arith.constant 132 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf16, #b>
    scf.for %t = %first to %tiles step %c132 : i32 {
      %row = arith.muli %t, %c128 : i32
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf16, #b>) : i32 {
        %col = arith.muli %k, %c64 : i32
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
      }
      "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xf16, #b>) -> ()
    }
    return
  }
}

// -----

// The same tile loop whose epilogue uses 192 KiB of buffers: the three-slot ring (48 KiB) fits
// beside them only while it is the K loop's alone, so the copies are staged tile by tile (the
// ring made in the tile loop's body), as for any other loop.
// S3-LABEL: func.func @tma_tiles_no_room
// S3: scf.for
// S3-NEXT: arith.muli
// S3-NEXT: "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 128, 64], f16,
#b = #tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
!bar = !tilegpu.memdesc<[1], i64, #bs, true>
!buf = !tilegpu.memdesc<[128, 64], f16, #nvmma, true>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32, tilegpu.target = "cuda:90"} {
  func.func @tma_tiles_no_room(%map: !llvm.ptr, %first: i32, %tiles: i32, %n: i32, %out: tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %c132 = arith.constant 132 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf16, #b>
    scf.for %t = %first to %tiles step %c132 : i32 {
      %row = arith.muli %t, %c128 : i32
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf16, #b>) : i32 {
        %col = arith.muli %k, %c64 : i32
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
      }
      "tile.store"(%out, %r) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f16, 1 : i32>, #b>, tensor<128x64xf16, #b>) -> ()
      %ea = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[32768], f32, #bs, true>
      %eb = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[16384], f32, #bs, true>
      "tilegpu.local_dealloc"(%ea) : (!tilegpu.memdesc<[32768], f32, #bs, true>) -> ()
      "tilegpu.local_dealloc"(%eb) : (!tilegpu.memdesc<[16384], f32, #bs, true>) -> ()
    }
    return
  }
}
