"""The engine's position resolver answers as the slow oracle in ``position_oracle.py`` does."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizkit.catalog.pointers import join_pointer as pointer
from quizkit.inputs.parsing import LineIndex
from quizkit.inputs.positions import Positions
from tests.conftest import valid_samples
from tests.position_oracle import locate


def _pointers(doc: Any, where: str = "") -> Iterator[str]:
    yield where
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _pointers(value, where + pointer([key]))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from _pointers(value, where + pointer([i]))


def _texts() -> list[tuple[str, str]]:
    out = []
    for path in valid_samples():
        if path.suffix == ".json":
            out.append((path.name, path.read_text(encoding="utf-8")))
    return out


@pytest.mark.parametrize("name,text", _texts(), ids=lambda v: v if len(v) < 40 else "")
def test_pointers_of_the_samples(name, text):
    doc = json.loads(text)
    positions = Positions(text)
    rnd = random.Random(name)
    pointers = list(_pointers(doc))
    pointers = rnd.sample(pointers, min(60, len(pointers)))  # locate is slow on big texts
    missing = [p + "/zz" for p in rnd.sample(pointers, min(20, len(pointers)))]
    missing += [p + "/999" for p in rnd.sample(pointers, min(20, len(pointers)))]
    for p in pointers + missing:
        assert positions.locate(p) == locate(text, p), p


@pytest.mark.parametrize("text,where", [
    ('{"a": 1, "a": {"b": [1, 2]}}', "/a/b/1"),              # the last duplicate wins
    ('{"a~b": {"c/d": 3}}', "/a~0b/c~1d"),                    # escaped pointer tokens
    ('{"k\\u0065y": ["x", "]", {"}": "{"}]}', "/key/2/}"),      # escapes, brackets in strings
    ('{"s": "a\\"b", "t": [[], {}, [[]]], "u": null}', "/u"),
    ('[1, 2]', "/2"), ('[1, 2]', "/x"), ('{"a": 1}', "/a/b"), ('  {"a": 1}', ""),
])
def test_awkward_texts(text, where):
    assert Positions(text).locate(where) == locate(text, where)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab\n\r€\t", max_size=40), st.data())
def test_line_index_counts_as_its_table_does(text, data):
    counted, table = LineIndex(text), LineIndex(text)
    table.starts  # noqa: B018 (builds the table: every answer comes from it)
    offsets = data.draw(st.lists(st.integers(0, len(text) + 2), max_size=12))
    for offset in offsets:  # the first few are counted, the rest come from the table
        assert counted.position(offset) == table.position(offset)


# --- orjson's indented writing: containers skipped by their closing line -------------------------

def _indented_texts() -> list[tuple[str, str]]:
    import orjson

    out = []
    for name, text in _texts():
        out.append((name, orjson.dumps(json.loads(text), option=orjson.OPT_INDENT_2).decode()))
    return out


@pytest.mark.parametrize("name,text", _indented_texts(), ids=lambda v: v if len(v) < 40 else "")
def test_indented_pointers_of_the_samples(name, text):
    doc = json.loads(text)
    positions = Positions(text, indented=True)
    rnd = random.Random(name)
    pointers = list(_pointers(doc))
    pointers = rnd.sample(pointers, min(60, len(pointers)))
    missing = [p + "/zz" for p in rnd.sample(pointers, min(20, len(pointers)))]
    missing += [p + "/999" for p in rnd.sample(pointers, min(20, len(pointers)))]
    for p in pointers + missing:
        assert positions.locate(p) == locate(text, p), p


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False,
                                                                allow_infinity=False)
    | st.text(alphabet='ab"\\\n]}[{ :,', max_size=6),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(alphabet='ab"]}\n', max_size=3), inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(_json_values, st.data())
def test_indented_texts_agree_with_the_token_walk(value, data):
    import orjson

    from quizkit.inputs import intake

    raw = orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    _, problems, indented = intake.parse_text(raw)
    assert indented == (raw[1:2] == b"\n") and problems == []
    text = raw.decode()
    pointers = list(_pointers(value))
    pointers += [p + "/0" for p in pointers[:5]] + [p + "/x" for p in pointers[:5]]
    positions = Positions(text, indented=True)
    for p in data.draw(st.lists(st.sampled_from(pointers), max_size=8)):
        assert positions.locate(p) == locate(text, p), p


def test_many_pointers_into_one_large_array_agree_with_the_scanner():
    quoted = 'a"b\\c'  # a key that needs escapes in JSON
    doc = [{quoted: i, "dup": 1, "dup ": [i, {"x/y": "}]"}]} for i in range(300)]
    text = json.dumps(doc, indent=1).replace('"dup ": ', '"dup": ', 1)
    positions = Positions(text)
    pointers = ["", "/299", "/300", "/0/dup", f"/5/{quoted}", "/17/dup /1/x~1y", "/x",
                "/3/dup /2", "/0/dup/0"]
    pointers += [f"/{i}/dup /0" for i in range(0, 300, 7)]
    for ptr in pointers:
        assert positions.locate(ptr) == locate(text, ptr), ptr
