"""The compiler and the interpreter accept and reject the same programs (frontend/checks.py):
for each construct kernels do not have, both raise the same CompilationError at the same line,
and the interpreter raises it before the kernel runs (nothing is stored)."""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import parity_kernels as P
import tilec
import tilec.language as tl
from tilec.errors import CompilationError

REJECTED = {
    "k_try": "`try` blocks are not supported",
    "k_lambda": "lambdas are not supported",
    "k_list_comprehension": "list comprehensions are not supported",
    "k_generator_expression": "generator expressions are not supported",
    "k_dict_comprehension": "dict comprehensions are not supported",
    "k_global": "`global` is not supported",
    "k_yield": "generators are not supported",
    "k_nested_def": "functions cannot be defined inside kernels",
    "k_with": "`with` blocks are not supported",
    "k_raise": "`raise` is not supported",
    "k_break": "`break` is not supported",
    "k_del": "`del` is not supported",
    "k_import": "imports are not supported inside kernels",
    "k_walrus": "the walrus operator is not supported",
    "k_dict": "dicts are not supported",
    "k_plain_python_call": "'plain_python' is not a @tilec.jit function",
    "k_numpy_call": "'exp' is not a @tilec.jit function",
    "k_len_of_a_tensor": r"Python's len\(\) works on compile-time values only",
    "k_math_on_a_tensor": r"sqrt\(\) works on compile-time values only",
    "k_fstring_of_a_tensor": "f-strings can format compile-time values only",
    "k_runtime_constexpr": "argument 'N' of helper is tl.constexpr but gets a runtime value",
    "k_pow_of_a_tensor": r"operator \*\* works on compile-time values only",
    "k_constant_out_of_range": "constant 72057594037927935 is out of range for int32",
}


def _compile(kernel, **constexprs):
    return tilec.compile(kernel, signature={"x_ptr": "*fp32"}, constexprs=constexprs,
                         stop_after="tile")


def _interpret(kernel, x, **constexprs):
    kernel.interpret = True
    try:
        kernel[(1,)](x, **constexprs)
    finally:
        kernel.interpret = None


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_both_modes_reject_the_construct_at_the_same_line(name):
    kernel = getattr(P, name)
    with pytest.raises(CompilationError, match=REJECTED[name]) as compiled:
        _compile(kernel)
    x = np.zeros(4, np.float32)
    with pytest.raises(CompilationError, match=REJECTED[name]) as interpreted:
        _interpret(kernel, x)
    assert (compiled.value.filename, compiled.value.line) == \
        (interpreted.value.filename, interpreted.value.line)
    assert compiled.value.line > kernel.def_line  # at the construct, not at the `def`
    assert (x == 0).all()  # rejected before the store ran


def test_syntax_is_checked_in_dead_code_too():
    """The interpreter cannot know a branch is dead before running it, so neither mode accepts
    a construct there: a kernel that interprets also compiles."""
    for flag in (False, True):
        with pytest.raises(CompilationError, match="lambdas are not supported"):
            _compile(P.k_dead_branch_lambda, FLAG=flag)
        with pytest.raises(CompilationError, match="lambdas are not supported"):
            _interpret(P.k_dead_branch_lambda, np.zeros(4, np.float32), FLAG=flag)


@pytest.mark.parametrize("flag", [False, True])
def test_both_modes_accept_compile_time_python_and_jit_calls(flag):
    _compile(P.k_accepted, FLAG=flag)
    x = np.full(4, 1.5, np.float32)
    _interpret(P.k_accepted, x, FLAG=flag)
    assert x[0] == 1.5 * 2 + 6 + (len("n=6") if flag else 0)


def test_pow_of_constants_folds_and_isinstance_of_tensors_is_known():
    _compile(P.k_pow_and_isinstance, N=3)
    x = np.full(4, 1.0, np.float32)
    _interpret(P.k_pow_and_isinstance, x, N=3)
    np.testing.assert_allclose(x[0], 64 + 0.1)


def test_a_trailing_colon_past_the_last_dimension_is_no_error():
    _compile(P.k_subscripts_of_a_scalar)
    x = np.array([1, 2, 3, 4], np.float32)
    _interpret(P.k_subscripts_of_a_scalar, x)
    assert x[0] == 10


def test_assigned_number_literals_are_scalar_tensors_in_both_modes():
    tilec.compile(P.k_assigned_literals, signature={"x_ptr": "*i32", "out_ptr": "*fp32"},
                  constexprs={"N": 5}, stop_after="tile")
    x = np.arange(1, 6, dtype=np.int32)
    out = np.zeros(4, np.float32)
    P.k_assigned_literals.interpret = True
    try:
        P.k_assigned_literals[(1,)](x, out, N=5)
    finally:
        P.k_assigned_literals.interpret = None
    np.testing.assert_array_equal(out, (15 + 1) * 0.5)


def test_tl_const_pointers_are_read_only_in_both_modes():
    sig = {"src": "*fp32", "dst": "*fp32"}
    tilec.compile(P.k_store_to_const, signature=sig, constexprs={"WHICH": "dst"},
                  stop_after="tile")
    with pytest.raises(CompilationError, match="Cannot store to a constant pointer"):
        tilec.compile(P.k_store_to_const, signature=sig, constexprs={"WHICH": "src"},
                      stop_after="tile")
    src, dst = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    P.k_store_to_const.interpret = True
    try:
        P.k_store_to_const[(1,)](src, dst, WHICH="dst")
        np.testing.assert_array_equal(dst, src)
        with pytest.raises(CompilationError, match="Cannot store to a constant pointer"):
            P.k_store_to_const[(1,)](src, dst, WHICH="src")
    finally:
        P.k_store_to_const.interpret = None


@pytest.mark.parametrize("mode, message", [
    ("if", "Mismatched type for 'out'"),
    ("ternary", "Ternary expression with dynamic condition has inconsistent type")])
def test_merging_a_const_and_a_plain_pointer_is_a_type_mismatch(mode, message):
    with pytest.raises(CompilationError, match=message):
        tilec.compile(P.k_const_or_not, signature={"src": "*fp32", "dst": "*fp32",
                                                   "choose": "i1"},
                      constexprs={"MODE": mode}, stop_after="tile")


def test_a_helper_returning_a_const_or_a_plain_pointer_has_inconsistent_return_types():
    with pytest.raises(CompilationError, match="Inconsistent return types"):
        tilec.compile(P.k_const_from_a_helper, signature={"src": "*fp32", "dst": "*fp32",
                                                          "choose": "i1"}, stop_after="tile")


@pytest.mark.parametrize("lo, hi, step", [(22, 18, -1), (15, -16, -2), (15, -16, -3),
                                          (3, 10, -1), (10, 10, -4), (7, 0, -7)])
def test_ranges_with_negative_steps_count_down_in_both_modes(lo, hi, step):
    tilec.compile(P.k_descending_range, signature={"out_ptr": "*i32", "lo": "i32", "hi": "i32"},
                  constexprs={"STEP": step}, stop_after="tile")
    out = np.zeros(2, np.int32)
    P.k_descending_range.interpret = True
    try:
        P.k_descending_range[(1,)](out, lo, hi, STEP=step)
    finally:
        P.k_descending_range.interpret = None
    expected = list(range(lo, hi, step))
    np.testing.assert_array_equal(out, [sum(expected), len(expected)])


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_flip_full_like_and_ones_like(dim):
    import gpu_kernels as G
    tilec.compile(G.flips, signature={"x_ptr": "*fp32", "out_ptr": "*fp32"},
                  constexprs={"M": 4, "N": 8, "DIM": dim}, stop_after="tile")
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    out = np.zeros_like(x)
    G.flips.interpret = True
    try:
        G.flips[(1,)](x, out, M=4, N=8, DIM=dim)
    finally:
        G.flips.interpret = None
    np.testing.assert_array_equal(out, np.flip(x, 1 if dim is None else dim) + 0.5)


# Mistakes the compiler finds while compiling and the interpreter while running the kernel:
# the same CompilationError at the same line (the line marked `# ERR`) in both modes.
FOUND_WHILE_RUNNING = {
    "k_constant_division_by_zero": "division by zero at compile time",
    "k_unbounded_recursion": "@tilec.jit calls nest more than 32 deep: a recursive call must "
                             "stop at compile time",
    "k_returns_a_value": "kernel k_returns_a_value returns a value",
    "k_store_rank_mismatch": r"has shape \[2, 2\] \(rank 1, not 2\)",
}


def _marked_line(*kernels) -> int:
    for kernel in kernels:
        lines, start = inspect.getsourcelines(kernel.fn)
        for i, line in enumerate(lines):
            if "# ERR" in line:
                return start + i
    raise AssertionError("no # ERR line")


@pytest.mark.parametrize("name", sorted(FOUND_WHILE_RUNNING))
def test_both_modes_report_mistakes_found_while_running_at_their_line(name):
    kernel = getattr(P, name)
    with pytest.raises(CompilationError, match=FOUND_WHILE_RUNNING[name]) as compiled:
        _compile(kernel)
    with pytest.raises(CompilationError, match=FOUND_WHILE_RUNNING[name]) as interpreted:
        _interpret(kernel, np.zeros(4, np.float32))
    expected = _marked_line(kernel, P.forever)
    assert compiled.value.line == interpreted.value.line == expected
    assert "internal compiler error" not in str(compiled.value)
    if name == "k_unbounded_recursion":  # the recursion's call sites once, with a count
        assert "(31 times)" in str(compiled.value)


def test_recursion_ending_at_compile_time_runs_in_both_modes():
    x = np.zeros(4, np.float32)
    _interpret(P.k_constexpr_recursion, x)
    assert x[:2].tolist() == [720.0, 1.0]
    tile_ir = _compile(P.k_constexpr_recursion).asm["tile"]
    assert "7.200000e+02" in tile_ir  # 6!, folded
    for n, parity in [(7, 0.0), (0, 1.0)]:
        x = np.zeros(4, np.float32)
        _interpret(P.k_constexpr_recursion, x, N=n)
        assert x[:2].tolist() == [math.factorial(n), parity]


@tilec.jit
def _python_mistakes(x_ptr, WHICH: tl.constexpr):
    if WHICH == 0:
        tl.store(x_ptr, 3 >> -1)  # a negative shift of constants
    elif WHICH == 1:
        tl.store(x_ptr, 1.5 | 3)  # a bitwise operator on a float constant
    elif WHICH == 3:
        tl.store(x_ptr, tl.cdiv(WHICH, 0))  # in the library (the interpreter did not map it)
    else:
        tl.store(x_ptr, (x_ptr * 2).to(tl.float32))  # pointers do not multiply (it aborted)


@pytest.mark.parametrize("which, message", [(0, "negative shift count"),
                                            (1, r"unsupported operand type"),
                                            (2, "not defined on pointers"),
                                            (3, "division by zero")])
def test_python_errors_on_constants_and_pointers_are_user_errors_in_both_modes(which, message):
    with pytest.raises(CompilationError, match=message) as compiled:
        _compile(_python_mistakes, WHICH=which)
    assert "internal compiler error" not in str(compiled.value)
    with pytest.raises(CompilationError, match=message) as interpreted:
        _interpret(_python_mistakes, np.zeros(4, np.float32), WHICH=which)
    assert compiled.value.line == interpreted.value.line


@tilec.jit
def _huge_constant(x_ptr, WHICH: tl.constexpr):
    if WHICH == 0:
        tl.store(x_ptr, 2 ** 100000)  # ERR: more digits than Python writes (internal error)
    elif WHICH == 1:
        tl.store(x_ptr, (1 << 5000) >> 4990)
    else:
        tl.store(x_ptr, (True << (2 ** 64 + 1)) > 0)  # a bool shifted: MemoryError (fuzzer)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_huge_compile_time_integers_are_user_errors(which):
    with pytest.raises(CompilationError, match="has more than 4096 bits") as compiled:
        _compile(_huge_constant, WHICH=which)
    assert "internal compiler error" not in str(compiled.value)
    assert compiled.value.line == _marked_line(_huge_constant) + 2 * which


def test_a_shift_too_large_for_memory_is_a_user_error_in_the_interpreter():
    with pytest.raises(CompilationError, match="overflow at compile time") as interpreted:
        _interpret(_huge_constant, np.zeros(4, np.float32), WHICH=2)
    assert interpreted.value.line == _marked_line(_huge_constant) + 4


def test_huge_integers_are_described_not_written_out():
    with pytest.raises(CompilationError, match=r"integer constant \(a 100001-bit integer\) "
                                               "does not fit in 64 bits"):
        _interpret(_huge_constant, np.zeros(4, np.float32), WHICH=0)


@tilec.jit
def _broadcast_past_the_limit(x_ptr, B: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, B)
    grid = offs[:, None] * C + tl.arange(0, C)[None, :]  # ERR: 2^26 elements
    tl.store(x_ptr + grid, tl.load(x_ptr + grid))


def test_blocks_made_by_broadcasting_have_at_most_2_20_elements_in_both_modes():
    # Only blocks created with a shape were checked: broadcasting made a 2^26-element block,
    # which the interpreter ground through for minutes (a fuzzer "hang")
    said = r"a block of shape \[1048576, 64\] has 67108864 elements; at most 1048576"
    with pytest.raises(CompilationError, match=said) as compiled:
        _compile(_broadcast_past_the_limit, B=1 << 20, C=64)
    with pytest.raises(CompilationError, match=said) as interpreted:
        _interpret(_broadcast_past_the_limit, np.zeros(4, np.float32), B=1 << 20, C=64)
    assert compiled.value.line == interpreted.value.line == _marked_line(
        _broadcast_past_the_limit)


@tilec.jit
def _whole_reductions_keeping_dims(x_ptr, out_ptr):
    offs = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
    x = tl.load(x_ptr + offs)
    total = tl.sum(x, axis=None, keep_dims=True)
    low, where = tl.min(x, axis=None, return_indices=True, keep_dims=True)
    high = tl.argmax(x, axis=None, keep_dims=True)
    tl.static_assert(total.shape == [1, 1] and where.shape == [1, 1] and high.shape == [1, 1])
    one = tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :]
    tl.store(out_ptr + one, total)
    tl.store(out_ptr + 1 + one, low)
    tl.store(out_ptr + 2 + one, where.to(tl.float32))
    tl.store(out_ptr + 3 + one, high.to(tl.float32))


def test_whole_reductions_keep_every_dimension_as_1_in_both_modes():
    # keep_dims=True over the whole block gave [1] (Triton: [1, 1] of a 2-D block), and
    # min/max with return_indices over the whole block was refused in the interpreter
    tilec.compile(_whole_reductions_keeping_dims, signature={"x_ptr": "*fp32", "out_ptr": "*fp32"},
                  stop_after="tile")
    x = np.random.default_rng(0).permutation(32).astype(np.float32)
    out = np.zeros(4, np.float32)
    _whole_reductions_keeping_dims.interpret = True
    try:
        _whole_reductions_keeping_dims[(1,)](x, out)
    finally:
        _whole_reductions_keeping_dims.interpret = None
    assert out.tolist() == [x.sum(), x.min(), x.argmin(), x.argmax()]


@pytest.mark.gpu
def test_whole_reductions_keeping_dims_on_the_gpu():
    import torch
    x = torch.randperm(32, generator=torch.Generator().manual_seed(0)).float().cuda()
    out = torch.zeros(4, device="cuda")
    _whole_reductions_keeping_dims[(1,)](x, out)
    assert out.tolist() == [x.sum().item(), x.min().item(), x.argmin().item(),
                            x.argmax().item()]
