"""A zip bomb against the import (issue 34, finding 3): an `.eval` of about a megabyte that
unpacks to a gigabyte, and one whose directory says 1 KB while it unpacks to a gigabyte.
Each is refused in a fresh process, which prints how long the refusal took and its peak
memory (RSS) against its memory before the refusal. `--unbounded` also times Inspect's own
`read_eval_log` on the first bomb, what the import did before the bounds (expect gigabytes).

    .venv/bin/python benchmarks/zip_bomb.py [--gib 1] [--unbounded]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB = 1024 * 1024


def build_bomb(path: Path, gib: float, *, lie: bool = False) -> Path:
    """A log whose one sample is `gib` GiB of spaces, deflated; with `lie` its directory entry
    and local header declare 1 KB instead."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", header_json())
        with archive.open("samples/s1_epoch_1.json", "w") as sample:
            block = b" " * MB
            for _ in range(int(gib * 1024)):
                sample.write(block)
    if lie:
        raw = bytearray(path.read_bytes())
        name = b"samples/s1_epoch_1.json"
        local = raw.index(name) - 30  # the name follows its 30-byte local header
        central = raw.index(name, raw.index(b"PK\x01\x02")) - 46  # and its 46-byte entry
        struct.pack_into("<I", raw, local + 22, 1024)
        struct.pack_into("<I", raw, central + 24, 1024)
        path.write_bytes(bytes(raw))
    return path


def header_json() -> str:
    """A header Inspect accepts, so its reader goes on to the sample (needs the inspect extra)."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSpec

    spec = EvalSpec(
        created="2026-01-01T00:00:00+00:00",
        task="bomb",
        dataset=EvalDataset(name="bomb", samples=1),
        model="none/none",
        config=EvalConfig(),
    )
    return EvalLog(eval=spec, status="success").model_dump_json(exclude={"samples"})


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def refuse(path: Path) -> dict:
    """In this process: set Django up, then time the import's reading of `path`."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.scratch import scratch_django

    os.environ.setdefault("DEBUG", "true")  # a scratch process: no SECRET_KEY needed
    scratch_django("pab-zip-bomb-")
    from patientagentbench.interchange.importer import ImportFormatError, parse_bytes

    raw = path.read_bytes()
    before, started = rss_mb(), time.perf_counter()
    try:
        parse_bytes(raw)
        outcome = "imported (not refused)"
    except ImportFormatError as exc:
        outcome = f"refused: {str(exc)[:160]}"
    return {
        "seconds": time.perf_counter() - started,
        "rss_before_mb": before,
        "peak_rss_mb": rss_mb(),
        "outcome": outcome,
    }


def unbounded(path: Path) -> dict:
    """In this process: Inspect's own reader on `path`, as the import called it before."""
    from inspect_ai.log import read_eval_log

    before, started = rss_mb(), time.perf_counter()
    try:
        read_eval_log(str(path))
        outcome = "read"
    except Exception as exc:  # noqa: BLE001 - whatever Inspect raises, reported
        outcome = f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}"
    return {
        "seconds": time.perf_counter() - started,
        "rss_before_mb": before,
        "peak_rss_mb": rss_mb(),
        "outcome": outcome,
    }


def in_child(mode: str, path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, f"--{mode}", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode:
        sys.exit(f"the {mode} child failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(label: str, path: Path, figures: dict) -> None:
    print(
        f"{label}: {path.stat().st_size / MB:.2f} MB file; {figures['seconds']:.3f} s, "
        f"peak RSS {figures['peak_rss_mb']:.0f} MB (before {figures['rss_before_mb']:.0f} MB); "
        f"{figures['outcome']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="what the bomb unpacks to")
    parser.add_argument("--unbounded", action="store_true", help="also time Inspect's reader")
    parser.add_argument("--refuse", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--inspect", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.refuse or args.inspect:
        figures = refuse(args.refuse) if args.refuse else unbounded(args.inspect)
        print(json.dumps(figures))
        return
    with tempfile.TemporaryDirectory(prefix="pab-zip-bomb-") as folder:
        bomb = build_bomb(Path(folder) / "bomb.eval", args.gib)
        liar = build_bomb(Path(folder) / "liar.eval", args.gib, lie=True)
        report(f"bomb ({args.gib:g} GiB declared)", bomb, in_child("refuse", bomb))
        report(f"liar ({args.gib:g} GiB, 1 KB declared)", liar, in_child("refuse", liar))
        if args.unbounded:
            report("bomb read by Inspect, unbounded", bomb, in_child("inspect", bomb))


if __name__ == "__main__":
    main()
