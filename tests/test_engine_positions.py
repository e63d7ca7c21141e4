"""The engine's position resolver answers as ``parsing.locate`` does."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizkit.parsing import LineIndex, locate
from quizkit.positions import Positions
from quizkit.schemas import pointer
from tests.conftest import valid_samples


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


@pytest.mark.parametrize("unique_keys", [False, True])
@pytest.mark.parametrize("name,text", _texts(), ids=lambda v: v if len(v) < 40 else "")
def test_pointers_of_the_samples(name, text, unique_keys):
    # The samples have no duplicate key: reading a key's first occurrence only (what the
    # engine does when the intake found no duplicate) gives the same answers.
    doc = json.loads(text)
    positions = Positions(text, unique_keys)
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
