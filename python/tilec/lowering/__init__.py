"""Warp distribution: the lowering rules of convert-tilegpu-to-llvm, one per op."""
from tilec.lowering import (  # noqa: F401  # noqa: F401
                            atomics,
                            control_flow,
                            data_movement,
                            debug,
                            dot,
                            elementwise,
                            memory,
                            reductions,
                            scans,
                            shared,
                            tma,
                            warp_specialize,
                            wgmma,
)
from tilec.lowering.context import RULES, Distributed, Lowering, LoweringError

__all__ = ["RULES", "Distributed", "Lowering", "LoweringError"]
