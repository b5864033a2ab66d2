// RUN: tilec-opt %s | filecheck %s
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s > %t.1 && tilec-opt %t.1 > %t.2 && diff %t.1 %t.2

// Every type and layout attribute of `tile` and `tilegpu`, as function argument and result types.
// Aliases are written here for readability; the printer expands them inline. (Top-level alias
// definitions need an explicit `module`.)

#blocked1d = #tilegpu.blocked<[1], [32], [4], [0]>
#blocked = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#blocked3d = #tilegpu.blocked<[1, 1, 4], [1, 4, 8], [2, 2, 1], [2, 1, 0]>
#mma = #tilegpu.mma<[2, 0], [2, 2], [16, 8]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>

module {

// --- tile.ptr ----------------------------------------------------------------------------------

// CHECK-LABEL: func.func @ptr_scalar
// CHECK-SAME: !tile.ptr<f32, 1 : i32>
// CHECK-SAME: !tile.ptr<f16, 3 : i32>
// CHECK-SAME: !tile.ptr<i8, 0 : i32>
// CHECK-SAME: !tile.ptr<!tile.ptr<bf16, 1 : i32>, 1 : i32>
// CHECK-SAME: -> !tile.ptr<f32, 1 : i32>
func.func @ptr_scalar(%a: !tile.ptr<f32, 1 : i32>, %b: !tile.ptr<f16, 3 : i32>,
                      %c: !tile.ptr<i8, 0 : i32>, %d: !tile.ptr<!tile.ptr<bf16, 1 : i32>, 1 : i32>)
    -> !tile.ptr<f32, 1 : i32> {
  return %a : !tile.ptr<f32, 1 : i32>
}

// A specialisation hint on an argument is a discardable attribute and survives the round trip.
// CHECK-LABEL: func.func @ptr_divisibility
// CHECK-SAME: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}
func.func @ptr_divisibility(%a: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}) {
  return
}

// CHECK-LABEL: func.func @ptr_tensor
// CHECK-SAME: tensor<128x!tile.ptr<f32, 1 : i32>>
// CHECK-SAME: tensor<64x32x!tile.ptr<f16, 1 : i32>, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
func.func @ptr_tensor(%a: tensor<128x!tile.ptr<f32, 1 : i32>>,
                      %b: tensor<64x32x!tile.ptr<f16, 1 : i32>, #blocked>) {
  return
}

// --- blocked -----------------------------------------------------------------------------------

// CHECK-LABEL: func.func @blocked
// CHECK-SAME: tensor<128xf32, #tilegpu.blocked<[1], [32], [4], [0]>>
// CHECK-SAME: tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK-SAME: tensor<2x16x32xi32, #tilegpu.blocked<[1, 1, 4], [1, 4, 8], [2, 2, 1], [2, 1, 0]>>
// CHECK-SAME: -> tensor<64x32xf16, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
func.func @blocked(%a: tensor<128xf32, #blocked1d>, %b: tensor<64x32xf16, #blocked>,
                   %c: tensor<2x16x32xi32, #blocked3d>) -> tensor<64x32xf16, #blocked> {
  return %b : tensor<64x32xf16, #blocked>
}

// Written inline, without an alias, and with a column-major order.
// CHECK-LABEL: func.func @blocked_inline
// CHECK-SAME: tensor<32x64xf32, #tilegpu.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
func.func @blocked_inline(%a: tensor<32x64xf32, #tilegpu.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>) {
  return
}

// --- slice -------------------------------------------------------------------------------------

// Slices of a 2-D blocked layout along each dimension, and a slice of a slice of a 3-D one.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: tensor<64xf32, #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>
// CHECK-SAME: tensor<32xi32, #tilegpu.slice<0 : i32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>
// CHECK-SAME: tensor<32xf32, #tilegpu.slice<0 : i32, #tilegpu.slice<1 : i32, #tilegpu.blocked<[1, 1, 4], [1, 4, 8], [2, 2, 1], [2, 1, 0]>>>>
func.func @slice(%a: tensor<64xf32, #tilegpu.slice<1 : i32, #blocked>>,
                 %b: tensor<32xi32, #tilegpu.slice<0 : i32, #blocked>>,
                 %c: tensor<32xf32, #tilegpu.slice<0 : i32, #tilegpu.slice<1 : i32, #blocked3d>>>) {
  return
}

// A slice of an mma layout (a row reduction of a dot result).
// CHECK-LABEL: func.func @slice_of_mma
// CHECK-SAME: tensor<64xf32, #tilegpu.slice<1 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>>
func.func @slice_of_mma(%a: tensor<64xf32, #tilegpu.slice<1 : i32, #mma>>) {
  return
}

// --- mma and dot_operand -----------------------------------------------------------------------

// CHECK-LABEL: func.func @mma
// CHECK-SAME: tensor<64x64xf32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>>
// CHECK-SAME: tensor<128x128xf32, #tilegpu.mma<[2, 0], [8, 1], [16, 8]>>
func.func @mma(%a: tensor<64x64xf32, #mma>,
               %b: tensor<128x128xf32, #tilegpu.mma<[2, 0], [8, 1], [16, 8]>>) {
  return
}

// Operand A (op_idx 0) and B (op_idx 1) of an mma dot, and an operand of an FMA dot (blocked
// parent, k_width 1).
// CHECK-LABEL: func.func @dot_operand
// CHECK-SAME: tensor<64x32xf16, #tilegpu.dot_operand<0 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>
// CHECK-SAME: tensor<32x64xf16, #tilegpu.dot_operand<1 : i32, #tilegpu.mma<[2, 0], [2, 2], [16, 8]>, 2 : i32>>
// CHECK-SAME: tensor<64x32xf32, #tilegpu.dot_operand<0 : i32, #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>, 1 : i32>>
func.func @dot_operand(%a: tensor<64x32xf16, #tilegpu.dot_operand<0 : i32, #mma, 2 : i32>>,
                       %b: tensor<32x64xf16, #tilegpu.dot_operand<1 : i32, #mma, 2 : i32>>,
                       %c: tensor<64x32xf32, #tilegpu.dot_operand<0 : i32, #blocked, 1 : i32>>) {
  return
}

// --- shared, memdesc, async_token --------------------------------------------------------------

// A shared layout is the encoding of a memdesc, never of a tensor in registers; memdescs are
// mutable (true) or immutable (false) and may have a leading multi-buffering dimension.
// CHECK-LABEL: func.func @memdesc
// CHECK-SAME: !tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
// CHECK-SAME: !tilegpu.memdesc<[3, 64, 32], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
// CHECK-SAME: !tilegpu.memdesc<[32, 64], bf16, #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [0, 1]>, false>
// CHECK-SAME: !tilegpu.memdesc<[128], f32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
func.func @memdesc(%a: !tilegpu.memdesc<[64, 32], f16, #shared, true>,
                   %b: !tilegpu.memdesc<[3, 64, 32], f16, #shared, true>,
                   %c: !tilegpu.memdesc<[32, 64], bf16, #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [0, 1]>, false>,
                   %d: !tilegpu.memdesc<[128], f32, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) {
  return
}

// CHECK-LABEL: func.func @async_token
// CHECK-SAME: ([[T:%[^:]*]]: !tilegpu.async_token) -> !tilegpu.async_token
// CHECK-NEXT: return [[T]] : !tilegpu.async_token
func.func @async_token(%t: !tilegpu.async_token) -> !tilegpu.async_token {
  return %t : !tilegpu.async_token
}

}
