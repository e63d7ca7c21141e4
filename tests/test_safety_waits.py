"""Every wait has an end: a part file of a dataset that is not a regular file (a FIFO would
block DuckDB's read beyond the reach of any signal) is refused at once, exit 3, naming it.
The waits for peers (a scheduler, its workers, object storage) are in test_cluster_trust.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from safety_cli import SAMPLES, one_line_error, quizkit


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("waits") / "dataset"
    done = quizkit("load", SAMPLES / "package-full.json", "--parquet", out, "--no-findings")
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("table", ["packages", "quizkit_meta"])
def test_a_fifo_among_the_parts_is_refused_at_once(dataset: Path, table: str) -> None:
    fifo = dataset / table / "part-x.parquet"
    os.mkfifo(fifo)
    try:
        for args in (["summary", "sizes", "--parquet", dataset],
                     ["query", "SELECT count(*) FROM packages", "--parquet", dataset],
                     ["load", SAMPLES / "package-full.json", "--parquet", dataset,
                      "--no-findings"]):
            line = one_line_error(quizkit(*args, timeout=60), 3)
            assert "part-x.parquet" in line and "not a regular file" in line
    finally:
        fifo.unlink()
