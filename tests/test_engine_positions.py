"""The engine's position resolver answers as ``parsing.locate`` does."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from quizkit.parsing import locate
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
