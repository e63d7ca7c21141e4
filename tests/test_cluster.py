"""validate and load on a real Dask cluster, and inputs in a real S3-compatible server.

A session fixture starts a moto S3 server, a `dask scheduler` and two `dask worker`
processes (one thread each) on 127.0.0.1, and stops them at the end, failed tests or not.
Every run goes through the real CLI as a subprocess; cluster results are compared with
local ones on a generated corpus with broken documents.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from quizkit.analysis.tables import TABLES
from tests.conftest import requires

BIN = Path(sys.executable).parent
TABLE_NAMES = [t.name for t in TABLES if t.name != "quizkit_meta"]
BUCKET = "dumps"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(autouse=True)
def _cluster_extra() -> None:
    """Every test here runs Dask or S3 (the ``cluster`` extra and moto)."""
    for module in ("distributed", "moto.server", "s3fs"):
        requires(module)


@pytest.fixture(scope="session")
def s3_env() -> Iterator[dict[str, str]]:
    """A moto S3 server on 127.0.0.1 and the AWS variables that point at it."""
    port = free_port()
    server = requires("moto.server").ThreadedMotoServer(ip_address="127.0.0.1", port=port,
                                                         verbose=False)
    server.start()
    env = {"AWS_ACCESS_KEY_ID": "quizkit", "AWS_SECRET_ACCESS_KEY": "quizkit-secret",
           "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
    try:
        yield env
    finally:
        server.stop()


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cluster") / "corpus"
    subprocess.run([sys.executable, "-m", "quizkit", "samples", "generate", "--packages", "25",
                    "--seed", "11", "--broken", "0.1", "--out", str(root)], check=True,
                   capture_output=True)
    (root / "broken").mkdir()
    (root / "broken" / "cut.json").write_text('{"id": "g1", "name": ')  # cannot be parsed
    return root


@pytest.fixture(scope="session")
def cluster(s3_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a running scheduler with two single-threaded workers."""
    logs = tmp_path_factory.mktemp("dask-logs")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, **s3_env}
    procs: list[subprocess.Popen] = []
    try:
        with open(logs / "scheduler.log", "wb") as log:
            procs.append(subprocess.Popen(
                [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                 "--no-dashboard", "--no-show"],
                env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        with open(logs / "workers.log", "wb") as log:
            procs.append(subprocess.Popen(
                [str(BIN / "dask"), "worker", address, "--nthreads", "1", "--nworkers", "2",
                 "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "60",
                 "--local-directory", str(logs)],
                env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                cwd=logs))  # elsewhere than the client: relative paths mean nothing there
        client = requires("distributed").Client(address, timeout=60)
        try:
            client.wait_for_workers(2, timeout=90)
        finally:
            client.close()
        yield address
    finally:
        stop_all(procs)


def stop_all(procs: list[subprocess.Popen]) -> None:
    """End each process's session (SIGTERM, then SIGKILL after 20 s), the last started
    first."""
    for p in reversed(procs):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    for p in reversed(procs):
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)


def quizkit(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    full.update({"CI": "true", **(env or {})})
    # session fixtures run outside a test, without its cache directory: never the repository's
    full.setdefault("QUIZKIT_CACHE_DIR",
                    os.path.join(tempfile.gettempdir(), f"quizkit-test-cache-{os.getpid()}"))
    return subprocess.run([sys.executable, "-m", "quizkit", *args], capture_output=True,
                          text=True, timeout=timeout, env=full, check=False, cwd=cwd)


def findings(jsonl: str) -> list[tuple[str, str, str]]:
    rows = [json.loads(line) for line in jsonl.splitlines() if line.strip()]
    return [(r["path"], r["pointer"], r["rule"]) for r in rows]


@pytest.fixture(scope="session")
def local_report(corpus: Path) -> subprocess.CompletedProcess:
    """The local run every cluster and object-storage run is compared with."""
    return quizkit("validate", str(corpus), "--format", "jsonl", "-j", "2")


@pytest.fixture(scope="session")
def local_db(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("local-db") / "local.duckdb"
    proc = quizkit("load", str(corpus), "--db", str(db))
    assert proc.returncode == 3  # broken files are skipped, exit 3
    return db


def wait_for_workers(address: str) -> None:
    client = requires("distributed").Client(address, timeout=30)
    try:
        client.wait_for_workers(2, timeout=90)
    finally:
        client.close()


def test_cluster_validate_gives_the_local_report(corpus: Path, cluster: str,
                                                  local_report: subprocess.CompletedProcess
                                                  ) -> None:
    local = local_report
    remote = quizkit("validate", str(corpus), "--format", "jsonl", "--scheduler", cluster)
    assert local.returncode == remote.returncode == 3  # the corpus has broken files
    assert findings(local.stdout)  # and findings, cross-file ones among them
    assert remote.stdout == local.stdout
    # the variable works as the default address
    by_env = quizkit("validate", str(corpus), "--format", "jsonl", "-q",
                     env={"DASK_SCHEDULER_ADDRESS": cluster})
    assert by_env.stdout == local.stdout, by_env.stderr


def rows(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple]:
    exclude = " EXCLUDE (loaded_at)" if table == "files" else ""
    return sorted(con.execute(f'SELECT *{exclude} FROM "{table}"').fetchall(), key=repr)


def dataset_con(root: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for t in TABLE_NAMES:
        parts = sorted(str(p) for p in (root / t).glob("part-*.parquet"))
        con.execute(f'CREATE VIEW "{t}" AS SELECT * FROM read_parquet('
                    + "[" + ", ".join(f"'{p}'" for p in parts) + "])")
    return con


def test_cluster_load_gives_the_tables_of_a_local_load(corpus: Path, cluster: str,
                                                        local_db: Path, tmp_path: Path) -> None:
    db, ds = local_db, tmp_path / "ds"
    remote = quizkit("load", str(corpus), "--parquet", str(ds), "--scheduler", cluster,
                     "--timings")
    assert remote.returncode == 3  # broken files are skipped, exit 3
    # staged in several batches (one "read" step each), as a larger dump is
    assert len(re.findall(r"^\s+read\s", remote.stderr, re.M)) > 1, remote.stderr
    con_db, con_ds = duckdb.connect(str(db), read_only=True), dataset_con(ds)
    for t in TABLE_NAMES:
        assert rows(con_ds, t) == rows(con_db, t), t
    assert rows(con_db, "steps") and rows(con_db, "findings")


def test_a_cluster_load_into_a_dataset_replaces_rows_as_a_local_load_does(
        corpus: Path, cluster: str, tmp_path: Path) -> None:
    """Load the corpus, then a copy of its version files, into one dataset: the copies hold
    the same versions in other files, so only the versions' ids say which rows they replace,
    and on the cluster those ids come back from the workers. The dataset must end as the
    local one does (no row twice, none lost)."""
    again = str(tmp_path / "copy")
    shutil.copytree(corpus / "versions", again)
    local, remote = tmp_path / "local", tmp_path / "remote"
    for paths in ([str(corpus)], [again]):
        assert quizkit("load", *paths, "--parquet", str(local),
                       "--no-findings").returncode in (0, 3)
        assert quizkit("load", *paths, "--parquet", str(remote), "--no-findings",
                       "--scheduler", cluster).returncode in (0, 3)
    con_local, con_remote = dataset_con(local), dataset_con(remote)
    for t in TABLE_NAMES:
        assert rows(con_remote, t) == rows(con_local, t), t
    assert rows(con_local, "versions")


def test_relative_paths_mean_on_a_cluster_what_they_mean_locally(
        corpus: Path, cluster: str, tmp_path: Path) -> None:
    """The workers run in another directory: the client resolves the paths, so validate and
    load --parquet given relative paths give the local run's report and tables, and no file
    is both loaded and reported unreadable."""
    here, rel = corpus.parent, corpus.name
    local = quizkit("validate", rel, "--format", "jsonl", cwd=here)
    remote = quizkit("validate", rel, "--format", "jsonl", "--scheduler", cluster, cwd=here)
    assert local.returncode == remote.returncode == 3, remote.stderr
    assert remote.stdout == local.stdout
    assert [f for f in findings(local.stdout) if f[0].startswith(f"{rel}/")]
    ds_local, ds_remote = tmp_path / "local", tmp_path / "remote"
    done = quizkit("load", rel, "--parquet", str(ds_local), cwd=here)
    assert done.returncode == 3, done.stderr
    done = quizkit("load", rel, "--parquet", str(ds_remote), "--scheduler", cluster, cwd=here)
    assert done.returncode == 3, done.stderr
    con_local, con_remote = dataset_con(ds_local), dataset_con(ds_remote)
    for t in TABLE_NAMES:
        assert rows(con_remote, t) == rows(con_local, t), t
    assert rows(con_remote, "steps")
    both = con_remote.execute("""
        SELECT file FROM files WHERE file IN
            (SELECT file FROM findings WHERE rule IN ('unreadable-input', 'invalid-json'))
    """).fetchall()
    assert both == []


def test_a_path_the_workers_cannot_see_is_refused_with_exit_2(corpus: Path, cluster: str,
                                                              tmp_path: Path) -> None:
    """/proc/self/cwd is the client's directory for the client and the worker's for a
    worker: the client sees the file, the workers do not, and the run is refused up front."""
    seen_here = f"/proc/self/cwd/{corpus.name}/broken/cut.json"
    for args in (["validate", seen_here], ["load", seen_here, "--parquet", str(tmp_path / "d")],
                 ["load", seen_here, "--parquet", str(tmp_path / "e"), "--no-findings"]):
        proc = quizkit(*args, "--scheduler", cluster, cwd=corpus.parent)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "workers cannot see" in proc.stderr, proc.stderr
    assert not (tmp_path / "d").exists() and not (tmp_path / "e").exists()


def test_load_on_a_cluster_needs_a_dataset(corpus: Path, cluster: str, tmp_path: Path) -> None:
    proc = quizkit("load", str(corpus), "--db", str(tmp_path / "x.duckdb"),
                   "--scheduler", cluster)
    assert proc.returncode == 2
    assert "--parquet" in proc.stderr
    # the variable alone does not stop a local load into a database
    by_env = quizkit("load", str(corpus), "--db", str(tmp_path / "y.duckdb"), "--no-findings",
                     env={"DASK_SCHEDULER_ADDRESS": cluster})
    assert by_env.returncode == 3 and (tmp_path / "y.duckdb").exists()


def test_an_unreachable_scheduler_is_exit_2_naming_it(corpus: Path) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"
    for args in (["validate", str(corpus)], ["load", str(corpus), "--parquet", "unused"]):
        proc = quizkit(*args, "--scheduler", address, timeout=120)  # the timeout: a hang
        assert proc.returncode == 2
        assert address in proc.stderr
        assert "Traceback" not in proc.stderr
    # the variable is the default address
    proc = quizkit("validate", str(corpus), env={"DASK_SCHEDULER_ADDRESS": address}, timeout=30)
    assert proc.returncode == 2 and address in proc.stderr


@contextlib.contextmanager
def listener(answer: bytes | None, repeat: int = 1) -> Iterator[str]:
    """A plain TCP listener on 127.0.0.1 that accepts connections, sends ``answer`` to each
    ``repeat`` times (``None``: says nothing) and holds them open until the block ends; its
    ``host:port``."""
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()
    accepted: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            accepted.append(conn)
            if answer is not None:
                with contextlib.suppress(OSError):
                    for _ in range(repeat):
                        conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=10)
        for conn in accepted:
            conn.close()
        server.close()


@pytest.mark.parametrize("answer", [b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                                    b"\xff" * 64, None], ids=["http", "garbage", "silent"])
def test_a_listener_that_is_not_a_scheduler_is_one_line_and_exit_2(
        corpus: Path, answer: bytes | None) -> None:
    with listener(answer) as hostport:
        address = f"tcp://{hostport}"
        for args in (["validate", str(corpus)], ["load", str(corpus), "--parquet", "unused"]):
            proc = quizkit(*args, "--scheduler", address, "--wait-timeout", "3",
                           timeout=120)  # the timeout: a hang
            assert proc.returncode == 2
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("quizkit: error:"), proc.stderr
            assert address in lines[0]
            assert proc.stdout == ""


def test_an_unreadable_input_on_a_worker_is_the_local_finding(corpus: Path, cluster: str,
                                                                tmp_path: Path) -> None:
    gone = tmp_path / "gone.json"
    gone.symlink_to(tmp_path / "nowhere.json")
    some = sorted((corpus / "games").iterdir())[:3]
    args = ["validate", *map(str, some), str(gone), "--format", "jsonl"]
    local = quizkit(*args)
    remote = quizkit(*args, "--scheduler", cluster)
    assert local.returncode == remote.returncode == 3
    assert remote.stdout == local.stdout
    assert [f for f in findings(local.stdout) if f[0] == str(gone)]


def _run_killing_a_worker(cluster: str, args: list[str], *, doing: str = "",
                          timeout: float) -> tuple[int | None, int, str, str]:
    """Run ``quizkit ARGS --scheduler CLUSTER`` and SIGKILL the first worker seen running a
    task (whose key holds ``doing``): (the killed pid or None, exit code, stdout, stderr)."""
    client = requires("distributed").Client(cluster, timeout=30)
    try:
        pids = client.run(os.getpid)
        run = subprocess.Popen([sys.executable, "-m", "quizkit", *args, "--scheduler", cluster],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "CI": "true"})
        killed = None
        deadline = time.monotonic() + 60
        while killed is None and time.monotonic() < deadline and run.poll() is None:
            busy = [w for w, tasks in client.processing().items()
                    if any(doing in str(t) for t in tasks)]
            if busy:
                killed = pids[busy[0]]
                os.kill(killed, signal.SIGKILL)
            else:
                time.sleep(0.01)
        out, err = run.communicate(timeout=timeout)
    finally:
        client.close()
    return killed, run.returncode, out, err


def test_a_worker_killed_mid_run_changes_nothing(corpus: Path, cluster: str,
                                                 local_report: subprocess.CompletedProcess
                                                 ) -> None:
    """SIGKILL a worker process while it runs a task: Dask runs it again elsewhere."""
    local = local_report
    killed, returncode, out, err = _run_killing_a_worker(
        cluster, ["validate", str(corpus), "--format", "jsonl"], timeout=120)
    assert killed is not None, "the run ended before a worker could be killed"
    assert returncode == local.returncode, err
    assert out == local.stdout
    wait_for_workers(cluster)  # the nanny has started a new one


@pytest.mark.parametrize("doing", ["candidates", "_versions_task"],
                         ids=["staging-a-batch", "picking-versions"])
def test_a_worker_killed_during_a_load_changes_nothing(corpus: Path, cluster: str,
                                                      local_db: Path, tmp_path: Path,
                                                      doing: str) -> None:
    """SIGKILL the worker that stages a batch of a cluster load, or one that picks a part of
    the versions (whose inputs, every batch's part, live on the workers): Dask does what was
    lost again elsewhere, and the dataset holds the tables of a local load."""
    ds = tmp_path / "ds"
    killed, returncode, _, err = _run_killing_a_worker(
        cluster, ["load", str(corpus), "--parquet", str(ds), "--no-findings"],
        doing=doing, timeout=180)
    assert killed is not None, "the load ended before a worker could be killed"
    assert returncode == 3, err  # the broken files, as locally
    con_db, con_ds = duckdb.connect(str(local_db), read_only=True), dataset_con(ds)
    for t in TABLE_NAMES:
        if t != "findings":
            assert rows(con_ds, t) == rows(con_db, t), t
    wait_for_workers(cluster)


def test_an_unreadable_input_on_a_worker_is_the_local_skip(corpus: Path, cluster: str,
                                                          tmp_path: Path) -> None:
    """A file the client lists but the worker cannot read (a broken .gz, a cut document) is
    reported as validate reports it, and exit 3, in a cluster load as in a local one."""
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.json.gz").write_bytes(b"\x1f\x8b\x08\x00 not gzip at all")
    (bad / "cut.json").write_text('{"id": "g1", "name": ')
    some = sorted((corpus / "games").iterdir())[:3]
    shown = {}
    for where, extra in (("local", []), ("cluster", ["--scheduler", cluster])):
        proc = quizkit("load", *map(str, some), str(bad), "--parquet", str(tmp_path / where),
                       "--no-findings", *extra)
        assert proc.returncode == 3, proc.stderr
        assert "Traceback" not in proc.stderr
        shown[where] = sorted(line for line in proc.stderr.splitlines()
                              if ": error P00" in line)
    assert shown["cluster"] == shown["local"]
    assert any("broken.json.gz" in line for line in shown["local"])
    assert any("cut.json" in line for line in shown["local"])


@pytest.fixture(scope="session")
def bucket(corpus: Path, s3_env: dict[str, str]) -> str:
    """The corpus uploaded to s3://dumps/corpus/."""
    fs = requires("s3fs").S3FileSystem(key=s3_env["AWS_ACCESS_KEY_ID"],
                           secret=s3_env["AWS_SECRET_ACCESS_KEY"],
                           client_kwargs={"endpoint_url": s3_env["AWS_ENDPOINT_URL"]})
    fs.makedirs(BUCKET, exist_ok=True)  # the fixture is also imported by test_diff_cluster
    fs.put(str(corpus) + "/", f"{BUCKET}/corpus/", recursive=True)
    return f"s3://{BUCKET}/corpus/"


def as_local(found: list[tuple[str, str, str]], url: str, corpus: Path) -> list[tuple]:
    return [(f.replace(url, str(corpus) + "/"), p, r) for f, p, r in found]


@pytest.mark.parametrize("where", ["local", "cluster"])
def test_validate_reads_object_storage(corpus: Path, bucket: str, s3_env: dict[str, str],
                                       cluster: str, where: str,
                                       local_report: subprocess.CompletedProcess) -> None:
    local = local_report
    extra = ["--scheduler", cluster] if where == "cluster" else []
    remote = quizkit("validate", bucket, "--format", "jsonl", *extra, env=s3_env)
    assert remote.returncode == local.returncode == 3, remote.stderr
    assert sorted(as_local(findings(remote.stdout), bucket, corpus)) == \
        sorted(findings(local.stdout))


def test_one_big_json_lines_object_is_shared_by_the_workers(corpus: Path, s3_env: dict[str, str],
                                                            bucket: str, tmp_path: Path) -> None:
    """A JSON Lines object in object storage big enough to be cut into pieces is read once
    by the run and shared, and gives the report of the same file on disk checked by one
    worker."""
    big = tmp_path / "big.jsonl"
    lines = [path.read_bytes().replace(b"\n", b" ").strip()
             for path in sorted(corpus.rglob("*.json")) if path.stat().st_size > 1000]
    with open(big, "wb") as fh:
        while fh.tell() < 5 * 1024 * 1024:
            fh.write(b"\n".join(lines) + b"\n")
    fs = requires("s3fs").S3FileSystem(key=s3_env["AWS_ACCESS_KEY_ID"],
                           secret=s3_env["AWS_SECRET_ACCESS_KEY"],
                           client_kwargs={"endpoint_url": s3_env["AWS_ENDPOINT_URL"]})
    fs.put(str(big), f"{BUCKET}/big/big.jsonl")
    url = f"s3://{BUCKET}/big/big.jsonl"
    local = quizkit("validate", "--no-cache", "--jobs", "1", str(big), "--format", "jsonl",
                    env=s3_env)
    remote = quizkit("validate", "--no-cache", "--jobs", "2", url, "--format", "jsonl",
                     env=s3_env)
    assert remote.returncode == local.returncode, remote.stderr
    assert findings(remote.stdout) == [(f.replace(str(big), url), p, r)
                                       for f, p, r in findings(local.stdout)]
    assert findings(local.stdout), "the copies of one record are findings"


@pytest.mark.parametrize("where", ["local", "cluster"])
def test_load_reads_object_storage(corpus: Path, bucket: str, s3_env: dict[str, str],
                                   cluster: str, where: str, local_db: Path,
                                   tmp_path: Path) -> None:
    db, ds = local_db, tmp_path / "ds"
    extra = ["--scheduler", cluster] if where == "cluster" else []
    remote = quizkit("load", bucket, "--parquet", str(ds), *extra, env=s3_env)
    assert remote.returncode == 3, remote.stderr
    con_db, con_ds = duckdb.connect(str(db), read_only=True), dataset_con(ds)
    prefix = str(corpus) + "/"
    for t in TABLE_NAMES:
        mapped = sorted((tuple(v.replace(bucket, prefix) if isinstance(v, str) else v
                               for v in row) for row in rows(con_ds, t)), key=repr)
        assert mapped == rows(con_db, t), t


def test_load_into_a_database_reads_object_storage(corpus: Path, bucket: str,
                                                   s3_env: dict[str, str], local_db: Path,
                                                   tmp_path: Path) -> None:
    """``load s3://... --db``: the tables of the local load, the objects named by URL."""
    db = tmp_path / "s3.duckdb"
    proc = quizkit("load", bucket, "--db", str(db), env=s3_env)
    assert proc.returncode == 3, proc.stderr  # the broken files, as locally
    con_s3 = duckdb.connect(str(db), read_only=True)
    con_db = duckdb.connect(str(local_db), read_only=True)
    prefix = str(corpus) + "/"
    for t in TABLE_NAMES:
        mapped = sorted((tuple(v.replace(bucket, prefix) if isinstance(v, str) else v
                               for v in row) for row in rows(con_s3, t)), key=repr)
        assert mapped == rows(con_db, t), t
    (n,) = con_s3.execute("SELECT count(*) FROM files WHERE file LIKE 's3://%'").fetchone()
    assert n == len(rows(con_s3, "files"))


def test_a_missing_bucket_prefix_is_reported(s3_env: dict[str, str], bucket: str) -> None:
    proc = quizkit("validate", f"s3://{BUCKET}/no-such-prefix/", env=s3_env)
    assert proc.returncode == 2
    assert "no-such-prefix" in proc.stderr and "Traceback" not in proc.stderr
