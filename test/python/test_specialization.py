"""Launch-time specialisation, `tilec.compile` signatures, cache keys and the launch path.

Specialisation follows Triton: integers equal to 1 become constexpr 1 (unless the parameter is
in do_not_specialize), integers and pointer addresses divisible by 16 are flagged, integers
are i32 or i64 by magnitude, Python floats are fp32. No GPU is needed: a launch with NumPy arrays compiles, caches and then
refuses the host arrays.
"""
from __future__ import annotations

import importlib.util
import pathlib
import re
import sys

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.runtime import specialization, specialize_argument


def compile_tile(*args, **kwargs):
    """tilec.compile up to the `tile` stage: these tests are about the frontend."""
    return tilec.compile(*args, stop_after="tile", **kwargs)

HERE = pathlib.Path(__file__).parent


# --- kernels ----------------------------------------------------------------------------------

@tilec.jit
def fill(x_ptr, n, stride, value, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs * stride, value, mask=offs < n)


@tilec.jit(do_not_specialize=["stride"])
def fill_dns(x_ptr, n, stride, value, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs * stride, value, mask=offs < n)


@tilec.jit(do_not_specialize=[1])
def fill_dns_index(x_ptr, n, stride, value, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs * stride, value, mask=offs < n)


@tilec.jit
def scale(x_ptr, factor, BLOCK: tl.constexpr = 32):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * factor)


@tilec.jit
def copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


# --- helpers ----------------------------------------------------------------------------------

def aligned_f32(n: int = 64, misalign_elems: int = 0) -> np.ndarray:
    """A float32 view whose address is 16-byte aligned, moved by `misalign_elems` elements."""
    base = np.zeros(n + 8, dtype=np.float32)
    addr = base.__array_interface__["data"][0]
    skip = ((-addr) % 16) // 4
    view = base[skip + misalign_elems: skip + misalign_elems + n]
    assert (view.__array_interface__["data"][0] % 16 == 0) == (misalign_elems % 4 == 0)
    return view


def load_module(filename: str, name: str):
    """Import test/python/<filename> as a fresh module called `name`."""
    spec = importlib.util.spec_from_file_location(name, HERE / filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def signature_args(text: str) -> list[str]:
    """The arguments of the kernel's func.func, as printed (locations removed)."""
    header = next(line for line in text.splitlines() if "func.func" in line)
    header = re.sub(r' loc\("[^"]*":\d+:\d+\)', "", header)
    inner = header[header.index("(") + 1: header.rindex(")")]
    starts = [m.start() for m in re.finditer(r"%arg\d+: ", inner)] + [len(inner)]
    return [inner[a:b].strip().rstrip(",") for a, b in zip(starts, starts[1:])]


def bound(fn, **values):
    return fn.bind_launch((), values)[0]


# --- specialize_argument ------------------------------------------------------------------------

@pytest.mark.parametrize("value,expected", [
    (1, ("constexpr", 1)),
    (0, ("i32", True)),
    (16, ("i32", True)),
    (48, ("i32", True)),
    (17, ("i32", False)),
    (2, ("i32", False)),
    (-16, ("i32", True)),
    (-1, ("i32", False)),
    (2**31 - 1, ("i32", False)),
    (2**31 - 16, ("i32", True)),
    (2**31, ("i64", True)),
    (2**31 + 1, ("i64", False)),
    (-2**31, ("i32", True)),
    (-2**31 - 1, ("i64", False)),
    (2**40, ("i64", True)),
    (2**63 - 1, ("i64", False)),
    (-2**63, ("i64", True)),
    (2**63, ("u64", True)),
    (2**64 - 1, ("u64", False)),
])
def test_integers(value, expected):
    assert specialize_argument(value) == expected


@pytest.mark.parametrize("value,expected", [(1, ("i32", False)), (32, ("i32", False)),
                                            (2**40, ("i64", False))])
def test_integers_not_specialized(value, expected):
    assert specialize_argument(value, specialize=False) == expected


def test_bools_floats_and_constants():
    assert specialize_argument(True) == ("i1", False)
    assert specialize_argument(False) == ("i1", False)
    assert specialize_argument(1.0) == ("fp32", False)
    assert specialize_argument(16.0) == ("fp32", False)
    assert specialize_argument(None) == ("constexpr", None)
    assert specialize_argument("evict_last") == ("constexpr", "evict_last")
    assert specialize_argument(tl.float16) == ("constexpr", tl.float16)


@pytest.mark.parametrize("np_dtype,name", [
    (np.float32, "*fp32"), (np.float16, "*fp16"), (np.float64, "*fp64"), (np.int8, "*i8"),
    (np.int16, "*i16"), (np.int32, "*i32"), (np.int64, "*i64"), (np.uint8, "*u8"),
    (np.uint32, "*u32"), (np.bool_, "*i1"),
])
def test_array_element_types(np_dtype, name):
    array = np.zeros(64, dtype=np_dtype)
    assert specialize_argument(array)[0] == name


def test_unsupported_array_type_is_rejected():
    with pytest.raises(TypeError, match="complex64"):
        specialize_argument(np.zeros(4, dtype=np.complex64))


@pytest.mark.parametrize("value", [np.int32(5), np.float32(1.5), np.int64(1 << 40)],
                         ids=["int32", "float32", "int64"])
def test_numpy_scalars_are_not_pointers(value):
    try:
        spec = specialize_argument(value)
    except TypeError:
        return
    assert not spec[0].startswith("*"), spec


def test_unsupported_argument_is_rejected():
    with pytest.raises(TypeError, match="object"):
        specialize_argument(object())


@pytest.mark.parametrize("misalign,divisible", [(0, True), (1, False), (2, False), (3, False),
                                                (4, True), (8, True)])
def test_pointer_divisibility(misalign, divisible):
    array = aligned_f32(misalign_elems=misalign)
    assert specialize_argument(array) == ("*fp32", divisible)


def test_pointer_divisibility_off_when_not_specialized():
    assert specialize_argument(aligned_f32(), specialize=False) == ("*fp32", False)


# --- runtime.specialization ----------------------------------------------------------------------

def test_specialization_of_a_launch():
    x = aligned_f32()
    key = specialization(fill, bound(fill, x_ptr=x, n=1, stride=1, value=2.5, BLOCK=64))
    assert key == (("*fp32", True), ("constexpr", 1), ("constexpr", 1), ("fp32", False),
                   ("constexpr", 64))


def test_specialization_distinguishes_divisibility():
    x = aligned_f32()
    key = specialization(fill, bound(fill, x_ptr=x[1:], n=32, stride=3, value=0.0, BLOCK=64))
    assert key == (("*fp32", False), ("i32", True), ("i32", False), ("fp32", False),
                   ("constexpr", 64))


def test_constexpr_parameters_keep_their_value():
    x = aligned_f32()
    key = specialization(fill, bound(fill, x_ptr=x, n=5, stride=2, value=1.0, BLOCK=1))
    assert key[-1] == ("constexpr", 1)
    key = specialization(fill, bound(fill, x_ptr=x, n=5, stride=2, value=1.0, BLOCK=128))
    assert key[-1] == ("constexpr", 128)


def test_integer_one_becomes_constexpr_unless_do_not_specialize():
    x = aligned_f32()
    args = dict(x_ptr=x, n=1, stride=1, value=1.0, BLOCK=64)
    assert specialization(fill, bound(fill, **args))[2] == ("constexpr", 1)
    key = specialization(fill_dns, bound(fill_dns, **args))
    assert key[2] == ("i32", False)
    assert key[1] == ("constexpr", 1)  # n is still specialised


def test_do_not_specialize_disables_divisibility():
    x = aligned_f32()
    key = specialization(fill_dns, bound(fill_dns, x_ptr=x, n=32, stride=32, value=1.0, BLOCK=64))
    assert key[1] == ("i32", True)
    assert key[2] == ("i32", False)


def test_do_not_specialize_by_index():
    assert fill_dns_index.do_not_specialize == {"n"}
    x = aligned_f32()
    key = specialization(fill_dns_index, bound(fill_dns_index, x_ptr=x, n=1, stride=1, value=1.0,
                                              BLOCK=64))
    assert key[1] == ("i32", False)
    assert key[2] == ("constexpr", 1)


def test_do_not_specialize_rejects_unknown_names():
    def k(x_ptr):
        pass
    with pytest.raises(ValueError, match="nope"):
        tilec.jit(k, do_not_specialize=["nope"])


def test_large_integers_are_i64():
    x = aligned_f32()
    key = specialization(fill, bound(fill, x_ptr=x, n=2**33, stride=-(2**35) - 1, value=1.0,
                                    BLOCK=64))
    assert key[1] == ("i64", True)
    assert key[2] == ("i64", False)


def test_arg_names_and_constexprs():
    assert fill.arg_names == ["x_ptr", "n", "stride", "value", "BLOCK"]
    assert fill.constexpr_names == {"BLOCK"}


# --- tilec.compile signatures -----------------------------------------------------------------

def test_divisibility_is_recorded_on_ir_arguments():
    kernel = compile_tile(fill, signature={"x_ptr": "*fp32:16", "n": "i32:16", "stride": "i32",
                                            "value": "fp32"}, constexprs={"BLOCK": 64})
    args = signature_args(kernel.asm["tile"])
    assert len(args) == 4, args
    assert re.fullmatch(r"%arg0: !tile.ptr<f32, 1 : i32> \{tile.divisibility = 16 : i32\}",
                        args[0]), args
    assert re.fullmatch(r"%arg1: i32 \{tile.divisibility = 16 : i32\}", args[1]), args
    assert "divisibility" not in args[2] and "divisibility" not in args[3], args
    assert [p.divisible_by_16 for p in kernel.params] == [True, True, False, False]
    assert [p.name for p in kernel.params] == ["x_ptr", "n", "stride", "value"]


def test_signature_types():
    kernel = compile_tile(fill, signature={"x_ptr": "*fp16", "n": "i64", "stride": "u32",
                                            "value": "fp32"}, constexprs={"BLOCK": 64})
    args = signature_args(kernel.asm["tile"])
    assert args[0].startswith("%arg0: !tile.ptr<f16, 1 : i32>")
    assert args[1] == "%arg1: i64"
    assert args[2] == "%arg2: i32"
    assert args[3] == "%arg3: f32"


def test_bad_signature_entries():
    with pytest.raises(ValueError):
        compile_tile(fill, signature={"x_ptr": "*fp32:8", "n": "i32", "stride": "i32",
                                       "value": "fp32"}, constexprs={"BLOCK": 64})
    with pytest.raises(ValueError):
        compile_tile(fill, signature={"x_ptr": "*float", "n": "i32", "stride": "i32",
                                       "value": "fp32"}, constexprs={"BLOCK": 64})
    with pytest.raises(TypeError, match="stride"):
        compile_tile(fill, signature={"x_ptr": "*fp32", "n": "i32", "value": "fp32"},
                      constexprs={"BLOCK": 64})
    with pytest.raises(TypeError, match="bogus"):
        compile_tile(fill, signature={"bogus": "i32"}, constexprs={"BLOCK": 64})


def test_constexpr_fixed_argument_disappears_and_folds():
    runtime = compile_tile(fill, signature={"x_ptr": "*fp32", "n": "i32", "stride": "i32",
                                             "value": "fp32"}, constexprs={"BLOCK": 64})
    fixed = compile_tile(fill, signature={"x_ptr": "*fp32", "n": "i32", "value": "fp32"},
                          constexprs={"BLOCK": 64, "stride": 1})
    assert len(signature_args(runtime.asm["tile"])) == 4
    assert len(signature_args(fixed.asm["tile"])) == 3
    assert [p.name for p in fixed.params] == ["x_ptr", "n", "value"]
    assert fixed.constants == {"stride": 1, "BLOCK": 64}
    # offs * stride: a multiply by a runtime value, gone when stride is 1.
    assert re.search(r"arith\.muli", runtime.asm["tile"])
    assert not re.search(r"arith\.muli", fixed.asm["tile"]), fixed.asm["tile"]
    # The value argument is now %arg2 and the mask compares against %arg1 (n).
    assert re.search(r'"tile\.splat"\(%arg2\) : \(f32\)', fixed.asm["tile"]), fixed.asm["tile"]


def test_constexpr_fixed_argument_other_value_becomes_a_constant():
    fixed = compile_tile(fill, signature={"x_ptr": "*fp32", "n": "i32", "value": "fp32"},
                          constexprs={"BLOCK": 64, "stride": 4})
    text = fixed.asm["tile"]
    assert re.search(r"arith\.constant dense<4> : tensor<64xi32>", text), text
    assert re.search(r"arith\.muli %\w+, %\w+ : tensor<64xi32>", text), text


def test_missing_type_for_an_ordinary_argument_names_it():
    with pytest.raises(TypeError, match="'n'"):
        compile_tile(fill, signature={"x_ptr": "*fp32", "stride": "i32", "value": "fp32"},
                      constexprs={"BLOCK": 64})


# --- cache keys ---------------------------------------------------------------------------------

def test_cache_key_is_stable():
    key = copy.cache_key
    assert key == copy.cache_key
    assert re.fullmatch(r"[0-9a-f]{64}", key)


def test_same_source_gives_the_same_key():
    a1 = load_module("kernels_cache_a.py", "kernels_cache_a_first")
    a2 = load_module("kernels_cache_a.py", "kernels_cache_a_second")
    assert a1.kernel is not a2.kernel
    assert a1.kernel.cache_key == a2.kernel.cache_key
    assert a1.kernel_via_module.cache_key == a2.kernel_via_module.cache_key
    assert a1.kernel_transitive.cache_key == a2.kernel_transitive.cache_key


@pytest.mark.parametrize("name", ["kernel", "kernel_via_module", "kernel_transitive"])
def test_a_change_in_a_called_helper_changes_the_key(name):
    a = load_module("kernels_cache_a.py", "kernels_cache_a_helper")
    b = load_module("kernels_cache_b.py", "kernels_cache_b_helper")
    ka, kb = getattr(a, name), getattr(b, name)
    assert ka.src == kb.src  # the kernels' own text is identical...
    assert a.helper.src != b.helper.src  # ...only the helper differs
    assert ka.cache_key != kb.cache_key


def test_helpers_with_different_source_compile_differently():
    a = load_module("kernels_cache_a.py", "kernels_cache_a_ir")
    b = load_module("kernels_cache_b.py", "kernels_cache_b_ir")
    ir_a = compile_tile(a.kernel, signature={"x_ptr": "*i32"}, constexprs={"BLOCK": 16})
    ir_b = compile_tile(b.kernel, signature={"x_ptr": "*i32"}, constexprs={"BLOCK": 16})
    assert "dense<1>" in ir_a.asm["tile"] and "dense<2>" in ir_b.asm["tile"]


def test_a_change_in_a_global_constant_changes_the_key():
    g1 = load_module("kernels_cache_globals.py", "kernels_cache_globals_1")
    g2 = load_module("kernels_cache_globals.py", "kernels_cache_globals_2")
    g3 = load_module("kernels_cache_globals.py", "kernels_cache_globals_3")
    g2.SCALE = 3
    g3.WIDTH = tl.constexpr(32)
    base = g1.kernel.cache_key
    assert g2.kernel.cache_key != base
    assert g3.kernel.cache_key != base
    assert g2.kernel.cache_key != g3.kernel.cache_key
    g4 = load_module("kernels_cache_globals.py", "kernels_cache_globals_4")
    assert g4.kernel.cache_key == base


def test_global_constant_value_is_compiled_in():
    g = load_module("kernels_cache_globals.py", "kernels_cache_globals_ir")
    g.SCALE = 7
    text = compile_tile(g.kernel, signature={"x_ptr": "*i32"}).asm["tile"]
    assert "dense<7> : tensor<16xi32>" in text, text


# --- launching -----------------------------------------------------------------------------------

def launch_expecting_no_backend(launcher, *args, **kwargs):
    """NumPy arrays live in host memory: the launch compiles, then refuses them."""
    with pytest.raises(TypeError, match="host memory.*TILEC_INTERPRET=1"):
        launcher(*args, **kwargs)


def test_launch_compiles_caches_then_needs_the_backend():
    copy.cache.clear()
    src, dst = aligned_f32(), aligned_f32()
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return ((meta["n"] + meta["BLOCK"] - 1) // meta["BLOCK"],)

    launch_expecting_no_backend(copy[grid], src, dst, 64, BLOCK=32)
    assert len(copy.cache) == 1
    assert len(seen) == 1
    meta = seen[0]
    assert meta["n"] == 64 and meta["BLOCK"] == 32
    assert set(meta) >= {"src_ptr", "dst_ptr", "n", "BLOCK"}
    assert meta["src_ptr"] is src

    # The same specialisation again: no new compile.
    launch_expecting_no_backend(copy[grid], aligned_f32(), aligned_f32(), 128, BLOCK=32)
    assert len(copy.cache) == 1
    assert len(seen) == 2


def test_launch_cache_distinguishes_specialisations():
    copy.cache.clear()
    src, dst = aligned_f32(), aligned_f32()
    launch_expecting_no_backend(copy[(1,)], src, dst, 64, BLOCK=32)
    launch_expecting_no_backend(copy[(1,)], src, dst, 64, BLOCK=64)   # new constexpr
    assert len(copy.cache) == 2
    launch_expecting_no_backend(copy[(1,)], src, dst, 63, BLOCK=64)   # n not divisible by 16
    assert len(copy.cache) == 3
    launch_expecting_no_backend(copy[(1,)], src[1:], dst, 64, BLOCK=64)  # misaligned pointer
    assert len(copy.cache) == 4
    launch_expecting_no_backend(copy[(1,)], src, dst, 1, BLOCK=64)    # n == 1
    assert len(copy.cache) == 5
    launch_expecting_no_backend(copy[(1,)], src, dst, 64, BLOCK=64, num_warps=8)  # options
    assert len(copy.cache) == 6
    launch_expecting_no_backend(copy[(2, 2)], src, dst, 80, BLOCK=64)  # same key as 64
    assert len(copy.cache) == 6


def test_launched_kernel_records_specialisation_in_ir():
    copy.cache.clear()
    src, dst = aligned_f32(), aligned_f32()
    launch_expecting_no_backend(copy[(1,)], src, dst[1:], 1, BLOCK=32)
    (kernel,) = copy.cache.values()
    args = signature_args(kernel.asm["tile"])
    assert len(args) == 2, args  # n == 1 folded away
    assert "tile.divisibility = 16" in args[0]
    assert "divisibility" not in args[1]
    assert kernel.constants == {"n": 1, "BLOCK": 32}


def test_launch_and_compile_agree():
    copy.cache.clear()
    src, dst = aligned_f32(), aligned_f32()
    launch_expecting_no_backend(copy[(1,)], src, dst, 64, BLOCK=32)
    (launched,) = copy.cache.values()
    ahead = compile_tile(copy, signature={"src_ptr": "*fp32:16", "dst_ptr": "*fp32:16",
                                           "n": "i32:16"}, constexprs={"BLOCK": 32})
    assert launched.asm["tile"] == ahead.asm["tile"]


def test_grid_tuple_and_int():
    copy.cache.clear()
    src, dst = aligned_f32(), aligned_f32()
    launch_expecting_no_backend(copy[4], src, dst, 64, BLOCK=16)
    launch_expecting_no_backend(copy[(4, 2, 1)], src, dst, 64, BLOCK=16)
    assert len(copy.cache) == 1


def test_grid_with_too_many_dimensions():
    src, dst = aligned_f32(), aligned_f32()
    with pytest.raises(ValueError, match="1 to 3"):
        copy[(1, 1, 1, 1)](src, dst, 64, BLOCK=16)
    with pytest.raises(ValueError, match="1 to 3"):
        copy[lambda meta: (1, 1, 1, 1)](src, dst, 64, BLOCK=16)


def test_constexpr_default_is_used():
    kernel = compile_tile(scale, signature={"x_ptr": "*fp32", "factor": "fp32"})
    assert kernel.constants == {"BLOCK": 32}
    assert "tensor<32xf32>" in kernel.asm["tile"]
    key = specialization(scale, bound(scale, x_ptr=aligned_f32(), factor=2.0))
    assert key[-1] == ("constexpr", 32)
    scale.cache.clear()
    launch_expecting_no_backend(scale[(1,)], aligned_f32(), 2.0)
    launch_expecting_no_backend(scale[(1,)], aligned_f32(), 2.0, BLOCK=32)
    assert len(scale.cache) == 1


def test_launch_with_missing_arguments():
    with pytest.raises(TypeError, match="copy"):
        copy[(1,)](aligned_f32(), aligned_f32(), BLOCK=16)


def test_launch_without_constexpr_is_an_error():
    with pytest.raises((TypeError, tilec.CompilationError), match="BLOCK"):
        copy[(1,)](aligned_f32(), aligned_f32(), 64)


def test_calling_a_kernel_directly_is_an_error():
    with pytest.raises(RuntimeError, match=r"copy\[grid\]"):
        copy(aligned_f32(), aligned_f32(), 64, BLOCK=16)


RECURSIVE = '''import tilec
import tilec.language as tl


@tilec.jit
def even(n: tl.constexpr):
    if n == 0:
        return True
    return odd(n - 1)


@tilec.jit
def odd(n: tl.constexpr):
    if n == 0:
        return {odd_at_zero}
    return even(n - 1)


@tilec.jit
def kernel(x_ptr, N: tl.constexpr):
    tl.store(x_ptr, 1 if even(N) else 0)
'''


def test_recursive_helpers_have_keys_covering_the_whole_cycle(tmp_path, monkeypatch):
    """Keying a function that calls itself (through another) once recursed without end; the
    key of each function of a cycle covers every function of it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    modules = []
    for i, value in enumerate(["False", "False", "True"]):
        (tmp_path / f"recursive_{i}.py").write_text(RECURSIVE.format(odd_at_zero=value))
        modules.append(importlib.import_module(f"recursive_{i}"))
    same, also_same, changed = modules
    # keys taken in different orders (a cycle entered at another function) agree
    assert same.kernel.cache_key == also_same.kernel.cache_key
    assert also_same.odd.cache_key == same.odd.cache_key
    assert same.even.cache_key == also_same.even.cache_key
    for name in ("kernel", "even", "odd"):  # a change in odd reaches every key of the cycle
        assert getattr(changed, name).cache_key != getattr(same, name).cache_key
    text = compile_tile(same.kernel, signature={"x_ptr": "*i32"}, constexprs={"N": 4}).asm["tile"]
    assert "arith.constant 1 : i32" in text
