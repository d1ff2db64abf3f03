"""Adapters turn estimators, release functions and diffprivlib objects into auditor mechanisms.

Equality/shape tests are deterministic (no α).  The two audits at the end are statistical: α = 0.05 each; the
correct diffprivlib Laplace must not be flagged (false alarm ≤ 0.05 for any seed) and a 2× under-noised one must
be (true ε = 2 vs claim 1; with 20 000 releases per side the best event certifies ≈ 1.9, power ≈ 1).
"""

import numpy as np
import pytest
from diffprivlib.accountant import BudgetAccountant
from diffprivlib.mechanisms import Geometric, Laplace

from estimators.base import Estimator
from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy import (
    Mechanism,
    PrivacyGuarantee,
    as_mechanism,
    audit,
    from_diffprivlib,
    from_estimator,
    from_scalar_function,
    from_seeded_callable,
)


class LaplaceMean(Estimator):
    """Clipped mean + Laplace noise; vectorised sample (the auditor's fast path)."""

    def __init__(self, epsilon=1.0, bound=1.0):
        self.epsilon, self.bound = epsilon, bound
        self.privacy = PrivacyGuarantee(epsilon, 0.0, "replace")

    def _stat(self, data):
        x = np.clip(np.asarray(data, float), -self.bound, self.bound)
        return x.mean(), 2 * self.bound / (x.size * self.epsilon)

    def __call__(self, data, *, rng):
        m, b = self._stat(data)
        return np.asarray(m + rng.laplace(0.0, b))

    def sample(self, data, size, *, rng):
        m, b = self._stat(data)
        return m + rng.laplace(0.0, b, size)


def test_from_estimator_uses_sample_and_guarantee():
    est = LaplaceMean()
    mech = from_estimator(est)
    assert isinstance(mech, Mechanism) and mech.guarantee == est.privacy and mech.vectorised
    y = mech(np.zeros(10), 7, np.random.default_rng(0))
    assert y.shape == (7,)
    np.testing.assert_array_equal(y, est.sample(np.zeros(10), 7, rng=np.random.default_rng(0)))
    assert as_mechanism(est).guarantee == est.privacy


def test_estimator_audit_uses_declared_guarantee():
    est = LaplaceMean(epsilon=1.0)
    x = np.linspace(-1, 1, 10)
    r = audit(
        from_estimator(est), None, neighbours={"data": x, "bound": 1.0}, n_samples=20_000, rng=np.random.default_rng(1)
    )
    assert r.claim.epsilon == 1.0 and r.verdict == "consistent"


def test_from_scalar_function_loops_and_reproduces():
    mech = from_scalar_function(lambda d, rng: d + rng.normal())
    a = mech(1.0, 5, np.random.default_rng(3))
    b = mech(1.0, 5, np.random.default_rng(3))
    assert a.shape == (5,) and np.array_equal(a, b) and not mech.vectorised
    vec = from_scalar_function(lambda d, rng: d + rng.normal(size=3))
    assert vec(np.zeros(3), 4, np.random.default_rng(0)).shape == (4, 3)


def test_from_seeded_callable():
    def f(d, seed):
        return d + np.random.default_rng(seed).laplace()

    mech = from_seeded_callable(f)
    a = mech(0.0, 6, np.random.default_rng(5))
    assert a.shape == (6,) and np.array_equal(a, mech(0.0, 6, np.random.default_rng(5)))
    assert len(np.unique(a)) == 6  # distinct seeds per release


def test_from_diffprivlib_instance_class_and_tool():
    inst = Laplace(epsilon=1.0, sensitivity=1.0)
    m1 = from_diffprivlib(inst)
    a = m1(0.5, 50, np.random.default_rng(7))
    assert a.shape == (50,) and np.array_equal(a, m1(0.5, 50, np.random.default_rng(7)))
    assert m1.guarantee.epsilon == 1.0 and m1.guarantee.neighbours == "replace"
    m2 = from_diffprivlib(Laplace, epsilon=1.0, sensitivity=1.0)
    assert m2(0.5, 3, np.random.default_rng(1)).shape == (3,)
    m3 = from_diffprivlib(lambda random_state: Geometric(epsilon=1.0, sensitivity=1, random_state=random_state))
    assert m3(2, 4, np.random.default_rng(1)).dtype.kind in "iu"
    import diffprivlib

    tool = from_diffprivlib(
        lambda x, random_state: diffprivlib.tools.mean(
            x, epsilon=1.0, bounds=(0, 1), random_state=random_state, accountant=BudgetAccountant()
        )
    )
    t = tool(np.full(10, 0.5), 5, np.random.default_rng(2))
    assert t.shape == (5,) and np.array_equal(t, tool(np.full(10, 0.5), 5, np.random.default_rng(2)))


def test_from_diffprivlib_one_seed_per_release():
    """The shared seeding model: release i is diffprivlib's output with random_state=seeds[i], where seeds are
    ``release_seeds`` of the auditor's generator (the same model as estimators.dpl); deterministic, no α."""
    from htdp_verify.privacy.dpl_adapter import release_seeds

    m = from_diffprivlib(Laplace(epsilon=1.0, sensitivity=1.0))
    out = m(0.5, 6, np.random.default_rng(9))
    seeds = release_seeds(np.random.default_rng(9), 6)
    direct = [Laplace(epsilon=1.0, sensitivity=1.0, random_state=int(s)).randomise(0.5) for s in seeds]
    assert np.array_equal(out, direct)
    assert m.adapter.release(0.5, int(seeds[3])) == out[3]


def test_audit_diffprivlib_laplace():
    # α = 0.05 each (see module docstring).
    ok = audit(
        from_diffprivlib(Laplace(epsilon=1.0, sensitivity=1.0)),
        None,
        pairs=(0.0, 1.0),
        n_samples=20_000,
        rng=np.random.default_rng(21),
    )
    assert ok.verdict == "consistent" and ok.epsilon_lb > 0.8
    bad = audit(
        from_diffprivlib(Laplace(epsilon=2.0, sensitivity=1.0)),
        PrivacyClaim(1.0),
        pairs=(0.0, 1.0),
        n_samples=20_000,
        rng=np.random.default_rng(22),
    )
    assert bad.verdict == "violated"


def test_adapter_validation():
    with pytest.raises(ValueError, match="f must be callable"):
        from_scalar_function(3)
    with pytest.raises(ValueError, match="est must have"):
        from_estimator(object())
    with pytest.raises(ValueError, match="kind must be"):
        from_diffprivlib(Laplace(epsilon=1.0, sensitivity=1.0), kind="nope")
    with pytest.raises(ValueError, match="kwargs"):
        from_diffprivlib(Laplace(epsilon=1.0, sensitivity=1.0), epsilon=2.0)
    bad = Mechanism(lambda d, size, rng: np.zeros(size + 1), name="bad")
    with pytest.raises(ValueError, match="shape"):
        bad(0.0, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng must be"):
        from_scalar_function(lambda d, rng: 0.0)(0.0, 3, rng=None)
    with pytest.raises(ValueError, match="differing shapes"):
        it = iter([np.zeros(1), np.zeros(2)])
        from_scalar_function(lambda d, rng: next(it))(0.0, 2, np.random.default_rng(0))


def test_plain_callable_keeps_declared_guarantee_and_name():
    import numpy as np

    from htdp_verify.privacy import PrivacyGuarantee, as_mechanism

    class Declared:
        name = "my-laplace"
        privacy = PrivacyGuarantee(0.5)

        def __call__(self, data, size, rng):
            return rng.laplace(0.0, 2.0, size)

    m = as_mechanism(Declared())
    assert m.name == "my-laplace" and m.guarantee.epsilon == 0.5
    assert m(0.0, 3, np.random.default_rng(0)).shape == (3,)
