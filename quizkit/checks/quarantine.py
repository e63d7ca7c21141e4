"""``--write-valid FILE --write-invalid FILE``: each line of JSON Lines input, byte for byte,
to one file or the other, so a pipeline can set the bad records aside and go on.

A line is invalid when a finding at or above ``--fail-on`` (after the configuration's
severities and the baseline) is on its record; a finding on a whole file (one with no
record: the file could not be read, or its findings were capped by ``--max-findings``)
makes each of its lines invalid. Lines are written in input order, each with its own
bytes; a file's last line that has no newline gets one only when another line follows it
in the same output, so two lines never run together.

Both outputs follow the rules of every output (quizkit.outputs.writer): never an input,
written atomically and together at the end of the run (an interrupted run leaves both as
they were), links followed. The inputs are read again for the split: files, not stdin.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager

from quizkit.catalog.findings import Finding, Severity
from quizkit.inputs.limits import Limits
from quizkit.inputs.sources import Source
from quizkit.outputs.interrupts import pause_at
from quizkit.outputs.writer import AtomicFile, resolve
from quizkit.settings.config import ConfigError

#: The file as a whole: a finding without a record.
WHOLE_FILE = 0


class Quarantine:
    """The split of a run's JSON Lines inputs into ``valid`` and ``invalid`` files (either
    may be ``None``: those lines are not written)."""

    def __init__(self, valid: str | os.PathLike[str] | None,
                 invalid: str | os.PathLike[str] | None, fail_on: Severity) -> None:
        if valid is None and invalid is None:
            raise ValueError("a quarantine needs --write-valid or --write-invalid")
        self.valid = None if valid is None else os.fspath(valid)
        self.invalid = None if invalid is None else os.fspath(invalid)
        if self.valid is not None and self.invalid is not None:
            same = os.path.realpath(self.valid) == os.path.realpath(self.invalid)
            if same:
                raise ConfigError(f"--write-valid and --write-invalid name one file "
                                  f"({self.valid}): give two")
        self.fail_on = fail_on
        #: (path, record) of each record with a finding at or above fail_on; record
        #: :data:`WHOLE_FILE` for a finding on the whole file.
        self.bad: set[tuple[str, int]] = set()
        self.counts = {"valid": 0, "invalid": 0}
        self._files: dict[str, AtomicFile] = {}

    @property
    def outputs(self) -> list[str]:
        return [p for p in (self.valid, self.invalid) if p is not None]

    def check_inputs(self, sources: Sequence[Source]) -> None:
        """Refuse (exit 2) an input that is not a JSON Lines file, saying what it is."""
        for source in sources:
            if source.is_stdin:
                raise ConfigError("--write-valid/--write-invalid read the input again to "
                                  "split it: give a file, not standard input")
            if not source.is_lines:
                raise ConfigError(f"--write-valid/--write-invalid split JSON Lines input, one "
                                  f"record a line; {source.display} is {_what(source.path)}")
        for path in self.outputs:
            resolve(path)

    def __call__(self, finding: Finding) -> Finding:
        """The run's last adjust step: note the record of a finding that fails the run."""
        if finding.severity >= self.fail_on:
            self.bad.add((finding.path, finding.record or WHOLE_FILE))
        return finding

    @contextmanager
    def opened(self) -> Iterator[None]:
        """The two outputs as temporary files for the run's length: moved into place by
        :meth:`write`, removed if the run ends otherwise."""
        with ExitStack() as stack:
            self._files = {}
            for side, path in (("valid", self.valid), ("invalid", self.invalid)):
                if path is not None:
                    out = AtomicFile(path, binary=True)
                    stack.callback(out.discard)
                    self._files[side] = out
            yield

    def write(self, sources: Sequence[Source], limits: Limits) -> None:
        """Each input's lines to their side, then both outputs into place."""
        pending = {side: False for side in self._files}  # a line without newline is last
        for source in sources:
            data = source.read(limits.max_decompressed, limits.max_file_size)
            whole = (source.path, WHOLE_FILE) in self.bad
            for number, line in enumerate(_lines(data), 1):
                side = "invalid" if whole or (source.path, number) in self.bad else "valid"
                self.counts[side] += 1
                out = self._files.get(side)
                if out is None:
                    continue
                if pending[side]:
                    out.stream.write(b"\n")
                out.stream.write(line)
                pending[side] = not line.endswith(b"\n")
        pause_at("quarantine")  # the test hook: a stop here leaves both outputs as they were
        for out in self._files.values():
            out.commit()


def _lines(data: bytes) -> Iterator[bytes]:
    """Each line of ``data`` with its newline, numbered as records are (split at ``\\n``
    only: a carriage return is part of its line)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end + 1
        yield data[start:end]
        start = end


def _what(path: str) -> str:
    """What a file that is not JSON Lines is, by its name (it was not read)."""
    name = path.lower().removesuffix(".gz")
    if name.endswith(".json"):
        return "a JSON document (.json), not JSON Lines (.jsonl, .ndjson)"
    return "not named as JSON Lines (.jsonl, .ndjson)"


