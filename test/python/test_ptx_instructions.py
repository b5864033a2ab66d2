"""Memory instructions carry what the kernel asked for into the PTX (lowering/ptx.py): cache
operators and eviction priorities of tl.load/tl.store, and the memory semantics and scope of
atomics. Compiled to cubin here (ptxas accepts each form); test_gpu_backend.py runs them."""
from __future__ import annotations

import re

import pytest

import gpu_kernels as G
import tilec


def _ptx(kernel, signature, **constexprs) -> str:
    return tilec.compile(kernel, signature=signature, constexprs=constexprs,
                         num_warps=4).asm["ptx"]


def _memory_ops(ptx: str) -> set[str]:
    return set(re.findall(r"(?:ld|st)\.global[\w.:]*", ptx))


@pytest.mark.parametrize("ty, width", [("fp16", "v4.b32"), ("fp32", "v4.b32"),
                                       ("i8", "v2.b32"), ("fp64", "v2.b64")])
@pytest.mark.parametrize("cache, evict, store_cache, load, store", [
    (".ca", "", ".cs", "ld.global.ca", "st.global.cs"),
    (".cg", "", ".wt", "ld.global.cg", "st.global.wt"),
    ("", "evict_last", "", "ld.global.L1::evict_last", "st.global.L1::evict_last"),
    ("", "evict_first", ".wb", "ld.global.L1::evict_first", "st.global.L1::evict_first"),
    ("", "", "", "ld.global", "st.global")])
def test_cache_modifiers_and_eviction_policies_reach_the_ptx(ty, width, cache, evict,
                                                            store_cache, load, store):
    """Vectorised as a plain access would be; an eviction policy wins over a cache operator
    (PTX takes one or the other)."""
    ptx = _ptx(G.hinted_copy, {"x_ptr": f"*{ty}:16", "y_ptr": f"*{ty}:16", "n": "i32:16"},
               CACHE=cache, EVICT=evict, STORE_CACHE=store_cache, BLOCK=1024)
    assert _memory_ops(ptx) == {f"{load}.{width}", f"{store}.{width}"}


@pytest.mark.parametrize("sem, scope", [("acq_rel", "gpu"), ("acquire", "cta"),
                                        ("release", "gpu"), ("relaxed", "sys")])
@pytest.mark.parametrize("ty, add, maximum", [
    ("fp32", "add.f32", None), ("fp16", "add.noftz.f16", None),
    ("bf16", "add.noftz.bf16", None), ("i32", "add.u32", "max.s32"),
    ("u32", "add.u32", "max.u32"), ("i64", "add.u64", "max.s64")])
def test_atomics_carry_their_semantics_and_scope(sem, scope, ty, add, maximum):
    ptx = _ptx(G.ordered_atomics, {"sum_ptr": f"*{ty}", "max_ptr": f"*{ty}", "flag_ptr": "*i32",
                                   "v_ptr": f"*{ty}"}, SEM=sem, SCOPE=scope, BLOCK=128)
    assert f"atom.global.{scope}.{sem}.{add}" in ptx
    assert f"atom.global.{sem}.{scope}.cas.b32" in ptx
    if maximum is not None:  # float max has no PTX atom: a compare-and-swap loop
        assert f"atom.global.{scope}.{sem}.{maximum}" in ptx
