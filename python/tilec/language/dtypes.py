"""tilec's types, named as in Triton: scalar dtypes, pointer types and block (tensor) types.

Integers map to signless MLIR integers; signedness lives here and picks the ops (divsi/divui,
extsi/extui, ...). A block type is a shape plus a scalar or pointer element type.
"""
from __future__ import annotations

from mlir import ir

from tilec.dialects import tile


class dtype:
    """A scalar type. `name` is Triton's (`int32`, `float16`, ...); `short` the signature form."""

    SINT = ("int8", "int16", "int32", "int64")
    UINT = ("int1", "uint8", "uint16", "uint32", "uint64")
    # float8e4nv: e4m3 "fn" (bias 7, no infinity, NaN 0x7f/0xff, largest 448); float8e5: e5m2
    # (bias 15, IEEE-like, largest 57344); float8e4b15: Triton's e4m3 of bias 15 (no infinity
    # or NaN, largest 1.875; MLIR has no such type: its IR type is i8). In memory and registers
    # they are bytes. float8e4b8 and float8e5b16 (AMD's fnuz formats) are names only, as in
    # Triton on NVIDIA GPUs: a kernel using them is an error (UNSUPPORTED_FP8).
    FP8 = ("float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16")
    UNSUPPORTED_FP8 = ("float8e4b8", "float8e5b16")
    FP = ("float16", "bfloat16", "float32", "float64") + FP8
    SHORT = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
             "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
             "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
             "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float8e4b15": "fp8e4b15",
             "float8e4b8": "fp8e4b8", "float8e5b16": "fp8e5b16", "void": "void"}
    # Triton's lists of type names (its own spellings of the float types), for code that builds
    # dtypes from them: tl.dtype("fp16") is tl.float16.
    SINT_TYPES = list(SINT)
    UINT_TYPES = list(UINT)
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    FP8_TYPES = ["fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16"]
    FP_TYPES = FP8_TYPES + STANDARD_FP_TYPES
    OTHER_TYPES = ["void"]
    _ALIASES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
                "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp8e4b15": "float8e4b15",
                "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16"}

    def __init__(self, name: str):
        name = self._ALIASES.get(name, name)
        if name not in self.SHORT:
            raise ValueError(f"unknown dtype '{name}'")
        self.name = name

    # --- classification ---
    def is_floating(self) -> bool:
        return self.name in self.FP

    def is_fp16(self) -> bool:
        return self.name == "float16"

    def is_bf16(self) -> bool:
        return self.name == "bfloat16"

    def is_fp32(self) -> bool:
        return self.name == "float32"

    def is_fp8(self) -> bool:
        return self.name in self.FP8

    def is_fp8e4nv(self) -> bool:
        return self.name == "float8e4nv"

    def is_fp8e5(self) -> bool:
        return self.name == "float8e5"

    def is_fp8e4b15(self) -> bool:
        return self.name == "float8e4b15"

    def is_fp8e4b8(self) -> bool:
        return self.name == "float8e4b8"

    def is_fp8e5b16(self) -> bool:
        return self.name == "float8e5b16"

    def check_supported(self) -> "dtype":
        """This type, or Triton's error for an fp8 type NVIDIA GPUs do not have (asked by both
        builders wherever a type enters a kernel)."""
        if self.name in self.UNSUPPORTED_FP8:
            supported = tuple(self.SHORT[n] for n in sorted(self.FP8)
                              if n not in self.UNSUPPORTED_FP8)
            raise SemanticError(f"type {self.SHORT[self.name]} not supported in this "
                                f"architecture. The supported fp8 dtypes are {supported}")
        return self

    def is_fp64(self) -> bool:
        return self.name == "float64"

    def is_int(self) -> bool:
        return self.name in self.SINT or self.name in self.UINT

    def is_bool(self) -> bool:
        return self.name == "int1"

    def is_int_signed(self) -> bool:
        return self.name in self.SINT

    def is_int_unsigned(self) -> bool:
        return self.name in self.UINT

    def is_ptr(self) -> bool:
        return False

    def is_block(self) -> bool:
        return False

    def is_void(self) -> bool:
        return self.name == "void"

    @property
    def primitive_bitwidth(self) -> int:
        if self.is_void():
            return 0
        if self.is_fp8():
            return 8
        return int("".join(ch for ch in self.SHORT[self.name] if ch.isdigit()))

    @property
    def int_bitwidth(self) -> int:
        return self.primitive_bitwidth

    @property
    def fp_mantissa_width(self) -> int:
        return {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52, "float8e4nv": 3,
                "float8e5": 2, "float8e4b15": 3, "float8e4b8": 3, "float8e5b16": 2}[self.name]

    @property
    def exponent_bias(self) -> int:
        """2^(exponent bits - 1) - 1 of a float type (15 for fp16, 127 for bf16 and fp32)."""
        if not self.is_floating():
            raise AttributeError(f"{self.name} is not a floating-point type: no exponent bias")
        if self.name in self._BIASES:
            return self._BIASES[self.name]
        exponent_bits = self.primitive_bitwidth - self.fp_mantissa_width - 1
        return (1 << (exponent_bits - 1)) - 1

    _BIASES = {"float8e4b15": 15, "float8e4b8": 8, "float8e5b16": 16}  # not 2^(e-1) - 1

    @property
    def scalar(self) -> "dtype":
        return self

    @property
    def element_ty(self) -> "dtype":
        return self

    # --- MLIR ---
    def to_ir(self) -> ir.Type:
        self.check_supported()
        if self.is_int() or self.is_fp8e4b15():
            return ir.IntegerType.get_signless(self.primitive_bitwidth)
        return {"float16": ir.F16Type, "bfloat16": ir.BF16Type, "float32": ir.F32Type,
                "float64": ir.F64Type, "float8e4nv": ir.Float8E4M3FNType,
                "float8e5": ir.Float8E5M2Type}[self.name].get()

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self):
        return (self.name,)

    def __repr__(self) -> str:
        return f"tl.{self.name}"

    def __str__(self) -> str:
        return self.name

    def codegen_name(self) -> str:
        return self.SHORT[self.name]


class pointer_type(dtype):
    """A pointer to `element_ty` in `address_space` (1: global memory)."""

    def __init__(self, element_ty: dtype, address_space: int = 1, const: bool = False):
        self.element_ty_ = element_ty
        self.address_space = address_space
        self.const = const  # a `tl.const` parameter's: stores through it are errors
        self.name = f"{'const ' if const else ''}pointer<{element_ty}>"

    @property
    def element_ty(self) -> dtype:
        return self.element_ty_

    def is_ptr(self) -> bool:
        return True

    def is_floating(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_int_signed(self) -> bool:
        return False

    def is_int_unsigned(self) -> bool:
        return False

    def is_bool(self) -> bool:
        return False

    def is_void(self) -> bool:
        return False

    @property
    def primitive_bitwidth(self) -> int:
        return 64

    def to_ir(self) -> ir.Type:
        return tile.ptr_type(self.element_ty.to_ir(), self.address_space)

    def _key(self):
        return ("ptr", self.element_ty, self.address_space, self.const)

    def __repr__(self) -> str:
        const = ", const=True" if self.const else ""
        return f"tl.pointer_type({self.element_ty!r}{const})"

    def codegen_name(self) -> str:
        return "*" + self.element_ty.codegen_name()


class SemanticError(Exception):
    """A mistake in the user's kernel found while building IR; the frontend adds the location."""


MAX_NUMEL = 1 << 20  # elements of one block, as in Triton


def check_numel(shape) -> None:
    numel = 1
    for s in shape:
        numel *= s
    if numel > MAX_NUMEL:
        raise SemanticError(f"a block of shape {list(shape)} has {numel} elements; at most "
                            f"{MAX_NUMEL}")


class block_type(dtype):
    """A block (tensor) of `element_ty` with a static `shape`, of at most MAX_NUMEL elements."""

    def __init__(self, element_ty: dtype, shape):
        self.element_ty_ = element_ty
        self.shape = tuple(int(s) for s in shape)
        check_numel(self.shape)
        self.name = f"<{list(self.shape)}, {element_ty}>"

    @property
    def element_ty(self) -> dtype:
        return self.element_ty_

    @property
    def scalar(self) -> dtype:
        return self.element_ty_

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def is_block(self) -> bool:
        return True

    def is_ptr(self) -> bool:
        return False

    def __getattr__(self, name):
        # Classification questions (is_floating, ...) are about the element type.
        if name.startswith("is_") or name in ("primitive_bitwidth", "int_bitwidth"):
            return getattr(self.element_ty_, name)
        raise AttributeError(name)

    def to_ir(self) -> ir.Type:
        return ir.RankedTensorType.get(list(self.shape), self.element_ty.to_ir())

    def _key(self):
        return ("block", self.element_ty, self.shape)

    def __repr__(self) -> str:
        return f"tl.block_type({self.element_ty!r}, {list(self.shape)})"

    def __str__(self) -> str:
        return self.name


class tensormap_type(dtype):
    """A kernel parameter holding a TMA map (a host tensor descriptor moved by the Tensor
    Memory Accelerator): the compiler adds one per such descriptor; kernels never see it."""

    def __init__(self):
        self.name = "tensormap"

    def to_ir(self) -> ir.Type:
        return ir.Type.parse("!llvm.ptr")

    def codegen_name(self) -> str:
        return "tensormap"


void = dtype("void")
int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float16 = dtype("float16")
bfloat16 = dtype("bfloat16")
float32 = dtype("float32")
float64 = dtype("float64")
float8e4nv = dtype("float8e4nv")
float8e5 = dtype("float8e5")
float8e4b15 = dtype("float8e4b15")
float8e4b8 = dtype("float8e4b8")
float8e5b16 = dtype("float8e5b16")
pi32_t = pointer_type(int32)  # Triton's name of the int32 pointer type


class const:
    """`p: tl.const` marks a pointer parameter read-only (as in Triton): storing through it,
    or through a pointer computed from it, is a compile-time error."""

ALL_SCALARS = (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16,
               float32, float64, float8e4nv, float8e5, float8e4b15, float8e4b8, float8e5b16)
BY_SHORT_NAME = {t.codegen_name(): t for t in ALL_SCALARS}
BY_SHORT_NAME.update({"b1": int1, "f16": float16, "f32": float32, "f64": float64,
                      "bf16": bfloat16})


def int_dtype(bitwidth: int, signed: bool) -> dtype:
    if bitwidth == 1:
        return int1
    return dtype(("int" if signed else "uint") + str(bitwidth))


def parse_type(text: str, const: bool = False) -> dtype:
    """A signature type: `i32`, `fp16`, `*fp32`, `**i8` (pointer to pointer); `const` makes a
    pointer a `tl.const` one."""
    text = text.strip()
    if text.startswith("*"):
        return pointer_type(parse_type(text[1:]), const=const)
    if text in BY_SHORT_NAME:
        return BY_SHORT_NAME[text]
    raise ValueError(f"unknown type '{text}' (expected e.g. i32, u8, fp16, bf16, fp32, *fp32)")


def from_ir(t: ir.Type, signed: bool = True) -> dtype:
    """The dtype of an MLIR type (integers taken as signed unless told otherwise)."""
    if isinstance(t, ir.RankedTensorType):
        return block_type(from_ir(t.element_type, signed), t.shape)
    if tile.is_ptr(t):
        return pointer_type(from_ir(tile.ptr_pointee(t), signed), tile.ptr_addrspace(t))
    if isinstance(t, ir.IntegerType):
        return int_dtype(t.width, signed)
    for name, cls in (("float16", ir.F16Type), ("bfloat16", ir.BF16Type),
                      ("float32", ir.F32Type), ("float64", ir.F64Type),
                      ("float8e4nv", ir.Float8E4M3FNType), ("float8e5", ir.Float8E5M2Type)):
        if isinstance(t, cls):
            return dtype(name)
    raise ValueError(f"no tilec dtype for MLIR type {t}")
