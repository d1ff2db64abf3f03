"""Configuration search over diffprivlib 0.6.6: screen many configurations of the space (:mod:`.space`) cheaply,
certify the most suspicious ``K`` on fresh samples, explain every certified violation (:mod:`.rootcause`) and certify
its smallest configuration.

Design (Holohan et al. 2019, arXiv:1907.02444, audited with the engine's :func:`~htdp_verify.privacy.audit`):

1. **Exploration.** ``n_configs`` configurations drawn from the table by :func:`~.space.sample_configs` with the
   check's seeded ``Generator`` (round-robin over the family's components, every argument uniform over its values).
2. **Screening** (selection only): one small :func:`audit` per configuration on its candidate pairs (the engine's
   pair search picks the pair, its attacks pick the event); the score is the screening bound divided by the
   claimed ε (ties broken by the point estimate).  The white-box ledger (:mod:`.ledger`) of one release on the
   chosen pair is recorded next to it (reported, not used for the ranking).  Screening samples are thrown away:
   nothing is concluded from them, so they spend no α.
3. **Certification**: the ``K`` best-scoring configurations are audited again on the pair screening chose, with
   fresh releases from a child generator (its own event selection and certification samples).  Their releases per
   side come from the family's detectability target at each configuration's own claim
   (:func:`~.sizes.certification_sizes`, capped by the profile), and the result records the target, whether the cap
   bound and the true ε detectable at the size drawn.
4. **Root cause** for each certified violation (:func:`~.rootcause.explain`): the leaking internal step, the
   smallest configuration and pair still flagged by screening, the upstream issue where one is known, and a
   reproduction script that rebuilds the certified event and recounts it.
5. **Smallest configuration certified**: when the minimisation found a smaller configuration, it is audited on its
   own pair with fresh releases from its own child generator (sized like step 3).

α: the search's ``alpha`` is split, before anything runs, into ``2K`` equal Bonferroni slots: the ``K``
certifications and the ``K`` smallest-configuration certifications (a slot whose violation did not occur, or whose
smallest configuration is the certified one, stays unspent).  Every certified bound of the search therefore holds
simultaneously at ``1 - alpha``.  The registered checks ``diffprivlib.search.mechanisms`` / ``.tools`` /
``.models`` each run at ``SEARCH_ALPHA / 3``, so the three searches' certified statements hold together at 95 %.
Sizes per profile are in :data:`~.sizes.SEARCH_SIZES`; the measured times are in the module docstring of
``benchmarks/bench_dpl_search.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from htdp_verify.claims import PrivacyClaim, Provenance
from htdp_verify.privacy.sizing import DetectabilityTarget
from htdp_verify.results import CheckResult

from .search_result import _result, alpha_slots, ledger_text, search_table
from .sizes import SEARCH_SIZES, certification_sizes
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
    "alpha_slots",
    "certification_sizes",
]

PAPER = "Holohan et al. 2019, Diffprivlib (arXiv:1907.02444); diffprivlib 0.6.6"
#: family-wise α of the three registered searches together (each gets SEARCH_ALPHA / 3)
SEARCH_ALPHA = 0.05


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


def _certify(config: Config, pair, rng, *, alpha: float, name: str, sizing: dict):
    """One certification of ``config`` on ``pair`` at ``alpha`` with the sizes of ``sizing``; returns the audit
    result (its ``details`` carry the configuration and the sizing) and the releases drawn."""
    adapter = build_adapter(config)
    counter = _Counting(adapter)
    res = _audit(
        adapter,
        [pair],
        rng,
        alpha=alpha,
        sizes=dict(n_samples=sizing["n_samples"], n_select=sizing["n_select"], n_search=20),
        name=name,
    )
    res.details["config"] = config.to_dict()
    res.details["sizing"] = sizing
    return res, counter.n


def run_search(
    keys,
    rng: np.random.Generator,
    *,
    n_configs: int,
    screen_sizes: dict,
    k: int,
    target: DetectabilityTarget | None = None,
    cap: int = 10_000,
    select: tuple = (0.25, 60),
    certify_sizes: dict | None = None,
    alpha: float = 0.05,
    family: str = "",
    explain: bool = True,
    shrink: int = 2,
    repro_n: int | None = None,
    out_dir=None,
    configs=None,
    max_release_seconds: float | None = None,
    max_d: int | None = None,
    pinned=(),
) -> SearchOutcome:
    """Search the components ``keys``: screen ``n_configs`` sampled configurations (or the given ``configs``),
    then the ``pinned`` ones (:class:`Config` objects, screened without the speed probe; a profile's fixed wide
    configuration), certify the ``k`` best on fresh samples, explain the violations and certify their smallest
    configurations; every certification at ``alpha / (2 k)``.

    The certifications' releases per side come from ``target`` at each configuration's claim, capped at ``cap``
    (:func:`~.sizes.certification_sizes`; ``select`` sets the selection share); ``certify_sizes`` (a dict with
    ``n_samples`` and ``n_select``) fixes them instead, for experiments.  ``repro_n``: releases per side of the
    reproduction recount (default: the certification's ``n_samples``).  ``rng`` drives everything (sampling,
    screening, certification, root cause, smallest-configuration certification) through independent child
    generators, so a search is reproducible from its seed.

    Parameters
    ----------
    keys : list of str
        Components of the space (:data:`~.space.SPACE` keys).
    rng : numpy.random.Generator
        The search's generator.
    n_configs, screen_sizes, k, target, cap, select, certify_sizes, alpha, family, explain, shrink, repro_n
        As above (``shrink``: greedy steps of :func:`~.rootcause.minimise`).
    out_dir, configs, max_release_seconds, max_d, pinned
        Where reproduction scripts go; a fixed configuration list; the optional speed probe and width limit of
        :func:`screen`; the pinned configurations.

    Returns
    -------
    SearchOutcome
        Every screened configuration, the certified ones, the root causes and the α accounting.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if (target is None) == (certify_sizes is None):
        raise ValueError("give exactly one of target= (sizes derived per claim) and certify_sizes= (fixed sizes)")
    a_each = alpha / (2 * k)  # fixed before the search runs: K certifications + K smallest configurations

    def sizing_for(config: Config) -> dict:
        if certify_sizes is not None:
            return {
                "n_samples": int(certify_sizes["n_samples"]),
                "n_select": int(certify_sizes["n_select"]),
                "fixed": True,
                "alpha": a_each,
                "statement": "fixed sizes (no detectability target)",
            }
        g = build_adapter(config).privacy
        return certification_sizes(
            g.epsilon, g.delta, target=cast(DetectabilityTarget, target), alpha=a_each, cap=cap, select=select
        )

    r_sample, r_screen, r_cert, r_cause, r_small = rng.spawn(5)
    small_rngs = r_small.spawn(k)
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
        name = f"diffprivlib.search.{out.family}[{i}] {s.config.label()}"
        res, n = _certify(s.config, s.pair, r_cert, alpha=a_each, name=name, sizing=sizing_for(s.config))
        n_cert += n
        out.certified.append((s, res))
    out.seconds["certification"] = time.perf_counter() - t1
    out.releases["certification"] = n_cert
    if explain:
        from .rootcause import explain as explain_one

        t2 = time.perf_counter()
        n_small = 0
        for i, (s, res) in enumerate(out.certified):
            if res.verdict != "violated":
                continue

            def certify_smallest(config, pair, i=i):
                nonlocal n_small
                name = f"diffprivlib.search.{out.family}[{i}].smallest {config.label()}"
                r2, n2 = _certify(config, pair, small_rngs[i], alpha=a_each, name=name, sizing=sizing_for(config))
                n_small += n2
                return r2

            out.causes.append(
                explain_one(
                    s.config,
                    s.pair,
                    res,
                    r_cause,
                    screen_sizes=screen_sizes,
                    shrink_steps=shrink,
                    repro_n=repro_n if repro_n is not None else int(res.details["sizing"]["n_samples"]),
                    out_dir=out_dir,
                    certify_smallest=certify_smallest,
                )
            )
        out.seconds["root_cause"] = time.perf_counter() - t2
        out.releases["smallest_certification"] = n_small
    out.seconds["total"] = time.perf_counter() - t0
    return out


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
        target=sz["target"],
        cap=sz["cap"],
        select=sz["select"],
        alpha=a,
        family=family,
        shrink=sz["shrink"],
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
