"""A large export stays within the memory docs/limits.md promises, and the
positions of its findings still count characters, not bytes."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import orjson
from safety_cli import peak_rss

from tests.conftest import SAMPLES, console_script

_ID = re.compile(rb'"([0-9a-f]{24})"')


def _big_package(path: Path, megabytes: int) -> int:
    """The sample package with its versions repeated under new ids (each copy valid), text
    holding emoji, indented as the service writes it; one version in 50 has a stray field."""
    package = json.loads((SAMPLES / "package-full.json").read_text())
    versions = [orjson.dumps(v) for v in package["versions"]]
    keep = package["id"].encode()
    copies = []
    size = 0
    while size < megabytes * 1_000_000:
        n = len(copies)
        prefix = f"{n:08x}".encode()
        text = _ID.sub(lambda m, p=prefix: m.group(0) if m.group(1) == keep
                       else b'"' + p + m.group(1)[8:] + b'"', versions[n % len(versions)])
        version = orjson.loads(text)
        version["rounds"][0]["name"] = "Раунд ☕ " * 8  # four-byte and two-byte characters
        if n % 50 == 0:
            version["surplus"] = "☕"
        copies.append(version)
        size += len(text)
    package["versions"] = copies
    path.write_bytes(orjson.dumps(package, option=orjson.OPT_INDENT_2))
    return path.stat().st_size


def test_a_large_export_with_findings_stays_within_the_promised_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    size = _big_package(path, 40)
    done, peak = peak_rss("validate", "-q", "-j", "1", "--format", "json", path)
    report = json.loads(done.stdout)
    unknown = [f for f in report["findings"] if f["rule"] == "unknown-field"]
    assert unknown and done.returncode == 0
    # docs/limits.md promises at most 6 times the file (measured: about 4). The interpreter
    # and its modules are ~35 MB of the peak. The peak is the command's own: measured from
    # pytest directly, it would start at pytest's own high-water mark (see peak_rss), which
    # is what once made this 7.5x inside the whole suite.
    ratio = (peak - 35e6) / size
    assert ratio < 6, f"{ratio:.1f}x the file"


def test_a_large_document_parsed_in_pieces_keeps_every_finding(tmp_path: Path) -> None:
    """Above 16 MB a document is parsed piece by piece: what orjson drops silently (a
    duplicate key, inside a piece or between pieces; an integer beyond 64 bits) is still
    found, at the right place."""
    path = tmp_path / "big.json"
    _big_package(path, 18)
    text = path.read_bytes()
    inside = text.index(b'"name": ', len(text) // 2)  # in a version, far into the array
    text = text[:inside] + b'"name": "first",\n      ' + text[inside:]
    big = text.index(b'"position": ', len(text) // 3) + len(b'"position": ')
    text = text[:big] + b"123456789012345678901234567890" + text[text.index(b",", big):]
    between = text.rindex(b"\n}")
    text = text[:between] + b',\n  "id": "dup"' + text[between:]  # a second top-level "id"
    path.write_bytes(text)
    done = subprocess.run([console_script(), "validate", "--format", "json", str(path)],
                          capture_output=True, timeout=300)
    found = {(f["rule"], f["pointer"].count("/")) for f in json.loads(done.stdout)["findings"]
             if f["rule"] in ("duplicate-key", "integer-out-of-range")}
    assert found >= {("duplicate-key", 1), ("integer-out-of-range", 5)}, found
    assert any(rule == "duplicate-key" and depth > 1 for rule, depth in found), found
    at = {f["rule"]: f for f in json.loads(done.stdout)["findings"]
          if f["rule"] == "duplicate-key" and f["pointer"] == "/id"}
    assert at["duplicate-key"]["line"] == text[:between].count(b"\n") + 2


def test_columns_count_characters_after_multibyte_text(tmp_path: Path) -> None:
    banner = json.loads((SAMPLES / "banner.json").read_text())
    text = '{"payload": ' + json.dumps(banner["payload"], ensure_ascii=False) + ', '
    text += '"note": "Раунд ☕ é", "surplus": 1, '
    rest = {k: v for k, v in banner.items() if k != "payload"}
    text += json.dumps(rest, ensure_ascii=False)[1:]
    path = tmp_path / "b.json"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run([console_script(), "validate", "--format", "json", str(path)],
                          capture_output=True)
    findings = {f["pointer"]: f for f in json.loads(proc.stdout)["findings"]}
    for pointer in ("/note", "/surplus"):
        key = pointer[1:]
        expected = text.index(f'"{key}"') + 1  # characters, 1-based
        hit = findings[pointer]
        assert (hit["line"], hit["column"]) in ((1, expected),
                                                 (1, text.index(":", expected) + 3)), hit
