"""The command line: a thin click layer over the library.

Each command group lives in ``quizkit/commands/``; this module only names them. A command's
module is imported when that command runs (or when help lists it), so ``quizkit validate``
starts without loading the corpus generator, enum profiles or DuckDB.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from importlib import import_module
from typing import Any, NoReturn

import click
from click.utils import make_str

from quizkit.catalog import exits
from quizkit.outputs.interrupts import EXIT_SIGINT, StopSignals, Terminated
from quizkit.outputs.writer import OutputError
from quizkit.version import __version__

#: Exit code of a usage or configuration error, and of an output that cannot be written.
EXIT_USAGE = exits.USAGE
#: What a shell reports for a writer whose reader went away (128 + SIGPIPE).
EXIT_PIPE = exits.PIPE

#: Command name → ``module:attribute`` of its click command.
COMMANDS = {
    "validate": "quizkit.commands.validate:validate",
    "check": "quizkit.commands.check:check",
    "schema": "quizkit.commands.schema:schema",
    "enums": "quizkit.commands.enum_commands:enums",
    "samples": "quizkit.commands.samples:samples",
    "rules": "quizkit.commands.rules:rules",
    "load": "quizkit.commands.analysis:load_command",
    "summary": "quizkit.commands.analysis:summary",
    "query": "quizkit.commands.analysis:query_command",
    "export": "quizkit.commands.analysis:export_command",
    "diff": "quizkit.commands.diff:diff_command",
    "history": "quizkit.commands.history:history_command",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS and name not in self.commands:
            module, attribute = COMMANDS[name].split(":")
            self.add_command(getattr(import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click resolves it, suggesting from every command, not only those imported."""
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand:
            raise click.exceptions.NoSuchCommand(
                make_str(args[0]), possibilities=self.list_commands(ctx), ctx=ctx) from None

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; stops and unwritable outputs end in one line, never a traceback.

        Ctrl-C exits 130, SIGTERM 143 (the outputs' clean-up has run by then: no partial
        file is left); an output that cannot be written exits 2; a closed pipe (``| head``)
        ends quietly with 141, as a shell pipeline expects.
        """
        # The program's signal handling (quizkit.entry); run in-process (tests, click's
        # CliRunner) there is none, and a KeyboardInterrupt is still Ctrl-C.
        signals = ctx.ensure_object(StopSignals)
        try:
            try:
                done = super().invoke(ctx)
            finally:
                if sys.stdout is not None:  # None: closed (`>&-`)
                    sys.stdout.flush()  # a write error is met here, not at exit
            _ending(signals)
            return done
        except (KeyboardInterrupt, Terminated):
            _stop_by(signals, EXIT_SIGINT)
        except OutputError as exc:
            _stop_by(signals)
            _quiet_stdout()
            _stop(f"error: {exc}", EXIT_USAGE)
        except BrokenPipeError:
            _stop_by(signals)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_PIPE)
        except SystemExit:
            _ending(signals)  # the command ended with its own exit code
            raise
        except BaseException:
            # A library may turn the signal's exception into its own (DuckDB: "Query
            # interrupted").
            _stop_by(signals)
            raise


def _ending(signals: StopSignals) -> None:
    """The command is done and has said so: stop signals are ignored from now on (one would
    only cut the interpreter's exit short, killed by it without a line); one that came
    before still ends the run with its line."""
    if signals.installed:
        signals.ignore_more()
    _stop_by(signals)


def _quiet_stdout() -> None:
    """After an output failed: if it was standard output, what its buffer still holds is
    dropped now (a failed output takes no more bytes), not at exit with another error."""
    if sys.stdout is not None:
        with contextlib.suppress(OSError, OutputError, ValueError):
            sys.stdout.flush()


@contextlib.contextmanager
def stop_on_output_error() -> Iterator[None]:
    """Outside a command (``--help``, usage errors): standard output failing is one line and
    exit 2 too."""
    try:
        yield
    except OutputError as exc:
        _quiet_stdout()
        _stop(f"error: {exc}", EXIT_USAGE)


def _stop_by(signals: StopSignals, default: int | None = None) -> None:
    """Exit 130/143 with one line if a stop signal came during the run."""
    code = signals.exit_code or default
    if code is None:
        return
    if signals.signum is not None:
        signals.ignore_more()  # a second Ctrl-C (or DuckDB's own) must not break the exit
    _stop(signals.line(code), code)


def _stop(message: str, code: int) -> NoReturn:
    click.echo(f"quizkit: {message}", err=True)
    sys.exit(code)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="quizkit")
def main() -> None:
    """Check and analyse JSON exports of the quiz package and game service."""
