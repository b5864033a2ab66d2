// RUN: tilec-opt %s --split-input-file --tile-combine | filecheck %s
// RUN: tilec-opt %s --split-input-file --pass-pipeline='builtin.module(tile-combine)' | filecheck %s

// A chain of addptr becomes one addptr by the sum of the offsets.
// CHECK-LABEL: func.func @addptr_chain
// CHECK-SAME: ([[P:%[^:]+]]: !tile.ptr<f32, 1 : i32>, [[A:%[^:]+]]: i32, [[B:%[^:]+]]: i32)
// CHECK: [[SUM:%.*]] = arith.addi [[A]], [[B]] : i32
// CHECK-NEXT: [[Q:%.*]] = "tile.addptr"([[P]], [[SUM]])
// CHECK-NOT: tile.addptr
// CHECK: return [[Q]]
func.func @addptr_chain(%p: !tile.ptr<f32, 1 : i32>, %a: i32, %b: i32) -> !tile.ptr<f32, 1 : i32> {
  %q = "tile.addptr"(%p, %a) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  %r = "tile.addptr"(%q, %b) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  return %r : !tile.ptr<f32, 1 : i32>
}

// -----

// Three links fold into one; on tensors of pointers too.
// CHECK-LABEL: func.func @addptr_chain_tensor
// CHECK-SAME: ([[P:%[^:]+]]: tensor<64x!tile.ptr<f16, 1 : i32>>, [[A:%[^:]+]]: tensor<64xi32>, [[B:%[^:]+]]: tensor<64xi32>, [[C:%[^:]+]]: tensor<64xi32>)
// CHECK: [[BC:%.*]] = arith.addi [[B]], [[C]] : tensor<64xi32>
// CHECK: [[ABC:%.*]] = arith.addi [[A]], [[BC]] : tensor<64xi32>
// CHECK: [[Q:%.*]] = "tile.addptr"([[P]], [[ABC]])
// CHECK-NOT: tile.addptr
// CHECK: return [[Q]]
func.func @addptr_chain_tensor(%p: tensor<64x!tile.ptr<f16, 1 : i32>>, %a: tensor<64xi32>, %b: tensor<64xi32>, %c: tensor<64xi32>) -> tensor<64x!tile.ptr<f16, 1 : i32>> {
  %q = "tile.addptr"(%p, %a) : (tensor<64x!tile.ptr<f16, 1 : i32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f16, 1 : i32>>
  %r = "tile.addptr"(%q, %b) : (tensor<64x!tile.ptr<f16, 1 : i32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f16, 1 : i32>>
  %s = "tile.addptr"(%r, %c) : (tensor<64x!tile.ptr<f16, 1 : i32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f16, 1 : i32>>
  return %s : tensor<64x!tile.ptr<f16, 1 : i32>>
}

// -----

// Offsets of different integer types are not added together.
// CHECK-LABEL: func.func @addptr_chain_mixed_widths
// CHECK: [[Q:%.*]] = "tile.addptr"(%arg0, %arg1) {{.*}} i32)
// CHECK: "tile.addptr"([[Q]], %arg2) {{.*}} i64)
// CHECK-NOT: arith.addi
func.func @addptr_chain_mixed_widths(%p: !tile.ptr<f32, 1 : i32>, %a: i32, %b: i64) -> !tile.ptr<f32, 1 : i32> {
  %q = "tile.addptr"(%p, %a) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  %r = "tile.addptr"(%q, %b) : (!tile.ptr<f32, 1 : i32>, i64) -> !tile.ptr<f32, 1 : i32>
  return %r : !tile.ptr<f32, 1 : i32>
}

// -----

// Adding a zero offset (scalar or splat tensor) is the pointer itself.
// CHECK-LABEL: func.func @addptr_zero
// CHECK-SAME: ([[P:%[^:]+]]: !tile.ptr<f32, 1 : i32>, [[T:%[^:]+]]: tensor<8x!tile.ptr<f32, 1 : i32>>)
// CHECK-NOT: tile.addptr
// CHECK: return [[P]], [[T]]
func.func @addptr_zero(%p: !tile.ptr<f32, 1 : i32>, %t: tensor<8x!tile.ptr<f32, 1 : i32>>) -> (!tile.ptr<f32, 1 : i32>, tensor<8x!tile.ptr<f32, 1 : i32>>) {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0> : tensor<8xi32>
  %q = "tile.addptr"(%p, %c0) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  %r = "tile.addptr"(%t, %z) : (tensor<8x!tile.ptr<f32, 1 : i32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<f32, 1 : i32>>
  return %q, %r : !tile.ptr<f32, 1 : i32>, tensor<8x!tile.ptr<f32, 1 : i32>>
}

// -----

// A non-zero constant offset stays.
// CHECK-LABEL: func.func @addptr_nonzero
// CHECK: [[C:%.*]] = arith.constant 4 : i32
// CHECK: "tile.addptr"(%arg0, [[C]])
func.func @addptr_nonzero(%p: !tile.ptr<f32, 1 : i32>) -> !tile.ptr<f32, 1 : i32> {
  %c4 = arith.constant 4 : i32
  %q = "tile.addptr"(%p, %c4) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  return %q : !tile.ptr<f32, 1 : i32>
}

// -----

// A splat of a constant is a dense constant; a splat of an argument stays.
// CHECK-LABEL: func.func @splat_constant
// CHECK-DAG: [[F:%.*]] = arith.constant dense<2.500000e+00> : tensor<4x16xf32>
// CHECK-DAG: [[I:%.*]] = arith.constant dense<7> : tensor<128xi32>
// CHECK-DAG: [[S:%.*]] = "tile.splat"(%arg0) : (f32) -> tensor<16xf32>
// CHECK: return [[F]], [[I]], [[S]]
func.func @splat_constant(%x: f32) -> (tensor<4x16xf32>, tensor<128xi32>, tensor<16xf32>) {
  %c = arith.constant 2.5 : f32
  %i = arith.constant 7 : i32
  %a = "tile.splat"(%c) : (f32) -> tensor<4x16xf32>
  %b = "tile.splat"(%i) : (i32) -> tensor<128xi32>
  %s = "tile.splat"(%x) : (f32) -> tensor<16xf32>
  return %a, %b, %s : tensor<4x16xf32>, tensor<128xi32>, tensor<16xf32>
}

// -----

// Broadcast to the same type is the operand itself; broadcast and expand_dims of a splat are
// one splat of the final shape.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: ([[X:%[^:]+]]: f32, [[T:%[^:]+]]: tensor<1x16xf32>)
// CHECK-DAG: [[S2:%.*]] = "tile.splat"([[X]]) : (f32) -> tensor<4x16xf32>
// CHECK-DAG: [[S3:%.*]] = "tile.splat"([[X]]) : (f32) -> tensor<16x1xf32>
// CHECK-NOT: tile.broadcast
// CHECK-NOT: tile.expand_dims
// CHECK: return [[S2]], [[S3]], [[T]]
func.func @broadcast(%x: f32, %t: tensor<1x16xf32>) -> (tensor<4x16xf32>, tensor<16x1xf32>, tensor<1x16xf32>) {
  %s = "tile.splat"(%x) : (f32) -> tensor<16xf32>
  %e = "tile.expand_dims"(%s) {axis = 0 : i32} : (tensor<16xf32>) -> tensor<1x16xf32>
  %b = "tile.broadcast"(%e) : (tensor<1x16xf32>) -> tensor<4x16xf32>
  %f = "tile.expand_dims"(%s) {axis = 1 : i32} : (tensor<16xf32>) -> tensor<16x1xf32>
  %same = "tile.broadcast"(%t) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  return %b, %f, %same : tensor<4x16xf32>, tensor<16x1xf32>, tensor<1x16xf32>
}

// -----

// A real broadcast of a non-splat value stays.
// CHECK-LABEL: func.func @broadcast_kept
// CHECK: "tile.broadcast"(%arg0) : (tensor<1x16xf32>) -> tensor<8x16xf32>
func.func @broadcast_kept(%t: tensor<1x16xf32>) -> tensor<8x16xf32> {
  %b = "tile.broadcast"(%t) : (tensor<1x16xf32>) -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// Constant-true masks are dropped (attributes kept); a load under a constant-false mask is its
// `other`; a store under a constant-false mask disappears; unknown masks stay.
// CHECK-LABEL: func.func @masks
// CHECK-SAME: ([[P:%[^:]+]]: tensor<16x!tile.ptr<f32, 1 : i32>>, [[O:%[^:]+]]: tensor<16xf32>, [[M:%[^:]+]]: tensor<16xi1>)
// CHECK: [[A:%.*]] = "tile.load"([[P]]) {cache = "ca", evict = "evict_last", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>}
// CHECK: [[C:%.*]] = "tile.load"([[P]], [[M]], [[O]])
// CHECK: "tile.store"([[P]], [[A]]) {cache = "cg", evict = "evict_first"}
// CHECK-NEXT: "tile.store"([[P]], [[C]], [[M]])
// CHECK-NEXT: return [[A]], [[O]], [[C]]
func.func @masks(%p: tensor<16x!tile.ptr<f32, 1 : i32>>, %o: tensor<16xf32>, %m: tensor<16xi1>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %t = arith.constant dense<true> : tensor<16xi1>
  %f = arith.constant dense<false> : tensor<16xi1>
  %a = "tile.load"(%p, %t, %o) {cache = "ca", evict = "evict_last", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32, 1 : i32>>, tensor<16xi1>, tensor<16xf32>) -> tensor<16xf32>
  %b = "tile.load"(%p, %f, %o) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32, 1 : i32>>, tensor<16xi1>, tensor<16xf32>) -> tensor<16xf32>
  %c = "tile.load"(%p, %m, %o) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32, 1 : i32>>, tensor<16xi1>, tensor<16xf32>) -> tensor<16xf32>
  "tile.store"(%p, %a, %t) {cache = "cg", evict = "evict_first"} : (tensor<16x!tile.ptr<f32, 1 : i32>>, tensor<16xf32>, tensor<16xi1>) -> ()
  "tile.store"(%p, %a, %f) {cache = "none", evict = "evict_normal"} : (tensor<16x!tile.ptr<f32, 1 : i32>>, tensor<16xf32>, tensor<16xi1>) -> ()
  "tile.store"(%p, %c, %m) {cache = "none", evict = "evict_normal"} : (tensor<16x!tile.ptr<f32, 1 : i32>>, tensor<16xf32>, tensor<16xi1>) -> ()
  return %a, %b, %c : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// A load under a constant-false mask without `other` has no defined value to fold to: it stays.
// CHECK-LABEL: func.func @load_false_mask_no_other
// CHECK: "tile.load"(%arg0, {{%.*}})
func.func @load_false_mask_no_other(%p: !tile.ptr<f32, 1 : i32>) -> f32 {
  %f = arith.constant false
  %a = "tile.load"(%p, %f) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<f32, 1 : i32>, i1) -> f32
  return %a : f32
}

// -----

// Unused side-effect-free tile ops go, transitively; stores, volatile loads, atomics, prints and
// asserts stay.
// CHECK-LABEL: func.func @dead_code
// CHECK-NOT: tile.make_range
// CHECK-NOT: tile.program_id
// CHECK-NOT: tile.splat
// CHECK-NOT: tile.expand_dims
// CHECK-NOT: tile.dot
// CHECK: "tile.load"(%arg0) {cache = "none", evict = "evict_normal", is_volatile = true
// CHECK: "tile.atomic_rmw"
// CHECK: "tile.print"
// CHECK: "tile.assert"
// CHECK: "tile.store"
// CHECK-NEXT: return
func.func @dead_code(%p: !tile.ptr<f32, 1 : i32>, %x: f32, %b: i1, %a: tensor<16x16xf16>, %acc: tensor<16x16xf32>) {
  %r = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>
  %e = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %s = "tile.splat"(%pid) : (i32) -> tensor<64xi32>
  %d = "tile.dot"(%a, %a, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %plain = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  %vol = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = true, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  %old = "tile.atomic_rmw"(%p, %x) {rmw_op = "fadd", scope = "gpu", sem = "acq_rel"} : (!tile.ptr<f32, 1 : i32>, f32) -> f32
  "tile.print"(%x) {hex = false, prefix = "x="} : (f32) -> ()
  "tile.assert"(%b) {message = "b must hold"} : (i1) -> ()
  "tile.store"(%p, %x) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
  return
}

// -----

// Inside scf regions too.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK: arith.addi
// CHECK: "tile.addptr"(%arg0,
// CHECK-NOT: "tile.addptr"
// CHECK: scf.yield
func.func @in_loop(%p: !tile.ptr<f32, 1 : i32>, %n: index, %a: i32, %b: i32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %q = "tile.addptr"(%p, %a) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
    %r = "tile.addptr"(%q, %b) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
    %v = "tile.load"(%r) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
    %next = arith.addf %acc, %v : f32
    scf.yield %next : f32
  }
  return %sum : f32
}

// -----

// A remainder the axis analysis proves zero is the constant 0, and what tests it folds (a
// multiple of 64 is a multiple of 8); an unknown one, or one by a divisor the known power of
// two need not contain, stays.
// CHECK-LABEL: func.func @known_remainders
// CHECK: [[M:%.*]] = arith.muli %arg0
// CHECK-NOT: arith.remsi [[M]]
// CHECK: [[R:%.*]] = arith.remsi %arg0, %c8
// CHECK: [[S:%.*]] = arith.remui [[M]], %c6
// CHECK: return %c0_i32, [[R]], [[S]]
func.func @known_remainders(%x: i32) -> (i32, i32, i32) {
  %c64 = arith.constant 64 : i32
  %c8 = arith.constant 8 : i32
  %c6 = arith.constant 6 : i32
  %m = arith.muli %x, %c64 : i32
  %a = arith.remsi %m, %c8 : i32
  %b = arith.remsi %x, %c8 : i32
  %c = arith.remui %m, %c6 : i32
  return %a, %b, %c : i32, i32, i32
}
