"""Measure what the intake stage costs on clean documents (docs/limits.md quotes the result).

    python fuzz/bench_intake.py [--repeat 5]

For each variant, MB/s of input through: orjson.loads alone; loads + the cheap duplicate-key
and 64-bit-integer test (orjson.dumps, colon counts); loads + a tree walk counting keys (the
alternative); intake.parse (what the engine runs); and the engine's whole check_bytes.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from quizkit.checks import engine
from quizkit.inputs import intake
from quizkit.model.schemas import SchemaBook

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def corpus() -> dict[str, list[bytes]]:
    files = [p.read_bytes() for p in sorted(SAMPLES.glob("*.json"))]
    return {"pretty": files, "compact": [orjson.dumps(orjson.loads(f)) for f in files]}


def count_keys(doc) -> int:
    n, stack = 0, [doc]
    while stack:
        v = stack.pop()
        if type(v) is dict:
            n += len(v)
            stack.extend(v.values())
        elif type(v) is list:
            stack.extend(v)
    return n


def cheap(data: bytes) -> bool:
    doc = orjson.loads(data)
    return intake._suspicious(data, intake._write(doc))


def walk(data: bytes) -> bool:
    return data.count(b'":') > count_keys(orjson.loads(data))


def measure(variants: dict[str, Callable[[bytes], object]], files: list[bytes],
            repeat: int) -> dict[str, float]:
    """MB/s of each variant: the best of ``repeat`` rounds, variants interleaved in each round
    so that a busy machine slows them alike."""
    size = sum(map(len, files))
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(repeat):
        for name, fn in variants.items():
            start = time.perf_counter()
            for _ in range(10):
                for data in files:
                    fn(data)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: size * 10 / t / 1e6 for name, t in best.items()}


def without_cheap_test(data: bytes) -> object:
    """check_bytes with the duplicate-key and big-integer test switched off."""
    saved = intake._suspicious
    intake._suspicious = lambda chunk, written: False
    try:
        return engine.check_bytes("x.json", data, False, engine.Options(), SchemaBook())
    finally:
        intake._suspicious = saved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    options = engine.Options()
    schemas = SchemaBook()
    variants = {
        "orjson.loads": orjson.loads,
        "loads + cheap test (dumps, counts)": cheap,
        "loads + key-counting tree walk": walk,
        "intake.parse": intake.parse,
        "engine.check_bytes": lambda d: engine.check_bytes("x.json", d, False, options, schemas),
        "engine.check_bytes, test switched off": without_cheap_test,
    }
    for label, files in corpus().items():
        print(f"{label}: {sum(map(len, files)) / 1e6:.2f} MB in {len(files)} files")
        for name, speed in measure(variants, files, args.repeat).items():
            print(f"  {name:38s} {speed:8.0f} MB/s")


if __name__ == "__main__":
    main()
