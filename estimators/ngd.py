"""Noisy gradient descent with clipped per-example gradients and Gaussian noise (a generic DP-GD).

θ_{t+1} = θ_t − η (G_t + N(0, σ² I)) / n,  G_t = Σ_i clip_C(∇ℓ(θ_t; z_i)),  t = 0, …, T − 1,

with clip_C(g) = g · min(1, C/‖g‖₂). The noisy sum is the Gaussian mechanism with ℓ2 sensitivity Δ = 2C under
replace-one neighbours (one clipped gradient swapped for another) and Δ = C under add/remove; T steps compose to a
single Gaussian with μ = √T Δ/σ (Dong, Roth & Su 2022, Cor. 3.3), and σ is chosen so that this composition is exactly
(ε, δ)-DP by the analytic Gaussian curve (Balle & Wang 2018, Thm 8) — the exact accountant of
:mod:`htdp_verify.privacy.accounting`. This is the calibration of Abadi et al. (2016, "Deep learning with
differential privacy", Alg. 1) without subsampling, with the accountant replaced by the exact one.

The estimator exposes its one-iteration mechanism for step audits (:mod:`htdp_verify.privacy.steps`):
``step_mechanism(θ, t)`` releases the noisy gradient sum at θ (θ_{t+1} is its post-processing) and carries the
per-step claim; ``step_calibration(t)`` states the noise of one step for the accountant.

Data: one finite 2-d array whose rows are records. The built-in loss ``"squared"`` takes
``data = column_stack([X, y])`` (features first, response last) with ℓ = ½(⟨θ, x⟩ − y)²; any other loss is a
callable ``per_example_grad(theta, data) -> (R, n, d)`` for parameters ``theta`` of shape ``(R, d)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from htdp_verify._validate import check_int, check_positive, check_prob, check_rng
from htdp_verify.privacy import Calibration, PrivacyGuarantee, epsilon_of
from htdp_verify.privacy.adapters import Mechanism

from .base import Estimator, as_data, check_choice

__all__ = ["NoisyGD", "squared_loss_grad", "clip_rows", "gaussian_sigma_for"]

_MAX_BLOCK = 4_000_000  # floats of per-example gradients held at once (releases × records × dimension)


def squared_loss_grad(theta: np.ndarray, data: np.ndarray) -> np.ndarray:
    """Per-example gradients of ½(⟨θ, x⟩ − y)² on ``data = column_stack([X, y])``: shape ``(R, n, d)`` for
    ``theta`` of shape ``(R, d)``."""
    X, y = data[:, :-1], data[:, -1]
    r = theta @ X.T - y  # (R, n)
    return r[:, :, None] * X[None, :, :]


def clip_rows(g: np.ndarray, clip: float) -> np.ndarray:
    """Scale every vector along the last axis to ℓ2 norm at most ``clip`` (unchanged when already inside)."""
    norms = np.linalg.norm(g, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(norms > clip, clip / norms, 1.0)
    return g * scale


def gaussian_sigma_for(
    epsilon: float, delta: float, sensitivity: float, steps: int, neighbours: str = "replace"
) -> float:
    """Smallest noise σ for which ``steps`` Gaussian releases of ℓ2 sensitivity ``sensitivity`` compose to exactly
    (ε, δ)-DP (analytic Gaussian curve of the composed μ = √steps · Δ/σ; Balle & Wang 2018, Thm 8)."""
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta)
    sensitivity = check_positive("sensitivity", sensitivity)
    steps = check_int("steps", steps, minimum=1)

    def gap(log_sigma):
        cal = Calibration(
            "gaussian", sensitivity=sensitivity, sigma=math.exp(log_sigma), steps=steps, neighbours=neighbours
        )
        return epsilon_of(cal, delta, accountant="exact") - epsilon

    lo, hi = math.log(sensitivity) - 10.0, math.log(sensitivity) + 10.0 + math.log(steps)
    return math.exp(optimize.brentq(gap, lo, hi, xtol=1e-12))


class NoisyGD(Estimator):
    """Noisy gradient descent, (ε, δ)-DP by exact Gaussian composition (module docstring).

    Parameters
    ----------
    epsilon, delta: the run's target guarantee (ε > 0, δ ∈ (0, 1)).
    n_steps: iterations T ≥ 1.
    clip: per-example gradient ℓ2 bound C > 0.
    step_size: η > 0 (the update divides the noisy sum by n).
    dim: parameter dimension d (θ0 = 0 unless ``theta0`` is given).
    loss: ``"squared"`` or a callable ``per_example_grad(theta (R, d), data) -> (R, n, d)``.
    neighbours: ``"replace"`` (Δ = 2C) or ``"add_remove"`` (Δ = C).
    step_delta: the δ at which each step's claim is stated (default δ/(2T), so that T black-box steps at that δ
        still compose to a finite ε at δ).
    """

    reference = "Abadi et al. 2016, Alg. 1 (no subsampling); Balle & Wang 2018, Thm 8 (exact Gaussian calibration)"
    composition = "sequential"
    step_homogeneous = True  # the step depends on t only through θ

    def __init__(
        self,
        *,
        epsilon: float,
        delta: float,
        n_steps: int,
        clip: float,
        step_size: float,
        dim: int,
        loss="squared",
        theta0=None,
        neighbours: str = "replace",
        step_delta: float | None = None,
    ):
        self.epsilon = check_positive("epsilon", epsilon)
        self.delta = check_prob("delta", delta)
        self.n_steps = check_int("n_steps", n_steps, minimum=1)
        self.clip = check_positive("clip", clip)
        self.step_size = check_positive("step_size", step_size)
        self.dim = check_int("dim", dim, minimum=1)
        self.neighbours = check_choice("neighbours", neighbours, ("replace", "add_remove"))
        if loss == "squared":
            self._grad = squared_loss_grad
        elif callable(loss):
            self._grad = loss
        else:
            raise ValueError(f"loss must be 'squared' or a callable per_example_grad(theta, data), got {loss!r}")
        self.loss = loss if isinstance(loss, str) else getattr(loss, "__name__", "custom")
        t0 = np.zeros(self.dim) if theta0 is None else np.asarray(theta0, dtype=float)
        if t0.shape != (self.dim,) or not np.all(np.isfinite(t0)):
            raise ValueError(f"theta0 must be a finite vector of shape ({self.dim},), got shape {t0.shape}")
        self._theta0 = t0
        self.step_delta = (
            self.delta / (2 * self.n_steps) if step_delta is None else check_prob("step_delta", step_delta)
        )
        self.sensitivity = (2.0 if self.neighbours == "replace" else 1.0) * self.clip
        self.sigma = gaussian_sigma_for(self.epsilon, self.delta, self.sensitivity, self.n_steps, self.neighbours)
        self.privacy = PrivacyGuarantee(self.epsilon, self.delta, self.neighbours)

    # ---- the noise actually drawn (a subclass that under-noises breaks the claim; tests use that as a control)
    def _noise_std(self) -> float:
        return self.sigma

    def _check(self, data) -> np.ndarray:
        arr = as_data(data, ndim=(2,))
        if self._grad is squared_loss_grad and arr.shape[1] != self.dim + 1:
            raise ValueError(f"data must have dim + 1 = {self.dim + 1} columns (X then y), got {arr.shape[1]}")
        return arr

    def _clipped_sum(self, theta: np.ndarray, data: np.ndarray) -> np.ndarray:
        g = np.asarray(self._grad(theta, data), dtype=float)
        if g.shape != (theta.shape[0], data.shape[0], self.dim):
            raise ValueError(
                f"per_example_grad must return shape (R, n, d) = {(theta.shape[0], data.shape[0], self.dim)}, "
                f"got {g.shape}"
            )
        return clip_rows(g, self.clip).sum(axis=1)

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng=rng)[0]

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent runs at once (θ of shape ``(size, d)`` updated together); returns θ_T, ``(size, d)``."""
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        data = self._check(data)
        n = data.shape[0]
        block = max(1, _MAX_BLOCK // (n * self.dim))
        out = np.empty((size, self.dim))
        sd = self._noise_std()
        for s in range(0, size, block):
            m = min(block, size - s)
            theta = np.broadcast_to(self._theta0, (m, self.dim)).copy()
            for _ in range(self.n_steps):
                noisy = self._clipped_sum(theta, data) + rng.normal(0.0, sd, size=(m, self.dim))
                theta -= self.step_size * noisy / n
            out[s : s + m] = theta
        return out

    # ---- step audits
    def step_calibration(self, t: int) -> Calibration:
        """The stated noise of step ``t`` (every step is the same Gaussian release)."""
        check_int("t", t, minimum=0)
        return Calibration(
            "gaussian",
            sensitivity=self.sensitivity,
            sigma=self.sigma,
            steps=1,
            neighbours=self.neighbours,
            label="NoisyGD step",
        )

    def step_guarantee(self, t: int) -> PrivacyGuarantee:
        """Step ``t``'s claim: the exact ε of one Gaussian release at ``step_delta``."""
        eps = epsilon_of(self.step_calibration(t), self.step_delta, accountant="exact")
        return PrivacyGuarantee(eps, self.step_delta, self.neighbours)

    def step_mechanism(self, state, t: int) -> Mechanism:
        """Iteration ``t`` at θ = ``state`` as a mechanism of the data: releases the noisy clipped-gradient sum
        (``(size, d)``), vectorised over releases; its guarantee is :meth:`step_guarantee`."""
        t = check_int("t", t, minimum=0)
        if t >= self.n_steps:
            raise ValueError(f"t must lie in [0, {self.n_steps - 1}], got {t}")
        theta = np.asarray(state, dtype=float)
        if theta.shape != (self.dim,) or not np.all(np.isfinite(theta)):
            raise ValueError(f"state must be a finite vector of shape ({self.dim},), got shape {theta.shape}")

        def fn(data, size, rng):
            arr = self._check(data)
            g = self._clipped_sum(theta[None, :], arr)[0]
            return g + rng.normal(0.0, self._noise_std(), size=(size, self.dim))

        return Mechanism(fn, name=f"NoisyGD.step[t={t}]", guarantee=self.step_guarantee(t), vectorised=True)
