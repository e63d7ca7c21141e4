"""``quizkit diff --scheduler`` on a real Dask cluster (the scheduler and workers of
test_cluster.py) gives the report of a local diff."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from test_cluster import bucket, cluster, corpus, s3_env  # noqa: F401  (the session's)


def _diff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quizkit", "diff", *args], capture_output=True,
                          timeout=600)


def test_a_diff_on_a_cluster_gives_the_local_report(cluster: str,  # noqa: F811
                                                    tmp_path: Path) -> None:
    made = subprocess.run([sys.executable, "-m", "quizkit", "samples", "generate", "--packages",
                           "12", "--seed", "21", "--out", str(tmp_path / "old")],
                          capture_output=True)
    assert made.returncode == 0
    shutil.copytree(tmp_path / "old", tmp_path / "new")
    packages = sorted((tmp_path / "new" / "packages").glob("*.json"))
    packages[0].unlink()
    doc = json.loads(packages[1].read_text())
    doc["versions"][0]["questions"][0]["price"] += 5
    packages[1].write_text(json.dumps(doc))
    (tmp_path / "new" / "cut.json").write_text('{"id": ')
    sides = (str(tmp_path / "old"), str(tmp_path / "new"), "--format", "json")
    local = _diff(*sides)
    remote = _diff(*sides, "--scheduler", cluster)
    assert local.returncode == remote.returncode == 3, remote.stderr
    assert json.loads(remote.stdout) == json.loads(local.stdout)
    report = json.loads(local.stdout)
    assert report["summary"]["packages"]["removed"] == 1
    assert report["summary"]["questions"]["changed"] == 1


def test_a_cluster_diff_refuses_a_database_side(cluster: str,  # noqa: F811
                                                tmp_path: Path) -> None:
    (tmp_path / "x.duckdb").write_bytes(b"")
    done = _diff(str(tmp_path / "x.duckdb"), str(tmp_path), "--scheduler", cluster)
    assert done.returncode == 2 and b"--scheduler" in done.stderr


def test_an_export_in_object_storage_is_the_same_as_its_local_copy(
        bucket: str, corpus: Path, s3_env: dict[str, str]) -> None:  # noqa: F811
    done = subprocess.run([sys.executable, "-m", "quizkit", "diff", bucket, str(corpus),
                           "--format", "json"], capture_output=True, timeout=600,
                          env={**os.environ, **s3_env})
    report = json.loads(done.stdout)
    assert done.returncode == 3  # the corpus holds files that cannot be parsed, on both sides
    assert report["changes"] == []
    unreadable = {side: sorted(u["path"].rsplit("/", 1)[1] for u in report["unreadable"]
                               if u["side"] == side) for side in ("old", "new")}
    assert unreadable["old"] == unreadable["new"] != []
    assert sum(t["unchanged"] for t in report["summary"].values()) > 1000
