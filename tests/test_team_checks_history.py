"""A change check over a Parquet history on the S3 server of the cluster tests: no finding
and a note on the first run, a finding on the second run of a shrunken corpus, and the
metric's values in the history."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from test_cluster import s3_env  # noqa: F401  (the session's S3 server)

from tests.conftest import SAMPLES, requires

CONFIG = """
[[checks]]
code = "X050"
name = "banner-count-drop"
description = "the banners fall by more than a third"
metric = "select count(*) from banners"
change = "avg-3"
error-if = "< -33%"
"""


def quizkit(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quizkit", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "CI": "true", **env},
                          timeout=300)


def test_a_change_check_over_a_parquet_history_on_s3(tmp_path: Path,
                                                     s3_env: dict[str, str]) -> None:  # noqa: F811
    fs = requires("s3fs").S3FileSystem(key=s3_env["AWS_ACCESS_KEY_ID"],
                                       secret=s3_env["AWS_SECRET_ACCESS_KEY"],
                                       client_kwargs={"endpoint_url": s3_env["AWS_ENDPOINT_URL"]})
    fs.makedirs("checkhistory", exist_ok=True)
    url = "s3://checkhistory/banners/"
    (tmp_path / "quizkit.toml").write_text(CONFIG)
    work = tmp_path / "exports"
    work.mkdir()
    shutil.copy(SAMPLES / "banners.jsonl", work)  # 3 banners
    shutil.copy(SAMPLES / "banner.json", work)  # and 1
    args = ("check", "exports", "--jobs", "1", "--history", url, "--format", "json")
    first = quizkit(*args, cwd=tmp_path, env=s3_env)
    assert first.returncode == 0, first.stderr
    assert "no run history of this dataset yet" in first.stderr
    assert not [f for f in json.loads(first.stdout)["findings"] if f["code"] == "X050"]
    (work / "banners.jsonl").unlink()  # 4 banners → 1: -75% from the mean of the runs
    second = quizkit(*args, cwd=tmp_path, env=s3_env)
    found = [f for f in json.loads(second.stdout)["findings"] if f["code"] == "X050"]
    assert second.returncode == 1, second.stderr
    assert len(found) == 1 and "banner-count-drop is 1" in found[0]["message"]
    assert "-75.0%" in found[0]["message"] and "error if < -33%" in found[0]["message"]
    shown = quizkit("history", "--history", url, "--format", "json", cwd=tmp_path,
                    env=s3_env)
    values = [m["value"] for m in json.loads(shown.stdout)["metrics"]
              if m["metric"] == "banner-count-drop"]
    assert values == [4, 1], shown.stdout
