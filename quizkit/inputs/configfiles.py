"""Reading the files that configure a run: config files, enum profiles and baselines.

They are small, and a user may point at anything by mistake (``--config /dev/zero``, a FIFO,
a directory, a binary file), so there is one way to read them: open without blocking, accept
only a regular file, read at most a size cap, decode strict UTF-8, and turn every problem into
a :class:`ConfigError` (exit code 2) naming the file and, where there is one, the line and
column. The caps are documented in docs/configuration.md.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from typing import Any

from quizkit.inputs.sources import file_type

#: Largest config file or enum profile read (a profile of 100,000 values is about 2 MiB).
SETTINGS_MAX_BYTES = 16 * 1024**2
#: Largest baseline read (a million findings is about 150 MiB).
BASELINE_MAX_BYTES = 512 * 1024**2

_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


class ConfigError(Exception):
    """Something that configures the run is wrong (exit code 2). The message names it."""


def read_bytes(path: str | os.PathLike[str], what: str, limit: int) -> bytes:
    """The bytes of the regular file ``path``; ``what`` names it in messages ("config file").

    The file is opened without blocking (a FIFO with no writer does not hang) and checked
    through the open descriptor, so a special file is refused before a byte is read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    with open(fd, "rb", closefd=True) as fh:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError(f"{what} {path} is {file_type(mode)}, not a regular file")
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise ConfigError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ConfigError(f"{what} {path} is larger than {limit // 1024**2} MiB, the most "
                          "quizkit reads (see docs/configuration.md)")
    return data


def line_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset`` of UTF-8 ``data``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def read_text(path: str | os.PathLike[str], what: str, limit: int) -> str:
    """The text of a UTF-8 file (a leading byte order mark is dropped); see :func:`read_bytes`."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line, column = line_column(data, exc.start)
        raise ConfigError(f"{path}:{line}:{column}: {what} is not UTF-8 text "
                          f"(byte 0x{data[exc.start]:02x})") from None


def read_toml(path: str | os.PathLike[str], what: str,
              limit: int = SETTINGS_MAX_BYTES) -> dict[str, Any]:
    """The table of a TOML file; invalid TOML names the line and column."""
    text = read_text(path, what, limit)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = _TOML_AT.search(message)
        where = f"{path}:{at.group(1)}:{at.group(2)}" if at else str(path)
        reason = message[:at.start()] if at else message
        raise ConfigError(f"{where}: {what} is not valid TOML: {reason}") from None


def type_name(value: Any) -> str:
    """How TOML and JSON name the type of ``value``, for messages."""
    return {bool: "a boolean", int: "an integer", float: "a float", str: "a string",
            list: "an array", dict: "a table"}.get(type(value), type(value).__name__)

