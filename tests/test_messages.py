"""Messages people read: JSON values, each pointer once, unknown fields at the field, short lines.

Through the real CLI (in process, and as a subprocess for the large cases).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson

from tests.conftest import INVALID, SAMPLES, cli, cli_json, run_script

#: A report line may run to this many characters however large the input's values are.
LINE_LIMIT = 400


def _user_self() -> dict:
    return json.loads((SAMPLES / "user-self.json").read_text())


def test_messages_speak_json_not_python(tmp_path: Path) -> None:
    doc = _user_self()
    doc["user"]["about"] = None
    doc["user"]["pkgCount"] = {"a": 1}
    doc["user"]["verified"] = "yes"
    path = tmp_path / "user.json"
    path.write_bytes(orjson.dumps(doc))
    code, report = cli_json(str(path))
    messages = {f["pointer"]: f["message"] for f in report["findings"]}
    assert code == 1
    assert messages["/user/about"] == 'null is not of type "string"'
    assert messages["/user/pkgCount"] == '{"a": 1} is not of type "number"'
    assert messages["/user/verified"] == '"yes" is not of type "boolean"'
    for message in messages.values():
        assert "None" not in message and "'" not in message
    published_null = INVALID / "version-published-null.json"
    _, report = cli_json(str(published_null))
    assert 'null is not of type "boolean"' in {f["message"] for f in report["findings"]}


def test_missing_fields_are_named_in_json(tmp_path: Path) -> None:
    doc = _user_self()
    del doc["user"]["pkgCount"]
    path = tmp_path / "user.json"
    path.write_bytes(orjson.dumps(doc))
    _, report = cli_json(str(path))
    [f] = report["findings"]
    assert (f["rule"], f["pointer"], f["message"]) == (
        "missing-field", "/user", 'missing required field "pkgCount"')


def test_an_unknown_field_in_a_nullable_object_points_at_the_field(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "version.json").read_text())
    step = next(i for i, s in enumerate(doc["steps"]) if s["payload"].get("media"))
    doc["steps"][step]["payload"]["media"]["extra"] = 1
    doc["steps"][step]["payload"]["media"]["more"] = 2
    path = tmp_path / "version.json"
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    _, report = cli_json(str(path))
    got = sorted((f["pointer"], f["message"], f["line"]) for f in report["findings"]
                 if f["rule"] == "unknown-field")
    base = f"/steps/{step}/payload/media"
    lines = path.read_text().splitlines()
    assert [(p, m) for p, m, _ in got] == [(f"{base}/extra", 'unknown field "extra"'),
                                           (f"{base}/more", 'unknown field "more"')]
    for _, _, line in got:  # the line of the field, not of the object that holds it
        assert '"extra"' in lines[line - 1] or '"more"' in lines[line - 1]


def test_a_duplicate_at_the_same_pointer_says_the_pointer_once(tmp_path: Path) -> None:
    versions = json.loads((SAMPLES / "version-list.json").read_text())
    (tmp_path / "a.json").write_bytes(orjson.dumps(versions))
    versions[0]["published"] = not versions[0]["published"]
    (tmp_path / "b.json").write_bytes(orjson.dumps(versions))
    result = cli("validate", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    [line] = [ln for ln in result.output.splitlines() if "conflicting-duplicate" in ln]
    assert line.count(" at /0") == 1 and "at the same pointer" in line


def test_long_values_and_huge_enums_keep_report_lines_short(tmp_path: Path) -> None:
    allowed = [f"lang-{i:06d}" for i in range(100_000)]
    profile = tmp_path / "profile.toml"
    profile.write_text("[enums]\nlanguage = " + json.dumps(allowed) + "\n")
    doc = _user_self()
    doc["settings"]["language"] = "x" * 1_000_000
    doc["user"]["about"] = ["y" * 1_000_000]
    (tmp_path / "user.json").write_bytes(orjson.dumps(doc))
    near = _user_self()
    near["settings"]["language"] = "LANG-000007"
    (tmp_path / "near.json").write_bytes(orjson.dumps(near))
    proc = run_script("validate", "--profile", str(profile), str(tmp_path / "user.json"),
                      str(tmp_path / "near.json"))  # its timeout: a search that never ends
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert max(len(line) for line in lines) <= LINE_LIMIT
    enum_lines = [line for line in lines if "unknown-enum-value" in line]
    assert len(enum_lines) == 2
    assert all("and 99,995 more" in line for line in enum_lines)
    assert any("(1,000,000 characters)" in line for line in enum_lines)
    assert any('did you mean "lang-000007"?' in line for line in enum_lines)
    about = next(line for line in lines if "/user/about" in line)
    assert "is not of type" in about and "characters)" in about


def test_a_huge_duplicate_key_is_cut_in_the_message(tmp_path: Path) -> None:
    key = "k" * 1_000_000
    path = tmp_path / "dup.json"
    path.write_text(f'{{"{key}": 1, "{key}": 2}}')
    _, report = cli_json(str(path))
    [dup] = [f for f in report["findings"] if f["rule"] == "duplicate-key"]
    assert len(dup["message"]) < LINE_LIMIT
    assert dup["message"].startswith('duplicate key "kkk') and "(1,000,000 characters)" in \
        dup["message"]


#: A JSON string literal of a message (taken out before looking for Python's spelling).
JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
#: Python's spelling outside JSON strings: None/True/False, a quote that opens a string
#: ('a', {'a': 1}; an apostrophe after a letter, as in "the list's", is English), b'..'.
PYTHON_SPELLING = re.compile(r"\b(None|True|False)\b|(?<![\w\"])'|\bb'")
#: A date-time outside a JSON string.
BARE_TIME = re.compile(r"\d{4}-\d\d-\d\d[Tt ]\d\d:")


def python_spelling(message: str) -> str | None:
    """The first bit of Python's spelling in ``message`` outside its JSON strings."""
    found = PYTHON_SPELLING.search(JSON_STRING.sub('""', message))
    return found.group(0) if found else None


def test_the_scan_for_python_spelling_can_fail() -> None:
    for message in ("None is not of type 'string'", "{'a': 1} is not a list",
                    "theme 't1' has no questions", "value True", "b'x' is odd"):
        assert python_spelling(message), message
    for message in ('null is not of type "string"', 'theme "it\'s None" has no questions',
                    "packageId \"p\" differs from the list's first version"):
        assert python_spelling(message) is None, message


def test_no_finding_message_speaks_python(tmp_path: Path) -> None:
    """Every finding of the invalid samples and of a generated corpus with many defects:
    JSON spelling, its own pointer not said again, a readable length."""
    corpus = tmp_path / "corpus"
    made = cli("samples", "generate", "--packages", "30", "--seed", "11", "--broken", "0.5",
               "--out", str(corpus))
    assert made.exit_code == 0, made.output
    (corpus / "trailing-comma.json").write_text('{"id": "b1", "current": true,}')
    _, report = cli_json(str(INVALID), str(corpus))
    findings = report["findings"]
    assert len({f["rule"] for f in findings}) >= 40  # the scan sees most rules
    python = {f["message"] for f in findings if python_spelling(f["message"])}
    assert not python
    bare_times = {f["message"] for f in findings
                  if BARE_TIME.search(JSON_STRING.sub('""', f["message"]))}
    assert not bare_times  # a timestamp from the input is a JSON string: "2026-01-01T..."
    repeated = {f["message"] for f in findings if f["pointer"] and re.search(
        r"(?<![\w/~])" + re.escape(f["pointer"]) + r"(?![\w/~])", f["message"])}
    assert not repeated
    assert max(len(f["message"]) for f in findings) <= LINE_LIMIT


def test_long_pointers_are_cut_in_lines_people_read(tmp_path: Path) -> None:
    """A 5,000-character key and a path of long keys: the report lines show a readable pointer
    (its start and end), the JSON report the whole of it."""
    doc = json.loads((SAMPLES / "version.json").read_text())
    key = "k" * 5000
    doc[key] = 1
    step = next(i for i, s in enumerate(doc["steps"]) if s["payload"].get("media"))
    doc["steps"][step]["payload"]["media"]["m" * 300] = 2
    path = tmp_path / "version.json"
    path.write_bytes(orjson.dumps(doc))
    _, report = cli_json(str(path))
    pointers = sorted(f["pointer"] for f in report["findings"] if f["rule"] == "unknown-field")
    deep = f"/steps/{step}/payload/media/{'m' * 300}"
    assert pointers == [f"/{key}", deep]
    for fmt in ("text", "concise", "github", "junit", "markdown"):
        result = cli("validate", "--format", fmt, str(path))
        lines = result.output.splitlines()
        assert max(len(line) for line in lines) <= LINE_LIMIT, fmt
        assert f"/{'k' * 39}…" in result.output and f"/{key}" not in result.output, fmt
        assert f"/steps/{step}/payload/media/{'m' * 39}…" in result.output, fmt


def test_a_mistyped_command_gets_a_suggestion() -> None:
    """Commands are imported when used; the suggestion still knows them all."""
    proc = run_script("valdate", "samples")
    assert proc.returncode == 2
    assert "No such command 'valdate'. Did you mean 'validate'?" in proc.stderr.decode()
