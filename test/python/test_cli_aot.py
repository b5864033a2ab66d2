"""The `tilec` driver: `tilec compile -o DIR` output, `tilec.load(DIR)`, `tilec cache ...`.

Compiling needs no GPU; the tests marked `gpu` launch what was compiled."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.compiler
from tilec.tools.tilec_cli import main

ROOT = Path(__file__).resolve().parents[2]
VECTOR_ADD = f"{ROOT / 'tutorials' / '01-vector-add.py'}:add_kernel"
SIGNATURE = "*fp32:16,*fp32:16,*fp32:16,i32"
STAGES = ("tile", "tilegpu", "llvm", "ptx", "cubin")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Every test gets an empty kernel cache of its own (the CLI honours TILEC_CACHE_DIR)."""
    path = tmp_path_factory.mktemp("kernel-cache")
    monkeypatch.setenv("TILEC_CACHE_DIR", str(path))
    return path


def compile_vector_add(out: Path, *extra: str, emit: str = ",".join(STAGES)) -> int:
    return main(["compile", VECTOR_ADD, "--signature", SIGNATURE, "--constexpr",
                 "BLOCK_SIZE=1024", "--emit", emit, "-o", str(out), *extra])


@pytest.fixture(scope="module")
def aot_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("aot")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("module-cache")))
        assert compile_vector_add(out) == 0
    return out


def tilec_command() -> list[str]:
    script = Path(sys.executable).parent / "tilec"
    if script.exists():
        return [str(script)]
    found = shutil.which("tilec")
    return [found] if found else [sys.executable, "-m", "tilec.tools.tilec_cli"]


# --- tilec compile -------------------------------------------------------------------------------

def test_console_script_writes_every_stage_and_the_metadata(tmp_path, private_cache):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # no GPU needed
    result = subprocess.run([*tilec_command(), "compile", VECTOR_ADD, "--signature", SIGNATURE,
                             "--constexpr", "BLOCK_SIZE=1024", "--num-warps", "4",
                             "--num-stages", "3", "--target", "sm_90a", "--emit",
                             ",".join(STAGES), "-o", str(tmp_path)],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    names = {"tile": "add_kernel.tile.mlir", "tilegpu": "add_kernel.tilegpu.mlir",
             "llvm": "add_kernel.llvm.mlir", "ptx": "add_kernel.ptx",
             "cubin": "add_kernel.cubin"}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*names.values(), "add_kernel.metadata.json"])
    assert "tile.kernel" in (tmp_path / names["tile"]).read_text()
    assert "#tilegpu.blocked" in (tmp_path / names["tilegpu"]).read_text()
    assert "gpu.module" in (tmp_path / names["llvm"]).read_text()
    assert ".target sm_90a" in (tmp_path / names["ptx"]).read_text()
    assert (tmp_path / names["cubin"]).read_bytes().startswith(b"\x7fELF")

    metadata = json.loads((tmp_path / "add_kernel.metadata.json").read_text())
    assert metadata["name"] == "add_kernel"
    assert metadata["files"] == names
    assert metadata["params"] == [
        {"name": "x_ptr", "type": "*fp32", "divisible_by_16": True},
        {"name": "y_ptr", "type": "*fp32", "divisible_by_16": True},
        {"name": "output_ptr", "type": "*fp32", "divisible_by_16": True},
        {"name": "n_elements", "type": "i32", "divisible_by_16": False}]
    assert metadata["constexprs"] == {"BLOCK_SIZE": 1024}
    assert (metadata["num_warps"], metadata["num_stages"]) == (4, 3)
    assert (metadata["target"], metadata["arch"]) == ("cuda:90", "sm_90a")
    assert metadata["tilec_version"] == tilec.__version__
    for field in ("shared", "registers", "spill_stores", "spill_loads"):
        assert isinstance(metadata[field], int)
    assert metadata["registers"] > 0
    # The compile went through the kernel cache under the key the metadata names.
    assert (private_cache / metadata["cache_key"][:2] / metadata["cache_key"]).is_dir()


@pytest.mark.parametrize("target", ["sm_90a", "sm_90", "cuda:90"])
def test_target_spellings(target, tmp_path):
    assert compile_vector_add(tmp_path, "--target", target, emit="tile") == 0
    metadata = json.loads((tmp_path / "add_kernel.metadata.json").read_text())
    assert (metadata["target"], metadata["arch"]) == ("cuda:90", "sm_90a")


@pytest.mark.parametrize("flags, fused", [((), True), (("--no-fp-fusion",), False)])
def test_fp_fusion_is_on_unless_turned_off(flags, fused, tmp_path):
    assert compile_vector_add(tmp_path, *flags, emit="llvm") == 0
    metadata = json.loads((tmp_path / "add_kernel.metadata.json").read_text())
    assert metadata["enable_fp_fusion"] is fused
    assert ("fastmath<contract>" in (tmp_path / "add_kernel.llvm.mlir").read_text()) is fused


def test_bad_target_is_a_clear_error(tmp_path, capsys):
    assert compile_vector_add(tmp_path, "--target", "sm_x", emit="tile") == 1
    assert "sm_90a" in capsys.readouterr().err


def test_autotune_and_heuristics_wrappers_are_unwrapped(tmp_path):
    source = tmp_path / "wrapped.py"
    source.write_text(
        "import tilec\nimport tilec.language as tl\n\n\n"
        "class Wrapper:  # as @tilec.autotune / @tilec.heuristics: the kernel is .fn\n"
        "    def __init__(self, fn):\n        self.fn = fn\n\n\n"
        "@Wrapper\n@Wrapper\n@tilec.jit\n"
        "def scale(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)\n")
    out = tmp_path / "out"
    assert main(["compile", f"{source}:scale", "--signature", "*fp32,i32", "--constexpr",
                 "BLOCK=128", "--emit", "tile", "-o", str(out)]) == 0
    assert "tile.kernel" in (out / "scale.tile.mlir").read_text()


# --- tilec.load ----------------------------------------------------------------------------------

def forbid_compiling(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("tilec.load must not compile")
    for name in ("compile", "compile_specialized", "run_pipeline", "assemble",
                 "generate_tile_ir"):
        monkeypatch.setattr(tilec.compiler, name, refuse)
    monkeypatch.setattr(tilec, "compile", refuse)


def test_load_builds_the_kernel_without_compiling(aot_dir, monkeypatch):
    forbid_compiling(monkeypatch)
    kernel = tilec.load(aot_dir)
    assert kernel.name == "add_kernel"
    assert [p.name for p in kernel.params] == ["x_ptr", "y_ptr", "output_ptr", "n_elements"]
    assert [p.type.codegen_name() for p in kernel.params] == ["*fp32"] * 3 + ["i32"]
    assert kernel.constexprs == {"BLOCK_SIZE": 1024}
    assert isinstance(kernel.compiled, tilec.CompiledKernel)
    assert kernel.asm["cubin"] == (aot_dir / "add_kernel.cubin").read_bytes()
    assert "tile.kernel" in kernel.asm["tile"]
    launcher = kernel.launcher  # the jit kernels' launcher, built from the files
    assert launcher.block == 128 and launcher.type_names == ["*fp32"] * 3 + ["i32"]
    # The metadata file itself, and a name, load the same kernel.
    assert tilec.load(aot_dir / "add_kernel.metadata.json").name == "add_kernel"
    assert tilec.load(aot_dir, "add_kernel").name == "add_kernel"


def test_a_cluster_kernel_loads_as_one(tmp_path, monkeypatch):
    """--num-ctas 2 compiles programs of 2-CTA clusters; tilec.load gives them back with the
    same options, so its launches make clusters too (twice the CTAs along x)."""
    assert compile_vector_add(tmp_path, "--num-ctas", "2", emit="ptx,cubin") == 0
    assert json.loads((tmp_path / "add_kernel.metadata.json").read_text())["num_ctas"] == 2
    assert ".reqnctapercluster 2, 1, 1" in (tmp_path / "add_kernel.ptx").read_text()
    forbid_compiling(monkeypatch)
    kernel = tilec.load(tmp_path)
    assert kernel.compiled.options.num_ctas == 2 and kernel.launcher.ctas == 2


def test_wrong_arguments_are_clear_errors(aot_dir):
    kernel = tilec.load(aot_dir)
    x = np.zeros(64, np.float32)
    with pytest.raises(TypeError, match=r"takes 4 runtime arguments \(x_ptr, y_ptr, "
                       r"output_ptr, n_elements\), got 2; its constexprs were fixed at compile "
                       r"time \(BLOCK_SIZE=1024\)"):
        kernel[(1,)](x, x)
    with pytest.raises(TypeError, match="got 5"):
        kernel[(1,)](x, x, x, 64, 1024)
    with pytest.raises(TypeError, match="compiled with BLOCK_SIZE=1024, not 512"):
        kernel[(1,)](x, x, x, 64, BLOCK_SIZE=512)
    with pytest.raises(TypeError, match="unknown: m"):
        kernel[(1,)](x, x, x, m=64)
    with pytest.raises(TypeError, match=r"x_ptr was compiled as \*fp32, got an array of float16"):
        kernel[(1,)](x.astype(np.float16), x, x, 64)
    with pytest.raises(ValueError, match=r"y_ptr was compiled as divisible by 16"):
        kernel[(1,)](x, x[1:], x, 63)
    with pytest.raises(RuntimeError, match=r"add_kernel\[grid\]"):
        kernel(x, x, x, 64)
    # Right arguments (a constexpr may be repeated with its compiled value) reach the launcher,
    # which refuses host arrays before touching a GPU.
    with pytest.raises(TypeError, match="in host memory"):
        kernel[(1,)](x, x, output_ptr=x, n_elements=64, BLOCK_SIZE=1024)


def test_missing_cubin_names_the_emit_flag(tmp_path):
    assert compile_vector_add(tmp_path, emit="tile,ptx") == 0
    with pytest.raises(ValueError, match=r"has no cubin for add_kernel \(emitted: tile,ptx\): "
                       r"compile it with `--emit \.\.\.,cubin`"):
        tilec.load(tmp_path)


def test_metadata_checks(aot_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(aot_dir, copy)
    meta_path = copy / "add_kernel.metadata.json"
    metadata = json.loads(meta_path.read_text())

    meta_path.write_text(json.dumps(dict(metadata, tilec_version="0.0.1")))
    with pytest.warns(UserWarning, match="compiled by tilec 0.0.1"):
        assert tilec.load(copy).name == "add_kernel"

    meta_path.write_text(json.dumps(dict(metadata, format=999)))
    with pytest.raises(ValueError, match="AOT format 999.*compile the kernel again"):
        tilec.load(copy)

    meta_path.write_text(json.dumps({k: v for k, v in metadata.items() if k != "params"}))
    with pytest.raises(ValueError, match="is malformed.*params"):
        tilec.load(copy)

    meta_path.write_text(json.dumps(metadata))
    (copy / "add_kernel.cubin").write_bytes(b"\x7fELF stale")
    with pytest.raises(ValueError, match="does not match"):
        tilec.load(copy)

    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="holds no"):
        tilec.load(tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="no such folder"):
        tilec.load(tmp_path / "nowhere")


# --- tilec cache ---------------------------------------------------------------------------------

def test_cache_list_show_size_clear(tmp_path, private_cache, capsys):
    assert main(["cache", "list"]) == 0
    assert "0 entries" in capsys.readouterr().err
    assert compile_vector_add(tmp_path, emit="cubin") == 0
    key = json.loads((tmp_path / "add_kernel.metadata.json").read_text())["cache_key"]
    capsys.readouterr()

    assert main(["cache", "list"]) == 0
    listed = capsys.readouterr()
    assert listed.out.startswith(key) and "add_kernel" in listed.out
    assert "1 entry in" in listed.err and str(private_cache) in listed.err

    assert main(["cache", "show", key[:10]]) == 0
    shown = capsys.readouterr().out
    assert f"key: {key}" in shown and "kernel.cubin" in shown
    assert "name: add_kernel" in shown and "num_warps: 4" in shown and "registers:" in shown

    assert main(["cache", "size"]) == 0
    assert "KiB in 1 entry" in capsys.readouterr().out

    assert main(["cache", "show", "abcdef0123"]) == 1
    assert "no cache entry" in capsys.readouterr().err

    tuning = private_cache / "autotune" / "0123.json"  # as tilec.autotune stores them
    tuning.parent.mkdir(parents=True)
    tuning.write_text("{}")
    assert main(["cache", "clear"]) == 0
    cleared = capsys.readouterr().out
    assert f"removed {key}  add_kernel" in cleared and "removed 1 entry," in cleared
    assert "removed 1 autotuning result" in cleared and not tuning.exists()
    assert tilec.cache.KernelCache().keys() == []
    assert main(["cache", "size"]) == 0
    assert capsys.readouterr().out.startswith("0 B in 0 entries")


def test_human_size():
    from tilec.tools.tilec_cli import human_size
    assert [human_size(n) for n in (0, 1023, 1536, 5 << 20, 3 << 30)] == [
        "0 B", "1023 B", "1.5 KiB", "5.0 MiB", "3.0 GiB"]


# --- on the GPU ----------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", [1000, 98432])
def test_aot_output_launches_on_the_gpu(tmp_path, n):
    cupy = pytest.importorskip("cupy")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # compiled with no GPU in sight
    result = subprocess.run([*tilec_command(), "compile", VECTOR_ADD, "--signature", SIGNATURE,
                             "--constexpr", "BLOCK_SIZE=1024", "--target", "sm_90a",
                             "--emit", "ptx,cubin", "-o", str(tmp_path)],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    kernel = tilec.load(tmp_path)
    rng = np.random.default_rng(0)
    x = cupy.asarray(rng.random(n, dtype=np.float32))
    y = cupy.asarray(rng.random(n, dtype=np.float32))
    out = cupy.zeros_like(x)
    kernel[(tilec.cdiv(n, 1024),)](x, y, out, n)
    cupy.testing.assert_array_equal(out, x + y)
    # A grid function sees the constexprs; the launch goes on the current stream.
    out2 = cupy.zeros_like(x)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        kernel[lambda meta: (tilec.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)](
            x, y, out2, n_elements=n)
    stream.synchronize()
    cupy.testing.assert_array_equal(out2, x + y)
