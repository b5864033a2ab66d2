"""Kernels with one mistake each, for test_frontend_errors.py.

Each kernel marks the offending line with a trailing `# ERR` comment (the line a
CompilationError must name); a helper's call site is marked `# CALL`. Keep one marker per
function: the tests find it with inspect.getsourcelines.
"""
import tilec
import tilec.language as tl


def plain_python_helper(x):
    return x + 1


@tilec.jit
def k_try(x_ptr):
    offs = tl.arange(0, 16)
    try:  # ERR
        tl.store(x_ptr + offs, 1.0)
    except Exception:
        pass


class _Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


CTX = _Ctx()


@tilec.jit
def k_with(x_ptr):
    offs = tl.arange(0, 16)
    with CTX:  # ERR
        tl.store(x_ptr + offs, 1.0)


@tilec.jit
def k_lambda(x_ptr):
    offs = tl.arange(0, 16)
    f = lambda v: v + 1  # ERR  # noqa: E731
    tl.store(x_ptr + offs, f(offs))


@tilec.jit
def k_listcomp(x_ptr):
    offs = tl.arange(0, 16)
    vals = [i for i in range(4)]  # ERR
    tl.store(x_ptr + offs, offs + vals[0])


@tilec.jit
def k_break(x_ptr, n):
    offs = tl.arange(0, 16)
    acc = tl.zeros([16], tl.float32)
    for i in tl.range(n):
        acc += 1.0
        break  # ERR
    tl.store(x_ptr + offs, acc)


@tilec.jit
def k_continue(x_ptr, n):
    offs = tl.arange(0, 16)
    acc = tl.zeros([16], tl.float32)
    for i in tl.range(n):
        continue  # ERR
    tl.store(x_ptr + offs, acc)


@tilec.jit
def k_non_jit_call(x_ptr):
    offs = tl.arange(0, 16)
    y = plain_python_helper(offs)  # ERR
    tl.store(x_ptr + offs, y)


@tilec.jit
def k_binop_shape(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    c = a + b  # ERR
    tl.store(x_ptr + a, c)


@tilec.jit
def k_dot_shape(x_ptr):
    a = tl.zeros([16, 32], tl.float16)
    b = tl.zeros([16, 16], tl.float16)
    c = tl.dot(a, b)  # ERR
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs[:, None] * 16 + offs[None, :], c)


@tilec.jit
def k_load_non_pointer(x_ptr, n):
    offs = tl.arange(0, 16)
    v = tl.load(n + offs)  # ERR
    tl.store(x_ptr + offs, v)


@tilec.jit
def k_store_wrong_shape(x_ptr):
    offs = tl.arange(0, 16)
    v = tl.zeros([32], tl.float32)
    tl.store(x_ptr + offs, v)  # ERR


@tilec.jit
def k_loop_carried_type(x_ptr, n):
    offs = tl.arange(0, 16)
    a = tl.load(x_ptr + offs)
    acc = 0
    for i in tl.range(n):  # ERR
        acc += a
    tl.store(x_ptr + offs, acc)


@tilec.jit
def k_range_num_stages(x_ptr, n):
    offs = tl.arange(0, 16)
    for i in tl.range(n, num_stages=1000):  # ERR
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


@tilec.jit
def k_missing_constexpr(x_ptr, BLOCK: tl.constexpr):  # ERR
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0)


@tilec.jit
def bad_helper(x):
    y = tl.arange(0, 32)
    return x + y  # ERR


@tilec.jit
def k_error_in_helper(x_ptr):
    offs = tl.arange(0, 16)
    z = bad_helper(offs)  # CALL
    tl.store(x_ptr + offs, z)


@tilec.jit
def k_undefined_name(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, not_defined_anywhere)  # ERR  # noqa: F821


@tilec.jit
def helper_returns_in_loop(x, n):
    for i in tl.range(n):
        return x  # ERR
    return x


@tilec.jit
def k_return_in_loop(x_ptr, n):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, helper_returns_in_loop(offs, n))


@tilec.jit
def k_kernel_return_in_loop(x_ptr, n):
    offs = tl.arange(0, 16)
    for i in tl.range(n):
        tl.store(x_ptr + offs, offs)
        return  # ERR


@tilec.jit
def k_returns_value(x_ptr):
    offs = tl.arange(0, 16)
    return offs  # ERR


@tilec.jit
def k_sum_of_scalar(x_ptr, n):
    tl.store(x_ptr, tl.sum(n, 0))  # ERR


@tilec.jit
def k_softmax_of_int(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.softmax(offs))  # ERR


@tilec.jit
def k_expand_dims_bad_axis(x_ptr):
    t = tl.expand_dims(tl.arange(0, 16), 2)  # ERR
    tl.store(x_ptr + tl.arange(0, 16), tl.reshape(t, (16,)))


@tilec.jit
def k_expand_dims_duplicate_axes(x_ptr):
    t = tl.expand_dims(tl.arange(0, 16), (0, -3))  # ERR
    tl.store(x_ptr + tl.arange(0, 16), tl.reshape(t, (16,)))


@tilec.jit
def k_program_id_axis(x_ptr):
    pid = tl.program_id(20)  # ERR
    tl.store(x_ptr, pid)


@tilec.jit
def k_slice_index(x_ptr):
    x = tl.arange(0, 16)[2:]  # ERR
    tl.store(x_ptr + tl.arange(0, 16), x)


@tilec.jit
def k_huge_block(x_ptr):
    offs = tl.arange(0, 1048576)
    tl.store(x_ptr + offs, tl.sort(offs.to(tl.float32)))  # ERR: the largest, 2^20 pointers


@tilec.jit
def k_huge_block_in_library(x_ptr):
    offs = tl.arange(0, 1048576)
    tl.store(x_ptr, tl.sum(offs, axis=0))  # ERR: the reduction is in tl.sum's own code


@tilec.jit
def k_huge_elementwise(x_ptr, y_ptr):
    offs = tl.arange(0, 1048576)
    tl.store(y_ptr + offs, tl.exp(tl.load(x_ptr + offs)))  # ERR: 2^20 pointers, no reduction
