"""``quizkit samples``: the generated corpora (the bundled samples live in ``samples/``)."""

from __future__ import annotations

from pathlib import Path

import click

from quizkit import api


@click.group()
def samples() -> None:
    """Generate sample corpora of quiz-service documents."""


@samples.command()
@click.option("--packages", type=click.IntRange(0, api.MAX_PACKAGES), default=100,
              show_default=True,
              help=f"Number of packages, at most {api.MAX_PACKAGES:,}; games, versions, users and "
                   "banners scale with it.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The same seed always writes the same bytes.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              required=True, help="Directory to write (created; must be empty unless --force).")
@click.option("--broken", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Share of documents that get one realistic defect each.")
@click.option("--gzip-share", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Share of files written gzip-compressed (.gz).")
@click.option("--jsonl", is_flag=True,
              help="Write games, users and banners as JSON Lines batches under batches/.")
@click.option("--shape", type=click.Choice(["indented", "compact", "lines"]),
              default="indented", show_default=True,
              help="Files indented by two spaces or compact (one line), or every document "
                   "one line of one JSON Lines file (batches/documents-0001.jsonl).")
@click.option("--workers", type=click.IntRange(1, api.MAX_JOBS), default=None,
              help="Worker processes (default: CPU count, up to 8). Output does not depend "
                   "on it.")
@click.option("--force", is_flag=True,
              help="Replace a corpus written before in a non-empty --out directory.")
def generate(packages: int, seed: int, out_dir: Path, broken: float, gzip_share: float,
             jsonl: bool, shape: str, workers: int | None, force: bool) -> None:
    """Write a deterministic corpus and its manifest, DIR/corpus-manifest.json.txt."""
    try:
        summary = api.generate(out_dir, packages=packages, seed=seed, broken=broken,
                               gzip_share=gzip_share, jsonl=jsonl, workers=workers, force=force,
                               shape=shape)
    except api.ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    rate = summary.megabytes / summary.seconds if summary.seconds else 0.0
    click.echo(f"wrote {summary.files} files ({summary.documents} documents, "
               f"{summary.broken} broken), {summary.megabytes:.1f} MB in "
               f"{summary.seconds:.2f} s ({rate:.0f} MB/s) to {out_dir}")
