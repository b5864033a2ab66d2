"""Host TMA tensor maps (tilec.tma): the driver's rules checked before encoding, and the
encoding itself (GPU machine: it needs the CUDA driver)."""
import pytest

from tilec import tma

ALIGNED = 0x7F0000000000


@pytest.mark.parametrize("args, why", [
    (("fp16", ALIGNED + 8, [64, 64], [64, 1], [64, 64]), "not 16-byte aligned"),
    (("fp16", ALIGNED, [64, 60], [60, 1], [64, 32]), "multiples of 16 bytes, got [120] bytes"),
    (("fp16", ALIGNED, [64, 64], [1, 64], [64, 64]), "innermost dimension must be contiguous"),
    (("fp16", ALIGNED, [64, 64], [64, 1], [64, 4]), "multiple of 16 bytes, got 8"),
    (("fp16", ALIGNED, [1024, 1024], [1024, 1], [512, 64]), "1 to 256 elements"),
    (("fp32", ALIGNED, [64, 64], [64, 1], [64, 64], 128), "(256 bytes) exceeds the 128-byte"),
    (("fp16", ALIGNED, [64, 64], [64, 1], [64, 64], 96), "swizzle span must be one of"),
    (("i32", ALIGNED, [64, 64], [64, 1], [64, 64], 0, "nan"), "NaN padding needs floating"),
    (("fp16", ALIGNED, [2] * 6, [32, 16, 8, 4, 2, 1], [2] * 6), "1 to 5 dimensions"),
    (("i1", ALIGNED, [64], [1], [64]), "TMA does not move i1 elements"),
    (("fp16", ALIGNED, [0, 64], [64, 1], [1, 64]), "1 to 2^32 elements"),
])
def test_rules_say_why_tma_cannot_take_a_tensor(args, why):
    assert why in tma.rules_broken(*args)


@pytest.mark.parametrize("args", [
    ("fp16", ALIGNED, [4096, 4096], [4096, 1], [128, 64], 128),   # 64 x 2 B = the 128-B span
    ("bf16", ALIGNED, [100, 72], [72, 1], [64, 64]),              # ragged rows and columns
    ("fp8e4nv", ALIGNED, [8, 256, 256], [65536, 256, 1], [1, 64, 128], 128),
    ("fp32", ALIGNED, [3, 5, 7, 9, 16], [5040, 1008, 144, 16, 1], [1, 2, 4, 8, 16], 64),
    ("i8", ALIGNED, [1 << 20], [1], [256]),
])
def test_tensors_tma_takes_break_no_rule(args):
    assert tma.rules_broken(*args) is None


def test_a_tensor_the_rules_refuse_is_never_handed_to_the_driver():
    class NoDriver:  # any call into it would fail the test
        def __getattr__(self, name):
            raise AssertionError(f"called {name}")
    with pytest.raises(ValueError, match="no TMA descriptor for this tensor: the base address"):
        tma.tensor_map(NoDriver(), "fp16", ALIGNED + 2, [64, 64], [64, 1], [64, 64])


@pytest.mark.gpu
def test_the_driver_encodes_maps_once_per_tensor_and_box():
    import ctypes

    import torch
    libcuda = ctypes.CDLL("libcuda.so.1")
    x = torch.empty(300, 72, dtype=torch.float16, device="cuda")
    first = tma.tensor_map(libcuda, "fp16", x.data_ptr(), x.shape, x.stride(), [64, 64], 128)
    assert isinstance(first, bytes) and len(first) == tma.MAP_BYTES and any(first)
    again = tma.tensor_map(libcuda, "fp16", x.data_ptr(), x.shape, x.stride(), [64, 64], 128)
    assert again is first  # cached: a warm launch encodes nothing
    other = tma.tensor_map(libcuda, "fp16", x.data_ptr(), x.shape, x.stride(), [32, 64], 128)
    assert other != first  # the box is part of the map
