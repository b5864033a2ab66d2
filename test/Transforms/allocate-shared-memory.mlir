// RUN: not tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory 2>/dev/null | filecheck %s
// RUN: tilec-opt %s --split-input-file --verify-diagnostics --tilegpu-allocate-shared-memory
// (The last chunk is refused: the first RUN line exits non-zero, hence `not`.)

// Scratch lives only while its op runs, so every scratch op starts at 0 and the kernel needs
// the largest: 512 fp32 summed over 4 warps (one 4-byte partial per warp: 16 bytes), a
// 32x32 fp32 conversion across threads (1024 slots of 4 bytes and a padding slot after every
// 32 but the last: 4220 bytes). A conversion that keeps elements in their threads and a
// reduction within warps need none and get no attributes. The module records the total and
// the line of the largest buffer.
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 4220 : i32, tilegpu.shared_largest = "{{.*}}allocate-shared-memory.mlir:[[# @LINE + 24]]"
// CHECK-LABEL: func.func @scratch
// CHECK: "tile.reduce"
// CHECK: tilegpu.bytes = 16 : i32, tilegpu.offset = 0 : i32
// CHECK: "tile.reduce"
// CHECK: }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} :
// CHECK: "tilegpu.convert_layout"(%{{.*}}) {tilegpu.bytes = 4220 : i32, tilegpu.offset = 0 : i32}
// CHECK: "tilegpu.convert_layout"(%{{.*}}) :
#b = #tilegpu.blocked<[4], [32], [4], [0]>
#row = #tilegpu.blocked<[1, 8], [32, 1], [1, 4], [1, 0]>
#col = #tilegpu.blocked<[8, 1], [1, 32], [4, 1], [0, 1]>
#row2 = #tilegpu.blocked<[1, 8], [32, 1], [1, 4], [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @scratch(%v: tensor<512xf32, #b>, %x: tensor<32x32xf32, #row>) {
    %s = "tile.reduce"(%v) ({
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512xf32, #b>) -> f32
    %r = "tile.reduce"(%x) ({
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<32x32xf32, #row>) -> tensor<32xf32, #tilegpu.slice<0 : i32, #row>>
    %y = "tilegpu.convert_layout"(%x) : (tensor<32x32xf32, #row>) -> tensor<32x32xf32, #col>
    %z = "tilegpu.convert_layout"(%x) : (tensor<32x32xf32, #row>) -> tensor<32x32xf32, #row2>
    return
  }
}

// -----

// Buffers share bytes only when their lifetimes do not overlap. %a (4096 bytes) is live from
// its alloc to its dealloc, %b (2048) from its alloc to its load: they overlap, so %b goes
// after %a, at 4096. The reduction's scratch (16 bytes) runs while %b is live but after %a
// is dead: it reuses 0. %c (8192) comes after both: it reuses 0 too. Total 8192.
// CHECK: tilegpu.shared_bytes = 8192 : i32
// CHECK-LABEL: func.func @lifetimes
// CHECK: [[A:%.*]] = "tilegpu.local_alloc"() {tilegpu.bytes = 4096 : i32, tilegpu.offset = 0 : i32}
// CHECK: [[B:%.*]] = "tilegpu.local_alloc"() {tilegpu.bytes = 2048 : i32, tilegpu.offset = 4096 : i32}
// CHECK: "tile.reduce"
// CHECK: tilegpu.bytes = 16 : i32, tilegpu.offset = 0 : i32
// CHECK: "tilegpu.local_alloc"() {tilegpu.bytes = 8192 : i32, tilegpu.offset = 0 : i32}
#b = #tilegpu.blocked<[4], [32], [4], [0]>
#l = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @lifetimes(%v: tensor<512xf32, #b>, %x: tensor<64x32xf16, #l>) {
    %a = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
    %b = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[32, 32], f16, #shared, true>
    "tilegpu.local_store"(%x, %a) : (tensor<64x32xf16, #l>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
    %y = "tilegpu.local_load"(%a) : (!tilegpu.memdesc<[64, 32], f16, #shared, true>) -> tensor<64x32xf16, #l>
    "tilegpu.local_dealloc"(%a) : (!tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
    %s = "tile.reduce"(%v) ({
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512xf32, #b>) -> f32
    %z = "tilegpu.local_load"(%b) : (!tilegpu.memdesc<[32, 32], f16, #shared, true>) -> tensor<32x32xf16, #l>
    %c = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 64], f16, #shared, true>
    %w = "tilegpu.local_load"(%c) : (!tilegpu.memdesc<[64, 64], f16, #shared, true>) -> tensor<64x64xf16, #l>
    return
  }
}

// -----

// A buffer used inside a loop is live for the whole loop (the next trip uses it again): the
// reduction later in the loop body may not reuse its bytes, while the reduction after the
// loop may. A subview's uses count as uses of its buffer.
// CHECK-LABEL: func.func @loop
// CHECK: "tilegpu.local_alloc"() {tilegpu.bytes = 8192 : i32, tilegpu.offset = 0 : i32}
// CHECK: scf.for
// CHECK: "tile.reduce"
// CHECK: tilegpu.bytes = 16 : i32, tilegpu.offset = 8192 : i32
// CHECK: }
// CHECK: "tile.reduce"
// CHECK: tilegpu.bytes = 16 : i32, tilegpu.offset = 0 : i32
#b = #tilegpu.blocked<[4], [32], [4], [0]>
#l = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @loop(%v: tensor<512xf32, #b>, %x: tensor<64x32xf16, #l>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %a = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[2, 64, 32], f16, #shared, true>
    scf.for %i = %c0 to %n step %c1 {
      %stage = "tilegpu.memdesc_subview"(%a, %i0, %i0, %i0) : (!tilegpu.memdesc<[2, 64, 32], f16, #shared, true>, i32, i32, i32) -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
      "tilegpu.local_store"(%x, %stage) : (tensor<64x32xf16, #l>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
      %s = "tile.reduce"(%v) ({
      ^bb0(%p: f32, %q: f32):
        %t = arith.addf %p, %q : f32
        gpu.yield %t : f32
      }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512xf32, #b>) -> f32
    }
    %s2 = "tile.reduce"(%v) ({
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      gpu.yield %t : f32
    }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<512xf32, #b>) -> f32
    return
  }
}

// -----

// The two regions of a warp specialisation run at the same time. %ring is written by the
// producer and read and freed by the consumers: it lives to that dealloc (whoever freed it there
// made the producer done with it), so %late, allocated by the consumers after it, reuses its
// bytes. %kept, used by the producer and never freed by the consumers, lives to the end of the
// split: %late may not share its bytes.
// CHECK-LABEL: func.func @split
// CHECK: "tilegpu.local_alloc"() {tilegpu.bytes = 4096 : i32, tilegpu.offset = 0 : i32}
// CHECK-NEXT: "tilegpu.local_alloc"() {tilegpu.bytes = 4096 : i32, tilegpu.offset = 4096 : i32}
// CHECK: "tilegpu.local_alloc"({{%.*}}) {tilegpu.bytes = 4096 : i32, tilegpu.offset = 0 : i32}
#b = #tilegpu.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#shared = #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @split(%x: tensor<64x32xf16, #b>) {
    %ring = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
    %kept = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[64, 32], f16, #shared, true>
    "tilegpu.warp_specialize"() ({
      "tilegpu.local_store"(%x, %ring) : (tensor<64x32xf16, #b>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
      "tilegpu.local_store"(%x, %kept) : (tensor<64x32xf16, #b>, !tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
      gpu.yield
    }, {
      %y = "tilegpu.local_load"(%ring) : (!tilegpu.memdesc<[64, 32], f16, #shared, true>) -> tensor<64x32xf16, #b>
      "tilegpu.local_dealloc"(%ring) : (!tilegpu.memdesc<[64, 32], f16, #shared, true>) -> ()
      %late = "tilegpu.local_alloc"(%y) : (tensor<64x32xf16, #b>) -> !tilegpu.memdesc<[64, 32], f16, #shared, false>
      %z = "tilegpu.local_load"(%late) : (!tilegpu.memdesc<[64, 32], f16, #shared, false>) -> tensor<64x32xf16, #b>
      gpu.yield
    }) {producer_warps = 4 : i32, producer_registers = 40 : i32, consumer_registers = 256 : i32} : () -> ()
    return
  }
}

// -----

// A map made in the kernel is written in 128 bytes of shared memory on a 128-byte boundary
// (then copied to its global slot): after a 144-byte buffer live at the same time (placed
// first, the larger), at 256 rather than 144.
// CHECK: module attributes {{{.*}}tilegpu.shared_bytes = 384 : i32
// CHECK-LABEL: func.func @made_map
// CHECK: "tile.make_tensormap"{{.*}}tilegpu.bytes = 128 : i32, tilegpu.offset = 256 : i32
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @made_map(%scratch: !tile.ptr<i8, 1 : i32>, %base: !tile.ptr<f16, 1 : i32>, %n: i64) {
    %small = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[72], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>
    %map = "tile.make_tensormap"(%scratch, %base, %n, %n, %n) {box = array<i32: 64, 64>, swizzle = 128 : i32, slot = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (!tile.ptr<i8, 1 : i32>, !tile.ptr<f16, 1 : i32>, i64, i64, i64) -> !llvm.ptr
    "tilegpu.local_dealloc"(%small) : (!tilegpu.memdesc<[72], f16, #tilegpu.shared<1 : i32, 1 : i32, 1 : i32, [0]>, true>) -> ()
    return
  }
}

// -----

// Buffers live at once whose offsets would pass 2^31 - 1 bytes (offsets and sizes are i32
// attributes) are a diagnostic, not a wrapped negative offset: two of 1.5 GiB.
module attributes {tilegpu.num_warps = 4 : i32} {
  // expected-error@+1 {{the kernel's shared buffers need 3221225472 bytes; tilec places at most 2^31 - 1 (a GPU has at most 228 KiB per block)}}
  func.func @too_much() {
    %a = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 262144, 1024], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
    %b = "tilegpu.local_alloc"() : () -> !tilegpu.memdesc<[3, 262144, 1024], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>
    "tilegpu.local_dealloc"(%a) : (!tilegpu.memdesc<[3, 262144, 1024], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>) -> ()
    "tilegpu.local_dealloc"(%b) : (!tilegpu.memdesc<[3, 262144, 1024], f16, #tilegpu.shared<8 : i32, 1 : i32, 8 : i32, [1, 0]>, true>) -> ()
    return
  }
}
