"""Counter-based random numbers (Philox 4x32-10), written in the kernel language.

The same `seed` and `offset` give the same numbers wherever the kernel runs (GPU or
interpreter), because both compile or interpret this one definition. Philox is the block
cipher of Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC 2011): ten rounds of
two 32x32->64-bit multiplications whose halves are mixed with the key, which advances by fixed
Weyl constants.
"""
from __future__ import annotations

import tilec.language.builtins as tl
from tilec.language.core import language_function

PHILOX_KEY_A = tl.constexpr(0x9E3779B9)
PHILOX_KEY_B = tl.constexpr(0xBB67AE85)
PHILOX_ROUND_A = tl.constexpr(0xD2511F53)
PHILOX_ROUND_B = tl.constexpr(0xCD9E8D57)
N_ROUNDS_DEFAULT = tl.constexpr(10)


@language_function
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Philox on uint32 counters (c0..c3) and key (k0, k1)."""
    for _ in tl.static_range(n_rounds):
        a, b = c0, c2
        c0 = tl.umulhi(PHILOX_ROUND_B, b) ^ c1 ^ k0
        c2 = tl.umulhi(PHILOX_ROUND_A, a) ^ c3 ^ k1
        c1 = PHILOX_ROUND_B * b
        c3 = PHILOX_ROUND_A * a
        k0 = k0 + PHILOX_KEY_A
        k1 = k1 + PHILOX_KEY_B
    return c0, c1, c2, c3


@language_function
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    seed = tl.to_tensor(seed).to(tl.uint64)
    key_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
    key_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    c0 = c0.to(tl.uint32, bitcast=True)
    c1 = c1.to(tl.uint32, bitcast=True)
    c2 = c2.to(tl.uint32, bitcast=True)
    c3 = c3.to(tl.uint32, bitcast=True)
    return philox_impl(c0, c1, c2, c3, key_lo, key_hi, n_rounds)


@language_function
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for each offset (offsets: int32 block or scalar)."""
    offset = tl.to_tensor(offset).to(tl.uint32, bitcast=True)
    zero = offset * 0
    return philox(seed, offset, zero, zero, zero, n_rounds)


@language_function
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One block of random uint32 for each offset."""
    first, _, _, _ = randint4x(seed, offset, n_rounds)
    return first


@language_function
def uint_to_uniform_float(x):
    """uint32 -> float32 uniform in [0, 1): folds the sign bit away, then scales by 2**-31."""
    x = x.to(tl.int32, bitcast=True)
    x = tl.where(x < 0, -x - 1, x)
    return x.to(tl.float32) * 4.6566127342e-10


@language_function
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Uniform float32 in [0, 1) for each offset."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@language_function
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Standard normal float32 for each offset (Box-Muller on two uniforms)."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    u1 = tl.maximum(1.0e-7, uint_to_uniform_float(i1))
    u2 = uint_to_uniform_float(i2)
    radius = tl.sqrt(-2.0 * tl.log(u1))
    return radius * tl.cos(6.283185307179586 * u2)
