"""NumPy implementations of the `tl` builtins, used when a kernel is interpreted.

Each function has its builtin's name and signature (without `_semantic`); tilec.language's
builtins call it when they are called from running Python instead of from the compiler. The
checks are the semantic layer's own (check_* functions), so both modes reject the same
programs with the same messages.
"""
from __future__ import annotations

import time

import numpy as np

from tilec.errors import DeviceAssertionError
from tilec.interpreter import arith, program
from tilec.interpreter.arith import broadcast_all, broadcast_to, cast, to_block
from tilec.interpreter.state import active, current, where
from tilec.interpreter.values import Block, numpy_dtype
from tilec.kernel import JITFunction
from tilec.language import builtins
from tilec.language import dtypes as T
from tilec.language import memory as lang_memory
from tilec.language import reductions as lang_reductions
from tilec.language import semantic
from tilec.language import shapes as lang_shapes
from tilec.language.builtins import const_value, dtype_value, grid_axis, shape_value
from tilec.language.core import SemanticError, register_interpreter, unwrap

IMPLEMENTATIONS = {}


def implements(fn):
    IMPLEMENTATIONS[fn.__name__] = fn
    return fn


_const, _shape, _dtype = const_value, shape_value, dtype_value


def _call(fn, *args):
    return program.call_jit(fn, args, {}) if isinstance(fn, JITFunction) else fn(*args)


# --- programming model ----------------------------------------------------------------------

@implements
def program_id(axis):
    return Block(np.int32(current().pid[grid_axis(axis, "program_id")]), T.int32)


@implements
def num_programs(axis):
    return Block(np.int32(current().grid[grid_axis(axis, "num_programs")]), T.int32)


# --- creation and shapes ----------------------------------------------------------------------

@implements
def arange(start, end):
    start, end = _const(start, "arange start"), _const(end, "arange end")
    lang_shapes.check_arange(start, end)
    return Block(np.arange(start, end, dtype=np.int32), T.int32)


@implements
def full(shape, value, dtype):
    shape, dtype = lang_shapes.check_shape(_shape(shape)), _dtype(dtype)
    value = cast(to_block(unwrap(value), dtype) if not isinstance(unwrap(value), Block)
                 else unwrap(value), dtype)
    return Block(np.array(np.broadcast_to(value.data, shape)), dtype)


@implements
def zeros(shape, dtype):
    return full(shape, 0, dtype)


@implements
def zeros_like(input):
    return full(input.shape, 0, input.dtype)


@implements
def to_tensor(x):
    return to_block(x)


@implements
def cast_(input, dtype, fp_downcast_rounding=None, bitcast=False):
    return cast(to_block(input), _dtype(dtype), unwrap(fp_downcast_rounding), bool(unwrap(bitcast)))


IMPLEMENTATIONS["cast"] = cast_


@implements
def broadcast(input, other):
    return tuple(broadcast_all(to_block(input), to_block(other)))


def _shape_args(shape):
    if len(shape) == 1 and isinstance(unwrap(shape[0]), (tuple, list)):
        shape = unwrap(shape[0])
    return [int(_const(s, "shape")) for s in shape]


def broadcast_to_(input, *shape):
    return broadcast_to(to_block(input), lang_shapes.check_shape(_shape_args(shape)))


IMPLEMENTATIONS["broadcast_to"] = broadcast_to_


@implements
def expand_dims(input, axis):
    x = to_block(input)
    data = x.data
    for a in lang_shapes.expand_dims_axes(x.data.ndim, _const(axis, "axis")):
        data = np.expand_dims(data, a)
    return Block(data, x.elem, None, x.provenance)


def _reshape(x, shape):
    x = to_block(x)
    shape = lang_shapes.check_reshape(x, shape)
    flags = None if x.overflow is None else x.overflow.reshape(shape)
    return Block(x.data.reshape(shape), x.elem, flags, x.provenance)


@implements
def reshape(input, *shape, can_reorder=False):
    return _reshape(input, _shape_args(shape))


@implements
def view(input, *shape):
    return _reshape(input, _shape_args(shape))


@implements
def ravel(x, can_reorder=False):
    x = to_block(x)
    return _reshape(x, [x.numel])


def _permute(x, order):
    x = to_block(x)
    flags = None if x.overflow is None else np.transpose(x.overflow, order)
    return Block(np.transpose(x.data, order), x.elem, flags, x.provenance)


@implements
def permute(input, *dims):
    x = to_block(input)
    return _permute(x, lang_shapes.check_permutation(x, [_const(d, "dims") for d in
                                                         _shape_args(dims)]))


@implements
def trans(input, *dims):
    x = to_block(input)
    dims = tuple(_const(d, "dims") for d in _shape_args(dims)) if dims else ()
    return _permute(x, lang_shapes.transpose_dims(x, dims))


@implements
def join(a, b):
    a, b = to_block(a), to_block(b)
    lang_shapes.check_join(a, b)
    a, b = broadcast_all(a, b)
    return Block(np.stack([a.data, b.data], axis=-1), a.elem)


@implements
def split(a):
    a = to_block(a)
    lang_shapes.check_split(a)
    return Block(a.data[..., 0], a.elem), Block(a.data[..., 1], a.elem)


@implements
def cat(input, other, can_reorder=False):
    a, b = to_block(input), to_block(other)
    lang_shapes.check_cat(a, b)
    return Block(np.concatenate([a.data, b.data], axis=0), a.elem)


# --- memory -------------------------------------------------------------------------------------

def _mask_block(mask, ptr: Block, op: str):
    if mask is None:
        return None
    mask = to_block(mask)
    lang_memory.check_mask(mask, op)
    return broadcast_to(mask, ptr.shape, "the mask")


@implements
def _load_pointers(pointer, mask=None, other=None, cache_modifier="", eviction_policy="",
                  volatile=False):
    ptr = lang_memory.check_pointer(unwrap(pointer), "load")
    mask, other = unwrap(mask), unwrap(other)
    lang_memory.check_other(mask, other)
    lang_memory.choice(lang_memory._LOAD_CACHE, unwrap(cache_modifier), "cache_modifier")
    element = ptr.dtype.element_ty
    if element.is_bool():  # booleans live in memory as bytes
        loaded = _load_pointers(cast(ptr, T.pointer_type(T.int8)), mask,
                      None if other is None else cast(to_block(other), T.int8))
        return Block(loaded.data != 0, T.int1)
    mask = _mask_block(mask, ptr, "load")
    if other is not None:
        other = broadcast_to(cast(to_block(other), element), ptr.shape, "`other`")
    state = current()
    return state.memory.load(ptr, mask, other, where())


@implements
def _store_pointers(pointer, value, mask=None, cache_modifier="", eviction_policy=""):
    ptr = lang_memory.check_pointer(unwrap(pointer), "store")
    lang_memory.check_writable(ptr, "store")
    value = to_block(unwrap(value))
    lang_memory.check_store_shape(value, ptr)
    lang_memory.choice(lang_memory._STORE_CACHE, unwrap(cache_modifier), "cache_modifier")
    try:
        value = broadcast_to(value, ptr.shape, "the stored value")
    except SemanticError as err:
        raise SemanticError(f"tl.store: {err}; store a value of the pointer's shape") from None
    element = ptr.dtype.element_ty
    if element.is_bool():
        ptr = cast(ptr, T.pointer_type(T.int8))
        element = T.int8
    value = cast(value, element)
    mask = _mask_block(unwrap(mask), ptr, "store")
    state = current()
    state.memory.store(ptr, value, mask, state.linear_pid, where())


def _atomic(kind):
    def atomic(pointer, val, mask=None, sem=None, scope=None):
        ptr = lang_memory.check_pointer(unwrap(pointer), f"atomic_{kind}")
        lang_memory.check_writable(ptr, f"atomic_{kind}")
        element = ptr.dtype.element_ty
        if kind in ("and", "or", "xor") and not element.is_int():
            raise SemanticError(f"tl.atomic_{kind} needs integer pointees, got {element}")
        val = broadcast_to(cast(to_block(unwrap(val)), element), ptr.shape, "the value")
        mask = _mask_block(unwrap(mask), ptr, f"atomic_{kind}")
        state = current()
        return state.memory.atomic(kind, ptr, val, None, mask, state.linear_pid, where())
    atomic.__name__ = f"atomic_{kind}"
    return implements(atomic)


for _kind in ("add", "and", "or", "xor", "max", "min", "xchg"):
    _atomic(_kind)


@implements
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    ptr = lang_memory.check_pointer(unwrap(pointer), "atomic_cas")
    lang_memory.check_writable(ptr, "atomic_cas")
    element = ptr.dtype.element_ty
    val = broadcast_to(cast(to_block(unwrap(val)), element), ptr.shape, "the value")
    cmp = broadcast_to(cast(to_block(unwrap(cmp)), element), ptr.shape, "`cmp`")
    state = current()
    return state.memory.atomic("cas", ptr, val, cmp, None, state.linear_pid, where())


# --- math -------------------------------------------------------------------------------------

@implements
def where_(condition, x, y):
    return arith.where(unwrap(condition), unwrap(x), unwrap(y))


IMPLEMENTATIONS["where"] = where_


@implements
def minimum(x, y, propagate_nan=False):
    return arith.min_max(unwrap(x), unwrap(y), bool(unwrap(propagate_nan)), "min")


@implements
def maximum(x, y, propagate_nan=False):
    return arith.min_max(unwrap(x), unwrap(y), bool(unwrap(propagate_nan)), "max")


@implements
def clamp(x, min, max, propagate_nan=False):
    x = to_block(unwrap(x))
    if not x.elem.is_floating():
        raise SemanticError(f"tl.clamp works on floating-point blocks, got {x.elem}; use "
                            "tl.minimum(tl.maximum(x, lo), hi) for integers")
    nan = bool(unwrap(propagate_nan))
    return arith.min_max(arith.min_max(x, unwrap(min), nan, "max"), unwrap(max), nan, "min")


for _name in semantic.UNARY_MATH_NAMES:
    IMPLEMENTATIONS[_name] = (lambda n: lambda x: arith.unary_math(n, unwrap(x)))(_name)
for _name in semantic.BINARY_MATH_NAMES:
    IMPLEMENTATIONS[_name] = (lambda n: lambda x, y: arith.binary_math(n, unwrap(x),
                                                                      unwrap(y)))(_name)
IMPLEMENTATIONS["sqrt_rn"] = lambda x: arith.unary_math("sqrt", unwrap(x))
IMPLEMENTATIONS["abs"] = lambda x: arith.abs_(unwrap(x))


@implements
def fma(x, y, z):
    return arith.fma(unwrap(x), unwrap(y), unwrap(z))


@implements
def fdiv(x, y, ieee_rounding=False):
    return arith.truediv(unwrap(x), unwrap(y))


@implements
def div_rn(x, y):
    return arith.truediv(unwrap(x), unwrap(y))


@implements
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    semantic.check_inline_asm(unwrap(asm), unwrap(constraints), unwrap(args), unwrap(dtype),
                              unwrap(pack))
    raise SemanticError("tl.inline_asm_elementwise runs on the GPU only: the interpreter cannot "
                        "run PTX; compute the same with tl operations when interpreting")


@implements
def globaltimer():
    return Block(np.int64(time.perf_counter_ns()), T.int64)


@implements
def smid():
    return Block(np.int32(0), T.int32)  # one "SM": programs run one after another


@implements
def num_threads():
    raise SemanticError("tl.extra.cuda.num_threads() runs on the GPU only: the interpreter runs "
                        "each program as one thread of Python")


@implements
def umulhi(x, y):
    return arith.umulhi(unwrap(x), unwrap(y))


# --- reductions, scans and friends --------------------------------------------------------------

def _inputs(input):
    input = unwrap(input)
    many = isinstance(input, (tuple, list))
    blocks = [to_block(x) for x in (input if many else [input])]
    return lang_reductions.check_inputs(blocks, "reduce"), many


def _combined(fn, left, right, types):
    out = _call(fn, *left, *right)
    out = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(out) != len(types):
        raise SemanticError(f"the combine function must return {len(types)} value(s), one per "
                            f"input; it returned {len(out)}")
    return [cast(to_block(o), t).data for o, t in zip(out, types)]


@implements
def reduce(input, axis, combine_fn, keep_dims=False):
    """Pairwise (tree) reduction: log2(n) vectorised calls of the combine function."""
    blocks, many = _inputs(input)
    axis = _const(axis, "axis")
    if axis is None:
        blocks = [Block(b.data.reshape(-1), b.elem) for b in blocks]
        axis = 0
    axis = lang_reductions.normalize_axis(axis, len(blocks[0].shape), "reduce")
    types = [b.elem for b in blocks]
    arrays = [np.moveaxis(b.data, axis, -1) for b in blocks]
    while arrays[0].shape[-1] > 1:
        n = arrays[0].shape[-1]
        half = n // 2
        left = [Block(a[..., :half], t) for a, t in zip(arrays, types)]
        right = [Block(a[..., half:2 * half], t) for a, t in zip(arrays, types)]
        merged = _combined(combine_fn, left, right, types)
        if n % 2:  # an odd element left over joins the first partial result
            tail = [Block(a[..., -1:], t) for a, t in zip(arrays, types)]
            first = [Block(m[..., :1], t) for m, t in zip(merged, types)]
            head = _combined(combine_fn, first, tail, types)
            merged = [np.concatenate([h, m[..., 1:]], axis=-1) for h, m in zip(head, merged)]
        arrays = merged
    results = [Block(a[..., 0], t) for a, t in zip(arrays, types)]
    if unwrap(keep_dims):
        results = [Block(np.expand_dims(r.data, axis), r.elem) for r in results]
    return tuple(results) if many else results[0]


@implements
def associative_scan(input, axis, combine_fn, reverse=False):
    """Inclusive scan by doubling (Hillis-Steele): log2(n) vectorised combine calls."""
    blocks, many = _inputs(input)
    axis = lang_reductions.normalize_axis(_const(axis, "axis"), len(blocks[0].shape),
                                          "associative_scan")
    types = [b.elem for b in blocks]
    arrays = [np.moveaxis(b.data, axis, -1) for b in blocks]
    if unwrap(reverse):
        arrays = [a[..., ::-1] for a in arrays]
    n, step = arrays[0].shape[-1], 1
    while step < n:
        earlier = [Block(a[..., :n - step], t) for a, t in zip(arrays, types)]
        later = [Block(a[..., step:], t) for a, t in zip(arrays, types)]
        merged = _combined(combine_fn, earlier, later, types)
        arrays = [np.concatenate([a[..., :step], m], axis=-1) for a, m in zip(arrays, merged)]
        step *= 2
    if unwrap(reverse):
        arrays = [a[..., ::-1] for a in arrays]
    results = [Block(np.moveaxis(a, -1, axis), t) for a, t in zip(arrays, types)]
    return tuple(results) if many else results[0]


@implements
def sort(x, dim=None, descending=False):
    x = to_block(unwrap(x))
    dim = lang_reductions.sort_dim(x, _const(dim, "dim"))
    data = np.sort(x.data, axis=dim)
    if _const(descending, "descending"):
        data = np.flip(data, axis=dim)
    return Block(np.ascontiguousarray(data), x.elem)


@implements
def gather(src, index, axis):
    src, index = to_block(unwrap(src)), to_block(unwrap(index))
    axis = lang_reductions.check_gather(src, index, _const(axis, "axis"))
    return Block(np.take_along_axis(src.data, index.data.astype(np.int64), axis=axis), src.elem)


@implements
def histogram(input, num_bins):
    x = to_block(unwrap(input))
    num_bins = _const(num_bins, "num_bins")
    lang_reductions.check_histogram(x, num_bins)
    values = x.data.astype(np.int64)
    inside = (values >= 0) & (values < num_bins)
    counts = np.bincount(values[inside], minlength=num_bins)[:num_bins]
    return Block(counts.astype(np.int32), T.int32)


def _round_to_tf32(values):
    bits = values.astype(np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    return rounded.view(np.float32)


@implements
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=T.float32):
    a, b = to_block(unwrap(input)), to_block(unwrap(other))
    acc = None if unwrap(acc) is None else to_block(unwrap(acc))
    out_dtype, shape, precision = lang_reductions.check_dot(
        a, b, acc, _const(input_precision, "input_precision"), _const(allow_tf32, "allow_tf32"),
        _dtype(out_dtype, "out_dtype"))
    if a.elem.is_int():
        product = np.matmul(a.data.astype(np.int64), b.data.astype(np.int64))
    else:
        x, y = a.data.astype(np.float32), b.data.astype(np.float32)
        if a.elem.is_fp64():
            x, y = a.data, b.data
        elif a.elem.is_fp32() and precision == "tf32":  # tensor cores round inputs to tf32
            x, y = _round_to_tf32(x), _round_to_tf32(y)
        product = np.matmul(x, y)
    if acc is not None:
        product = product + acc.data
    with np.errstate(all="ignore"):
        return Block(product.astype(numpy_dtype(out_dtype)), out_dtype)


# --- iterators, hints, debugging --------------------------------------------------------------

def _int(value) -> int:
    value = unwrap(value)
    return int(value)


def range_(arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, **ignored):
    start, end = (0, arg1) if arg2 is None else (arg1, arg2)
    return range(_int(start), _int(end), 1 if step is None else _int(step))


IMPLEMENTATIONS["range"] = range_
IMPLEMENTATIONS["static_range"] = lambda arg1, arg2=None, step=None: range_(arg1, arg2, step)


for _name in ("multiple_of", "max_contiguous", "max_constancy"):
    IMPLEMENTATIONS[_name] = lambda input, values: to_block(unwrap(input))


def _compile_time(name: str):
    """Builtins that only look at compile-time values behave the same when interpreted."""
    IMPLEMENTATIONS[name] = getattr(builtins, name).__wrapped__


for _name in ("assume", "static_print", "static_assert"):
    _compile_time(_name)


@implements
def debug_barrier():
    return None


@implements
def device_print(prefix, *args, hex=False):
    prefix = unwrap(prefix)
    if not isinstance(prefix, str):
        args, prefix = (prefix, *args), ""
    pid = current().pid
    shown = []
    for arg in args:
        arg = unwrap(arg)
        data = arg.data if isinstance(arg, Block) else np.asarray(arg)
        shown.append(np.vectorize(lambda v: f"0x{int(v):x}")(data) if unwrap(hex) else data)
    print(f"pid ({pid[0]}, {pid[1]}, {pid[2]}) {prefix}", *shown)


@implements
def device_assert(cond, msg=""):
    cond = unwrap(cond)
    data = cond.data if isinstance(cond, Block) else np.asarray(cond)
    if not np.all(data):
        raise DeviceAssertionError(f"device_assert failed: {unwrap(msg)}", *where())


register_interpreter(IMPLEMENTATIONS, active, program.call_jit)
