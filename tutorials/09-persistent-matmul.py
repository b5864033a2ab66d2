"""Persistent matrix multiplication, through pointers and through tensor descriptors.

A persistent kernel launches one program per SM (or fewer, when there are fewer tiles) and lets
each program walk the output tiles `start, start + NUM_SMS, start + 2 NUM_SMS, ...` instead of
launching one program per tile: the launch costs one wave, and a program's next tile starts as
soon as its last one is done. The tiles are visited in groups of GROUP_SIZE_M rows, so tiles of
A and B that programs running at the same time read are still in L2.

Three kernels compute the same C = A @ B (fp16 or bf16 in, fp32 accumulation, C of the input
type):
- `matmul_persistent` reads A and B through pointers, masked along K, and writes C through
  masked pointers;
- `matmul_persistent_tma` takes host `TensorDescriptor`s of A, B and C: on Hopper tilec passes
  each as a TMA map, the loads of the K loop are TMA copies staged `num_stages - 1` trips ahead
  in rings of shared buffers that wgmma reads in place, and out-of-bounds rows and columns are
  zeros (loads) or not written (stores);
- `matmul_persistent_device_tma` takes pointers and makes the descriptors itself
  (`tl.make_tensor_descriptor`): on Hopper each program writes their TMA maps into global
  scratch (from `tilec.set_allocator`'s allocator, else torch's or CuPy's pool) before its
  first copy, and the K loops are staged as in `matmul_persistent_tma`.

`tl.range(..., flatten=True)` is Triton's hint to flatten the two loops (so that one tile's
epilogue overlaps the next tile's loads). tilec overlaps them in the descriptor kernels either
way: warp specialization of the tile loop (WARP_SPECIALIZE here: True asks for it, False
forbids it, None leaves it to the compiler, which specialises such loops when 8 warps
compute) gives a producer warpgroup that issues the K loops' TMA copies for tile after tile,
running ahead into the next tile while the num_warps warps that compute store this one;
without it, tilegpu-pipeline issues the copies of the next tile's first K trips during this
tile's last ones. The pointer kernel's copies are staged tile by tile.

    python tutorials/09-persistent-matmul.py            # on the GPU (torch), both kernels
    TILEC_INTERPRET=1 python tutorials/09-persistent-matmul.py   # NumPy, in the interpreter
"""
import os

import numpy as np

import tilec
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor


@tilec.jit
def num_tiles(M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    return tl.cdiv(M, BLOCK_SIZE_M) * tl.cdiv(N, BLOCK_SIZE_N)


@tilec.jit
def tile_coordinates(tile_id, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                     GROUP_SIZE_M: tl.constexpr):
    """(pid_m, pid_n) of output tile `tile_id` in the grouped order."""
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    group = GROUP_SIZE_M * tl.cdiv(N, BLOCK_SIZE_N)
    first_m = (tile_id // group) * GROUP_SIZE_M
    rows = min(num_pid_m - first_m, GROUP_SIZE_M)
    return first_m + (tile_id % group) % rows, (tile_id % group) // rows


@tilec.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr,
                      BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                      GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    tiles = num_tiles(M, N, BLOCK_SIZE_M, BLOCK_SIZE_N)
    for tile_id in tl.range(tl.program_id(0), tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = tile_coordinates(tile_id, M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)
        rows = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        cols = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        ks = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (rows % M)[:, None] * stride_am + ks[None, :] * stride_ak
        b_ptrs = b_ptr + ks[:, None] * stride_bk + (cols % N)[None, :] * stride_bn
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            left = K - k * BLOCK_SIZE_K
            a = tl.load(a_ptrs, mask=ks[None, :] < left, other=0.0)
            b = tl.load(b_ptrs, mask=ks[:, None] < left, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
                 mask=(rows[:, None] < M) & (cols[None, :] < N))


@tilec.jit
def descriptor_tiles(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M: tl.constexpr,
                     BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                     GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
                     WARP_SPECIALIZE: tl.constexpr):
    """This program's tiles of C = A @ B through descriptors of A, B and C."""
    tiles = num_tiles(M, N, BLOCK_SIZE_M, BLOCK_SIZE_N)
    for tile_id in tl.range(tl.program_id(0), tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = tile_coordinates(tile_id, M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
            b = b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(c_desc.dtype))


@tilec.jit
def matmul_persistent_tma(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M: tl.constexpr,
                          BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                          GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
                          WARP_SPECIALIZE: tl.constexpr = None):
    descriptor_tiles(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K,
                     GROUP_SIZE_M, NUM_SMS, WARP_SPECIALIZE)


@tilec.jit
def matmul_persistent_device_tma(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_SIZE_M: tl.constexpr,
                                 BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                                 GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
                                 WARP_SPECIALIZE: tl.constexpr = None):
    # The descriptors made in the kernel from contiguous A [M, K], B [K, N] and C [M, N]: on
    # Hopper each is a TMA map the program writes into global scratch (tilec.set_allocator)
    # before its first copy.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    descriptor_tiles(a_desc, b_desc, c_desc, M, N, K, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K,
                     GROUP_SIZE_M, NUM_SMS, WARP_SPECIALIZE)


CONFIG = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
              num_warps=8, num_stages=3)
# Programs of two CTAs (a thread block cluster, sm_90): each CTA computes 128 of a program's
# 256 rows (tile-split-ctas), so a CTA's work is CONFIG's, and half as many programs run. With
# descriptors and the tile loop warp-specialised, the two CTAs copy each B block once for both
# (TMA multicast), so the pair reads from L2 the B traffic of one.
CLUSTER_CONFIG = dict(CONFIG, BLOCK_SIZE_M=256, num_ctas=2)


def sm_count(a) -> int:
    """Programs to launch: the GPU's SMs (a few in the interpreter, which runs them in turn)."""
    if isinstance(a, np.ndarray):
        return 4
    import torch
    return torch.cuda.get_device_properties(a.device).multi_processor_count


def matmul(a, b, c, use_descriptors, config: dict = CONFIG, warp_specialize=None):
    """c = a @ b (contiguous NumPy arrays in the interpreter, torch CUDA tensors on the GPU)
    by one of the persistent kernels: through pointers (`use_descriptors` False), host
    descriptors (True) or descriptors made in the kernel ("device"), the descriptor ones
    warp-specialised if asked (True), not (False), or as the compiler decides (None: with 8
    warps it does); returns the kernel the launch ran. A config with `num_ctas` launches
    programs of that many CTAs, one per num_ctas SMs."""
    M, K = a.shape
    _, N = b.shape
    bm, bn, bk = config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"], config["BLOCK_SIZE_K"]
    programs = min(sm_count(a) // config.get("num_ctas", 1),
                   tilec.cdiv(M, bm) * tilec.cdiv(N, bn))
    grid = (programs,)
    if use_descriptors == "device":
        return matmul_persistent_device_tma[grid](a, b, c, M, N, K, NUM_SMS=programs,
                                                  WARP_SPECIALIZE=warp_specialize, **config)
    if use_descriptors:
        return matmul_persistent_tma[grid](
            TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b, [bk, bn]),
            TensorDescriptor.from_tensor(c, [bm, bn]), M, N, K, NUM_SMS=programs,
            WARP_SPECIALIZE=warp_specialize, **config)
    item = a.itemsize if isinstance(a, np.ndarray) else a.element_size()

    def strides(x):
        return [s // item for s in x.strides] if isinstance(x, np.ndarray) else list(x.stride())
    return matmul_persistent[grid](a, b, c, M, N, K, *strides(a), *strides(b), *strides(c),
                                   NUM_SMS=programs, **config)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    M, N, K = 1000, 1024, 512  # M not a multiple of the block: the last row of tiles is partial
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    for use_descriptors, ws in ((False, False), (True, False), (True, True), ("device", False),
                                ("device", True)):
        if os.environ.get("TILEC_INTERPRET", "0") in ("", "0"):  # on the GPU
            import torch
            ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
            tc = torch.empty((M, N), device="cuda", dtype=torch.float16)
            matmul(ta, tb, tc, use_descriptors, warp_specialize=ws)
            c = tc.cpu().numpy()
        else:
            c = np.empty((M, N), np.float16)
            matmul(a, b, c, use_descriptors, dict(CONFIG, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                                  BLOCK_SIZE_K=32), warp_specialize=ws)
        np.testing.assert_allclose(c.astype(np.float32), expected, rtol=1e-2, atol=1e-1)
        kind = {False: "pointers", True: "descriptors", "device": "in-kernel descriptors"}[
            use_descriptors]
        print(f"persistent matmul ({kind}{', warp-specialized' if ws else ''}) matches NumPy")
