"""The builder protocol: the ops the semantic layer builds, and which builder builds them now.

The semantic layer (semantic.py, shapes.py, memory.py, reductions.py) decides everything a
Triton user can observe — promotion, broadcasting, which conversion or comparison an operator
means, every check and its message — and then asks the current builder for one primitive op
on operands that already have their final types and shapes. Two builders implement the
protocol: the MLIR builder (tilec.frontend.builder), which adds the op at the insertion point,
and the NumPy builder (tilec.interpreter.builder), which computes it over whole blocks while a
kernel is interpreted. Because the decisions are made above the protocol, the compiler and the
interpreter share them by construction.

The ops are named as the `arith`, `math` and `tile` ops they build; operands and results are
`tensor`s (a NumPy builder's are its `Block`s), result types `dtype`s.

`Builder` lists the protocol; the tests check that both builders implement all of it.
"""
from __future__ import annotations

import threading


class Builder:
    """The ops of the protocol. Arguments are checked already: a builder raises only for what
    it cannot do (the interpreter cannot run PTX)."""

    # --- values and shapes ---
    def constant(self, value, ty, shape):
        """A block of `shape` (a scalar for []) filled with the Python number `value`, which
        fits the scalar type `ty` (unsigned values as they are, not in two's complement)."""
        raise NotImplementedError

    def make_range(self, start: int, end: int):
        """int32 [start, start+1, ..., end-1]."""
        raise NotImplementedError

    def program_id(self, axis: int):
        raise NotImplementedError

    def num_programs(self, axis: int):
        raise NotImplementedError

    def splat(self, x, shape):
        """The scalar `x` as a block of `shape`."""
        raise NotImplementedError

    def broadcast(self, x, shape):
        """The block `x` (of `shape`'s rank, size-1 dimensions where they differ) to `shape`."""
        raise NotImplementedError

    def expand_dims(self, x, axis: int):
        raise NotImplementedError

    def reshape(self, x, shape, can_reorder: bool):
        raise NotImplementedError

    def trans(self, x, order):
        raise NotImplementedError

    def join(self, a, b):
        """Two blocks of one shape as one with a new last dimension of 2."""
        raise NotImplementedError

    def split(self, x):
        """The halves of the last dimension (of size 2) of `x`."""
        raise NotImplementedError

    def cat(self, a, b):
        raise NotImplementedError

    # --- element-wise ---
    def convert(self, op: str, x, result):
        """`x` converted to the type `result` by the conversion `op`: extf, truncf (to
        nearest), truncf_rtz, trunci, extsi, extui, fptosi, fptoui, sitofp, uitofp, bitcast,
        ptr_to_int, int_to_ptr, or `retype` (the same bits read with the other signedness)."""
        raise NotImplementedError

    def binary(self, op: str, a, b, approximate: bool = False):
        """`op` of two operands of one type and shape, result of that type: addf subf mulf
        divf remf addi subi muli andi ori xori shli divsi divui remsi remui shrsi shrui
        minimumf maximumf minnumf maxnumf minsi maxsi minui maxui, and the math functions
        powf atan2 copysign. `approximate` marks fast division."""
        raise NotImplementedError

    def unary(self, op: str, x, approximate: bool = False):
        """negf, absf, or a math function (semantic.UNARY_MATH_NAMES); `approximate` allows
        an approximate `sqrt`."""
        raise NotImplementedError

    def compare(self, predicate: str, a, b):
        """An int1 block: cmpf's predicates (oeq une olt ole ogt oge) for floats, cmpi's (eq
        ne slt sle sgt sge ult ule ugt uge) for integers."""
        raise NotImplementedError

    def select(self, cond, x, y):
        raise NotImplementedError

    def fma(self, x, y, z):
        """x * y + z rounded once."""
        raise NotImplementedError

    def mulhi(self, x, y):
        """The high 32 bits of the unsigned 64-bit product of two 32-bit integers."""
        raise NotImplementedError

    def addptr(self, ptr, offset):
        """`ptr` advanced by `offset` elements (both of one shape)."""
        raise NotImplementedError

    def inline_asm(self, asm: str, constraints: str, args, results, is_pure: bool, pack: int):
        """PTX applied element-wise: one value per type in `results`."""
        raise NotImplementedError

    def special_register(self, name: str):
        """tl.extra.cuda's globaltimer (int64), smid and num_threads (int32)."""
        raise NotImplementedError

    def if_(self, cond, then, otherwise, types=()) -> list:
        """The values of type `types` that `then()` returns where the scalar `cond` holds and
        `otherwise()` where it does not (each emits the ops of its branch and returns a list
        of tensors of those types)."""
        raise NotImplementedError

    # --- memory ---
    def load(self, ptr, mask, other, cache: str, evict: str, volatile: bool):
        """The pointees of `ptr`; where `mask` is false, `other` (or undefined when None)."""
        raise NotImplementedError

    def store(self, ptr, value, mask, cache: str, evict: str) -> None:
        raise NotImplementedError

    def make_tensormap(self, base, shape, strides, block_shape, padding: str):
        """(the TMA map, its swizzle in bytes) of the tensor descriptor of `base` (a scalar
        pointer) with `shape` and `strides` (int64 scalars, outermost first) read in
        `block_shape` blocks, where this builder moves such blocks with TMA; None where it
        does not (the descriptor's blocks then go through pointers)."""
        raise NotImplementedError

    def tma_store(self, tensormap, value, offsets, swizzle: int) -> None:
        """`value` written as the block at `offsets` of the tensor the TMA map describes."""
        raise NotImplementedError

    def tma_reduce(self, tensormap, value, offsets, swizzle: int, kind: str) -> None:
        """`value` added (`kind`) into the block at `offsets` of the tensor the TMA map
        describes, atomically per element."""
        raise NotImplementedError

    def tma_load(self, tensormap, offsets, ty, swizzle: int):
        """The block of type `ty` at `offsets` (i32 scalars) of the tensor the TMA map
        parameter `tensormap` describes, copied with the map's `swizzle` (bytes)."""
        raise NotImplementedError

    def atomic_rmw(self, op: str, ptr, value, mask, sem: str, scope: str):
        """op: add fadd and or xor max min umax umin xchg; the old values."""
        raise NotImplementedError

    def atomic_cas(self, ptr, cmp, value, sem: str, scope: str):
        raise NotImplementedError

    # --- across a block ---
    def reduce(self, inputs, axis: int, combine):
        """`inputs` reduced along `axis` by `combine` (list of accumulated then new values ->
        list of combined values, each cast to its input's type)."""
        raise NotImplementedError

    def scan(self, inputs, axis: int, combine, reverse: bool):
        """The inclusive scan of `inputs` along `axis`."""
        raise NotImplementedError

    def sort(self, x, dim: int, descending: bool):
        """`x` sorted along `dim`; integers compare as signed."""
        raise NotImplementedError

    def gather(self, src, index, axis: int):
        raise NotImplementedError

    def histogram(self, x, num_bins: int):
        raise NotImplementedError

    def dot(self, a, b, acc, precision: str, max_num_imprecise_acc: int):
        """a @ b + acc (acc of the result's type; 8-bit integers are signed)."""
        raise NotImplementedError

    # --- hints and debugging ---
    def hint(self, x, name: str, values):
        """x, with a hint for the compiler's analyses (divisibility, contiguity, constancy)."""
        raise NotImplementedError

    def barrier(self) -> None:
        raise NotImplementedError

    def print(self, prefix: str, args, hex: bool) -> None:
        raise NotImplementedError

    def assert_(self, cond, msg: str) -> None:
        raise NotImplementedError


PROTOCOL = tuple(name for name, value in vars(Builder).items()
                 if callable(value) and not name.startswith("__"))

_compiling: list[Builder] = []  # the MLIR builder, registered by tilec.frontend.builder
_local = threading.local()  # the NumPy builder while this thread interprets a kernel


def register_compiler(builder: Builder) -> None:
    _compiling[:] = [builder]


def activate(builder: Builder | None) -> None:
    """Run the semantic layer on `builder` on this thread (None: back to compiling)."""
    _local.builder = builder


def interpreting() -> bool:
    """Whether an interpreted kernel is running on this thread."""
    return getattr(_local, "builder", None) is not None


def current() -> Builder:
    builder = getattr(_local, "builder", None)
    if builder is not None:
        return builder
    if not _compiling:
        raise RuntimeError("tilec.language functions run inside @tilec.jit kernels only")
    return _compiling[0]
