// RUN: tilec-opt %s --split-input-file --tilegpu-allocate-shared-memory --tilegpu-membar --convert-tilegpu-to-llvm | filecheck %s
// Through the upstream tail, gpu.printf becomes vprintf and cf.assert __assertfail with the
// op's file and line and the kernel's name (NVVM lines):
// RUN: tilec-opt %s --split-input-file --pass-pipeline='builtin.module(tilegpu-allocate-shared-memory,tilegpu-membar,convert-tilegpu-to-llvm,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm))' | filecheck %s --check-prefix=NVVM
// convert-tilegpu-to-llvm: tile.print and tile.assert (python/tilec/lowering/debug.py).

// A print of a 256-element tensor, 2 registers per thread (elements t and t + 128): one
// gpu.printf per register in Triton's format, the program ids (gpu.block_id x, y, z) first,
// then the element's index (the thread offset plus the register's constant, padded to the 3
// digits of 255), the prefix written as " x: " and the value (%f; vprintf gets a double). No
// thread holds a copy of another's elements, so none is guarded.
// CHECK-LABEL: gpu.func @print_tensor
// CHECK: [[BX:%.*]] = gpu.block_id x
// CHECK-NEXT: [[PX:%.*]] = arith.index_cast [[BX]] : index to i32
// CHECK-NEXT: [[BY:%.*]] = gpu.block_id y
// CHECK-NEXT: [[PY:%.*]] = arith.index_cast [[BY]] : index to i32
// CHECK-NEXT: [[BZ:%.*]] = gpu.block_id z
// CHECK-NEXT: [[PZ:%.*]] = arith.index_cast [[BZ]] : index to i32
// CHECK: [[X0:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT: [[X1:%.*]] = llvm.load {{%.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: scf.if
// CHECK: [[I0:%.*]] = arith.addi [[TOFF:%[^ ,]+]], {{%.*}} : i32
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) idx (%3d) x: %f\0A", [[PX]], [[PY]], [[PZ]], [[I0]], [[X0]] : i32, i32, i32, i32, f32
// CHECK-NEXT: [[C128:%.*]] = arith.constant 128 : i32
// CHECK-NEXT: [[I1:%.*]] = arith.addi [[TOFF]], [[C128]] : i32
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) idx (%3d) x: %f\0A", [[PX]], [[PY]], [[PZ]], [[I1]], [[X1]] : i32, i32, i32, i32, f32
// CHECK-NEXT: gpu.return
// NVVM: llvm.mlir.global internal constant @printfFormat_0("pid (%d, %d, %d) idx (%3d) x: %f\0A\00")
// NVVM: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// NVVM-LABEL: llvm.func @print_tensor
// NVVM: llvm.fpext {{%.*}} : f32 to f64
// NVVM: llvm.call @vprintf
// NVVM: llvm.fpext {{%.*}} : f32 to f64
// NVVM: llvm.call @vprintf
// NVVM-NOT: llvm.call @vprintf
// NVVM: llvm.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @print_tensor(%in: !tile.ptr<f32, 1 : i32>) {
    %ps = "tile.splat"(%in) : (!tile.ptr<f32, 1 : i32>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %rg = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %pp = "tile.addptr"(%ps, %rg) : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tile.ptr<f32, 1 : i32>, #b>
    %x = "tile.load"(%pp) {cache = "none", evict = "evict_normal", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<256x!tile.ptr<f32, 1 : i32>, #b>) -> tensor<256xf32, #b>
    "tile.print"(%x) {prefix = "x", hex = false} : (tensor<256xf32, #b>) -> ()
    return
  }
}

// -----

// 64 i16 elements over 128 threads: warps 2 and 3 hold copies of warps 0 and 1's elements, so
// only threads whose replicated warp bit is 0 print. In hex, the value is zero-extended to the
// 32 bits vprintf reads and printed as Triton does, padded to the type's 4 hex digits.
// CHECK-LABEL: gpu.func @print_replicated_hex
// CHECK: [[WARP:%.*]] = nvvm.shfl.sync idx {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}} : i32 -> i32
// CHECK: [[BIT:%.*]] = arith.andi [[WARP]], {{%.*}} : i32
// CHECK: [[OWNER:%.*]] = arith.cmpi eq, [[BIT]], {{%.*}} : i32
// CHECK: [[V:%.*]] = arith.trunci {{%.*}} : i32 to i16
// CHECK-NEXT: scf.if [[OWNER]] {
// CHECK: [[W:%.*]] = arith.extui [[V]] : i16 to i32
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) idx (%2d) v: 0x%04x\0A", {{%.*}}, {{%.*}}, {{%.*}}, {{%.*}}, [[W]] : i32, i32, i32, i32, i32
// CHECK-NEXT: }
// CHECK-NOT: gpu.printf
// CHECK: gpu.return
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @print_replicated_hex() {
    %rg = "tile.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #b>
    %v = arith.trunci %rg : tensor<64xi32, #b> to tensor<64xi16, #b>
    "tile.print"(%v) {prefix = "v", hex = true} : (tensor<64xi16, #b>) -> ()
    return
  }
}

// -----

// A scalar is printed once per program, by thread 0 (lane and warp ids zero), with an empty
// index; a print without a value prints the program ids and the prefix only.
// CHECK-LABEL: gpu.func @print_scalar
// CHECK-SAME: ([[N:%[^:]*]]: i32)
// CHECK: [[TID:%.*]] = arith.index_cast {{%.*}} : index to i32
// CHECK: [[LANE:%.*]] = arith.andi [[TID]], {{%.*}} : i32
// CHECK: [[W:%.*]] = arith.shrui [[TID]], {{%.*}} : i32
// CHECK: [[WARP:%.*]] = nvvm.shfl.sync idx {{%.*}}, [[W]], {{%.*}}, {{%.*}} : i32 -> i32
// CHECK: [[LBITS:%.*]] = arith.andi [[LANE]], {{%.*}} : i32
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[L0:%.*]] = arith.cmpi eq, [[LBITS]], [[C0]] : i32
// CHECK: [[WBITS:%.*]] = arith.andi [[WARP]], {{%.*}} : i32
// CHECK-NEXT: [[C0W:%.*]] = arith.constant 0 : i32
// CHECK-NEXT: [[W0:%.*]] = arith.cmpi eq, [[WBITS]], [[C0W]] : i32
// CHECK-NEXT: [[THREAD0:%.*]] = arith.andi [[L0]], [[W0]] : i1
// CHECK: [[PX:%.*]] = arith.index_cast {{%.*}} : index to i32
// CHECK: [[PY:%.*]] = arith.index_cast {{%.*}} : index to i32
// CHECK: [[PZ:%.*]] = arith.index_cast {{%.*}} : index to i32
// CHECK: scf.if [[THREAD0]] {
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) idx () n: %d\0A", [[PX]], [[PY]], [[PZ]], [[N]] : i32, i32, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.if {{%.*}} {
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) done\0A", [[PX]], [[PY]], [[PZ]] : i32, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// NVVM-LABEL: llvm.func @print_scalar
// NVVM: llvm.call @vprintf
// NVVM: llvm.call @vprintf
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @print_scalar(%n: i32) {
    "tile.print"(%n) {prefix = "n", hex = false} : (i32) -> ()
    "tile.print"() {prefix = "done", hex = false} : () -> ()
    return
  }
}

// -----

// An assert checks every register this thread holds (the conditions and-ed) with one cf.assert
// carrying the message; its location names the kernel around the op's file and line, which
// the tail passes to __assertfail (message, file, line, function, char size 1).
// CHECK-LABEL: gpu.func @check_in_range
// CHECK-SAME: ([[N:%[^:]*]]: i32)
// CHECK: [[OK0:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NEXT: [[OK1:%.*]] = arith.cmpi slt, {{%.*}}, [[N]] : i32
// CHECK-NEXT: [[ALL:%.*]] = arith.andi [[OK0]], [[OK1]] : i1
// CHECK-NEXT: cf.assert [[ALL]], "index out of range"
// CHECK-NEXT: gpu.return
// NVVM-DAG: llvm.mlir.global internal constant @[[FUNC:assert_func_[0-9]+]]("check_in_range\00")
// NVVM-DAG: llvm.mlir.global internal constant @[[FILE:assert_file_[0-9]+]]("kernel.py\00")
// NVVM-DAG: llvm.mlir.global internal constant @[[MSG:assert_message_[0-9]+]]("index out of range\00")
// NVVM-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
// NVVM-LABEL: llvm.func @check_in_range
// NVVM: llvm.cond_br {{%.*}}, ^[[OK:bb[0-9]+]], ^[[FAIL:bb[0-9]+]]
// NVVM: ^[[FAIL]]:
// NVVM: llvm.mlir.addressof @[[MSG]]
// NVVM: llvm.mlir.addressof @[[FILE]]
// NVVM: llvm.mlir.addressof @[[FUNC]]
// NVVM: [[LINE:%.*]] = llvm.mlir.constant(12 : i32) : i32
// NVVM: llvm.call @__assertfail({{%.*}}, {{%.*}}, [[LINE]], {{%.*}}, {{%.*}})
#b = #tilegpu.blocked<[1], [32], [4], [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.threads_per_warp = 32 : i32} {
  func.func @check_in_range(%n: i32) {
    %rg = "tile.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %ns = "tile.splat"(%n) : (i32) -> tensor<256xi32, #b>
    %ok = arith.cmpi slt, %rg, %ns : tensor<256xi32, #b>
    "tile.assert"(%ok) {message = "index out of range"} : (tensor<256xi1, #b>) -> () loc("kernel.py":12:5)
    return
  }
}
