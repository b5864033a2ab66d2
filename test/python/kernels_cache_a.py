"""Cache-key fixtures for test_specialization.py: kernels_cache_a.py and kernels_cache_b.py
hold kernels with the same source text; only the body of `helper` differs between them."""
import sys

import tilec
import tilec.language as tl

lib = sys.modules[__name__]  # lets a kernel call the helper as an attribute (lib.helper)


@tilec.jit
def helper(x):
    return x + 1


@tilec.jit
def middle(x):
    return helper(x) * 2


@tilec.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs)))


@tilec.jit
def kernel_via_module(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, lib.helper(tl.load(x_ptr + offs)))


@tilec.jit
def kernel_transitive(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, middle(tl.load(x_ptr + offs)))
