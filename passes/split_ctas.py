"""tile-split-ctas: a program of num-ctas CTAs (a thread block cluster) shares its rows out.

With `num-ctas` N above 1 a program is a cluster of N CTAs (see convert-tilegpu-to-llvm). This
pass gives each CTA 1/N of the rows (dimension 0) of every `tile.dot`'s A operand, accumulator
and result, and of every tensor whose rows are tied to those: CTA r holds rows
[r M/N, (r + 1) M/N) of each. B operands stay whole: every CTA loads all of B. What ties rows:
- elementwise ops (`arith`, `math`, `addptr`, `load`, `store`, `fp_to_fp`, `bitcast`,
  `int_to_ptr`, `ptr_to_int`): their tensor operands and results row for row;
- `broadcast` from an operand with as many rows (from one row, only the result's rows are
  split), `expand_dims` along another axis than 0,
  `reshape` keeping the row count (no reordering), `trans` keeping dimension 0 first, `reduce`
  along another axis than 0; the same rows before and after;
- `scf.for` / `scf.if`: a carried value's initial value, block argument, yielded value and
  result; `dot`: A, the accumulator and the result;
- TMA copies through one map: every block it copies (the map's box is one row count).
Values every CTA makes alike (`make_range`, `splat`, splat constants) are not tied through:
each use is tied on its own, and a use whose rows are split gets a copy of this CTA's rows
(`make_range(s, e)` becomes `make_range(s, s + (e - s)/N) + cta_rank * (e - s)/N`).

The split is made only when it closes: every value tied to a dot's rows has a row count that
N divides (and the dot at least 16 rows a CTA), no B operand, no value entering an op that
mixes rows (a reduction over rows, a `gather`, an atomic, ...) is tied to them, every effect
of the program is a `store` or TMA store of split rows (so each element is written once, by
the CTA holding it; no call either, whose callee this does not look into), no load reads
through a parameter the program stores through (another CTA may have written those rows), and
maps of split copies are kernel parameters (host descriptors). A kernel where it does not
close is left as it was, and the first CTA of each cluster runs it whole.

After it runs, a split kernel is marked `tile.split_ctas = N` (every CTA then runs it), every
split value has M/N rows, a split TMA copy adds `cta_rank * rows` to its row coordinate and its
map parameter says `tile.split_rows = rows` (the launcher encodes the map's box with them).

Example (num-ctas=2):
    %a = "tile.tma_load"(%map_a, %m, %k) : (!llvm.ptr, i32, i32) -> tensor<256x64xf16>
    %d = "tile.dot"(%a, %b, %acc) : (..., tensor<256x256xf32>) -> tensor<256x256xf32>
becomes
    %r = "tile.cta_rank"() : () -> i32;  %o = arith.muli %r, 128;  %m2 = arith.addi %m, %o
    %a = "tile.tma_load"(%map_a, %m2, %k) : (!llvm.ptr, i32, i32) -> tensor<128x64xf16>
    %d = "tile.dot"(%a, %b, %acc) : (..., tensor<128x256xf32>) -> tensor<128x256xf32>
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from tilec.dialects import tile
from tilec.passbase import NUM_CTAS, Option, Pass, register
from tilec.passes.pipeline import _owner

SPLIT_ATTR = "tile.split_ctas"  # on a kernel whose rows are shared out among its CTAs
SPLIT_ROWS_ATTR = "tile.split_rows"  # on a map parameter: the rows of a CTA's box

# Ops whose tensor operands and results hold the same elements, row for row.
_ROWWISE = frozenset({"tile.addptr", "tile.load", "tile.store", "tile.fp_to_fp", "tile.bitcast",
                      "tile.int_to_ptr", "tile.ptr_to_int"})
# Writes a split kernel may keep: each CTA writes its rows.
_SPLIT_WRITES = frozenset({"tile.store", "tile.tma_store"})
MIN_DOT_ROWS = 16  # a CTA's rows of a dot: mma.sync's and more


def _tensor(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType)


def split_ctas(kernel: ir.Operation) -> int:
    """The CTAs this pass shared the kernel's rows out among (1: none)."""
    return ir.IntegerAttr(kernel.attributes[SPLIT_ATTR]).value \
        if SPLIT_ATTR in kernel.attributes else 1


def split_rows(kernel: ir.Operation) -> dict[int, int]:
    """{parameter number: a CTA's rows} of the kernel's map parameters whose copies this pass
    shared out (their `tile.split_rows`)."""
    if "arg_attrs" not in kernel.attributes:
        return {}
    return {i: ir.IntegerAttr(ir.DictAttr(a)[SPLIT_ROWS_ATTR]).value
            for i, a in enumerate(kernel.attributes["arg_attrs"])
            if SPLIT_ROWS_ATTR in ir.DictAttr(a)}


def _generator(value: ir.Value) -> bool:
    """Made alike in every CTA from nothing row-dependent: each use gets its own rows."""
    op = _owner(value)
    if op is None or not _tensor(value):
        return False
    if op.name in ("tile.make_range", "tile.splat"):
        return True
    return op.name == "arith.constant" and isinstance(op.attributes["value"],
                                                       ir.DenseElementsAttr) and \
        ir.DenseElementsAttr(op.attributes["value"]).is_splat


def _parameter_of(pointer: ir.Value) -> int | None:
    """The kernel parameter (its number) a pointer, tensor of pointers or map is made from by
    offsets and reshaping, or None where it is not so made."""
    while True:
        if isinstance(pointer.owner, ir.Block):
            block = pointer.owner
            number = ir.BlockArgument(pointer).arg_number
            parent = block.owner.operation if block.owner is not None else None
            if parent is not None and parent.name == "func.func":
                return number
            if parent is not None and parent.name == "scf.for" and number >= 1:
                pointer = parent.operands[3 + number - 1]  # a carried pointer: its start
                continue
            return None
        op = _owner(pointer)
        if op is None or op.name not in ("tile.addptr", "tile.splat", "tile.broadcast",
                                         "tile.expand_dims", "tile.reshape"):
            return None
        pointer = op.operands[0]


class _Rows:
    """Union-find over the values (and generator uses, and maps) whose rows go together."""

    def __init__(self):
        self.parent: dict = {}
        self.split: set = set()  # roots whose rows are shared out
        self.whole: set = set()  # roots that must keep all rows
        self.values: dict = {}  # key -> the ir.Value it stands for (None: a map)

    def node(self, op: ir.Operation, index: int) -> object:
        """The node of operand `index` of `op`: the value's, or the use's for a generator."""
        value = op.operands[index]
        key = ("use", op, index) if _generator(value) else value
        self.values.setdefault(key, value)
        return key

    def value_node(self, value: ir.Value) -> object:
        self.values.setdefault(value, value)
        return value

    def find(self, key):
        self.parent.setdefault(key, key)
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def tie(self, keys) -> None:
        keys = [self.find(k) for k in keys]
        root = keys[0] if keys else None
        for k in keys[1:]:
            if k != root:
                self.parent[k] = root
                if k in self.split:
                    self.split.add(root)
                if k in self.whole:
                    self.whole.add(root)

    def mark(self, key, split: bool) -> None:
        (self.split if split else self.whole).add(self.find(key))

    def is_split(self, key) -> bool:
        return self.find(key) in self.split


def _rows_kept(op: ir.Operation) -> bool:
    """Whether a shape op keeps each row's elements in that row (dimension 0 stays first)."""
    src, dst = op.operands[0].type, op.results[0].type
    if op.name == "tile.broadcast":
        return src.shape[0] == dst.shape[0]
    if op.name == "tile.expand_dims":
        return ir.IntegerAttr(op.attributes["axis"]).value != 0
    if op.name == "tile.reshape":
        reorder = "allow_reorder" in op.attributes and ir.BoolAttr(
            op.attributes["allow_reorder"]).value
        return not reorder and src.rank >= 1 and dst.rank >= 1 and src.shape[0] == dst.shape[0]
    if op.name == "tile.trans":
        return list(ir.DenseI32ArrayAttr(op.attributes["order"]))[0] == 0
    return False


class _Splitter:
    def __init__(self, kernel: ir.Operation, n: int):
        self.kernel, self.n = kernel, n
        self.rows = _Rows()
        self.dots: list[ir.Operation] = []
        self.copies: list[tuple[ir.Operation, object]] = []  # TMA ops and their map's node
        self.writes: list[ir.Operation] = []

    # --- the ties --------------------------------------------------------------------------

    def collect(self) -> None:
        def visit(op):
            self._tie(op.operation)
            return ir.WalkResult.ADVANCE
        self.kernel.walk(visit)

    def _tie(self, op: ir.Operation) -> None:
        r, name = self.rows, op.name
        operands = [r.node(op, i) for i, v in enumerate(op.operands) if _tensor(v)]
        results = [r.value_node(v) for v in op.results if _tensor(v)]
        if name in ("tile.print", "tile.assert", "tile.tma_reduce", "func.call") or \
                name.startswith("tile.atomic") or (name in _SPLIT_WRITES and not operands):
            self.writes.append(op)  # an effect (a call: maybe) no CTA could do alone: no split
        if name in _SPLIT_WRITES and operands:
            self.writes.append(op)
        if name == "arith.constant" and results and not _generator(op.results[0]):
            r.mark(results[0], split=False)  # a constant of different elements: kept whole
            return
        if name in ("tile.make_range", "tile.splat", "arith.constant", "tile.cta_rank",
                    "tile.program_id", "tile.num_programs"):
            return  # generators: their uses are tied one by one
        if name.split(".")[0] in ("arith", "math") or name in _ROWWISE:
            r.tie(operands + results)
        elif name == "tile.broadcast" and op.operands[0].type.shape[0] == 1:
            return  # one row for all: the result's rows are free, the operand's is whole
        elif name in ("tile.broadcast", "tile.expand_dims", "tile.reshape", "tile.trans"):
            if _rows_kept(op):
                r.tie(operands + results)
            else:
                for key in operands + results:
                    r.mark(key, split=False)
        elif name == "tile.reduce":
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            if axis != 0 and all(v.type.rank >= 2 for v in op.operands if _tensor(v)):
                r.tie(operands + results)
            else:
                for key in operands + results:
                    r.mark(key, split=False)
        elif name == "tile.dot":
            a, b, acc = (r.node(op, i) for i in range(3))
            r.tie([a, acc, results[0]])
            r.mark(b, split=False)
            self.dots.append(op)
        elif name in ("tile.tma_load", "tile.tma_store"):
            mapped = ("map", op.operands[0])
            r.values.setdefault(mapped, None)
            r.tie([mapped] + operands + results)
            self.copies.append((op, mapped))
        elif name == "scf.for":
            body = op.regions[0].blocks[0]
            yielded = list(body.operations)[-1].operation
            inits = list(op.operands)[3:]
            for i, init in enumerate(inits):
                if _tensor(init):
                    r.tie([r.node(op, 3 + i), r.value_node(body.arguments[1 + i]),
                           r.node(yielded, i), r.value_node(op.results[i])])
        elif name == "scf.if":
            for region in op.regions:
                for block in region.blocks:
                    yielded = list(block.operations)[-1].operation
                    for i, result in enumerate(op.results):
                        if _tensor(result):
                            r.tie([r.value_node(result), r.node(yielded, i)])
        elif name in ("scf.yield", "func.return"):
            return  # scf.yield: tied by its loop or branch
        else:  # anything else keeps all rows of what it touches, inside it too
            inner = [r.value_node(a) for region in op.regions for block in region.blocks
                     for a in block.arguments if _tensor(a)]
            for key in operands + results + inner:
                r.mark(key, split=False)

    # --- the decision ----------------------------------------------------------------------

    def decide(self) -> bool:
        r = self.rows
        seeded = False
        for dot in self.dots:
            rows = dot.results[0].type.shape[0]
            if rows % self.n == 0 and rows // self.n >= MIN_DOT_ROWS:
                r.mark(r.value_node(dot.results[0]), split=True)
                seeded = True
        if not seeded or r.split & r.whole:
            return False
        for key, value in r.values.items():
            if value is not None and r.is_split(key) and (
                    value.type.rank == 0 or value.type.shape[0] % self.n):
                return False
        for op in self.writes:
            if op.name not in _SPLIT_WRITES:
                return False
            tensors = [i for i, v in enumerate(op.operands) if _tensor(v)]
            if not tensors or not all(r.is_split(r.node(op, i)) for i in tensors):
                return False
        for op, mapped in self.copies:
            if r.is_split(mapped) and not isinstance(op.operands[0].owner, ir.Block):
                return False  # a map made in the kernel: its box is not the launcher's
        return not self._reads_what_it_writes()

    def _reads_what_it_writes(self) -> bool:
        """Whether a load may read what the kernel stores (through the same parameter, or one
        this cannot tell): another CTA may hold the rows that wrote it."""
        written, read = set(), set()
        def visit(op):
            op = op.operation
            if op.name in ("tile.store", "tile.load", "tile.tma_store", "tile.tma_load"):
                base = _parameter_of(op.operands[0])
                (written if "store" in op.name else read).add(base)
            return ir.WalkResult.ADVANCE
        self.kernel.walk(visit)
        return None in written or None in read or bool(written & read)

    # --- the rewrite -----------------------------------------------------------------------

    def rewrite(self) -> None:
        r, n = self.rows, self.n
        entry = self.kernel.regions[0].blocks[0]
        with ir.InsertionPoint.at_block_begin(entry), self.kernel.location:
            self.rank = tile.cta_rank()
        # what is split, read before anything changes (a changed value is still the same key,
        # but keep the union-find out of the rewrite)
        split = [(key, value) for key, value in r.values.items()
                 if value is not None and r.is_split(key)]
        copies = [op for op, mapped in self.copies if r.is_split(mapped)]
        clones: dict = {}
        for key, value in split:
            if isinstance(key, tuple):  # a generator's use: this CTA's rows of it
                _, op, index = key
                made = clones.get(value)
                if made is None:
                    made = clones[value] = self._generate(value)
                op.operands[index] = made
            else:
                value.set_type(self._split_type(value.type))
        for value in clones:  # a generator all of whose uses took this CTA's rows
            if not list(value.uses):
                _owner(value).erase()
        for op in copies:
            rows = (op.results[0] if op.name == "tile.tma_load" else op.operands[1]).type.shape[0]
            first = 1 if op.name == "tile.tma_load" else 2  # the row coordinate's operand
            with ir.InsertionPoint(op), op.location:
                offset = arith.muli(self.rank, arith.constant(ir.IntegerType.get_signless(32),
                                                              rows))
                op.operands[first] = arith.addi(op.operands[first], offset)
            arg = op.operands[0]
            entry_block = arg.owner
            attrs = list(self.kernel.attributes["arg_attrs"]) if "arg_attrs" in \
                self.kernel.attributes else [ir.DictAttr.get({})] * len(entry_block.arguments)
            index = ir.BlockArgument(arg).arg_number
            entries = {a.name: a.attr for a in ir.DictAttr(attrs[index])}
            entries[SPLIT_ROWS_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), rows)
            attrs[index] = ir.DictAttr.get(entries)
            self.kernel.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
        self.kernel.attributes[SPLIT_ATTR] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(32), n)

    def _split_type(self, t: ir.RankedTensorType) -> ir.RankedTensorType:
        return ir.RankedTensorType.get([t.shape[0] // self.n, *t.shape[1:]], t.element_type,
                                       t.encoding, loc=self.kernel.location)

    def _generate(self, value: ir.Value) -> ir.Value:
        """This CTA's rows of a generator's result, made right after it."""
        op = _owner(value)
        t = self._split_type(value.type)
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint.after(op), op.location:
            if op.name == "tile.splat":
                return tile.splat(op.operands[0], t.shape)
            if op.name == "arith.constant":
                splat = ir.DenseElementsAttr(op.attributes["value"]).get_splat_value()
                return arith.constant(t, ir.DenseElementsAttr.get_splat(t, splat))
            start = ir.IntegerAttr(op.attributes["start"]).value
            part = t.shape[0]
            rows = tile.make_range(start, start + part)
            base = arith.muli(self.rank, arith.constant(i32, part))
            return arith.addi(rows, tile.splat(base, t.shape))


@register
class SplitCtas(Pass):
    name = "tile-split-ctas"
    summary = "Share a program's rows out among the CTAs of its cluster (num-ctas)"
    options = (Option("num-ctas", int, 1, "CTAs per program instance (a thread block cluster)",
                      *NUM_CTAS),)

    def run(self, module: ir.Operation) -> None:
        if self.num_ctas == 1:
            return
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name != "func.func" or "tile.kernel" not in op.attributes or \
                    not op.regions[0].blocks:
                continue
            splitter = _Splitter(op, self.num_ctas)
            splitter.collect()
            if splitter.decide():
                splitter.rewrite()
