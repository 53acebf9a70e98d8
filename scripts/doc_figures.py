"""Draw the figures of docs/reports.md ("one figure of each kind") from mockllm logs of the three benchmarks,
the same logs `tests/test_reports.py` builds. The numbers mean nothing; the shapes are what the page shows.

    python scripts/doc_figures.py [--logs DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KINDS = {
    "kind-bars": ("longsocial", "longsocial-families"),
    "kind-heatmap": ("longsocial", "longsocial-heatmap"),
    "kind-scatter": ("longsocial", "longsocial-length"),
    "kind-shares": ("perso", "perso-option-choice"),
    "kind-dots": ("perso", "perso-behavioral-paper"),
    "kind-bars-wide": ("sibench", "sibench-table1"),
}


def grid_figures() -> dict[str, Any]:
    """The generated grid of `tests/test_reports.py` (15 series: 3 models x 5 settings with long labels; cells of
    n = 1, 4 and 1,000 and one without data): each figure kind at each width it is drawn at."""
    from socialbench.shared.figures import COLUMN_WIDTH, TEXT_WIDTH, Estimate, bars, dots, heatmap, scatter
    from socialbench.shared.figures import stacked_shares as shares

    names = [f"model-{i // 5} · setting-{i % 5} with a long label" for i in range(15)]
    from socialbench.shared.statistics import proportion_ci

    def accuracy(right: int, n: int) -> Estimate:  # as the reports compute it: the Wilson interval
        return Estimate(right / n, *proportion_ci([1.0] * right + [0.0] * (n - right)), n)

    cells = [accuracy(2, 4), Estimate(None), accuracy(1, 1), accuracy(620, 1000)]
    series = {n: [cells[(i + g) % 4] for g in range(3)] for i, n in enumerate(names)}
    groups = ["C1", "C2", "C3"]
    many_groups = [f"group {g}" for g in range(8)]
    rows = [(n, cells[i % 4], False) for i, n in enumerate(names)] + [("Paper model", Estimate(0.55), True)]
    return {
        "grid-bars-15-column": bars("15 series, one column", groups, series, paper={"Paper": [0.5, None, 0.6]},
                                    width=COLUMN_WIDTH),
        "grid-bars-15": bars("15 series, two columns", groups, series, paper={"Paper": [0.5, None, 0.6]},
                             width=TEXT_WIDTH),
        "grid-heatmap-15": heatmap("15 settings x 3 models", names, ["model-0", "model-1", "model-2"],
                                   {(n, m): cells[(i + j) % 4] for i, n in enumerate(names)
                                    for j, m in enumerate(["model-0", "model-1", "model-2"])}),
        "grid-scatter-15": scatter("15 series", {n: [(float(i), 40 + 2 * i)] for i, n in enumerate(names)}, "x", "y",
                                   scale_y=1.0),
        "grid-shares-15": shares("15 series, 3 groups", groups, {n: [1 / 15] * 3 for n in names}),
        "grid-shares-15-wide": shares("15 series, 8 groups", many_groups, {n: [1 / 15] * 8 for n in names}),
        "grid-dots-15": dots("15 runs and a paper row", rows),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logs", type=Path, default=None, help="folder for the mockllm logs (default: a temp dir)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    import test_reports
    from socialbench.benchmarks import get_benchmark
    from socialbench.shared.reporting import Figure

    folder = args.logs or Path(tempfile.mkdtemp(prefix="sb-doc-logs-"))
    logs = {bench: build(folder / bench) for bench, build in test_reports.BUILDERS.items()}
    documents = {}
    for target, (bench, name) in KINDS.items():
        if bench not in documents:
            document = get_benchmark(bench).document
            assert document is not None
            documents[bench] = {p.name: p for p in document(logs[bench], True).parts() if isinstance(p, Figure)}
        figure = documents[bench][name].figure.figure
        out = ROOT / "docs" / "figures" / f"{target}.svg"
        figure.savefig(out, format="svg", metadata={"Date": None})
        width, height = figure.get_size_inches()
        print(f"wrote {out.relative_to(ROOT)} ({width:.1f} x {height:.1f} in)")
    for target, drawing in grid_figures().items():  # as screenshots: the SVGs of 15 hatched series are ~1 MB each
        figure = drawing.figure
        out = ROOT / "docs" / "figures" / f"{target}.png"
        figure.savefig(out, format="png", dpi=150, metadata={"Software": None})
        width, height = figure.get_size_inches()
        print(f"wrote {out.relative_to(ROOT)} ({width:.1f} x {height:.1f} in)")


if __name__ == "__main__":
    main()
