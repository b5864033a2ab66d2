"""The builtins of the kernel language (`tl.load`, `tl.dot`, ...), with Triton's names.

Builtins are thin: they check and unwrap their arguments and call the semantic layer
(semantic.py, shapes.py, memory.py, reductions.py), which owns promotion and asks the current
builder (builder.py) for the ops. The same body runs when compiling and when interpreting: the
frontend calls a builtin with `_semantic=` (the code generator), an interpreted kernel without
(core.builtin passes the NumPy builder). The functions written in the language itself (sum,
softmax, rand, ...) are in standard.py and random.py, which use these.
"""
from __future__ import annotations

import numbers
import sys

from tilec.language import block_pointer, memory, reductions, semantic, shapes
from tilec.language.builder import current as _builder
from tilec.language.core import (MAX_NUM_STAGES, RangeSpec, SemanticError, builtin, tensor,
                                 unwrap)

# The library (standard.py, random.py) writes `tl.uint32`, `tl.constexpr`: as `tl`, this module
# carries the names of the types too.
from tilec.language.core import constexpr  # noqa: E402,F401  (isort: skip)
from tilec.language.dtypes import (bfloat16, block_type, dtype, float16, float32,  # noqa: F401
                                   float64, int1, int8, int16, int32, int64, pointer_type, uint8,
                                   uint16, uint32, uint64, void)


# Triton's spelling for NaN propagation in minimum/maximum/clamp.
class PropagateNan:
    NONE = False
    ALL = True


def _u(value):
    """Unwrap a constexpr; a tensor where a compile-time value is required is an error."""
    return unwrap(value)


def const_value(value, what: str):
    value = unwrap(value)
    if isinstance(value, tensor):
        raise SemanticError(f"{what} must be a compile-time constant (tl.constexpr)")
    return value


def shape_value(shape, what="shape"):
    shape = const_value(shape, what)
    if isinstance(shape, int):
        return [shape]
    return [int(const_value(s, what)) for s in shape]


def dtype_value(value, what="dtype") -> dtype:
    value = const_value(value, what)
    if not isinstance(value, dtype):
        raise SemanticError(f"{what} must be a tl dtype such as tl.float32, got {value!r}")
    return value


# --- programming model ------------------------------------------------------------------------

def grid_axis(axis, what: str) -> int:
    axis = const_value(axis, "axis")
    if axis not in (0, 1, 2):
        raise SemanticError(f"{what} axis must be 0, 1, or 2 but got {axis}")
    return axis


@builtin
def program_id(axis, _semantic=None) -> tensor:
    return _builder().program_id(grid_axis(axis, "program_id"))


@builtin
def num_programs(axis, _semantic=None) -> tensor:
    return _builder().num_programs(grid_axis(axis, "num_programs"))


# --- creation and shapes ------------------------------------------------------------------------

@builtin
def arange(start, end, _semantic=None) -> tensor:
    return shapes.arange(const_value(start, "arange start"), const_value(end, "arange end"))


@builtin
def full(shape, value, dtype, _semantic=None) -> tensor:
    return shapes.full(shape_value(shape), _u(value), dtype_value(dtype))


@builtin
def zeros(shape, dtype, _semantic=None) -> tensor:
    return shapes.full(shape_value(shape), 0, dtype_value(dtype))


@builtin
def zeros_like(input, _semantic=None) -> tensor:
    return shapes.full(input.shape, 0, input.dtype)


@builtin
def to_tensor(x, _semantic=None) -> tensor:
    return semantic.to_tensor(x)


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None) -> tensor:
    return semantic.cast(semantic.to_tensor(input), dtype_value(dtype), _u(fp_downcast_rounding),
                         bool(_u(bitcast)))


@builtin
def broadcast(input, other, _semantic=None):
    a, b = semantic.broadcast_all(semantic.to_tensor(input), semantic.to_tensor(other))
    return a, b


@builtin
def broadcast_to(input, *shape, _semantic=None) -> tensor:
    if len(shape) == 1 and isinstance(_u(shape[0]), (tuple, list)):
        shape = _u(shape[0])
    return shapes.broadcast(input, shape_value(shape))


@builtin
def expand_dims(input, axis, _semantic=None) -> tensor:
    x = semantic.to_tensor(input)
    for a in shapes.expand_dims_axes(len(x.shape), const_value(axis, "axis")):
        x = semantic.expand_dims(x, a)
    return x


@builtin
def reshape(input, *shape, can_reorder=False, _semantic=None) -> tensor:
    if len(shape) == 1 and isinstance(_u(shape[0]), (tuple, list)):
        shape = _u(shape[0])
    return shapes.reshape(semantic.to_tensor(input), shape_value(shape), bool(_u(can_reorder)))


@builtin
def view(input, *shape, _semantic=None) -> tensor:
    if len(shape) == 1 and isinstance(_u(shape[0]), (tuple, list)):
        shape = _u(shape[0])
    return shapes.reshape(semantic.to_tensor(input), shape_value(shape), can_reorder=True)


@builtin
def ravel(x, can_reorder=False, _semantic=None) -> tensor:
    x = semantic.to_tensor(x)
    return shapes.reshape(x, [x.numel], bool(_u(can_reorder)))


@builtin
def permute(input, *dims, _semantic=None) -> tensor:
    if len(dims) == 1 and isinstance(_u(dims[0]), (tuple, list)):
        dims = _u(dims[0])
    return shapes.permute(input, [const_value(d, "dims") for d in dims])


@builtin
def trans(input, *dims, _semantic=None) -> tensor:
    if len(dims) == 1 and isinstance(_u(dims[0]), (tuple, list)):
        dims = _u(dims[0])
    return shapes.trans(input, tuple(const_value(d, "dims") for d in dims))


@builtin
def join(a, b, _semantic=None) -> tensor:
    return shapes.join(a, b)


@builtin
def split(a, _semantic=None):
    return shapes.split(a)


@builtin
def cat(input, other, can_reorder=False, _semantic=None) -> tensor:
    return shapes.cat(semantic.to_tensor(input), semantic.to_tensor(other))


# --- memory (block pointers: block_pointer.py) ---------------------------------------------

def _operator(op: str, a, b):
    return semantic.compare(op, a, b) if op in ("<", ">=") else semantic.binary(op, a, b)


def _sum(a, b):
    if block_pointer.is_int(a) and block_pointer.is_int(b):
        return unwrap(a) + unwrap(b)  # literal offsets fold
    return _operator("+", a, b)


def _index_value(value, ty: dtype, what: str, _semantic):
    """An integer argument of a block pointer as a `ty` scalar; literals stay Python ints."""
    value = unwrap(value)
    if block_pointer.is_int(value):
        return value
    block_pointer.check_int_scalar(value, what)
    return cast(value, ty, _semantic=_semantic)


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order, _semantic=None):
    """A block pointer (language/block_pointer.py): `block_shape` elements of the tensor at
    `base` with `shape` and `strides`, starting at `offsets`; `order` lists the dimensions
    fastest-varying first. Shapes and strides are int64, offsets int32, as in Triton."""
    base, shape, strides, offsets, block_shape, order = block_pointer.check_make(
        base, shape, strides, offsets, block_shape, order)
    return block_pointer.block_pointer(
        base, tuple(_index_value(v, int64, "shape", _semantic) for v in shape),
        tuple(_index_value(v, int64, "strides", _semantic) for v in strides),
        tuple(_index_value(v, int32, "offsets", _semantic) for v in offsets), block_shape, order)


@builtin
def advance(base, offsets, _semantic=None):
    """The block pointer `base` moved by `offsets` (one per dimension)."""
    bp, offsets = block_pointer.check_advance(base, offsets)
    moved = tuple(_sum(old, _index_value(step, int32, "offsets", _semantic))
                  for old, step in zip(bp.offsets, offsets))
    return block_pointer.block_pointer(bp.base, bp.shape, bp.strides, moved, bp.block_shape,
                                       bp.order)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero",
                           _semantic=None):
    """A tensor descriptor (Triton's): the tensor at `base` with `shape` and `strides` (the
    last stride 1), read and written `block_shape` elements at a time by `desc.load(offsets)`
    and `desc.store(offsets, value)`; out-of-bounds elements load as `padding_option` ("zero"
    or "nan") and are not stored."""
    base, shape, strides, block_shape, padding = block_pointer.check_descriptor(
        base, shape, strides, block_shape, padding_option)
    shape = tuple(_index_value(v, int64, "shape", _semantic) for v in shape)
    strides = tuple(_index_value(v, int64, "strides", _semantic) for v in strides)
    as_tensors = [semantic.cast(semantic.to_tensor(v), int64) for v in shape + strides]
    made = _builder().make_tensormap(base, as_tensors[:len(shape)], as_tensors[len(shape):],
                                     block_shape, padding)
    if made is None:
        return block_pointer.tensor_descriptor(base, shape, strides, block_shape, padding)
    tensormap, swizzle = made
    return block_pointer.tensor_descriptor(
        base, shape, strides, block_shape, padding, tensormap=tensormap, tma_swizzle=swizzle,
        tma_usable=memory.tma_map_usable(base, as_tensors[len(shape):]))


def _descriptor_lanes(op: str, desc, offsets, _semantic):
    """(pointers, mask, padding) of the block of `desc` at `offsets`, every dimension masked."""
    desc, offsets = block_pointer.check_descriptor_access(desc, offsets, f"desc.{op}")
    at = block_pointer.block_pointer(
        desc.base, desc.shape, desc.strides,
        tuple(_index_value(o, int32, "offsets", _semantic) for o in offsets), desc.block_shape,
        desc.order)
    every = tuple(d for d, _ in enumerate(desc.block_shape))  # (`range` here is tl.range)
    return _block_pointer_lanes(op, at, None, None, every, desc.padding, _semantic)


@builtin
def _descriptor_load(desc, offsets, _semantic=None) -> tensor:
    """desc.load(offsets): the block at `offsets`, out-of-bounds elements the padding."""
    checked, at = block_pointer.check_descriptor_access(desc, offsets, "desc.load")
    def through_pointers():
        pointers, mask, other = _descriptor_lanes("load", desc, offsets, _semantic)
        return _load_pointers(pointers, mask, other, _semantic=_semantic)
    if checked.tensormap is not None:
        return memory.tma_load(checked, at, through_pointers)
    return through_pointers()


def _check_block(desc, value, op: str):
    value = _u(value)
    shape = list(getattr(value, "shape", []))
    if shape != list(desc.block_shape):
        raise SemanticError(f"desc.{op}: the value's shape {shape} is not the descriptor's block "
                            f"shape {list(desc.block_shape)}")
    return value


@builtin
def _descriptor_store(desc, offsets, value, _semantic=None) -> None:
    """desc.store(offsets, value): `value` (of the block shape) written at `offsets`, the
    out-of-bounds elements dropped."""
    checked, at = block_pointer.check_descriptor_access(desc, offsets, "desc.store")
    value = _check_block(checked, value, "store")

    def through_pointers():
        pointers, mask, _ = _descriptor_lanes("store", desc, offsets, _semantic)
        _store_pointers(pointers, value, mask, _semantic=_semantic)
    if checked.tensormap is not None:
        return memory.tma_store(checked, at, value, through_pointers)
    return through_pointers()


def _descriptor_atomic(kind):
    @builtin
    def atomic(desc, offsets, value, _semantic=None) -> None:
        checked, at = block_pointer.check_descriptor_access(desc, offsets, f"desc.atomic_{kind}")
        value = _check_block(checked, value, f"atomic_{kind}")

        def through_pointers():
            pointers, mask, _ = _descriptor_lanes(f"atomic_{kind}", desc, offsets, _semantic)
            memory.atomic_rmw(kind, pointers, value, mask, None, None)
        if checked.tensormap is not None and memory.tma_reduces(checked, kind):
            return memory.tma_store(checked, at, value, through_pointers, reduce=kind)
        return through_pointers()
    atomic.__name__ = atomic.__qualname__ = f"_descriptor_atomic_{kind}"
    return atomic


def _block_pointer_lanes(op: str, bp, mask, other, boundary_check, padding_option, _semantic):
    """(pointers, mask or None, other or None): the block pointer `bp` as the block of element
    pointers base + sum_d (offsets[d] + arange(block_shape[d])) * strides[d], masked to
    0 <= index < shape[d] along boundary_check's dimensions."""
    if _u(mask) is not None or _u(other) is not None:
        raise SemanticError(f"tl.{op}: `mask` and `other` cannot be given for a block pointer; "
                            "use boundary_check (and padding_option) instead")
    rank = len(bp.block_shape)
    checked = block_pointer.checked_dims(boundary_check, rank, f"tl.{op}")
    fill = block_pointer.check_padding(bp, padding_option, f"tl.{op}")
    pointers, mask = bp.base, None
    for d, size in enumerate(bp.block_shape):
        index = _sum(arange(0, size, _semantic=_semantic), bp.offsets[d])
        along_d = [1] * rank  # (`range` here is tl.range)
        along_d[d] = size
        index = reshape(index, along_d, _semantic=_semantic)
        step = _operator("*", cast(index, int64, _semantic=_semantic), bp.strides[d])
        pointers = _operator("+", pointers, step)
        if d in checked:
            inside = _operator("&", _operator(">=", index, 0), _operator("<", index, bp.shape[d]))
            mask = inside if mask is None else _operator("&", mask, inside)
    pointers = broadcast_to(pointers, list(bp.block_shape), _semantic=_semantic)
    if mask is not None:
        mask = broadcast_to(mask, list(bp.block_shape), _semantic=_semantic)
    return pointers, mask, fill if mask is not None else None


def _not_a_descriptor(pointer, op: str) -> None:
    if isinstance(pointer, block_pointer.tensor_descriptor):
        raise SemanticError(f"tl.{op} takes pointers and block pointers; a tensor descriptor "
                            f"is read and written with desc.load(offsets) / desc.store(...)")


def _plain_pointer_checks(op: str, boundary_check, padding_option="") -> None:
    if _u(boundary_check) or _u(padding_option):
        raise SemanticError(f"tl.{op}: `boundary_check` and `padding_option` apply to block "
                            "pointers (tl.make_block_ptr) only: the compiler does not know the "
                            "bounds of a block of pointers or a scalar; use a mask")


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False, _semantic=None) -> tensor:
    pointer = _u(pointer)
    _not_a_descriptor(pointer, "load")
    if isinstance(pointer, block_pointer.block_pointer):
        pointer, mask, other = _block_pointer_lanes("load", pointer, mask, other, boundary_check,
                                                    padding_option, _semantic)
    else:
        _plain_pointer_checks("load", boundary_check, padding_option)
    return _load_pointers(pointer, mask, other, cache_modifier, eviction_policy, volatile,
                         _semantic=_semantic)


@builtin
def _load_pointers(pointer, mask=None, other=None, cache_modifier="", eviction_policy="",
                  volatile=False, _semantic=None) -> tensor:
    """tl.load of a pointer or a block of pointers (what tl.load of a block pointer becomes)."""
    return memory.load(_u(pointer), _u(mask), _u(other),
                       const_value(cache_modifier, "cache_modifier"),
                       const_value(eviction_policy, "eviction_policy"),
                       const_value(volatile, "volatile"))


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="",
          _semantic=None) -> None:
    pointer = _u(pointer)
    _not_a_descriptor(pointer, "store")
    if isinstance(pointer, block_pointer.block_pointer):
        pointer, mask, _ = _block_pointer_lanes("store", pointer, mask, None, boundary_check, "",
                                                _semantic)
    else:
        _plain_pointer_checks("store", boundary_check)
    return _store_pointers(pointer, value, mask, cache_modifier, eviction_policy,
                          _semantic=_semantic)


@builtin
def _store_pointers(pointer, value, mask=None, cache_modifier="", eviction_policy="",
                   _semantic=None) -> None:
    """tl.store to a pointer or a block of pointers."""
    memory.store(_u(pointer), _u(value), _u(mask), const_value(cache_modifier, "cache_modifier"),
                 const_value(eviction_policy, "eviction_policy"))


def _atomic(kind):
    @builtin
    def atomic(pointer, val, mask=None, sem=None, scope=None, _semantic=None) -> tensor:
        return memory.atomic_rmw(kind, _u(pointer), _u(val), _u(mask), const_value(sem, "sem"),
                                 const_value(scope, "scope"))
    atomic.__name__ = atomic.__qualname__ = f"atomic_{kind}"
    return atomic


atomic_add = _atomic("add")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_xchg = _atomic("xchg")

# desc.load, desc.store, desc.atomic_add, ... (language/block_pointer.py's tensor_descriptor)
block_pointer.DESCRIPTOR_METHODS.update(
    load=_descriptor_load, store=_descriptor_store,
    **{f"atomic_{kind}": _descriptor_atomic(kind) for kind in ("add", "min", "max", "and", "or",
                                                              "xor")})


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _semantic=None) -> tensor:
    return memory.atomic_cas(_u(pointer), _u(cmp), _u(val), const_value(sem, "sem"),
                             const_value(scope, "scope"))


# --- math -------------------------------------------------------------------------------------

@builtin
def where(condition, x, y, _semantic=None) -> tensor:
    return semantic.where(_u(condition), _u(x), _u(y))


@builtin
def minimum(x, y, propagate_nan=PropagateNan.NONE, _semantic=None) -> tensor:
    return semantic.minimum(_u(x), _u(y), bool(_u(propagate_nan)))


@builtin
def maximum(x, y, propagate_nan=PropagateNan.NONE, _semantic=None) -> tensor:
    return semantic.maximum(_u(x), _u(y), bool(_u(propagate_nan)))


@builtin
def clamp(x, min, max, propagate_nan=PropagateNan.NONE, _semantic=None) -> tensor:
    x = semantic.to_tensor(_u(x))
    if not x.dtype.is_floating():
        raise SemanticError(f"tl.clamp works on floating-point blocks, got {x.dtype}; use "
                            "tl.minimum(tl.maximum(x, lo), hi) for integers")
    nan = bool(_u(propagate_nan))
    return semantic.minimum(semantic.maximum(x, _u(min), nan), _u(max), nan)


def _math1(name: str, rounded: bool = False):
    @builtin
    def fn(x, _semantic=None) -> tensor:
        return semantic.unary_math(name, _u(x), rounded)
    fn.__name__ = fn.__qualname__ = name + ("_rn" if rounded else "")
    return fn


exp = _math1("exp")
exp2 = _math1("exp2")
log = _math1("log")
log2 = _math1("log2")
sin = _math1("sin")
cos = _math1("cos")
sqrt = _math1("sqrt")
sqrt_rn = _math1("sqrt", rounded=True)
rsqrt = _math1("rsqrt")
erf = _math1("erf")
floor = _math1("floor")
ceil = _math1("ceil")


def _math2(name: str):
    @builtin
    def fn(x, y, _semantic=None) -> tensor:
        return semantic.binary_math(name, _u(x), _u(y))
    fn.__name__ = fn.__qualname__ = name
    return fn


# The functions of libdevice beyond those above, by name: they live in the tl.math and
# tl.extra.cuda.libdevice namespaces only (`round` and `pow` would shadow Python's at top
# level). `round` is half away from zero, as libdevice's; `rint` rounds half to even.
LIBDEVICE = {f.__name__: f for f in
             [_math1(n) for n in semantic.UNARY_MATH_NAMES if n not in globals()] +
             [_math2(n) for n in semantic.BINARY_MATH_NAMES]}


@builtin
def abs(x, _semantic=None) -> tensor:
    return semantic.abs_(_u(x))


@builtin
def fma(x, y, z, _semantic=None) -> tensor:
    return semantic.fma(_u(x), _u(y), _u(z))


@builtin
def fdiv(x, y, ieee_rounding=False, _semantic=None) -> tensor:
    return semantic.truediv(_u(x), _u(y), approximate=not _u(ieee_rounding))


@builtin
def div_rn(x, y, _semantic=None) -> tensor:
    return semantic.truediv(_u(x), _u(y), approximate=False)


@builtin
def umulhi(x, y, _semantic=None) -> tensor:
    return semantic.umulhi(_u(x), _u(y))


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack, _semantic=None):
    """PTX `asm` applied to each `pack` elements of `args` (broadcast together): its operands
    are $0.. in `constraints`' order, outputs ("=r", "=h", "=l", "=f", "=d") first; with pack > 1
    each register holds `pack` elements (e.g. four int8 in an "r"). One result per `dtype`
    (a tuple of dtypes gives a tuple). GPU only: the interpreter cannot run PTX."""
    dtypes = _u(dtype)
    results = semantic.inline_asm_elementwise(
        const_value(asm, "asm"), const_value(constraints, "constraints"),
        [_u(a) for a in _u(args)] if isinstance(_u(args), (tuple, list)) else [_u(args)],
        [_u(d) for d in dtypes] if isinstance(dtypes, (tuple, list)) else [dtypes],
        bool(const_value(is_pure, "is_pure")), const_value(pack, "pack"))
    return tuple(results) if isinstance(dtypes, (tuple, list)) else results[0]


# tl.extra.cuda's special registers (language/extra/cuda).
def _special_register(name: str, doc: str):
    @builtin
    def fn(_semantic=None) -> tensor:
        return _builder().special_register(name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


CUDA = {f.__name__: f for f in (
    _special_register("globaltimer", "The GPU's global nanosecond timer (%globaltimer), int64."),
    _special_register("smid", "The id of the SM the program runs on (%smid), int32."),
    _special_register("num_threads", "Threads per program: num_warps * 32 (%ntid.x), int32."))}


# --- reductions, scans and friends --------------------------------------------------------------

def _tensors(input):
    input = _u(input)
    return (list(input), True) if isinstance(input, (tuple, list)) else ([input], False)


@builtin
def reduce(input, axis, combine_fn, keep_dims=False, _semantic=None):
    inputs, many = _tensors(input)
    results = reductions.reduce(inputs, const_value(axis, "axis"),
                                _semantic.combine_function(combine_fn), bool(_u(keep_dims)))
    return tuple(results) if many else results[0]


@builtin
def associative_scan(input, axis, combine_fn, reverse=False, _semantic=None):
    inputs, many = _tensors(input)
    results = reductions.scan(inputs, const_value(axis, "axis"),
                              _semantic.combine_function(combine_fn), bool(_u(reverse)))
    return tuple(results) if many else results[0]


@builtin
def sort(x, dim=None, descending=False, _semantic=None) -> tensor:
    return reductions.sort(_u(x), const_value(dim, "dim"),
                           bool(const_value(descending, "descending")))


@builtin
def gather(src, index, axis, _semantic=None) -> tensor:
    return reductions.gather(_u(src), _u(index), const_value(axis, "axis"))


@builtin
def histogram(input, num_bins, _semantic=None) -> tensor:
    return reductions.histogram(_u(input), const_value(num_bins, "num_bins"))


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=float32, _semantic=None) -> tensor:
    return reductions.dot(_u(input), _u(other), _u(acc),
                          const_value(input_precision, "input_precision"),
                          const_value(allow_tf32, "allow_tf32"),
                          const_value(max_num_imprecise_acc, "max_num_imprecise_acc"),
                          dtype_value(out_dtype, "out_dtype"))


# --- iterators --------------------------------------------------------------------------------

@builtin
def range(arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
          warp_specialize=None, _semantic=None, **ignored):
    """`for i in tl.range(...)`: an scf.for; `num_stages` asks the pipeliner for that depth,
    `warp_specialize=True` for a producer warpgroup issuing its TMA loads (a hint, as in
    Triton); `False` forbids one, and unset leaves it to the compiler (tilegpu-warp-specialize
    specialises persistent matmul loops)."""
    start, end = (0, arg1) if arg2 is None else (arg1, arg2)
    attrs = {}
    if num_stages is not None:
        stages = const_value(num_stages, "num_stages")
        if not isinstance(stages, numbers.Integral) or isinstance(stages, bool) or \
                not 0 <= stages <= MAX_NUM_STAGES:
            raise SemanticError(f"tl.range: num_stages must be an integer from 0 to "
                                f"{MAX_NUM_STAGES}, got {stages!r}")
        attrs["num_stages"] = int(stages)
    if warp_specialize is not None and unwrap(warp_specialize) is not None:
        attrs["warp_specialize"] = int(bool(const_value(warp_specialize, "warp_specialize")))
    if loop_unroll_factor is not None:
        attrs["loop_unroll_factor"] = const_value(loop_unroll_factor, "loop_unroll_factor")
    return RangeSpec(start, end, 1 if step is None else step, attributes=attrs)


@builtin
def static_range(arg1, arg2=None, step=None, _semantic=None):
    """`for i in tl.static_range(...)`: unrolled at compile time; bounds must be constexpr."""
    start, end = (0, arg1) if arg2 is None else (arg1, arg2)
    return RangeSpec(start, end, 1 if step is None else step, static=True)


# --- hints ------------------------------------------------------------------------------------

def _hint(name: str, x, values) -> tensor:
    values = const_value(values, name)
    values = [values] if isinstance(values, int) else list(values)
    return _builder().hint(semantic.to_tensor(_u(x)), name, [int(v) for v in values])


@builtin
def multiple_of(input, values, _semantic=None) -> tensor:
    return _hint("divisibility", input, values)


@builtin
def max_contiguous(input, values, _semantic=None) -> tensor:
    return _hint("contiguity", input, values)


@builtin
def max_constancy(input, values, _semantic=None) -> tensor:
    return _hint("constancy", input, values)


@builtin
def assume(cond, _semantic=None) -> None:
    """Accepted for Triton compatibility; tilec's analyses do not use assumptions yet."""
    cond = _u(cond)
    if not isinstance(cond, tensor) and not cond:
        raise SemanticError("tl.assume of a condition that is false at compile time")


@builtin
def debug_barrier(_semantic=None) -> None:
    _builder().barrier()


# --- debugging --------------------------------------------------------------------------------

@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False, _semantic=None) -> None:
    print(*[_u(v) for v in values], sep=sep, end=end, file=file or sys.stdout, flush=flush)


@builtin
def static_assert(cond, msg="", _semantic=None) -> None:
    cond = _u(cond)
    if isinstance(cond, tensor):
        raise SemanticError("tl.static_assert needs a compile-time condition; use "
                            "tl.device_assert for run-time checks")
    if not cond:
        raise SemanticError(f"static_assert failed: {_u(msg)}" if _u(msg) else
                            "static_assert failed")


@builtin
def device_print(prefix, *args, hex=False, _semantic=None) -> None:
    prefix = _u(prefix)
    if not isinstance(prefix, str):  # print(x) as well as print("x =", x)
        args, prefix = (prefix, *args), ""
    values = []
    for arg in args:
        arg = _u(arg)
        if not isinstance(arg, tensor):
            arg = semantic.to_tensor(arg) if semantic.is_literal(arg) else None
            if arg is None:
                raise SemanticError("tl.device_print prints numbers and tensors")
        values.append(arg)
    _builder().print(prefix, values, bool(_u(hex)))


@builtin
def device_assert(cond, msg="", _semantic=None) -> None:
    cond = _u(cond)
    if not isinstance(cond, tensor):
        if not cond:
            raise SemanticError(f"device_assert is always false: {_u(msg)}")
        return
    if not _semantic.debug:  # as in Triton: checked only in kernels compiled with debug=True
        return
    _builder().assert_(semantic.cast(cond, int1), str(_u(msg)))


# What `tilec.language` re-exports: the builtins and the helpers a kernel may name.
__all__ = [name for name, value in list(globals().items())
           if getattr(value, "__module__", None) == __name__ and not name.startswith("_")
           and name not in ("const_value", "shape_value", "dtype_value", "grid_axis")]
