// The tile IR of tutorials/05-layer-norm.py (forward, and the backward pass with its lock),
// and that it parses back.
// RUN: tilec compile %S/../../tutorials/05-layer-norm.py:layer_norm_fwd --signature '*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32,i32,fp32' --constexpr BLOCK_SIZE=1024 --emit tile | filecheck %s --check-prefix=FWD
// RUN: tilec compile %S/../../tutorials/05-layer-norm.py:layer_norm_fwd --signature '*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32,i32,fp32' --constexpr BLOCK_SIZE=1024 --emit tile | tilec-opt > /dev/null
// RUN: tilec compile %S/../../tutorials/05-layer-norm.py:layer_norm_bwd_dx_fused --signature '*fp16,*fp16,*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,*i32,i32,i32' --constexpr GROUP_SIZE_M=64,BLOCK_SIZE_N=1024 --emit tile | filecheck %s --check-prefix=BWD
// RUN: tilec compile %S/../../tutorials/05-layer-norm.py:layer_norm_bwd_dx_fused --signature '*fp16,*fp16,*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,*i32,i32,i32' --constexpr GROUP_SIZE_M=64,BLOCK_SIZE_N=1024 --emit tile | tilec-opt > /dev/null
// RUN: tilec compile %S/../../tutorials/05-layer-norm.py:layer_norm_bwd_dwdb --signature '*fp16,*fp16,*fp16,*fp16,i32,i32' --constexpr BLOCK_SIZE_M=32,BLOCK_SIZE_N=128 --emit tile | tilec-opt > /dev/null

// FWD-LABEL: func.func @layer_norm_fwd(
// FWD-SAME: [[EPS:%[a-z0-9_]+]]: f32 {{.*}})
// The mean: a loop accumulating fp32 blocks (loads widened with extf), then a sum.
// FWD: [[ACC:%.*]] = scf.for {{.*}} iter_args([[PART:%[^ ]+]] = {{%.*}}) -> (tensor<1024xf32>)  : i32 {
// FWD: [[X16:%.*]] = "tile.load"({{.*}}) -> tensor<1024xf16>
// FWD: [[X32:%.*]] = arith.extf [[X16]] : tensor<1024xf16> to tensor<1024xf32>
// FWD: [[NEXT:%.*]] = arith.addf [[PART]], [[X32]] : tensor<1024xf32>
// FWD: scf.yield [[NEXT]] : tensor<1024xf32>
// FWD: [[SUM:%.*]] = "tile.reduce"([[ACC]])
// The division by N promotes the i32 to f32.
// FWD: [[NF:%.*]] = arith.sitofp {{%.*}} : i32 to f32
// FWD: [[MEAN:%.*]] = arith.divf [[SUM]], [[NF]] fastmath<afn> : f32
// The variance loop masks with where and squares.
// FWD: scf.for
// FWD: arith.select
// FWD: arith.mulf
// FWD: [[VAR:%.*]] = arith.divf {{%.*}}, {{%.*}} fastmath<afn> : f32
// FWD: [[VE:%.*]] = arith.addf [[VAR]], [[EPS]] : f32
// FWD: [[STD:%.*]] = math.sqrt [[VE]] fastmath<afn> : f32
// FWD: [[RSTD:%.*]] = arith.divf {{%.*}}, [[STD]] fastmath<afn> : f32
// Scalar stores of the statistics.
// FWD: "tile.store"({{%.*}}, [[MEAN]]) {{.*}} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
// FWD: "tile.store"({{%.*}}, [[RSTD]]) {{.*}} : (!tile.ptr<f32, 1 : i32>, f32) -> ()
// The normalisation writes fp16: the fp32 result is truncated to the pointer's element type.
// FWD: scf.for
// FWD: arith.truncf {{%.*}} : tensor<1024xf32> to tensor<1024xf16>
// FWD: "tile.store"

// BWD-LABEL: func.func @layer_norm_bwd_dx_fused(
// The spin lock: a while loop around atomic_cas, carrying nothing.
// BWD: scf.while : () -> () {
// BWD: [[OLD:%.*]] = "tile.atomic_cas"({{%.*}}, {{%.*}}, {{%.*}}) {scope = "gpu", sem = "acq_rel"} : (!tile.ptr<i32, 1 : i32>, i32, i32) -> i32
// BWD: [[HELD:%.*]] = arith.cmpi eq, [[OLD]], {{%.*}} : i32
// BWD: scf.condition([[HELD]])
// The first writer only sets the count; later ones accumulate: an scf.if yielding both blocks.
// BWD: [[PARTIAL:%.*]]:2 = scf.if {{%.*}} -> (tensor<1024xf32>, tensor<1024xf32>) {
// BWD: "tile.atomic_rmw"({{%.*}}, {{%.*}}) {rmw_op = "xchg"
// BWD: } else {
// BWD: "tile.load"
// BWD: arith.addf
// BWD: }
// BWD: "tile.store"({{%.*}}, {{%.*}}, {{%.*}})
// BWD: gpu.barrier
// BWD: "tile.atomic_rmw"({{%.*}}, {{%.*}}) {rmw_op = "xchg"
