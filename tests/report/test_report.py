"""The report: findings first (with cause, claim in words, pair, event, bound, figure, reproduction command),
expected outcomes apart, one section per suite, a sortable/filterable table without network access, links that
resolve, results.json valid against the published schema, and (where Chromium is installed) a screenshot of the
first screen at 1280 px that shows the findings."""

import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from _schema import validate_tree
from htdp_verify.claims import PrivacyClaim, Provenance, RateClaim
from htdp_verify.report import write_report
from htdp_verify.report.model import claim_text
from htdp_verify.results import CheckResult

PROV = Provenance("diffprivlib 0.6.6", "models.GaussianNB")
CAUSE = "a class with no training records gets a count of exactly 0, with no noise"
VIOLATED_RGB = (0xC6, 0x28, 0x28)  # colour of a 'violated' finding (badge and card border)


def _figure(out: Path, name: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 2.5))
    ax.plot([0, 1], [0, 1])
    ax.set_title(name)
    fig.tight_layout()
    fig.savefig(out / name)
    plt.close(fig)
    return name


def _results(out: Path, n_consistent: int = 30) -> list[CheckResult]:
    out.mkdir(parents=True, exist_ok=True)
    fig = _figure(out, "violation.png")
    (out / "repro_gnb.py").write_text("print('reproduce')\n")
    d = [[0.2, 0.0]] * 20
    dp = [[0.2, 1.0]] + [[0.2, 0.0]] * 19
    rs = [
        CheckResult(
            "diffprivlib.models.GaussianNB.eps0_1",
            "violated",
            "epsilon_lb",
            4.9,
            (4.9, math.inf),
            0.002,
            PrivacyClaim(0.1, 0.0, "replace", PROV),
            800,
            30.0,
            7,
            PROV,
            "certified ε ≥ 4.9 against 0.1",
            {
                "cause": CAUSE,
                "reproduction_script": "repro_gnb.py",
                "script_missing": "x",
                "pair": {"label": "one row of class 1", "relation": "replace", "d": d, "d_prime": dp},
                "event": {"event": "output[3] >= 0.5", "orientation": "D over D'"},
                "detectability": {"statement": "would detect ε ≥ 0.4"},
            },
            [fig],
        ),
        CheckResult(
            "wang_dpem.privacy.literal_eps",
            "violated",
            "epsilon_lb",
            2.5,
            (2.5, math.inf),
            0.05,
            PrivacyClaim(1.0),
            1000,
            3.0,
            1,
            PROV,
            "the canary fired",
            {},
            [],
            expected="violated",
        ),
        CheckResult(
            "zhao2024.rate.iterative_n",
            "inconclusive",
            "exponent",
            -0.7,
            (-0.9, -0.5),
            0.05,
            RateClaim("n", -0.75, 0.1),
            100,
            2.0,
            1,
            PROV,
            "too few replications",
            {},
            [],
        ),
        CheckResult("hu2022.compare_baselines", "info", summary="comparison table", alpha=0.0),
    ]
    rs += [
        CheckResult(
            f"stats.check_{i:02d}",
            "consistent",
            "rate",
            0.01 * i,
            (0.0, 0.05 + 0.01 * i),
            0.05,
            None,
            100 + i,
            0.1 * i,
            i,
            Provenance("Clopper & Pearson 1934"),
            f"fine {i}",
        )
        for i in range(n_consistent)
    ]
    return rs


@pytest.fixture
def report(tmp_path):
    out = tmp_path / "rep"
    rs = _results(out)
    write_report(
        rs, out, {"profile": "quick", "seed": 20261121, "version": "0.1.0", "seconds": 42.0, "checks": len(rs)}
    )
    yield out
    assert validate_tree(tmp_path) >= 1


def test_findings_come_first_with_cause_claim_pair_event_bound_figure_and_command(report):
    html = (report / "report.html").read_text()
    find = html.index('id="findings"')
    assert find < html.index('id="all"') < html.index('id="suite-diffprivlib"')
    first_card = html[find : html.index("</article>", find)]
    for needle in (
        CAUSE,
        "ε = 0.1-differential privacy for neighbouring datasets with one record replaced",
        "certified ε ≥ 4.9 at 99.8 % confidence (claim ε = 0.1)",
        "20 records each, 1 differing: record 0",
        "output[3] &gt;= 0.5",
        "htdp-verify run diffprivlib.models.GaussianNB.eps0_1 --seed 20261121",
        "data:image/png;base64,",
        'href="repro_gnb.py"',
    ):
        assert needle in first_card, needle
    assert "PrivacyClaim(" not in html and "[[0.2, 0.0]" not in html  # words, not reprs or whole datasets
    md = (report / "report.md").read_text()
    assert md.index("## Findings") < md.index(CAUSE) < md.index("## Suites")
    assert md.index("zhao2024.rate.iterative_n — inconclusive") < md.index("## Suites")


def test_expected_outcomes_are_not_findings(report):
    html = (report / "report.html").read_text()
    findings = html[html.index('id="findings"') : html.index('id="expected"')]
    assert "wang_dpem.privacy.literal_eps" not in findings
    expected = html[html.index('id="expected"') : html.index('id="all"')]
    assert "wang_dpem.privacy.literal_eps" in expected and "violated, as expected" in expected
    assert "1 violated, 1 inconclusive among 34 results; the others: 30 consistent" in html


def test_one_section_per_suite_with_a_summary_line(report):
    html = (report / "report.html").read_text()
    for suite in ("diffprivlib", "hu2022", "stats", "wang_dpem", "zhao2024"):
        assert f'id="suite-{suite}"' in html
    assert "30 results: 30 consistent; " in html
    assert "1 result: 1 descriptive (no claim tested)" in html


def test_no_sentence_without_content():
    rs = [CheckResult(f"s.c{i}", "consistent", alpha=0.05) for i in range(40)]  # α's sum to 2
    from htdp_verify.report.model import _alpha_text

    text = _alpha_text(rs)
    assert "at most 1" not in text and "no run-wide bound" in text
    assert "at most 0.5" in _alpha_text(rs[:10])


def test_every_link_resolves_and_nothing_is_fetched_from_the_network(report):
    html = (report / "report.html").read_text()
    links = re.findall(r'(?:href|src)="([^"]+)"', html)
    assert links
    for link in links:
        assert not link.startswith(("http:", "https:", "//")), link
        if link.startswith(("#", "data:")):
            if link.startswith("#") and len(link) > 1:
                assert f'id="{link[1:]}"' in html, link
            continue
        assert (report / link).is_file(), link
    assert "<script src" not in html
    for link in re.findall(r"\]\(([^)]+)\)", (report / "report.md").read_text()):
        assert (report / link).is_file(), link


def test_missing_reproduction_script_is_not_linked(tmp_path):
    out = tmp_path / "r"
    rs = _results(out, 0)
    (out / "repro_gnb.py").unlink()
    write_report(rs, out, {"seed": 1})
    assert "repro_gnb.py" not in (out / "report.html").read_text()


def test_table_is_sortable_and_filterable_in_plain_javascript(report):
    html = (report / "report.html").read_text()
    assert '<table id="results">' in html and 'id="q"' in html and 'id="outcome"' in html
    assert "addEventListener('click'" in html and "aria-sort" in html
    assert html.count("<tr data-outcome=") == 34


def test_claim_text_is_words():
    assert claim_text(PrivacyClaim(0.5, 1e-6, "add_remove")) == (
        "(ε = 0.5, δ = 1e-06)-differential privacy for neighbouring datasets with one record added or removed"
    )
    assert "scales as n^-0.5" in claim_text(RateClaim("n", -0.5, 0.1))


def test_partial_report_says_how_to_continue(tmp_path):
    out = tmp_path / "p"
    write_report(_results(out, 1), out, {"checks": 9, "checks_finished": 4, "interrupted": True, "seed": 1})
    html = (out / "report.html").read_text()
    assert "interrupted after 4 of 9 checks" in html and f"htdp-verify run --resume {out}" in html


# ---------------------------------------------------------------------------------------------------------
# the first screen in a real browser (headless Chromium, where installed)
# ---------------------------------------------------------------------------------------------------------
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 800) -> np.ndarray:
    """The first screen of ``page`` at ``width`` × ``height`` as an RGB array (headless Chromium)."""
    exe = _chromium()
    r = subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert png.is_file(), r.stderr[-2000:]
    import matplotlib.image

    img = matplotlib.image.imread(str(png))[..., :3]
    return np.round(img * 255).astype(int) if img.dtype.kind == "f" else img.astype(int)


def first_screen_shows_a_violation(img: np.ndarray) -> bool:
    """Whether the first screen shows a 'violated' finding: at least a card border's worth of its colour."""
    hit = np.all(np.abs(img - np.array(VIOLATED_RGB)) <= 8, axis=-1)
    return int(hit.sum()) >= 600


@pytest.mark.skipif(_chromium() is None, reason="no Chromium installed (apt-get install chromium)")
def test_first_screen_at_1280px_shows_the_findings(report, tmp_path):
    img = screenshot(report / "report.html", tmp_path / "first.png")
    assert img.shape[1] == 1280
    assert first_screen_shows_a_violation(img)
    # the checker fails on a page whose findings are pushed below the first screen
    html = (
        (report / "report.html")
        .read_text()
        .replace('<section id="findings">', '<div style="height:2000px"></div><section id="findings">')
    )
    moved = report / "moved.html"
    moved.write_text(html)
    assert not first_screen_shows_a_violation(screenshot(moved, tmp_path / "moved.png"))
