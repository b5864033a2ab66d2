"""`tilec`: the command-line driver.

    tilec compile FILE.py:KERNEL --signature '*fp32,*fp32,i32' --constexpr BLOCK=1024 \
        --target sm_90a --emit tile,ptx,cubin -o DIR
    tilec cache list|show KEY|size|clear
    tilec cache remote status|list|clear

`compile` compiles a kernel ahead of time (no GPU needed) and prints the requested text stages,
or writes them to `-o DIR` (KERNEL.STAGE.mlir, KERNEL.ptx, KERNEL.cubin) with
KERNEL.metadata.json, which `tilec.load(DIR)` launches (see tilec/aot.py). `--signature` lists
the types of the runtime parameters in order, skipping those fixed with `--constexpr`.
`cache` inspects the kernel disk cache ($TILEC_CACHE_DIR, else ~/.cache/tilec); `cache remote`
the remote level $TILEC_REMOTE_CACHE names (a Redis server): its state, and this compiler's
entries (kernels and autotuning results), which `clear` deletes.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import sys
from pathlib import Path

from tilec import aot, autotune_store, remote_cache
from tilec.cache import KernelCache
from tilec.compiler import STAGE_NAMES, compiler_versions
from tilec.compiler import compile as compile_kernel
from tilec.errors import BackendUnavailable, CompilationError, OutOfResources
from tilec.kernel import jit_function_of


def _constexpr_values(items: list[str]) -> dict:
    values = {}
    for item in items:
        for part in item.split(","):
            if not part.strip():
                continue
            name, eq, text = part.partition("=")
            if not eq:
                raise ValueError(f"--constexpr expects NAME=VALUE, got {part!r}")
            try:
                values[name.strip()] = ast.literal_eval(text.strip())
            except (ValueError, SyntaxError):
                values[name.strip()] = text.strip()  # a bare word is a string
    return values


def load_kernel(spec: str):
    path, sep, name = spec.rpartition(":")
    if not sep or not path:
        raise ValueError(f"expected FILE.py:KERNEL, got {spec!r}")
    module_spec = importlib.util.spec_from_file_location(Path(path).stem.replace("-", "_"), path)
    if module_spec is None:
        raise ValueError(f"cannot load {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, str(Path(path).resolve().parent))
    try:
        module_spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    if not hasattr(module, name):
        raise ValueError(f"{path} defines no kernel named {name!r}")
    return _unwrap(getattr(module, name), f"{path}:{name}")


def _unwrap(kernel, where: str):
    """The JITFunction under @tilec.autotune / @tilec.heuristics (which keep it as `.fn`)."""
    found = jit_function_of(kernel)
    if found is None:
        raise ValueError(f"{where} is not a @tilec.jit kernel")
    return found


def cmd_compile(args) -> int:
    kernel = load_kernel(args.kernel)
    constexprs = _constexpr_values(args.constexpr)
    types = [t.strip() for t in args.signature.split(",") if t.strip()] if args.signature else []
    runtime = [p.name for p in kernel.params if not p.is_constexpr and p.name not in constexprs]
    if len(types) != len(runtime):
        raise ValueError(f"--signature has {len(types)} types but {kernel.__name__} has "
                         f"{len(runtime)} runtime parameters ({', '.join(runtime)})")
    stages = [s.strip() for s in args.emit.split(",") if s.strip()]
    unknown = [s for s in stages if s not in STAGE_NAMES]
    if unknown:
        raise ValueError(f"unknown stage(s) {unknown}; stages: {', '.join(STAGE_NAMES)}")
    last = max(stages, key=STAGE_NAMES.index)
    compiled = compile_kernel(kernel, signature=dict(zip(runtime, types)), constexprs=constexprs,
                             target=aot.target_name(args.target), num_warps=args.num_warps,
                             num_stages=args.num_stages, num_ctas=args.num_ctas,
                             debug=args.debug, enable_fp_fusion=not args.no_fp_fusion,
                             stop_after=last)
    missing = [s for s in stages if s not in compiled.asm]
    if missing:
        raise ValueError(f"stage(s) {missing} are not produced yet; available: "
                         f"{', '.join(compiled.asm)}")
    if args.output:
        metadata = aot.save(kernel, compiled, args.output, stages, source=args.kernel)
        print(f"wrote {', '.join(aot.stage_file(compiled.name, s) for s in stages)} and "
              f"{metadata.name} to {args.output}")
    else:
        if "cubin" in stages:
            raise ValueError("the cubin is binary: write it to a folder with -o DIR")
        sys.stdout.write("\n".join(compiled.asm[s] for s in stages))
    return 0


def human_size(size: int) -> str:
    """1536 -> '1.5 KiB'."""
    if size < 1024:
        return f"{size} B"
    for unit in ("KiB", "MiB", "GiB"):
        size /= 1024
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}"


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def _entry_summary(cache, key: str) -> tuple[str, int]:
    """(kernel name, bytes) of a cache entry, read without verifying it (`show` verifies)."""
    entry = cache.path(key)
    try:
        name = json.loads((entry / "metadata.json").read_text()).get("name", "?")
    except (OSError, ValueError, AttributeError):
        name = "?"
    try:
        size = sum(f.stat().st_size for f in entry.iterdir() if f.is_file())
    except OSError:  # removed meanwhile, or not a directory
        size = 0
    return name, size


def _resolve_key(cache, prefix: str) -> str:
    """The key that `prefix` starts (as git's short hashes)."""
    matches = [k for k in cache.keys() if k.startswith(prefix.lower())]
    if not matches:
        raise ValueError(f"no cache entry {prefix!r} in {cache.root} (see `tilec cache list`)")
    if len(matches) > 1:
        raise ValueError(f"{prefix!r} starts {len(matches)} cache keys: give more digits")
    return matches[0]


def cmd_remote_cache(what: str | None) -> int:
    remote = remote_cache.backend(compiler_versions)
    if remote is None:
        raise ValueError(f"no remote cache: set {remote_cache.ENV}=redis://host:port/db")
    if what not in ("status", "list", "clear"):
        raise ValueError("tilec cache remote needs status, list or clear")
    try:
        if what == "status":
            for field, value in remote.status().items():
                print(f"{field}: {value}")
        elif what == "list":
            entries = remote.keys()
            for kind, key, size in entries:
                print(f"{key}  {human_size(size):>10}  {kind}")
            print(f"{_entries(len(entries))} of this compiler on {remote.shown}", file=sys.stderr)
        else:
            removed = remote.clear()
            print(f"removed {_entries(removed)} of this compiler from {remote.shown}")
    except Exception as err:  # noqa: BLE001  (the server's errors, shown without credentials)
        message = remote_cache._scrubbed(f"{type(err).__name__}: {err}", remote.url)
        print(f"tilec: remote cache {remote.shown} unavailable: {message}", file=sys.stderr)
        return 1
    return 0


def cmd_cache(args) -> int:
    if args.action == "remote":
        return cmd_remote_cache(args.key)
    cache = KernelCache()
    if args.action == "list":
        keys = cache.keys()
        for key in keys:
            name, size = _entry_summary(cache, key)
            print(f"{key}  {human_size(size):>10}  {name}")
        print(f"{_entries(len(keys))} in {cache.root}", file=sys.stderr)
    elif args.action == "show":
        if not args.key:
            raise ValueError("tilec cache show needs a KEY (see `tilec cache list`)")
        key = _resolve_key(cache, args.key)
        files = cache.get(key)
        if files is None:
            raise ValueError(f"cache entry {key} was corrupt and has been removed")
        print(f"key: {key}\npath: {cache.path(key)}\nfiles:")
        for name, data in sorted(files.items()):
            print(f"  {name:<16} {human_size(len(data)):>10}")
        print("metadata:")
        metadata = json.loads(files["metadata.json"]) if "metadata.json" in files else {}
        for field, value in metadata.items():
            print(f"  {field}: {value}")
    elif args.action == "size":
        print(f"{human_size(cache.size())} in {_entries(len(cache.keys()))} ({cache.root})")
    else:  # clear
        removed = [(key, *_entry_summary(cache, key)) for key in cache.keys()]
        size = cache.size()
        cache.clear()
        for key, name, _ in removed:
            print(f"removed {key}  {name}")
        print(f"removed {_entries(len(removed))}, {human_size(size)}, from {cache.root}")
        tunings = autotune_store.clear()  # tunings name configs of kernels no longer cached
        if tunings:
            print(f"removed {tunings} autotuning result{'s' if tunings != 1 else ''}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tilec", description="tilec command-line driver")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compile", help="compile a kernel ahead of time")
    p.add_argument("kernel", help="FILE.py:KERNEL")
    p.add_argument("--signature", default="", help="types of the runtime parameters, in order")
    p.add_argument("--constexpr", action="append", default=[], help="NAME=VALUE[,NAME=VALUE]")
    p.add_argument("--emit", default="tile", help="stages to output, comma-separated")
    p.add_argument("--target", default="cuda:90", help="sm_90a, sm_90 or cuda:90")
    p.add_argument("--num-warps", type=int, default=4)
    p.add_argument("--num-stages", type=int, default=3)
    p.add_argument("--num-ctas", type=int, default=1,
                   help="CTAs per program: above 1, each program is a thread block cluster")
    p.add_argument("--debug", action="store_true", help="keep device_assert checks")
    p.add_argument("--no-fp-fusion", action="store_true",
                   help="round every float multiply and add on its own (no fma contraction)")
    p.add_argument("-o", "--output",
                   help="write the stages and KERNEL.metadata.json (for tilec.load) here")
    p.set_defaults(run=cmd_compile)
    p = sub.add_parser("cache", help="inspect or clear the kernel disk cache ($TILEC_CACHE_DIR)")
    p.add_argument("action", choices=["list", "show", "size", "clear", "remote"])
    p.add_argument("key", nargs="?", help="for show: a key, or the start of one; for remote: "
                                          "status, list or clear")
    p.set_defaults(run=cmd_cache)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CompilationError as err:
        print(err.format(), file=sys.stderr)
        return 1
    except (ValueError, TypeError, OSError, OutOfResources, BackendUnavailable) as err:
        print(f"tilec: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
