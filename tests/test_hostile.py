"""Hostile and broken input through the real CLI: a located finding and the right exit code,
never a traceback. The table of cases is also in docs/limits.md."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

from tests.conftest import SAMPLES, cli, cli_json, run_script

BANNER = (SAMPLES / "banner.json").read_bytes()
BANNER_LINE = json.dumps(json.loads(BANNER)).encode()


def only(report: dict, rule: str) -> dict:
    hits = [f for f in report["findings"] if f["rule"] == rule]
    assert len(hits) == 1, report["findings"]
    return hits[0]


# (file name, content, rule, exit code, line, column, words in the message)
CASES = [
    ("empty.json", b"", "empty-input", 3, 1, 1, "empty"),
    ("blank.json", b"  \n\t \n", "empty-input", 3, 1, 1, "whitespace"),
    ("blank.jsonl", b"\n\n", "empty-input", 3, 1, 1, "whitespace"),
    ("utf16.json", '{"slot": "profile"}'.encode("utf-16"), "bad-encoding", 3, 1, 1,
     "UTF-16"),
    ("utf16be.json", '{"slot": "profile"}'.encode("utf-16-be"), "bad-encoding", 3, 1, 1,
     "UTF-16 (big-endian)"),
    ("utf32.json", '{"slot": "profile"}'.encode("utf-32"), "bad-encoding", 3, 1, 1, "UTF-32"),
    ("latin1.json", '{\n  "slot": "pröfile"\n}'.encode("latin-1"), "bad-encoding", 3, 2, 14,
     "0xf6"),
    ("truncated.json", b'{"slot": "profile",\n "payload": {"type": "emo', "invalid-json", 3,
     2, 26, "truncated"),
    ("comma.json", b'{"slot": "profile",\n "current": true,\n}', "invalid-json", 3, 3, 1,
     "trailing comma"),
    ("comma-array.json", b'[{"slot": "profile"},\n]', "invalid-json", 3, 2, 1,
     "trailing comma"),
    ("comment.json", b'{"slot": "profile", // the slot\n "current": true}', "invalid-json", 3,
     1, 21, "comments"),
    ("block-comment.json", b'/* export */ {"slot": "profile"}', "invalid-json", 3, 1, 1,
     "comments"),
    ("nan.json", b'{"slot": "profile", "position": NaN}', "invalid-json", 3, 1, 33, "NaN"),
    ("infinity.json", b'{"slot": "profile", "position": -Infinity}', "invalid-json", 3, 1, 33,
     "-Infinity"),
    ("overflow.json", b'{"slot": "profile", "position": 1e999}', "invalid-json", 3, 1, 33,
     "infinity"),
    ("two-docs.json", b'{"slot": "profile"}\n{"slot": "profile"}', "invalid-json", 3, 2, 1,
     "after the end"),
    ("bigint.json", b'{"slot": "profile",\n "position": 123456789012345678901234567890}',
     "integer-out-of-range", 1, 2, 14, "64-bit"),
    ("neg-bigint.json", b'{"slot": "profile", "position": -9223372036854775809}',
     "integer-out-of-range", 1, 1, 33, "64-bit"),
    ("scalar.json", b"42", "unknown-kind", 1, 1, 1, "kind"),
    ("string.json", b'  "just a string"', "unknown-kind", 1, 1, 3, "kind"),
    ("deep.json", b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "too-deep", 3, 1, 1271,
     "nested deeper"),
    ("deep-array.json", b"[" * 100_000, "too-deep", 3, 1, 255, "nested deeper"),
    ("not-gzip.json.gz", b'{"slot": "profile"}', "unreadable-input", 3, None, None,
     "not gzip"),
    ("truncated.json.gz", gzip.compress(BANNER)[:-12], "unreadable-input", 3, None, None,
     "gzip"),
]


@pytest.mark.parametrize(("name", "content", "rule", "code", "line", "column", "words"), CASES,
                         ids=[c[0] for c in CASES])
def test_broken_input_gives_a_located_finding(tmp_path, name, content, rule, code, line, column,
                                              words):
    path = tmp_path / name
    path.write_bytes(content)
    exit_code, report = cli_json(str(path))
    hit = only(report, rule)
    assert words in hit["message"]
    assert (hit["line"], hit["column"]) == (line, column)
    assert exit_code == code


def test_byte_order_mark_is_accepted_and_noted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + BANNER)
    code, report = cli_json(str(path))
    [hit] = report["findings"]
    assert (hit["rule"], hit["severity"], hit["line"], hit["column"]) == \
        ("byte-order-mark", "info", 1, 1)
    assert code == 0 and report["files"][0]["kind"] == "banner"
    assert cli("validate", "--fail-on", "info", str(path)).exit_code == 1


def test_duplicate_keys_name_both_places(tmp_path):
    doc = BANNER.replace(b'"slot": "profile",', b'"slot": "profile",\n  "slot": "avatar",')
    path = tmp_path / "dup.json"
    path.write_bytes(doc)
    code, report = cli_json(str(path))
    hit = only(report, "duplicate-key")
    lines = doc.decode().splitlines()
    first = next(i for i, text in enumerate(lines, 1) if '"slot"' in text)
    assert (hit["line"], hit["column"]) == (first + 1, 3)
    assert f"first at line {first}, column 3" in hit["message"]
    assert hit["pointer"] == "/slot" and hit["severity"] == "error"
    assert code == 1


def test_duplicate_keys_in_nested_objects_and_escaped_names(tmp_path):
    path = tmp_path / "dup.json"
    # "\u0074ype" is "type": the same key, spelled differently; \u003a escapes a colon.
    path.write_bytes(b'{"slot": "profile", "payload": {"type": "emoji", "value": "a\\u003ab",'
                     b' "\\u0074ype": "image"}}')
    code, report = cli_json(str(path))
    hit = only(report, "duplicate-key")
    assert hit["pointer"] == "/payload/type" and (hit["line"], hit["column"]) == (1, 71)
    assert code == 1


def test_a_colon_escape_does_not_hide_a_duplicate(tmp_path):
    # One \u003a adds a colon to what orjson writes back, one duplicate removes one.
    path = tmp_path / "dup.json"
    path.write_bytes(b'{"slot": "a\\u003ab", "slot": "profile"}')
    _, report = cli_json(str(path))
    assert only(report, "duplicate-key")["pointer"] == "/slot"


def test_json_lines_bad_line_in_the_middle_keeps_the_others(tmp_path):
    bad_record = BANNER_LINE.replace(b'"position": 1', b'"position": "one"')
    assert bad_record != BANNER_LINE
    lines = [BANNER_LINE, b'{"slot": "profile", ', bad_record, b"\xff\xfe", BANNER_LINE,
             b'{"slot":"profile","slot":"x"}']
    path = tmp_path / "batch.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    code, report = cli_json(str(path))
    assert report["summary"]["documents"] == 6
    got = sorted((f["record"], f["rule"]) for f in report["findings"])
    assert got == [(2, "invalid-json"), (3, "wrong-type"), (4, "bad-encoding"),
                   (6, "duplicate-key")]
    assert all(f["line"] == f["record"] for f in report["findings"])
    assert code == 3


def test_deep_but_allowed_nesting_is_checked_without_recursion_errors(tmp_path):
    # 253 levels inside "payload" (254 with the document): the default limit, accepted.
    deep = b'{"slot": "profile", "payload": ' + b"[" * 253 + b"]" * 253 + b"}"
    path = tmp_path / "deep.json"
    path.write_bytes(deep)
    code, report = cli_json(str(path))
    assert [f["rule"] for f in report["findings"]] == ["wrong-type"]
    assert code == 1
    deeper = b'{"slot": "profile", "payload": ' + b"[" * 254 + b"]" * 254 + b"}"
    path.write_bytes(deeper)
    code, report = cli_json(str(path))
    assert only(report, "too-deep")["column"] == 32 + 253 and code == 3


@pytest.mark.parametrize("depth", [300, 1000, 1024])
def test_raised_depth_limit_never_crashes(tmp_path, depth):
    path = tmp_path / "deep.json"
    path.write_bytes(b'{"slot": "profile", "payload": ' + b'{"a":' * (depth - 1) + b"1"
                     + b"}" * (depth - 1) + b"}")
    result = cli("validate", "--format", "json", "--max-depth", "1024", str(path))
    report = json.loads(result.output)
    assert result.exit_code in (0, 1, 3) and report["findings"]
    assert {f["rule"] for f in report["findings"]} <= {"unknown-field", "too-deep"}


def test_max_depth_option(tmp_path):
    path = tmp_path / "banner.json"
    path.write_bytes(BANNER)
    assert cli("validate", "--max-depth", "2", str(path)).exit_code == 0
    code, report = cli_json("--max-depth", "1", str(path))
    hit = only(report, "too-deep")
    assert (hit["line"], hit["column"]) == (7, 14) and code == 3
    assert cli("validate", "--max-depth", "2000", str(path)).exit_code == 2


def test_max_file_size_option(tmp_path):
    path = tmp_path / "banner.json"
    path.write_bytes(BANNER)
    code, report = cli_json("--max-file-size", "100", str(path))
    hit = only(report, "input-too-large")
    assert "--max-file-size" in hit["message"] and hit["path"] == str(path) and code == 3
    assert cli_json("--max-file-size", "1KiB", str(path))[0] == 0
    bad = cli("validate", "--max-file-size", "lots", str(path))
    assert bad.exit_code == 2 and "not a size" in bad.output


def test_sizes_are_si_or_binary_as_written(tmp_path):
    """``1KB`` is 1,000 bytes and ``1KiB`` 1,024, in the option and in the message."""
    path = tmp_path / "banner.json"
    path.write_bytes(BANNER.rstrip() + b" " * (1010 - len(BANNER.rstrip())))  # 1,010 bytes
    code, report = cli_json("--max-file-size", "1KB", str(path))
    hit = only(report, "input-too-large")
    assert "1KB" in hit["message"] and code == 3
    assert cli_json("--max-file-size", "1KiB", str(path))[0] == 0
    code, report = cli_json("--max-file-size", "1024", str(path))
    assert code == 0
    code, report = cli_json("--max-file-size", "1000", str(path))
    assert "1KB" in only(report, "input-too-large")["message"]
    bad = cli("validate", "--max-file-size", "1XB", str(path))
    assert bad.exit_code == 2 and "MB = 10^6 bytes, MiB = 2^20" in bad.output


def test_max_file_size_applies_to_stdin():
    result = cli("validate", "--format", "json", "--max-file-size", "100", "-", input=BANNER)
    assert only(json.loads(result.output), "input-too-large") and result.exit_code == 3


def test_gzip_bomb_is_stopped_at_the_decompressed_limit(tmp_path):
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = b"\0" * (1 << 20)
    bomb = b"".join(packer.compress(zeros) for _ in range(64)) + packer.flush()  # 64 MB
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(bomb)
    code, report = cli_json("--max-decompressed-size", "8MB", str(path))
    hit = only(report, "input-too-large")
    assert "8MB" in hit["message"] and "--max-decompressed-size" in hit["message"]
    assert code == 3


def test_multi_member_gzip_is_read_whole(tmp_path):
    half = len(BANNER_LINE) // 2
    path = tmp_path / "two.jsonl.gz"
    path.write_bytes(gzip.compress(BANNER_LINE + b"\n") + gzip.compress(BANNER_LINE[:half])
                     + gzip.compress(BANNER_LINE[half:] + b"\n"))
    code, report = cli_json(str(path))
    assert report["summary"]["documents"] == 2 and code == 0


def test_hundred_megabyte_string_is_linear(tmp_path):
    # An escaped quote every few bytes defeats the one-find fast path in the scanner.
    body = b'ab\\"' * (25 * 1024 * 1024)
    path = tmp_path / "big.json"
    path.write_bytes(b'{"slot": "' + body + b'", "slot": "profile", "x": 1}')
    proc = run_script("validate", "--format", "json", str(path), timeout=90)
    report = json.loads(proc.stdout)
    assert {f["rule"] for f in report["findings"]} == {"duplicate-key", "unknown-field"}
    assert proc.returncode == 1, proc.stderr.decode()
