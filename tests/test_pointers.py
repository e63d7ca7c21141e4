"""JSON Pointer escaping (RFC 6901), one helper for all: the function and what reports show."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES, cli_json

from quizkit.catalog.pointers import (
    POINTER_LIMIT,
    escape_token,
    join_pointer,
    readable,
    split_pointer,
    unescape_token,
)


@pytest.mark.parametrize(("key", "token"), [
    ("plain", "plain"), ("a/b", "a~1b"), ("a~b", "a~0b"), ("~1", "~01"), ("/~", "~1~0"),
    ("", ""), (7, "7"),
])
def test_escape_and_back(key, token):
    assert escape_token(key) == token
    assert unescape_token(token) == str(key)


def test_join_and_split_are_inverse():
    parts = ["versions", "0", "a/b", "~1", "", "x~y/z"]
    pointer = join_pointer(parts)
    assert pointer == "/versions/0/a~1b/~01//x~0y~1z"
    assert split_pointer(pointer) == parts
    assert join_pointer([]) == "" and split_pointer("") == []


def test_a_finding_on_a_key_with_slash_and_tilde_points_at_it(tmp_path):
    """Through the CLI: an unknown field ``a/b~c`` is reported at ``/a~1b~0c``, with the line
    and column of that key's value found by reading the pointer back."""
    doc = json.loads((SAMPLES / "banner.json").read_text())
    doc["a/b~c"] = 1
    path = tmp_path / "banner.json"
    path.write_text(json.dumps(doc, indent=2))
    _, report = cli_json(str(path))
    [finding] = [f for f in report["findings"] if f["rule"] == "unknown-field"]
    assert finding["pointer"] == "/a~1b~0c"
    line = path.read_text().splitlines()[finding["line"] - 1]
    assert '"a/b~c"' in line


def test_a_long_pointer_is_shown_cut_and_a_short_one_whole():
    short = "/versions/0/questions/3/price"
    assert readable(short) == short
    deep = join_pointer(["a" * 50, "b" * 50, "c" * 50, "d" * 50, "e" * 50, "f" * 50])
    shown = readable(deep)
    assert shown == f"/{'a' * 39}…/{'b' * 39}…/…/{'e' * 39}…/{'f' * 39}…"
    assert len(shown) < len(deep) and len(readable("/" + "x" * 10_000)) <= POINTER_LIMIT
