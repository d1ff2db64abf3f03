"""Validity matrix: how often ``audit()`` states something false about mechanisms whose exact privacy is known.

Each case is a correct mechanism audited at a claim it meets with equality (or, for the profile cases, at any claim:
there every statement of the privacy profile is compared with the mechanism's exact curve).  A run is *false* when
its verdict is "violated" (a false alarm) or, with ``profile=True``, when any ε(δ) or δ(ε) lower bound or the GDP μ
lower bound exceeds the truth.  The result promises each at 1 − α (α = 0.05), so false runs over S seeds should be
at most Binomial(S, 0.05); each case reports the count, the exact one-sided binomial p-value of "rate ≤ 0.05" and
the median certified bound (how close to the truth the audits got).

Cases (all with ``pairs=(0, 1)`` and ``n_samples`` releases per side, default 20 000):

``mixture_fixed`` / ``mixture_sequential`` / ``mixture_profile``
    a tight (1, 0.02) mechanism: the bit is revealed with probability 0.02, else ε = 1 randomised response.
``gaussian_profile``
    Gaussian shift 1, unit noise (μ = 1): the whole profile against δ(ε) = Φ(−ε + ½) − e^ε Φ(−ε − ½).
``laplace_profile``
    Laplace shift 1, scale 1 (ε = 1): the profile against δ(ε) = 1 − e^{(ε − 1)/2} for ε < 1.
``gaussian_exact_fixed`` / ``gaussian_exact_sequential`` / ``gaussian_exact_per_call``
    the Gaussian at its exact (1, δ(1) = 0.1269) claim, in the three designs.
``k_rr_200``
    randomised response over 200 categories at ε = 1 (many atoms; the discrete attacks).
``laplace_20d`` / ``laplace_20d_per_call``
    a 20-number release, Laplace(1) on each, the first shifted by 1 (ε = 1 under L1; the vector attacks).

Usage: ``python benchmarks/validity_matrix.py [--seeds 400] [--n 20000] [--out FILE] [CASE ...]`` (one JSON line per
case on stdout; ``--out`` also writes the whole table).  400 seeds of every case took ~8 min on one core.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time

import numpy as np
from scipy import stats
from scipy.optimize import brentq

from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy.bounds import gdp_delta

DELTA = 0.02
Q1 = math.e / (1 + math.e)


def mixture(bit, size, rng):
    rr = np.where(rng.random(size) < Q1, int(bit), 1 - int(bit))
    return np.where(rng.random(size) < DELTA, 2 + int(bit), rr)


def gaussian(d, size, rng):
    return float(d) + rng.normal(0.0, 1.0, size)


def laplace(d, size, rng):
    return float(d) + rng.laplace(0.0, 1.0, size)


def laplace_20d(d, size, rng):
    y = rng.laplace(0.0, 1.0, (size, 20))
    y[:, 0] += float(d)
    return y


def k_rr_200(d, size, rng, k=200):
    keep = rng.random(size) < math.e / (math.e + k - 1)
    other = rng.integers(0, k - 1, size)
    other = np.where(other >= int(d), other + 1, other)
    return np.where(keep, int(d), other)


def mixture_delta(eps):
    return DELTA + (1 - DELTA) * max(0.0, math.e - math.exp(min(eps, 1.0))) / (1 + math.e)


def gaussian_delta(eps):
    return float(gdp_delta(eps, 1.0))


def laplace_delta(eps):
    return 0.0 if eps >= 1.0 else 1.0 - math.exp((eps - 1.0) / 2)


def epsilon_at(curve, delta):
    """ε(δ) of a profile δ(ε): 0 if δ(0) ≤ δ, inf if the curve never reaches δ."""
    if curve(0.0) <= delta:
        return 0.0
    if curve(60.0) > delta:
        return math.inf
    return brentq(lambda e: curve(e) - delta, 0.0, 60.0)


def false_statements(profile, curve, mu=None) -> list:
    bad = [
        ("epsilon", d, e) for d, e in zip(profile["deltas"], profile["epsilon_lb"]) if e > epsilon_at(curve, d) + 1e-12
    ]
    bad += [("delta", e, d) for e, d in zip(profile["epsilons"], profile["delta_lb"]) if d > curve(e) + 1e-12]
    if mu is not None and profile.get("mu_lb") is not None and profile["mu_lb"] > mu + 1e-12:
        bad.append(("mu", profile["mu_lb"]))
    return bad


G1 = gaussian_delta(1.0)
CASES = {
    "mixture_fixed": dict(mech=mixture, claim=(1.0, DELTA)),
    "mixture_sequential": dict(mech=mixture, claim=(1.0, DELTA), kw=dict(sequential=True)),
    "mixture_profile": dict(mech=mixture, claim=(1.0, DELTA), kw=dict(profile=True), curve=mixture_delta),
    "gaussian_profile": dict(mech=gaussian, claim=(4.5, 1e-5), kw=dict(profile=True), curve=gaussian_delta, mu=1.0),
    "laplace_profile": dict(mech=laplace, claim=(1.0, 0.0), kw=dict(profile=True), curve=laplace_delta),
    "gaussian_exact_fixed": dict(mech=gaussian, claim=(1.0, G1)),
    "gaussian_exact_sequential": dict(mech=gaussian, claim=(1.0, G1), kw=dict(sequential=True)),
    "gaussian_exact_per_call": dict(mech=gaussian, claim=(1.0, G1), kw=dict(sequential="per_call")),
    "k_rr_200": dict(mech=k_rr_200, claim=(1.0, 0.0)),
    "laplace_20d": dict(mech=laplace_20d, claim=(1.0, 0.0)),
    "laplace_20d_per_call": dict(mech=laplace_20d, claim=(1.0, 0.0), kw=dict(sequential="per_call")),
}


def run_case(name: str, seeds: int, n: int) -> dict:
    c = CASES[name]
    t0 = time.process_time()
    alarms = breaches = 0
    bounds, examples = [], []
    for s in range(seeds):
        kw = dict(c.get("kw", {}))
        if kw.get("sequential"):
            kw["max_samples"] = n
        r = audit(
            c["mech"],
            PrivacyClaim(*c["claim"]),
            pairs=(0, 1),
            n_samples=n,
            rng=np.random.default_rng([20261129, s]),
            **kw,
        )
        alarms += r.verdict == "violated"
        bounds.append(r.epsilon_lb)
        if "curve" in c:
            bad = false_statements(r.profile, c["curve"], c.get("mu"))
            if bad:
                breaches += 1
                examples.append({"seed": s, "false": bad[:3]})
    out = {
        "case": name,
        "claim": list(c["claim"]),
        "design": {False: "fixed", True: "sequential"}.get(c.get("kw", {}).get("sequential", False), "per_call"),
        "seeds": seeds,
        "n_samples": n,
        "false_alarms": int(alarms),
        "p_false_alarms": float(stats.binomtest(alarms, seeds, 0.05, alternative="greater").pvalue),
        "median_epsilon_lb": float(np.median(bounds)),
        "cpu_s": time.process_time() - t0,
    }
    if "curve" in c:
        out.update(
            runs_with_a_false_statement=int(breaches),
            p_false_statements=float(stats.binomtest(breaches, seeds, 0.05, alternative="greater").pvalue),
            examples=examples[:5],
        )
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=list(CASES), help=f"cases to run (default all: {', '.join(CASES)})")
    ap.add_argument("--seeds", type=int, default=400)
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    unknown = [c for c in a.cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s) {unknown}; known: {list(CASES)}")
    rows = []
    for name in a.cases:
        rows.append(run_case(name, a.seeds, a.n))
        print(json.dumps(rows[-1], default=str), flush=True)
    doc = {"argv": sys.argv[1:], "python": platform.python_version(), "alpha": 0.05, "cases": rows}
    if a.out:
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1, default=str)
    return doc


if __name__ == "__main__":
    main()
