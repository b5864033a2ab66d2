"""A short fixed-seed run of the fuzzer (fuzz.py): 300 mutated IR inputs through tilec-opt and
60 random kernels through the compiler and the interpreter, on 2 worker processes; no input may
crash, hang, raise a traceback or exit with tilec-opt's internal error. The long runs are
`python test/fuzz/fuzz.py --inputs 100000 --kernels 2000 --seed S --jobs 2`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz  # noqa: E402

SEED = 20261204


def test_short_fuzz_run_has_no_failures(tmp_path):
    summary = fuzz.run(n_ir=300, n_kernels=60, seed=SEED, jobs=2, out_dir=str(tmp_path),
                       timeout=30.0, verbose=False)
    report = fuzz.format_summary(summary)
    assert summary.ran["ir"] == 300 and summary.ran["kernel"] == 60, report
    assert not summary.failures, report
