"""Flash attention, fp16, forward and backward: tilec beside Triton and PyTorch's SDPA back ends,
in one process.

    python bench/attention.py [--out DIR] [--cases 64:4096:32,128:16384:8] [--causal both|yes|no]
                              [--passes fwd,bwd] [--configs 128x64:w8:s2,...]
                              [--bwd-configs 64x64:w4:s2,...] [--warmup 5] [--repeats 20]
                              [--cooldown 0.5] [--no-triton] [--kernel pointers|descriptors]

Each case is HEAD_DIM:SEQ_LEN:BATCH_HEADS (default d = 64 and 128 at 1k, 4k and 16k tokens, the
batch times heads chosen so each case does about the same work), causal and not. The same kernel
source, tutorials/06-fused-attention.py (run with each framework's `tl` and `jit` bound), runs
through tilec and Triton over a small sweep of (BLOCK_M x BLOCK_N, num_warps, num_stages):
- forward: attention_fwd (Q's block kept, a loop over K/V blocks, the online softmax with
  tl.exp2, P @ V chained from registers), beside torch.nn.functional.scaled_dot_product_attention
  with its flash and cuDNN back ends;
- backward: attention_bwd_delta, attention_bwd_dkdv and attention_bwd_dq one after another (the
  time of all three; BLOCK_M = BLOCK_N), from the forward's Out and row log-sum-exp, beside
  torch.autograd.grad of SDPA's flash and cuDNN outputs (its backward kernels only).
The forward's 128x64 4-warp config is run for Triton only at d128, where it spills in both
compilers (TRITON_ONLY): Triton's reference stays its best config.
With `--kernel descriptors` the forward is attention_fwd_tma instead (forward only): Q, K, V
and Out through host TensorDescriptors (each framework's own class) over the
[batch*heads*seq, d] matrices, so K and V blocks are TMA copies on Hopper; a config with `:ws`
after it (e.g. 128x128:w8:s3:ws) marks the key loop `warp_specialize=True` (a producer
warpgroup issues the copies; with 3 stages tilec also overlaps the softmax with P V,
tilegpu-overlap-dots), and `:cN` after that launches programs of N CTAs (num_ctas; e.g.
256x128:w8:s3:ws:c2: each CTA 128 query rows, K and V copied once per cluster by TMA
multicast; in the default sweep, run through tilec only). The table then also shows tilec/cuDNN (issue 18's target:
>= 1.0 at d128, 4k-16k tokens).
Inputs (q, k, v and dOut) are standard normal fp16 [batch*heads, seq, d] (seeded); every result
(Out, or dQ, dK and dV) is checked once against SDPA's math back end in fp32 on the same inputs
(|x - ref| <= 2e-2 + 2e-2 |ref|), then timed with CUDA events (median over --repeats after
--warmup, the L2 flushed before each run, --cooldown seconds idle before each config).
TFLOP/s = 4 * batch_heads * seq^2 * d / time for the forward, 2.5 times that for the backward
(its five matrix products), halved for causal attention.

Targets (issue 15, H200): tilec >= 1.0x Triton in every case, forward and backward; no tilec
kernel spills. Writes attention.json and attention.png into --out; exits 1 when a result is
wrong or a tilec kernel spilled (after writing the report), 2 without a GPU or torch.
"""
from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

KERNEL_FILE = common.ROOT / "tutorials" / "06-fused-attention.py"
KERNEL = "attention_fwd"
TOL = 2e-2
TARGET = 1.0
DEFAULT_CASES = [(d, seq, bh) for d in (64, 128)
                 for seq, bh in ((1024, 128), (4096, 32), (16384, 8))]


class Config(NamedTuple):
    block_m: int
    block_n: int
    num_warps: int
    num_stages: int
    warp_specialize: bool = False  # attention_fwd_tma's WARP_SPECIALIZE
    num_ctas: int = 1  # CTAs a program (a cluster): tilec gives each block_m / num_ctas rows

    @property
    def label(self) -> str:
        return f"{self.block_m}x{self.block_n} w{self.num_warps} s{self.num_stages}" + (
            " ws" if self.warp_specialize else "") + (
            f" c{self.num_ctas}" if self.num_ctas > 1 else "")


CONFIGS = [Config(128, 64, 8, 2), Config(128, 128, 8, 2), Config(128, 64, 4, 2)]
DESCRIPTOR_KERNEL = "attention_fwd_tma"
DESCRIPTOR_CONFIGS = [Config(128, 64, 8, 2), Config(128, 128, 8, 2, True),
                      Config(128, 128, 8, 3, True), Config(256, 128, 8, 3, True, 2)]
# Configs run for Triton only, by head dim: 128x64 on 4 warps at d128 needs more than 255
# registers in both compilers (one warpgroup holds the 128x128 fp32 accumulator and the 128x64
# scores; tilec spills 48-592 bytes there, Triton 12-208). Triton keeps it (it is its best
# config there), so its reference is its best; tilec is measured on the configs it runs
# without spilling.
TRITON_ONLY = {128: [Config(128, 64, 4, 2)]}


def parse_cases(text: str) -> list[tuple[int, int, int]]:
    return common.parse_int_tuples(text, r"(\d+):(\d+):(\d+)", "--cases",
                                   "HEAD_DIM:SEQ_LEN:BATCH_HEADS")


def parse_configs(text: str) -> list[Config]:
    """`BMxBN:wW:sS`, then `:ws` for a warp-specialised key loop and `:cN` for programs of N
    CTAs (num_ctas; descriptors only), in that order where both."""
    configs = []
    for item in text.split(","):
        item = item.strip()
        ctas = 1
        head, _, last = item.rpartition(":")
        if last[:1] == "c" and last[1:].isdigit():
            item, ctas = head, int(last[1:])
        specialised = item.endswith(":ws")
        found, = common.parse_int_tuples(
            item[:-3] if specialised else item, r"(\d+)x(\d+):w(\d+):s(\d+)", "--configs",
            "BMxBN:wW:sS[:ws][:cN] (e.g. 128x64:w8:s2, 128x128:w8:s2:ws or 256x128:w8:s3:ws:c2)")
        configs.append(Config(*found, specialised, ctas))
    return configs


def flops(d: int, seq: int, bh: int, causal: bool) -> float:
    return 4.0 * bh * seq * seq * d / (2 if causal else 1)


def label(d, seq, bh, causal) -> str:
    return f"d{d} n{seq} bh{bh}{' causal' if causal else ''}"


BWD_KERNELS = ("attention_bwd_delta", "attention_bwd_dkdv", "attention_bwd_dq")
BWD_CONFIGS = [Config(64, 64, 4, 2), Config(64, 64, 4, 3), Config(64, 64, 8, 2)]
PASSES = ("fwd", "bwd")
BACKWARD_WORK = 2.5  # the backward's matrix products, in forwards


class Runner:
    def __init__(self, args):
        self.args = args
        torch, cupy = common.require_torch_and_gpu("the inputs, the reference and SDPA")
        self.torch = torch
        self.gpu = common.Gpu(torch=torch)
        self.flush = self.gpu.l2_flusher()
        self.notes: list[str] = []
        tilec = common.import_tilec()
        import tilec.language as tilec_tl
        self.modules = {"tilec": tilec, "torch": torch, "cupy": cupy}
        self.kernels = {"tilec": common.load_kernels(tilec_tl, tilec.jit, "tilec", KERNEL_FILE)}
        from tilec.tools.tensor_descriptor import TensorDescriptor
        self.descriptors = {"tilec": TensorDescriptor}
        triton = None if args.no_triton else common.importable("triton")
        self.modules["triton"] = triton
        if triton is not None:
            import triton.language as triton_tl
            self.kernels["triton"] = common.load_kernels(triton_tl, triton.jit, "triton",
                                                         KERNEL_FILE)
            from triton.tools.tensor_descriptor import TensorDescriptor as TritonDescriptor
            self.descriptors["triton"] = TritonDescriptor
        else:
            self.notes.append("Triton skipped")

    def timed(self, fn, check) -> dict:
        """`fn` called once and its results checked (`check()` -> (correct, max abs error)),
        then timed."""
        gpu = self.gpu
        entry = {}
        try:
            gpu.synchronize()
            start = time.perf_counter()
            returned = fn()
            gpu.synchronize()
            entry["first_call_s"] = time.perf_counter() - start
            entry["correct"], entry["max_abs_err"] = check()
            time.sleep(self.args.cooldown)
            entry["times_ms"] = common.time_gpu(gpu, fn, self.args.warmup, self.args.repeats,
                                                flush=self.flush)
            entry["ms"] = common.median(entry["times_ms"])
            entry["returned"] = returned
        except Exception as err:
            entry = {"error": f"{type(err).__name__}: {str(err).strip()[:400]}"}
            if "CUDA" in str(err):
                traceback.print_exc()
        return entry

    def measure(self, case: "Case", configs) -> dict:
        found = {}
        for name, sdpa in case.sdpa().items():
            case.clear()
            found[name] = self.timed(sdpa, case.check)
            found[name].pop("returned", None)
        for name, kernels in self.kernels.items():
            entries = []
            # cluster configs are tilec's scheme (tile-split-ctas): tilec only
            skipped = TRITON_ONLY.get(case.d, []) if name == "tilec" else \
                [c for c in configs if c.num_ctas > 1]
            for config in (c for c in configs if c not in skipped):
                case.clear()
                launch = case.launcher(kernels, config, self.descriptors[name]
                                       if self.args.kernel == "descriptors" else None)
                entry = {"label": config.label, **self.timed(launch, case.check)}
                handles = entry.pop("returned", None) or []
                entry["kernels"] = [
                    {k: h.metadata.get(k) for k in ("name", "registers", "spill_stores",
                                                    "shared")}
                    if name == "tilec" else common.triton_kernel_info(h) for h in handles]
                entries.append(entry)
                print(f"  {name:>6} {config.label:<16} " + (
                    f"{entry['ms'] and case.work / entry['ms'] / 1e9:.1f} TFLOP/s"
                    + ("" if entry.get("correct") else "  MISMATCH")
                    if "error" not in entry else f"FAILED: {entry['error'][:200]}"))
            found[name] = {"configs": entries}
        return found


class Case:
    """One head dim, sequence length, batch of heads and causality: the inputs, the fp32
    reference and the launches of one pass ("fwd" or "bwd")."""

    def __init__(self, runner: Runner, which: str, d: int, seq: int, bh: int, causal: bool):
        torch = self.torch = runner.torch
        F = torch.nn.functional
        self.which, self.d, self.seq, self.bh, self.causal = which, d, seq, bh, causal
        self.scale = d ** -0.5
        self.work = flops(d, seq, bh, causal) * (BACKWARD_WORK if which == "bwd" else 1)
        gen = torch.Generator(device="cuda").manual_seed(d * 7919 + seq + bh)
        self.q, self.k, self.v, self.do = (
            torch.randn(bh, seq, d, device="cuda", dtype=torch.float16, generator=gen)
            for _ in range(4))
        inputs = [x.float().requires_grad_(which == "bwd") for x in (self.q, self.k, self.v)]
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
            out = F.scaled_dot_product_attention(*inputs, is_causal=causal, scale=self.scale)
        self.expected = [out.detach()]
        if which == "bwd":
            self.expected = list(torch.autograd.grad(out, inputs, self.do.float()))
        self.out = torch.empty_like(self.q)
        self.lse = torch.empty(bh, seq, device="cuda", dtype=torch.float32)
        self.delta = torch.empty_like(self.lse)
        self.grads = [torch.empty_like(self.q) for _ in range(3)]
        self.results = [self.out] if which == "fwd" else self.grads
        if which == "bwd":  # the forward's Out and log-sum-exp, which the backward reads
            fwd = runner.kernels["tilec"][KERNEL]
            fwd[(seq // 128, bh)](self.q, self.k, self.v, self.out, self.lse, self.scale, seq,
                                  HEAD_DIM=d, BLOCK_M=128, BLOCK_N=64, CAUSAL=causal,
                                  num_warps=8, num_stages=2)

    def clear(self) -> None:
        """NaN in the arrays the next launches write (the SDPA backward returns its own)."""
        self.results = [self.out] if self.which == "fwd" else self.grads
        for x in self.results:
            x.fill_(float("nan"))

    def check(self) -> tuple[bool, float]:
        correct, worst = True, 0.0
        for got, want in zip(self.results, self.expected):
            diff = (got.float() - want).abs()
            correct &= bool((diff <= TOL + TOL * want.abs()).all().item())
            worst = max(worst, float(diff.max().item()))
        return correct, worst

    def sdpa(self) -> dict:
        """SDPA's flash and cuDNN back ends: the forward, or the backward of its output."""
        torch = self.torch
        F = torch.nn.functional
        found = {}
        for name, backend in (("flash", "FLASH_ATTENTION"), ("cudnn", "CUDNN_ATTENTION")):
            chosen = getattr(torch.nn.attention.SDPBackend, backend)
            if self.which == "fwd":
                def run(chosen=chosen):
                    with torch.nn.attention.sdpa_kernel(chosen):
                        # SDPA takes [batch, heads, seq, d]: one batch of bh heads
                        self.out.copy_(F.scaled_dot_product_attention(
                            self.q[None], self.k[None], self.v[None], is_causal=self.causal,
                            scale=self.scale)[0])
                found[name] = run
                continue
            inputs = [x.detach().clone().requires_grad_() for x in (self.q, self.k, self.v)]
            with torch.nn.attention.sdpa_kernel(chosen):
                out = F.scaled_dot_product_attention(
                    *(x[None] for x in inputs), is_causal=self.causal, scale=self.scale)[0]

            def run(out=out, inputs=inputs):
                self.results = list(torch.autograd.grad(out, inputs, self.do,
                                                        retain_graph=True))
            found[name] = run
        return found

    def launcher(self, kernels: dict, config: Config, descriptor=None):
        """The launches of one framework's kernels in `config` (the forward through that
        framework's `descriptor` class when given); returns their handles."""
        d, seq, bh, causal = self.d, self.seq, self.bh, self.causal
        q, k, v = self.q, self.k, self.v
        options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
        if config.num_ctas > 1:
            options["num_ctas"] = config.num_ctas
        if descriptor is not None:
            fwd = kernels[DESCRIPTOR_KERNEL]

            def desc(x, rows):
                return descriptor.from_tensor(x.view(bh * seq, d), [rows, d])
            descs = (desc(q, config.block_m), desc(k, config.block_n), desc(v, config.block_n),
                     desc(self.out, config.block_m))
            return lambda: [fwd[(seq // config.block_m, bh)](
                *descs, self.lse, self.scale, seq, HEAD_DIM=d,
                BLOCK_M=config.block_m, BLOCK_N=config.block_n, CAUSAL=causal,
                WARP_SPECIALIZE=config.warp_specialize, **options)]
        if self.which == "fwd":
            fwd = kernels[KERNEL]
            return lambda: [fwd[(seq // config.block_m, bh)](
                q, k, v, self.out, self.lse, self.scale, seq, HEAD_DIM=d,
                BLOCK_M=config.block_m, BLOCK_N=config.block_n, CAUSAL=causal, **options)]
        delta_kernel, dkdv, dq = (kernels[name] for name in BWD_KERNELS)
        block = config.block_m
        grid = (seq // block, bh)
        dq_out, dk_out, dv_out = self.grads

        def launch():
            meta = {"HEAD_DIM": d, "BLOCK_M": block}
            handles = [delta_kernel[grid](self.out, self.do, self.delta, seq, **meta)]
            meta.update(BLOCK_N=block, CAUSAL=causal)
            handles.append(dkdv[grid](q, k, v, self.do, self.lse, self.delta, dk_out, dv_out,
                                      self.scale, seq, **meta, **options))
            handles.append(dq[grid](q, k, v, self.do, self.lse, self.delta, dq_out, self.scale,
                                    seq, **meta, **options))
            return handles
        return launch


def best(entries: list[dict]) -> dict | None:
    ran = [e for e in entries if e.get("ms") is not None and e.get("correct")]
    return min(ran, key=lambda e: e["ms"]) if ran else None


def draw(rows: list[dict]):
    def figure(plt):
        fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.5))
        labels = [f"{r['pass']} {r['label']}" for r in rows]
        ys = list(range(len(rows)))
        for i, fw in enumerate(("cudnn", "flash", "triton", "tilec")):
            ax.barh([y + (i - 1.5) * 0.2 for y in ys],
                    [r["tflops"].get(fw) or 0 for r in rows], height=0.2, label=fw)
        ax.set_yticks(ys)
        ax.set_yticklabels(labels)
        ax.set_xlabel("TFLOP/s")
        ax.set_title("attention forward and backward, fp16")
        ax.legend(loc="lower right")
        ax.grid(True, axis="x", alpha=0.3)
        return fig
    return figure


def parse_passes(text: str) -> tuple[str, ...]:
    found = tuple(p.strip() for p in text.split(",") if p.strip())
    unknown = [p for p in found if p not in PASSES]
    if unknown or not found:
        raise argparse.ArgumentTypeError(f"--passes takes fwd and/or bwd, not {text!r}")
    return found


def main(argv=None) -> int:
    parser = common.make_parser(__doc__)
    parser.add_argument("--cases", type=parse_cases, default=DEFAULT_CASES)
    parser.add_argument("--causal", choices=("both", "yes", "no"), default="both")
    parser.add_argument("--passes", type=parse_passes, default=PASSES)
    parser.add_argument("--configs", type=parse_configs, default=CONFIGS)
    parser.add_argument("--bwd-configs", type=parse_configs, default=BWD_CONFIGS)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--cooldown", type=float, default=0.5)
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--kernel", choices=("pointers", "descriptors"), default="pointers")
    args = parser.parse_args(argv)
    if args.kernel == "descriptors":
        if "bwd" in args.passes:
            if "--passes" in (argv if argv is not None else sys.argv):
                parser.error("--kernel descriptors times the forward only (--passes fwd)")
            args.passes = ("fwd",)
        if args.configs is CONFIGS:
            args.configs = DESCRIPTOR_CONFIGS
    if args.dry_run:
        print("attention: --dry-run is not supported; it needs a GPU")
        return 2
    if any(c.block_m != c.block_n for c in args.bwd_configs):
        parser.error("--bwd-configs: the backward takes BLOCK_M = BLOCK_N (e.g. 64x64:w4:s2)")
    runner = Runner(args)
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    rows, tables, wrong, spilled = [], {p: [] for p in args.passes}, [], []
    for which in args.passes:
        configs = args.configs if which == "fwd" else args.bwd_configs
        for d, seq, bh in args.cases:
            for causal in causals:
                name = label(d, seq, bh, causal)
                print(f"{which} {name}:")
                case = Case(runner, which, d, seq, bh, causal)
                found = runner.measure(case, configs)
                del case
                row = {"pass": which, "head_dim": d, "seq_len": seq, "batch_heads": bh,
                       "causal": causal, "label": name,
                       "flops": flops(d, seq, bh, causal) * (
                           BACKWARD_WORK if which == "bwd" else 1), "results": found}
                tf = {}
                for fw in ("flash", "cudnn"):
                    e = found[fw]
                    tf[fw] = row["flops"] / e["ms"] / 1e9 \
                        if e.get("ms") and e.get("correct") else None
                    if e.get("correct") is False:
                        wrong.append(f"SDPA {fw} {which} at {name}")
                for fw in ("tilec", "triton"):
                    if fw not in found:
                        tf[fw], row[f"{fw}_best"] = None, None
                        continue
                    b = best(found[fw]["configs"])
                    tf[fw] = row["flops"] / b["ms"] / 1e9 if b else None
                    row[f"{fw}_best"] = b["label"] if b else None
                    wrong += [f"{fw} {which} {e['label']} at {name}"
                              for e in found[fw]["configs"] if e.get("correct") is False]
                spilled += [f"{k['name']} {e['label']} at {name}"
                            for e in found["tilec"]["configs"] for k in e.get("kernels", [])
                            if k.get("spill_stores")]
                row["tflops"] = tf
                row["ratio_tilec_triton"] = common.ratio(tf["tilec"], tf.get("triton"))
                row["ratio_tilec_cudnn"] = common.ratio(tf["tilec"], tf.get("cudnn"))
                rows.append(row)
                tables[which].append(
                    [name] + [common.fmt(tf.get(fw), ".1f") for fw in
                              ("cudnn", "flash", "triton")]
                    + [row.get("triton_best") or "-", common.fmt(tf["tilec"], ".1f"),
                       row.get("tilec_best") or "-",
                       common.fmt_ratio(row["ratio_tilec_triton"]),
                       common.fmt_ratio(row["ratio_tilec_cudnn"])])
    for which, table in tables.items():
        common.print_table(f"attention {'forward' if which == 'fwd' else 'backward'} fp16, "
                           "TFLOP/s (higher is better)",
                           ["case", "cuDNN", "flash", "Triton", "Triton config", "tilec",
                            "tilec config", "tilec/Triton", "tilec/cuDNN"], table)
    met = {}
    for which in args.passes:
        ratios = [r["ratio_tilec_triton"] for r in rows if r["pass"] == which]
        met[which] = None if any(x is None for x in ratios) else all(x >= TARGET for x in ratios)
        print(f"target ({which}): tilec >= {TARGET}x Triton in every case: "
              + ("not all measured" if met[which] is None else
                 "MET" if met[which] else "MISSED")
              + (f" (min {min(x for x in ratios if x is not None):.3f})"
                 if any(x is not None for x in ratios) else ""))
    for note in runner.notes:
        print(f"note: {note}")
    env = common.environment(runner.modules, gpu=runner.gpu)
    for row in rows:
        for fw in ("tilec", "triton"):
            for e in (row["results"].get(fw) or {}).get("configs", []):
                e.pop("times_ms", None)
    return common.finish(args.out, "attention", {
        "benchmark": "attention", "environment": env,
        "config": {"kernels": "tutorials/06-fused-attention.py: " + (
                       DESCRIPTOR_KERNEL if args.kernel == "descriptors" else
                       f"{KERNEL}, {', '.join(BWD_KERNELS)}"), "dtype": "float16",
                   "configs": [c.label for c in args.configs],
                   "bwd_configs": [c.label for c in args.bwd_configs], "warmup": args.warmup,
                   "repeats": args.repeats, "cooldown_s": args.cooldown,
                   "check": f"|x - ref| <= {TOL} + {TOL} |ref|, ref = SDPA math in fp32",
                   "tflops": "4 * batch_heads * seq^2 * d / median time (/2 causal), "
                             f"x {BACKWARD_WORK} for the backward"},
        "results": rows, "target": {"min_ratio": TARGET, "met": met},
        "mismatches": wrong, "tilec_spilled": spilled}, draw(rows),
        [("MISMATCH: ", "; ".join(wrong)), ("SPILLED: ", "; ".join(spilled))])


if __name__ == "__main__":
    sys.exit(main())
