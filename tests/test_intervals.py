"""Issue 50: every interval shown is a valid 95% interval at its n. A bootstrap of a constant is a point, not an
interval: where nothing varies to resample, the exact binomial (Clopper-Pearson) interval is shown and marked ‡.

The right answers are closed forms: for 0 of n the exact upper bound is 1 - 0.025^(1/n); for n of n the lower
bound is 0.025^(1/n)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from socialbench.benchmarks.longsocial.figures import _delta_estimate, _draws
from socialbench.benchmarks.longsocial.grid import Run, families, grid
from socialbench.benchmarks.longsocial.tables import open_vs_choice, table16
from socialbench.shared.reporting import Table, format_value
from socialbench.shared.statistics import (
    BOOTSTRAP,
    EXACT,
    bootstrap_ci,
    cluster_bootstrap_ci,
    exact_mark,
    proportion_ci,
)


def _upper_of_none(n: int) -> float:
    return 1 - 0.025 ** (1 / n)


@pytest.mark.parametrize("n", [1, 4, 30])
def test_a_constant_sample_gets_the_exact_interval_not_a_point(n: int) -> None:
    none, every = bootstrap_ci([0.0] * n, outcomes="binary"), bootstrap_ci([1.0] * n, outcomes="binary")
    assert none[0] == 0.0 and math.isclose(none[1], _upper_of_none(n), rel_tol=1e-9)
    assert every[1] == 1.0 and math.isclose(every[0], 0.025 ** (1 / n), rel_tol=1e-9)
    assert none.method.startswith(EXACT) and f"over {n}" in none.method
    assert bootstrap_ci([1.0, 0.0, 1.0, 1.0]).method == BOOTSTRAP  # something to resample: the bootstrap


def test_paired_differences_that_are_all_zero_get_a_two_sided_interval() -> None:
    """Every item scored alike in both runs: the change is 0 but not known to be exactly 0."""
    ci = bootstrap_ci([0.0] * 10, outcomes="paired")
    # each of the +1 and -1 shares is bounded at 97.5% (Bonferroni): 1 - 0.0125^(1/10)
    bound = 1 - 0.0125 ** (1 / 10)
    assert math.isclose(ci[0], -bound, rel_tol=1e-9) and math.isclose(ci[1], bound, rel_tol=1e-9)
    assert ci[0] < 0 < ci[1] and ci.method.startswith(EXACT)
    assert math.isnan(
        bootstrap_ci([5.0, 5.0], outcomes="paired")[0]
    )  # a 0-10 score: no exact form, n/a (never a point)


def test_a_clustered_interval_that_cannot_be_formed_falls_back_to_the_pairs_count() -> None:
    """PerSo behavioral over 4 pairs, every answer wrong, both orders of each pair: printed 0.0 [0.0, 0.0]."""
    ci = cluster_bootstrap_ci([0.0] * 8, ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"])
    assert ci[0] == 0.0 and math.isclose(ci[1], _upper_of_none(4), rel_tol=1e-9)
    assert "over 4" in ci.method  # the pairs, not the 8 answers
    assert proportion_ci([0.0] * 4).method == "Wilson score"  # unclustered accuracies keep Wilson


def test_perso_prints_the_exact_interval_with_its_mark() -> None:
    from socialbench.benchmarks.perso.figures import _pct_estimate
    from socialbench.benchmarks.perso.report import _accuracy

    line = _accuracy([0.0] * 8, ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"])
    table = Table("t", "accuracy", ["model", "all pairs %"], [["m", _pct_estimate(line)]], show_n=True)
    assert table.cell(table.rows[0][1]) == f"0.0 [0.0, {100 * _upper_of_none(4):.1f}]‡ n=8" and exact_mark(line) == "‡"
    assert "‡ exact binomial" in table.caption_note  # every rendering says what the mark means


def _run(model: str, workflow: str, correct: list[float], **extra: Any) -> Run:
    rows = [
        {"item": f"i{k}", "correct": c, "status": "answered", "capability": "C1", "platform": "hn", "episode": "e1"}
        for k, c in enumerate(correct)
    ]
    family = {"full": "Full-context", "cot": "Reasoning", "open-answer": "Open answer"}[workflow]
    return Run(path=f"/{model}-{workflow}.eval", model=model, workflow=workflow, family=family, diagnostic=False,
               episodes=None, rows=rows, **extra)  # fmt: skip


def test_a_one_cell_family_and_a_zero_change_have_width() -> None:
    runs = [_run("m", "full", [1.0, 0.0, 1.0, 0.0]), _run("m", "cot", [1.0, 0.0, 1.0, 0.0])]
    cells = grid(runs)
    (cot,) = [c for c in cells if c["workflow"] == "cot"]
    delta = cot["delta_vs_full"]
    assert delta["delta"] == 0.0 and delta["ci95"][0] < 0 < delta["ci95"][1]  # was [+0.0, +0.0]
    assert format_value(_delta_estimate(delta), 1).endswith("]‡") and _delta_estimate(delta).n == 4
    full = next(f for f in families(cells) if f["family"] == "Full-context")
    assert full["cells"] == 1 and full["ci95"][0] < 0.5 < full["ci95"][1]  # exact over its 4 items, not [50, 50]
    assert "over 4" in full["ci_method"] and exact_mark(full) == "‡"


def test_table16s_best_cell_right_on_every_item_is_not_a_point() -> None:
    runs = [_run("m", "full", [1.0] * 6), _run("m", "cot", [0.0, 1.0] * 3)]
    t16 = table16(runs, draws=50, size=6)
    best = t16["best_cell"]
    assert best["mean"] == 1.0 and math.isclose(best["ci95"][0], 0.025 ** (1 / 6), rel_tol=1e-9)
    assert format_value(_draws(best), 1).endswith("‡")


def test_table4_pairs_an_open_answer_run_with_full_whatever_its_grader() -> None:
    """Full calls no grader: its run and an open-answer run with one paired on nothing ({"models": []})."""
    full = _run("m · grader unset", "full", [1.0, 0.0, 1.0], without_roles="m")
    opened = _run("m · grader=g", "open-answer", [0.0, 0.0, 1.0], without_roles="m")
    table = open_vs_choice([full, opened])
    (row,) = table["models"]
    assert row["items"] == 3 and math.isclose(row["drop"], 1 / 3) and table["unpaired"] == []
    alone = open_vs_choice([opened])
    assert alone["models"] == [] and "no Full run" in alone["unpaired"][0]["reason"]
    from socialbench.benchmarks.longsocial.tables import table19

    probes = table19([opened])  # the JSON and HTML tables carry the reason too
    assert "no Full run" in probes["open_answer"]["unpaired"][0]["reason"]


def test_table13s_best_names_every_tied_setting() -> None:
    """Issue 50: ties went to the alphabetically last setting (``100.0 (struct-ancestors)``)."""
    from socialbench.benchmarks.longsocial.tables import table13

    runs = [_run("m", "full", [1.0, 1.0]), _run("m", "cot", [1.0, 1.0]), _run("m", "open-answer", [1.0, 0.0])]
    (row,) = table13(runs)
    assert row["best"] == 1.0 and row["best_tied"] == ["full", "cot"] and row["best_setting"] == "tied: full, cot"
    (single,) = table13(runs[:1] + runs[2:])
    assert single["best_setting"] == "full" and single["best_tied"] == ["full"]


def test_pairs_each_right_in_one_order_get_the_samples_exact_interval() -> None:
    """A model that always rates the second reply higher is right in exactly one order of every pair: every resample
    of pairs gives 50%, and the cluster bootstrap printed [50.0, 50.0]. The samples' exact interval instead."""
    ci = cluster_bootstrap_ci([1.0, 0.0] * 5, [i // 2 for i in range(10)])
    assert math.isclose(ci[0], 0.18709, abs_tol=1e-5) and math.isclose(ci[1], 0.81291, abs_tol=1e-5)  # 5 of 10
    assert ci.method.startswith(EXACT) and "over 10" in ci.method and "5 clusters" in ci.method
