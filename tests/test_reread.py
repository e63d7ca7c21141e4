"""Cross-file findings are placed after the one pass, by reading their input again: where an
eager pass would have placed them (the slow token walk of tests/position_oracle.py), and with
a note and no position when the input changed in between."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson

from quizkit.checks.reread import CHANGED_NOTE
from tests import audited
from tests.conftest import SAMPLES, reversed_keys, run_script
from tests.position_oracle import locate

PACKAGE = orjson.loads((SAMPLES / "package-full.json").read_bytes())
GAME = orjson.loads((SAMPLES / "game.json").read_bytes())
VERSION_LIST = orjson.loads((SAMPLES / "version-list.json").read_bytes())
BATCH_RULES = ("identical-duplicate", "conflicting-duplicate")


def _changed(value: dict) -> dict:
    """A copy with its name changed (a conflicting duplicate)."""
    return {**value, "name": str(value.get("name")) + "!"}


def _corpus(root: Path) -> list[Path]:
    """The same package, game and versions in every shape: indented, compact, keys reordered,
    Python's indentation, JSON Lines, gzip."""
    indented = orjson.OPT_INDENT_2
    files = {
        "a-package.json": orjson.dumps(PACKAGE, option=indented) + b"\n",
        "b-package-compact.json": orjson.dumps(PACKAGE),
        "c-package-reordered.json": orjson.dumps(reversed_keys(PACKAGE), option=indented),
        "d-package-python.json": json.dumps(_changed(PACKAGE), indent=4).encode(),
        "e-list.json": orjson.dumps(VERSION_LIST, option=indented),
        "f-records.jsonl": b"\n".join([orjson.dumps(GAME), b"", orjson.dumps(VERSION_LIST[0]),
                                       orjson.dumps(_changed(GAME))]) + b"\n",
        "g-game.json.gz": gzip.compress(orjson.dumps(GAME, option=indented)),
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    return [root / name for name in files]


def _oracle_position(path: Path, record: int | None, pointer: str) -> tuple[int, int]:
    """Line and column (characters) of the value at ``pointer``, found by the token walk."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    text = data.decode()
    shift = 0
    if record is not None:
        text = text.split("\n")[record - 1]
        shift = record - 1
    offset = locate(text, pointer)
    assert offset is not None, (path, record, pointer)
    line = text.count("\n", 0, offset) + 1
    return line + shift, offset - (text.rfind("\n", 0, offset) + 1) + 1


def test_a_finding_placed_after_the_reread_is_where_an_eager_pass_places_it(tmp_path):
    paths = _corpus(tmp_path)
    report = tmp_path / "report.json"
    for jobs in ("1", "2"):
        done = run_script("validate", "--no-cache", "--jobs", jobs, "--format", "json",
                          "-o", str(report), *map(str, paths))
        assert done.returncode == 1, done.stderr.decode()
        findings = [f for f in json.loads(report.read_text())["findings"]
                    if f["rule"] in BATCH_RULES]
        rules = {f["rule"] for f in findings}
        assert rules == set(BATCH_RULES)
        assert {Path(f["path"]).name for f in findings} >= {
            "b-package-compact.json", "d-package-python.json", "f-records.jsonl",
            "g-game.json.gz"}
        for f in findings:
            assert (f["line"], f["column"]) == _oracle_position(Path(f["path"]), f["record"],
                                                                f["pointer"]), f
            assert CHANGED_NOTE not in f["message"]


def test_a_finding_on_stdin_is_placed_from_its_spooled_copy(tmp_path):
    first = tmp_path / "package.json"
    first.write_bytes(orjson.dumps(PACKAGE))
    copy = tmp_path / "copy.json"
    copy.write_bytes(orjson.dumps(_changed(PACKAGE), option=orjson.OPT_INDENT_2))
    done = run_script("validate", "--no-cache", "--format", "json", str(first), "-",
                      input=copy.read_bytes())
    findings = [f for f in json.loads(done.stdout)["findings"] if f["rule"] in BATCH_RULES]
    assert findings and all(f["path"] == "<stdin>" for f in findings)
    for f in findings:
        assert (f["line"], f["column"]) == _oracle_position(copy, None, f["pointer"]), f


def test_an_input_changed_before_its_reread_gets_a_note_and_no_position(tmp_path):
    """b.json is garbled after the pass checked it, as c.json is opened: its finding is
    still reported, with the note and without a position (its size and modification time
    tell, so it is not even opened again)."""
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_bytes(orjson.dumps(GAME))
    b.write_bytes(orjson.dumps(GAME))
    c.write_bytes((SAMPLES / "banner.json").read_bytes())
    log, out = tmp_path / "open.log", tmp_path / "report.json"
    done = audited.run(log, "cli", "validate", "--no-cache", "--jobs", "1", "--format",
                       "json", "-o", str(out), str(a), str(b), str(c),
                       on_open=[f"{c}:garble:{b}"])
    assert b.read_bytes() == b"{not json", done.stderr.decode()
    findings = json.loads(out.read_text())["findings"]
    assert [(f["path"], f["rule"], f["line"], f["column"]) for f in findings] == \
        [(str(b), "identical-duplicate", None, None)], done.stderr.decode()
    assert findings[0]["message"].endswith(CHANGED_NOTE)
    assert audited.opens_of(log, [a, b, c]) == {str(a): 1, str(b): 1, str(c): 1}


def test_a_cached_input_is_read_again_to_place_its_finding(tmp_path):
    """The second run takes every outcome from the result cache; the cross-file findings are
    still placed, where the first run placed them."""
    paths = _corpus(tmp_path)
    cache, reports = tmp_path / "cache", []
    for name in ("cold.json", "warm.json"):
        done = run_script("validate", "-v", "--cache-dir", str(cache), "--jobs", "1",
                          "--format", "json", "-o", str(tmp_path / name), *map(str, paths))
        assert done.returncode == 1, done.stderr.decode()
        reports.append(json.loads((tmp_path / name).read_text())["findings"])
    n = len(paths)
    assert f"result cache: {n} of {n} files unchanged" in done.stderr.decode()
    cold, warm = reports
    assert warm == cold
    assert all(f["line"] is not None for f in warm if f["rule"] in BATCH_RULES)
