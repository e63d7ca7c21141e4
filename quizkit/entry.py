"""The ``quizkit`` program: stops cleanly on Ctrl-C or SIGTERM even while still starting.

Until the CLI is imported and :class:`quizkit.outputs.interrupts.StopSignals` takes over (handed to
the commands as click's context object), a stop signal ends the process at once with one
line and 130/143: nothing has been written yet, so there is nothing to clean up, and Python
would otherwise print the traceback of whatever module it was importing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType
from typing import Any


def _stop_early(signum: int, frame: FrameType | None) -> None:
    word = b"interrupted" if signum == signal.SIGINT else b"terminated"
    os.write(2, b"quizkit: " + word + b"\n")
    os._exit(128 + signum)


def main() -> None:
    """Entry point of the ``quizkit`` script and of ``python -m quizkit``."""
    signal.signal(signal.SIGINT, _stop_early)
    signal.signal(signal.SIGTERM, _stop_early)
    # Imported here, after the handlers: importing the CLI (click and the rest) takes a
    # while, and a Ctrl-C meanwhile must not end in a traceback.
    from quizkit.cli import main as cli
    from quizkit.cli import stop_on_output_error
    from quizkit.outputs.interrupts import StopSignals, Terminated
    from quizkit.outputs.writer import standard_output

    sys.stdout = standard_output(sys.stdout)
    signals = StopSignals()
    try:
        signals.install()
    except (KeyboardInterrupt, Terminated):  # a stop while the handlers change hands
        _stop_early(signals.signum or signal.SIGINT, None)
    try:
        with stop_on_output_error():  # help and usage text are written before any command runs
            sys.exit(_run(cli, signals))
    except SystemExit as done:
        if signals.signum is None:
            raise
        # Stopped by a signal: the run's clean-up has run and its line is written. Exit now,
        # without the interpreter's exit handlers: the process pool's would wake a manager
        # thread through a pipe the stop already closed, and print a traceback after our
        # one line ("Exception ignored in: <module 'threading'>").
        _flush()
        os._exit(done.code if isinstance(done.code, int) else 1)


def _run(cli: Any, signals: Any) -> int:
    """Run the CLI; a usage or configuration error is one ``Error:`` line and its exit code
    (click would add the usage and a hint: three lines for one bad value)."""
    import click

    try:
        code = cli(obj=signals, standalone_mode=False)
    except click.ClickException as exc:
        click.echo(f"Error: {exc.format_message()}", err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return 1
    return code if isinstance(code, int) else 0


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
