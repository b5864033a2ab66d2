"""`tl.math`: Triton's math namespace, the math functions of tilec.language and libdevice's
(tan, tanh, sinh, cosh, asin, acos, atan, asinh, acosh, atanh, expm1, log1p, log10, cbrt, erfc,
trunc, round, rint, pow, atan2, copysign, fmod)."""
from tilec.language.builtins import (LIBDEVICE, abs, ceil, clamp, cos, div_rn, erf,  # noqa: F401
                                     exp, exp2, fdiv, floor, fma, log, log2, maximum, minimum,
                                     rsqrt, sin, sqrt, sqrt_rn, umulhi)
from tilec.language.standard import cdiv, sigmoid, softmax  # noqa: F401

globals().update(LIBDEVICE)
