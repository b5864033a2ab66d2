// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// The rules of dialects/verify.py: what IRDL cannot express about `tile` and `tilegpu` IR
// (shapes, element types against pointees, masks, combine regions, memdescs, layouts that fit
// the tensor and the module's warps, static shapes, nesting depth). Every input below is
// accepted by the IRDL definitions; tilec-opt runs verify.py right after parsing, and each
// expected message is one only verify.py produces ("'<op>' op <rule's message>").
// The first chunks are valid IR that must pass; then one chunk per broken rule.

// --- valid IR ----------------------------------------------------------------------------------

// Well-formed tile ops (no layouts): nothing is reported.
func.func @valid_tile(%p: !tile.ptr<f32, 1 : i32>, %ip: !tile.ptr<i32, 1 : i32>, %s: f32,
                      %a: tensor<16x32xf16>, %b: tensor<32x16xf16>, %c: tensor<16x16xf32>,
                      %f8a: tensor<16x32xf8E4M3FN>, %f8b: tensor<32x16xf8E5M2>,
                      %x: tensor<4x8xf32>, %i: tensor<4x8xi32>, %h: tensor<256xi32>,
                      %cond: tensor<16xi1>) {
  %pid = "tile.program_id"() {axis = 2 : i32} : () -> i32
  %n = "tile.num_programs"() {axis = 0 : i32} : () -> i32
  %r = "tile.make_range"() {start = 16 : i32, end = 144 : i32} : () -> tensor<128xi32>
  %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
  %pt = "tile.addptr"(%ps, %r) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
  %q = "tile.addptr"(%p, %pid) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  %lim = "tile.splat"(%n) : (i32) -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %lim : tensor<128xi32>
  %other = "tile.splat"(%s) : (f32) -> tensor<128xf32>
  %v = "tile.load"(%pt, %m, %other) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
  %sv = "tile.load"(%q) {cache = "ca", evict = "evict_last", is_volatile = true, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  "tile.store"(%pt, %v, %m) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>, tensor<128xi1>) -> ()
  %col = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<128xi32>) -> tensor<128x1xi32>
  %bc = "tile.broadcast"(%col) : (tensor<128x1xi32>) -> tensor<128x4xi32>
  %rs = "tile.reshape"(%x) {allow_reorder = false} : (tensor<4x8xf32>) -> tensor<2x16xf32>
  %t = "tile.trans"(%x) {order = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %j = "tile.join"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8x2xf32>
  %lo, %hi = "tile.split"(%j) : (tensor<4x8x2xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x32xf16>, tensor<32x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %d8 = "tile.dot"(%f8a, %f8b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x32xf8E4M3FN>, tensor<32x16xf8E5M2>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %mx, %ix = "tile.reduce"(%x, %i) ({
  ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
    %gt = arith.cmpf ogt, %v0, %v1 : f32
    %vm = arith.select %gt, %v0, %v1 : f32
    %im = arith.select %gt, %i0, %i1 : i32
    gpu.yield %vm, %im : f32, i32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  %cs = "tile.scan"(%x) ({
  ^bb0(%e0: f32, %e1: f32):
    %sum = arith.addf %e0, %e1 : f32
    gpu.yield %sum : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, reverse = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %ia = "tile.elementwise_inline_asm"(%x, %i) {asm = "add.f32 $0, $1, $1;", constraints = "=f,f,r", operandSegmentSizes = array<i32: 1, 1, 0, 0>, pack = 1 : i32, pure = true, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
  %so = "tile.sort"(%x) {axis = 1 : i32, descending = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %ga = "tile.gather"(%x, %i) {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
  %hg = "tile.histogram"(%h) : (tensor<256xi32>) -> tensor<16xi32>
  %ct = "tile.cat"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %old = "tile.atomic_rmw"(%pt, %v, %m) {rmw_op = "fadd", scope = "gpu", sem = "acq_rel"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>, tensor<128xi1>) -> tensor<128xf32>
  %prev = "tile.atomic_cas"(%ip, %pid, %n) {scope = "gpu", sem = "acquire"} : (!tile.ptr<i32, 1 : i32>, i32, i32) -> i32
  %f8 = "tile.fp_to_fp"(%v) {rounding = "rtne"} : (tensor<128xf32>) -> tensor<128xf8E4M3FN>
  %bits = "tile.bitcast"(%v) : (tensor<128xf32>) -> tensor<128xi32>
  %ip2 = "tile.bitcast"(%p) : (!tile.ptr<f32, 1 : i32>) -> !tile.ptr<i32, 1 : i32>
  %addr = "tile.ptr_to_int"(%p) : (!tile.ptr<f32, 1 : i32>) -> i64
  %back = "tile.int_to_ptr"(%addr) : (i64) -> !tile.ptr<f32, 1 : i32>
  "tile.assert"(%cond) {message = "ok"} : (tensor<16xi1>) -> ()
  return
}

// -----

// Well-formed tilegpu IR in a module of 4 warps of 32 lanes: layouts that fit, shared memory.
#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
#wgmma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
#dotA = #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
#nvmma = #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @valid_tilegpu(%x: tensor<64x32xf16, #blocked>, %acc: tensor<64x64xf32, #wgmma>,
                         %ptrs: tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>,
                         %mask: tensor<64x32xi1, #blocked>, %stage: i32) {
  %c0 = arith.constant 0 : i32
  %rows = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32, #tilegpu.slice<1 : i32, #blocked>>
  %y = "tilegpu.convert_layout"(%x) : (tensor<64x32xf16, #blocked>) -> tensor<64x32xf16, #mma>
  %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 64, 32], f16, #shared, true>
  %init = "tilegpu.local_alloc"(%x) : (tensor<64x32xf16, #blocked>) -> !tilegpu.memdesc<[64, 32], f16, #shared, false>
  %sub = "tilegpu.memdesc_subview"(%buf, %stage, %c0, %c0) : (!tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
  "tilegpu.local_store"(%x, %sub) : (tensor<64x32xf16, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
  %a = "tilegpu.local_load"(%init) : (!tilegpu.memdesc<[64, 32], f16, #shared, false>) -> tensor<64x32xf16, #dotA>
  %t0 = "tilegpu.async_copy_global_to_local"(%ptrs, %sub, %mask) {cache = "cg", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>, tensor<64x32xi1, #blocked>) -> !tilegpu.async_token
  %g = "tilegpu.async_commit_group"(%t0) : (!tilegpu.async_token) -> !tilegpu.async_token
  %w = "tilegpu.async_wait"(%g) {num = 0 : i32} : (!tilegpu.async_token) -> !tilegpu.async_token
  %sa = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #nvmma, true>
  %sb = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #nvmma, true>
  %sbt = "tilegpu.memdesc_trans"(%sb) : (!tilegpu.memdesc<[64, 32], f16, #nvmma, true>) -> !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [0, 1]>, true>
  %d = "tilegpu.warpgroup_dot"(%sa, %sbt, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[64, 32], f16, #nvmma, true>, !tilegpu.memdesc<[32, 64], f16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [0, 1]>, true>, tensor<64x64xf32, #wgmma>) -> tensor<64x64xf32, #wgmma>
  %dw = "tilegpu.warpgroup_dot_wait"(%d) {pendings = 0 : i32} : (tensor<64x64xf32, #wgmma>) -> tensor<64x64xf32, #wgmma>
  "tilegpu.local_dealloc"(%buf) : (!tilegpu.memdesc<[3, 64, 32], f16, #shared, true>) -> ()
  return
}
}

// -----

// TMA loads and mbarriers: every swizzle span, 8-, 16- and 32-bit elements, a fastest
// dimension of one or of several swizzle spans (column blocks), buffers of several barriers for
// init and inval. Nothing is reported.
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @valid_tma(%map: !llvm.ptr, %o: i32) {
  %a = "tile.tma_load"(%map, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %b = "tile.tma_load"(%map, %o, %o) {swizzle = 64 : i32} : (!llvm.ptr, i32, i32) -> tensor<32x16xf32>
  %c = "tile.tma_load"(%map, %o, %o, %o) {swizzle = 32 : i32} : (!llvm.ptr, i32, i32, i32) -> tensor<2x8x64xi8>
  %d = "tile.tma_load"(%map, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x256xbf16>
  %bar = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[1], i64, #bs, true>
  %bars = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[4], i64, #bs, true>
  "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!tilegpu.memdesc<[1], i64, #bs, true>) -> ()
  "tilegpu.init_barrier"(%bars) {count = 128 : i32} : (!tilegpu.memdesc<[4], i64, #bs, true>) -> ()
  %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #nvmma, true>
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %o, %o) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[64, 128], f16, #nvmma, true>, i32, i32) -> ()
  %phase = arith.constant 0 : i32
  "tilegpu.wait_barrier"(%bar, %phase) : (!tilegpu.memdesc<[1], i64, #bs, true>, i32) -> ()
  "tilegpu.inval_barrier"(%bar) : (!tilegpu.memdesc<[1], i64, #bs, true>) -> ()
  "tilegpu.inval_barrier"(%bars) : (!tilegpu.memdesc<[4], i64, #bs, true>) -> ()
  return
}
}

// -----

// A ring of barriers, as tilegpu-pipeline makes for TMA copies in a loop: [stages, n] of i64 in
// a 1-D layout. init_barrier and inval_barrier take the whole ring; a wait and a copy take the
// view of one stage (memdesc_subview [3, 1] -> [1]), which holds one barrier. Nothing is
// reported.
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @valid_barrier_ring(%map: !llvm.ptr, %o: i32, %stage: i32) {
  %c0 = arith.constant 0 : i32
  %ring = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 1], i64, #bs, true>
  "tilegpu.init_barrier"(%ring) {count = 1 : i32} : (!tilegpu.memdesc<[3, 1], i64, #bs, true>) -> ()
  %bar = "tilegpu.memdesc_subview"(%ring, %stage, %c0) : (!tilegpu.memdesc<[3, 1], i64, #bs, true>, i32, i32) -> !tilegpu.memdesc<[1], i64, #bs, true>
  %buf = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 128], f16, #nvmma, true>
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %buf, %o, %o) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[64, 128], f16, #nvmma, true>, i32, i32) -> ()
  "tilegpu.wait_barrier"(%bar, %c0) : (!tilegpu.memdesc<[1], i64, #bs, true>, i32) -> ()
  "tilegpu.inval_barrier"(%ring) : (!tilegpu.memdesc<[3, 1], i64, #bs, true>) -> ()
  return
}
}

// -----

// TMA stores: a block of each element width and swizzle span, the fastest dimension of one
// or of several swizzle spans; the store copy from an immutable buffer (what
// convert-tile-to-tilegpu allocates from the value) and from a mutable one, in column blocks;
// waits for no pending store group and for some. Nothing is reported.
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @valid_tma_store(%map: !llvm.ptr, %o: i32, %a: tensor<64x64xf16>, %b: tensor<32x16xf32>, %c: tensor<2x8x64xi8>, %d: tensor<64x256xbf16>, %src: !tilegpu.memdesc<[64, 128], f16, #nvmma, false>, %dst: !tilegpu.memdesc<[64, 64], f16, #nvmma, true>) {
  "tile.tma_store"(%map, %a, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16>, i32, i32) -> ()
  "tile.tma_store"(%map, %b, %o, %o) {swizzle = 64 : i32} : (!llvm.ptr, tensor<32x16xf32>, i32, i32) -> ()
  "tile.tma_store"(%map, %c, %o, %o, %o) {swizzle = 32 : i32} : (!llvm.ptr, tensor<2x8x64xi8>, i32, i32, i32) -> ()
  "tile.tma_store"(%map, %d, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x256xbf16>, i32, i32) -> ()
  "tilegpu.async_tma_copy_local_to_global"(%map, %src, %o, %o) : (!llvm.ptr, !tilegpu.memdesc<[64, 128], f16, #nvmma, false>, i32, i32) -> ()
  "tilegpu.async_tma_copy_local_to_global"(%map, %dst, %o, %o) : (!llvm.ptr, !tilegpu.memdesc<[64, 64], f16, #nvmma, true>, i32, i32) -> ()
  "tilegpu.tma_store_wait"() {pendings = 1 : i32} : () -> ()
  "tilegpu.tma_store_wait"() {pendings = 0 : i32} : () -> ()
  return
}
}

// -----

// Regions nested exactly MAX_NESTING (128) levels deep are still fine: the module's, the
// function's, then 126 nested scf.if.
func.func @nested(%c: i1) {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
"tile.print"() {hex = false, prefix = "deep"} : () -> ()
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
return
}

//

// -----

// --- tile ops: program ids and index tensors ---------------------------------------------------

func.func @program_id_axis_3() {
  // expected-error@+1 {{'tile.program_id' op axis 3 is not a grid axis (0, 1 or 2)}}
  %0 = "tile.program_id"() {axis = 3 : i32} : () -> i32
  return
}

// -----

func.func @num_programs_negative_axis() {
  // expected-error@+1 {{'tile.num_programs' op axis -1 is not a grid axis (0, 1 or 2)}}
  %0 = "tile.num_programs"() {axis = -1 : i32} : () -> i32
  return
}

// -----

// A range from 64 down to 0 is empty.
func.func @make_range_64_to_0() {
  // expected-error@+1 {{'tile.make_range' op end (0) must be greater than start (64)}}
  %0 = "tile.make_range"() {start = 64 : i32, end = 0 : i32} : () -> tensor<64xi32>
  return
}

// -----

func.func @make_range_not_power_of_two() {
  // expected-error@+1 {{'tile.make_range' op the range's length 48 is not a power of two}}
  %0 = "tile.make_range"() {start = 16 : i32, end = 64 : i32} : () -> tensor<64xi32>
  return
}

// -----

// make_range into the wrong shape: 64 elements in a tensor of 32.
func.func @make_range_wrong_shape() {
  // expected-error@+1 {{'tile.make_range' op result must be tensor<64xi32>, got tensor<32xi32>}}
  %0 = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<32xi32>
  return
}

// -----

func.func @make_range_i64() {
  // expected-error@+1 {{'tile.make_range' op result must be tensor<64xi32>, got tensor<64xi64>}}
  %0 = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi64>
  return
}

// -----

// --- tile ops: shape manipulation --------------------------------------------------------------

// splat keeps the element type: an f32 does not make a tensor of i32.
func.func @splat_f32_to_i32(%x: f32) {
  // expected-error@+1 {{'tile.splat' op result element type i32 differs from the operand's type f32}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64xi32>
  return
}

// -----

func.func @splat_tensor_operand(%x: tensor<4xf32>) {
  // expected-error@+1 {{'tile.splat' op operand must be a scalar, got tensor<4xf32>}}
  %0 = "tile.splat"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_not_size_1(%x: tensor<2x1xf32>) {
  // expected-error@+1 {{'tile.broadcast' op cannot broadcast shape [2, 1] to [4, 8]}}
  %0 = "tile.broadcast"(%x) : (tensor<2x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

// broadcast does not add dimensions (expand_dims does).
func.func @broadcast_rank(%x: tensor<8xf32>) {
  // expected-error@+1 {{'tile.broadcast' op cannot broadcast shape [8] to [4, 8]}}
  %0 = "tile.broadcast"(%x) : (tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<4x1xf32>) {
  // expected-error@+1 {{'tile.broadcast' op result element type f16 differs from the operand's f32}}
  %0 = "tile.broadcast"(%x) : (tensor<4x1xf32>) -> tensor<4x8xf16>
  return
}

// -----

func.func @expand_dims_axis_out_of_range(%x: tensor<64xi32>) {
  // expected-error@+1 {{'tile.expand_dims' op axis 2 is out of range for an operand of rank 1}}
  %0 = "tile.expand_dims"(%x) {axis = 2 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  return
}

// -----

func.func @expand_dims_wrong_axis(%x: tensor<64xi32>) {
  // expected-error@+1 {{'tile.expand_dims' op result shape must be [1, 64], got [64, 1]}}
  %0 = "tile.expand_dims"(%x) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.reshape' op cannot reshape 32 elements [4, 8] into [16]}}
  %0 = "tile.reshape"(%x) {allow_reorder = false} : (tensor<4x8xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.reshape' op result element type i32 differs from the operand's f32}}
  %0 = "tile.reshape"(%x) {allow_reorder = true} : (tensor<4x8xf32>) -> tensor<32xi32>
  return
}

// -----

func.func @trans_not_permutation(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.trans' op order [0, 0] is not a permutation of the operand's 2 dimensions}}
  %0 = "tile.trans"(%x) {order = array<i32: 0, 0>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @trans_wrong_shape(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.trans' op result shape must be [8, 4], got [4, 8]}}
  %0 = "tile.trans"(%x) {order = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// IRDL accepts a dense array of any element type; the rule reads i32 and says what it could not.
func.func @trans_order_i64(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.trans' op has operands or attributes of the wrong kind (ValueError}}
  %0 = "tile.trans"(%x) {order = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @join_operands_differ(%x: tensor<4x8xf32>, %y: tensor<4x8xf16>) {
  // expected-error@+1 {{'tile.join' op operands differ: tensor<4x8xf32> and tensor<4x8xf16>}}
  %0 = "tile.join"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8x2xf32>
  return
}

// -----

func.func @join_wrong_shape(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.join' op result shape must be [4, 8, 2], got [8, 8]}}
  %0 = "tile.join"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @split_last_dim_not_2(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.split' op the operand's last dimension must be 2, got shape [4, 8]}}
  %0, %1 = "tile.split"(%x) : (tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  return
}

// -----

func.func @split_wrong_results(%x: tensor<4x8x2xf32>) {
  // expected-error@+1 {{'tile.split' op results must have shape [4, 8], got [4, 8] and [8]}}
  %0, %1 = "tile.split"(%x) : (tensor<4x8x2xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @split_element_type(%x: tensor<4x2xf32>) {
  // expected-error@+1 {{'tile.split' op result element type f16 differs from the operand's f32}}
  %0, %1 = "tile.split"(%x) : (tensor<4x2xf32>) -> (tensor<4xf32>, tensor<4xf16>)
  return
}

// -----

// --- tile ops: pointers and memory -------------------------------------------------------------

// Offsets are integers: f32 offsets are rejected.
func.func @addptr_f32_offsets(%p: tensor<128x!tile.ptr<f32, 1 : i32>>, %o: tensor<128xf32>) {
  // expected-error@+1 {{'tile.addptr' op offset must be an integer or a tensor of integers, got tensor<128xf32>}}
  %0 = "tile.addptr"(%p, %o) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
  return
}

// -----

func.func @addptr_offset_shape(%p: tensor<128x!tile.ptr<f32, 1 : i32>>, %o: tensor<64xi32>) {
  // expected-error@+1 {{'tile.addptr' op offset: shape [64] differs from [128]}}
  %0 = "tile.addptr"(%p, %o) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<64xi32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
  return
}

// -----

func.func @addptr_not_a_pointer(%p: i64, %o: i32) {
  // expected-error@+1 {{'tile.addptr' op ptr must be a pointer or a tensor of pointers, got i64}}
  %0 = "tile.addptr"(%p, %o) : (i64, i32) -> i64
  return
}

// -----

// A load's result element type is the pointee.
func.func @load_result_type(%p: tensor<128x!tile.ptr<f32, 1 : i32>>) {
  // expected-error@+1 {{'tile.load' op result element type f16 differs from the pointee f32}}
  %0 = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f32, 1 : i32>>) -> tensor<128xf16>
  return
}

// -----

// A load's result has the pointers' shape.
func.func @load_result_shape(%p: tensor<128x!tile.ptr<f32, 1 : i32>>) {
  // expected-error@+1 {{'tile.load' op result: shape [64] differs from [128]}}
  %0 = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f32, 1 : i32>>) -> tensor<64xf32>
  return
}

// -----

// One pointer loads one value, not a tensor.
func.func @load_scalar_pointer_tensor_result(%p: !tile.ptr<f32, 1 : i32>) {
  // expected-error@+1 {{'tile.load' op result: shape [128] differs from []}}
  %0 = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> tensor<128xf32>
  return
}

// -----

func.func @load_not_a_pointer(%p: tensor<128xi64>) {
  // expected-error@+1 {{'tile.load' op ptr must be a pointer or a tensor of pointers, got tensor<128xi64>}}
  %0 = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128xi64>) -> tensor<128xi64>
  return
}

// -----

func.func @load_mask_not_i1(%p: tensor<128x!tile.ptr<f32, 1 : i32>>, %m: tensor<128xi32>) {
  // expected-error@+1 {{'tile.load' op mask must be i1, got tensor<128xi32>}}
  %0 = "tile.load"(%p, %m) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi32>) -> tensor<128xf32>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<128x!tile.ptr<f32, 1 : i32>>, %m: tensor<64xi1>, %o: tensor<128xf32>) {
  // expected-error@+1 {{'tile.load' op mask: shape [64] differs from [128]}}
  %0 = "tile.load"(%p, %m, %o) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<64xi1>, tensor<128xf32>) -> tensor<128xf32>
  return
}

// -----

func.func @store_value_type(%p: tensor<128x!tile.ptr<f32, 1 : i32>>, %v: tensor<128xf16>) {
  // expected-error@+1 {{'tile.store' op value element type f16 differs from the pointee f32}}
  "tile.store"(%p, %v) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf16>) -> ()
  return
}

// -----

func.func @store_value_shape(%p: tensor<128x!tile.ptr<f32, 1 : i32>>, %v: tensor<64xf32>) {
  // expected-error@+1 {{'tile.store' op value: shape [64] differs from [128]}}
  "tile.store"(%p, %v) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<64xf32>) -> ()
  return
}

// -----

func.func @store_not_a_pointer(%p: i64, %v: f32) {
  // expected-error@+1 {{'tile.store' op ptr must be a pointer or a tensor of pointers, got i64}}
  "tile.store"(%p, %v) {cache = "none", evict = "evict_normal"} : (i64, f32) -> ()
  return
}

// -----

func.func @store_mask_not_i1(%p: tensor<128x!tile.ptr<f32, 1 : i32>>, %v: tensor<128xf32>, %m: tensor<128xi8>) {
  // expected-error@+1 {{'tile.store' op mask must be i1, got tensor<128xi8>}}
  "tile.store"(%p, %v, %m) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>, tensor<128xi8>) -> ()
  return
}

// -----

// A TMA load takes one offset per dimension of its block.
func.func @tma_load_offsets(%map: !llvm.ptr, %o: i32) {
  // expected-error@+1 {{'tile.tma_load' op 1 offsets for a block of rank 2}}
  %0 = "tile.tma_load"(%map, %o) {swizzle = 128 : i32} : (!llvm.ptr, i32) -> tensor<64x64xf16>
  return
}

// -----

// Swizzle spans are 32, 64 or 128 bytes (the checks come in this order: a 16-byte swizzle is
// reported before anything else about the block).
func.func @tma_load_swizzle(%map: !llvm.ptr, %o: i32) {
  // expected-error@+1 {{'tile.tma_load' op swizzle must be one of [32, 64, 128] bytes, got 16}}
  %0 = "tile.tma_load"(%map, %o, %o) {swizzle = 16 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

// 16 f64 are one 128-byte span, but TMA moves no 64-bit elements.
func.func @tma_load_f64(%map: !llvm.ptr, %o: i32) {
  // expected-error@+1 {{'tile.tma_load' op TMA moves 8-, 16- or 32-bit elements, got f64}}
  %0 = "tile.tma_load"(%map, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<16x16xf64>
  return
}

// -----

// 32 f16 are 64 bytes: half a 128-byte span.
func.func @tma_load_fastest_dimension(%map: !llvm.ptr, %o: i32) {
  // expected-error@+1 {{'tile.tma_load' op the block's fastest dimension (32 x f16) is not a whole number of 128-byte swizzle spans}}
  %0 = "tile.tma_load"(%map, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x32xf16>
  return
}

// -----

// A TMA store takes one offset per dimension of its value (the block), as a load does.
func.func @tma_store_offsets(%map: !llvm.ptr, %x: tensor<64x64xf16>, %o: i32) {
  // expected-error@+1 {{'tile.tma_store' op 3 offsets for a block of rank 2}}
  "tile.tma_store"(%map, %x, %o, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16>, i32, i32, i32) -> ()
  return
}

// -----

// TMA stores no 64-bit elements either (the element is the value's).
func.func @tma_store_f64(%map: !llvm.ptr, %x: tensor<16x16xf64>, %o: i32) {
  // expected-error@+1 {{'tile.tma_store' op TMA moves 8-, 16- or 32-bit elements, got f64}}
  "tile.tma_store"(%map, %x, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, tensor<16x16xf64>, i32, i32) -> ()
  return
}

// -----

// 32 f16 are half a 128-byte span: the value's fastest dimension is checked as a load's block is.
func.func @tma_store_fastest_dimension(%map: !llvm.ptr, %x: tensor<64x32xf16>, %o: i32) {
  // expected-error@+1 {{'tile.tma_store' op the block's fastest dimension (32 x f16) is not a whole number of 128-byte swizzle spans}}
  "tile.tma_store"(%map, %x, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x32xf16>, i32, i32) -> ()
  return
}

// -----

// --- tile ops: dot -----------------------------------------------------------------------------

// 16x32 times 16x16: the inner dimensions (32, 16) differ.
func.func @dot_16x32_times_16x16(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'tile.dot' op shapes do not multiply: [16, 32] x [16, 16] -> [16, 16]}}
  %0 = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x32xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_accumulator_shape(%a: tensor<16x32xf16>, %b: tensor<32x64xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'tile.dot' op shapes do not multiply: [16, 32] x [32, 64] -> [16, 16]}}
  %0 = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x32xf16>, tensor<32x64xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_1d(%a: tensor<16xf16>, %c: tensor<16xf32>) {
  // expected-error@+1 {{'tile.dot' op operands must all be 2-D (or 3-D, batched), got [16], [16] and [16]}}
  %0 = "tile.dot"(%a, %a, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16xf16>, tensor<16xf16>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

// Only two 8-bit float types may be mixed.
func.func @dot_mixed_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'tile.dot' op operands' element types differ: f16 and bf16}}
  %0 = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16>, tensor<16x16xbf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return
}

// -----

// --- tile ops: reduce and scan -----------------------------------------------------------------

func.func @reduce_result_shape(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.reduce' op result shape must be [4], got [8]}}
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @reduce_axis_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.reduce' op axis 2 is out of range for operands of rank 2}}
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    gpu.yield %a : f32
  }) {axis = 2 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_operands_differ(%x: tensor<4x8xf32>, %i: tensor<4x4xi32>) {
  // expected-error@+1 {{'tile.reduce' op operands differ in shape: [[4, 8], [4, 4]]}}
  %0, %1 = "tile.reduce"(%x, %i) ({
  ^bb0(%a: f32, %ia: i32, %b: f32, %ib: i32):
    gpu.yield %a, %ia : f32, i32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<4x8xf32>, tensor<4x4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  return
}

// -----

func.func @reduce_result_element_type(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.reduce' op result element type f16 differs from the operand's f32}}
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    gpu.yield %a : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4xf16>
  return
}

// -----

// The combine block takes the accumulated values, then the new ones, as scalars.
func.func @reduce_combine_signature(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.reduce' op the combine block takes (f16, f16); expected (f32, f32)}}
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    gpu.yield %s : f16
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_two_blocks(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'tile.reduce' op the combine region must have one block}}
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    cf.br ^bb1(%a : f32)
  ^bb1(%s: f32):
    gpu.yield %s : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @scan_axis_out_of_range(%x: tensor<16xf32>) {
  // expected-error@+1 {{'tile.scan' op axis 1 is out of range for operands of rank 1}}
  %0 = "tile.scan"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, reverse = false} : (tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @scan_combine_signature(%x: tensor<16xi32>) {
  // expected-error@+1 {{'tile.scan' op the combine block takes (i32); expected (i32, i32)}}
  %0 = "tile.scan"(%x) ({
  ^bb0(%a: i32):
    gpu.yield %a : i32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, reverse = true} : (tensor<16xi32>) -> tensor<16xi32>
  return
}

// -----

// --- tile ops: inline asm, sort, gather, histogram, cat ----------------------------------------

func.func @inline_asm_shapes(%x: tensor<64xf32>) {
  // expected-error@+1 {{'tile.elementwise_inline_asm' op operands and results differ in shape: [(32,), (64,)]}}
  %0 = "tile.elementwise_inline_asm"(%x) {asm = "mov.b32 $0, $1;", constraints = "=r,r", operandSegmentSizes = array<i32: 1, 0, 0, 0>, pack = 1 : i32, pure = true, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64xf32>) -> tensor<32xf32>
  return
}

// -----

func.func @sort_not_last_axis(%x: tensor<8x64xf32>) {
  // expected-error@+1 {{'tile.sort' op sorts along the last dimension only: axis 0, shape [8, 64]}}
  %0 = "tile.sort"(%x) {axis = 0 : i32, descending = false} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @gather_float_index(%x: tensor<8x64xf32>, %i: tensor<4x64xf32>) {
  // expected-error@+1 {{'tile.gather' op index must be an integer tensor, got tensor<4x64xf32>}}
  %0 = "tile.gather"(%x, %i) {axis = 0 : i32} : (tensor<8x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return
}

// -----

func.func @gather_index_rank(%x: tensor<8x64xf32>, %i: tensor<64xi32>) {
  // expected-error@+1 {{'tile.gather' op index [64] must have the rank of src [8, 64], and axis 0 be one of its dimensions}}
  %0 = "tile.gather"(%x, %i) {axis = 0 : i32} : (tensor<8x64xf32>, tensor<64xi32>) -> tensor<64xf32>
  return
}

// -----

func.func @gather_outside_axis(%x: tensor<8x64xf32>, %i: tensor<4x32xi32>) {
  // expected-error@+1 {{'tile.gather' op index [4, 32] and src [8, 64] differ outside axis 0}}
  %0 = "tile.gather"(%x, %i) {axis = 0 : i32} : (tensor<8x64xf32>, tensor<4x32xi32>) -> tensor<4x32xf32>
  return
}

// -----

func.func @gather_result_shape(%x: tensor<8x64xf32>, %i: tensor<4x64xi32>) {
  // expected-error@+1 {{'tile.gather' op result: shape [8, 64] differs from [4, 64]}}
  %0 = "tile.gather"(%x, %i) {axis = 0 : i32} : (tensor<8x64xf32>, tensor<4x64xi32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @histogram_float_operand(%x: tensor<256xf32>) {
  // expected-error@+1 {{'tile.histogram' op operand must be a 1-D integer tensor, got tensor<256xf32>}}
  %0 = "tile.histogram"(%x) : (tensor<256xf32>) -> tensor<16xi32>
  return
}

// -----

func.func @histogram_i64_result(%x: tensor<256xi32>) {
  // expected-error@+1 {{'tile.histogram' op result must be a 1-D i32 tensor, got tensor<16xi64>}}
  %0 = "tile.histogram"(%x) : (tensor<256xi32>) -> tensor<16xi64>
  return
}

// -----

func.func @cat_operands_differ(%x: tensor<8x64xf32>, %y: tensor<8x32xf32>) {
  // expected-error@+1 {{'tile.cat' op operands must agree except along dimension 0: tensor<8x64xf32> and tensor<8x32xf32>}}
  %0 = "tile.cat"(%x, %y) : (tensor<8x64xf32>, tensor<8x32xf32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @cat_result_shape(%x: tensor<8x64xf32>, %y: tensor<4x64xf32>) {
  // expected-error@+1 {{'tile.cat' op result shape must be [12, 64], got [16, 64]}}
  %0 = "tile.cat"(%x, %y) : (tensor<8x64xf32>, tensor<4x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

// --- tile ops: atomics -------------------------------------------------------------------------

func.func @atomic_rmw_fadd_on_integers(%p: !tile.ptr<i32, 1 : i32>, %v: i32) {
  // expected-error@+1 {{'tile.atomic_rmw' op 'fadd' needs floating-point values, got i32}}
  %0 = "tile.atomic_rmw"(%p, %v) {rmw_op = "fadd", scope = "gpu", sem = "relaxed"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  return
}

// -----

func.func @atomic_rmw_add_on_floats(%p: !tile.ptr<f32, 1 : i32>, %v: f32) {
  // expected-error@+1 {{'tile.atomic_rmw' op 'add' needs integer values, got f32}}
  %0 = "tile.atomic_rmw"(%p, %v) {rmw_op = "add", scope = "gpu", sem = "relaxed"} : (!tile.ptr<f32, 1 : i32>, f32) -> f32
  return
}

// -----

func.func @atomic_rmw_pointee(%p: tensor<64x!tile.ptr<f32, 1 : i32>>, %v: tensor<64xi32>) {
  // expected-error@+1 {{'tile.atomic_rmw' op value element type i32 differs from the pointee f32}}
  %0 = "tile.atomic_rmw"(%p, %v) {rmw_op = "xchg", scope = "gpu", sem = "relaxed"} : (tensor<64x!tile.ptr<f32, 1 : i32>>, tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @atomic_rmw_mask(%p: tensor<64x!tile.ptr<f32, 1 : i32>>, %v: tensor<64xf32>, %m: tensor<32xi1>) {
  // expected-error@+1 {{'tile.atomic_rmw' op mask: shape [32] differs from [64]}}
  %0 = "tile.atomic_rmw"(%p, %v, %m) {rmw_op = "fadd", scope = "gpu", sem = "acq_rel"} : (tensor<64x!tile.ptr<f32, 1 : i32>>, tensor<64xf32>, tensor<32xi1>) -> tensor<64xf32>
  return
}

// -----

func.func @atomic_cas_pointee(%p: !tile.ptr<i32, 1 : i32>, %c: f32, %v: f32) {
  // expected-error@+1 {{'tile.atomic_cas' op value element type f32 differs from the pointee i32}}
  %0 = "tile.atomic_cas"(%p, %c, %v) {scope = "gpu", sem = "acq_rel"} : (!tile.ptr<i32, 1 : i32>, f32, f32) -> f32
  return
}

// -----

func.func @atomic_cas_not_a_pointer(%p: i64, %v: i64) {
  // expected-error@+1 {{'tile.atomic_cas' op ptr must be a pointer or a tensor of pointers, got i64}}
  %0 = "tile.atomic_cas"(%p, %v, %v) {scope = "gpu", sem = "acq_rel"} : (i64, i64, i64) -> i64
  return
}

// -----

// --- tile ops: casts and assert ----------------------------------------------------------------

func.func @fp_to_fp_from_integer(%x: i32) {
  // expected-error@+1 {{'tile.fp_to_fp' op converts floats to floats, not i32 to f16}}
  %0 = "tile.fp_to_fp"(%x) {rounding = "rtne"} : (i32) -> f16
  return
}

// -----

func.func @fp_to_fp_shape(%x: tensor<64xf32>) {
  // expected-error@+1 {{'tile.fp_to_fp' op result: shape [32] differs from [64]}}
  %0 = "tile.fp_to_fp"(%x) {rounding = "rtz"} : (tensor<64xf32>) -> tensor<32xf16>
  return
}

// -----

func.func @bitcast_widths(%x: f32) {
  // expected-error@+1 {{'tile.bitcast' op cannot reinterpret f32 as i16: the widths differ}}
  %0 = "tile.bitcast"(%x) : (f32) -> i16
  return
}

// -----

func.func @bitcast_shape(%x: tensor<64xf32>) {
  // expected-error@+1 {{'tile.bitcast' op result: shape [64, 1] differs from [64]}}
  %0 = "tile.bitcast"(%x) : (tensor<64xf32>) -> tensor<64x1xi32>
  return
}

// -----

func.func @ptr_to_int_i32(%p: !tile.ptr<f32, 1 : i32>) {
  // expected-error@+1 {{'tile.ptr_to_int' op converts pointers to i64, not !tile.ptr<f32, 1 : i32> to i32}}
  %0 = "tile.ptr_to_int"(%p) : (!tile.ptr<f32, 1 : i32>) -> i32
  return
}

// -----

func.func @int_to_ptr_from_i32(%x: i32) {
  // expected-error@+1 {{'tile.int_to_ptr' op converts i64 to pointers, not i32 to !tile.ptr<f32, 1 : i32>}}
  %0 = "tile.int_to_ptr"(%x) : (i32) -> !tile.ptr<f32, 1 : i32>
  return
}

// -----

func.func @int_to_ptr_shape(%x: tensor<64xi64>) {
  // expected-error@+1 {{'tile.int_to_ptr' op result: shape [32] differs from [64]}}
  %0 = "tile.int_to_ptr"(%x) : (tensor<64xi64>) -> tensor<32x!tile.ptr<f32, 1 : i32>>
  return
}

// -----

func.func @assert_not_i1(%c: tensor<16xi32>) {
  // expected-error@+1 {{'tile.assert' op condition must be i1, got tensor<16xi32>}}
  "tile.assert"(%c) {message = "c"} : (tensor<16xi32>) -> ()
  return
}

// -----

// --- tilegpu ops -------------------------------------------------------------------------------

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
module {
func.func @convert_layout_shape(%x: tensor<64x64xf32, #blocked>) {
  // expected-error@+1 {{'tilegpu.convert_layout' op result: shape [64, 32] differs from [64, 64]}}
  %0 = "tilegpu.convert_layout"(%x) : (tensor<64x64xf32, #blocked>) -> tensor<64x32xf32, #mma>
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
module {
func.func @convert_layout_element_type(%x: tensor<64x64xf32, #blocked>) {
  // expected-error@+1 {{'tilegpu.convert_layout' op result element type f16 differs from the operand's f32}}
  %0 = "tilegpu.convert_layout"(%x) : (tensor<64x64xf32, #blocked>) -> tensor<64x64xf16, #mma>
  return
}
}

// -----

#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
// Without an initial value a buffer is written later: it must be mutable.
func.func @local_alloc_immutable_uninitialised() {
  // expected-error@+1 {{'tilegpu.local_alloc' op an uninitialised buffer must be mutable}}
  %0 = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #shared, false>
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @local_alloc_initial_value(%x: tensor<64x32xf16, #blocked>) {
  // expected-error@+1 {{'tilegpu.local_alloc' op the initial value: [64, 32] x f16 differs from the buffer's [64, 32] x f32}}
  %0 = "tilegpu.local_alloc"(%x) : (tensor<64x32xf16, #blocked>) -> !tilegpu.memdesc<[64, 32], f32, #shared, false>
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @local_load_shape(%d: !tilegpu.memdesc<[64, 32], f16, #shared, true>) {
  // expected-error@+1 {{'tilegpu.local_load' op result: [32, 64] x f16 differs from the buffer's [64, 32] x f16}}
  %0 = "tilegpu.local_load"(%d) : (!tilegpu.memdesc<[64, 32], f16, #shared, true>) -> tensor<32x64xf16, #blocked>
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @local_store_immutable(%x: tensor<64x32xf16, #blocked>, %d: !tilegpu.memdesc<[64, 32], f16, #shared, false>) {
  // expected-error@+1 {{'tilegpu.local_store' op stores into an immutable buffer}}
  "tilegpu.local_store"(%x, %d) : (tensor<64x32xf16, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, false>) -> ()
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @local_store_shape(%x: tensor<64x16xf16, #blocked>, %d: !tilegpu.memdesc<[64, 32], f16, #shared, true>) {
  // expected-error@+1 {{'tilegpu.local_store' op value: [64, 16] x f16 differs from the buffer's [64, 32] x f16}}
  "tilegpu.local_store"(%x, %d) : (tensor<64x16xf16, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
  return
}
}

// -----

#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @memdesc_subview_offsets(%d: !tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, %i: i32) {
  // expected-error@+1 {{'tilegpu.memdesc_subview' op 2 offsets for a buffer of rank 3}}
  %0 = "tilegpu.memdesc_subview"(%d, %i, %i) : (!tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
  return
}
}

// -----

#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @memdesc_subview_too_big(%d: !tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, %i: i32) {
  // expected-error@+1 {{'tilegpu.memdesc_subview' op a view [128, 32] does not fit in [3, 64, 32]}}
  %0 = "tilegpu.memdesc_subview"(%d, %i, %i, %i) : (!tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[128, 32], f16, #shared, true>
  return
}
}

// -----

#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @memdesc_subview_element_type(%d: !tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, %i: i32) {
  // expected-error@+1 {{'tilegpu.memdesc_subview' op element type f32 differs from the buffer's f16}}
  %0 = "tilegpu.memdesc_subview"(%d, %i, %i, %i) : (!tilegpu.memdesc<[3, 64, 32], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f32, #shared, true>
  return
}
}

// -----

#nvmma = #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>
module {
func.func @memdesc_trans_not_swapped(%d: !tilegpu.memdesc<[64, 32], f16, #nvmma, true>) {
  // expected-error@+1 {{'tilegpu.memdesc_trans' op transposes 2-D buffers: [64, 32] -> [64, 32]}}
  %0 = "tilegpu.memdesc_trans"(%d) : (!tilegpu.memdesc<[64, 32], f16, #nvmma, true>) -> !tilegpu.memdesc<[64, 32], f16, #nvmma, true>
  return
}
}

// -----

#shared3 = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [2, 1, 0]>
module {
func.func @memdesc_trans_3d(%d: !tilegpu.memdesc<[2, 64, 32], f16, #shared3, true>) {
  // expected-error@+1 {{'tilegpu.memdesc_trans' op transposes 2-D buffers: [2, 64, 32] -> [32, 64, 2]}}
  %0 = "tilegpu.memdesc_trans"(%d) : (!tilegpu.memdesc<[2, 64, 32], f16, #shared3, true>) -> !tilegpu.memdesc<[32, 64, 2], f16, #shared3, true>
  return
}
}

// -----

#nvmma = #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>
module {
func.func @memdesc_trans_element_type(%d: !tilegpu.memdesc<[64, 32], f16, #nvmma, true>) {
  // expected-error@+1 {{'tilegpu.memdesc_trans' op element type bf16 differs from the buffer's f16}}
  %0 = "tilegpu.memdesc_trans"(%d) : (!tilegpu.memdesc<[64, 32], f16, #nvmma, true>) -> !tilegpu.memdesc<[32, 64], bf16, #tilegpu.nvmma_shared<64 : i32, 16 : i32, [0, 1]>, true>
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @async_copy_shape(%p: tensor<64x16x!tile.ptr<f16, 1 : i32>, #blocked>, %d: !tilegpu.memdesc<[64, 32], f16, #shared, true>) {
  // expected-error@+1 {{'tilegpu.async_copy_global_to_local' op copies [64, 16] x f16 into a buffer of [64, 32] x f16}}
  %0 = "tilegpu.async_copy_global_to_local"(%p, %d) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x16x!tile.ptr<f16, 1 : i32>, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> !tilegpu.async_token
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @async_copy_pointee(%p: tensor<64x32x!tile.ptr<f32, 1 : i32>, #blocked>, %d: !tilegpu.memdesc<[64, 32], f16, #shared, true>) {
  // expected-error@+1 {{'tilegpu.async_copy_global_to_local' op copies [64, 32] x f32 into a buffer of [64, 32] x f16}}
  %0 = "tilegpu.async_copy_global_to_local"(%p, %d) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x32x!tile.ptr<f32, 1 : i32>, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> !tilegpu.async_token
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @async_copy_not_pointers(%p: tensor<64x32xi64, #blocked>, %d: !tilegpu.memdesc<[64, 32], f16, #shared, true>) {
  // expected-error@+1 {{'tilegpu.async_copy_global_to_local' op src must be a tensor of pointers, got tensor<64x32xi64,}}
  %0 = "tilegpu.async_copy_global_to_local"(%p, %d) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x32xi64, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> !tilegpu.async_token
  return
}
}

// -----

#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @async_copy_mask(%p: tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>, %d: !tilegpu.memdesc<[64, 32], f16, #shared, true>, %m: tensor<64x32xi32, #blocked>) {
  // expected-error@+1 {{'tilegpu.async_copy_global_to_local' op mask must be i1, got tensor<64x32xi32,}}
  %0 = "tilegpu.async_copy_global_to_local"(%p, %d, %m) {cache = "none", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>, !tilegpu.memdesc<[64, 32], f16, #shared, true>, tensor<64x32xi32, #blocked>) -> !tilegpu.async_token
  return
}
}

// -----

func.func @async_wait_negative() {
  // expected-error@+1 {{'tilegpu.async_wait' op num must not be negative, got -1}}
  %0 = "tilegpu.async_wait"() {num = -1 : i32} : () -> !tilegpu.async_token
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>
#wgmma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
module {
func.func @warpgroup_dot_shapes(%a: !tilegpu.memdesc<[64, 32], f16, #nvmma, true>, %b: !tilegpu.memdesc<[16, 64], f16, #nvmma, true>, %c: tensor<64x64xf32, #wgmma>) {
  // expected-error@+1 {{'tilegpu.warpgroup_dot' op shapes do not multiply: [64, 32] x [16, 64] -> [64, 64]}}
  %0 = "tilegpu.warpgroup_dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (!tilegpu.memdesc<[64, 32], f16, #nvmma, true>, !tilegpu.memdesc<[16, 64], f16, #nvmma, true>, tensor<64x64xf32, #wgmma>) -> tensor<64x64xf32, #wgmma>
  return
}
}

// -----

// A from registers: the tensor's shape is read.
#nvmma = #tilegpu.nvmma_shared<64 : i32, 16 : i32, [1, 0]>
#wgmma = #tilegpu.mma<[3, 0], [4, 1], [16, 64]>
module {
func.func @warpgroup_dot_register_a(%a: tensor<64x16xf16, #tilegpu.dot_operand<0 : i32, #wgmma, 2 : i32>>, %b: !tilegpu.memdesc<[32, 64], f16, #nvmma, true>, %c: tensor<64x64xf32, #wgmma>) {
  // expected-error@+1 {{'tilegpu.warpgroup_dot' op shapes do not multiply: [64, 16] x [32, 64] -> [64, 64]}}
  %0 = "tilegpu.warpgroup_dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x16xf16, #tilegpu.dot_operand<0 : i32, #wgmma, 2 : i32>>, !tilegpu.memdesc<[32, 64], f16, #nvmma, true>, tensor<64x64xf32, #wgmma>) -> tensor<64x64xf32, #wgmma>
  return
}
}

// -----

func.func @warpgroup_dot_wait_result_count(%x: tensor<64x64xf32>) {
  // expected-error@+1 {{'tilegpu.warpgroup_dot_wait' op results must have the types of the inputs}}
  %0:2 = "tilegpu.warpgroup_dot_wait"(%x) {pendings = 0 : i32} : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>)
  return
}

// -----

func.func @warpgroup_dot_wait_negative(%x: tensor<64x64xf32>) {
  // expected-error@+1 {{'tilegpu.warpgroup_dot_wait' op pendings must not be negative, got -2}}
  %0 = "tilegpu.warpgroup_dot_wait"(%x) {pendings = -2 : i32} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return
}

// -----

// --- tilegpu ops: mbarriers and TMA copies -----------------------------------------------------

func.func @init_barrier_count_past_the_limit(%bar: !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  // expected-error@+1 {{'tilegpu.init_barrier' op count must be from 1 to 1048575 arrivals, got 1048576}}
  "tilegpu.init_barrier"(%bar) {count = 1048576 : i32} : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  return
}

// -----

func.func @init_barrier_count_zero(%bar: !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  // expected-error@+1 {{'tilegpu.init_barrier' op count must be from 1 to 1048575 arrivals, got 0}}
  "tilegpu.init_barrier"(%bar) {count = 0 : i32} : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  return
}

// -----

// mbarriers are 8-byte (i64) objects.
func.func @init_barrier_i32(%bar: !tilegpu.memdesc<[1], i32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  // expected-error@+1 {{'tilegpu.init_barrier' op barriers are a 1-D buffer of i64 (or a ring of them), got !tilegpu.memdesc<[1], i32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>}}
  "tilegpu.init_barrier"(%bar) {count = 1 : i32} : (!tilegpu.memdesc<[1], i32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  return
}

// -----

// A ring of barriers ([stages, n]) has a 1-D layout with a leading stage dimension; a buffer
// [2, 1] whose layout has rank 2 is a 2-D buffer of barriers, which is refused.
func.func @inval_barrier_2d(%bar: !tilegpu.memdesc<[2, 1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [1, 0]>, true>) {
  // expected-error@+1 {{'tilegpu.inval_barrier' op barriers are a 1-D buffer of i64 (or a ring of them), got !tilegpu.memdesc<[2, 1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [1, 0]>, true>}}
  "tilegpu.inval_barrier"(%bar) : (!tilegpu.memdesc<[2, 1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [1, 0]>, true>) -> ()
  return
}

// -----

// A wait is on one barrier (init and inval take any number).
func.func @wait_barrier_two(%bar: !tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, %phase: i32) {
  // expected-error@+1 {{'tilegpu.wait_barrier' op waits on one barrier, got a buffer of 2}}
  "tilegpu.wait_barrier"(%bar, %phase) : (!tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, i32) -> ()
  return
}

// -----

// "One barrier" counts every element of the buffer: a ring of three stages of one barrier each
// holds three, so a wait on the whole ring is refused (the pipeliner waits on one stage's view).
func.func @wait_barrier_ring(%bars: !tilegpu.memdesc<[3, 1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, %phase: i32) {
  // expected-error@+1 {{'tilegpu.wait_barrier' op waits on one barrier, got a buffer of 3}}
  "tilegpu.wait_barrier"(%bars, %phase) : (!tilegpu.memdesc<[3, 1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, i32) -> ()
  return
}

// -----

// A copy completes on one barrier too.
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @tma_copy_two_barriers(%map: !llvm.ptr, %bar: !tilegpu.memdesc<[2], i64, #bs, true>, %dst: !tilegpu.memdesc<[64, 64], f16, #nvmma, true>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_global_to_local' op waits on one barrier, got a buffer of 2}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[2], i64, #bs, true>, !tilegpu.memdesc<[64, 64], f16, #nvmma, true>, i32, i32) -> ()
  return
}
}

// -----

// A multicast copy, or an arrival on every CTA's barrier, is for a cluster of 2, 4 or 8 CTAs.
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @three_ctas(%map: !llvm.ptr, %bar: !tilegpu.memdesc<[1], i64, #bs, true>, %dst: !tilegpu.memdesc<[64, 64], f16, #nvmma, true>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_global_to_local' op multicast is the cluster's CTAs, 2, 4 or 8, not 3 : i32}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c) {multicast = 3 : i32} : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[64, 64], f16, #nvmma, true>, i32, i32) -> ()
  // expected-error@+1 {{'tilegpu.arrive_barrier' op ctas is the cluster's CTAs, 2, 4 or 8, not 1 : i32}}
  "tilegpu.arrive_barrier"(%bar) {ctas = 1 : i32} : (!tilegpu.memdesc<[1], i64, #bs, true>) -> ()
  return
}
}

// -----

// TMA writes the nvmma_shared layout only.
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @tma_copy_not_nvmma(%map: !llvm.ptr, %bar: !tilegpu.memdesc<[1], i64, #bs, true>, %dst: !tilegpu.memdesc<[64, 64], f16, #shared, true>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_global_to_local' op dst must be one buffer in an nvmma_shared layout, got !tilegpu.memdesc<[64, 64], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[64, 64], f16, #shared, true>, i32, i32) -> ()
  return
}
}

// -----

// One buffer: not a multi-buffered one (a leading stage dimension more than the layout's rank).
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @tma_copy_stages(%map: !llvm.ptr, %bar: !tilegpu.memdesc<[1], i64, #bs, true>, %dst: !tilegpu.memdesc<[2, 64, 64], f16, #nvmma, true>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_global_to_local' op dst must be one buffer in an nvmma_shared layout, got !tilegpu.memdesc<[2, 64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[2, 64, 64], f16, #nvmma, true>, i32, i32, i32) -> ()
  return
}
}

// -----

#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @tma_copy_immutable(%map: !llvm.ptr, %bar: !tilegpu.memdesc<[1], i64, #bs, true>, %dst: !tilegpu.memdesc<[64, 64], f16, #nvmma, false>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_global_to_local' op copies into an immutable buffer}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[64, 64], f16, #nvmma, false>, i32, i32) -> ()
  return
}
}

// -----

#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @tma_copy_coordinates(%map: !llvm.ptr, %bar: !tilegpu.memdesc<[1], i64, #bs, true>, %dst: !tilegpu.memdesc<[64, 64], f16, #nvmma, true>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_global_to_local' op 3 coordinates for a buffer of rank 2}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[64, 64], f16, #nvmma, true>, i32, i32, i32) -> ()
  return
}
}

// -----

// 128-byte blocks of f16 are 64 elements wide: 96 columns are one and a half.
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @tma_copy_column_blocks(%map: !llvm.ptr, %bar: !tilegpu.memdesc<[1], i64, #bs, true>, %dst: !tilegpu.memdesc<[64, 96], f16, #nvmma, true>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_global_to_local' op the fastest dimension (96) is not a whole number of 64-element column blocks}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[64, 96], f16, #nvmma, true>, i32, i32) -> ()
  return
}
}

// -----

// The fastest dimension is the layout's (order [0, 1]: the rows), not the last one: 96 rows of
// a 96x64 buffer are reported, although its 64 columns would be one block.
#bs = #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [0, 1]>
module {
func.func @tma_copy_column_blocks_order(%map: !llvm.ptr, %bar: !tilegpu.memdesc<[1], i64, #bs, true>, %dst: !tilegpu.memdesc<[96, 64], f16, #nvmma, true>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_global_to_local' op the fastest dimension (96) is not a whole number of 64-element column blocks}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[1], i64, #bs, true>, !tilegpu.memdesc<[96, 64], f16, #nvmma, true>, i32, i32) -> ()
  return
}
}

// -----

// A TMA store reads the nvmma_shared layout only.
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module {
func.func @tma_store_copy_not_nvmma(%map: !llvm.ptr, %src: !tilegpu.memdesc<[64, 64], f16, #shared, false>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_local_to_global' op src must be one buffer in an nvmma_shared layout, got !tilegpu.memdesc<[64, 64], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, false>}}
  "tilegpu.async_tma_copy_local_to_global"(%map, %src, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[64, 64], f16, #shared, false>, i32, i32) -> ()
  return
}
}

// -----

// From one buffer: not a whole multi-buffered ring.
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @tma_store_copy_stages(%map: !llvm.ptr, %src: !tilegpu.memdesc<[2, 64, 64], f16, #nvmma, true>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_local_to_global' op src must be one buffer in an nvmma_shared layout, got !tilegpu.memdesc<[2, 64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>}}
  "tilegpu.async_tma_copy_local_to_global"(%map, %src, %c, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[2, 64, 64], f16, #nvmma, true>, i32, i32, i32) -> ()
  return
}
}

// -----

#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @tma_store_copy_coordinates(%map: !llvm.ptr, %src: !tilegpu.memdesc<[64, 64], f16, #nvmma, false>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_local_to_global' op 1 coordinates for a buffer of rank 2}}
  "tilegpu.async_tma_copy_local_to_global"(%map, %src, %c) : (!llvm.ptr, !tilegpu.memdesc<[64, 64], f16, #nvmma, false>, i32) -> ()
  return
}
}

// -----

// 96 f16 columns are one and a half 64-element blocks of the 128-byte swizzle.
#nvmma = #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>
module {
func.func @tma_store_copy_column_blocks(%map: !llvm.ptr, %src: !tilegpu.memdesc<[64, 96], f16, #nvmma, false>, %c: i32) {
  // expected-error@+1 {{'tilegpu.async_tma_copy_local_to_global' op the fastest dimension (96) is not a whole number of 64-element column blocks}}
  "tilegpu.async_tma_copy_local_to_global"(%map, %src, %c, %c) : (!llvm.ptr, !tilegpu.memdesc<[64, 96], f16, #nvmma, false>, i32, i32) -> ()
  return
}
}

// -----

func.func @tma_store_wait_negative() {
  // expected-error@+1 {{'tilegpu.tma_store_wait' op pendings must not be negative, got -1}}
  "tilegpu.tma_store_wait"() {pendings = -1 : i32} : () -> ()
  return
}

// -----

// --- types of every value: static shapes ------------------------------------------------------

func.func @dynamic_shape_result(%x: f32) {
  // expected-error@+1 {{'tile.splat' op tensor<?xf32>: tensors of tile programs have static shapes}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<?xf32>
  return
}

// -----

// Function arguments are the entry block's arguments: the func.func op is reported.
// expected-error@+1 {{'func.func' op tensor<?x16xf32>: tensors of tile programs have static shapes}}
func.func @dynamic_shape_argument(%x: tensor<?x16xf32>) {
  return
}

// -----

// Dimensions are powers of two, as the language's blocks are (default layouts halve them; the
// fuzzer's 8x3 block reached convert-tile-to-tilegpu's layout builder and raised there).
func.func @dimension_not_a_power_of_two(%x: f32) {
  // expected-error@+1 {{'tile.splat' op tensor<8x3xf32>: a tensor's dimensions are powers of two}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<8x3xf32>
  return
}

// -----

// --- types of every value: layouts that fit the tensor and the module ---------------------------

func.func @layout_rank(%x: f32) {
  // expected-error@+1 {{'tile.splat' op layout #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]> has rank 2, the tensor 1}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64xf32, #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]>>
  return
}

// -----

// A slice removes one dimension of its parent: a slice of a 2-D layout is 1-D.
func.func @slice_layout_rank(%x: f32) {
  // expected-error@+1 {{'tile.splat' op layout #tilegpu.slice<0 : i32, #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]>> has rank 1, the tensor 2}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x64xf32, #tilegpu.slice<0 : i32, #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]>>>
  return
}

// -----

// Layouts are linear maps over index bits: their counts are powers of two.
func.func @blocked_not_power_of_two(%x: f32) {
  // expected-error@+1 {{'tile.splat' op tensor<64x64xf32, #tilegpu.blocked<[1, 1], [8, 4], [3, 1], [1, 0]>>: blocked layout warps_per_cta must be positive powers of two, got (3, 1)}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x64xf32, #tilegpu.blocked<[1, 1], [8, 4], [3, 1], [1, 0]>>
  return
}

// -----

func.func @shared_not_power_of_two(%x: tensor<64x64xf16>) {
  // expected-error@+1 {{shared layout vec, per_phase and max_phase must be positive powers of two, got (8, 1, 6)}}
  %0 = "tilegpu.local_alloc"(%x) : (tensor<64x64xf16>) -> !tilegpu.memdesc<[64, 64], f16, #tilegpu.shared<8 : i32, 1 : i32, 6 : i32, [1, 0]>, true>
  return
}

// -----

// Only mma.sync (version [2, 0]) and wgmma (version [3, 0]) accumulators exist.
func.func @mma_unknown_version(%x: f32) {
  // expected-error@+1 {{mma version must be [2, 0] (mma.sync) or [3, 0] (wgmma), got [64, 0]}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x64xf32, #tilegpu.mma<[64, 0], [4, 1], [16, 8]>>
  return
}

// -----

func.func @mma_sync_instr_shape(%x: f32) {
  // expected-error@+1 {{mma version [2, 0] has instr_shape [16, 8] ([1, 16, 8] for rank 3), got [16, 16]}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x64xf32, #tilegpu.mma<[2, 0], [4, 1], [16, 16]>>
  return
}

// -----

// A batched dot's mma.sync layout is of rank 3 ([batch, M, N]); wgmma's are of rank 2 only.
func.func @mma_rank_3(%x: f32) {
  %0 = "tile.splat"(%x) : (f32) -> tensor<2x64x64xf32, #tilegpu.mma<[2, 0], [2, 2, 1], [1, 16, 8]>>
  // expected-error@+1 {{mma layouts are of rank 2 (or 3 for version [2, 0]), got warps_per_cta (1, 4, 1)}}
  %1 = "tile.splat"(%x) : (f32) -> tensor<2x64x64xf32, #tilegpu.mma<[3, 0], [1, 4, 1], [1, 16, 64]>>
  return
}

// -----

func.func @wgmma_instr_shape(%x: f32) {
  // expected-error@+1 {{mma version [3, 0] has instr_shape [16, N], N a power of two from 8 to 256, got [16, 96]}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x128xf32, #tilegpu.mma<[3, 0], [4, 1], [16, 96]>>
  return
}

// -----

func.func @wgmma_warpgroups(%x: f32) {
  // expected-error@+1 {{mma version [3, 0] stacks warpgroups of 4 warps along M, got warps_per_cta [2, 2]}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x64xf32, #tilegpu.mma<[3, 0], [2, 2], [16, 64]>>
  return
}

// -----

func.func @dot_operand_k_width(%x: f32) {
  // expected-error@+1 {{dot operand k_width must be positive powers of two, got (3,)}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x64xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[2, 0], [4, 1], [16, 8]>, 3 : i32>>
  return
}

// -----

// 8 warps in a module of 4.
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @blocked_8_warps(%x: f32) {
  // expected-error@+1 {{'tile.splat' op layout #tilegpu.blocked<[1, 1], [4, 8], [8, 1], [1, 0]> spans 8 warps; the module has 4}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x64xf32, #tilegpu.blocked<[1, 1], [4, 8], [8, 1], [1, 0]>>
  return
}
}

// -----

// threads_per_warp [4, 4]: 16 lanes, the module's warps have 32.
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @blocked_16_lanes(%x: f32) {
  // expected-error@+1 {{'tile.splat' op layout #tilegpu.blocked<[1, 1], [4, 4], [4, 1], [1, 0]> has 16 lanes a warp; the module's warps have 32}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x64xf32, #tilegpu.blocked<[1, 1], [4, 4], [4, 1], [1, 0]>>
  return
}
}

// -----

// The parent of a slice is checked too.
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @slice_of_8_warps() {
  // expected-error@+1 {{'tile.make_range' op layout #tilegpu.blocked<[1, 1], [4, 8], [8, 1], [1, 0]> spans 8 warps; the module has 4}}
  %0 = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32, #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 1], [4, 8], [8, 1], [1, 0]>>>
  return
}
}

// -----

// An mma layout of 2 x 4 = 8 warps in a module of 4.
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @mma_warps(%x: tensor<64x64xf32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) {
  // expected-error@+1 {{'tilegpu.convert_layout' op layout #tilegpu.mma<[2, 0], [2, 4], [16, 8]> spans 8 warps; the module has 4}}
  %0 = "tilegpu.convert_layout"(%x) : (tensor<64x64xf32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 4], [16, 8]>>
  return
}
}

// -----

// The same through a dot_operand layout: its parent's warps count.
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
func.func @dot_operand_of_8_warps(%x: tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) {
  // expected-error@+1 {{'tilegpu.convert_layout' op layout #tilegpu.mma<[2, 0], [4, 2], [16, 8]> spans 8 warps; the module has 4}}
  %0 = "tilegpu.convert_layout"(%x) : (tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[2, 0], [4, 2], [16, 8]>, 2 : i32>>
  return
}
}

// -----

// A shared-memory layout is a memdesc's encoding, never a register tensor's.
func.func @shared_layout_on_tensor(%x: f16) {
  // expected-error@+1 {{'tile.splat' op #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]> is a shared-memory layout, not one of registers}}
  %0 = "tile.splat"(%x) : (f16) -> tensor<64x32xf16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>>
  return
}

// -----

// expected-error@+1 {{'func.func' op #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]> is a shared-memory layout, not one of registers}}
func.func @slice_of_nvmma_shared(%x: tensor<64xf16, #tilegpu.slice<0 : i32, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>>>) {
  return
}

// -----

// Layouts that cannot be read back (inconsistent parameters) or are not tilegpu layouts.
func.func @blocked_fields_differ_in_rank(%x: f32) {
  // expected-error@+1 {{'tile.splat' op tensor<64xf32, #tilegpu.blocked<[1], [32, 1], [4], [0]>>: blocked layout fields differ in rank}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64xf32, #tilegpu.blocked<[1], [32, 1], [4], [0]>>
  return
}

// -----

func.func @slice_dim_out_of_range(%x: f32) {
  // expected-error@+1 {{'tile.splat' op tensor<64xf32, #tilegpu.slice<2 : i32, #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]>>>: slice dim 2 is out of range for a parent of rank 2}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64xf32, #tilegpu.slice<2 : i32, #tilegpu.blocked<[1, 1], [8, 4], [4, 1], [1, 0]>>>
  return
}

// -----

func.func @not_a_layout(%x: f32) {
  // expected-error@+1 {{'tile.splat' op tensor<64xf32, "rows">: '"rows"' is not a tilegpu layout}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64xf32, "rows">
  return
}

// -----

// --- types of every value: memdescs ------------------------------------------------------------

func.func @memdesc_zero_dimension() {
  // expected-error@+1 {{'tilegpu.local_alloc' op !tilegpu.memdesc<[0, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>: a buffer's dimensions must be positive}}
  %0 = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[0, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
  return
}

// -----

// A buffer's bytes are an i32 (tilegpu.bytes, tilegpu.offset): the fuzzer's seed 500 made a
// [2147483647, 64, 32] ring whose size wrapped to -4096 in tilegpu-allocate-shared-memory.
func.func @memdesc_too_large() {
  // expected-error@+1 {{'tilegpu.local_alloc' op !tilegpu.memdesc<[2147483647, 64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>: a buffer of 8796093018112 bytes; tilec places buffers of at most 2^31 - 1 bytes (a GPU has at most 228 KiB per block)}}
  %0 = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2147483647, 64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
  return
}

// -----

// A buffer has its layout's rank, or one (leading, multi-buffering) dimension more.
func.func @memdesc_rank() {
  // expected-error@+1 {{'tilegpu.local_alloc' op !tilegpu.memdesc<[2, 3, 64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>: memdesc shape (2, 3, 64, 32) does not fit a layout of rank 2}}
  %0 = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2, 3, 64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
  return
}

// -----

// --- region nesting ----------------------------------------------------------------------------

// 130 nested scf.if: the first op more than 128 region levels deep (the module's, the function's,
// then 127 scf.if regions) is the 128th scf.if; nothing inside it is looked at.
func.func @nested(%c: i1) {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
scf.if %c {
// expected-error@+1 {{regions nest more than 128 deep here; tilec handles at most that}}
scf.if %c {
scf.if %c {
scf.if %c {
"tile.print"() {hex = false, prefix = "deep"} : () -> ()
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
return
}

// -----

// Inputs that once crashed the rules or slipped through them.
func.func @wide() {
  // expected-error@+1 {{axis is a 128-bit integer; at most 64 bits}}
  %0 = "tile.program_id"() {axis = 1180591620717411303424 : i128} : () -> i32
  return
}

// -----

// A pointer to an index (found by the fuzzer: a masked load through it crashed the lowering,
// which has no zero of that type to fill with).
// expected-error@+1 {{!tile.ptr<index, 1 : i32>: a pointer points to an integer, a float or a pointer, not index}}
func.func @pointer_to_index(%p: !tile.ptr<index, 1 : i32>) {
  return
}

// -----

func.func @pointee_not_a_type(%p: !tile.ptr<3 : i32, 1 : i32>, %o: i32) {
  // expected-error@+1 {{the pointee of !tile.ptr<3 : i32, 1 : i32> is not a type}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<3 : i32, 1 : i32>, i32) -> !tile.ptr<3 : i32, 1 : i32>
  return
}

// -----

// expected-error@+1 {{tilegpu.num_warps must be an integer, got "4"}}
module attributes {tilegpu.num_warps = "4"} {
  func.func @h() {
    return
  }
}

// -----

// A kernel split among 2 CTAs (tile-split-ctas) in a module whose programs are one CTA: each
// CTA would compute half the rows and nothing the other half.
module attributes {tilegpu.num_warps = 4 : i32} {
  // expected-error@+1 {{'func.func' op shares its rows out among 2 CTAs (tile.split_ctas) but the module's programs have 1 (tilegpu.num_ctas)}}
  func.func @split_in_one_cta() attributes {tile.kernel, tile.split_ctas = 2 : i32} {
    return
  }
}

// -----

// A thread block cluster has 1, 2, 4 or 8 CTAs.
// expected-error@+1 {{tilegpu.num_ctas must be a power of two from 1 to 8, got 3}}
module attributes {tilegpu.num_ctas = 3 : i32} {
  func.func @three_ctas() {
    return
  }
}

// -----

// expected-error@+1 {{tensor<*xf32>: tensors of tile programs have static shapes}}
func.func @unranked(%x: tensor<*xf32>) {
  return
}

// -----

// expected-error@+1 {{a buffer's layout is a shared-memory one, not #tilegpu.blocked}}
func.func @memdesc_in_registers(%d: !tilegpu.memdesc<[64], f16, #tilegpu.blocked<[1], [32], [4], [0]>, true>) {
  return
}

// -----

func.func @reduce_results(%v: tensor<32x64xf32>, %i: tensor<32x64xi32>) {
  // expected-error@+1 {{1 results for 2 operands: one result per operand}}
  %m = "tile.reduce"(%v, %i) ({
  ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
    gpu.yield %v0, %i0 : f32, i32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x64xf32>, tensor<32x64xi32>) -> tensor<32xf32>
  return
}

// -----

func.func @reduce_yield(%v: tensor<32x64xf32>) {
  // expected-error@+1 {{the combine block must end with gpu.yield of (f32)}}
  %m = "tile.reduce"(%v) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 0 : i32
    gpu.yield %c : i32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x64xf32>) -> tensor<32xf32>
  return
}

// -----

// expected-error@+1 {{tensor<?xf32>: tensors of tile programs have static shapes}}
func.func private @declaration(tensor<?xf32>) -> tensor<4xf32>

// -----

// MLIR's parser aborts on a dense array of index (an assertion, no bit width): refused first.
func.func @index_array(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{a dense array cannot hold 'index' elements: use array<i32: ...> or array<i64: ...>}}
  %0 = "tile.trans"(%x) {order = array<index: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

// A dense array of unsigned (or explicitly signed) integers parses, but the Python bindings
// cannot read it back (a lookup raises, walking the op's attributes aborts: the fuzzer's seed
// 1700, on tilec.tensormaps and on an axis hint): refused first.
func.func @unsigned_array(%x: i32 {tile.divisibility = array<ui32: 16>}) {
  // expected-error@-1 {{a dense array cannot hold 'ui32' elements: use array<i32: ...> or array<i64: ...>}}
  return
}

// -----

// MLIR's parser aborts on a generic op named without a dialect prefix: refused first. A name
// location ("name"(...) inside loc) is not taken for one.
func.func @op_name_without_dialect(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{"scf" is not an operation name: operations are named 'dialect.operation'}}
  "scf"() : () -> ()
  return loc("here"("file.py":1:2))
}

// -----

// MLIR's parser aborts on a struct position of 2^32 or more (it checks it truncated to 32 bits).
func.func @struct_position(%s: !llvm.struct<(f32, f32)>) {
  // expected-error@+1 {{struct position 4294967296 is out of bounds}}
  %0 = llvm.extractvalue %s[4294967296] : !llvm.struct<(f32, f32)>
  return
}

// -----

// MLIR's nvvm.mma.sync verifier aborts on an MMA shape with a negative n or k (it sizes a
// vector by it): refused first, as any negative dimension.
func.func @mma_shape_negative(%h: vector<2xf16>, %acc: f32) {
  // expected-error@+1 {{MMA shape <16, 8, -16> has a negative dimension}}
  %d = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%acc, %acc, %acc, %acc] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = -16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  return
}

// -----

// The module's target is one passes can read (it was an internal error in a pass).
// expected-error@+1 {{'builtin.module' op tilegpu.target must be cuda:<compute capability>, 70 or later (cuda:80, cuda:90), got "cuda:-0.0"}}
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "cuda:-0.0"} {
}

// -----

// A module's warps are what convert-tile-to-tilegpu can make (2^31 - 1 warps overflowed the
// block size in convert-tilegpu-to-llvm: an internal error).
// expected-error@+1 {{'builtin.module' op tilegpu.num_warps must be a power of two from 1 to 32, got 2147483647}}
module attributes {tilegpu.num_warps = 2147483647 : i32, tilegpu.threads_per_warp = 32 : i32} {
}

// -----

// expected-error@+1 {{'builtin.module' op tilegpu.threads_per_warp must be a power of two from 1 to 64, got 0}}
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 0 : i32} {
}

// -----

// A buffer placed by tilegpu-allocate-shared-memory has an offset and a size (tilegpu-membar
// read the size of one that had only an offset: an internal error).
func.func @offset_without_bytes() {
  // expected-error@+1 {{'tilegpu.local_alloc' op has tilegpu.offset without tilegpu.bytes: shared memory is placed with both}}
  %0 = "tilegpu.local_alloc"() {tilegpu.offset = 0 : i32} : () -> !tilegpu.memdesc<[64], f32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
  return
}

// -----

func.func @negative_offset() {
  // expected-error@+1 {{'tilegpu.local_alloc' op tilegpu.offset must be from 0 to 2^31 - 1, got -64}}
  %0 = "tilegpu.local_alloc"() {tilegpu.offset = -64 : i32, tilegpu.bytes = 256 : i32} : () -> !tilegpu.memdesc<[64], f32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
  return
}

// -----

// A pointer's address space is an i32 (`1 : i1` reached the LLVM lowering as !llvm.ptr<True>).
// expected-error@+1 {{'func.func' op !tile.ptr<f32, true>: a pointer's address space is an i32 from 0 to 2^24 - 1, not true}}
func.func @address_space_of_i1(%p: !tile.ptr<f32, 1 : i1>) {
  return
}

// -----

// A warp specialisation whose warpgroups would ask for more registers than an SM has: 8
// consumer warps at 240 and 4 producer warps at 40 need 66,560 of 65,536 (setmaxnreg.inc
// would wait forever).
module attributes {tilegpu.num_warps = 8 : i32} {
func.func @over_asking() {
  // expected-error@+1 {{need 66560 registers; an SM has 65536}}
  "tilegpu.warp_specialize"() ({
    gpu.yield
  }, {
    gpu.yield
  }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 240 : i32} : () -> ()
  return
}
}

// -----

// Register counts setmaxnreg cannot take, and producers that are not whole warpgroups.
func.func @odd_registers() {
  // expected-error@+1 {{producer_registers must be a multiple of 8 from 24 to 256, got 36}}
  "tilegpu.warp_specialize"() ({
    gpu.yield
  }, {
    gpu.yield
  }) {producer_warps = 4 : i32, producer_registers = 36 : i32, consumer_registers = 232 : i32} : () -> ()
  return
}

// -----

func.func @two_producer_warps() {
  // expected-error@+1 {{producer_warps must be whole warpgroups of 4, got 2}}
  "tilegpu.warp_specialize"() ({
    gpu.yield
  }, {
    gpu.yield
  }) {producer_warps = 2 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
  return
}

// -----

// Both regions end the kernel: the split is the last op before the return.
func.func @not_last(%x: i32) -> i32 {
  // expected-error@+1 {{must be the last op of its kernel before the return}}
  "tilegpu.warp_specialize"() ({
    gpu.yield
  }, {
    gpu.yield
  }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
  %y = arith.addi %x, %x : i32
  return %y : i32
}

// -----

// Each side is one block ending with gpu.yield (found by the fuzzer: an empty consumer region
// crashed tilegpu-membar).
func.func @empty_side() {
  // expected-error@+1 {{each region must be one block ending with gpu.yield}}
  "tilegpu.warp_specialize"() ({
    gpu.yield
  }, {
  }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
  return
}

// -----

// Consumer warpgroups take turns (tilegpu-ping-pong) in the consumer region only: not in the
// producer's, nor outside a warp specialisation.
module attributes {tilegpu.num_warps = 8 : i32} {
func.func @turn_of_the_producer() {
  "tilegpu.warp_specialize"() ({
    // expected-error@+1 {{must be in the consumer region of a tilegpu.warp_specialize}}
    "tilegpu.warpgroup_turn_wait"() {warpgroup = -1 : i32} : () -> ()
    gpu.yield
  }, {
    gpu.yield
  }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
  return
}
}

// -----

module attributes {tilegpu.num_warps = 8 : i32} {
func.func @turn_unspecialised() {
  // expected-error@+1 {{must be in the consumer region of a tilegpu.warp_specialize}}
  "tilegpu.warpgroup_turn_pass"() {warpgroup = -1 : i32} : () -> ()
  return
}
}

// -----

// Turns need two consumer warpgroups, and name one of them (or -1, every one).
module attributes {tilegpu.num_warps = 4 : i32} {
func.func @turn_alone() {
  "tilegpu.warp_specialize"() ({
    gpu.yield
  }, {
    // expected-error@+1 {{turns need two or more consumer warpgroups, the module has 1}}
    "tilegpu.warpgroup_turn_wait"() {warpgroup = -1 : i32} : () -> ()
    gpu.yield
  }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 256 : i32} : () -> ()
  return
}
}

// -----

module attributes {tilegpu.num_warps = 8 : i32} {
func.func @turn_of_no_warpgroup(%n: index) {
  "tilegpu.warp_specialize"() ({
    gpu.yield
  }, {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error@+1 {{warpgroup must be -1 or below 2, got 2}}
      "tilegpu.warpgroup_turn_pass"() {warpgroup = 2 : i32} : () -> ()
    }
    gpu.yield
  }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32} : () -> ()
  return
}
}

// -----

// An arrival is on one barrier.
func.func @arrive_two(%bar: !tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  // expected-error@+1 {{waits on one barrier, got a buffer of 2}}
  "tilegpu.arrive_barrier"(%bar) : (!tilegpu.memdesc<[2], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  return
}

// -----

// A map made in the kernel describes a 2-D tensor: two sizes and one stride.
func.func @make_tensormap_rank(%s: !tile.ptr<i8, 1 : i32>, %p: !tile.ptr<f16, 1 : i32>, %n: i64) {
  // expected-error@+1 {{'tile.make_tensormap' op a map of a 2-D tensor takes 2 dims and 1 stride, got 3 and 2}}
  %map = "tile.make_tensormap"(%s, %p, %n, %n, %n, %n, %n) {box = array<i32: 64, 64>, swizzle = 128 : i32, slot = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 3, 2>} : (!tile.ptr<i8, 1 : i32>, !tile.ptr<f16, 1 : i32>, i64, i64, i64, i64, i64) -> !llvm.ptr
  return
}

// -----

// Its box's fastest dimension is one swizzle span (one copy a column block).
func.func @make_tensormap_box(%s: !tile.ptr<i8, 1 : i32>, %p: !tile.ptr<f16, 1 : i32>, %n: i64) {
  // expected-error@+1 {{'tile.make_tensormap' op the box's fastest dimension (32 x f16) must span the 128-byte swizzle}}
  %map = "tile.make_tensormap"(%s, %p, %n, %n, %n) {box = array<i32: 64, 32>, swizzle = 128 : i32, slot = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (!tile.ptr<i8, 1 : i32>, !tile.ptr<f16, 1 : i32>, i64, i64, i64) -> !llvm.ptr
  return
}

// -----

// TMA moves 8-, 16- and 32-bit elements.
func.func @make_tensormap_element(%s: !tile.ptr<i8, 1 : i32>, %p: !tile.ptr<f64, 1 : i32>, %n: i64) {
  // expected-error@+1 {{'tile.make_tensormap' op base must be a scalar pointer to 8-, 16- or 32-bit elements, got !tile.ptr<f64, 1 : i32>}}
  %map = "tile.make_tensormap"(%s, %p, %n, %n, %n) {box = array<i32: 64, 16>, swizzle = 128 : i32, slot = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (!tile.ptr<i8, 1 : i32>, !tile.ptr<f64, 1 : i32>, i64, i64, i64) -> !llvm.ptr
  return
}

// -----

// The scratch is global bytes.
func.func @make_tensormap_scratch(%s: !tile.ptr<f32, 1 : i32>, %p: !tile.ptr<f16, 1 : i32>, %n: i64) {
  // expected-error@+1 {{'tile.make_tensormap' op scratch must be a scalar !tile.ptr<i8, 1 : i32>, got !tile.ptr<f32, 1 : i32>}}
  %map = "tile.make_tensormap"(%s, %p, %n, %n, %n) {box = array<i32: 64, 64>, swizzle = 128 : i32, slot = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (!tile.ptr<f32, 1 : i32>, !tile.ptr<f16, 1 : i32>, i64, i64, i64) -> !llvm.ptr
  return
}

// -----

// TMA reductions add, take the minimum or maximum, and, or or xor (the kinds desc.atomic_<kind>
// makes; PTX's inc and dec have no desc.atomic_ of their own).
func.func @tma_reduce_kind(%map: !llvm.ptr, %x: tensor<64x32xi32>, %o: i32) {
  // expected-error@+1 {{'tile.tma_reduce' op kind must be one of ['add', 'min', 'max', 'and', 'or', 'xor'], got 'inc'}}
  "tile.tma_reduce"(%map, %x, %o, %o) {swizzle = 128 : i32, kind = "inc"} : (!llvm.ptr, tensor<64x32xi32>, i32, i32) -> ()
  return
}

// -----

// TMA takes no f32 minima.
func.func @tma_reduce_min_element(%map: !llvm.ptr, %x: tensor<64x32xf32>, %o: i32) {
  // expected-error@+1 {{'tile.tma_reduce' op a TMA min takes f16, bf16, i32 elements, got f32}}
  "tile.tma_reduce"(%map, %x, %o, %o) {swizzle = 128 : i32, kind = "min"} : (!llvm.ptr, tensor<64x32xf32>, i32, i32) -> ()
  return
}

// -----

// TMA's bitwise reductions take 32-bit integers only.
func.func @tma_reduce_xor_element(%map: !llvm.ptr, %x: tensor<64x64xf16>, %o: i32) {
  // expected-error@+1 {{'tile.tma_reduce' op a TMA xor takes i32 elements, got f16}}
  "tile.tma_reduce"(%map, %x, %o, %o) {swizzle = 128 : i32, kind = "xor"} : (!llvm.ptr, tensor<64x64xf16>, i32, i32) -> ()
  return
}

// -----

// TMA adds f16, bf16, f32 and 32-bit integers.
func.func @tma_reduce_element(%map: !llvm.ptr, %x: tensor<64x128xi8>, %o: i32) {
  // expected-error@+1 {{'tile.tma_reduce' op a TMA add takes f16, bf16, f32, i32 elements, got i8}}
  "tile.tma_reduce"(%map, %x, %o, %o) {swizzle = 128 : i32, kind = "add"} : (!llvm.ptr, tensor<64x128xi8>, i32, i32) -> ()
  return
}

// -----

// tl.range's pipelining depth: 0 to 32 stages (a deeper one would build a ring of that many
// tiles: 2^31 of them hung tilegpu-pipeline).
func.func @num_stages_out_of_range(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'scf.for' op tile.num_stages must be an integer from 0 to 32, got 2147483647 : i32}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.num_stages = 2147483647 : i32}
  return
}

// -----

// tl.range's warp_specialize: 0 (forbidden) or 1 (asked for), an integer.
func.func @warp_specialize_not_0_or_1(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'scf.for' op tile.warp_specialize must be an integer from 0 to 1, got true}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.warp_specialize = true}
  return
}
