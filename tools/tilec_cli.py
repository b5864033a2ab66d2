"""`tilec`: the command-line driver.

    tilec compile FILE.py:KERNEL --signature '*fp32,*fp32,i32' --constexpr BLOCK=1024 --emit tile

compiles a kernel ahead of time (no GPU needed) and prints the requested stages, or writes them
to `-o DIR` as KERNEL.STAGE.mlir. `--signature` lists the types of the runtime parameters in
order, skipping those fixed with `--constexpr`.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from pathlib import Path

from tilec.errors import CompilationError


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
    return getattr(module, name)


def cmd_compile(args) -> int:
    import tilec
    kernel = load_kernel(args.kernel)
    constexprs = _constexpr_values(args.constexpr)
    types = [t.strip() for t in args.signature.split(",") if t.strip()] if args.signature else []
    runtime = [p.name for p in kernel.params if not p.is_constexpr and p.name not in constexprs]
    if len(types) != len(runtime):
        raise ValueError(f"--signature has {len(types)} types but {kernel.__name__} has "
                         f"{len(runtime)} runtime parameters ({', '.join(runtime)})")
    stages = [s.strip() for s in args.emit.split(",") if s.strip()]
    unknown = [s for s in stages if s not in tilec.compiler.STAGES]
    if unknown:
        raise ValueError(f"unknown stage(s) {unknown}; stages: {', '.join(tilec.compiler.STAGES)}")
    last = max(stages, key=tilec.compiler.STAGES.index)
    compiled = tilec.compile(kernel, signature=dict(zip(runtime, types)), constexprs=constexprs,
                             target=args.target, num_warps=args.num_warps,
                             num_stages=args.num_stages, debug=args.debug, stop_after=last)
    missing = [s for s in stages if s not in compiled.asm]
    if missing:
        raise ValueError(f"stage(s) {missing} are not produced yet; available: "
                         f"{', '.join(compiled.asm)}")
    if args.output:
        out = Path(args.output)
        out.mkdir(parents=True, exist_ok=True)
        for stage in stages:
            name = {"ptx": "ptx", "cubin": "cubin"}.get(stage, f"{stage}.mlir")
            data = compiled.asm[stage]
            (out / f"{compiled.name}.{name}").write_bytes(
                data if isinstance(data, bytes) else data.encode())
    else:
        if "cubin" in stages:
            raise ValueError("the cubin is binary: write it to a folder with -o DIR")
        sys.stdout.write("\n".join(compiled.asm[s] for s in stages))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tilec", description="tilec command-line driver")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compile", help="compile a kernel ahead of time")
    p.add_argument("kernel", help="FILE.py:KERNEL")
    p.add_argument("--signature", default="", help="types of the runtime parameters, in order")
    p.add_argument("--constexpr", action="append", default=[], help="NAME=VALUE[,NAME=VALUE]")
    p.add_argument("--emit", default="tile", help="stages to output, comma-separated")
    p.add_argument("--target", default="cuda:90")
    p.add_argument("--num-warps", type=int, default=4)
    p.add_argument("--num-stages", type=int, default=3)
    p.add_argument("--debug", action="store_true", help="keep device_assert checks")
    p.add_argument("-o", "--output", help="write KERNEL.STAGE.mlir files to this folder")
    args = parser.parse_args(argv)
    try:
        return cmd_compile(args)
    except CompilationError as err:
        print(err.format(), file=sys.stderr)
        return 1
    except (ValueError, TypeError) as err:
        print(f"tilec: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
