"""Scheduling of ``htdp-verify run --workers``: longest-first submission from an earlier run's costs, the per-check
timing records of the run log, and reading the costs back (``runlog.previous_costs``)."""

import json
import os
import time
from types import SimpleNamespace

import pytest

from htdp_verify import parallel, schedule
from htdp_verify.results import CheckResult
from htdp_verify.runlog import RunLog, previous_costs, read_runlog, read_timings


def _checks(*names):
    return [SimpleNamespace(name=n) for n in names]


def test_submission_order_is_longest_first_with_unknown_checks_first():
    cs = _checks("a", "b", "c", "d", "e")
    order = parallel.submission_order(cs, {"a": 1.0, "b": 40.0, "c": 1.0, "e": 7.0})
    # d has no cost (new since the earlier run): first; then 40, 7 and the tie a/c in the order given
    assert [c.name for c in order] == ["d", "b", "e", "a", "c"]


@pytest.mark.parametrize("costs", [None, {}])
def test_without_costs_the_order_given_is_kept(costs):
    cs = _checks("z", "a", "m")
    assert [c.name for c in parallel.submission_order(cs, costs)] == ["z", "a", "m"]


def test_longest_first_shortens_the_tail_of_a_skewed_run():
    """Why the order matters: 8 one-second checks and one 8-second check named last.  Greedy assignment to two
    workers in name order ends at 12 s (the long check starts at 4 s); longest first ends at 8 s, the optimum."""
    costs = {f"c{i}": 1.0 for i in range(8)} | {"z_long": 8.0}
    cs = _checks(*sorted(costs))

    def makespan(order):
        free = [0.0, 0.0]
        for c in order:
            i = free.index(min(free))
            free[i] += costs[c.name]
        return max(free)

    assert makespan(cs) == 12.0
    assert makespan(parallel.submission_order(cs, costs)) == 8.0


def test_task_clock_counts_cpu_and_wall_of_this_process():
    clock = parallel.TaskClock()
    t = time.process_time()
    x = 0
    while time.process_time() - t < 0.2:  # 0.2 s of CPU
        x += 1
    time.sleep(0.2)  # wall but no CPU
    rec = clock.stop()
    assert rec["worker"] == os.getpid()
    assert rec["finished"] - rec["started"] >= 0.39
    assert 0.19 <= rec["cpu_seconds"] < rec["finished"] - rec["started"]
    assert rec["children_cpu_seconds"] >= 0.0


def _res(name, seconds):
    return CheckResult(name=name, verdict="info", statistic="x", estimate=1.0, seconds=seconds, seed=1)


def test_timings_are_logged_beside_the_results_and_read_back(tmp_path):
    t = parallel.task_timing(100.0, 112.5, 11.0)
    with RunLog(tmp_path, {"profile": "quick"}) as log:
        log.append("s.a", 1, [_res("s.a", 12.0)], t)
        log.append("s.b", 2, [_res("s.b.x", 1.0), _res("s.b.y", 2.0)])  # no timing: an older line
    content = read_runlog(tmp_path)
    assert list(content.done) == ["s.a", "s.b"]
    assert read_timings(tmp_path) == {"s.a": t}
    # costs: the recorded wall time where there is one, else the sum of the results' seconds
    assert previous_costs(tmp_path) == {"s.a": 12.5, "s.b": 3.0}


def test_costs_fall_back_to_results_json_and_to_nothing(tmp_path):
    assert previous_costs(tmp_path) == {}  # no earlier run: no costs, nothing fails
    doc = {
        "results": [
            {"name": "s.a", "seconds": 4.0, "details": {}},
            {"name": "s.b.x", "seconds": 1.0, "details": {"check": "s.b"}},
            {"name": "s.b.y", "seconds": 2.5, "details": {"check": "s.b"}},
        ]
    }
    (tmp_path / "results.json").write_text(json.dumps(doc))
    assert previous_costs(tmp_path) == {"s.a": 4.0, "s.b": 3.5}
    (tmp_path / "results.json").write_text("{not json")
    assert previous_costs(tmp_path) == {}


def _grouped(name, group=None):
    func = (lambda ctx: None) if group is None else schedule.shares_cache(group)(lambda ctx: None)
    return SimpleNamespace(name=name, func=func)


def test_a_cache_group_is_one_unit_at_its_first_check_and_costs_its_sum():
    cs = [_grouped("a", "g"), _grouped("b"), _grouped("c", "h"), _grouped("d", "g"), _grouped("e", "h"), _grouped("f")]
    units = schedule.check_units(cs)
    assert [[c.name for c in u] for u in units] == [["a", "d"], ["b"], ["c", "e"], ["f"]]
    assert schedule.cache_group(cs[0]) == "g" and schedule.cache_group(cs[1]) is None
    costs = {"a": 5.0, "d": 1.0, "b": 5.5, "c": 2.0, "e": 2.0, "f": 9.0}
    # units cost 6, 5.5, 4 and 9: longest first
    assert [[c.name for c in u] for u in schedule.unit_order(units, costs)] == [["f"], ["a", "d"], ["b"], ["c", "e"]]
    # a unit with a check of unknown cost goes first; without costs the order given is kept
    del costs["e"]
    assert [u[0].name for u in schedule.unit_order(units, costs)] == ["c", "f", "a", "b"]
    assert schedule.unit_order(units, None) == units
    with pytest.raises(ValueError, match="group"):
        schedule.shares_cache("")


def test_the_rate_claims_on_one_shared_sweep_are_one_unit():
    from htdp_verify import registry

    registry.load_plugins()
    rates = [c for n, c in sorted(registry._REGISTRY.items()) if n.startswith("hu2022.rate.") and "_" in n]
    units = {tuple(c.name for c in u) for u in schedule.check_units(rates) if len(u) > 1}
    assert (
        "hu2022.rate.abstract_arxiv_dpfw",
        "hu2022.rate.abstract_pods_dpfw",
        "hu2022.rate.dpfw_neps",
    ) in units
    assert (
        "hu2022.rate.abstract_arxiv_lasso",
        "hu2022.rate.abstract_pods_lasso",
        "hu2022.rate.lasso_neps",
    ) in units
