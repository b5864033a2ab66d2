"""Warm launch overhead of a 4-argument kernel: tilec beside Triton and CuPy, in one process.

    python bench/launch_overhead.py [--out DIR] [--launches 10000] [--rounds 5]
    python bench/launch_overhead.py --dry-run      # fake timings, no GPU: checks the report code

The kernel is vector add (bench/kernels.py:add_kernel; x, y, out, n) on n=128 elements with grid
(1,): it does next to no work, so a loop of back-to-back launches measures what the host spends
per launch. Each way of launching is warmed up (compiled, loaded), the GPU is kept busy for a
second (its clock ramps up), then each round times every method in turn (so clock drift touches
all alike) as `time.perf_counter()` around --launches launches and one device synchronize; the
reported figure is the median over --rounds of (loop time / launches), in microseconds.
Arguments are bound and packed on every call, except for the floor:

  tilec (torch)       add_kernel[(1,)](x, y, out, n, BLOCK=1024) with torch tensors
  tilec (CuPy)        the same with CuPy arrays
  tilec (grid fn)     the same (CuPy arrays) with a grid lambda meta -> (cdiv(n, BLOCK),)
  tilec (Python path) the same (CuPy arrays) through tilec.launch.run, the path every launch
                      takes without the C extension
  Triton              the same source under @triton.jit, torch tensors
  CuPy RawKernel      RawKernel.__call__ on an equivalent CUDA C kernel
  torch.add           torch.add(x, y, out=out) (reference: torch's own dispatch)
  driver floor        cupy.cuda.driver.launchKernel of tilec's own cubin of add_kernel (the
                      same kernel the tilec rows launch) with a pre-packed void** buffer

  tilec (3 descriptors)   desc_add_kernel[(1,)](xd, yd, outd, BLOCK=128): the same add through
                          three host TensorDescriptors (tilec.tools.tensor_descriptor)
  Triton (3 descriptors)  the same source and descriptors (triton.tools.tensor_descriptor)
  tilec (3 TMA descriptors)   desc_add_2d_kernel[(1,)](xd, yd, outd, BM=8, BN=16): the add
                          through three 2-D descriptors of the tensors as 8 x 16, which tilec
                          gives TMA maps (encoded at launch, cached); Triton (3 TMA
                          descriptors) the same source
  tilec (3 made descriptors)  made_desc_add_kernel[(1,)](x, y, out, BM=8, BN=16): the add
                          through three descriptors the kernel makes (TMA maps written into
                          global scratch, allocated at every launch from torch's pool, or the
                          allocator set); Triton (3 made descriptors) the same source, with a
                          triton.set_allocator of torch.empty

Targets, as ratios to the driver floor of the same run: tilec with CuPy arrays and with torch
tensors <= 1.25x, with a grid function <= 1.5x; and tilec with three descriptors <= 2x tilec's
plain launch with torch tensors, with and without TMA maps (issue 18; Triton: 38 us against
16 us). Writes launch_overhead.json and
launch_overhead.png (bar chart) into --out. Each method's output is checked against x + y after its loop; exits 1 only when one
differs (2 when there is no GPU at all).
"""
from __future__ import annotations

import ctypes
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

N = 128
BLOCK = 1024
THREADS = 128  # the CUDA C kernel's block: one thread per element, as tilec's 4 warps
# The targets of the tilec rows, in multiples of the driver floor of the same run.
TARGETS = {"tilec (torch)": 1.25, "tilec (CuPy)": 1.25, "tilec (grid fn)": 1.5}
WARMUP_LAUNCHES = 200
# tilec with descriptors against tilec's own plain launch (torch tensors), same run.
DESCRIPTOR_TARGETS = (("tilec (3 descriptors)", "tilec (torch)", 2.0),
                      ("tilec (3 TMA descriptors)", "tilec (torch)", 2.0))
ORDER = ("tilec (torch)", "tilec (CuPy)", "tilec (grid fn)", "tilec (Python path)",
         "tilec (3 descriptors)", "tilec (3 TMA descriptors)", "tilec (3 made descriptors)",
         "Triton", "Triton (3 descriptors)", "Triton (3 TMA descriptors)",
         "Triton (3 made descriptors)", "CuPy RawKernel", "torch.add",
         "driver floor")

CUDA_SOURCE = r"""
extern "C" __global__ void add_kernel(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + y[i];
}
"""


class Method:
    """One way to launch: `launch()` does one launch; `out` is checked against `expected`."""

    def __init__(self, name: str, launch, out, expected, reset, equal, synchronize, group: str,
                 arrays: str):
        self.name, self.launch, self.out, self.expected = name, launch, out, expected
        self.reset, self.equal, self.synchronize = reset, equal, synchronize
        self.group, self.arrays = group, arrays


def build_methods(notes: list[str]) -> tuple[list[Method], dict]:
    torch = common.importable("torch")
    cupy = common.importable("cupy")
    triton = common.importable("triton")
    tilec = common.import_tilec()
    modules = {"tilec": tilec, "triton": triton, "torch": torch, "cupy": cupy}
    common.require_gpu(cupy=cupy, torch=torch)
    import tilec.language as tilec_tl
    tilec_add = common.load_kernels(tilec_tl, tilec.jit, "tilec")["add_kernel"]
    grid = (1,)
    methods = []

    if torch is not None:
        gen = torch.Generator(device="cuda").manual_seed(0)
        tx, ty = (torch.rand(N, device="cuda", generator=gen) for _ in range(2))
        tout = torch.empty_like(tx)
        texpected = tx + ty
        torch_io = dict(out=tout, expected=texpected, reset=lambda: tout.fill_(float("nan")),
                        equal=lambda a, b: bool(torch.equal(a, b)),
                        synchronize=torch.cuda.synchronize, arrays="torch")
        methods.append(Method("tilec (torch)", lambda: tilec_add[grid](
            tx, ty, tout, N, BLOCK=BLOCK), group="tilec", **torch_io))
        if triton is not None:
            import triton.language as triton_tl
            triton_add = common.load_kernels(triton_tl, triton.jit, "triton")["add_kernel"]
            methods.append(Method("Triton", lambda: triton_add[grid](
                tx, ty, tout, N, BLOCK=BLOCK), group="triton", **torch_io))
        methods.append(Method("torch.add", lambda: torch.add(tx, ty, out=tout), group="torch",
                              **torch_io))
        methods += descriptor_methods(tilec, triton, tx, ty, tout, torch_io, notes)
    else:
        notes.append("torch not importable: no Triton, torch.add or tilec-with-torch rows")

    if cupy is not None:
        rng = cupy.random.default_rng(0)
        cx, cy = (rng.random(N, dtype=cupy.float32) for _ in range(2))
        cout = cupy.empty_like(cx)
        cexpected = cx + cy
        cupy_io = dict(out=cout, expected=cexpected, reset=lambda: cout.fill(float("nan")),
                       equal=lambda a, b: bool(cupy.array_equal(a, b)),
                       synchronize=cupy.cuda.runtime.deviceSynchronize, arrays="cupy")
        methods.append(Method("tilec (CuPy)", lambda: tilec_add[grid](
            cx, cy, cout, N, BLOCK=BLOCK), group="tilec", **cupy_io))
        methods.append(Method("tilec (grid fn)", lambda: tilec_add[
            lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),)](cx, cy, cout, N, BLOCK=BLOCK),
            group="tilec", **cupy_io))
        python_path = common.importable("tilec.launch").run
        methods.append(Method("tilec (Python path)", lambda: python_path(
            tilec_add, grid, (cx, cy, cout, N), {"BLOCK": BLOCK}), group="tilec", **cupy_io))
        raw = cupy.RawKernel(CUDA_SOURCE, "add_kernel")
        n32 = cupy.int32(N)
        methods.append(Method("CuPy RawKernel", lambda: raw((1,), (THREADS,), (cx, cy, cout, n32)),
                              group="cupy", **cupy_io))
        methods.append(Method("driver floor", driver_floor(cupy, tilec_add, cx, cy, cout),
                              group="floor", **cupy_io))
    else:
        notes.append("CuPy not importable: no CuPy, driver-floor or tilec-with-CuPy rows")
    methods.sort(key=lambda m: ORDER.index(m.name))
    return methods, modules


def descriptor_methods(tilec, triton, x, y, out, io: dict, notes: list[str]) -> list[Method]:
    """desc_add_kernel through three host descriptors of the torch tensors, tilec and Triton."""
    from tilec.tools.tensor_descriptor import TensorDescriptor
    import tilec.language as tilec_tl
    kernels = common.load_kernels(tilec_tl, tilec.jit, "tilec")
    kernel, kernel_2d = kernels["desc_add_kernel"], kernels["desc_add_2d_kernel"]
    kernel_made = kernels["made_desc_add_kernel"]
    descs = [TensorDescriptor.from_tensor(t, [N]) for t in (x, y, out)]
    descs_2d = [TensorDescriptor.from_tensor(t.view(8, N // 8), [8, N // 8]) for t in (x, y, out)]
    made = [Method("tilec (3 descriptors)", lambda: kernel[(1,)](*descs, BLOCK=N),
                   group="tilec", **io),
            Method("tilec (3 TMA descriptors)", lambda: kernel_2d[(1,)](*descs_2d, BM=8,
                                                                          BN=N // 8),
                   group="tilec", **io),
            Method("tilec (3 made descriptors)", lambda: kernel_made[(1,)](x, y, out, BM=8,
                                                                             BN=N // 8),
                   group="tilec", **io)]
    if "tensormaps" not in kernel_2d[(1,)](*descs_2d, BM=8, BN=N // 8).metadata:
        notes.append("tilec (3 TMA descriptors): the kernel got no TMA maps")
    if triton is None:
        return made
    try:
        import triton.language as triton_tl
        from triton.tools.tensor_descriptor import TensorDescriptor as TritonDescriptor
        triton_kernels = common.load_kernels(triton_tl, triton.jit, "triton")
        triton_kernel = triton_kernels["desc_add_kernel"]
        triton_2d = triton_kernels["desc_add_2d_kernel"]
        triton_descs = [TritonDescriptor.from_tensor(t, [N]) for t in (x, y, out)]
        triton_descs_2d = [TritonDescriptor.from_tensor(t.view(8, N // 8), [8, N // 8])
                           for t in (x, y, out)]
        made.append(Method("Triton (3 descriptors)", lambda: triton_kernel[(1,)](
            *triton_descs, BLOCK=N), group="triton", **io))
        made.append(Method("Triton (3 TMA descriptors)", lambda: triton_2d[(1,)](
            *triton_descs_2d, BM=8, BN=N // 8), group="triton", **io))
        import torch
        triton.set_allocator(lambda size, alignment, stream: torch.empty(
            size, dtype=torch.int8, device="cuda"))
        triton_made = triton_kernels["made_desc_add_kernel"]
        made.append(Method("Triton (3 made descriptors)", lambda: triton_made[(1,)](
            x, y, out, BM=8, BN=N // 8), group="triton", **io))
    except ImportError as err:
        notes.append(f"no Triton descriptor row: {err}")
    return made


def driver_floor(cupy, kernel, x, y, out):
    """cuLaunchKernel through CuPy's driver binding, of the cubin tilec compiled for `kernel`
    (its own launch warmed it up), with the argument buffer packed once."""
    handle = kernel[(1,)](x, y, out, N, BLOCK=BLOCK)
    module = cupy.cuda.function.Module()
    module.load(handle.asm["cubin"])
    function = module.get_function(handle.name)
    slots = [ctypes.c_uint64(x.data.ptr), ctypes.c_uint64(y.data.ptr),
             ctypes.c_uint64(out.data.ptr), ctypes.c_int32(N)]
    params = (ctypes.c_void_p * len(slots))(*[ctypes.addressof(s) for s in slots])
    params_address = ctypes.addressof(params)
    stream = cupy.cuda.get_current_stream().ptr
    fptr, block = function.ptr, handle.metadata.num_warps * 32
    shared = handle.metadata.shared
    launch_kernel = cupy.cuda.driver.launchKernel

    def launch():
        launch_kernel(fptr, 1, 1, 1, block, 1, 1, shared, stream, params_address, 0)
    launch._keep = (module, function, slots, params)  # the buffer and module must outlive it
    return launch


def warm_up(method: Method) -> bool:
    """Compile, load and run `method` a while; whether its output is then right."""
    method.reset()
    for _ in range(WARMUP_LAUNCHES):
        method.launch()
    method.synchronize()
    return method.equal(method.out, method.expected)


def time_round(method: Method, launches: int) -> float:
    """Microseconds per launch over one loop of `launches` launches."""
    launch = method.launch
    method.synchronize()
    start = time.perf_counter()
    for _ in range(launches):
        launch()
    method.synchronize()
    return (time.perf_counter() - start) / launches * 1e6


def busy(method: Method, seconds: float = 1.0) -> None:
    """Keep the GPU launching for `seconds`, so its clock is up before the first round."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(1000):
            method.launch()
    method.synchronize()


def measure(methods: list[Method], launches: int, rounds: int) -> list[dict]:
    results = {m.name: {"name": m.name, "group": m.group, "arrays": m.arrays, "rounds_us": []}
               for m in methods}
    working = []
    for method in methods:
        try:
            results[method.name]["correct"] = warm_up(method)
            working.append(method)
        except Exception as err:
            if method.group == "tilec":
                raise
            results[method.name]["error"] = f"{type(err).__name__}: {err}"
            print(f"note: {method.name} failed: {results[method.name]['error']}")
    if working:
        busy(working[-1])
    for _ in range(rounds):
        for method in working:
            results[method.name]["rounds_us"].append(time_round(method, launches))
    for method in working:  # the output is still right after the timed launches
        method.reset()
        method.launch()
        method.synchronize()
        results[method.name]["correct"] &= method.equal(method.out, method.expected)
    for entry in results.values():
        print(f"{entry['name']}: {common.fmt(common.median(entry['rounds_us']))} us")
    return list(results.values())


def fake_results(rounds: int) -> list[dict]:
    rng = random.Random(0)
    model = {"tilec (torch)": ("tilec", "torch", 5.3), "tilec (CuPy)": ("tilec", "cupy", 5.1),
             "tilec (grid fn)": ("tilec", "cupy", 5.6),
             "tilec (Python path)": ("tilec", "cupy", 8.0), "Triton": ("triton", "torch", 16.5),
             "tilec (3 descriptors)": ("tilec", "torch", 7.9),
             "tilec (3 TMA descriptors)": ("tilec", "torch", 8.6),
             "tilec (3 made descriptors)": ("tilec", "torch", 12.4),
             "Triton (3 descriptors)": ("triton", "torch", 38.0),
             "Triton (3 TMA descriptors)": ("triton", "torch", 39.0),
             "Triton (3 made descriptors)": ("triton", "torch", 22.0),
             "CuPy RawKernel": ("cupy", "cupy", 7.2), "torch.add": ("torch", "torch", 5.2),
             "driver floor": ("floor", "cupy", 4.8)}
    return [{"name": name, "group": group, "arrays": arrays, "correct": True,
             "rounds_us": [us * rng.uniform(0.97, 1.06) for _ in range(rounds)]}
            for name, (group, arrays, us) in model.items()]


def summarise(results: list[dict]) -> None:
    for r in results:
        r["us_per_launch"] = common.median(r.get("rounds_us", []))
    floor = next((r["us_per_launch"] for r in results if r["group"] == "floor"), None)
    for r in results:
        r["over_floor"] = common.ratio(r["us_per_launch"], floor)


def print_rows(results: list[dict]) -> None:
    rows = [[r["name"], r["arrays"], common.fmt(r["us_per_launch"], ".2f"),
             common.fmt_ratio(r["over_floor"]),
             "" if r.get("correct", True) else "MISMATCH"] for r in results]
    common.print_table("warm launch overhead, us per launch (lower is better); x floor: this "
                       "row's us over the driver floor's (a prepacked cuLaunchKernel), same run",
                       ["method", "arrays", "us/launch", "x floor", ""], rows)


def target_summary(results: list[dict]) -> dict:
    rows = {r["name"]: r for r in results}
    target = {"max_over_floor": TARGETS, "measured": {}, "met": {}}
    for name, limit in TARGETS.items():
        ratio = rows.get(name, {}).get("over_floor")
        if ratio is None:
            print(f"target: {name} was not measured (or no floor)")
            continue
        target["measured"][name] = ratio
        target["met"][name] = ratio <= limit
        print(f"target: {name} {rows[name]['us_per_launch']:.2f} us = {ratio:.2f}x the floor "
              f"(needs <= {limit}x): {'MET' if ratio <= limit else 'MISSED'}")
    for name, base, limit in DESCRIPTOR_TARGETS:
        if name in rows and base in rows and rows[base]["us_per_launch"]:
            ratio = common.ratio(rows[name]["us_per_launch"], rows[base]["us_per_launch"])
            target.setdefault("descriptors", {})[name] = {
                "over": base, "max": limit, "measured": ratio,
                "met": ratio is not None and ratio <= limit}
            print(f"target: {name} {rows[name]['us_per_launch']:.2f} us = {ratio:.2f}x {base} "
                  f"(needs <= {limit}x): {'MET' if ratio <= limit else 'MISSED'}")
        else:
            print(f"target: {name} or {base} was not measured")
    return target


def draw(results: list[dict]):
    def figure(plt):
        shown = [r for r in results if r["us_per_launch"] is not None]
        fig, ax = plt.subplots(figsize=(8, 0.5 * len(shown) + 1.5))
        colors = {"tilec": "C0", "triton": "C1", "torch": "C2", "cupy": "C3", "floor": "C7"}
        names = [r["name"] for r in shown][::-1]
        values = [r["us_per_launch"] for r in shown][::-1]
        bars = ax.barh(names, values, color=[colors.get(r["group"], "C4") for r in shown][::-1])
        for bar, value in zip(bars, values):
            ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {value:.2f}",
                    va="center")
        floor = next((r["us_per_launch"] for r in shown if r["group"] == "floor"), 0.0)
        common.finish_barh(ax, 1.25 * floor, "1.25x the driver floor (tilec's target)",
                           "us per launch (warm, 4 arguments, grid (1,))", "launch overhead")
        return fig
    return figure


def main(argv=None) -> int:
    parser = common.make_parser(__doc__)
    parser.add_argument("--launches", type=int, default=10000, help="launches per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    notes = []
    if args.dry_run:
        results, modules, gpu = fake_results(args.rounds), {}, None
        notes.append("dry run: timings are fake")
    else:
        methods, modules = build_methods(notes)
        results = measure(methods, args.launches, args.rounds)
        gpu = common.Gpu(torch=modules["torch"], cupy=modules["cupy"])
    summarise(results)
    print_rows(results)
    target = target_summary(results)
    for note in notes:
        print(f"note: {note}")
    mismatches = [r["name"] for r in results if r.get("correct") is False]
    env = common.environment(modules, gpu=gpu, arrays=False)
    return common.finish(args.out, "launch_overhead", {
        "benchmark": "launch_overhead", "dry_run": args.dry_run, "environment": env,
        "config": {"n": N, "block": BLOCK, "grid": [1], "launches_per_round": args.launches,
                   "rounds": args.rounds, "warmup_launches": WARMUP_LAUNCHES,
                   "timer": "perf_counter around the launch loop and one synchronize",
                   "order": "rounds interleaved across methods, after 1 s of launches"},
        "results": results, "target": target, "notes": notes, "mismatches": mismatches,
    }, draw(results), [("MISMATCH: ", ", ".join(mismatches))])


if __name__ == "__main__":
    sys.exit(main())
