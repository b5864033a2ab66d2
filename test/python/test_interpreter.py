"""The interpreter: tutorials match NumPy, the language's semantics hold, and the checks a GPU
cannot make catch planted bugs without flagging correct kernels."""
from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import interp_kernels as K
from tutorial_loader import tutorial
import tilec
import tilec.language as tl
from tilec.errors import (CompilationError, DeviceAssertionError, OffsetOverflowError,
                          OutOfBoundsError, RaceError)

KERNELS = Path(K.__file__).resolve()


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    for name in ("TILEC_CHECK_BOUNDS", "TILEC_CHECK_OVERFLOW", "TILEC_CHECK_RACES"):
        monkeypatch.delenv(name, raising=False)




def line_of(fn, marker="BUG") -> int:
    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if marker in line)


# --- the tutorials ---------------------------------------------------------------------------

def test_vector_add():
    t = tutorial("01-vector-add")
    rng = np.random.default_rng(0)
    x = rng.random(98432, dtype=np.float32)
    y = rng.random(98432, dtype=np.float32)
    np.testing.assert_array_equal(t.add(x, y), x + y)


def test_fused_softmax():
    t = tutorial("02-fused-softmax")
    x = np.random.default_rng(1).standard_normal((123, 781), dtype=np.float32)
    np.testing.assert_allclose(t.softmax(x), t.reference(x), rtol=1e-5, atol=1e-6)
    # Fewer programs than rows: each loops over several rows (tl.range with a step).
    np.testing.assert_allclose(t.softmax(x, num_programs=7), t.reference(x), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_matmul(activation):
    t = tutorial("03-matrix-multiplication")
    rng = np.random.default_rng(2)
    a = rng.standard_normal((200, 96)).astype(np.float16)
    b = rng.standard_normal((96, 136)).astype(np.float16)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    if activation:
        expected = np.where(expected >= 0, expected, 0.01 * expected)
    got = t.matmul(a, b, activation=activation).astype(np.float32)
    np.testing.assert_allclose(got, expected, rtol=1e-2, atol=2e-2)


def test_matmul_transposed_operand_through_strides():
    t = tutorial("03-matrix-multiplication")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 128)).astype(np.float16)
    b_t = rng.standard_normal((64, 128)).astype(np.float16)
    b = b_t.T  # a non-contiguous view: strides (2, 256)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(t.matmul(a, b).astype(np.float32), expected, rtol=1e-2, atol=2e-2)


def test_layer_norm_forward():
    t = tutorial("05-layer-norm")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((37, 1000)).astype(np.float16)
    w = rng.random(1000).astype(np.float16)
    b = rng.random(1000).astype(np.float16)
    y, mean, rstd = t.layer_norm(x, w, b)
    np.testing.assert_allclose(y.astype(np.float32), t.reference(x, w, b).astype(np.float32),
                               rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(mean, x.astype(np.float32).mean(axis=1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_fused_attention_forward_and_backward(head_dim, causal, dtype):
    """tutorials/06-fused-attention.py: Out, dQ, dK and dV against float64 NumPy on the same
    inputs (2 heads of 256 tokens: the forward's 2 query blocks of 128, the backward's 4
    blocks of 64, so the causal loops start and stop mid-sequence)."""
    import ml_dtypes
    t = tutorial("06-fused-attention")
    rng = np.random.default_rng(head_dim + causal)
    element = np.float16 if dtype == "fp16" else ml_dtypes.bfloat16
    q, k, v, dout = (rng.standard_normal((2, 256, head_dim)).astype(element) for _ in range(4))
    out, lse = t.attention(q, k, v, causal)
    grads = t.attention_backward(q, k, v, out, lse, dout, causal)
    tol = 2e-2 if dtype == "fp16" else 6e-2
    for name, got, want in zip(("out", "dq", "dk", "dv"), (out, *grads),
                               t.reference(q, k, v, dout, causal)):
        np.testing.assert_allclose(np.asarray(got, np.float64), want, atol=tol, rtol=tol,
                                   err_msg=name)


def test_layer_norm_backward_with_locks_is_not_a_race():
    """Partial dw/db sums are accumulated by many programs under spin locks (atomic_cas /
    atomic_xchg): the race check must see the synchronisation."""
    t = tutorial("05-layer-norm")
    rng = np.random.default_rng(5)
    M, N, G = 24, 128, 4
    x = rng.standard_normal((M, N)).astype(np.float16)
    w = rng.random(N).astype(np.float16)
    b = rng.random(N).astype(np.float16)
    dy = rng.standard_normal((M, N)).astype(np.float16)
    _, mean, rstd = t.layer_norm(x, w, b)
    dx = np.empty_like(x)
    partial_dw = np.zeros((G, N), np.float16)
    partial_db = np.zeros((G, N), np.float16)
    locks = np.zeros(2 * G, np.int32)
    t.layer_norm_bwd_dx_fused[(M,)](dx, dy, partial_dw, partial_db, x, w, mean, rstd, locks,
                                    N, N, GROUP_SIZE_M=G, BLOCK_SIZE_N=N)
    dw = np.empty(N, np.float16)
    db = np.empty(N, np.float16)
    t.layer_norm_bwd_dwdb[(tilec.cdiv(N, 32),)](partial_dw, partial_db, dw, db, G, N,
                                                BLOCK_SIZE_M=4, BLOCK_SIZE_N=32)
    x32, dy32, w32 = x.astype(np.float32), dy.astype(np.float32), w.astype(np.float32)
    xhat = (x32 - mean[:, None]) * rstd[:, None]
    wdy = w32 * dy32
    c1 = (xhat * wdy).mean(axis=1, keepdims=True)
    c2 = wdy.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(dx.astype(np.float32), (wdy - (xhat * c1 + c2)) * rstd[:, None],
                               rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(dw.astype(np.float32), (dy32 * xhat).sum(axis=0), rtol=2e-2,
                               atol=5e-2)
    np.testing.assert_allclose(db.astype(np.float32), dy32.sum(axis=0), rtol=2e-2, atol=5e-2)
    assert (locks[:G] == 0).all()  # every lock released


# --- the checks --------------------------------------------------------------------------------

def test_out_of_bounds_store_is_reported_with_line_program_and_offset():
    src = np.arange(100, dtype=np.float32)
    dst = np.zeros(100, dtype=np.float32)
    with pytest.raises(OutOfBoundsError) as info:
        K.copy_unmasked[(4,)](src, dst, 100, BLOCK=32)
    err = info.value
    assert (Path(err.filename).resolve(), err.line) == (KERNELS, line_of(K.copy_unmasked))
    assert err.program_id == (3, 0, 0)
    assert "offset 100 of 'dst'" in err.message and "100 elements" in err.message
    assert "tl.store" in err.message


def test_masked_version_runs_clean():
    src = np.arange(100, dtype=np.float32)
    dst = np.zeros(100, dtype=np.float32)
    K.copy_masked[(4,)](src, dst, 100, BLOCK=32)
    np.testing.assert_array_equal(dst, src)


def test_bounds_check_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("TILEC_CHECK_BOUNDS", "0")
    src = np.arange(128, dtype=np.float32)
    big = np.zeros(256, dtype=np.float32)
    dst = big[:100]  # the unmasked tail lands in memory the view does not own
    K.copy_unmasked[(4,)](src, dst, 100, BLOCK=32)
    np.testing.assert_array_equal(big[:100], src[:100])


def test_int32_offset_overflow_is_reported():
    src = np.zeros(64, dtype=np.float32)
    dst = np.zeros(128, dtype=np.float32)
    with pytest.raises(OffsetOverflowError) as info:
        K.row_gather_i32[(2,)](src, dst, 60000, BLOCK=64)
    err = info.value
    assert err.line == line_of(K.row_gather_i32) + 2  # the load that uses the offset
    assert "overflowed" in err.message and "int64" in err.message
    assert err.program_id == (0, 0, 0)


def test_int64_offsets_run_clean():
    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(128, dtype=np.float32)
    K.row_gather_i64[(2,)](src, dst, 60000, BLOCK=64)
    np.testing.assert_array_equal(dst, np.concatenate([src, src]))


def test_overflow_check_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("TILEC_CHECK_OVERFLOW", "0")
    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(128, dtype=np.float32)
    # The wrapped offsets cancel out, so the accesses land in bounds once the check is off.
    K.row_gather_i32[(2,)](src, dst, 60000, BLOCK=64)
    np.testing.assert_array_equal(dst, np.concatenate([src, src]))


def test_race_between_programs_is_reported():
    src = np.ones(256, dtype=np.float32)
    out = np.zeros(1, dtype=np.float32)
    with pytest.raises(RaceError) as info:
        K.racy_sum[(4,)](src, out, BLOCK=64)
    err = info.value
    assert err.line == line_of(K.racy_sum)
    assert err.program_id == (1, 0, 0)
    assert "program 0" in err.message and "element 0 of 'out'" in err.message


def test_programs_storing_the_same_value_do_not_race():
    """Every program writing the same value to the same element leaves the same memory in any
    order (a done flag, a result each program computes alike): not a race. Writing different
    values (each its program id) is."""
    out = np.zeros(2, dtype=np.int32)
    K.store_flag[(4,)](out, 7)
    assert (out == 7).all()
    with pytest.raises(RaceError) as info:
        K.store_flag[(4,)](out, -1)
    assert "program 0" in info.value.message and info.value.program_id == (1, 0, 0)


def test_atomic_version_is_not_a_race():
    src = np.ones(256, dtype=np.float32)
    out = np.zeros(1, dtype=np.float32)
    K.atomic_sum[(4,)](src, out, BLOCK=64)
    assert out[0] == 256


def test_race_check_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("TILEC_CHECK_RACES", "0")
    src = np.ones(256, dtype=np.float32)
    out = np.zeros(1, dtype=np.float32)
    K.racy_sum[(4,)](src, out, BLOCK=64)
    assert out[0] == 256  # programs run in order in the interpreter


# --- semantics ---------------------------------------------------------------------------------

def run_elementwise(op, x, y, out_dtype):
    out = np.zeros(x.shape, out_dtype)
    K.elementwise[(1,)](x, y, out, OP=op, BLOCK=x.size)
    return out


def test_integer_division_truncates_like_c():
    x = np.array([7, -7, 7, -7, 0, 5, -1, 9], np.int32)
    y = np.array([2, 2, -2, -2, 3, 7, 4, -3], np.int32)
    np.testing.assert_array_equal(run_elementwise("floordiv", x, y, np.int32),
                                  np.trunc(x / y).astype(np.int32))
    np.testing.assert_array_equal(run_elementwise("mod", x, y, np.int32), np.fmod(x, y))


def test_integer_arithmetic_wraps():
    x = np.array([2**31 - 1, -2**31, 2**30, 7, 1, 2, 3, 4], np.int32)
    y = np.array([1, -1, 4, 2, 1, 1, 1, 1], np.int32)
    np.testing.assert_array_equal(run_elementwise("add", x, y, np.int32),
                                  (x.astype(np.int64) + y).astype(np.int32))
    np.testing.assert_array_equal(run_elementwise("mul", x, y, np.int32),
                                  (x.astype(np.int64) * y).astype(np.int32))
    u = np.array([0x80000000, 0xFFFFFFFF, 16, 1, 2, 3, 4, 5], np.uint32)
    s = np.array([4, 31, 2, 0, 1, 1, 1, 1], np.uint32)
    np.testing.assert_array_equal(run_elementwise("shr", u, s, np.uint32), u >> s)


def test_fp16_and_bf16_arithmetic_stay_in_their_type():
    import ml_dtypes
    x = np.array([1.0, 1e-3, 65504, 3.14159] * 2, np.float16)
    y = np.array([2 ** -11] * 8, np.float16)
    np.testing.assert_array_equal(run_elementwise("add", x, y, np.float16), x + y)
    xb = x.astype(ml_dtypes.bfloat16)
    yb = np.array([0.5] * 8, ml_dtypes.bfloat16)
    np.testing.assert_array_equal(run_elementwise("mul", xb, yb, ml_dtypes.bfloat16), xb * yb)
    # int / int is float32 division
    i = np.arange(1, 9, dtype=np.int32)
    np.testing.assert_allclose(run_elementwise("div", i, i + 1, np.float32), i / (i + 1))


def test_reductions_scans_and_sort():
    rng = np.random.default_rng(6)
    x = rng.integers(-5, 5, size=(4, 16)).astype(np.float32)  # ties for argmax/argmin
    out = np.zeros(5 * 4 + 2 * 64, np.float32)
    K.reductions[(1,)](x, out, ROWS=4, COLS=16)
    np.testing.assert_allclose(out[0:4], x.sum(axis=1))
    np.testing.assert_array_equal(out[4:8], x.max(axis=1))
    np.testing.assert_array_equal(out[8:12], x.argmax(axis=1))  # first index on ties
    np.testing.assert_array_equal(out[12:16], x.argmin(axis=1))
    np.testing.assert_array_equal(out[16:20], x.argmax(axis=1))  # custom combine, tie-break
    np.testing.assert_allclose(out[20:84].reshape(4, 16), np.cumsum(x, axis=1))
    np.testing.assert_array_equal(out[84:148].reshape(4, 16), -np.sort(-x, axis=1))


def test_histogram_gather_xor_sum_reverse_cumsum():
    x = np.random.default_rng(7).integers(0, 1000, 32).astype(np.int32)
    out = np.zeros(4 * 32, np.int32)
    K.int_ops[(1,)](x, out, BLOCK=32)
    np.testing.assert_array_equal(out[:32], np.bincount(x % 32, minlength=32))
    np.testing.assert_array_equal(out[32:64], np.roll(x, -1))
    np.testing.assert_array_equal(out[64:96], np.bitwise_xor.reduce(x))
    np.testing.assert_array_equal(out[96:], np.cumsum(x[::-1])[::-1])


def test_atomics_return_old_values_in_program_order():
    counter = np.zeros(5, np.int32)
    flags = np.zeros(1, np.int32)
    out = np.zeros(1100, np.int32)
    K.atomics[(3,)](counter, flags, out, BLOCK=8)
    np.testing.assert_array_equal(counter[:4], [6, 6, 6, 6])
    assert counter[4] == 2
    # lane r of program p saw (number of earlier lanes on address r % 4) as the old value
    expected = [2 * p + r // 4 for p in range(3) for r in range(8)]
    np.testing.assert_array_equal(out[:24], expected)
    np.testing.assert_array_equal(out[1000:1003], [0, 1, 1])  # only program 0's CAS wins
    assert flags[0] == 1


def test_int8_dot_accumulates_in_int32():
    rng = np.random.default_rng(8)
    a = rng.integers(-128, 127, (16, 16)).astype(np.int8)
    b = rng.integers(-128, 127, (16, 16)).astype(np.int8)
    c = np.zeros((16, 16), np.int32)
    K.int8_dot[(1,)](a, b, c, N=16)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_strided_views():
    base = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    view = base[::4, 1::8]  # 16 x 8, strides (1024, 32) bytes
    dst = np.zeros(16 * 8, np.float32)
    K.strided_copy[(1,)](view, dst, view.strides[0] // 4, view.strides[1] // 4, R=16, C=8)
    np.testing.assert_array_equal(dst.reshape(16, 8), view)


def test_print_and_device_print_work_inside(capsys):
    K.printing[(2,)](np.arange(4, dtype=np.float32), BLOCK=4)
    out = capsys.readouterr().out
    assert "x is [0. 1. 2. 3.]" in out
    assert "pid (1, 0, 0) x = [0. 1. 2. 3.]" in out


def test_device_assert_names_the_line():
    with pytest.raises(DeviceAssertionError) as info:
        K.asserting[(1,)](np.array([1, 2, -3, 4], np.float32), BLOCK=4)
    assert info.value.line == line_of(K.asserting, "device_assert")
    assert "x must be positive" in str(info.value)


def test_kernel_mistakes_are_compilation_errors_at_the_line():
    @tilec.jit
    def bad(x_ptr, BLOCK: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BLOCK))
        tl.store(x_ptr + tl.arange(0, BLOCK), x + tl.zeros([BLOCK * 2], tl.float32))

    with pytest.raises(CompilationError) as info:
        bad[(1,)](np.zeros(8, np.float32), BLOCK=8)
    assert info.value.line == inspect.getsourcelines(bad.fn)[1] + 3
    assert "incompatible" in info.value.message


@pytest.mark.parametrize("name, what", [("k_expand_dims_bad_axis", "invalid axis 2"),
                                        ("k_expand_dims_duplicate_axes", "duplicate axes")])
def test_expand_dims_axes_are_checked_alike_in_interpreter_and_compiler(name, what):
    import kernels_errors
    kernel = getattr(kernels_errors, name)
    with pytest.raises(CompilationError) as interpreted:
        kernel[(1,)](np.zeros(16, np.int32))
    with pytest.raises(CompilationError) as compiled:
        tilec.compile(kernel, signature={"x_ptr": "*i32"}, stop_after="tile")
    assert what in compiled.value.message
    assert interpreted.value.message.startswith(compiled.value.message)  # + the program id
    assert interpreted.value.line == compiled.value.line


@pytest.mark.parametrize("op, needs", [("exp", "a floating-point operand"),
                                       ("fma", "floating-point operands")])
def test_float_only_math_on_ints_fails_alike_in_interpreter_and_compiler(op, needs):
    @tilec.jit
    def bad(x_ptr, OP: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, 8))
        if OP == "exp":
            y = tl.exp(x)  # BUG
        else:
            y = tl.fma(x, x, x)  # BUG
        tl.store(x_ptr + tl.arange(0, 8), y)

    expected = f"tl.{op} needs {needs}, got int32; convert it first"
    with pytest.raises(CompilationError) as interpreted:
        bad[(1,)](np.zeros(8, np.int32), OP=op)
    with pytest.raises(CompilationError) as compiled:
        tilec.compile(bad, signature={"x_ptr": "*i32"}, constexprs={"OP": op}, target="cuda:90")
    for info in (interpreted, compiled):
        assert expected in info.value.message
        assert info.value.line == line_of(bad) + (0 if op == "exp" else 2)


# --- Philox ---------------------------------------------------------------------------------

MASK = 0xFFFFFFFF


def philox_reference(counter, key, rounds=10):
    """Philox4x32 written from the algorithm (Salmon et al., SC 2011), independently of tilec."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK, (p0 >> 32) ^ c3 ^ k1, p0 & MASK
        k0, k1 = (k0 + 0x9E3779B9) & MASK, (k1 + 0xBB67AE85) & MASK
    return c0, c1, c2, c3


# Known-answer vectors of the Random123 distribution for philox4x32-10: (counter, key, result).
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((MASK,) * 4, (MASK, MASK), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def test_reference_matches_known_answers():
    for counter, key, expected in KNOWN_ANSWERS:
        assert philox_reference(counter, key) == expected


def test_philox_rounds_match_known_answers():
    n = 4
    cases = KNOWN_ANSWERS + [KNOWN_ANSWERS[0]]
    cols = [np.array([c[0][i] for c in cases], np.uint32) for i in range(4)]
    keys = [np.array([c[1][i] for c in cases], np.uint32) for i in range(2)]
    out = np.zeros(4 * n, np.uint32)
    K.philox_raw[(1,)](*cols, *keys, out, BLOCK=n)
    got = out.reshape(n, 4)
    for row, (_, _, expected) in zip(got, cases):
        assert tuple(int(v) for v in row) == expected


@pytest.mark.parametrize("seed", [0, 12345, 2**40 + 17])
def test_randint4x_matches_reference(seed):
    n, base = 256, 1000
    outs = [np.zeros(n, np.uint32) for _ in range(4)]
    K.philox_block[(1,)](seed, *outs, base, BLOCK=n)
    key = (seed & MASK, (seed >> 32) & MASK)
    for i in range(n):
        expected = philox_reference(((base + i) & MASK, 0, 0, 0), key)
        assert tuple(int(o[i]) for o in outs) == expected


def test_rand_and_randn_are_distributed_as_documented():
    n = 1 << 14
    u = np.zeros(n, np.float32)
    z = np.zeros(n, np.float32)
    K.uniform_and_normal[(n // 1024,)](42, u, z, BLOCK=1024)
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.01
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1.0) < 0.03
    again = np.zeros(n, np.float32)
    K.uniform_and_normal[(n // 1024,)](42, again, np.zeros(n, np.float32), BLOCK=1024)
    np.testing.assert_array_equal(u, again)  # same seed and offsets, same numbers


def test_every_language_feature_also_interprets(capsys):
    """The kernels that test_language.py compiles (one per area of the language) run here too:
    every builtin has its NumPy implementation."""
    import lang_kernels as L
    rng = np.random.default_rng(9)

    def f32(n):
        return (rng.random(n) + 0.5).astype(np.float32)

    out = np.zeros(16, np.float32)
    L.control_flow[(1,)](f32(16), out, 5, FLAG=True)
    assert np.isfinite(out).all() and out.any()
    L.shapes[(1,)](f32(64), np.zeros(64, np.float32), BLOCK=64)
    y = np.zeros(16, np.float32)
    L.memory[(1,)](f32(16), np.arange(16, dtype=np.int32), y, BLOCK=16)
    L.math_ops[(1,)](f32(16), np.zeros(16, np.float32), BLOCK=16)
    L.reductions[(1,)](f32(64), np.zeros(4, np.float32), BLOCK=64)
    c = np.zeros(32 * 32, np.float32)
    a16, b16 = f32(32 * 32).astype(np.float16), f32(32 * 32).astype(np.float16)
    L.dots[(1,)](a16, b16, c, BLOCK=32)
    a, b = a16.astype(np.float32).reshape(32, 32), b16.astype(np.float32).reshape(32, 32)
    np.testing.assert_allclose(c.reshape(32, 32), 3 * (a @ b), rtol=1e-2)
    L.random[(1,)](np.zeros(128, np.float32), 7, BLOCK=128)
    L.hints_and_debug[(1,)](f32(64), np.zeros(64, np.float32), 3, BLOCK=64)
    assert "compiling hints_and_debug with BLOCK = 64" in capsys.readouterr().out


def test_interleave_alternates_the_last_dimension_and_pairs_scalars():
    """tl.interleave (Triton's): join then merge the last two dimensions; of two scalars, a
    pair. `x.cast(dtype)` is tl.cast as a method."""
    a = np.arange(8, dtype=np.int32)
    b = a * 10 + 5
    out, pair = np.zeros(16, np.int32), np.zeros(10, np.int32)
    K.interleave_pairs[(1,)](a, b, out, pair, N=8)
    np.testing.assert_array_equal(out, np.stack([a, b], axis=-1).reshape(-1))
    np.testing.assert_array_equal(pair, [0, 5, *(a + 1)])


def test_tritons_dtype_names_and_float_facts():
    """tl.dtype takes Triton's spellings of the float types (its lists of names build dtypes),
    floats tell their exponent bias, tl.pi32_t is the int32 pointer type."""
    assert [tl.dtype(n) for n in tl.dtype.STANDARD_FP_TYPES] == [
        tl.float16, tl.bfloat16, tl.float32, tl.float64]
    assert [tl.dtype(n) for n in tl.dtype.SINT_TYPES] == [tl.int8, tl.int16, tl.int32, tl.int64]
    assert tl.dtype("uint8") in [tl.dtype(n) for n in tl.dtype.UINT_TYPES]
    assert [t.exponent_bias for t in (tl.float16, tl.bfloat16, tl.float32, tl.float64)] == [
        15, 127, 127, 1023]
    with pytest.raises(AttributeError, match="not a floating-point type"):
        tl.int32.exponent_bias
    assert tl.pi32_t == tl.pointer_type(tl.int32)


def test_a_signed_value_shifted_right_by_an_unsigned_amount_keeps_its_sign():
    """int8 >> uint8 promotes to uint8 (Triton's rule) but shifts arithmetically, by the left
    operand's signedness; uint8 >> int8 shifts logically. The compiler picks the same."""
    x = np.array([-128, -1, -64, 127, 5, -5, 64, -100], np.int8)
    y = np.array([1, 2, 3, 1, 1, 1, 6, 7], np.uint8)
    z = np.zeros(8, np.uint8)
    K.shift_right[(1,)](x, y, z, BLOCK=8)
    np.testing.assert_array_equal(z.view(np.int8), x >> y.astype(np.int8))
    z[:] = 0
    K.shift_right[(1,)](x.view(np.uint8), y.view(np.int8), z, BLOCK=8)
    np.testing.assert_array_equal(z, x.view(np.uint8) >> y)
    signed = tilec.compile(K.shift_right, signature={"x_ptr": "*i8", "y_ptr": "*u8",
                                                     "z_ptr": "*u8"},
                           constexprs={"BLOCK": 8}, stop_after="tile").asm["tile"]
    unsigned = tilec.compile(K.shift_right, signature={"x_ptr": "*u8", "y_ptr": "*i8",
                                                       "z_ptr": "*u8"},
                             constexprs={"BLOCK": 8}, stop_after="tile").asm["tile"]
    assert "arith.shrsi" in signed and "arith.shrui" in unsigned


def test_where_chooses_between_pointers_into_two_arguments():
    """tl.where of two pointer tensors (or two pointer arguments) keeps the pointer type, and
    the interpreter resolves each chosen pointer in its own argument; two pointer types, or a
    pointer and an integer, are an error."""
    a = np.arange(8, dtype=np.int32) + 100
    b = np.arange(8, dtype=np.int32) + 200
    cond = np.array([1, 0, 1, 0, 0, 1, 1, 0], np.int32)
    out = np.zeros(16, np.int32)
    K.where_pointers[(1,)](a, b, cond, out, N=8)
    np.testing.assert_array_equal(out[:8], np.where(cond != 0, a, b))
    np.testing.assert_array_equal(out[8:], a)

    @tilec.jit
    def mixed(a_ptr, out_ptr):
        p = tl.where(tl.program_id(0) == 0, a_ptr, 0)
        tl.store(out_ptr, tl.load(p))

    with pytest.raises(CompilationError, match="two pointers of one type"):
        mixed[(1,)](a, out)
    with pytest.raises(CompilationError, match="two pointers of one type"):
        tilec.compile(mixed, signature={"a_ptr": "*i32", "out_ptr": "*i32"}, stop_after="tile")


@pytest.mark.parametrize("x_type, y_type, op, message", [
    ("*fp32", "*i32", "&", "invalid operands of type float32 and int32: operator & needs integer"),
    ("*i8", "*u8", "//", "Cannot use /, // or % with int8 and uint8 because they have different "
                         "signedness"),
])
def test_operand_type_errors_say_what_triton_says_in_both(x_type, y_type, op, message):
    """Bitwise ops of floats and divisions of mixed signedness: Triton's wording, one check
    for the compiler and the interpreter."""
    @tilec.jit
    def bad(x_ptr, y_ptr, OP: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, 8))
        y = tl.load(y_ptr + tl.arange(0, 8))
        if OP == "&":
            z = x & y
        else:
            z = x // y
        tl.store(x_ptr + tl.arange(0, 8), z)

    with pytest.raises(CompilationError, match=message):
        tilec.compile(bad, signature={"x_ptr": x_type, "y_ptr": y_type}, constexprs={"OP": op},
                      stop_after="tile")
    host = {"*fp32": np.float32, "*i32": np.int32, "*i8": np.int8, "*u8": np.uint8}
    with pytest.raises(CompilationError, match=message):
        bad[(1,)](np.ones(8, host[x_type]), np.ones(8, host[y_type]), OP=op)


def test_programs_of_several_ctas_run_once_each_with_the_grid_they_were_launched_over():
    """num_ctas only says how a program runs on the GPU (a cluster of CTAs): the interpreter
    runs each program once and checks the option as the compiler does."""
    import launch_kernels
    ids, counts = np.full((6, 4), -1, np.int32), np.zeros(6, np.int32)
    launch_kernels.program_ids[(3, 2)](ids, counts, num_ctas=4)
    assert ids.tolist() == [[i, j, 3, 2] for j in range(2) for i in range(3)]
    assert counts.tolist() == [1] * 6
    with pytest.raises(ValueError, match="num_ctas must be 1, 2, 4 or 8"):
        launch_kernels.program_ids[(3, 2)](ids, counts, num_ctas=3)
