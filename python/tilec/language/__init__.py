"""tilec.language (`import tilec.language as tl`): the kernel language, with Triton's names.

The builtins (builtins.py) check their arguments and call the semantic layer (semantic.py,
shapes.py, memory.py, reductions.py), which owns promotion and IR building; the functions written
in the language itself (sum, softmax, rand, ...) are in standard.py and random.py.
"""
from tilec.language import core, dtypes, memory, reductions, semantic, shapes  # noqa: F401
from tilec.language.builtins import *  # noqa: F401,F403
from tilec.language.builtins import (__all__ as _builtins, abs, associative_scan, broadcast_to,
                                     cast, exp, expand_dims, gather, histogram, log, permute, ravel,
                                     reduce, reshape, sort, split, sqrt, trans, view)
from tilec.language.core import (constexpr, constexpr_function, language_function,  # noqa: F401
                                 tensor)
from tilec.language.dtypes import (bfloat16, block_type, const, dtype, float8e4nv,  # noqa: F401
                                   float8e5, float8e4b15, float8e4b8, float8e5b16, float16,
                                   float32, float64, int1, int8, int16, int32, int64, pi32_t,
                                   pointer_type, uint8, uint16, uint32, uint64, void)
from tilec.language.microscaling import dot_scaled  # noqa: F401
from tilec.language.random import rand, randint, randint4x, randn  # noqa: F401
from tilec.language.standard import (argmax, argmin, cdiv, cumprod, cumsum,  # noqa: F401
                                     flip, full_like, interleave, max, min, ones_like, sigmoid,
                                     softmax, sum, swizzle2d, topk, xor_sum)

from tilec.language import extra, math  # noqa: E402,F401  (tl.math, tl.extra.cuda)

# Methods on tensors (`x.to(...)`, `x.sum(0)`), resolved by the frontend and the interpreter.
TENSOR_METHODS = {
    "to": cast, "cast": cast, "reshape": reshape, "view": view, "ravel": ravel, "permute": permute,
    "trans": trans, "broadcast_to": broadcast_to, "expand_dims": expand_dims, "split": split,
    "sum": sum, "max": max, "min": min, "argmax": argmax, "argmin": argmin, "xor_sum": xor_sum,
    "cumsum": cumsum, "cumprod": cumprod, "sort": sort, "topk": topk, "reduce": reduce,
    "associative_scan": associative_scan, "histogram": histogram, "gather": gather,
    "sigmoid": sigmoid, "softmax": softmax, "exp": exp, "log": log, "sqrt": sqrt, "abs": abs,
}

__all__ = sorted({*_builtins, "constexpr", "constexpr_function", "language_function", "tensor",
                  "bfloat16", "block_type", "const", "dtype", "float16", "float32", "float64",
                  "float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16",
                  "dot_scaled", "int1",
                  "int8", "int16", "int32", "int64", "pi32_t", "pointer_type", "uint8", "uint16",
                  "uint32", "uint64", "void", "rand", "randint", "randint4x", "randn", "argmax",
                  "argmin", "cdiv", "cumprod", "cumsum", "flip", "full_like", "ones_like",
                  "interleave", "max", "min", "sigmoid",
                  "softmax", "sum", "swizzle2d", "topk", "xor_sum", "core", "dtypes", "semantic",
                  "math", "extra",
                  "TENSOR_METHODS"})
