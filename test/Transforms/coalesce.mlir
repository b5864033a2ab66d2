// RUN: tilec-opt %s --split-input-file --tilegpu-coalesce | filecheck %s
// Running it twice changes nothing more: the layouts it picks are stable.
// RUN: tilec-opt %s --split-input-file --tilegpu-coalesce --tilegpu-coalesce | filecheck %s

// Vector add, fp32, 16-byte aligned pointers and n divisible by 16, 1024 elements on 4 warps:
// 4 elements (128 bits) per thread. Every operand is converted in, the loaded values back out.
// CHECK-LABEL: func.func @add_f32
// CHECK: [[XP:%.*]] = "tilegpu.convert_layout"({{%.*}}) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1], [32], [4], [0]>>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: [[XM:%.*]] = "tilegpu.convert_layout"([[MASK:%.*]]) : (tensor<1024xi1, #tilegpu.blocked<[1], [32], [4], [0]>>) -> tensor<1024xi1, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: [[X4:%.*]] = "tile.load"([[XP]], [[XM]]) {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: [[X:%.*]] = "tilegpu.convert_layout"([[X4]]) : (tensor<1024xf32, #tilegpu.blocked<[4], [32], [4], [0]>>) -> tensor<1024xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK: [[Y4:%.*]] = "tile.load"({{.*}}) {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: [[Y:%.*]] = "tilegpu.convert_layout"([[Y4]])
// CHECK: [[SUM:%.*]] = arith.addf [[X]], [[Y]] : tensor<1024xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK: [[SP:%.*]] = "tilegpu.convert_layout"({{%.*}}) : {{.*}} -> tensor<1024x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: [[SV:%.*]] = "tilegpu.convert_layout"([[SUM]]) : {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: [[SM:%.*]] = "tilegpu.convert_layout"([[MASK]]) : {{.*}} -> tensor<1024xi1, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: "tile.store"([[SP]], [[SV]], [[SM]])
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @add_f32(%x: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %c1024 = arith.constant 1024 : i32
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %start = arith.muli %pid, %c1024 : i32
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b>
    %starts = "tile.splat"(%start) : (i32) -> tensor<1024xi32, #b>
    %offs = arith.addi %starts, %range : tensor<1024xi32, #b>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32, #b>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #b>
    %xs = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %xp = "tile.addptr"(%xs, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %xv = "tile.load"(%xp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi1, #b>) -> tensor<1024xf32, #b>
    %ys = "tile.splat"(%y) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %yp = "tile.addptr"(%ys, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %yv = "tile.load"(%yp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi1, #b>) -> tensor<1024xf32, #b>
    %sum = arith.addf %xv, %yv : tensor<1024xf32, #b>
    %os = "tile.splat"(%out) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %op = "tile.addptr"(%os, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%op, %sum, %mask) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xf32, #b>, tensor<1024xi1, #b>) -> ()
    return
  }
}

// -----

// fp16: 8 elements make 128 bits.
// CHECK-LABEL: func.func @copy_f16
// CHECK: "tile.load"({{.*}}) {{.*}} -> tensor<1024xf16, #tilegpu.blocked<[8], [32], [4], [0]>>
// CHECK: "tile.store"({{.*}}) {{.*}} : (tensor<1024x!tile.ptr<f16, 1 : i32>, #tilegpu.blocked<[8], [32], [4], [0]>>, tensor<1024xf16, #tilegpu.blocked<[8], [32], [4], [0]>>, tensor<1024xi1, #tilegpu.blocked<[8], [32], [4], [0]>>)
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @copy_f16(%src: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}, %dst: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %c1024 = arith.constant 1024 : i32
    %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
    %start = arith.muli %pid, %c1024 : i32
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b>
    %starts = "tile.splat"(%start) : (i32) -> tensor<1024xi32, #b>
    %offs = arith.addi %starts, %range : tensor<1024xi32, #b>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32, #b>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #b>
    %ss = "tile.splat"(%src) : (!tile.ptr<f16, 1 : i32>) -> tensor<1024x!tile.ptr<f16, 1 : i32>, #b>
    %sp = "tile.addptr"(%ss, %offs) : (tensor<1024x!tile.ptr<f16, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f16, 1 : i32>, #b>
    %v = "tile.load"(%sp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f16, 1 : i32>, #b>, tensor<1024xi1, #b>) -> tensor<1024xf16, #b>
    %ds = "tile.splat"(%dst) : (!tile.ptr<f16, 1 : i32>) -> tensor<1024x!tile.ptr<f16, 1 : i32>, #b>
    %dp = "tile.addptr"(%ds, %offs) : (tensor<1024x!tile.ptr<f16, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f16, 1 : i32>, #b>
    "tile.store"(%dp, %v, %mask) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f16, 1 : i32>, #b>, tensor<1024xf16, #b>, tensor<1024xi1, #b>) -> ()
    return
  }
}

// -----

// Nothing is known of the pointers' alignment: one element per thread, as before; no
// conversions.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: tilegpu.convert_layout
// CHECK: "tile.load"({{.*}}) {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: "tile.store"({{.*}}) {{.*}} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1], [32], [4], [0]>>,
// CHECK-NOT: tilegpu.convert_layout
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @unaligned(%src: !tile.ptr<f32, 1 : i32>, %dst: !tile.ptr<f32, 1 : i32>, %n: i32 {tile.divisibility = 16 : i32}) {
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32, #b>
    %mask = arith.cmpi slt, %range, %ns : tensor<1024xi32, #b>
    %ss = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %sp = "tile.addptr"(%ss, %range) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%sp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi1, #b>) -> tensor<1024xf32, #b>
    %ds = "tile.splat"(%dst) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %dp = "tile.addptr"(%ds, %range) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    "tile.store"(%dp, %v, %mask) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xf32, #b>, tensor<1024xi1, #b>) -> ()
    return
  }
}

// -----

// The mask `offs < n` with an n of unknown divisibility may change at any element: vec 1.
// CHECK-LABEL: func.func @mask_unknown_n
// CHECK-NOT: tilegpu.convert_layout
// CHECK: "tile.load"({{.*}}) {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK-NOT: tilegpu.convert_layout
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @mask_unknown_n(%src: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %n: i32) -> tensor<1024xf32, #b> {
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32, #b>
    %mask = arith.cmpi slt, %range, %ns : tensor<1024xi32, #b>
    %ss = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %sp = "tile.addptr"(%ss, %range) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%sp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi1, #b>) -> tensor<1024xf32, #b>
    return %v : tensor<1024xf32, #b>
  }
}

// -----

// 8-byte aligned fp32 pointers: 2 elements per access; a mask whose bound n is even allows
// as much.
// CHECK-LABEL: func.func @aligned_8
// CHECK: [[V:%.*]] = "tile.load"({{.*}}) {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[2], [32], [4], [0]>>
// CHECK-NEXT: [[B:%.*]] = "tilegpu.convert_layout"([[V]])
// CHECK: return [[B]]
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @aligned_8(%src: !tile.ptr<f32, 1 : i32> {tile.divisibility = 8 : i32}, %n: i32 {tile.divisibility = 2 : i32}) -> tensor<1024xf32, #b> {
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b>
    %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32, #b>
    %mask = arith.cmpi slt, %range, %ns : tensor<1024xi32, #b>
    %ss = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %sp = "tile.addptr"(%ss, %range) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%sp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi1, #b>) -> tensor<1024xf32, #b>
    return %v : tensor<1024xf32, #b>
  }
}

// -----

// A 64x64 tile of a row-major matrix (row stride divisible by 16): contiguous along dim 1, so
// 4 columns per thread, dimension 1 fastest.
// CHECK-LABEL: func.func @rows
// CHECK: [[P:%.*]] = "tilegpu.convert_layout"({{%.*}}) : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: [[V:%.*]] = "tile.load"([[P]]) {{.*}} -> tensor<64x64xf32, #tilegpu.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: "tilegpu.convert_layout"([[V]]) : {{.*}} -> tensor<64x64xf32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#rows = #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
#cols = #tilegpu.slice<0 : i32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @rows(%src: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) -> tensor<64x64xf32, #b> {
    %rm = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #rows>
    %rn = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #cols>
    %rm2 = "tile.expand_dims"(%rm) {axis = 1 : i32} : (tensor<64xi32, #rows>) -> tensor<64x1xi32, #b>
    %s = "tile.splat"(%stride) : (i32) -> tensor<64x1xi32, #b>
    %r = arith.muli %rm2, %s : tensor<64x1xi32, #b>
    %rb = "tile.broadcast"(%r) : (tensor<64x1xi32, #b>) -> tensor<64x64xi32, #b>
    %rn2 = "tile.expand_dims"(%rn) {axis = 0 : i32} : (tensor<64xi32, #cols>) -> tensor<1x64xi32, #b>
    %cb = "tile.broadcast"(%rn2) : (tensor<1x64xi32, #b>) -> tensor<64x64xi32, #b>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32, #b>
    %ps = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #b>
    %p = "tile.addptr"(%ps, %offs) : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #b>, tensor<64x64xi32, #b>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<64x64xf32, #b>
    return %v : tensor<64x64xf32, #b>
  }
}

// -----

// The transposed access (column stride divisible by 16): contiguous along dim 0, which
// becomes the fastest dimension.
// CHECK-LABEL: func.func @columns
// CHECK: [[V:%.*]] = "tile.load"({{.*}}) {{.*}} -> tensor<64x64xf32, #tilegpu.blocked<[4, 1], [16, 2], [1, 4], [0, 1]>>
// CHECK-NEXT: "tilegpu.convert_layout"([[V]]) : {{.*}} -> tensor<64x64xf32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
#b = #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>
#rows = #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
#cols = #tilegpu.slice<0 : i32, #tilegpu.blocked<[1, 1], [1, 32], [2, 2], [1, 0]>>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @columns(%src: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) -> tensor<64x64xf32, #b> {
    %rm = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #rows>
    %rn = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #cols>
    %rm2 = "tile.expand_dims"(%rm) {axis = 1 : i32} : (tensor<64xi32, #rows>) -> tensor<64x1xi32, #b>
    %rb = "tile.broadcast"(%rm2) : (tensor<64x1xi32, #b>) -> tensor<64x64xi32, #b>
    %rn2 = "tile.expand_dims"(%rn) {axis = 0 : i32} : (tensor<64xi32, #cols>) -> tensor<1x64xi32, #b>
    %s = "tile.splat"(%stride) : (i32) -> tensor<1x64xi32, #b>
    %c = arith.muli %rn2, %s : tensor<1x64xi32, #b>
    %cb = "tile.broadcast"(%c) : (tensor<1x64xi32, #b>) -> tensor<64x64xi32, #b>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32, #b>
    %ps = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #b>
    %p = "tile.addptr"(%ps, %offs) : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #b>, tensor<64x64xi32, #b>) -> tensor<64x64x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x64x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<64x64xf32, #b>
    return %v : tensor<64x64xf32, #b>
  }
}

// -----

// A block smaller than the CTA (64 elements, 128 threads) keeps one element per thread: wider
// vectors would only leave more threads holding copies.
// CHECK-LABEL: func.func @small_block
// CHECK-NOT: tilegpu.convert_layout
// CHECK: "tile.load"({{.*}}) {{.*}} -> tensor<64xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @small_block(%src: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}) -> tensor<64xf32, #b> {
    %range = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #b>
    %ss = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #b>
    %sp = "tile.addptr"(%ss, %range) : (tensor<64x!tile.ptr<f32, 1 : i32>, #b>, tensor<64xi32, #b>) -> tensor<64x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%sp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<64xf32, #b>
    return %v : tensor<64xf32, #b>
  }
}

// -----

// 256 fp32 elements on 128 threads: 2 per thread, though 4 would be aligned.
// CHECK-LABEL: func.func @two_per_thread
// CHECK: "tile.load"({{.*}}) {{.*}} -> tensor<256xf32, #tilegpu.blocked<[2], [32], [4], [0]>>
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @two_per_thread(%src: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}) -> tensor<256xf32, #b> {
    %range = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %ss = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %sp = "tile.addptr"(%ss, %range) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%sp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<256xf32, #b>
    return %v : tensor<256xf32, #b>
  }
}

// -----

// Hints: offsets built from a loaded base are unknown, but max_contiguous/multiple_of
// (tile.contiguity, tile.divisibility) vouch for them. The `other` value is converted too.
// CHECK-LABEL: func.func @hinted
// CHECK: [[P:%.*]] = "tilegpu.convert_layout"({{%.*}}) : {{.*}} -> tensor<1024x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: [[M:%.*]] = "tilegpu.convert_layout"({{%.*}}) : {{.*}} -> tensor<1024xi1, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: [[O:%.*]] = "tilegpu.convert_layout"({{%.*}}) : {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK-NEXT: "tile.load"([[P]], [[M]], [[O]]) {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[4], [32], [4], [0]>>
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @hinted(%src: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %idx: !tile.ptr<i32, 1 : i32>) -> tensor<1024xf32, #b> {
    %base = "tile.load"(%idx) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<i32, 1 : i32>) -> i32
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b>
    %bs = "tile.splat"(%base) : (i32) -> tensor<1024xi32, #b>
    %offs = arith.addi %bs, %range {tile.contiguity = array<i32: 1024>, tile.divisibility = array<i32: 16>} : tensor<1024xi32, #b>
    %mask = arith.constant dense<true> : tensor<1024xi1, #b>
    %zero = arith.constant dense<0.0> : tensor<1024xf32, #b>
    %ss = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %sp = "tile.addptr"(%ss, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %v = "tile.load"(%sp, %mask, %zero) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi1, #b>, tensor<1024xf32, #b>) -> tensor<1024xf32, #b>
    return %v : tensor<1024xf32, #b>
  }
}

// -----

// Inside a loop: pointers carried from one iteration to the next (advanced by 1024 elements)
// and offsets from the induction variable (0, 1024, ...) keep their alignment.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK: "tile.load"({{.*}}) {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[4], [32], [4], [0]>>
// CHECK: "tile.store"({{.*}}) {{.*}} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #tilegpu.blocked<[4], [32], [4], [0]>>,
// CHECK: scf.yield
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @loop(%src: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %dst: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1024 = arith.constant 1024 : i32
    %step = arith.constant dense<1024> : tensor<1024xi32, #b>
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b>
    %ss = "tile.splat"(%src) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %sp0 = "tile.addptr"(%ss, %range) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %ds = "tile.splat"(%dst) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %last = scf.for %i = %c0 to %n step %c1024 iter_args(%sp = %sp0) -> (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>) : i32 {
      %v = "tile.load"(%sp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<1024xf32, #b>
      %is = "tile.splat"(%i) : (i32) -> tensor<1024xi32, #b>
      %offs = arith.addi %is, %range : tensor<1024xi32, #b>
      %dp = "tile.addptr"(%ds, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
      "tile.store"(%dp, %v) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xf32, #b>) -> ()
      %next = "tile.addptr"(%sp, %step) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
      scf.yield %next : tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    }
    return
  }
}

// -----

// Atomics keep one element per instruction even when wider accesses would be aligned.
// CHECK-LABEL: func.func @atomic
// CHECK-NOT: tilegpu.convert_layout
// CHECK: "tile.atomic_rmw"({{.*}}) {{.*}} -> tensor<1024xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK-NOT: tilegpu.convert_layout
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @atomic(%dst: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %v: tensor<1024xf32, #b>) -> tensor<1024xf32, #b> {
    %range = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #b>
    %ds = "tile.splat"(%dst) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %dp = "tile.addptr"(%ds, %range) : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xi32, #b>) -> tensor<1024x!tile.ptr<f32, 1 : i32>, #b>
    %old = "tile.atomic_rmw"(%dp, %v) {rmw_op = "fadd", scope = "gpu", sem = "acq_rel"} : (tensor<1024x!tile.ptr<f32, 1 : i32>, #b>, tensor<1024xf32, #b>) -> tensor<1024xf32, #b>
    return %old : tensor<1024xf32, #b>
  }
}
