// RUN: not tilec-opt %s --split-input-file --tilegpu-tensormap-params 2>/dev/null | filecheck %s
// The chunks that pass produce no diagnostics; the ones the pass refuses produce exactly the
// error they expect (and make the first RUN line exit non-zero, hence `not`).
// RUN: tilec-opt %s --split-input-file --verify-diagnostics --tilegpu-tensormap-params
// Where it runs in the compiler, after convert-gpu-to-nvvm (which keeps tilec.tensormaps on the
// llvm.func it makes of the gpu.func), down to the PTX, where the map is a 128-byte parameter,
// 64-byte aligned.
// RUN: not tilec-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm),tilegpu-tensormap-params,nvvm-attach-target{chip=sm_90a features=+ptx80 O=3},reconcile-unrealized-casts,gpu-module-to-binary{format=isa})' 2>/dev/null | filecheck %s --check-prefix=PTX
// tilegpu-tensormap-params (passes/tensormap_params.py): the parameters an llvm.func lists in
// tilec.tensormaps become by-value TMA maps.

// The listed parameter gets llvm.byval (128 bytes), llvm.align = 64 and nvvm.grid_constant; the
// others get nothing, and the list is dropped.
// CHECK-LABEL: llvm.func @one_map
// CHECK-SAME: (%arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg1: i32) attributes {nvvm.kernel} {
// CHECK-NEXT: llvm.return
module {
  llvm.func @one_map(%arg0: !llvm.ptr, %arg1: i32) attributes {nvvm.kernel, tilec.tensormaps = array<i32: 0>} {
    llvm.return
  }
}

// -----

// Several maps, not first: attributes a parameter already has are kept beside the new ones
// (llvm.noalias on the map, llvm.noundef on the i32); a function without tilec.tensormaps is
// left as it is, even with !llvm.ptr parameters.
// CHECK-LABEL: llvm.func @two_maps
// CHECK-SAME: (%arg0: i32 {llvm.noundef}, %arg1: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, llvm.noalias, nvvm.grid_constant}, %arg2: !llvm.ptr<1>, %arg3: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {nvvm.kernel} {
// CHECK-LABEL: llvm.func @no_maps
// CHECK-SAME: (%arg0: !llvm.ptr, %arg1: !llvm.ptr {llvm.noalias}) attributes {nvvm.kernel} {
// CHECK-NOT: tilec.tensormaps
module {
  llvm.func @two_maps(%arg0: i32 {llvm.noundef}, %arg1: !llvm.ptr {llvm.noalias}, %arg2: !llvm.ptr<1>, %arg3: !llvm.ptr) attributes {nvvm.kernel, tilec.tensormaps = array<i32: 1, 3>} {
    llvm.return
  }
  llvm.func @no_maps(%arg0: !llvm.ptr, %arg1: !llvm.ptr {llvm.noalias}) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// A gpu.func kernel as convert-tilegpu-to-llvm leaves it. The pass alone refuses it (upstream's
// gpu.func cannot carry by-value parameters); after convert-gpu-to-nvvm the map reaches PTX as
// `.param .align 64 .b8 k_param_1[128]`.
// PTX: .visible .entry k(
// PTX-SAME: .param .u32 k_param_0,
// PTX-SAME: .param .align 64 .b8 k_param_1[128]
// PTX-NOT: .param .u64 k_param_1
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error@+1 {{tilegpu-tensormap-params runs on llvm.func kernels: run convert-gpu-to-nvvm first}}
    gpu.func @k(%n: i32, %map: !llvm.ptr) kernel attributes {tilec.tensormaps = array<i32: 1>} {
      gpu.return
    }
  }
}

// -----

// A listed parameter the kernel does not have.
module {
  // expected-error@+1 {{tilec.tensormaps names parameter 2; the kernel has 2}}
  llvm.func @out_of_range(%arg0: !llvm.ptr, %arg1: i32) attributes {nvvm.kernel, tilec.tensormaps = array<i32: 0, 2>} {
    llvm.return
  }
}

// -----

module {
  // expected-error@+1 {{tilec.tensormaps names parameter -1; the kernel has 1}}
  llvm.func @negative(%arg0: !llvm.ptr) attributes {nvvm.kernel, tilec.tensormaps = array<i32: -1>} {
    llvm.return
  }
}

// -----

// A declaration takes no maps.
module {
  // expected-error@+1 {{tilec.tensormaps on a declaration: only a kernel's definition takes TMA maps}}
  llvm.func @decl(!llvm.ptr) attributes {tilec.tensormaps = array<i32: 0>}
}

// -----

// A listed parameter that is not a pointer to the map.
module {
  // expected-error@+1 {{parameter 0 is a TMA map and must be !llvm.ptr}}
  llvm.func @not_a_pointer(%arg0: i64) attributes {nvvm.kernel, tilec.tensormaps = array<i32: 0>} {
    llvm.return
  }
}

// -----

// tilec.tensormaps of another element type is a diagnostic (the fuzzer's seed 500:
// array<i8: 0, 2> was an internal error).
module {
  // expected-error@+1 {{tilec.tensormaps must be an array<i32: ...> of parameter indices, got array<i8: 0, 2>}}
  llvm.func @i8_indices(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i32) attributes {nvvm.kernel, tilec.tensormaps = array<i8: 0, 2>} {
    llvm.return
  }
}

// -----

// Unsigned indices are refused as tilec-opt reads its input: the Python bindings cannot read
// an array<ui32> back (the fuzzer's seed 1700: array<ui32: 1, 3> was an internal error here).
module {
  // expected-error@+1 {{a dense array cannot hold 'ui32' elements: use array<i32: ...> or array<i64: ...>}}
  llvm.func @ui32_indices(%arg0: i32, %arg1: !llvm.ptr) attributes {nvvm.kernel, tilec.tensormaps = array<ui32: 1>} {
    llvm.return
  }
}

