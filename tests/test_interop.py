"""The schemas work unchanged in other validators: ajv (strict mode) and check-jsonschema.

``.ci/run`` installs ajv-cli and ajv-formats into ``.tools/``; outside CI the ajv test is
skipped when they are missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from quizkit.model.entities import KIND_NAMES
from tests.conftest import INVALID, ROOT, cli_json, invalid_cases, requires, valid_samples

AJV = ROOT / ".tools/node_modules/.bin/ajv"
RECORDS = sorted((ROOT / "schemas/records").glob("*.json"))
DOCUMENTS = sorted((ROOT / "schemas/documents").glob("*.json"))


def _ajv() -> str:
    requires("ajv-cli", found=AJV.exists(),
             install="npm install --prefix .tools ajv-cli ajv-formats")
    return str(AJV)


@pytest.mark.parametrize("path", RECORDS + DOCUMENTS, ids=lambda p: p.name)
def test_compiles_in_ajv_strict_mode(path):
    refs = [a for r in RECORDS if r != path for a in ("-r", str(r))]
    proc = subprocess.run(
        [_ajv(), "compile", "--spec=draft2020", "--strict=true", "-c", "ajv-formats",
         "-s", str(path), *refs],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "is valid" in proc.stdout + proc.stderr


def _check_jsonschema_verdict(instance: Path, kind: str) -> bool:
    schema = ROOT / "schemas/documents" / f"{kind}.json"
    exe = Path(sys.executable).parent / "check-jsonschema"
    cmd = [str(exe) if exe.exists() else shutil.which("check-jsonschema") or "check-jsonschema",
           "--base-uri", schema.resolve().as_uri(), "--schemafile", str(schema), str(instance)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.returncode == 0


def _json_documents() -> list[tuple[Path, str]]:
    """(file, kind) for every single-document JSON sample, valid and invalid, that parses."""
    out = []
    for path in valid_samples():
        if path.suffix == ".json":
            out.append((path, None))
    for case in invalid_cases():
        if case["path"].suffix == ".json" and case.get("kind"):
            out.append((case["path"], case["kind"]))
    return out


@pytest.mark.parametrize("path,kind", _json_documents(),
                         ids=lambda v: v.name if isinstance(v, Path) else str(v))
def test_check_jsonschema_agrees_with_quizkit(path, kind):
    args = ["--kind", kind] if kind else []
    _, report = cli_json(*args, str(path))
    detected = report["files"][0]["kind"]
    assert detected in KIND_NAMES
    schema_findings = [f for f in report["findings"] if f["code"].startswith("S")]
    assert _check_jsonschema_verdict(path, detected) == (not schema_findings), schema_findings


def test_invalid_samples_exist_for_interop():
    assert INVALID.is_dir() and any(json.loads(m.read_text())
                                    for m in INVALID.rglob("manifest.json.txt"))
