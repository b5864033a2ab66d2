"""Python views of `tilegpu` layouts and shared-memory types, and builders for its ops.

Passes compute with layouts, so each layout attribute has a frozen dataclass that builds the
attribute (`.attr()`) and is read back from one (`layout_from_attr`). Semantics of each layout:
dialects/README.md.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mlir import ir

from tilec.dialects.params import ints, split_parameters, to_value


def _normalize_ints(obj, *names: str) -> None:
    """Store each named field of a frozen dataclass as a tuple of ints, or raise ValueError."""
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, (str, bytes)) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ValueError(f"{type(obj).__name__}.{name} must be a sequence of integers, "
                             f"got {value!r}")
        object.__setattr__(obj, name, tuple(value))


def _check_order(obj, order: tuple[int, ...]) -> None:
    if sorted(order) != list(range(len(order))):
        raise ValueError(f"{type(obj).__name__} order {order} is not a permutation")


def _check_powers_of_two(what: str, values) -> None:
    """Layouts are linear maps over the bits of indices: every count they hold is a positive
    power of two."""
    bad = [v for v in values if v <= 0 or v & (v - 1)]
    if bad:
        raise ValueError(f"{what} must be positive powers of two, got {tuple(values)}")


@dataclass(frozen=True)
class BlockedLayout:
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]

    def __post_init__(self):
        _normalize_ints(self, "size_per_thread", "threads_per_warp", "warps_per_cta", "order")
        fields = (self.size_per_thread, self.threads_per_warp, self.warps_per_cta, self.order)
        if len({len(f) for f in fields}) != 1:
            raise ValueError(f"blocked layout fields differ in rank: {fields}")
        _check_order(self, self.order)
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta"):
            _check_powers_of_two(f"blocked layout {name}", getattr(self, name))

    @property
    def rank(self) -> int:
        return len(self.order)

    def text(self) -> str:
        return (f"#tilegpu.blocked<{ints(self.size_per_thread)}, {ints(self.threads_per_warp)}, "
                f"{ints(self.warps_per_cta)}, {ints(self.order)}>")

    @classmethod
    def from_params(cls, params: list[str]) -> "BlockedLayout":
        return cls(*(tuple(to_value(p)) for p in params))


@dataclass(frozen=True)
class SliceLayout:
    dim: int
    parent: "Layout"

    def __post_init__(self):
        if not 0 <= self.dim < self.parent.rank:
            raise ValueError(f"slice dim {self.dim} is out of range for a parent of rank "
                             f"{self.parent.rank}")

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    def text(self) -> str:
        return f"#tilegpu.slice<{self.dim} : i32, {self.parent.text()}>"

    @classmethod
    def from_params(cls, params: list[str]) -> "SliceLayout":
        return cls(to_value(params[0]), layout_from_text(params[1]))


@dataclass(frozen=True)
class MmaLayout:
    version: tuple[int, int]
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]

    def __post_init__(self):
        _normalize_ints(self, "version", "warps_per_cta", "instr_shape")
        if len(self.version) != 2:
            raise ValueError(f"mma version must be [major, minor], got {self.version}")
        if len(self.instr_shape) != len(self.warps_per_cta):
            raise ValueError(f"mma instr_shape {self.instr_shape} and warps_per_cta "
                             f"{self.warps_per_cta} differ in rank")
        # the two tensor-core layouts tilec lays out: mma.sync's m16n8 tiles (version 2) and
        # wgmma's m64nN per warpgroup, written [16, N] per warp (version 3)
        if self.version not in ((2, 0), (3, 0)):
            raise ValueError(f"mma version must be [2, 0] (mma.sync) or [3, 0] (wgmma), got "
                             f"{list(self.version)}")
        # a batched (3-D) dot's mma.sync layout leads with the batch: instr_shape [1, 16, 8]
        if len(self.warps_per_cta) != 2 and not (self.version == (2, 0) and
                                                 len(self.warps_per_cta) == 3):
            raise ValueError(f"mma layouts are of rank 2 (or 3 for version [2, 0]), got "
                             f"warps_per_cta {self.warps_per_cta}")
        _check_powers_of_two("mma warps_per_cta", self.warps_per_cta)
        if self.version == (2, 0) and self.instr_shape != (1,) * (self.rank - 2) + (16, 8):
            raise ValueError(f"mma version [2, 0] has instr_shape [16, 8] ([1, 16, 8] for "
                             f"rank 3), got {list(self.instr_shape)}")
        if self.version == (3, 0):
            m, n = self.instr_shape
            if m != 16 or n not in (8, 16, 32, 64, 128, 256):
                raise ValueError(f"mma version [3, 0] has instr_shape [16, N], N a power of two "
                                 f"from 8 to 256, got {list(self.instr_shape)}")
            if self.warps_per_cta[0] % 4:
                raise ValueError(f"mma version [3, 0] stacks warpgroups of 4 warps along M, got "
                                 f"warps_per_cta {list(self.warps_per_cta)}")

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def text(self) -> str:
        return (f"#tilegpu.mma<{ints(self.version)}, {ints(self.warps_per_cta)}, "
                f"{ints(self.instr_shape)}>")

    @classmethod
    def from_params(cls, params: list[str]) -> "MmaLayout":
        return cls(*(tuple(to_value(p)) for p in params))


@dataclass(frozen=True)
class DotOperandLayout:
    op_idx: int
    parent: "Layout"
    k_width: int

    def __post_init__(self):
        if self.op_idx not in (0, 1):
            raise ValueError(f"dot operand index must be 0 (A) or 1 (B), got {self.op_idx}")
        _check_powers_of_two("dot operand k_width", (self.k_width,))

    @property
    def rank(self) -> int:
        return self.parent.rank

    def text(self) -> str:
        return f"#tilegpu.dot_operand<{self.op_idx} : i32, {self.parent.text()}, {self.k_width} : i32>"

    @classmethod
    def from_params(cls, params: list[str]) -> "DotOperandLayout":
        return cls(to_value(params[0]), layout_from_text(params[1]), to_value(params[2]))


@dataclass(frozen=True)
class SharedLayout:
    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]

    def __post_init__(self):
        _normalize_ints(self, "order")
        _check_order(self, self.order)
        _check_powers_of_two("shared layout vec, per_phase and max_phase",
                             (self.vec, self.per_phase, self.max_phase))

    @property
    def rank(self) -> int:
        return len(self.order)

    def text(self) -> str:
        return (f"#tilegpu.shared<{self.vec} : i32, {self.per_phase} : i32, "
                f"{self.max_phase} : i32, {ints(self.order)}>")

    @classmethod
    def from_params(cls, params: list[str]) -> "SharedLayout":
        vec, per_phase, max_phase, order = (to_value(p) for p in params)
        return cls(vec, per_phase, max_phase, tuple(order))


@dataclass(frozen=True)
class NvmmaSharedLayout:
    """The shared layout wgmma reads through matrix descriptors (and TMA writes): the tile is
    cut along its fastest dimension (`order[0]`) into column blocks `swizzle` bytes wide,
    stored one after another; inside a block, rows of `swizzle` bytes have their 16-byte
    chunks XOR-ed with (row / (128 / swizzle)) % (swizzle / 16), which is the hardware's
    swizzle of address bits [4, 7) by bits [7, 10) once the buffer is aligned to
    8 * 128 bytes. `element_bits` is the width of the elements it holds."""
    swizzle: int
    element_bits: int
    order: tuple[int, ...]

    def __post_init__(self):
        _normalize_ints(self, "order")
        _check_order(self, self.order)
        if self.swizzle not in (32, 64, 128):
            raise ValueError(f"nvmma_shared swizzle must be 32, 64 or 128 bytes, got "
                             f"{self.swizzle}")
        if self.element_bits not in (8, 16, 32):
            raise ValueError(f"nvmma_shared element_bits must be 8, 16 or 32, got "
                             f"{self.element_bits}")

    @property
    def rank(self) -> int:
        return len(self.order)

    # The swizzle inside a column block, in the terms of SharedLayout.
    @property
    def vec(self) -> int:
        return 128 // self.element_bits

    @property
    def per_phase(self) -> int:
        return 128 // self.swizzle

    @property
    def max_phase(self) -> int:
        return self.swizzle // 16

    @property
    def block_width(self) -> int:
        """Elements of a column block along the fastest dimension."""
        return self.swizzle * 8 // self.element_bits

    def text(self) -> str:
        return (f"#tilegpu.nvmma_shared<{self.swizzle} : i32, {self.element_bits} : i32, "
                f"{ints(self.order)}>")

    @classmethod
    def from_params(cls, params: list[str]) -> "NvmmaSharedLayout":
        swizzle, bits, order = (to_value(p) for p in params)
        return cls(swizzle, bits, tuple(order))


Layout = (BlockedLayout | SliceLayout | MmaLayout | DotOperandLayout | SharedLayout |
          NvmmaSharedLayout)

_LAYOUTS = {
    "#tilegpu.blocked": BlockedLayout,
    "#tilegpu.slice": SliceLayout,
    "#tilegpu.mma": MmaLayout,
    "#tilegpu.dot_operand": DotOperandLayout,
    "#tilegpu.shared": SharedLayout,
    "#tilegpu.nvmma_shared": NvmmaSharedLayout,
}


def layout_from_text(text: str) -> Layout:
    prefix = text.split("<", 1)[0]
    if prefix not in _LAYOUTS:
        raise ValueError(f"'{text}' is not a tilegpu layout")
    return _LAYOUTS[prefix].from_params(split_parameters(text, prefix))


def layout_from_attr(attr: ir.Attribute) -> Layout:
    return layout_from_text(str(attr))


def layout_attr(layout: Layout) -> ir.Attribute:
    return ir.Attribute.parse(layout.text())


def tensor_layout(tensor_type: ir.Type) -> Layout | None:
    """The layout a ranked tensor type carries as its encoding, if any."""
    encoding = ir.RankedTensorType(tensor_type).encoding
    return None if encoding is None else layout_from_attr(encoding)


def with_layout(tensor_type: ir.Type, layout: Layout) -> ir.RankedTensorType:
    t = ir.RankedTensorType(tensor_type)
    return ir.RankedTensorType.get(t.shape, t.element_type, layout_attr(layout))


@dataclass(frozen=True)
class MemDesc:
    """`!tilegpu.memdesc<shape, element type, layout, mutable>`: a shared-memory buffer."""

    shape: tuple[int, ...]
    element_type: str
    layout: "SharedLayout | NvmmaSharedLayout"
    mutable: bool = True

    def __post_init__(self):
        _normalize_ints(self, "shape")
        object.__setattr__(self, "element_type", str(self.element_type))
        # A multi-buffered allocation has one leading dimension more than its layout.
        if len(self.shape) not in (self.layout.rank, self.layout.rank + 1):
            raise ValueError(f"memdesc shape {self.shape} does not fit a layout of rank "
                             f"{self.layout.rank}")

    def text(self) -> str:
        return (f"!tilegpu.memdesc<{ints(self.shape)}, {self.element_type}, {self.layout.text()}, "
                f"{'true' if self.mutable else 'false'}>")

    def type(self) -> ir.Type:
        return ir.Type.parse(self.text())

    def transposed(self) -> "MemDesc":
        """The same 2-D buffer read with its two dimensions swapped (`memdesc_trans`): every
        element keeps its address, so the fastest dimension of the layout swaps too."""
        if len(self.shape) != 2 or self.layout.rank != 2:
            raise ValueError(f"memdesc_trans takes a 2-D tile, not {self.shape}")
        return MemDesc((self.shape[1], self.shape[0]), self.element_type,
                       dataclasses.replace(self.layout, order=transposed_order(self.layout.order)),
                       self.mutable)

    @classmethod
    def from_type(cls, t: ir.Type) -> "MemDesc":
        shape, element_type, layout, mutable = split_parameters(str(t), "!tilegpu.memdesc")
        return cls(tuple(to_value(shape)), element_type, layout_from_text(layout),
                   to_value(mutable))


def transposed_order(order: tuple[int, ...]) -> tuple[int, ...]:
    """The fastest-first `order` of a 2-D tile, for the tile with its two dimensions swapped."""
    return tuple(1 - d for d in order)


def is_memdesc(t: ir.Type) -> bool:
    return str(t).startswith("!tilegpu.memdesc<")


def async_token_type() -> ir.Type:
    return ir.Type.parse("!tilegpu.async_token")


# --- op builders (inside `with context, location, InsertionPoint(...)`) ---------------------

def _create(name, results=(), operands=(), attributes=None):
    return ir.Operation.create(f"tilegpu.{name}", results=list(results), operands=list(operands),
                               attributes=attributes or {})


def _str(s: str) -> ir.Attribute:
    return ir.StringAttr.get(s)


def convert_layout(src: ir.Value, layout: Layout) -> ir.Value:
    return _create("convert_layout", [with_layout(src.type, layout)], [src]).result


def local_alloc(memdesc: MemDesc, src: ir.Value | None = None) -> ir.Value:
    return _create("local_alloc", [memdesc.type()], [src] if src is not None else []).result


def local_load(src: ir.Value, result_type: ir.Type) -> ir.Value:
    return _create("local_load", [result_type], [src]).result


def local_store(value: ir.Value, dst: ir.Value) -> ir.Operation:
    return _create("local_store", [], [value, dst])


def local_dealloc(src: ir.Value) -> ir.Operation:
    return _create("local_dealloc", [], [src])


def memdesc_subview(src: ir.Value, offsets: list[ir.Value], result: MemDesc) -> ir.Value:
    return _create("memdesc_subview", [result.type()], [src, *offsets]).result


def memdesc_trans(src: ir.Value) -> ir.Value:
    return _create("memdesc_trans", [MemDesc.from_type(src.type).transposed().type()],
                   [src]).result


def async_copy_global_to_local(src: ir.Value, dst: ir.Value, mask: ir.Value | None = None,
                               other: ir.Value | None = None, cache: str = "none",
                               evict: str = "evict_normal") -> ir.Value:
    operands = [src, dst] + [v for v in (mask, other) if v is not None]
    segments = ir.DenseI32ArrayAttr.get([1, 1, int(mask is not None), int(other is not None)])
    attrs = {"cache": _str(cache), "evict": _str(evict), "operandSegmentSizes": segments}
    return _create("async_copy_global_to_local", [async_token_type()], operands, attrs).result


def async_commit_group(tokens: list[ir.Value] = ()) -> ir.Value:
    return _create("async_commit_group", [async_token_type()], tokens).result


def async_wait(num: int, tokens: list[ir.Value] = ()) -> ir.Value:
    attrs = {"num": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), num)}
    return _create("async_wait", [async_token_type()], tokens, attrs).result


def barrier() -> ir.Operation:
    return _create("barrier")


def cluster_barrier() -> ir.Operation:
    return _create("cluster_barrier")


# Where a program is a cluster of N CTAs: an arrive_barrier with CLUSTER_ATTR N arrives on the
# barrier in each of the N CTAs, a TMA copy with MULTICAST_ATTR N lands in all of them.
CLUSTER_ATTR = "ctas"
MULTICAST_ATTR = "multicast"


ASYNC_ATTR = "is_async"  # a warpgroup_dot that leaves its wgmma group in flight


def warpgroup_dot(a: ir.Value, b: ir.Value, c: ir.Value, attributes) -> ir.Value:
    """c + a * b on wgmma (`attributes`: the tile.dot's input_precision and
    max_num_imprecise_acc)."""
    return _create("warpgroup_dot", [c.type], [a, b, c], dict(attributes)).result


def warpgroup_dot_wait(values: list[ir.Value], pendings: int) -> list[ir.Value]:
    """`values` (accumulators of in-flight wgmma groups) once at most `pendings` groups are in
    flight."""
    attrs = {"pendings": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), pendings)}
    return list(_create("warpgroup_dot_wait", [v.type for v in values], values, attrs).results)


def fence_async_shared() -> ir.Operation:
    return _create("fence_async_shared")


# --- mbarriers and TMA ----------------------------------------------------------------------------

def barrier_memdesc(count: int = 1, stages: int | None = None) -> MemDesc:
    """A buffer of `count` mbarriers (8 bytes each), or a ring of `stages` such buffers."""
    shape = (count,) if stages is None else (stages, count)
    return MemDesc(shape, "i64", SharedLayout(1, 1, 1, (0,)), True)


def init_barrier(bar: ir.Value, count: int) -> ir.Operation:
    attrs = {"count": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), count)}
    return _create("init_barrier", [], [bar], attrs)


def inval_barrier(bar: ir.Value) -> ir.Operation:
    return _create("inval_barrier", [], [bar])


def wait_barrier(bar: ir.Value, phase: ir.Value) -> ir.Operation:
    return _create("wait_barrier", [], [bar, phase])


def arrive_barrier(bar: ir.Value, ctas: int = 1) -> ir.Operation:
    """Each thread arrives on `bar`; with `ctas` N above 1, each warp arrives once on `bar` of
    each of the cluster's N CTAs (its lane c on CTA c's), for its warp."""
    attrs = {CLUSTER_ATTR: ir.IntegerAttr.get(ir.IntegerType.get_signless(32), ctas)} \
        if ctas > 1 else {}
    return _create("arrive_barrier", [], [bar], attrs)


def warpgroup_turn_wait(warpgroup: int = -1) -> ir.Operation:
    """Warpgroup w waits for its turn, passed by w - 1 (-1: every consumer warpgroup waits;
    k: only warpgroup k)."""
    attrs = {"warpgroup": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), warpgroup)}
    return _create("warpgroup_turn_wait", [], [], attrs)


def warpgroup_turn_pass(warpgroup: int = -1) -> ir.Operation:
    """Warpgroup w passes the turn to w + 1 (the first after the last), without waiting."""
    attrs = {"warpgroup": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), warpgroup)}
    return _create("warpgroup_turn_pass", [], [], attrs)


def warp_specialize(producer_warps: int, producer_registers: int,
                    consumer_registers: int) -> ir.Operation:
    """The op with its two regions' blocks made and empty (producer first): the caller fills
    each and ends it with `gpu.yield`."""
    i32 = ir.IntegerType.get_signless(32)
    attrs = {name: ir.IntegerAttr.get(i32, value) for name, value in (
        ("producer_warps", producer_warps), ("producer_registers", producer_registers),
        ("consumer_registers", consumer_registers))}
    op = ir.Operation.create("tilegpu.warp_specialize", results=[], operands=[],
                             attributes=attrs, regions=2)
    for region in op.regions:
        region.blocks.append()
    return op


def async_tma_copy_global_to_local(tensormap: ir.Value, bar: ir.Value, dst: ir.Value,
                                   coords: list[ir.Value], multicast: int = 1) -> ir.Operation:
    """A TMA copy into `dst` completing on `bar`; with `multicast` N above 1, this CTA copies
    the column blocks of its rank (j % N == rank) into `dst` and onto `bar` of each of the
    cluster's N CTAs (which all make the same copy's other blocks)."""
    attrs = {MULTICAST_ATTR: ir.IntegerAttr.get(ir.IntegerType.get_signless(32), multicast)} \
        if multicast > 1 else {}
    return _create("async_tma_copy_global_to_local", [], [tensormap, bar, dst, *coords], attrs)


def async_tma_copy_local_to_global(tensormap: ir.Value, src: ir.Value,
                                   coords: list[ir.Value]) -> ir.Operation:
    return _create("async_tma_copy_local_to_global", [], [tensormap, src, *coords])


def async_tma_reduce(tensormap: ir.Value, src: ir.Value, coords: list[ir.Value],
                     kind: str = "add") -> ir.Operation:
    return _create("async_tma_reduce", [], [tensormap, src, *coords],
                   {"kind": ir.StringAttr.get(kind)})


def tma_store_wait(pendings: int) -> ir.Operation:
    attrs = {"pendings": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), pendings)}
    return _create("tma_store_wait", [], [], attrs)
