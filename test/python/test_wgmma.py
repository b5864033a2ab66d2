"""wgmma without a GPU: which instruction `tl.dot` gets per target, and the benchmarked matmul
configurations compiled to cubin (ptxas runs on the CPU) without spills and without ptxas
serialising their wgmma instructions (it says so in `-v` as C7510, C7511, C7514 or C7515, which the
metadata records in `wgmma_serialized`)."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

import tilec
import tilec.language as tl
from tilec.compiler import ptxas_stats

ROOT = Path(__file__).resolve().parents[2]


def matmul_kernel():
    spec = importlib.util.spec_from_file_location("bench_matmul_kernel",
                                                  ROOT / "bench" / "matmul_kernel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tilec.jit(module.matmul_kernel)


SIGNATURE = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32:16",
             "N": "i32:16", "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16",
             "stride_cm": "i32:16"}
UNIT_STRIDES = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}  # row-major A, B, C


def compile_matmul(block, num_warps, num_stages, target="cuda:90", dtype="fp16"):
    bm, bn, bk = block
    signature = {k: v.replace("fp16", dtype) for k, v in SIGNATURE.items()}
    return tilec.compile(matmul_kernel(), signature=signature, target=target,
                         constexprs={"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8,
                                     **UNIT_STRIDES},
                         num_warps=num_warps, num_stages=num_stages)


# bench/matmul.py's configurations for large shapes (and the ones its sweep found best).
BENCHMARKED = [((128, 128, 64), 4, 3), ((128, 256, 64), 8, 3), ((128, 256, 64), 8, 4),
               ((256, 128, 64), 8, 3), ((128, 128, 32), 4, 4), ((64, 128, 64), 4, 3)]


@pytest.mark.parametrize("block, num_warps, num_stages", BENCHMARKED,
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_benchmarked_configs_run_wgmma_without_spills_or_serialisation(block, num_warps,
                                                                       num_stages):
    kernel = compile_matmul(block, num_warps, num_stages)
    ptx = kernel.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "mma.sync" not in ptx
    assert kernel.n_spills == 0 and kernel.metadata["spill_loads"] == 0
    assert kernel.metadata["wgmma_serialized"] == []


def test_sm80_targets_keep_mma_sync():
    kernel = compile_matmul((128, 128, 64), 4, 3, target="cuda:80")
    assert "mma.sync" in kernel.asm["ptx"] and "wgmma" not in kernel.asm["ptx"]


def test_int8_mma_sync_saturates_as_triton_s_does():
    """int8 on mma.sync (sm_80, or one warp on sm_90) sums with .satfinite, as Triton's
    (wgmma's int8 form wraps, in both compilers)."""
    signature = {**{k: v.replace("fp16", "i8") for k, v in SIGNATURE.items()},
                 "c_ptr": "*i32:16"}
    for target, warps in (("cuda:80", 4), ("cuda:90", 1)):
        kernel = tilec.compile(matmul_kernel(), signature=signature, target=target,
                               num_warps=warps, num_stages=2,
                               constexprs={"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 128,
                                           "GROUP_M": 8, "ACC_INT": True, **UNIT_STRIDES})
        assert "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32" in kernel.asm["ptx"]


def test_bf16_runs_wgmma_too():
    kernel = compile_matmul((128, 128, 64), 4, 3, dtype="bf16")
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in kernel.asm["ptx"]


@pytest.mark.parametrize("target, instruction", [
    ("cuda:90", "wgmma.mma_async.sync.aligned.m64n128k16.f16.f16.f16"),
    ("cuda:80", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")])
def test_fp16_accumulators_accumulate_on_the_instruction(target, instruction):
    """out_dtype=tl.float16 with fp16 operands: the tensor cores' fp16 accumulator (as Triton
    has it), no fp32 sums and conversions around the dot; the pipelined loop keeps it in flight
    without spills or serialised wgmma."""
    import dot_kernels
    key = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32:16",
           "N": "i32:16", "K": "i32:16", "stride_am": "i32:16", "stride_bk": "i32:16",
           "stride_cm": "i32:16"}
    kernel = tilec.compile(dot_kernels.matmul, signature=key, target=target, num_warps=4,
                           num_stages=3, constexprs={
                               "stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_M": 128,
                               "BLOCK_N": 128, "BLOCK_K": 64, "PRECISION": "tf32",
                               "ACC_DTYPE": tl.float16})
    ptx = kernel.asm["ptx"]
    assert instruction in ptx and ".f32.f16.f16" not in ptx and "cvt.f32.f16" not in ptx
    assert kernel.n_spills == 0 and kernel.metadata["wgmma_serialized"] == []


def test_ptxas_serialisation_notes_are_recorded():
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
           "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are "
           "serialized due to the presence of Extern calls in the function 'k'.\n"
           "ptxas info    : Used 168 registers, used 1 barriers\n"
           "    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n")
    stats = ptxas_stats(log)
    assert stats["registers"] == 168 and stats["spill_stores"] == 8
    assert len(stats["wgmma_serialized"]) == 1 and stats["wgmma_serialized"][0].startswith("(C7510)")
    assert ptxas_stats("ptxas info    : Used 40 registers\n")["wgmma_serialized"] == []
    assert stats["wgmma_arrives_injected"] == []
    injected = ptxas_stats("ptxas info    : (C7519) warpgroup.arrive is injected in around line "
                           "546 by compiler to allow use of registers in GMMA in function 'k'\n")
    assert [n[:7] for n in injected["wgmma_arrives_injected"]] == ["(C7519)"]
    assert injected["wgmma_serialized"] == []
    # a branch between a wgmma and its wait (met in warp-specialised loops; missed before)
    branch = ptxas_stats("ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async "
                         "instructions are serialized due to non wgmma instructions reading "
                         "accumulator registers of  a wgmma between start and end of the "
                         "pipeline stage in the function 'mm'\n")
    assert [n[:7] for n in branch["wgmma_serialized"]] == ["(C7514)"]



@pytest.mark.parametrize("num_warps", [4, 8])
def test_row_reductions_of_a_wgmma_accumulator_need_no_shared_memory(num_warps):
    """The accumulator's layout is a linear layout like any other: a maximum along its rows
    (after a `tl.where` on it; the warps split only M) is done in registers and warp shuffles,
    with no scratch, and nothing converts the accumulator before it."""
    import dot_kernels as D
    kernel = tilec.compile(D.dot_row_max, signature={
        "a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "out_ptr": "*fp32:16", "M": "i32",
        "N": "i32", "K": "i32:16"}, constexprs={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
        num_warps=num_warps, stop_after="tilegpu")
    lines = kernel.asm["tilegpu"].splitlines()
    start = next(i for i, line in enumerate(lines) if '"tile.reduce"' in line)
    reduce = next(line for line in lines[start:] if "axis = 1" in line)
    assert "-> tensor<128xf32, #tilegpu.slice<1 : i32, #tilegpu.mma<[3, 0]" in reduce
    assert "tilegpu.bytes" not in reduce
    assert not any("convert_layout" in line and "tensor<128x128xf32, #tilegpu.mma" in line
                   for line in lines)


ATTENTION_SIGNATURE = {"Q": "*fp16:16", "K": "*fp16:16", "V": "*fp16:16", "Out": "*fp16:16",
                       "sm_scale": "fp32", "seq_len": "i32:16", "stride_qm": "i32:16",
                       "stride_km": "i32:16", "stride_vm": "i32:16", "stride_om": "i32:16"}


@pytest.mark.parametrize("block_n, head_dim", [(64, 64), (64, 128), (128, 128)])
def test_attention_keeps_its_softmax_and_accumulator_in_registers(block_n, head_dim):
    """The flash-attention loop on 8 warps: the running statistics, the rescaled accumulator
    and P stay in the wgmma accumulators' layouts (conversions between them rename registers),
    so no convert_layout in the loop needs shared memory, P @ V takes P from registers, and
    ptxas spills nothing."""
    import dot_kernels as D
    options = dict(signature=ATTENTION_SIGNATURE, num_warps=8, num_stages=2,
                   constexprs={"HEAD_DIM": head_dim, "BLOCK_M": 128, "BLOCK_N": block_n})
    ir_text = tilec.compile(D.attention_fwd, stop_after="tilegpu", **options).asm["tilegpu"]
    lines = ir_text.splitlines()
    loop = next(i for i, line in enumerate(lines) if "scf.for" in line and "iter_args" in line)
    body = lines[loop:loop + next(i for i, line in enumerate(lines[loop:]) if "scf.yield" in line)]
    assert not [line for line in body if "convert_layout" in line and "tilegpu.bytes" in line]
    dots = [line for line in body if '"tilegpu.warpgroup_dot"' in line]
    assert len(dots) == 2 and "dot_operand<0" in dots[1]
    kernel = tilec.compile(D.attention_fwd, **options)
    assert kernel.n_spills == 0 and kernel.metadata["wgmma_serialized"] == []
    # P's registers are all written before the wgmma.fence: P @ V's wgmmas issue back to back
    # (no warpgroup.arrive injected between them), and tl.exp2 is one ex2.approx.ftz each
    assert kernel.metadata["wgmma_arrives_injected"] == []
    assert "ex2.approx.ftz.f32" in kernel.asm["ptx"] and "ex2.approx.f32" not in kernel.asm["ptx"]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("block_n, head_dim", [(64, 64), (128, 64), (64, 128), (128, 128)])
def test_fused_attention_tutorial_forward_configs(block_n, head_dim, causal):
    """tutorials/06-fused-attention.py's forward in the tutorial's configurations (BLOCK_M 128
    on 8 warps): no spills, wgmma for both dots with P @ V's issued back to back, and Q written
    to shared memory once, before the loops (no local_alloc of a value inside them)."""
    from tutorial_loader import tutorial
    t = tutorial("06-fused-attention")
    signature = {"Q": "*fp16:16", "K": "*fp16:16", "V": "*fp16:16", "Out": "*fp16:16",
                 "M": "*fp32:16", "sm_scale": "fp32", "seq_len": "i32:16"}
    kernel = tilec.compile(t.attention_fwd, signature=signature, num_warps=8, num_stages=2,
                           constexprs={"HEAD_DIM": head_dim, "BLOCK_M": 128,
                                       "BLOCK_N": block_n, "CAUSAL": causal})
    assert kernel.n_spills == 0 and kernel.metadata["wgmma_serialized"] == []
    assert kernel.metadata["wgmma_arrives_injected"] == []
    assert "wgmma.mma_async" in kernel.asm["ptx"] and "mma.sync" not in kernel.asm["ptx"]
    body = _loop_lines(kernel.asm["tilegpu"])
    assert [line for line in body if '"tilegpu.local_alloc"(%' in line] == []


def _loop_lines(tilegpu_asm: str) -> list[str]:
    """The lines of the tilegpu IR inside scf.for loops."""
    depth, found = 0, []
    for line in tilegpu_asm.splitlines():
        depth += line.count("scf.for") - ("scf.yield" in line)
        if depth > 0:
            found.append(line.strip())
    return found


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("num_warps", [4, 8])
@pytest.mark.parametrize("which", ["dkdv", "dq"])
def test_fused_attention_tutorial_backward_configs(which, num_warps, head_dim, causal):
    """tutorials/06-fused-attention.py's dK/dV and dQ kernels in the benchmarked
    configurations (64x64 blocks on 4 and 8 warps): no spills, wgmma for every dot, and in the
    loop over blocks nothing crossing threads on 4 warps: the products stay in accumulator
    registers (the row statistics lse and Delta, 64 values, are loaded in the accumulator's
    column slice) and become the next dot's A in registers, the tiles a dot
    reads transposed (tl.trans) are read through a transposed view of the buffer their copy
    filled, and every tile a dot reads from shared memory is copied there by cp.async ahead of
    its trip (no local_alloc of a value in the loop)."""
    from tutorial_loader import tutorial
    t = tutorial("06-fused-attention")
    P = "*fp16:16"
    signature = {"Q": P, "K": P, "V": P, "DOut": P, "M": "*fp32:16", "Delta": "*fp32:16",
                 "sm_scale": "fp32", "seq_len": "i32:16"}
    kernel_fn, outputs = ((t.attention_bwd_dkdv, {"DK": P, "DV": P}) if which == "dkdv"
                          else (t.attention_bwd_dq, {"DQ": P}))
    kernel = tilec.compile(kernel_fn, signature={**signature, **outputs}, num_warps=num_warps,
                           num_stages=2, constexprs={"HEAD_DIM": head_dim, "BLOCK_M": 64,
                                                     "BLOCK_N": 64, "CAUSAL": causal})
    assert kernel.n_spills == 0 and kernel.metadata["wgmma_serialized"] == []
    ptx = kernel.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "mma.sync" not in ptx
    body = _loop_lines(kernel.asm["tilegpu"])
    assert [line for line in body if '"tilegpu.local_alloc"(%' in line] == []
    assert [line for line in body if '"tile.trans"' in line] == []
    assert any('"tilegpu.memdesc_trans"' in line for line in body)
    assert any('"tilegpu.async_copy_global_to_local"' in line for line in body)
    through_shared = [line for line in body if '"tilegpu.convert_layout"' in line
                      and "tilegpu.bytes" in line]
    # On 8 warps the two warpgroups split a 64-row accumulator's columns, while each needs all
    # of them (K) as the A of the next dot: the fp16 P and dS go through shared memory there.
    crossing = [line for line in through_shared
                if not (num_warps == 8 and "-> tensor<64x64xf16, #tilegpu.dot_operand<0" in line)]
    assert crossing == [], through_shared
    # The last dot of the loop (dK = dS^T Q, dQ = dS K) stays in flight across the trip
    # boundary (a wait for one group pending in the loop, none pending after it), as in Triton;
    # ptxas keeps every wgmma unserialised (asserted above) on 4 and 8 warps.
    assert ptx.count("wgmma.wait_group.sync.aligned 1;") == 1


@pytest.mark.parametrize("head_dim", [64, 128])
def test_fused_attention_tutorial_delta_reduces_in_the_load_layout(head_dim):
    """The backward's Delta = rowsum(dOut * Out) of two loaded fp16 tiles widened to fp32: the
    product is computed and reduced in the loads' layout, so only the 64 sums are converted
    (for their store), never a 64xD tile (it was 8 KB of shared memory and 94 registers)."""
    from tutorial_loader import tutorial
    t = tutorial("06-fused-attention")
    P = "*fp16:16"
    kernel = tilec.compile(t.attention_bwd_delta,
                           signature={"Out": P, "DOut": P, "Delta": "*fp32:16",
                                      "seq_len": "i32:16"},
                           num_warps=4, constexprs={"HEAD_DIM": head_dim, "BLOCK_M": 64})
    conversions = [line for line in kernel.asm["tilegpu"].splitlines()
                   if '"tilegpu.convert_layout"' in line]
    assert len(conversions) == 1 and "(tensor<64xf32" in conversions[0], conversions
    assert kernel.metadata["shared"] <= 64 * 4 + 4


def test_maxnreg_caps_the_registers_ptxas_gives_a_kernel():
    """maxnreg (Triton's option) becomes the kernel's `.maxnreg` directive: the forward of the
    attention tutorial at d128 (128 registers without it) is held to 96, ptxas spilling what no
    longer fits."""
    from tutorial_loader import tutorial
    t = tutorial("06-fused-attention")
    signature = {"Q": "*fp16:16", "K": "*fp16:16", "V": "*fp16:16", "Out": "*fp16:16",
                 "M": "*fp32:16", "sm_scale": "fp32", "seq_len": "i32:16"}
    build = dict(signature=signature, num_warps=8, num_stages=2,
                 constexprs={"HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": False})
    free = tilec.compile(t.attention_fwd, **build)
    capped = tilec.compile(t.attention_fwd, maxnreg=96, **build)
    assert ".maxnreg" not in free.asm["ptx"] and free.n_regs > 96
    assert ".maxnreg 96" in capped.asm["ptx"] and capped.n_regs <= 96
    assert capped.metadata["maxnreg"] == 96 and capped.n_spills > 0
    with pytest.raises(ValueError, match="maxnreg"):
        tilec.compile(t.attention_fwd, maxnreg=300, **build)
