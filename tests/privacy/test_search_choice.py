"""The pair search prefers the pair that leaks more, and the design below would notice a scorer that does not.

Design: a Laplace sum query (scale 1) with four candidate pairs, one of sensitivity 1 (privacy loss 1) and three of
sensitivity 0.3 (loss 0.3); 20 fixed seeds, 500 releases per side and pair.  Under a scorer that carries no
information the search picks the leaky pair with probability 1/4 per seed, so it picks it at least ``K`` times in 20
with probability below 1e-3 (``K`` is computed below from the binomial law).  The test asserts the real scorer
reaches ``K`` and, with the held-out score replaced by a random one (monkeypatched), that the same design does not:
a scorer that ranked pairs at random would fail this test (when written: K = 12, the search's scorer 18/20, the
random one 5/20).  The smallest effect the design is built for: privacy loss 1 against 0.3 at 500 releases per side.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from htdp_verify.privacy import search
from htdp_verify.privacy.attacks import SelectionContext
from htdp_verify.privacy.search import search_pairs

SEEDS = 20
RANDOM_P = 1 / 4  # four pairs
ALPHA = 1e-3
# smallest K with P(Binomial(SEEDS, RANDOM_P) >= K) < ALPHA
K = int(next(k for k in range(SEEDS + 1) if stats.binom.sf(k - 1, SEEDS, RANDOM_P) < ALPHA))


def lap(data, size, rng):
    return np.asarray(data, float).sum() + rng.laplace(0.0, 1.0, size)


LEAKY = (np.zeros(2), np.r_[0.0, 1.0])
PAIRS = [(np.zeros(2), np.r_[0.0, 0.3]), (np.zeros(2), np.r_[0.3, 0.0]), LEAKY, (np.zeros(2), np.r_[0.0, -0.3])]


def _wins() -> int:
    ctx = SelectionContext(n_final=20_000, alpha=0.05)
    wins = 0
    for seed in range(SEEDS):
        ranked = search_pairs(lap, PAIRS, "auto", ctx, n_search=2000, rng=np.random.default_rng(seed))
        wins += bool(np.array_equal(ranked[0].pair.d_prime, LEAKY[1]))
    return wins


def test_design_threshold():
    assert 8 <= K <= 14  # 1/4 chance per seed: K in the upper tail, well below 20
    assert stats.binom.sf(K - 1, SEEDS, RANDOM_P) < ALPHA <= stats.binom.sf(K - 2, SEEDS, RANDOM_P)


def test_search_prefers_the_leakier_pair_and_a_random_scorer_would_fail(monkeypatch):
    assert _wins() >= K
    broken = np.random.default_rng(12345)
    monkeypatch.setattr(search, "_event_score", lambda a, b, ctx: (float(broken.random()), 0.0))
    assert _wins() < K  # the deliberately broken (random) scorer does not pass the same design


def test_common_random_numbers_keep_each_sides_law(monkeypatch):
    """Coupled draws: the two sides share their noise (here the difference is the constant sensitivity), and
    each side alone is the mechanism's own law (a two-sample KS test against independent draws, α = 1e-3)."""
    monkeypatch.setattr(search, "COUPLED", True)
    p = search.as_pairs([LEAKY])[0]
    y1, y2 = search._draw_pair(lap, p, 4000, np.random.default_rng(3), 1_000_000)
    assert np.allclose(y2 - y1, 1.0)
    ref = lap(LEAKY[1], 4000, np.random.default_rng(4))
    assert stats.ks_2samp(y2, ref).pvalue > 1e-3
    monkeypatch.setattr(search, "COUPLED", False)
    y1, y2 = search._draw_pair(lap, p, 4000, np.random.default_rng(3), 1_000_000)
    assert not np.allclose(y2 - y1, 1.0)  # the check above would notice uncoupled draws


def _pooled_sizes(monkeypatch, **kw) -> list[tuple[int, int]]:
    """(releases per side a score was computed on, releases drawn for it), over one search of the four pairs
    (two rounds: 500 releases per side and pair, then 3000 for the better two)."""
    sizes, real = [], search._score_pair

    def spy(*a, **k):
        out = real(*a, **k)
        sizes.append((search._held_size(out[3]), a[-1]))
        return out

    monkeypatch.setattr(search, "_score_pair", spy)
    ctx = SelectionContext(n_final=20_000, alpha=0.05)
    search_pairs(lap, PAIRS, "auto", ctx, n_search=8000, rng=np.random.default_rng(0), **kw)
    return sizes


def test_survivors_pool_their_releases_within_the_memory_cap(monkeypatch):
    free = _pooled_sizes(monkeypatch)
    assert any(size > drawn for size, drawn in free)  # without a cap, later rounds pool the earlier releases
    assert max(size for size, _ in _pooled_sizes(monkeypatch, max_per_pair=900)) <= 900
