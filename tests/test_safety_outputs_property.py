"""Issue 14: for any mix of output paths (regular files, links, dangling links, FIFOs, devices,
missing directories, directories, the input itself), either every report lands where a user
expects or the run exits 2; no non-regular file and no input is ever replaced."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safety_cli import SAMPLES, FifoReader, device_like, quizkit, snapshot

KINDS = ["new", "regular", "link", "dangling", "fifo", "device", "missing-dir", "input",
         "link-to-input", "directory", "link-to-directory"]
REFUSED = {"missing-dir", "input", "link-to-input", "directory", "link-to-directory"}


def _make(root: Path, i: int, kind: str, game: Path) -> Path:
    """Output number ``i`` of ``kind`` under ``root`` (each in a directory of its own)."""
    here = root / f"o{i}"
    here.mkdir()
    if kind == "new":
        return here / "report.json"
    if kind == "regular":
        (here / "report.json").write_text("old report")
        return here / "report.json"
    if kind == "link":
        (here / "target.json").write_text("old target")
        (here / "report.json").symlink_to(here / "target.json")
        return here / "report.json"
    if kind == "dangling":
        (here / "report.json").symlink_to("made.json")
        return here / "report.json"
    if kind == "fifo":
        os.mkfifo(here / "pipe")
        return here / "pipe"
    if kind == "device":
        return device_like(here)
    if kind == "missing-dir":
        return here / "no" / "such" / "report.json"
    if kind == "input":
        return game
    if kind == "directory":
        return here
    if kind == "link-to-directory":
        (here / "report.json").symlink_to(here)
        return here / "report.json"
    (here / "report.json").symlink_to(game)  # link-to-input
    return here / "report.json"


def _is_report(data: bytes) -> bool:
    try:
        return json.loads(data)["summary"]["files"] == 1
    except (ValueError, KeyError, TypeError):
        return False


can_mknod = os.geteuid() == 0  # else every device is /dev/null, and two would be one path
kinds = st.sampled_from(KINDS if can_mknod else [k for k in KINDS if k != "device"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(kinds, min_size=1, max_size=3))
def test_reports_land_where_expected_or_the_run_exits_2(chosen: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        game = root / "in" / "game.json"
        game.parent.mkdir()
        game.write_bytes((SAMPLES / "game.json").read_bytes())
        outputs = [_make(root, i, kind, game) for i, kind in enumerate(chosen)]
        args = ["validate", str(game), "--format", "json", "-o", str(outputs[0])]
        for out in outputs[1:]:
            args += ["--report", f"json:{out}"]
        readers = {i: FifoReader(out) for i, (kind, out) in enumerate(zip(chosen, outputs,
                                                                          strict=True))
                   if kind == "fifo"}
        before = snapshot(root)
        done = quizkit(*args, timeout=60)
        streamed = {i: r.finish() for i, r in readers.items()}

        assert "Traceback" not in done.stderr, done.stderr
        assert game.read_bytes() == (SAMPLES / "game.json").read_bytes()
        for kind, out in zip(chosen, outputs, strict=True):
            if kind == "fifo":
                assert stat.S_ISFIFO(out.lstat().st_mode)
            if kind == "device":
                assert stat.S_ISCHR(out.lstat().st_mode)
            if kind in ("link", "dangling", "link-to-input", "link-to-directory"):
                assert out.is_symlink()
        if REFUSED & set(chosen):
            assert done.returncode == 2, done.stderr
            # One line, or a usage error (its last line) for a directory given as an output.
            last = done.stderr.strip().splitlines()[-1]
            assert last.startswith(("quizkit: error: ", "Error: ")), done.stderr
            assert snapshot(root) == before
            return
        assert done.returncode == 0, done.stderr
        for i, (kind, out) in enumerate(zip(chosen, outputs, strict=True)):
            if kind in ("new", "regular"):
                assert _is_report(out.read_bytes())
            elif kind == "link":
                assert _is_report((out.parent / "target.json").read_bytes())
            elif kind == "dangling":
                assert _is_report((out.parent / "made.json").read_bytes())
            elif kind == "fifo":
                assert _is_report(streamed[i])
        leftovers = [p for p in root.rglob(".*")]
        assert leftovers == [], leftovers
