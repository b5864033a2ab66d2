// Inputs the tile dialect rejects, each case with the error it must give. Cases are split by
// `// -----`; each expected-error comment gives, in double braces, an error that the line its
// `@+1` points to must produce.
//
// Try: tilec-opt examples/invalid.mlir --split-input-file --verify-diagnostics
// (exit status 0 when every expected error, and no other, is reported).

// addptr's result type is its pointer operand's type.
func.func @addptr_wrong_result(%p: !tile.ptr<f32, 1 : i32>, %o: i32) {
  // expected-error@+1 {{expected '!tile.ptr<f32, 1 : i32>' but got '!tile.ptr<f16, 1 : i32>'}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32, 1 : i32>, i32) -> !tile.ptr<f16, 1 : i32>
  return
}

// -----

// A load needs its eviction policy.
func.func @load_missing_evict(%p: !tile.ptr<f32, 1 : i32>) {
  // expected-error@+1 {{'tile.load' op attribute "evict" is expected but not provided}}
  %0 = "tile.load"(%p) {cache = "none", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  return
}

// -----

// "wb" (write-back) is a store's cache modifier, not a load's.
func.func @load_store_cache_on_load(%p: !tile.ptr<f32, 1 : i32>) {
  // expected-error@+1 {{'"wb"' does not satisfy the constraint}}
  %0 = "tile.load"(%p) {cache = "wb", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32, 1 : i32>) -> f32
  return
}
