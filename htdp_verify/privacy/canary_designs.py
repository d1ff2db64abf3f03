"""Canary designs for one-run audits: :class:`CanaryDesign` and the mean / regression / clustering designs.

A design fixes m canary records in advance (with the out-records that fill an excluded canary's slot under
``"replace"`` neighbours), their directions, and the score that reads each canary off a release (the projection of
the estimate on the canary's direction).  Used by :func:`~htdp_verify.privacy.canary.audit_one_run` (Steinke,
Nasr & Jagielski 2023, Privacy auditing with one (1) training run); the game is described in
:mod:`htdp_verify.privacy.canary`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import check_int, check_positive, check_rng

__all__ = ["CanaryDesign", "mean_canaries", "regression_canaries", "cluster_canaries"]


# ------------------------------------------------------------------------------------------------------
# canary designs
# ------------------------------------------------------------------------------------------------------


@dataclass
class CanaryDesign:
    """m canary records with their directions and the score that reads them off a release.

    Parameters
    ----------
    records
        ``(m, p)`` rows inserted when a canary is included.
    out_records
        ``(m, p)`` rows that fill an excluded canary's slot under ``"replace"`` neighbours.
    directions
        ``(m, q)`` unit vectors in the coordinates of the release part scored.
    kind
        ``"projection"`` (score = ⟨release[sl] − offset, u_i⟩) or ``"max_projection"`` (release[sl] reshaped to
        ``(k, q)`` centres; score = max_j ⟨c_j − offset, u_i⟩).
    release_slice
        ``(start, stop)`` of the flattened release that holds the estimate (None: all of it).
    offset
        ``(q,)`` subtracted before projecting (the domain centre).
    description, domain
        for reports.
    """

    records: np.ndarray
    out_records: np.ndarray
    directions: np.ndarray
    kind: str = "projection"
    release_slice: tuple | None = None
    offset: np.ndarray | None = None
    description: str = ""
    domain: dict = field(default_factory=dict)

    def __post_init__(self):
        self.records = np.asarray(self.records, dtype=float)
        self.out_records = np.asarray(self.out_records, dtype=float)
        self.directions = np.asarray(self.directions, dtype=float)
        if self.records.ndim != 2 or self.out_records.shape != self.records.shape:
            raise ValueError(
                f"records and out_records must be (m, p) arrays of one shape, got "
                f"{self.records.shape} and {self.out_records.shape}"
            )
        if self.directions.ndim != 2 or self.directions.shape[0] != self.records.shape[0]:
            raise ValueError(f"directions must be (m, q) with m = {self.records.shape[0]}, got {self.directions.shape}")
        if self.kind not in ("projection", "max_projection"):
            raise ValueError(f"kind must be 'projection' or 'max_projection', got {self.kind!r}")
        if self.offset is not None:
            self.offset = np.asarray(self.offset, dtype=float).reshape(-1)

    @property
    def m(self) -> int:
        return int(self.records.shape[0])

    def dataset(self, data: np.ndarray, include: np.ndarray, neighbours: str) -> np.ndarray:
        """``data`` plus the included canaries (add_remove), or plus one record per slot (replace).

        Parameters
        ----------
        data : numpy.ndarray
            The records the canaries are added to.
        include : numpy.ndarray
            Boolean inclusion of each canary.
        neighbours : str
            ``"add_remove"`` or ``"replace"``.

        Returns
        -------
        numpy.ndarray
            The dataset of the run.
        """
        include = np.asarray(include, dtype=bool)
        slots = (
            self.records[include]
            if neighbours == "add_remove"
            else np.where(include[:, None], self.records, self.out_records)
        )
        if data.shape[0] == 0:
            return slots.copy()
        return np.concatenate([data, slots], axis=0)

    def scores(self, release: str) -> np.ndarray:
        """``(m,)`` scores of the canaries on one release (larger = more likely included).

        Parameters
        ----------
        release : numpy.ndarray
            One release.

        Returns
        -------
        numpy.ndarray
            ``(m,)`` scores.
        """
        y = np.asarray(release, dtype=float).reshape(-1)
        if self.release_slice is not None:
            y = y[self.release_slice[0] : self.release_slice[1]]
        q = self.directions.shape[1]
        if self.kind == "projection":
            if y.size != q:
                raise ValueError(f"the scored release part has {y.size} entries, the directions {q}; set release_slice")
            if self.offset is not None:
                y = y - self.offset
            return self.directions @ y
        if y.size % q:
            raise ValueError(f"the scored release part ({y.size} entries) is not a whole number of {q}-dim centres")
        C = y.reshape(-1, q)
        if self.offset is not None:
            C = C - self.offset
        return np.max(self.directions @ C.T, axis=1)

    def to_dict(self) -> dict:
        return {
            "m": self.m,
            "kind": self.kind,
            "release_slice": self.release_slice,
            "description": self.description,
            "domain": self.domain,
        }


def _vec(name, x, d):
    a = np.broadcast_to(np.asarray(x, dtype=float), (d,)).copy()
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return a


def _extreme_points(m, d, *, lower, upper, radius, norm, centre, rng):
    """Extreme points of the declared domain along random directions: (points, unit directions, centre, text)."""
    m = check_int("m", m, minimum=1)
    d = check_int("d", d, minimum=1)
    check_rng(rng)
    box = lower is not None or upper is not None
    if box == (radius is not None):
        raise ValueError("give either lower and upper bounds (a box) or a radius (a ball), not both or neither")
    if box:
        if lower is None or upper is None:
            raise ValueError("a box domain needs both lower and upper")
        lo, hi = _vec("lower", lower, d), _vec("upper", upper, d)
        if np.any(hi <= lo):
            raise ValueError("upper must exceed lower in every coordinate")
        mid, half = (lo + hi) / 2.0, (hi - lo) / 2.0
        signs = rng.choice([-1.0, 1.0], size=(m, d))  # random corners: the extreme records of a box
        offsets = signs * half
        dirs = offsets / np.linalg.norm(offsets, axis=1, keepdims=True)
        return (
            mid + offsets,
            dirs,
            mid,
            f"random corners of the box [lower, upper]^{d}",
            {"lower": lo.tolist(), "upper": hi.tolist()},
        )
    R = check_positive("radius", radius)
    c = np.zeros(d) if centre is None else _vec("centre", centre, d)
    if norm == 2:
        if m <= d:  # orthonormal random directions: no cross-talk between canaries
            Q, _ = np.linalg.qr(rng.standard_normal((d, m)))
            dirs = Q.T.copy()
            how = "orthonormal random directions"
        else:
            g = rng.standard_normal((m, d))
            dirs = g / np.linalg.norm(g, axis=1, keepdims=True)
            how = "random unit directions (m > d: they cannot be orthogonal)"
    elif norm == 1:  # the extreme points of an l1 ball are the signed axes
        axes = rng.choice(d, size=m, replace=m > d)
        dirs = np.zeros((m, d))
        dirs[np.arange(m), axes] = rng.choice([-1.0, 1.0], size=m)
        how = "random signed coordinate axes" + (" (repeated: m > d)" if m > d else " (distinct)")
    else:
        raise ValueError(f"norm must be 1 or 2 for a radius domain, got {norm!r}")
    return (
        c + R * dirs,
        dirs,
        c,
        f"{how} at l{norm} radius {R:g} around the centre",
        {"radius": R, "norm": norm, "centre": c.tolist()},
    )


def mean_canaries(
    m: int,
    d: int,
    *,
    rng: np.random.Generator,
    lower: float | None = None,
    upper: float | None = None,
    radius: float | None = None,
    norm: int = 2,
    centre: Any = None,
    release_slice: Any = None,
) -> CanaryDesign:
    """Canaries for an estimator of a d-dimensional mean (or sum): extreme records of the declared domain.

    Domain: a box ``[lower, upper]`` (canaries at random corners) or a ball of ``radius`` in the l2 norm
    (orthonormal random directions when m ≤ d) or the l1 norm (signed coordinate axes).  Each canary's out-record
    (replace neighbours) is its mirror image through the centre.  Score: ⟨estimate − centre, u_i⟩.

    Parameters
    ----------
    m : int
        Number of canaries.
    d : int
        Dimension of a record.
    rng : numpy.random.Generator
        Generator of the canaries' corners or directions.
    lower, upper : float or array_like, optional
        The box domain (give these, or ``radius``).
    radius : float, optional
        The ball domain's radius.
    norm : int, default 2
        Norm of the ball: 2 or 1.
    centre : array_like, optional
        Centre of the domain (default: the box's centre, or 0 for a ball).
    release_slice : tuple, optional
        ``(start, stop)`` of the flattened release that holds the estimate (default: all of it).

    Returns
    -------
    CanaryDesign
        The canary records, their out-records and score directions.
    """
    pts, dirs, c, how, dom = _extreme_points(
        m, d, lower=lower, upper=upper, radius=radius, norm=norm, centre=centre, rng=rng
    )
    return CanaryDesign(
        pts,
        2.0 * c - pts,
        dirs,
        "projection",
        release_slice,
        c,
        f"mean canaries: {how}; out-record = mirror image",
        dom,
    )


def regression_canaries(
    m: int,
    d: int,
    *,
    rng: np.random.Generator,
    y_bounds: Any,
    lower: float | None = None,
    upper: float | None = None,
    radius: float | None = None,
    norm: int = 2,
    centre: Any = None,
    release_slice: tuple[Any, ...] = (0, None),
) -> CanaryDesign:
    """Canaries for an estimator of a regression vector β ∈ R^d (data rows ``[x, y]``, label last).

    Included record: x_i = an extreme point of the x-domain along u_i (as in :func:`mean_canaries`) with the
    largest label y_hi; out-record: the same x_i with the smallest label y_lo.  For a model whose coefficients
    follow Xᵀy (least squares through the origin, y-domain centred near 0) including the canary pulls β̂ along u_i.
    Score: ⟨β̂, u_i⟩ with β̂ = ``release[release_slice]`` (default the first d entries).

    Parameters
    ----------
    m : int
        Number of canaries.
    d : int
        Dimension of a record's covariates.
    rng : numpy.random.Generator
        Generator of the canaries' directions or corners.
    y_bounds : tuple
        ``(y_lo, y_hi)``, the label domain.
    lower, upper : float or array_like, optional
        The box domain (give these, or ``radius``).
    radius : float, optional
        The ball domain's radius.
    norm : int, default 2
        Norm of the ball: 2 or 1.
    centre : array_like, optional
        Centre of the domain.
    release_slice : tuple, default (0, None)
        ``(start, stop)`` of the flattened release that holds β̂.

    Returns
    -------
    CanaryDesign
        The canary records, their out-records and score directions.
    """
    yb = np.asarray(y_bounds, dtype=float).ravel()
    if yb.shape != (2,) or not np.all(np.isfinite(yb)) or yb[1] <= yb[0]:
        raise ValueError(f"y_bounds must be (y_lo, y_hi) with y_lo < y_hi, got {y_bounds!r}")
    pts, dirs, c, how, dom = _extreme_points(
        m, d, lower=lower, upper=upper, radius=radius, norm=norm, centre=centre, rng=rng
    )
    rin = np.column_stack([pts, np.full(m, yb[1])])
    rout = np.column_stack([pts, np.full(m, yb[0])])
    sl = (release_slice[0], d if release_slice[1] is None else release_slice[1])
    return CanaryDesign(
        rin,
        rout,
        dirs,
        "projection",
        sl,
        None,
        f"regression canaries: x at {how}, label y_hi (out-record: label y_lo)",
        {**dom, "y_bounds": yb.tolist()},
    )


def cluster_canaries(
    m: int,
    d: int,
    *,
    rng: np.random.Generator,
    lower: float | None = None,
    upper: float | None = None,
    radius: float | None = None,
    norm: int = 2,
    centre: Any = None,
    release_slice: Any = None,
) -> CanaryDesign:
    """Canaries for an estimator of cluster centres (release: k centres of dimension d, flattened).

    Records as in :func:`mean_canaries` (extreme points along random directions; out-record the mirror image).
    Score: max over centres of ⟨c_j − centre, u_i⟩: an included extreme record drags its nearest centre outwards.

    Parameters
    ----------
    m : int
        Number of canaries.
    d : int
        Dimension of a record's covariates.
    rng : numpy.random.Generator
        Generator of the canaries' directions or corners.
    lower, upper : float or array_like, optional
        The box domain (give these, or ``radius``).
    radius : float, optional
        The ball domain's radius.
    norm : int, default 2
        Norm of the ball: 2 or 1.
    centre : array_like, optional
        Centre of the domain.
    release_slice : tuple, optional
        ``(start, stop)`` of the flattened release that holds the centres.

    Returns
    -------
    CanaryDesign
        The canary records, their out-records and score directions.
    """
    pts, dirs, c, how, dom = _extreme_points(
        m, d, lower=lower, upper=upper, radius=radius, norm=norm, centre=centre, rng=rng
    )
    return CanaryDesign(
        pts,
        2.0 * c - pts,
        dirs,
        "max_projection",
        release_slice,
        c,
        f"cluster canaries: {how}; out-record = mirror image; score = max over centres",
        dom,
    )
