"""Warp specialisation (`tl.range(..., warp_specialize=True)`): a producer warpgroup issues a
loop's TMA loads into mbarrier rings while the kernel's num_warps warps compute; registers
moved between them with setmaxnreg. Compiled here (PTX and ptxas figures), in the interpreter
(where the hint changes nothing) and on the GPU."""
from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import runtime
from tilec.analysis.registers import check_division, consumer_registers, launch_registers
from tilec.compiler import CompileOptions, compile_specialized
from tilec.tools.tensor_descriptor import TensorDescriptor
from interpreting import interpret
from tutorial_loader import tutorial

RNG = np.random.default_rng(5)


@tilec.jit
def ws_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
              WS: tl.constexpr, STAGES: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES, warp_specialize=WS):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


@tilec.jit
def ws_persistent(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr, PROGRAMS: tl.constexpr, STAGES: tl.constexpr,
                  WS: tl.constexpr = True):
    """Tiles of C walked by PROGRAMS programs; the producer runs into the next tile while the
    consumers store this one (WS=False: never specialised, the K loop's copies then run ahead
    across the tiles)."""
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS, flatten=True,
                         warp_specialize=WS):
        pid_m, pid_n = tile // tiles_n, tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
            acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]),
                         acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


@tilec.jit
def ws_shifted_stores(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr, PROGRAMS: tl.constexpr):
    """ws_persistent with each tile stored somewhere TMA cannot always take it: the first row
    of tiles 5 rows up (negative rows: the pointer fallback), every other column of tiles 4
    elements right (8 bytes: the fallback again); the others through TMA. Tiles go to every
    other BN columns of C, so none overlap."""
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS, flatten=True,
                         warp_specialize=True):
        pid_m, pid_n = tile // tiles_n, tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K, BK), num_stages=3):
            acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]),
                         acc)
        row = pid_m * BM - 5 * (1 - tl.minimum(pid_m, 1))
        c_desc.store([row, 2 * pid_n * BN + 4 * (pid_n % 2)], acc.to(c_desc.dtype))


@tilec.jit
def ws_row_sums(src, out, N, BM: tl.constexpr, BN: tl.constexpr):
    """Sums of BM rows of src ([M, N], fp32) by BN-column tiles: no dot, so the consumers
    release each slot at the end of its trip; the sum across warps after the loop synchronises
    the consumers alone."""
    row = tl.program_id(0) * BM
    acc = tl.zeros([BM, BN], tl.float32)
    for k in tl.range(0, tl.cdiv(N, BN), num_stages=3, warp_specialize=True):
        acc += src.load([row, k * BN])
    tl.store(out + row + tl.arange(0, BM), tl.sum(acc, axis=1))


@tilec.jit
def pointer_loop(x, out, N, BN: tl.constexpr):
    acc = tl.zeros([BN], tl.float32)
    for k in tl.range(0, N, BN, warp_specialize=True):
        acc += tl.load(x + k + tl.arange(0, BN))
    tl.store(out + tl.arange(0, BN), acc)


def _desc(shape, block, dtype=np.float16):
    return runtime.specialize_argument(TensorDescriptor.from_tensor(np.zeros(shape, dtype),
                                                                    block))


def _matmul(ws=True, num_warps=8, stages=3, block=(128, 256, 64), target="cuda:90",
            num_ctas=1):
    bm, bn, bk = block
    key = (_desc((512, 512), [bm, bk]), _desc((512, 512), [bk, bn]), _desc((512, 512), [bm, bn]),
           ("i32", True), ("constexpr", bm), ("constexpr", bn), ("constexpr", bk),
           ("constexpr", ws), ("constexpr", stages))
    return compile_specialized(ws_matmul, key, CompileOptions(target=target,
                                                              num_warps=num_warps,
                                                              num_ctas=num_ctas))


def test_the_register_file_is_divided_without_over_asking():
    assert launch_registers(384) == 168 and launch_registers(256) == 255
    assert consumer_registers(8, 4) == 232  # 256 * 232 + 128 * 40 = 64,512
    assert consumer_registers(4, 4) == 256
    assert check_division(8, 4, 40, 232) is None
    assert "setmaxnreg.inc would wait forever" in check_division(8, 4, 40, 240)
    assert "whole warpgroups" in check_division(6, 4, 40, 160)
    assert "multiple of 8" in check_division(8, 4, 36, 232)
    assert "1024 threads" in check_division(32, 4, 24, 24)


def test_a_specialised_matmul_has_a_producer_warpgroup():
    """8 consumer warps and a producer warpgroup: 384 threads, one program per SM; the producer
    gives registers back (40), the consumers take 232; the producer's warp waits on the empty
    ring and issues the copies; the consumers wait on the full rings, arrive on the empty one
    and synchronise among themselves with named barrier 1 (256 threads)."""
    kernel = _matmul()
    ptx = kernel.asm["ptx"]
    assert kernel.metadata["producer_warps"] == 4
    assert ".maxntid 384, 1, 1" in ptx and ".minnctapersm 1" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 \t40;" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 \t232;" in ptx
    # only in the producer's loop (no prologue): A's box and B's four 64-column blocks
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == 5
    assert re.search(r"mbarrier\.arrive\.shared\.b64", ptx)  # consumers release slots
    barriers = set(re.findall(r"bar\.sync \t(\d+(?:, \d+)?);", ptx))
    assert barriers == {"0", "1, 256"}  # one of every thread (the inits), then the consumers'
    assert kernel.metadata["registers"] <= 168 and kernel.metadata["spill_stores"] == 0
    assert kernel.metadata["wgmma_serialized"] == []


def test_a_two_cta_specialised_matmul_keeps_its_wgmma_in_flight():
    """256-row programs of 2 CTAs: the CTA's rank offsets its rows in the copies and in the
    epilogue's store. It is read once, at the top: the epilogue's read used to land between the
    last wgmma and its wait, and ptxas then serialised every wgmma of the kernel (C7514)."""
    kernel = _matmul(block=(256, 256, 64), num_ctas=2)
    ptx = kernel.asm["ptx"]
    assert ptx.count("%cluster_ctarank") == 1 and ".multicast::cluster" in ptx
    assert kernel.metadata["wgmma_serialized"] == []
    assert kernel.metadata["spill_stores"] == 0


def test_specialisation_keeps_shared_memory_for_the_epilogue():
    """The rings are freed when the consumers leave the loop: the epilogue's staging buffer
    reuses their bytes, so the kernel needs what the unspecialised one does (plus a ring of
    barriers)."""
    plain, special = _matmul(ws=False), _matmul(ws=True)
    assert "producer_warps" not in plain.metadata
    assert special.metadata["shared"] - plain.metadata["shared"] <= 64


def test_four_consumer_warps_keep_their_registers():
    kernel = _matmul(num_warps=4, block=(64, 128, 64))
    ptx = kernel.asm["ptx"]
    assert ".maxntid 256, 1, 1" in ptx
    assert "setmaxnreg.dec" in ptx and "setmaxnreg.inc" not in ptx  # 255 already


@pytest.mark.parametrize("case", ["pointers", "two warps", "sm80", "one stage"])
def test_the_hint_is_dropped_where_it_cannot_apply(case):
    """As in Triton, warp_specialize is a hint: a loop without TMA loads, num_warps that are not
    whole warpgroups, a target without TMA, or a single stage compile as without it."""
    if case == "pointers":
        kernel = compile_specialized(pointer_loop, (("*fp32", True), ("*fp32", True),
                                                    ("i32", True), ("constexpr", 128)),
                                     CompileOptions(target="cuda:90"))
    else:
        kernel = _matmul(num_warps=2 if case == "two warps" else 4, block=(64, 64, 64),
                         target="cuda:80" if case == "sm80" else "cuda:90",
                         stages=1 if case == "one stage" else 3)
    assert "producer_warps" not in kernel.metadata
    assert "setmaxnreg" not in kernel.asm["ptx"]


def test_row_sums_release_slots_at_the_end_of_each_trip():
    key = (_desc((256, 512), [64, 64], np.float32), ("*fp32", True), ("i32", True),
           ("constexpr", 64), ("constexpr", 64))
    kernel = compile_specialized(ws_row_sums, key, CompileOptions(target="cuda:90",
                                                                   num_warps=4))
    ptx = kernel.asm["ptx"]
    assert kernel.metadata["producer_warps"] == 4 and "bar.sync \t1, 128;" in ptx
    assert kernel.metadata["spill_stores"] == 0


def test_a_persistent_kernel_specialises_its_tile_loop():
    """The marked tile loop's nested K loop holds the loads: one producer loop nest, the
    copies in its inner loop only; the epilogue's buffer and the rings live together (the
    producer fills the rings during the epilogue)."""
    key = (_desc((512, 512), [128, 64]), _desc((512, 512), [64, 256]),
           _desc((512, 512), [128, 256]), ("i32", True), ("i32", True), ("i32", True),
           ("constexpr", 128), ("constexpr", 256), ("constexpr", 64), ("constexpr", 132),
           ("constexpr", 3), ("constexpr", True))
    kernel = compile_specialized(ws_persistent, key, CompileOptions(target="cuda:90",
                                                                     num_warps=8))
    assert kernel.metadata["producer_warps"] == 4
    assert kernel.metadata["spill_stores"] == 0 and kernel.metadata["wgmma_serialized"] == []
    rings = 3 * (128 * 64 + 64 * 256) * 2
    assert kernel.metadata["shared"] >= rings + 128 * 256 * 2
    tilegpu = kernel.asm["tilegpu"]
    producer = tilegpu.split('"tilegpu.warp_specialize"')[1].split("}, {")[0]
    assert producer.count("scf.for") == 2 and "async_tma_copy_global_to_local" in producer


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("causal", [False, True])
def test_the_attention_tutorial_specialises_its_key_loop(causal, stages):
    """attention_fwd_tma (tutorials/06): the loop over key blocks (all of them, or those left
    of the diagonal) gets the producer; Q's block, loaded before it, and the causal diagonal
    loop stay the consumers' own, the diagonal loop's TMA copies pipelined by them. With a
    ring of 3 stages the specialised loop issues P V of the trip before right after this
    trip's Q K^T and waits for Q K^T alone before the softmax (tilegpu-overlap-dots); with 2
    it does not (the slot held a trip longer would starve the producer)."""
    t = tutorial("06-fused-attention")
    x = np.zeros((1024, 128), np.float16)

    def desc(rows):
        return runtime.specialize_argument(TensorDescriptor.from_tensor(x, [rows, 128]))
    key = (desc(128), desc(64), desc(64), desc(128), ("*fp32", True), ("fp32", False),
           ("i32", True), ("constexpr", 128), ("constexpr", 128), ("constexpr", 64),
           ("constexpr", causal), ("constexpr", True))
    kernel = compile_specialized(t.attention_fwd_tma, key,
                                 CompileOptions(target="cuda:90", num_warps=8,
                                                num_stages=stages))
    assert kernel.metadata["producer_warps"] == 4
    assert kernel.metadata["spill_stores"] == 0 and kernel.metadata["wgmma_serialized"] == []
    consumer = kernel.asm["tilegpu"].split('"tilegpu.warp_specialize"')[1].split("}, {")[1]
    copies = consumer.count("async_tma_copy_global_to_local")  # Q's block, before the loop
    assert copies > 1 if causal else copies == 1
    assert consumer.count("pendings = 1") == (1 if stages == 3 else 0)
    assert "warpgroup_turn" not in consumer  # tilegpu-ping-pong is not in the pipeline


def test_the_interpreter_runs_specialised_loops_as_written():
    M, N, K = 64, 64, 96
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    interpret(ws_matmul, (2, 2), TensorDescriptor.from_tensor(a, [32, 32]),
              TensorDescriptor.from_tensor(b, [32, 32]), TensorDescriptor.from_tensor(c, [32, 32]),
              K, BM=32, BN=32, BK=32, WS=True, STAGES=3)
    np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=2e-2, atol=2e-2)
    c[:] = 0  # the persistent form: 2 programs over 4 tiles (M and N ragged)
    interpret(ws_persistent, (2,), TensorDescriptor.from_tensor(a[:48], [32, 32]),
              TensorDescriptor.from_tensor(b[:, :40], [32, 32]),
              TensorDescriptor.from_tensor(c[:48, :40], [32, 32]), 48, 40, K, BM=32, BN=32,
              BK=32, PROGRAMS=2, STAGES=2)
    np.testing.assert_allclose(c[:48, :40].astype(np.float32),
                               a[:48].astype(np.float32) @ b[:, :40].astype(np.float32),
                               rtol=2e-2, atol=2e-2)


# --- on the GPU --------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("M, N, K, warps, stages, block", [
    (512, 512, 512, 8, 3, (128, 256, 64)),
    (300, 528, 208, 8, 4, (128, 256, 64)),   # ragged: out-of-bounds rows, columns and K
    (256, 384, 1024, 4, 2, (64, 128, 64)),
    (128, 128, 64, 8, 3, (128, 128, 64)),    # one trip
    (128, 128, 32, 4, 4, (128, 128, 64)),    # one trip, half of it past K
])
def test_specialised_matmul_on_the_gpu(dtype, M, N, K, warps, stages, block):
    torch = pytest.importorskip("torch")
    to = getattr(torch, dtype)
    bm, bn, bk = block
    a = torch.randn(M, K, device="cuda").to(to)
    b = torch.randn(K, N, device="cuda").to(to)
    c = torch.full((M, N), 7.0, device="cuda").to(to)
    grid = (-(-M // bm), -(-N // bn))
    kernel = ws_matmul[grid](TensorDescriptor.from_tensor(a, [bm, bk]),
                             TensorDescriptor.from_tensor(b, [bk, bn]),
                             TensorDescriptor.from_tensor(c, [bm, bn]), K, BM=bm, BN=bn, BK=bk,
                             WS=True, STAGES=stages, num_warps=warps)
    assert kernel.metadata["producer_warps"] == 4
    expected = (a.float() @ b.float()).to(to)
    torch.testing.assert_close(c.float(), expected.float(), rtol=2e-2, atol=0.25)


@pytest.mark.gpu
@pytest.mark.parametrize("ws", [True, False], ids=["specialised", "staged-across-tiles"])
@pytest.mark.parametrize("M, N, K, programs, stages, warps, block", [
    (1024, 1024, 512, 3, 3, 8, (128, 256, 64)),   # 8 tiles a program, 8 trips a tile
    (520, 608, 208, 5, 4, 8, (128, 128, 64)),     # ragged everywhere; 4 trips, 4 stages
    (384, 256, 192, 2, 2, 4, (64, 128, 64)),      # 3 trips a tile on a ring of 2
    (520, 608, 64, 5, 4, 4, (128, 128, 64)),      # 1 trip a tile: 3 tiles ahead
    (384, 256, 200, 2, 2, 4, (64, 128, 64)),      # 4 trips, the last partial
    (128, 128, 128, 4, 3, 4, (128, 128, 64)),     # one tile: 3 programs walk none
])
def test_persistent_matmul_rings_across_tiles_on_the_gpu(ws, M, N, K, programs, stages, warps,
                                                         block):
    """The ring's slots and phases carry across tiles, warp-specialised (the producer runs
    into the next tile) or not (the K loop's copies run ahead across the tiles, its rings made
    before the tile loop): every tile's result is right whatever the trips per tile, the
    ring's depth and the tiles per program."""
    torch = pytest.importorskip("torch")
    bm, bn, bk = block
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    c = torch.full((M, N), 7.0, device="cuda").half()
    kernel = ws_persistent[(programs,)](
        TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b, [bk, bn]),
        TensorDescriptor.from_tensor(c, [bm, bn]), M, N, K, BM=bm, BN=bn, BK=bk,
        PROGRAMS=programs, STAGES=stages, WS=ws, num_warps=warps)
    assert kernel.metadata.get("producer_warps") == (4 if ws else None)
    if not ws:
        lines = kernel.asm["tilegpu"].splitlines()
        tile_loop = next(i for i, line in enumerate(lines) if "scf.for" in line)
        assert any('"tilegpu.local_alloc"()' in line and f"memdesc<[{stages}, " in line
                   for line in lines[:tile_loop])  # a ring made before the tile loop
    torch.testing.assert_close(c.float(), (a.float() @ b.float()).half().float(), rtol=2e-2,
                               atol=0.25)


@pytest.mark.gpu
def test_specialised_stores_that_fall_back_to_pointers_on_the_gpu():
    """The consumers keep the C tile's buffer across their tile loop and wait for the previous
    tile's TMA store only before writing it again; a tile TMA cannot store goes to pointer
    stores meanwhile. Tiles of both kinds follow each other in every program."""
    torch = pytest.importorskip("torch")
    M, N, K, bm, bn, bk = 512, 512, 128, 128, 128, 64
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    c = torch.full((M, 2 * N), 7.0, device="cuda").half()
    kernel = ws_shifted_stores[(3,)](
        TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b, [bk, bn]),
        TensorDescriptor.from_tensor(c, [bm, bn]), M, N, K, BM=bm, BN=bn, BK=bk, PROGRAMS=3,
        num_warps=8)
    tilegpu = kernel.asm["tilegpu"]
    assert kernel.metadata["producer_warps"] == 4 and tilegpu.count("tma_store_wait") == 2
    product = (a.float() @ b.float()).half()
    want = torch.full((M, 2 * N), 7.0, device="cuda").half()
    for pid_m in range(M // bm):
        for pid_n in range(N // bn):
            row, col = pid_m * bm - (5 if pid_m == 0 else 0), 2 * pid_n * bn + 4 * (pid_n % 2)
            block = product[pid_m * bm:(pid_m + 1) * bm, pid_n * bn:(pid_n + 1) * bn]
            want[max(row, 0):row + bm, col:col + bn] = block[max(-row, 0):]
    torch.testing.assert_close(c.float(), want.float(), rtol=2e-2, atol=0.25)


@pytest.mark.gpu
@pytest.mark.parametrize("M, N, K", [(1000, 1024, 512), (520, 608, 208)])
def test_specialised_persistent_matmul_through_kernel_made_maps_on_the_gpu(M, N, K):
    """tutorials/09's matmul_persistent_device_tma, warp-specialised: every thread makes the
    maps before the split, the producer's copies go through them."""
    torch = pytest.importorskip("torch")
    t = tutorial("09-persistent-matmul")
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    c = torch.full((M, N), 7.0, device="cuda").half()
    kernel = t.matmul(a, b, c, "device", warp_specialize=True)
    assert kernel.metadata["producer_warps"] == 4 and kernel.metadata["global_scratch"] == 768
    torch.testing.assert_close(c.float(), (a.float() @ b.float()).half().float(), rtol=2e-2,
                               atol=0.25)


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, warp_specialize, block_n, num_stages", [
    (64, True, 64, 2), (128, True, 64, 2), (128, False, 64, 2),
    (64, True, 128, 3), (128, True, 128, 3)])  # dots overlapped (tilegpu-overlap-dots)
def test_attention_through_descriptors_on_the_gpu(causal, head_dim, warp_specialize, block_n,
                                                   num_stages):
    torch = pytest.importorskip("torch")
    t = tutorial("06-fused-attention")
    q, k, v = (torch.randn(6, 512, head_dim, device="cuda").half() for _ in range(3))
    out, lse = t.attention_tma(q, k, v, causal, warp_specialize=warp_specialize,
                               block_n=block_n, num_stages=num_stages)
    want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                            is_causal=causal)
    torch.testing.assert_close(out.float(), want, rtol=2e-2, atol=2e-2)
    ref_out, ref_lse = t.attention(q, k, v, causal)
    torch.testing.assert_close(lse, ref_lse, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
@pytest.mark.parametrize("causal, warp_specialize", [(False, True), (False, False),
                                                     (True, False)])
def test_attention_of_two_cta_programs_on_the_gpu(causal, warp_specialize):
    """256 query rows a program, 128 a CTA (tile-split-ctas); warp-specialised, each K and V
    block is copied once for both CTAs (multicast). (Causal and warp-specialised at 256 rows,
    the diagonal loop's rings come on top of the specialised loop's: 426 KB of shared memory,
    an OutOfResources error at compile time on the H100.)"""
    torch = pytest.importorskip("torch")
    t = tutorial("06-fused-attention")
    q, k, v = (torch.randn(6, 1024, 128, device="cuda").half() for _ in range(3))
    out, lse = t.attention_tma(q, k, v, causal, block_m=256, warp_specialize=warp_specialize,
                               num_ctas=2)
    want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                            is_causal=causal)
    torch.testing.assert_close(out.float(), want, rtol=2e-2, atol=2e-2)
    ref_out, ref_lse = t.attention(q, k, v, causal)
    torch.testing.assert_close(lse, ref_lse, rtol=1e-4, atol=1e-4)


def test_attention_of_two_cta_programs_splits_its_query_rows_and_multicasts_k_and_v():
    """attention_fwd_tma at 256 query rows and num_ctas=2: each CTA compiles to the 128-row
    kernel (registers, no spills or serialised wgmma, its shared memory within 0.5 KB), the
    Q and Out maps move 128-row boxes, and, warp-specialised, K's and V's two column blocks are
    multicast (one copy by each CTA)."""
    t = tutorial("06-fused-attention")
    x = np.zeros((4096, 128), np.float16)

    def compiled(rows, ctas):
        spec = [runtime.specialize_argument(TensorDescriptor.from_tensor(x, blk))
                for blk in ([rows, 128], [128, 128], [128, 128], [rows, 128])]
        key = (*spec, ("*fp32", True), ("fp32", False), ("i32", True)) + tuple(
            ("constexpr", v) for v in (128, rows, 128, False, True))
        return compile_specialized(t.attention_fwd_tma, key,
                                   CompileOptions(num_warps=8, num_stages=3, num_ctas=ctas))
    one, two = compiled(128, 1), compiled(256, 2)
    assert "tile.split_ctas = 2" in two.asm["tilegpu"]
    assert two.metadata["spill_stores"] == 0 and not two.metadata["wgmma_serialized"]
    assert abs(two.metadata["shared"] - one.metadata["shared"]) <= 512
    assert [m["box"] for m in two.metadata["tensormaps"]] == [[128, 64]] * 4
    assert two.asm["ptx"].count(".multicast::cluster") == 4
    assert one.asm["ptx"].count(".multicast::cluster") == 0


@pytest.mark.gpu
def test_specialised_row_sums_on_the_gpu():
    torch = pytest.importorskip("torch")
    x = torch.randn(256, 1000, device="cuda")
    x = torch.nn.functional.pad(x, (0, 8))[:, :1000]  # rows of 1008 elements, 16-byte strides
    out = torch.zeros(256, device="cuda")
    kernel = ws_row_sums[(4,)](TensorDescriptor.from_tensor(x, [64, 64]), out, 1000, BM=64,
                               BN=64, num_warps=4)
    assert kernel.metadata["producer_warps"] == 4
    torch.testing.assert_close(out, x.sum(dim=1), rtol=1e-4, atol=1e-3)
