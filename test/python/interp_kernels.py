"""Kernels for test_interpreter.py: correct ones, and ones with a planted bug (marked BUG)."""
import tilec
import tilec.language as tl


@tilec.jit
def copy_unmasked(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n)
    tl.store(dst + offs, x)  # BUG: no mask, the last block runs past the end


@tilec.jit
def copy_masked(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


@tilec.jit
def row_gather_i32(src, dst, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0) + 40000  # rows far into a huge (virtual) matrix
    offs = row * stride + tl.arange(0, BLOCK)  # BUG: row * stride overflows int32
    tl.store(dst + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK),
             tl.load(src + offs - row * stride))


@tilec.jit
def row_gather_i64(src, dst, stride, BLOCK: tl.constexpr):
    row = (tl.program_id(0) + 40000).to(tl.int64)
    offs = row * stride + tl.arange(0, BLOCK)
    tl.store(dst + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK),
             tl.load(src + offs - row * stride))


@tilec.jit
def racy_sum(src, out, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    partial = tl.sum(tl.load(src + offs), axis=0)
    tl.store(out, tl.load(out) + partial)  # BUG: every program stores to out[0]


@tilec.jit
def atomic_sum(src, out, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out, tl.sum(tl.load(src + offs), axis=0))


@tilec.jit
def elementwise(x_ptr, y_ptr, out_ptr, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if OP == "floordiv":
        z = x // y
    elif OP == "mod":
        z = x % y
    elif OP == "add":
        z = x + y
    elif OP == "mul":
        z = x * y
    elif OP == "shr":
        z = x >> y
    elif OP == "div":
        z = x / y
    else:
        z = tl.where(x < y, x, y)
    tl.store(out_ptr + offs, z)


@tilec.jit
def philox_block(seed, out0, out1, out2, out3, offset_base, BLOCK: tl.constexpr):
    offs = offset_base + tl.arange(0, BLOCK)
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(out0 + tl.arange(0, BLOCK), a)
    tl.store(out1 + tl.arange(0, BLOCK), b)
    tl.store(out2 + tl.arange(0, BLOCK), c)
    tl.store(out3 + tl.arange(0, BLOCK), d)


@tilec.jit
def philox_raw(c0, c1, c2, c3, k0, k1, out, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x0, x1, x2, x3 = tl.random.philox_impl(tl.load(c0 + r), tl.load(c1 + r), tl.load(c2 + r),
                                           tl.load(c3 + r), tl.load(k0 + r), tl.load(k1 + r))
    tl.store(out + r * 4, x0)
    tl.store(out + r * 4 + 1, x1)
    tl.store(out + r * 4 + 2, x2)
    tl.store(out + r * 4 + 3, x3)


@tilec.jit
def uniform_and_normal(seed, u_out, n_out, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(u_out + offs, tl.rand(seed, offs))
    tl.store(n_out + offs, tl.randn(seed, offs))


@tilec.jit
def _first_max(v1, i1, v2, i2):
    take = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@tilec.jit
def reductions(x_ptr, out_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + r)
    rows = tl.arange(0, ROWS)
    tl.store(out_ptr + rows, tl.sum(x, axis=1))
    tl.store(out_ptr + ROWS + rows, tl.max(x, axis=1))
    tl.store(out_ptr + 2 * ROWS + rows, tl.argmax(x, axis=1).to(tl.float32))
    tl.store(out_ptr + 3 * ROWS + rows, tl.argmin(x, axis=1).to(tl.float32))
    idx = tl.broadcast_to(tl.arange(0, COLS)[None, :], (ROWS, COLS))
    best, where = tl.reduce((x, idx), 1, _first_max)
    tl.store(out_ptr + 4 * ROWS + rows, where.to(tl.float32))
    tl.store(out_ptr + 5 * ROWS + r, tl.cumsum(x, axis=1))
    tl.store(out_ptr + 5 * ROWS + ROWS * COLS + r, tl.sort(x, descending=True))


@tilec.jit
def int_ops(x_ptr, out_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    tl.store(out_ptr + r, tl.histogram(x % BLOCK, BLOCK))
    tl.store(out_ptr + BLOCK + r, tl.gather(x, (r + 1) % BLOCK, 0))
    tl.store(out_ptr + 2 * BLOCK + r, tl.xor_sum(x, 0) + r * 0)
    tl.store(out_ptr + 3 * BLOCK + r, tl.cumsum(x, 0, reverse=True))


@tilec.jit
def atomics(counter, flags, out, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    old = tl.atomic_add(counter + r % 4, 1)  # duplicate addresses within the block
    tl.store(out + tl.program_id(0) * BLOCK + r, old)
    tl.atomic_max(counter + 4, tl.program_id(0))
    prev = tl.atomic_cas(flags, 0, tl.program_id(0) + 1)
    tl.store(out + 1000 + tl.program_id(0), prev)


@tilec.jit
def int8_dot(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    offs = r[:, None] * N + r[None, :]
    c = tl.dot(tl.load(a_ptr + offs), tl.load(b_ptr + offs))
    tl.store(c_ptr + offs, c)


@tilec.jit
def printing(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    print("x is", x)
    tl.device_print("x =", x)


@tilec.jit
def asserting(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x > 0, "x must be positive")


@tilec.jit
def strided_copy(src, dst, s0, s1, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    tl.store(dst + r * C + c, tl.load(src + r * s0 + c * s1))


@tilec.jit
def store_flag(out, value):
    # every program writes `value` to out[0]: the same value from each unless value < 0
    v = tl.where(value < 0, tl.program_id(0), value)
    tl.store(out + tl.arange(0, 2), tl.full((2,), v, tl.int32))


@tilec.jit
def interleave_pairs(a, b, out, pair, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(a + r)
    tl.store(out + tl.arange(0, 2 * N), tl.interleave(x, tl.load(b + r)))
    tl.store(pair + tl.arange(0, 2), tl.interleave(tl.load(a), tl.load(b)))  # two scalars
    tl.store(pair + 2 + tl.arange(0, N), x.cast(tl.float32).to(tl.int32) + 1)


@tilec.jit
def shift_right(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(z_ptr + r, tl.load(x_ptr + r) >> tl.load(y_ptr + r))


@tilec.jit
def where_pointers(a_ptr, b_ptr, cond_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    chosen = tl.where(tl.load(cond_ptr + r) != 0, a_ptr + r, b_ptr + r)  # pointer tensors
    tl.store(out_ptr + r, tl.load(chosen))
    scalar = tl.where(tl.load(cond_ptr) != 0, a_ptr, b_ptr)  # two pointer arguments
    tl.store(out_ptr + N + r, tl.load(scalar + r))
