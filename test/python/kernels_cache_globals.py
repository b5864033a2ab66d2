"""Cache-key fixture for test_specialization.py: a kernel that reads module-level constants.
The test loads this file as several modules and changes the constants in some of them."""
import tilec
import tilec.language as tl

SCALE = 2
WIDTH = tl.constexpr(16)


@tilec.jit
def kernel(x_ptr):
    offs = tl.arange(0, WIDTH)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * SCALE)
