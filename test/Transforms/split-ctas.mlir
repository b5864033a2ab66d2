// RUN: tilec-opt %s --split-input-file --tile-split-ctas=num-ctas=2 | filecheck %s
// RUN: tilec-opt %s --split-input-file --tile-split-ctas | filecheck %s --check-prefix=ONE
// tile-split-ctas (passes/split_ctas.py): a program of num-ctas CTAs shares the rows of its
// dots, and of what is tied to them, out among its CTAs. With num-ctas=1 nothing changes.
// ONE-NOT: tile.split_ctas
// ONE-NOT: tile.cta_rank

// A matmul through pointers: each CTA computes 64 of the 128 rows. The rows' index vector
// (splat of pid * 128 + make_range) gets this CTA's copy of the range: make_range(0, 64) +
// cta_rank * 64; A's pointers and loads, the accumulator (its zero constant too), the dot and
// C's pointers and store have 64 rows. B (its range of K rows too) and the columns stay whole.
// CHECK-LABEL: func.func @pointer_matmul
// CHECK-SAME: attributes {tile.kernel, tile.split_ctas = 2 : i32}
// CHECK-NEXT: [[RANK:%.*]] = "tile.cta_rank"() : () -> i32
// CHECK-DAG: [[ZERO:%.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-DAG: [[C64:%.*]] = arith.constant dense<64> : tensor<64x1xi32>
// CHECK: [[PID:%.*]] = arith.muli
// CHECK: [[MINE:%.*]] = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
// CHECK-NEXT: [[SIXTYFOUR:%.*]] = arith.constant 64 : i32
// CHECK-NEXT: [[FIRST:%.*]] = arith.muli [[RANK]], [[SIXTYFOUR]] : i32
// CHECK-NEXT: [[FIRSTS:%.*]] = "tile.splat"([[FIRST]]) : (i32) -> tensor<64xi32>
// CHECK-NEXT: [[RANGE:%.*]] = arith.addi [[MINE]], [[FIRSTS]] : tensor<64xi32>
// CHECK-NEXT: [[PIDS:%.*]] = "tile.splat"([[PID]]) : (i32) -> tensor<64xi32>
// CHECK-NEXT: [[ROWS:%.*]] = arith.addi [[PIDS]], [[RANGE]] : tensor<64xi32>
// CHECK: scf.for {{.*}} iter_args({{.*}} = [[ZERO]]) -> (tensor<64x64xf32>)
// CHECK: "tile.expand_dims"([[ROWS]]) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
// CHECK: "tile.load"({{.*}}) {{.*}} : (tensor<64x32x!tile.ptr<f16, 1 : i32>>) -> tensor<64x32xf16>
// CHECK: "tile.load"({{.*}}) {{.*}} : (tensor<32x64x!tile.ptr<f16, 1 : i32>>) -> tensor<32x64xf16>
// CHECK: "tile.dot"({{.*}}) {{.*}} : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK: "tile.expand_dims"([[ROWS]]) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
// CHECK-NEXT: arith.muli {{.*}}, [[C64]] : tensor<64x1xi32>
// CHECK: "tile.store"({{.*}}) {{.*}} : (tensor<64x64x!tile.ptr<f32, 1 : i32>>, tensor<64x64xf32>) -> ()
// CHECK-NOT: tensor<128
func.func @pointer_matmul(%arg0: !tile.ptr<f16, 1 : i32>, %arg1: !tile.ptr<f16, 1 : i32>, %arg2: !tile.ptr<f32, 1 : i32>, %arg4: i32) attributes {tile.kernel} {
  %cst = arith.constant dense<64> : tensor<128x1xi32>
  %cst_0 = arith.constant dense<64> : tensor<32x1xi32>
  %c32_i32 = arith.constant 32 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst_1 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %c128_i32 = arith.constant 128 : i32
  %0 = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %1 = arith.muli %0, %c128_i32 : i32
  %2 = "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
  %3 = "tile.splat"(%1) : (i32) -> tensor<128xi32>
  %4 = arith.addi %3, %2 : tensor<128xi32>
  %5 = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %6 = "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
  %7 = scf.for %arg5 = %c0_i32 to %arg4 step %c32_i32 iter_args(%arg6 = %cst_1) -> (tensor<128x64xf32>)  : i32 {
    %16 = "tile.expand_dims"(%4) {axis = 1 : i32} : (tensor<128xi32>) -> tensor<128x1xi32>
    %17 = "tile.splat"(%arg4) : (i32) -> tensor<128x1xi32>
    %18 = arith.muli %16, %17 : tensor<128x1xi32>
    %19 = "tile.splat"(%arg0) : (!tile.ptr<f16, 1 : i32>) -> tensor<128x1x!tile.ptr<f16, 1 : i32>>
    %20 = "tile.addptr"(%19, %18) : (tensor<128x1x!tile.ptr<f16, 1 : i32>>, tensor<128x1xi32>) -> tensor<128x1x!tile.ptr<f16, 1 : i32>>
    %21 = "tile.splat"(%arg5) : (i32) -> tensor<32xi32>
    %22 = arith.addi %21, %6 : tensor<32xi32>
    %23 = "tile.expand_dims"(%22) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
    %24 = "tile.broadcast"(%20) : (tensor<128x1x!tile.ptr<f16, 1 : i32>>) -> tensor<128x32x!tile.ptr<f16, 1 : i32>>
    %25 = "tile.broadcast"(%23) : (tensor<1x32xi32>) -> tensor<128x32xi32>
    %26 = "tile.addptr"(%24, %25) : (tensor<128x32x!tile.ptr<f16, 1 : i32>>, tensor<128x32xi32>) -> tensor<128x32x!tile.ptr<f16, 1 : i32>>
    %27 = "tile.load"(%26) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x32x!tile.ptr<f16, 1 : i32>>) -> tensor<128x32xf16>
    %28 = "tile.expand_dims"(%22) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
    %29 = arith.muli %28, %cst_0 : tensor<32x1xi32>
    %30 = "tile.splat"(%arg1) : (!tile.ptr<f16, 1 : i32>) -> tensor<32x1x!tile.ptr<f16, 1 : i32>>
    %31 = "tile.addptr"(%30, %29) : (tensor<32x1x!tile.ptr<f16, 1 : i32>>, tensor<32x1xi32>) -> tensor<32x1x!tile.ptr<f16, 1 : i32>>
    %32 = "tile.expand_dims"(%5) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
    %33 = "tile.broadcast"(%31) : (tensor<32x1x!tile.ptr<f16, 1 : i32>>) -> tensor<32x64x!tile.ptr<f16, 1 : i32>>
    %34 = "tile.broadcast"(%32) : (tensor<1x64xi32>) -> tensor<32x64xi32>
    %35 = "tile.addptr"(%33, %34) : (tensor<32x64x!tile.ptr<f16, 1 : i32>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16, 1 : i32>>
    %36 = "tile.load"(%35) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x64x!tile.ptr<f16, 1 : i32>>) -> tensor<32x64xf16>
    %37 = "tile.dot"(%27, %36, %arg6) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x32xf16>, tensor<32x64xf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
    scf.yield %37 : tensor<128x64xf32>
  }
  %8 = "tile.expand_dims"(%4) {axis = 1 : i32} : (tensor<128xi32>) -> tensor<128x1xi32>
  %9 = arith.muli %8, %cst : tensor<128x1xi32>
  %10 = "tile.splat"(%arg2) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x1x!tile.ptr<f32, 1 : i32>>
  %11 = "tile.addptr"(%10, %9) : (tensor<128x1x!tile.ptr<f32, 1 : i32>>, tensor<128x1xi32>) -> tensor<128x1x!tile.ptr<f32, 1 : i32>>
  %12 = "tile.expand_dims"(%5) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %13 = "tile.broadcast"(%11) : (tensor<128x1x!tile.ptr<f32, 1 : i32>>) -> tensor<128x64x!tile.ptr<f32, 1 : i32>>
  %14 = "tile.broadcast"(%12) : (tensor<1x64xi32>) -> tensor<128x64xi32>
  %15 = "tile.addptr"(%13, %14) : (tensor<128x64x!tile.ptr<f32, 1 : i32>>, tensor<128x64xi32>) -> tensor<128x64x!tile.ptr<f32, 1 : i32>>
  "tile.store"(%15, %7) {cache = "none", evict = "evict_normal"} : (tensor<128x64x!tile.ptr<f32, 1 : i32>>, tensor<128x64xf32>) -> ()
  return
}

// -----

// A matmul through TMA maps (host descriptors): A's and C's copies move this CTA's 128 of the
// 256 rows (the row coordinate plus cta_rank * 128) and their map parameters say so
// (tile.split_rows, the box the launcher encodes); B's map and copy are untouched.
// CHECK-LABEL: func.func @tma_matmul
// CHECK-SAME: ([[A:%[^:]*]]: !llvm.ptr {tile.split_rows = 128 : i32}, [[B:%[^:]*]]: !llvm.ptr, [[C:%[^:]*]]: !llvm.ptr {tile.split_rows = 128 : i32}, [[M:%[^:]*]]: i32, [[N:%[^:]*]]: i32, {{.*}}: i32)
// CHECK-SAME: tile.split_ctas = 2 : i32
// CHECK-NEXT: [[RANK:%.*]] = "tile.cta_rank"() : () -> i32
// CHECK: scf.for
// CHECK: [[KK:%.*]] = arith.muli
// CHECK-NEXT: [[C128:%.*]] = arith.constant 128 : i32
// CHECK-NEXT: [[OFF:%.*]] = arith.muli [[RANK]], [[C128]] : i32
// CHECK-NEXT: [[ROW:%.*]] = arith.addi [[M]], [[OFF]] : i32
// CHECK-NEXT: "tile.tma_load"([[A]], [[ROW]], [[KK]]) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<128x64xf16>
// CHECK-NEXT: "tile.tma_load"([[B]], [[KK]], [[N]]) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x128xf16>
// CHECK-NEXT: "tile.dot"{{.*}} -> tensor<128x128xf32>
// CHECK: arith.truncf {{.*}} : tensor<128x128xf32> to tensor<128x128xf16>
// CHECK-NEXT: [[C128B:%.*]] = arith.constant 128 : i32
// CHECK-NEXT: [[OFFB:%.*]] = arith.muli [[RANK]], [[C128B]] : i32
// CHECK-NEXT: [[ROWB:%.*]] = arith.addi [[M]], [[OFFB]] : i32
// CHECK-NEXT: "tile.tma_store"([[C]], {{.*}}, [[ROWB]], [[N]]) {swizzle = 128 : i32} : (!llvm.ptr, tensor<128x128xf16>, i32, i32) -> ()
func.func @tma_matmul(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %m: i32, %n: i32, %kt: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.000000e+00> : tensor<256x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %acc = scf.for %k = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<256x128xf32>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %ta = "tile.tma_load"(%a, %m, %kk) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<256x64xf16>
    %tb = "tile.tma_load"(%b, %kk, %n) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x128xf16>
    %d = "tile.dot"(%ta, %tb, %x) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<256x64xf16>, tensor<64x128xf16>, tensor<256x128xf32>) -> tensor<256x128xf32>
    scf.yield %d : tensor<256x128xf32>
  }
  %h = arith.truncf %acc : tensor<256x128xf32> to tensor<256x128xf16>
  "tile.tma_store"(%c, %h, %m, %n) {swizzle = 128 : i32} : (!llvm.ptr, tensor<256x128xf16>, i32, i32) -> ()
  return
}

// -----

// Kept whole (no tile.split_ctas, no cta_rank): an atomic, which every CTA would do again
// if the kernel's rows were shared out.
// CHECK-LABEL: func.func @an_atomic
// CHECK-NOT: tile.split_ctas
// CHECK-NOT: tile.cta_rank
// CHECK: "tile.dot"{{.*}} -> tensor<128x64xf32>
func.func @an_atomic(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %count: !tile.ptr<i32, 1 : i32>, %m: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ta = "tile.tma_load"(%a, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<128x64xf16>
  %tb = "tile.tma_load"(%b, %c0, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %d = "tile.dot"(%ta, %tb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
  %old = "tile.atomic_rmw"(%count, %c1) {rmw_op = "add", scope = "gpu", sem = "acq_rel"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %h = arith.truncf %d : tensor<128x64xf32> to tensor<128x64xf16>
  "tile.tma_store"(%c, %h, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, tensor<128x64xf16>, i32, i32) -> ()
  return
}

// -----

// Kept whole: a reduction over the dot's rows (each CTA would hold half of them).
// CHECK-LABEL: func.func @a_sum_over_rows
// CHECK-NOT: tile.split_ctas
// CHECK: "tile.dot"{{.*}} -> tensor<128x64xf32>
func.func @a_sum_over_rows(%a: !llvm.ptr, %b: !llvm.ptr, %out: !llvm.ptr, %m: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %ta = "tile.tma_load"(%a, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<128x64xf16>
  %tb = "tile.tma_load"(%b, %c0, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %d = "tile.dot"(%ta, %tb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
  %s = "tile.reduce"(%d) ({
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %y : f32
    gpu.yield %z : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128x64xf32>) -> tensor<64xf32>
  %r = "tile.reshape"(%s) {allow_reorder = false} : (tensor<64xf32>) -> tensor<1x64xf32>
  %h = arith.truncf %r : tensor<1x64xf32> to tensor<1x64xf16>
  "tile.tma_store"(%out, %h, %c0, %c0) {swizzle = 128 : i32} : (!llvm.ptr, tensor<1x64xf16>, i32, i32) -> ()
  return
}

// -----

// Kept whole: one block is both a dot's A (rows shared out) and its B (whole in every CTA).
// CHECK-LABEL: func.func @a_square
// CHECK-NOT: tile.split_ctas
// CHECK: "tile.dot"{{.*}} -> tensor<64x64xf32>
func.func @a_square(%a: !llvm.ptr, %c: !llvm.ptr, %m: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %ta = "tile.tma_load"(%a, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %d = "tile.dot"(%ta, %ta, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  "tile.tma_store"(%c, %h, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16>, i32, i32) -> ()
  return
}

// -----

// Kept whole: a dot of 16 rows would leave a CTA 8, fewer than any tensor-core tile.
// CHECK-LABEL: func.func @too_few_rows
// CHECK-NOT: tile.split_ctas
// CHECK: "tile.dot"{{.*}} -> tensor<16x64xf32>
func.func @too_few_rows(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %m: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
  %c0 = arith.constant 0 : i32
  %ta = "tile.tma_load"(%a, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<16x64xf16>
  %tb = "tile.tma_load"(%b, %c0, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %d = "tile.dot"(%ta, %tb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x64xf16>, tensor<64x64xf16>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = arith.truncf %d : tensor<16x64xf32> to tensor<16x64xf16>
  "tile.tma_store"(%c, %h, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, tensor<16x64xf16>, i32, i32) -> ()
  return
}

// -----

// Kept whole: the program reads back, through the parameter it stored through, rows that the
// other CTA would have written.
// CHECK-LABEL: func.func @reads_back
// CHECK-NOT: tile.split_ctas
// CHECK: "tile.dot"{{.*}} -> tensor<128x64xf32>
func.func @reads_back(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %m: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %ta = "tile.tma_load"(%a, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<128x64xf16>
  %tb = "tile.tma_load"(%b, %c0, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %d = "tile.dot"(%ta, %tb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
  %h = arith.truncf %d : tensor<128x64xf32> to tensor<128x64xf16>
  "tile.tma_store"(%c, %h, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, tensor<128x64xf16>, i32, i32) -> ()
  %again = "tile.tma_load"(%c, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<128x64xf16>
  %e = "tile.dot"(%again, %tb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
  %g = arith.truncf %e : tensor<128x64xf32> to tensor<128x64xf16>
  "tile.tma_store"(%a, %g, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, tensor<128x64xf16>, i32, i32) -> ()
  return
}

// -----

// Kept whole: a constant of different elements tied to the dot's rows (it has no copy of this
// CTA's rows to give).
// CHECK-LABEL: func.func @a_constant_of_rows
// CHECK-NOT: tile.split_ctas
// CHECK: "tile.dot"{{.*}} -> tensor<32x64xf32>
func.func @a_constant_of_rows(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %m: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.000000e+00> : tensor<32x64xf32>
  %c0 = arith.constant 0 : i32
  %ta = "tile.tma_load"(%a, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<32x64xf16>
  %tb = "tile.tma_load"(%b, %c0, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %d = "tile.dot"(%ta, %tb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x64xf16>, tensor<64x64xf16>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %rows = arith.constant dense<[[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0], [8.0], [9.0], [10.0], [11.0], [12.0], [13.0], [14.0], [15.0], [16.0], [17.0], [18.0], [19.0], [20.0], [21.0], [22.0], [23.0], [24.0], [25.0], [26.0], [27.0], [28.0], [29.0], [30.0], [31.0], [32.0]]> : tensor<32x1xf32>
  %wide = "tile.broadcast"(%rows) : (tensor<32x1xf32>) -> tensor<32x64xf32>
  %e = arith.mulf %d, %wide : tensor<32x64xf32>
  %h = arith.truncf %e : tensor<32x64xf32> to tensor<32x64xf16>
  "tile.tma_store"(%c, %h, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, tensor<32x64xf16>, i32, i32) -> ()
  return
}

// -----

// Kept whole: a call (the callee, not looked into, may do what one CTA alone must).
// CHECK-LABEL: func.func @a_call
// CHECK-NOT: tile.split_ctas
// CHECK: "tile.dot"{{.*}} -> tensor<128x64xf32>
func.func private @count(%p: !tile.ptr<i32, 1 : i32>)
func.func @a_call(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %counter: !tile.ptr<i32, 1 : i32>, %m: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %ta = "tile.tma_load"(%a, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<128x64xf16>
  %tb = "tile.tma_load"(%b, %c0, %c0) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %d = "tile.dot"(%ta, %tb, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>) -> tensor<128x64xf32>
  func.call @count(%counter) : (!tile.ptr<i32, 1 : i32>) -> ()
  %h = arith.truncf %d : tensor<128x64xf32> to tensor<128x64xf16>
  "tile.tma_store"(%c, %h, %m, %c0) {swizzle = 128 : i32} : (!llvm.ptr, tensor<128x64xf16>, i32, i32) -> ()
  return
}
