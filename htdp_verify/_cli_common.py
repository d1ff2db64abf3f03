"""Pieces every ``htdp-verify`` subcommand shares: exit codes, the one-line usage error, argument types and the
output-folder check (:mod:`htdp_verify.cli` and :mod:`htdp_verify._cli_bench` use them)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

#: exit codes of ``htdp-verify run`` (listed in ``htdp-verify --help`` and ``htdp-verify run --help``)
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_FOUND = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_PIPE = 130, 141


class UsageError(Exception):
    """A bad argument found after parsing (reported as one line, exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``htdp-verify run: error: ...``) and exit code 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _seed_arg(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, 2**63), got {text!r}") from None
    if not 0 <= v < 2**63:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, 2**63), got {v}")
    return v


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {v}")
    return v


def prepare_out(path, option: str = "--out") -> Path:
    """Create the output folder ``path`` and make sure a file can be written in it; ``UsageError`` (one line,
    naming ``option``) when it names a file, cannot be created or is not writable."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{option} {out}: is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".htdp-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"{option} {out}: cannot write there ({exc.strerror or exc})") from None
    return out
