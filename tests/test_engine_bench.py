"""The benchmark script runs end to end on a tiny corpus (a smoke test: no timings asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

from quizkit.generate import generate_corpus
from tests.conftest import ROOT


def test_benchmark_runs_on_a_tiny_corpus(tmp_path):
    corpus = tmp_path / "corpus"
    generate_corpus(corpus, packages=3, seed=5, broken=0.3)
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_validate.py"), "--corpus", str(corpus),
         "--repeat", "1", "--no-peers", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "targets, on wall-clock figures:" in done.stdout
    figures = json.loads(out.read_text())
    names = [r["name"] for r in figures["runs"]]
    assert names == ["orjson read + parse (floor)", "quizkit's fixed costs (no rules)",
                     "quizkit validate --jobs 1", "quizkit validate --jobs 2"]
    assert "single-core budget: the targets allow" in done.stdout
    runs = {r["name"]: r for r in figures["runs"]}
    # broken documents: quizkit exits 1 (findings) or 3 (unparsable input), never 2 or a crash
    assert set(runs["quizkit validate --jobs 1"]["exit_codes"]) <= {1, 3}
    assert figures["figures"]["startup_s"] > 0
    assert runs["quizkit validate --jobs 2"]["peak_tree_kb"] > 0


def test_stage_counter_runs_each_stage(tmp_path):
    """bench_stages.py runs each stage in a child under valgrind; the stages themselves run
    here without it (counting needs minutes), so that they cannot rot unnoticed."""
    corpus = tmp_path / "corpus"
    generate_corpus(corpus, packages=2, seed=7, broken=0.3)
    for stage in ("floor", "write-back", "schema", "fixed", "engine", "rules", "facts",
                  "validate"):
        done = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "bench_stages.py"), "--corpus",
             str(corpus), "--every", "1", "--child", stage, "--passes", "2"],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, stage + done.stdout + done.stderr
