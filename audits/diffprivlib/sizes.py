"""Sizes of the diffprivlib configuration search (:mod:`.search`): what each profile screens, and the detectability
target from which every certification's releases per side are derived at the certified configuration's own claim.

Per profile and family, :data:`SEARCH_SIZES` declares

* ``n_configs`` drawn configurations, the ``screen`` audit sizes (selection only: nothing is concluded from
  screening samples, so they are a cost, not a statistical design), ``k`` configurations certified and ``shrink``
  steps of the root-cause minimisation;
* ``target``: the :class:`~htdp_verify.privacy.sizing.DetectabilityTarget` -- the true ε to detect (a ratio over
  the claim, or a gap above it), the probability floor of the leaking event on its likelier side and the power;
* ``cap``: the most releases per side a certification may draw (its cost); when the target needs more, the cap
  binds and the result states the true ε detectable at the cap.  Mechanism releases cost ~0.02-0.1 ms, a tool's
  ~1 ms, a model's 2-40 ms: the mechanisms are sized for the finest leak (ε_t = 1.25 ε in quick), the models for
  ε_t = max(2ε, ε + 1) in quick;
* ``select``: the certification's event-selection releases per side as ``(fraction of n_samples, minimum)``.

:func:`certification_sizes` turns a claim (ε, δ), a target and the α of one certification into ``n_samples`` /
``n_select`` with :func:`~htdp_verify.privacy.sizing.releases_needed` (the power of the certification's own test:
the exact conditional Poisson test at δ = 0, Clopper–Pearson at δ > 0), so ε = 0.1 gets more releases than ε = 1 and
nothing is sized by hand.  Claims with δ > 0 count the event floor above δ (``p1 = floor + δ``): an event of
probability below δ cannot show a violation at all.  Holohan et al. 2019 (arXiv:1907.02444), diffprivlib 0.6.6.
"""

from __future__ import annotations

import math
from typing import Any

from htdp_verify.privacy.sizing import DetectabilityTarget, detectable_epsilon, releases_needed

__all__ = ["SEARCH_SIZES", "certification_sizes"]

_T = DetectabilityTarget

#: per profile and family: configurations, screening sizes, K, shrink steps, the certification's detectability
#: target, its cap on releases per side and its selection share (see the module docstring)
SEARCH_SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "quick": {
        "mechanisms": dict(
            n_configs=16,
            screen=dict(n_samples=800, n_select=400, n_search=200, max_pairs=2),
            k=2,
            shrink=1,
            target=_T(ratio=1.25, event_floor=0.1, power=0.8),
            cap=50_000,
            select=(0.2, 1_000),
        ),
        "tools": dict(
            n_configs=12,
            screen=dict(n_samples=100, n_select=80, n_search=30, max_pairs=2),
            k=2,
            shrink=1,
            target=_T(ratio=2.0, event_floor=0.1, power=0.8),
            cap=3_000,
            select=(0.3, 200),
        ),
        "models": dict(
            n_configs=5,
            screen=dict(n_samples=40, n_select=30, n_search=20, max_pairs=2),
            k=2,
            shrink=1,
            target=_T(ratio=2.0, excess=1.0, event_floor=0.3, power=0.8),
            cap=300,
            select=(0.4, 60),
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
            shrink=6,
            target=_T(ratio=1.2, event_floor=0.1, power=0.8),
            cap=400_000,
            select=(0.2, 2_000),
        ),
        "tools": dict(
            n_configs=80,
            screen=dict(n_samples=400, n_select=200, n_search=100, max_pairs=4),
            k=4,
            shrink=6,
            target=_T(ratio=1.5, event_floor=0.1, power=0.8),
            cap=20_000,
            select=(0.2, 300),
        ),
        "models": dict(
            n_configs=40,
            screen=dict(n_samples=120, n_select=80, n_search=40, max_pairs=4),
            k=4,
            shrink=4,
            target=_T(ratio=2.0, excess=0.5, event_floor=0.2, power=0.8),
            cap=1_500,
            select=(0.3, 100),
            max_d=50,
        ),
    },
}

#: fewest releases per side a certification draws (the audit's own floor is 10 and 20 for selection)
MIN_CERTIFY = 20


def certification_sizes(
    epsilon: float,
    delta: float,
    *,
    target: DetectabilityTarget,
    alpha: float,
    cap: int,
    select: tuple = (0.25, 60),
) -> dict:
    """Releases per side of one certification at claim (``epsilon``, ``delta``), sized for ``target`` at level
    ``alpha`` and capped at ``cap``.

    Parameters
    ----------
    epsilon : float
        The configuration's claimed ε (> 0).
    delta : float
        Its claimed δ, in [0, 1).
    target : DetectabilityTarget
        The leak to detect (true ε, event floor, power).
    alpha : float
        The α of this one certification, in (0, 1).
    cap : int
        Most releases per side (``>= MIN_CERTIFY``).
    select : tuple of (float, int), default (0.25, 60)
        Event-selection releases per side: this fraction of ``n_samples``, at least the minimum.

    Returns
    -------
    dict
        ``n_samples``, ``n_select``, ``needed`` (uncapped; ``None`` beyond 10⁹), ``capped``, ``target_epsilon``,
        ``event_floor`` (as used, above δ), ``power``, ``alpha``, ``method``, ``detectable_epsilon`` (the smallest
        true ε detected with ``power`` at ``n_samples``; the target itself when the cap does not bind) and a
        one-line ``statement``.
    """
    if int(cap) < MIN_CERTIFY:
        raise ValueError(f"cap must be an integer >= {MIN_CERTIFY}, got {cap!r}")
    frac, minimum = select
    if not 0 < float(frac) <= 1 or int(minimum) < 20:
        raise ValueError(f"select must be (fraction in (0, 1], minimum >= 20), got {select!r}")
    t_eps = target.epsilon_for(epsilon)
    floor = min(1.0, target.event_floor + delta)
    method = "poisson" if delta == 0 else "cp"
    kw: dict[str, Any] = dict(event_floor=floor, alpha=alpha, power=target.power, method=method)
    need = int(releases_needed(epsilon, delta, target_epsilon=t_eps, **kw))
    needed = None if need < 0 else max(need, MIN_CERTIFY)
    capped = needed is None or needed > int(cap)
    n = int(cap) if (capped or needed is None) else int(needed)
    detect = detectable_epsilon(n, epsilon, delta, **kw) if capped else t_eps
    n_select = max(int(minimum), int(math.ceil(frac * n)))
    tgt = f"true ε ≥ {t_eps:.3g} on an event of probability ≥ {floor:.3g}, power {target.power:g} at α = {alpha:.3g}"
    if capped:
        statement = (
            f"sized for {tgt}: needs {needed if needed is not None else '> 10⁹'} releases per side, capped at {n}; "
            f"at the cap the certification detects true ε ≥ {detect:.3g} with that power"
        )
    else:
        statement = f"sized for {tgt}: {n} releases per side"
    return {
        "n_samples": n,
        "n_select": n_select,
        "needed": needed,
        "capped": bool(capped),
        "cap": int(cap),
        "target": target.to_dict(),
        "target_epsilon": t_eps,
        "event_floor": floor,
        "power": target.power,
        "alpha": alpha,
        "method": method,
        "detectable_epsilon": detect,
        "statement": statement,
    }
