"""GitLab Code Quality: the JSON array that ``artifacts:reports:codequality`` reads.

GitLab's format is a subset of the Code Climate issue: per finding ``description``,
``check_name``, ``fingerprint``, ``severity`` (``info``, ``minor``, ``major``, ``critical``,
``blocker``) and ``location`` with a ``path`` relative to the repository (no ``./``) and
``lines.begin``. quizkit's errors are ``major``, warnings ``minor``, infos ``info``.

The fingerprint is SARIF's (rule, file, record, pointer: stable when lines move), made unique
within the report: GitLab shows only the first of findings that share one.
"""

from __future__ import annotations

from collections import Counter

import orjson

from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.catalog.pointers import readable
from quizkit.reporters.base import Reporter, rule_code, rule_label
from quizkit.reporters.sarif import fingerprint

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def issue(finding: Finding, path: str, print_: str) -> dict:
    """One Code Quality entry."""
    message = finding.message
    if finding.record is not None:
        message = f"record {finding.record}: {message}"
    if finding.pointer:
        message = f"{message} (at {readable(finding.pointer)})"
    return {
        "description": f"{rule_label(finding)}: {message}",
        "check_name": rule_code(finding),
        "fingerprint": print_,
        "severity": SEVERITIES[finding.severity],
        "location": {"path": path, "lines": {"begin": finding.line or 1}},
    }


class GitLabReporter(Reporter):
    name = "gitlab"
    description = "GitLab Code Quality JSON (artifacts:reports:codequality)"
    needs_files = False

    def finish(self, report: Report) -> None:
        seen: Counter[str] = Counter()
        issues = []
        for f in report.findings:
            path, _ = self.options.relative(f.path)
            path = path.removeprefix("./")
            base = fingerprint(rule_code(f), path, f)
            seen[base] += 1
            print_ = base if seen[base] == 1 else f"{base}-{seen[base]}"
            issues.append(issue(f, path, print_))
        self.stream.write(orjson.dumps(issues, option=orjson.OPT_INDENT_2).decode() + "\n")
