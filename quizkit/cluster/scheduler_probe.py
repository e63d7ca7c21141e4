"""Is a Dask scheduler listening at an address? Asked without deserialising anything it sends.

Before a Dask ``Client`` is made, quizkit checks the peer itself: a ``Client`` whose peer does
not speak Dask waits for a handshake that never comes, or fails and prints Dask's own
traceback. The check must not trust the peer either: Dask's own reader unpickles any object a
message carries (``{"__Pickled__": …}``), whatever its ``deserialize`` flag, so a peer posing as
a scheduler would run code in quizkit before any connection is Dask's.

This module reads Dask's wire format by hand instead: each message is an 8-byte length, a
prelude of frame lengths, then the frames; the first frame is msgpack. It decodes that frame
with plain msgpack (no object hooks: a pickled object stays bytes in a dict) and looks at two
messages only: the peer's handshake, which must be one frame (a pickled object would be a
frame of its own), and its reply to ``identity``, whose first frame must say ``"type":
"Scheduler"`` (a scheduler whose workers have run tasks sends more frames beside it; they
are skipped, never decoded; its metrics may be keyed by arrays, read as tuples).
Messages are bounded in size and the whole exchange in time. Once the check passes, the
connection is Dask's, with Dask's trust model: a scheduler and its workers run code for each
other (``docs/scaling.md``).
"""

from __future__ import annotations

import pickle
import socket
import ssl
import struct
import sys
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

#: Schemes ``--scheduler`` takes (a bare ``host:port`` is ``tcp://``).
SCHEMES = ("tcp", "tls")
#: Largest message the check reads (a scheduler's identity lists its workers: a few hundred
#: bytes each).
MAX_MESSAGE = 16 << 20
_Q = struct.Struct("<Q")


class PeerError(Exception):
    """The peer is not a Dask scheduler, or did not answer in time (one-line message)."""


@dataclass(frozen=True)
class Address:
    """A scheduler address: scheme, host and port."""

    scheme: str
    host: str
    port: int


def parse(address: str) -> Address:
    """``address`` (``tcp://host:port``, ``tls://host:port`` or ``host:port``) parsed;
    :class:`ValueError` with a one-line reason when it is not one."""
    text = address.strip()
    if not text:
        raise ValueError("the address is empty")
    if any(not ch.isprintable() for ch in text):
        raise ValueError("the address holds control characters")
    raw = text if "://" in text else f"tcp://{text}"
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"not an address ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise ValueError(f"the scheme must be tcp:// or tls://, not {scheme}://")
    if not parts.hostname:
        raise ValueError("no host")
    if port is None:
        raise ValueError("no port (e.g. tcp://host:8786)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError("only scheme://host:port")
    return Address(scheme, parts.hostname, port)


def _frames(message: object) -> bytes:
    """``message`` as one Dask TCP message (length, prelude, one msgpack frame)."""
    import msgpack  # comes with Dask, which a cluster run needs anyway
    frame = msgpack.packb(message, use_bin_type=True)
    prelude = struct.pack("<QQ", 1, len(frame))
    return _Q.pack(len(prelude) + len(frame)) + prelude + frame


class _Reader:
    """Reads whole messages from a socket, each within the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline

    def exact(self, n: int) -> bytes:
        chunks: list[bytes] = []
        left = n
        while left:
            wait = self.deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError
            self.sock.settimeout(wait)
            chunk = self.sock.recv(min(left, 1 << 20))
            if not chunk:
                raise PeerError("the peer closed the connection")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def message(self, one_frame: bool = True) -> object:
        """The first frame of the next message, decoded as plain msgpack. ``one_frame``:
        refuse a message with frames beside it (the handshake has none); otherwise they
        are skipped, never decoded (a scheduler's ``identity`` reply may carry some)."""
        import msgpack

        not_dask = "what answers there is not a Dask scheduler"
        (total,) = _Q.unpack(self.exact(8))
        if not 16 <= total <= MAX_MESSAGE:
            raise PeerError(not_dask)
        body = self.exact(total)
        (count,) = _Q.unpack_from(body)
        start = 8 + 8 * count
        if not 1 <= count <= (total - 8) // 8 or (one_frame and count != 1):
            raise PeerError(not_dask)
        lengths = struct.unpack_from(f"<{count}Q", body, 8)
        if start + sum(lengths) != total:
            raise PeerError(not_dask)
        try:
            # No object_hook, no ext_hook: nothing the peer sends becomes anything but
            # plain data (dicts, tuples, str, bytes, numbers, ExtType). Arrays are tuples,
            # as Dask reads them: a scheduler's metrics are keyed by arrays.
            return msgpack.unpackb(body[start:start + lengths[0]], raw=False,
                                   strict_map_key=False, use_list=False)
        except Exception:
            raise PeerError(not_dask) from None


def check(address: str, timeout: float, ssl_context: ssl.SSLContext | None) -> None:
    """Return when a Dask scheduler answers at ``address`` within ``timeout`` seconds;
    otherwise :class:`PeerError` (or :class:`ValueError` for an address that is not one).
    ``ssl_context`` is the client's TLS context, needed for ``tls://``."""
    where = parse(address)
    if where.scheme == "tls" and ssl_context is None:
        raise PeerError("tls:// needs the client's certificates: set the Dask configuration "
                        "distributed.comm.tls.ca-file, .client.cert and .client.key "
                        "(docs/scaling.md)")
    deadline = time.monotonic() + timeout
    not_dask = "what answers there is not a Dask scheduler"
    try:
        raw = socket.create_connection((where.host, where.port), timeout=timeout)
    except TimeoutError:
        raise PeerError(f"no answer within {timeout:g} s (--wait-timeout)") from None
    except OSError as exc:
        raise PeerError(exc.strerror or str(exc) or type(exc).__name__) from None
    try:
        sock = raw
        if where.scheme == "tls":
            assert ssl_context is not None
            raw.settimeout(max(0.01, deadline - time.monotonic()))
            sock = ssl_context.wrap_socket(raw, server_hostname=where.host)
        reader = _Reader(sock, deadline)
        sock.sendall(_frames({"compression": None, "python": tuple(sys.version_info)[:3],
                              "pickle-protocol": pickle.HIGHEST_PROTOCOL}))
        handshake = reader.message()
        if not (isinstance(handshake, dict) and "pickle-protocol" in handshake):
            raise PeerError(not_dask)
        sock.sendall(_frames({"op": "identity", "reply": True}))
        reply = reader.message(one_frame=False)
        if not (isinstance(reply, dict) and reply.get("type") == "Scheduler"):
            raise PeerError(not_dask)
    except TimeoutError:
        raise PeerError(f"no Dask scheduler answered within {timeout:g} s "
                        "(--wait-timeout)") from None
    except ssl.SSLError as exc:
        raise PeerError(f"TLS failed: {exc.reason or exc}") from None
    except PeerError:
        raise
    except OSError as exc:
        raise PeerError(exc.strerror or str(exc) or type(exc).__name__) from None
    finally:
        raw.close()
