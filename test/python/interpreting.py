"""One launch of a compiled-mode kernel through the interpreter (as TILEC_INTERPRET=1 would run
it), for tests that compare both modes on the same kernel objects."""


def interpret(kernel, grid, *args, **meta):
    kernel.interpret = True
    try:
        kernel[grid](*args, **meta)
    finally:
        kernel.interpret = None
