"""Declarative claims with provenance.

A claim is what a paper (or a library's documentation) asserts; a check turns it into a ``CheckResult``.
Each claim carries a :class:`Provenance` (paper, theorem or algorithm, equation) so a report can say exactly
which statement was tested.  Privacy claims always carry their neighbouring relation (never a bare ε).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from ._validate import check_positive, check_prob

__all__ = [
    "Provenance",
    "PrivacyClaim",
    "RateClaim",
    "TailBoundClaim",
    "LowerBoundClaim",
    "claim_from_dict",
    "NEIGHBOUR_RELATIONS",
]

NEIGHBOUR_RELATIONS = ("replace", "add_remove")


@dataclass(frozen=True)
class Provenance:
    """Where a claim comes from, and which reading of the text it rests on.

    Parameters
    ----------
    paper : str, default ""
        Short citation of the source (``"Hu, Ni, Xiao & Wang 2022"``).
    location : str, default ""
        Theorem, algorithm or lemma (``"Thm 1"``, ``"Alg. 2"``).
    equation : str, default ""
        Equation number or label.
    notes : str, default ""
        Free notes, e.g. ``"reconstructed"`` or ``"as printed"``: the reading a verdict rests on.
    """

    paper: str = ""
    location: str = ""
    equation: str = ""
    notes: str = ""

    def __str__(self) -> str:
        parts = [p for p in (self.paper, self.location, self.equation and f"eq. {self.equation}") if p]
        s = ", ".join(parts) if parts else "unspecified"
        return f"{s} ({self.notes})" if self.notes else s


def _prov(p) -> Provenance:
    if p is None:
        return Provenance()
    if isinstance(p, Provenance):
        return p
    if isinstance(p, dict):
        return Provenance(**p)
    raise ValueError(f"provenance must be a Provenance or dict, got {type(p).__name__}")


@dataclass(frozen=True)
class PrivacyClaim:
    """(ε, δ)-DP under a neighbouring relation.

    Parameters
    ----------
    epsilon : float
        The claimed ε (> 0).
    delta : float, default 0.0
        The claimed δ, in [0, 1).
    neighbours : str, default "replace"
        The neighbouring relation: ``"replace"`` (replace one record) or ``"add_remove"`` (add or remove one).
    provenance : Provenance, optional
        Where the claim comes from (paper, location, equation, notes).
    """

    epsilon: float
    delta: float = 0.0
    neighbours: str = "replace"
    provenance: Provenance = field(default_factory=Provenance)
    kind: str = field(default="privacy", init=False)

    def __post_init__(self):
        check_positive("epsilon", self.epsilon, allow_inf=False)
        check_prob("delta", self.delta, open_low=False)
        if self.neighbours not in NEIGHBOUR_RELATIONS:
            raise ValueError(f"neighbours must be one of {NEIGHBOUR_RELATIONS}, got {self.neighbours!r}")
        object.__setattr__(self, "provenance", _prov(self.provenance))

    def __str__(self) -> str:
        d = f", δ={self.delta:g}" if self.delta else ""
        return f"(ε={self.epsilon:g}{d})-DP, {self.neighbours} neighbours [{self.provenance}]"


@dataclass(frozen=True)
class RateClaim:
    """Error ≍ C · ``variable``^``exponent`` in a stated regime, tested within ``tolerance`` on the exponent.

    Parameters
    ----------
    variable : str
        The swept variable (``"n"``, ``"epsilon"``, ...).
    exponent : float
        The claimed exponent r₀ of the error in ``variable``.
    tolerance : float, default 0.1
        Half-width of the band ``[r0 - tolerance, r0 + tolerance]`` the fitted exponent must lie in.
    summary : str, default "median"
        The statistic of the error across replications the theorem speaks of (``"median"``, ``"mean"``, or
        ``"q0.9"`` for a quantile).
    regime : str, default ""
        The regime in which the rate is claimed, in words.
    provenance : Provenance, optional
        Where the claim comes from (paper, location, equation, notes).
    """

    variable: str
    exponent: float
    tolerance: float = 0.1
    summary: str = "median"
    regime: str = ""
    provenance: Provenance = field(default_factory=Provenance)
    kind: str = field(default="rate", init=False)

    def __post_init__(self):
        if not isinstance(self.variable, str) or not self.variable:
            raise ValueError("variable must be a non-empty string")
        if not math.isfinite(self.exponent):
            raise ValueError(f"exponent must be finite, got {self.exponent!r}")
        check_positive("tolerance", self.tolerance)
        object.__setattr__(self, "provenance", _prov(self.provenance))


@dataclass(frozen=True)
class TailBoundClaim:
    """P[error > bound] ≤ ``beta``, where the bound is given by an expression (text) evaluated by the check.

    Parameters
    ----------
    beta : float
        The claimed failure probability, in (0, 1).
    bound : str, default ""
        The bound as an expression, in words or symbols.
    provenance : Provenance, optional
        Where the claim comes from (paper, location, equation, notes).
    """

    beta: float
    bound: str = ""
    provenance: Provenance = field(default_factory=Provenance)
    kind: str = field(default="tail_bound", init=False)

    def __post_init__(self):
        check_prob("beta", self.beta)
        object.__setattr__(self, "provenance", _prov(self.provenance))


@dataclass(frozen=True)
class LowerBoundClaim:
    """A minimax lower bound: no (private) estimator has worst-case risk below ``value`` on the instance.

    Parameters
    ----------
    value : float
        The value of the bound.
    risk : str, default "squared error"
        The risk the bound is stated for.
    assumption : str, default ""
        The assumption on the data (moments, geometry), in words.
    provenance : Provenance, optional
        Where the claim comes from (paper, location, equation, notes).
    """

    value: float
    risk: str = "squared error"
    assumption: str = ""
    provenance: Provenance = field(default_factory=Provenance)
    kind: str = field(default="lower_bound", init=False)

    def __post_init__(self):
        check_positive("value", self.value, allow_zero=True)
        object.__setattr__(self, "provenance", _prov(self.provenance))


_KINDS = {"privacy": PrivacyClaim, "rate": RateClaim, "tail_bound": TailBoundClaim, "lower_bound": LowerBoundClaim}


def claim_to_dict(claim) -> dict[str, Any]:
    return asdict(claim)


def claim_from_dict(d: dict[str, Any]) -> Any:
    """Inverse of ``dataclasses.asdict`` for the four claim types.

    Parameters
    ----------
    d : dict
        A dict with a ``"kind"`` key (``"privacy"``, ``"rate"``, ``"tail_bound"`` or ``"lower_bound"``), as
        written to ``results.json``; ``ValueError`` otherwise.

    Returns
    -------
    PrivacyClaim, RateClaim, TailBoundClaim or LowerBoundClaim
        The claim.
    """
    if not isinstance(d, dict) or d.get("kind") not in _KINDS:
        raise ValueError(f"d must be a dict with 'kind' in {sorted(_KINDS)}, got {d!r}")
    d = dict(d)
    cls = _KINDS[d.pop("kind")]
    return cls(**d)
