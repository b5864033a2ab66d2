// RUN: tilec-opt %s | filecheck %s
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s > %t.1 && tilec-opt %t.1 > %t.2 && diff %t.1 %t.2

// Round trip of every `tile` op in the generic form, at the tile stage (tensors without
// encodings). Optional operands appear present and absent.

// --- program ids and index tensors -------------------------------------------------------------

// CHECK-LABEL: func.func @program_ids
// CHECK: [[PID:%.*]] = "tile.program_id"() {axis = 0 : i32} : () -> i32
// CHECK: "tile.program_id"() {axis = 2 : i32} : () -> i32
// CHECK: [[NUM:%.*]] = "tile.num_programs"() {axis = 1 : i32} : () -> i32
// CHECK: return [[PID]], [[NUM]] : i32, i32
func.func @program_ids() -> (i32, i32) {
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %pid_z = "tile.program_id"() {axis = 2 : i32} : () -> i32
  %num = "tile.num_programs"() {axis = 1 : i32} : () -> i32
  return %pid, %num : i32, i32
}

// CHECK-LABEL: func.func @make_range
// CHECK: "tile.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
// CHECK: "tile.make_range"() {end = 48 : i32, start = 16 : i32} : () -> tensor<32xi32>
func.func @make_range() {
  %0 = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %1 = "tile.make_range"() {start = 16 : i32, end = 48 : i32} : () -> tensor<32xi32>
  return
}

// --- shape ops ---------------------------------------------------------------------------------

// CHECK-LABEL: func.func @splat
// CHECK-SAME: ([[X:%[^:]*]]: f32, [[P:%[^:]*]]: !tile.ptr<f16, 1 : i32>)
// CHECK: "tile.splat"([[X]]) : (f32) -> tensor<64x32xf32>
// CHECK: "tile.splat"([[P]]) : (!tile.ptr<f16, 1 : i32>) -> tensor<128x!tile.ptr<f16, 1 : i32>>
func.func @splat(%x: f32, %p: !tile.ptr<f16, 1 : i32>) {
  %0 = "tile.splat"(%x) : (f32) -> tensor<64x32xf32>
  %1 = "tile.splat"(%p) : (!tile.ptr<f16, 1 : i32>) -> tensor<128x!tile.ptr<f16, 1 : i32>>
  return
}

// CHECK-LABEL: func.func @expand_broadcast
// CHECK-SAME: ([[R:%[^:]*]]: tensor<64xi32>)
// CHECK: [[ROW:%.*]] = "tile.expand_dims"([[R]]) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
// CHECK: [[COL:%.*]] = "tile.expand_dims"([[R]]) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
// CHECK: "tile.broadcast"([[ROW]]) : (tensor<1x64xi32>) -> tensor<32x64xi32>
// CHECK: "tile.broadcast"([[COL]]) : (tensor<64x1xi32>) -> tensor<64x32xi32>
func.func @expand_broadcast(%r: tensor<64xi32>) {
  %row = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %col = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %0 = "tile.broadcast"(%row) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %1 = "tile.broadcast"(%col) : (tensor<64x1xi32>) -> tensor<64x32xi32>
  return
}

// CHECK-LABEL: func.func @reshape_trans
// CHECK-SAME: ([[X:%[^:]*]]: tensor<4x8xf32>)
// CHECK: [[FLAT:%.*]] = "tile.reshape"([[X]]) {allow_reorder = false} : (tensor<4x8xf32>) -> tensor<32xf32>
// CHECK: "tile.reshape"([[FLAT]]) {allow_reorder = true} : (tensor<32xf32>) -> tensor<2x16xf32>
// CHECK: "tile.trans"([[X]]) {order = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
func.func @reshape_trans(%x: tensor<4x8xf32>) {
  %flat = "tile.reshape"(%x) {allow_reorder = false} : (tensor<4x8xf32>) -> tensor<32xf32>
  %0 = "tile.reshape"(%flat) {allow_reorder = true} : (tensor<32xf32>) -> tensor<2x16xf32>
  %1 = "tile.trans"(%x) {order = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// CHECK-LABEL: func.func @trans_3d
// CHECK: "tile.trans"({{.*}}) {order = array<i32: 2, 0, 1>} : (tensor<2x4x8xf16>) -> tensor<8x2x4xf16>
func.func @trans_3d(%x: tensor<2x4x8xf16>) {
  %0 = "tile.trans"(%x) {order = array<i32: 2, 0, 1>} : (tensor<2x4x8xf16>) -> tensor<8x2x4xf16>
  return
}

// CHECK-LABEL: func.func @join_split
// CHECK-SAME: ([[A:%[^:]*]]: tensor<4x8xf32>, [[B:%[^:]*]]: tensor<4x8xf32>)
// CHECK: [[J:%.*]] = "tile.join"([[A]], [[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8x2xf32>
// CHECK: [[S:%[^:]*]]:2 = "tile.split"([[J]]) : (tensor<4x8x2xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: return [[S]]#0, [[S]]#1 : tensor<4x8xf32>, tensor<4x8xf32>
func.func @join_split(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %j = "tile.join"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8x2xf32>
  %lo, %hi = "tile.split"(%j) : (tensor<4x8x2xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %lo, %hi : tensor<4x8xf32>, tensor<4x8xf32>
}

// --- pointers, loads and stores ----------------------------------------------------------------

// addptr on a scalar pointer and on a tensor of pointers (the result type is the pointer type).
// CHECK-LABEL: func.func @addptr
// CHECK-SAME: ([[P:%[^:]*]]: !tile.ptr<f32, 1 : i32>, [[O:%[^:]*]]: i32, [[OFFS:%[^:]*]]: tensor<128xi32>)
// CHECK: [[Q:%.*]] = "tile.addptr"([[P]], [[O]]) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
// CHECK: [[PS:%.*]] = "tile.splat"([[Q]])
// CHECK: [[PT:%.*]] = "tile.addptr"([[PS]], [[OFFS]]) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
// CHECK: "tile.addptr"([[PT]], {{%.*}}) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi64>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
func.func @addptr(%p: !tile.ptr<f32, 1 : i32>, %o: i32, %offs: tensor<128xi32>) {
  %q = "tile.addptr"(%p, %o) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f32, 1 : i32>
  %ps = "tile.splat"(%q) : (!tile.ptr<f32, 1 : i32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
  %pt = "tile.addptr"(%ps, %offs) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
  %offs64 = arith.extsi %offs : tensor<128xi32> to tensor<128xi64>
  %0 = "tile.addptr"(%pt, %offs64) : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xi64>) -> tensor<128x!tile.ptr<f32, 1 : i32>>
  return
}

// CHECK-LABEL: func.func @load_scalar
// CHECK-SAME: ([[P:%[^:]*]]: !tile.ptr<f32, 1 : i32>, [[M:%[^:]*]]: i1, [[O:%[^:]*]]: f32)
// CHECK: "tile.load"([[P]]) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
// CHECK: "tile.load"([[P]], [[M]]) {cache = "ca", evict = "evict_first", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<f32, 1 : i32>, i1) -> f32
// CHECK: "tile.load"([[P]], [[M]], [[O]]) {cache = "cv", evict = "evict_last", is_volatile = true, operandSegmentSizes = array<i32: 1, 1, 1>} : (!tile.ptr<f32, 1 : i32>, i1, f32) -> f32
func.func @load_scalar(%p: !tile.ptr<f32, 1 : i32>, %m: i1, %o: f32) {
  %0 = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  %1 = "tile.load"(%p, %m) {cache = "ca", evict = "evict_first", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<f32, 1 : i32>, i1) -> f32
  %2 = "tile.load"(%p, %m, %o) {cache = "cv", evict = "evict_last", is_volatile = true, operandSegmentSizes = array<i32: 1, 1, 1>} : (!tile.ptr<f32, 1 : i32>, i1, f32) -> f32
  return
}

// CHECK-LABEL: func.func @load_tensor
// CHECK-SAME: ([[P:%[^:]*]]: tensor<128x!tile.ptr<f16, 1 : i32>>, [[M:%[^:]*]]: tensor<128xi1>, [[O:%[^:]*]]: tensor<128xf16>)
// CHECK: [[V:%.*]] = "tile.load"([[P]]) {cache = "cg", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f16, 1 : i32>>) -> tensor<128xf16>
// CHECK: [[W:%.*]] = "tile.load"([[P]], [[M]], [[O]]) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f16, 1 : i32>>, tensor<128xi1>, tensor<128xf16>) -> tensor<128xf16>
// CHECK: return [[V]], [[W]]
func.func @load_tensor(%p: tensor<128x!tile.ptr<f16, 1 : i32>>, %m: tensor<128xi1>, %o: tensor<128xf16>)
    -> (tensor<128xf16>, tensor<128xf16>) {
  %v = "tile.load"(%p) {cache = "cg", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f16, 1 : i32>>) -> tensor<128xf16>
  %w = "tile.load"(%p, %m, %o) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<128x!tile.ptr<f16, 1 : i32>>, tensor<128xi1>, tensor<128xf16>) -> tensor<128xf16>
  return %v, %w : tensor<128xf16>, tensor<128xf16>
}

// store has one optional operand (mask), so it needs no operandSegmentSizes.
// CHECK-LABEL: func.func @store
// CHECK-SAME: ([[P:%[^:]*]]: tensor<128x!tile.ptr<f32, 1 : i32>>, [[V:%[^:]*]]: tensor<128xf32>, [[M:%[^:]*]]: tensor<128xi1>, [[SP:%[^:]*]]: !tile.ptr<i32, 1 : i32>, [[SV:%[^:]*]]: i32)
// CHECK: "tile.store"([[P]], [[V]]) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>) -> ()
// CHECK: "tile.store"([[P]], [[V]], [[M]]) {cache = "wb", evict = "evict_first"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>, tensor<128xi1>) -> ()
// CHECK: "tile.store"([[P]], [[V]], [[M]]) {cache = "cs", evict = "evict_last"}
// CHECK: "tile.store"([[P]], [[V]]) {cache = "wt", evict = "evict_normal"}
// CHECK: "tile.store"([[SP]], [[SV]]) {cache = "cg", evict = "evict_normal"} : (!tile.ptr<i32, 1 : i32>, i32) -> ()
func.func @store(%p: tensor<128x!tile.ptr<f32, 1 : i32>>, %v: tensor<128xf32>, %m: tensor<128xi1>,
                 %sp: !tile.ptr<i32, 1 : i32>, %sv: i32) {
  "tile.store"(%p, %v) {cache = "none", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>) -> ()
  "tile.store"(%p, %v, %m) {cache = "wb", evict = "evict_first"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>, tensor<128xi1>) -> ()
  "tile.store"(%p, %v, %m) {cache = "cs", evict = "evict_last"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>, tensor<128xi1>) -> ()
  "tile.store"(%p, %v) {cache = "wt", evict = "evict_normal"} : (tensor<128x!tile.ptr<f32, 1 : i32>>, tensor<128xf32>) -> ()
  "tile.store"(%sp, %sv) {cache = "cg", evict = "evict_normal"} : (!tile.ptr<i32, 1 : i32>, i32) -> ()
  return
}

// A TMA load: the map (an !llvm.ptr), one i32 offset per dimension of the block (any number
// of them: 1-D and 3-D too) and the swizzle span.
// CHECK-LABEL: func.func @tma_load
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[I:%[^:]*]]: i32, [[J:%[^:]*]]: i32)
// CHECK: [[A:%.*]] = "tile.tma_load"([[MAP]], [[I]], [[J]]) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
// CHECK: "tile.tma_load"([[MAP]], [[J]]) {swizzle = 64 : i32} : (!llvm.ptr, i32) -> tensor<128xf32>
// CHECK: "tile.tma_load"([[MAP]], [[J]], [[I]], [[J]]) {swizzle = 32 : i32} : (!llvm.ptr, i32, i32, i32) -> tensor<2x8x32xi8>
// CHECK: return [[A]]
func.func @tma_load(%map: !llvm.ptr, %i: i32, %j: i32) -> tensor<64x64xf16> {
  %a = "tile.tma_load"(%map, %i, %j) {swizzle = 128 : i32} : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  %b = "tile.tma_load"(%map, %j) {swizzle = 64 : i32} : (!llvm.ptr, i32) -> tensor<128xf32>
  %c = "tile.tma_load"(%map, %j, %i, %j) {swizzle = 32 : i32} : (!llvm.ptr, i32, i32, i32) -> tensor<2x8x32xi8>
  return %a : tensor<64x64xf16>
}

// A TMA reduction: the map, the value, one i32 offset per dimension, the swizzle span and the
// kind.
// CHECK-LABEL: func.func @tma_reduce
// CHECK: "tile.tma_reduce"(%arg0, %arg1, %arg2, %arg2) {kind = "add", swizzle = 128 : i32} : (!llvm.ptr, tensor<64x32xf32>, i32, i32) -> ()
func.func @tma_reduce(%map: !llvm.ptr, %x: tensor<64x32xf32>, %i: i32) {
  "tile.tma_reduce"(%map, %x, %i, %i) {swizzle = 128 : i32, kind = "add"} : (!llvm.ptr, tensor<64x32xf32>, i32, i32) -> ()
  return
}

// A TMA map made in the kernel: the global scratch, the base pointer, the two sizes and the
// outer stride (i64), the box (outermost first), the swizzle span and the scratch slot; the
// map's generic address.
// CHECK-LABEL: func.func @make_tensormap
// CHECK-SAME: ([[S:%[^:]*]]: !tile.ptr<i8, 1 : i32>, [[P:%[^:]*]]: !tile.ptr<f16, 1 : i32>, [[M:%[^:]*]]: i64, [[N:%[^:]*]]: i64)
// CHECK: [[MAP:%.*]] = "tile.make_tensormap"([[S]], [[P]], [[M]], [[N]], [[N]]) {box = array<i32: 128, 64>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, slot = 2 : i32, swizzle = 128 : i32} : (!tile.ptr<i8, 1 : i32>, !tile.ptr<f16, 1 : i32>, i64, i64, i64) -> !llvm.ptr
// CHECK: return [[MAP]]
func.func @make_tensormap(%s: !tile.ptr<i8, 1 : i32>, %p: !tile.ptr<f16, 1 : i32>, %m: i64, %n: i64) -> !llvm.ptr {
  %map = "tile.make_tensormap"(%s, %p, %m, %n, %n) {box = array<i32: 128, 64>, swizzle = 128 : i32, slot = 2 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (!tile.ptr<i8, 1 : i32>, !tile.ptr<f16, 1 : i32>, i64, i64, i64) -> !llvm.ptr
  return %map : !llvm.ptr
}

// A TMA store: the map, the value (the block), one i32 offset per dimension of it (1-D and
// 3-D too) and the swizzle span; no result.
// CHECK-LABEL: func.func @tma_store
// CHECK-SAME: ([[MAP:%[^:]*]]: !llvm.ptr, [[A:%[^:]*]]: tensor<64x64xf16>, [[B:%[^:]*]]: tensor<128xf32>, [[C:%[^:]*]]: tensor<2x8x32xi8>, [[I:%[^:]*]]: i32, [[J:%[^:]*]]: i32)
// CHECK: "tile.tma_store"([[MAP]], [[A]], [[I]], [[J]]) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16>, i32, i32) -> ()
// CHECK: "tile.tma_store"([[MAP]], [[B]], [[J]]) {swizzle = 64 : i32} : (!llvm.ptr, tensor<128xf32>, i32) -> ()
// CHECK: "tile.tma_store"([[MAP]], [[C]], [[J]], [[I]], [[J]]) {swizzle = 32 : i32} : (!llvm.ptr, tensor<2x8x32xi8>, i32, i32, i32) -> ()
// CHECK: return
func.func @tma_store(%map: !llvm.ptr, %a: tensor<64x64xf16>, %b: tensor<128xf32>, %c: tensor<2x8x32xi8>, %i: i32, %j: i32) {
  "tile.tma_store"(%map, %a, %i, %j) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16>, i32, i32) -> ()
  "tile.tma_store"(%map, %b, %j) {swizzle = 64 : i32} : (!llvm.ptr, tensor<128xf32>, i32) -> ()
  "tile.tma_store"(%map, %c, %j, %i, %j) {swizzle = 32 : i32} : (!llvm.ptr, tensor<2x8x32xi8>, i32, i32, i32) -> ()
  return
}

// --- dot ---------------------------------------------------------------------------------------

// CHECK-LABEL: func.func @dot
// CHECK-SAME: ([[A:%[^:]*]]: tensor<64x32xf16>, [[B:%[^:]*]]: tensor<32x64xf16>, [[C:%[^:]*]]: tensor<64x64xf32>, [[AF:%[^:]*]]: tensor<16x16xf32>, [[BF:%[^:]*]]: tensor<16x16xf32>, [[CF:%[^:]*]]: tensor<16x16xf32>)
// CHECK: [[D:%.*]] = "tile.dot"([[A]], [[B]], [[C]]) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK: "tile.dot"([[AF]], [[BF]], [[CF]]) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32}
// CHECK: "tile.dot"([[AF]], [[BF]], [[CF]]) {input_precision = "tf32x3", max_num_imprecise_acc = 32 : i32}
// CHECK: return [[D]]
func.func @dot(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>,
               %af: tensor<16x16xf32>, %bf: tensor<16x16xf32>, %cf: tensor<16x16xf32>)
    -> tensor<64x64xf32> {
  %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = "tile.dot"(%af, %bf, %cf) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = "tile.dot"(%af, %bf, %cf) {input_precision = "tf32x3", max_num_imprecise_acc = 32 : i32} : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %d : tensor<64x64xf32>
}

// --- reduce and scan ---------------------------------------------------------------------------

// A sum over axis 1 (one operand) and over all of a 1-D tensor (the result is a scalar).
// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME: ([[X:%[^:]*]]: tensor<4x8xf32>, [[Y:%[^:]*]]: tensor<128xi32>)
// CHECK: [[R:%.*]] = "tile.reduce"([[X]]) ({
// CHECK-NEXT: ^bb0([[L:%[^:]*]]: f32, [[R2:%[^:]*]]: f32):
// CHECK-NEXT: [[S:%.*]] = arith.addf [[L]], [[R2]] : f32
// CHECK-NEXT: gpu.yield [[S]] : f32
// CHECK-NEXT: }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK: [[T:%.*]] = "tile.reduce"([[Y]]) ({
// CHECK: arith.addi
// CHECK: }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xi32>) -> i32
// CHECK: return [[R]], [[T]] : tensor<4xf32>, i32
func.func @reduce_sum(%x: tensor<4x8xf32>, %y: tensor<128xi32>) -> (tensor<4xf32>, i32) {
  %r = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %t = "tile.reduce"(%y) ({
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    gpu.yield %s : i32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xi32>) -> i32
  return %r, %t : tensor<4xf32>, i32
}

// argmax: f32 values and i32 indices reduced together; the combine block takes
// (acc value, acc index, new value, new index) and yields the winning pair.
// CHECK-LABEL: func.func @reduce_argmax
// CHECK-SAME: ([[V:%[^:]*]]: tensor<32x64xf32>, [[I:%[^:]*]]: tensor<32x64xi32>)
// CHECK: [[R:%[^:]*]]:2 = "tile.reduce"([[V]], [[I]]) ({
// CHECK-NEXT: ^bb0([[V0:%[^:]*]]: f32, [[I0:%[^:]*]]: i32, [[V1:%[^:]*]]: f32, [[I1:%[^:]*]]: i32):
// CHECK-NEXT: [[GT:%.*]] = arith.cmpf ogt, [[V0]], [[V1]] : f32
// CHECK-NEXT: [[VM:%.*]] = arith.select [[GT]], [[V0]], [[V1]] : f32
// CHECK-NEXT: [[IM:%.*]] = arith.select [[GT]], [[I0]], [[I1]] : i32
// CHECK-NEXT: gpu.yield [[VM]], [[IM]] : f32, i32
// CHECK-NEXT: }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<32x64xf32>, tensor<32x64xi32>) -> (tensor<32xf32>, tensor<32xi32>)
// CHECK: return [[R]]#1 : tensor<32xi32>
func.func @reduce_argmax(%v: tensor<32x64xf32>, %i: tensor<32x64xi32>) -> tensor<32xi32> {
  %max, %idx = "tile.reduce"(%v, %i) ({
  ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
    %gt = arith.cmpf ogt, %v0, %v1 : f32
    %vm = arith.select %gt, %v0, %v1 : f32
    %im = arith.select %gt, %i0, %i1 : i32
    gpu.yield %vm, %im : f32, i32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<32x64xf32>, tensor<32x64xi32>) -> (tensor<32xf32>, tensor<32xi32>)
  return %idx : tensor<32xi32>
}

// The most a reduce takes: four tensors.
// CHECK-LABEL: func.func @reduce_four
// CHECK: "tile.reduce"({{.*}}) ({
// CHECK: gpu.yield {{.*}} : f32, i32, f16, i64
// CHECK: }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<16xf32>, tensor<16xi32>, tensor<16xf16>, tensor<16xi64>) -> (f32, i32, f16, i64)
func.func @reduce_four(%a: tensor<16xf32>, %b: tensor<16xi32>, %c: tensor<16xf16>, %d: tensor<16xi64>) {
  %r:4 = "tile.reduce"(%a, %b, %c, %d) ({
  ^bb0(%a0: f32, %b0: i32, %c0: f16, %d0: i64, %a1: f32, %b1: i32, %c1: f16, %d1: i64):
    gpu.yield %a0, %b0, %c0, %d0 : f32, i32, f16, i64
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<16xf32>, tensor<16xi32>, tensor<16xf16>, tensor<16xi64>) -> (f32, i32, f16, i64)
  return
}

// Inclusive prefix sum, forward and reversed; a scan's results have its operands' types.
// CHECK-LABEL: func.func @scan
// CHECK-SAME: ([[X:%[^:]*]]: tensor<4x64xf32>)
// CHECK: [[F:%.*]] = "tile.scan"([[X]]) ({
// CHECK-NEXT: ^bb0([[A:%[^:]*]]: f32, [[B:%[^:]*]]: f32):
// CHECK-NEXT: [[S:%.*]] = arith.addf [[A]], [[B]] : f32
// CHECK-NEXT: gpu.yield [[S]] : f32
// CHECK-NEXT: }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, reverse = false} : (tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK: [[R:%.*]] = "tile.scan"([[F]]) ({
// CHECK: }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, reverse = true} : (tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK: return [[R]]
func.func @scan(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %f = "tile.scan"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {axis = 1 : i32, reverse = false, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %r = "tile.scan"(%f) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {axis = 0 : i32, reverse = true, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// A scan over two tensors of different element types (a running max with its index).
// CHECK-LABEL: func.func @scan_pair
// CHECK-SAME: ([[V:%[^:]*]]: tensor<128xf16>, [[I:%[^:]*]]: tensor<128xi32>)
// CHECK: [[R:%[^:]*]]:2 = "tile.scan"([[V]], [[I]]) ({
// CHECK-NEXT: ^bb0({{%[^:]*}}: f16, {{%[^:]*}}: i32, {{%[^:]*}}: f16, {{%[^:]*}}: i32):
// CHECK: }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>, reverse = false} : (tensor<128xf16>, tensor<128xi32>) -> (tensor<128xf16>, tensor<128xi32>)
// CHECK: return [[R]]#0, [[R]]#1
func.func @scan_pair(%v: tensor<128xf16>, %i: tensor<128xi32>) -> (tensor<128xf16>, tensor<128xi32>) {
  %m:2 = "tile.scan"(%v, %i) ({
  ^bb0(%v0: f16, %i0: i32, %v1: f16, %i1: i32):
    %ge = arith.cmpf oge, %v0, %v1 : f16
    %vm = arith.select %ge, %v0, %v1 : f16
    %im = arith.select %ge, %i0, %i1 : i32
    gpu.yield %vm, %im : f16, i32
  }) {axis = 0 : i32, reverse = false, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<128xf16>, tensor<128xi32>) -> (tensor<128xf16>, tensor<128xi32>)
  return %m#0, %m#1 : tensor<128xf16>, tensor<128xi32>
}

// --- sort, gather, histogram, cat --------------------------------------------------------------

// CHECK-LABEL: func.func @sort_gather_histogram_cat
// CHECK-SAME: ([[X:%[^:]*]]: tensor<8x64xf32>, [[IDX:%[^:]*]]: tensor<4x64xi32>, [[V:%[^:]*]]: tensor<256xi32>, [[Y:%[^:]*]]: tensor<8x64xf32>)
// CHECK: "tile.sort"([[X]]) {axis = 1 : i32, descending = false} : (tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK: "tile.sort"([[X]]) {axis = 1 : i32, descending = true} : (tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK: "tile.gather"([[X]], [[IDX]]) {axis = 0 : i32} : (tensor<8x64xf32>, tensor<4x64xi32>) -> tensor<4x64xf32>
// CHECK: "tile.histogram"([[V]]) : (tensor<256xi32>) -> tensor<16xi32>
// CHECK: "tile.cat"([[X]], [[Y]]) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<16x64xf32>
func.func @sort_gather_histogram_cat(%x: tensor<8x64xf32>, %idx: tensor<4x64xi32>,
                                     %v: tensor<256xi32>, %y: tensor<8x64xf32>) {
  %0 = "tile.sort"(%x) {axis = 1 : i32, descending = false} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %1 = "tile.sort"(%x) {axis = 1 : i32, descending = true} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %2 = "tile.gather"(%x, %idx) {axis = 0 : i32} : (tensor<8x64xf32>, tensor<4x64xi32>) -> tensor<4x64xf32>
  %3 = "tile.histogram"(%v) : (tensor<256xi32>) -> tensor<16xi32>
  %4 = "tile.cat"(%x, %y) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<16x64xf32>
  return
}

// --- inline asm --------------------------------------------------------------------------------

// CHECK-LABEL: func.func @elementwise_inline_asm
// CHECK: "tile.elementwise_inline_asm"(%{{.*}}, %{{.*}}) {asm = "add.f32 $0, $2, $3; sub.s32 $1, $2, $3;", constraints = "=f,=r,f,r", operandSegmentSizes = array<i32: 1, 1, 0, 0>, pack = 1 : i32, pure = true, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64xf32>, tensor<64xf32>) -> (tensor<64xf32>, tensor<64xi32>)
// CHECK: "tile.elementwise_inline_asm"(%{{.*}}) {asm = "and.b32 $0, $1, 0x1F1F1F1F;", constraints = "=r,r", operandSegmentSizes = array<i32: 1, 0, 0, 0>, pack = 4 : i32, pure = false, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64xi8>) -> tensor<64xi8>
func.func @elementwise_inline_asm(%x: tensor<64xf32>, %y: tensor<64xf32>, %b: tensor<64xi8>) {
  %s, %d = "tile.elementwise_inline_asm"(%x, %y) {asm = "add.f32 $0, $2, $3; sub.s32 $1, $2, $3;", constraints = "=f,=r,f,r", operandSegmentSizes = array<i32: 1, 1, 0, 0>, pack = 1 : i32, pure = true, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64xf32>, tensor<64xf32>) -> (tensor<64xf32>, tensor<64xi32>)
  %m = "tile.elementwise_inline_asm"(%b) {asm = "and.b32 $0, $1, 0x1F1F1F1F;", constraints = "=r,r", operandSegmentSizes = array<i32: 1, 0, 0, 0>, pack = 4 : i32, pure = false, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64xi8>) -> tensor<64xi8>
  return
}

// --- atomics -----------------------------------------------------------------------------------

// CHECK-LABEL: func.func @atomic_rmw
// CHECK-SAME: ([[P:%[^:]*]]: tensor<64x!tile.ptr<f32, 1 : i32>>, [[V:%[^:]*]]: tensor<64xf32>, [[M:%[^:]*]]: tensor<64xi1>, [[SP:%[^:]*]]: !tile.ptr<i32, 1 : i32>, [[SV:%[^:]*]]: i32)
// CHECK: "tile.atomic_rmw"([[P]], [[V]]) {rmw_op = "fadd", scope = "gpu", sem = "acq_rel"} : (tensor<64x!tile.ptr<f32, 1 : i32>>, tensor<64xf32>) -> tensor<64xf32>
// CHECK: "tile.atomic_rmw"([[P]], [[V]], [[M]]) {rmw_op = "fadd", scope = "cta", sem = "relaxed"} : (tensor<64x!tile.ptr<f32, 1 : i32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "add", scope = "sys", sem = "acquire"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "and", scope = "gpu", sem = "release"}
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "or", scope = "gpu", sem = "acq_rel"}
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "xor", scope = "gpu", sem = "acq_rel"}
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "max", scope = "gpu", sem = "acq_rel"}
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "min", scope = "gpu", sem = "acq_rel"}
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "umax", scope = "gpu", sem = "acq_rel"}
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "umin", scope = "gpu", sem = "acq_rel"}
// CHECK: "tile.atomic_rmw"([[SP]], [[SV]]) {rmw_op = "xchg", scope = "gpu", sem = "acq_rel"}
func.func @atomic_rmw(%p: tensor<64x!tile.ptr<f32, 1 : i32>>, %v: tensor<64xf32>, %m: tensor<64xi1>,
                      %sp: !tile.ptr<i32, 1 : i32>, %sv: i32) {
  %0 = "tile.atomic_rmw"(%p, %v) {rmw_op = "fadd", sem = "acq_rel", scope = "gpu"} : (tensor<64x!tile.ptr<f32, 1 : i32>>, tensor<64xf32>) -> tensor<64xf32>
  %1 = "tile.atomic_rmw"(%p, %v, %m) {rmw_op = "fadd", sem = "relaxed", scope = "cta"} : (tensor<64x!tile.ptr<f32, 1 : i32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  %2 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "add", sem = "acquire", scope = "sys"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %3 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "and", sem = "release", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %4 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "or", sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %5 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "xor", sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %6 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "max", sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %7 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "min", sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %8 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "umax", sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %9 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "umin", sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  %10 = "tile.atomic_rmw"(%sp, %sv) {rmw_op = "xchg", sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32) -> i32
  return
}

// CHECK-LABEL: func.func @atomic_cas
// CHECK-SAME: ([[P:%[^:]*]]: !tile.ptr<i32, 1 : i32>, [[C:%[^:]*]]: i32, [[V:%[^:]*]]: i32, [[PT:%[^:]*]]: tensor<32x!tile.ptr<i64, 1 : i32>>, [[CT:%[^:]*]]: tensor<32xi64>)
// CHECK: [[OLD:%.*]] = "tile.atomic_cas"([[P]], [[C]], [[V]]) {scope = "gpu", sem = "acq_rel"} : (!tile.ptr<i32, 1 : i32>, i32, i32) -> i32
// CHECK: "tile.atomic_cas"([[PT]], [[CT]], [[CT]]) {scope = "cta", sem = "relaxed"} : (tensor<32x!tile.ptr<i64, 1 : i32>>, tensor<32xi64>, tensor<32xi64>) -> tensor<32xi64>
// CHECK: return [[OLD]]
func.func @atomic_cas(%p: !tile.ptr<i32, 1 : i32>, %c: i32, %v: i32,
                      %pt: tensor<32x!tile.ptr<i64, 1 : i32>>, %ct: tensor<32xi64>) -> i32 {
  %old = "tile.atomic_cas"(%p, %c, %v) {sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32, i32) -> i32
  %0 = "tile.atomic_cas"(%pt, %ct, %ct) {sem = "relaxed", scope = "cta"} : (tensor<32x!tile.ptr<i64, 1 : i32>>, tensor<32xi64>, tensor<32xi64>) -> tensor<32xi64>
  return %old : i32
}

// --- casts -------------------------------------------------------------------------------------

// CHECK-LABEL: func.func @casts
// CHECK-SAME: ([[X:%[^:]*]]: tensor<64xf32>, [[H:%[^:]*]]: tensor<64xf8E4M3FN>, [[P:%[^:]*]]: !tile.ptr<f32, 1 : i32>, [[I:%[^:]*]]: i64)
// CHECK: "tile.fp_to_fp"([[X]]) {rounding = "rtne"} : (tensor<64xf32>) -> tensor<64xf8E4M3FN>
// CHECK: "tile.fp_to_fp"([[X]]) {rounding = "rtz"} : (tensor<64xf32>) -> tensor<64xf8E5M2>
// CHECK: "tile.fp_to_fp"([[H]]) {rounding = "none"} : (tensor<64xf8E4M3FN>) -> tensor<64xf32>
// CHECK: "tile.bitcast"([[X]]) : (tensor<64xf32>) -> tensor<64xi32>
// CHECK: "tile.bitcast"([[P]]) : (!tile.ptr<f32, 1 : i32>) -> !tile.ptr<i32, 1 : i32>
// CHECK: [[PI:%.*]] = "tile.ptr_to_int"([[P]]) : (!tile.ptr<f32, 1 : i32>) -> i64
// CHECK: "tile.int_to_ptr"([[I]]) : (i64) -> !tile.ptr<f32, 1 : i32>
// CHECK: return [[PI]]
func.func @casts(%x: tensor<64xf32>, %h: tensor<64xf8E4M3FN>, %p: !tile.ptr<f32, 1 : i32>, %i: i64) -> i64 {
  %0 = "tile.fp_to_fp"(%x) {rounding = "rtne"} : (tensor<64xf32>) -> tensor<64xf8E4M3FN>
  %1 = "tile.fp_to_fp"(%x) {rounding = "rtz"} : (tensor<64xf32>) -> tensor<64xf8E5M2>
  %2 = "tile.fp_to_fp"(%h) {rounding = "none"} : (tensor<64xf8E4M3FN>) -> tensor<64xf32>
  %3 = "tile.bitcast"(%x) : (tensor<64xf32>) -> tensor<64xi32>
  %4 = "tile.bitcast"(%p) : (!tile.ptr<f32, 1 : i32>) -> !tile.ptr<i32, 1 : i32>
  %pi = "tile.ptr_to_int"(%p) : (!tile.ptr<f32, 1 : i32>) -> i64
  %5 = "tile.int_to_ptr"(%i) : (i64) -> !tile.ptr<f32, 1 : i32>
  return %pi : i64
}

// --- debugging ---------------------------------------------------------------------------------

// CHECK-LABEL: func.func @print_assert
// CHECK-SAME: ([[X:%[^:]*]]: tensor<16xi32>, [[PID:%[^:]*]]: i32, [[C:%[^:]*]]: tensor<16xi1>)
// CHECK: "tile.print"() {hex = false, prefix = "hello"} : () -> ()
// CHECK: "tile.print"([[PID]]) {hex = false, prefix = "pid: "} : (i32) -> ()
// CHECK: "tile.print"([[X]]) {hex = true, prefix = "x: "} : (tensor<16xi32>) -> ()
// CHECK: "tile.assert"([[C]]) {message = "x must be positive"} : (tensor<16xi1>) -> ()
func.func @print_assert(%x: tensor<16xi32>, %pid: i32, %c: tensor<16xi1>) {
  "tile.print"() {prefix = "hello", hex = false} : () -> ()
  "tile.print"(%pid) {prefix = "pid: ", hex = false} : (i32) -> ()
  "tile.print"(%x) {prefix = "x: ", hex = true} : (tensor<16xi32>) -> ()
  "tile.assert"(%c) {message = "x must be positive"} : (tensor<16xi1>) -> ()
  return
}

// --- a whole kernel ----------------------------------------------------------------------------

// z[i] = x[i] + y[i] over one block of 1024 elements, as the frontend emits it.
// CHECK-LABEL: func.func @add_kernel
// CHECK-SAME: ([[X:%[^:]*]]: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, [[Y:%[^:]*]]: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, [[Z:%[^:]*]]: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, [[N:%[^:]*]]: i32)
// CHECK: [[PID:%.*]] = "tile.program_id"() {axis = 0 : i32}
// CHECK: [[START:%.*]] = arith.muli [[PID]], {{%.*}} : i32
// CHECK: [[RANGE:%.*]] = "tile.make_range"() {end = 1024 : i32, start = 0 : i32}
// CHECK: [[OFFS:%.*]] = arith.addi {{%.*}}, [[RANGE]] : tensor<1024xi32>
// CHECK: [[MASK:%.*]] = arith.cmpi slt, [[OFFS]], {{%.*}} : tensor<1024xi32>
// CHECK: [[XS:%.*]] = "tile.splat"([[X]])
// CHECK: [[XP:%.*]] = "tile.addptr"([[XS]], [[OFFS]])
// CHECK: [[XV:%.*]] = "tile.load"([[XP]], [[MASK]]) {{.*}}operandSegmentSizes = array<i32: 1, 1, 0>
// CHECK: [[YV:%.*]] = "tile.load"({{%.*}}, [[MASK]])
// CHECK: [[SUM:%.*]] = arith.addf [[XV]], [[YV]] : tensor<1024xf32>
// CHECK: "tile.store"({{%.*}}, [[SUM]], [[MASK]])
func.func @add_kernel(%x: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32},
                      %z: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}, %n: i32) {
  %c1024 = arith.constant 1024 : i32
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %start = arith.muli %pid, %c1024 : i32
  %range = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %starts = "tile.splat"(%start) : (i32) -> tensor<1024xi32>
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = "tile.splat"(%x) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
  %xp = "tile.addptr"(%xs, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
  %xv = "tile.load"(%xp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi1>) -> tensor<1024xf32>
  %ys = "tile.splat"(%y) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
  %yp = "tile.addptr"(%ys, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
  %yv = "tile.load"(%yp, %mask) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi1>) -> tensor<1024xf32>
  %sum = arith.addf %xv, %yv : tensor<1024xf32>
  %zs = "tile.splat"(%z) : (!tile.ptr<f32, 1 : i32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
  %zp = "tile.addptr"(%zs, %offs) : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32, 1 : i32>>
  "tile.store"(%zp, %sum, %mask) {cache = "none", evict = "evict_normal"} : (tensor<1024x!tile.ptr<f32, 1 : i32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
  return
}
