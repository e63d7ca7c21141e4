"""Time-order rules read every spelling of an RFC 3339 date-time alike.

Timestamps in the service's own form (``T`` and ``Z``) are read directly, any other form is
normalised first; both ways must give the same answer. Through the public API: a banner
record with ``createdAt`` and ``updatedAt`` written in various spellings is reported as
updated before created exactly when a plain reading of the two instants says so, and a
value ``datetime`` cannot hold (a leap second) is never compared.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quizkit

BANNER = json.loads((SAMPLES / "banner.json").read_text())
START = datetime(2025, 12, 15, 9, 0, 0, tzinfo=UTC)


@st.composite
def spelled(draw: st.DrawFn) -> tuple[str, datetime | None]:
    """A date-time near START in one of RFC 3339's spellings, and the instant it names (None
    for a leap second, which no rule compares)."""
    instant = START + timedelta(milliseconds=100 * draw(st.integers(0, 25)))
    if draw(st.integers(0, 9)) == 0:
        return "2025-12-15T23:59:60Z", None
    offset = draw(st.sampled_from([0, 0, 0, 0, 330, -60]))
    local = instant.astimezone(timezone(timedelta(minutes=offset)))
    digits = draw(st.sampled_from([3, 3, 3, 0, 6]))
    text = local.strftime("%Y-%m-%d") + draw(st.sampled_from("TTTTt ")) + local.strftime("%H:%M:%S")
    if digits:
        text += "." + f"{local.microsecond:06d}"[:digits]
    elif instant.microsecond:
        return spelled_again(text, local, instant)
    if offset == 0:
        text += draw(st.sampled_from(["Z", "Z", "Z", "z", "+00:00"]))
    else:
        sign = "+" if offset > 0 else "-"
        text += f"{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    return text, instant


def spelled_again(text: str, local: datetime, instant: datetime) -> tuple[str, datetime]:
    """Without fraction digits the text names the whole second: say so."""
    offset = local.utcoffset() or timedelta()
    suffix = "Z" if not offset else local.strftime("%z")[:3] + ":" + local.strftime("%z")[3:]
    return text + suffix, instant.replace(microsecond=0)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spelled(), spelled())
def test_updated_before_created_in_every_spelling(tmp_path_factory, created, updated):
    record = dict(BANNER, createdAt=created[0], updatedAt=updated[0])
    path = tmp_path_factory.mktemp("time") / "banner.json"
    path.write_text(json.dumps(record))
    report = quizkit.validate([str(path)], jobs=1, config=False)
    found = [f for f in report.findings if f.rule == "updated-before-created"]
    expected = created[1] is not None and updated[1] is not None and updated[1] < created[1]
    assert bool(found) == expected, (created[0], updated[0])
    if found:
        assert found[0].pointer == "/updatedAt"
