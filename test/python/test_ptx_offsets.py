"""keep_copy_offsets (python/tilec/ptx_offsets.py): the loop-invariant offsets of a loop's cp.async
sources written as cvt.s64.s32 + shl.b64 instead of mul.wide.s32, and nothing else touched."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tilec.ptx_offsets import keep_copy_offsets

LOOP = """\
	mul.wide.s32 	%rd12, %r135, 2;
	mul.wide.s32 	%rd13, %r136, 2;
	mul.wide.s32 	%rd14, %r137, 6;
	mul.wide.s32 	%rd15, %r138, 8;
$L__BB0_2:
	add.s64 	%rd96, %rd181, %rd12;
	add.s64 	%rd97, %rd181, %rd13;
	add.s64 	%rd98, %rd181, %rd14;
	add.s64 	%rd99, %rd15, %rd181;
	mul.wide.s32 	%rd20, %r140, 4;
	add.s64 	%rd100, %rd181, %rd20;
	cp.async.cg.shared.global [%rd120], [%rd96], 16, %r153;
	cp.async.cg.shared.global [%rd120+2048], [%rd98], 16, %r153;
	cp.async.cg.shared.global [%rd120+4096], [%rd99+128], 16, %r153;
	cp.async.cg.shared.global [%rd120+6144], [%rd100], 16, %r153;
	st.global.u64 	[%rd97], %rd13;
	@%p22 bra 	$L__BB0_2;
"""


def test_offsets_of_copy_sources_are_sign_extended_and_shifted():
    out = keep_copy_offsets(LOOP)
    assert "cvt.s64.s32 \t%rd12, %r135;\n\tshl.b64 \t%rd12, %rd12, 1;" in out
    assert "cvt.s64.s32 \t%rd15, %r138;\n\tshl.b64 \t%rd15, %rd15, 3;" in out  # either addend


def test_other_offsets_are_left_alone():
    out = keep_copy_offsets(LOOP)
    assert "mul.wide.s32 \t%rd13, %r136, 2;" in out  # its sum is stored, not copied from
    assert "mul.wide.s32 \t%rd14, %r137, 6;" in out  # 6 is no power of two
    assert "mul.wide.s32 \t%rd20, %r140, 4;" in out  # defined inside the loop
    assert out.count("\n") == LOOP.count("\n") + 2


def test_ptx_without_loops_or_copies_is_unchanged():
    straight = LOOP.replace("@%p22 bra \t$L__BB0_2;", "ret;")
    assert keep_copy_offsets(straight) == straight
    assert keep_copy_offsets(LOOP.replace("cp.async.cg.shared.global", "st.global.v4.b32")) == \
        LOOP.replace("cp.async.cg.shared.global", "st.global.v4.b32")


@pytest.fixture(scope="module")
def matmul_kernel():
    import tilec
    import tilec.language as tl
    path = Path(__file__).resolve().parents[2] / "bench" / "matmul_kernel.py"
    spec = importlib.util.spec_from_file_location("ptx_offsets_matmul", path)
    module = importlib.util.module_from_spec(spec)
    module.tl, module.jit = tl, tilec.jit
    spec.loader.exec_module(module)
    return tilec.jit(module.matmul_kernel)


def test_the_matmul_tutorials_loop_copies_from_kept_offsets(matmul_kernel):
    """The 4-warp 128x128x64 config (the 1024^3 benchmark's): every B offset its pipelined loop
    adds to the trip's pointer is a cvt + shl, and ptxas takes the PTX without spilling."""
    import tilec
    signature = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16",
                 **{n: "i32:16" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")}}
    kernel = tilec.compile(matmul_kernel, signature=signature,
                           constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8,
                                           stride_ak=1, stride_bn=1, stride_cn=1),
                           num_warps=4, num_stages=3, target="cuda:90")
    ptx = kernel.asm["ptx"]
    loop = ptx[ptx.index("$L__BB0_2:"):]
    loop = loop[:loop.index("bra.uni") if "bra.uni" in loop else len(loop)]
    sources = {line.split("[")[2].split("]")[0].split("+")[0].strip()
               for line in loop.splitlines() if "cp.async.cg" in line}
    addends = {line.split(",")[2].strip(" ;") for line in loop.splitlines()
               if "add.s64" in line and line.split()[1].rstrip(",") in sources}
    assert addends
    for register in addends:
        assert f"mul.wide.s32 \t{register}," not in ptx
    assert kernel.metadata.get("spill_stores", 0) == 0
