"""Benchmark of the sequential audit in rounds (``audit(..., sequential=True)``) end to end.

Run: ``python benchmarks/bench_sequential_rounds.py`` (options below; ``--quick`` for a smoke run).

1. **Releases to a violated verdict** (search + selection + certification, both sides) for Laplace, Gaussian
   (analytic calibration, δ = 1e-5) and randomised-response mechanisms at 1.5×, 2× and 10× the claimed ε
   (claims ε ∈ ``--claims``, default 1 and 0.1), scalar releases on the pair (0, 1) of query answers (sensitivity
   1), attacks ``"auto"``, α = 0.05, over ``--seeds`` seeds: the power (fraction violated), the median and 90th
   percentile of the releases drawn, for the sequential audit (betting inside a round, and ``--variants``) with its
   default budget (what the fixed-n audit draws), and for the fixed-n ``audit()`` at ``n_samples = --n-default``
   (its default ``n_select``) over ``--fixed-seeds`` seeds.  ``--equal-power``: also the smallest fixed-n size
   (``n_samples`` doubling from 64, ``n_select = max(50, n/4)``) whose power over ``--ep-seeds`` seeds reaches the
   sequential audit's (capped at 0.95), and the releases it draws.
2. **Validity**: false "violated" over ``--validity-seeds`` seeds of exactly tight randomised response (ε = 1),
   Laplace (b = 1, ε = 1) and analytic Gaussian ((1, 1e-5)), ``max_samples = --validity-max`` per side, with the
   exact binomial upper 95 % limit of the rate.
3. ``--dpl``: diffprivlib's LinearRegression (``--dpl-component``) as its registered check builds it
   (``audits/diffprivlib``, the sizes and attacks of ``--dpl-profile``, default quick, the check's α), fixed-n (the
   check's call) against sequential rounds, over ``--dpl-seeds`` seeds: releases and certified bound.

4. ``--gaussian-2x``: why the analytic Gaussian at 2× its claim (1, 1e-5) loses power in rounds.  (a) On fixed
   threshold events ``output >= t`` (the events the fixed-n audit picks lie at t ≈ 4-5.4), the power of the
   Clopper–Pearson test at a fixed n and of the betting test (``run_sequential``, bets from a 100-release prior),
   at the fixed-n audit's size and α (100 000 per side, 0.05) and at the last round's (83 000 per side, α/16 or
   α/8), over ``--diag-seeds`` Bernoulli streams; (b) end-to-end audits of the mechanism over ``--g2-seeds`` seeds
   with the rounds design (the last round at the geometric level α·2^-(k+1), and at the α left), the fixed split
   (betting, and one Clopper–Pearson look at the end), the registered per-call checks' design
   (``RoundsDesign.per_call()``) and the fixed-n audit, on the same seeds, with the median
   and mean releases among the seeds that reached "violated"; (c) the **oracle floor** (:func:`oracle_floor_row`):
   from the exact Gaussian tails, the fewest releases any audit certifying one event needs at the fixed-n audit's
   power and α (the certification's Clopper–Pearson test at a fixed size; Wald's bound on the expected size of a
   sequential test on the event's counts), against 1/10 of the fixed-n default's releases.

Writes ``benchmarks/results/bench_sequential_rounds.json`` (``--out``).  CPU seconds are process time of this
process (diffprivlib's models may run in worker processes: their wall time is reported too).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np
from scipy.stats import beta as beta_dist

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from estimators.baselines import analytic_gaussian_sigma
from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy.sequential import STOP_REASONS, RoundsDesign

ALPHA = 0.05
DELTA_G = 1e-5
PAIR = [(0.0, 1.0)]


def laplace(eps):
    def mech(data, size, rng):
        return float(np.asarray(data, float).sum()) + rng.laplace(0.0, 1.0 / eps, size)

    return mech


def gaussian(eps):
    sigma = analytic_gaussian_sigma(eps, DELTA_G, 1.0)

    def mech(data, size, rng):
        return float(np.asarray(data, float).sum()) + rng.normal(0.0, sigma, size)

    return mech


def rr(eps):
    keep_p = math.exp(eps) / (1 + math.exp(eps))

    def mech(data, size, rng):
        x = int(round(float(np.asarray(data, float).sum())))
        keep = rng.random(size) < keep_p
        return np.where(keep, x, 1 - x).astype(float)

    return mech


MECHS = {"laplace": (laplace, 0.0), "gaussian": (gaussian, DELTA_G), "randomised_response": (rr, 0.0)}


def upper95(k, n):
    return float(beta_dist.ppf(0.95, k + 1, n - k)) if k < n else 1.0


def summary(res):
    used = np.array([r.n_samples for r in res], float)
    viol = np.array([r.verdict == "violated" for r in res])
    return {
        "power": float(viol.mean()),
        "median_releases": float(np.median(used)),
        "p90_releases": float(np.quantile(used, 0.9)),
        "median_releases_when_violated": float(np.median(used[viol])) if viol.any() else None,
        "mean_releases_when_violated": float(np.mean(used[viol])) if viol.any() else None,
        "median_epsilon_lb": float(np.median([r.epsilon_lb for r in res])),
    }


def seq_runs(mech, claim, seeds, n_default, design, base=0):
    return [
        audit(
            mech,
            claim,
            pairs=PAIR,
            n_samples=n_default,
            rng=np.random.default_rng(base + s),
            attacks="auto",
            sequential=design,
        )
        for s in range(seeds)
    ]


def fixed_runs(mech, claim, seeds, n, n_select=None, base=0):
    return [
        audit(
            mech, claim, pairs=PAIR, n_samples=n, n_select=n_select, rng=np.random.default_rng(base + s), attacks="auto"
        )
        for s in range(seeds)
    ]


def equal_power(mech, claim, target, seeds, n_max):
    n = 64
    while n <= n_max:
        res = fixed_runs(mech, claim, seeds, n, n_select=max(50, n // 4), base=50_000)
        p = float(np.mean([r.verdict == "violated" for r in res]))
        if p >= target:
            return {"n_samples": n, "power": p, "median_releases": float(np.median([r.n_samples for r in res]))}
        n *= 2
    return None


VARIANTS = {
    "betting": RoundsDesign(),
    "fixed_per_round": RoundsDesign(method="fixed"),
    "betting_first50": RoundsDesign(first_select=50),
}


def power_table(args):
    rows = []
    for name, (make, delta) in MECHS.items():
        for c in args.claims:
            claim = PrivacyClaim(c, delta)
            for f in (1.5, 2.0, 10.0):
                mech = make(f * c)
                row = {"mechanism": name, "claim_epsilon": c, "delta": delta, "true_over_claim": f}
                t = time.process_time()
                fx = fixed_runs(mech, claim, args.fixed_seeds, args.n_default)
                row["fixed_n_default"] = {
                    "n_samples": args.n_default,
                    "seeds": args.fixed_seeds,
                    **summary(fx),
                    "cpu_s": time.process_time() - t,
                }
                for v in args.variants:
                    t = time.process_time()
                    seeds = args.seeds if v == "betting" else args.variant_seeds
                    res = seq_runs(mech, claim, seeds, args.n_default, VARIANTS[v])
                    s = summary(res)
                    fixed_med = row["fixed_n_default"]["median_releases"]
                    s["ratio_median_to_fixed_default"] = s["median_releases"] / fixed_med
                    s["median_rounds"] = float(np.median([r.details["sequential"]["rounds_used"] for r in res]))
                    s["seeds"] = seeds
                    s["cpu_s"] = time.process_time() - t
                    row[f"sequential_{v}"] = s
                if args.equal_power:
                    t = time.process_time()
                    target = min(row["sequential_betting"]["power"], 0.95)
                    ep = equal_power(mech, claim, target, args.ep_seeds, args.n_default) if target > 0 else None
                    if ep is not None:
                        ep["target_power"] = target
                        ep["ratio_sequential_median_to_it"] = (
                            row["sequential_betting"]["median_releases"] / ep["median_releases"]
                        )
                        ep["cpu_s"] = time.process_time() - t
                    row["fixed_n_equal_power"] = ep
                sb = row["sequential_betting"]
                print(
                    f"{name:20s} claim {c:g} x{f:g}: fixed-n({args.n_default}) "
                    f"power {row['fixed_n_default']['power']:.2f} "
                    f"releases {row['fixed_n_default']['median_releases']:.0f}; rounds power {sb['power']:.2f} "
                    f"median {sb['median_releases']:.0f} (p90 {sb['p90_releases']:.0f}) "
                    f"ratio {sb['ratio_median_to_fixed_default']:.4f}"
                    + (
                        f"; equal-power fixed n={row['fixed_n_equal_power']['n_samples']} releases "
                        f"{row['fixed_n_equal_power']['median_releases']:.0f}"
                        if args.equal_power and row.get("fixed_n_equal_power")
                        else ""
                    ),
                    flush=True,
                )
                rows.append(row)
    return rows


def validity(args):
    cases = [
        ("randomised response eps=1", rr(1.0), PrivacyClaim(1.0)),
        ("Laplace b=1 (eps=1)", laplace(1.0), PrivacyClaim(1.0)),
        ("Gaussian analytic (1, 1e-5)", gaussian(1.0), PrivacyClaim(1.0, DELTA_G)),
    ]
    out = []
    for label, mech, claim in cases:
        t = time.process_time()
        res = [
            audit(
                mech,
                claim,
                pairs=PAIR,
                n_samples=args.validity_max,
                max_samples=args.validity_max,
                rng=np.random.default_rng(90_000 + s),
                attacks="auto",
                sequential=True,
            )
            for s in range(args.validity_seeds)
        ]
        k = sum(r.verdict == "violated" for r in res)
        row = {
            "mechanism": label,
            "seeds": args.validity_seeds,
            "false_violated": int(k),
            "rate": k / args.validity_seeds,
            "rate_upper95": upper95(k, args.validity_seeds),
            "alpha": ALPHA,
            "max_samples_per_side": args.validity_max,
            "median_rounds": float(np.median([r.details["sequential"]["rounds_used"] for r in res])),
            "median_releases": float(np.median([r.n_samples for r in res])),
            "cpu_s": time.process_time() - t,
        }
        print(
            f"validity {label}: {k}/{args.validity_seeds} false 'violated' (upper 95% {row['rate_upper95']:.3f}, "
            f"alpha {ALPHA}), median rounds {row['median_rounds']:.0f}",
            flush=True,
        )
        out.append(row)
    return out


def dpl(args):
    from audits.diffprivlib.checks import _sizes, audit_component, check_alpha
    from audits.diffprivlib.components import COMPONENTS
    from htdp_verify.claims import Provenance
    from htdp_verify.privacy import Mechanism

    comp = COMPONENTS[args.dpl_component]
    sizes = _sizes(comp, args.dpl_profile)
    attacks = comp.full_attacks if (args.dpl_profile == "full" and comp.full_attacks) else comp.attacks
    max_pairs = sizes.pop("max_pairs")
    a = check_alpha()
    out = []
    for eps in args.dpl_eps:
        adapter = comp.build(eps)
        pairs = list(comp.pairs())[:max_pairs]
        mech = Mechanism(adapter, name=adapter.name, guarantee=adapter.privacy, vectorised=False)
        claim = adapter.privacy.claim(Provenance("bench", adapter.name, "", ""))
        for label in ["fixed_n"] + list(args.dpl_variants):
            rows = []
            for s in range(args.dpl_seeds):
                t, tw = time.process_time(), time.time()
                if label == "fixed_n":
                    r = audit_component(adapter, pairs, rng=np.random.default_rng(s), attacks=attacks, alpha=a, **sizes)
                else:
                    r = audit(
                        mech,
                        claim,
                        pairs=pairs if len(pairs) > 1 else pairs[0],
                        n_samples=sizes["n_samples"],
                        n_select=sizes["n_select"],
                        n_search=sizes["n_search"] * len(pairs),
                        alpha=a,
                        attacks=attacks,
                        rng=np.random.default_rng(s),
                        sequential=DPL_VARIANTS[label],
                    )
                rows.append(
                    {
                        "seed": s,
                        "verdict": r.verdict,
                        "epsilon_lb": r.epsilon_lb,
                        "releases": r.n_samples,
                        "cpu_s": time.process_time() - t,
                        "wall_s": time.time() - tw,
                        **(
                            {
                                "by_stage": r.details["sequential"]["releases_by_stage"],
                                "rounds": r.details["sequential"]["rounds_used"],
                                "bound_alpha": r.details["sequential"]["epsilon_lb_alpha"],
                            }
                            if label != "fixed_n"
                            else {}
                        ),
                    }
                )
                print(f"dpl {comp.key} eps={eps:g} {label} seed {s}: {rows[-1]}", flush=True)
            out.append(
                {
                    "component": comp.key,
                    "epsilon": eps,
                    "variant": label,
                    "alpha": a,
                    "sizes": sizes,
                    "profile": args.dpl_profile,
                    "runs": rows,
                    "violated": sum(r["verdict"] == "violated" for r in rows),
                    "median_releases": float(np.median([r["releases"] for r in rows])),
                    "median_epsilon_lb": float(np.median([r["epsilon_lb"] for r in rows])),
                    "median_wall_s": float(np.median([r["wall_s"] for r in rows])),
                }
            )
    return out


def gaussian_2x(args):
    from scipy.stats import norm

    from htdp_verify.privacy.sequential import run_sequential
    from htdp_verify.stats import epsilon_lower_bound

    claim_eps = 1.0
    sigma = analytic_gaussian_sigma(2.0, DELTA_G, 1.0)
    out: dict = {"sigma": sigma, "events": [], "audits": {}}
    t0 = time.process_time()

    def cp_power(pn, pd, n, a, seeds=4000):
        rng = np.random.default_rng(1)
        kn, kd = rng.binomial(n, pn, seeds), rng.binomial(n, pd, seeds)
        return float(np.mean(np.asarray(epsilon_lower_bound(kn, n, kd, n, a, DELTA_G)) > claim_eps))

    def bet_power(pn, pd, n, a):
        hits, used = 0, []
        for s in range(args.diag_seeds):
            rng = np.random.default_rng(1000 + s)
            o = run_sequential(
                lambda m: (np.array([rng.binomial(m, pn)]), np.array([rng.binomial(m, pd)])),
                1,
                epsilon=claim_eps,
                delta=DELTA_G,
                alpha=a,
                max_samples=n,
                rng=rng,
                first=10,
                growth=1.5,
                futility=None,
                prior=(np.array([round(pn * 100)]), np.array([round(pd * 100)]), 100),
            )
            hits += o.stop_reason == "violated"
            used.append(o.n_per_side)
        return hits / args.diag_seeds, float(np.median(used))

    settings = [
        ("fixed-n: 100000 at alpha", 100_000, ALPHA),
        ("83000 at alpha", 83_000, ALPHA),
        ("100000 at alpha/16", 100_000, ALPHA / 16),
        ("last round: 83000 at alpha/16", 83_000, ALPHA / 16),
        ("last round, alpha left: 83000 at alpha/8", 83_000, ALPHA / 8),
    ]
    for t in (3.5, 4.3, 5.4):
        pn, pd = float(norm.sf((t - 1) / sigma)), float(norm.sf(t / sigma))
        ev = {"t": t, "p_num": pn, "p_den": pd, "log_ratio": math.log(pn / pd), "settings": []}
        for label, n, a in settings:
            bp, med = bet_power(pn, pd, n, a)
            ev["settings"].append(
                {"setting": label, "cp_power": cp_power(pn, pd, n, a), "betting_power": bp, "betting_median_n": med}
            )
            print(f"gaussian 2x event t={t}: {ev['settings'][-1]}", flush=True)
        out["events"].append(ev)
    mech, claim = gaussian(2.0), PrivacyClaim(claim_eps, DELTA_G)
    designs = {
        "rounds_geometric_last": RoundsDesign(spend_rest=False),
        "rounds_alpha_left_last": RoundsDesign(),
        "fixed_split": RoundsDesign.fixed_split(),
        "fixed_split_one_look_cp": RoundsDesign.fixed_split(method="fixed"),
        "per_call": RoundsDesign.per_call(),
    }
    t = time.process_time()
    fx = fixed_runs(mech, claim, args.g2_seeds, args.n_default)
    out["audits"]["fixed_n"] = {**summary(fx), "cpu_s": time.process_time() - t}
    print(f"gaussian 2x audits fixed_n: {out['audits']['fixed_n']}", flush=True)
    fixed_power = out["audits"]["fixed_n"]["power"]
    out["oracle_floor"] = oracle_floor_row(sigma, claim_eps, fixed_power, out["audits"]["fixed_n"]["median_releases"])
    for name, design in designs.items():
        t = time.process_time()
        res = seq_runs(mech, claim, args.g2_seeds, args.n_default, design)
        s = summary(res)
        s["median_last_round_alpha"] = float(np.median([r.details["sequential"]["rounds"][-1]["alpha"] for r in res]))
        s["stop_reasons"] = {k: sum(r.details["sequential"]["stop_reason"] == k for r in res) for k in STOP_REASONS}
        s["cpu_s"] = time.process_time() - t
        out["audits"][name] = s
        print(f"gaussian 2x audits {name}: {s}", flush=True)
    print_g2_table(out)
    out["cpu_s"] = time.process_time() - t0
    return out


def oracle_floor_row(sigma, claim_eps, power, fixed_median, alpha=ALPHA):
    """The oracle floor of the Gaussian shift (pair outputs 0 and 1, noise sd ``sigma``) at claim (``claim_eps``,
    1e-5): the fewest releases per side with which any audit that certifies one event (a half-line ``output >= t``,
    optimal by Neyman-Pearson; the mirror image ``output <= 1 - t`` is the same) reaches ``power`` at ``alpha``,
    from the exact Gaussian tails (:func:`htdp_verify.privacy.sequential.oracle_floor`): the certification's own
    Clopper-Pearson test at a fixed size, and Wald's bound on the expected size of any sequential test on the
    event's counts.  Thresholds: a grid of step 0.25, refined to 0.01 around each criterion's best."""
    from scipy.stats import norm

    from htdp_verify.privacy.sequential import oracle_floor

    t0 = time.process_time()

    def floors(ts):
        ts = np.asarray(ts, float)
        pn, pd = norm.sf((ts - 1.0) / sigma), norm.sf(ts / sigma)
        keep = (pn > DELTA_G) & (np.log(np.maximum(pn - DELTA_G, 1e-300) / pd) > claim_eps)
        return oracle_floor(
            pn[keep], pd[keep], epsilon=claim_eps, delta=DELTA_G, alpha=alpha, power=power, labels=ts[keep].tolist()
        )

    coarse = floors(np.arange(2.0, 10.0, 0.25))
    row = {"alpha": alpha, "power": power, "sigma": sigma, "claim": [claim_eps, DELTA_G]}
    for key in ("fixed_n", "sequential"):
        t_best = coarse[key]["label"]
        best = floors(np.round(np.arange(t_best - 0.25, t_best + 0.2501, 0.01), 4))[key]
        per_side = best[key]
        row[key] = {
            "threshold": best["label"],
            "p_num": best["p_num"],
            "p_den": best["p_den"],
            "log_ratio": best["log_ratio"],
            "releases_per_side": per_side,
            "releases_both_sides": 2 * per_side,
            "fraction_of_fixed_n_default": 2 * per_side / fixed_median,
            **({"fixed_m_per_side": best["fixed_m"]} if key == "fixed_n" else {"kl_per_pair": best["kl"]}),
        }
    row["fixed_n_default_median_releases"] = fixed_median
    row["target_releases_both_sides"] = fixed_median / 10
    row["note"] = (
        "fixed_n: the certification's Clopper-Pearson test (alpha/2 per side) on the best single event, no search "
        "or selection spent; sequential: Wald's lower bound d(power, alpha) / KL* on the EXPECTED releases per side "
        "of any level-alpha test on the best event's counts (Kaufmann, Cappe & Garivier 2016, Lemma 1)"
    )
    row["cpu_s"] = time.process_time() - t0
    print(
        f"gaussian 2x oracle floor (power {power:.2f}, alpha {alpha:g}): fixed-n CP one event "
        f"{row['fixed_n']['releases_both_sides']:.0f} releases (t = {row['fixed_n']['threshold']:g}, "
        f"{row['fixed_n']['fraction_of_fixed_n_default']:.3f} of the fixed-n default's {fixed_median:.0f}); "
        f"sequential (Wald, expected) {row['sequential']['releases_both_sides']:.0f} "
        f"(t = {row['sequential']['threshold']:g}, {row['sequential']['fraction_of_fixed_n_default']:.3f}); "
        f"target 1/10 = {fixed_median / 10:.0f}",
        flush=True,
    )
    return row


def print_g2_table(out):
    """Markdown table of the Gaussian 2x audits (both sides, every stage) with the oracle floor rows."""
    fl = out.get("oracle_floor")
    print("| design | power | median releases | median when violated | mean when violated |")
    print("|---|---|---|---|---|")
    for name, s in out["audits"].items():
        mv, av = s["median_releases_when_violated"], s["mean_releases_when_violated"]
        print(
            f"| {name} | {s['power']:.2f} | {s['median_releases']:.0f} | "
            f"{'-' if mv is None else f'{mv:.0f}'} | {'-' if av is None else f'{av:.0f}'} |"
        )
    if fl:
        for key, label in (("fixed_n", "oracle floor, fixed-n CP"), ("sequential", "oracle floor, sequential (Wald)")):
            r = fl[key]
            print(f"| {label} (t = {r['threshold']:g}) | {fl['power']:.2f} | {r['releases_both_sides']:.0f} | | |")


DPL_VARIANTS = {
    "rounds_betting": RoundsDesign(),
    "rounds_fixed": RoundsDesign(method="fixed"),
    "rounds_betting_first20": RoundsDesign(first_select=20),
    "rounds_fixed_first20": RoundsDesign(method="fixed", first_select=20),
    # one round whose split matches the fixed-n check's (selection 400, search 100 per pair, 1000 to certify at
    # the full profile's default budget): the sequential test on the fixed-n audit's own sizes
    "rounds_betting_fixed_split": RoundsDesign(first_select=400, search_ratio=0.25, certify_ratio=2.5),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, default=100)
    p.add_argument("--variant-seeds", type=int, default=50)
    p.add_argument("--fixed-seeds", type=int, default=20)
    p.add_argument("--n-default", type=int, default=100_000)
    p.add_argument("--claims", type=float, nargs="+", default=[1.0, 0.1])
    p.add_argument("--variants", nargs="+", default=["betting", "fixed_per_round", "betting_first50"])
    p.add_argument("--equal-power", action="store_true")
    p.add_argument("--ep-seeds", type=int, default=40)
    p.add_argument("--validity-seeds", type=int, default=500)
    p.add_argument("--validity-max", type=int, default=20_000)
    p.add_argument("--skip-power", action="store_true")
    p.add_argument("--skip-validity", action="store_true")
    p.add_argument("--dpl", action="store_true")
    p.add_argument("--dpl-seeds", type=int, default=3)
    p.add_argument("--dpl-eps", type=float, nargs="+", default=[1.0])
    p.add_argument("--dpl-variants", nargs="+", default=list(DPL_VARIANTS))
    p.add_argument("--dpl-profile", default="quick", choices=["quick", "full"])
    p.add_argument("--dpl-component", default="models.LinearRegression")
    p.add_argument("--gaussian-2x", action="store_true")
    p.add_argument("--diag-seeds", type=int, default=100)
    p.add_argument("--g2-seeds", type=int, default=100)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results", "bench_sequential_rounds.json"))
    args = p.parse_args()
    if args.quick:
        args.seeds, args.variant_seeds, args.fixed_seeds, args.validity_seeds, args.ep_seeds = 10, 5, 3, 50, 10
    t0 = time.process_time()
    res: dict = {"alpha": ALPHA, "argv": sys.argv[1:], "load_avg_at_start": os.getloadavg()}
    if not args.skip_power:
        res["power"] = power_table(args)
    if not args.skip_validity:
        res["validity"] = validity(args)
    if args.dpl:
        res["diffprivlib_linear_regression"] = dpl(args)
    if args.gaussian_2x:
        res["gaussian_2x"] = gaussian_2x(args)
    res["cpu_s"] = time.process_time() - t0
    res["load_avg_at_end"] = os.getloadavg()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(res, fh, indent=2, default=float)


if __name__ == "__main__":
    main()
