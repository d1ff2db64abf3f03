"""One registered check per catalogue mechanism, ``benchmark.<name>``: the public auditor (``attacks="auto"``) on
every catalogue pair at :data:`CHECK_QUICK` releases per side (quick profile) or the bench's quick budget (full
profile), with the ground truth as the expected verdict.

The check's verdict is the audit's verdict on the mechanism's claim; ``expected`` is ``"violated"`` for a buggy
mechanism and ``"consistent"`` for a correct one, so the report shows "as expected" when the auditor got the
mechanism right, and a false alarm or a missed leak as "unexpected".
"""

from __future__ import annotations

from htdp_verify.registry import register

from .catalogue import MECHANISMS, get_mechanism
from .run import AUTO_QUICK, _fmt, audit_mechanism

__all__ = ["auditor_check", "CHECK_QUICK"]

CHECK_QUICK = 200_000  # releases per side in the quick profile (the full profile uses the bench's quick budget)


def auditor_check(name: str):
    """The check ``benchmark.<name>`` (a function of the run context)."""

    def check(ctx):
        m = get_mechanism(name)
        n = CHECK_QUICK if ctx.profile == "quick" else AUTO_QUICK
        r = audit_mechanism(name, n_per_side=n, rng=ctx.rng, check_name=f"benchmark.{name}")
        r.expected = m.expected_verdict
        r.seed = ctx.seed
        right = r.verdict == m.expected_verdict or (not m.buggy and r.verdict == "inconclusive")
        what = (
            "auditor right about the mechanism"
            if right
            else "FALSE ALARM on a mechanism within its claim"
            if r.verdict == "violated"
            else "leak not found at this size"
        )
        r.summary = f"{what}: claim ε={m.claimed_epsilon:.4g}, true ε={_fmt(m.true_epsilon)}; " + r.summary
        return r

    check.__name__ = f"check_benchmark_{name}"
    check.__doc__ = f"Auditor vs ground truth on {name}."
    return check


for _name, _m in MECHANISMS.items():
    register(
        f"benchmark.{_name}",
        description=f"auditor vs ground truth: {_name} ({'buggy' if _m.buggy else 'correct'}; claim "
        f"{_m.claimed_epsilon:.4g}, true {_fmt(_m.true_epsilon)}, {_m.relation})",
        provenance=_m.provenance,
        tags=("benchmark", "privacy"),
    )(auditor_check(_name))
