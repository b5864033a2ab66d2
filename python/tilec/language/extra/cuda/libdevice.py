"""`tl.extra.cuda.libdevice`: libdevice's functions by their names (the same operations as
tl.math's: one definition of each)."""
from tilec.language.math import *  # noqa: F401,F403
from tilec.language.math import LIBDEVICE

globals().update(LIBDEVICE)
