"""SARIF 2.1.0, as GitHub code scanning and SARIF viewers read it.

One run; every catalog rule is a ``reportingDescriptor`` in ``tool.driver.rules`` (so
``ruleIndex`` is stable between runs); each finding is a result with a physical location
(a URI relative to ``%SRCROOT%``, the working directory, and a region when line and column
are known) and a logical location (the JSON Pointer). ``partialFingerprints`` hold a hash of
rule, path, record and pointer, so code scanning matches a finding across runs even when
lines move.

GitHub rejects a run with more than 25,000 results (and shows 5,000). Past
``sarif_max_results`` the report keeps the most severe results, in report order, and says how
many it left out in a tool notification and in ``run.properties``.
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote

import orjson

from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.catalog.pointers import readable
from quizkit.catalog.rule import Rule
from quizkit.reporters.base import Reporter, ReportOptions, rule_code, rule_of
from quizkit.rules import REGISTRY
from quizkit.version import __version__

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://quizkit.dev/"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "quizkitFinding/v1"

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def rule_help_markdown(r: Rule) -> str:
    parts = [f"**{r.code} {r.name}**: {r.summary}", "", r.explanation]
    if r.bad:
        parts += ["", "Bad:", "", "```", r.bad, "```"]
    if r.good:
        parts += ["", "Good:", "", "```", r.good, "```"]
    return "\n".join(parts)


def rule_help_text(r: Rule) -> str:
    parts = [f"{r.code} {r.name}: {r.summary}", "", r.explanation]
    if r.bad:
        parts += ["", f"Bad:  {r.bad}"]
    if r.good:
        parts += [f"Good: {r.good}"]
    return "\n".join(parts)


def descriptor(r: Rule) -> dict:
    d: dict = {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.explanation},
        "help": {"text": rule_help_text(r), "markdown": rule_help_markdown(r)},
        "helpUri": f"{INFORMATION_URI}rules/#{r.code.lower()}",
        "defaultConfiguration": {"level": LEVELS[r.severity]},
    }
    if r.group:
        d["properties"] = {"tags": [r.group]}
    return d


def fingerprint(code: str, uri: str, finding: Finding) -> str:
    """A stable identity for a finding: rule, file, record and pointer (not line numbers)."""
    key = "\x00".join((code, uri, str(finding.record or ""), finding.pointer))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def uri_of(path: str, options: ReportOptions) -> tuple[str, bool]:
    """A URI reference for a path: relative (under %SRCROOT%) when inside the root."""
    rel, inside = options.relative(path)
    if inside:
        return quote(rel, safe="/"), True
    if rel.startswith("/"):
        return "file://" + quote(rel, safe="/"), False
    return quote(rel, safe="/"), False


def logical_kind(pointer: str) -> str:
    last = pointer.rsplit("/", 1)[-1] if pointer else ""
    if not pointer:
        return "object"
    return "element" if last.isdigit() else "property"


class SarifReporter(Reporter):
    name = "sarif"
    description = "SARIF 2.1.0 for GitHub code scanning and SARIF viewers"
    needs_files = False

    def finish(self, report: Report) -> None:
        self.stream.write(orjson.dumps(self.log(report), option=orjson.OPT_INDENT_2).decode())
        self.stream.write("\n")

    def log(self, report: Report) -> dict:
        """The whole SARIF log as a dict."""
        rules = [*REGISTRY.rules, *self.options.rules]
        index = {r.code: i for i, r in enumerate(rules)}
        findings, dropped = self._limit(report.findings)
        results = []
        for f in findings:
            code = rule_code(f)
            if code not in index:
                # Not in the catalog (a bug elsewhere, but the report must still be valid).
                index[code] = len(rules)
                rules.append(Rule(code, code, f.severity, f.message, f.message))
            results.append(self._result(f, code, index[code]))
        root_uri = self.options.root.resolve().as_uri().rstrip("/") + "/"
        run: dict = {
            "tool": {"driver": {
                "name": "quizkit",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [descriptor(r) for r in rules],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": root_uri}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }
        if dropped:
            run["invocations"] = [{
                "executionSuccessful": True,
                "toolExecutionNotifications": [{
                    "level": "warning",
                    "message": {"text": (
                        f"{dropped} of {len(report.findings)} findings were left out of this "
                        f"SARIF report (limit {self.options.sarif_max_results}); the JSON or "
                        "JSON Lines report has them all."
                    )},
                }],
            }]
            run["properties"] = {"truncated": True, "omittedResults": dropped}
        return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}

    def _limit(self, findings: list[Finding]) -> tuple[list[Finding], int]:
        limit = self.options.sarif_max_results
        if len(findings) <= limit:
            return findings, 0
        # Keep the most severe, then restore the report's order.
        ranked = sorted(range(len(findings)), key=lambda i: -findings[i].severity)
        keep = sorted(ranked[:limit])
        return [findings[i] for i in keep], len(findings) - limit

    def _result(self, f: Finding, code: str, rule_index: int) -> dict:
        uri, inside = uri_of(f.path, self.options)
        artifact: dict = {"uri": uri}
        if inside:
            artifact["uriBaseId"] = SRCROOT
        physical: dict = {"artifactLocation": artifact}
        if f.line is not None:
            region: dict = {"startLine": f.line}
            if f.column is not None:
                region["startColumn"] = f.column
            physical["region"] = region
        location: dict = {
            "physicalLocation": physical,
            "logicalLocations": [{
                "fullyQualifiedName": f.pointer,
                "kind": logical_kind(f.pointer),
            }],
        }
        message = f.message
        if f.record is not None:
            message = f"record {f.record}: {message}"
        if f.pointer:
            message = f"{message} (at {readable(f.pointer)})"
        result: dict = {
            "ruleId": code,
            "ruleIndex": rule_index,
            "level": LEVELS[f.severity],
            "message": {"text": message},
            "locations": [location],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint(code, uri, f)},
        }
        props: dict = {"pointer": f.pointer}
        if f.record is not None:
            props["record"] = f.record
        r = rule_of(f)
        if r is not None and r.name:
            props["rule"] = r.name
        result["properties"] = props
        return result
