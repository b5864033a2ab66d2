"""tilegpu-membar is sound on random programs: along every path (both sides of each `scf.if`,
loops run 0, 1 and 2 times), two shared-memory accesses to overlapping bytes, one of them a
write, have a barrier between them. The check is independent of the pass: it expands the
barriered program into traces and looks at every pair of accesses."""
from __future__ import annotations

import itertools
import random

import pytest
from mlir import ir

from tilec.context import make_context
from tilec.passes.membar import Membar

LAYOUT = "#tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>"
OTHER = "#tilegpu.blocked<[8, 1], [4, 8], [1, 4], [0, 1]>"
BUF = "!tilegpu.memdesc<[64, 32], f16, #tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>, true>"
TENSOR = f"tensor<64x32xf16, {LAYOUT}>"
BUFFERS = [(0, 4096), (2048, 4096), (8192, 4096)]  # the first two overlap
SCRATCH = [(0, 1024), (4096, 2048), (12288, 1024)]


def _access(rng: random.Random) -> str:
    kind = rng.choice(["store", "load", "scratch"])
    if kind == "store":
        return f'"tilegpu.local_store"(%x, %b{rng.randrange(len(BUFFERS))}) : ({TENSOR}, {BUF}) -> ()'
    if kind == "load":
        return f'%{_name(rng)} = "tilegpu.local_load"(%b{rng.randrange(len(BUFFERS))}) : ({BUF}) -> {TENSOR}'
    offset, size = rng.choice(SCRATCH)
    return (f'%{_name(rng)} = "tilegpu.convert_layout"(%x) {{tilegpu.offset = {offset} : i32, '
            f'tilegpu.bytes = {size} : i32}} : ({TENSOR}) -> tensor<64x32xf16, {OTHER}>')


def _name(rng: random.Random) -> str:
    return f"v{rng.randrange(1 << 30)}"


def _block(rng: random.Random, depth: int) -> list[str]:
    lines = []
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        if depth < 2 and choice < 0.2:
            then, other = _block(rng, depth + 1), _block(rng, depth + 1)
            lines += ["scf.if %c {", *then, "} else {", *other, "}"]
        elif depth < 2 and choice < 0.4:
            lines += [f"scf.for %{_name(rng)} = %c0 to %n step %c1 {{", *_block(rng, depth + 1), "}"]
        else:
            lines.append(_access(rng))
    return lines


def _program(seed: int) -> str:
    rng = random.Random(seed)
    allocs = [f'%b{i} = "tilegpu.local_alloc"() {{tilegpu.offset = {o} : i32, '
              f'tilegpu.bytes = {s} : i32}} : () -> {BUF}' for i, (o, s) in enumerate(BUFFERS)]
    body = "\n".join(["%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index",
                      *allocs, *_block(rng, 0), "return"])
    return f"func.func @f(%x: {TENSOR}, %c: i1, %n: index) {{\n{body}\n}}"


def _ranges(op: ir.Operation) -> tuple[int, int]:
    return (ir.IntegerAttr(op.attributes["tilegpu.offset"]).value,
            ir.IntegerAttr(op.attributes["tilegpu.offset"]).value +
            ir.IntegerAttr(op.attributes["tilegpu.bytes"]).value)


def _traces(block: ir.Block) -> list[list]:
    """Every path through `block` as a list of events: ("W"|"R", (start, end)) or "B"."""
    paths = [[]]
    for op in block.operations:
        op = op.operation
        if op.name == "scf.if":
            branches = [t for region in op.regions for t in _traces(region.blocks[0])]
            paths = [p + t for p in paths for t in branches]
        elif op.name == "scf.for":
            body = _traces(op.regions[0].blocks[0])
            runs = [[]] + body + [a + b for a, b in itertools.product(body, body)]
            paths = [p + r for p in paths for r in runs]
        elif op.name in ("tilegpu.barrier", "gpu.barrier"):
            paths = [p + ["B"] for p in paths]
        elif op.name == "tilegpu.local_store":
            paths = [p + [("W", _ranges(op.operands[1].owner.operation))] for p in paths]
        elif op.name == "tilegpu.local_load":
            paths = [p + [("R", _ranges(op.operands[0].owner.operation))] for p in paths]
        elif op.name == "tilegpu.convert_layout":  # writes, its own barrier, reads
            rng = _ranges(op)
            paths = [p + [("W", rng), "B", ("R", rng)] for p in paths]
    return paths


def _unsynchronised(trace: list) -> tuple | None:
    for i, first in enumerate(trace):
        if first == "B":
            continue
        for second in trace[i + 1:]:
            if second == "B":
                break
            (k1, (a0, a1)), (k2, (b0, b1)) = first, second
            if "W" in (k1, k2) and a0 < b1 and b0 < a1:
                return first, second
    return None


@pytest.mark.parametrize("seed", range(60))
def test_every_conflicting_pair_is_separated_by_a_barrier(seed):
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(_program(seed))
        Membar().run(module.operation)
        func = module.body.operations[0]
        for trace in _traces(func.regions[0].blocks[0]):
            assert _unsynchronised(trace) is None, (_unsynchronised(trace), str(module))


def test_the_checker_sees_a_missing_barrier():
    """Without the pass, some random program has an unsynchronised pair (the check can fail)."""
    found = False
    with make_context(), ir.Location.unknown():
        for seed in range(60):
            module = ir.Module.parse(_program(seed))
            func = module.body.operations[0]
            if any(_unsynchronised(t) for t in _traces(func.regions[0].blocks[0])):
                found = True
                break
    assert found
