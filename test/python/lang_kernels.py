"""Kernels exercising the language surface; test_language.py compiles them and reads the IR."""
import tilec
import tilec.language as tl

SCALE = 3  # a module-level constant
OFFSET: tl.constexpr = tl.constexpr(5)  # a tl.constexpr global


@tilec.jit
def helper_early_return(x, limit):
    if x > limit:
        return x - limit
    return x + limit


@tilec.jit
def helper_nested(x):
    return helper_early_return(x, 2) * SCALE + OFFSET


@tilec.jit
def control_flow(X, Y, n, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    # runtime if/elif/else yielding a value
    if pid == 0:
        y = x + 1.0
    elif pid < n:
        y = x * 2.0
    else:
        y = x
    # constexpr if: folded, no scf.if
    if FLAG:
        y = y - 3.0
    # for over range carrying two values; augmented assignment
    acc = tl.zeros([16], dtype=tl.float32)
    count = 0
    for i in range(0, n):
        acc += y
        count += 1
    # static_range unrolls
    for j in tl.static_range(3):
        acc = acc * 2.0
    # while carrying a scalar
    k = pid
    while k < n:
        k = k + 4
    # tuple unpacking, Python min/max on scalars, conditional expression
    a, b = min(pid, n), max(pid, n)
    c = a if pid > 1 else b
    z = helper_nested(c)
    print("acc", acc)
    tl.store(Y + offs, acc + count + k + z)


@tilec.jit
def shapes(X, Y, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(X + r)
    z = tl.zeros([BLOCK], tl.float32) + tl.zeros_like(x) + tl.full([BLOCK], 2.0, tl.float32)
    m = tl.reshape(x, (4, BLOCK // 4))
    v = tl.view(m, (BLOCK // 4, 4))
    p = tl.permute(m, (1, 0))
    t = tl.trans(m)
    e = tl.expand_dims(x, 0)
    bt = tl.broadcast_to(e, (2, BLOCK))
    b1, b2 = tl.broadcast(e, tl.expand_dims(x, 1))
    j = tl.join(x, z)
    s1, s2 = tl.split(j)
    c = tl.cat(x, z, can_reorder=True)
    f = tl.ravel(p) + tl.ravel(t) + tl.ravel(v)
    h = x.to(tl.float16).to(tl.float32, bitcast=False) + tl.cast(x, tl.int32, bitcast=True).to(tl.float32)
    tl.store(Y + r, f + s1 + s2 + h + tl.sum(bt, 0) + tl.sum(b1 + b2, 0) + tl.sum(tl.reshape(c, (2, BLOCK)), 0))


@tilec.jit
def memory(X, I, Y, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    m = r < 10
    x = tl.load(X + r, mask=m, other=0.0, cache_modifier=".cg", eviction_policy="evict_last")
    tl.store(Y + r, x, mask=m, cache_modifier=".cs", eviction_policy="evict_first")
    tl.atomic_add(Y + r, x, mask=m, sem="relaxed", scope="cta")
    tl.atomic_max(Y + r, x)
    tl.atomic_min(Y + r, x)
    tl.atomic_xchg(Y + r, x)
    iv = tl.load(I + r)
    tl.atomic_and(I + r, iv)
    tl.atomic_or(I + r, iv)
    tl.atomic_xor(I + r, iv)
    tl.atomic_cas(I, 0, 1)
    tl.store(Y + r, tl.load(X + r, volatile=True))


@tilec.jit
def math_ops(X, Y, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(X + r)
    a = tl.where(x > 0, x, -x) + tl.minimum(x, 1.0) + tl.maximum(x, 0.0) + tl.clamp(x, 0.0, 1.0)
    a += tl.abs(x) + tl.ceil(x) + tl.floor(x) + tl.exp(x) + tl.exp2(x) + tl.log(x) + tl.log2(x)
    a += tl.sin(x) + tl.cos(x) + tl.sqrt(x) + tl.sqrt_rn(x) + tl.rsqrt(x) + tl.sigmoid(x)
    a += tl.softmax(x) + tl.erf(x) + tl.fma(x, x, x) + tl.fdiv(x, 3.0) + tl.div_rn(x, 3.0)
    u = tl.umulhi(r.to(tl.uint32), 7)
    i, j = tl.swizzle2d(tl.program_id(0), tl.program_id(1), 8, 8, 4)
    n = tl.cdiv(BLOCK, 3)
    tl.store(Y + r, a + u.to(tl.float32) + i + j + n)


@tilec.jit
def _pair_max(a, ia, b, ib):
    keep = a >= b
    return tl.where(keep, a, b), tl.where(keep, ia, ib)


@tilec.jit
def reductions(X, Y, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.reshape(tl.load(X + r), (4, BLOCK // 4))
    s = tl.sum(x, axis=1) + tl.max(x, 1) + tl.min(x, axis=1) + x.sum(1)
    am = tl.argmax(x, 1) + tl.argmin(x, axis=1)
    mx, idx = tl.max(x, 1, return_indices=True)
    xi = x.to(tl.int32)
    xs = tl.xor_sum(xi, 1)
    kd = tl.sum(x, 1, keep_dims=True)
    total = tl.sum(x)
    v, vi = tl.reduce((x, xi), 1, _pair_max)
    cs = tl.cumsum(x, 1) + tl.cumprod(x, axis=1, reverse=True)
    sc = tl.associative_scan(x, 0, _add)
    srt = tl.sort(x, descending=True)
    g = tl.gather(x, xi % 4, 0)
    h = tl.histogram(r % 8, 8)
    out = s + am + mx + idx + xs + v + vi + tl.sum(kd, 1) + total + tl.sum(cs + sc + srt + g, 1)
    tl.store(Y + tl.arange(0, 4), out + tl.sum(h, 0))


@tilec.jit
def _add(a, b):
    return a + b


@tilec.jit
def dots(A, B, C, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    offs = r[:, None] * BLOCK + r[None, :]
    a = tl.load(A + offs)
    b = tl.load(B + offs)
    acc = tl.dot(a, b)
    acc = tl.dot(a, b, acc, input_precision="ieee")
    acc += tl.dot(a.to(tl.float32), b.to(tl.float32), allow_tf32=False)
    tl.store(C + offs, acc)


@tilec.jit
def random(Y, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    u = tl.rand(seed, offs)
    n = tl.randn(seed, offs)
    i = tl.randint(seed, offs)
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(Y + offs, u + n + (i ^ a ^ b ^ c ^ d).to(tl.float32))


@tilec.jit
def hints_and_debug(X, Y, n, BLOCK: tl.constexpr):
    r = tl.max_contiguous(tl.multiple_of(tl.arange(0, BLOCK), 16), 16)
    base = tl.max_constancy(tl.program_id(0) * BLOCK, 1)
    tl.assume(n > 0)
    tl.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")
    tl.static_print("compiling hints_and_debug with BLOCK =", BLOCK)
    x = tl.load(X + base + r)
    tl.device_print("x=", x)
    tl.device_assert(x == x, "no NaNs")
    tl.debug_barrier()
    for i in tl.range(0, n, num_stages=4):
        x += 1
    tl.store(Y + r, x)
