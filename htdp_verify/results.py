"""``CheckResult``: one verdict with its statistic, interval, α, samples, seconds, seed and provenance.

Verdicts are statistical statements at a stated α, never bare booleans:

* ``"consistent"`` – the data do not contradict the claim at level α (say what the run could have detected);
* ``"violated"`` – the claim is rejected at level α;
* ``"inconclusive"`` – the run could not decide (too few samples; ``details`` says how many would be needed);
* ``"info"`` – a description that tests no claim (a comparison table, a measured ratio): never "consistent";
* ``"error"`` – the check could not run (``details['error']`` holds the message).

Canaries and controls (checks built to fail, or to pass, on purpose) carry ``expected``, the verdict they are
expected to produce; :attr:`CheckResult.outcome` then says whether the run met that expectation, and
:func:`tally` counts outcomes so that a canary's expected violation is not counted as a finding.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from .claims import Provenance, claim_from_dict

__all__ = ["CheckResult", "VERDICTS", "CLAIM_VERDICTS", "OUTCOMES", "tally", "results_to_json", "results_from_json"]

#: verdicts a claim can get (and the values ``expected`` may take)
CLAIM_VERDICTS = ("consistent", "violated", "inconclusive")
VERDICTS = CLAIM_VERDICTS + ("info", "error")
#: what :attr:`CheckResult.outcome` returns: a claim's verdict when nothing was expected of it, ``"as expected"`` /
#: ``"unexpected"`` for canaries and controls, ``"info"`` for descriptions and ``"error"`` for checks that did not run
OUTCOMES = CLAIM_VERDICTS + ("as expected", "unexpected", "info", "error")


def _jsonable(x):
    """Make numpy scalars/arrays and non-finite floats JSON-safe (inf -> "inf")."""
    import numpy as np

    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, np.generic):
        return _jsonable(x.item())
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def _unjson_float(x):
    if isinstance(x, str) and x in ("inf", "-inf", "nan"):
        return float(x)
    return x


@dataclass
class CheckResult:
    """One check's verdict.

    Parameters
    ----------
    name: registered name of the check (``"hu2022.privacy.smoothed_mean"``).
    verdict: one of :data:`VERDICTS`.
    statistic: the name of the estimated quantity (``"epsilon_lb"``, ``"exponent"``, ``"exceedance_rate"``).
    estimate: its value (for a privacy audit: the certified ε lower bound).
    interval: confidence interval ``(lo, hi)`` at level ``1 - alpha`` (one side may be ±inf).
    alpha: the error probability spent on this verdict.
    claim: the claim under test (a claims dataclass) or ``None``.
    n_samples: samples / replications used.
    seconds: wall-clock time of the check.
    seed: the integer seed that reproduces the check.
    provenance: paper, theorem, equation.
    summary: one sentence a user reads first.
    details: anything else (JSON-serialisable).
    figures: paths of figures produced (relative to the report folder).
    expected: ``None`` for an ordinary check; for a canary or control, the verdict it is built to produce
        (one of :data:`CLAIM_VERDICTS`, e.g. ``"violated"`` for a deliberately under-noised mechanism).
    """

    name: str
    verdict: str
    statistic: str = ""
    estimate: float = float("nan")
    interval: tuple = (float("-inf"), float("inf"))
    alpha: float = 0.05
    claim: Any = None
    n_samples: int = 0
    seconds: float = 0.0
    seed: int | None = None
    provenance: Provenance = field(default_factory=Provenance)
    summary: str = ""
    details: dict = field(default_factory=dict)
    figures: list = field(default_factory=list)
    expected: str | None = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.expected is not None and self.expected not in CLAIM_VERDICTS:
            raise ValueError(f"expected must be None or one of {CLAIM_VERDICTS}, got {self.expected!r}")
        if isinstance(self.provenance, dict):
            self.provenance = Provenance(**self.provenance)
        if self.provenance is None and self.claim is not None:
            self.provenance = self.claim.provenance
        self.interval = tuple(float(v) for v in self.interval)

    @property
    def as_expected(self) -> bool | None:
        """``None`` when nothing is expected of this check; otherwise whether the verdict equals :attr:`expected`
        (a check that could not run never meets an expectation)."""
        return None if self.expected is None else self.verdict == self.expected

    @property
    def outcome(self) -> str:
        """One of :data:`OUTCOMES`: ``"error"`` for a check that did not run; with no expectation, the verdict
        (``"info"`` included); for a canary or control, ``"as expected"`` or ``"unexpected"``."""
        if self.verdict == "error" or self.expected is None:
            return self.verdict
        return "as expected" if self.as_expected else "unexpected"

    @property
    def unexpected_violation(self) -> bool:
        """A ``violated`` verdict that was not expected (a finding, or a control that failed)."""
        return self.verdict == "violated" and self.expected != "violated"

    @property
    def ok(self) -> bool:
        """False for an error, an unexpected violation, or a canary/control that missed its expected verdict."""
        if self.verdict == "error" or self.unexpected_violation:
            return False
        return self.as_expected is not False

    def to_dict(self) -> dict:
        d = asdict(self)
        d["claim"] = None if self.claim is None else asdict(self.claim)
        return _jsonable(d)

    @classmethod
    def from_dict(cls, d: dict) -> "CheckResult":
        d = dict(d)
        claim = d.pop("claim", None)
        d["claim"] = None if claim is None else claim_from_dict(claim)
        d["provenance"] = Provenance(**(d.get("provenance") or {}))
        d["estimate"] = float(_unjson_float(d.get("estimate", float("nan"))))
        d["interval"] = tuple(float(_unjson_float(v)) for v in d.get("interval", ("-inf", "inf")))
        return cls(**d)

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, s: str) -> "CheckResult":
        return cls.from_dict(json.loads(s))

    def __str__(self) -> str:
        est = "" if (isinstance(self.estimate, float) and math.isnan(self.estimate)) else f" {self.statistic}={self.estimate:.4g}"
        exp = "" if self.expected is None else f" (expected {self.expected}: {self.outcome})"
        return f"[{self.verdict.upper()}{exp}] {self.name}:{est} {self.summary}".rstrip()


def tally(results) -> dict[str, int]:
    """Counts of :attr:`CheckResult.outcome` over ``results``, every key of :data:`OUTCOMES` present (0 if none).

    Canaries and controls count under ``"as expected"`` / ``"unexpected"``, never under their verdict, so a
    canary's intended violation is not a finding and a description (``"info"``) is never counted as consistent."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for r in results:
        counts[r.outcome] += 1
    return counts


def results_to_json(results, **kw) -> str:
    return json.dumps([r.to_dict() for r in results], **kw)


def results_from_json(s: str) -> list[CheckResult]:
    return [CheckResult.from_dict(d) for d in json.loads(s)]
