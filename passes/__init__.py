"""tilec's passes, one module each; importing this package registers all of them.

A pass's command-line name, its module and its lit test share one name, e.g. `tile-combine` ↔
`passes/combine.py` ↔ `test/Transforms/combine.mlir`.
"""
from tilec.passbase import Pass, registry
from tilec.passes import (  # noqa: F401
    accelerate_matmul,
    allocate_shared_memory,
    coalesce,
    combine,
    membar,
    overlap_dots,
    ping_pong,
    pipeline,
    remove_layout_conversions,
    split_ctas,
    tensormap_params,
    tile_to_tilegpu,
    tilegpu_to_llvm,
    warp_specialize,
)


def registered_passes() -> dict[str, type[Pass]]:
    """Every registered pass (tilec's and plugins'), sorted by name."""
    return dict(sorted(registry().items()))


def get_pass(name: str) -> type[Pass] | None:
    return registry().get(name)
