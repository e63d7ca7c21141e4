"""``format: date-time`` is RFC 3339's date-time, and agrees with ajv-formats on the edge cases.

Each case is checked four ways: ``quizkit validate`` (the CLI), the fast engine
(jsonschema-rs with quizkit's pattern), the reference engine (python-jsonschema with quizkit's
checker), and ajv with ajv-formats when ``.tools/`` has them (``.ci/run`` installs them).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import orjson
import pytest

from quizkit.model import schemas
from tests.conftest import ROOT, SAMPLES, cli_json, requires

AJV = ROOT / ".tools/node_modules/.bin/ajv"

#: (date-time, valid by RFC 3339 section 5.6 as quizkit reads it, why).
CASES: list[tuple[str, bool, str]] = [
    ("2026-01-01T00:00:00Z", True, "plain UTC"),
    ("2016-12-31T23:59:60Z", True, "a leap second"),
    ("2026-06-30T23:59:60Z", True, "second 60 at 23:59 UTC: leap seconds are not known ahead"),
    ("2016-12-31T18:29:60-05:30", True, "a leap second in a -05:30 zone (23:59:60 UTC)"),
    ("2026-01-01T23:59:60.5z", True, "a leap second with a fraction, lowercase z"),
    ("2026-01-01T23:59:60-00:00", True, "a leap second, unknown local offset"),
    ("2026-01-01T12:00:60Z", False, "second 60 that is not 23:59 UTC"),
    ("2016-12-31T23:59:60+01:00", False, "second 60 at 22:59 UTC"),
    ("2026-01-01T12:00:00+05:30", True, "an offset with minutes"),
    ("2026-01-01T12:00:00-00:00", True, "offset -00:00"),
    ("2026-01-01t12:00:00z", True, "lowercase t and z"),
    ("2026-01-01T12:00:00.123456789Z", True, "nine fractional digits"),
    ("2026-01-01T12:00:00.1Z", True, "one fractional digit"),
    ("2026-01-01T12:00:00.Z", False, "a dot without digits"),
    ("2026-01-01T12:00:00,5Z", False, "a comma before the fraction"),
    ("2026-01-01T12:00:00", False, "no offset"),
    ("2026-01-01T12:00Z", False, "no seconds"),
    ("2024-02-29T00:00:00Z", True, "29 February of a leap year"),
    ("2100-02-29T00:00:00Z", False, "29 February of a century that is no leap year"),
    ("0000-02-29T00:00:00Z", True, "year 0000 (four digits), a leap year"),
    ("2026-02-30T00:00:00Z", False, "30 February"),
    ("2026-01-01T24:00:00Z", False, "hour 24"),
    ("2026-01-01T12:00:61Z", False, "second 61"),
    ("2026-01-01T12:00:00+24:00", False, "offset hour 24"),
    ("2026-01-01T12:00:00+05:60", False, "offset minute 60"),
    ("2026-1-01T12:00:00Z", False, "a one-digit month"),
    ("+2026-01-01T12:00:00Z", False, "a signed year"),
    ("２０２６-01-01T12:00:00Z", False, "digits that are not ASCII"),
    ("2026-01-01T12:00:00Z\n", False, "a trailing newline"),
    # RFC 3339's grammar needs "T" and an offset with a colon; ajv-formats also takes these.
    ("2026-01-01 12:00:00Z", False, "a space for T (ajv-formats: valid)"),
    ("2026-01-01T12:00:00+0530", False, "an offset without colon (ajv-formats: valid)"),
    ("2026-01-01T12:00:00+05", False, "an offset without minutes (ajv-formats: valid)"),
]
#: Where ajv-formats is more lenient than RFC 3339's grammar.
AJV_LENIENT = {"2026-01-01 12:00:00Z", "2026-01-01T12:00:00+0530", "2026-01-01T12:00:00+05"}
IDS = [c[2] for c in CASES]


def _banner(text: str) -> dict:
    banner = json.loads((SAMPLES / "banner.json").read_text())
    banner["createdAt"] = text
    return banner


@pytest.mark.parametrize("text,valid,why", CASES, ids=IDS)
def test_both_engines_give_the_rfc_3339_verdict(text: str, valid: bool, why: str) -> None:
    v = schemas.SchemaBook().validator("banner")
    assert v.reference.is_valid(_banner(text)) == valid
    # The fast engine never accepts what the reference refuses; a leap second outside UTC
    # is left to the reference, which decides.
    fast = v.fast.is_valid(_banner(text))
    assert fast == valid or (valid and text[17:19] == "60" and not fast)


def test_validate_gives_the_rfc_3339_verdict(tmp_path: Path) -> None:
    for i, (text, _, _) in enumerate(CASES):
        (tmp_path / f"{i:02d}.json").write_bytes(orjson.dumps(_banner(text)))
    _, report = cli_json(str(tmp_path))
    refused = {int(Path(f["path"]).stem) for f in report["findings"]
               if f["rule"] == "invalid-format" and f["pointer"] == "/createdAt"}
    assert refused == {i for i, (_, valid, _) in enumerate(CASES) if not valid}


def test_ajv_formats_agrees_on_the_edge_cases(tmp_path: Path) -> None:
    requires("ajv-cli", found=AJV.exists(),
             install="npm install --prefix .tools ajv-cli ajv-formats")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                  "type": "string", "format": "date-time"}))
    disagree = []
    for i, (text, valid, _) in enumerate(CASES):
        data = tmp_path / f"{i:02d}.json"
        data.write_text(json.dumps(text))
        proc = subprocess.run([str(AJV), "validate", "--spec=draft2020", "-c", "ajv-formats",
                               "-s", str(schema), "-d", str(data)],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert proc.returncode in (0, 1), proc.stderr
        if (proc.returncode == 0) != valid:
            disagree.append(text)
    assert set(disagree) == AJV_LENIENT
