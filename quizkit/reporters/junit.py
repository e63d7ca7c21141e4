"""JUnit XML, as Jenkins (junit step) and GitLab (``artifacts:reports:junit``) read it.

One ``<testsuite>`` for the run inside ``<testsuites>``. Each input file is a test case named
by its path; in JSON Lines files each record with findings is a test case of its own, named
``path:record`` (a million clean records do not become a million test cases: they pass in the
file's test case). Each error finding is a ``<failure>`` (an ``<error>`` when the file could
not be read or parsed); warnings and infos go to the case's ``<system-out>``.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import UTC, datetime

from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.catalog.pointers import readable
from quizkit.reporters.base import Reporter, rule_code, rule_label
from quizkit.version import __version__

# XML 1.0 cannot carry these characters at all, escaped or not.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` with characters XML 1.0 forbids shown as ``\\xNN`` escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _where(f: Finding) -> str:
    if f.line is None:
        return "-"
    return f"{f.line}:{f.column}" if f.column is not None else str(f.line)


def failure_text(f: Finding) -> str:
    return (f"rule: {rule_label(f)}\npointer: {f.pointer or '(document)'}\n"
            f"line:col: {_where(f)}\nmessage: {f.message}")


def out_line(f: Finding) -> str:
    where = f" at {readable(f.pointer)}" if f.pointer else ""
    return f"{f.severity} {rule_label(f)} {_where(f)}{where}: {f.message}"


class JUnitReporter(Reporter):
    name = "junit"
    description = "JUnit XML for Jenkins and GitLab: a test case per file (per record in .jsonl)"

    def start(self) -> None:
        self._started = time.monotonic()
        self._timestamp = datetime.now(UTC).replace(microsecond=0, tzinfo=None).isoformat()

    def finish(self, report: Report) -> None:
        started = getattr(self, "_started", time.monotonic())
        timestamp = getattr(self, "_timestamp", None)
        tree = self.tree(report, time.monotonic() - started, timestamp)
        ET.indent(tree)
        self.stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self.stream.write(ET.tostring(tree, encoding="unicode"))
        self.stream.write("\n")

    def tree(self, report: Report, seconds: float = 0.0,
             timestamp: str | None = None) -> ET.Element:
        by_case: dict[tuple[str, int | None], list[Finding]] = defaultdict(list)
        for f in report.findings:
            by_case[(f.path, f.record)].append(f)
        records: dict[str, list[int]] = defaultdict(list)
        for path, record in by_case:
            if record is not None:
                records[path].append(record)

        suite = ET.Element("testsuite", name="quizkit validate")
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="quizkit.version", value=__version__)
        counts = {"tests": 0, "failures": 0, "errors": 0}
        kinds = {fr.path: fr.kind for fr in report.files}
        unreadable = {fr.path for fr in report.files if not fr.readable}

        def case(path: str, record: int | None) -> None:
            name = path if record is None else f"{path}:{record}"
            kind = kinds.get(path)
            tc = ET.SubElement(suite, "testcase", name=xml_text(name),
                               classname=f"quizkit.{kind}" if kind else "quizkit",
                               file=xml_text(path))
            counts["tests"] += 1
            findings = by_case.get((path, record), [])
            tag = "error" if path in unreadable else "failure"
            errors = [f for f in findings if f.severity == Severity.ERROR]
            for f in errors:
                el = ET.SubElement(tc, tag, type=rule_code(f),
                                   message=xml_text(f"{rule_label(f)}: {f.message}"))
                el.text = xml_text(failure_text(f))
            if errors:
                counts["errors" if tag == "error" else "failures"] += 1
            others = [f for f in findings if f.severity != Severity.ERROR]
            if others:
                ET.SubElement(tc, "system-out").text = xml_text(
                    "\n".join(out_line(f) for f in others))

        # Files in input order; then any path that has findings but no file result.
        paths = [fr.path for fr in report.files] + [f.path for f in report.findings]
        seen: set[str] = set()
        for path in paths:
            if path in seen:
                continue
            seen.add(path)
            case(path, None)
            for record in sorted(records.get(path, ())):
                case(path, record)

        for key, value in counts.items():
            suite.set(key, str(value))
        suite.set("skipped", "0")
        suite.set("time", f"{seconds:.3f}")
        if timestamp:
            suite.set("timestamp", timestamp)
        root = ET.Element("testsuites", name="quizkit", tests=str(counts["tests"]),
                          failures=str(counts["failures"]), errors=str(counts["errors"]),
                          time=f"{seconds:.3f}")
        root.append(suite)
        return root
