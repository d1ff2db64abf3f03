import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from _schema import validate_tree
from htdp_verify import cli
from htdp_verify.registry import get_checks, register
from htdp_verify.results import CheckResult


@pytest.fixture(autouse=True)
def _results_files_match_the_schema(tmp_path):
    """Every results.json / results.jsonl a test here writes must validate against the published schema."""
    yield
    validate_tree(tmp_path)


def test_list_shows_registered_checks(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "stats.cp_coverage" in out and "Clopper" in out


def test_run_writes_three_files_with_figure(tmp_path):
    out = tmp_path / "r"
    assert cli.main(["run", "stats", "--out", str(out), "--no-progress", "--seed", "5"]) == 0
    for f in ("results.json", "report.md", "report.html"):
        assert (out / f).exists()
    data = json.loads((out / "results.json").read_text())
    assert {r["name"] for r in data["results"]} >= {"stats.cp_coverage", "stats.epsilon_lb_validity"}
    assert all(r["verdict"] == "consistent" for r in data["results"])
    assert "data:image/png;base64," in (out / "report.html").read_text()


def test_run_is_reproducible_from_seed(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    cli.main(["run", "stats.cp_coverage", "--out", str(a), "--no-progress", "--seed", "9"])
    cli.main(["run", "stats.cp_coverage", "--out", str(b), "--no-progress", "--seed", "9"])
    ra = json.loads((a / "results.json").read_text())["results"][0]
    rb = json.loads((b / "results.json").read_text())["results"][0]
    assert ra["details"]["rows"] == rb["details"]["rows"]


def test_unknown_check_is_a_clear_error(capsys):
    assert cli.main(["run", "no_such_check", "--no-progress"]) == 2
    assert "no registered check matches 'no_such_check'" in capsys.readouterr().err


def test_failing_check_gives_nonzero_exit_and_error_verdict(tmp_path, capsys, monkeypatch):
    from htdp_verify import registry

    registry.load_plugins()  # first: plugins loaded into the scratch copy would vanish with it, leaving _loaded set
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))  # test checks vanish afterwards

    @register("zz_test.broken", description="always raises")
    def broken(ctx):
        raise RuntimeError("boom")

    @register("zz_test.violating", description="always violated")
    def violating(ctx):
        return CheckResult(name="zz_test.violating", verdict="violated")

    assert cli.main(["run", "zz_test.broken", "--out", str(tmp_path / "x"), "--no-progress"]) == 1
    assert "could not run" in capsys.readouterr().err
    assert cli.main(["run", "zz_test.violating", "--out", str(tmp_path / "y"), "--no-progress"]) == 0
    assert (
        cli.main(["run", "zz_test.violating", "--out", str(tmp_path / "z"), "--no-progress", "--fail-on", "violated"])
        == 3
    )


def test_fail_on_violated_ignores_expected_canaries(tmp_path, capsys, monkeypatch):
    from htdp_verify import registry

    registry.load_plugins()  # first: plugins loaded into the scratch copy would vanish with it, leaving _loaded set
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))  # test checks vanish afterwards

    @register("zz_exp.canary", description="violated, as it is built to be")
    def canary(ctx):
        return CheckResult(name="zz_exp.canary", verdict="violated", expected="violated")

    @register("zz_exp.missed", description="a canary that did not fire")
    def missed(ctx):
        return CheckResult(name="zz_exp.missed", verdict="consistent", expected="violated")

    @register("zz_exp.control", description="a control expected consistent that came out violated")
    def control(ctx):
        return CheckResult(name="zz_exp.control", verdict="violated", expected="consistent")

    @register("zz_exp.table", description="a description")
    def table(ctx):
        return CheckResult(name="zz_exp.table", verdict="info")

    def run(*names, fail_on="violated"):
        return cli.main(
            ["run", *names, "--out", str(tmp_path / "_".join(names)), "--no-progress", "--fail-on", fail_on]
        )

    assert run("zz_exp.canary", "zz_exp.table") == 0
    out = capsys.readouterr().out
    assert "0 consistent" in out and "1 info" in out and "1 canaries/controls as expected" in out
    data = json.loads((tmp_path / "zz_exp.canary_zz_exp.table" / "results.json").read_text())
    assert data["tally"]["consistent"] == 0 and data["tally"]["info"] == 1 and data["tally"]["as expected"] == 1
    assert run("zz_exp.missed") == 0  # not a violation
    assert run("zz_exp.missed", fail_on="unexpected") == 3
    assert run("zz_exp.canary", "zz_exp.control") == 3  # an unexpected violation trips it
    assert "zz_exp.control" in capsys.readouterr().err
    report = (tmp_path / "zz_exp.canary_zz_exp.table" / "report.md").read_text()
    assert "`zz_exp.canary`: violated, as expected" in report and "1 descriptive (no claim tested)" in report
    assert report.index("## Findings") < report.index("as expected") < report.index("## Suites")


def test_help_documents_exit_codes():
    text = cli.build_parser().format_help()
    assert "exit codes" in text and "--fail-on violated" in text


def test_console_script_help():
    r = subprocess.run([sys.executable, "-m", "htdp_verify.cli", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "run" in r.stdout and "bench" in r.stdout


def test_bench_rejects_a_seed_count_below_one(tmp_path, capsys):
    assert cli.main(["bench", "--quick", "--seeds", "0", "--out", str(tmp_path / "b"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--seeds: must be >= 1" in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------------------------
# the command as a user runs it (subprocesses): one-line errors, exit codes, Ctrl-C, broken pipes, resume
# ---------------------------------------------------------------------------------------------------------
#: a driver that registers two test checks (one fast, one that sleeps unless ZZ_FAST is set) and runs the CLI
DRIVER = """
import os, signal, sys, time
# Ctrl-C as in a terminal: a test runner started in the background of a non-interactive shell passes SIGINT
# on *ignored*, and Python then never raises KeyboardInterrupt (a fresh-clone CI run failed that way)
signal.signal(signal.SIGINT, signal.default_int_handler)
from htdp_verify import cli
from htdp_verify.registry import all_checks, register
from htdp_verify.results import CheckResult

all_checks()

@register("zz.a_fast", description="fast test check")
def fast(ctx):
    return CheckResult(name="zz.a_fast", verdict="consistent", statistic="u", estimate=float(ctx.rng.random()),
                       interval=(0.0, float("inf")), seed=ctx.seed)

@register("zz.b_slow", description="a check that sleeps unless ZZ_FAST is set")
def slow(ctx):
    if not os.environ.get("ZZ_FAST"):
        time.sleep(120)
    return CheckResult(name="zz.b_slow", verdict="violated", statistic="u", estimate=float(ctx.rng.random()),
                       seed=ctx.seed, details={"cause": "a test cause"})

sys.exit(cli.main(sys.argv[1:]))
"""


def _cli(*args, env=None, cwd=None, driver=None, timeout=120):
    cmd = [sys.executable, str(driver), *args] if driver else [sys.executable, "-m", "htdp_verify.cli", *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd, env={**os.environ, **(env or {})}
    )


@pytest.fixture
def driver(tmp_path):
    p = tmp_path / "driver.py"
    p.write_text(DRIVER)
    return p


def _main(*args):
    """``htdp-verify ARGS`` in this process (``cli.main``), with its exit code and captured output: for the usage
    errors and listings, where a fresh interpreter (3 s of imports each) tests nothing more; the tests of signals,
    pipes and the console script keep a subprocess."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def _one_line_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_negative_seed_is_a_one_line_usage_error(tmp_path):
    _one_line_error(_main("run", "stats", "--seed", "-1", "--out", str(tmp_path / "o")), "--seed", "-1")
    _one_line_error(_main("run", "stats", "--seed", "x", "--out", str(tmp_path / "o")), "--seed")
    _one_line_error(_main("bench", "--seed", "-3", "--out", str(tmp_path / "b")), "--seed")
    assert not (tmp_path / "o").exists()


def test_out_naming_a_file_is_a_one_line_usage_error(tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    _one_line_error(_main("run", "stats", "--out", str(f)), "--out", "is a file")
    _one_line_error(_main("bench", "--quick", "--out", str(f)), "--out", "is a file")
    assert f.read_text() == "x"


def test_unwritable_out_is_a_one_line_usage_error(tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    _one_line_error(_main("run", "stats", "--out", str(f / "sub")), "--out", "cannot write")
    if os.geteuid() == 0:  # root writes through permissions: use a folder no one can create
        target = "/proc/htdp-verify-test/out"
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        target = str(ro / "out")
    _one_line_error(_main("run", "stats", "--out", target), "--out", "cannot write")


def test_unknown_name_is_a_one_line_usage_error(tmp_path):
    _one_line_error(_main("run", "no_such_check", "--out", str(tmp_path / "o")), "no_such_check")
    _one_line_error(_main("list", "no_such_check"), "no_such_check")


def test_list_into_a_closed_pipe_has_no_traceback():
    p = subprocess.Popen(
        [sys.executable, "-m", "htdp_verify.cli", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    first = p.stdout.readline()
    p.stdout.close()  # what `| head -1` does after one line
    err = p.stderr.read()
    # the whole list may already sit in the pipe's buffer when the reader closes it (exit 0): either way no traceback
    assert p.wait(timeout=60) in (0, cli.EXIT_PIPE)
    assert first.strip() and "Traceback" not in err and "BrokenPipe" not in err, err


def test_list_and_run_agree_on_the_number_of_checks(tmp_path):
    listed = _main("list", "stats").stdout.strip().splitlines()
    n = len(get_checks(["stats"]))
    assert len(listed) == n + 1 and listed[-1].startswith(f"{n} checks selected")
    r = _main("run", "stats", "--out", str(tmp_path / "o"), "--no-progress", "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert f"{n} checks ran" in r.stdout.strip().splitlines()[-1]
    assert len(get_checks(None)) == int(_main("list").stdout.strip().splitlines()[-1].split()[0])


def test_every_bench_option_has_help_text():
    bench = cli.build_parser()._subparsers._group_actions[0].choices["bench"]
    for action in bench._actions:
        assert action.help, f"bench option {action.option_strings} has no help"


def test_help_lists_all_exit_codes():
    for args in (["--help"], ["run", "--help"]):
        text = _cli(*args).stdout
        for code in ("0 ", "1 ", "2 ", "3 ", "130", "141"):
            assert f"  {code}" in text, (args, code)


def _wait_for_lines(path: Path, n: int, proc, timeout: float = 90.0) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if path.exists() and len(path.read_text().splitlines()) >= n:
            return
        if proc.poll() is not None:
            raise AssertionError(f"run ended early: {proc.returncode} {proc.stderr.read()}")
        time.sleep(0.2)
    raise AssertionError(f"{path} did not reach {n} lines")


def test_ctrl_c_keeps_finished_checks_and_resume_continues(tmp_path, driver):
    out = tmp_path / "run"
    p = subprocess.Popen(
        [sys.executable, str(driver), "run", "zz", "--out", str(out), "--no-progress", "--seed", "11"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_lines(out / "results.jsonl", 2, p)  # header + the fast check: the slow one is running
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    # 180 s > the slow check's 120 s sleep: a swallowed SIGINT shows as exit 0 (assert below), not as a timeout;
    # a slow exit on a loaded machine (a fresh-clone CI run timed out at 60 s) still passes
    _, err = p.communicate(timeout=180)
    assert p.returncode == cli.EXIT_INTERRUPTED, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert str(out / "results.jsonl") in err and "--resume" in err
    partial = json.loads((out / "results.json").read_text())
    assert [r["name"] for r in partial["results"]] == ["zz.a_fast"] and partial["meta"]["interrupted"] is True
    first = (out / "results.jsonl").read_text().splitlines()[1]

    # contradicting the stored run is a usage error; continuing it runs only the missing check
    _one_line_error(_cli("run", "--resume", str(out), "--seed", "12", driver=driver), "--seed")
    r = _cli("run", "--resume", str(out), "--no-progress", driver=driver, env={"ZZ_FAST": "1"})
    assert r.returncode == 0, r.stderr
    lines = (out / "results.jsonl").read_text().splitlines()
    assert lines[1] == first and [json.loads(x)["check"] for x in lines[1:]] == ["zz.a_fast", "zz.b_slow"]
    resumed = json.loads((out / "results.json").read_text())["results"]

    # the same seeds as an uninterrupted run
    fresh = tmp_path / "fresh"
    r = _cli("run", "zz", "--out", str(fresh), "--no-progress", "--seed", "11", driver=driver, env={"ZZ_FAST": "1"})
    assert r.returncode == 0, r.stderr
    whole = json.loads((fresh / "results.json").read_text())["results"]
    key = lambda rs: [(x["name"], x["seed"], x["estimate"]) for x in rs]  # noqa: E731
    assert key(resumed) == key(whole)
    assert whole[1]["seed"] == cli.derive_seed(11, "zz.b_slow")


def test_resume_drops_a_line_cut_short_by_a_crash(tmp_path, driver):
    out = tmp_path / "run"
    assert _cli("run", "zz", "--out", str(out), "--no-progress", driver=driver, env={"ZZ_FAST": "1"}).returncode == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # crash mid-line
    r = _cli("run", "--resume", str(out), "--no-progress", driver=driver, env={"ZZ_FAST": "1"})
    assert r.returncode == 0, r.stderr
    assert [json.loads(x)["check"] for x in (out / "results.jsonl").read_text().splitlines()[1:]] == [
        "zz.a_fast",
        "zz.b_slow",
    ]


def test_resume_of_a_folder_without_a_stream_is_a_usage_error(tmp_path):
    (tmp_path / "empty").mkdir()
    _one_line_error(_main("run", "--resume", str(tmp_path / "empty")), "results.jsonl")


def test_jsonl_has_one_flushed_line_per_finished_check(tmp_path):
    out = tmp_path / "o"
    assert cli.main(["run", "stats", "--out", str(out), "--no-progress", "--seed", "2"]) == 0
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert lines[0]["format_version"] == 2 and lines[0]["meta"]["seed"] == 2
    assert [x["check"] for x in lines[1:]] == [c.name for c in get_checks(["stats"])]


def test_bench_auto_only_skips_the_white_box_column(monkeypatch, tmp_path):
    seen = {}

    class _EP:
        name = "default"

        def load(self):
            def run_bench(**kw):
                seen.update(kw)
                return []

            return run_bench

    from htdp_verify import _cli_bench

    monkeypatch.setattr(_cli_bench, "entry_points", lambda group: [_EP()])
    assert cli.main(["bench", "--quick", "--auto-only", "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    assert seen["white_box"] is False
    seen.clear()
    assert cli.main(["bench", "--quick", "--out", str(tmp_path / "c"), "--no-progress"]) == 0
    assert "white_box" not in seen  # the suite's default (both columns)


def test_bench_resume_takes_its_settings_from_the_folder(tmp_path):
    _one_line_error(_main("bench", "--resume", str(tmp_path), "--seed", "3"), "--resume", "--seed")
    _one_line_error(_main("bench", "--resume", str(tmp_path / "none")), "--resume", "results.jsonl")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.jsonl").write_text(
        '{"format": "htdp-verify-results-stream", "format_version": 2, "meta": {"profile": "quick"}}\n'
    )
    _one_line_error(_main("bench", "--resume", str(tmp_path / "run")), "--resume", "not written by")


def test_bench_combine_writes_the_over_seeds_table_and_refuses_run_options(tmp_path):
    _one_line_error(_main("bench", "--combine", str(tmp_path), "--seed", "3"), "--combine", "--seed")
    _one_line_error(_main("bench", "--combine", str(tmp_path / "none"), "--out", str(tmp_path / "o")), "--combine")
    from audits.benchmark import run_bench

    kw = dict(quick=True, progress=False, names=["Laplace"], n_jobs=1, n_per_side=20_000, white_box=False)
    for s in (4, 5):
        run_bench(out_dir=tmp_path / f"r{s}", seed=s, **kw)
    r = _main("bench", "--combine", str(tmp_path / "r4"), str(tmp_path / "r5"), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "over 2 seeds" in (tmp_path / "o" / "bench_seeds.md").read_text()
