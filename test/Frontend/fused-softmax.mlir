// The tile IR of tutorials/02-fused-softmax.py, and that it parses back.
// RUN: tilec compile %S/../../tutorials/02-fused-softmax.py:softmax_kernel --signature '*fp32:16,*fp32:16,i32,i32,i32,i32' --constexpr BLOCK_SIZE=1024 --emit tile | filecheck %s
// RUN: tilec compile %S/../../tutorials/02-fused-softmax.py:softmax_kernel --signature '*fp32:16,*fp32:16,i32,i32,i32,i32' --constexpr BLOCK_SIZE=1024 --emit tile | tilec-opt > /dev/null

// CHECK-LABEL: func.func @softmax_kernel(
// CHECK-SAME: [[OUT:%[a-z0-9_]+]]: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}
// CHECK-SAME: [[IN:%[a-z0-9_]+]]: !tile.ptr<f32, 1 : i32> {tile.divisibility = 16 : i32}
// CHECK-SAME: [[IN_STRIDE:%[a-z0-9_]+]]: i32{{[^,]*}}, [[OUT_STRIDE:%[a-z0-9_]+]]: i32{{[^,]*}}, [[ROWS:%[a-z0-9_]+]]: i32{{[^,]*}}, [[COLS:%[a-z0-9_]+]]: i32
// `other=-float("inf")` becomes a constant block of -inf.
// CHECK-DAG: [[NEG_INF:%.*]] = arith.constant dense<0xFF800000> : tensor<1024xf32>
// CHECK-DAG: [[PID:%.*]] = "tile.program_id"() {axis = 0 : i32}
// CHECK-DAG: [[NPROG:%.*]] = "tile.num_programs"() {axis = 0 : i32}
// tl.range(row_start, n_rows, row_step, num_stages=2) is an scf.for over i32 carrying the hint.
// CHECK: scf.for [[ROW:%[^ ]+]] = [[PID]] to [[ROWS]] step [[NPROG]] : i32 {
// CHECK: [[ROW_OFF:%.*]] = arith.muli [[ROW]], [[IN_STRIDE]] : i32
// CHECK: [[ROW_PTR:%.*]] = "tile.addptr"([[IN]], [[ROW_OFF]]) : (!tile.ptr<f32, 1 : i32>, i32)
// CHECK: [[COL:%.*]] = "tile.make_range"() {end = 1024 : i32, start = 0 : i32}
// CHECK: [[MASK:%.*]] = arith.cmpi slt, [[COL]], {{%.*}} : tensor<1024xi32>
// CHECK: [[ROW_VALS:%.*]] = "tile.load"({{%.*}}, [[MASK]], [[NEG_INF]])
// The row maximum: a reduce whose combine region is maxnumf on scalars.
// CHECK: [[MAX:%.*]] = "tile.reduce"([[ROW_VALS]]) ({
// CHECK: ^bb0([[A:%[a-z0-9_]+]]: f32{{.*}}, [[B:%[a-z0-9_]+]]: f32
// CHECK: [[M:%.*]] = arith.maxnumf [[A]], [[B]] : f32
// CHECK: gpu.yield [[M]] : f32
// CHECK: }) {axis = 0 : i32, {{.*}}} : (tensor<1024xf32>) -> f32
// CHECK: [[MAXS:%.*]] = "tile.splat"([[MAX]]) : (f32) -> tensor<1024xf32>
// CHECK: [[SHIFTED:%.*]] = arith.subf [[ROW_VALS]], [[MAXS]] : tensor<1024xf32>
// CHECK: [[NUM:%.*]] = math.exp [[SHIFTED]] : tensor<1024xf32>
// CHECK: [[DEN:%.*]] = "tile.reduce"([[NUM]]) ({
// CHECK: arith.addf
// CHECK: }) {axis = 0 : i32
// CHECK: [[DENS:%.*]] = "tile.splat"([[DEN]])
// `/` on floats may be approximate, as in Triton (tl.div_rn is the exact one).
// CHECK: [[SOFTMAX:%.*]] = arith.divf [[NUM]], [[DENS]] fastmath<afn> : tensor<1024xf32>
// CHECK: [[OUT_OFF:%.*]] = arith.muli [[ROW]], [[OUT_STRIDE]] : i32
// CHECK: "tile.addptr"([[OUT]], [[OUT_OFF]])
// CHECK: "tile.store"({{%.*}}, [[SOFTMAX]], [[MASK]])
// CHECK: } {tile.num_stages = 2 : i32}
// CHECK-NEXT: return
