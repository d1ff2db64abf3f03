"""Files read back may come from someone else (a red-team pass over resume, combine and event rebuilding).

Each case below was accepted before: a figure named ``/etc/passwd`` was embedded base64 in ``report.html``;
format 99, numbers as strings, ``NaN`` literals, unknown fields, duplicated checks and 500-level nesting were read
(or crashed deep inside); a bench record "violated" below its claim was counted as a flag and a folder declaring
10⁶ seeds started 2·10⁶ audits; an event spec's side ``">"`` was read as ``"<="`` and an orientation of 7 flipped
the ratio.  Every one must now be refused with a message naming the file, line or field.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from htdp_verify.claims import PrivacyClaim
from htdp_verify.report.model import own_file
from htdp_verify.results import CheckResult
from htdp_verify.runlog import RunLog, read_runlog


def _stream(tmp_path: Path) -> list[str]:
    r = CheckResult("c.one", "consistent", "epsilon_lb", 0.4, alpha=0.05, n_samples=10, seconds=1.0)
    with RunLog(tmp_path, {"profile": "quick", "seed": 1}) as log:
        log.append("c.one", 1, [r])
    return (tmp_path / "results.jsonl").read_text().splitlines()


def _rewrite(tmp_path: Path, lines: list[str]) -> None:
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + "\n")


def test_the_report_embeds_only_its_own_figures(tmp_path):
    (tmp_path / "fig.png").write_bytes(b"\x89PNG")
    outside = tmp_path.parent / "secret.png"
    outside.write_bytes(b"secret")
    (tmp_path / "link.png").symlink_to(outside)
    assert own_file(tmp_path, "fig.png")
    for name in ("/etc/passwd", "../secret.png", str(outside), "link.png", "fig.PNG.txt", 3):
        assert not own_file(tmp_path, name), name


def test_a_genuine_stream_reads_back(tmp_path):
    _stream(tmp_path)
    assert read_runlog(tmp_path).done["c.one"][0].estimate == 0.4


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda h, r: (h.replace('"format_version": 2', '"format_version": 99'), r), "format_version 99"),
        (lambda h, r: (h, r.replace('"estimate": 0.4', '"estimate": "0.4"')), "estimate"),
        (lambda h, r: (h, r.replace('"estimate": 0.4', '"estimate": NaN')), "non-JSON constant NaN"),
        (lambda h, r: (h, r.replace('"alpha": 0.05', '"alpha": 7')), "alpha"),
        (lambda h, r: (h, r.replace('"summary": ""', '"summary": "", "extra": 1')), "extra"),
        (lambda h, r: (h, r.replace('"details": {}', '"details": ' + "[" * 500 + "]" * 500)), "nested deeper"),
    ],
    ids=["format", "string number", "NaN literal", "alpha", "unknown field", "depth bomb"],
)
def test_a_tampered_stream_is_refused_naming_the_line(tmp_path, edit, match):
    head, rec = _stream(tmp_path)
    head, rec = edit(head, rec)
    _rewrite(tmp_path, [head, rec])
    with pytest.raises(ValueError, match=match):
        read_runlog(tmp_path)


def test_a_check_recorded_twice_is_refused(tmp_path):
    head, rec = _stream(tmp_path)
    _rewrite(tmp_path, [head, rec, rec.replace("0.4", "5.0")])
    with pytest.raises(ValueError, match="line 3: check 'c.one' is recorded twice"):
        read_runlog(tmp_path)


def test_a_bench_record_that_contradicts_itself_or_asks_for_a_million_seeds_is_refused(tmp_path):
    from audits.benchmark.run import _bench_stream

    meta = {"bench": True, "quick": True, "seed": 5, "seeds": 1, "names": ["Laplace"], "white_box": False}
    meta |= {"n_per_side": None, "alpha": 0.05}
    r = CheckResult("benchmark.Laplace", "violated", "epsilon_lb", 0.01, alpha=0.05, claim=PrivacyClaim(0.1))
    with RunLog(tmp_path, meta) as log:
        log.append("Laplace [auto] seed 5", 5, [r])
    with pytest.raises(ValueError, match="says violated with ε_lb 0.01 against the claim 0.1"):
        _bench_stream(tmp_path)
    with RunLog(tmp_path, meta | {"seeds": 10**6}) as log:
        pass
    with pytest.raises(ValueError, match="seeds"):
        _bench_stream(tmp_path)
    ok = CheckResult(
        "benchmark.Laplace", "consistent", "epsilon_lb", 0.09, alpha=0.05, claim=PrivacyClaim(0.1), n_samples=2_000_000
    )
    with RunLog(tmp_path, meta) as log:  # a quick run's budget (10⁶ per side): 10⁶ per side recorded is fine
        log.append("Laplace [auto] seed 5", 5, [ok])
    assert list(_bench_stream(tmp_path).done) == ["Laplace [auto] seed 5"]
    with RunLog(tmp_path, meta) as log:  # 10¹² releases recorded by a quick run is not
        log.append("Laplace [auto] seed 5", 5, [CheckResult.from_dict(ok.to_dict() | {"n_samples": 2 * 10**12})])
    with pytest.raises(ValueError, match="more than this run's budget allows"):
        _bench_stream(tmp_path)
    bad_cert = ok.to_dict() | {"details": {"samples": {"n_certify_per_side": 1e99}}}
    with RunLog(tmp_path, meta) as log:  # a certification size that is not a count of the record's releases
        log.append("Laplace [auto] seed 5", 5, [CheckResult.from_dict(bad_cert)])
    with pytest.raises(ValueError, match="n_certify_per_side 1e"):
        _bench_stream(tmp_path)


def _genuine_spec() -> dict:
    import numpy as np

    from htdp_verify.privacy import audit

    res = audit(
        lambda q, size, rng: q + rng.laplace(0, 1, size),
        PrivacyClaim(0.5),
        pairs=[(0.0, 1.0)],
        n_samples=20_000,
        rng=np.random.default_rng(0),
    )
    return json.loads(json.dumps(res.details["event"]["spec"]))


@pytest.mark.parametrize(
    "field, value, match",
    [("side", ">", "side"), ("orientation", 7, "orientation"), ("params", ["nan"], "params"), ("kind", "x", "kind")],
)
def test_a_tampered_event_spec_is_refused(field, value, match):
    from htdp_verify.privacy.attacks.serialise import event_from_spec

    spec = _genuine_spec()
    assert spec["kind"] in ("threshold", "interval") and math.isfinite(event_from_spec(spec).params[0])  # genuine
    if field == "params":
        value = value * len(spec["params"])
    with pytest.raises(ValueError, match=match):
        event_from_spec(spec | {field: value})
