"""Inputs in object storage: ``s3://bucket/prefix/`` URLs, read through fsspec (s3fs).

Credentials, region and endpoint come from where boto3 finds them: ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_PROFILE``, ``~/.aws/credentials`` and
``~/.aws/config``, ``AWS_ENDPOINT_URL`` (an S3-compatible server: MinIO, Ceph, moto). A URL
ending in ``/`` or naming a prefix is walked like a directory (the export files below it, in
sorted order); a URL naming an object is that object. fsspec and s3fs come with
``pip install 'quizkit[cluster]'``.

Every request waits at most the run's timeout (:mod:`quizkit.inputs.waits`, ``--wait-timeout``) to
connect and as long for each answer, and is tried once: an endpoint that accepts connections
and never answers ends the listing with :class:`quizkit.inputs.waits.WaitTimeout` (exit 2).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from quizkit.inputs import waits

SCHEMES = ("s3://",)


class RemoteError(Exception):
    """An object or prefix could not be listed or read (one-line message)."""


def is_url(path: object) -> bool:
    """Whether ``path`` names object storage rather than the local file system."""
    return isinstance(path, str) and path.lower().startswith(SCHEMES)


def filesystem(url: str) -> Any:
    """The fsspec file system of ``url``, each request bounded by the run's timeout and tried
    once. Raises :class:`RemoteError` when fsspec or s3fs is missing."""
    # fsspec is an optional extra, imported only when a URL is read: a run on local files
    # neither needs it nor pays for importing it.
    try:
        fsspec = importlib.import_module("fsspec")
    except ImportError:
        raise RemoteError(f"{url}: reading object storage needs fsspec and s3fs "
                          "(pip install 'quizkit[cluster]')") from None
    protocol = url.split("://", 1)[0].lower()
    try:
        timeout = waits.seconds()
    except ValueError as exc:
        raise RemoteError(str(exc)) from None
    # One try per request, each bounded: s3fs retries 5 times and botocore 5 more by default.
    options: dict[str, Any] = {"config_kwargs": {
        "connect_timeout": timeout, "read_timeout": timeout, "retries": {"max_attempts": 1}}}
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:  # older botocore releases do not read it themselves
        options["client_kwargs"] = {"endpoint_url": endpoint}
    try:
        fs = fsspec.filesystem(protocol, **options)
    except (ImportError, ValueError) as exc:
        raise RemoteError(f"{url}: {exc}") from None
    fs.retries = 1  # s3fs's own retries (not an argument of its constructor)
    return fs


def _timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a connection or read timeout."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__:
            return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return False


def _why(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such object or prefix"
    if isinstance(exc, PermissionError):
        return "access denied"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def timeout_of() -> str:
    """The run's timeout, for a message."""
    try:
        return f"{waits.seconds():g} s"
    except ValueError:
        return "the timeout"


def _url(protocol: str, key: str) -> str:
    return f"{protocol}://{key}"


def list_files(url: str, wanted: Any) -> list[tuple[str, int]]:
    """(URL, size) of every object under ``url`` whose name ``wanted(name)`` accepts, sorted;
    or of the object ``url`` itself. Raises :class:`RemoteError` when there is neither."""
    fs = filesystem(url)
    protocol = url.split("://", 1)[0].lower()
    try:
        info = None if url.endswith("/") else fs.info(url)
        if info is not None and info.get("type") != "directory":
            return [(url, int(info.get("size") or 0))]
        found = fs.find(url, detail=True)
    except Exception as exc:  # s3fs and botocore raise many kinds
        if _timed_out(exc):
            raise waits.WaitTimeout(f"{url}: object storage did not answer within "
                                    f"{timeout_of()} (--wait-timeout)") from None
        raise RemoteError(f"{url}: {_why(exc)}") from None
    out = [(_url(protocol, key), int(meta.get("size") or 0)) for key, meta in found.items()
           if meta.get("type") != "directory" and wanted(key.rsplit("/", 1)[-1])]
    if not out:
        raise RemoteError(f"{url}: no such object or prefix")
    return sorted(out)


def read(url: str, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of object ``url`` (the caller checks the limit)."""
    fs = filesystem(url)
    try:
        with fs.open(url, "rb") as fh:
            return fh.read(limit + 1)
    except Exception as exc:  # s3fs and botocore raise many kinds
        raise RemoteError(_why(exc)) from None


def fetch(url: str, dest: str) -> None:
    """Copy object ``url`` to the local file ``dest``."""
    fs = filesystem(url)
    try:
        fs.get_file(url, dest)
    except Exception as exc:  # s3fs and botocore raise many kinds
        raise RemoteError(_why(exc)) from None
