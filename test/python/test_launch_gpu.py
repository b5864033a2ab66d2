"""Launches on the GPU: the argument path under churn, list grids, the returned handle.

Only the public API is used (kernel[grid](...)), so this file also runs against older tilecs:
the first two tests failed on the launch path before its redesign (a warm entry's argument
buffer was freed by the next entry of the same kernel; list grids reached the driver as
([2, 3], 1, 1) on warm launches)."""
from __future__ import annotations

import gc
import random

import numpy as np
import pytest

import launch_kernels as K

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")


def test_alternating_torch_cupy_ints_and_numpy_scalars_with_gc_churn():
    torch = pytest.importorskip("torch")
    rng = random.Random(0)
    n = 4096
    base = np.arange(n, dtype=np.float32)
    arrays = {"torch": (torch.tensor(base, device="cuda"), torch.empty(n, device="cuda")),
              "cupy": (cupy.asarray(base), cupy.empty(n, dtype=cupy.float32))}
    for i in range(600):
        kind = rng.choice(["torch", "cupy"])
        x, out = arrays[kind]
        count = rng.choice([int, np.int32, np.int64])(rng.choice([n, n - 1, 1000]))
        factor = rng.choice([float, np.float32])(rng.choice([0.5, 2.0, 3.0]))
        out.fill_(-1) if kind == "torch" else out.fill(-1)
        K.scale[(n // 256,)](x, out, count, factor, BLOCK=256)
        got = out.cpu().numpy() if kind == "torch" else cupy.asnumpy(out)
        want = np.where(np.arange(n) < int(count), base * np.float32(factor), -1)
        np.testing.assert_array_equal(got, want, err_msg=f"launch {i}: {kind}, "
                                                         f"{type(count).__name__}, {factor!r}")
        if i % 5 == 0:
            garbage = [bytearray(128) for _ in range(500)]
            del garbage
            gc.collect()


@pytest.mark.parametrize("grid", [[2, 3], [6], (2, 3), 6, lambda meta: [2, meta["n"] // 512]])
def test_list_grids_on_first_and_warm_launches(grid):
    n = 6 * 256
    x = cupy.arange(n, dtype=cupy.float32)
    for _ in range(3):
        out = cupy.zeros(n, dtype=cupy.float32)
        K.scale[grid](x, out, n, 2.0, BLOCK=256)
        cupy.testing.assert_array_equal(out, x * 2)


def test_a_launch_returns_the_compiled_kernel():
    x = cupy.ones(256, dtype=cupy.float32)
    out = cupy.zeros_like(x)
    first = K.scale[(1,)](x, out, 256, 1.0, BLOCK=256)
    warm = K.scale[(1,)](x, out, 256, 1.0, BLOCK=256)
    assert warm is first and "ld.global" in first.asm["ptx"]
    assert first.n_regs > 0 and first.n_spills == 0 and first.metadata.num_warps == 4


def test_parameters_named_like_options_and_no_parameters():
    out = cupy.zeros(32, dtype=cupy.int32)
    K.stages_value[(1,)](out, num_stages=4, num_warps=2, BLOCK=32)
    assert (cupy.asnumpy(out) == 402).all()
    K.no_params[(4,)]()
    cupy.cuda.runtime.deviceSynchronize()


@pytest.fixture(params=["C path", "Python path"])
def launch_path(request, monkeypatch):
    """Warm launches through the C extension, or every launch through the Python path."""
    if request.param == "Python path":
        monkeypatch.setenv("TILEC_NATIVE_LAUNCH", "0")
    K.scale.reset_launches()
    yield request.param
    K.scale.reset_launches()


def test_launches_are_captured_on_cupys_current_stream(launch_path):
    """A launch goes to the caller's current CuPy stream: under stream capture it is recorded
    into the graph, not run (on any other stream it would run, or fail the capture)."""
    n = 1024
    x = cupy.arange(n, dtype=cupy.float32)
    K.scale[(4,)](x, cupy.zeros_like(x), n, 2.0, BLOCK=256)  # compiled and loaded, warm
    cupy.cuda.runtime.deviceSynchronize()
    out = cupy.zeros_like(x)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        for _ in range(2):
            K.scale[(4,)](x, out, n, 2.0, BLOCK=256)
        graph = stream.end_capture()
    stream.synchronize()
    assert int(cupy.count_nonzero(out)) == 0, "the captured launches ran"
    graph.launch(stream)
    stream.synchronize()
    cupy.testing.assert_array_equal(out, x * 2)


def test_launches_are_captured_on_torchs_current_stream(launch_path):
    torch = pytest.importorskip("torch")
    n = 1024
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # warmed up on a side stream, as torch asks before capture
        K.scale[(4,)](x, torch.zeros_like(x), n, 2.0, BLOCK=256)
        K.scale[(4,)](x, torch.zeros_like(x), n, 2.0, BLOCK=256)
    torch.cuda.synchronize()
    out = torch.zeros_like(x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(2):
            K.scale[(4,)](x, out, n, 2.0, BLOCK=256)
    torch.cuda.synchronize()
    assert int(torch.count_nonzero(out)) == 0, "the captured launches ran"
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, x * 2)


@pytest.mark.parametrize("launch_path", ["native", "python"])
def test_a_cpu_torch_tensor_is_refused_before_the_launch(launch_path, monkeypatch):
    """A host address passed as a device pointer would fault and poison the context: refused
    with a ValueError (as Triton refuses it), warm or cold, and the GPU stays usable."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TILEC_NATIVE_LAUNCH", "1" if launch_path == "native" else "0")
    n = 256
    x, out = torch.ones(n, device="cuda"), torch.empty(n, device="cuda")
    K.scale[(1,)](x, out, n, 2.0, BLOCK=256)  # warm: the next launches take the fast path
    for bad in ((x.cpu(), out), (x, out.cpu())):
        with pytest.raises(ValueError, match="torch tensor on cpu"):
            K.scale[(1,)](*bad, n, 2.0, BLOCK=256)
    K.scale[(1,)](x, out, n, 3.0, BLOCK=256)
    assert bool((out == 3).all())
    pinned = torch.full((n,), 5.0).pin_memory()  # mapped host memory: launches
    K.scale[(1,)](pinned, out, n, 2.0, BLOCK=256)
    torch.cuda.synchronize()
    assert bool((out == 10).all())


def test_tritons_runtime_api_describes_the_device():
    import tilec
    active = tilec.runtime.driver.active
    props = active.utils.get_device_properties(active.get_current_device())
    assert props["multiprocessor_count"] == cupy.cuda.Device().attributes["MultiProcessorCount"]
    assert props["warpSize"] == 32 and props["max_num_regs"] >= 65536
    assert props["max_shared_mem"] >= 200 * 1024  # opt-in shared memory of an sm_90 block
    target = active.get_current_target()
    major, minor = cupy.cuda.Device().compute_capability
    assert target == ("cuda", int(major) * 10 + int(minor), 32) and target.arch == target[1]
    torch = pytest.importorskip("torch")
    assert active.get_active_torch_device() == torch.device("cuda", torch.cuda.current_device())


def test_warmup_then_init_handles_then_launch():
    n = 256
    x, out = cupy.ones(n, cupy.float32), cupy.zeros(n, cupy.float32)
    compiled = K.scale.warmup(x, out, n, 2.0, BLOCK=256, grid=(1,))
    assert bool((out == 0).all())  # compiled, not launched
    compiled._init_handles()
    assert K.scale[(1,)](x, out, n, 2.0, BLOCK=256) is compiled
    assert bool((out == 2).all())


def test_a_cooperative_launch_keeps_every_program_resident():
    """A grid barrier over one program per SM completes; a grid larger than the GPU holds
    at once is refused by the driver (a LaunchError), not hung."""
    from tilec.errors import LaunchError
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    for _ in range(3):
        count, out = cupy.zeros(1, cupy.int32), cupy.zeros(sms, cupy.int32)
        K.grid_barrier[(sms,)](count, out, sms, launch_cooperative_grid=True)
        cupy.cuda.runtime.deviceSynchronize()
        assert (cupy.asnumpy(out) == sms).all()
    with pytest.raises(LaunchError, match="cuLaunchCooperativeKernel"):
        K.grid_barrier[(sms * 1000,)](cupy.zeros(1, cupy.int32), cupy.zeros(sms * 1000, cupy.int32),
                                      sms * 1000, launch_cooperative_grid=True)


def test_reinterpreted_torch_and_cupy_arrays_are_read_as_the_new_dtype(launch_path):
    """int16 bits read and written as float16, by torch tensors and CuPy arrays, first and warm
    launches, on both launch paths."""
    torch = pytest.importorskip("torch")
    import cupy
    import tilec
    import tilec.language as tl
    values = torch.tensor([1.0, -2.5, 0.5, 65504.0] * 64, dtype=torch.float16, device="cuda")
    for make in (lambda t: t, lambda t: cupy.asarray(t)):
        bits, out = make(values.view(torch.int16)), make(torch.zeros(256, dtype=torch.int16,
                                                                     device="cuda"))
        for _ in range(3):
            K.scale[(1,)](tilec.reinterpret(bits, tl.float16), tilec.reinterpret(out, tl.float16),
                          256, 0.5, BLOCK=256)
        got = torch.as_tensor(out, device="cuda").view(torch.float16)
        assert torch.equal(got, values * 0.5)


def test_tuple_arguments_and_values_on_the_gpu(launch_path):
    torch = pytest.importorskip("torch")
    arrays = tuple(torch.randn(128, device="cuda") for _ in range(3))
    for counts in [(3, 7), (1, 1), (3, 7), (0, 2)]:
        out = torch.zeros(128, device="cuda")
        K.tuple_sum[(1,)](arrays, out, counts, BLOCK=128)
        expected = sum(arrays) + 2 * counts[0] + counts[1] + (counts[0] > 2)
        torch.testing.assert_close(out, expected)


@pytest.mark.parametrize("num_ctas", [1, 2, 4])
def test_programs_of_several_ctas_see_their_cluster_as_the_program(num_ctas, launch_path):
    """num_ctas > 1: each program is a cluster of that many CTAs, yet it sees the grid it was
    launched over (program_id, num_programs) and runs once: its atomics count 1 a launch."""
    torch = pytest.importorskip("torch")
    K.program_ids.reset_launches()
    ids = torch.full((5 * 3, 4), -1, dtype=torch.int32, device="cuda")
    counts = torch.zeros(5 * 3, dtype=torch.int32, device="cuda")
    for _ in range(3):  # first launch, then warm ones (the C path unless it is turned off)
        K.program_ids[(5, 3)](ids, counts, num_ctas=num_ctas)
    expected = torch.tensor([[i, j, 5, 3] for j in range(3) for i in range(5)],
                            dtype=torch.int32, device="cuda")
    assert torch.equal(ids, expected)
    assert torch.equal(counts, torch.full_like(counts, 3))
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.zeros_like(x)
    K.scale[(4, 2)](x, out, 1000, 2.0, BLOCK=128, num_ctas=num_ctas)
    torch.testing.assert_close(out, x * 2)
