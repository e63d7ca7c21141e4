"""The registry: one check function per rule, every rule reachable, nothing registered by
side effect.

Each rule of the catalog is checked by exactly one function, which declares that rule and
no other, and emits no other (run on every invalid case and on the generated corpus of
``test_rules_findings``); the schema and input rules are the schema engine's and the
intake's. Every rule code is reachable: a finding with it is produced through the CLI by a
documented case.
"""

from __future__ import annotations

import importlib
import json
from collections import Counter

import orjson
import pytest

from quizkit.model.kinds import detect_kind
from quizkit.rules import MODULES, REGISTRY
from quizkit.rules.checks import MARK, Registry
from quizkit.rules.navigate import DocumentFacts, versions_of
from tests.conftest import INVALID, cli_json, invalid_cases

#: Rules not checked by a rule function: reported by the schema engine and the intake.
ENGINE_GROUPS = {"schema", "input"}


def _checked_rules() -> Counter:
    return Counter(r for mark, _fn in REGISTRY.checks for r in mark.rules)


def test_every_rule_has_exactly_one_check_function():
    counted = _checked_rules()
    for rule in REGISTRY.rules:
        if rule.group in ENGINE_GROUPS:
            assert counted[rule] == 0, rule.code
        else:
            assert counted[rule] == 1, (rule.code, counted[rule])


def test_every_check_function_checks_one_rule():
    for mark, fn in REGISTRY.checks:
        if mark.role == "facts":
            assert mark.rules == (), fn.__name__
        else:
            assert len(mark.rules) == 1, (fn.__name__, mark.rules)
            assert mark.kinds or mark.role == "batch", fn.__name__


def _documents() -> list:
    docs = []
    for path in sorted(INVALID.rglob("*.json")):
        try:
            doc = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError:
            continue
        docs.append(doc)
    return docs


def test_a_check_emits_only_its_own_rule():
    emitted: Counter = Counter()
    for doc in _documents():
        kind = detect_kind(doc)
        if kind is None:
            continue
        facts = DocumentFacts(kind, doc, versions_of(kind, doc))
        for mark, fn in REGISTRY.checks:
            if mark.role != "rule" or kind not in mark.kinds:
                continue

            def emit(rule, pointer, message, own=mark.rules[0], name=fn.__name__):
                assert rule is own, (name, rule.code)
                emitted[rule.code] += 1

            fn(facts, emit)
    assert len(emitted) >= 25  # the invalid cases reach most document rules


def test_the_registry_is_built_from_the_modules_alone():
    """Importing a rule module again registers nothing twice: the registry is a value
    collected from the modules, not a table filled by decorators."""
    again = Registry.collect([importlib.reload(m) for m in MODULES])
    assert [r.code for r in again.rules] == [r.code for r in REGISTRY.rules]
    assert len(again.checks) == len(REGISTRY.checks)
    assert all(hasattr(fn, MARK) for _mark, fn in again.checks)


@pytest.fixture(scope="module")
def reached(tmp_path_factory) -> set[str]:
    """Rule codes found by the CLI on the documented invalid cases and on hand-made inputs
    for the intake's rules."""
    codes = set()
    for case in invalid_cases():
        args = ["--kind", case["kind"]] if case.get("kind") else []
        _code, report = cli_json(*args, str(case["path"]))
        codes |= {f["code"] for f in report["findings"]}
    tmp = tmp_path_factory.mktemp("inputs")
    hostile = {"bom.json": b"\xef\xbb\xbf{}", "empty.json": b"", "latin1.json": b'{"a": "\xe9"}',
               "dup.json": b'{"a": 1, "a": 2}', "big.json": b'{"a": 1' + b"0" * 30 + b"}",
               "deep.json": b"[" * 5000 + b"]" * 5000, "bad.json": b'{"a": '}
    for name, data in hostile.items():
        (tmp / name).write_bytes(data)
    _code, report = cli_json(*sorted(str(tmp / n) for n in hostile))
    codes |= {f["code"] for f in report["findings"]}
    return codes


def test_every_rule_code_in_the_catalog_is_reachable(reached):
    """Every rule a check function reports, and every rule of the intake but those that need
    a setting or a file a test cannot leave behind, is found through the CLI. (Schema rules
    are the schema engine's: tests/test_schemas.py covers each keyword.)"""
    from tests.test_rules_findings import EXPECTED

    recorded = {f[3] for f in json.loads(EXPECTED.read_text())}
    by_name = {r.name: r.code for r in REGISTRY.rules}
    reached = reached | {by_name[name] for name in recorded}
    needed = {r.code for r in REGISTRY.rules if r.group != "schema"}
    # unconfirmed-validation-error needs a profile's confirm-errors; unreadable-input and
    # input-too-large need an unreadable or oversized file (tests/test_hostile*.py);
    # findings-capped needs a file of more than 1000 findings
    # (tests/test_inputs_findings_cap.py).
    assert needed - reached <= {"V002", "P001", "P010", "P011"}, sorted(needed - reached)
