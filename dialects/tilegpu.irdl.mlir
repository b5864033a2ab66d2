// The `tilegpu` dialect: layouts and shared memory for NVIDIA GPUs.
//
// Every tensor in a `tilegpu` program carries one of the layout attributes below as its encoding;
// shared-memory buffers are `!tilegpu.memdesc`. Semantics: dialects/README.md. The Python classes
// in dialects/tilegpu.py build and read these attributes.
irdl.dialect @tilegpu {
  // Each thread holds size_per_thread contiguous elements; threads_per_warp threads and
  // warps_per_cta warps tile the block; `order` lists dimensions fastest-varying first.
  irdl.attribute @blocked {
    %size_per_thread = irdl.base "#builtin.array"
    %threads_per_warp = irdl.base "#builtin.array"
    %warps_per_cta = irdl.base "#builtin.array"
    %order = irdl.base "#builtin.array"
    irdl.parameters(size_per_thread: %size_per_thread, threads_per_warp: %threads_per_warp,
                    warps_per_cta: %warps_per_cta, order: %order)
  }

  // The parent layout with dimension `dim` removed (the result of a reduction along `dim`).
  irdl.attribute @slice {
    %dim = irdl.base "#builtin.integer"
    %parent = irdl.any
    irdl.parameters(dim: %dim, parent: %parent)
  }

  // The accumulator layout of an mma instruction: version [major, minor] (2.0 = mma.sync),
  // warps_per_cta over the result, instr_shape the [m, n] of one instruction.
  irdl.attribute @mma {
    %version = irdl.base "#builtin.array"
    %warps_per_cta = irdl.base "#builtin.array"
    %instr_shape = irdl.base "#builtin.array"
    irdl.parameters(version: %version, warps_per_cta: %warps_per_cta, instr_shape: %instr_shape)
  }

  // Operand `op_idx` (0 = A, 1 = B) of a dot whose result has layout `parent`; each thread holds
  // k_width consecutive elements along K.
  irdl.attribute @dot_operand {
    %op_idx = irdl.base "#builtin.integer"
    %parent = irdl.any
    %k_width = irdl.base "#builtin.integer"
    irdl.parameters(op_idx: %op_idx, parent: %parent, k_width: %k_width)
  }

  // A swizzled shared-memory layout: rows of `vec`-element groups are XOR-swizzled with
  // (row / per_phase) % max_phase; `order` lists dimensions fastest-varying first.
  irdl.attribute @shared {
    %vec = irdl.base "#builtin.integer"
    %per_phase = irdl.base "#builtin.integer"
    %max_phase = irdl.base "#builtin.integer"
    %order = irdl.base "#builtin.array"
    irdl.parameters(vec: %vec, per_phase: %per_phase, max_phase: %max_phase, order: %order)
  }

  // The layout wgmma reads (and TMA writes): column blocks `swizzle` bytes wide along the
  // fastest dimension, one after another; inside a block, 16-byte chunks of each row XOR-ed
  // with (row / (128 / swizzle)) % (swizzle / 16) (the hardware's 32/64/128-byte swizzle);
  // element_bits: the width of the elements; `order` lists dimensions fastest-varying first.
  irdl.attribute @nvmma_shared {
    %swizzle = irdl.base "#builtin.integer"
    %element_bits = irdl.base "#builtin.integer"
    %order = irdl.base "#builtin.array"
    irdl.parameters(swizzle: %swizzle, element_bits: %element_bits, order: %order)
  }

  // A buffer in shared memory: !tilegpu.memdesc<[2, 64, 64], f16, #tilegpu.shared<...>, true>
  // (shape, element type, layout, mutable).
  irdl.type @memdesc {
    %shape = irdl.base "#builtin.array"
    %element_type = irdl.any
    %encoding = irdl.any
    %mutable_t = irdl.is true
    %mutable_f = irdl.is false
    %mutable = irdl.any_of(%mutable_t, %mutable_f)
    irdl.parameters(shape: %shape, element_type: %element_type, encoding: %encoding,
                    mutable: %mutable)
  }

  // Orders asynchronous copies: produced by async copies and groups, consumed by waits.
  irdl.type @async_token {
    irdl.parameters()
  }

  irdl.operation @convert_layout {
    %src = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @local_alloc {
    %src = irdl.base "!builtin.tensor"
    %result = irdl.base @tilegpu::@memdesc
    irdl.operands(src: optional %src)
    irdl.results(result: %result)
  }

  irdl.operation @local_load {
    %src = irdl.base @tilegpu::@memdesc
    %result = irdl.base "!builtin.tensor"
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @local_store {
    %value = irdl.base "!builtin.tensor"
    %dst = irdl.base @tilegpu::@memdesc
    irdl.operands(value: %value, dst: %dst)
  }

  irdl.operation @local_dealloc {
    %src = irdl.base @tilegpu::@memdesc
    irdl.operands(src: %src)
  }

  irdl.operation @memdesc_subview {
    %src = irdl.base @tilegpu::@memdesc
    %offset = irdl.is i32
    %result = irdl.base @tilegpu::@memdesc
    irdl.operands(src: %src, offsets: variadic %offset)
    irdl.results(result: %result)
  }

  irdl.operation @memdesc_trans {
    %src = irdl.base @tilegpu::@memdesc
    %result = irdl.base @tilegpu::@memdesc
    irdl.operands(src: %src)
    irdl.results(result: %result)
  }

  irdl.operation @async_copy_global_to_local {
    %src = irdl.base "!builtin.tensor"
    %dst = irdl.base @tilegpu::@memdesc
    %mask = irdl.base "!builtin.tensor"
    %other = irdl.base "!builtin.tensor"
    %c_none = irdl.is "none"
    %c_ca = irdl.is "ca"
    %c_cg = irdl.is "cg"
    %cache = irdl.any_of(%c_none, %c_ca, %c_cg)
    %e_normal = irdl.is "evict_normal"
    %e_first = irdl.is "evict_first"
    %e_last = irdl.is "evict_last"
    %evict = irdl.any_of(%e_normal, %e_first, %e_last)
    %token = irdl.base @tilegpu::@async_token
    irdl.attributes { "cache" = %cache, "evict" = %evict }
    irdl.operands(src: %src, dst: %dst, mask: optional %mask, other: optional %other)
    irdl.results(token: %token)
  }

  irdl.operation @async_commit_group {
    %token = irdl.base @tilegpu::@async_token
    irdl.operands(tokens: variadic %token)
    irdl.results(token: %token)
  }

  // Waits until at most `num` committed groups are still in flight.
  irdl.operation @async_wait {
    %num = irdl.base "#builtin.integer"
    %token = irdl.base @tilegpu::@async_token
    irdl.attributes { "num" = %num }
    irdl.operands(tokens: variadic %token)
    irdl.results(token: %token)
  }

  irdl.operation @barrier {
  }
  // Every thread of every CTA of the program's cluster (barrier.cluster arrive, then wait).
  irdl.operation @cluster_barrier {
  }

  // c + a * b on wgmma: A [M, K] read from shared memory (an NVMMA layout) or from registers
  // (a dot_operand 0 layout of the result's), B [K, N] from shared memory, the accumulator
  // and result in an mma version-3 layout. Each warpgroup computes its rows and
  // columns of the result; its instructions over all of K are one asynchronous group, which
  // the op waits for before its result is read, unless it carries the unit attribute
  // `is_async`: then the group stays in flight and the result may only go to a
  // warpgroup_dot_wait (which gives the value to read) or to the accumulator of the next
  // warpgroup_dot, and its operands' buffers must not be written until that wait.
  irdl.operation @warpgroup_dot {
    // a memdesc or a tensor (IRDL of MLIR 22 aborts on any_of over irdl.base constraints)
    %a = irdl.any
    %b = irdl.base @tilegpu::@memdesc
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

  // Waits until at most `pendings` of this warpgroup's wgmma groups are in flight and gives
  // back its operands, the accumulators of those groups, to be read (each result is its
  // operand's value, ready only after the wait).
  irdl.operation @warpgroup_dot_wait {
    %value = irdl.base "!builtin.tensor"
    %pendings = irdl.base "#builtin.integer"
    irdl.attributes { "pendings" = %pendings }
    irdl.operands(inputs: variadic %value)
    irdl.results(outputs: variadic %value)
  }

  // Orders this thread's earlier generic-proxy writes of shared memory before later reads by
  // the async proxy (wgmma, TMA): fence.proxy.async.shared::cta.
  irdl.operation @fence_async_shared {
  }

  // mbarriers: a buffer of i64 barriers in shared memory, each completing a phase when its
  // `count` arrivals and the bytes it expects have come. init_barrier initialises every
  // barrier of the buffer (one thread does it, then fences the inits for the async proxy).
  irdl.operation @init_barrier {
    %bar = irdl.base @tilegpu::@memdesc
    %count = irdl.base "#builtin.integer"
    irdl.attributes { "count" = %count }
    irdl.operands(bar: %bar)
  }

  // Invalidates every barrier of the buffer (one thread), so that its bytes may be reused.
  irdl.operation @inval_barrier {
    %bar = irdl.base @tilegpu::@memdesc
    irdl.operands(bar: %bar)
  }

  // Waits (every thread) until the barrier `bar` (a buffer of one) has completed the phase of
  // parity `phase` (0 or 1; the parity flips each time a phase completes).
  irdl.operation @wait_barrier {
    %bar = irdl.base @tilegpu::@memdesc
    %phase = irdl.is i32
    irdl.operands(bar: %bar, phase: %phase)
  }

  // Every thread arrives once on the barrier `bar` (a buffer of one): with a count of all the
  // threads that arrive, its phase completes when the last has (mbarrier.arrive).
  irdl.operation @arrive_barrier {
    %bar = irdl.base @tilegpu::@memdesc
    irdl.operands(bar: %bar)
  }

  // Turns among the consumer warpgroups of a warp_specialize (ops of its consumer region):
  // warpgroup w's `warpgroup_turn_wait` waits until warpgroup w - 1 (the last one for w = 0)
  // has passed it the turn with `warpgroup_turn_pass`, which does not wait. Code between a
  // wait and a pass runs in one warpgroup after the other, round-robin (ping-pong for two).
  // `warpgroup` -1: every consumer warpgroup runs the op; k: only warpgroup k (a ring of turns
  // starts with the last warpgroup's pass and ends with warpgroup 0's wait for it).
  irdl.operation @warpgroup_turn_wait {
    %warpgroup = irdl.base "#builtin.integer"
    irdl.attributes { "warpgroup" = %warpgroup }
  }

  irdl.operation @warpgroup_turn_pass {
    %warpgroup = irdl.base "#builtin.integer"
    irdl.attributes { "warpgroup" = %warpgroup }
  }

  // Warp specialisation: `producer_warps` more warps than the module's num_warps run the
  // `producer` region (the first of them: the others only give up registers), lowering their
  // registers to `producer_registers` (setmaxnreg.dec); the num_warps warps run `consumer`,
  // raising theirs to `consumer_registers` (setmaxnreg.inc). Both regions end the kernel: the
  // op is the last before the function's return, and each region ends with `gpu.yield`.
  // Barriers inside a region synchronise that region's threads only.
  irdl.operation @warp_specialize {
    %warps = irdl.base "#builtin.integer"
    %producer_registers = irdl.base "#builtin.integer"
    %consumer_registers = irdl.base "#builtin.integer"
    %producer = irdl.region
    %consumer = irdl.region
    irdl.attributes { "producer_warps" = %warps, "producer_registers" = %producer_registers,
                      "consumer_registers" = %consumer_registers }
    irdl.regions(producer: %producer, consumer: %consumer)
  }

  // A TMA copy of the box at `coords` (one i32 per dimension of `dst`, outermost first) of the
  // tensor `map` describes into `dst` (in the nvmma_shared layout of the map's swizzle; a
  // fastest dimension wider than the swizzle span is copied one column block at a time): one
  // thread arrives on `bar` expecting the bytes of `dst` and issues the copies, which complete
  // on it. Out-of-bounds elements are written as zeros.
  irdl.operation @async_tma_copy_global_to_local {
    %map = irdl.is !llvm.ptr
    %bar = irdl.base @tilegpu::@memdesc
    %dst = irdl.base @tilegpu::@memdesc
    %coord = irdl.is i32
    irdl.operands(map: %map, bar: %bar, dst: %dst, coords: variadic %coord)
  }

  // A TMA store of `src` (an nvmma_shared buffer, one copy per column block) into the box at
  // `coords` of the tensor `map` describes, by one thread, as one bulk group; elements outside
  // the tensor are not written. The buffer may be written again only after a tma_store_wait.
  irdl.operation @async_tma_copy_local_to_global {
    %map = irdl.is !llvm.ptr
    %src = irdl.base @tilegpu::@memdesc
    %coord = irdl.is i32
    irdl.operands(map: %map, src: %src, coords: variadic %coord)
  }

  // As async_tma_copy_local_to_global, a TMA reduction instead of a store: thread 0 adds
  // (`kind`) each element of `src` into the box at `coords` of the tensor `map` describes
  // (cp.reduce.async.bulk.tensor), atomically per element, in one bulk group.
  irdl.operation @async_tma_reduce {
    %map = irdl.is !llvm.ptr
    %src = irdl.base @tilegpu::@memdesc
    %coord = irdl.is i32
    %kind = irdl.base "#builtin.string"
    irdl.attributes { "kind" = %kind }
    irdl.operands(map: %map, src: %src, coords: variadic %coord)
  }

  // The storing thread waits until at most `pendings` of its TMA store groups still read
  // shared memory (cp.async.bulk.wait_group.read).
  irdl.operation @tma_store_wait {
    %pendings = irdl.base "#builtin.integer"
    irdl.attributes { "pendings" = %pendings }
  }
}
