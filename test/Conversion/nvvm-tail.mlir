// The upstream tail, from a gpu.func in llvm/nvvm/arith/math to PTX, runs without a GPU: this
// is the end of every tilec pipeline. libdevice (pip nvidia-nvvm) is linked, so math.exp is
// inlined rather than left as a call.
// RUN: tilec-opt %s --pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_90a features=+ptx80 O=3 l=%libdevice},gpu.module(convert-gpu-to-nvvm,convert-arith-to-llvm,canonicalize,cse),reconcile-unrealized-casts,gpu-module-to-binary{format=isa})' | filecheck %s

// CHECK: gpu.binary @kernels
// CHECK-SAME: chip = "sm_90a"
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .visible .entry k(
// CHECK-SAME: ex2.approx.ftz.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: bar.sync
// CHECK-NOT: __nv_expf
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: !llvm.ptr<1>, %x: f32, %h: vector<2xf16>, %acc: f32) kernel {
      %e = math.exp %x : f32
      %all = arith.constant -1 : i32
      %one = arith.constant 1 : i32
      %width = arith.constant 31 : i32
      %s = nvvm.shfl.sync bfly %all, %e, %one, %width : f32 -> f32
      %d = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%acc, %acc, %acc, %acc] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
      %sum = arith.addf %d0, %s : f32
      nvvm.barrier0
      llvm.store %sum, %out : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
