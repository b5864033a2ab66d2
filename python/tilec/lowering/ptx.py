"""PTX instructions that LLVM's NVPTX backend cannot be asked for, as inline asm: loads and
stores with a cache operator or an L1 eviction priority (`tl.load(..., cache_modifier=".cg",
eviction_policy="evict_last")`), and global atomics carrying their memory semantics and scope
(`atom.global.gpu.acq_rel.add.f32`), which LLVM's atomics lose on the way to PTX.

Values travel in integer registers of the access width ("h" 16, "r" 32, "l" 64 bits), so any
element type of that width goes through the same instruction (`bits`/`from_bits` convert).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

_REGISTER = {16: "h", 32: "r", 64: "l"}
LOAD_CACHE = {"none": "", "ca": ".ca", "cg": ".cg", "cv": ".cv"}
STORE_CACHE = {"none": "", "wb": ".wb", "cg": ".cg", "cs": ".cs", "wt": ".wt"}
EVICT = {"evict_normal": "", "evict_first": ".L1::evict_first", "evict_last": ".L1::evict_last"}


def width(t: ir.Type) -> int:
    if isinstance(t, ir.IntegerType):
        return t.width
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(str(t), 0)


def bits(value: ir.Value) -> ir.Value:
    """`value` as the integer of its width."""
    if isinstance(value.type, ir.IntegerType):
        return value
    return arith.bitcast(ir.IntegerType.get_signless(width(value.type)), value)


def from_bits(value: ir.Value, t: ir.Type) -> ir.Value:
    return value if value.type == t else arith.bitcast(t, value)


def asm(results: list[ir.Type], operands: list[ir.Value], text: str, constraints: list[str],
        side_effects: bool = True) -> list[ir.Value]:
    """One inline-asm instruction: `constraints` lists the outputs' ("=r", ...) then the
    operands'; returns the outputs."""
    if not results:
        result_type = ir.Type.parse("!llvm.void")
    elif len(results) == 1:
        result_type = results[0]
    else:
        result_type = ir.Type.parse(f"!llvm.struct<({', '.join(str(t) for t in results)})>")
    op = llvm.InlineAsmOp(result_type, operands, text, ",".join(constraints),
                          has_side_effects=side_effects)
    if len(results) <= 1:
        return [op.result] if results else []
    return [llvm.extractvalue(t, op.result, ir.DenseI64ArrayAttr.get([i]))
            for i, t in enumerate(results)]


def _words(count: int, element: ir.Type) -> tuple[int, int]:
    """(register width, register count) holding `count` elements: one register per element of
    16 bits or more when they are 64 bits wide, else 32-bit words when they fill some, else one
    16-bit register."""
    w, total = width(element), count * width(element)
    if w == 64:
        return 64, count
    if total % 32 == 0:
        return 32, total // 32
    return 16, 1


def _i(n: int) -> ir.Type:
    return ir.IntegerType.get_signless(n)


def _vector(values: list[ir.Value]) -> ir.Value:
    vec = llvm.mlir_undef(ir.VectorType.get([len(values)], values[0].type))
    for i, v in enumerate(values):
        vec = llvm.insertelement(vec, v, arith.constant(_i(32), i))
    return vec


def retype(values: list[ir.Value], count: int, t: ir.Type) -> list[ir.Value]:
    """The bits of `values` (all of one type) as `count` values of type `t`."""
    if len(values) == count:
        return [v if v.type == t else llvm.bitcast(t, v) for v in values]
    whole = values[0] if len(values) == 1 else _vector(values)
    if count == 1:
        return [llvm.bitcast(t, whole)]
    vec = llvm.bitcast(ir.VectorType.get([count], t), whole)
    return [llvm.extractelement(vec, arith.constant(_i(32), i)) for i in range(count)]


def _vec(nregs: int) -> str:
    return f".v{nregs}" if nregs > 1 else ""


def _braced(first: int, count: int) -> str:
    names = ", ".join(f"${first + i}" for i in range(count))
    return f"{{{names}}}" if count > 1 else names


def load(pointer: ir.Value, count: int, element: ir.Type, cache: str, evict: str) -> list:
    """`count` consecutive elements at `pointer` (aligned to their total size), loaded with
    the cache operator and eviction priority (an eviction priority replaces the operator: PTX
    takes one or the other)."""
    if width(element) == 8 and count * 8 < 16:
        words = asm([ir.IntegerType.get_signless(16)], [pointer],
                    f"ld.global{_qualifier(LOAD_CACHE[cache], evict)}.u8 $0, [$1];",
                    ["=h", "l"])
        return [arith.trunci(element, words[0])]
    reg, nregs = _words(count, element)
    words = asm([_i(reg)] * nregs, [pointer],
                f"ld.global{_qualifier(LOAD_CACHE[cache], evict)}{_vec(nregs)}.b{reg} "
                f"{_braced(0, nregs)}, [${nregs}];",
                [f"={_REGISTER[reg]}"] * nregs + ["l"])
    return retype(words, count, element)


def store(pointer: ir.Value, values: list[ir.Value], cache: str = "none",
          evict: str = "evict_normal", predicate: ir.Value | None = None) -> None:
    """`values` stored at `pointer` (aligned to their total size) with the cache operator and
    eviction priority; under `predicate` (an i1) the one instruction is predicated
    (`@p st.global...`), so a masked store is straight-line code, not a branch around it."""
    element = values[0].type
    guard, extra = ("", []) if predicate is None else ("@$0 ", [predicate])
    first = len(extra)
    if width(element) == 8 and len(values) * 8 < 16:
        wide = arith.extui(ir.IntegerType.get_signless(16), bits(values[0]))
        asm([], [*extra, pointer, wide],
            f"{guard}st.global{_qualifier(STORE_CACHE[cache], evict)}.u8 [${first}], "
            f"${first + 1};", ["b"] * first + ["l", "h"])
        return
    reg, nregs = _words(len(values), element)
    words = retype(values, nregs, _i(reg))
    asm([], [*extra, pointer, *words],
        f"{guard}st.global{_qualifier(STORE_CACHE[cache], evict)}{_vec(nregs)}.b{reg} "
        f"[${first}], {_braced(first + 1, nregs)};",
        ["b"] * first + ["l"] + [_REGISTER[reg]] * nregs)


def storable(element: ir.Type) -> bool:
    """Whether `store` takes elements of this type (as they are in memory)."""
    return width(element) in (8, 16, 32, 64)


def _qualifier(cache: str, evict: str) -> str:
    return EVICT[evict] or cache


# --- atomics -----------------------------------------------------------------------------------

def _atom_type(kind: str, element: ir.Type) -> str | None:
    """The PTX type suffix of `atom.<kind>` on `element`, or None when PTX has no such atom."""
    w, is_int = width(element), isinstance(element, ir.IntegerType)
    if w not in (16, 32, 64):
        return None
    if kind == "cas":
        return f"b{w}"
    if kind in ("add", "fadd"):
        if is_int:
            return None if w == 16 else f"u{w}"
        return {"f16": "noftz.f16", "bf16": "noftz.bf16", "f32": "f32", "f64": "f64"}[str(element)]
    if w == 16:
        return None
    if kind == "xchg":
        return f"b{w}"
    if not is_int:
        return None
    if kind in ("and", "or", "xor"):
        return f"b{w}"
    return {"max": f"s{w}", "min": f"s{w}", "umax": f"u{w}", "umin": f"u{w}"}.get(kind)


_ATOM_OP = {"add": "add", "fadd": "add", "and": "and", "or": "or", "xor": "xor", "max": "max",
            "min": "min", "umax": "max", "umin": "min", "xchg": "exch", "cas": "cas"}


def atomic(kind: str, pointer: ir.Value, values: list[ir.Value], sem: str,
           scope: str) -> ir.Value | None:
    """`atom.global.<scope>.<sem>.<op>` (for cas: `atom.global.<sem>.<scope>.cas`) on
    `pointer` with `values` (the operand; for cas the compared value then the new one);
    returns the old value, or None when PTX has no such atom (the caller lowers it otherwise)."""
    element = values[0].type
    if kind in ("fmax", "fmin") and str(element) in ("f32", "f64"):
        return _float_min_max(kind, pointer, values[0], sem, scope)
    suffix = _atom_type(kind, element)
    if suffix is None:
        return None
    reg = _REGISTER[width(element)]
    order = f"{sem}.{scope}" if kind == "cas" else f"{scope}.{sem}"
    operands = ", ".join(f"${i + 2}" for i in range(len(values)))
    old = asm([ir.IntegerType.get_signless(width(element))], [pointer, *map(bits, values)],
              f"atom.global.{order}.{_ATOM_OP[kind]}.{suffix} $0, [$1], {operands};",
              [f"={reg}", "l"] + [reg] * len(values))[0]
    return from_bits(old, element)


def _float_min_max(kind: str, pointer: ir.Value, value: ir.Value, sem: str,
                   scope: str) -> ir.Value:
    """Float max (min) as one integer atom on the bits: IEEE floats of one sign order as their
    bits do, as signed integers when non-negative and reversed as unsigned when negative. So a
    non-negative value takes the signed max (min) and a negative one the unsigned min (max)."""
    w = width(value.type)
    reg = _REGISTER[w]
    positive, negative = ("max", "min") if kind == "fmax" else ("min", "max")
    text = (f"{{ .reg .pred neg; setp.lt.s{w} neg, $2, 0; "
            f"@!neg atom.global.{scope}.{sem}.{positive}.s{w} $0, [$1], $2; "
            f"@neg atom.global.{scope}.{sem}.{negative}.u{w} $0, [$1], $2; }}")
    old = asm([_i(w)], [pointer, bits(value)], text, [f"={reg}", "l", reg])[0]
    return from_bits(old, value.type)


# --- tl.inline_asm_elementwise -----------------------------------------------------------------

_CONSTRAINT_TYPE = {"h": 16, "r": 32, "l": 64}


def _register_type(constraint: str) -> ir.Type | None:
    """The LLVM type an inline-asm operand of `constraint` ("r", "=f", ...) has; None for a
    pointer ("l" given a pointer keeps it)."""
    letter = constraint.lstrip("=+&")
    if letter == "f":
        return ir.F32Type.get()
    if letter == "d":
        return ir.F64Type.get()
    return _i(_CONSTRAINT_TYPE.get(letter, 32))


def _to_register(values: list[ir.Value], t: ir.Type) -> ir.Value:
    """`values` (`pack` elements) as one operand of type `t`: packed into an integer of their
    total width, then zero-extended (or truncated) to the register's width."""
    if len(values) == 1 and isinstance(values[0].type, llvm.PointerType):
        return values[0]
    packed = retype([bits(v) for v in values], 1, _i(width(values[0].type) * len(values)))[0] \
        if len(values) > 1 else bits(values[0])
    w = width(t)
    if packed.type.width < w:
        packed = arith.extui(_i(w), packed)
    elif packed.type.width > w:
        packed = arith.trunci(_i(w), packed)
    return packed if isinstance(t, ir.IntegerType) else arith.bitcast(t, packed)


def _from_register(value: ir.Value, count: int, element: ir.Type) -> list[ir.Value]:
    """The `count` elements of `element` packed in the asm output `value`."""
    total = width(element) * count
    as_int = bits(value)
    if as_int.type.width > total:
        as_int = arith.trunci(_i(total), as_int)
    elif as_int.type.width < total:
        as_int = arith.extui(_i(total), as_int)
    if count == 1:
        return [from_bits(as_int, element) if width(element) == total else as_int]
    return retype([as_int], count, element)


def _per_register(element: ir.Type, pack: int) -> int:
    """Elements of `element` in one register of an inline-asm instance of `pack` (what
    semantic.asm_registers counts): narrower than 32 bits share 32-bit registers."""
    w = 64 if isinstance(element, llvm.PointerType) else width(element)
    return min(pack, 32 // w) if w < 32 else 1


def elementwise_asm(text: str, constraints: str, args: list[list[ir.Value]],
                    elements: list[ir.Type], pure: bool, pack: int,
                    count: int) -> list[list[ir.Value]]:
    """The user's `text` run on each `pack` of the `count` registers of the arguments
    (`args[a][r]`: register r of argument a; `count` is a multiple of `pack`); returns the
    results' registers (`[result][r]`). The asm's operands: each result's registers, then each
    argument's, `pack` elements each (several per register when narrower than 32 bits)."""
    kinds = [c.strip() for c in constraints.split(",") if c.strip()]
    out_groups = [_per_register(e, pack) for e in elements]
    n_out = sum(pack // per for per in out_groups)
    outs, ins = kinds[:n_out], kinds[n_out:]
    out_types = [_register_type(c) for c in outs]
    results: list[list[ir.Value]] = [[] for _ in elements]
    for start in range(0, count, pack):
        operands, k = [], 0
        for arg in args:
            per = _per_register(arg[0].type, pack)
            for first in range(start, start + pack, per):
                operands.append(_to_register(arg[first:first + per], _register_type(ins[k])))
                k += 1
        produced = iter(asm(out_types, operands, text, kinds, side_effects=not pure))
        for r, (element, per) in enumerate(zip(elements, out_groups)):
            for _ in range(pack // per):
                results[r] += _from_register(next(produced), per, element)
    return results
