"""The register file of one program, and how warp specialisation divides it.

An SM has 65,536 32-bit registers and a thread at most 255. ptxas gives a kernel launched with
T threads (`.maxntid`, one program per SM: `.minnctapersm 1`) at most 65,536 / T registers a
thread, in units of 8. `setmaxnreg` (sm_90a) moves registers between warpgroups at run time:
`.dec` gives some back, `.inc` waits until enough are free. Counts are multiples of 8 from 24 to
256; if the warpgroups together ask for more than the file holds, `.inc` waits forever, so a
division is checked when it is made (`check_division`), never at run time.
"""
from __future__ import annotations

REGISTER_FILE = 65536
MAX_PER_THREAD = 255
SETMAXNREG_MIN, SETMAXNREG_MAX = 24, 256
WARPGROUP = 4  # warps; setmaxnreg applies to whole warpgroups
PRODUCER_REGISTERS = 40  # a TMA producer needs its loop's indices and addresses only


def launch_registers(threads: int) -> int:
    """The registers a thread of a `threads`-thread program may use from the start."""
    return min(MAX_PER_THREAD, REGISTER_FILE // threads // 8 * 8)


def consumer_registers(num_warps: int, producer_warps: int,
                       producer_registers: int = PRODUCER_REGISTERS) -> int:
    """The most registers each of `num_warps` consumer warps can raise to once
    `producer_warps` warps hold `producer_registers` each (a multiple of 8, at most 256)."""
    left = REGISTER_FILE - producer_registers * producer_warps * 32
    return min(SETMAXNREG_MAX, left // (num_warps * 32) // 8 * 8)


def check_division(num_warps: int, producer_warps: int, producer_registers: int,
                   consumer: int) -> str | None:
    """Why this division of the register file would fail (None when it holds)."""
    for name, count in (("producer_registers", producer_registers),
                        ("consumer_registers", consumer)):
        if not SETMAXNREG_MIN <= count <= SETMAXNREG_MAX or count % 8:
            return (f"{name} must be a multiple of 8 from {SETMAXNREG_MIN} to "
                    f"{SETMAXNREG_MAX}, got {count}")
    if producer_warps <= 0 or producer_warps % WARPGROUP:
        return f"producer_warps must be whole warpgroups of {WARPGROUP}, got {producer_warps}"
    if num_warps % WARPGROUP:
        return (f"the consumers' {num_warps} warps are not whole warpgroups of {WARPGROUP} "
                "(setmaxnreg works on warpgroups)")
    if (num_warps + producer_warps) * 32 > 1024:
        return f"{num_warps} + {producer_warps} warps exceed a program's 1024 threads"
    total = (producer_registers * producer_warps + consumer * num_warps) * 32
    if total > REGISTER_FILE:
        return (f"{producer_warps} producer warps at {producer_registers} registers and "
                f"{num_warps} consumer warps at {consumer} need {total} registers; an SM has "
                f"{REGISTER_FILE} (setmaxnreg.inc would wait forever)")
    return None
