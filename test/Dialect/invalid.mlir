// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// Inputs the IRDL definitions reject. IRDL's messages name the failing constraint, not always the
// op or the operand; the location (the line) is what pins each one down.

// --- attributes: allowed values ----------------------------------------------------------------

func.func @load_store_cache_on_load(%p: !tile.ptr<f32, 1 : i32>) {
  // expected-error@+1 {{'"wb"' does not satisfy the constraint}}
  %0 = "tile.load"(%p) {cache = "wb", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  return
}

// -----

func.func @load_cache_on_store(%p: !tile.ptr<f32, 1 : i32>, %v: f32) {
  // expected-error@+1 {{'"ca"' does not satisfy the constraint}}
  "tile.store"(%p, %v) {cache = "ca", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
  return
}

// -----

func.func @load_bad_evict(%p: !tile.ptr<f32, 1 : i32>) {
  // expected-error@+1 {{'"evict_early"' does not satisfy the constraint}}
  %0 = "tile.load"(%p) {cache = "none", evict = "evict_early", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  return
}

// -----

// Boolean attributes must be `true` or `false` (i1), not another integer.
func.func @load_volatile_not_bool(%p: !tile.ptr<f32, 1 : i32>) {
  // expected-error@+1 {{'0 : i32' does not satisfy the constraint}}
  %0 = "tile.load"(%p) {cache = "none", evict = "evict_normal", is_volatile = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  return
}

// -----

func.func @reshape_allow_reorder_not_bool(%a: tensor<16xf16>) {
  // expected-error@+1 {{'1 : i32' does not satisfy the constraint}}
  %0 = "tile.reshape"(%a) {allow_reorder = 1 : i32} : (tensor<16xf16>) -> tensor<4x4xf16>
  return
}

// -----

func.func @dot_bad_precision(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'"fast"' does not satisfy the constraint}}
  %0 = "tile.dot"(%a, %a, %c) {input_precision = "fast", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return
}

// -----

func.func @atomic_rmw_bad_op(%p: !tile.ptr<f32, 1 : i32>, %v: f32) {
  // expected-error@+1 {{'"mul"' does not satisfy the constraint}}
  %0 = "tile.atomic_rmw"(%p, %v) {rmw_op = "mul", sem = "relaxed", scope = "gpu"} : (!tile.ptr<f32, 1 : i32>, f32) -> f32
  return
}

// -----

func.func @atomic_rmw_bad_sem(%p: !tile.ptr<f32, 1 : i32>, %v: f32, %m: i1) {
  // expected-error@+1 {{'"seq_cst"' does not satisfy the constraint}}
  %0 = "tile.atomic_rmw"(%p, %v, %m) {rmw_op = "fadd", sem = "seq_cst", scope = "gpu"} : (!tile.ptr<f32, 1 : i32>, f32, i1) -> f32
  return
}

// -----

func.func @atomic_cas_bad_scope(%p: !tile.ptr<i32, 1 : i32>, %v: i32) {
  // expected-error@+1 {{'"block"' does not satisfy the constraint}}
  %0 = "tile.atomic_cas"(%p, %v, %v) {sem = "relaxed", scope = "block"} : (!tile.ptr<i32, 1 : i32>, i32, i32) -> i32
  return
}

// -----

func.func @fp_to_fp_bad_rounding(%x: f32) {
  // expected-error@+1 {{'"rtp"' does not satisfy the constraint}}
  %0 = "tile.fp_to_fp"(%x) {rounding = "rtp"} : (f32) -> f16
  return
}

// -----

// "cv" is a load cache modifier but not one cp.async has.
func.func @async_copy_bad_cache(%p: tensor<64x!tile.ptr<f16, 1 : i32>>, %d: !tilegpu.memdesc<[64], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  // expected-error@+1 {{'"cv"' does not satisfy the constraint}}
  %0 = "tilegpu.async_copy_global_to_local"(%p, %d) {cache = "cv", evict = "evict_normal", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x!tile.ptr<f16, 1 : i32>>, !tilegpu.memdesc<[64], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> !tilegpu.async_token
  return
}

// -----

// --- attributes: kinds -------------------------------------------------------------------------

func.func @program_id_axis_not_integer() {
  // expected-error@+1 {{expected base attribute 'builtin.integer' but got 'builtin.string'}}
  %0 = "tile.program_id"() {axis = "x"} : () -> i32
  return
}

// -----

func.func @trans_order_not_dense_array(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{expected base attribute 'builtin.dense_array' but got 'builtin.array'}}
  %0 = "tile.trans"(%x) {order = [1, 0]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @assert_message_not_string(%c: i1) {
  // expected-error@+1 {{expected base attribute 'builtin.string' but got 'builtin.integer'}}
  "tile.assert"(%c) {message = 3 : i32} : (i1) -> ()
  return
}

// -----

func.func @init_barrier_count_not_integer(%bar: !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  // expected-error@+1 {{expected base attribute 'builtin.integer' but got 'builtin.float'}}
  "tilegpu.init_barrier"(%bar) {count = 1.0 : f32} : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  return
}

// -----

// --- attributes: required ----------------------------------------------------------------------

func.func @load_missing_evict(%p: !tile.ptr<f32, 1 : i32>) {
  // expected-error@+1 {{'tile.load' op attribute "evict" is expected but not provided}}
  %0 = "tile.load"(%p) {cache = "none", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  return
}

// -----

// Every declared attribute is required, even those with an obvious default.
func.func @print_missing_hex() {
  // expected-error@+1 {{'tile.print' op attribute "hex" is expected but not provided}}
  "tile.print"() {prefix = "x"} : () -> ()
  return
}

// -----

func.func @expand_dims_missing_axis(%x: tensor<4xf32>) {
  // expected-error@+1 {{'tile.expand_dims' op attribute "axis" is expected but not provided}}
  %0 = "tile.expand_dims"(%x) : (tensor<4xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @scan_missing_reverse(%x: tensor<4xf32>) {
  // expected-error@+1 {{'tile.scan' op attribute "reverse" is expected but not provided}}
  %0 = "tile.scan"(%x) ({
  ^bb0(%a: f32, %b: f32):
    gpu.yield %a : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @async_wait_missing_num() {
  // expected-error@+1 {{'tilegpu.async_wait' op attribute "num" is expected but not provided}}
  %0 = "tilegpu.async_wait"() : () -> !tilegpu.async_token
  return
}

// -----

func.func @tma_load_missing_swizzle(%map: !llvm.ptr, %o: i32) {
  // expected-error@+1 {{'tile.tma_load' op attribute "swizzle" is expected but not provided}}
  %0 = "tile.tma_load"(%map, %o, %o) : (!llvm.ptr, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

func.func @tma_store_missing_swizzle(%map: !llvm.ptr, %x: tensor<64x64xf16>, %o: i32) {
  // expected-error@+1 {{'tile.tma_store' op attribute "swizzle" is expected but not provided}}
  "tile.tma_store"(%map, %x, %o, %o) : (!llvm.ptr, tensor<64x64xf16>, i32, i32) -> ()
  return
}

// -----

func.func @tma_store_wait_missing_pendings() {
  // expected-error@+1 {{'tilegpu.tma_store_wait' op attribute "pendings" is expected but not provided}}
  "tilegpu.tma_store_wait"() : () -> ()
  return
}

// -----

func.func @init_barrier_missing_count(%bar: !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  // expected-error@+1 {{'tilegpu.init_barrier' op attribute "count" is expected but not provided}}
  "tilegpu.init_barrier"(%bar) : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
  return
}

// -----

// --- operand and result types ------------------------------------------------------------------

// addptr's result type is its pointer operand's type.
func.func @addptr_wrong_result(%p: !tile.ptr<f32, 1 : i32>, %o: i32) {
  // expected-error@+1 {{expected '!tile.ptr<f32, 1 : i32>' but got '!tile.ptr<f16, 1 : i32>'}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f16, 1 : i32>
  return
}

// -----

func.func @broadcast_scalar_operand(%x: f32) {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.f32'}}
  %0 = "tile.broadcast"(%x) : (f32) -> tensor<4xf32>
  return
}

// -----

func.func @make_range_scalar_result() {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.integer'}}
  %0 = "tile.make_range"() {start = 0 : i32, end = 16 : i32} : () -> i32
  return
}

// -----

func.func @program_id_i64() {
  // expected-error@+1 {{expected 'i32' but got 'i64'}}
  %0 = "tile.program_id"() {axis = 0 : i32} : () -> i64
  return
}

// -----

// load's `other` has the result type.
func.func @load_other_type(%p: !tile.ptr<f32, 1 : i32>, %m: i1, %o: f16) {
  // expected-error@+1 {{expected 'f16' but got 'f32'}}
  %0 = "tile.load"(%p, %m, %o) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>} : (!tile.ptr<f32, 1 : i32>, i1, f16) -> f32
  return
}

// -----

// dot's result type is its accumulator's type.
func.func @dot_result_not_acc(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{expected 'tensor<16x16xf32>' but got 'tensor<16x16xf16>'}}
  %0 = "tile.dot"(%a, %a, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf16>
  return
}

// -----

// A scan's results have its operands' types.
func.func @scan_result_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected 'tensor<4xf32>' but got 'tensor<4xf16>'}}
  %0 = "tile.scan"(%x) ({
  ^bb0(%a: f32, %b: f32):
    gpu.yield %a : f32
  }) {axis = 0 : i32, reverse = false, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// sort returns its operand's type.
func.func @sort_result_type(%x: tensor<64xf32>) {
  // expected-error@+1 {{expected 'tensor<64xf32>' but got 'tensor<64xi32>'}}
  %0 = "tile.sort"(%x) {axis = 0 : i32, descending = false} : (tensor<64xf32>) -> tensor<64xi32>
  return
}

// -----

func.func @atomic_rmw_result_type(%p: !tile.ptr<f32, 1 : i32>, %v: f32) {
  // expected-error@+1 {{expected 'f32' but got 'f16'}}
  %0 = "tile.atomic_rmw"(%p, %v) {rmw_op = "fadd", sem = "relaxed", scope = "gpu"} : (!tile.ptr<f32, 1 : i32>, f32) -> f16
  return
}

// -----

// cmp, value and the result of atomic_cas share one type.
func.func @atomic_cas_mixed_types(%p: !tile.ptr<i32, 1 : i32>, %c: i32, %v: i64) {
  // expected-error@+1 {{expected 'i32' but got 'i64'}}
  %0 = "tile.atomic_cas"(%p, %c, %v) {sem = "acq_rel", scope = "gpu"} : (!tile.ptr<i32, 1 : i32>, i32, i64) -> i64
  return
}

// -----

func.func @convert_layout_to_scalar(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.f32'}}
  %0 = "tilegpu.convert_layout"(%x) : (tensor<4xf32>) -> f32
  return
}

// -----

func.func @local_alloc_tensor_result(%x: tensor<4xf16>) {
  // expected-error@+1 {{expected base type 'tilegpu.memdesc' but got 'builtin.tensor'}}
  %0 = "tilegpu.local_alloc"(%x) : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @local_load_from_tensor(%x: tensor<4xf16>) {
  // expected-error@+1 {{expected base type 'tilegpu.memdesc' but got 'builtin.tensor'}}
  %0 = "tilegpu.local_load"(%x) : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

// local_store takes the value first, then the buffer.
func.func @local_store_swapped(%x: tensor<4xf32>, %d: !tilegpu.memdesc<[4], f32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'tilegpu.memdesc'}}
  "tilegpu.local_store"(%d, %x) : (!tilegpu.memdesc<[4], f32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @local_dealloc_token(%t: !tilegpu.async_token) {
  // expected-error@+1 {{expected base type 'tilegpu.memdesc' but got 'tilegpu.async_token'}}
  "tilegpu.local_dealloc"(%t) : (!tilegpu.async_token) -> ()
  return
}

// -----

func.func @memdesc_subview_i64_offset(%d: !tilegpu.memdesc<[2, 4], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [1, 0]>, true>, %i: i64) {
  // expected-error@+1 {{expected 'i32' but got 'i64'}}
  %0 = "tilegpu.memdesc_subview"(%d, %i) : (!tilegpu.memdesc<[2, 4], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [1, 0]>, true>, i64) -> !tilegpu.memdesc<[4], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
  return
}

// -----

func.func @commit_group_of_integer(%x: i32) {
  // expected-error@+1 {{expected base type 'tilegpu.async_token' but got 'builtin.integer'}}
  %0 = "tilegpu.async_commit_group"(%x) : (i32) -> !tilegpu.async_token
  return
}

// -----

// A TMA map is the kernel's by-value map parameter, a generic (address space 0) pointer.
func.func @tma_load_global_map(%map: !llvm.ptr<1>, %o: i32) {
  // expected-error@+1 {{expected '!llvm.ptr' but got '!llvm.ptr<1>'}}
  %0 = "tile.tma_load"(%map, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr<1>, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

func.func @tma_load_i64_offsets(%map: !llvm.ptr, %o: i64) {
  // expected-error@+1 {{expected 'i32' but got 'i64'}}
  %0 = "tile.tma_load"(%map, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, i64, i64) -> tensor<64x64xf16>
  return
}

// -----

func.func @wait_barrier_i64_phase(%bar: !tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, %p: i64) {
  // expected-error@+1 {{expected 'i32' but got 'i64'}}
  "tilegpu.wait_barrier"(%bar, %p) : (!tilegpu.memdesc<[1], i64, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>, i64) -> ()
  return
}

// -----

func.func @tma_copy_barrier_not_memdesc(%map: !llvm.ptr, %bar: i64, %dst: !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>, %c: i32) {
  // expected-error@+1 {{expected base type 'tilegpu.memdesc' but got 'builtin.integer'}}
  "tilegpu.async_tma_copy_global_to_local"(%map, %bar, %dst, %c, %c) : (!llvm.ptr, i64, !tilegpu.memdesc<[64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32, [1, 0]>, true>, i32, i32) -> ()
  return
}

// -----

// TMA stores blocks: the value is a tensor (IRDL's base constraint; verify.py never sees a
// scalar or a vector here).
func.func @tma_store_scalar(%map: !llvm.ptr, %x: f16) {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.f16'}}
  "tile.tma_store"(%map, %x) {swizzle = 128 : i32} : (!llvm.ptr, f16) -> ()
  return
}

// -----

func.func @tma_store_vector(%map: !llvm.ptr, %x: vector<64x64xf16>, %o: i32) {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.vector'}}
  "tile.tma_store"(%map, %x, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, vector<64x64xf16>, i32, i32) -> ()
  return
}

// -----

func.func @tma_store_global_map(%map: !llvm.ptr<1>, %x: tensor<64x64xf16>, %o: i32) {
  // expected-error@+1 {{expected '!llvm.ptr' but got '!llvm.ptr<1>'}}
  "tile.tma_store"(%map, %x, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr<1>, tensor<64x64xf16>, i32, i32) -> ()
  return
}

// -----

func.func @tma_store_i64_offsets(%map: !llvm.ptr, %x: tensor<64x64xf16>, %o: i64) {
  // expected-error@+1 {{expected 'i32' but got 'i64'}}
  "tile.tma_store"(%map, %x, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16>, i64, i64) -> ()
  return
}

// -----

func.func @tma_store_copy_src_not_memdesc(%map: !llvm.ptr, %src: i64, %c: i32) {
  // expected-error@+1 {{expected base type 'tilegpu.memdesc' but got 'builtin.integer'}}
  "tilegpu.async_tma_copy_local_to_global"(%map, %src, %c, %c) : (!llvm.ptr, i64, i32, i32) -> ()
  return
}

// -----

func.func @tma_store_wait_float_pendings() {
  // expected-error@+1 {{expected base attribute 'builtin.integer' but got 'builtin.float'}}
  "tilegpu.tma_store_wait"() {pendings = 1.0 : f32} : () -> ()
  return
}

// -----

// --- operand and result counts -----------------------------------------------------------------

func.func @broadcast_two_operands(%x: tensor<4xf32>) {
  // expected-error@+1 {{op expects exactly 1 operands, but got 2}}
  %0 = "tile.broadcast"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// print takes at most one value; the frontend emits one op per printed argument.
func.func @print_two_values(%x: i32) {
  // expected-error@+1 {{op expects at most 1 operands, but got 2}}
  "tile.print"(%x, %x) {prefix = "x", hex = false} : (i32, i32) -> ()
  return
}

// -----

// A TMA store has no result.
func.func @tma_store_result(%map: !llvm.ptr, %x: tensor<64x64xf16>, %o: i32) {
  // expected-error@+1 {{op expects exactly 0 results, but got 1}}
  %0 = "tile.tma_store"(%map, %x, %o, %o) {swizzle = 128 : i32} : (!llvm.ptr, tensor<64x64xf16>, i32, i32) -> i32
  return
}

// -----

func.func @split_one_result(%x: tensor<4x2xf32>) {
  // expected-error@+1 {{op expects exactly 2 results, but got 1}}
  %0 = "tile.split"(%x) : (tensor<4x2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @store_with_result(%p: !tile.ptr<f32, 1 : i32>, %v: f32) {
  // expected-error@+1 {{op expects exactly 0 results, but got 1}}
  %0 = "tile.store"(%p, %v) {cache = "none", evict = "evict_normal"} : (!tile.ptr<f32, 1 : i32>, f32) -> i32
  return
}

// -----

// With two optional operand groups, load needs operandSegmentSizes to tell mask from other.
func.func @load_mask_without_segments(%p: !tile.ptr<f32, 1 : i32>, %m: i1) {
  // expected-error@+1 {{'operandSegmentSizes' attribute is expected but not provided}}
  %0 = "tile.load"(%p, %m) {cache = "none", evict = "evict_normal", is_volatile = false} : (!tile.ptr<f32, 1 : i32>, i1) -> f32
  return
}

// -----

func.func @load_segments_disagree(%p: !tile.ptr<f32, 1 : i32>, %m: i1) {
  // expected-error@+1 {{sum of elements in 'operandSegmentSizes' attribute must be equal to the number of operands}}
  %0 = "tile.load"(%p, %m) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>, i1) -> f32
  return
}

// -----

func.func @reduce_without_result_segments(%x: tensor<4xf32>) {
  // expected-error@+1 {{'resultSegmentSizes' attribute is expected but not provided}}
  %0 = "tile.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    gpu.yield %a : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4xf32>) -> f32
  return
}

// -----

// --- unknown ops, types and attributes ---------------------------------------------------------

func.func @unknown_op() {
  // expected-error@+1 {{unregistered operation 'tile.nope' found in dialect ('tile') that does not allow unknown operations}}
  "tile.nope"() : () -> ()
  return
}

// -----

// expected-error@+1 {{expected dynamic type}}
func.func @unknown_type(%a: !tile.nope) {
  return
}

// -----

// expected-error@+1 {{expected dynamic attribute}}
func.func @unknown_attribute(%a: tensor<16xf16, #tilegpu.nope<1>>) {
  return
}

// -----

// --- type and attribute parameters -------------------------------------------------------------

// expected-error@+1 {{expected base attribute 'builtin.integer' but got 'builtin.string'}}
func.func @ptr_addrspace_not_integer(%a: !tile.ptr<f32, "global">) {
  return
}

// -----

// expected-error@+1 {{'1 : i32' does not satisfy the constraint}}
func.func @memdesc_mutable_not_bool(%a: !tilegpu.memdesc<[4], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, 1 : i32>) {
  return
}

// -----

// expected-error@+1 {{expected 4 type arguments, but had 3}}
func.func @memdesc_without_mutable(%a: !tilegpu.memdesc<[4], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>>) {
  return
}

// -----

// expected-error@+1 {{expected base attribute 'builtin.array' but got 'builtin.integer'}}
func.func @memdesc_shape_not_array(%a: !tilegpu.memdesc<4, f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  return
}

// -----

// expected-error@+1 {{expected base attribute 'builtin.array' but got 'builtin.integer'}}
func.func @blocked_scalar_parameter(%a: tensor<16xf16, #tilegpu.blocked<1, [32], [4], [0]>>) {
  return
}

// -----

// IRDL's message says "type arguments" for attributes too.
// expected-error@+1 {{expected 4 type arguments, but had 3}}
func.func @blocked_missing_order(%a: tensor<16xf16, #tilegpu.blocked<[1], [32], [4]>>) {
  return
}

// -----

// expected-error@+1 {{expected base attribute 'builtin.integer' but got 'builtin.string'}}
func.func @slice_dim_not_integer(%a: tensor<16xf16, #tilegpu.slice<"x", #tilegpu.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>>) {
  return
}
