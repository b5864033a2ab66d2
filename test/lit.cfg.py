# lit configuration for tilec's FileCheck suite: `lit test/` (needs `tilec-opt` and `filecheck`
# on PATH, as `pip install -e .[test]` puts them).
import os
import shutil

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["python", "lit.cfg.py"]
config.environment["PATH"] = os.environ.get("PATH", "")
for var in ("PYTHONPATH", "HOME", "TILEC_TRACEBACK"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

for tool in ("tilec-opt", "filecheck"):
    if shutil.which(tool) is None:
        lit_config.fatal(f"'{tool}' is not on PATH: run `pip install -e .[test]` first")

from tilec.toolchain import find_libdevice  # noqa: E402

config.substitutions.append(("%libdevice", find_libdevice()))
