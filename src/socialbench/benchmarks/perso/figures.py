"""PerSo's figures and tables for `socialbench report perso --html / --figures / --tables`: behavioral accuracy
with the length heuristic and the surface-feature classifier as reference lines, per-dimension cognitive
accuracy, first-position rates (Fig. 2), option-choice distributions (§A.5)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from inspect_ai.log import EvalLog
from rich.console import Console

from ...shared.figures import Estimate, bars, dots, from_line, stacked_shares
from ...shared.ledger import usage_rows
from ...shared.outputs import describe
from ...shared.reporting import Document, Figure, Section, Table, print_headline, print_tables, provenance
from ...shared.runs import extracted, run_set
from . import paper
from .baselines import SEEDS, classifier_over_seeds
from .cognitive import LETTERS
from .data import DIMENSIONS, LENGTH_RATIO_LIMIT
from .posts import PostCleaning
from .report import PAPER_FIRST_CHOICE, collect


def _label(run: dict[str, Any]) -> str:
    return str(run["model"]) + (" (thinking)" if run["thinking"] else "")


def _pair_features(log: Any) -> list[tuple[str, list[float], list[float]]]:
    """Per sample of a behavioral log, its pair and the pair's logged surface features (winner, loser)."""
    out = []
    for sample in log.samples or []:
        meta = sample.metadata or {}
        out.append((str(meta["pair_id"]), list(meta["winner_features"]), list(meta["loser_features"])))
    return out


def _classifier_on_logged_pairs(path: str) -> float | None:
    """The 14-feature logistic regression's 5-fold accuracy on the pairs of one behavioral log (features are
    logged), the mean over the seeds of `baselines.SEEDS`."""
    seen = {pair: (w, lo) for pair, w, lo in extracted(path, _pair_features, persist=True)}
    try:
        return float(classifier_over_seeds([w for w, _ in seen.values()], [lo for _, lo in seen.values()])["mean"])
    except ValueError:  # fewer than 10 pairs: no classifier line
        return None


def document(logs: list[str], compare_paper: bool = False) -> Document:
    """PerSo tables from logs of `socialbench run perso` (several models and both tasks at once): one document, which
    the terminal, the HTML page, the LaTeX and CSV tables and ``--json`` (`Document.data`) all render."""
    data = collect(logs)
    data["usage"] = usage_rows([r.path for r in run_set(logs).runs])  # the counted runs, as the ledger prints them
    runs = data["runs"]
    notes: list[str] = []
    behavioral = [r for r in runs if r["task"] == "behavioral"]
    cognitive = [r for r in runs if r["task"] == "cognitive"]
    sections = []
    if behavioral:
        refs: dict[str, float] = {}
        first = behavioral[0]
        if first["length_heuristic_same_pairs"] is not None:
            refs[f"longer reply, same {first['pairs']} pairs"] = first["length_heuristic_same_pairs"]
        classifier = _classifier_on_logged_pairs(first["log"])
        if classifier is not None:
            refs[f"14-feature logistic regression, 5-fold CV, mean of {len(SEEDS)} seeds"] = classifier
        labels = [_label(r) for r in behavioral]
        accuracy = bars(
            "Behavioral accuracy: which reply won the delta",
            labels,
            {  # n = the pairs the interval resamples (both presentation orders of a pair move together)
                "all pairs": [from_line(r["all"], n="pairs") for r in behavioral],
                "length-robust subset": [from_line(r["length_robust"], n="pairs") for r in behavioral],
            },
            references=refs,
            n_label="pairs",
        )
        first_refs = {"no position preference (50%)": 0.5}
        if compare_paper:
            low, high, ref = paper.FIRST_CHOICE_BAND
            first_refs |= {f"paper: {low:g}% ({ref})": low / 100, f"paper: {high:g}% ({ref})": high / 100}
        first_rate = bars(
            "First-position choice rate (Fig. 2)",
            labels,
            {"chose the reply shown first": [from_line(r.get("first_choice")) for r in behavioral]},
            ylabel="share of valid answers (%)",
            references=first_refs,
        )
        behavioral_figures = [
            Figure("perso-behavioral-accuracy", "Behavioral accuracy with reference lines", accuracy),
            Figure("perso-first-position", "First-position choice rate", first_rate),
        ]
        if compare_paper:  # the paper's models are rows beside ours, not nine reference lines
            dot_rows = [(f"{_label(r)}, all pairs", from_line(r["all"]), False) for r in behavioral]
            dot_rows += [
                (f"{name} (paper, {ref})", Estimate(value / 100), True)
                for name, (value, ref) in {**paper.BEHAVIORAL, **paper.BASELINES}.items()
            ]
            behavioral_figures.append(
                Figure(
                    "perso-behavioral-paper",
                    "Behavioral accuracy beside the paper's models and baselines",
                    dots("Behavioral accuracy: this run and the paper's", dot_rows, references={"chance (50%)": 0.5}),
                )
            )
        table = Table(
            "perso-behavioral",
            "Behavioral accuracy % [95% CI over pairs] (both orders of a pair are asked and resampled together)",
            [
                "model",
                "all pairs %",
                "samples",
                "length-robust %",
                "robust samples",
                "first-position %",
                "same choice both orders %",
                "invalid",
                "ties",
                "longer-reply heuristic %",
            ],
            [
                [
                    _label(r),
                    _pct_estimate(r["all"]),
                    r["all"]["n"],
                    _pct_estimate(r["length_robust"]),
                    r["length_robust"]["n"],
                    _pct_estimate(r.get("first_choice")),
                    _pct(r["order_consistent_pairs"]),
                    r["invalid"],
                    r["ties"],
                    _pct(r["length_heuristic_same_pairs"]),
                ]
                for r in behavioral
            ],
            row_logs=[r["log"] for r in behavioral],
            note=" ".join(
                [
                    f"Length-robust: the pairs whose longer reply is at most {LENGTH_RATIO_LIMIT} times the shorter; "
                    + "; ".join(
                        f"{_label(r)}: {r['length_robust']['pairs']} of {r['pairs']} pairs "
                        f"({r['length_robust']['removed_pairs']} removed)"
                        for r in behavioral
                    )
                    + ". Invalid and tied answers are scored wrong.",
                    f"Paper: first-position choice {PAPER_FIRST_CHOICE}; length heuristic 65.5% (Table 9); the "
                    "length-robust subset removed 33 of its 200 pairs (§A.8).",
                ]
            ),
        )
        sections.append(Section("Behavioral task (§3.2.1)", [*behavioral_figures, table]))
        notes += [
            f"{_label(r)}: sampled with unchecked=admit: {r['pairs_with_unchecked_rules']} of {r['pairs']} pairs "
            "have a construction rule that could not be checked (listed per sample in the log)."
            for r in behavioral
            if r["unchecked"] == "admit"
        ]
    if cognitive:
        series = {_label(r): [from_line(r[d]) for d in DIMENSIONS] for r in cognitive}
        paper_series = (
            {
                f"{name} ({ref})": [_share(values[d]) for d in DIMENSIONS]
                for name, (values, ref) in paper.COGNITIVE.items()
                if name in paper.FIGURE_COGNITIVE
            }
            if compare_paper
            else None
        )
        accuracy = bars(
            "Cognitive accuracy per dimension",
            list(DIMENSIONS),
            series,
            references={"chance (25%)": 0.25},
            paper=paper_series,
        )
        groups = [f"{_label(r)}: {d}" for r in cognitive for d in DIMENSIONS]
        shares = {x: [r[d]["option_shares"][x] for r in cognitive for d in DIMENSIONS] for x in LETTERS}
        distribution = stacked_shares("Option-choice distribution (§A.5)", groups, shares)
        table = Table(
            "perso-cognitive",
            "Cognitive accuracy % [95% CI] per dimension, n = items asked",
            ["model", *DIMENSIONS, "unparsed", "items by"],
            [
                [
                    _label(r),
                    *[_pct_estimate(r[d]) for d in DIMENSIONS],
                    sum(r[d]["unparsed"] for d in DIMENSIONS),
                    "; ".join(r["item_authors"] or []),
                ]
                for r in cognitive
            ],
            show_n=True,
            row_logs=[r["log"] for r in cognitive],
            note="Unparsed answers are scored wrong.",
        )
        choices = Table(
            "perso-option-choice",
            "Option-choice distribution % (A / B / C / D) per dimension, over the answers that could be read (§A.5)",
            ["model", "dimension", *LETTERS],
            [[_label(r), d, *[_pct(r[d]["option_shares"][x]) for x in LETTERS]] for r in cognitive for d in DIMENSIONS],
            row_logs=[r["log"] for r in cognitive for _ in DIMENSIONS],
        )
        sections.append(
            Section(
                "Cognitive task (§3.2.2)",
                [
                    Figure("perso-cognitive-accuracy", "Cognitive accuracy per dimension", accuracy),
                    Figure("perso-option-choice", "Option-choice distribution", distribution),
                    table,
                    choices,
                ],
            )
        )
    if data["thinking_deltas"]:
        keys = ["all", *DIMENSIONS]
        sections.append(
            Section(
                "Thinking (§4.4)",
                [
                    Table(
                        "perso-thinking",
                        "Thinking minus non-thinking, accuracy points, between runs that differ only in reasoning "
                        "(§4.4)",
                        ["model", "task", *keys, "no partner"],
                        [
                            [d["model"], d["task"], *[_pct(d.get(k)) for k in keys], d["no_partner"]]
                            for d in data["thinking_deltas"]
                        ],
                        row_logs=[
                            [d["thinking_log"], *([d["partner_log"]] if d.get("partner_log") else [])]
                            for d in data["thinking_deltas"]
                        ],
                    )
                ],
            )
        )
    for r in runs:
        if r["post_cleaning"]["posts"]:
            notes.append(f"{_label(r)}, {r['task']}: {PostCleaning(**{**r['post_cleaning'], 'examples': []}).line()}")
    if compare_paper:
        rows = [
            [n, "behavioral", v, ref, paper.SOURCES.get(n, "")]
            for n, (v, ref) in {**paper.BEHAVIORAL, **paper.BASELINES}.items()
        ]
        rows += [
            [n, f"cognitive: {d}", values[d], ref, paper.SOURCES.get(n, "")]
            for n, (values, ref) in paper.COGNITIVE.items()
            for d in DIMENSIONS
            if values[d] is not None
        ]
        sections.append(
            Section(
                "The paper's numbers",
                [
                    Table(
                        "perso-paper",
                        "PerSo's published numbers (accuracy %), as printed",
                        ["who", "task", "%", "section", "source line (our copy of the paper)"],
                        rows,
                        decimals=2,
                    )
                ],
            )
        )
    top = headline(behavioral, cognitive) if behavioral or cognitive else None
    return Document("perso", "PerSo report", provenance(logs), sections, headline=top, data=data, notes=notes)


def headline(behavioral: list[dict[str, Any]], cognitive: list[dict[str, Any]]) -> Table:
    """The report's first table: per run label, behavioral accuracy over all pairs (n = pairs) and cognitive
    accuracy per dimension (n = items), each % [95% CI]; blank where that task was not run."""
    labels = list(dict.fromkeys(_label(r) for r in [*behavioral, *cognitive]))
    pairs: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = []
    for label in labels:
        b = [r for r in behavioral if _label(r) == label]
        c = [r for r in cognitive if _label(r) == label]
        if len(b) <= 1 and len(c) <= 1:  # one run of each task: one row
            pairs.append((label, b[0] if b else None, c[0] if c else None))
        else:  # runs whose labels do not tell them apart (e.g. two reasoning efforts): a row each, never one dropped
            pairs += [(label, r, None) for r in b] + [(label, None, r) for r in c]
    rows: list[list[Any]] = []
    logs: list[str | list[str] | None] = []
    for label, b_run, c_run in pairs:
        found = from_line(b_run["all"], n="pairs").scaled() if b_run else None
        rows.append([label, found, *[_pct_estimate(c_run[d]) if c_run else None for d in DIMENSIONS]])
        logs.append([r["log"] for r in (b_run, c_run) if r])
    return Table(
        "perso-headline",
        "Each model's accuracy % [95% CI]: behavioral over all pairs (n = pairs; both orders of a pair together), "
        "cognitive per dimension (n = items); chance is 50% and 25%",
        ["model", "behavioral", *(f"cognitive: {d}" for d in DIMENSIONS)],
        rows,
        show_n=True,
        row_logs=logs,
    )


def _share(percent: float | None) -> float | None:
    return None if percent is None else percent / 100


def _pct(value: float | None) -> float | None:
    return None if value is None else 100 * value


def _pct_estimate(line: dict[str, Any] | None) -> Estimate:
    return from_line(line).scaled()


def _generation_causes(log: EvalLog) -> tuple[Counter[str], Counter[str]]:
    """A generation run's refused generator answers and its items' lint flags, each counted by cause (the check's
    message, without the validator's prefix and the JSON error's position)."""
    refused: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    for sample in log.samples or []:
        meta = (sample.scores or {}).get("generation_check")
        meta_dict = (meta.metadata if meta else None) or {}
        for problems in (meta_dict.get("problems") or {}).values():
            for problem in problems:
                cause = re.sub(r"^[\w.]+: (Value error, )?", "", str(problem))
                refused[re.sub(r" at: line \d+ column \d+ \(char \d+\)$", "", cause)] += 1
        for item in meta_dict.get("items") or []:
            flags.update(str(flag).split(":")[0] for flag in item.get("lint") or [])
    return refused, flags


def _by_cause(counts: Counter[str]) -> str:
    return (" (" + ", ".join(f"{cause} {n}" for cause, n in counts.most_common()) + ")") if counts else ""


def summarize(log: EvalLog, console: Console) -> None:
    """The tables of `report` for one run; for a generation run, what was written."""
    if (log.eval.metadata or {}).get("task") == "generate":
        metrics = {k: v.value for s in (log.results.scores if log.results else []) for k, v in s.metrics.items()}
        refused, flags = _generation_causes(log)
        console.print(
            f"PerSo generation: {metrics.get('items_written', 0):.0f} items written, "
            f"{metrics.get('items_flagged', 0):.0f} with lint flags{_by_cause(flags)}; "
            f"{metrics.get('malformed_answers', 0):.0f} generator answers refused, each asked again up to the retry "
            f"limit{_by_cause(refused)}. Export: socialbench analyze perso export-items -A "
            f"log={log.location} -A out=ITEMS.jsonl",
            highlight=False,
        )
    elif log.location:
        doc = document([log.location])
        print_tables(doc, console)
        print_headline(doc, console)
        causes = [
            (score.metadata or {}).get("output_problem")
            for e in log.samples or []
            for score in (e.scores or {}).values()
        ]
        if problems := describe(causes):
            console.print(f"Answers that could not be read, by cause: {problems} (each scored wrong).")
    console.print(f"log: {log.location}")
