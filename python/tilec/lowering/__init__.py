"""Warp distribution: the lowering rules of convert-tilegpu-to-llvm, one per op."""
from tilec.lowering import (atomics, control_flow, data_movement, elementwise,  # noqa: F401
                            memory, reductions, scans)
from tilec.lowering import debug, dot, shared  # noqa: F401
from tilec.lowering.context import RULES, Distributed, Lowering, LoweringError

__all__ = ["RULES", "Distributed", "Lowering", "LoweringError"]
