"""The findings of every rule on a fixed set of inputs, against a recorded expectation.

The expectation (``tests/data/rules-findings.json``) was recorded from ``main`` before the
rules were rewritten one function per rule over typed facts; the rewrite must give the same
(file, record, pointer, rule, line, column) set, with one job and with two, stdin included.
Inputs: ``samples/invalid``, two generated corpora (``--broken 0.3``; the second with JSON
Lines and gzip files, and with the first's ids, so the cross-file checks speak) and copies of
some of the first corpus's documents (reformatted, keys reordered, a version dropped).

To record again after an intended change of findings, say why in the commit and run
``QUIZKIT_RECORD_FINDINGS=1 pytest tests/test_rules_findings.py``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import orjson
import pytest

from tests import position_oracle
from tests.conftest import INVALID, SAMPLES, reversed_keys, run_script

EXPECTED = Path(__file__).parent / "data" / "rules-findings.json"
RECORD = os.environ.get("QUIZKIT_RECORD_FINDINGS") == "1"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, bytes]:
    """The input tree (cwd of the runs) and the bytes given on stdin."""
    root = tmp_path_factory.mktemp("findings")
    for name, extra in (("a", ["--seed", "3"]),
                        ("b", ["--seed", "4", "--jsonl", "--gzip-share", "0.2"])):
        done = run_script("samples", "generate", "--packages", "40", "--broken", "0.3",
                          "--workers", "1", "--out", str(root / name), *extra, timeout=300)
        assert done.returncode == 0, done.stderr
    shutil.copytree(INVALID, root / "invalid")
    manifest = orjson.loads((root / "a" / "corpus-manifest.json.txt").read_bytes())
    by_kind: dict[str, list[str]] = {}
    for f in manifest["files"]:
        by_kind.setdefault(f.get("kind") or "", []).append(f["file"])
    copies = root / "copies"
    copies.mkdir()
    docs = []
    for name in sorted(by_kind["package-full"]):
        try:
            docs.append(orjson.loads((root / "a" / name).read_bytes()))
        except orjson.JSONDecodeError:  # a broken one
            continue
    (copies / "compact.json").write_bytes(orjson.dumps(docs[0]))
    (copies / "reordered.json").write_bytes(orjson.dumps(reversed_keys(docs[1]),
                                                         option=orjson.OPT_INDENT_2))
    (copies / "versions.jsonl").write_bytes(
        b"\n".join(orjson.dumps(v) for v in docs[3]["versions"][:2]) + b"\n")
    games = 0
    for name in sorted(by_kind.get("game", [])):
        try:
            game = orjson.loads((root / "a" / name).read_bytes())
            package = next(d for d in docs if d["id"] == game["packageId"])
        except (orjson.JSONDecodeError, KeyError, StopIteration):
            continue
        shutil.copy(root / "a" / name, copies / f"game-{games}.json")
        if games == 0:  # its package again, without the game's version
            shorter = dict(package, versions=[v for v in package["versions"]
                                              if v["id"] != game["versionId"]])
            (copies / "one-version.json").write_text(json.dumps(shorter, indent=1))
            # and under an id of its own, with a game of it
            moved = dict(shorter, id="moved-package")
            (copies / "moved.json").write_bytes(orjson.dumps(moved))
            moved_game = dict(game, id="moved-game", packageId="moved-package",
                              pkg=dict(game["pkg"], id="moved-package"))
            (copies / "moved-game.json").write_bytes(orjson.dumps(moved_game))
        games += 1
        if games == 3:
            break
    stdin = orjson.dumps(docs[5], option=orjson.OPT_INDENT_2)
    return root, stdin


def _findings(root: Path, stdin: bytes, jobs: int) -> list[list]:
    done = run_script("validate", "--format", "json", "--jobs", str(jobs),
                      "invalid", "a", "b", "copies", "-", cwd=root, input=stdin, timeout=300)
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    return sorted([f["path"], f["record"], f["pointer"], f["rule"], f["line"], f["column"]]
                  for f in report["findings"])


@pytest.mark.parametrize("jobs", [1, 2])
def test_findings_as_recorded(inputs, jobs):
    root, stdin = inputs
    found = _findings(root, stdin, jobs)
    if RECORD and jobs == 1:
        EXPECTED.write_text(json.dumps(found, indent=0) + "\n")
    expected = json.loads(EXPECTED.read_text())
    rules = {f[3] for f in expected}
    # the set exercises the cross-file checks too
    assert {"conflicting-duplicate", "identical-duplicate", "game-version-not-exported",
            "multiple-current-banners", "current-banner-mismatch",
            "pkg-count-mismatch"} <= rules
    missing = [f for f in expected if f not in found]
    extra = [f for f in found if f not in expected]
    assert not missing and not extra, (missing[:20], extra[:20])


def _oracle_position(text: str, pointer: str) -> tuple[int, int]:
    offset = position_oracle.locate(text, pointer)
    assert offset is not None, pointer
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


@pytest.mark.parametrize("writer", ["orjson-indented", "json-indented", "compact"])
def test_cross_file_findings_point_where_the_oracle_does(tmp_path, writer):
    """Facts are placed in the one pass (orjson-indented text, the service's, by a search
    for a member's line and by the elements' line counts; any other text by the bracket
    table): every cross-file finding's line and column are the oracle's."""
    write = {"orjson-indented": lambda v: orjson.dumps(v, option=orjson.OPT_INDENT_2),
             "json-indented": lambda v: json.dumps(v, indent=2, ensure_ascii=False).encode(),
             "compact": orjson.dumps}[writer]
    package = orjson.loads((SAMPLES / "package-full.json").read_bytes())
    game = orjson.loads((SAMPLES / "game.json").read_bytes())
    package["name"] = "Käse «ß» \u2603"  # characters of several bytes before the versions
    other = dict(package, id="other-package")  # the same versions in another package
    moved = dict(game, id="moved-game", versionId="not-exported",
                 pkg=dict(game["pkg"], versions=[*game["pkg"]["versions"],
                                                 dict(game["pkg"]["versions"][0],
                                                      id="not-exported")]))
    files = {"a.json": package, "b.json": other, "c.json": dict(package, versions=[]),
             "d.json": moved}
    for name, doc in files.items():
        (tmp_path / name).write_bytes(write(doc))
    done = run_script("validate", "--format", "json", *sorted(files), cwd=tmp_path)
    findings = [f for f in json.loads(done.stdout)["findings"]
                if f["rule"] in ("identical-duplicate", "conflicting-duplicate",
                                 "game-version-not-exported")]
    versions = {f["pointer"] for f in findings if f["path"] == "b.json"}
    assert versions == {f"/versions/{i}" for i in range(len(package["versions"]))}
    assert any(f["rule"] == "game-version-not-exported" for f in findings)
    for f in findings:
        text = (tmp_path / f["path"]).read_text()
        assert (f["line"], f["column"]) == _oracle_position(text, f["pointer"]), f
