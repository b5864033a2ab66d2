"""Tensor descriptors: `tl.make_tensor_descriptor` in a kernel and host `TensorDescriptor`s
passed as arguments, `desc.load`/`desc.store`/`desc.atomic_add` with out-of-bounds elements
padded on load and dropped on store; in the interpreter, compiled, and on the GPU."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import runtime
from tilec.compiler import CompileOptions, compile_specialized
from tilec.errors import CompilationError
from tilec.tools.tensor_descriptor import TensorDescriptor
from interpreting import interpret

RNG = np.random.default_rng(11)
BENCH = Path(__file__).resolve().parents[2] / "bench"


@tilec.jit
def scaled_tiles(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    """dst = 2 * src tile by tile, then dst += src (an atomic add), over a grid of tiles; the
    block past the edge of src reads as PAD's padding, which is written nowhere."""
    a = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN], padding_option=PAD)
    b = tl.make_tensor_descriptor(dst, [M, N], [N, 1], [BM, BN])
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros([BM, BN], tl.float32)
    for _ in range(2):
        acc += a.load([m, n])
    b.store([m, n], acc)
    b.atomic_add([m, n], a.load([m, n]))


@tilec.jit
def edge_block(src, out, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    """The block of src at (M - BM/2, N - BN/2), half of it past the edge, stored whole."""
    a = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN], padding_option=PAD)
    block = a.load([M - BM // 2, N - BN // 2])
    rows, cols = tl.arange(0, BM)[:, None], tl.arange(0, BN)[None, :]
    tl.store(out + rows * BN + cols, block)


@tilec.jit
def from_host(a, b, BM: tl.constexpr, BN: tl.constexpr):
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    b.store([m, n], a.load([m, n]) * 3 + 1)


def test_descriptor_tiles_are_masked_at_the_edges_in_the_interpreter():
    M, N = 50, 70  # neither a multiple of the block
    x = RNG.random((M, N), dtype=np.float32)
    y = np.zeros((M, N), np.float32)
    interpret(scaled_tiles, (4, 3), x, y, M, N, BM=16, BN=32, PAD="zero")
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)


@pytest.mark.parametrize("pad, fill", [("zero", 0.0), ("nan", np.nan)])
def test_out_of_bounds_elements_load_as_the_padding(pad, fill):
    M, N, BM, BN = 20, 24, 8, 16
    x = RNG.random((M, N), dtype=np.float32)
    out = np.full((BM, BN), -1.0, np.float32)
    interpret(edge_block, (1,), x, out, M, N, BM=BM, BN=BN, PAD=pad)
    expected = np.full((BM, BN), fill, np.float32)
    expected[:BM // 2, :BN // 2] = x[M - BM // 2:, N - BN // 2:]
    np.testing.assert_array_equal(out, expected)


def test_host_descriptors_pass_their_parts_and_rebuild_the_descriptor():
    M, N = 40, 48
    x = RNG.random((M, N), dtype=np.float32)
    y = np.zeros((M, N), np.float32)
    interpret(from_host, (3, 2), TensorDescriptor.from_tensor(x, [16, 32]),
              TensorDescriptor.from_tensor(y, [16, 32]), BM=16, BN=32)
    np.testing.assert_allclose(y, 3 * x + 1, rtol=1e-6)
    desc = TensorDescriptor.from_tensor(x, [16, 32])
    assert runtime.specialize_argument(desc) == (
        "descriptor", (("*fp32", runtime.data_pointer(x) % 16 == 0), ("i32", False),
                       ("i32", True), ("i32", True), ("constexpr", 1),
                       ("constexpr", (16, 32)), ("constexpr", "zero")))


def test_host_descriptor_kernels_compile_with_the_parts_as_parameters():
    spec = runtime.specialize_argument(TensorDescriptor.from_tensor(
        np.zeros((40, 48), np.float32), [16, 32]))
    kernel = compile_specialized(from_host, (spec, spec, ("constexpr", 16), ("constexpr", 32)),
                                 CompileOptions(target="cuda:80"), stop_after="ptx")
    assert [p.name for p in kernel.params] == ["a.0", "a.1", "a.2", "a.3", "b.0", "b.1", "b.2",
                                               "b.3"]
    assert "ld.global" in kernel.asm["ptx"] and "st.global" in kernel.asm["ptx"]
    assert "tensormaps" not in kernel.metadata and "cp.async.bulk" not in kernel.asm["ptx"]


def test_host_descriptor_loads_move_with_tma_on_sm90():
    """On sm_90 a descriptor TMA can move gets a map parameter after its parts, by value (128
    bytes, 64-byte aligned), listed in the metadata for the launcher, and its loads are
    cp.async.bulk.tensor copies completed on an mbarrier (its stores are TMA stores)."""
    spec = runtime.specialize_argument(TensorDescriptor.from_tensor(
        np.zeros((40, 48), np.float32), [16, 32]))
    kernel = compile_specialized(from_host, (spec, spec, ("constexpr", 16), ("constexpr", 32)),
                                 CompileOptions(target="cuda:90"), stop_after="cubin")
    assert [p.name for p in kernel.params] == ["a.0", "a.1", "a.2", "a.3", "a.map", "b.0", "b.1",
                                               "b.2", "b.3", "b.map"]
    maps = kernel.metadata["tensormaps"]
    assert [runtime.TensorMapSource.from_metadata(m) for m in maps] == [
        runtime.TensorMapSource(4, "fp32", 0, (("p", 1), ("p", 2)), (("p", 3), ("c", 1)),
                                (16, 32), 128, "zero"),
        runtime.TensorMapSource(9, "fp32", 5, (("p", 6), ("p", 7)), (("p", 8), ("c", 1)),
                                (16, 32), 128, "zero")]
    ptx = kernel.asm["ptx"]
    assert ".param .align 64 .b8 from_host_param_4[128]" in ptx
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == 1
    assert "mbarrier.arrive.expect_tx.shared.b64 _, [%r" in ptx and ", 2048;" in ptx
    assert "mbarrier.try_wait.parity" in ptx and "mbarrier.inval" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in ptx
    assert kernel.metadata["spill_stores"] == 0


@pytest.mark.parametrize("dtype, shape, block, padding, tma", [
    (np.float16, (40, 48), [8, 16], "zero", True),  # 32-byte rows, 8 of them: TMA takes it
    (np.float32, (40, 40), [8, 32], "zero", False),  # stride 40: not a multiple of 16
    (np.float64, (40, 48), [8, 32], "zero", False),  # 64-bit elements: no nvmma layout
    (np.float16, (40, 48), [4, 16], "zero", False),  # under 8 rows
    (np.float16, (40, 48), [8, 8], "zero", False),  # 16-byte rows: no swizzle
    (np.float32, (40, 48), [8, 32], "nan", False),  # NaN padding stays on pointers
    (np.float32, (4, 48, 48), [2, 8, 32], "zero", False),  # 3-D
])
def test_descriptors_tma_cannot_take_stay_on_pointers(dtype, shape, block, padding, tma):
    spec = runtime.specialize_argument(
        TensorDescriptor.from_tensor(np.zeros(shape, dtype), block, padding))
    kernel = compile_specialized(copy_tile, (spec, spec, ("constexpr", len(shape))),
                                 CompileOptions(target="cuda:90"), stop_after="ptx")
    assert ("tensormaps" in kernel.metadata) == tma
    assert ("cp.async.bulk.tensor" in kernel.asm["ptx"]) == tma


@pytest.mark.parametrize("args, message", [
    (([128, 128], [128, 1], [1, 2]), "Descriptor block shape must have at least 16 bytes"),
    (([128, 128], [128, 1], [4, 512]), "powers of two up to 256"),
    (([128, 128], [128, 1], [4, 12]), "powers of two up to 256"),
    (([128, 128], [1, 128], [8, 8]), "last dimension must be contiguous"),
    (([128], [1], [8, 8]), "one entry per dimension"),
])
def test_descriptor_mistakes_are_errors_at_the_line_in_both_modes(args, message):
    shape, strides, block = args

    @tilec.jit
    def bad(ptr, SHAPE: tl.constexpr, STRIDES: tl.constexpr, BLOCK: tl.constexpr):
        desc = tl.make_tensor_descriptor(ptr, SHAPE, STRIDES, BLOCK)
        desc.load([0] * len(BLOCK))

    with pytest.raises(CompilationError, match=message) as compiled:
        tilec.compile(bad, signature={"ptr": "*i32"},
                      constexprs={"SHAPE": shape, "STRIDES": strides, "BLOCK": block},
                      stop_after="tile")
    with pytest.raises(CompilationError, match=message) as interpreted:
        interpret(bad, (1,), np.zeros(128 * 128, np.int32), shape, strides, block)
    assert compiled.value.line == interpreted.value.line  # the make_tensor_descriptor line
    assert isinstance(compiled.value.__cause__, tl.core.SemanticError)


@tilec.jit
def wrong_uses(ptr, WHICH: tl.constexpr):
    desc = tl.make_tensor_descriptor(ptr, [64, 64], [64, 1], [16, 16])
    if WHICH == 0:
        desc.store([0, 0], tl.zeros([16, 8], tl.float32))
    elif WHICH == 1:
        tl.load(desc)
    else:
        desc.load([0])


@pytest.mark.parametrize("which, message", [
    (0, r"desc.store: the value's shape \[16, 8\] is not the descriptor's block shape"),
    (1, r"a tensor descriptor is read and written with desc.load"),
    (2, r"desc.load: 1 offsets for a descriptor of rank 2")])
def test_descriptor_misuse_is_an_error(which, message):
    with pytest.raises(CompilationError, match=message):
        tilec.compile(wrong_uses, signature={"ptr": "*fp32"}, constexprs={"WHICH": which},
                      stop_after="tile")
    with pytest.raises(CompilationError, match=message):
        interpret(wrong_uses, (1,), np.zeros(64 * 64, np.float32), which)


def test_host_descriptor_checks():
    x = np.zeros((64, 64), np.float32)
    with pytest.raises(ValueError, match="at least 16 bytes"):
        TensorDescriptor.from_tensor(x, [8, 2])
    with pytest.raises(ValueError, match="contiguous"):
        TensorDescriptor.from_tensor(x.T, [8, 8])
    with pytest.raises(ValueError, match="powers of two up to 256"):
        TensorDescriptor.from_tensor(x, [8, 24])
    with pytest.raises(ValueError, match="one entry per dimension"):
        TensorDescriptor(x, [64, 64], [64, 1], [8])


@pytest.mark.gpu
def test_descriptors_on_the_gpu():
    torch = pytest.importorskip("torch")
    M, N = 50, 70
    x = torch.rand((M, N), device="cuda")
    y = torch.zeros_like(x)
    scaled_tiles[(4, 3)](x, y, M, N, BM=16, BN=32, PAD="zero")
    torch.testing.assert_close(y, 3 * x)
    out = torch.full((8, 16), -1.0, device="cuda")
    edge_block[(1,)](x, out, M, N, BM=8, BN=16, PAD="nan")
    assert torch.isnan(out[4:]).all() and torch.isnan(out[:, 8:]).all()
    torch.testing.assert_close(out[:4, :8], x[M - 4:, N - 8:])
    y2 = torch.zeros_like(x)
    for _ in range(2):  # first and warm launches
        from_host[(4, 3)](TensorDescriptor.from_tensor(x, [16, 32]),
                          TensorDescriptor.from_tensor(y2, [16, 32]), BM=16, BN=32)
    torch.testing.assert_close(y2, 3 * x + 1)


def test_the_interpreters_errors_are_also_kernel_runtime_errors():
    """Triton's interpreter raises InterpreterError where its compiler raises CompilationError;
    tilec's interpreter raises the compiler's error, which is both."""
    from tilec.errors import KernelRuntimeError

    @tilec.jit
    def narrow(ptr):
        tl.make_tensor_descriptor(ptr, [128, 128], [128, 1], [1, 2]).load([0, 0])

    with pytest.raises(KernelRuntimeError, match="at least 16 bytes") as info:
        interpret(narrow, (1,), np.zeros(128 * 128, np.int32))
    assert isinstance(info.value, CompilationError) and info.value.program_id == (0, 0, 0)
    assert isinstance(info.value.__cause__, tl.core.SemanticError)


@tilec.jit
def copy_tile(src, dst, RANK: tl.constexpr):
    """The block at OFFSETS (past the edge in every dimension) of src into dst, through
    descriptors: what lies outside is read as zero and written nowhere."""
    if RANK == 1:
        dst.store([32], src.load([32]))
    elif RANK == 2:
        dst.store([2, 32], src.load([2, 32]))
    elif RANK == 3:
        dst.store([4, 2, 32], src.load([4, 2, 32]))
    elif RANK == 4:
        dst.store([3, 4, 2, 32], src.load([3, 4, 2, 32]))
    else:
        dst.store([2, 3, 4, 2, 32], src.load([2, 3, 4, 2, 32]))


SHAPE, BLOCK, OFFSETS = (5, 6, 7, 9, 40), (4, 4, 4, 8, 16), (2, 3, 4, 2, 32)
TILE_DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"]


def tile_case(rank: int, dtype: str):
    """(src, the dst expected, block shape) of a copy_tile launch of `rank` dimensions."""
    shape, block, offsets = SHAPE[-rank:], BLOCK[-rank:], OFFSETS[-rank:]
    src = (RNG.random(shape) * 100).astype(dtype)
    expected = np.zeros_like(src)
    window = tuple(slice(o, min(o + b, s)) for o, b, s in zip(offsets, block, shape))
    expected[window] = src[window]
    return src, expected, list(block)


@pytest.mark.parametrize("rank", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", TILE_DTYPES)
def test_host_descriptors_of_every_rank_and_dtype_in_the_interpreter(rank, dtype):
    src, expected, block = tile_case(rank, dtype)
    dst = np.zeros_like(src)
    interpret(copy_tile, (1,), TensorDescriptor.from_tensor(src, block),
              TensorDescriptor.from_tensor(dst, block), RANK=rank)
    np.testing.assert_array_equal(dst, expected)


@tilec.jit
def contiguous_descriptor(p, RANK: tl.constexpr):
    """A descriptor the kernel makes of the contiguous tensor at p of SHAPE's last RANK
    dimensions, read in blocks of BLOCK's."""
    if RANK == 1:
        return tl.make_tensor_descriptor(p, [40], [1], [16])
    elif RANK == 2:
        return tl.make_tensor_descriptor(p, [9, 40], [40, 1], [8, 16])
    elif RANK == 3:
        return tl.make_tensor_descriptor(p, [7, 9, 40], [360, 40, 1], [4, 8, 16])
    elif RANK == 4:
        return tl.make_tensor_descriptor(p, [6, 7, 9, 40], [2520, 360, 40, 1], [4, 4, 8, 16])
    else:
        return tl.make_tensor_descriptor(p, [5, 6, 7, 9, 40], [15120, 2520, 360, 40, 1],
                                         [4, 4, 4, 8, 16])


@tilec.jit
def made_copy_tile(src, dst, RANK: tl.constexpr):
    """copy_tile through descriptors the kernel makes (on sm_90 the 2-D ones of 16- and 32-bit
    elements get TMA maps, the others go through pointers)."""
    copy_tile(contiguous_descriptor(src, RANK), contiguous_descriptor(dst, RANK), RANK)


@pytest.mark.parametrize("rank", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", ["float16", "int8", "float64"])
def test_made_descriptors_of_every_rank_in_the_interpreter(rank, dtype):
    src, expected, _ = tile_case(rank, dtype)
    dst = np.zeros_like(src)
    interpret(made_copy_tile, (1,), src, dst, RANK=rank)
    np.testing.assert_array_equal(dst, expected)


@pytest.mark.gpu
@pytest.mark.parametrize("made", [False, True], ids=["host", "made-in-kernel"])
@pytest.mark.parametrize("rank", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", TILE_DTYPES + ["bfloat16"])
def test_descriptors_of_every_rank_and_dtype_on_the_gpu(made, rank, dtype):
    """copy_tile through host descriptors, or through descriptors the kernel makes (the 2-D
    16- and 32-bit ones with TMA maps in global scratch)."""
    torch = pytest.importorskip("torch")
    src, expected, block = tile_case(rank, "float32" if dtype == "bfloat16" else dtype)
    to = getattr(torch, dtype)
    x = torch.from_numpy(src).to("cuda", to)
    y = torch.zeros_like(x)
    if made:
        kernel = made_copy_tile[(1,)](x, y, RANK=rank)
        maps = rank == 2 and dtype in ("float16", "bfloat16", "int16", "float32", "int32")
        assert ("global_scratch" in kernel.metadata) == maps
    else:
        copy_tile[(1,)](TensorDescriptor.from_tensor(x, block),
                        TensorDescriptor.from_tensor(y, block), RANK=rank)
    torch.testing.assert_close(y.cpu(), torch.from_numpy(expected).to(to), rtol=0, atol=0)


@pytest.mark.parametrize("rank, dtype", [(r, "float16") for r in (1, 3, 4, 5)] +
                         [(2, d) for d in TILE_DTYPES])
def test_host_descriptors_of_every_rank_and_dtype_compile(rank, dtype):
    src, _, block = tile_case(rank, dtype)
    spec = runtime.specialize_argument(TensorDescriptor.from_tensor(src, block))
    kernel = compile_specialized(copy_tile, (spec, spec, ("constexpr", rank)),
                                 CompileOptions(target="cuda:90"), stop_after="cubin")
    assert kernel.asm["cubin"][:4] == b"\x7fELF" and kernel.metadata["spill_stores"] == 0


@tilec.jit
def tma_tiles(src, out, BM: tl.constexpr, BN: tl.constexpr, TILES_N: tl.constexpr):
    """Program p writes the block of src at (m, n) = (p // TILES_N, p % TILES_N) blocks, less
    half a block (the first row and column of blocks start before the tensor, the last run past
    it), whole, zeros included, into out[p]."""
    p = tl.program_id(0)
    m = (p // TILES_N) * BM - BM // 2
    n = (p % TILES_N) * BN - BN // 2
    block = src.load([m, n])
    rows, cols = tl.arange(0, BM)[:, None], tl.arange(0, BN)[None, :]
    tl.store(out + p * BM * BN + rows * BN + cols, block)


TMA_CASES = [("float16", [64, 64]), ("float16", [32, 128]), ("float16", [16, 16]),
             ("bfloat16", [64, 64]), ("float32", [16, 32]), ("float32", [8, 64]),
             ("int8", [64, 128]), ("int8", [32, 256]), ("int16", [16, 64]), ("int32", [8, 32]),
             ("uint8", [16, 128])]
TMA_SHAPE = (72, 176)  # rows of 176 elements: every outer stride a multiple of 16


def tma_expected(src: np.ndarray, block) -> tuple[np.ndarray, int, int]:
    """out as tma_tiles writes it, the grid and TILES_N."""
    (M, N), (BM, BN) = src.shape, block
    tiles_m, tiles_n = -(-(M + BM // 2) // BM), -(-(N + BN // 2) // BN)
    padded = np.zeros((tiles_m * BM, tiles_n * BN), src.dtype)
    padded[BM // 2:BM // 2 + M, BN // 2:BN // 2 + N] = src
    out = padded.reshape(tiles_m, BM, tiles_n, BN).transpose(0, 2, 1, 3).reshape(-1, BM, BN)
    return out, tiles_m * tiles_n, tiles_n


def tma_source(dtype: str) -> np.ndarray:
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max, TMA_SHAPE, endpoint=True).astype(dtype)
    return (RNG.random(TMA_SHAPE) * 100 - 50).astype(np.float32)


@pytest.mark.parametrize("dtype, block", [c for c in TMA_CASES if c[0] != "bfloat16"])
def test_tma_tiles_in_the_interpreter(dtype, block):
    src = tma_source(dtype).astype(dtype)
    expected, programs, tiles_n = tma_expected(src, block)
    out = np.full(expected.shape, 7, dtype)
    interpret(tma_tiles, (programs,), TensorDescriptor.from_tensor(src, block), out,
              BM=block[0], BN=block[1], TILES_N=tiles_n)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, block", TMA_CASES)
def test_tma_tiles_on_the_gpu(dtype, block):
    """Blocks at, inside and past every edge, copied by TMA (the kernel takes a map), equal
    the tensor's elements, zeros outside it."""
    torch = pytest.importorskip("torch")
    to = getattr(torch, dtype)
    src = torch.from_numpy(tma_source(dtype)).to("cuda", to)
    expected, programs, tiles_n = tma_expected(src.cpu().float().numpy()
                                               if dtype == "bfloat16" else src.cpu().numpy(),
                                               block)
    out = torch.full(expected.shape, 7, dtype=to, device="cuda")
    kernel = tma_tiles[(programs,)](TensorDescriptor.from_tensor(src, block), out,
                                    BM=block[0], BN=block[1], TILES_N=tiles_n)
    assert [m["name"] for m in kernel.metadata["tensormaps"]] == ["src"]
    got = out.cpu().float().numpy() if dtype == "bfloat16" else out.cpu().numpy()
    np.testing.assert_array_equal(got, expected)


@tilec.jit
def row_sums(src, out, BM: tl.constexpr, BN: tl.constexpr, STEPS: tl.constexpr):
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(STEPS):
        acc += src.load([0, k * BN]).to(tl.float32)
    tl.store(out + tl.arange(0, BM), tl.sum(acc, axis=1))


def test_descriptor_loads_in_loops_are_tma_copies_staged_ahead():
    """tilegpu-pipeline stages a loop's TMA loads num_stages - 1 trips ahead: a ring of buffers
    and mbarriers, copies issued before the loop and in it, each trip waiting on its slot's
    barrier with the phase bit of the ring's round."""
    x = np.zeros((64, 256), np.float16)
    spec = runtime.specialize_argument(TensorDescriptor.from_tensor(x, [64, 64]))
    kernel = compile_specialized(row_sums, (spec, ("*fp32", True), ("constexpr", 64),
                                            ("constexpr", 64), ("constexpr", 4)),
                                 CompileOptions(target="cuda:90", num_stages=3),
                                 stop_after="ptx")
    assert "tensormaps" in kernel.metadata
    tilegpu = kernel.asm["tilegpu"]
    assert "!tilegpu.memdesc<[3, 64, 64], f16, #tilegpu.nvmma_shared<128 : i32, 16 : i32" in tilegpu
    assert "!tilegpu.memdesc<[3, 1], i64" in tilegpu
    ptx = kernel.asm["ptx"]
    assert ptx.count("cp.async.bulk.tensor.2d") == 3  # two ahead of the loop, one in it
    assert "mbarrier.try_wait.parity" in ptx and "ld.global" not in ptx
    out = np.zeros(64, np.float32)
    x = RNG.random((64, 256)).astype(np.float16)
    interpret(row_sums, (1,), TensorDescriptor.from_tensor(x, [64, 64]), out, BM=64, BN=64,
              STEPS=4)
    np.testing.assert_allclose(out, x.astype(np.float32).sum(axis=1), rtol=1e-3)


@pytest.mark.gpu
@pytest.mark.parametrize("steps, stages", [(0, 3), (1, 3), (2, 3), (4, 3), (7, 3), (9, 4),
                                           (5, 2), (3, 1)])
def test_descriptor_loads_in_loops_on_the_gpu(steps, stages):
    """Any trip count against any ring size: fewer trips than stages, the ring wrapping (the
    phase flipping) several times, and no pipelining at all."""
    torch = pytest.importorskip("torch")
    x = torch.rand((64, 64 * 9), device="cuda").to(torch.float16)
    out = torch.full((64,), 7.0, device="cuda")
    kernel = row_sums[(1,)](TensorDescriptor.from_tensor(x, [64, 64]), out, BM=64, BN=64,
                            STEPS=steps, num_stages=stages)
    assert "tensormaps" in kernel.metadata
    expected = x[:, :64 * steps].float().sum(dim=1)
    torch.testing.assert_close(out, expected, rtol=1e-3, atol=1e-3)


DESC_MATMUL = None


def desc_matmul_kernel():
    """bench/matmul_kernel.py's kernel, compiled by tilec (one source with Triton)."""
    global DESC_MATMUL
    if DESC_MATMUL is None:
        sys.path.insert(0, str(BENCH))
        import common
        DESC_MATMUL = common.load_kernels(tl, tilec.jit, "tilec",
                                          BENCH / "matmul_kernel.py")["matmul_desc_kernel"]
    return DESC_MATMUL


@pytest.mark.gpu
@pytest.mark.parametrize("shape, config, dtype", [
    ((512, 512, 512), (128, 128, 64, 8, 3), "float16"),
    ((384, 256, 1024), (128, 256, 64, 8, 4), "float16"),
    ((256, 384, 192), (128, 128, 64, 4, 3), "bfloat16"),
    ((304, 208, 112), (128, 128, 64, 8, 3), "float16"),  # rows, columns and K past the edges
    ((128, 128, 32), (128, 128, 64, 8, 3), "float16"),  # one trip, mostly out of bounds
    ((256, 256, 4096), (64, 128, 64, 4, 2), "float16"),  # two stages: wgmma waited each trip
    ((300, 200, 100), (128, 128, 64, 8, 3), "float16"),  # strides TMA cannot take: pointers
])
def test_descriptor_matmul_through_tma_and_wgmma_on_the_gpu(shape, config, dtype):
    """The descriptor matmul: A and B TMA copies pipelined into rings that wgmma reads in
    place (with a group left in flight from 3 stages on), against torch; where the strides
    are not multiples of 16 elements, the same kernel through pointers."""
    torch = pytest.importorskip("torch")
    (M, N, K), (BM, BN, BK, warps, stages) = shape, config
    to = getattr(torch, dtype)
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn((M, K), device="cuda", generator=gen).to(to)
    b = torch.randn((K, N), device="cuda", generator=gen).to(to)
    c = torch.full((M, N), 7.0, device="cuda").to(to)
    grid = (-(-M // BM) * -(-N // BN),)
    kernel = desc_matmul_kernel()[grid](
        TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BK, BN]),
        TensorDescriptor.from_tensor(c, [BM, BN]), M, N, K, BLOCK_M=BM, BLOCK_N=BN,
        BLOCK_K=BK, GROUP_M=8, num_warps=warps, num_stages=stages)
    aligned = K % 16 == 0 and N % 16 == 0
    assert len(kernel.metadata.get("tensormaps", ())) == (3 if aligned else 0)
    assert kernel.metadata["spill_stores"] == 0 and "warpgroup_dot" in kernel.asm["tilegpu"]
    assert ("is_async" in kernel.asm["tilegpu"]) == (aligned and stages >= 3)
    ref = a.float() @ b.float()
    assert ((c.float() - ref).abs() <= 1e-2 * (ref.abs() + K ** 0.5)).all()


def test_descriptor_matmul_in_the_interpreter():
    M, N, K, BM, BN, BK = 200, 136, 100, 64, 64, 32
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), 7, np.float16)
    interpret(desc_matmul_kernel(), (-(-M // BM) * -(-N // BN),),
              TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BK, BN]),
              TensorDescriptor.from_tensor(c, [BM, BN]), M, N, K, BLOCK_M=BM, BLOCK_N=BN,
              BLOCK_K=BK, GROUP_M=8)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, atol=0.05, rtol=0.01)


@pytest.mark.parametrize("config", [(128, 128, 64, 8, 3), (128, 256, 64, 8, 4)])
def test_descriptor_matmul_compiles_to_a_tma_ring_feeding_wgmma(config):
    """A and B go global -> shared by TMA only (no cp.async, no shared store of registers, no
    proxy fence in the loop) into rings wgmma reads, C out by a TMA store after the loop; no
    spills, no serialised wgmma."""
    BM, BN, BK, warps, stages = config

    def desc(block):
        return ("descriptor", (("*fp16", True), ("i32", True), ("i32", True), ("i32", True),
                               ("constexpr", 1), ("constexpr", tuple(block)),
                               ("constexpr", "zero")))
    key = (desc([BM, BK]), desc([BK, BN]), desc([BM, BN]), ("i32", True), ("i32", True),
           ("i32", True), ("constexpr", BM), ("constexpr", BN), ("constexpr", BK),
           ("constexpr", 8), ("constexpr", False))
    kernel = compile_specialized(desc_matmul_kernel(), key,
                                 CompileOptions(num_warps=warps, num_stages=stages))
    md, tilegpu, ptx = kernel.metadata, kernel.asm["tilegpu"], kernel.asm["ptx"]
    assert md["spill_stores"] == 0 and md["wgmma_serialized"] == []
    assert f"!tilegpu.memdesc<[{stages}, {BM}, {BK}], f16" in tilegpu
    loop = tilegpu.split("scf.for")[1].split("scf.yield")[0]
    assert "fence_async_shared" not in loop and "async_copy_global_to_local" not in tilegpu
    assert "local_alloc\"(%" not in loop
    assert tilegpu.count("fence_async_shared") == 1 and "async_tma_copy_local_to_global" in tilegpu
    assert "wgmma.mma_async" in ptx and "cp.async.bulk.tensor" in ptx
    assert "cp.async.ca" not in ptx and "cp.async.cg" not in ptx


@tilec.jit
def tma_copy_tiles(src, dst, BM: tl.constexpr, BN: tl.constexpr, TILES_N: tl.constexpr):
    """tma_tiles' blocks (half a block past every edge) of src stored into dst at the same
    offsets, both through descriptors."""
    p = tl.program_id(0)
    m = (p // TILES_N) * BM - BM // 2
    n = (p % TILES_N) * BN - BN // 2
    dst.store([m, n], src.load([m, n]))


def test_descriptor_stores_move_with_tma_on_sm90():
    """A TMA-movable descriptor's desc.store is the block written to an NVMMA buffer, fenced
    for the async proxy, stored by one thread with cp.async.bulk.tensor (one per column block)
    and waited for (pointer stores only where the hardware refuses the box)."""
    x = np.zeros(TMA_SHAPE, np.float16)
    spec = runtime.specialize_argument(TensorDescriptor.from_tensor(x, [32, 128]))
    kernel = compile_specialized(tma_copy_tiles, (spec, spec, ("constexpr", 32),
                                                  ("constexpr", 128), ("constexpr", 2)),
                                 CompileOptions(target="cuda:90"), stop_after="ptx")
    ptx = kernel.asm["ptx"]
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 2
    assert "fence.proxy.async.shared::cta" in ptx and "cp.async.bulk.wait_group.read" in ptx
    assert "ld.global" not in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, block", TMA_CASES)
def test_tma_stores_drop_what_lies_outside_on_the_gpu(dtype, block):
    """Blocks copied at, inside and past every edge through a TMA load and a TMA store into a
    window of a larger tensor: the window equals the source, and nothing outside it (where
    the blocks reach past the window's edges) is written."""
    torch = pytest.importorskip("torch")
    to = getattr(torch, dtype)
    src = torch.from_numpy(tma_source(dtype)).to("cuda", to)
    M, N = TMA_SHAPE
    full = torch.full((M + 16, N + 32), 7, dtype=to, device="cuda")
    window = full[:M, :N]  # strides (N + 32, 1): a multiple of 16 elements
    _, programs, tiles_n = tma_expected(np.zeros(TMA_SHAPE, np.float32), block)
    kernel = tma_copy_tiles[(programs,)](TensorDescriptor.from_tensor(src, block),
                                         TensorDescriptor.from_tensor(window, block),
                                         BM=block[0], BN=block[1], TILES_N=tiles_n)
    assert [m["name"] for m in kernel.metadata["tensormaps"]] == ["src", "dst"]
    assert torch.equal(window, src)
    outside = torch.ones_like(full, dtype=torch.bool)
    outside[:M, :N] = False
    assert bool((full[outside] == 7).all())


@tilec.jit
def block_moved(src, dst, LM, LN, SM, SN):
    """The block of src at (LM, LN) stored at (SM, SN) of dst, both through descriptors."""
    dst.store([SM, SN], src.load([LM, LN]))


def test_tma_boxes_the_hardware_refuses_go_through_pointers():
    """TMA moves boxes whose innermost coordinate is a multiple of 16 bytes and stores them at
    non-negative coordinates only (others are illegal instructions on the H200): at unknown
    offsets desc.load and desc.store branch on that, TMA on one side and masked pointer
    accesses on the other; where the axis analysis knows the alignment (pid * BM) the load's
    test folds away, and the store tests only the signs."""
    spec = runtime.specialize_argument(TensorDescriptor.from_tensor(
        np.zeros((128, 128), np.float16), [64, 64]))
    offset = runtime.specialize_argument(3)
    kernel = compile_specialized(block_moved, (spec, spec) + (offset,) * 4,
                                 CompileOptions(target="cuda:90"), stop_after="ptx")
    tile_ir, ptx = kernel.asm["tile"], kernel.asm["ptx"]
    load, store = tile_ir.split("scf.if")[1:]
    assert "tile.tma_load" in load.split("} else {")[0] and "tile.load" in load
    assert "tile.tma_store" in store.split("} else {")[0] and "tile.store" in store
    assert "arith.remsi" in load and "cmpi sge" in store
    assert ptx.count("cp.async.bulk.tensor") == 2 and "st.global" in ptx and "ld.global" in ptx

    kernel = compile_specialized(from_host, (spec, spec, ("constexpr", 64), ("constexpr", 64)),
                                 CompileOptions(target="cuda:90"), stop_after="tile")
    tile_ir = kernel.asm["tile"]
    assert tile_ir.count("scf.if") == 1 and "arith.remsi" not in tile_ir
    assert "tile.load" not in tile_ir and "tile.tma_load" in tile_ir.split("scf.if")[0]


# (load offset, store offset): aligned, misaligned along rows and columns, negative, past the
# far edges, entirely outside.
MOVES = [((0, 0), (0, 0)), ((64, 64), (64, 64)), ((100, 100), (100, 100)), ((0, 0), (0, 70)),
         ((0, 0), (5, 0)), ((3, 5), (0, 4)), ((0, 0), (-8, 0)), ((0, 0), (0, -8)),
         ((-32, -32), (-32, -32)), ((-10, -10), (-10, -10)), ((0, 0), (0, 120)),
         ((0, 0), (130, 0)), ((0, 0), (0, -64)), ((200, 0), (0, 0))]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, block", [("float16", [64, 64]), ("float32", [16, 32]),
                                          ("int8", [32, 128])])
def test_tma_blocks_at_any_offsets_on_the_gpu(dtype, block):
    """desc.load and desc.store at any offsets move exactly the elements inside the tensors
    (zeros read outside, nothing written outside), through TMA where the hardware takes the
    box and through pointers where it does not."""
    torch = pytest.importorskip("torch")
    to = getattr(torch, dtype)
    src_np = (np.arange(128 * 128) % 251 - 120).reshape(128, 128).astype(dtype)
    src = torch.from_numpy(src_np).to("cuda")
    BM, BN = block
    for (lm, ln), (sm, sn) in MOVES:
        dst = torch.full((128, 128), 7, dtype=to, device="cuda")
        kernel = block_moved[(1,)](TensorDescriptor.from_tensor(src, block),
                                   TensorDescriptor.from_tensor(dst, block), lm, ln, sm, sn)
        assert [m["name"] for m in kernel.metadata["tensormaps"]] == ["src", "dst"]
        padded = np.zeros((BM, BN), dtype)
        rows, cols = np.arange(lm, lm + BM), np.arange(ln, ln + BN)
        inside = ((rows >= 0) & (rows < 128))[:, None] & ((cols >= 0) & (cols < 128))[None, :]
        padded[inside] = src_np[np.ix_(rows.clip(0, 127), cols.clip(0, 127))][inside]
        expected = np.full((128, 128), 7, dtype)
        rows, cols = np.arange(sm, sm + BM), np.arange(sn, sn + BN)
        keep = ((rows >= 0) & (rows < 128))[:, None] & ((cols >= 0) & (cols < 128))[None, :]
        r, c = np.nonzero(keep)
        expected[rows[r], cols[c]] = padded[r, c]
        np.testing.assert_array_equal(dst.cpu().numpy(), expected,
                                      err_msg=f"load at {(lm, ln)}, store at {(sm, sn)}")


# --- descriptors made in the kernel: TMA maps in global scratch (sm_90) ----------------------

@tilec.jit
def made_copy(src, dst, M, N, stride_src, stride_dst, BM: tl.constexpr, BN: tl.constexpr,
              TILES_N: tl.constexpr):
    """tma_copy_tiles through descriptors the kernel makes of src and dst ([M, N], rows
    `stride_*` elements apart): blocks half a block past every edge."""
    a = tl.make_tensor_descriptor(src, [M, N], [stride_src, 1], [BM, BN])
    b = tl.make_tensor_descriptor(dst, [M, N], [stride_dst, 1], [BM, BN])
    p = tl.program_id(0)
    m = (p // TILES_N) * BM - BM // 2
    n = (p % TILES_N) * BN - BN // 2
    b.store([m, n], a.load([m, n]))


def compile_made(target="cuda:90", strides="i32:16", stage="ptx"):
    signature = {"src": "*fp16:16", "dst": "*fp16:16", "M": "i32", "N": "i32",
                 "stride_src": strides, "stride_dst": strides}
    return tilec.compile(made_copy, signature=signature,
                         constexprs={"BM": 64, "BN": 64, "TILES_N": 2}, target=target,
                         stop_after=stage)


def test_descriptors_made_in_the_kernel_are_tma_maps_in_global_scratch_on_sm90():
    """On sm_90 each descriptor the kernel makes is a TMA map it writes in shared memory, then
    copies into its global scratch (256 bytes a map and program; PTX ISA 8.3 for
    tensormap.replace) releasing it to the tensormap proxy; its loads and stores are TMA
    copies. Where the pointer and strides are known 16-byte aligned, the load needs no pointer
    path. sm_80 has no TMA."""
    kernel = compile_made(stage="cubin")
    assert kernel.metadata["global_scratch"] == 2 * 256
    ptx = kernel.asm["ptx"]
    assert ".version 8.3" in ptx
    for instruction in ("tensormap.replace.tile.global_address.shared::cta",
                        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release"
                        ".gpu.sync.aligned", "fence.proxy.tensormap::generic.acquire.gpu"):
        assert ptx.count(instruction) == 2, instruction
    assert "tensormap.replace.tile.global_address.global" not in ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in ptx  # the load
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in ptx  # the store
    assert "ld.global" not in ptx
    sm80 = compile_made(target="cuda:80")
    assert "global_scratch" not in sm80.metadata and "tensormap" not in sm80.asm["ptx"]
    assert ".version 8.0" in sm80.asm["ptx"]


def test_made_maps_are_used_where_the_alignment_holds_at_run_time():
    """TMA needs a 16-byte aligned base and outer strides: strides not known to be multiples
    of 16 bytes make the load test them at run time (the pointer path where they are not)."""
    tile_ir = compile_made(strides="i32", stage="tile").asm["tile"]
    before, load = tile_ir.split("scf.if")[:2]
    assert "tile.tma_load" in load.split("} else {")[0] and "tile.load" in load
    assert "arith.remsi" in before  # (stride * 2) % 16, tested where the map is made
    known = compile_made(stage="tile").asm["tile"]
    assert "tile.tma_load" in known.split("scf.if")[0]  # before the store's test: no branch


@tilec.jit
def made_elsewhere(src, dst, N, WHERE: tl.constexpr):
    offs = tl.arange(0, 64)
    if WHERE == "loop":  # made in a loop: not written once before its copies
        for i in range(0, N, 64):
            d = tl.make_tensor_descriptor(src, [N, N], [N, 1], [64, 64])
            tl.store(dst + offs, tl.sum(d.load([i, 0]), axis=0))
    elif WHERE == "1-D":
        d = tl.make_tensor_descriptor(src, [N], [1], [64])
        tl.store(dst + offs, d.load([0]))
    else:  # NaN padding (TMA maps here fill zeros)
        d = tl.make_tensor_descriptor(src, [N, N], [N, 1], [64, 64], padding_option="nan")
        tl.store(dst + offs, tl.sum(d.load([0, 0]), axis=0))


@pytest.mark.parametrize("where", ["loop", "1-D", "nan"])
def test_descriptors_made_where_tma_does_not_apply_stay_on_pointers(where):
    kernel = tilec.compile(made_elsewhere, signature={"src": "*fp32:16", "dst": "*fp32:16",
                                                      "N": "i32:16"},
                           constexprs={"WHERE": where}, target="cuda:90", stop_after="ptx")
    assert "global_scratch" not in kernel.metadata
    assert "tensormap" not in kernel.asm["ptx"] and "ld.global" in kernel.asm["ptx"]


def made_copy_case(dtype: str, block):
    """(src, the [M + 16, N + 32] tensor whose window dst is, grid, TILES_N) for made_copy."""
    src = tma_source(dtype).astype(dtype)
    M, N = TMA_SHAPE
    full = np.full((M + 16, N + 32), 7, dtype)
    _, programs, tiles_n = tma_expected(np.zeros(TMA_SHAPE, np.float32), block)
    return src, full, programs, tiles_n


@pytest.mark.parametrize("dtype, block", [c for c in TMA_CASES if c[0] != "bfloat16"][:4])
def test_made_copy_in_the_interpreter(dtype, block):
    src, full, programs, tiles_n = made_copy_case(dtype, block)
    M, N = TMA_SHAPE
    interpret(made_copy, (programs,), src, full, M, N, N, N + 32, BM=block[0], BN=block[1],
              TILES_N=tiles_n)
    np.testing.assert_array_equal(full[:M, :N], src)
    assert (full[M:] == 7).all() and (full[:, N:] == 7).all()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, block", TMA_CASES)
def test_made_descriptors_copy_through_tma_on_the_gpu(dtype, block):
    """Blocks at, inside and past every edge, loaded and stored through maps the kernel made:
    the window equals the source and nothing outside it is written, as in the interpreter."""
    torch = pytest.importorskip("torch")
    to = getattr(torch, dtype)
    # (bfloat16: drawn in float32, which torch rounds; NumPy has no bfloat16 torch takes)
    src_np, full_np, programs, tiles_n = made_copy_case(
        "float32" if dtype == "bfloat16" else dtype, block)
    M, N = TMA_SHAPE
    src = torch.from_numpy(src_np).to("cuda", to)
    full = torch.from_numpy(full_np).to("cuda", to)
    kernel = made_copy[(programs,)](src, full, M, N, N, N + 32, BM=block[0], BN=block[1],
                                    TILES_N=tiles_n)
    assert kernel.metadata["global_scratch"] == 512
    assert torch.equal(full[:M, :N], src)
    assert bool((full[M:] == 7).all()) and bool((full[:, N:] == 7).all())
    if dtype != "bfloat16":  # the interpreter gives the same tensor
        interpret(made_copy, (programs,), src_np, full_np, M, N, N, N + 32, BM=block[0],
                  BN=block[1], TILES_N=tiles_n)
        np.testing.assert_array_equal(full.cpu().numpy(), full_np)


@pytest.mark.gpu
def test_made_descriptors_of_unaligned_tensors_take_pointers_at_run_time_on_the_gpu():
    """A base 2 bytes off a 16-byte boundary, and rows 70 elements apart (140 bytes): TMA
    cannot use either map, so the copies go through pointers, with the same result."""
    torch = pytest.importorskip("torch")
    storage = torch.randn(72 * 70 + 1, device="cuda").half()
    src = storage[1:].view(72, 70)
    full = torch.full((72, 70), 7.0, device="cuda").half()
    _, programs, tiles_n = tma_expected(np.zeros((72, 70), np.float32), (16, 64))
    made_copy[(programs,)](src, full, 72, 70, 70, 70, BM=16, BN=64, TILES_N=tiles_n)
    assert torch.equal(full, src)


@tilec.jit
def made_block(src, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """src's block at (0, 0) through a descriptor the kernel makes, stored whole into out."""
    a = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
    rows, cols = tl.arange(0, BM)[:, None], tl.arange(0, BN)[None, :]
    tl.store(out + rows * BN + cols, a.load([0, 0]))


@pytest.mark.gpu
def test_made_descriptors_of_empty_tensors_read_zeros_on_the_gpu():
    """A zero-sized dimension: the map describes the slot's zero bytes instead, every element
    of the block reads as zero (and the descriptor of 5 rows reads them and zeros)."""
    torch = pytest.importorskip("torch")
    src = torch.randn(64, 64, device="cuda").half()
    for rows, cols in ((0, 64), (64, 0), (5, 64)):
        out = torch.full((64, 64), 7.0, device="cuda").half()
        made_block[(1,)](src, out, rows, cols, BM=64, BN=64)
        expected = torch.zeros_like(out)
        expected[:rows, :cols] = src[:rows, :cols]
        assert torch.equal(out, expected), (rows, cols)


@pytest.mark.gpu
def test_the_allocator_set_gives_the_maps_their_scratch_on_the_gpu():
    """Every launch, the first (Python path) and the warm ones (C path), gets its scratch from
    the allocator set, or from the stream's pool once none is; the allocation dropped once the
    kernel is queued, the kernel still reads the maps it wrote there."""
    torch = pytest.importorskip("torch")
    calls = []

    def allocator(size, alignment, stream):
        calls.append((size, alignment))
        return torch.empty(size, dtype=torch.int8, device="cuda")
    src = torch.randn(64, 64, device="cuda").half()
    tilec.set_allocator(allocator)
    try:
        for n in (1, 2, 3):
            out = torch.zeros_like(src)
            made_block[(3,)](src, out, 64, 64, BM=64, BN=64)
            assert calls == [(3 * 256, 128)] * n and torch.equal(out, src)
    finally:
        tilec.set_allocator(None)
    for _ in range(3):
        out = torch.zeros_like(src)
        made_block[(3,)](src, out, 64, 64, BM=64, BN=64)
        assert torch.equal(out, src) and len(calls) == 3


# --- desc.atomic_<kind> through TMA reductions ---------------------------------------------

@tilec.jit
def reduced_blocks(src, dst, M, N, KIND: tl.constexpr, REPEAT: tl.constexpr, BM: tl.constexpr,
                   BN: tl.constexpr):
    """dst (op)= src block by block, REPEAT programs updating each block (program p the block
    p // REPEAT of the grid of blocks) with desc.atomic_<KIND>, through descriptors the kernel
    makes."""
    a = tl.make_tensor_descriptor(src, [M, N], [N, 1], [BM, BN])
    b = tl.make_tensor_descriptor(dst, [M, N], [N, 1], [BM, BN])
    block = tl.program_id(0) // REPEAT
    m, n = (block // tl.cdiv(N, BN)) * BM, (block % tl.cdiv(N, BN)) * BN
    x = a.load([m, n])
    if KIND == "add":
        b.atomic_add([m, n], x)
    elif KIND == "min":
        b.atomic_min([m, n], x)
    elif KIND == "max":
        b.atomic_max([m, n], x)
    elif KIND == "and":
        b.atomic_and([m, n], x)
    elif KIND == "or":
        b.atomic_or([m, n], x)
    else:
        b.atomic_xor([m, n], x)


@tilec.jit
def min_through_host_map(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    dst.atomic_min([0, 0], src.load([0, 0]))


# (kind, dtype, whether TMA reduces it): TMA adds f16, bf16, f32 and 32-bit integers, takes
# minima and maxima of f16, bf16 and signed 32-bit integers (a map made in the kernel says
# its integers are signed; unsigned ones take pointers), ands, ors and xors 32-bit integers.
TMA_KINDS = [("add", "fp32", True), ("add", "fp16", True), ("add", "i32", True),
             ("add", "i8", False), ("min", "fp16", True), ("min", "bf16", True),
             ("min", "i32", True), ("min", "u32", False), ("min", "fp32", False),
             ("max", "i32", True), ("max", "fp32", False), ("and", "i32", True),
             ("or", "u32", True), ("xor", "i32", True)]


@pytest.mark.parametrize("kind, dtype, tma", TMA_KINDS)
def test_descriptor_atomics_are_tma_reductions_on_sm90(kind, dtype, tma):
    """desc.atomic_<kind> through a TMA map is a cp.reduce.async.bulk.tensor of that kind
    where TMA has it (pointer atomics beside it, where the box cannot be reduced by TMA: a
    negative or unaligned offset, a tensor with no elements); other types take pointers."""
    kernel = tilec.compile(reduced_blocks, signature={"src": f"*{dtype}:16",
                                                      "dst": f"*{dtype}:16", "M": "i32",
                                                      "N": "i32:16"},
                           constexprs={"KIND": kind, "REPEAT": 2, "BM": 32, "BN": 128},
                           target="cuda:90", stop_after="ptx")
    ptx = kernel.asm["ptx"]
    assert (f"cp.reduce.async.bulk.tensor.2d.global.shared::cta.{kind}" in ptx) == tma
    assert "atom." in ptx  # the pointer path beside it (int8: a compare-and-swap loop)


def test_unsigned_minima_through_a_host_map_are_tma_reductions():
    """A host descriptor's map says its integers are unsigned: TMA takes their minima."""
    spec = [runtime.specialize_argument(TensorDescriptor.from_tensor(
        np.zeros((64, 64), np.uint32), [32, 32])) for _ in range(2)]
    kernel = compile_specialized(min_through_host_map, (*spec, ("constexpr", 32),
                                                        ("constexpr", 32)),
                                 CompileOptions(), stop_after="ptx")
    assert "cp.reduce.async.bulk.tensor.2d.global.shared::cta.min" in kernel.asm["ptx"]


def reduced_expected(kind: str, src: np.ndarray, dst: np.ndarray, repeat: int) -> np.ndarray:
    """dst after `repeat` updates of every element by src."""
    if kind == "add":
        return (dst.astype(np.float64) + src.astype(np.float64) * repeat).astype(src.dtype)
    if kind == "xor":
        return dst ^ src if repeat % 2 else dst
    return {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
            "or": np.bitwise_or}[kind](dst, src)


@pytest.mark.parametrize("kind, dtype", [("add", "float32"), ("add", "int32"),
                                         ("min", "int32"), ("xor", "int32")])
def test_descriptor_atomics_in_the_interpreter(kind, dtype):
    src, dst = (np.round(RNG.random((70, 160)) * 16 - 8).astype(dtype) for _ in range(2))
    want = reduced_expected(kind, src, dst, 2)
    interpret(reduced_blocks, (2 * 3 * 2,), src, dst, 70, 160, KIND=kind, REPEAT=2, BM=32,
              BN=128)
    np.testing.assert_array_equal(dst, want)


@pytest.mark.gpu
@pytest.mark.parametrize("kind, dtype", [
    ("add", "float32"), ("add", "float16"), ("add", "bfloat16"), ("add", "int32"),
    ("min", "float16"), ("min", "bfloat16"), ("min", "int32"), ("max", "float16"),
    ("max", "bfloat16"), ("max", "int32"), ("and", "int32"), ("or", "int32"),
    ("xor", "int32")])
def test_descriptor_atomics_through_tma_on_the_gpu(kind, dtype):
    """Three programs update each block of dst with src (70 x 160 tensors: the last row of
    blocks runs past them): every element inside gets all three updates, nothing outside is
    written. Signed integers go negative, so a minimum taken unsigned would show."""
    torch = pytest.importorskip("torch")
    to = getattr(torch, dtype)

    def values():
        return torch.from_numpy((RNG.random((70, 160)) * 16 - 8).astype(np.float32)).round()
    src = values().to("cuda", to)
    full = torch.full((80, 160), 7, dtype=to, device="cuda")
    dst = full[:70]
    dst.copy_(values().to("cuda", to))
    want = torch.from_numpy(reduced_expected(kind, src.cpu().float().numpy().astype(
        np.float64 if to.is_floating_point else np.int64), dst.cpu().float().numpy().astype(
        np.float64 if to.is_floating_point else np.int64), 3)).to("cuda", to)
    kernel = reduced_blocks[(3 * 3 * 2,)](src, dst, 70, 160, KIND=kind, REPEAT=3, BM=32, BN=128)
    assert f"cp.reduce.async.bulk.tensor.2d.global.shared::cta.{kind}" in kernel.asm["ptx"]
    assert torch.equal(dst, want) and bool((full[70:] == 7).all())
