"""Memory instructions carry what the kernel asked for into the PTX (lowering/ptx.py): cache
operators and eviction priorities of tl.load/tl.store, and the memory semantics and scope of
atomics. Compiled to cubin here (ptxas accepts each form); test_gpu_backend.py runs them."""
from __future__ import annotations

import re

import pytest

import gpu_kernels as G
import tilec
import tilec.language as tl


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
    ("fp32", "add.f32", "max.s32"), ("fp64", "add.f64", "max.s64"),
    ("fp16", "add.noftz.f16", None),
    ("bf16", "add.noftz.bf16", None), ("i32", "add.u32", "max.s32"),
    ("u32", "add.u32", "max.u32"), ("i64", "add.u64", "max.s64")])
def test_atomics_carry_their_semantics_and_scope(sem, scope, ty, add, maximum):
    ptx = _ptx(G.ordered_atomics, {"sum_ptr": f"*{ty}", "max_ptr": f"*{ty}", "flag_ptr": "*i32",
                                   "v_ptr": f"*{ty}"}, SEM=sem, SCOPE=scope, BLOCK=128)
    assert f"atom.global.{scope}.{sem}.{add}" in ptx
    assert f"atom.global.{sem}.{scope}.cas.b32" in ptx
    if maximum is not None:  # fp16 max has no PTX atom: a compare-and-swap loop
        assert f"atom.global.{scope}.{sem}.{maximum}" in ptx
    if ty.startswith("fp") and maximum is not None:  # negative floats: unsigned min on bits
        assert f"atom.global.{scope}.{sem}.min.u{maximum[-2:]}" in ptx


@pytest.mark.parametrize("ty", ["i8", "i16", "i32", "i64"])
def test_abs_compiles_for_every_integer_width(ty):
    """tl.abs of integers is max(x, 0 - x): no math.absi, which the GPU pipeline lowers for
    32 bits only (8 and 16 failed in the ptx stage)."""
    ptx = _ptx(G.unary, {"x_ptr": f"*{ty}", "out_ptr": f"*{ty}", "n": "i32"}, OP="abs",
               BLOCK=128)
    assert re.search(r"\b(abs|max)\.s(16|32|64)\b", ptx)  # LLVM sees the abs in the max


def test_num_warps_not_a_power_of_two_is_an_error_of_both_kinds_triton_code_catches():
    from tilec.compiler import OptionError
    for bad in (3, 0, 12):
        with pytest.raises(OptionError, match="must be a power of 2") as raised:
            tilec.compile(G.double_in_place, signature={"x_ptr": "*fp32"}, num_warps=bad)
        assert isinstance(raised.value, ValueError) and isinstance(raised.value, AssertionError)


def test_num_stages_beyond_the_deepest_pipeline_is_an_option_error():
    """num_stages 1 to 32: a deeper ring was not refused before tilegpu-pipeline tried to
    build it (a loop's 2^31 stages hung it)."""
    from tilec.compiler import OptionError
    for bad in (0, 33, 2**31 - 1):
        with pytest.raises(OptionError, match="num_stages must be from 1 to 32"):
            tilec.compile(G.double_in_place, signature={"x_ptr": "*fp32"}, num_stages=bad)


def test_num_ctas_is_a_cluster_size_of_sm_90():
    """num_ctas is 1, 2, 4 or 8 CTAs a program (a thread block cluster), and clusters exist
    from sm_90 on: anything else is an OptionError before anything compiles."""
    from tilec.compiler import OptionError
    for bad in (0, 3, 16, True, 2.0):
        with pytest.raises(OptionError, match="num_ctas must be 1, 2, 4 or 8"):
            tilec.compile(G.double_in_place, signature={"x_ptr": "*fp32"}, num_ctas=bad)
    with pytest.raises(OptionError, match="num_ctas=2 needs thread block clusters.*cuda:80"):
        tilec.compile(G.double_in_place, signature={"x_ptr": "*fp32"}, num_ctas=2,
                      target="cuda:80")


@pytest.mark.parametrize("num_ctas", [2, 8])
def test_a_program_of_several_ctas_runs_in_the_first_and_reads_cluster_ids(num_ctas):
    """The kernel requires its cluster size (.reqnctapercluster), its CTAs other than the
    cluster's first leave at once (so the program's store happens once), and program_id and
    num_programs read %clusterid and %nclusterid, never the CTA's own ids."""
    import launch_kernels as K
    kernel = tilec.compile(K.program_ids, signature={"out_ptr": "*i32", "count_ptr": "*i32"},
                           num_ctas=num_ctas)
    ptx = kernel.asm["ptx"]
    assert f".reqnctapercluster {num_ctas}, 1, 1" in ptx and kernel.metadata["num_ctas"] == num_ctas
    rank = re.search(r"mov\.u32\s+(%r\d+), %cluster_ctarank;\s+setp\.ne\.b32\s+(%p\d+), \1, 0;"
                     r"\s+@\2 bra", ptx)
    assert rank, "the entry does not branch away from CTAs other than the first"
    assert "%clusterid.x" in ptx and "%clusterid.y" in ptx and "%nclusterid.x" in ptx
    assert "%ctaid" not in ptx and "%nctaid" not in ptx


def test_a_scalar_store_is_predicated_on_thread_zero():
    ptx = _ptx(G.double_in_place, {"x_ptr": "*fp32"})
    assert ptx.count("st.global") == 1
    # a predicated store, or a branch around it (LLVM sinks the load under it too)
    assert re.search(r"@%p\d+ (bra|st\.global)", ptx)


@pytest.mark.parametrize("op, types, count", [
    ("shift", ("u32", "u32", "u32", "i32"), 4), ("packed", ("u8", "u8", "i8", "i32"), 1),
    ("two_results", ("fp32", "i32", "fp32", "i32"), 4), ("pointer", ("i32",) * 4, 4),
    ("packed_two", ("u8", "fp32", "fp32", "i32"), 1)])
def test_inline_asm_runs_once_per_pack_of_a_threads_registers(op, types, count):
    """512 elements over 128 threads: 4 registers each, one asm per register, or one for all
    four (pack=4: the int8 packed in one register, the fp32 in four)."""
    ptx = _ptx(G.asm_kernels, {name: f"*{t}:16" for name, t in
                               zip(("x_ptr", "y_ptr", "z_ptr", "w_ptr"), types)},
               OP=op, BLOCK=512)
    assert ptx.count("// begin inline asm") == count


def test_inline_asm_mistakes_are_errors_and_the_interpreter_says_it_cannot_run_it():
    import numpy as np
    from tilec.errors import CompilationError

    @tilec.jit
    def bad(x_ptr, CASE: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, 8))
        if CASE == 0:
            y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", [x], dtype=tl.int32,
                                          is_pure=True, pack=1)
        elif CASE == 1:
            y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32,
                                          is_pure=True, pack=3)
        else:
            y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32,
                                          is_pure=True, pack=1)
        tl.store(x_ptr + tl.arange(0, 8), y)

    for case, message in ((0, "name 1 outputs and 2 inputs"), (1, "power of two")):
        with pytest.raises(CompilationError, match=message):
            tilec.compile(bad, signature={"x_ptr": "*i32"}, constexprs={"CASE": case})
    bad.interpret = True
    with pytest.raises(CompilationError, match="runs on the GPU only"):
        bad[(1,)](np.zeros(8, np.int32), CASE=2)


def test_a_block_of_two_splits_into_two_scalars_when_compiled():
    """tl.split of a 2-element block: the halves are scalars (it failed to compile)."""
    compiled = tilec.compile(G.split_pair, signature={"x_ptr": "*i64", "z1_ptr": "*i64",
                                                      "z2_ptr": "*i64"})
    assert '"tile.split"' in compiled.asm["tile"] and "-> (i64, i64)" in compiled.asm["tile"]


def test_sqrt_rn_and_fp64_sqrt_are_correctly_rounded_instructions():
    """libdevice's __nv_sqrtf (the generic path) is approximate unless the module asks for
    precise roots: tl.sqrt_rn is sqrt.rn.f32 itself, fp64 tl.sqrt sqrt.rn.f64."""
    ptx = _ptx(G.square_roots, {"x_ptr": "*fp32", "rn_ptr": "*fp32", "wide_ptr": "*fp64"},
               BLOCK=128)
    assert set(re.findall(r"\b(?:r?sqrt)\.[\w.]+", ptx)) == {"sqrt.rn.f32", "sqrt.rn.f64"}
