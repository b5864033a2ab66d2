// The `tile` dialect: target-independent block (tile) programs.
//
// A tile program is a `func.func` over builtin tensors without encodings, scalars and `!tile.ptr`
// pointers. Elementwise math is `arith`/`math` on tensors, control flow is `scf`; the ops below
// are what those dialects lack. Semantics of every op and attribute: dialects/README.md.
//
// IRDL notes (MLIR 22): parameters are positional and print generically; all declared attributes
// are required (builders always set them); `irdl.any_of` must not mix `irdl.base` constraints
// (that aborts the loader), so unions involving tensors use `irdl.any`.
irdl.dialect @tile {
  // A pointer to `pointee` in address space `addrspace` (1 = global): !tile.ptr<f32, 1 : i32>.
  irdl.type @ptr {
    %pointee = irdl.any
    %addrspace = irdl.base "#builtin.integer"
    irdl.parameters(pointee: %pointee, addrspace: %addrspace)
  }

  irdl.operation @program_id {
    %axis = irdl.base "#builtin.integer"
    %i32 = irdl.is i32
    irdl.attributes { "axis" = %axis }
    irdl.results(result: %i32)
  }

  // The CTA's rank in its program's thread block cluster (0 to num_ctas - 1): made by
  // tile-split-ctas, which gives each CTA its part of the program's rows.
  irdl.operation @cta_rank {
    %i32 = irdl.is i32
    irdl.results(result: %i32)
  }

  irdl.operation @num_programs {
    %axis = irdl.base "#builtin.integer"
    %i32 = irdl.is i32
    irdl.attributes { "axis" = %axis }
    irdl.results(result: %i32)
  }

  irdl.operation @make_range {
    %start = irdl.base "#builtin.integer"
    %end = irdl.base "#builtin.integer"
    %tensor = irdl.base "!builtin.tensor"
    irdl.attributes { "start" = %start, "end" = %end }
    irdl.results(result: %tensor)
  }

  irdl.operation @splat {
    %scalar = irdl.any
    %tensor = irdl.base "!builtin.tensor"
    irdl.operands(src: %scalar)
    irdl.results(result: %tensor)
  }

  irdl.operation @broadcast {
    %src = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @expand_dims {
    %axis = irdl.base "#builtin.integer"
    %src = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes { "axis" = %axis }
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @reshape {
    %allow_reorder_t = irdl.is true
    %allow_reorder_f = irdl.is false
    %allow_reorder = irdl.any_of(%allow_reorder_t, %allow_reorder_f)
    %src = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes { "allow_reorder" = %allow_reorder }
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @trans {
    %order = irdl.base "#builtin.dense_array"
    %src = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes { "order" = %order }
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @join {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(result: %result)
  }

  // The halves are tensors, or scalars when `src` is a block of 2.
  irdl.operation @split {
    %src = irdl.base "!builtin.tensor"
    %lhs = irdl.any
    %rhs = irdl.any
    irdl.operands(src: %src)
    irdl.results(lhs: %lhs, rhs: %rhs)
  }

  irdl.operation @addptr {
    %ptr = irdl.any
    %offset = irdl.any
    irdl.operands(ptr: %ptr, offset: %offset)
    irdl.results(result: %ptr)
  }

  irdl.operation @load {
    %ptr = irdl.any
    %mask = irdl.any
    %value = irdl.any
    %c_none = irdl.is "none"
    %c_ca = irdl.is "ca"
    %c_cg = irdl.is "cg"
    %c_cv = irdl.is "cv"
    %cache = irdl.any_of(%c_none, %c_ca, %c_cg, %c_cv)
    %e_normal = irdl.is "evict_normal"
    %e_first = irdl.is "evict_first"
    %e_last = irdl.is "evict_last"
    %evict = irdl.any_of(%e_normal, %e_first, %e_last)
    %volatile_t = irdl.is true
    %volatile_f = irdl.is false
    %volatile = irdl.any_of(%volatile_t, %volatile_f)
    irdl.attributes { "cache" = %cache, "evict" = %evict, "is_volatile" = %volatile }
    irdl.operands(ptr: %ptr, mask: optional %mask, other: optional %value)
    irdl.results(result: %value)
  }

  irdl.operation @store {
    %ptr = irdl.any
    %value = irdl.any
    %mask = irdl.any
    %c_none = irdl.is "none"
    %c_wb = irdl.is "wb"
    %c_cg = irdl.is "cg"
    %c_cs = irdl.is "cs"
    %c_wt = irdl.is "wt"
    %cache = irdl.any_of(%c_none, %c_wb, %c_cg, %c_cs, %c_wt)
    %e_normal = irdl.is "evict_normal"
    %e_first = irdl.is "evict_first"
    %e_last = irdl.is "evict_last"
    %evict = irdl.any_of(%e_normal, %e_first, %e_last)
    irdl.attributes { "cache" = %cache, "evict" = %evict }
    irdl.operands(ptr: %ptr, value: %value, mask: optional %mask)
  }

  irdl.operation @dot {
    %a = irdl.base "!builtin.tensor"
    %b = irdl.base "!builtin.tensor"
    %c = irdl.base "!builtin.tensor"
    %p_tf32 = irdl.is "tf32"
    %p_tf32x3 = irdl.is "tf32x3"
    %p_ieee = irdl.is "ieee"
    %precision = irdl.any_of(%p_tf32, %p_tf32x3, %p_ieee)
    %max_imprecise = irdl.base "#builtin.integer"
    irdl.attributes { "input_precision" = %precision, "max_num_imprecise_acc" = %max_imprecise }
    irdl.operands(a: %a, b: %b, c: %c)
    irdl.results(result: %c)
  }

  // Reductions and scans take one to four tensors of the same shape (`src0`..`src3`: IRDL unifies
  // every use of a constraint, so a variadic group could not hold tensors of different element
  // types, as argmax's values and indices are). The generic form names how many are present with
  // `operandSegmentSizes` and `resultSegmentSizes`. The combine region takes 2*N scalars (the
  // accumulated values, then the new ones) and ends with `gpu.yield` of N scalars.
  irdl.operation @reduce {
    %axis = irdl.base "#builtin.integer"
    %src0 = irdl.base "!builtin.tensor"
    %src1 = irdl.base "!builtin.tensor"
    %src2 = irdl.base "!builtin.tensor"
    %src3 = irdl.base "!builtin.tensor"
    %result0 = irdl.any
    %result1 = irdl.any
    %result2 = irdl.any
    %result3 = irdl.any
    %combine = irdl.region
    irdl.attributes { "axis" = %axis }
    irdl.operands(src0: %src0, src1: optional %src1, src2: optional %src2, src3: optional %src3)
    irdl.results(result0: %result0, result1: optional %result1, result2: optional %result2,
                 result3: optional %result3)
    irdl.regions(combine: %combine)
  }

  irdl.operation @scan {
    %axis = irdl.base "#builtin.integer"
    %reverse_t = irdl.is true
    %reverse_f = irdl.is false
    %reverse = irdl.any_of(%reverse_t, %reverse_f)
    %src0 = irdl.base "!builtin.tensor"
    %src1 = irdl.base "!builtin.tensor"
    %src2 = irdl.base "!builtin.tensor"
    %src3 = irdl.base "!builtin.tensor"
    %combine = irdl.region
    irdl.attributes { "axis" = %axis, "reverse" = %reverse }
    irdl.operands(src0: %src0, src1: optional %src1, src2: optional %src2, src3: optional %src3)
    irdl.results(result0: %src0, result1: optional %src1, result2: optional %src2,
                 result3: optional %src3)
    irdl.regions(combine: %combine)
  }

  // tl.inline_asm_elementwise: `asm` (PTX, operands $0.. as `constraints` lists them, outputs
  // first) run on every `pack` elements of the 0-4 arguments, giving 1-4 results of their shape
  // (scalars without arguments).
  irdl.operation @elementwise_inline_asm {
    %asm = irdl.base "#builtin.string"
    %constraints = irdl.base "#builtin.string"
    %pure_t = irdl.is true
    %pure_f = irdl.is false
    %pure = irdl.any_of(%pure_t, %pure_f)
    %pack = irdl.base "#builtin.integer"
    %arg0 = irdl.any
    %arg1 = irdl.any
    %arg2 = irdl.any
    %arg3 = irdl.any
    %result0 = irdl.any
    %result1 = irdl.any
    %result2 = irdl.any
    %result3 = irdl.any
    irdl.attributes { "asm" = %asm, "constraints" = %constraints, "pure" = %pure,
                      "pack" = %pack }
    irdl.operands(arg0: optional %arg0, arg1: optional %arg1, arg2: optional %arg2,
                  arg3: optional %arg3)
    irdl.results(result0: %result0, result1: optional %result1, result2: optional %result2,
                 result3: optional %result3)
  }

  // Sorts along `axis` (the last one); `descending` picks the order.
  irdl.operation @sort {
    %axis = irdl.base "#builtin.integer"
    %desc_t = irdl.is true
    %desc_f = irdl.is false
    %descending = irdl.any_of(%desc_t, %desc_f)
    %src = irdl.base "!builtin.tensor"
    irdl.attributes { "axis" = %axis, "descending" = %descending }
    irdl.operands(src: %src)
    irdl.results(result: %src)
  }

  // result[i][j] = src[index[i][j]][j] for axis 0 (and so on): index has the result's shape.
  irdl.operation @gather {
    %axis = irdl.base "#builtin.integer"
    %src = irdl.base "!builtin.tensor"
    %index = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes { "axis" = %axis }
    irdl.operands(src: %src, index: %index)
    irdl.results(result: %result)
  }

  // Counts of the values of a 1-D integer block in bins 0..N-1 (N = the result's length).
  irdl.operation @histogram {
    %src = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  // Concatenation of two blocks along dimension 0.
  irdl.operation @cat {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(result: %result)
  }

  irdl.operation @atomic_rmw {
    %r_add = irdl.is "add"
    %r_fadd = irdl.is "fadd"
    %r_and = irdl.is "and"
    %r_or = irdl.is "or"
    %r_xor = irdl.is "xor"
    %r_max = irdl.is "max"
    %r_min = irdl.is "min"
    %r_umax = irdl.is "umax"
    %r_umin = irdl.is "umin"
    %r_xchg = irdl.is "xchg"
    %rmw = irdl.any_of(%r_add, %r_fadd, %r_and, %r_or, %r_xor, %r_max, %r_min, %r_umax, %r_umin, %r_xchg)
    %s_relaxed = irdl.is "relaxed"
    %s_acquire = irdl.is "acquire"
    %s_release = irdl.is "release"
    %s_acq_rel = irdl.is "acq_rel"
    %sem = irdl.any_of(%s_relaxed, %s_acquire, %s_release, %s_acq_rel)
    %x_gpu = irdl.is "gpu"
    %x_cta = irdl.is "cta"
    %x_sys = irdl.is "sys"
    %scope = irdl.any_of(%x_gpu, %x_cta, %x_sys)
    %ptr = irdl.any
    %value = irdl.any
    %mask = irdl.any
    irdl.attributes { "rmw_op" = %rmw, "sem" = %sem, "scope" = %scope }
    irdl.operands(ptr: %ptr, value: %value, mask: optional %mask)
    irdl.results(result: %value)
  }

  irdl.operation @atomic_cas {
    %s_relaxed = irdl.is "relaxed"
    %s_acquire = irdl.is "acquire"
    %s_release = irdl.is "release"
    %s_acq_rel = irdl.is "acq_rel"
    %sem = irdl.any_of(%s_relaxed, %s_acquire, %s_release, %s_acq_rel)
    %x_gpu = irdl.is "gpu"
    %x_cta = irdl.is "cta"
    %x_sys = irdl.is "sys"
    %scope = irdl.any_of(%x_gpu, %x_cta, %x_sys)
    %ptr = irdl.any
    %value = irdl.any
    irdl.attributes { "sem" = %sem, "scope" = %scope }
    irdl.operands(ptr: %ptr, cmp: %value, value: %value)
    irdl.results(result: %value)
  }

  irdl.operation @fp_to_fp {
    %r_none = irdl.is "none"
    %r_rtne = irdl.is "rtne"
    %r_rtz = irdl.is "rtz"
    %rounding = irdl.any_of(%r_none, %r_rtne, %r_rtz)
    %src = irdl.any
    %result = irdl.any
    irdl.attributes { "rounding" = %rounding }
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @bitcast {
    %src = irdl.any
    %result = irdl.any
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @int_to_ptr {
    %src = irdl.any
    %result = irdl.any
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @ptr_to_int {
    %src = irdl.any
    %result = irdl.any
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  // Prints `prefix` and, when given, one value (the frontend emits one op per argument).
  irdl.operation @print {
    %prefix = irdl.base "#builtin.string"
    %hex_t = irdl.is true
    %hex_f = irdl.is false
    %hex = irdl.any_of(%hex_t, %hex_f)
    %value = irdl.any
    irdl.attributes { "prefix" = %prefix, "hex" = %hex }
    irdl.operands(value: optional %value)
  }

  // The kernel's file and line come from the op's location.
  irdl.operation @assert {
    %message = irdl.base "#builtin.string"
    %condition = irdl.any
    irdl.attributes { "message" = %message }
    irdl.operands(condition: %condition)
  }

  // A TMA map made in the kernel (tl.make_tensor_descriptor): the 2-D tensor at `base` of
  // `dims` elements (i64, outermost first) and outer `strides` (i64 elements; the innermost
  // stride is 1), moved in boxes of `box` elements (outermost first) with the shared layout of
  // `swizzle` bytes, out-of-bounds elements zero. The map is written into slot `slot` of this
  // program's part of the kernel's global scratch `scratch` (256 bytes a slot: the map, then
  // 128 zero bytes), fenced for the tensormap proxy; the result is its generic address, the
  // `map` operand of tile.tma_load / tile.tma_store. A tensor with a zero-sized dimension maps
  // the slot's zero bytes as a 1 x 1 tensor instead (every box then reads as zeros).
  irdl.operation @make_tensormap {
    %scratch = irdl.any
    %base = irdl.any
    %i64 = irdl.is i64
    %map = irdl.is !llvm.ptr
    %box = irdl.base "#builtin.dense_array"
    %swizzle = irdl.base "#builtin.integer"
    %slot = irdl.base "#builtin.integer"
    irdl.attributes { "box" = %box, "swizzle" = %swizzle, "slot" = %slot }
    irdl.operands(scratch: %scratch, base: %base, dims: variadic %i64, strides: variadic %i64)
    irdl.results(map: %map)
  }

  // The block of a host tensor descriptor at `offsets` (one i32 per dimension, outermost
  // first), moved by the Tensor Memory Accelerator: `map` is the kernel's by-value TMA map
  // parameter (an !llvm.ptr to it), `swizzle` the map's swizzle span in bytes (32, 64 or 128:
  // the shared layout the copy writes). Out-of-bounds elements read as zero.
  irdl.operation @tma_load {
    %map = irdl.is !llvm.ptr
    %offset = irdl.is i32
    %result = irdl.base "!builtin.tensor"
    %swizzle = irdl.base "#builtin.integer"
    irdl.attributes { "swizzle" = %swizzle }
    irdl.operands(map: %map, offsets: variadic %offset)
    irdl.results(result: %result)
  }

  // `value` added (`kind` "add") into the block of a tensor descriptor at `offsets` by a TMA
  // reduction through the map `map` (as tile.tma_store): each element of the block inside the
  // tensor is updated atomically; elements outside it are not touched.
  irdl.operation @tma_reduce {
    %map = irdl.is !llvm.ptr
    %value = irdl.base "!builtin.tensor"
    %offset = irdl.is i32
    %swizzle = irdl.base "#builtin.integer"
    %kind = irdl.base "#builtin.string"
    irdl.attributes { "swizzle" = %swizzle, "kind" = %kind }
    irdl.operands(map: %map, value: %value, offsets: variadic %offset)
  }

  // `value` written as the block of a host tensor descriptor at `offsets` by TMA, through the
  // map parameter `map` (as tile.tma_load); elements outside the tensor are not written.
  irdl.operation @tma_store {
    %map = irdl.is !llvm.ptr
    %value = irdl.base "!builtin.tensor"
    %offset = irdl.is i32
    %swizzle = irdl.base "#builtin.integer"
    irdl.attributes { "swizzle" = %swizzle }
    irdl.operands(map: %map, value: %value, offsets: variadic %offset)
  }
}
