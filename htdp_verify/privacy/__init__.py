"""The empirical privacy auditor (see ``audit``) and privacy-guarantee types.

* adapters: ``Mechanism``, ``from_estimator``, ``from_scalar_function``, ``from_seeded_callable``, ``from_diffprivlib``
* neighbours: ``Pair``, relations, StatDP / dataset pattern libraries; search: ``search_pairs`` (held-out, cross-fitted)
* attacks: event families (thresholds, intervals, outcome sets, projections, classifiers, bit patterns, LR)
* bounds: pure ε, (ε, δ) profile, GDP μ lower bounds
* ``audit(mechanism, claim, *, pairs|neighbours, n_samples, alpha, attacks, rng) -> AuditResult``
* accounting: exact ε(δ) of a stated calibration (``Calibration``, ``epsilon_of``, ``delta_of``,
  ``check_calibration``; closed forms, dp-accounting PLD / RDP); tight zCDP conversion ``zcdp_epsilon``
* exact: tight ε(δ) of peeling (iterated report-noisy-max with Laplace noise) on a pair of score vectors
* steps: step audits of iterative estimators (``audit_steps``, ``SteppedEstimator``) composed with the accountant
* libraries: OpenDP measurements and python-dp algorithms as mechanisms (``from_opendp``, ``from_pydp``;
  optional extras)
* canary: one-run canary auditing (``audit_one_run``, canary designs, ``epsilon_lower_bound_one_run``)
"""

from .accounting import Accounting, Calibration, account, check_calibration, delta_of, epsilon_of
from .adapters import (
    Mechanism,
    as_mechanism,
    from_diffprivlib,
    from_estimator,
    from_scalar_function,
    from_seeded_callable,
)
from .audit import AuditResult, audit
from .bounds import PrivacyProfile, gaussian_profile_delta, gdp_delta, gdp_epsilon, gdp_mu_lb
from .canary import (
    CanaryDesign,
    audit_one_run,
    cluster_canaries,
    epsilon_lower_bound_one_run,
    mean_canaries,
    one_run_p_value,
    regression_canaries,
)
from .exact import peeling_delta, peeling_epsilon, peeling_profile
from .guarantee import PrivacyGuarantee, bun_steinke_epsilon, zcdp_delta, zcdp_epsilon, zcdp_to_approx_dp
from .independence import check_independent_releases
from .libraries import from_opendp, from_pydp, opendp_guarantee, pydp_guarantee
from .neighbours import (
    Pair,
    add_one,
    check_neighbours,
    dataset_patterns,
    remove_one,
    replace_one,
    scalar_pairs,
    statdp_patterns,
    vector_pairs,
)
from .search import SearchResult, search_pairs
from .steps import StepAuditResult, SteppedEstimator, audit_steps, binary_composition_epsilon

__all__ = [
    "PrivacyGuarantee",
    "zcdp_to_approx_dp",
    "zcdp_epsilon",
    "zcdp_delta",
    "bun_steinke_epsilon",
    "Calibration",
    "Accounting",
    "account",
    "epsilon_of",
    "delta_of",
    "check_calibration",
    "Mechanism",
    "as_mechanism",
    "from_estimator",
    "from_scalar_function",
    "from_seeded_callable",
    "from_diffprivlib",
    "Pair",
    "add_one",
    "remove_one",
    "replace_one",
    "check_neighbours",
    "scalar_pairs",
    "vector_pairs",
    "statdp_patterns",
    "dataset_patterns",
    "search_pairs",
    "SearchResult",
    "check_independent_releases",
    "PrivacyProfile",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu_lb",
    "gaussian_profile_delta",
    "peeling_epsilon",
    "peeling_delta",
    "peeling_profile",
    "AuditResult",
    "audit",
    "CanaryDesign",
    "audit_one_run",
    "mean_canaries",
    "regression_canaries",
    "cluster_canaries",
    "one_run_p_value",
    "epsilon_lower_bound_one_run",
    "SteppedEstimator",
    "StepAuditResult",
    "audit_steps",
    "binary_composition_epsilon",
    "from_opendp",
    "from_pydp",
    "opendp_guarantee",
    "pydp_guarantee",
]
