// The tile IR of tutorials/03-matrix-multiplication.py (grouped ordering, fused leaky ReLU),
// and that it parses back.
// RUN: tilec compile %S/../../tutorials/03-matrix-multiplication.py:matmul_kernel --signature '*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32,i32:16,i32,i32:16,i32' --constexpr BLOCK_SIZE_M=128,BLOCK_SIZE_N=128,BLOCK_SIZE_K=64,GROUP_SIZE_M=8 --constexpr ACTIVATION=leaky_relu --emit tile | filecheck %s
// RUN: tilec compile %S/../../tutorials/03-matrix-multiplication.py:matmul_kernel --signature '*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32,i32:16,i32,i32:16,i32' --constexpr BLOCK_SIZE_M=128,BLOCK_SIZE_N=128,BLOCK_SIZE_K=64,GROUP_SIZE_M=8 --constexpr ACTIVATION=leaky_relu --emit tile | tilec-opt > /dev/null
// Without the activation the epilogue is a plain truncation.
// RUN: tilec compile %S/../../tutorials/03-matrix-multiplication.py:matmul_kernel --signature '*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32,i32:16,i32,i32:16,i32' --constexpr BLOCK_SIZE_M=128,BLOCK_SIZE_N=128,BLOCK_SIZE_K=64,GROUP_SIZE_M=8 --constexpr ACTIVATION='""' --emit tile | filecheck %s --check-prefix=PLAIN

// CHECK-LABEL: func.func @matmul_kernel(
// CHECK-SAME: [[A:%[a-z0-9_]+]]: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}
// CHECK-SAME: [[B:%[a-z0-9_]+]]: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}
// CHECK-SAME: [[C:%[a-z0-9_]+]]: !tile.ptr<f16, 1 : i32> {tile.divisibility = 16 : i32}
// CHECK-SAME: [[M:%[a-z0-9_]+]]: i32{{[^,]*}}, [[N:%[a-z0-9_]+]]: i32{{[^,]*}}, [[K:%[a-z0-9_]+]]: i32
// CHECK-SAME: [[SAM:%[a-z0-9_]+]]: i32 {tile.divisibility = 16 : i32}
// Grouped ordering: cdiv, integer // and % (C semantics), and Python's min on scalars.
// CHECK: [[PID:%.*]] = "tile.program_id"() {axis = 0 : i32}
// CHECK: arith.divsi
// CHECK: [[GROUP_M:%.*]] = arith.minsi {{%.*}}, {{%.*}} : i32
// CHECK: arith.remsi {{%.*}}, [[GROUP_M]] : i32
// Row and column offsets, broadcast to 2-D pointer blocks with expand_dims and broadcast.
// CHECK: "tile.expand_dims"({{%.*}}) {axis = 1 : i32} : (tensor<128xi32>) -> tensor<128x1xi32>
// CHECK: "tile.expand_dims"({{%.*}}) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
// CHECK: "tile.broadcast"({{%.*}}) : (tensor<128x1xi32>) -> tensor<128x64xi32>
// CHECK: [[A_PTRS:%.*]] = "tile.addptr"({{%.*}}, {{%.*}}) : (tensor<128x64x!tile.ptr<f16, 1 : i32>>, tensor<128x64xi32>)
// CHECK: [[B_PTRS:%.*]] = "tile.addptr"({{%.*}}, {{%.*}}) : (tensor<64x128x!tile.ptr<f16, 1 : i32>>, tensor<64x128xi32>)
// The K loop carries the accumulator and both pointer blocks.
// CHECK: [[LOOP:%.*]]:3 = scf.for [[KI:%[^ ]+]] = {{%.*}} to {{%.*}} step {{%.*}} iter_args([[ACC:%[^ ]+]] = {{%.*}}, [[AP:%[^ ]+]] = [[A_PTRS]], [[BP:%[^ ]+]] = [[B_PTRS]]) -> (tensor<128x128xf32>, tensor<128x64x!tile.ptr<f16, 1 : i32>>, tensor<64x128x!tile.ptr<f16, 1 : i32>>) : i32 {
// CHECK: [[AV:%.*]] = "tile.load"([[AP]], {{%.*}}, {{%.*}}) {{.*}} -> tensor<128x64xf16>
// CHECK: [[BV:%.*]] = "tile.load"([[BP]], {{%.*}}, {{%.*}}) {{.*}} -> tensor<64x128xf16>
// CHECK: [[DOT:%.*]] = "tile.dot"([[AV]], [[BV]], [[ACC]]) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
// CHECK: [[NEXT_A:%.*]] = "tile.addptr"([[AP]],
// CHECK: [[NEXT_B:%.*]] = "tile.addptr"([[BP]],
// CHECK: scf.yield [[DOT]], [[NEXT_A]], [[NEXT_B]]
// The inlined leaky_relu helper: where(x >= 0, x, 0.01 * x).
// CHECK: [[GE:%.*]] = arith.cmpf oge, [[LOOP]]#0, {{%.*}} : tensor<128x128xf32>
// CHECK: [[SCALED:%.*]] = arith.mulf [[LOOP]]#0, {{%.*}} : tensor<128x128xf32>
// CHECK: [[ACT:%.*]] = arith.select [[GE]], [[LOOP]]#0, [[SCALED]]
// CHECK: [[C16:%.*]] = arith.truncf [[ACT]] : tensor<128x128xf32> to tensor<128x128xf16>
// CHECK: [[CMASK:%.*]] = arith.andi {{%.*}}, {{%.*}} : tensor<128x128xi1>
// CHECK: "tile.store"({{%.*}}, [[C16]], [[CMASK]])

// PLAIN-LABEL: func.func @matmul_kernel(
// PLAIN: [[LOOP:%.*]]:3 = scf.for
// PLAIN-NOT: arith.select
// PLAIN: arith.truncf [[LOOP]]#0 : tensor<128x128xf32> to tensor<128x128xf16>
