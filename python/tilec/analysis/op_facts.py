"""What every `tile` and `tilegpu` op is, in one table: what the passes ask of an op they meet.

Per op:
- `effects`: "none" (its results are all it does: unused it is erased, identical ones merge),
  "read" (it reads memory: unused it is erased unless volatile, never merged), "write" (it
  changes memory or the machine's state: always kept, in order);
- `access`: the memory it touches (`GLOBAL_*` for tilegpu-coalesce, `SHARED_*` with
  `buffer_operand`, the memdesc (or memdescs) it touches, for tilegpu-membar);
- `scratch`: the bytes of shared memory it needs while it runs (tilegpu-allocate-shared-memory
  gives them, tilegpu-membar fences them), or None;
- `recompute`: cheap enough that tilegpu-remove-layout-conversions recomputes it in another
  layout rather than convert its result;
- `builtins`: the `tl` builtins whose programs hold it: the interpreter runs those (an op with
  none only exists after a pass made it).

Every op also has a lowering rule in `tilec.lowering.RULES` under its name, and every builtin an
implementation in the interpreter: test_op_facts.py holds the table, the dialects, the rules and
the interpreter to each other. Upstream ops (arith, math, scf, gpu) are not in the table.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir

from tilec.analysis import shared_memory as smem

GLOBAL_READ, GLOBAL_WRITE, GLOBAL_ATOMIC = "global-read", "global-write", "global-atomic"
SHARED_READ, SHARED_WRITE, SHARED_COPY, SHARED_ALLOC = ("shared-read", "shared-write",
                                                        "shared-copy", "shared-alloc")


@dataclass(frozen=True)
class OpFacts:
    effects: str = "none"
    access: str | None = None
    buffer_operand: int | tuple[int, ...] | None = None
    scratch: Callable[[ir.Operation], int] | None = None
    scratch_alignment: int = smem.ALIGNMENT  # where the scratch starts
    recompute: bool = False
    builtins: tuple[str, ...] = ()


def _none(*builtins, **kwargs) -> OpFacts:
    return OpFacts(effects="none", builtins=builtins, **kwargs)


def _write(*builtins, **kwargs) -> OpFacts:
    return OpFacts(effects="write", builtins=builtins, **kwargs)


OP_FACTS: dict[str, OpFacts] = {
    # --- tile: made by the frontend from the builtins --------------------------------------
    "tile.program_id": _none("program_id"),
    "tile.num_programs": _none("num_programs"),
    "tile.cta_rank": _none(),  # tile-split-ctas' (no builtin: programs do not see CTAs)
    "tile.make_range": _none("arange", recompute=True),
    "tile.splat": _none("full", "zeros", "zeros_like", "broadcast_to", recompute=True),
    "tile.broadcast": _none("broadcast", "broadcast_to", recompute=True),
    "tile.expand_dims": _none("expand_dims", recompute=True),
    "tile.reshape": _none("reshape", "view", "ravel", scratch=smem.per_result_element),
    "tile.trans": _none("trans", "permute", scratch=smem.per_result_element),
    "tile.join": _none("join", scratch=smem.per_result_element),
    "tile.split": _none("split", scratch=smem.per_operand_element),
    "tile.cat": _none("cat", scratch=smem.per_result_element),
    "tile.addptr": _none("load", "store", recompute=True),  # pointer + offsets
    "tile.load": OpFacts(effects="read", access=GLOBAL_READ, builtins=("load",)),
    "tile.store": _write("store", access=GLOBAL_WRITE),
    # a host descriptor's desc.load on sm_90 (convert-tile-to-tilegpu makes it a TMA copy)
    "tile.tma_load": OpFacts(effects="read"),
    "tile.tma_store": _write(),
    "tile.tma_reduce": _write("atomic_add"),  # desc.atomic_add through TMA
    # a map made in the kernel (sm_90 tl.make_tensor_descriptor): it writes the map into the
    # kernel's global scratch, which only its users read; unused, it goes
    "tile.make_tensormap": OpFacts(effects="read", builtins=("make_tensor_descriptor",),
                                   scratch=smem.tensormap_scratch,
                                   scratch_alignment=smem.TENSORMAP_ALIGNMENT),
    "tile.dot": _none("dot"),
    "tile.reduce": _none("reduce", scratch=smem.reduce_scratch),
    "tile.scan": _none("associative_scan", scratch=smem.scan_scratch),
    "tile.sort": _none("sort", scratch=smem.sort_scratch),
    "tile.gather": _none("gather", scratch=smem.per_operand_element),
    "tile.histogram": _none("histogram", scratch=smem.histogram_scratch),
    "tile.atomic_rmw": _write("atomic_add", "atomic_and", "atomic_or", "atomic_xor",
                              "atomic_max", "atomic_min", "atomic_xchg", access=GLOBAL_ATOMIC,
                              scratch=smem.atomic_scratch),
    "tile.atomic_cas": _write("atomic_cas", access=GLOBAL_ATOMIC, scratch=smem.atomic_scratch),
    "tile.fp_to_fp": _none("cast"),
    "tile.bitcast": _none("cast"),
    "tile.int_to_ptr": _none("cast"),
    "tile.ptr_to_int": _none("cast"),
    "tile.elementwise_inline_asm": _write("inline_asm_elementwise"),  # may touch memory
    "tile.print": _write("device_print"),
    "tile.assert": _write("device_assert"),
    # --- tilegpu: made by the layout passes -------------------------------------------------
    "tilegpu.convert_layout": _none(recompute=True, scratch=smem.conversion_scratch),
    "tilegpu.local_alloc": _write(access=SHARED_ALLOC),
    "tilegpu.local_load": OpFacts(effects="read", access=SHARED_READ, buffer_operand=0),
    "tilegpu.local_store": _write(access=SHARED_WRITE, buffer_operand=1),
    "tilegpu.local_dealloc": _write(),
    "tilegpu.memdesc_subview": _none(),
    "tilegpu.memdesc_trans": _none(),
    "tilegpu.async_copy_global_to_local": _write(access=SHARED_COPY, buffer_operand=1),
    "tilegpu.async_commit_group": _write(),
    "tilegpu.async_wait": _write(),
    "tilegpu.barrier": _write("debug_barrier"),
    "tilegpu.cluster_barrier": _write(),
    "tilegpu.warpgroup_dot": OpFacts(effects="read", access=SHARED_READ, buffer_operand=(0, 1)),
    "tilegpu.warpgroup_dot_wait": _write(),
    "tilegpu.fence_async_shared": _write(),
    "tilegpu.init_barrier": _write(access=SHARED_WRITE, buffer_operand=0),
    "tilegpu.inval_barrier": _write(access=SHARED_WRITE, buffer_operand=0),
    # every thread reads the barrier; the TMA copies on it land (as at an async_wait)
    "tilegpu.wait_barrier": _write(access=SHARED_READ, buffer_operand=0),
    # an arrival is an atomic update ordered by the barrier itself, as a wait is
    "tilegpu.arrive_barrier": _write(access=SHARED_READ, buffer_operand=0),
    "tilegpu.warp_specialize": _write(),  # its regions' ops have their own facts
    # named barriers ordering the consumer warpgroups' dots; they order no memory
    "tilegpu.warpgroup_turn_wait": _write(),
    "tilegpu.warpgroup_turn_pass": _write(),
    "tilegpu.async_tma_copy_global_to_local": _write(access=SHARED_COPY, buffer_operand=2),
    # a TMA store reads its buffer (one thread, asynchronously: until its tma_store_wait)
    "tilegpu.async_tma_copy_local_to_global": _write(access=SHARED_READ, buffer_operand=1),
    "tilegpu.tma_store_wait": _write(),
    "tilegpu.async_tma_reduce": _write(access=SHARED_READ, buffer_operand=1),
}

_UPSTREAM_PURE = ("arith", "math")


def facts(op: ir.Operation) -> OpFacts | None:
    return OP_FACTS.get(op.name)


def buffer_operands(found: OpFacts) -> tuple[int, ...]:
    """The operand numbers of the memdescs an op with these facts touches."""
    operand = found.buffer_operand
    return () if operand is None else operand if isinstance(operand, tuple) else (operand,)


def is_pure(op: ir.Operation) -> bool:
    """Side-effect free: the results are all the op does (upstream arith/math ops included)."""
    found = OP_FACTS.get(op.name)
    if found is not None:
        return found.effects == "none"
    return op.name.split(".")[0] in _UPSTREAM_PURE and not op.regions


def erasable_when_unused(op: ir.Operation) -> bool:
    """Whether `op` may go when nothing uses its results: pure ops and non-volatile reads."""
    found = OP_FACTS.get(op.name)
    if found is not None and found.effects == "read":
        return "is_volatile" not in op.attributes or not op.attributes["is_volatile"].value
    return is_pure(op)


def global_access(op: ir.Operation) -> str | None:
    found = OP_FACTS.get(op.name)
    return found.access if found is not None and found.access in (
        GLOBAL_READ, GLOBAL_WRITE, GLOBAL_ATOMIC) else None


def scratch_bytes(op: ir.Operation) -> int:
    """Bytes of shared memory `op` uses while it runs (0: none)."""
    found = OP_FACTS.get(op.name)
    return found.scratch(op) if found is not None and found.scratch is not None else 0


def scratch_alignment(op: ir.Operation) -> int:
    """Where `op`'s scratch starts (a multiple of this many bytes)."""
    found = OP_FACTS.get(op.name)
    return found.scratch_alignment if found is not None else smem.ALIGNMENT


def free_to_recompute(op: ir.Operation) -> bool:
    found = OP_FACTS.get(op.name)
    return op.name == "arith.constant" or (found is not None and found.recompute)
