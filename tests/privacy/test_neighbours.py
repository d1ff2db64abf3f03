"""Neighbouring inputs are checked: plain (D, D') tuples against the claim's relation, empty datasets under
add/remove, and generated neighbours inside a declared data domain [lower, upper]."""

import numpy as np
import pytest

from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy import Pair, add_one, audit, check_neighbours, dataset_patterns, remove_one
from htdp_verify.privacy.neighbours import as_pairs, given_pair
from htdp_verify.privacy.plan import resolve_pairs

REPLACE = PrivacyClaim(1.0)
ADD_REMOVE = PrivacyClaim(1.0, neighbours="add_remove")


def mean_mech(data, size, rng):
    """ε = 1 for replace-one on 10 records in [0, 1] (sensitivity 1/10)."""
    d = np.clip(np.asarray(data, float), 0.0, 1.0)
    return d.mean() + rng.laplace(0.0, 0.1, size)


def sum_mech(data, size, rng):
    """ε = 1 for add/remove of a record in [0, 1]; accepts the empty dataset (sum 0)."""
    d = np.clip(np.asarray(data, float).reshape(-1), 0.0, 1.0)
    return d.sum() + rng.laplace(0.0, 1.0, size)


# ---------------------------------------------------------------------------------------------------------------
# plain tuples are checked against the claim's relation
# ---------------------------------------------------------------------------------------------------------------
def test_non_neighbouring_tuple_is_refused_not_reported_as_violation():
    # Three records differ: the pair is not replace-one neighbours.  Before the check, audit() ran on it and
    # reported "violated" for this correct mechanism (the pair's true ε is 3).
    d = np.zeros(10)
    d2 = d.copy()
    d2[[2, 5, 8]] = 1.0
    with pytest.raises(ValueError, match=r"rows 2, 5, 8 differ \(3 rows; replace-one allows 1\)"):
        audit(mean_mech, REPLACE, pairs=(d, d2), n_samples=5_000, rng=np.random.default_rng(1))
    with pytest.raises(ValueError, match="not a replace-one pair"):
        audit(mean_mech, REPLACE, pairs=[(d, d2)], n_samples=5_000, rng=np.random.default_rng(1))
    # A genuine neighbour of the same data is accepted and the correct mechanism passes.
    d1 = d.copy()
    d1[5] = 1.0
    r = audit(mean_mech, REPLACE, pairs=[(d, d1)], n_samples=20_000, rng=np.random.default_rng(2))
    assert r.verdict == "consistent" and r.details["pair"]["relation"] == "replace"


def test_add_remove_messages_say_how_the_datasets_differ():
    with pytest.raises(ValueError, match="sizes 10 and 12 differ by 2"):
        given_pair(np.zeros(10), np.zeros(12), "add_remove")
    with pytest.raises(ValueError, match="sizes 10 and 10 are equal"):
        given_pair(np.zeros(10), np.ones(10), "add_remove")
    with pytest.raises(ValueError, match="sizes 4 and 5 differ"):
        given_pair(np.zeros(4), np.zeros(5), "replace")
    # One record added and one other changed: two records differ.
    with pytest.raises(ValueError, match=r"row 0 of the smaller dataset \(D\).*2 records differ"):
        given_pair(np.arange(5.0), np.r_[9.0, 1.0, 2.0, 3.0, 4.0, 7.0], "add_remove")
    with pytest.raises(ValueError, match="records have shapes"):
        given_pair(np.zeros((3, 2)), np.zeros((4, 3)), "add_remove")
    with pytest.raises(ValueError, match="mixes a scalar and an array"):
        given_pair(0.0, np.zeros(3), "replace")
    with pytest.raises(ValueError, match="relation"):
        given_pair(np.zeros(3), np.zeros(3), "swap")


def test_add_remove_is_on_multisets_and_nan_equals_nan():
    d = np.array([[1.0, 2.0], [3.0, np.nan], [5.0, 6.0]])
    d2 = np.vstack([d[[2, 0, 1]], [[0.0, -0.0]]])  # reordered, one record added
    assert given_pair(d, d2, "add_remove").relation == "add_remove"
    rep = d.copy()
    rep[0] = [7.0, 7.0]
    assert given_pair(d, rep, "replace").relation == "replace"  # the NaN row does not count as changed
    check_neighbours(Pair(np.array([0.0, 1.0]), np.array([-0.0, 1.0]), "signed zero", "replace"))


def test_one_d_arrays_are_datasets_of_scalar_records_and_query_pairs_are_labelled():
    # A plain tuple of two 1-d arrays is a dataset pair: two changed entries are two changed records.
    with pytest.raises(ValueError, match="label the pair"):
        resolve_pairs((np.zeros(3), np.ones(3)), None, REPLACE)
    # The same arrays labelled as query answers are asserted, not checked.
    for rel in ("Ninf", "N1", "query"):
        out = resolve_pairs([Pair(np.zeros(3), np.ones(3), "q", rel)], None, REPLACE)
        assert out[0].relation == rel
    # Scalars are query answers.
    out = resolve_pairs([(0.0, 1.0), (3, 4)], None, ADD_REMOVE)
    assert [p.relation for p in out] == ["given", "given"]
    # A callable's plain tuples are checked too.
    with pytest.raises(ValueError, match="sizes 3 and 3 are equal"):
        resolve_pairs(None, lambda rel: [(np.zeros(3), np.ones(3))], ADD_REMOVE)
    # Inputs that cannot be read as records (here a dict of scalars) are refused with the way out: an explicit
    # Pair(..., relation="given") asserts them (before, they were asserted silently; see test_neighbour_records.py).
    with pytest.raises(ValueError, match="relation='given'"):
        as_pairs([({"a": 1}, {"a": 2})], "replace")
    assert as_pairs([Pair({"a": 1}, {"a": 2}, "asserted", "given")], "replace")[0].relation == "given"
    # Without a relation (the pair search's own normalisation) nothing is checked.
    assert as_pairs((np.zeros(3), np.ones(3)))[0].relation == "given"


# ---------------------------------------------------------------------------------------------------------------
# empty datasets under add/remove
# ---------------------------------------------------------------------------------------------------------------
def test_empty_dataset_pairs():
    empty = np.empty((0, 3))
    check_neighbours(Pair(empty, np.ones((1, 3)), "empty vs one", "add_remove"))
    check_neighbours(Pair([], [[1.0, 2.0, 3.0]], "[] vs one", "add_remove"))
    check_neighbours(Pair(np.empty(0), np.array([0.5]), "scalar records", "add_remove"))
    with pytest.raises(ValueError, match="sizes 0 and 2 differ by 2"):
        check_neighbours(Pair(empty, np.ones((2, 3)), "empty vs two", "add_remove"))
    p = add_one(empty, [1.0, 2.0, 3.0])
    assert p.d.shape == (0, 3) and p.d_prime.shape == (1, 3)
    check_neighbours(p)
    p = add_one([], [1.0, 2.0])  # [] takes the record's shape
    assert p.d.shape == (0, 2) and p.d_prime.shape == (1, 2)
    check_neighbours(p)
    p = remove_one(np.ones((1, 2)), 0)
    assert p.d_prime.shape == (0, 2)
    check_neighbours(p)
    with pytest.raises(ValueError, match="at least one row"):
        remove_one(empty, 0)
    with pytest.raises(ValueError, match="row must have"):
        add_one(empty, [1.0, 2.0])


def test_audit_with_an_empty_dataset():
    r = audit(
        sum_mech, ADD_REMOVE, pairs=(np.empty(0), np.array([1.0])), n_samples=20_000, rng=np.random.default_rng(3)
    )
    assert r.verdict == "consistent" and r.details["pair"]["relation"] == "add_remove"

    # The same pair catches a mechanism with half the noise (true ε = 2 against the claimed 1).
    def loud(data, size, rng):
        return np.asarray(data, float).sum() + rng.laplace(0.0, 0.5, size)

    r = audit(
        loud, ADD_REMOVE, pairs=[add_one(np.empty((0, 1)), [1.0])], n_samples=20_000, rng=np.random.default_rng(4)
    )
    assert r.verdict == "violated"


# ---------------------------------------------------------------------------------------------------------------
# generated neighbours respect a declared domain
# ---------------------------------------------------------------------------------------------------------------
def _all_records(pairs):
    recs = [np.asarray(p.d, float) for p in pairs] + [np.asarray(p.d_prime, float) for p in pairs]
    return np.concatenate([r.reshape(r.shape[0], -1) for r in recs])


@pytest.mark.parametrize("relation", ["replace", "add_remove"])
def test_domain_rows_are_at_the_corners_and_never_outside(relation):
    rng = np.random.default_rng(5)
    lo, hi = np.array([0.0, -2.0, 10.0]), np.array([1.0, 5.0, 11.0])
    X = rng.uniform(lo, hi, (20, 3))
    pairs = dataset_patterns(X, relation=relation, lower=lo, upper=hi)
    for p in pairs:
        check_neighbours(p)
    R = _all_records(pairs)
    assert np.all(R >= lo) and np.all(R <= hi)
    # Every corner of the box (2^3 = 8) is generated as a record.
    corners = {tuple(np.where(m, hi, lo)) for m in np.ndindex(2, 2, 2) for m in [np.array(m, bool)]}
    assert corners <= {tuple(r) for r in R}


def test_domain_one_sided_scalar_and_bound_equivalence():
    x = np.array([0.2, 0.7, 0.4])
    lab = " ".join(p.label for p in dataset_patterns(x, lower=0.0, upper=1.0))
    assert "domain upper (1)" in lab and "domain lower (0)" in lab
    one_sided = dataset_patterns(x, lower=0.0)
    assert np.all(_all_records(one_sided) >= 0.0) and "domain upper" not in " ".join(p.label for p in one_sided)
    # bound=b is the domain [-b, b] (plus ±c·b rows for the declared multiples, a deliberate clipping probe).
    R = _all_records(dataset_patterns(x, bound=1.0, multiples=(1.0,)))
    assert R.min() == -1.0 and R.max() == 1.0
    assert _all_records(dataset_patterns(x, bound=1.0)).max() == 2.0  # default multiples (1, 2)


def test_domain_validation():
    x = np.zeros(3)
    with pytest.raises(ValueError, match="lower must be < upper"):
        dataset_patterns(x, lower=1.0, upper=1.0)
    with pytest.raises(ValueError, match="lower must be < upper"):
        dataset_patterns(np.zeros((2, 2)), lower=[0.0, 1.0], upper=[1.0, 0.5])
    with pytest.raises(ValueError, match="inside the declared domain"):
        dataset_patterns(x, lower=0.5, upper=1.0)
    with pytest.raises(ValueError, match="either bound or lower/upper"):
        dataset_patterns(x, bound=1.0, lower=-1.0)
    with pytest.raises(ValueError, match="multiples"):
        dataset_patterns(x, lower=-1.0, upper=1.0, multiples=(2.0,))
    with pytest.raises(ValueError, match="upper must be a scalar or broadcast"):
        dataset_patterns(np.zeros((2, 2)), lower=0.0, upper=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="lower must be finite"):
        dataset_patterns(x, lower=-np.inf, upper=1.0)


def test_audit_with_a_domain_generates_no_row_outside_it():
    # Records in [0, 1] and a mean that does not clip: private inside the domain (sensitivity 1/10, ε = 1), so the
    # audit on generated neighbours in [0, 1] passes; bound=1 (with its 2·bound clipping probe) flags it.
    def unclipped_mean(data, size, rng):
        return np.asarray(data, float).mean() + rng.laplace(0.0, 0.1, size)

    x = np.random.default_rng(6).uniform(0, 1, 10)
    r = audit(
        unclipped_mean,
        REPLACE,
        neighbours={"data": x, "lower": 0.0, "upper": 1.0},
        n_samples=20_000,
        rng=np.random.default_rng(7),
    )
    assert r.verdict == "consistent"
    d_prime = np.asarray(r.details["pair"]["d_prime"])
    assert np.all((d_prime >= 0) & (d_prime <= 1))
    r = audit(
        unclipped_mean, REPLACE, neighbours={"data": x, "bound": 1.0}, n_samples=20_000, rng=np.random.default_rng(8)
    )
    assert r.verdict == "violated"


def _half_noise_mean(data, size, rng):
    """The guide's clipped mean on [0, 1] with half the noise its claim needs: true ε 1 against claim 0.5."""
    x = np.clip(np.asarray(data, float), 0, 1)
    return x.mean() + rng.laplace(0, 1 / (len(x) * 1.0), size)


def test_generated_neighbours_include_a_record_moved_from_one_end_of_the_domain_to_the_other():
    # a red-team finding: with the data in the middle of the domain every generated pair moved a record by half the
    # range (pair-ε 0.5 = the claim), and this mechanism came out "consistent" at 19 of 20 seeds
    from htdp_verify import PrivacyClaim
    from htdp_verify.privacy import audit, dataset_patterns

    dom = {"data": np.full(10, 0.5), "lower": 0, "upper": 1}
    pairs = dataset_patterns(**dom)
    assert any(abs(float(np.sum(p.d_prime) - np.sum(p.d))) == 1.0 for p in pairs)
    assert len({p.label for p in pairs}) == len(pairs)
    for seed in (1, 2, 3):
        res = audit(
            _half_noise_mean, PrivacyClaim(0.5), neighbours=dom, n_samples=100_000, rng=np.random.default_rng(seed)
        )
        assert res.verdict == "violated" and res.estimate > 0.8  # true ε 1


def test_generated_neighbours_of_integer_data_stay_integer():
    from htdp_verify import PrivacyClaim
    from htdp_verify.privacy import audit, dataset_patterns

    pairs = dataset_patterns(np.array([0, 1, 2, 3, 4]), lower=0, upper=4)
    assert all(np.asarray(p.d).dtype.kind == "i" and np.asarray(p.d_prime).dtype.kind == "i" for p in pairs)

    def noisy_counts(data, size, rng):  # np.bincount needs integers
        return np.bincount(data, minlength=5)[None, :] + rng.laplace(0, 2.0, (size, 5))

    res = audit(
        noisy_counts,
        PrivacyClaim(1.0),
        neighbours={"data": np.array([0, 1, 2, 3, 4]), "lower": 0, "upper": 4},
        n_samples=20_000,
        rng=np.random.default_rng(0),
    )
    assert res.verdict in ("consistent", "violated")  # it runs (before: a TypeError from np.bincount)


# ---------------------------------------------------------------------------------------------------------------
# red-team pass (2026-11-29): an identical pair and a pair written as a list of two lists
# ---------------------------------------------------------------------------------------------------------------
def exact_sum(data, size, rng):
    """No noise at all: ε = ∞ on any pair whose sums differ."""
    return np.full(size, float(np.sum(data)))


@pytest.mark.parametrize(
    "d, dp",
    [(np.zeros(3), np.zeros(3)), (np.array([]), np.array([])), (0.5, 0.5), (np.r_[np.nan, 1.0], np.r_[np.nan, 1.0])],
)
def test_an_identical_pair_is_refused_not_reported_consistent(d, dp):
    # before: an exact (ε = ∞) mechanism on D == D' came out "consistent" with ε_lb 0 and no warning
    with pytest.raises(ValueError, match="identical"):
        audit(exact_sum, REPLACE, pairs=[(d, dp)], n_samples=2_000, rng=np.random.default_rng(0))


def test_a_pair_differing_only_in_the_sign_of_zero_is_identical_under_the_relations():
    with pytest.raises(ValueError, match="identical"):
        given_pair(np.r_[0.0, 1.0], np.r_[-0.0, 1.0], "replace")


def test_a_pair_written_as_a_list_of_two_lists_is_refused_as_ambiguous():
    # before: pairs=[[0., 0.], [0., 1.]] (one pair of two-record datasets, claim 0.5 true for their mean) was read as
    # two scalar pairs (0, 0) and (0, 1), and the mean of one record moved by 1 was flagged: violated 0.96 at 3/3 seeds
    def mean_lap(data, size, rng):
        return np.mean(data) + rng.laplace(0.0, 1.0, size)

    with pytest.raises(ValueError, match="ambiguous"):
        audit(
            mean_lap, PrivacyClaim(0.5), pairs=[[0.0, 0.0], [0.0, 1.0]], n_samples=2_000, rng=np.random.default_rng(0)
        )
    # written as a tuple, the same pair is one pair of datasets; pairs of query answers as tuples stay accepted
    r = audit(
        mean_lap, PrivacyClaim(0.5), pairs=[([0.0, 0.0], [0.0, 1.0])], n_samples=20_000, rng=np.random.default_rng(0)
    )
    assert r.verdict == "consistent" and r.details["selection"]["pairs_tried"] == 1
    assert len(as_pairs([(0.0, 1.0), (0.0, 2.0)], "replace")) == 2


# ---------------------------------------------------------------------------------------------------------------
# second red-team pass (2026-11-29): (X, y) tuples and integer domains
# ---------------------------------------------------------------------------------------------------------------
def test_xy_tuple_pairs_are_checked_record_by_record():
    # before: numpy stacked (X, y) with 1-d X into two "records" (the whole X and y columns), so a pair changing three
    # x's passed as a one-row replace pair (a clipped mean with ε = 1 certified 1.44), and real neighbours failed
    X, y = np.linspace(0.1, 0.9, 10), (np.linspace(0.1, 0.9, 10) > 0.5).astype(float)
    X3 = X.copy()
    X3[:3] = 1.0
    with pytest.raises(ValueError, match="records 0, 1, 2 differ"):
        given_pair((X, y), (X3, y), "replace")
    X1, y1 = X.copy(), y.copy()
    X1[0], y1[0] = 1.0, 1.0
    given_pair((X, y), (X1, y1), "replace")  # one record (x and y) replaced
    given_pair((X, y), (np.r_[X, 1.0], np.r_[y, 1.0]), "add_remove")  # one record added


def test_generated_neighbours_refuse_a_tuple_and_a_domain_the_dtype_cannot_hold():
    # before: neighbours={"data": (X, y), ...} was stacked into two whole-column records (violated 8.81 on ε = 1),
    # and uint8 data with lower=-1 generated a record 255, outside the domain (violated 8.81 on a mechanism correct
    # on the declared domain)
    X, y = np.linspace(0.1, 0.9, 20), np.zeros(20)
    with pytest.raises(ValueError, match="not a tuple"):
        resolve_pairs(None, {"data": (X, y), "lower": 0, "upper": 1}, REPLACE)
    with pytest.raises(ValueError, match="does not fit data's dtype uint8"):
        resolve_pairs(None, {"data": np.array([1, 5, 3], np.uint8), "lower": -1, "upper": 5}, REPLACE)
    with pytest.raises(ValueError, match="does not fit data's dtype int8"):
        resolve_pairs(None, {"data": np.array([1, 5, 3], np.int8), "lower": 0, "upper": 200}, REPLACE)
    pairs = resolve_pairs(None, {"data": np.array([1, 5, 3], np.int16), "lower": -1, "upper": 5}, REPLACE)
    for p in pairs:  # a dtype that holds the domain keeps integer records inside it
        assert p.d.dtype == np.int16 and p.d.min() >= -1 and p.d_prime.max() <= 5


def test_generated_neighbours_pair_each_mixed_corner_with_its_complement():
    # Records in [0, 1]^2 and the release Σ(x₁ − x₂) + Lap(1): its replace-one sensitivity is 2 (record (1, 0) ->
    # (0, 1)), so a claim of ε = 1 is false (true ε = 2).  lower <-> upper moves it by 0, and before the complement
    # corners were paired the audit came out "consistent" at 8 of 10 seeds.  Now the pair (LU <-> UL) is generated and
    # the audit flags it at every one of 5 seeds (ε_lb ≈ 1.95 each; design: ≥ 4 of 5).
    data = np.full((10, 2), 0.5)
    nb = {"data": data, "lower": 0, "upper": 1}
    changes = [
        abs((p.d[:, 0] - p.d[:, 1]).sum() - (p.d_prime[:, 0] - p.d_prime[:, 1]).sum())
        for p in resolve_pairs(None, nb, REPLACE)
    ]
    assert max(changes) == 2.0

    def diff_sum(d, size, rng):
        d = np.clip(np.asarray(d, float), 0.0, 1.0)
        return (d[:, 0] - d[:, 1]).sum() + rng.laplace(0.0, 1.0, size)

    flagged = sum(
        audit(diff_sum, REPLACE, neighbours=nb, n_samples=50_000, rng=np.random.default_rng(s)).verdict == "violated"
        for s in range(5)
    )
    assert flagged >= 4, flagged


def test_generated_neighbours_of_a_dataframe_are_dataframes_and_masked_data_are_refused():
    # before: the mechanism got a bare float array (a mechanism using d["age"] failed with numpy's IndexError), and a
    # masked array lost its mask (the value under it, 99, reached the mechanism)
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"n": np.array([1, 2, 3], np.int64), "age": [0.1, 0.5, 0.9]})
    pairs = resolve_pairs(None, {"data": df, "lower": [0, 0], "upper": [3, 1]}, REPLACE)
    for p in pairs:
        for side in (p.d, p.d_prime):
            assert isinstance(side, pd.DataFrame) and list(side.columns) == ["n", "age"]
            assert side["n"].dtype == np.int64 and side["age"].dtype == np.float64

    def df_mech(d, size, rng):
        return np.clip(d["age"], 0, 1).mean() + rng.laplace(0.0, 1.0 / len(d), size)  # ε = 1 on records in [0, 1]

    r = audit(
        df_mech,
        REPLACE,
        neighbours={"data": df[["age"]], "lower": 0, "upper": 1},
        n_samples=20_000,
        rng=np.random.default_rng(0),
    )
    assert r.verdict == "consistent"
    with pytest.raises(ValueError, match="does not fit column 'n'"):
        resolve_pairs(None, {"data": df, "lower": [0, 0], "upper": [5.5, 1]}, REPLACE)
    with pytest.raises(ValueError, match="masked array"):
        resolve_pairs(None, {"data": np.ma.array([0.1, 99.0, 0.3], mask=[0, 1, 0])}, REPLACE)
