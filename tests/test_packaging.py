"""A wheel built from the repo carries the schemas and works outside the checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import pytest

from tests.conftest import ROOT, SAMPLES


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    [whl] = out.glob("quizkit-*.whl")
    return whl


def test_wheel_contains_every_schema(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in (ROOT / "schemas").rglob("*.json"):
        rel = path.relative_to(ROOT / "schemas").as_posix()
        assert f"quizkit/schemas/{rel}" in names


def test_wheel_validates_outside_the_checkout(wheel, tmp_path):
    # Import quizkit from the wheel only (zip import), from a directory far from the repo.
    env = {**os.environ, "PYTHONPATH": str(wheel), "PYTHONSAFEPATH": "1"}
    code = (
        "import json, sys, quizkit; "
        "assert quizkit.__file__.startswith(sys.argv[2]), quizkit.__file__; "
        "r = quizkit.validate([sys.argv[1]]); print(json.dumps(r.summary()))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(SAMPLES / "game.json"), str(wheel)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"files": 1, "documents": 1, "errors": 0,
                                       "warnings": 0, "infos": 0, "unreadable": 0}
