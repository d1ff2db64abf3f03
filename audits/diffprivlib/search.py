"""Configuration search over diffprivlib 0.6.6: screen many configurations of the space (:mod:`.space`) cheaply,
certify the most suspicious ``K`` on fresh samples, and explain every certified violation (:mod:`.rootcause`).

Design (Holohan et al. 2019, arXiv:1907.02444, audited with the engine's :func:`~htdp_verify.privacy.audit`):

1. **Exploration.** ``n_configs`` configurations drawn from the table by :func:`~.space.sample_configs` with the
   check's seeded ``Generator`` (round-robin over the family's components, every argument uniform over its values).
2. **Screening** (selection only): one small :func:`audit` per configuration on its candidate pairs (the engine's
   pair search picks the pair, its attacks pick the event); the score is the screening bound divided by the
   claimed ε (ties broken by the point estimate).  The white-box ledger (:mod:`.ledger`) of one release on the
   chosen pair is recorded next to it (reported, not used for the ranking).  Screening samples are thrown away:
   nothing is concluded from them, so they spend no α.
3. **Certification**: the ``K`` best-scoring configurations are audited again on the pair screening chose, with
   fresh releases from a child generator (its own event selection and certification samples), each at
   ``alpha / K`` (Bonferroni over the K certifications): every certified bound of the search holds simultaneously
   at ``1 - alpha``.  ``K`` is fixed before the search runs, so the selection cannot inflate the error rate.
4. **Root cause** for each certified violation (:func:`~.rootcause.explain`): the leaking internal step, the
   smallest configuration and pair still flagged, the upstream issue where one is known, and a reproduction
   script that rebuilds the certified event and recounts it.

The registered checks ``diffprivlib.search.mechanisms`` / ``.tools`` / ``.models`` each run at
``SEARCH_ALPHA / 3``, so the three searches' certified statements hold together at 95 %.  Sizes per profile are
in :data:`SEARCH_SIZES`; the measured times are in the module docstring of ``benchmarks/bench_dpl_search.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from htdp_verify.claims import PrivacyClaim, Provenance
from htdp_verify.results import CheckResult

from .space import FAMILIES, SPACE, Config, build_adapter, config_pairs, make_config, sample_configs

__all__ = [
    "SEARCH_ALPHA",
    "SEARCH_SIZES",
    "Screened",
    "SearchOutcome",
    "screen",
    "run_search",
    "search_check",
    "search_table",
    "ledger_text",
]

PAPER = "Holohan et al. 2019, Diffprivlib (arXiv:1907.02444); diffprivlib 0.6.6"
#: family-wise α of the three registered searches together (each gets SEARCH_ALPHA / 3)
SEARCH_ALPHA = 0.05

#: per profile and family: configurations screened, screening audit sizes, K certified, certification sizes,
#: shrink steps of the root-cause minimisation and releases per side of the reproduction recount
SEARCH_SIZES = {
    "quick": {
        "mechanisms": dict(
            n_configs=16,
            screen=dict(n_samples=800, n_select=400, n_search=200, max_pairs=2),
            k=2,
            certify=dict(n_samples=10_000, n_select=2_000),
            shrink=1,
            repro_n=10_000,
        ),
        "tools": dict(
            n_configs=12,
            screen=dict(n_samples=100, n_select=80, n_search=30, max_pairs=2),
            k=2,
            certify=dict(n_samples=1_000, n_select=300),
            shrink=1,
            repro_n=1_000,
        ),
        "models": dict(
            n_configs=5,
            screen=dict(n_samples=40, n_select=30, n_search=20, max_pairs=2),
            k=2,
            certify=dict(n_samples=150, n_select=60),
            shrink=1,
            repro_n=100,
            max_d=50,
            # screened after the drawn ones: one wide model in every quick run
            pinned=(
                ("models.KMeans", 1.0, {"bounds": (0.0, 1.0), "n_clusters": 2}, {"n": 20, "d": 20, "shape": "spread"}),
            ),
        ),
    },
    "full": {
        "mechanisms": dict(
            n_configs=64,
            screen=dict(n_samples=4000, n_select=1500, n_search=600, max_pairs=2),
            k=4,
            certify=dict(n_samples=100_000, n_select=20_000),
            shrink=6,
            repro_n=100_000,
        ),
        "tools": dict(
            n_configs=80,
            screen=dict(n_samples=400, n_select=200, n_search=100, max_pairs=4),
            k=4,
            certify=dict(n_samples=10_000, n_select=2_000),
            shrink=6,
            repro_n=10_000,
        ),
        "models": dict(
            n_configs=40,
            screen=dict(n_samples=120, n_select=80, n_search=40, max_pairs=4),
            k=4,
            certify=dict(n_samples=1_000, n_select=300),
            shrink=4,
            repro_n=1_000,
            max_d=50,
        ),
    },
}


@dataclass
class Screened:
    """One screened configuration: its score (screening ε_lb / claimed ε), the pair and event the screening audit
    chose, the ledger's composed ε on that pair (``None`` if not composable), releases drawn and seconds."""

    config: Config
    score: float = -1.0
    epsilon_lb: float = 0.0
    point: float = 0.0
    pair: object = None
    pair_label: str = ""
    event: str = ""
    ledger_epsilon: float | None = None
    releases: int = 0
    seconds: float = 0.0
    error: str = ""
    release: str = ""

    def row(self) -> dict:
        return {
            "config": self.config.label(),
            "release": self.release,
            "score": round(self.score, 4),
            "screen_epsilon_lb": self.epsilon_lb,
            "point_estimate": self.point,
            "pair": self.pair_label,
            "event": self.event,
            "ledger_epsilon": self.ledger_epsilon,
            "ledger": ledger_text(self.ledger_epsilon),
            "releases": self.releases,
            "seconds": round(self.seconds, 2),
            "error": self.error,
        }


@dataclass
class SearchOutcome:
    """A whole search: every screened configuration, the certified ones (audit results) and their explanations."""

    family: str
    alpha: float
    k: int
    screened: list = field(default_factory=list)
    certified: list = field(default_factory=list)  # (Screened, AuditResult)
    causes: list = field(default_factory=list)  # one dict per certified violation
    seconds: dict = field(default_factory=dict)
    releases: dict = field(default_factory=dict)

    @property
    def violations(self):
        return [(s, r) for s, r in self.certified if r.verdict == "violated"]


def ledger_text(eps: float | None) -> str:
    """The ledger's composed ε as text (``∞`` when a stated sensitivity is 0 where the true one is not)."""
    if eps is None:
        return "not composable"
    return "∞ (a stated sensitivity is 0)" if eps == float("inf") else f"{eps:.4g}"


class _Counting:
    """Counts the releases an adapter draws (serial adapters only)."""

    def __init__(self, adapter):
        self.adapter, self.n = adapter, 0
        orig = adapter.run_seeds

        def run_seeds(data, seeds, _orig=orig):
            self.n += int(np.size(seeds))
            return _orig(data, seeds)

        adapter.run_seeds = run_seeds


#: releases with more coordinates than this are audited without the atom-pattern families (the full models
#: search was killed once at 23 GB resident on a 122-coordinate LinearRegression release whose unnoised
#: coordinates are atoms; which family allocated it was not pinned down)
MAX_DIM_AUTO = 40
WIDE_ATTACKS = ("coordinates", "projection", "max_statistic", "logistic")


def _attacks_for(adapter, data):
    """``"auto"``, or :data:`WIDE_ATTACKS` for releases wider than :data:`MAX_DIM_AUTO` coordinates."""
    dim = int(np.size(adapter.release(data, 0)))
    return "auto" if dim <= MAX_DIM_AUTO else list(WIDE_ATTACKS)


def _audit(adapter, pairs, rng, *, alpha, name, sizes, attacks=None):
    from .checks import audit_component

    if attacks is None:
        attacks = _attacks_for(adapter, pairs[0].d)

    s = dict(sizes)
    max_pairs = s.pop("max_pairs", None)
    n_search = s.pop("n_search", 40)
    return audit_component(
        adapter,
        pairs,
        rng=rng,
        attacks=attacks,
        max_pairs=max_pairs,
        alpha=alpha,
        name=name,
        n_search=n_search,
        component=adapter.name,
        **s,
    )


def _ledger_epsilon(config: Config, pair, seed: int) -> float | None:
    """Composed ε of one release on each side of ``pair`` (the larger), or ``None`` without a structure."""
    from .components import Component
    from .ledger import STRUCTURES, _rule, check_ledger, run_ledger

    if _rule(config.key, STRUCTURES) is None or pair is None:
        return None
    comp = Component(config.key, SPACE[config.key].kind, lambda eps: build_adapter(config), lambda: [pair])
    g = build_adapter(config).privacy
    claim = PrivacyClaim(g.epsilon, g.delta, g.neighbours)
    out = []
    for k, data in enumerate((pair.d, pair.d_prime)):
        try:
            led = run_ledger(comp, config.epsilon, data=data, seed=seed + k)
            out.append(check_ledger(led, config.key, claim).estimate)
        except Exception:  # noqa: BLE001 - the ledger is a side note of screening
            return None
    return float(max(out))


def screen(
    config: Config,
    rng: np.random.Generator,
    *,
    sizes: dict,
    ledger: bool = True,
    max_release_seconds: float | None = None,
    max_d: int | None = None,
) -> Screened:
    """Screen one configuration: a small audit on its candidate pairs (selection only; its α is not used).
    With ``max_release_seconds``, one probe release is timed first and a slower configuration is skipped (recorded
    with ``error = "too slow: ..."``); that makes the screening depend on the machine's speed and load, so the
    registered searches (:data:`SEARCH_SIZES`) do not use it: their results depend on the seed only."""
    t0 = time.perf_counter()
    out = Screened(config)
    try:
        adapter = build_adapter(config)
        out.release = release_description(adapter)
        pairs = config_pairs(config)
        if max_d is not None and config.dat.get("d", 1) > max_d:
            out.error = f"too wide: d = {config.dat['d']} > {max_d} for this profile"
            out.seconds = time.perf_counter() - t0
            return out
        if max_release_seconds is not None:
            tp = time.perf_counter()
            adapter.release(pairs[0].d, 0)
            dt = time.perf_counter() - tp
            if dt > max_release_seconds:
                out.error = f"too slow: {dt:.3g} s per release > {max_release_seconds:g} s for this profile"
                out.seconds = time.perf_counter() - t0
                return out
        counter = _Counting(adapter)
        res = _audit(adapter, pairs, rng, alpha=0.05, name=f"screen {config.label()}", sizes=sizes)
        out.epsilon_lb, out.point = float(res.epsilon_lb), float(res.details.get("point_estimate") or 0.0)
        if not np.isfinite(out.point):
            out.point = 1e6
        out.score = out.epsilon_lb / config.epsilon
        out.pair_label, out.event = res.pair.get("label", ""), res.event
        out.pair = next((p for p in pairs if p.label == out.pair_label), pairs[0])
        out.releases = counter.n
        if ledger:
            out.ledger_epsilon = _ledger_epsilon(config, out.pair, int(rng.integers(2**31)))
    except Exception as e:  # noqa: BLE001 - a configuration diffprivlib rejects is recorded, not fatal
        out.error = f"{type(e).__name__}: {str(e)[:200]}"
    out.seconds = time.perf_counter() - t0
    return out


def release_description(adapter) -> str:
    """What a release of ``adapter`` holds, where the adapter says (models: the fitted attributes, and the layout
    rule when their shape depends on the sample); ``""`` otherwise."""
    return str(getattr(adapter, "release_description", "") or "")


def _rank_key(s: Screened):
    return (s.score, s.point / s.config.epsilon)


def run_search(
    keys,
    rng: np.random.Generator,
    *,
    n_configs: int,
    screen_sizes: dict,
    k: int,
    certify_sizes: dict,
    alpha: float = 0.05,
    family: str = "",
    explain: bool = True,
    shrink: int = 2,
    repro_n: int = 200,
    out_dir=None,
    configs=None,
    max_release_seconds: float | None = None,
    max_d: int | None = None,
    pinned=(),
) -> SearchOutcome:
    """Search the components ``keys``: screen ``n_configs`` sampled configurations (or the given ``configs``),
    then the ``pinned`` ones (:class:`Config` objects, screened without the speed probe; a profile's fixed wide
    configuration), certify the ``k`` best on fresh samples at ``alpha / k`` each, explain the violations.

    ``rng`` drives everything (sampling, screening, certification, root cause) through independent child
    generators, so a search is reproducible from its seed."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    r_sample, r_screen, r_cert, r_cause = rng.spawn(4)
    out = SearchOutcome(family or ",".join(sorted({key.split(".")[0] for key in keys})), alpha, k)
    t0 = time.perf_counter()
    cfgs = list(configs) if configs is not None else sample_configs(keys, r_sample, n_configs)
    for c in cfgs:
        out.screened.append(
            screen(c, r_screen, sizes=screen_sizes, max_release_seconds=max_release_seconds, max_d=max_d)
        )
    for c in pinned:
        if c not in cfgs:
            out.screened.append(screen(c, r_screen, sizes=screen_sizes, max_d=max_d))
    out.seconds["screening"] = time.perf_counter() - t0
    out.releases["screening"] = sum(s.releases for s in out.screened)
    ok = [s for s in out.screened if not s.error]
    top = sorted(ok, key=_rank_key, reverse=True)[:k]
    t1 = time.perf_counter()
    n_cert = 0
    for i, s in enumerate(top):
        adapter = build_adapter(s.config)
        counter = _Counting(adapter)
        res = _audit(
            adapter,
            [s.pair],
            r_cert,
            alpha=alpha / k,
            sizes=dict(certify_sizes, n_search=20),
            name=f"diffprivlib.search.{out.family}[{i}] {s.config.label()}",
        )
        res.details["config"] = s.config.to_dict()
        n_cert += counter.n
        out.certified.append((s, res))
    out.seconds["certification"] = time.perf_counter() - t1
    out.releases["certification"] = n_cert
    if explain:
        from .rootcause import explain as explain_one

        t2 = time.perf_counter()
        for s, res in out.violations:
            out.causes.append(
                explain_one(
                    s.config,
                    s.pair,
                    res,
                    r_cause,
                    screen_sizes=screen_sizes,
                    shrink_steps=shrink,
                    repro_n=repro_n,
                    out_dir=out_dir,
                )
            )
        out.seconds["root_cause"] = time.perf_counter() - t2
    out.seconds["total"] = time.perf_counter() - t0
    return out


def search_table(outcome: SearchOutcome) -> str:
    """Markdown rows: one per certified configuration (config, pair, event, ε_lb, verdict, cause)."""
    causes = {c["config"]["label"]: c for c in outcome.causes}
    lines = [
        "| configuration | claimed ε | pair | certified event | ε_lb | verdict | internal step / cause |",
        "|---|---|---|---|---|---|---|",
    ]
    for s, r in outcome.certified:
        c = causes.get(s.config.label(), {})
        lines.append(
            f"| `{s.config.label()}` | {s.config.epsilon:g} | {s.pair_label} | `{r.event}` | "
            f"{r.epsilon_lb:.3g} | **{r.verdict}** | {c.get('step', '')} |"
        )
    return "\n".join(lines)


def _result(outcome: SearchOutcome, name: str, seed) -> CheckResult:
    cert = outcome.certified
    viol = outcome.violations
    if viol:
        head_s, head = max(viol, key=lambda sr: sr[1].epsilon_lb / sr[0].config.epsilon)
        verdict = "violated"
    elif cert and all(r.verdict == "inconclusive" for _, r in cert):
        head_s, head = cert[0]
        verdict = "inconclusive"
    elif cert:
        head_s, head = max(cert, key=lambda sr: sr[1].epsilon_lb / sr[0].config.epsilon)
        verdict = "consistent"
    else:
        return CheckResult(
            name=name,
            verdict="error",
            statistic="epsilon_lb",
            alpha=outcome.alpha,
            seed=seed,
            details={"error": "no configuration could be screened", "screened": [s.row() for s in outcome.screened]},
            summary="no configuration of the space ran",
        )
    n_slow = sum(1 for s in outcome.screened if s.error.startswith(("too slow", "too wide")))
    n_err = sum(1 for s in outcome.screened if s.error) - n_slow
    total_rel = sum(outcome.releases.values())
    rate = total_rel / max(outcome.seconds.get("screening", 0) + outcome.seconds.get("certification", 0), 1e-9)
    details = {
        "family": outcome.family,
        "alpha_accounting": {
            "alpha_search": outcome.alpha,
            "k_certified": outcome.k,
            "alpha_per_certification": outcome.alpha / outcome.k,
            "screening": "selection only, samples discarded: no α spent",
            "statement": f"the {len(cert)} certified bounds hold simultaneously at "
            f"{1 - outcome.alpha:.4g} (Bonferroni over K = {outcome.k})",
        },
        "n_screened": len(outcome.screened),
        "n_screen_errors": n_err,
        "n_too_slow": n_slow,
        "ledger_flagged": [
            {"config": s.config.label(), "ledger_epsilon": s.ledger_epsilon, "ledger": ledger_text(s.ledger_epsilon)}
            for s in outcome.screened
            if s.ledger_epsilon is not None and s.ledger_epsilon > s.config.epsilon * (1 + 1e-6)
        ],
        "screened": [s.row() for s in outcome.screened],
        "certified": [
            {
                "config": s.config.to_dict(),
                "release": s.release,
                "pair": s.pair_label,
                "event": r.event,
                "epsilon_lb": r.epsilon_lb,
                "verdict": r.verdict,
                "counts": r.counts,
                "screen_score": s.score,
                "ledger_epsilon": s.ledger_epsilon,
            }
            for s, r in cert
        ],
        "root_causes": outcome.causes,
        "seconds": {k: round(v, 2) for k, v in outcome.seconds.items()},
        "releases": outcome.releases,
        "releases_per_second": round(rate, 1),
        "table": search_table(outcome),
        "pair": head.details.get("pair"),
        "event": head.details.get("event"),
        "counts": head.counts,
        "detectability": head.details.get("detectability"),
    }
    if viol:
        cause = next((c for c in outcome.causes if c["config"]["label"] == head_s.config.label()), None)
        if cause:
            details["cause"] = cause["cause_text"]
            if cause.get("reproduction", {}).get("script"):
                details["reproduction_script"] = cause["reproduction"]["script"]
    n_v = len(viol)
    summary = (
        f"{len(outcome.screened)} configurations drawn ({n_err} rejected by diffprivlib, {n_slow} too slow or "
        f"too wide for the profile), "
        f"{len(cert)} certified at α = {outcome.alpha:.3g}/{outcome.k}: {n_v} violation(s)"
        + f"; white-box ledger over budget in {len(details['ledger_flagged'])} screened configuration(s)"
        + (
            f"; worst {head_s.config.label()} ε_lb = {head.epsilon_lb:.3g} > {head_s.config.epsilon:g}"
            if viol
            else f"; largest certified ε_lb = {head.epsilon_lb:.3g} (claim {head_s.config.epsilon:g})"
        )
    )
    return CheckResult(
        name=name,
        verdict=verdict,
        statistic="epsilon_lb",
        estimate=float(head.epsilon_lb),
        interval=(float(head.epsilon_lb), float("inf")),
        alpha=outcome.alpha,
        claim=head.claim,
        n_samples=int(total_rel),
        seconds=float(outcome.seconds.get("total", 0.0)),
        seed=seed,
        provenance=Provenance(PAPER, f"diffprivlib search over {outcome.family}"),
        summary=summary,
        details=details,
    )


def search_check(
    family: str,
    profile: str,
    rng: np.random.Generator,
    *,
    alpha: float | None = None,
    seed=None,
    out_dir=None,
    keys=None,
) -> CheckResult:
    """Run the registered search of one family (``"mechanisms"``, ``"tools"``, ``"models"``) at ``profile``."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    sz = SEARCH_SIZES[profile][family]
    keys = keys or [k for k in SPACE if k.startswith(family + ".")]
    a = alpha if alpha is not None else SEARCH_ALPHA / len(FAMILIES)
    out = run_search(
        keys,
        rng,
        n_configs=sz["n_configs"],
        screen_sizes=sz["screen"],
        k=sz["k"],
        certify_sizes=sz["certify"],
        alpha=a,
        family=family,
        shrink=sz["shrink"],
        repro_n=sz["repro_n"],
        out_dir=out_dir,
        max_release_seconds=sz.get("max_release_seconds"),
        max_d=sz.get("max_d"),
        pinned=[make_config(*p) for p in sz.get("pinned", ()) if p[0] in keys],
    )
    return _result(out, f"diffprivlib.search.{family}", seed)


def _register():
    from htdp_verify.registry import register

    for fam in FAMILIES:

        def run(ctx, fam=fam):
            return search_check(fam, ctx.profile, ctx.rng, seed=ctx.seed, out_dir=ctx.out_dir)

        register(
            f"diffprivlib.search.{fam}",
            description=f"configuration search over every diffprivlib {fam[:-1]} argument (screen, certify the "
            f"top K at α/K, root cause)",
            provenance=Provenance(PAPER, f"diffprivlib.{fam}"),
            tags=("diffprivlib", "privacy", "search"),
        )(run)


_register()
