"""StatDP's suite in the benchmark catalogue, in the scalar-reduced form: ``histogram_eps`` at claimed ε 0.2 and
1.5, iSVT1–4 at 0.7, with their true ε and StatDP's published numbers.
"""

from __future__ import annotations

import math
from functools import partial

from htdp_verify.claims import Provenance

from .catalogue_refs import _N1_5, _NI_10, P_STATDP, SPEC
from .mechanism import BenchMechanism
from .samplers import (
    _isvt4,
    _isvt_hamming,
    _statdp_histogram0,
)

__all__ = ["statdp_rows"]


def statdp_rows() -> list[BenchMechanism]:
    """StatDP.histogram_eps (two claims) and StatDP.iSVT1–4, in catalogue order."""
    M: list[BenchMechanism] = []
    add = M.append

    # ---- StatDP's extras in their reduced form --------------------------------------------------------------
    for eps_c in (0.2, 1.5):
        add(
            BenchMechanism(
                f"StatDP.histogram_eps@{eps_c:g}",
                eps_c,
                1 / eps_c,
                1 / eps_c,
                "N1",
                "scalar",
                5,
                partial(_statdp_histogram0, scale=eps_c),
                tuple(_N1_5),
                f"StatDP histogram_eps: q + Lap(ε) with ε = {eps_c:g}, releases bin 0 only",
                f"Laplace scale ε: ratio e^{{1/ε}} = e^{{{1 / eps_c:.3g}}} for a unit change of bin 0 [derived]"
                + (" — below the claim, so private" if 1 / eps_c < eps_c else ""),
                Provenance(P_STATDP, "histogram_eps (statdp/algorithms.py)", "", f"{SPEC} §3"),
                suite="statdp",
                input_kind="int",
            )
        )
    eps_s = 0.7
    add(
        BenchMechanism(
            "StatDP.iSVT1",
            eps_s,
            math.inf,
            math.inf,
            "Ninf",
            "discrete",
            10,
            partial(_isvt_hamming, b_rho=2 / eps_s, b_nu=0.0, T=1.0, c=None),
            tuple(_NI_10),
            "iSVT1 (= SVT5): ρ ~ Lap(2/ε), no query noise, no cutoff; Hamming distance to ⊤⁵⊥⁵",
            "deterministic in ρ, as SVT5: outcomes of probability 0 on one side [derived]",
            Provenance(P_STATDP, "iSVT1", "", f"{SPEC} §3"),
            suite="statdp",
        )
    )
    add(
        BenchMechanism(
            "StatDP.iSVT2",
            eps_s,
            5 * eps_s,
            3.092,
            "Ninf",
            "discrete",
            10,
            partial(_isvt_hamming, b_rho=2 / eps_s, b_nu=2 / eps_s, T=1.0, c=None),
            tuple(_NI_10),
            "iSVT2 (= SVT6): ρ, ν ~ Lap(2/ε), no cutoff; Hamming distance to ⊤⁵⊥⁵",
            "m factors each ≤ e^{ε/2}: mε/2 = 3.5 for m = 10 [derived]; pair-ε 3.092 (spec §3 [calc])",
            Provenance(P_STATDP, "iSVT2", "", f"{SPEC} §3"),
            suite="statdp",
            unbounded_in_m=True,
        )
    )
    add(
        BenchMechanism(
            "StatDP.iSVT3",
            eps_s,
            1.75 * eps_s,
            1.217,
            "Ninf",
            "discrete",
            10,
            partial(_isvt_hamming, b_rho=4 / eps_s, b_nu=4 / (3 * eps_s), T=1.0, c=1),
            tuple(_NI_10),
            "iSVT3 (= SVT4): ρ ~ Lap(4/ε), ν ~ Lap(4/(3ε)), N = 1; Hamming distance to ⊤⁵⊥⁵",
            "Lyu's (1+6c)/4·ε = 1.75ε for c = 1 [derived]; pair-ε 1.217 (spec §3 [calc])",
            Provenance(P_STATDP, "iSVT3", "", f"{SPEC} §3"),
            suite="statdp",
        )
    )
    add(
        BenchMechanism(
            "StatDP.iSVT4",
            eps_s,
            5 * eps_s,
            3.5,
            "Ninf",
            "vector",
            10,
            partial(_isvt4, b_rho=2 / eps_s, b_nu=2 / eps_s, T=1.0),
            tuple(_NI_10),
            "iSVT4 (= SVT3): ρ, ν ~ Lap(2/ε), N = 1; releases (#⊥, noisy answer at the first ⊤ or 0)",
            "as SVT3: m/b_ν = mε/2 = 3.5 for m = 10 [derived]",
            Provenance(P_STATDP, "iSVT4", "", f"{SPEC} §3"),
            suite="statdp",
            unbounded_in_m=True,
        )
    )
    return M
