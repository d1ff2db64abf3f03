"""The gradient-boosting attack gives the same events on the same releases.  Above 10 000 training rows scikit-learn's
HistGradientBoostingClassifier stops early on a random validation split; unseeded, that split came from the global
RNG, so an audit (and a check run serially or in a worker process) changed its event from one run to the next."""

import numpy as np

from htdp_verify.privacy.attacks import GradientBoostingAttack, SelectionContext


def _events(attack, Y1, Y2):
    ctx = SelectionContext(n_final=100_000, alpha=0.05)
    return [(e.describe(), e.predicted) for e in attack.select(Y1, Y2, ctx)]


def test_gboost_events_do_not_depend_on_the_global_rng():
    rng = np.random.default_rng(4)
    n = 12_000  # 2 x 6 000 training rows: early stopping is on
    Y1 = np.c_[rng.laplace(0.0, 1.0, n), rng.normal(size=n)]
    Y2 = np.c_[rng.laplace(0.3, 1.0, n), rng.normal(size=n)]
    first = _events(GradientBoostingAttack(), Y1, Y2)
    np.random.seed(1)  # noqa: NPY002 - the global RNG is disturbed on purpose: the attack must not read it
    np.random.random(1000)  # noqa: NPY002
    again = _events(GradientBoostingAttack(), Y1, Y2)
    assert first and first == again
