// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: per-element values and layout changes that stay inside a thread
// (python/tilec/lowering/elementwise.py).

// expand_dims and broadcast keep every element in its thread: in
// #blocked<[1, 4], [32, 1], [4, 1], [1, 0]> over 128x4, a thread holds row t and all 4 columns,
// so the row range (slice 1) expanded and broadcast is one value in all 4 registers, and the
// column range (slice 0) the constants 0..3: offsets 4 x row + column take no shared memory
// and no barrier, and the 4 contiguous elements store as one vector. 4 x row is constant along
// the columns (the axis analysis's constancy 4 there), so its one register value serves all 4.
// CHECK: module attributes {gpu.container_module
// CHECK-SAME: tilegpu.shared_bytes = 0 : i32
// CHECK-LABEL: gpu.func @outer_offsets
// CHECK-NOT: gpu.barrier
// CHECK: [[ROW:%.*]] = arith.addi {{%.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK: [[C4:%.*]] = arith.constant 4 : i32
// CHECK-NEXT: [[R0:%.*]] = arith.muli [[ROW]], [[C4]] : i32
// CHECK-NOT: arith.muli
// CHECK-NEXT: arith.addi [[R0]], %c0_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R0]], %c1_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R0]], %c2_i32{{[_0-9]*}} : i32
// CHECK-NEXT: arith.addi [[R0]], %c3_i32{{[_0-9]*}} : i32
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store {{%.*}}, {{%.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NEXT: gpu.return
#p = #tilegpu.blocked<[1, 4], [32, 1], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @outer_offsets(%out: !tile.ptr<i32, 1 : i32> {tile.divisibility = 16 : i32}) {
    %rows = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #tilegpu.slice<1 : i32, #p>>
    %cols = "tile.make_range"() {end = 4 : i32, start = 0 : i32} : () -> tensor<4xi32, #tilegpu.slice<0 : i32, #p>>
    %r2 = "tile.expand_dims"(%rows) {axis = 1 : i32} : (tensor<128xi32, #tilegpu.slice<1 : i32, #p>>) -> tensor<128x1xi32, #p>
    %c2 = "tile.expand_dims"(%cols) {axis = 0 : i32} : (tensor<4xi32, #tilegpu.slice<0 : i32, #p>>) -> tensor<1x4xi32, #p>
    %rb = "tile.broadcast"(%r2) : (tensor<128x1xi32, #p>) -> tensor<128x4xi32, #p>
    %cb = "tile.broadcast"(%c2) : (tensor<1x4xi32, #p>) -> tensor<128x4xi32, #p>
    %c4 = arith.constant dense<4> : tensor<128x4xi32, #p>
    %rs = arith.muli %rb, %c4 : tensor<128x4xi32, #p>
    %offs = arith.addi %rs, %cb : tensor<128x4xi32, #p>
    %ps = "tile.splat"(%out) : (!tile.ptr<i32, 1 : i32>) -> tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>
    %pp = "tile.addptr"(%ps, %offs) : (tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>, tensor<128x4xi32, #p>) -> tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>
    "tile.store"(%pp, %offs) {cache = "none", evict = "evict_normal"} : (tensor<128x4x!tile.ptr<i32, 1 : i32>, #p>, tensor<128x4xi32, #p>) -> ()
    return
  }
}

// -----

// tile.fp_to_fp rounding toward zero, f32 to f16: the thread's two registers go through one
// packed cvt.rz.f16x2.f32 (nvvm.convert.f32x2.to.f16x2 with rnd = rz). Its first operand lands
// in the upper half, element 1: register 1 (element t + 128) is passed first, register 0 second,
// and element 0 is stored at register 0's address.
// CHECK-LABEL: gpu.func @rtz_f32_to_f16
// CHECK: [[C128:%.*]] = arith.constant 128 : i32
// CHECK-NEXT: [[I1:%.*]] = arith.addi {{%.*}}, [[C128]] : i32
// CHECK: [[R0:%.*]] = arith.addf {{%.*}}, {{%.*}} : f32
// CHECK-NEXT: [[R1:%.*]] = arith.addf {{%.*}}, {{%.*}} : f32
// CHECK-NEXT: [[PAIR:%.*]] = nvvm.convert.f32x2.to.f16x2 [[R1]], [[R0]] {rnd = #nvvm.fp_rnd_mode<rz>} : vector<2xf16>
// CHECK-NEXT: [[E0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[H0:%.*]] = llvm.extractelement [[PAIR]]{{\[}}[[E0]] : i32] : vector<2xf16>
// CHECK-NEXT: [[E1:%.*]] = arith.constant 1 : i32
// CHECK-NEXT: [[H1:%.*]] = llvm.extractelement [[PAIR]]{{\[}}[[E1]] : i32] : vector<2xf16>
// CHECK-NEXT: [[P0:%.*]] = llvm.getelementptr {{%.*}}{{\[}}[[I0:%.*]]{{\]}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f16
// CHECK-NEXT: [[P1:%.*]] = llvm.getelementptr {{%.*}}{{\[}}[[I1]]{{\]}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f16
// CHECK-NEXT: llvm.store [[H0]], [[P0]] {alignment = 2 : i64} : f16, !llvm.ptr<1>
// CHECK-NEXT: llvm.store [[H1]], [[P1]] {alignment = 2 : i64} : f16, !llvm.ptr<1>
// CHECK-NOT: tile.fp_to_fp
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @rtz_f32_to_f16(%x: f32, %out: !tile.ptr<f16, 1 : i32>) {
    %r = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %s = "tile.splat"(%x) : (f32) -> tensor<256xf32, #b>
    %t = arith.addf %s, %s : tensor<256xf32, #b>
    %h = "tile.fp_to_fp"(%t) {rounding = "rtz"} : (tensor<256xf32, #b>) -> tensor<256xf16, #b>
    %ps = "tile.splat"(%out) : (!tile.ptr<f16, 1 : i32>) -> tensor<256x!tile.ptr<f16, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %r) : (tensor<256x!tile.ptr<f16, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f16, 1 : i32>, #b>
    "tile.store"(%pp, %h) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f16, 1 : i32>, #b>, tensor<256xf16, #b>) -> ()
    return
  }
}

// -----

// Toward zero to bf16 through cvt.rz.bf16x2.f32, here for a scalar: one value, so both halves
// convert it and element 0 is kept. From f64, first llvm.nvvm.d2f.rz (cvt.rz.f32.f64) then the
// packed conversion: truncating twice is truncating once. f64 to f32 is the first step alone.
// CHECK-LABEL: gpu.func @rtz_scalars
// CHECK-SAME: ([[X:%[^:]*]]: f32, [[D:%[^:]*]]: f64,
// CHECK: [[PAIR:%.*]] = nvvm.convert.f32x2.to.bf16x2 [[X]], [[X]] {rnd = #nvvm.fp_rnd_mode<rz>} : vector<2xbf16>
// CHECK-NEXT: [[E0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[B:%.*]] = llvm.extractelement [[PAIR]]{{\[}}[[E0]] : i32] : vector<2xbf16>
// CHECK-NOT: llvm.extractelement
// CHECK: [[F:%.*]] = llvm.call_intrinsic "llvm.nvvm.d2f.rz"([[D]]) : (f64) -> f32
// CHECK-NEXT: [[HPAIR:%.*]] = nvvm.convert.f32x2.to.f16x2 [[F]], [[F]] {rnd = #nvvm.fp_rnd_mode<rz>} : vector<2xf16>
// CHECK-NEXT: {{%.*}} = arith.constant 0 : i32
// CHECK-NEXT: [[H:%.*]] = llvm.extractelement [[HPAIR]]
// CHECK: [[F2:%.*]] = llvm.call_intrinsic "llvm.nvvm.d2f.rz"([[D]]) : (f64) -> f32
// CHECK-NOT: nvvm.convert
// CHECK: [[BB:%.*]] = llvm.bitcast [[B]] : bf16 to i16
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$0 st.global.b16 [$1], $2;", "b,l,h" {{%.*}}, {{%.*}}, [[BB]]
// CHECK: [[HB:%.*]] = llvm.bitcast [[H]] : f16 to i16
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$0 st.global.b16 [$1], $2;", "b,l,h" {{%.*}}, {{%.*}}, [[HB]]
// CHECK: [[FB:%.*]] = llvm.bitcast [[F2]] : f32 to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" {{%.*}}, {{%.*}}, [[FB]]
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @rtz_scalars(%x: f32, %d: f64, %pb: !tile.ptr<bf16, 1 : i32>, %ph: !tile.ptr<f16, 1 : i32>, %pf: !tile.ptr<f32, 1 : i32>) {
    %b = "tile.fp_to_fp"(%x) {rounding = "rtz"} : (f32) -> bf16
    %h = "tile.fp_to_fp"(%d) {rounding = "rtz"} : (f64) -> f16
    %f = "tile.fp_to_fp"(%d) {rounding = "rtz"} : (f64) -> f32
    "tile.store"(%pb, %b) {cache = "none", evict = "evict_normal"} : (!tile.ptr<bf16, 1 : i32>, bf16) -> ()
    "tile.store"(%ph, %h) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f16, 1 : i32>, f16) -> ()
    "tile.store"(%pf, %f) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
    return
  }
}

// -----

// Rounding to nearest even ("rtne") is what arith.truncf does, and a widening ("none") is exact:
// arith.truncf and arith.extf per register, no cvt.rz.
// CHECK-LABEL: gpu.func @rtne_and_widening
// CHECK-NOT: nvvm.convert
// CHECK: [[T0:%.*]] = arith.truncf {{%.*}} : f32 to bf16
// CHECK-NEXT: [[T1:%.*]] = arith.truncf {{%.*}} : f32 to bf16
// CHECK-NEXT: [[W0:%.*]] = arith.extf [[T0]] : bf16 to f32
// CHECK-NEXT: [[W1:%.*]] = arith.extf [[T1]] : bf16 to f32
// CHECK-NOT: nvvm.convert
// CHECK: gpu.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @rtne_and_widening(%x: f32, %out: !tile.ptr<f32, 1 : i32>) {
    %r = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %s = "tile.splat"(%x) : (f32) -> tensor<256xf32, #b>
    %t = arith.addf %s, %s : tensor<256xf32, #b>
    %n = "tile.fp_to_fp"(%t) {rounding = "rtne"} : (tensor<256xf32, #b>) -> tensor<256xbf16, #b>
    %w = "tile.fp_to_fp"(%n) {rounding = "none"} : (tensor<256xbf16, #b>) -> tensor<256xf32, #b>
    %ps = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %r) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%pp, %w) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xf32, #b>) -> ()
    return
  }
}

// -----

// A mask `rows[:, None] < n` with n divisible by 16 (the K mask of a matmul's B tile): aligned
// blocks of 16 rows compare alike (the axis analysis's constancy 16 along rows). In
// #blocked<[1, 8], [2, 16], [4, 1], [1, 0]> over 64x128 a thread holds rows r0 + 8j (j < 8,
// r0 < 8), so rows r0 + 16i and r0 + 16i + 8 share a block: 4 comparisons serve its 8 row
// registers (and each row's 8 columns).
// CHECK-LABEL: gpu.func @mask_per_block
// CHECK-COUNT-4: arith.cmpi slt
// CHECK-NOT: arith.cmpi
#p = #tilegpu.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @mask_per_block(%out: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %rows = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #tilegpu.slice<1 : i32, #p>>
    %r2 = "tile.expand_dims"(%rows) {axis = 1 : i32} : (tensor<64xi32, #tilegpu.slice<1 : i32, #p>>) -> tensor<64x1xi32, #p>
    %rb = "tile.broadcast"(%r2) : (tensor<64x1xi32, #p>) -> tensor<64x128xi32, #p>
    %nb = "tile.splat"(%n) : (i32) -> tensor<64x128xi32, #p>
    %m = arith.cmpi slt, %rb, %nb : tensor<64x128xi32, #p>
    %ps = "tile.splat"(%out) : (!tile.ptr<f16, 1 : i32>) -> tensor<64x128x!tile.ptr<f16, 1 : i32>, #p>
    %v = arith.constant dense<1.0> : tensor<64x128xf16, #p>
    "tile.store"(%ps, %v, %m) {cache = "none", evict = "evict_normal"} : (tensor<64x128x!tile.ptr<f16, 1 : i32>, #p>, tensor<64x128xf16, #p>, tensor<64x128xi1, #p>) -> ()
    return
  }
}

// -----

// fp32 exp2 is one ex2.approx.ftz.f32 per register (the NVVM intrinsic, as Triton's tl.exp2):
// results below 2^-126 flush to zero instead of taking ptxas' denormal fix-up. An fp16 exp2
// keeps the generic math.exp2.
// CHECK-LABEL: gpu.func @exp2_ftz
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"({{%.*}}) : (f32) -> f32
// CHECK-NOT: llvm.call_intrinsic
// CHECK: math.exp2 {{%.*}} : f16
#b = #tilegpu.blocked<[2], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @exp2_ftz(%p: !tile.ptr<f32, 1 : i32>, %q: !tile.ptr<f16, 1 : i32>) {
    %r = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %x = arith.sitofp %r : tensor<256xi32, #b> to tensor<256xf32, #b>
    %h = arith.sitofp %r : tensor<256xi32, #b> to tensor<256xf16, #b>
    %e = math.exp2 %x : tensor<256xf32, #b>
    %f = math.exp2 %h : tensor<256xf16, #b>
    %ps = "tile.splat"(%p) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %r) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %qs = "tile.splat"(%q) : (!tile.ptr<f16, 1 : i32>) -> tensor<256x!tile.ptr<f16, 1 : i32>, #b>
    %qq = "tile.addptr"(%qs, %r) : (tensor<256x!tile.ptr<f16, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f16, 1 : i32>, #b>
    "tile.store"(%pp, %e) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xf32, #b>) -> ()
    "tile.store"(%qq, %f) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f16, 1 : i32>, #b>, tensor<256xf16, #b>) -> ()
    return
  }
}

// -----

// tile.elementwise_inline_asm: each thread runs the asm on its registers `pack` at a time. 512
// int8 over 128 threads (4 per thread) with pack = 4: one asm, its 4 bytes packed into one
// 32-bit register (a vector<4xi8> bitcast to i32) and the output unpacked the same way; two
// results of 512 fp32/i32 with pack = 1: one asm per register, f32 through "f" and i32 "r".
// Not pure: kept although their results are unused.
// CHECK-LABEL: gpu.func @inline_asm
// CHECK: llvm.bitcast {{%.*}} : vector<4xi8> to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "and.b32 $0, $1, 0x1F1F1F1F;", "=r,r" {{%.*}} : (i32) -> i32
// CHECK-NEXT: llvm.bitcast {{%.*}} : i32 to vector<4xi8>
// CHECK-NOT: "and.b32
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "add.f32 $0, $2, $3; sub.s32 $1, $2, $3;", "=f,=r,f,r" {{%.*}}, {{%.*}} : (f32, i32) -> !llvm.struct<(f32, i32)>
// CHECK-NOT: llvm.inline_asm
#b = #tilegpu.blocked<[4], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @inline_asm(%b0: i8, %x0: f32, %y0: i32) {
    %b = "tile.splat"(%b0) : (i8) -> tensor<512xi8, #b>
    %x = "tile.splat"(%x0) : (f32) -> tensor<512xf32, #b>
    %y = "tile.splat"(%y0) : (i32) -> tensor<512xi32, #b>
    %m = "tile.elementwise_inline_asm"(%b) {asm = "and.b32 $0, $1, 0x1F1F1F1F;", constraints = "=r,r", operandSegmentSizes = array<i32: 1, 0, 0, 0>, pack = 4 : i32, pure = false, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512xi8, #b>) -> tensor<512xi8, #b>
    %s, %d = "tile.elementwise_inline_asm"(%x, %y) {asm = "add.f32 $0, $2, $3; sub.s32 $1, $2, $3;", constraints = "=f,=r,f,r", operandSegmentSizes = array<i32: 1, 1, 0, 0>, pack = 1 : i32, pure = false, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<512xf32, #b>, tensor<512xi32, #b>) -> (tensor<512xf32, #b>, tensor<512xi32, #b>)
    return
  }
}

// -----

// fp32 math.sqrt without `afn` (tl.sqrt_rn) is the correctly rounded NVVM intrinsic, per
// register; with `afn` (tl.sqrt) it takes the generic path, as does fp64.
// CHECK-LABEL: gpu.func @square_roots
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"({{%.*}}) : (f32) -> f32
// CHECK-NOT: llvm.call_intrinsic
// CHECK: math.sqrt {{%.*}} fastmath<afn> : f32
// CHECK: math.sqrt {{%.*}} : f64
#b = #tilegpu.blocked<[2], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @square_roots(%x0: f32, %w0: f64) {
    %x = "tile.splat"(%x0) : (f32) -> tensor<256xf32, #b>
    %rn = math.sqrt %x : tensor<256xf32, #b>
    %approx = math.sqrt %x0 fastmath<afn> : f32
    %wide = math.sqrt %w0 : f64
    return
  }
}

// -----

// math.trunc (tl.math.trunc) is LLVM's trunc intrinsic for fp32 and fp64, per register.
// CHECK-LABEL: gpu.func @truncation
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.trunc.f32"({{%.*}}) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.trunc.f64"({{%.*}}) : (f64) -> f64
#b = #tilegpu.blocked<[2], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @truncation(%x0: f32, %w0: f64) {
    %x = "tile.splat"(%x0) : (f32) -> tensor<256xf32, #b>
    %t = math.trunc %x : tensor<256xf32, #b>
    %w = math.trunc %w0 : f64
    return
  }
}
