"""Kernels of test_debug_ops.py: device_print and device_assert. The GPU tests import this
module in a subprocess too (vprintf writes to the process's stdout, and a failed assert poisons
the CUDA context)."""
import tilec
import tilec.language as tl


@tilec.jit
def print_values(x_ptr, y_ptr, BLOCK: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    tl.device_print("x", x)
    tl.device_print("h", x, hex=True)
    rows = tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, COLS)[None, :]
    y = tl.load(y_ptr + pid * ROWS * COLS + rows * COLS + cols)
    print("y", y)
    print("pid", pid)
    print("done")


@tilec.jit
def print_types(h_ptr, b_ptr, BLOCK: tl.constexpr):
    h = tl.load(h_ptr + tl.arange(0, BLOCK))
    tl.device_print("h", h)
    tl.device_print("bits", h, hex=True)
    tl.device_print("big", h.to(tl.int64) * 1000000000000)
    tl.device_print("b", tl.load(b_ptr + tl.arange(0, BLOCK)) > 0)


@tilec.jit
def print_unsigned(u_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.device_print("u", tl.load(u_ptr + offs))  # uint32: values past 2^31 must not go negative
    tl.device_print("v", tl.load(v_ptr + offs))  # uint8


@tilec.jit
def print_percent(x_ptr):
    tl.device_print("100%", tl.load(x_ptr))


def positive(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x > 0, "x must be positive")


check_positive = tilec.jit(debug=True)(positive)
unchecked_positive = tilec.jit(positive)  # debug off: the assert is not compiled


@tilec.jit
def _in_range(i, n):
    assert i < n, "index past n"
    return i


@tilec.jit(debug=True)
def copy_checked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = _in_range(tl.arange(0, BLOCK), n)
    tl.store(out_ptr + i, tl.load(x_ptr + i))
