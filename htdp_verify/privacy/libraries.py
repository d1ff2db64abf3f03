"""Adapters for DP libraries users audit: OpenDP measurements and Google's python-dp (``pydp``) algorithms.

Both libraries are optional extras (``pip install 'htdp-verify[opendp]'`` / ``'htdp-verify[pydp]'``); importing this
module does not import them.

**Claims.** The claim under test is read from the library itself:

* OpenDP (``opendp``): the measurement's privacy map evaluated at the input distance ``d_in``. The output measure
  decides how the map's value reads (OpenDP's documentation, "Measures"):

  - ``MaxDivergence``: pure ε;
  - ``ZeroConcentratedDivergence``: ρ-zCDP, converted to (ε, δ) at the requested δ with the tight conversion
    :func:`~htdp_verify.privacy.guarantee.zcdp_epsilon` (Canonne, Kamath & Steinke 2020, Prop. 12; the conversion
    OpenDP's own ``make_zCDP_to_approxDP`` uses);
  - ``SmoothedMaxDivergence``: an (ε, δ) curve, read at the requested δ;
  - ``Approximate(MaxDivergence)``: one (ε, δ) pair;
  - ``Approximate(ZeroConcentratedDivergence)``: (ρ, δ0), read as (zcdp_epsilon(ρ, δ − δ0), δ) for δ > δ0.

  The neighbour relation comes from the input metric: ``SymmetricDistance`` / ``InsertDeleteDistance`` at
  ``d_in = 1`` is add/remove one record, and replacing a record is distance 2 under it (so
  ``neighbours="replace"`` reads the map at ``d_in = 2``); ``ChangeOneDistance`` / ``HammingDistance`` at
  ``d_in = 1`` is replace one record (add/remove is not expressible: ``ValueError``). Query-level metrics
  (``AbsoluteDistance``, ``L1Distance``, ``L2Distance`` ...) need ``d_in`` (the query's sensitivity) and the pairs
  must then be query answers at distance ≤ ``d_in`` (relation ``"query"``, e.g. :func:`~.neighbours.scalar_pairs`).
  A domain of known size (``vector_domain(..., size=n)``) has no add/remove neighbours: its default is replace
  (``d_in = 2`` under ``SymmetricDistance``).
* python-dp: the algorithm's ε (and δ) as constructed, under add/remove of one record (Google's library protects
  the contributions of one user; with ``l0_sensitivity = linf_sensitivity = 1`` a user is one record). Under
  replace-one neighbours the claim is the group-privacy bound (2ε, (1 + e^ε)δ) (:func:`pydp_guarantee`).

**Seeding.** Neither library can be seeded: both draw from their own cryptographically secure generator. The
mechanisms returned here therefore carry ``reproducible=False``; ``rng`` is validated but is *not* the source of the
releases, and an audit of them cannot be replayed from its seed (its statistical guarantees are unaffected: they
need independent releases, not a seed).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from .._validate import check_int, check_positive, check_prob
from .adapters import Mechanism, _stack
from .guarantee import PrivacyGuarantee, zcdp_epsilon

__all__ = ["opendp_guarantee", "from_opendp", "pydp_guarantee", "from_pydp"]

_ADD_REMOVE_METRICS = ("SymmetricDistance", "InsertDeleteDistance")
_REPLACE_METRICS = ("ChangeOneDistance", "HammingDistance")


def _metric_name(measurement) -> str:
    return re.split(r"[(<\[]", str(measurement.input_metric), maxsplit=1)[0].strip()


def _measure_name(measurement) -> str:
    return str(measurement.output_measure).replace(" ", "")


def _is_opendp_measurement(obj) -> bool:
    try:
        from opendp.mod import Measurement
    except ImportError:
        return False
    return isinstance(obj, Measurement)


def _sized(measurement) -> bool:
    """Whether the input domain fixes the number of records (``VectorDomain(..., size=n)``)."""
    return bool(re.search(r"size=\d", str(measurement.input_domain)))


def _resolve_distance(metric: str, d_in, neighbours, sized: bool = False):
    """(d_in, neighbours) for ``metric``; see the module docstring."""
    if neighbours is not None and neighbours not in ("replace", "add_remove"):
        raise ValueError(f"neighbours must be 'replace' or 'add_remove', got {neighbours!r}")
    if metric in _ADD_REMOVE_METRICS and sized:  # a known-size domain has no add/remove neighbours
        if neighbours == "add_remove":
            raise ValueError(
                "the measurement's input domain has a fixed size: neighbours must be 'replace', got 'add_remove'"
            )
        neighbours = "replace"
    if metric in _ADD_REMOVE_METRICS:
        neighbours = neighbours or "add_remove"
        default = 1 if neighbours == "add_remove" else 2
    elif metric in _REPLACE_METRICS:
        neighbours = neighbours or "replace"
        if neighbours != "replace":
            raise ValueError(
                f"the input metric {metric} compares datasets of one size: neighbours must be "
                f"'replace', got {neighbours!r}"
            )
        default = 1
    else:  # a query-level metric: d_in is the query's sensitivity, which only the user knows
        if d_in is None:
            raise ValueError(
                f"d_in must be given for the query-level input metric {metric} "
                "(the largest distance between the answers on neighbouring datasets)"
            )
        return d_in, neighbours or "replace"
    return (default if d_in is None else d_in), neighbours


def opendp_guarantee(
    measurement: Any,
    *,
    d_in: Any = None,
    delta: float | None = None,
    neighbours: str | None = None,
) -> PrivacyGuarantee:
    """The guarantee an OpenDP ``measurement`` states at input distance ``d_in`` (module docstring for the rules).

    Parameters
    ----------
    measurement
        an ``opendp.mod.Measurement``.
    d_in
        input distance (default: 1 add/remove or change-one; 2 for replace under ``SymmetricDistance``; required
        for query-level metrics).
    delta
        the δ at which a zCDP ρ or an (ε, δ) curve is read (required for those measures; ignored for pure ε and
        for ``Approximate(MaxDivergence)``, whose δ is the map's).
    neighbours
        ``"replace"`` or ``"add_remove"`` (default: from the input metric).

    Returns
    -------
    PrivacyGuarantee
        The guarantee under the stated relation.
    """
    if not _is_opendp_measurement(measurement):
        raise ValueError(f"measurement must be an opendp Measurement, got {type(measurement).__name__}")
    metric = _metric_name(measurement)
    d_in, neighbours = _resolve_distance(metric, d_in, neighbours, _sized(measurement))
    measure = _measure_name(measurement)
    value = measurement.map(d_in)
    where = f"OpenDP {measure} map at d_in={d_in} ({metric})"
    if measure.startswith("MaxDivergence"):
        return PrivacyGuarantee(float(value), 0.0, neighbours, conversion=where)
    if measure.startswith("ZeroConcentratedDivergence"):
        if delta is None:
            raise ValueError("delta must be given (in (0, 1)) to read a zCDP measurement as (ε, δ)-DP")
        g = PrivacyGuarantee.from_zcdp(float(value), check_prob("delta", delta), neighbours)
        return PrivacyGuarantee(g.epsilon, g.delta, neighbours, rho=float(value), conversion=f"{where}; {g.conversion}")
    if measure.startswith("SmoothedMaxDivergence"):
        if delta is None:
            raise ValueError("delta must be given (in (0, 1)) to read an (ε, δ) curve")
        delta = check_prob("delta", delta)
        return PrivacyGuarantee(float(value.epsilon(delta)), delta, neighbours, conversion=f"{where}, read at δ")
    if measure.startswith("Approximate(MaxDivergence"):
        eps, d0 = value
        return PrivacyGuarantee(float(eps), float(d0), neighbours, conversion=where)
    if measure.startswith("Approximate(ZeroConcentratedDivergence"):
        rho, d0 = (float(v) for v in value)
        if delta is None or not d0 < delta < 1:
            raise ValueError(
                f"delta must be given in ({d0:g}, 1) to read an approximate zCDP measurement "
                f"with δ0={d0:g}, got {delta!r}"
            )
        return PrivacyGuarantee(
            zcdp_epsilon(rho, delta - d0),
            float(delta),
            neighbours,
            rho=rho,
            conversion=f"{where}; ε = zcdp_epsilon(ρ, δ − δ0) (Canonne-Kamath-Steinke 2020)",
        )
    raise ValueError(
        f"unsupported OpenDP output measure {measure!r}; supported: MaxDivergence, "
        "ZeroConcentratedDivergence, SmoothedMaxDivergence, Approximate(MaxDivergence), "
        "Approximate(ZeroConcentratedDivergence)"
    )


def _to_opendp_input(data):
    arr = np.asarray(data)
    return arr.tolist() if arr.ndim else arr.item()


def from_opendp(
    measurement: Any,
    *,
    d_in: Any = None,
    delta: float | None = None,
    neighbours: str | None = None,
    name: str | None = None,
) -> Mechanism:
    """Adapt an OpenDP ``measurement`` to an auditor mechanism whose guarantee is read from its privacy map.

    ``data`` is handed to the measurement as a Python list (an array) or scalar (a 0-d value); one call per
    release. The guarantee is :func:`opendp_guarantee` (``d_in``, ``delta``, ``neighbours`` as there). OpenDP
    samples its noise from its own cryptographically secure generator and cannot be seeded: the mechanism is marked
    ``reproducible=False`` and ``rng`` is not used for the releases.

    Parameters
    ----------
    measurement : opendp.mod.Measurement
        The measurement.
    d_in, delta, neighbours
        As in :func:`opendp_guarantee`.
    name : str, optional
        Name of the mechanism in results.

    Returns
    -------
    Mechanism
        The auditor mechanism ``(data, size, rng) -> (size, ...)``.
    """
    guarantee = opendp_guarantee(measurement, d_in=d_in, delta=delta, neighbours=neighbours)
    label = name or f"opendp[{_measure_name(measurement)}]"

    def fn(data, size, rng):
        arg = _to_opendp_input(data)
        return _stack((np.asarray(measurement(arg), dtype=float) for _ in range(size)), size, label)

    mech = Mechanism(fn, name=label, guarantee=guarantee, vectorised=False, reproducible=False)
    mech.measurement = measurement
    return mech


def pydp_guarantee(epsilon: float, delta: float = 0.0, neighbours: str = "add_remove") -> PrivacyGuarantee:
    """python-dp's guarantee for an algorithm built with ``epsilon``, ``delta`` and one contribution per user.

    Add/remove one record: (ε, δ) as constructed. Replace one record (a removal and an addition): group privacy,
    (2ε, (1 + e^ε) δ) (Dwork & Roth 2014, Thm 2.2 applied twice).

    Parameters
    ----------
    epsilon : float
        The ε the algorithm is built with.
    delta : float, default 0.0
        The δ it is built with.
    neighbours : str, default "add_remove"
        ``"add_remove"`` or ``"replace"``.

    Returns
    -------
    PrivacyGuarantee
        The guarantee.
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta, open_low=False)
    if neighbours == "add_remove":
        return PrivacyGuarantee(epsilon, delta, "add_remove", conversion="python-dp algorithm's ε, δ")
    if neighbours == "replace":
        return PrivacyGuarantee(
            2 * epsilon,
            min(1.0, (1 + math.exp(epsilon)) * delta) if delta else 0.0,
            "replace",
            conversion="python-dp algorithm's ε, δ; replace = remove + add (group privacy)",
        )
    raise ValueError(f"neighbours must be 'replace' or 'add_remove', got {neighbours!r}")


def from_pydp(
    algorithm: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    neighbours: str = "add_remove",
    name: str | None = None,
    **kwargs: Any,
) -> Mechanism:
    """Adapt a python-dp algorithm class (``pydp.algorithms.laplacian.BoundedMean``, ``BoundedSum``, ``Count`` ...)
    to an auditor mechanism.

    Each release builds a fresh ``algorithm(epsilon=..., [delta=...,] **kwargs)`` (an algorithm object spends its
    budget on one result) and returns ``quick_result(list(data))``. ``kwargs`` are the constructor's other
    arguments (``lower_bound``, ``upper_bound``, ``dtype`` ...); ``l0_sensitivity`` / ``linf_sensitivity`` other
    than 1 are refused, because the claim is stated for one record per user. python-dp samples from its own secure
    generator and cannot be seeded: the mechanism is marked ``reproducible=False``.

    Parameters
    ----------
    algorithm : type
        The python-dp algorithm class.
    epsilon : float
        The ε it is built with.
    delta : float, default 0.0
        The δ it is built with.
    neighbours : str, default "add_remove"
        The relation of the claim (see :func:`pydp_guarantee`).
    name : str, optional
        Name of the mechanism in results.
    **kwargs
        The constructor's other arguments.

    Returns
    -------
    Mechanism
        The auditor mechanism ``(data, size, rng) -> (size, ...)``.
    """
    if not (isinstance(algorithm, type) and hasattr(algorithm, "quick_result")):
        raise ValueError(f"algorithm must be a python-dp algorithm class (with quick_result), got {algorithm!r}")
    for k in ("l0_sensitivity", "linf_sensitivity"):
        if k in kwargs and check_int(k, kwargs[k], minimum=1) != 1:
            raise ValueError(f"{k} must be 1 (one record per user), got {kwargs[k]!r}")
    guarantee = pydp_guarantee(epsilon, delta, neighbours)
    ctor = dict(kwargs, epsilon=float(epsilon))
    if delta:
        ctor["delta"] = float(delta)
    algorithm(**ctor)  # fail on bad arguments now, not in the middle of an audit
    label = name or f"pydp.{algorithm.__name__}"

    def fn(data, size, rng):
        rows = np.asarray(data).tolist()
        return _stack((float(algorithm(**ctor).quick_result(rows)) for _ in range(size)), size, label)

    return Mechanism(fn, name=label, guarantee=guarantee, vectorised=False, reproducible=False)
