// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// convert-tilegpu-to-llvm: fp8 values are bytes in registers and memory; conversions go
// through PTX's fp8 cvt two elements at a time (python/tilec/lowering/elementwise.py).

// e4m3 widened to f32: the thread's two bytes (register 1 in the upper byte) make one 16-bit
// word, cvt.rn.f16x2.e4m3x2 widens it to two halves (exactly), each extended to f32; the
// loads and stores are of bytes (i8), never of an f8 type LLVM does not have.
// CHECK-LABEL: gpu.func @e4m3_to_f32
// CHECK: [[B0:%.*]] = llvm.load {{%.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: [[B1:%.*]] = llvm.load {{%.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: [[LO:%.*]] = arith.extui [[B0]] : i8 to i16
// CHECK: [[HI:%.*]] = arith.extui [[B1]] : i8 to i16
// CHECK: [[SH:%.*]] = arith.shli [[HI]], {{%.*}} : i16
// CHECK: [[W:%.*]] = arith.ori [[LO]], [[SH]] : i16
// CHECK: [[H2:%.*]] = llvm.inline_asm "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h" [[W]] : (i16) -> i32
// CHECK: [[V:%.*]] = llvm.bitcast [[H2]] : i32 to vector<2xf16>
// CHECK: [[X0:%.*]] = llvm.extractelement [[V]]
// CHECK: [[X1:%.*]] = llvm.extractelement [[V]]
// A NaN byte (e4m3: its low seven bits above 0x7e) then takes torch's fp32 NaN, 0x7ff00000
// with the byte's sign (0xfff00000, -1048576: the cvt's canonical NaN has neither).
// CHECK: [[F0:%.*]] = arith.extf [[X0]] : f16 to f32
// CHECK: [[M:%.*]] = arith.andi [[B0]], %c127_i8{{.*}} : i8
// CHECK: [[NAN:%.*]] = arith.cmpi ugt, [[M]], %c126_i8{{.*}} : i8
// CHECK: [[NEG:%.*]] = arith.cmpi slt, [[B0]], %c0_i8{{.*}} : i8
// CHECK: [[BITS:%.*]] = arith.select [[NEG]], %c-1048576_i32{{.*}}, %c2146435072_i32{{.*}} : i32
// CHECK: [[Q:%.*]] = arith.bitcast [[BITS]] : i32 to f32
// CHECK: arith.select [[NAN]], [[Q]], [[F0]] : f32
// CHECK: arith.extf [[X1]] : f16 to f32
// CHECK-NOT: f8E4M3FN
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @e4m3_to_f32(%in: !tile.ptr<f8E4M3FN, 1 : i32>, %out: !tile.ptr<f32, 1 : i32>) {
    %r = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %ps = "tile.splat"(%in) : (!tile.ptr<f8E4M3FN, 1 : i32>) -> tensor<256x!tile.ptr<f8E4M3FN, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %r) : (tensor<256x!tile.ptr<f8E4M3FN, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f8E4M3FN, 1 : i32>, #b>
    %x = "tile.load"(%pp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<256x!tile.ptr<f8E4M3FN, 1 : i32>, #b>) -> tensor<256xf8E4M3FN, #b>
    %y = arith.extf %x : tensor<256xf8E4M3FN, #b> to tensor<256xf32, #b>
    %qs = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %qp = "tile.addptr"(%qs, %r) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%qp, %y) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xf32, #b>) -> ()
    return
  }
}

// -----

// f32 narrowed to e5m2: one cvt.rn.satfinite.e5m2x2.f32 for the two registers (register 1
// first: it lands in the upper byte), the bytes split out of the 16-bit result; an f16 source
// takes the packed f16x2 form; a constant is its byte (2.0 in e5m2 is 0x40 = 64), splatted.
// The cvt makes every NaN 0x7f; torch keeps a negative fp32 NaN's sign (0xff), so each value
// whose bits, unsigned, exceed negative infinity's (0xff800000, -8388608) gets 0x80 or'ed in.
// An fp16 NaN torch narrows to 0x7f whatever its sign: no such fixup there.
// CHECK-LABEL: gpu.func @f32_to_e5m2
// CHECK: [[I0:%.*]] = arith.bitcast [[X0:%.*]] : f32 to i32
// CHECK: [[N0:%.*]] = arith.cmpi ugt, [[I0]], %c-8388608_i32{{.*}} : i32
// CHECK: [[I1:%.*]] = arith.bitcast [[X1:%.*]] : f32 to i32
// CHECK: [[N1:%.*]] = arith.cmpi ugt, [[I1]], %c-8388608_i32{{.*}} : i32
// CHECK: [[W:%.*]] = llvm.inline_asm "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;", "=h,f,f" [[X1]], [[X0]] : (f32, f32) -> i16
// CHECK: [[L:%.*]] = arith.trunci [[W]] : i16 to i8
// CHECK: [[S:%.*]] = arith.shrui [[W]], {{%.*}} : i16
// CHECK: [[H:%.*]] = arith.trunci [[S]] : i16 to i8
// CHECK: [[SL:%.*]] = arith.select [[N0]], %c-128_i8{{.*}}, %c0_i8{{.*}} : i8
// CHECK: arith.ori [[L]], [[SL]] : i8
// CHECK: [[SH:%.*]] = arith.select [[N1]], %c-128_i8{{.*}}, %c0_i8{{.*}} : i8
// CHECK: arith.ori [[H]], [[SH]] : i8
// CHECK-NOT: arith.cmpi ugt
// CHECK: llvm.inline_asm "cvt.rn.satfinite.e5m2x2.f16x2 $0, $1;", "=h,r" {{%.*}} : (i32) -> i16
// CHECK: arith.constant 64 : i8
// CHECK-NOT: f8E5M2
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @f32_to_e5m2(%x: f32, %h: f16, %out: !tile.ptr<f8E5M2, 1 : i32>) {
    %r = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %s = "tile.splat"(%x) : (f32) -> tensor<256xf32, #b>
    %t = arith.addf %s, %s : tensor<256xf32, #b>
    %e = arith.truncf %t : tensor<256xf32, #b> to tensor<256xf8E5M2, #b>
    %sh = "tile.splat"(%h) : (f16) -> tensor<256xf16, #b>
    %eh = arith.truncf %sh : tensor<256xf16, #b> to tensor<256xf8E5M2, #b>
    %two = arith.constant dense<2.0> : tensor<256xf8E5M2, #b>
    %ps = "tile.splat"(%out) : (!tile.ptr<f8E5M2, 1 : i32>) -> tensor<256x!tile.ptr<f8E5M2, 1 : i32>, #b>
    %pp = "tile.addptr"(%ps, %r) : (tensor<256x!tile.ptr<f8E5M2, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f8E5M2, 1 : i32>, #b>
    "tile.store"(%pp, %e) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f8E5M2, 1 : i32>, #b>, tensor<256xf8E5M2, #b>) -> ()
    "tile.store"(%pp, %eh) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f8E5M2, 1 : i32>, #b>, tensor<256xf8E5M2, #b>) -> ()
    "tile.store"(%pp, %two) {cache = "none", evict = "evict_normal"} : (tensor<256x!tile.ptr<f8E5M2, 1 : i32>, #b>, tensor<256xf8E5M2, #b>) -> ()
    return
  }
}
