"""``quizkit validate`` starts light: the analysis side (DuckDB, PyArrow), the cluster's (Dask)
and the charts (Altair) are imported only by the commands that use them.

The program runs in a fresh interpreter, through its own entry point, and the modules loaded
by the end of the run are read from ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES

HEAVY = ("duckdb", "pyarrow", "dask", "distributed", "altair")

#: Runs ``quizkit ARGS...`` as the program does, then writes the heavy modules it loaded.
RUNNER = """
import json, sys
out, args = sys.argv[1], sys.argv[2:]
sys.argv = ["quizkit", *args]
from quizkit.entry import main
try:
    main()
except SystemExit:
    pass
with open(out, "w") as fh:
    json.dump(sorted(m for m in {heavy!r} if m in sys.modules), fh)
"""


def heavy_modules_of(tmp_path: Path, *args: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", RUNNER.format(heavy=heavy), str(out), *args],
                          cwd=ROOT, capture_output=True, timeout=300)
    assert out.exists(), done.stderr.decode()
    return json.loads(out.read_text())


@pytest.mark.parametrize("args", [
    ("validate", "--no-cache", str(SAMPLES)),
    ("validate", "--no-cache", "--format", "json", str(SAMPLES / "invalid")),
    ("validate", "--profile", "no-such-profile.toml", str(SAMPLES)),
    ("rules",),
], ids=["validate", "validate-json", "validate-bad-profile", "rules"])
def test_validate_imports_no_analysis_library(tmp_path: Path, args: tuple[str, ...]) -> None:
    assert heavy_modules_of(tmp_path, *args) == []


def test_the_check_sees_a_command_that_uses_duckdb(tmp_path: Path) -> None:
    """The same runner reports DuckDB for a command that needs it: the check can fail."""
    loaded = heavy_modules_of(tmp_path, "query", "SELECT 1", str(SAMPLES / "game.json"))
    assert "duckdb" in loaded


def test_the_progress_library_only_when_a_line_may_be_drawn(tmp_path: Path) -> None:
    """tqdm (the progress line's drawing) is imported only when the line may be shown: not
    for a run whose stderr is a pipe, but for a forced one."""
    args = ("validate", "--no-cache", str(SAMPLES / "game.json"))
    assert heavy_modules_of(tmp_path, *args, heavy=("tqdm",)) == []
    assert heavy_modules_of(tmp_path, *args, "--progress", heavy=("tqdm",)) == ["tqdm"]


#: What only some runs of ``validate`` need: the enum inference (and the TOML writer it
#: uses), a Dask cluster's client side, shared memory (a ``.gz`` JSON Lines file split
#: between workers).
OCCASIONAL = ("quizkit.checks.enum_inference", "tomlkit", "quizkit.cluster.checking",
              "quizkit.cluster.scheduler_probe", "ssl", "multiprocessing.shared_memory")


def test_validate_imports_what_only_some_runs_need_only_for_them(tmp_path: Path) -> None:
    """Every run pays for its imports before it reads a byte (and a run over one big file
    on all cores waits for them): a plain run imports none of these, the runs that use
    them do."""
    plain = ("validate", "--no-cache", "--jobs", "2", str(SAMPLES))
    assert heavy_modules_of(tmp_path, *plain, heavy=OCCASIONAL) == []
    inferred = heavy_modules_of(tmp_path, "enums", "infer", str(SAMPLES / "game.json"),
                                heavy=OCCASIONAL)
    assert "quizkit.checks.enum_inference" in inferred
