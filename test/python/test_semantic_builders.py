"""One semantic layer, two builders: the same call of the semantic layer gives the same result
type, or the same error, on the MLIR builder (compiling) and on the NumPy builder
(interpreting), for every operator, comparison, cast and math function over the scalar types;
and the MLIR builder's tilec types are the types of the IR values it built."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import func

import tilec.language as tl
from tilec.context import make_context
from tilec.frontend.builder import MLIRBuilder
from tilec.interpreter.builder import NumPyBuilder
from tilec.interpreter.state import LaunchState
from tilec.language import builder, semantic, shapes
from tilec.language import dtypes as T
from tilec.language.core import SemanticError

TYPES = [T.int1, T.int8, T.int16, T.int32, T.int64, T.uint8, T.uint32, T.uint64, T.float16,
         T.bfloat16, T.float32, T.float64]
OPERATORS = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"]
LITERALS = [3, -2, 2**31, 1.5, True]


def _outcome(fn):
    """(result type, None) or (None, error message) of fn()."""
    try:
        value = fn()
    except SemanticError as err:
        return None, str(err)
    values = value if isinstance(value, (tuple, list)) else [value]
    return [repr(v.type) for v in values], None


class Both:
    """Runs a semantic-layer call on each builder with operands made by that builder."""

    def __init__(self):
        self.context = make_context()
        self.module = None

    def on_mlir(self, fn):
        with self.context, ir.Location.unknown():
            module = ir.Module.create()
            with ir.InsertionPoint(module.body):
                kernel = func.FuncOp("kernel", ([], []))
                with ir.InsertionPoint(kernel.add_entry_block()):
                    outcome = _outcome(fn)
                    if outcome[0] is not None:
                        self._check_types(fn)
                    func.ReturnOp([])
            return outcome

    @staticmethod
    def _check_types(fn):
        values = fn()
        for v in values if isinstance(values, (tuple, list)) else [values]:
            assert v.handle.type == v.type.to_ir(), (v.type, v.handle.type)

    @staticmethod
    def on_numpy(fn):
        builder.activate(NumPyBuilder(LaunchState(None, (1, 1, 1))))
        try:
            return _outcome(fn)
        finally:
            builder.activate(None)

    def agree(self, fn):
        compiled, interpreted = self.on_mlir(fn), self.on_numpy(fn)
        assert compiled == interpreted
        return compiled


@pytest.fixture(scope="module")
def both():
    return Both()


def block(ty, shape=(4,)):
    return semantic.constant(1, ty, list(shape))


@pytest.mark.parametrize("op", OPERATORS)
def test_operators_on_two_blocks_agree(both, op):
    errors = 0
    for a, b in itertools.product(TYPES, TYPES):
        _, error = both.agree(lambda: semantic.binary(op, block(a), block(b, (2, 4))))
        errors += error is not None
    assert errors < len(TYPES) ** 2  # some pairs are valid, and each invalid one says so alike


@pytest.mark.parametrize("op", OPERATORS + ["/"])
def test_operators_with_literals_agree(both, op):
    call = semantic.truediv if op == "/" else lambda a, b: semantic.binary(op, a, b)
    for ty, literal in itertools.product(TYPES, LITERALS):
        both.agree(lambda: call(block(ty), literal))
        both.agree(lambda: call(literal, block(ty)))


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_comparisons_agree(both, op):
    for a, b in itertools.product(TYPES, TYPES + LITERALS):
        def other():
            return block(b) if isinstance(b, T.dtype) else b
        result, _ = both.agree(lambda: semantic.compare(op, block(a), other()))
        assert result is None or result == ["<[4] int1>"] or "int1" in result[0]


@pytest.mark.parametrize("shape", [(4,), ()], ids=["block", "scalar"])
def test_casts_agree_for_every_pair_of_types(both, shape):
    """Scalars too: a same-width cast (int32 -> uint32, a bitcast) once gave the interpreter a
    one-element block for a scalar."""
    for src, dst in itertools.product(TYPES, TYPES):
        both.agree(lambda: semantic.cast(block(src, shape), dst))
        both.agree(lambda: semantic.cast(block(src, shape), dst, bitcast=True))
        both.agree(lambda: semantic.cast(block(src, shape), dst, fp_downcast_rounding="rtz"))


def test_pointer_arithmetic_and_casts_agree(both):
    ptr_ty = T.pointer_type(T.float32)

    def pointer():
        return semantic.cast(semantic.constant(4096, T.int64, [4]), ptr_ty)

    both.agree(lambda: semantic.binary("+", pointer(), block(T.int32)))
    both.agree(lambda: semantic.binary("-", pointer(), 2))
    both.agree(lambda: semantic.binary("+", pointer(), block(T.float32)))
    both.agree(lambda: semantic.binary("+", pointer(), pointer()))
    both.agree(lambda: semantic.compare("<", pointer(), pointer()))
    both.agree(lambda: semantic.cast(pointer(), T.int32))
    both.agree(lambda: semantic.where(block(T.int1), pointer(), pointer()))
    both.agree(lambda: semantic.where(block(T.int1), pointer(), block(T.int64)))


@pytest.mark.parametrize("name", semantic.UNARY_MATH_NAMES)
def test_math_functions_agree(both, name):
    for ty in TYPES:
        both.agree(lambda: semantic.unary_math(name, block(ty)))


def test_two_operand_math_min_max_where_and_fma_agree(both):
    for a, b in itertools.product(TYPES, TYPES):
        for name in semantic.BINARY_MATH_NAMES:
            both.agree(lambda: semantic.binary_math(name, block(a), block(b)))
        both.agree(lambda: semantic.minimum(block(a), block(b), propagate_nan=True))
        both.agree(lambda: semantic.maximum(block(a), block(b)))
        both.agree(lambda: semantic.where(block(T.int1), block(a), block(b)))
        both.agree(lambda: semantic.fma(block(a), block(b), 1.0))
        both.agree(lambda: semantic.umulhi(block(a), block(b)))
    for ty in TYPES:
        both.agree(lambda: semantic.negate(block(ty)))
        both.agree(lambda: semantic.invert(block(ty)))
        both.agree(lambda: semantic.logical_not(block(ty)))
        both.agree(lambda: semantic.abs_(block(ty)))


def test_shape_ops_agree(both):
    x = lambda: block(T.float16, (2, 4))  # noqa: E731
    both.agree(lambda: shapes.reshape(x(), [8]))
    both.agree(lambda: shapes.reshape(x(), [3]))
    both.agree(lambda: shapes.trans(x()))
    both.agree(lambda: shapes.permute(x(), [0, 0]))
    both.agree(lambda: shapes.join(x(), x()))
    both.agree(lambda: shapes.split(shapes.join(x(), x())))
    both.agree(lambda: shapes.split(x()))
    both.agree(lambda: shapes.cat(x(), x()))
    both.agree(lambda: shapes.subscript(x(), (None, slice(None), None)))
    both.agree(lambda: shapes.subscript(x(), 0))
    both.agree(lambda: semantic.broadcast_to(x(), [4, 2, 4]))
    both.agree(lambda: semantic.broadcast_to(x(), [2, 8]))
    both.agree(lambda: shapes.arange(0, 64))
    both.agree(lambda: shapes.arange(8, 2))
    both.agree(lambda: shapes.full([4, 4], 2**40, T.int32))


def test_constants_wrap_into_the_type_as_the_gpu_reads_them():
    """-1 as uint32 is all ones, 2**32 does not fit 32 bits: the semantic layer decides, both
    builders store the same bits."""
    assert Both.on_numpy(lambda: semantic.constant(2**32, T.int32))[1] == \
        "constant 4294967296 is out of range for int32 (it does not fit)"
    assert Both().on_mlir(lambda: semantic.constant(2**32, T.int32))[1] == \
        "constant 4294967296 is out of range for int32 (it does not fit)"
    builder.activate(NumPyBuilder(LaunchState(None, (1, 1, 1))))
    try:
        assert int(semantic.constant(-1, T.uint32).data) == 0xFFFFFFFF
        assert int(semantic.constant(0xFFFFFFFF, T.int32).data) == -1
        assert int(semantic.constant(2**31, T.int32).data) == -2**31
        assert semantic.invert(semantic.constant(0, T.uint8)).data.item() == 255
    finally:
        builder.activate(None)


def test_the_interpreter_converts_fp16_and_bf16_through_fp32_as_the_gpu():
    """bf16 -> fp16 is bf16 -> fp32 -> fp16 (the compiled cast): a NaN with a payload becomes
    the GPU's canonical fp16 NaN, 0x7FFF, not the NaN NumPy's direct conversion keeps."""
    builder.activate(NumPyBuilder(LaunchState(None, (1, 1, 1))))
    try:
        nan_bits = np.array([0xFFC1, 0x7F81], np.uint16)
        x = semantic.cast(semantic.constant(0, T.int16, [2]), T.int16)
        x.data = nan_bits.view(np.int16)
        as_bf16 = semantic.cast(x, T.bfloat16, bitcast=True)
        y = semantic.cast(as_bf16, T.float16)
        assert list(y.data.view(np.uint16)) == [0x7FFF, 0x7FFF]
    finally:
        builder.activate(None)


def test_without_a_kernel_the_language_says_where_it_runs():
    with pytest.raises(RuntimeError, match="inside @tilec.jit kernels only"):
        tl.program_id(0)
    assert isinstance(builder.current(), MLIRBuilder)


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
@pytest.mark.parametrize("ty", [T.float16, T.float32, T.float64, T.int8, T.int32, T.uint8,
                                T.uint32, T.int64])
def test_interpreted_comparisons_give_what_the_operator_means(op, ty):
    """NaN compares unequal to everything (`!=` is true, the others false); signed and unsigned
    integers compare by their own values, however the builder holds their bits."""
    if ty.is_floating():
        values = [np.nan, -np.inf, -2.5, -0.0, 0.0, 1.0, np.inf]
    elif ty.is_int_signed():
        values = [-2**(ty.int_bitwidth - 1), -1, 0, 1, 2**(ty.int_bitwidth - 1) - 1]
    else:
        values = [0, 1, 2**(ty.int_bitwidth - 1), 2**ty.int_bitwidth - 1]
    pairs = list(itertools.product(values, values))
    reference = [eval(f"a {op} b") for a, b in pairs]  # Python's own: NaN != NaN is True
    builder.activate(NumPyBuilder(LaunchState(None, (1, 1, 1))))
    try:
        got = []
        for a, b in pairs:
            got.append(bool(semantic.compare(op, semantic.constant(a, ty),
                                             semantic.constant(b, ty)).data))
    finally:
        builder.activate(None)
    assert got == reference
