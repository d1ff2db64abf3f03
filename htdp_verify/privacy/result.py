"""``AuditResult``: what a privacy audit returns (a :class:`~htdp_verify.results.CheckResult` with audit fields)."""

from __future__ import annotations

import math

from ..results import CheckResult

__all__ = ["AuditResult"]


class AuditResult(CheckResult):
    """A :class:`~htdp_verify.results.CheckResult` for a privacy audit.

    ``estimate`` is the certified ε lower bound at the claim's δ and ``interval = (ε_lb, inf)`` at confidence
    ``1 - alpha``.  Everything else lives in ``details`` (JSON-serialisable) and is exposed as properties:
    ``epsilon_lb``, ``confidence``, ``pair``, ``event``, ``counts``, ``ledger``, ``detectability``, ``profile``.

    Parameters
    ----------
    name, verdict, statistic, estimate, interval, alpha, claim, n_samples
        As in :class:`~htdp_verify.results.CheckResult`.
    seconds, seed, provenance, summary, details, figures, expected
        As in :class:`~htdp_verify.results.CheckResult`.
    """

    @property
    def epsilon_lb(self) -> float:
        return float(self.estimate)

    @property
    def confidence(self) -> float:
        return 1.0 - float(self.alpha)

    @property
    def pair(self) -> dict:
        return self.details.get("pair", {})

    @property
    def event(self) -> str:
        return self.details.get("event", {}).get("event", "")

    @property
    def counts(self) -> dict:
        return self.details.get("counts", {})

    @property
    def ledger(self) -> str:
        return self.details.get("ledger", "")

    @property
    def detectability(self) -> dict:
        return self.details.get("detectability", {})

    @property
    def profile(self) -> dict | None:
        return self.details.get("profile")

    @property
    def possibly_unbounded(self) -> bool:
        return bool(self.detectability.get("possibly_unbounded", False))

    def report(self) -> str:
        """A multi-line human-readable report.

        Returns
        -------
        str
            The report.
        """
        d = self.details
        lines = [self.line()]  # str(self) would repeat the pair and detectability lines printed below
        lines.append(f"  pair:   {d.get('pair', {}).get('text', '')}")
        lines.append(f"  event:  {self.event}  ({d.get('event', {}).get('orientation', '')})")
        c = self.counts
        lines.append(
            f"  counts: {c.get('numerator')} / {c.get('n_numerator', c.get('n_per_side'))} vs "
            f"{c.get('denominator')} / {c.get('n_denominator', c.get('n_per_side'))} "
            f"[{c.get('method', 'cp')}] (point estimate ln ratio = {d.get('point_estimate', float('nan')):.4g})"
        )
        lines.append(f"  detectability: {self.detectability.get('statement', '')}")
        mu = d.get("gdp_mu_lb")
        if isinstance(mu, (int, float)) and math.isfinite(mu) and mu > 0:
            lines.append(f"  GDP: mu >= {mu:.4g} at {1 - self.alpha:.4g} confidence (valid for mu-GDP mechanisms)")
        if self.profile:
            lines.append(
                f"  profile: {self.profile.get('n_events')} events, δ floor {self.profile.get('delta_floor'):.3g}"
            )
        lines.append("  alpha ledger:")
        lines += ["    " + ln for ln in self.ledger.splitlines()]
        return "\n".join(lines)
