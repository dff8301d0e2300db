"""The report from the tiny experiment: Markdown, self-contained HTML, figures, and a real browser."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from authorguard.cli.app import app
from authorguard.experiments.pages import check_html_in_chromium, find_chromium
from authorguard.experiments.report import build_report


@pytest.fixture(scope="module")
def report(tiny_run, tmp_path_factory):
    folder, _, _ = tiny_run
    out = tmp_path_factory.mktemp("report")
    return build_report(folder, out), out


def test_markdown_has_table3_per_scenario_and_the_commands(report, tiny_run):
    paths, out = report
    text = paths["markdown"].read_text(encoding="utf-8")
    assert "## Table 3, Top2-Any" in text and "## Table 3, Top3-Any" in text
    assert re.search(r"\| syntf \| epsilon=\d+\.0, n_words=40 \| 0\.\d{3} ± 0\.\d{3} \|", text)
    assert f"authorguard experiment run {tiny_run[2]}" in text
    for name in ("f1_by_scenario", "gain_vs_epsilon"):
        assert f"figures/{name}.png" in text
        assert (out / "figures" / f"{name}.png").stat().st_size > 10_000


def test_html_is_self_contained(report):
    paths, _ = report
    page = paths["html"].read_text(encoding="utf-8")
    assert page.count("src='data:image/png;base64,") == 2
    assert "figures/" not in re.sub(r"<figcaption>.*?</figcaption>|<p>.*?</p>", "", page)


@pytest.mark.skipif(
    find_chromium() is None, reason="headless Chromium not installed (.ci/run installs Debian's chromium)"
)
def test_html_renders_its_figures_in_headless_chromium(report, tmp_path):
    paths, _ = report
    loaded, total = check_html_in_chromium(paths["html"], tmp_path / "shot.png")
    assert (loaded, total) == (2, 2)
    assert (tmp_path / "shot.png").stat().st_size > 20_000


def test_report_cli_and_bad_options(tiny_run, tmp_path):
    folder, _, _ = tiny_run
    result = CliRunner().invoke(
        app, ["report", str(folder), "-o", str(tmp_path / "r"), "--attacker", "bow", "--classifier", "nb"]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r" / "report.html").exists()
    bad = CliRunner().invoke(app, ["report", str(folder), "-o", str(tmp_path / "x"), "--attacker", "stylo"])
    assert bad.exit_code == 2 and "no attacker 'stylo'" in bad.output
    missing = CliRunner().invoke(app, ["report", str(tmp_path / "nothing"), "-o", str(tmp_path / "y")])
    assert missing.exit_code == 2 and "no results file" in missing.output


def test_text_benchmark_report_has_tables_and_scatter(tiny_text_run, tmp_path):
    folder, _, _ = tiny_text_run
    paths = build_report(folder, tmp_path / "r")
    text = paths["markdown"].read_text(encoding="utf-8")
    assert (
        "## AMT-10: utility ↑, worst-case attack F1 ↓" in text
        and "## AMT-10: attack F1 ↓ per attacker and threat model" in text
    )
    assert (
        "| dropout | rate=0.5 | char-ngrams |" in text and "Table 3" not in text
    )  # no Top-k scenario: no SynTF-paper tables
    assert "## AMT-10: worst-case attribution accuracy ↓ with its 95 % interval" in text
    assert re.search(
        r"\| dropout \| rate=0\.5 \| 128 train / 16 test \| [01]\.\d{3} \| \[0\.\d{3}, [01]\.\d{3}\] \|", text
    )
    assert (tmp_path / "r" / "figures" / "scatter_AMT_10.png").stat().st_size > 10_000
    if find_chromium() is not None:
        assert check_html_in_chromium(paths["html"]) == (1, 1)


def test_methods_with_a_guarantee_are_plotted_against_the_document_epsilon(tiny_text_run, tmp_path):
    import json

    import pandas as pd

    from authorguard.experiments.figures import epsilon_figure
    from authorguard.experiments.results import benchmark_points, benchmark_table

    _, frame, _ = tiny_text_run
    assert not epsilon_figure(frame, ["AMT-10"], "svm", tmp_path / "none.png")  # one SynTF setting: no curve
    # a second SynTF setting (the same scores at another ε) makes a curve
    second = frame[frame["method"] == "syntf"].assign(
        params=json.dumps({"epsilon": 40.0}), document_epsilon=lambda f: f["document_epsilon"] * 2
    )
    both = pd.concat([frame, second], ignore_index=True)
    points = benchmark_points(both, "AMT-10")
    low, high = sorted(points.loc[points["method"] == "syntf", "document_epsilon"])
    assert high == pytest.approx(2 * low) and low > 0
    assert points.loc[points["method"] == "dropout", "document_epsilon"].isna().all()
    assert points["utility_retrained"].notna().all()
    assert epsilon_figure(both, ["AMT-10"], "svm", tmp_path / "epsilon.png")
    assert (tmp_path / "epsilon.png").stat().st_size > 10_000
    assert list(benchmark_table(both, "AMT-10", part_name="summary").columns[:3]) == ["method", "setting", "document ε"]


def test_every_series_gets_its_own_colour():
    from authorguard.experiments.figures import series_styles

    for n in (3, 14, 40):
        styles = series_styles(n)
        assert len({colour for colour, _ in styles}) == n


def test_method_reports_become_one_row_per_method_and_run():
    import json

    import pandas as pd

    from authorguard.experiments.report import _method_reports

    frame = pd.DataFrame(
        {
            "view": ["BAC-10"] * 4,
            "method": ["tarot", "tarot", "tarot", "synonyms"],
            "run": [0, 0, 1, 0],
            "method_report": [json.dumps({"chunks": 12, "documents": 5})] * 2
            + [json.dumps({"chunks": 13, "documents": 5}), "{}"],
        }
    )
    table = _method_reports(frame, "BAC-10")
    assert table.to_dict("records") == [
        {"method": "tarot", "run": 0, "chunks": 12, "documents": 5},
        {"method": "tarot", "run": 1, "chunks": 13, "documents": 5},
    ]
    assert _method_reports(frame.drop(columns="method_report"), "BAC-10").empty
