"""The invalid samples: each has exactly the one problem its manifest entry describes.

The manifest (``samples/invalid/manifest.json.txt``) is what the validator's tests assert against,
so here it is checked against the files with the independent checker of ``test_samples.py``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import orjson
import pytest
from conftest import run_script

HERE = Path(__file__).resolve().parent
INVALID = HERE.parent / "samples" / "invalid"
DOCS = HERE.parent / "docs" / "samples.md"
_spec = importlib.util.spec_from_file_location("samples_checker", HERE / "test_samples.py")
assert _spec is not None and _spec.loader is not None
checker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(checker)

MANIFEST = orjson.loads((INVALID / "manifest.json.txt").read_bytes())
SCHEMA_RULES = {"wrong-type", "missing-field", "unknown-field", "invalid-format", "out-of-range"}
KEYS = {"file", "what", "rule", "pointer", "kind"}


def test_manifest_lists_every_file_once() -> None:
    files = [c["file"] for c in MANIFEST]
    assert len(files) == len(set(files))
    on_disk = {p.name for p in INVALID.iterdir() if p.is_file()} - {"manifest.json.txt"}
    assert set(files) == on_disk


def test_manifest_entries_are_well_formed() -> None:
    for c in MANIFEST:
        extra = {"record"} if c["file"].endswith(".jsonl") else set()
        assert set(c) == KEYS | extra, c
        assert c["kind"] is None or c["kind"] in checker.SPECS
        assert c["pointer"] == "" or c["pointer"].startswith("/")
        assert c["what"].endswith(".")
    rules = {c["rule"] for c in MANIFEST}
    assert SCHEMA_RULES | {"invalid-json", "unknown-kind"} <= rules


@pytest.mark.parametrize("case", MANIFEST, ids=[c["file"] for c in MANIFEST])
def test_case_has_exactly_its_problem(case: dict) -> None:
    raw = (INVALID / case["file"]).read_bytes()
    rule, pointer, kind = case["rule"], case["pointer"], case["kind"]
    if case["file"].endswith(".jsonl"):
        lines = raw.splitlines()
        for number, line in enumerate(lines, start=1):
            if number == case["record"]:
                with pytest.raises(orjson.JSONDecodeError):
                    orjson.loads(line)
            else:
                assert checker.problems(kind, orjson.loads(line)) == []
        return
    if rule == "invalid-json":
        with pytest.raises(orjson.JSONDecodeError):
            orjson.loads(raw)
        return
    doc = orjson.loads(raw)
    assert raw == orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    if rule == "unknown-kind":
        assert all(checker.problems(k, doc) for k in checker.SPECS)
        return
    assert rule in SCHEMA_RULES
    found = checker.problems(kind, doc)
    assert len(found) == 1, found
    assert found[0].startswith(f"{pointer}: "), (found, pointer)
    words = {"wrong-type": "expected|null", "missing-field": "missing", "unknown-field": "unknown",
             "invalid-format": "date-time", "out-of-range": "non-negative"}
    assert re.search(words[rule], found[0]), found


def test_docs_table_matches_manifest() -> None:
    """docs/samples.md lists every case with its rule and pointer."""
    text = DOCS.read_text(encoding="utf-8")
    for c in MANIFEST:
        pointer = c["pointer"] or '""'
        assert f"| `{c['file']}` | `{c['rule']}` | `{pointer}` |" in text, c["file"]


def test_validating_the_invalid_samples_reports_only_the_cases() -> None:
    """The manifests are not exports: walking samples/invalid/ never reads them."""
    proc = run_script("validate", "--format", "json", str(INVALID))
    files = [f["path"] for f in orjson.loads(proc.stdout)["files"]]
    assert files and not [path for path in files if "manifest" in path]
