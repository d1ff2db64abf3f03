"""Minimax lower-bound constructions as executable hard instances.

A :class:`HardInstance` is a finite family of data laws P_1..P_M with known parameters θ_v, a sampler, the
statistical distance between members, and -- for private bounds -- a *coupling* between each member's n-sample law
and a reference law together with the law of the Hamming distance H of the coupled datasets.  From these it
computes the value of the lower bound with every constant explicit.

The private bounds are derived here (short proofs in the docstrings) from group privacy along a coupling, in the
spirit of Acharya, Sun & Zhang (ALT 2021, "Differentially private Assouad, Fano, and Le Cam") and Barber & Duchi
(2014).  We use the exact moment-generating function of H instead of Markov's inequality, which gives tighter
constants than the published "0.9·e^{-10εD}" forms while remaining valid:

* **private two-point (Le Cam)**: for any (ε, δ)-DP test ψ between P_0^n and P_1^n and a coupling with Hamming
  distance H, ``P_0(ψ=1) + P_1(ψ=0) ≥ E[e^{-εH}] - δ·e^{-ε}·E[H]``.
  *Proof.* With q(x) = P[ψ(x) = 1], group privacy gives q(x) ≥ e^{-εh} q(y) - h e^{-ε} δ for datasets at
  Hamming distance h.  Hence P_0(ψ=1) = E q(X) ≥ E[e^{-εH} q(Y)] - δ e^{-ε} E H and
  P_0(ψ=1) + P_1(ψ=0) ≥ 1 - E[(1 - e^{-εH}) q(Y)] - δ e^{-ε} E H ≥ E[e^{-εH}] - δ e^{-ε} E H.  ∎
* **private multi-point (Fano-type)**: if every member's n-sample law is coupled with one *fixed* dataset x_0
  with Hamming distance H_v, then for any (ε, δ)-DP estimator and ψ = the nearest member,
  ``avg_v P_v(ψ ≠ v) ≥ 1 - (E[e^{εH}] + M δ E[H e^{ε(H-1)}]) / M``.
  *Proof.* P_v(ψ = v) = E q_v(X_v) ≤ E[e^{εH}] q_v(x_0) + δ E[H e^{ε(H-1)}]; sum over v and use
  Σ_v q_v(x_0) ≤ 1.  ∎
* non-private two-point: ``P_0(ψ=1) + P_1(ψ=0) ≥ 1 - TV(P_0^n, P_1^n)``; Assouad over a hypercube.

An estimator's risk relates to the test through the separation: if members are 2r apart in the loss's metric,
the nearest-member test errs only when the error is ≥ r.  So each bound is also a bound on a *probability*,
``avg_v P_v(error ≥ r) ≥ L_prob``, which :func:`cannot_beat` tests exactly with binomial counts.

Assumptions are carried as :class:`MomentAssumption` metadata; comparing bounds proved under different
assumptions raises ``ValueError`` (:func:`require_same_assumption`).

Layout (everything is re-exported here, import from :mod:`htdp_verify.lowerbounds`):

* :mod:`.coupling` -- the private two-point / multi-point / reference-Fano test-error bounds derived above;
* :mod:`.instance` -- :class:`MomentAssumption`, :class:`BoundValue`, :class:`HardInstance`;
* :mod:`.mean` -- 1-d and d-dimensional mean-estimation instances;
* :mod:`.regression` -- sparse linear regression and DP-SCO instances;
* :mod:`.checks` -- :func:`cannot_beat`, :func:`optimality_ratio`.
"""

from __future__ import annotations

from .checks import cannot_beat, optimality_ratio
from .coupling import private_fano_reference_error, private_multipoint_error, private_two_point_error
from .instance import (  # noqa: F401 - provenance constants re-exported for the audits
    PROV_ASZ,
    PROV_KSU,
    BoundValue,
    HardInstance,
    MomentAssumption,
    require_same_assumption,
)
from .mean import mean_1d_gaussian, mean_1d_lower_bound, mean_1d_spike, mean_coordinate_spike, mean_packing_spike
from .regression import (  # noqa: F401 - _maximal_coupling_prob re-exported for tests
    _maximal_coupling_prob,
    sco_linear_packing,
    sparse_regression_packing,
)

__all__ = [
    "MomentAssumption",
    "HardInstance",
    "BoundValue",
    "require_same_assumption",
    "private_two_point_error",
    "private_multipoint_error",
    "mean_1d_spike",
    "mean_1d_gaussian",
    "mean_1d_lower_bound",
    "mean_packing_spike",
    "mean_coordinate_spike",
    "cannot_beat",
    "optimality_ratio",
    "private_fano_reference_error",
    "sparse_regression_packing",
    "sco_linear_packing",
]
