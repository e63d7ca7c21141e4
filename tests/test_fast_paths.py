"""The structural rules' fast paths (shared version index, C-level column tests) never change
a finding: with every fast path switched off (``check_document(..., fast=False)``: each check takes
its exact, per-item path) the raw findings of a document are the same, in the same order."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizkit.checks.engine import check_document
from quizkit.model import proofs
from quizkit.model.kinds import detect_kind
from quizkit.model.schemas import BASE_URI, SchemaBook
from quizkit.rules import version_index
from quizkit.rules.navigate import parse_time
from tests.conftest import SAMPLES, valid_samples
from tests.structural_mutations import mutate


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> list:
    from quizkit.generate import generate_corpus

    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(root, packages=6, seed=5, broken=0.3, workers=1)
    paths = sorted(p for p in root.rglob("*.json") if p.name != "manifest.json.txt")
    paths += [p for p in valid_samples() if p.suffix == ".json"]
    paths += sorted((SAMPLES / "invalid" / "rules").glob("*.json"))
    docs = []
    for path in paths:
        try:
            doc = orjson.loads(Path(path).read_bytes())
        except orjson.JSONDecodeError:
            continue
        if detect_kind(doc) is not None:
            docs.append(doc)
    return docs


#: The schemas, compiled once for these tests.
BOOK = SchemaBook()


def _raw(doc, kind, fast: bool = True) -> list:
    _kind, raw, _facts = check_document(doc, kind, BOOK, fast=fast)
    return [(r.code, pointer, message) for r, pointer, message in raw]


def _both_ways(doc, kind) -> tuple[list, list]:
    return _raw(doc, kind), _raw(doc, kind, fast=False)


def _same(fast: list, exact: list) -> None:
    # python-jsonschema reports some errors in set order (it varies between processes, not
    # between two calls): the structural findings keep their order, the rest their count.
    assert sorted(fast) == sorted(exact)
    structural = [f for f in fast if not f[0].startswith("S")]
    assert structural == [f for f in exact if not f[0].startswith("S")]


def test_unchanged_documents(documents):
    for doc in documents:
        _same(*_both_ways(doc, detect_kind(doc)))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_mutated_documents(documents, seed, count):
    rng = random.Random(seed)
    base = rng.choice(documents)
    doc = mutate(base, rng, count=count)
    _same(*_both_ways(doc, detect_kind(base)))


def test_the_switch_reaches_every_fast_path(documents):
    """With the fast paths off, the exact paths run (and are slower): the switch is live."""
    package = next(d for d in documents if detect_kind(d) == "package-full" and d["versions"])
    version = package["versions"][0]
    fast = version_index.VersionIndex(version)
    exact = version_index.VersionIndex(version, fast=False)
    assert all(fast.payloads()) and not any(exact.payloads())
    assert fast.get("steps").no_fraction("position")
    assert not exact.get("steps").no_fraction("position")
    assert not version_index.positions_clean([{"position": 0}], None, fast=False)


# --- the proving schemas (quizkit.model.proofs) ---------------------------------------------

def _places(node, path=()):
    """(path, value) of every value of a document, depth first."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _places(value, (*path, i))


def _holder(doc, path):
    for key in path[:-1]:
        doc = doc[key]
    return doc


def _changed(doc, path, value):
    doc = copy.deepcopy(doc)
    _holder(doc, path)[path[-1]] = value
    return doc


def _one_change_per_place(doc):
    """Copies of ``doc``, each with one value changed where a proof could speak, at the first
    of each place (array indexes aside): a number made fractional, a ``src`` made blank, an
    array of strings given a blank item or a repeated one, a date-time made one earlier than
    its record's ``createdAt`` that sorts later as text (an ISO week date, of the same
    length)."""
    seen = set()
    for path, value in _places(doc):
        place = tuple("*" if type(k) is int else k for k in path)
        if not path or place in seen:
            continue
        seen.add(place)
        if type(value) in (int, float):
            yield _changed(doc, path, value + 0.5)
        elif type(value) is str and path[-1] == "src":
            yield _changed(doc, path, " \t")
        elif type(value) is str and len(value) > 11 and parse_time(value) is not None:
            created = _holder(doc, path).get("createdAt")
            if type(created) is str and path[-1] != "createdAt":
                # the first week of the record's year: earlier, and later as text
                yield _changed(doc, path, created[:4] + "-W01-1T" + value[11:])
        elif type(value) is list and value and all(type(v) is str for v in value):
            yield _changed(doc, path, [*value, value[0]])
            yield _changed(doc, path, [" ", *value[1:]])


def _sample_documents():
    docs = []
    for path in valid_samples():
        if path.suffix == ".json":
            docs.append(orjson.loads(path.read_bytes()))
    return docs


def test_a_proof_never_hides_a_finding():
    """Every valid sample passes its kind's proving schema (the proofs are live), and a value
    changed anywhere a proof speaks gives the findings of the exact paths."""
    unproven = 0
    for doc in _sample_documents():
        kind = detect_kind(doc)
        assert BOOK.validator(kind).proves(doc), kind
        for changed in _one_change_per_place(doc):
            unproven += not BOOK.validator(kind).proves(changed)
            _same(*_both_ways(changed, kind))
    assert unproven > 30


def test_no_proof_where_a_keyword_could_widen_a_schema():
    """A schema holding a keyword under which an added constraint could accept more (``not``,
    ``oneOf``, ...) turns every proof off: a proven document would not be a valid one."""
    schemas = {uri: dict(s) for uri, s in BOOK.schemas.items()}
    assert proofs.proving_schemas(schemas, BASE_URI) is not None
    some = next(iter(schemas))
    schemas[some] = {**schemas[some], "not": {"type": "null"}}
    assert proofs.proving_schemas(schemas, BASE_URI) is None
