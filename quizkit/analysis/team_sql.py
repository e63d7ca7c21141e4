"""A team's checks (``[[checks]]``) run over quizkit's tables, fenced in.

A check's SQL reads quizkit's tables and nothing else. It must be one ``SELECT`` (``COPY``,
``ATTACH``, ``INSTALL``, ``SET``, ``PRAGMA``, ``CALL`` and every statement that writes are
refused by their type, before they run), and it runs in a connection whose file and network
access is off (:func:`~quizkit.analysis.connect.lock_down`: ``read_text('/etc/passwd')``,
``read_csv``, ``glob`` fail) and whose configuration is locked, so no statement can turn
either back on.

Each check is first run against the empty tables (:func:`preflight`): bad SQL, a refused
statement or function, a message naming a column the query does not give, or a metric of
several columns fails in milliseconds, before any export is read. A check that fails is a
:class:`CheckSQLError`: one line naming the check's code and DuckDB's reason (exit 2).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from uuid import UUID

import duckdb

from quizkit.analysis.connect import connect, lock_down, one_line, run
from quizkit.analysis.tables import TABLES
from quizkit.catalog import input_rules
from quizkit.catalog.display import printable
from quizkit.catalog.findings import Finding, Severity, cut, json_text
from quizkit.checks.budget import Budget
from quizkit.settings.config import ConfigError
from quizkit.settings.team_checks import Limit, TeamCheck

#: Past values of a metric, newest first: ``(name, runs) -> values`` ([] without history).
Past = Callable[[str, int], list[float]]

#: The rows of the findings table (in its columns' order) the team's checks give over the
#: tables of a connection (``load`` stores them).
TeamRows = Callable[[duckdb.DuckDBPyConnection], list[tuple]]

#: The team's findings in the findings table: their codes, and the findings-capped findings
#: counting theirs (``... (over --max-findings 1,000): X001 video-over-limit 12``).
TEAM_FINDINGS = (f"(regexp_full_match(code, 'X[0-9]+') OR (code = "
                 f"'{input_rules.FINDINGS_CAPPED.code}' AND regexp_matches(message, "
                 "'\\): X[0-9]+ ')))")


class CheckSQLError(ConfigError):
    """A check's SQL is refused or fails (one line naming the check; exit 2)."""


def _refused(check: TeamCheck, reason: str) -> CheckSQLError:
    return CheckSQLError(f"check {check.code} ({check.name}): {reason}")


def fence(con: duckdb.DuckDBPyConnection) -> None:
    """No file or network access, and no setting changed, from here on on ``con``."""
    lock_down(con)
    run(con, "SET lock_configuration = true")


def select_only(con: duckdb.DuckDBPyConnection, check: TeamCheck) -> str:
    """The check's one ``SELECT`` statement; anything else is refused."""
    try:
        statements = con.extract_statements(check.query)
    except duckdb.Error as exc:
        raise _refused(check, one_line(exc)) from None
    if len(statements) != 1:
        raise _refused(check, f"{len(statements)} statements; a check is one SELECT")
    kind = str(statements[0].type).rsplit(".", 1)[-1]
    if kind != "SELECT":
        raise _refused(check, f"{kind} statement refused; a check's SQL is one SELECT over "
                              "quizkit's tables")
    return check.query


def _columns(cur: duckdb.DuckDBPyConnection) -> list[str]:
    return [d[0] for d in cur.description or ()]


def _shape(check: TeamCheck, columns: Sequence[str]) -> None:
    if check.metric is not None and len(columns) != 1:
        raise _refused(check, f"a metric gives one number, this query gives {len(columns)} "
                              "columns")
    missing = [f for f in check.fields if f not in columns]
    if missing:
        raise _refused(check, f"the message names {{{missing[0]}}}, which the query does not "
                              f"give (columns: {', '.join(columns)})")


def preflight(checks: Sequence[TeamCheck]) -> None:
    """Every check run against quizkit's empty tables, fenced: refused or failing SQL and
    wrong shapes are known before any export is read."""
    if not checks:
        return
    con = connect(None)
    try:
        for table in TABLES:
            run(con, table.ddl())
        fence(con)
        for check in checks:
            try:
                cur = con.execute(select_only(con, check))
                columns = _columns(cur)
                cur.fetchall()
            except duckdb.Error as exc:
                raise _refused(check, one_line(exc)) from None
            _shape(check, columns)
    finally:
        con.close()


@dataclass
class Failures:
    """Failing rows of one ``sql`` check: the first ``limit`` of them, and how many in all."""

    columns: list[str]
    types: list[str]
    rows: list[tuple]
    total: int


@dataclass
class Outcome:
    """What the team's checks gave: findings, each metric's value, notes for the user."""

    findings: list[Finding] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    failures: dict[str, Failures] = field(default_factory=dict)


@dataclass(frozen=True)
class RowPlace:
    """Where a row's finding goes: the inputs by absolute path (as the report names them),
    the name of what was checked, for findings without a file, and how many one file
    lists."""

    files: Mapping[str, str]
    where: str
    #: Findings of the checks one file lists (``--max-findings``; 0: no cap); the rest are
    #: counted in its ``findings-capped`` finding, as for the document rules.
    cap: int = 0


def run_checks(con: duckdb.DuckDBPyConnection, checks: Sequence[TeamCheck], place: RowPlace, *,
               past: Past | None = None, keep: int | None = None) -> Outcome:
    """Run ``checks`` over the tables of ``con`` (fenced here, for good). ``past`` gives
    the history of a metric (change checks); ``keep``: failing rows kept per ``sql`` check,
    with the count of all (``Outcome.failures``; ``None``: neither)."""
    fence(con)
    out = Outcome()
    budgets: dict[str, Budget] = {}
    for check in checks:
        try:
            if check.sql is not None:
                _rows(con, check, place, out, budgets, keep)
                continue
            cur = con.execute(select_only(con, check))
            _shape(check, _columns(cur))
            _metric(check, cur.fetchall(), place, out, past)
        except duckdb.Error as exc:
            raise _refused(check, one_line(exc)) from None
    out.findings += [budget.finding(path) for path, budget in budgets.items() if budget.more]
    return out


def row_counts(con: duckdb.DuckDBPyConnection) -> dict[str, float]:
    """``rows.<table>``: the rows of each of quizkit's tables (for the run history)."""
    return {f"rows.{t.name}": float(run(con, f'SELECT count(*) FROM "{t.name}"')[0][0])
            for t in TABLES if t.name != "quizkit_meta"}


#: Failing rows fetched from DuckDB at once.
BATCH = 10_000


def _rows(con: duckdb.DuckDBPyConnection, check: TeamCheck, place: RowPlace, out: Outcome,
          budgets: dict[str, Budget], keep: int | None) -> None:
    """The findings of a ``sql`` check's rows, each file's within its budget (shared by
    the checks: past it a row is only counted), and the first ``keep`` rows. The rows are
    streamed from DuckDB in batches, so memory follows the findings listed and the rows
    kept, not the rows failing."""
    cur = con.execute(select_only(con, check))
    columns = _columns(cur)
    _shape(check, columns)
    index = {c: i for i, c in enumerate(columns)}
    at = index.get("file")
    rule, limit = check.rule, keep or 0
    kept: list[tuple] = []
    total = 0
    while batch := cur.fetchmany(BATCH):
        if len(kept) < limit:
            kept += batch[:limit - len(kept)]
        total += len(batch)
        for row in batch:
            path = _path(None if at is None else row[at], place)
            budget = budgets.get(path) or budgets.setdefault(path, Budget(place.cap))
            if budget.take(rule):
                out.findings.append(_row_finding(check, row, index, path, place))
    if keep is not None:
        types = [str(d[1]) for d in cur.description or ()]
        out.failures[check.code] = Failures(columns, types, kept, total)


def _path(file: Any, place: RowPlace) -> str:
    """The path a row's finding names: its ``file`` as the report names that input (or,
    not an input, with its control characters escaped, as reports name inputs), else what
    was checked."""
    if isinstance(file, str) and file:
        return place.files.get(file) or place.files.get(os.path.abspath(file)) \
            or printable(file)
    return place.where


def _text(value: Any) -> str:
    """A column's value in a message, on one line: text as it is (control characters
    escaped, as reports print file names), a date-time in ISO form, bytes (a ``BLOB``) as
    text with the bytes that are not UTF-8 as ``\\xNN``, a decimal, an interval or a UUID
    as Python prints it, a list or struct as JSON, NaN and infinities as Python spells them,
    anything else as JSON."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return printable(value.decode("utf-8", "surrogateescape"))
    if isinstance(value, (Decimal, UUID, dt.timedelta)):
        return str(value)
    if isinstance(value, (list, dict)):
        return printable(json.dumps(value, ensure_ascii=False, default=str))
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # nan, inf: JSON has no spelling of them
    return json_text(value)


def _row_finding(check: TeamCheck, row: tuple, index: Mapping[str, int], path: str,
                 place: RowPlace) -> Finding:
    values = {c: row[i] for c, i in index.items()}
    if check.message:
        message = check.message.format_map({c: cut(_text(v)) for c, v in values.items()})
    else:
        message = ", ".join(f"{c} {cut(_text(v))}" for c, v in values.items()
                            if c not in ("file", "record", "pointer"))
        message = f"{check.description or check.name}: {message}" if message else \
            check.description or check.name
    record = values.get("record")
    pointer = values.get("pointer")
    return Finding(path, pointer if isinstance(pointer, str) and path != place.where else "",
                   check.name, check.severity, message,
                   record=record if isinstance(record, int) and path != place.where else None,
                   code=check.code)


def _metric(check: TeamCheck, rows: list[tuple], place: RowPlace, out: Outcome,
            past: Past | None) -> None:
    if len(rows) != 1:
        raise _refused(check, f"a metric gives one row, this query gave {len(rows)}")
    value = rows[0][0]
    if value is None:
        out.notes.append(f"check {check.code} ({check.name}): the metric is NULL; "
                         "nothing to compare")
        return
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _refused(check, f"a metric gives a number, this query gave "
                              f"{json_text(str(value))}") from None
    if math.isnan(number):
        out.notes.append(f"check {check.code} ({check.name}): the metric is NaN; "
                         "nothing to compare")
        return
    out.metrics[check.name] = number
    compared, delta, what = number, 0.0, f"{check.name} is {_number(number)}"
    if check.change is not None:
        history = past(check.name, check.runs) if past is not None else []
        if not history:
            out.notes.append(f"check {check.code} ({check.name}): no run history of this "
                             "dataset yet; the change is compared from the next run on")
            return
        base = sum(history) / len(history)
        since = "the last run" if check.change == "last" else \
            f"the mean of the last {len(history)} runs"
        delta, pct = number - base, _percent(number, base)
        what = (f"{check.name} is {_number(number)}, {_signed(delta)} ({pct:+.1f}%) from "
                f"{_number(base)}, {since}")
        compared = pct
    level, crossed = _worst(check, compared, delta)
    if level is None or crossed is None:
        return
    label = "error" if level is Severity.ERROR else "warning"
    out.findings.append(Finding(place.where, "", check.name, level,
                                f"{what} ({label} if {crossed.text})", code=check.code))


def _worst(check: TeamCheck, pct_or_value: float, delta: float
           ) -> tuple[Severity | None, Limit | None]:
    """The worst threshold crossed: a percent threshold compares the change in percent, an
    absolute one on a change check the change itself."""
    for level, threshold in ((Severity.ERROR, check.error_if),
                             (Severity.WARNING, check.warn_if)):
        if threshold is None:
            continue
        x = pct_or_value if threshold.percent or check.change is None else delta
        if not math.isnan(x) and threshold.crossed(x):
            return level, threshold
    return None, None


def _percent(value: float, base: float) -> float:
    if base == 0:
        return 0.0 if value == 0 else math.copysign(math.inf, value)
    return (value - base) / abs(base) * 100


def _number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.6g}"


def _signed(x: float) -> str:
    return ("+" if x >= 0 else "-") + _number(abs(x))
