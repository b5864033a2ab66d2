"""What the row-wise bandwidth benchmarks (softmax, layer_norm, row_sum) share.

Each of them runs one kernel of bench/kernels.py with one program per row (grid = (rows,)) through
tilec and Triton, and torch's own operation, at sizes rows x cols; checks each result once against
a torch reference; times each with CUDA events (median over --repeats after --warmup, the L2
flushed before every run); prints a table and the target verdict; writes <name>.json and
<name>.png. A script subclasses `RowwiseBenchmark`, filling in what is its own: the kernel and its
launch, the reference, the bytes moved, the sizes, the BLOCK / num_warps heuristic, the target,
and the words of the report. Its docstring is its --help.
"""
from __future__ import annotations

import re
import sys
import traceback

import common

COMPETITORS = common.COMPETITORS


def parse_dim(text: str) -> int:
    text = text.strip()
    power = re.fullmatch(r"2\s*(?:\^|\*\*)\s*(\d+)", text)
    if power:
        return 1 << int(power.group(1))
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise ValueError(f"{text!r} is neither a positive count nor 2^K")


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """Comma-separated ROWSxCOLS (`4096x1024`, `2^12x2^10`)."""
    sizes = []
    for item in text.split(","):
        parts = re.split(r"\s*[x×]\s*", item.strip())
        if len(parts) != 2:
            raise ValueError(f"--sizes: {item!r} is not ROWSxCOLS")
        try:
            sizes.append((parse_dim(parts[0]), parse_dim(parts[1])))
        except ValueError as err:
            raise ValueError(f"--sizes: {item!r}: {err}") from None
    return sizes


def size_label(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def tilec_kernel_info(jit_fn, constants: dict, num_warps: int) -> dict | None:
    """Registers, spills and shared bytes of tilec's compiled kernel for these constants."""
    try:
        for kernel in jit_fn.cache.values():
            if kernel.constants == constants and kernel.options.num_warps == num_warps:
                return {key: kernel.metadata.get(key) for key in ("registers", "spills", "shared")}
    except Exception:
        pass
    return None


class Case:
    """One size's tensors, made by `RowwiseBenchmark.case`:

    - `launch(kernel)`: a function that launches a compiled kernel (tilec's or Triton's) once
    - `reference()`: torch's own operation (a competitor too); returns its result
    - `outputs`: what the kernels write, the result first; filled with NaN before each competitor
      runs, so a kernel that writes nothing cannot pass the check
    - `expected`: what the result must be close to (rtol, atol)
    - `more`: [(key, output, expected)] checked as well for the kernels (not for torch), their
      largest error under `<key>_max_abs_err`
    """

    def __init__(self, launch, reference, outputs, expected, rtol: float, atol: float,
                 more=()):
        self.launch, self.reference = launch, reference
        self.outputs, self.expected = outputs, expected
        self.rtol, self.atol, self.more = rtol, atol, more

    def close(self, torch, a, b) -> tuple[bool, float]:
        return (bool(torch.allclose(a, b, rtol=self.rtol, atol=self.atol)),
                float((a.float() - b.float()).abs().max().item()))

    def check(self, torch, name: str, returned) -> dict:
        correct, max_err = self.close(torch, returned if name == "torch" else self.outputs[0],
                                      self.expected)
        entry = {"correct": correct, "max_abs_err": max_err}
        if name != "torch" and self.more:
            oks = []
            for key, out, expected in self.more:
                ok, entry[f"{key}_max_abs_err"] = self.close(torch, out, expected)
                oks.append(ok)
            entry["correct"] = correct and all(oks)
        return entry


class Runners:
    """Launch functions per competitor, built once; `measure(size)` times all of them."""

    def __init__(self, bench: RowwiseBenchmark, args):
        self.bench, self.args = bench, args
        self.notes: list[str] = []
        torch, cupy = common.require_torch_and_gpu("the input tensors and the reference")
        self.torch = torch
        self.modules = {"tilec": common.import_tilec(), "torch": torch, "cupy": cupy,
                        "triton": common.importable("triton")}
        self.gpu = common.Gpu(torch=torch)
        tilec = self.modules["tilec"]
        import tilec.language as tilec_tl
        self.kernels = {"tilec": common.load_kernels(tilec_tl, tilec.jit, "tilec")[bench.kernel]}
        triton = self.modules["triton"]
        if triton is not None:
            try:
                import triton.language as triton_tl
                self.kernels["triton"] = common.load_kernels(triton_tl, triton.jit,
                                                             "triton")[bench.kernel]
            except Exception as err:
                self.notes.append(f"Triton skipped: {type(err).__name__}: {err}")
        else:
            self.notes.append("Triton skipped: not importable")
        self.flush = self.gpu.l2_flusher()

    def measure(self, size: tuple[int, int]) -> dict:
        """{competitor: {"times_ms": [...], "correct": bool, ...} or {"error": text}}."""
        torch, gpu, bench = self.torch, self.gpu, self.bench
        rows, cols = size
        block, num_warps = bench.config_for(cols, self.args.num_warps)
        gen = torch.Generator(device="cuda").manual_seed(rows * 100003 + cols)
        case = bench.case(torch, gen, size, block, num_warps)
        launches = {name: case.launch(kernel) for name, kernel in self.kernels.items()}
        launches["torch"] = case.reference
        found = {}
        for name, launch in launches.items():
            try:
                for out in case.outputs:  # a kernel that writes nothing cannot pass the check
                    out.fill_(float("nan"))
                returned = launch()
                gpu.synchronize()
                entry = case.check(torch, name, returned)
                if name == "tilec":
                    entry["kernel"] = tilec_kernel_info(self.kernels["tilec"],
                                                        {bench.block_arg: block}, num_warps)
                elif name == "triton":
                    entry["kernel"] = common.triton_kernel_info(returned)
                entry["times_ms"] = common.time_gpu(gpu, launch, self.args.warmup,
                                                    self.args.repeats, flush=self.flush)
                found[name] = entry
            except Exception as err:
                found[name] = {"error": f"{type(err).__name__}: {err}"}
                print(f"note: {name} failed at {size_label(size)}: {found[name]['error']}")
                if name == "tilec":
                    traceback.print_exc()
        return found  # the case's tensors are freed here, before the next size allocates


class RowwiseBenchmark:
    """One row-wise benchmark; a subclass sets the attributes and defines `moved_bytes` and
    `case` (and `config_for` and the warps texts when the heuristic is not the default)."""

    name: str                     # of the JSON and PNG files
    kernel: str                   # the kernel's name in bench/kernels.py
    default_sizes: list[tuple[int, int]]
    rtol: float
    atol: float
    block_arg = "BLOCK_SIZE"      # the kernel's block constexpr
    target_ratio: float | None = None  # tilec/Triton GB/s needed at every size
    no_target = ""                # the target line when there is no target
    target_extra: dict = {}       # more keys of the JSON "target"
    what: str                     # "fp32 fused softmax": titles of the table and the plot
    bytes_formula: str            # "2 * rows * cols * 4": the GB/s numerator, as words
    size_header = "M x N"         # the sizes' column and the plot's x axis
    sizes_form = "MxN"            # the --sizes help
    config: dict                  # the JSON config's entries between "kernel" and "num_warps"
    reference: str                # the JSON config's "reference"
    fake_bandwidth_gbps: dict     # --dry-run's model
    fake_latency_ms = {"tilec": 0.0040, "triton": 0.0040, "torch": 0.0045}

    def __init__(self, doc: str):
        self.doc = doc

    # --- what a subclass defines ------------------------------------------------------------------

    def config_for(self, cols: int, num_warps: int | None = None) -> tuple[int, int]:
        """(block, num_warps) for rows of `cols` elements: the heuristic of Triton's original
        softmax tutorial."""
        block = next_pow2(cols)
        if num_warps is None:
            num_warps = 16 if block >= 4096 else 8 if block >= 2048 else 4
        return block, num_warps

    def warps_help(self) -> str:
        return f"4, 8 from {self.block_arg} 2048, 16 from 4096"

    def warps_rule(self) -> str:
        return f"4; 8 if {self.block_arg} >= 2048; 16 if {self.block_arg} >= 4096"

    def moved_bytes(self, size: tuple[int, int]) -> int:
        raise NotImplementedError

    def case(self, torch, gen, size: tuple[int, int], block: int, num_warps: int) -> Case:
        """The inputs (random from `gen`), outputs and references of one size."""
        raise NotImplementedError

    # --- the report -------------------------------------------------------------------------------

    def summarise(self, size: tuple[int, int], found: dict, num_warps: int | None) -> dict:
        rows, cols = size
        block, warps = self.config_for(cols, num_warps)
        row = {"rows": rows, "cols": cols, "label": size_label(size), "block_size": block,
               "num_warps": warps, "bytes": self.moved_bytes(size)}
        return common.add_bandwidths(row, found, row["bytes"])

    def print_rows(self, rows: list[dict]) -> None:
        table = []
        for row in rows:
            cells = [row["label"], str(row["block_size"]), str(row["num_warps"])]
            cells += common.bandwidth_cells(row)
            wrong = [name for name in COMPETITORS if row[name].get("correct") is False]
            failed = [name for name in COMPETITORS if "error" in row[name]]
            cells.append((" MISMATCH: " + ",".join(wrong) if wrong else "")
                         + (" ERROR: " + ",".join(failed) if failed else ""))
            table.append(cells)
        common.print_table(
            f"{self.what}, GB/s = {self.bytes_formula.replace(' * ', '*')} bytes / median time "
            "(higher is better)",
            [self.size_header, "BLOCK", "warps"] + common.BANDWIDTH_HEADERS + [""], table)

    def target_summary(self, rows: list[dict]) -> dict:
        goal = self.target_ratio
        if goal is None:
            print(f"target: {self.no_target}")
            return {"min_ratio_tilec_triton": goal, "met": None}
        target = {"min_ratio_tilec_triton": goal, "at": "every size", "per_size": {},
                  "met": None, **self.target_extra}
        verdicts = []
        for row in rows:
            measured = row["ratio_tilec_triton"]
            met = None if measured is None else measured >= goal
            target["per_size"][row["label"]] = {"measured": measured, "met": met}
            verdicts.append(met)
            if measured is None:
                print(f"target: no tilec/Triton ratio at {row['label']} "
                      "(Triton or tilec missing?)")
            else:
                print(f"target: tilec/Triton at {row['label']} = {measured:.3f} "
                      f"(tilec {row['tilec']['gbps']:.0f} GB/s, "
                      f"Triton {row['triton']['gbps']:.0f} GB/s; needs >= {goal}): "
                      f"{'MET' if met else 'MISSED'}")
        if verdicts and all(v is not None for v in verdicts):
            target["met"] = all(verdicts)
            print(f"target: tilec >= {goal}x Triton at every size: "
                  f"{'MET' if target['met'] else 'MISSED'}")
        return target

    def draw(self, rows: list[dict]):
        def figure(plt):
            fig, (top, bottom) = common.two_panels(plt)
            xs = list(range(len(rows)))
            width = 0.8 / len(COMPETITORS)
            for i, name in enumerate(COMPETITORS):
                points = [(x + (i - 1) * width, r[name]["gbps"]) for x, r in zip(xs, rows)
                          if r[name].get("gbps") is not None]
                if points:
                    top.bar(*zip(*points), width=width, label=name)
            top.set_ylabel(f"GB/s ({self.bytes_formula.replace(' * ', '·')} bytes / time)")
            top.set_title(f"{self.what} (one program per row)")
            top.grid(True, axis="y", alpha=0.3)
            top.legend()
            points = [(x, r["ratio_tilec_triton"]) for x, r in zip(xs, rows)
                      if r["ratio_tilec_triton"] is not None]
            common.ratio_panel(bottom, points, self.target_ratio, self.size_header,
                               ticks=(xs, [r["label"] for r in rows]))
            return fig
        return figure

    def json_config(self, args) -> dict:
        return {"kernel": f"bench/kernels.py:{self.kernel}", **self.config,
                "num_warps": args.num_warps if args.num_warps is not None
                else self.warps_rule(),
                "reference": self.reference, "rtol": self.rtol, "atol": self.atol,
                "warmup": args.warmup, "repeats": args.repeats,
                "l2_flush_bytes": common.L2_FLUSH_BYTES,
                "gbps": f"{self.bytes_formula} bytes / median time", "timer": "CUDA events"}

    # --- the run ----------------------------------------------------------------------------------

    def main(self, argv=None) -> int:
        parser = common.make_parser(self.doc)
        parser.add_argument("--sizes", type=parse_sizes, default=self.default_sizes,
                            help=f"comma-separated {self.sizes_form} (default "
                                 f"{','.join(size_label(s) for s in self.default_sizes)})")
        parser.add_argument("--warmup", type=int, default=10)
        parser.add_argument("--repeats", type=int, default=100)
        parser.add_argument("--num-warps", type=int, default=None,
                            help="num_warps for every size, both compilers (default: "
                                 f"{self.warps_help()})")
        args = parser.parse_args(argv)
        if args.dry_run:
            runners = common.FakeRunners(args, self.fake_bandwidth_gbps, self.fake_latency_ms,
                                         self.moved_bytes, extra={"max_abs_err": 0.0})
        else:
            runners = Runners(self, args)
        rows = []
        for size in args.sizes:
            row = self.summarise(size, runners.measure(size), args.num_warps)
            rows.append(row)
            print(f"{row['label']:>11} (BLOCK {row['block_size']}, {row['num_warps']} warps): "
                  + common.bandwidth_line(row))
        self.print_rows(rows)
        target = self.target_summary(rows)
        for note in runners.notes:
            print(f"note: {note}")
        mismatches = [f"{name} at {r['label']}" for r in rows for name in COMPETITORS
                      if r[name].get("correct") is False]
        errors = [f"tilec at {r['label']}: {r['tilec']['error']}" for r in rows
                  if "error" in r["tilec"]]
        env = common.environment(runners.modules, gpu=None if args.dry_run else runners.gpu)
        return common.finish(args.out, self.name, {
            "benchmark": self.name, "dry_run": args.dry_run, "environment": env,
            "config": self.json_config(args),
            "results": rows, "target": target, "notes": runners.notes, "mismatches": mismatches,
            "tilec_errors": errors,
        }, self.draw(rows), [("MISMATCH: ", "; ".join(mismatches)),
                             ("TILEC FAILED: ", "; ".join(errors))])
