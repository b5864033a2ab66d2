"""Loads, stores and atomics: the semantic layer for memory (see semantic.py)."""
from __future__ import annotations

from tilec.language import dtypes as T
from tilec.language.builder import current as _builder
from tilec.language.core import SemanticError, tensor
from tilec.language.semantic import binary, broadcast_to, cast, compare, to_tensor

_LOAD_CACHE = {"": "none", ".ca": "ca", ".cg": "cg", ".cv": "cv"}
_STORE_CACHE = {"": "none", ".wb": "wb", ".cg": "cg", ".cs": "cs", ".wt": "wt"}
_EVICT = {"": "evict_normal", "evict_normal": "evict_normal", "evict_first": "evict_first",
          "evict_last": "evict_last"}
_SEM = {None: "acq_rel", "acq_rel": "acq_rel", "acquire": "acquire", "release": "release",
        "relaxed": "relaxed"}
_SCOPE = {None: "gpu", "gpu": "gpu", "cta": "cta", "sys": "sys"}


def choice(table: dict, value, what: str) -> str:
    if value not in table:
        options = ", ".join(repr(k) for k in table if k is not None)
        raise SemanticError(f"{what} must be one of {options}, not {value!r}")
    return table[value]


def check_pointer(ptr, op: str) -> tensor:
    if not isinstance(ptr, tensor) or not ptr.dtype.is_ptr():
        what = ptr.dtype if isinstance(ptr, tensor) else type(ptr).__name__
        raise SemanticError(f"tl.{op} needs a pointer or a block of pointers, got {what}; "
                            f"pass a pointer argument plus offsets (e.g. x_ptr + offs)")
    return ptr


def check_writable(ptr, op: str) -> None:
    """Stores and atomics through a `tl.const` pointer are errors (Triton's message)."""
    if getattr(ptr.dtype, "const", False):
        raise SemanticError(f"tl.{op}: Cannot store to a constant pointer (the parameter is "
                            "annotated tl.const)")


def check_mask(mask: tensor, op: str) -> None:
    if not mask.dtype.is_bool():
        raise SemanticError(f"tl.{op}: the mask must be boolean (int1), got {mask.dtype}; "
                            "compare to build it, e.g. offs < n")


def check_other(mask, other) -> None:
    if other is not None and mask is None:
        raise SemanticError("tl.load: `other` needs a `mask` (it fills the masked-off elements)")


def check_store_shape(value: tensor, ptr: tensor) -> None:
    # As in Triton, a block value has the pointers' rank (a scalar is stored everywhere).
    if value.is_block() and len(value.shape) != len(ptr.shape):
        raise SemanticError(f"tl.store: the value has shape {value.shape} but the pointer block "
                            f"has shape {ptr.shape} (rank {len(value.shape)}, not "
                            f"{len(ptr.shape)}); store a value of the pointer's shape")


def _mask(mask, ptr: tensor, op: str) -> tensor | None:
    if mask is None:
        return None
    mask = to_tensor(mask)
    check_mask(mask, op)
    return broadcast_to(mask, ptr.shape, "the mask")


def load(ptr, mask=None, other=None, cache_modifier: str = "", eviction_policy: str = "",
         volatile: bool = False) -> tensor:
    ptr = check_pointer(ptr, "load")
    element = ptr.dtype.element_ty
    if element.is_bool():  # booleans live in memory as bytes
        as_bytes = cast(ptr, T.pointer_type(T.int8, ptr.dtype.address_space))
        other = None if other is None else cast(to_tensor(other), T.int8)
        loaded = load(as_bytes, mask, other, cache_modifier, eviction_policy, volatile)
        return compare("!=", loaded, 0)
    check_other(mask, other)
    mask = _mask(mask, ptr, "load")
    if other is not None:
        other = broadcast_to(cast(to_tensor(other), element), ptr.shape, "`other`")
    return _builder().load(ptr, mask, other, choice(_LOAD_CACHE, cache_modifier, "cache_modifier"),
                           choice(_EVICT, eviction_policy, "eviction_policy"), bool(volatile))


# TMA moves a box only where its innermost coordinate is a multiple of 16 bytes, and stores one
# only where every coordinate is also non-negative: any other box is an illegal instruction on
# the H200 (measured with the swizzled maps tilec encodes), whatever its overlap with the
# tensor; boxes past the far edges are fine. desc.load and desc.store therefore branch at run
# time to the pointer path; tile-combine folds the test where the axis analysis knows the
# offset's alignment (offsets such as pid * BLOCK or k * BLOCK_K), leaving the TMA copy alone,
# which the pipeliner then stages in its rings.

def _tma_aligned(desc, offsets):
    step = 16 * 8 // desc.dtype.primitive_bitwidth
    return compare("==", binary("%", offsets[-1], step), 0)


def tma_map_usable(base, strides) -> tensor:
    """Whether TMA may copy through a map made in the kernel of the tensor at `base` with
    `strides` (int64, the last 1): the base and the outer strides 16-byte aligned. Where the
    axis analysis knows them aligned (a pointer and strides specialised as multiples of 16)
    tile-combine folds this to true."""
    size = base.dtype.element_ty.primitive_bitwidth // 8
    usable = compare("==", binary("%", cast(base, T.int64), 16), 0)
    for stride in strides[:-1]:
        usable = binary("&", usable, compare("==", binary("%", binary("*", stride, size), 16), 0))
    return usable


def _tma_movable(desc, offsets):
    """The box at `offsets` may be copied by TMA (see above), through a usable map."""
    movable = _tma_aligned(desc, offsets)
    return movable if desc.tma_usable is None else binary("&", movable, desc.tma_usable)


def tma_load(desc, offsets, fallback) -> tensor:
    """desc.load(offsets) of a descriptor the compiler moves with TMA (it gave the descriptor
    its map, a parameter or made in the kernel, and swizzle); `fallback()` loads through
    pointers."""
    offsets = [cast(to_tensor(o), T.int32) for o in offsets]
    return _builder().if_(
        _tma_movable(desc, offsets),
        lambda: [_builder().tma_load(desc.tensormap, offsets, desc.block_type,
                                     desc.tma_swizzle)],
        lambda: [fallback()], [desc.block_type])[0]


def tma_store(desc, offsets, value, fallback, reduce: str | None = None) -> None:
    """desc.store(offsets, value) of a descriptor the compiler moves with TMA, or with
    `reduce` desc.atomic_<reduce>(offsets, value) (see TMA_REDUCTIONS); `fallback()` stores
    (or updates) through pointers (also for a map made in the kernel of a tensor with no
    elements, which maps a zero scratch area that a store must not write)."""
    check_writable(desc.base, f"desc.atomic_{reduce}" if reduce else "desc.store")
    value = cast(to_tensor(value), desc.dtype)
    offsets = [cast(to_tensor(o), T.int32) for o in offsets]
    movable = _tma_movable(desc, offsets)
    for o in offsets:
        movable = binary("&", movable, compare(">=", o, 0))
    if desc.tma_usable is not None:
        for size in desc.shape:
            movable = binary("&", movable, compare(">", size, 0))

    def through_tma():
        if reduce:
            _builder().tma_reduce(desc.tensormap, value, offsets, desc.tma_swizzle, reduce)
        else:
            _builder().tma_store(desc.tensormap, value, offsets, desc.tma_swizzle)
    _builder().if_(movable, through_tma, fallback)


# The desc.atomic_<kind> updates TMA reductions make (cp.reduce.async.bulk.tensor), by the
# element types they take; the others go through pointer atomics. A map made in the kernel
# says 32-bit integers are signed (tensormap.replace's element type; copies and adds move the
# same bits either way), so unsigned minima and maxima through one take pointers too
# (tma_reduces).
TMA_REDUCTIONS = {"add": (T.float16, T.bfloat16, T.float32, T.int32, T.uint32),
                  "min": (T.float16, T.bfloat16, T.int32, T.uint32),
                  "max": (T.float16, T.bfloat16, T.int32, T.uint32),
                  "and": (T.int32, T.uint32), "or": (T.int32, T.uint32),
                  "xor": (T.int32, T.uint32)}


def tma_reduces(desc, kind: str) -> bool:
    """Whether desc.atomic_<kind> of a descriptor with a TMA map is a TMA reduction."""
    if desc.dtype not in TMA_REDUCTIONS.get(kind, ()):
        return False
    made_in_kernel = desc.tma_usable is not None
    return not (made_in_kernel and kind in ("min", "max") and desc.dtype == T.uint32)


def store(ptr, value, mask=None, cache_modifier: str = "", eviction_policy: str = "") -> None:
    ptr = check_pointer(ptr, "store")
    check_writable(ptr, "store")
    element = ptr.dtype.element_ty
    value = to_tensor(value)
    check_store_shape(value, ptr)
    try:
        value = broadcast_to(value, ptr.shape, "the stored value")
    except SemanticError as err:
        raise SemanticError(f"tl.store: {err}; store a value of the pointer's shape") from None
    if element.is_bool():
        ptr = cast(ptr, T.pointer_type(T.int8, ptr.dtype.address_space))
        element = T.int8
    value = cast(value, element)
    mask = _mask(mask, ptr, "store")
    _builder().store(ptr, value, mask, choice(_STORE_CACHE, cache_modifier, "cache_modifier"),
                     choice(_EVICT, eviction_policy, "eviction_policy"))


def _atomic_operands(op: str, ptr, val, mask):
    ptr = check_pointer(ptr, op)
    check_writable(ptr, op)
    element = ptr.dtype.element_ty
    val = broadcast_to(cast(to_tensor(val), element), ptr.shape, "the value")
    return ptr, element, val, _mask(mask, ptr, op)


def atomic_rmw(kind: str, ptr, val, mask=None, sem=None, scope=None) -> tensor:
    """`kind`: add, and, or, xor, max, min, xchg (as in tl.atomic_<kind>)."""
    ptr, element, val, mask = _atomic_operands(f"atomic_{kind}", ptr, val, mask)
    if kind in ("and", "or", "xor") and not element.is_int():
        raise SemanticError(f"tl.atomic_{kind} needs integer pointees, got {element}")
    rmw = kind
    if kind == "add" and element.is_floating():
        rmw = "fadd"
    elif kind in ("max", "min") and element.is_int_unsigned():
        rmw = "u" + kind
    return _builder().atomic_rmw(rmw, ptr, val, mask, choice(_SEM, sem, "sem"),
                                 choice(_SCOPE, scope, "scope"))


def atomic_cas(ptr, cmp, val, sem=None, scope=None) -> tensor:
    ptr, element, val, _ = _atomic_operands("atomic_cas", ptr, val, None)
    cmp = broadcast_to(cast(to_tensor(cmp), element), ptr.shape, "`cmp`")
    return _builder().atomic_cas(ptr, cmp, val, choice(_SEM, sem, "sem"),
                                 choice(_SCOPE, scope, "scope"))
