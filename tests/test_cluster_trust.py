"""The edges of trust of a cluster run: a peer posing as a scheduler, a scheduler without
workers, an object store that never answers, addresses that are not addresses, and a real
TLS cluster whose certificates are made here.

Every run goes through the real CLI in a subprocess, against real listeners and real
``dask scheduler``/``dask worker`` processes on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import pickle
import signal
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from safety_cli import one_line_error
from test_cluster import free_port, listener, quizkit, stop_all

from tests.conftest import requires

BIN = Path(sys.executable).parent
SAMPLES = Path(__file__).parent.parent / "samples"


class _Marker:
    """Unpickling one creates the file it names."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (self.path, "w"))


def dask_message(frames: list[bytes]) -> bytes:
    """``frames`` as one message of Dask's TCP wire format."""
    prelude = struct.pack(f"<Q{len(frames)}Q", len(frames), *map(len, frames))
    body = prelude + b"".join(frames)
    return struct.pack("<Q", len(body)) + body


def pickled_message(marker: Path, **fields: object) -> bytes:
    """A message whose msgpack header holds ``fields`` and a pickled object, as Dask encodes
    objects it cannot put in msgpack."""
    header = requires("msgpack").packb({**fields, "x": {"__Pickled__": 1}}, use_bin_type=True)
    sub = requires("msgpack").packb({"pickled-obj": pickle.dumps(_Marker(str(marker))),
                         "num-sub-frames": 0}, use_bin_type=True)
    return dask_message([header, sub])


def test_a_peer_posing_as_a_scheduler_runs_no_code(tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"
    answer = pickled_message(marker, compression=None, python=(3, 11, 0),
                             **{"pickle-protocol": 5, "type": "Scheduler"})
    with listener(answer, repeat=2) as hostport:  # the handshake, then a reply
        for address in (f"tcp://{hostport}", hostport):
            done = quizkit("validate", str(SAMPLES), "--scheduler", address,
                           "--wait-timeout", "5", timeout=60)
            assert not marker.exists()
            line = one_line_error(done, 2)
            assert hostport in line and "not a Dask scheduler" in line
        done = quizkit("validate", str(SAMPLES), "--wait-timeout", "5",
                       env={"DASK_SCHEDULER_ADDRESS": f"tcp://{hostport}"}, timeout=60)
        assert one_line_error(done, 2) and not marker.exists()
        done = quizkit("load", str(SAMPLES), "--parquet", str(tmp_path / "ds"),
                       "--scheduler", f"tcp://{hostport}", "--wait-timeout", "5", timeout=60)
        assert one_line_error(done, 2) and not marker.exists()
        assert not (tmp_path / "ds").exists()


@contextlib.contextmanager
def processes(*commands: list[str], logs: Path, env: dict[str, str] | None = None
              ) -> Iterator[None]:
    """The commands running (each in a session of its own), stopped at the end."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for i, command in enumerate(commands):
            with open(logs / f"{i}.log", "wb") as log:
                procs.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                              env={**os.environ, **(env or {})},
                                              start_new_session=True))
        yield
    finally:
        stop_all(procs)


def wait_for_scheduler(address: str, workers: int, security: object | None = None) -> None:
    client = requires("distributed").Client(address, timeout=60, security=security)
    try:
        if workers:
            client.wait_for_workers(workers, timeout=90)
    finally:
        client.close()


def test_a_scheduler_without_workers_is_a_wait_with_an_end(tmp_path: Path) -> None:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    with processes([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port",
                    str(port), "--no-dashboard", "--no-show"], logs=tmp_path):
        wait_for_scheduler(address, 0)
        for args in (["validate", str(SAMPLES)],
                     ["load", str(SAMPLES), "--parquet", str(tmp_path / "ds")]):
            done = quizkit(*args, "--scheduler", address, "--wait-timeout", "2", timeout=90)
            line = one_line_error(done, 2)
            assert "no worker" in line and address in line and "2 s" in line
        assert not (tmp_path / "ds").exists()
        # a stop signal ends the wait at once, whatever is left of it
        for signum, code in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
            proc = subprocess.Popen([sys.executable, "-m", "quizkit", "validate", str(SAMPLES),
                                     "--scheduler", address, "--wait-timeout", "600"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)  # still waiting for a worker
            assert proc.returncode is None
            proc.send_signal(signum)
            _out, err = proc.communicate(timeout=60)  # not the 600 s of the timeout
            assert proc.returncode == code and "Traceback" not in err, err


def test_an_object_store_that_never_answers_is_a_wait_with_an_end(tmp_path: Path) -> None:
    requires("s3fs")
    s3 = {"AWS_ACCESS_KEY_ID": "quizkit", "AWS_SECRET_ACCESS_KEY": "quizkit-secret",
          "AWS_DEFAULT_REGION": "us-east-1"}
    with listener(None) as hostport:
        s3["AWS_ENDPOINT_URL"] = f"http://{hostport}"
        for args in (["validate", "s3://dumps/day/"],
                     ["load", "s3://dumps/day/", "--db", str(tmp_path / "x.duckdb")]):
            done = quizkit(*args, "--wait-timeout", "1", env=s3, timeout=90)
            line = one_line_error(done, 2)
            assert "did not answer within 1 s" in line and "s3://dumps/day/" in line
        assert not (tmp_path / "x.duckdb").exists()


@pytest.mark.parametrize("address", ["tcp://[::1", "tcp://127.0.0.1", "tcp://127.0.0.1:x",
                                     "udp://127.0.0.1:8786", "tcp://127.0.0.1:8786/path",
                                     "tcp://h\x1b]0;t\x07:1", " "])
def test_an_address_that_is_not_one_is_exit_2(address: str, tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    for how in ("option", "environment"):
        args = ["validate", str(SAMPLES), "-o", str(out)]
        if how == "option":
            done = quizkit(*args, "--scheduler", address, timeout=60)
        else:
            done = quizkit(*args, env={"DASK_SCHEDULER_ADDRESS": address}, timeout=60)
        if address == " " and how == "environment":
            continue  # an empty variable is no address: a local run
        assert done.returncode == 2, (how, done.stderr)
        assert "Traceback" not in done.stderr and "\x1b" not in done.stderr
        assert ("DASK_SCHEDULER_ADDRESS" if how == "environment" else "--scheduler") \
            in done.stderr
        assert not out.exists()


@pytest.mark.parametrize("value", ["inf", "nan", "0", "-1", "1e9", "soon"])
def test_a_wait_timeout_that_is_not_one_is_exit_2(value: str) -> None:
    for env in ({}, {"QUIZKIT_WAIT_TIMEOUT": value}):
        args = () if env else ("--wait-timeout", value)
        done = quizkit("validate", str(SAMPLES), *args, "--scheduler", "tcp://127.0.0.1:1",
                       env=env, timeout=60)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "wait-timeout" in done.stderr.lower() or "WAIT_TIMEOUT" in done.stderr


# --- a TLS cluster --------------------------------------------------------------------------

def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))


def make_certificates(folder: Path) -> dict[str, Path]:
    """A CA and one certificate it signs for 127.0.0.1 (scheduler, workers and client use
    it, as Dask's docs do for a private cluster); their PEM files."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "quizkit test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = {"ca": folder / "ca.pem", "cert": folder / "node.pem", "key": folder / "node.key"}
    paths["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(key, paths["key"])
    return paths


def test_validate_on_a_tls_cluster_gives_the_local_report(tmp_path: Path) -> None:
    certs = make_certificates(tmp_path)
    tls = ["--tls-ca-file", str(certs["ca"]), "--tls-cert", str(certs["cert"]),
           "--tls-key", str(certs["key"])]
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    client_env = {"DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(certs["ca"]),
                  "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": str(certs["cert"]),
                  "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": str(certs["key"])}
    with processes([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port",
                    str(port), "--no-dashboard", "--no-show", "--protocol", "tls", *tls],
                   [str(BIN / "dask"), "worker", address, "--nthreads", "1",
                    "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "60",
                    "--local-directory", str(tmp_path), *tls], logs=tmp_path):
        wait_for_scheduler(address, 1, requires("distributed").Security(
            tls_ca_file=str(certs["ca"]), tls_client_cert=str(certs["cert"]),
            tls_client_key=str(certs["key"]), require_encryption=True))
        local = quizkit("validate", str(SAMPLES), "--format", "jsonl")
        remote = quizkit("validate", str(SAMPLES), "--format", "jsonl", "--scheduler", address,
                         env=client_env, timeout=120)
        assert remote.returncode == local.returncode, remote.stderr
        assert remote.stdout == local.stdout and remote.stdout
        # without the client's certificates: one line saying what is missing
        done = quizkit("validate", str(SAMPLES), "--scheduler", address, timeout=60)
        assert "certificates" in one_line_error(done, 2)
        # a plain tcp:// client at a TLS scheduler: it does not answer as a scheduler
        done = quizkit("validate", str(SAMPLES), "--scheduler", f"tcp://127.0.0.1:{port}",
                       "--wait-timeout", "3", timeout=60)
        assert one_line_error(done, 2)


def test_a_scheduler_whose_metrics_are_keyed_by_arrays_is_a_scheduler() -> None:
    # a real scheduler's identity, once its workers have run tasks, holds maps keyed by
    # arrays (its metrics: ("execute", "sees", "thread-cpu", "seconds")); plain msgpack
    # must read them as tuples, or a real scheduler is refused now and then
    from quizkit.cluster import scheduler_probe

    metrics = {("execute", "sees", "thread-cpu", "seconds"): 0.5}
    answer = dask_message([requires("msgpack").packb(
        {"compression": None, "python": (3, 11, 0), "pickle-protocol": 5,
         "type": "Scheduler", "workers": {"tcp://127.0.0.1:1": {"metrics": metrics}}},
        use_bin_type=True)])
    with listener(answer, repeat=2) as hostport:  # the handshake, then the reply
        scheduler_probe.check(f"tcp://{hostport}", 10, None)
