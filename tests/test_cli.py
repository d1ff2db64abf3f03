import json
import subprocess
import sys

import pytest

from htdp_verify import cli
from htdp_verify.registry import get_checks, register
from htdp_verify.results import CheckResult


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
    assert cli.main(["run", "zz_test.violating", "--out", str(tmp_path / "z"), "--no-progress",
                     "--fail-on", "violated"]) == 3


def test_fail_on_violated_ignores_expected_canaries(tmp_path, capsys, monkeypatch):
    from htdp_verify import registry

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
        return cli.main(["run", *names, "--out", str(tmp_path / "_".join(names)), "--no-progress",
                         "--fail-on", fail_on])

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
    assert "violated (expected violated)" in report and "1 info (no claim tested)" in report


def test_help_documents_exit_codes():
    text = cli.build_parser().format_help()
    assert "exit codes" in text and "--fail-on violated" in text


def test_console_script_help():
    r = subprocess.run([sys.executable, "-m", "htdp_verify.cli", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "run" in r.stdout and "bench" in r.stdout


def test_bench_rejects_a_seed_count_below_one(tmp_path, capsys):
    assert cli.main(["bench", "--quick", "--seeds", "0", "--out", str(tmp_path / "b"), "--no-progress"]) == 2
    assert "--seeds must be >= 1" in capsys.readouterr().err
