"""The exit codes of every command, and the lines that go with them, written once.

Every command follows one policy (:data:`TABLE`, printed in docs/cli.md from here):

* a path named on the command line that does not exist is a usage error (2), one line worded
  by :func:`no_such_path`, whichever command was given it;
* an input that exists but cannot be read or parsed is 3, unless a baseline holds its
  finding: a baseline absorbs what it holds, so the exit code follows the new findings only;
* findings at or above ``--fail-on`` are 1, checked only when every input was read.
"""

from __future__ import annotations

import sys
from typing import NoReturn

OK = 0
FINDINGS = 1
USAGE = 2
INPUT = 3
SIGINT = 130
PIPE = 141
SIGTERM = 143

#: (code, when) of every exit code a command gives, in order.
TABLE: tuple[tuple[int, str], ...] = (
    (OK, "Done: every input was read, and no finding reaches --fail-on."),
    (FINDINGS, "Findings at or above --fail-on (commands that report findings: validate, "
               "load)."),
    (USAGE, "Usage or configuration error: a path that does not exist, an unknown option or "
            "command, a config value of the wrong type, a refused query, an output that "
            "cannot be written, a load that outgrows --memory-limit or the disk."),
    (INPUT, "An input exists but could not be read or parsed (reported as a P finding with "
            "its location), unless the --baseline holds that finding."),
    (SIGINT, "Interrupted (Ctrl-C); outputs are left as they were."),
    (PIPE, "The reader of standard output went away (`| head`)."),
    (SIGTERM, "Terminated (SIGTERM); outputs are left as they were."),
)


def no_such_path(path: str) -> str:
    """The one wording of a named path that does not exist (exit :data:`USAGE`)."""
    return f"no such file or directory: {path}"


def for_run(unreadable: int, findings_code: int = OK) -> int:
    """A run's exit code: :data:`INPUT` when ``unreadable`` inputs are left after the
    baseline took what it holds, else what the findings say (``findings_code``)."""
    return INPUT if unreadable else findings_code


def stop(message: str, code: int) -> NoReturn:
    """End the command with ``quizkit: error: message`` on stderr and ``code``."""
    sys.stdout.flush()  # what was written before the error comes first
    print(f"quizkit: error: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def markdown_table() -> str:
    """:data:`TABLE` as a Markdown table, for docs/cli.md."""
    rows = ["| Exit code | When |", "| --- | --- |"]
    rows += [f"| {code} | {when} |" for code, when in TABLE]
    return "\n".join(rows) + "\n"
