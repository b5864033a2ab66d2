"""tutorials/09-persistent-matmul.py: both persistent kernels in the interpreter and on the GPU,
and the descriptor kernel's inner loop staged by TMA rings when compiled for sm_90."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tilec import runtime
from tilec.compiler import CompileOptions, compile_specialized
from tilec.tools.tensor_descriptor import TensorDescriptor
from tutorial_loader import tutorial

RNG = np.random.default_rng(9)
SMALL = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2, num_warps=4,
             num_stages=3)


def operands(M, N, K, dtype=np.float16):
    a = RNG.standard_normal((M, K)).astype(dtype)
    b = RNG.standard_normal((K, N)).astype(dtype)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("use_descriptors", [False, True, "device"],
                         ids=["pointers", "descriptors", "device-descriptors"])
@pytest.mark.parametrize("shape", [(96, 64, 80), (40, 72, 32), (64, 64, 160)])
def test_persistent_matmul_in_the_interpreter(use_descriptors, shape, monkeypatch):
    """More tiles than programs (each program walks several), partial tiles at every edge."""
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    t = tutorial("09-persistent-matmul")
    M, N, K = shape
    a, b, expected = operands(M, N, K)
    c = np.full((M, N), 7, np.float16)
    t.matmul(a, b, c, use_descriptors, SMALL)
    np.testing.assert_allclose(c.astype(np.float32), expected, rtol=1e-2, atol=5e-2)


def test_programs_of_two_ctas_in_the_interpreter(monkeypatch):
    """num_ctas=2 changes how a program runs on the GPU, not what it computes: the interpreter
    runs the tutorial's cluster configuration's programs (half as many) to the same C."""
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    t = tutorial("09-persistent-matmul")
    a, b, expected = operands(96, 64, 80)
    for use_descriptors in (False, True):
        c = np.full((96, 64), 7, np.float16)
        t.matmul(a, b, c, use_descriptors, dict(SMALL, BLOCK_SIZE_M=64, num_ctas=2))
        np.testing.assert_allclose(c.astype(np.float32), expected, rtol=1e-2, atol=5e-2)


def compile_persistent_tma(warp_specialize, num_warps: int = 8, stop_after: str = "cubin",
                           rows: int = 128, num_ctas: int = 1):
    """matmul_persistent_tma for fp16 host descriptors, rows x 128 x 64 blocks, 3 stages."""
    t = tutorial("09-persistent-matmul")
    x = np.zeros((256, 256), np.float16)
    spec = [runtime.specialize_argument(TensorDescriptor.from_tensor(x, blk))
            for blk in ([rows, 64], [64, 128], [rows, 128])]
    key = (*spec, ("i32", True), ("i32", True), ("i32", True), ("constexpr", rows),
           ("constexpr", 128), ("constexpr", 64), ("constexpr", 8), ("constexpr", 132),
           ("constexpr", warp_specialize))
    return compile_specialized(t.matmul_persistent_tma, key,
                               CompileOptions(num_warps=num_warps, num_stages=3,
                                              num_ctas=num_ctas),
                               stop_after=stop_after)


def test_the_persistent_descriptor_kernel_stages_its_k_loop_with_tma():
    kernel = compile_persistent_tma(False)
    tilegpu = kernel.asm["tilegpu"]
    assert tilegpu.count("scf.for") == 2 and "!tilegpu.memdesc<[3, 128, 64], f16" in tilegpu
    assert "is_async" in tilegpu and kernel.metadata["spill_stores"] == 0
    assert "cp.async.bulk.tensor" in kernel.asm["ptx"]


def test_the_k_loop_copies_run_ahead_across_tiles():
    """Unspecialised, the K loop's rings are made before the tile loop and both loops carry
    the walk's cursor and the ring's slots and phase: the next tile's first copies are issued
    during this tile's last trips."""
    lines = compile_persistent_tma(False, stop_after="tilegpu").asm["tilegpu"].splitlines()
    ring = next(i for i, line in enumerate(lines)
                if '"tilegpu.local_alloc"()' in line and "memdesc<[3, 128, 64], f16" in line)
    loops = [line for line in lines if "scf.for" in line]
    assert ring < lines.index(loops[0])
    carried = [len(loop.split("iter_args(")[1].split(") ->")[0].split(",")) for loop in loops]
    # the cursor (tile, k, and the tile's row and column offsets, computed again only when it
    # moves to the next tile), the two slots and the phase; and the K loop's accumulator
    assert carried == [7, 8]


@pytest.mark.parametrize("warp_specialize", [False, True])
def test_the_consumers_epilogue_store_overlaps_their_next_tile(warp_specialize):
    """Warp-specialised, the C tile's TMA store keeps one buffer for the consumers' whole tile
    loop: the wait for the copy to have read it comes before the next tile writes it (then a
    barrier), not right after the copy. Unspecialised, it stays right after the copy."""
    lines = [line.strip() for line in
             compile_persistent_tma(warp_specialize, stop_after="tilegpu").asm["tilegpu"]
             .splitlines()]
    copy = next(i for i, line in enumerate(lines)
                if line.startswith('"tilegpu.async_tma_copy_local_to_global"'))
    assert lines[copy + 1].startswith('"tilegpu.tma_store_wait"') != warp_specialize
    if warp_specialize:
        store = next(i for i, line in enumerate(lines)
                     if line.startswith('"tilegpu.local_store"'))
        assert lines[store - 2].startswith('"tilegpu.tma_store_wait"')
        assert lines[store - 1].startswith('"tilegpu.barrier"')


@pytest.mark.parametrize("warp_specialize", [False, True])
def test_a_program_of_two_ctas_gives_each_half_of_its_rows(warp_specialize):
    """256-row blocks with num_ctas=2: tile-split-ctas gives each CTA 128 rows, so each CTA
    runs what the 128-row kernel of one CTA runs (the same shared memory, wgmma and copies),
    A's and C's maps move 128-row boxes (the launcher encodes them so) and B's is unchanged,
    and no CTA leaves at the entry: all of them work."""
    one = compile_persistent_tma(warp_specialize)
    two = compile_persistent_tma(warp_specialize, rows=256, num_ctas=2)
    assert "tile.split_ctas = 2" in two.asm["tilegpu"]
    assert "tile.split_ctas" not in one.asm["tilegpu"]
    for key in ("shared", "spill_stores", "producer_warps", "wgmma_serialized"):
        assert two.metadata.get(key) == one.metadata.get(key), key
    for instruction in ("wgmma.mma_async", "cp.async.bulk.tensor"):
        assert two.asm["ptx"].count(instruction) == one.asm["ptx"].count(instruction)
    assert [m["box"] for m in two.metadata["tensormaps"]] == \
        [m["box"] for m in one.metadata["tensormaps"]] == [[128, 64], [64, 64], [128, 64]]
    ptx = two.asm["ptx"]
    assert ".reqnctapercluster 2, 1, 1" in ptx and "%cluster_ctarank" in ptx
    # warp-specialised, B's two 64-column blocks are copied once for both CTAs, one by each
    assert ptx.count(".multicast::cluster") == (2 if warp_specialize else 0)
    # the consumers release each slot in both CTAs: lanes 0 and 1 of each warp, one arrive each
    # (after the K step and after the K loop), without a cluster-scope release: ptxas fences
    # such an arrive with MEMBAR.ALL.GPU, and the multicast kernel ran 2.3x slower for it
    assert ptx.count("mapa.shared::cluster") == (2 if warp_specialize else 0)
    assert "mbarrier.arrive.release.cluster" not in ptx
    assert not re.search(r"mov\.u32\s+(%r\d+), %cluster_ctarank;\s+setp\.ne\.b32\s+"
                         r"(%p\d+), \1, 0;\s+@\2 bra", ptx)


def test_the_pointer_kernel_of_two_cta_programs_shares_its_rows_out_too():
    t = tutorial("09-persistent-matmul")
    key = (("*fp16", True),) * 3 + (("i32", True),) * 3 + (("i32", True), ("constexpr", 1),
                                                           ("i32", True), ("constexpr", 1),
                                                           ("i32", True), ("constexpr", 1)) + \
        tuple(("constexpr", v) for v in (256, 128, 64, 8, 66))
    kernel = compile_specialized(t.matmul_persistent, key,
                                 CompileOptions(num_warps=8, num_stages=3, num_ctas=2))
    assert "tile.split_ctas = 2" in kernel.asm["tilegpu"]
    tilegpu = kernel.asm["tilegpu"]
    assert "tensor<256x" not in tilegpu and "tensor<128x128xf32" in tilegpu
    assert kernel.metadata["spill_stores"] == 0


@pytest.mark.parametrize("hint, warps, specialised", [(None, 8, True), (None, 4, False),
                                                      (False, 8, False), (True, 4, True)])
def test_the_compiler_specialises_persistent_matmuls_with_eight_warps(hint, warps, specialised):
    """The descriptor kernel with WARP_SPECIALIZE unset (None): the compiler specialises its
    tile loop when 8 warps compute (measured faster there), not with 4; False forbids it,
    True asks for it."""
    kernel = compile_persistent_tma(hint, warps, stop_after="tilegpu")
    assert ("producer_warps" in kernel.metadata) == specialised


def test_the_kernel_made_descriptors_are_tma_maps_staged_and_warp_specialized():
    """matmul_persistent_device_tma on sm_90: three maps in global scratch, its K loop's copies
    in TMA rings; with WARP_SPECIALIZE the maps are made before the split and a producer
    warpgroup issues the copies through them."""
    t = tutorial("09-persistent-matmul")
    key = (("*fp16", True),) * 3 + (("i32", True),) * 3 + tuple(
        ("constexpr", v) for v in (128, 128, 64, 8, 132))
    for ws in (False, True):
        kernel = compile_specialized(t.matmul_persistent_device_tma,
                                     key + (("constexpr", ws),),
                                     CompileOptions(num_warps=8, num_stages=3))
        assert kernel.metadata["global_scratch"] == 3 * 256
        assert kernel.metadata.get("producer_warps") == (4 if ws else None)
        assert kernel.asm["ptx"].count("tensormap.replace.tile.global_address") == 3
        assert "!tilegpu.memdesc<[3, 128, 64], f16" in kernel.asm["tilegpu"]
        assert kernel.metadata["spill_stores"] == 0 and not kernel.metadata["wgmma_serialized"]


@pytest.mark.gpu
@pytest.mark.parametrize("use_descriptors", [False, True, "device"],
                         ids=["pointers", "descriptors", "device-descriptors"])
@pytest.mark.parametrize("shape, dtype", [((1000, 1024, 512), "float16"),
                                          ((2048, 2048, 1024), "bfloat16"),
                                          ((128, 256, 64), "float16")])
def test_persistent_matmul_on_the_gpu(use_descriptors, shape, dtype):
    torch = pytest.importorskip("torch")
    t = tutorial("09-persistent-matmul")
    M, N, K = shape
    to = getattr(torch, dtype)
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn((M, K), device="cuda", generator=gen).to(to)
    b = torch.randn((K, N), device="cuda", generator=gen).to(to)
    c = torch.full((M, N), 7.0, device="cuda").to(to)
    kernel = t.matmul(a, b, c, use_descriptors)
    assert ("tensormaps" in kernel.metadata) == (use_descriptors is True)
    assert ("global_scratch" in kernel.metadata) == (use_descriptors == "device")
    ref = a.float() @ b.float()
    assert bool(((c.float() - ref).abs() <= 1e-2 * (ref.abs() + K ** 0.5)).all())



@pytest.mark.gpu
@pytest.mark.parametrize("use_descriptors", [False, True, "device"],
                         ids=["pointers", "descriptors", "device-descriptors"])
@pytest.mark.parametrize("shape", [(1000, 1024, 512), (2048, 2048, 1024), (256, 128, 64)])
def test_persistent_matmul_of_two_cta_programs_on_the_gpu(use_descriptors, shape):
    """CLUSTER_CONFIG: 256-row programs of 2 CTAs, each CTA 128 rows (pointers, host
    descriptors); the device descriptors' maps are made in the kernel, so there the first CTA
    runs each program whole. Partial tiles at the edges; C's stale 7s must all go."""
    torch = pytest.importorskip("torch")
    t = tutorial("09-persistent-matmul")
    M, N, K = shape
    gen = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn((M, K), device="cuda", generator=gen).half()
    b = torch.randn((K, N), device="cuda", generator=gen).half()
    c = torch.full((M, N), 7.0, device="cuda").half()
    kernel = t.matmul(a, b, c, use_descriptors, t.CLUSTER_CONFIG)
    assert kernel.options.num_ctas == 2
    assert ("tile.split_ctas" in kernel.asm["tilegpu"]) == (use_descriptors != "device")
    # 8 warps: the descriptor kernels are warp-specialised, and B is copied once per cluster
    assert (".multicast::cluster" in kernel.asm["ptx"]) == (use_descriptors is True)
    ref = a.float() @ b.float()
    assert bool(((c.float() - ref).abs() <= 1e-2 * (ref.abs() + K ** 0.5)).all())
