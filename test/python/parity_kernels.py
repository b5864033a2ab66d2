"""Kernels the compiler rejects, one construct each (test_frontend_parity.py): the interpreter
must reject each one too, with the same error at the same line, before running anything."""
import math

import numpy as np

import tilec
import tilec.language as tl

COUNTER = 0


def plain_python(x):
    return x + 1


@tilec.jit
def helper(x, N: tl.constexpr):
    return x * N


@tilec.jit
def k_try(x_ptr):
    try:
        tl.store(x_ptr, 1.0)
    except ValueError:
        pass


@tilec.jit
def k_lambda(x_ptr):
    f = lambda v: v + 1  # noqa: E731
    tl.store(x_ptr, f(1.0))


@tilec.jit
def k_list_comprehension(x_ptr):
    values = [i for i in range(4)]
    tl.store(x_ptr, values[0])


@tilec.jit
def k_generator_expression(x_ptr):
    tl.store(x_ptr, sum(i for i in range(4)))


@tilec.jit
def k_dict_comprehension(x_ptr):
    d = {i: i for i in range(4)}
    tl.store(x_ptr, d[0])


@tilec.jit
def k_global(x_ptr):
    global COUNTER
    COUNTER = 1
    tl.store(x_ptr, 1.0)


@tilec.jit
def k_yield(x_ptr):
    tl.store(x_ptr, 1.0)
    yield 1


@tilec.jit
def k_nested_def(x_ptr):
    def inner(v):
        return v
    tl.store(x_ptr, inner(1.0))


@tilec.jit
def k_with(x_ptr):
    with open("/dev/null"):
        tl.store(x_ptr, 1.0)


@tilec.jit
def k_raise(x_ptr):
    tl.store(x_ptr, 1.0)
    raise ValueError("no")


@tilec.jit
def k_break(x_ptr):
    for i in range(4):
        if i == 2:
            break
    tl.store(x_ptr, 1.0)


@tilec.jit
def k_del(x_ptr):
    v = 1.0
    del v
    tl.store(x_ptr, 1.0)


@tilec.jit
def k_import(x_ptr):
    import os  # noqa: F401
    tl.store(x_ptr, 1.0)


@tilec.jit
def k_walrus(x_ptr):
    if (n := 4) > 2:
        tl.store(x_ptr, n * 1.0)


@tilec.jit
def k_dict(x_ptr):
    d = {"a": 1.0}
    tl.store(x_ptr, d["a"])


@tilec.jit
def k_plain_python_call(x_ptr):
    tl.store(x_ptr, plain_python(tl.load(x_ptr)))


@tilec.jit
def k_numpy_call(x_ptr):
    tl.store(x_ptr, np.exp(tl.load(x_ptr)))


@tilec.jit
def k_len_of_a_tensor(x_ptr):
    tl.store(x_ptr, len(tl.load(x_ptr + tl.arange(0, 4))) * 1.0)


@tilec.jit
def k_math_on_a_tensor(x_ptr):
    tl.store(x_ptr, math.sqrt(tl.load(x_ptr)))


@tilec.jit
def k_fstring_of_a_tensor(x_ptr):
    tl.static_print(f"{tl.load(x_ptr)}")


@tilec.jit
def k_runtime_constexpr(x_ptr):
    tl.store(x_ptr, helper(1.0, tl.load(x_ptr).to(tl.int32)))


@tilec.jit
def k_dead_branch_lambda(x_ptr, FLAG: tl.constexpr):
    if FLAG:
        tl.store(x_ptr, (lambda: 1.0)())
    tl.store(x_ptr, 2.0)


@tilec.jit
def k_accepted(x_ptr, FLAG: tl.constexpr):
    """What both modes accept: compile-time Python (math, len, f-strings of constants,
    min of constants) and calls of jit helpers and tensor methods."""
    n = len((1, 2, 3)) + math.floor(2.5) + min(1, 2)
    label = f"n={n}"
    v = helper(tl.load(x_ptr), 2).to(tl.float32)
    if FLAG:
        v = v + len(label)
    tl.store(x_ptr, v + n)


@tilec.jit
def k_pow_of_a_tensor(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr) ** 2)


@tilec.jit
def k_pow_and_isinstance(x_ptr, N: tl.constexpr):
    """`**` of compile-time values folds (Triton allows it on constants); isinstance asks what
    kind a value is, which is known when compiling, of tensors too."""
    v = tl.load(x_ptr)
    tl.static_assert(isinstance(v, tl.tensor) and not isinstance(N, tl.tensor))
    scale = 2 ** N
    scale **= 2
    tl.store(x_ptr, v * scale + 10 ** -1)


@tilec.jit
def k_constant_out_of_range(x_ptr):
    huge: tl.constexpr = 0xFFFFFFFFFFFFFF
    v = tl.load(x_ptr).to(tl.int32)
    tl.store(x_ptr, (v + huge).to(tl.float32))


@tilec.jit
def k_subscripts_of_a_scalar(x_ptr):
    """A reduced scalar indexed with a trailing ':' (Triton ignores it): a [1, 1] block."""
    s = tl.sum(tl.load(x_ptr + tl.arange(0, 4)), 0)
    b = s[None, None, :]
    tl.static_assert(b.shape == [1, 1])
    tl.store(x_ptr + tl.arange(0, 1)[:, None], b)


@tilec.jit
def k_assigned_literals(x_ptr, out_ptr, N: tl.constexpr):
    """As in Triton, a number literal assigned to a name is a scalar tensor (with .dtype and
    .to); an annotated constexpr stays a compile-time constant."""
    acc = 0
    acc = acc.to(tl.int64)
    one = 1
    half = 0.5
    flag = True
    big = 3000000000
    K: tl.constexpr = 4
    tl.static_assert(acc.dtype == tl.int64 and one.dtype == tl.int32)
    tl.static_assert(half.dtype == tl.float32 and flag.dtype == tl.int1)
    tl.static_assert(big.dtype == tl.uint32)  # past int32, within uint32 (Triton's rule)
    for i in range(0, N):
        acc += tl.load(x_ptr + i)
    v = tl.full([K], one, dtype=one.dtype)
    tl.store(out_ptr + tl.arange(0, K), (acc + v).to(tl.float32) * half)


@tilec.jit
def k_store_to_const(src: tl.const, dst, WHICH: tl.constexpr):
    """Reading a tl.const pointer is fine; storing through it (or a pointer made from it) is
    an error in both modes."""
    v = tl.load(src + tl.arange(0, 4))
    if WHICH == "dst":
        tl.store(dst + tl.arange(0, 4), v)
    else:
        tl.store(src + tl.arange(0, 4), v)


@tilec.jit
def k_const_or_not(src: tl.const, dst, choose, MODE: tl.constexpr):
    """A const and a plain pointer differ in type: merging them at run time is an error."""
    if MODE == "if":
        if choose:
            out = src
        else:
            out = dst
    else:
        out = src if choose else dst
    tl.store(dst, tl.load(out))


@tilec.jit
def pick(a, b, take_b):
    if take_b:
        return b
    else:
        return a


@tilec.jit
def k_const_from_a_helper(src: tl.const, dst, choose):
    tl.store(dst, tl.load(pick(dst, src, choose)))


@tilec.jit
def k_descending_range(out_ptr, lo, hi, STEP: tl.constexpr):
    """A range with a negative compile-time step counts down, as in Python."""
    acc = 0
    acc = acc.to(tl.int64)  # 64-bit bounds give a 64-bit induction variable
    n = 0
    for i in range(lo, hi, STEP):
        acc += i
        n += 1
    tl.store(out_ptr, acc)
    tl.store(out_ptr + 1, n)


# --- mistakes found while compiling (the interpreter finds them as it runs) -------------------

@tilec.jit
def k_constant_division_by_zero(x_ptr, BLOCK: tl.constexpr = 64):
    step = BLOCK // (BLOCK - 64)  # ERR
    tl.store(x_ptr, step)


@tilec.jit
def forever(x):
    return forever(x + 1)  # ERR


@tilec.jit
def k_unbounded_recursion(x_ptr):
    tl.store(x_ptr, forever(1.0))


@tilec.jit
def k_returns_a_value(x_ptr):
    v = tl.load(x_ptr)
    return v  # ERR


@tilec.jit
def factorial(n: tl.constexpr):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


@tilec.jit
def even(n: tl.constexpr):
    if n == 0:
        return True
    return odd(n - 1)


@tilec.jit
def odd(n: tl.constexpr):
    if n == 0:
        return False
    return even(n - 1)


@tilec.jit
def k_constexpr_recursion(x_ptr, N: tl.constexpr = 6):
    """Recursion that ends at compile time: direct (factorial) and mutual (even/odd)."""
    tl.store(x_ptr, factorial(N))
    tl.store(x_ptr + 1, 1.0 if even(N) else 0.0)


@tilec.jit
def k_store_rank_mismatch(x_ptr):
    rows = tl.arange(0, 2)[:, None] * 2 + tl.arange(0, 2)[None, :]
    tl.store(x_ptr + rows, tl.arange(0, 2).to(tl.float32))  # ERR: rank 1 into rank 2, as Triton
