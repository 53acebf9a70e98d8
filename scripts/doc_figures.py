"""Draw the figures of docs/reports.md ("one figure of each kind") from mockllm logs of the three benchmarks,
the same logs `tests/test_reports.py` builds. The numbers mean nothing; the shapes are what the page shows.

    python scripts/doc_figures.py [--logs DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = {
    "kind-bars": ("longsocial", "longsocial-families"),
    "kind-heatmap": ("longsocial", "longsocial-heatmap"),
    "kind-scatter": ("longsocial", "longsocial-length"),
    "kind-shares": ("perso", "perso-option-choice"),
    "kind-dots": ("perso", "perso-behavioral-paper"),
    "kind-bars-wide": ("sibench", "sibench-table1"),
}


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
        figure = documents[bench][name].figure
        out = ROOT / "docs" / "figures" / f"{target}.svg"
        figure.savefig(out, format="svg", metadata={"Date": None})
        width, height = figure.get_size_inches()
        print(f"wrote {out.relative_to(ROOT)} ({width:.1f} x {height:.1f} in)")


if __name__ == "__main__":
    main()
