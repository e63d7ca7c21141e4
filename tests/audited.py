"""Run the quizkit program, or Python code, under a watch of what it opens and connects to.

    python tests/audited.py LOG [--on-open WATCHED:ACTION:TARGET] [--network] cli ARGS...
    python tests/audited.py LOG [--on-open WATCHED:ACTION:TARGET] [--network] python CODE

``cli`` runs the program as its console script does (``quizkit.entry.main``, exit code and
all); ``python`` runs CODE. Before either starts, an audit hook (``sys.addaudithook``, PEP 578)
is installed: every file opened by path (``open``, ``os.open``, ``gzip.open`` alike), every
process started (``os.fork``, ...) and every network call is written to LOG as one JSON line
``{"pid", "event", "what"}``, from this process and from the worker processes it forks (they
inherit the hook and the log). A network call is also refused (``RuntimeError``) after it is
logged, so none leaves the machine, unless ``--network`` lets them through (a Dask worker,
which talks to its scheduler).

``--on-open WATCHED:ACTION:TARGET`` (repeatable): when WATCHED is first opened, ACTION is done
to TARGET before the open goes on: ``delete`` it, or ``garble`` it (its content replaced by
text that is not JSON). Tests use it to change a file while a run is under way.

This watches behaviour, not code: it cannot be fooled by a function renamed or moved.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

#: Events of a process starting another (a worker forked, a program run).
STARTS = ("os.fork", "os.posix_spawn", "os.exec", "subprocess.Popen")
NETWORK = ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
           "socket.gethostbyaddr", "socket.sendto", "socket.bind", "http.client.connect",
           "urllib.Request")


def main(argv: list[str]) -> None:
    log_path, rest = argv[0], argv[1:]
    actions: dict[str, tuple[str, str]] = {}
    refuse_network = True
    while rest[0] in ("--on-open", "--network"):
        if rest[0] == "--network":
            refuse_network = False
            rest = rest[1:]
            continue
        watched, action, target = rest[1].split(":", 2)
        actions[os.path.abspath(watched)] = (action, target)
        rest = rest[2:]
    mode, args = rest[0], rest[1:]
    # Opened before the hook is installed: its own open is not logged. Line-buffered and
    # appending, so lines from forked workers do not mix.
    log = open(log_path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    # Set while the hook itself acts in a thread (its own opens are not logged). Per thread:
    # a Dask worker opens files in several threads at once, and a flag shared by all of them
    # would hide one thread's open while another thread's is being logged.
    local = threading.local()

    def hook(event: str, event_args: tuple) -> None:
        if getattr(local, "busy", False):
            return
        if event == "open":
            path = event_args[0]
            if not isinstance(path, (str, bytes, os.PathLike)):
                return  # an open of a file descriptor
            path = os.fsdecode(path)
            local.busy = True
            try:
                log.write(json.dumps({"pid": os.getpid(), "event": event,
                                      "what": os.path.abspath(path)}) + "\n")
                todo = actions.pop(os.path.abspath(path), None)
                if todo is not None:
                    _act(*todo)
            finally:
                local.busy = False
        elif event in STARTS:
            local.busy = True
            try:
                log.write(json.dumps({"pid": os.getpid(), "event": event, "what": ""}) + "\n")
            finally:
                local.busy = False
        elif event in NETWORK:
            local.busy = True
            try:
                log.write(json.dumps({"pid": os.getpid(), "event": event,
                                      "what": repr(event_args)}) + "\n")
            finally:
                local.busy = False
            if refuse_network:
                raise RuntimeError(f"network access under the watch: {event}")

    sys.addaudithook(hook)
    if mode == "cli":
        sys.argv = ["quizkit", *args]
        from quizkit.entry import main as program

        program()
    elif mode == "python":
        exec(compile(args[0], "<audited>", "exec"), {"__name__": "__audited__"})
    else:
        raise SystemExit(f"unknown mode {mode!r} (cli or python)")


def _act(action: str, target: str) -> None:
    if action == "delete":
        os.unlink(target)
    elif action == "garble":
        with open(target, "wb") as fh:
            fh.write(b"{not json")
    else:
        raise SystemExit(f"unknown action {action!r} (delete or garble)")


def command(log: Path, mode: str, *args: str, on_open: Iterable[str] = (),
            network: bool = False) -> list[str]:
    """The command line that runs this script (see :func:`run`)."""
    options = [part for spec in on_open for part in ("--on-open", spec)]
    return [sys.executable, __file__, str(log), *options, *(["--network"] * network), mode,
            *args]


def run(log: Path, mode: str, *args: str, on_open: Iterable[str] = (),
        cwd: Path | None = None, stdin: bytes | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess:
    """Run this script in a child Python (``mode`` ``cli`` or ``python``), logging to ``log``;
    ``on_open``: ``WATCHED:ACTION:TARGET`` specs; ``stdin``: its standard input."""
    return subprocess.run(command(log, mode, *args, on_open=on_open), input=stdin,
                          cwd=cwd, capture_output=True, timeout=timeout,
                          env={**os.environ, "CI": "true"})


def events(log: Path, event: str | None = None) -> list[dict]:
    """The lines of a log, oldest first (only those of ``event``, if given)."""
    with open(log, encoding="utf-8") as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    return [e for e in lines if event is None or e["event"] == event]


def opens_of(log: Path, paths: Iterable[str | os.PathLike[str]]) -> dict[str, int]:
    """How many times each of ``paths`` was opened."""
    wanted = {os.path.abspath(p): 0 for p in paths}
    for e in events(log, "open"):
        if e["what"] in wanted:
            wanted[e["what"]] += 1
    return wanted


if __name__ == "__main__":
    main(sys.argv[1:])
