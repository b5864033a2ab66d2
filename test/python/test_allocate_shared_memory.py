"""tilegpu-allocate-shared-memory on random programs: buffers whose lifetimes overlap never share
bytes, every buffer is 16-byte aligned and inside the module's total. Lifetimes are recomputed
here independently: a buffer is live from its alloc to the end of the outermost op (in the
alloc's block) that uses it; scratch lives only during its op."""
from __future__ import annotations

import random

import pytest
from mlir import ir

from tilec.context import make_context
from tilec.passes.allocate_shared_memory import AllocateSharedMemory

LAYOUT = "#tilegpu.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>"
OTHER = "#tilegpu.blocked<[8, 1], [4, 8], [1, 4], [0, 1]>"
SHARED = "#tilegpu.shared<8 : i32, 2 : i32, 4 : i32, [1, 0]>"
TENSOR = f"tensor<64x32xf16, {LAYOUT}>"
SIZES = [(16, 32), (64, 32), (128, 64)]  # f16 buffers: 1, 4 and 16 KB


def _program(seed: int) -> str:
    rng = random.Random(seed)
    names = []
    counter = iter(range(1 << 30))

    def buf_type(i):
        rows, cols = SIZES[i % len(SIZES)]
        return f"!tilegpu.memdesc<[{rows}, {cols}], f16, {SHARED}, true>"

    def block(depth: int, live: list) -> list[str]:
        lines = []
        for _ in range(rng.randint(2, 6)):
            r = rng.random()
            if r < 0.3:
                i = next(counter)
                names.append(i)
                live = live + [i]
                lines.append(f'%b{i} = "tilegpu.local_alloc"() : () -> {buf_type(i)}')
            elif r < 0.55 and live:
                i = rng.choice(live)
                lines.append(f'"tilegpu.local_dealloc"(%b{i}) : ({buf_type(i)}) -> ()')
            elif r < 0.7:
                lines.append(f'%v{next(counter)} = "tilegpu.convert_layout"(%x) : ({TENSOR}) -> '
                             f'tensor<64x32xf16, {OTHER}>')
            elif r < 0.85 and depth < 2:
                lines += [f"scf.for %i{next(counter)} = %c0 to %n step %c1 {{",
                          *block(depth + 1, live), "}"]
            elif depth < 2:
                lines += ["scf.if %c {", *block(depth + 1, live), "}"]
        return lines

    body = block(0, [])
    return (f"func.func @f(%x: {TENSOR}, %c: i1, %n: index) {{\n%c0 = arith.constant 0 : index\n"
            f"%c1 = arith.constant 1 : index\n" + "\n".join(body) + "\nreturn\n}")


def _numbering(block: ir.Block, order: dict, ends: dict) -> None:
    for op in block.operations:
        op = op.operation
        order[op] = len(order)
        for region in op.regions:
            for inner in region.blocks:
                _numbering(inner, order, ends)
        ends[op] = len(order) - 1


def _outermost_in(op: ir.Operation, block: ir.Block) -> ir.Operation:
    while op.block != block:
        op = op.parent.operation
    return op


def _lifetimes(func) -> list[tuple[int, int, int, int, str]]:
    order, ends = {}, {}
    _numbering(func.regions[0].blocks[0], order, ends)
    out = []
    for op, index in order.items():
        if "tilegpu.offset" not in op.attributes:
            continue
        offset = ir.IntegerAttr(op.attributes["tilegpu.offset"]).value
        size = ir.IntegerAttr(op.attributes["tilegpu.bytes"]).value
        end = index
        if op.name == "tilegpu.local_alloc":
            for use in op.results[0].uses:
                end = max(end, ends[_outermost_in(use.owner.operation, op.block)])
        out.append((index, end, offset, size, op.name))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_live_buffers_never_share_bytes(seed):
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(_program(seed))
        module.operation.attributes["tilegpu.num_warps"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(32), 4)
        AllocateSharedMemory().run(module.operation)
        total = ir.IntegerAttr(module.operation.attributes["tilegpu.shared_bytes"]).value
        buffers = _lifetimes(module.body.operations[0])
        for start, end, offset, size, _ in buffers:
            assert offset % 16 == 0 and offset + size <= total
        for i, a in enumerate(buffers):
            for b in buffers[i + 1:]:
                live_together = a[0] <= b[1] and b[0] <= a[1]
                share_bytes = a[2] < b[2] + b[3] and b[2] < a[2] + a[3]
                assert not (live_together and share_bytes), (a, b, str(module))
