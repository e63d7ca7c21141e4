"""Property-based tests: whatever the input, validation ends with a report and an exit code in
{0, 1, 3}, never an exception; the cheap duplicate-key and big-integer tests miss nothing.

Example counts are kept small for CI (2 cores); ``fuzz/fuzz_validate.py`` runs for longer.
"""

from __future__ import annotations

import json
import string

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizkit.checks import engine
from quizkit.inputs import intake
from quizkit.inputs.parsing import LineIndex, scan
from quizkit.model.schemas import SchemaBook
from tests.conftest import SAMPLES, cli, valid_samples

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
#: The schemas, compiled once for these tests.
BOOK = SchemaBook()
SAMPLE_DOCS = [orjson.loads(p.read_bytes()) for p in valid_samples() if p.suffix == ".json"]

scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) \
    | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=5),
    max_leaves=30,
)


def run_bytes(data: bytes, lines: bool = False) -> int:
    """The exit code of checking ``data`` through the engine (as a file of that content)."""
    outcome = engine.check_bytes("fuzz.jsonl" if lines else "fuzz.json", data, lines,
                                 engine.Options(), BOOK)
    for finding in outcome.findings:
        assert finding.line is None or finding.line >= 1
        assert finding.column is None or finding.column >= 1
    if not outcome.result.readable:
        return 3
    return 1 if any(f.severity.name == "ERROR" for f in outcome.findings) else 0


@SETTINGS
@given(st.binary(max_size=400))
def test_arbitrary_bytes(data):
    assert run_bytes(data) in (0, 1, 3)
    assert run_bytes(data, lines=True) in (0, 1, 3)


@SETTINGS
@given(st.text(alphabet=string.printable + "{}[]\":,ü€\ud7ff", max_size=300))
def test_json_like_text(text):
    data = text.encode("utf-8", errors="surrogatepass")
    assert run_bytes(data) in (0, 1, 3)


@SETTINGS
@given(json_values)
def test_arbitrary_json_values_parse_and_never_give_3(value):
    assert run_bytes(orjson.dumps(value)) in (0, 1)


def _mutate(doc, draw, depth=0):
    """A copy of ``doc`` with a few keys deleted, types changed, or junk inserted."""
    if isinstance(doc, dict):
        out = {}
        for key, value in doc.items():
            action = draw(st.sampled_from(["keep"] * 6 + ["drop", "retype", "deeper"]))
            if action == "keep":
                out[key] = value
            elif action == "retype":
                out[key] = draw(json_values)
            elif action == "deeper" and depth < 6:
                out[key] = _mutate(value, draw, depth + 1)
        if draw(st.booleans()):
            out[draw(st.text(max_size=6))] = draw(json_values)
        return out
    if isinstance(doc, list) and doc:
        index = draw(st.integers(0, len(doc) - 1))
        return [*doc[:index], _mutate(doc[index], draw, depth + 1), *doc[index + 1:]]
    return draw(json_values) if draw(st.booleans()) else doc


@SETTINGS
@given(st.data())
def test_mutated_samples(data):
    doc = data.draw(st.sampled_from(SAMPLE_DOCS))
    mutated = _mutate(doc, data.draw)
    text = json.dumps(mutated, indent=data.draw(st.sampled_from([None, 2])))
    assert run_bytes(text.encode()) in (0, 1)


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_mutated_samples_through_the_cli(data):
    doc = _mutate(data.draw(st.sampled_from(SAMPLE_DOCS)), data.draw)
    result = cli("validate", "--format", "json", "-", input=orjson.dumps(doc))
    assert result.exit_code in (0, 1)
    assert json.loads(result.output)["summary"]["documents"] == 1


def _with_duplicate(value: dict, key: str, extra, ascii_only: bool) -> str:
    """JSON text of ``value`` with ``key`` written once more, first."""
    body = json.dumps(value, ensure_ascii=ascii_only)[1:]
    return "{" + json.dumps(key, ensure_ascii=ascii_only) + ": " + json.dumps(extra) + ", " + body


@SETTINGS
@given(st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=5), st.data(),
       st.booleans())
def test_every_duplicate_key_is_found(value, data, ascii_only):
    key = data.draw(st.sampled_from(sorted(value)))
    text = _with_duplicate(value, key, data.draw(json_values), ascii_only)
    wrapped = '{"outer": [' + text + "]}"
    _, problems = intake.parse(wrapped.encode())
    dups = [p for p in problems if p.rule.name == "duplicate-key"]
    assert dups and dups[0].pointer.startswith("/outer/0/")


@SETTINGS
@given(json_values)
def test_no_duplicate_reported_without_one(value):
    _, problems = intake.parse(orjson.dumps(value))
    assert [p for p in problems if p.rule.name == "duplicate-key"] == []


@SETTINGS
@given(st.one_of(st.integers(min_value=2**64), st.integers(max_value=-(2**63) - 1)),
       json_values)
def test_every_integer_beyond_64_bits_is_found(big, value):
    text = json.dumps({"v": value, "big": [big]})
    _, problems = intake.parse(text.encode())
    hits = [p for p in problems if p.rule.name == "integer-out-of-range"]
    assert [p.pointer for p in hits] == ["/big/0"]


@SETTINGS
@given(json_values)
def test_scan_agrees_with_orjson_on_valid_text(value):
    # The precise scanner finds nothing in text that orjson wrote (no duplicates, no big ints).
    assert list(scan(orjson.dumps(value).decode())) == []


def test_sample_bytes_survive_truncation_at_every_point():
    data = (SAMPLES / "banner.json").read_bytes().rstrip()
    for end in range(len(data)):
        assert run_bytes(data[:end]) in (1, 3)


# --- the canonical-text fast path of the pre-filter agrees with the precise scan ----------------

def _indented(value) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2)


SCANNED = {"duplicate": "duplicate-key", "integer": "integer-out-of-range"}


def _agrees(chunk: bytes) -> list:
    """The problems ``intake.parse`` reports are exactly those the precise scan
    (:func:`quizkit.inputs.parsing.scan`) finds: same rule, same place."""
    _, problems = intake.parse(chunk)
    text = chunk.decode("utf-8")
    index = LineIndex(text)
    scanned = [(SCANNED[t.what], t.pointer, *index.position(t.offset))
               for t in scan(text) if t.what in SCANNED]
    assert [(p.rule.name, p.pointer, p.line, p.column) for p in problems] == scanned
    return problems


@SETTINGS
@given(json_values, st.sampled_from([b"", b"\n", b"\r\n", b"  \n"]))
def test_canonical_texts_take_the_fast_path_and_agree(value, tail):
    for chunk in (orjson.dumps(value) + tail, _indented(value) + tail):
        assert _agrees(chunk) == []


@SETTINGS
@given(st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=5), st.data())
def test_indented_text_with_a_duplicate_key_is_not_canonical(value, data):
    key = data.draw(st.sampled_from(sorted(value)))
    extra = data.draw(json_values)
    inner = _indented(value)  # b'{\n  "k": ...'
    line = b"  " + orjson.dumps(key) + b": " + orjson.dumps(extra) + b",\n"
    text = b'{\n  "outer": [\n' + b"{\n" + line + inner[2:] + b"\n  ]\n}\n"
    problems = _agrees(text)
    dups = [p for p in problems if p.rule.name == "duplicate-key"]
    assert dups and dups[0].pointer.startswith("/outer/0/")


@SETTINGS
@given(st.one_of(st.integers(min_value=2**64, max_value=2**80),
                 st.integers(min_value=-(2**80), max_value=-(2**63) - 1)), json_values,
       st.booleans())
def test_indented_text_with_a_big_integer_is_not_canonical(big, value, indent):
    text = (_indented if indent else orjson.dumps)({"v": value, "big": ["<big>"]})
    head, _, tail = text.rpartition(b'"<big>"')  # the last one: "big" is written after "v"
    text = head + b"%d" % big + tail
    problems = _agrees(text)
    assert [p.pointer for p in problems] == ["/big/0"]


@SETTINGS
@given(json_values, st.sampled_from([None, 1, 2, 4, "\t"]), st.booleans())
def test_other_writers_agree_with_the_scan(value, indent, ascii_only):
    _agrees(json.dumps(value, indent=indent, ensure_ascii=ascii_only).encode())
