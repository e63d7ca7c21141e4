"""``quizkit validate`` through the real CLI: samples, invalid cases, reports, exit codes."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

import quizkit
from quizkit.rules import REGISTRY
from tests.conftest import (
    SAMPLES,
    cli,
    cli_json,
    invalid_cases,
    run_script,
    valid_samples,
)

REPORT_KEYS = {"summary", "files", "findings"}
SUMMARY_KEYS = {"files", "documents", "errors", "warnings", "infos", "unreadable"}
FINDING_KEYS = {"path", "record", "pointer", "line", "column", "rule", "severity", "message"}


def test_there_is_a_valid_sample_of_every_kind():
    _, report = cli_json(*map(str, valid_samples()))
    kinds = {f["kind"] for f in report["files"]}
    assert set(quizkit.model.entities.KIND_NAMES) <= kinds


@pytest.mark.parametrize("path", valid_samples(), ids=lambda p: p.name)
def test_valid_sample_has_no_findings(path):
    code, report = cli_json(str(path))
    assert report["findings"] == []
    assert code == 0
    assert report["summary"]["documents"] >= 1


@pytest.mark.parametrize("case", invalid_cases(), ids=lambda c: c["file"])
def test_invalid_sample_gives_its_documented_finding(case):
    args = ["--kind", case["kind"]] if case.get("kind") else []
    code, report = cli_json(*args, str(case["path"]))
    hits = [f for f in report["findings"]
            if f["rule"] == case["rule"] and f["pointer"] == case["pointer"]]
    assert hits, f"{case['what']}: expected {case['rule']} at {case['pointer']!r}, got " + \
        json.dumps([(f["rule"], f["pointer"]) for f in report["findings"]])
    for hit in hits:
        assert hit["line"] >= 1 and hit["column"] >= 1
        if "record" in case:
            assert hit["record"] == case["record"]
    assert code in (1, 3) if hits[0]["severity"] == "error" else code in (0, 1)


def test_json_report_contract(tmp_path):
    bad = tmp_path / "banner.json"
    doc = json.loads((SAMPLES / "banner.json").read_text())
    doc["position"] = "first"
    doc["extra"] = 1
    bad.write_text(json.dumps(doc, indent=2))
    code, report = cli_json(str(bad))
    assert code == 1
    assert set(report) == REPORT_KEYS
    assert set(report["summary"]) == SUMMARY_KEYS
    assert report["summary"] == {"files": 1, "documents": 1, "errors": 1, "warnings": 1,
                                 "infos": 0, "unreadable": 0}
    assert {"path", "kind"} <= set(report["files"][0])
    assert report["files"][0]["kind"] == "banner"
    by_rule = {f["rule"]: f for f in report["findings"]}
    assert set(by_rule) == {"wrong-type", "unknown-field"}
    for f in report["findings"]:
        assert set(f) >= FINDING_KEYS
        assert f["path"] == str(bad) and f["record"] is None
    wrong = by_rule["wrong-type"]
    assert wrong["pointer"] == "/position" and wrong["severity"] == "error"
    # The line of "position" in the pretty-printed file, computed independently.
    lines = bad.read_text().splitlines()
    line_no = next(i for i, line in enumerate(lines, 1) if '"position"' in line)
    assert wrong["line"] == line_no
    assert wrong["column"] == lines[line_no - 1].index('"first"') + 1


def test_text_report_lines_and_summary(tmp_path):
    bad = tmp_path / "b.json"
    bad.write_text('{"slot": 5}\n')
    result = cli("validate", str(bad))
    assert result.exit_code == 1
    header, first, *_, last = result.output.splitlines()
    assert header == str(bad)  # grouped by file: the file, then its findings
    assert first.split()[:4] == ["1:10", "error", "S001", "wrong-type"]
    assert last == "1 file, 1 document: 1 error, 0 warnings, 0 infos"
    warn = tmp_path / "w.json"
    doc = json.loads((SAMPLES / "banner.json").read_text())
    doc.update(extra=True, more=True)
    warn.write_text(json.dumps(doc))
    last = cli("validate", str(warn), str(bad)).output.splitlines()[-1]
    assert last == "2 files, 2 documents: 1 error, 2 warnings, 0 infos"


def test_exit_codes(tmp_path):
    clean = tmp_path / "clean.json"
    shutil.copy(SAMPLES / "banner.json", clean)
    assert cli("validate", str(clean)).exit_code == 0
    warn = tmp_path / "warn.json"
    doc = json.loads(clean.read_text())
    doc["extra"] = True
    warn.write_text(json.dumps(doc))
    assert cli("validate", str(warn)).exit_code == 0
    assert cli("validate", "--fail-on", "warning", str(warn)).exit_code == 1
    broken = tmp_path / "broken.json"
    broken.write_text('{"id": "b1", ')
    assert cli("validate", str(broken), str(warn)).exit_code == 3
    missing = cli("validate", str(tmp_path / "nope.json"))
    assert missing.exit_code == 2 and "no such file or directory" in missing.output
    assert cli("validate", "--kind", "nonsense", str(clean)).exit_code == 2


def test_malformed_json_has_line_and_column(tmp_path):
    bad = tmp_path / "trailing.json"
    bad.write_text('{\n  "id": "b1",\n  "slot": "profile",\n}\n')
    code, report = cli_json(str(bad))
    assert code == 3
    [f] = report["findings"]
    assert (f["rule"], f["line"]) == ("invalid-json", 4) and f["column"] in (1, 2)


def test_unknown_kind_names_the_closest(tmp_path):
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"username": "ann", "realname": "Ann", "about": "hi"}))
    code, report = cli_json(str(odd))
    [f] = report["findings"]
    assert f["rule"] == "unknown-kind" and "closest" in f["message"]
    assert code == 1


@pytest.mark.parametrize("text,shape", [("42", "a number"), ("-1.5", "a number"),
                                        ('"pkg"', "a string"), ("true", "a boolean"),
                                        ("null", "null")])
def test_unknown_kind_of_a_top_level_scalar_says_what_it_is(tmp_path, text, shape):
    doc = tmp_path / "scalar.json"
    doc.write_text(text + "\n")
    code, report = cli_json(str(doc))
    [f] = report["findings"]
    assert (f["rule"], f["code"], f["pointer"], f["line"], f["column"]) == (
        "unknown-kind", "P003", "", 1, 1)
    assert f"it is {shape}, not an object or array" in f["message"]
    assert "closest" not in f["message"] and code == 1


def test_an_array_is_a_version_list_only_with_version_fields(tmp_path):
    from quizkit.model.kinds import detect_kind

    versions = json.loads((SAMPLES / "version-list.json").read_text())
    assert detect_kind(versions) == "version-list"
    assert detect_kind([]) == "version-list"  # a package without versions
    for fields in ({"packageId": "p1"}, {"rounds": []}, {"published": True}):
        assert detect_kind([fields]) == "version-list"
    assert detect_kind([{"id": "u1", "username": "ann"}]) is None
    # One version among other values: a version list with findings on the others (load
    # agrees: tests/test_model_kinds.py).
    assert detect_kind([{"id": "b1", "slot": "top"}, {"packageId": "p1"}]) == "version-list"
    assert detect_kind([1, 2]) is None
    assert detect_kind([{"packageId": "p1"}, "x"]) == "version-list"
    users = tmp_path / "users.json"
    users.write_text(json.dumps([{"username": "ann", "realname": "Ann", "about": "hi"}]))
    code, report = cli_json(str(users))
    [f] = report["findings"]
    assert f["rule"] == "unknown-kind" and "closest: user" in f["message"] and code == 1


def test_kind_option_forces_a_kind(tmp_path):
    doc = tmp_path / "banner.json"
    shutil.copy(SAMPLES / "banner.json", doc)
    _code, report = cli_json("--kind", "banner-create", str(doc))
    assert report["files"][0]["kind"] == "banner-create"
    assert {f["rule"] for f in report["findings"]} == {"unknown-field"}


def test_directories_are_walked_for_json_jsonl_and_gz(tmp_path):
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    shutil.copy(SAMPLES / "banner.json", sub / "one.json")
    (sub / "two.json.gz").write_bytes(gzip.compress((SAMPLES / "banner.json").read_bytes()))
    lines = [json.dumps(json.loads((SAMPLES / "banner.json").read_text()))] * 3
    (tmp_path / "three.ndjson").write_text("\n".join(lines) + "\n")
    (tmp_path / "ignored.txt").write_text("not json")
    code, report = cli_json(str(tmp_path))
    assert code == 0
    assert sorted(f["path"].rsplit("/", 1)[1] for f in report["files"]) == \
        ["one.json", "three.ndjson", "two.json.gz"]
    assert report["summary"]["documents"] == 5


def test_json_lines_findings_carry_the_record_line(tmp_path):
    good = json.dumps(json.loads((SAMPLES / "banner.json").read_text()))
    bad = good.replace('"position":', '"position":"x","zz":')
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join([good, "", bad, "{oops", good]) + "\n")
    code, report = cli_json(str(batch))
    assert code == 3
    assert report["summary"]["documents"] == 4
    records = sorted({(f["record"], f["rule"]) for f in report["findings"]})
    assert (3, "wrong-type") in records and (4, "invalid-json") in records
    assert all(f["line"] == f["record"] for f in report["findings"])


def test_stdin(tmp_path):
    data = (SAMPLES / "banner.json").read_bytes()
    result = cli("validate", "--format", "json", "-", input=data)
    report = json.loads(result.output)
    assert result.exit_code == 0 and report["files"][0]["path"] == "<stdin>"
    bad = cli("validate", "-", input=b'{"slot": 1}')
    assert bad.exit_code == 1
    assert bad.output.startswith("<stdin>\n  1:10     error    S001 wrong-type")


def test_python_api_matches_the_cli():
    report = quizkit.validate([str(p) for p in valid_samples()])
    assert report.summary()["errors"] == 0 and report.exit_code() == 0
    assert report.summary()["files"] == len(valid_samples())


def test_parallel_run_gives_the_same_report(tmp_path):
    for i in range(12):
        doc = json.loads((SAMPLES / "banner.json").read_text())
        if i % 3 == 0:
            doc["position"] = -i - 1
        (tmp_path / f"b{i:02}.json").write_text(json.dumps(doc, indent=2))
    _, one = cli_json("--jobs", "1", str(tmp_path))
    _, two = cli_json("--jobs", "2", str(tmp_path))
    assert one == two and one["summary"]["errors"] == 4


def test_console_script_subprocess():
    proc = run_script("validate", "--format", "json", "samples/", "--exclude", "invalid")
    assert proc.returncode == 0, proc.stderr.decode()
    report = json.loads(proc.stdout)
    assert report["summary"]["errors"] == 0
    assert report["summary"]["files"] == len(valid_samples())
    bad = run_script("validate", "no/such/path")
    assert bad.returncode == 2 and b"Traceback" not in bad.stderr
    assert bad.stderr.decode().strip().splitlines()[-1].endswith("no/such/path")


def test_exclude_skips_walked_paths_but_not_named_files(tmp_path):
    (tmp_path / "keep").mkdir()
    (tmp_path / "skip").mkdir()
    shutil.copy(SAMPLES / "banner.json", tmp_path / "keep" / "a.json")
    (tmp_path / "skip" / "bad.json").write_text("{")
    code, report = cli_json("--exclude", "skip", str(tmp_path))
    assert code == 0 and [f["path"] for f in report["files"]] == [str(tmp_path / "keep/a.json")]
    code, _ = cli_json("--exclude", "skip", str(tmp_path / "skip" / "bad.json"))
    assert code == 3


def test_a_duplicate_is_reported_on_the_later_file_in_input_order(tmp_path):
    """A directory is walked files first, then subdirectories, each in name order: not the
    order of its files' sorted paths. The catalog says so."""
    root = tmp_path / "d"
    (root / "a").mkdir(parents=True)
    shutil.copy(SAMPLES / "version.json", root / "b.json")
    doc = json.loads((SAMPLES / "version.json").read_text())
    doc["published"] = not doc["published"]
    (root / "a" / "x.json").write_text(json.dumps(doc))
    first, later = root / "a" / "x.json", root / "b.json"

    def reported_on(*args):
        _, report = cli_json(*map(str, args))
        return [(f["path"], f["message"].rsplit(" in ", 1)[1]) for f in report["findings"]
                if f["rule"] == "conflicting-duplicate"]

    assert reported_on(first, later) == [(str(later), str(first))]
    assert reported_on(later, first) == [(str(first), str(later))]
    assert reported_on(root) == [(str(first), str(later))]  # b.json is walked before a/
    for name in ("conflicting-duplicate", "identical-duplicate"):
        assert "later of the two documents in input order" in \
            REGISTRY.get(name).explanation
