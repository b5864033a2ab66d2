"""Warp distribution: the lowering rules of convert-tilegpu-to-llvm, one per op."""
from tilec.lowering import (atomics, control_flow, elementwise, memory,  # noqa: F401
                            reductions)
from tilec.lowering.context import RULES, Distributed, Lowering, LoweringError

__all__ = ["RULES", "Distributed", "Lowering", "LoweringError"]
