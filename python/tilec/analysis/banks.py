"""Shared-memory bank conflicts: how many wavefronts one warp's access takes.

Shared memory is 32 banks of 4-byte words and serves 128 bytes a wavefront. A warp's access of
`width` bytes a lane is served in phases of 128 / width lanes (all 32 lanes for 4 bytes or
less, half-warps for 8, quarter-warps for 16; stmatrix and ldmatrix address 16-byte rows, eight
lanes a matrix); within a phase, a bank serves one word a wavefront, and lanes reading the same
word share it. So a phase takes as many wavefronts as the most distinct words any bank holds
among the words its lanes touch, and the access the sum over its phases.

Conversions through shared memory use this to choose their swizzle (lowering/data_movement.py):
the model replaces reasoning about one layout pair at a time (which rows of a warp's store share
a 128-byte line) with a count over the layouts' actual addresses.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

BANKS = 32
WORD_BYTES = 4
WAVEFRONT_BYTES = BANKS * WORD_BYTES


def lanes_per_phase(width: int) -> int:
    """The lanes a phase of an access of `width` bytes a lane serves (128 bytes' worth)."""
    return max(WAVEFRONT_BYTES // max(width, WORD_BYTES), 1)


def wavefronts(addresses: Iterable[int], width: int) -> int:
    """Wavefronts of one warp's access of `width` bytes at each lane's byte address (lane
    order; an access no lane makes is left out of `addresses`)."""
    addresses = list(addresses)
    per_phase = lanes_per_phase(width)
    total = 0
    for start in range(0, len(addresses), per_phase):
        words: dict[int, set[int]] = {}
        for address in addresses[start:start + per_phase]:
            first, end = address // WORD_BYTES, -(-(address + width) // WORD_BYTES)
            for word in range(first, end):
                words.setdefault(word % BANKS, set()).add(word)
        total += max(len(held) for held in words.values())
    return total


def ideal_wavefronts(lanes: int, width: int) -> int:
    """Wavefronts of an access of `width` bytes by `lanes` lanes with no conflict: one per
    phase."""
    return -(-lanes // lanes_per_phase(width))


def warp_wavefronts(linear, step: int, elements: int, size: int,
                    offset: Callable[[tuple[int, ...]], int]) -> tuple[int, int]:
    """(wavefronts, ideal) of warp 0's accesses of `elements` elements of `size` bytes a lane
    at registers 0, step, 2 step, ... of `linear` (a LinearLayout), each lane's at the element
    offset `offset` gives its coordinate."""
    total = ideal = 0
    for reg in range(0, linear.num_registers, step):
        total += wavefronts((offset(linear.coords(reg, lane, 0)) * size for lane in range(32)),
                            elements * size)
        ideal += ideal_wavefronts(32, elements * size)
    return total, ideal


def swizzled_offset(row: int, column: int, columns: int, vec: int, phases: int) -> int:
    """Element offset of (row, column) in a row-major tile `columns` wide whose `vec`-element
    chunks are XOR-ed with the row modulo `phases` (lowering/shared_buffer.element_offset of a
    SharedLayout(vec, 1, phases, (1, 0)) over a whole row)."""
    chunk = (column // vec) ^ (row % phases)
    return row * columns + chunk * vec + column % vec
