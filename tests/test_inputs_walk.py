"""The one file walker, through every command that reads files:
nothing is skipped silently, hidden directories are skipped by default, ``--exclude``
takes gitignore patterns, and every command takes the same files."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES, run_script

BANNER = SAMPLES / "banner.json"
GAME = SAMPLES / "game.json"


def _files_of(command: str, *args: str, cwd: Path | None = None,
              ) -> tuple[int, list[str], str]:
    """(exit code, the files the command took, stderr) of one command run as a subprocess.

    validate through its JSON report; query (which loads the files as load and summary do)
    through the ``files`` table.
    """
    if command == "validate":
        proc = run_script("validate", "--format", "json", *args, cwd=cwd)
        files = [f["path"] for f in json.loads(proc.stdout)["files"]] if proc.stdout else []
    elif command == "query":
        proc = run_script("query", "SELECT file FROM files ORDER BY file", "--format", "json",
                          *args, cwd=cwd)
        files = [row["file"] for row in json.loads(proc.stdout)] if proc.stdout else []
    else:
        raise AssertionError(command)
    files = [os.path.join(cwd or ROOT, f) for f in files]  # validate shows paths as given
    return proc.returncode, files, proc.stderr.decode()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A corpus with the entries walking must get right."""
    root = tmp_path / "dump"
    for rel in ("a.json", "sub/b.json", "invalid/bad.json", "x/tmp/t.json", "deep/invalid/c.json",
                ".git/objects.json", ".venv/lib/site.json", "node_modules/pkg/package.json",
                ".hidden.json"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BANNER, path)
    (root / "notes.txt").write_text("not an export")
    return root


def _rel(root: Path, files: list[str]) -> list[str]:
    return sorted(os.path.relpath(f, root) for f in files)


VISIBLE = ["a.json", "deep/invalid/c.json", "invalid/bad.json", "sub/b.json", "x/tmp/t.json"]
HIDDEN = [".git/objects.json", ".hidden.json", ".venv/lib/site.json",
          "node_modules/pkg/package.json"]


@pytest.mark.parametrize("command", ["validate", "query"])
def test_hidden_entries_are_skipped_unless_asked(tree: Path, command: str) -> None:
    code, files, _ = _files_of(command, str(tree))
    assert code == 0 and _rel(tree, files) == VISIBLE
    if command == "validate":  # load, summary and query take no walk options yet
        code, files, _ = _files_of(command, str(tree), "--include-hidden")
        assert code == 0 and _rel(tree, files) == sorted(VISIBLE + HIDDEN)


def test_a_hidden_directory_named_explicitly_is_walked(tree: Path) -> None:
    code, files, _ = _files_of("validate", str(tree / ".git"))
    assert code == 0 and files == [str(tree / ".git" / "objects.json")]


def test_include_hidden_from_the_config_file(tree: Path) -> None:
    (tree.parent / "quizkit.toml").write_text("include-hidden = true\n")
    code, files, _ = _files_of("validate", "dump", cwd=tree.parent)
    assert code == 0 and _rel(tree, files) == sorted(VISIBLE + HIDDEN)
    (tree.parent / "quizkit.toml").write_text('include-hidden = "yes"\n')
    proc = run_script("validate", "dump", cwd=tree.parent)
    assert proc.returncode == 2 and b"include-hidden" in proc.stderr


@pytest.mark.parametrize("command", ["validate"])
@pytest.mark.parametrize(("patterns", "gone"), [
    (["invalid/"], ["deep/invalid/c.json", "invalid/bad.json"]),  # a directory at any depth
    (["/invalid"], ["invalid/bad.json"]),  # anchored to the walked directory
    (["dump/invalid"], ["invalid/bad.json"]),  # the path as walked
    (["**/tmp/*"], ["x/tmp/t.json"]),
    (["*.json", "!a.json"], None),  # negation: refused
    (["sub/b.json", "a.json"], ["a.json", "sub/b.json"]),  # literal paths and names
])
def test_exclude_patterns_mean_what_gitignore_means(tree: Path, command: str,
                                                    patterns: list[str],
                                                    gone: list[str] | None) -> None:
    args = [a for p in patterns for a in ("--exclude", p)]
    code, files, err = _files_of(command, "dump", *args, cwd=tree.parent)
    if gone is None:
        assert code == 2 and "negation" in err and "Traceback" not in err
        return
    assert code == 0, err
    assert _rel(tree, files) == [f for f in VISIBLE if f not in gone]
    assert "matched nothing" not in err


@pytest.mark.parametrize("command", ["validate"])
def test_a_pattern_that_matches_nothing_is_a_warning(tree: Path, command: str) -> None:
    code, files, err = _files_of(command, "dump", "--exclude", "invalid/",
                                 "--exclude", "samples/invalid", cwd=tree.parent)
    assert code == 0 and len(files) == len(VISIBLE) - 2
    assert "warning: exclude pattern 'samples/invalid' matched nothing" in err
    assert "'invalid/'" not in err


def test_enums_infer_walks_the_same_files(tree: Path) -> None:
    proc = run_script("enums", "infer", "--format", "json", "dump", "--exclude", "invalid/",
                      cwd=tree.parent)
    assert proc.returncode == 0 and json.loads(proc.stdout)["files"] == len(VISIBLE) - 2
    proc = run_script("enums", "infer", "--format", "json", "dump", "--include-hidden",
                      cwd=tree.parent)
    assert json.loads(proc.stdout)["files"] == len(VISIBLE) + len(HIDDEN)


def _unreadable_tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A directory with one good file and entries root cannot read: (root, name -> reason)."""
    root = tmp_path / "in"
    root.mkdir()
    shutil.copy(GAME, root / "good.json")
    (root / "dangling.json").symlink_to(root / "gone.json")
    os.mkfifo(root / "pipe.jsonl")
    (root / "loop.json").symlink_to(root / "loop.json")
    return root, {"dangling.json": "broken symbolic link", "pipe.jsonl": "FIFO",
                  "loop.json": "symbolic links"}


@pytest.mark.parametrize("args", [
    ["load", "{root}", "--db", "{db}", "--no-findings"],
    ["load", "{root}", "--db", "{db}"],
    ["summary", "overview", "{root}"],
    ["query", "SELECT count(*) FROM games", "{root}"],
    ["enums", "infer", "{root}"],
    ["validate", "--format", "concise", "{root}"],
])
def test_unreadable_entries_are_reported_with_exit_3(tmp_path: Path, args: list[str]) -> None:
    root, reasons = _unreadable_tree(tmp_path)
    argv = [a.format(db=tmp_path / "out.duckdb", root=root) for a in args]
    proc = run_script(*argv, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    text = err + proc.stdout.decode()
    for name, reason in reasons.items():
        [line] = [ln for ln in text.splitlines() if str(root / name) in ln]
        assert reason in line
    if args[0] == "load":  # the good file is loaded all the same
        count = run_script("query", "SELECT count(*) AS n FROM games", "--format", "json",
                           "--db", str(tmp_path / "out.duckdb"))
        assert json.loads(count.stdout) == [{"n": 1}]


def _as_nobody(argv: list[str]) -> tuple[int, str, str]:
    """Run the CLI in a forked process that dropped root, with real stdout and stderr.

    (A fresh interpreter cannot be started as nobody here: it lives under /root.)
    """
    # Imported before the fork: the child may not read modules.
    import quizkit.api
    import quizkit.commands.enum_commands
    import quizkit.commands.validate  # noqa: F401
    from quizkit.cli import main

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 70
        try:
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - pytest replaced them
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
            os.setgid(65534)
            os.setuid(65534)
            try:
                main(argv, prog_name="quizkit")
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r, "rb") as out, os.fdopen(err_r, "rb") as err:
        stdout, stderr = out.read(), err.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), stdout.decode(), stderr.decode()


@pytest.mark.parametrize("command", [["validate", "--format", "concise"], ["enums", "infer"]])
def test_a_directory_that_cannot_be_listed_is_reported(command: list[str]) -> None:
    root = Path(tempfile.mkdtemp(prefix="quizkit-walk-"))
    try:
        root.chmod(0o755)
        shutil.copy(GAME, root / "good.json")
        (root / "good.json").chmod(0o644)
        closed = root / "closed"
        closed.mkdir()
        shutil.copy(GAME, closed / "inner.json")
        closed.chmod(0o000)
        if os.geteuid() == 0:
            code, out, err = _as_nobody([*command, str(root)])
        else:
            proc = run_script(*command, str(root))
            code, out, err = proc.returncode, proc.stdout.decode(), proc.stderr.decode()
        assert code == 3, err
        [line] = [ln for ln in (out + err).splitlines() if str(closed) in ln]
        assert "ermission denied" in line
    finally:
        closed.chmod(0o755)
        shutil.rmtree(root)


def test_a_hundred_thousand_excludes_cost_seconds(tree: Path, tmp_path: Path) -> None:
    """Generated exclude lists (one line per file) must not make the walk quadratic."""
    many = [f"gen/dir{i}/file{i}.json" for i in range(50_000)]
    many += [f"name{i}.json" for i in range(49_998)] + ["sub/", "**/tmp/*.json"]
    (tmp_path / "quizkit.toml").write_text("exclude = " + json.dumps(many) + "\n")
    code, files, err = _files_of("validate", str(tree), cwd=tmp_path)
    assert code == 0 and _rel(tree, files) == ["a.json", "deep/invalid/c.json",
                                               "invalid/bad.json"]
    assert "... and 99988 more exclude patterns matched nothing" in err
