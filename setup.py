"""Packaging that pyproject.toml cannot say: the packages of the four source folders, and the
optional C extension of the launch path (no C compiler at install: tilec launches through its
pure-Python path instead, see python/tilec/runtime.py)."""
from setuptools import Extension, find_packages, setup

FOLDERS = {"tilec.dialects": "dialects", "tilec.passes": "passes", "tilec.tools": "tools"}

setup(
    packages=find_packages("python") + list(FOLDERS),
    package_dir={"": "python", **FOLDERS},
    ext_modules=[Extension("tilec._launch", ["python/tilec/_launch.c"], optional=True,
                           extra_compile_args=["-O2"])],
)
