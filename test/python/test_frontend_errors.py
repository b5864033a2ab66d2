"""Every mistake in a kernel is a tilec.CompilationError at the user's file and line.

The kernels live in kernels_errors.py; each marks its offending line with `# ERR` (a helper's
call site with `# CALL`), so the expected line numbers follow the file as it is edited.
"""
from __future__ import annotations

import inspect
import os
import re
import warnings

import pytest

import kernels_errors as K
import tilec
from tilec import compiler
from tilec.language.core import SemanticError


def compile_tile(*args, **kwargs):
    """tilec.compile up to the `tile` stage: these tests are about the frontend."""
    return tilec.compile(*args, stop_after="tile", **kwargs)

KERNEL_FILE = inspect.getsourcefile(K)
SIGNATURE = {"x_ptr": "*fp32", "n": "i32"}


def marker_line(jit_fn, marker: str = "# ERR") -> int:
    lines, start = inspect.getsourcelines(jit_fn.fn)
    hits = [start + i for i, line in enumerate(lines) if marker in line]
    assert len(hits) == 1, f"{jit_fn.__name__} needs exactly one '{marker}' line"
    return hits[0]


def source_line(line: int) -> str:
    with open(KERNEL_FILE) as f:
        return f.read().splitlines()[line - 1]


def compile_error(jit_fn) -> tilec.CompilationError:
    signature = {k: v for k, v in SIGNATURE.items() if k in jit_fn.arg_names}
    with pytest.raises(tilec.CompilationError) as info:
        compile_tile(jit_fn, signature=signature)
    return info.value


def assert_points_at(err: tilec.CompilationError, line: int, token: str | None = None) -> None:
    """`err` names KERNEL_FILE:line, shows that line with a caret under its column, and (when
    `token` is given) the caret is at the start of `token`."""
    assert err.filename is not None and os.path.samefile(err.filename, KERNEL_FILE), err.filename
    assert err.line == line, f"expected line {line}, got {err.line}:\n{err}"
    text = str(err)
    assert text.startswith(f"{err.filename}:{line}:{(err.col or 0) + 1}: error: "), text
    src = source_line(line)
    shown = src.strip()
    lines = text.splitlines()
    shown_at = [i for i, l in enumerate(lines) if l.strip() == shown]
    assert shown_at, f"the source line {shown!r} is not shown:\n{text}"
    caret = lines[shown_at[0] + 1]
    assert caret.strip() == "^", f"no caret line under the source line:\n{text}"
    # The caret sits under column `col` of the source line as displayed.
    displayed = lines[shown_at[0]]
    offset = len(displayed) - len(displayed.lstrip()) - (len(src) - len(src.lstrip()))
    assert caret.index("^") == err.col + offset, text
    if token is not None:
        assert src[err.col:].startswith(token), \
            f"the caret points at {src[err.col:]!r}, not at {token!r}"
    assert_user_error(err)


def assert_user_error(err: tilec.CompilationError) -> None:
    text = str(err)
    assert "internal compiler error" not in text.lower(), text
    assert "Traceback" not in text
    # The cause, as in Triton, is the language's own error saying the same (never a Python
    # error from inside tilec).
    assert err.__cause__ is None or (isinstance(err.__cause__, SemanticError) and
                                     str(err.__cause__) in err.message), \
        f"a user error chained to an internal one: {err.__cause__!r}"


# name, token at the caret, what the message says it is
CASES = [
    ("k_try", "try", r"`try`"),
    ("k_with", "with", r"`with`"),
    ("k_lambda", "lambda", r"lambda"),
    ("k_listcomp", "[", r"comprehension"),
    ("k_break", "break", r"`break`"),
    ("k_continue", "continue", r"`continue`"),
    ("k_non_jit_call", "plain_python_helper", r"'plain_python_helper' is not a @tilec\.jit"),
    ("k_binop_shape", "a + b", r"\[16\].*\[32\]"),
    ("k_dot_shape", "tl.dot", r"tl\.dot.*32.*16"),
    ("k_load_non_pointer", "tl.load", r"tl\.load needs a pointer.*int32"),
    ("k_store_wrong_shape", "tl.store", r"tl\.store.*\[32\].*\[16\]"),
    ("k_loop_carried_type", "for", r"'acc'.*changes type.*int32.*float32"),
    ("k_range_num_stages", "tl.range", r"num_stages must be an integer from 0 to 32, got 1000"),
    ("k_undefined_name", "not_defined_anywhere", r"'not_defined_anywhere' is not defined"),
    ("k_kernel_return_in_loop", "return", r"`return` inside a loop"),
    ("k_expand_dims_bad_axis", "tl.expand_dims", r"invalid axis 2 for a result of rank 2"),
    ("k_expand_dims_duplicate_axes", "tl.expand_dims", r"duplicate axes, normalized axes = \[0, 0\]"),
    ("k_program_id_axis", "tl.program_id", r"program_id axis must be 0, 1, or 2 but got 20"),
    ("k_slice_index", "tl.arange", r"unsupported tensor index slice\(2, None, None\)"),
]


@pytest.mark.parametrize("name,token,what", CASES, ids=[c[0] for c in CASES])
def test_error_names_the_offending_line(name, token, what):
    fn = getattr(K, name)
    err = compile_error(fn)
    assert_points_at(err, marker_line(fn), token)
    assert re.search(what, err.message), err.message


# name, what the message tells the user to do
ADVICE = [
    ("k_try", r"tl\.device_assert"),
    pytest.param("k_with", r"\b(use|instead|move|remove|call)\b"),
    ("k_lambda", r"@tilec\.jit function"),
    ("k_listcomp", r"tl\.static_range"),
    ("k_break", r"`while` loop's condition"),
    ("k_continue", r"guard .* with `if`"),
    ("k_non_jit_call", r"decorate 'plain_python_helper' with @tilec\.jit"),
    pytest.param("k_binop_shape", r"\b(broadcast\w* (it|one|them)|reshape|expand_dims|\[:, None\]|"
                                  r"use|make)\b"),
    ("k_dot_shape", r"a must be \[M, K\] and b \[K, N\]"),
    ("k_load_non_pointer", r"pass a pointer argument plus offsets"),
    ("k_store_wrong_shape", r"store a value of the pointer's shape"),
    ("k_loop_carried_type", r"give it its loop type before the loop"),
    ("k_missing_constexpr", r"constexprs="),
    pytest.param("k_undefined_name", r"\b(define|pass|import|argument|global)\b"),
    ("k_kernel_return_in_loop", r"return after it"),
]


@pytest.mark.parametrize("name,advice", ADVICE,
                         ids=[getattr(c, "values", c)[0] for c in ADVICE])
def test_error_says_what_to_do(name, advice):
    signature = {k: v for k, v in SIGNATURE.items() if k in getattr(K, name).arg_names}
    with pytest.raises(tilec.CompilationError) as info:
        compile_tile(getattr(K, name), signature=signature)
    assert re.search(advice, info.value.message), info.value.message


# --- missing constexpr: the error names the kernel's `def` line ---------------------------------

def test_missing_constexpr_is_a_compilation_error():
    err = compile_error(K.k_missing_constexpr)
    assert err.filename is not None and os.path.samefile(err.filename, KERNEL_FILE)
    assert "BLOCK" in err.message
    assert "k_missing_constexpr" in err.message
    assert_user_error(err)


def test_missing_constexpr_names_the_def_line():
    err = compile_error(K.k_missing_constexpr)
    assert_points_at(err, marker_line(K.k_missing_constexpr), "def")


def test_missing_constexpr_given_is_fine():
    kernel = compile_tile(K.k_missing_constexpr, signature={"x_ptr": "*fp32"},
                           constexprs={"BLOCK": 16})
    assert "tensor<16xf32>" in kernel.asm["tile"]


# --- errors inside an inlined @tilec.jit helper -------------------------------------------------

def test_error_in_helper_names_helper_line_and_call_site():
    err = compile_error(K.k_error_in_helper)
    helper_line = marker_line(K.bad_helper)
    call_line = marker_line(K.k_error_in_helper, "# CALL")
    assert_points_at(err, helper_line, "x + y")
    assert re.search(r"\[16\].*\[32\]", err.message)
    site = f"{KERNEL_FILE}:{call_line}"
    assert any(os.path.samefile(s.rsplit(":", 1)[0], KERNEL_FILE)
               and int(s.rsplit(":", 1)[1]) == call_line for s in err.call_sites), err.call_sites
    assert f"called from {site}" in str(err), str(err)
    # The call site comes after the error's own line and caret.
    text = str(err).splitlines()
    assert text.index(f"  called from {site}") > [i for i, l in enumerate(text)
                                                   if l.strip() == "^"][0]


def test_return_in_loop_in_helper():
    err = compile_error(K.k_return_in_loop)
    assert_points_at(err, marker_line(K.helper_returns_in_loop), "return")
    assert "`return` inside a loop" in err.message
    lines, start = inspect.getsourcelines(K.k_return_in_loop.fn)
    call_line = start + next(i for i, l in enumerate(lines) if "helper_returns_in_loop(" in l)
    assert f"called from {KERNEL_FILE}:{call_line}" in str(err), str(err)


# --- the IR carries the same locations -----------------------------------------------------------

def test_ops_carry_source_locations():
    kernel = compile_tile(K.k_missing_constexpr, signature={"x_ptr": "*fp32"},
                           constexprs={"BLOCK": 16})
    lines, start = inspect.getsourcelines(K.k_missing_constexpr.fn)
    store_line = start + next(i for i, l in enumerate(lines) if "tl.store" in l)
    text = kernel.asm["tile"]
    assert re.search(rf'loc\("{re.escape(KERNEL_FILE)}":{store_line}:5\)', text), text


def test_kernel_returning_a_value_names_the_return_line():
    err = compile_error(K.k_returns_value)
    assert "returns a value" in err.message
    assert_points_at(err, marker_line(K.k_returns_value), "return")


# --- misuse of library functions written in the language (tl.sum, tl.softmax) ---------------------

@pytest.mark.parametrize("name,what", [("k_sum_of_scalar", r"scalar"),
                                       ("k_softmax_of_int", r"floating-point.*int32")])
def test_library_function_misuse_mentions_the_user_line(name, what):
    fn = getattr(K, name)
    err = compile_error(fn)
    assert re.search(what, err.message), err.message
    assert f"{KERNEL_FILE}:{marker_line(fn)}" in str(err), str(err)
    assert_user_error(err)


@pytest.mark.parametrize("name", ["k_sum_of_scalar", "k_softmax_of_int"])
def test_library_function_misuse_is_reported_at_the_user_line(name):
    fn = getattr(K, name)
    err = compile_error(fn)
    assert os.path.samefile(err.filename, KERNEL_FILE), err.filename
    assert err.line == marker_line(fn)


@pytest.mark.parametrize("name", ["k_program_id_axis", "k_slice_index", "k_dot_shape"])
def test_the_cause_is_the_languages_error_saying_the_same(name, monkeypatch):
    """As in Triton, a kernel error's __cause__ is the language's own error (what Triton's tests
    read), in the compiler and in the interpreter alike."""
    err = compile_error(getattr(K, name))
    assert isinstance(err.__cause__, SemanticError) and str(err.__cause__) in err.message
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    import numpy as np
    with pytest.raises(tilec.CompilationError) as interpreted:
        getattr(K, name)[(1,)](np.zeros(16, np.float32))
    assert str(interpreted.value.__cause__) == str(err.__cause__)


def test_a_block_far_too_large_for_the_threads_is_out_of_resources_at_once():
    """2^20 elements in 128 threads: 16384 registers each (it took 46 s to compile into 40k
    spills); refused before lowering, naming the line that makes the block."""
    with pytest.raises(tilec.OutOfResources, match=r"needs about \d+ registers in each of the "
                       r"128 threads of k_huge_block \(a thread has 255\): use smaller blocks"
                       ) as info:
        compile_tile(K.k_huge_block, signature={"x_ptr": "*fp32"})
    assert f"{KERNEL_FILE}:{marker_line(K.k_huge_block)}:" in str(info.value)


def test_elementwise_code_over_a_block_far_too_large_is_out_of_resources_at_once():
    """Nothing held whole, but 2^20 pointers streamed through 128 threads (the fuzzer's seed
    800 kernel 35): LLVM did not finish compiling it in 20 minutes; refused before lowering."""
    import time
    start = time.perf_counter()
    with pytest.raises(tilec.OutOfResources, match=r"needs about 16384 registers") as info:
        compile_tile(K.k_huge_elementwise, signature={"x_ptr": "*fp32", "y_ptr": "*fp32"})
    assert f"{KERNEL_FILE}:{marker_line(K.k_huge_elementwise)}:" in str(info.value)
    assert time.perf_counter() - start < 10


def test_out_of_resources_in_a_library_function_names_the_users_line():
    with pytest.raises(tilec.OutOfResources, match="needs about") as info:
        compile_tile(K.k_huge_block_in_library, signature={"x_ptr": "*i32"})
    assert f"{KERNEL_FILE}:{marker_line(K.k_huge_block_in_library)}:" in str(info.value)


def test_heavy_spills_are_a_warning():
    with pytest.warns(UserWarning, match=r"k_huge_block: ptxas spills 3104 bytes"):
        compiler._warn_of_spills(K.k_huge_block, {"spill_stores": 3104})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiler._warn_of_spills(K.k_huge_block, {"spill_stores": 512})
