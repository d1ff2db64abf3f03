"""Running the diffprivlib audits: :func:`audit_component` (one adapter audited on its pairs, with its results-table
row and, on a violation, a reproduction script), :func:`check_alpha` (the Bonferroni share of ``ALPHA``), the
registration of one check per component and ε (``diffprivlib.<component>.eps<ε>``) with
:mod:`htdp_verify.registry`, and :func:`results_table` (the Markdown table of a run).

Sequential by default where releases are expensive.  Every diffprivlib adapter is per-call (one diffprivlib call
per release, no vectorised ``sample``), but only a model costs milliseconds a release (a fit: ~6 ms CPU for
GaussianNB, ~11 ms for KMeans, ~31 ms for LinearRegression), against ~0.02 ms for a mechanism (Laplace) and ~0.5 ms
for a tool (mean).  The registered checks of the kinds in :data:`SEQUENTIAL_KINDS` (the models) therefore audit
with :meth:`~htdp_verify.privacy.sequential.RoundsDesign.per_call`: a probe round (1 % of the budget, at least 20
releases per side: 20 at the models' budgets) at α/10 on top of the fixed-n budget,
then the fixed-n check's own search and selection with an anytime-valid certification of at
least its ``n_samples`` at the α left, which stops at the first certified violation or for futility.  The probe
draws from a stream of its own and the split after it chooses as the fixed split would, so the split sees exactly
the releases :meth:`~htdp_verify.privacy.sequential.RoundsDesign.fixed_split` draws and finds what it finds, up to
its smaller α.  Measured at the full profile (``benchmarks/bench_seq_lr.py``): a strong leak costs the probe only
(LinearRegression at ε = 0.1: see the README for the releases used); on the weak KMeans leak at ε = 1 (held-out
seeds 7000-7039, ``--component models.KMeans --epsilon 1 --attacks registered``) per_call and the fixed split
reached "violated" at the same 30 of 40 seeds, per_call with a median of 1 717 releases per side against 1 577.
The result records the releases used and planned and why the audit stopped (``details["sequential"]``); the results
table and the report show them.  The mechanisms and tools keep the fixed-n audit, whose exact bound at the full size
is tighter.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from estimators.dpl import DPLAdapter, DPLMechanism
from htdp_verify.claims import Provenance
from htdp_verify.privacy import Mechanism, audit
from htdp_verify.privacy.sequential import RoundsDesign
from htdp_verify.registry import register

from .components import ALPHA, COMPONENTS, EPSILONS, PAPER, SIZES, VARIANTS, Component
from .repro import repro_script

__all__ = ["audit_component", "check_alpha", "results_table", "SEQUENTIAL_KINDS", "sequential_design"]

#: component kinds whose registered checks audit sequentially (per-call rounds) by default: per-call and costly
SEQUENTIAL_KINDS = ("model",)


def sequential_design(kind: str) -> RoundsDesign | None:
    """The sequential design a registered check of a component of ``kind`` uses, ``None`` for a fixed-n audit.

    Parameters
    ----------
    kind : str
        The component's kind (``"mechanism"``, ``"tool"`` or ``"model"``).

    Returns
    -------
    RoundsDesign or None
        :meth:`RoundsDesign.per_call` for the kinds of :data:`SEQUENTIAL_KINDS`, else ``None``.
    """
    return RoundsDesign.per_call() if kind in SEQUENTIAL_KINDS else None


# ---------------------------------------------------------------------------------------------------------
# running one audit
# ---------------------------------------------------------------------------------------------------------
def _sizes(comp: Component, profile: str) -> dict:
    s = dict(SIZES[profile][comp.kind])
    f = comp.size_scale.get(profile, 1.0)
    for k in ("n_samples", "n_select", "n_search"):
        s[k] = max(40, int(round(s[k] * f)))
    return s


def audit_component(
    adapter: DPLAdapter,
    pairs: list,
    *,
    n_samples: int,
    n_select: int,
    n_search: int,
    rng: np.random.Generator,
    attacks="auto",
    max_pairs: int | None = None,
    alpha: float = ALPHA,
    name: str | None = None,
    out_dir: Path | None = None,
    note: str = "",
    component: str | None = None,
    sequential: RoundsDesign | bool | str | None = None,
):
    """Audit one adapter against its declared guarantee on ``pairs`` (searched when several, ``n_search`` releases
    per pair and side) and return the
    :class:`AuditResult` with ``details["table"]`` (its row of the results table) and, on a violation, the path of a
    reproduction script written to ``out_dir``.  ``sequential``: ``None`` (default) for the fixed-n audit, or the
    ``audit(sequential=...)`` design (the registered model checks pass :func:`sequential_design`)."""
    if max_pairs is not None:
        pairs = list(pairs)[:max_pairs]
    mech = Mechanism(adapter, name=adapter.name, guarantee=adapter.privacy, vectorised=False)
    claim = adapter.privacy.claim(Provenance(PAPER, adapter.name, "", adapter.relation_note))
    res = audit(
        mech,
        claim,
        pairs=pairs if len(pairs) > 1 else pairs[0],
        n_samples=n_samples,
        n_select=n_select,
        n_search=n_search * len(pairs),
        alpha=alpha,
        attacks=attacks,
        rng=rng,
        name=name,
        sequential=sequential if sequential is not None else False,
    )
    g = adapter.privacy
    row = {
        "component": component or adapter.name,
        "claimed_epsilon": g.epsilon,
        "delta": g.delta,
        "relation": g.neighbours if not isinstance(adapter, DPLMechanism) else "value within sensitivity",
        "epsilon_lb_95": res.epsilon_lb,  # at 1 - alpha of this audit (suite: simultaneous 95 %)
        "verdict": res.verdict,
        "samples": res.n_samples,
        "seconds": round(res.seconds, 1),
        "pairs_searched": len(pairs),
        "pair": res.pair.get("label", ""),
        "event": res.event,
    }
    seq = res.details.get("sequential")
    if isinstance(seq, dict):
        row["samples_planned"] = seq["releases_planned"]
        row["stop_reason"] = seq["stop_reason"]
    res.details["table"] = [row]
    res.details["relation_note"] = adapter.relation_note
    if note:
        res.details["note"] = note
    if res.verdict == "violated" and out_dir is not None:
        path = Path(out_dir) / f"repro_{re.sub(r'[^A-Za-z0-9_.-]+', '_', res.name)}.py"
        path.write_text(repro_script(adapter, res), encoding="utf-8")
        res.details["reproduction_script"] = path.name
        res.summary += f"; reproduction: {path.name}"
    return res


def check_alpha() -> float:
    """α of one registered check: the suite's family-wise ``ALPHA`` split evenly (Bonferroni) over its checks."""
    return ALPHA / (len(COMPONENTS) * len(EPSILONS) + len(VARIANTS))


def _check(comp: Component, eps: float):
    def run(ctx):
        sizes = _sizes(comp, ctx.profile)
        max_pairs = sizes.pop("max_pairs")
        attacks = comp.full_attacks if (ctx.profile == "full" and comp.full_attacks) else comp.attacks
        adapter = comp.build(eps)
        a = check_alpha()
        res = audit_component(
            adapter,
            comp.pairs(),
            rng=ctx.rng,
            attacks=attacks,
            max_pairs=max_pairs,
            alpha=a,
            name=_check_name(comp, eps),
            out_dir=ctx.out_dir,
            note=comp.note,
            component=comp.key,
            sequential=sequential_design(comp.kind),
            **sizes,
        )
        res.details["alpha_note"] = (
            f"alpha = {ALPHA:g} / {round(ALPHA / a)} checks (Bonferroni over the diffprivlib "
            f"suite): all its bounds and verdicts hold simultaneously at {1 - ALPHA:.0%}"
        )
        if res.verdict == "violated" and comp.cause:
            res.details["cause"] = comp.cause
        return res

    return run


def _check_name(comp: Component, eps: float) -> str:
    e = f"{eps:g}".replace(".", "_")
    return f"diffprivlib.{comp.key}.eps{e}"


def _register_all():
    for comp in COMPONENTS.values():
        for eps in EPSILONS:
            g = comp.build(eps).privacy
            register(
                _check_name(comp, eps),
                description=f"audit of diffprivlib {comp.key} at claimed {g}",
                provenance=Provenance(PAPER, comp.key),
                tags=("diffprivlib", "privacy", comp.kind),
            )(_check(comp, eps))
    for comp in VARIANTS.values():  # optional-argument variants: ε = 1 only
        g = comp.build(1.0).privacy
        register(
            _check_name(comp, 1.0),
            description=f"audit of diffprivlib {comp.key} at claimed {g}",
            provenance=Provenance(PAPER, comp.key),
            tags=("diffprivlib", "privacy", comp.kind, "variant"),
        )(_check(comp, 1.0))


_register_all()


# ---------------------------------------------------------------------------------------------------------
# results table
# ---------------------------------------------------------------------------------------------------------
def results_table(results) -> str:
    """Markdown table (component, claimed ε, δ, relation, ε_lb, verdict, samples, seconds) from results (the
    bounds of the registered checks hold simultaneously at 95 %); a sequential audit's samples read
    "used / planned (stop reason)"."""
    lines = [
        "| component | claimed ε | δ | neighbours | ε_lb (95%, simultaneous) | verdict | samples | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for row in (r.details or {}).get("table", []):
            samples = str(row["samples"])
            if "samples_planned" in row:
                samples += f" / {row['samples_planned']} ({row['stop_reason']})"
            lines.append(
                f"| `{row['component']}` | {row['claimed_epsilon']:g} | {row['delta']:g} | {row['relation']} | "
                f"{row['epsilon_lb_95']:.3g} | **{row['verdict']}** | {samples} | {row['seconds']} |"
            )
    return "\n".join(lines)
