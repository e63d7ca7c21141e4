"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` per finding.

The runner turns them into annotations on the pull request's diff. Escaping follows the
runner's rules: in the message, ``%``, CR and LF are percent-encoded; in a property value
``:`` and ``,`` are too, since they separate properties.
"""

from __future__ import annotations

from quizkit.catalog.findings import Finding, Severity
from quizkit.catalog.pointers import readable
from quizkit.reporters.base import LineReporter, rule_label

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, path: str) -> str:
    """The workflow command for one finding, without the trailing newline."""
    props = [f"file={escape_property(path)}"]
    if finding.line is not None:
        props.append(f"line={finding.line}")
        if finding.column is not None:
            props.append(f"col={finding.column}")
    props.append(f"title={escape_property(rule_label(finding))}")
    message = finding.message
    if finding.record is not None:
        message = f"record {finding.record}: {message}"
    if finding.pointer:
        message = f"{message} (at {readable(finding.pointer)})"
    return f"::{COMMANDS[finding.severity]} {','.join(props)}::{escape_data(message)}"


class GitHubReporter(LineReporter):
    name = "github"
    description = "GitHub Actions annotations (::error file=…,line=…::message), streamed"

    def line(self, finding: Finding) -> str:
        return annotation(finding, self.options.relative(finding.path)[0])
