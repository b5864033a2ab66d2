"""Launching on the CPU with a fake driver (fake_driver.py): the argument path, both ways.

Every launch is recorded with the values the driver read through the `void**` it was given, at
the moment of the call, whether it took the Python path (tilec/launch.py) or the C warm path
(tilec/_launch.c). Kernels are compiled for real.
"""
from __future__ import annotations

import ctypes
import dataclasses
import gc
import itertools
import random
import threading
import types
import weakref

import numpy as np
import pytest

import fake_driver
import launch_kernels as K
import tilec
import tilec.language as tl
from fake_driver import CUPY_STREAM, TORCH_STREAM, FakeCupyArray, FakeTorchTensor, fake_map
from tilec import launch, runtime
from tilec.compiler import KernelParam
from tilec.errors import LaunchError

NATIVE = runtime.native is not None
WARM = "native" if NATIVE else "python"  # the path of a warm launch
KERNELS = (K.scale, K.no_params, K.stages_value, K.probe, K.multiply_add, K.tuple_sum,
           K.desc_copy, K.desc_add, K.made_desc_copy, K.desc_dot)


def run_in_threads(work, count: int) -> list:
    """`work(t)` in `count` threads at once; the exceptions they raised."""
    errors = []

    def guarded(t):
        try:
            work(t)
        except Exception as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


@pytest.fixture
def driver(monkeypatch):
    fake = fake_driver.install(monkeypatch, *KERNELS)
    yield fake
    fake_driver.uninstall(*KERNELS)


def scale_args(x, out, n, factor):
    return (x, out, n, factor)


def expected_values(x, out, n, factor):
    return [runtime.data_pointer(x), runtime.data_pointer(out), int(n), pytest.approx(factor)]


# --- the handle, first and warm launches --------------------------------------------------------

def test_first_and_warm_launches_pass_the_same_arguments_and_return_the_kernel(driver):
    x, out = FakeCupyArray(1000), FakeCupyArray(1000)
    first = K.scale[(4,)](x, out, 1000, 2.5, BLOCK=256)
    warm = K.scale[(4,)](x, out, 1000, 2.5, BLOCK=256)
    assert isinstance(first, tilec.CompiledKernel) and warm is first
    assert "ld.global" in first.asm["ptx"] and first.asm["cubin"][:4] == b"\x7fELF"
    assert first.metadata.num_warps == 4 and first.metadata["shared"] == first.metadata.shared
    assert first.n_regs > 0 and first.n_spills == 0
    assert [launch.path for launch in driver.launches] == ["python", "native" if NATIVE
                                                           else "python"]
    for record in driver.launches:
        assert record.kernel == "scale" and record.grid == (4, 1, 1) and record.block == 128
        assert record.stream == CUPY_STREAM
        assert record.values == expected_values(x, out, 1000, 2.5)


def test_the_interpreter_returns_none(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    x, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    assert K.scale[(1,)](x, out, 8, 2.0, BLOCK=8) is None
    np.testing.assert_array_equal(out, x * 2)


# --- defect: one buffer per warm entry, freed by the next ---------------------------------------

def test_alternating_argument_kinds_with_garbage_collector_churn(driver):
    """torch tensors, CuPy arrays, Python ints, np.int32 and np.int64, floats and np.float32 on
    one kernel, 400 launches: each launch's arguments are what the driver reads. (A warm entry
    used to keep its buffer through an attribute the next entry overwrote, freeing it.)"""
    rng = random.Random(0)
    arrays = {"torch": [FakeTorchTensor(1000) for _ in range(3)],
              "cupy": [FakeCupyArray(1000) for _ in range(3)]}
    ints = (int, np.int32, np.int64)
    floats = (float, np.float32)
    expected = []
    for i in range(400):
        kind = rng.choice(["torch", "cupy"])
        x, out = rng.sample(arrays[kind], 2)
        value = rng.choice([1000, 999, 64, 2 ** 31 + 3])
        n = rng.choice(ints if value < 2 ** 31 else (int, np.int64))(value)
        factor = rng.choice(floats)(rng.choice([0.5, 3.0]))
        handle = K.scale[(4,)](x, out, n, factor, BLOCK=256)
        assert handle.name == "scale"
        expected.append((expected_values(x, out, n, factor),
                         TORCH_STREAM if kind == "torch" else CUPY_STREAM))
        if i % 7 == 0:
            garbage = [bytearray(64) for _ in range(200)]  # reuse the freed memory, if any
            del garbage
            gc.collect()
    assert len(driver.launches) == 400
    for record, (values, stream) in zip(driver.launches, expected):
        assert record.values == values and record.stream == stream
    if NATIVE:  # Python ints and floats on torch/CuPy arrays took the C path once warm
        assert sum(r.path == "native" for r in driver.launches) > 50


# --- defect: list grids -------------------------------------------------------------------------

@pytest.mark.parametrize("grid, dims", [
    ([2, 3], (2, 3, 1)), ((2, 3), (2, 3, 1)), (6, (6, 1, 1)), ([1, 2, 3], (1, 2, 3)),
    ((np.int64(2), 3), (2, 3, 1)), (lambda meta: [meta["n"] // 256, 2], (3, 2, 1)),
    (lambda meta: (3,), (3, 1, 1)), (lambda meta: 3, (3, 1, 1)),
])
def test_grids_reach_the_driver_as_three_dimensions_on_every_launch(driver, grid, dims):
    x, out = FakeCupyArray(768), FakeCupyArray(768)
    for _ in range(3):
        K.scale[grid](x, out, 768, 1.0, BLOCK=128)
    assert [r.grid for r in driver.launches] == [dims] * 3


def test_a_grid_with_a_zero_launches_nothing(driver):
    x, out = FakeCupyArray(8), FakeCupyArray(8)
    assert K.scale[(0,)](x, out, 8, 1.0, BLOCK=8).name == "scale"
    assert K.scale[[4, 0]](x, out, 8, 1.0, BLOCK=8).name == "scale"
    assert driver.launches == []


@pytest.mark.parametrize("grid, error", [
    ((1, 2, 3, 4), "1 to 3 dimensions"), ((), "1 to 3 dimensions"), ((-1,), "between 0"),
    ((1, 65536), "between 0 and 65535"), ((2.5,), "must be integers"), ("abc", "integers"),
])
def test_bad_grids_are_clear_errors(driver, grid, error):
    x, out = FakeCupyArray(8), FakeCupyArray(8)
    K.scale[(1,)](x, out, 8, 1.0, BLOCK=8)  # warm: the bad grid must not slip through C
    with pytest.raises((ValueError, TypeError), match=error):
        K.scale[grid](x, out, 8, 1.0, BLOCK=8)


# --- defect: no parameters, parameters named like options ---------------------------------------

def test_a_kernel_without_parameters_launches(driver, monkeypatch):
    for _ in range(2):
        assert K.no_params[(3,)]().name == "no_params"
    assert [(r.grid, r.values) for r in driver.launches] == [((3, 1, 1), [])] * 2
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    assert K.no_params[(2,)]() is None


def test_parameters_named_like_launch_options_are_arguments(driver, monkeypatch):
    out = FakeCupyArray(32, np.int32)
    handle = K.stages_value[(1,)](out, num_stages=5, num_warps=7, BLOCK=32)
    # They are the kernel's runtime arguments; the launch options keep their defaults.
    assert [p.name for p in handle.params] == ["out_ptr", "num_stages", "num_warps"]
    assert handle.options.num_stages == 3 and handle.options.num_warps == 4
    assert driver.launches[0].values[1:] == [5, 7]
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    host = np.zeros(32, np.int32)
    K.stages_value[(1,)](host, 2, 9, BLOCK=32)
    assert (host == 209).all()


def test_launch_options_are_keywords_that_name_no_parameter(driver):
    x, out = FakeCupyArray(64), FakeCupyArray(64)
    handle = K.scale[(1,)](x, out, 64, 1.0, BLOCK=64, num_warps=2, num_stages=2)
    assert handle.options.num_warps == 2 and driver.launches[0].block == 64
    with pytest.raises(TypeError, match="unexpected keyword argument.*num_ctaz"):
        K.scale[(1,)](x, out, 64, 1.0, BLOCK=64, num_ctaz=1)
    with pytest.raises(TypeError, match="missing"):
        K.scale[(1,)](x, out, 64, BLOCK=64)


def test_enable_fp_fusion_is_a_launch_option_with_its_own_kernel(driver):
    x, y, z, out = (FakeCupyArray(64) for _ in range(4))
    fused = K.multiply_add[(1,)](x, y, z, out, 64, BLOCK=64)
    separate = K.multiply_add[(1,)](x, y, z, out, 64, BLOCK=64, enable_fp_fusion=False)
    assert fused.options.enable_fp_fusion and not separate.options.enable_fp_fusion
    # Fused: one fma.rn per element; separate: a product and a sum each rounded to nearest
    # (.rn, which ptxas may not contract either).
    assert "fma.rn.f32" in fused.asm["ptx"] and "mul.rn.f32" not in fused.asm["ptx"]
    assert "fma.rn.f32" not in separate.asm["ptx"] and "mul.rn.f32" in separate.asm["ptx"]
    assert K.multiply_add[(1,)](x, y, z, out, 64, BLOCK=64) is fused  # warm, the default
    assert K.multiply_add[(1,)](x, y, z, out, 64, BLOCK=64, enable_fp_fusion=False) is separate
    assert len(driver.launches) == 4


def test_the_fp_fusion_default_comes_from_the_environment(driver, monkeypatch):
    """TILEC_DEFAULT_FP_FUSION (or Triton's TRITON_DEFAULT_FP_FUSION where it is unset) sets
    enable_fp_fusion for launches and tilec.compile that do not give it; a given one wins."""
    x, y, z, out = (FakeCupyArray(64) for _ in range(4))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "0")
    separate = K.multiply_add[(1,)](x, y, z, out, 64, BLOCK=32)
    assert not separate.options.enable_fp_fusion and "fma.rn.f32" not in separate.asm["ptx"]
    fused = K.multiply_add[(1,)](x, y, z, out, 64, BLOCK=16, enable_fp_fusion=True)
    assert fused.options.enable_fp_fusion and "fma.rn.f32" in fused.asm["ptx"]
    monkeypatch.setenv("TILEC_DEFAULT_FP_FUSION", "1")
    assert K.multiply_add[(1,)](x, y, z, out, 64, BLOCK=8).options.enable_fp_fusion
    monkeypatch.setenv("TILEC_DEFAULT_FP_FUSION", "false")
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "out_ptr": "*fp32",
                 "n": "i32"}
    kernel = tilec.compile(K.multiply_add, signature=signature, constexprs={"BLOCK": 64},
                           stop_after="ptx")
    assert not kernel.options.enable_fp_fusion and "fma.rn.f32" not in kernel.asm["ptx"]


def test_tritons_other_launch_options_are_accepted_or_refused_clearly(driver):
    """num_ctas=1, sanitize_overflow and launch_cooperative_grid=False are what every launch
    does; debug=True compiles the kernel's debug build; maxnreg caps its registers. A cluster
    size no GPU launches (num_ctas=3) is an error saying so, before anything launches; a
    cooperative grid is a cooperative launch (the same compiled kernel), on the Python path
    every time."""
    x, out = FakeCupyArray(64), FakeCupyArray(64)
    plain = K.scale[(1,)](x, out, 64, 1.0, BLOCK=64)
    same = K.scale[(1,)](x, out, 64, 1.0, BLOCK=64, num_ctas=1, sanitize_overflow=False,
                         launch_cooperative_grid=False)
    assert same is plain
    debug = K.scale[(1,)](x, out, 64, 1.0, BLOCK=64, debug=True)
    assert debug.options.debug and not plain.options.debug
    capped = K.scale[(1,)](x, out, 64, 1.0, BLOCK=64, maxnreg=32)
    assert capped.options.maxnreg == 32 and ".maxnreg 32" in capped.asm["ptx"]
    assert capped.metadata["maxnreg"] == 32 and capped.n_regs <= 32
    assert len(driver.launches) == 4
    with pytest.raises(ValueError, match="num_ctas must be 1, 2, 4 or 8.*got 3"):
        K.scale[(1,)](x, out, 64, 1.0, BLOCK=64, num_ctas=3)
    with pytest.raises(ValueError, match="maxnreg must be an integer from 16 to 255"):
        K.scale[(1,)](x, out, 64, 1.0, BLOCK=64, maxnreg=8)
    assert len(driver.launches) == 4
    for _ in range(3):  # never remembered for the warm path: each one cooperative
        together = K.scale[(1,)](x, out, 64, 1.0, BLOCK=64, launch_cooperative_grid=True)
        assert together is plain
    assert [r.path for r in driver.launches[4:]] == ["cooperative"] * 3


# --- the C path agrees with the Python path -----------------------------------------------------

INTS = [0, 1, 15, 16, 17, -16, -17, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32, 2**63 - 1,
        2**63, 2**64 - 16, 2**64 - 1, True, False]
FLOATS = [0.0, 1.0, -2.5, 1e30]


def probe_arguments():
    out = FakeCupyArray(16)
    rng = random.Random(1)
    combos = []
    for a, b in itertools.product(INTS, repeat=2):
        c = rng.choice(INTS)
        combos.append((out, a, b, c, rng.choice([True, False]), rng.choice(FLOATS)))
    return combos


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_the_warm_key_separates_what_the_compile_key_separates(driver):
    """Two launches with one warm key (C) have one compile key (Python): the warm path never
    launches a kernel compiled for other arguments."""
    K.probe[(1,)](*probe_arguments()[0], BLOCK=16)
    dispatcher = K.probe.launches["native"]
    keys = {}
    aligned, unaligned = FakeCupyArray(16), FakeCupyArray(16, offset=4)
    for args in probe_arguments() + [(aligned, 1, 2, 3, True, 1.0),
                                     (unaligned, 1, 2, 3, True, 1.0),
                                     (FakeTorchTensor(16), 1, 2, 3, True, 1.0)]:
        try:
            bound, _ = K.probe.bind_launch(args, {"BLOCK": 16})
            spec = runtime.specialization(K.probe, bound)
        except OverflowError:
            assert dispatcher.warm_key(args, {"BLOCK": 16}) is None
            continue
        warm = dispatcher.warm_key(args, {"BLOCK": 16})
        assert warm is not None
        assert keys.setdefault(warm, spec) == spec, args


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_the_c_path_packs_what_the_python_path_packs(driver, monkeypatch):
    combos = [args for args in probe_arguments()
              if all(-2**63 <= v < 2**64 for v in args[1:4])]
    for args in combos:
        launch.run(K.probe, (1,), args, {"BLOCK": 16})  # the Python path
        K.probe[(1,)](*args, BLOCK=16)  # the C path once the key is warm
        K.probe[(1,)](*args, BLOCK=16)
        python, _, warm = driver.launches[-3:]
        assert python.path == "python" and warm.path == "native"
        assert warm.values == python.values and warm.grid == python.grid, args


def test_numpy_scalars_and_other_kinds_take_the_python_path(driver):
    x, out = FakeCupyArray(64), FakeCupyArray(64)
    for _ in range(3):
        K.scale[(1,)](x, out, np.int32(64), np.float32(2.0), BLOCK=64)
    assert [r.path for r in driver.launches] == ["python"] * 3
    assert all(r.values == expected_values(x, out, 64, 2.0) for r in driver.launches)


def test_interpreting_is_decided_at_every_launch(driver, monkeypatch):
    x, out = FakeCupyArray(64), FakeCupyArray(64)
    K.scale[(1,)](x, out, 64, 2.0, BLOCK=64)
    K.scale[(1,)](x, out, 64, 2.0, BLOCK=64)
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    host_x, host_out = np.ones(64, np.float32), np.zeros(64, np.float32)
    assert K.scale[(1,)](host_x, host_out, 64, 2.0, BLOCK=64) is None
    assert (host_out == 2).all() and len(driver.launches) == 2


def test_threads_launch_at_once_without_mixing_arguments(driver):
    """Four threads launch one kernel 250 times each, each with its own n: every launch the
    driver sees carries whole, consistent arguments (C: packed on the caller's stack; Python:
    the launcher's buffer is packed and passed under its lock)."""
    x, out = FakeCupyArray(4096), FakeCupyArray(4096)
    K.scale[(1,)](x, out, 1, 1.0, BLOCK=64)  # compiled before the threads start
    driver.launches.clear()
    def work(t):
        for i in range(250):
            n = 64 * (t * 1000 + i) + 3  # unique, never 16-divisible: one compiled kernel
            K.scale[(1,)](x, out, n, float(t), BLOCK=64)

    assert run_in_threads(work, 4) == []
    seen = sorted((r.values[2], r.values[3]) for r in driver.launches)
    assert seen == sorted((64 * (t * 1000 + i) + 3, float(t)) for t in range(4)
                          for i in range(250))


def test_a_refused_launch_is_a_launch_error(driver):
    x, out = FakeCupyArray(64), FakeCupyArray(64)
    K.scale[(1,)](x, out, 64, 1.0, BLOCK=64)
    driver.fail_with = "CUDA_ERROR_INVALID_VALUE"
    with pytest.raises(LaunchError):
        K.scale[(1,)](x, out, 64, 1.0, BLOCK=64)  # warm: the C path
    K.scale.reset_launches()
    with pytest.raises(LaunchError, match="scale"):
        K.scale[(1,)](x, out, 64, 1.0, BLOCK=64)  # the Python path


def test_without_the_extension_every_launch_takes_the_python_path(driver, monkeypatch):
    monkeypatch.setattr(launch, "native_enabled", lambda: False)
    monkeypatch.setattr(runtime, "native", None)
    x, out = FakeCupyArray(64), FakeCupyArray(64)
    for _ in range(3):
        K.scale[[1, 2]](x, out, 64, 1.5, BLOCK=64)
    assert [(r.path, r.grid) for r in driver.launches] == [("python", (1, 2, 1))] * 3
    assert all(r.values == expected_values(x, out, 64, 1.5) for r in driver.launches)


def test_host_arrays_are_refused_with_advice(driver):
    with pytest.raises(TypeError, match="host memory.*TILEC_INTERPRET=1"):
        K.scale[(1,)](np.zeros(8, np.float32), FakeCupyArray(8), 8, 1.0, BLOCK=8)


# --- what the C path reads fast, read right ----------------------------------------------------

STREAM_FN = ctypes.CFUNCTYPE(ctypes.c_ssize_t, ctypes.c_int)


def capsule(function, name: bytes):
    """A PyCapsule holding a C function pointer under `name`, as Cython exports one."""
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                   ctypes.c_void_p]
    return new(ctypes.cast(function, ctypes.c_void_p), name, None)


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
@pytest.mark.parametrize("signature, via_capsule", [(b"intptr_t (int)", True),
                                                    (b"intptr_t (void)", False)])
def test_cupy_streams_are_read_through_cupys_c_function_of_the_right_signature(
        driver, signature, via_capsule):
    asked = []

    @STREAM_FN
    def stream_of(device):
        asked.append(device)
        return 0x7000 + device

    keep = capsule(stream_of, signature)
    functions = driver.native_functions()
    runtime.native.configure(functions["cuLaunchKernel"], functions["cuCtxGetCurrent"],
                             functions["cuGetErrorName"], driver.cupy.cuda.get_current_stream,
                             lambda device: TORCH_STREAM, LaunchError, keep)
    x, out = FakeCupyArray(64), FakeCupyArray(64)
    for _ in range(3):
        K.scale[(1,)](x, out, 64, 1.0, BLOCK=64)
    warm = [r.stream for r in driver.launches if r.path == "native"]
    device = driver.current_device()
    assert warm == ([0x7000 + device] * 2 if via_capsule else [CUPY_STREAM] * 2)
    assert asked == ([device] * 2 if via_capsule else [])


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_an_array_type_changed_after_launching_is_read_afresh(driver):
    """The C path reads `dtype` through the getset descriptor of the array's type while the
    type is unchanged; a class given another `dtype` later is read through it."""

    class GetsetArray(np.ndarray):  # dtype: NumPy's getset descriptor, as CuPy's
        @property
        def data(self):
            return types.SimpleNamespace(ptr=self.ctypes.data)

        @property
        def __cuda_array_interface__(self):
            return {"data": (self.ctypes.data, False), "shape": self.shape,
                    "typestr": self.dtype.str, "version": 3}

    x, out = (np.zeros(64, np.float32).view(GetsetArray) for _ in range(2))
    for _ in range(2):
        K.scale[(1,)](x, out, 64, 1.0, BLOCK=64)
    GetsetArray.dtype = property(lambda self: np.dtype(np.float16))
    for _ in range(2):
        K.scale[(1,)](x, out, 64, 1.0, BLOCK=64)
    assert [r.path for r in driver.launches] == ["python", "native"] * 2
    assert len(driver.kernels) == 2  # the float16 kernel was compiled and loaded


def test_warmup_compiles_without_launching_and_returns_the_kernel():
    """kernel.warmup(*args, grid=..., **options), as in Triton: the CompiledKernel a launch with
    these arguments runs, with its registers, spills and metadata; the next launch reuses it."""
    x, out = np.zeros(64, np.float32), np.zeros(64, np.float32)
    compiled = K.scale.warmup(x, out, 64, 1.0, BLOCK=64, num_warps=2, grid=(1,))
    assert compiled.metadata.num_warps == 2 and compiled.metadata.shared >= 0
    assert compiled.n_spills == 0 and compiled.n_regs > 0
    assert "cubin" in compiled.asm and compiled.loader is not None
    assert any(k is compiled for k in K.scale.cache.values())


def test_init_handles_needs_a_kernel_that_can_be_loaded():
    compiled = tilec.compile(K.scale, signature={"x_ptr": "*fp32", "out_ptr": "*fp32",
                                                 "n": "i32", "factor": "fp32"},
                             constexprs={"BLOCK": 64})
    with pytest.raises(RuntimeError, match="only a kernel from kernel.warmup"):
        compiled._init_handles()


def test_jit_keeps_tritons_launch_metadata_hook():
    def hook(grid, kernel, args):
        return {"name": "k"}

    @tilec.jit(launch_metadata=hook)
    def k(x_ptr):
        tl.store(x_ptr, 1.0)
    assert k.launch_metadata is hook


def test_a_torch_tensor_in_pageable_host_memory_is_refused_before_the_launch(driver):
    """Warm or cold, on the C path or the Python one: a ValueError, and nothing launched; a
    pinned one is mapped into the GPU's address space and launches."""
    x, out = FakeTorchTensor(256), FakeTorchTensor(256)
    K.scale[(1,)](x, out, 256, 2.0, BLOCK=256)
    host = FakeTorchTensor(256)
    host.is_cuda, host.device, host.is_pinned = False, "cpu", lambda: False
    for _ in range(2):
        with pytest.raises(ValueError, match="torch tensor on cpu"):
            K.scale[(1,)](host, out, 256, 2.0, BLOCK=256)
    assert len(driver.launches) == 1
    host.is_pinned = lambda: True
    K.scale[(1,)](host, out, 256, 2.0, BLOCK=256)
    assert len(driver.launches) == 2


# --- tilec.reinterpret: an array read as another dtype of the same size -------------------------

def test_a_reinterpreted_array_is_a_pointer_of_the_new_dtype(driver):
    x, out = FakeCupyArray(256, np.int32), FakeTorchTensor(256, "int32")
    xf, outf = tilec.reinterpret(x, tl.float32), tilec.reinterpret(out, tl.float32)
    assert runtime.specialize_argument(xf)[0] == "*fp32"
    assert runtime.specialize_argument(x)[0] == "*i32"
    for _ in range(3):  # the first launch, then the warm ones (the C path where it is built)
        K.scale[(1,)](xf, outf, 256, 2.0, BLOCK=256)
    assert all(r.values == expected_values(x, out, 256, 2.0) for r in driver.launches)
    as_float = K.scale[(1,)](xf, outf, 256, 2.0, BLOCK=256)
    as_int = K.scale[(1,)](x, out, 256, 2.0, BLOCK=256)  # the int32 arrays: a kernel of their own
    assert as_float is not as_int
    assert "cvt.rn.f32.s32" in as_int.asm["ptx"] and "cvt.rn.f32.s32" not in as_float.asm["ptx"]


def test_reinterpreting_the_interpreter_reads_the_same_bytes(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    bits = np.array([1.0, -2.5, 0.5, 65504.0], np.float16).view(np.int16)
    out = np.zeros(4, np.int16)
    K.scale[(1,)](tilec.reinterpret(bits, tl.float16), tilec.reinterpret(out, tl.float16), 4,
                  0.5, BLOCK=4)
    np.testing.assert_array_equal(out.view(np.float16), [0.5, -1.25, 0.25, 32752.0])


def test_reinterpret_checks_sizes_and_gives_the_array_back_for_its_own_dtype():
    x = np.zeros((3, 4), np.int16)
    wrapped = tilec.reinterpret(x, tl.bfloat16)
    assert isinstance(wrapped, tilec.TensorWrapper) and wrapped.base is x
    assert wrapped.dtype == tl.bfloat16 and wrapped.shape == (3, 4) and wrapped.stride() == (4, 1)
    assert wrapped.element_size() == 2 and wrapped.numel() == 12 and not wrapped.is_cuda
    assert tilec.reinterpret(wrapped, tl.int16) is x
    assert tilec.reinterpret(wrapped, tl.float16).base is x
    with pytest.raises(TypeError, match="2-byte elements .* cannot be read as float32"):
        tilec.reinterpret(x, tl.float32)
    with pytest.raises(TypeError, match="expected a scalar tl dtype"):
        tilec.reinterpret(x, np.float16)
    with pytest.raises(TypeError, match="expected an array or tensor"):
        tilec.reinterpret([1, 2], tl.int32)
    with pytest.raises(TypeError, match="in host memory"):
        runtime.check_device_array("k", wrapped)


# --- tuples as arguments: each element an argument of its own ---------------------------------

def tuple_sum_reference(arrays, counts):
    return sum(arrays) + 2 * counts[0] + counts[1] + (counts[0] > 2)


def test_tuple_arguments_pass_their_elements_in_order(driver):
    x, y, out = FakeCupyArray(64), FakeCupyArray(64), FakeCupyArray(64)
    assert runtime.specialize_argument((x, (5, 1), None)) == (
        "tuple", (("*fp32", True), ("tuple", (("i32", False), ("constexpr", 1))),
                  ("constexpr", None)))
    for counts in [(3, 7), (3, 1), (3, 7)]:
        h = K.tuple_sum[(1,)]((x, y), out, counts, BLOCK=64)
        assert driver.launches[-1].values == [runtime.data_pointer(x), runtime.data_pointer(y),
                                              runtime.data_pointer(out), 3] + (
            [7] if counts[1] != 1 else [])
        params = [p.name for p in h.params]
        assert params == ["ptrs.0", "ptrs.1", "out", "counts.0"] + (
            ["counts.1"] if counts[1] != 1 else [])


def test_tuple_arguments_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    arrays = [np.arange(16, dtype=np.float32), np.full(16, 0.5, np.float32),
              np.arange(16, dtype=np.float32)[::-1].copy()]
    for counts in [(3, 7), (1, 2), (0, 1)]:
        out = np.zeros(16, np.float32)
        K.tuple_sum[(1,)](tuple(arrays), out, counts, BLOCK=16)
        np.testing.assert_array_equal(out, tuple_sum_reference(arrays, counts))


def test_tuple_signatures_compile_ahead_of_time_but_are_not_saved(tmp_path):
    kernel = tilec.compile(K.tuple_sum, signature={"ptrs": ("*fp32:16", "*fp32"), "out": "*fp32",
                                                   "counts": ("i32", "i32")},
                           constexprs={"BLOCK": 32}, target="cuda:90")
    assert [p.name for p in kernel.params] == ["ptrs.0", "ptrs.1", "out", "counts.0",
                                               "counts.1"]
    assert kernel.params[0].divisible_by_16 and not kernel.params[1].divisible_by_16
    from tilec import aot
    with pytest.raises(ValueError, match="takes a tuple argument"):
        aot.save(K.tuple_sum, kernel, tmp_path, ["cubin"])
    with pytest.raises(TypeError, match="expected a type such as"):
        tilec.compile(K.tuple_sum, signature={"ptrs": ["*fp32"], "out": "*fp32",
                                              "counts": ("i32", "i32")},
                      constexprs={"BLOCK": 32}, target="cuda:90")


def descriptor_variants():
    """Host descriptors whose compile keys differ: sizes and strides (1 folds), alignment of
    the base and of the strides, block shape, padding, torch or CuPy base."""
    from tilec.tools.tensor_descriptor import TensorDescriptor
    a, b = FakeCupyArray(64 * 64), FakeCupyArray(64 * 64)
    odd = FakeCupyArray(64 * 64, offset=4)
    t = FakeTorchTensor(64 * 64)
    return [
        (TensorDescriptor(a, [64, 64], [64, 1], [16, 16]),
         TensorDescriptor(b, [64, 64], [64, 1], [16, 16])),
        (TensorDescriptor(a, [40, 24], [24, 1], [16, 16]),
         TensorDescriptor(b, [1, 64], [64, 1], [16, 16])),
        (TensorDescriptor(odd, [64, 64], [64, 1], [16, 16]),
         TensorDescriptor(b, [64, 64], [64, 1], [16, 16], padding="nan")),
        (TensorDescriptor(a, [64, 64], [64, 1], [8, 32]),
         TensorDescriptor(b, [64, 64], [64, 1], [8, 32])),
        (TensorDescriptor(t, [64, 64], [64, 1], [16, 16]),
         TensorDescriptor(b, [64, 64], [64, 1], [16, 16])),
    ]


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_descriptor_arguments_take_the_c_path_with_what_the_python_path_packs(driver):
    # A descriptor took the Python path on every launch (11.6x a plain launch on the H200).
    for src, dst in descriptor_variants():
        block = src.block_shape[0]
        launch.run(K.desc_copy, (1,), (src, dst), {"BLOCK": block})  # the Python path
        K.desc_copy[(1,)](src, dst, BLOCK=block)  # the C path once the key is warm
        kernel = K.desc_copy[(1,)](src, dst, BLOCK=block)
        python, _, warm = driver.launches[-3:]
        assert python.path == "python" and warm.path == "native"
        assert warm.values == python.values and warm.stream == python.stream
        parts = [v for d in (src, dst) for v in d.tilec_descriptor_parts()[:-2]]
        maps = expected_maps(kernel, python.values)  # where the compiler gave TMA maps
        assert [v for i, v in enumerate(python.values) if i not in maps] == [
            runtime.data_pointer(v) if not isinstance(v, int) else v
            for v in parts if not (isinstance(v, int) and v == 1)]
        assert {i: python.values[i] for i in maps} == maps


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_the_warm_key_of_descriptors_separates_what_the_compile_key_separates(driver):
    variants = descriptor_variants()
    K.desc_copy[(1,)](*variants[0], BLOCK=16)
    dispatcher = K.desc_copy.launches["native"]
    keys = {}
    for args in variants:
        bound, _ = K.desc_copy.bind_launch(args, {"BLOCK": 16})
        spec = runtime.specialization(K.desc_copy, bound)
        warm = dispatcher.warm_key(args, {"BLOCK": 16})
        assert warm is not None
        assert keys.setdefault(warm, spec) == spec, args
    assert len(keys) == len(variants)


# --- global scratch: the TMA maps a kernel makes ----------------------------------------------

def test_kernels_making_maps_get_scratch_for_the_whole_grid_at_every_launch(driver):
    """A kernel that makes its descriptors' TMA maps (sm_90) writes 256 bytes a map and
    program into global scratch: each launch, warm ones on the C path too, takes that much for
    its grid from the pool of the stream it launches on and passes it last."""
    src, dst = FakeCupyArray(64 * 64, np.float16), FakeCupyArray(64 * 64, np.float16)
    kernel = K.made_desc_copy[(3, 2)](src, dst, 64, 64, BLOCK=16)
    assert kernel.metadata["global_scratch"] == 2 * 256
    K.made_desc_copy[(3, 2)](src, dst, 64, 64, BLOCK=16)
    K.made_desc_copy[(5,)](src, dst, 64, 64, BLOCK=16)
    assert [launch.path for launch in driver.launches] == ["python"] + [WARM] * 2
    assert [s[:3] for s in driver.scratches] == [(2 * 256 * 6, False, CUPY_STREAM)] * 2 + [
        (2 * 256 * 5, False, CUPY_STREAM)]
    for launch, scratch in zip(driver.launches, driver.scratches):
        assert launch.values == [runtime.data_pointer(src), runtime.data_pointer(dst), 64, 64,
                                 scratch[3]]
    t_src, t_dst = FakeTorchTensor(64 * 64, "float16"), FakeTorchTensor(64 * 64, "float16")
    for _ in range(2):
        K.made_desc_copy[(1,)](t_src, t_dst, 64, 64, BLOCK=16)
        assert driver.scratches[-1][:3] == (2 * 256, True, TORCH_STREAM)
        assert driver.launches[-1].values[-1] == driver.scratches[-1][3]
    assert driver.launches[-1].path == WARM


def test_a_program_of_num_ctas_ctas_launches_as_many_times_the_ctas_along_x(driver):
    """num_ctas=2 compiles a kernel whose programs are clusters of 2 CTAs (.reqnctapercluster
    2, 1, 1: an ordinary launch groups the CTAs), so a grid of (3, 2) programs is (6, 2) CTAs,
    on the first launch (Python path) and the warm ones (C path) alike; a grid too large once
    doubled is refused on both paths before anything launches."""
    x, out = FakeCupyArray(64), FakeCupyArray(64)
    kernel = K.scale[(3, 2)](x, out, 64, 1.0, BLOCK=8, num_ctas=2)
    assert kernel.options.num_ctas == 2 and kernel.metadata["num_ctas"] == 2
    assert ".reqnctapercluster 2, 1, 1" in kernel.asm["ptx"]
    assert K.scale[(3, 2)](x, out, 64, 1.0, BLOCK=8, num_ctas=2) is kernel
    assert K.scale[(3, 2)](x, out, 64, 1.0, BLOCK=8) is not kernel  # num_ctas=1: another
    assert [(launch.path, launch.grid) for launch in driver.launches] == [
        ("python", (6, 2, 1)), (WARM, (6, 2, 1)), ("python", (3, 2, 1))]
    for _ in range(2):
        with pytest.raises(ValueError, match=r"2147483647 programs along x.*clusters? of 2"):
            K.scale[(2**31 - 1,)](x, out, 64, 1.0, BLOCK=8, num_ctas=2)
    assert len(driver.launches) == 3


def test_scratch_is_for_every_cta_of_a_cluster_launch(driver):
    """Maps made in the kernel take slots per CTA (the kernel indexes the scratch by its CTA):
    a launch of 3 programs of 2 CTAs takes scratch for 6, on both paths."""
    src, dst = FakeCupyArray(64 * 64, np.float16), FakeCupyArray(64 * 64, np.float16)
    for _ in range(2):
        K.made_desc_copy[(3,)](src, dst, 64, 64, BLOCK=16, num_ctas=2)
    assert [launch.path for launch in driver.launches] == ["python", WARM]
    assert [s[0] for s in driver.scratches] == [2 * 256 * 6] * 2
    assert [launch.grid for launch in driver.launches] == [(6, 1, 1)] * 2


def test_the_maps_of_rows_split_among_ctas_are_encoded_with_a_ctas_rows(driver):
    """desc_dot at 128 rows with num_ctas=2: tile-split-ctas gives each CTA 64 rows, so the
    launcher encodes A's and C's maps with 64-row boxes (B's, whole, keeps its 64), on the
    Python path and the C path alike, and launches 2 CTAs a program."""
    from tilec.tools.tensor_descriptor import TensorDescriptor
    a, b, c = (FakeTorchTensor(256 * 64, "float16") for _ in range(3))
    descs = (TensorDescriptor(a, [256, 64], [64, 1], [128, 64]),
             TensorDescriptor(b, [64, 64], [64, 1], [64, 64]),
             TensorDescriptor(c, [256, 64], [64, 1], [128, 64]))
    boxes = {}
    for ctas in (1, 2):
        before = len(driver.tensor_maps)
        for _ in range(2):
            kernel = K.desc_dot[(2,)](*descs, BM=128, num_ctas=ctas)
        assert ("tile.split_ctas" in kernel.asm["tilegpu"]) == (ctas == 2)
        boxes[ctas] = sorted({m[4] for m in driver.tensor_maps[before:]})
    assert boxes == {1: [(64, 64), (128, 64)], 2: [(64, 64)]}
    assert [(launch.path, launch.grid) for launch in driver.launches] == [
        ("python", (2, 1, 1)), (WARM, (2, 1, 1)), ("python", (4, 1, 1)), (WARM, (4, 1, 1))]


@pytest.mark.parametrize("launches", [1, 3], ids=["first", "warm"])
def test_the_allocator_set_gives_the_scratch(driver, launches):
    """The allocator set with tilec.set_allocator gives each launch its scratch, on the
    Python path and the C path alike; what it gives is held until the kernel is queued (the
    driver reads the parameters while the allocation is alive), and a misaligned one is an
    error before anything is launched."""
    calls, freed = [], []

    def allocator(size, alignment, stream):
        memory = FakeCupyArray(size, np.uint8)
        calls.append((size, alignment, stream, runtime.data_pointer(memory)))
        # when it goes, how many launches the driver had seen
        weakref.finalize(memory, lambda: freed.append(len(driver.launches)))
        return memory
    src, dst = FakeTorchTensor(64 * 64, "float16"), FakeTorchTensor(64 * 64, "float16")
    tilec.set_allocator(allocator)
    try:
        for n in range(launches):
            K.made_desc_copy[(4,)](src, dst, 64, 64, BLOCK=16)
            assert calls[n][:3] == (4 * 2 * 256, 128, TORCH_STREAM) and driver.scratches == []
            assert driver.launches[-1].values[-1] == calls[n][3]
            assert freed == list(range(1, n + 2))  # once its kernel was queued, not before
        assert driver.launches[-1].path == ("python" if launches == 1 else WARM)
        tilec.set_allocator(lambda size, alignment, stream: FakeCupyArray(size, np.uint8, 8))
        with pytest.raises(ValueError, match="must be 128-byte aligned device memory"):
            K.made_desc_copy[(4,)](src, dst, 64, 64, BLOCK=16)
        assert len(driver.launches) == launches
    finally:
        tilec.set_allocator(None)


# --- TMA map parameters: made from a descriptor's parts, on the C path too -------------------

def expected_maps(kernel, values: list) -> dict[int, bytes]:
    """{parameter index: the fake driver's map} of each TMA map of `kernel`, made from the
    parameter `values` a launch passed."""
    def resolve(parts):
        return [values[v] if kind == "p" else v for kind, v in parts]
    return {m["param"]: fake_map(m["element"], values[m["base"]], resolve(m["shape"]),
                                 resolve(m["strides"]), m["box"], m["swizzle"], m["padding"])
            for m in kernel.metadata.get("tensormaps", ())}


class _TensorMapType:
    def codegen_name(self) -> str:
        return "tensormap"


def with_map_params(kernel):
    """`kernel` with a TMA map parameter (`name.map`, after its parts) and metadata["tensormaps"]
    entry per rank-2 host descriptor, as the compiler gives them on sm_90: the compiler's own
    where it gave them, else made here (the tests below do not depend on when it does)."""
    if kernel.metadata.get("tensormaps"):
        return kernel
    params, maps = [], []
    for i, p in enumerate(kernel.params):
        params.append(p)
        head = p.name.split(".")[0]
        if i + 1 < len(kernel.params) and kernel.params[i + 1].name.split(".")[0] == head:
            continue
        index = {q.name: j for j, q in enumerate(params)}

        def part(n, head=head, index=index):
            name = f"{head}.{n}"
            return ["p", index[name]] if name in index else ["c", 1]
        block = kernel.constants["BLOCK"]
        maps.append({"name": head, "param": len(params),
                     "element": params[index[f"{head}.0"]].type.codegen_name()[1:],
                     "base": index[f"{head}.0"], "shape": [part(1), part(2)],
                     "strides": [part(3), part(4)], "box": [block, block], "swizzle": 64,
                     "padding": "zero"})
        params.append(KernelParam(f"{head}.map", _TensorMapType(), False))
    return dataclasses.replace(kernel, params=params,
                               metadata={**kernel.metadata, "tensormaps": maps})


@pytest.fixture
def map_driver(driver, monkeypatch):
    """The fake driver, with K.desc_add (three host descriptors) compiled with a TMA map
    parameter per descriptor (with_map_params)."""
    real = launch.compile_specialized

    def compile_with_maps(fn, *args, **kwargs):
        kernel = real(fn, *args, **kwargs)
        return with_map_params(kernel) if fn is K.desc_add else kernel
    monkeypatch.setattr(launch, "compile_specialized", compile_with_maps)
    K.desc_add.cache.clear()
    yield driver
    K.desc_add.cache.clear()


def descriptors(*arrays, shape=(64, 64), strides=(64, 1)):
    from tilec.tools.tensor_descriptor import TensorDescriptor
    return tuple(TensorDescriptor(a, list(shape), list(strides), [16, 16]) for a in arrays)


def native_launcher(fn, kernel):
    """The C launcher of `kernel` (None: its launches take the Python path)."""
    return fn.launches["launchers"][id(kernel)].native()


MAP_VARIANTS = [
    dict(shape=(64, 64), strides=(64, 1)),
    dict(shape=(40, 24), strides=(32, 1)),  # sizes and strides of another key
    dict(shape=(1, 64), strides=(64, 1)),   # a size of 1: folded, a constant of the map
]


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
@pytest.mark.parametrize("variant", MAP_VARIANTS)
@pytest.mark.parametrize("array", [FakeCupyArray, FakeTorchTensor])
def test_tensor_map_params_take_the_c_path_with_what_the_python_path_packs(
        map_driver, variant, array):
    args = descriptors(*(array(64 * 64) for _ in range(3)), **variant)
    launch.run(K.desc_add, (2,), args, {"BLOCK": 16})  # the Python path
    K.desc_add[(2,)](*args, BLOCK=16)  # the Python path, which lets the C path take the key
    K.desc_add[(2,)](*args, BLOCK=16)  # the C path: its maps made
    kernel = K.desc_add[(2,)](*args, BLOCK=16)  # and kept
    assert native_launcher(K.desc_add, kernel) is not None
    python, _, first, warm = map_driver.launches[-4:]
    assert (python.path, first.path, warm.path) == ("python", "native", "native")
    maps = expected_maps(kernel, python.values)
    assert sorted(maps) == [i for i, p in enumerate(kernel.params)
                            if p.type.codegen_name() == "tensormap"] and len(maps) == 3
    for record in (python, first, warm):
        assert record.values == python.values and record.stream == python.stream
        assert {i: record.values[i] for i in maps} == maps
        assert all(record.addresses[i] % 64 == 0 for i in maps)  # CUtensorMap's alignment


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_warm_launches_encode_a_map_only_when_its_tensor_changes(map_driver):
    arrays = [FakeCupyArray(64 * 64) for _ in range(4)]
    args = descriptors(*arrays[:3])
    K.desc_add[(1,)](*args, BLOCK=16)  # the Python path: three maps
    kernel = K.desc_add[(1,)](*args, BLOCK=16)  # the C launcher's first: three maps
    assert native_launcher(K.desc_add, kernel) is not None
    assert len(map_driver.tensor_maps) == 6
    for _ in range(20):
        K.desc_add[(1,)](*args, BLOCK=16)
    assert len(map_driver.tensor_maps) == 6  # the same tensors: the kept maps

    def launch_and_count(args):
        before = len(map_driver.tensor_maps)
        K.desc_add[(1,)](*args, BLOCK=16)
        record = map_driver.launches[-1]
        assert record.path == "native"
        maps = expected_maps(kernel, record.values)
        assert {i: record.values[i] for i in maps} == maps
        return map_driver.tensor_maps[before:]

    other_base = descriptors(arrays[0], arrays[3], arrays[2])
    made = launch_and_count(other_base)
    assert [call[1] for call in made] == [arrays[3].data.ptr]  # b's map only
    assert launch_and_count(other_base) == []
    smaller = descriptors(*arrays[:3][:2], shape=(48, 64)) + other_base[2:]
    made = launch_and_count(smaller)  # a's and b's sizes (48: the same key)
    assert [call[2] for call in made] == [(48, 64), (48, 64)]
    assert launch_and_count(smaller) == []
    assert len(launch_and_count(args)) == 2  # back: a's and b's maps again, out's kept


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_an_encoding_error_is_the_launchs_error_and_nothing_is_launched(map_driver):
    arrays = [FakeCupyArray(64 * 64) for _ in range(3)]
    args = descriptors(*arrays)
    for _ in range(2):
        kernel = K.desc_add[(1,)](*args, BLOCK=16)
    assert map_driver.launches[-1].path == "native"
    empty = descriptors(*arrays, shape=(0, 64))  # 0 rows: the same key, a map TMA refuses
    dispatcher = K.desc_add.launches["native"]
    assert dispatcher.warm_key(empty, {"BLOCK": 16}) == dispatcher.warm_key(args, {"BLOCK": 16})
    for _ in range(2):
        with pytest.raises(ValueError, match="no TMA descriptor.*1 to 2\\^32 elements"):
            K.desc_add[(1,)](*empty, BLOCK=16)
    assert len(map_driver.launches) == 2
    K.desc_add[(1,)](*args, BLOCK=16)  # the kept maps serve again
    assert map_driver.launches[-1].path == "native" and len(map_driver.launches) == 3
    maps = expected_maps(kernel, map_driver.launches[-1].values)
    assert {i: map_driver.launches[-1].values[i] for i in maps} == maps


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
@pytest.mark.parametrize("made, error, message", [
    (b"\0" * 127, ValueError, "encoded as 127 bytes, not 128"),
    (bytearray(128), TypeError, "encoded as bytearray, not 128 bytes"),
    (None, TypeError, "encoded as NoneType"),
])
def test_an_encoder_that_gives_no_map_is_a_clear_error(map_driver, monkeypatch, made, error,
                                                       message):
    arrays = [FakeCupyArray(64 * 64) for _ in range(4)]
    for _ in range(2):
        K.desc_add[(1,)](*descriptors(*arrays[:3]), BLOCK=16)
    assert map_driver.launches[-1].path == "native"
    monkeypatch.setattr(map_driver, "tensor_map", lambda *args: made)
    with pytest.raises(error, match=message):
        K.desc_add[(1,)](*descriptors(*arrays[1:]), BLOCK=16)  # new maps to make
    assert len(map_driver.launches) == 2


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_threads_launch_maps_of_their_own_tensors(map_driver):
    """Four threads launch with two sets of tensors in turn (each launch re-encodes, the
    encoder being Python code that may switch threads): every launch carries the maps of its
    own tensors."""
    sets = [descriptors(*(FakeCupyArray(64 * 64) for _ in range(3))) for _ in range(2)]
    for _ in range(2):
        kernel = K.desc_add[(1,)](*sets[0], BLOCK=16)
    map_driver.launches.clear()
    def work(t):
        for i in range(100):
            K.desc_add[(1,)](*sets[(t + i) % 2], BLOCK=16)

    assert run_in_threads(work, 4) == [] and len(map_driver.launches) == 400
    for record in map_driver.launches:
        assert record.path == "native"
        maps = expected_maps(kernel, record.values)
        assert {i: record.values[i] for i in maps} == maps


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_the_c_launcher_checks_its_maps():
    def launcher(slots, kept, maps):
        return runtime.native.Launcher(128, 0, slots, kept, lambda: None, None, maps)

    encode = bytes
    launcher([6, 2, 7], [0, 1], [(2, (0, 1), encode)])
    with pytest.raises(ValueError, match="parameter 1 is not a tensormap slot"):
        launcher([6, 2, 7], [0, 1], [(1, (0,), encode)])
    with pytest.raises(ValueError, match="one kept index per slot"):
        launcher([6, 2, 7], [0, 1, 2], [(2, (0,), encode)])
    with pytest.raises(ValueError, match="tensormap parameter 2 has no map"):
        launcher([6, 2, 7], [0, 1, 2], [])
    with pytest.raises(ValueError, match="each an integer or pointer parameter"):
        launcher([6, 4, 7], [0, 1], [(2, (0, 1), encode)])  # a float input
    with pytest.raises(ValueError, match="each an integer or pointer parameter"):
        launcher([6, 2, 7], [0, 1], [(2, (2,), encode)])  # the map itself
    with pytest.raises(TypeError, match="not callable"):
        launcher([6, 2, 7], [0, 1], [(2, (0,), None)])


@pytest.mark.skipif(not NATIVE, reason="the C extension was not built")
def test_the_c_launcher_checks_its_scratch_slot():
    """The global scratch is one pointer slot (kept index -2) of a launcher given the function
    that allocates it; it is no input of a map."""
    def launcher(slots, kept, maps=None, scratch=lambda *args: None):
        return runtime.native.Launcher(128, 0, slots, kept, lambda: None, None, maps, scratch)

    launcher([6, 2, 6], [0, 1, -2])
    for slots, kept in (([6, 2, 2], [0, 1, -2]), ([6, 6, 6], [0, -2, -2])):
        with pytest.raises(ValueError, match="the global scratch is one pointer slot"):
            launcher(slots, kept)
    with pytest.raises(ValueError, match="the global scratch is one pointer slot"):
        launcher([6, 2, 6], [0, 1, -2], scratch=None)
    with pytest.raises(ValueError, match="a scratch function but no scratch slot"):
        launcher([6, 2, 6], [0, 1, 2])
    with pytest.raises(TypeError, match="scratch is not callable"):
        launcher([6, 2, 6], [0, 1, -2], scratch=3)
    with pytest.raises(ValueError, match="each an integer or pointer parameter"):
        launcher([6, 6, 7], [0, -2], [(2, (1,), bytes)])


def test_variadic_kernel_parameters_are_a_clear_error():
    """Old-style `**META` kernels: a launch (compiled or interpreted) says what to write
    instead, not that an argument named META is missing."""
    import tilec
    import tilec.language as tl

    @tilec.jit
    def old_style(x, **META):
        tl.store(x + tl.arange(0, META["BLOCK"]), 1.0)

    for interpret in (True, False):
        old_style.interpret = interpret
        with pytest.raises(TypeError, match=r"cannot take `\*\*META`.*BLOCK: tl.constexpr"):
            old_style[(1,)](np.zeros(16, np.float32), BLOCK=16)
