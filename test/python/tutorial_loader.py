"""The tutorials as modules (their file names start with digits, so they cannot be imported)."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tutorial(name: str):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"),
                                                  ROOT / "tutorials" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
