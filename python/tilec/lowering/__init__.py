"""Warp distribution: the lowering rules of convert-tilegpu-to-llvm, one per op."""
from tilec.lowering import control_flow, elementwise, memory, reductions  # noqa: F401
from tilec.lowering.context import RULES, Distributed, Lowering, LoweringError

__all__ = ["RULES", "Distributed", "Lowering", "LoweringError"]
