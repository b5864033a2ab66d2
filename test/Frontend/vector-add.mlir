// The tile IR of tutorials/01-vector-add.py, and that it parses back.
// RUN: tilec compile %S/../../tutorials/01-vector-add.py:add_kernel --signature '*fp32:16,*fp32:16,*fp32:16,i32' --constexpr BLOCK_SIZE=1024 --emit tile | filecheck %s
// RUN: tilec compile %S/../../tutorials/01-vector-add.py:add_kernel --signature '*fp32:16,*fp32:16,*fp32:16,i32' --constexpr BLOCK_SIZE=1024 --emit tile | tilec-opt > /dev/null

// CHECK-LABEL: func.func @add_kernel(
// CHECK-SAME: [[X:%[a-z0-9_]+]]: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}
// CHECK-SAME: [[Y:%[a-z0-9_]+]]: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}
// CHECK-SAME: [[OUT:%[a-z0-9_]+]]: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}
// CHECK-SAME: [[N:%[a-z0-9_]+]]: i32
// CHECK-SAME: attributes {tile.kernel}
// CHECK-DAG: [[BLOCK:%.*]] = arith.constant 1024 : i32
// CHECK-DAG: [[PID:%.*]] = "tile.program_id"() {axis = 0 : i32}
// CHECK: [[START:%.*]] = arith.muli [[PID]], [[BLOCK]] : i32
// CHECK: [[RANGE:%.*]] = "tile.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
// CHECK: [[STARTS:%.*]] = "tile.splat"([[START]]) : (i32) -> tensor<1024xi32>
// CHECK: [[OFFS:%.*]] = arith.addi [[STARTS]], [[RANGE]] : tensor<1024xi32>
// CHECK: [[NS:%.*]] = "tile.splat"([[N]])
// CHECK: [[MASK:%.*]] = arith.cmpi slt, [[OFFS]], [[NS]] : tensor<1024xi32>
// CHECK: [[XS:%.*]] = "tile.splat"([[X]])
// CHECK: [[XP:%.*]] = "tile.addptr"([[XS]], [[OFFS]])
// CHECK: [[XV:%.*]] = "tile.load"([[XP]], [[MASK]]) {{.*}}operandSegmentSizes = array<i32: 1, 1, 0>{{.*}} -> tensor<1024xf32>
// CHECK: [[YP:%.*]] = "tile.addptr"({{.*}}, [[OFFS]])
// CHECK: [[YV:%.*]] = "tile.load"([[YP]], [[MASK]])
// CHECK-DAG: [[OP:%.*]] = "tile.addptr"({{.*}}, [[OFFS]])
// CHECK-DAG: [[SUM:%.*]] = arith.addf [[XV]], [[YV]] : tensor<1024xf32>
// CHECK: "tile.store"([[OP]], [[SUM]], [[MASK]])
// CHECK-NEXT: return
