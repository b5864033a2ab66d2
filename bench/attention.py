"""Flash-attention forward, fp16: tilec beside Triton and PyTorch's SDPA back ends, in one process.

    python bench/attention.py [--out DIR] [--cases 64:4096:32,128:16384:8] [--causal both|yes|no]
                              [--configs 128x64:w8:s2,...] [--warmup 5] [--repeats 20]
                              [--cooldown 0.5] [--no-triton]

Each case is HEAD_DIM:SEQ_LEN:BATCH_HEADS (default d = 64 and 128 at 1k, 4k and 16k tokens, the
batch times heads chosen so each case does about the same work), causal and not. The same kernel
source (tutorials/06-fused-attention.py's attention_fwd: Q's block kept, a loop over K/V blocks,
the online softmax with tl.exp2, P @ V chained from registers; the file is run with each
framework's `tl` and `jit` bound) runs through tilec and Triton over a small sweep of
(BLOCK_M x BLOCK_N, num_warps, num_stages), and torch.nn.functional.scaled_dot_product_attention
runs with its flash and cuDNN back ends. Inputs are standard normal fp16 [batch*heads, seq, d]
(seeded); every result is checked once against SDPA's math back end in fp32 on the same inputs
(|out - ref| <= 2e-2 + 2e-2 |ref|), then timed with CUDA events (median over --repeats after
--warmup, the L2 flushed before each run, --cooldown seconds idle before each config).
TFLOP/s = 4 * batch_heads * seq^2 * d / time, halved for causal attention.

Targets (issue 15, H200): tilec >= 1.0x Triton in every case; no tilec config spills.
Writes attention.json and attention.png into --out; exits 1 when a result is wrong or a tilec
kernel spilled (after writing the report), 2 without a GPU or torch. This is the forward pass
only: the backward of issue 15 is not benchmarked yet.
"""
from __future__ import annotations

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

    @property
    def label(self) -> str:
        return f"{self.block_m}x{self.block_n} w{self.num_warps} s{self.num_stages}"


CONFIGS = [Config(128, 64, 8, 2), Config(128, 128, 8, 2), Config(128, 64, 4, 2)]


def parse_cases(text: str) -> list[tuple[int, int, int]]:
    return common.parse_int_tuples(text, r"(\d+):(\d+):(\d+)", "--cases",
                                   "HEAD_DIM:SEQ_LEN:BATCH_HEADS")


def parse_configs(text: str) -> list[Config]:
    return [Config(*found) for found in common.parse_int_tuples(
        text, r"(\d+)x(\d+):w(\d+):s(\d+)", "--configs", "BMxBN:wW:sS (e.g. 128x64:w8:s2)")]


def flops(d: int, seq: int, bh: int, causal: bool) -> float:
    return 4.0 * bh * seq * seq * d / (2 if causal else 1)


def label(d, seq, bh, causal) -> str:
    return f"d{d} n{seq} bh{bh}{' causal' if causal else ''}"


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
        self.kernels = {"tilec": common.load_kernels(tilec_tl, tilec.jit, "tilec",
                                                     KERNEL_FILE)[KERNEL]}
        triton = None if args.no_triton else common.importable("triton")
        self.modules["triton"] = triton
        if triton is not None:
            import triton.language as triton_tl
            self.kernels["triton"] = common.load_kernels(triton_tl, triton.jit, "triton",
                                                         KERNEL_FILE)[KERNEL]
        else:
            self.notes.append("Triton skipped")

    def timed(self, fn, out, expected) -> dict:
        torch, gpu = self.torch, self.gpu
        entry = {}
        try:
            out.fill_(float("nan"))
            gpu.synchronize()
            start = time.perf_counter()
            returned = fn()
            gpu.synchronize()
            entry["first_call_s"] = time.perf_counter() - start
            diff = (out.float() - expected).abs()
            entry["correct"] = bool((diff <= TOL + TOL * expected.abs()).all().item())
            entry["max_abs_err"] = float(diff.max().item())
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

    def measure(self, d, seq, bh, causal, configs) -> dict:
        torch = self.torch
        F = torch.nn.functional
        gen = torch.Generator(device="cuda").manual_seed(d * 7919 + seq + bh)
        q, k, v = (torch.randn(bh, seq, d, device="cuda", dtype=torch.float16, generator=gen)
                   for _ in range(3))
        out = torch.empty_like(q)
        lse = torch.empty(bh, seq, device="cuda", dtype=torch.float32)  # the backward's M
        scale = d ** -0.5
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
            expected = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                      is_causal=causal, scale=scale)
        found = {}
        for name, backend in (("flash", "FLASH_ATTENTION"), ("cudnn", "CUDNN_ATTENTION")):
            chosen = getattr(torch.nn.attention.SDPBackend, backend)

            def sdpa(chosen=chosen):
                with torch.nn.attention.sdpa_kernel(chosen):
                    # SDPA takes [batch, heads, seq, d]: one batch of bh heads
                    out.copy_(F.scaled_dot_product_attention(
                        q[None], k[None], v[None], is_causal=causal, scale=scale)[0])
            found[name] = self.timed(sdpa, out, expected)
            found[name].pop("returned", None)
        for name, kernel in self.kernels.items():
            entries = []
            for config in configs:
                grid = (seq // config.block_m, bh)

                def launch(config=config, grid=grid, kernel=kernel):
                    return kernel[grid](q, k, v, out, lse, scale, seq, HEAD_DIM=d,
                                        BLOCK_M=config.block_m, BLOCK_N=config.block_n,
                                        CAUSAL=causal, num_warps=config.num_warps,
                                        num_stages=config.num_stages)
                entry = {"label": config.label, **self.timed(launch, out, expected)}
                handle = entry.pop("returned", None)
                if handle is not None:
                    entry["kernel"] = ({k: handle.metadata.get(k) for k in
                                        ("registers", "spill_stores", "shared")}
                                       if name == "tilec" else common.triton_kernel_info(handle))
                entries.append(entry)
                print(f"  {name:>6} {config.label:<16} " + (
                    f"{entry['ms'] and flops(d, seq, bh, causal) / entry['ms'] / 1e9:.1f} TFLOP/s"
                    + ("" if entry.get("correct") else "  MISMATCH")
                    if "error" not in entry else f"FAILED: {entry['error'][:200]}"))
            found[name] = {"configs": entries}
        return found


def best(entries: list[dict]) -> dict | None:
    ran = [e for e in entries if e.get("ms") is not None and e.get("correct")]
    return min(ran, key=lambda e: e["ms"]) if ran else None


def draw(rows: list[dict]):
    def figure(plt):
        fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.5))
        labels = [r["label"] for r in rows]
        ys = list(range(len(rows)))
        for i, fw in enumerate(("cudnn", "flash", "triton", "tilec")):
            ax.barh([y + (i - 1.5) * 0.2 for y in ys],
                    [r["tflops"].get(fw) or 0 for r in rows], height=0.2, label=fw)
        ax.set_yticks(ys)
        ax.set_yticklabels(labels)
        ax.set_xlabel("TFLOP/s")
        ax.set_title("attention forward, fp16")
        ax.legend(loc="lower right")
        ax.grid(True, axis="x", alpha=0.3)
        return fig
    return figure


def main(argv=None) -> int:
    parser = common.make_parser(__doc__)
    parser.add_argument("--cases", type=parse_cases, default=DEFAULT_CASES)
    parser.add_argument("--causal", choices=("both", "yes", "no"), default="both")
    parser.add_argument("--configs", type=parse_configs, default=CONFIGS)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--cooldown", type=float, default=0.5)
    parser.add_argument("--no-triton", action="store_true")
    args = parser.parse_args(argv)
    if args.dry_run:
        print("attention: --dry-run is not supported; it needs a GPU")
        return 2
    runner = Runner(args)
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    rows, table, wrong, spilled = [], [], [], []
    for d, seq, bh in args.cases:
        for causal in causals:
            name = label(d, seq, bh, causal)
            print(f"{name}:")
            found = runner.measure(d, seq, bh, causal, args.configs)
            work = flops(d, seq, bh, causal)
            row = {"head_dim": d, "seq_len": seq, "batch_heads": bh, "causal": causal,
                   "label": name, "flops": work, "results": found}
            tf = {}
            for fw in ("flash", "cudnn"):
                e = found[fw]
                tf[fw] = work / e["ms"] / 1e9 if e.get("ms") and e.get("correct") else None
                if e.get("correct") is False:
                    wrong.append(f"SDPA {fw} at {name}")
            for fw in ("tilec", "triton"):
                if fw not in found:
                    tf[fw], row[f"{fw}_best"] = None, None
                    continue
                b = best(found[fw]["configs"])
                tf[fw] = work / b["ms"] / 1e9 if b else None
                row[f"{fw}_best"] = b["label"] if b else None
                wrong += [f"{fw} {e['label']} at {name}" for e in found[fw]["configs"]
                          if e.get("correct") is False]
            spilled += [f"{e['label']} at {name}" for e in found["tilec"]["configs"]
                        if (e.get("kernel") or {}).get("spill_stores")]
            row["tflops"] = tf
            row["ratio_tilec_triton"] = common.ratio(tf["tilec"], tf.get("triton"))
            rows.append(row)
            table.append([name] + [common.fmt(tf.get(fw), ".1f") for fw in
                                   ("cudnn", "flash", "triton")]
                         + [row.get("triton_best") or "-", common.fmt(tf["tilec"], ".1f"),
                            row.get("tilec_best") or "-",
                            common.fmt_ratio(row["ratio_tilec_triton"])])
    common.print_table("attention forward fp16, TFLOP/s (higher is better)",
                       ["case", "cuDNN", "flash", "Triton", "Triton config", "tilec",
                        "tilec config", "tilec/Triton"], table)
    ratios = [r["ratio_tilec_triton"] for r in rows]
    met = None if any(x is None for x in ratios) else all(x >= TARGET for x in ratios)
    print(f"target: tilec >= {TARGET}x Triton in every case: "
          + ("not all measured" if met is None else "MET" if met else "MISSED")
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
        "benchmark": "attention_forward", "environment": env,
        "config": {"kernel": f"tutorials/06-fused-attention.py:{KERNEL}", "dtype": "float16",
                   "configs": [c.label for c in args.configs], "warmup": args.warmup,
                   "repeats": args.repeats, "cooldown_s": args.cooldown,
                   "check": f"|out - ref| <= {TOL} + {TOL} |ref|, ref = SDPA math in fp32",
                   "tflops": "4 * batch_heads * seq^2 * d / median time (/2 causal)"},
        "results": rows, "target": {"min_ratio": TARGET, "met": met},
        "mismatches": wrong, "tilec_spilled": spilled}, draw(rows),
        [("MISMATCH: ", "; ".join(wrong)), ("SPILLED: ", "; ".join(spilled))])


if __name__ == "__main__":
    sys.exit(main())
