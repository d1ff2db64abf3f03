"""Family-wise error control over a fixed family of claim tests (Bonferroni).

A suite that tests several claims of one paper, each at α = 0.05 on its own, reports a false "violated" with
probability up to 1 − 0.95^k over k exactly tight claims: a run of twenty checks of tight mechanisms is more likely
than not to flag one of them by chance.  A :class:`Family` fixes the set of claim tests that share one family-wise
α and gives each its Bonferroni share, α / (number of claim tests in the family at the run's profile), so that the
chance of at least one false "violated" over the whole family is at most α (Bonferroni's inequality holds for any
dependence between the tests).

The family is **static**: its members are listed in a table (the check's registered name and how many claim tests
it runs at each profile), never derived from the checks a user selected, so a check gives the same verdict
whether it runs alone (``htdp-verify run NAME``) or inside a full run.  Checks that are not claim tests (controls
and canaries built to produce a known verdict, descriptive or deterministic checks) are listed as ``excluded`` with
the reason: they keep their own α and are not counted.

The engine knows no paper: the families themselves are tables in the audit packages.

Reference: Bonferroni's inequality, P(∪ A_i) ≤ Σ P(A_i); e.g. Lehmann & Romano, *Testing Statistical Hypotheses*
(3rd ed., 2005), §9.1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FAMILY_ALPHA", "Family", "bonferroni_alpha", "register_family", "families", "family_of"]

#: default family-wise error probability of a family of claim tests
FAMILY_ALPHA = 0.05


def bonferroni_alpha(alpha: float, size: int) -> float:
    """The per-test level of a Bonferroni split: ``alpha / size``.

    Parameters
    ----------
    alpha : float
        Family-wise error probability, in (0, 1).
    size : int
        Number of tests in the family, at least 1.

    Returns
    -------
    float
        ``alpha / size``.
    """
    if not (isinstance(alpha, (int, float)) and 0.0 < float(alpha) < 1.0):
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be an integer >= 1, got {size!r}")
    return float(alpha) / size


def _count(member: str, spec: Any, profile: str) -> int:
    if isinstance(spec, Mapping):
        if profile not in spec:
            raise ValueError(f"profile must be one of {sorted(spec)} for family member {member!r}, got {profile!r}")
        spec = spec[profile]
    if isinstance(spec, bool) or not isinstance(spec, int) or spec < 0:
        raise ValueError(f"the number of claim tests of {member!r} must be an integer >= 0, got {spec!r}")
    return spec


@dataclass(frozen=True)
class Family:
    """A fixed family of claim tests sharing the family-wise error probability ``alpha`` (Bonferroni).

    Parameters
    ----------
    name : str
        The family's name (e.g. ``"hu2022.privacy"``), recorded in every member's result.
    members : mapping
        ``{check name: number of claim tests it runs}``; the number is an ``int`` or a mapping
        ``{profile: int}`` when it depends on the profile (a check that returns one result per grid value).
    alpha : float, default :data:`FAMILY_ALPHA`
        Family-wise error probability, in (0, 1).
    excluded : mapping, optional
        ``{check name: reason}`` of checks of the same suite that are not claim tests (controls, canaries,
        deterministic checks): they keep their own α and are not counted.

    Examples
    --------
    >>> fam = Family("demo.privacy", {"demo.privacy.a": 1, "demo.privacy.b": {"quick": 1, "full": 3}})
    >>> fam.size("full"), round(fam.alpha_for("demo.privacy.a", "full"), 4)
    (4, 0.0125)
    """

    name: str
    members: Mapping[str, Any]
    alpha: float = FAMILY_ALPHA
    excluded: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        if not (isinstance(self.alpha, (int, float)) and 0.0 < float(self.alpha) < 1.0):
            raise ValueError(f"alpha must be a number in (0, 1), got {self.alpha!r}")
        if not isinstance(self.members, Mapping) or not self.members:
            raise ValueError("members must be a non-empty mapping {check name: number of claim tests}")
        both = sorted(set(self.members) & set(self.excluded))
        if both:
            raise ValueError(f"excluded must not name members of the family, got {both}")
        for m, spec in self.members.items():  # validate every count once
            for p in spec if isinstance(spec, Mapping) else [None]:
                _count(m, spec, p)

    def profiles(self) -> list[str] | None:
        """The profiles every profile-dependent member defines.

        Returns
        -------
        list of str or None
            Sorted profile names; ``None`` when no count depends on the profile.
        """
        sets = [set(s) for s in self.members.values() if isinstance(s, Mapping)]
        return sorted(set.intersection(*sets)) if sets else None

    def count(self, member: str, profile: str) -> int:
        """Number of claim tests ``member`` runs at ``profile``.

        Parameters
        ----------
        member : str
            A check name of the family.
        profile : str
            The run's profile.

        Returns
        -------
        int
            The count.
        """
        if member not in self.members:
            if member in self.excluded:
                raise ValueError(
                    f"member {member!r} is excluded from family {self.name!r} ({self.excluded[member]}): "
                    "it keeps its own alpha"
                )
            raise ValueError(f"member must be one of {sorted(self.members)} (family {self.name!r}), got {member!r}")
        return _count(member, self.members[member], profile)

    def size(self, profile: str) -> int:
        """Number of claim tests of the whole family at ``profile`` (at least 1).

        Parameters
        ----------
        profile : str
            The run's profile.

        Returns
        -------
        int
            The family size.
        """
        n = sum(_count(m, s, profile) for m, s in self.members.items())
        if n < 1:
            raise ValueError(f"family {self.name!r} has no claim test at profile {profile!r}")
        return n

    def alpha_for(self, member: str, profile: str) -> float:
        """The per-test α of ``member`` at ``profile``: ``alpha / size(profile)``.

        Parameters
        ----------
        member : str
            A check name of the family (``ValueError`` for an excluded or unknown name).
        profile : str
            The run's profile.

        Returns
        -------
        float
            The Bonferroni share.
        """
        if self.count(member, profile) < 1:
            raise ValueError(f"member {member!r} runs no claim test at profile {profile!r}")
        return bonferroni_alpha(self.alpha, self.size(profile))

    def spent(self, profile: str) -> float:
        """Σ over the family's claim tests of their α at ``profile``.

        Parameters
        ----------
        profile : str
            The run's profile.

        Returns
        -------
        float
            The α spent; equals ``alpha`` up to rounding.
        """
        size = self.size(profile)
        return size * bonferroni_alpha(self.alpha, size)

    def annotate(self, result: Any, member: str, profile: str) -> Any:
        """Record the family in ``result.details`` (``family``, ``family_member``, ``alpha_family``, ``family_size``,
        ``alpha_rule``; the per-test α is ``result.alpha``) and add the split to its summary.

        The test must already have been run at :meth:`alpha_for` (a result at another α raises ``ValueError``:
        its interval and verdict would not be those of the family's share).

        Parameters
        ----------
        result : CheckResult
            The member's result (or any object with ``alpha``, ``details`` and ``summary``).
        member : str
            The check name the result belongs to.
        profile : str
            The run's profile.

        Returns
        -------
        CheckResult
            ``result``, annotated in place.
        """
        a = self.alpha_for(member, profile)
        if not math.isclose(float(result.alpha), a, rel_tol=1e-9):
            raise ValueError(
                f"result.alpha must be the family share {a:.6g} of {member!r} (family {self.name!r}), "
                f"got {result.alpha!r}: run the test at Family.alpha_for"
            )
        size = self.size(profile)
        result.details.update(
            {
                "family": self.name,
                "family_member": member,
                "alpha_family": self.alpha,
                "family_size": size,
                "alpha_rule": (
                    f"Bonferroni: family-wise alpha {self.alpha:g} split evenly over the {size} claim tests of "
                    f"{self.name!r} at profile {profile!r} (a fixed table, whatever checks are selected; "
                    "controls and canaries keep their own alpha and are not counted)"
                ),
            }
        )
        result.summary = (
            f"{result.summary} [alpha {a:.3g} = {self.alpha:g}/{size}, Bonferroni share of family {self.name}]"
        )
        return result

    def annotate_excluded(self, result: Any, member: str) -> Any:
        """Record in ``result.details`` that ``member`` (a control or canary of this suite) is not one of the
        family's claim tests and keeps its own α (``excluded_from_family``, ``exclusion_reason``).

        Parameters
        ----------
        result : CheckResult
            The control's result.
        member : str
            Its check name, listed in ``excluded``.

        Returns
        -------
        CheckResult
            ``result``, annotated in place.
        """
        if member not in self.excluded:
            raise ValueError(f"member must be one of the excluded checks {sorted(self.excluded)}, got {member!r}")
        result.details["excluded_from_family"] = self.name
        result.details["exclusion_reason"] = (
            f"{self.excluded[member]}: not a claim test, so it keeps its own alpha {float(result.alpha):.3g} and is "
            f"not counted in the family-wise alpha {self.alpha:g} of {self.name!r}"
        )
        return result

    def to_dict(self, profile: str | None = None) -> dict:
        """The family as a JSON-ready table (with sizes and per-test α at ``profile`` when given).

        Parameters
        ----------
        profile : str, optional
            The run's profile.

        Returns
        -------
        dict
            ``name``, ``alpha``, ``members``, ``excluded`` and, with a profile, ``size`` and ``alpha_per_test``.
        """
        out: dict = {
            "name": self.name,
            "alpha": self.alpha,
            "members": {m: (dict(s) if isinstance(s, Mapping) else s) for m, s in self.members.items()},
            "excluded": dict(self.excluded),
        }
        if profile is not None:
            out["size"] = self.size(profile)
            out["alpha_per_test"] = bonferroni_alpha(self.alpha, out["size"])
        return out


_FAMILIES: dict[str, Family] = {}


def register_family(family: Family) -> Family:
    """Make ``family`` known to :func:`families` and :func:`family_of` (a check belongs to at most one family).

    Parameters
    ----------
    family : Family
        The family; a different family of the same name, or one sharing a member with another, raises.

    Returns
    -------
    Family
        ``family``.
    """
    if not isinstance(family, Family):
        raise ValueError(f"family must be a Family, got {type(family).__name__}")
    old = _FAMILIES.get(family.name)
    if old is not None and old != family:
        raise ValueError(f"a different family named {family.name!r} is already registered")
    for other in _FAMILIES.values():
        if other.name != family.name:
            shared = sorted(set(other.members) & set(family.members))
            if shared:
                raise ValueError(f"checks {shared} are already members of family {other.name!r}")
    _FAMILIES[family.name] = family
    return family


def families() -> list[Family]:
    """Every registered family.

    Returns
    -------
    list of Family
        Sorted by name.
    """
    return [_FAMILIES[k] for k in sorted(_FAMILIES)]


def family_of(check_name: str) -> Family | None:
    """The registered family that has ``check_name`` as a member or lists it as excluded.

    Parameters
    ----------
    check_name : str
        A registered check's name.

    Returns
    -------
    Family or None
        The family; ``None`` when no family names the check.
    """
    for fam in _FAMILIES.values():
        if check_name in fam.members or check_name in fam.excluded:
            return fam
    return None
