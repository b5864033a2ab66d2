"""`tl.extra.cuda`: `globaltimer()`, `smid()`, `num_threads()` (the GPU's special registers)
and `libdevice` (CUDA's math library by its names)."""
from tilec.language.builtins import CUDA
from tilec.language.extra.cuda import libdevice  # noqa: F401

globals().update(CUDA)
