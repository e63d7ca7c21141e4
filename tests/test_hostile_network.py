"""No network: schemas resolve only from the bundle, remote ``$ref`` is refused by both engines,
and a whole validation run opens no socket (watched from outside, in the run's processes, by
tests/audited.py)."""

from __future__ import annotations

import json
import socket
import sys

import jsonschema
import jsonschema_rs
import pytest
import referencing.exceptions

from quizkit.model import schemas
from quizkit.model.entities import KIND_NAMES
from quizkit.model.schemas import SchemaBook, SchemaRefused
from tests import audited
from tests.conftest import SAMPLES, valid_samples

REMOTE = "https://example.com/schemas/remote.json"
NETWORK_EVENTS = {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                  "socket.gethostbyaddr", "socket.sendto", "socket.bind", "http.client.connect",
                  "urllib.Request"}

_watching: list[list[str]] = []


def _audit(event: str, args: tuple) -> None:
    if _watching and event in NETWORK_EVENTS:
        _watching[-1].append(event)
        raise RuntimeError(f"network access during validation: {event} {args!r}")


sys.addaudithook(_audit)  # audit hooks cannot be removed: this one acts only while watching


@pytest.fixture
def no_network(monkeypatch):
    """Fail on any socket use, through audit events and by disabling the usual entry points."""
    seen: list[str] = []

    def refuse(*args, **kwargs):
        seen.append("socket")
        raise RuntimeError("network access during validation")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    _watching.append(seen)
    try:
        yield seen
    finally:
        _watching.pop()


def test_the_watch_catches_a_connection(no_network):
    with pytest.raises(RuntimeError):
        socket.create_connection(("127.0.0.1", 9))
    with pytest.raises(RuntimeError):
        socket.socket().connect(("127.0.0.1", 9))
    assert no_network


def test_the_outside_watch_catches_a_connection(tmp_path):
    log = tmp_path / "events.log"
    code = "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)\n"
    done = audited.run(log, "python", code)
    assert done.returncode != 0 and b"network access under the watch" in done.stderr
    assert [e["event"] for e in audited.events(log) if e["event"] in audited.NETWORK] \
        == ["socket.getaddrinfo"]  # refused at its first step


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_whole_validation_run_opens_no_socket(tmp_path, jobs):
    """The whole program, from its start (the schemas read and compiled, the workers
    forked), over documents that name remote schemas: quizkit must not follow them."""
    doc = json.loads((SAMPLES / "banner.json").read_text())
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    doc["$ref"] = REMOTE
    doc["payload"]["image"] = {"$ref": "http://127.0.0.1:9/x.json"}
    (tmp_path / "remote.json").write_text(json.dumps(doc))
    paths = [str(p) for p in valid_samples()] + [str(tmp_path / "remote.json")]
    log, out = tmp_path / "events.log", tmp_path / "report.json"
    done = audited.run(log, "cli", "validate", "--jobs", jobs, "--format", "json",
                       "-o", str(out), *paths)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(out.read_text())["summary"]["files"] == len(paths)
    assert [e for e in audited.events(log) if e["event"] in audited.NETWORK] == []
    assert audited.events(log, "open"), "the watch saw nothing"


def _with_remote_ref() -> dict:
    """The bundle, with one record schema pointing at a remote schema."""
    bundle = {uri: dict(s) for uri, s in schemas.bundled().items()}
    banner = next(uri for uri in bundle if uri.endswith("records/banner.json"))
    bundle[banner] = {**bundle[banner], "properties": {
        **bundle[banner]["properties"], "remote": {"$ref": REMOTE}}}
    return bundle


def test_python_jsonschema_refuses_a_remote_ref(no_network):
    with pytest.raises(referencing.exceptions.Unretrievable) as info:
        SchemaBook().registry.get_or_retrieve(REMOTE)
    assert isinstance(info.value.__cause__, SchemaRefused)
    schema = {"$ref": REMOTE}
    checker = jsonschema.Draft202012Validator(schema, registry=SchemaBook().registry)
    with pytest.raises(referencing.exceptions.Unresolvable):
        checker.is_valid({})
    assert no_network == []


def test_jsonschema_rs_refuses_a_remote_ref(no_network):
    # A bundle with a remote reference is refused while the registry is built ...
    with pytest.raises(ValueError, match="refusing to resolve"):
        jsonschema_rs.Registry(list(_with_remote_ref().items()), retriever=schemas.refuse_retrieval)
    # ... and so is a schema that refers outside the (clean) bundle.
    bundle = list(schemas.bundled().items())
    registry = jsonschema_rs.Registry(bundle, retriever=schemas.refuse_retrieval)
    with pytest.raises(ValueError, match="refusing to resolve"):
        jsonschema_rs.Draft202012Validator({"$ref": REMOTE}, registry=registry,
                                           retriever=schemas.refuse_retrieval)
    assert no_network == []


def test_bundled_schemas_reference_only_the_bundle():
    bundle = schemas.bundled()

    def refs(node):
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                yield node["$ref"]
            for value in node.values():
                yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)

    for uri, schema in bundle.items():
        for ref in refs(schema):
            assert not ref.startswith(("http:", "https:")) or ref.startswith(schemas.BASE_URI), \
                f"{uri} refers outside the bundle: {ref}"
    book = SchemaBook()
    for kind in KIND_NAMES:  # every reference resolves from the bundle alone, in both engines
        checker = book.validator(kind)
        sample = json.loads((SAMPLES / f"{kind}.json").read_text())
        assert checker.is_valid(sample) and not list(checker.errors(sample)), kind
        if kind not in ("banner-create", "user-update"):  # request bodies require nothing
            assert not checker.is_valid({}) and list(checker.errors({})), kind
