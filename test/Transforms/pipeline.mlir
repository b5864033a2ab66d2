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
