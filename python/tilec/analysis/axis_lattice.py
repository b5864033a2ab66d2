"""The lattice of the axis analysis (analysis/axis_info.py): per dimension of an integer or pointer
value, its contiguity, divisibility and constancy as powers of two, and the join of two facts."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mlir import ir

from tilec.dialects import tile

MAX_DIVISIBILITY = 1 << 62  # what divides zero; large enough for any address or offset
HINTS = ("tile.contiguity", "tile.divisibility", "tile.constancy")


def pow2_divisor(value: int) -> int:
    """The largest power of two dividing `value` (MAX_DIVISIBILITY for 0)."""
    return MAX_DIVISIBILITY if value == 0 else min(value & -value, MAX_DIVISIBILITY)


def floor_pow2(value: int) -> int:
    """The largest power of two not above `value` (1 for values below 2)."""
    return 1 << (max(int(value), 1).bit_length() - 1)


def bit_width(t: ir.Type) -> int:
    if tile.is_ptr(t) or isinstance(t, ir.IndexType):
        return 64
    if isinstance(t, (ir.IntegerType, ir.FloatType)):
        return t.width
    raise ValueError(f"no bit width for {t}")


_POINTEE_BYTES: dict[str, int] = {}


def element_bytes(ptr_type: ir.Type) -> int:
    """Bytes of the pointee of a pointer or tensor of pointers (at least 1)."""
    ptr = tile.element_type(ptr_type)
    key = str(ptr)
    if key not in _POINTEE_BYTES:
        with ptr.context:
            _POINTEE_BYTES[key] = max(bit_width(tile.ptr_pointee(ptr)) // 8, 1)
    return _POINTEE_BYTES[key]


def unit_bytes(t: ir.Type) -> int:
    """How far apart in value consecutive elements are: pointee bytes for pointers, else 1."""
    return element_bytes(t) if tile.is_ptr(tile.element_type(t)) else 1


def shape_of(t: ir.Type) -> tuple[int, ...]:
    """The shape the facts describe: a tensor's, `(1,)` for a scalar."""
    if isinstance(t, ir.RankedTensorType) and t.rank > 0:
        return tuple(t.shape)
    return (1,)


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    constant: int | None = None

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    @classmethod
    def pessimistic(cls, rank: int) -> "AxisInfo":
        return cls((1,) * rank, (1,) * rank, (1,) * rank)

    @classmethod
    def uniform(cls, shape: Sequence[int], divisibility: int, constant: int | None = None):
        """All elements equal (to `constant` when known), each divisible by `divisibility`."""
        if constant is not None:
            divisibility = pow2_divisor(constant)
        rank = len(shape)
        return cls((1,) * rank, (divisibility,) * rank, tuple(shape), constant)

    def divisibility_at(self, d: int, run: int, unit: int = 1) -> int:
        """What divides the value at the start of every aligned run of `run` elements along `d`
        (a result's runs may start inside this value's longer runs)."""
        if self.contiguity[d] <= run:
            return self.divisibility[d]
        return min(self.divisibility[d], run * unit)

    def element_divisibility(self, unit: int = 1) -> int:
        """What divides every element."""
        if self.constant is not None:
            return pow2_divisor(self.constant)
        return max(self.divisibility_at(d, 1, unit) for d in range(self.rank))

    def join(self, other: "AxisInfo", unit: int = 1) -> "AxisInfo":
        """Facts true of both (for a value that may be either)."""
        contig = tuple(min(a, b) for a, b in zip(self.contiguity, other.contiguity))
        div = tuple(min(self.divisibility_at(d, c, unit), other.divisibility_at(d, c, unit))
                    for d, c in enumerate(contig))
        const = tuple(min(a, b) for a, b in zip(self.constancy, other.constancy))
        constant = self.constant if self.constant == other.constant else None
        return AxisInfo(contig, div, const, constant)

    def __str__(self) -> str:
        text = (f"contiguity={list(self.contiguity)} divisibility={list(self.divisibility)} "
                f"constancy={list(self.constancy)}")
        return text if self.constant is None else f"{text} constant={self.constant}"


class AxisInfoMap:
    """The analysis result: facts for every value it reached, pessimistic ones for the rest."""

    def __init__(self, infos: dict[ir.Value, AxisInfo] | None = None):
        self._infos = infos if infos is not None else {}

    def get(self, value: ir.Value) -> AxisInfo:
        info = self._infos.get(value)
        return info if info is not None else AxisInfo.pessimistic(len(shape_of(value.type)))

    def set(self, value: ir.Value, info: AxisInfo) -> None:
        self._infos[value] = normalize(info, shape_of(value.type))

    def __contains__(self, value: ir.Value) -> bool:
        return value in self._infos


def normalize(info: AxisInfo, shape: tuple[int, ...]) -> AxisInfo:
    """Powers of two, runs no longer than the dimension, divisibility capped."""
    if info.rank != len(shape):
        return AxisInfo.pessimistic(len(shape))
    contig = tuple(min(floor_pow2(c), floor_pow2(s)) for c, s in zip(info.contiguity, shape))
    const = tuple(min(floor_pow2(c), floor_pow2(s)) for c, s in zip(info.constancy, shape))
    div = tuple(min(floor_pow2(v), MAX_DIVISIBILITY) for v in info.divisibility)
    return AxisInfo(contig, div, const, info.constant)
