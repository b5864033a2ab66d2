"""tilegpu-tensormap-params: kernel parameters that are TMA maps become by-value grid constants.

A kernel taking host tensor descriptors through TMA has, for each, a parameter holding the
128-byte map (`CUtensorMap`) by value; convert-tilegpu-to-llvm gives such a parameter the type
`!llvm.ptr` (the copies take its generic address) and lists the parameters on the `gpu.func` in
`tilec.tensormaps`. Upstream's gpu.func cannot carry what makes the parameter a by-value one, so
this pass, run after convert-gpu-to-nvvm has made the kernel an `llvm.func`, gives each listed
parameter `llvm.byval = !llvm.array<128 x i8>`, `llvm.align = 64` and `nvvm.grid_constant`:
the PTX parameter is then `.param .align 64 .b8 name_param_N[128]`, read in place (a grid
constant's address is the parameter's own, which `cp.async.bulk.tensor` takes).

Example:
    llvm.func @k(%arg0: !llvm.ptr, %arg1: i32) attributes {nvvm.kernel,
                 tilec.tensormaps = array<i32: 0>, ...}
becomes
    llvm.func @k(%arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>,
                 nvvm.grid_constant}, %arg1: i32) attributes {nvvm.kernel, ...}
"""
from __future__ import annotations

from mlir import ir

from tilec.passbase import Pass, ops_in, register
from tilec.tma import MAP_ALIGN, MAP_BYTES

TENSORMAPS_ATTR = "tilec.tensormaps"


def _by_value_map() -> ir.DictAttr:
    return ir.DictAttr.get({
        "llvm.byval": ir.TypeAttr.get(ir.Type.parse(f"!llvm.array<{MAP_BYTES} x i8>")),
        "llvm.align": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), MAP_ALIGN),
        "nvvm.grid_constant": ir.UnitAttr.get()})


@register
class TensormapParams(Pass):
    name = "tilegpu-tensormap-params"
    summary = "Kernel parameters that are TMA maps become by-value, 64-byte-aligned grid constants"

    def run(self, module: ir.Operation) -> None:
        for fn in ops_in(module, "llvm.func", "gpu.func"):
            if TENSORMAPS_ATTR not in fn.attributes:
                continue
            if fn.name != "llvm.func":
                raise self.fail(fn, f"{self.name} runs on llvm.func kernels: run "
                                    "convert-gpu-to-nvvm first")
            listed = fn.attributes[TENSORMAPS_ATTR]
            if not isinstance(listed, ir.DenseI32ArrayAttr):
                raise self.fail(fn, f"{TENSORMAPS_ATTR} must be an array<i32: ...> of parameter "
                                    f"indices, got {listed}")
            params = list(ir.DenseI32ArrayAttr(listed))
            if not len(fn.regions[0].blocks):
                raise self.fail(fn, f"{TENSORMAPS_ATTR} on a declaration: only a kernel's "
                                    "definition takes TMA maps")
            arguments = list(fn.regions[0].blocks[0].arguments)
            count = len(arguments)
            old = list(ir.ArrayAttr(fn.attributes["arg_attrs"])) if "arg_attrs" in \
                fn.attributes else [ir.DictAttr.get({}) for _ in range(count)]
            for index in params:
                if not 0 <= index < count:
                    raise self.fail(fn, f"{TENSORMAPS_ATTR} names parameter {index}; the "
                                        f"kernel has {count}")
                if str(arguments[index].type) != "!llvm.ptr":
                    raise self.fail(fn, f"parameter {index} is a TMA map and must be !llvm.ptr")
                merged = {a.name: a.attr for a in ir.DictAttr(old[index])}
                merged.update({a.name: a.attr for a in _by_value_map()})
                old[index] = ir.DictAttr.get(merged)
            fn.attributes["arg_attrs"] = ir.ArrayAttr.get(old)
            del fn.attributes[TENSORMAPS_ATTR]
