"""Duplicates across files are told from quick content digests computed in the engine's one
pass, settled by canonical ones where they differ: a finding says identical exactly when the
two values are equal as JSON (key order and whitespace aside), with any number of jobs."""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizkit.catalog.pointers import split_pointer
from quizkit.checks import engine
from quizkit.inputs.sources import Source
from tests import audited
from tests.conftest import SAMPLES, cli, reversed_keys

PACKAGE = orjson.loads((SAMPLES / "package-full.json").read_bytes())
GAME = orjson.loads((SAMPLES / "game.json").read_bytes())
VERSION_LIST = orjson.loads((SAMPLES / "version-list.json").read_bytes())
VERSION = orjson.loads((SAMPLES / "version.json").read_bytes())


def _value(path: str, record: int | None, pointer: str):
    data = Path(path).read_bytes()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    value = orjson.loads(data.split(b"\n")[record - 1] if record else data)
    for part in split_pointer(pointer):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


_FIRST = re.compile(r" in (?P<path>.+?)(?: \(record (?P<record>\d+)\))?"
                    r"(?:, at the same pointer| at (?P<pointer>/\S*))?$")


def _agree_with_json(report: engine.Report) -> int:
    """Each duplicate finding says identical exactly when both values are equal as JSON."""
    checked = 0
    for f in report.findings:
        if f.rule not in ("identical-duplicate", "conflicting-duplicate"):
            continue
        m = _FIRST.search(f.message)
        assert m, f.message
        pointer = m["pointer"] if m["pointer"] is not None else (
            f.pointer if "same pointer" in f.message else "")
        first = _value(m["path"], int(m["record"]) if m["record"] else None, pointer)
        later = _value(f.path, f.record, f.pointer)
        assert (first == later) == (f.rule == "identical-duplicate"), f
        checked += 1
    return checked


def _findings(report: engine.Report) -> list[dict]:
    return [f.to_dict() for f in report.findings]


def _changed(value, rng: random.Random):
    """A copy with one string somewhere inside changed."""
    value = json.loads(json.dumps(value))
    node = value
    while True:
        if isinstance(node, dict) and node:
            key = rng.choice(sorted(node))
        elif isinstance(node, list) and node:
            key = rng.randrange(len(node))
        else:
            return value
        child = node[key]
        if isinstance(child, str):
            node[key] = child + "!"
            return value
        if not isinstance(child, (dict, list)) or not child:
            node[key] = "changed"
            return value
        node = child


WRITERS = {
    "indented": lambda v: orjson.dumps(v, option=orjson.OPT_INDENT_2) + b"\n",
    "compact": orjson.dumps,
    "python": lambda v: json.dumps(v, indent=4).encode(),
    "reordered": lambda v: orjson.dumps(reversed_keys(v)),
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.data())
def test_late_digests_agree_with_early_ones(tmp_path_factory, data):
    root = tmp_path_factory.mktemp("corpus")
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    originals = [("package", PACKAGE), ("game", GAME), ("list", VERSION_LIST),
                 ("version", VERSION), ("version", VERSION_LIST[0])]
    sources = []
    lines: list[bytes] = []
    for i in range(data.draw(st.integers(2, 12))):
        name, doc = data.draw(st.sampled_from(originals))
        if data.draw(st.booleans()):
            doc = _changed(doc, rng)
        text = WRITERS[data.draw(st.sampled_from(sorted(WRITERS)))](doc)
        where = data.draw(st.sampled_from(["file", "file", "lines", "gz"]))
        if where == "lines":
            lines.append(orjson.dumps(doc))
            continue
        path = root / f"{i:02}-{name}.json"
        if where == "gz":
            path = path.with_suffix(".json.gz")
            text = gzip.compress(text)
        path.write_bytes(text)
        sources.append(Source(str(path)))
    if lines:
        path = root / "records.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        sources.append(Source(str(path)))
    one = engine.run(sources, jobs=1)
    _agree_with_json(one)
    assert _findings(engine.run(sources, jobs=2)) == _findings(one)


def test_duplicates_of_every_kind_and_view(tmp_path):
    files = {
        "a-package.json": orjson.dumps(PACKAGE, option=orjson.OPT_INDENT_2),
        "b-package-copy.json": orjson.dumps(reversed_keys(PACKAGE)),
        "c-package-changed.json": orjson.dumps(_changed(PACKAGE, random.Random(1))),
        "d-game.json": orjson.dumps(GAME),
        "e-game-copy.json": json.dumps(GAME, indent=3).encode(),
        "f-list.json": orjson.dumps(VERSION_LIST),
        "g-version.json": orjson.dumps(VERSION_LIST[0]),
        "h-version-changed.json": orjson.dumps(_changed(VERSION_LIST[0], random.Random(2))),
    }
    for name, text in files.items():
        (tmp_path / name).write_bytes(text)
    sources = [Source(str(tmp_path / name)) for name in files]
    late = engine.run(sources, jobs=1)
    assert _agree_with_json(late) >= 4
    assert _findings(engine.run(sources, jobs=2)) == _findings(late)
    rules = {f.rule for f in late.findings}
    assert {"identical-duplicate", "conflicting-duplicate"} <= rules


def test_stdin_digests_are_computed_at_once(tmp_path):
    path = tmp_path / "game.json"
    path.write_bytes(orjson.dumps(GAME))
    result = cli("validate", "--format", "json", str(path), "-", input=orjson.dumps(GAME))
    findings = json.loads(result.output)["findings"]
    assert [f["rule"] for f in findings] == ["identical-duplicate"]
    changed = _changed(GAME, random.Random(3))
    result = cli("validate", "--format", "json", str(path), "-", input=orjson.dumps(changed))
    rules = [f["rule"] for f in json.loads(result.output)["findings"]]
    assert "conflicting-duplicate" in rules


@pytest.mark.parametrize("change", ["delete", "garble"])
def test_a_file_changed_after_it_was_checked_keeps_its_verdict(tmp_path, change):
    """The first file is deleted or garbled as the second is opened (after the first was
    checked): the cross-file finding is about the bytes that were checked; the first input is
    opened once, the second once more only to place its finding (watched from outside by
    tests/audited.py)."""
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(orjson.dumps(GAME))
    second.write_bytes(orjson.dumps(GAME))
    log, out = tmp_path / "open.log", tmp_path / "report.json"
    done = audited.run(log, "cli", "validate", "--jobs", "1", "--format", "json", "-o",
                       str(out), str(first), str(second),
                       on_open=[f"{second}:{change}:{first}"])
    assert not first.exists() if change == "delete" else first.read_bytes() == b"{not json"
    findings = json.loads(out.read_text())["findings"]
    assert [(f["path"], f["rule"], f["line"]) for f in findings] == \
        [(str(second), "identical-duplicate", 1)], done.stderr.decode()
    assert str(first) in findings[0]["message"]
    assert audited.opens_of(log, [first, second]) == {str(first): 1, str(second): 2}
