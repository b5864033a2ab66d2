"""tilec's passes, one module each; importing this package registers all of them.

A pass's command-line name, its module and its lit test share one name, e.g. `tile-combine` ↔
`passes/combine.py` ↔ `test/Transforms/combine.mlir`.
"""
from tilec.passes import combine  # noqa: F401
from tilec.passes import tile_to_tilegpu  # noqa: F401
from tilec.passes import remove_layout_conversions  # noqa: F401
from tilec.passes import tilegpu_to_llvm  # noqa: F401
from tilec.passes import coalesce  # noqa: F401
from tilec.passes import allocate_shared_memory  # noqa: F401
from tilec.passes import membar  # noqa: F401
from tilec.passes import accelerate_matmul  # noqa: F401
from tilec.passes import pipeline  # noqa: F401
