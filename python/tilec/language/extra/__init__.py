"""`tl.extra`: the target's extras, as in Triton (`tl.extra.cuda`, and `tl.extra.libdevice`)."""
from tilec.language.extra import cuda  # noqa: F401
from tilec.language.extra.cuda import libdevice  # noqa: F401
