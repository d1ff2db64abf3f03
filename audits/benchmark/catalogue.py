"""The catalogue: the 29 ground-truth mechanisms of DP-Sniper's and StatDP's evaluations, correct and buggy, with
their true ε (derivations in ``true_epsilon_note``) and the published numbers of both tools.

Spec: ``shared/specs/benchmark_mechanisms.md`` (definitions, neighbour patterns, true ε, the [calc] pair-ε values)
and ``shared/specs/anchors_dp_auditing.md`` §3.1 (DP-Sniper's logs ``eth-sri/dp-sniper/eval_sp2021/
reference-results``, 90 % confidence, 2·10⁸ final samples per side; cited as data).

Two suites: ``"dpsniper"`` (all at parameter ε = 0.1: Laplace, TruncatedGeometric, NoisyHist1/2,
ReportNoisyMax1–4, SVT1–6 (Lyu, Su, Li 2017), NumericalSVT, RAPPOR, OneTimeRAPPOR, LaplaceParallel,
SVT34Parallel, PrefixSum, the naive floating-point Laplace next to Mironov's snapping fix) and ``"statdp"``
(StatDP's extras in their scalar-reduced form: ``histogram_eps`` at claimed 0.2 and 1.5, iSVT1–4 at 0.7).

Layout: the rows live in ``catalogue_dpsniper`` (counting, report-noisy-max and composite rows),
``catalogue_svt`` (DP-Sniper's sparse vector rows) and ``catalogue_statdp``; ``catalogue_refs`` holds the citations and
shared neighbour patterns. This module assembles them in catalogue order.
"""

from __future__ import annotations

from .catalogue_dpsniper import composite_rows, counting_rows
from .catalogue_statdp import statdp_rows
from .catalogue_svt import svt_rows
from .mechanism import BenchMechanism

__all__ = ["MECHANISMS", "get_mechanism", "mechanism_names"]


def _build() -> dict[str, BenchMechanism]:
    M: list[BenchMechanism] = [*counting_rows(), *svt_rows(), *composite_rows(), *statdp_rows()]
    return {m.name: m for m in M}


MECHANISMS: dict[str, BenchMechanism] = _build()


def mechanism_names(suite: str | None = None) -> list[str]:
    """Names in catalogue order, optionally only one ``suite`` (``"dpsniper"`` or ``"statdp"``)."""
    return [n for n, m in MECHANISMS.items() if suite is None or m.suite == suite]


def get_mechanism(name: str) -> BenchMechanism:
    try:
        return MECHANISMS[name]
    except KeyError:
        raise ValueError(f"name must be one of {list(MECHANISMS)}, got {name!r}") from None
