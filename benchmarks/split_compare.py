"""Compare two files of ``split_experiment.py`` lines audit by audit: per row, the median and minimum ε_lb of each
file over the seeds both hold, how many paired audits the second file certified higher, and the verdicts right.

Usage::

    python benchmarks/split_compare.py BASE.jsonl OTHER.jsonl [--rows SVT1 SVT2]
    python benchmarks/split_compare.py A1.jsonl,A2.jsonl B1.jsonl,B2.jsonl   # several files per side, merged

Each file's lines are keyed by (row, seed); a key present on one side only is left out (and counted).  A repeated key
keeps its last line (files in the order given).
"""

from __future__ import annotations

import argparse
import json
import statistics


def load(path: str) -> dict:
    """The lines of ``path`` (one file, or several joined by commas) by (row, seed)."""
    out = {}
    for one in path.split(","):
        with open(one) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    out[(r["row"], int(r["seed"]))] = r
    return out


def compare(base: dict, other: dict, rows=None) -> list[dict]:
    """One summary per row over the keys both files hold."""
    keys = sorted(set(base) & set(other))
    names = sorted({k[0] for k in keys} if rows is None else set(rows) & {k[0] for k in keys})
    out = []
    for name in names:
        ks = [k for k in keys if k[0] == name]
        x = [base[k]["epsilon_lb"] for k in ks]
        y = [other[k]["epsilon_lb"] for k in ks]
        out.append(
            {
                "row": name,
                "audits": len(ks),
                "base_median": statistics.median(x),
                "other_median": statistics.median(y),
                "base_min": min(x),
                "other_min": min(y),
                "other_higher": sum(b > a for a, b in zip(x, y)),
                "base_right": sum(bool(base[k]["right"]) for k in ks),
                "other_right": sum(bool(other[k]["right"]) for k in ks),
            }
        )
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("other")
    ap.add_argument("--rows", nargs="*", default=None)
    a = ap.parse_args(argv)
    base, other = load(a.base), load(a.other)
    table = compare(base, other, a.rows)
    print("| row | audits | median (base → other) | minimum (base → other) | other higher | right (base / other) |")
    print("|---|---|---|---|---|---|")
    for t in table:
        print(
            f"| {t['row']} | {t['audits']} | {t['base_median']:.4f} → {t['other_median']:.4f} | "
            f"{t['base_min']:.4f} → {t['other_min']:.4f} | {t['other_higher']} | "
            f"{t['base_right']} / {t['other_right']} |"
        )
    n, up = sum(t["audits"] for t in table), sum(t["other_higher"] for t in table)
    right = (sum(t["base_right"] for t in table), sum(t["other_right"] for t in table))
    print(f"\n{n} paired audits: other higher in {up}; right {right[0]} / {right[1]}; ", end="")
    print(f"keys in one file only: {len(set(base) ^ set(other))}")


if __name__ == "__main__":
    main()
