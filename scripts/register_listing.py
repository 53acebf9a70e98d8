"""Write socialbench's entries for inspect_evals' register: one ``register/<id>/eval.yaml`` per benchmark task (the
register takes one task per entry), each pointing at this repository at a pinned commit.

    python scripts/register_listing.py --repository-url https://github.com/OWNER/socialbench --commit SHA [--out DIR]

The fields are inspect_evals' ``ExternalEvalMetadata`` (src/inspect_evals/metadata.py: no ``version`` key, a public
GitHub repository and a 40-character commit; the task's own ``version=`` lives in its logs); everything else comes
from the benchmarks' declarations, so the listing cannot drift from the code: the title and paper
(`Benchmark.title` / `paper`), the description (the task's docstring summary), the task's file and its default
sample count (the task built with its defaults; SI-Bench's needs `socialbench fetch sibench` first).
``tests/test_register.py`` validates the output with a verbatim copy of inspect_evals' schema. Submit through
inspect_evals' "Register Eval Submission" issue form, which asks for the same facts.
"""

from __future__ import annotations

import argparse
import inspect
import re
from pathlib import Path
from typing import Any

import yaml

from socialbench.benchmarks import registered
from socialbench.shared.benchmark import task_name

ROOT = Path(__file__).resolve().parents[1]
LISTED = {"longsocial": "longsocial", "sibench": "sibench", "perso": "perso"}
"""Benchmark -> the task listed (PerSo's item generation, perso_generate, builds items; it is not a benchmark)."""
TAGS = {"longsocial": ["long-context", "social-reasoning"], "sibench": ["dialogue", "chinese", "llm-as-judge"],
        "perso": ["persuasion", "social-reasoning"]}  # fmt: skip


def entry(bench: Any, repository_url: str, commit: str) -> tuple[str, dict[str, Any]]:
    """The register id and the eval.yaml content of ``bench``'s listed task."""
    fn = bench.task(LISTED[bench.name])
    task = fn()
    source = Path(inspect.getfile(inspect.unwrap(fn))).resolve().relative_to(ROOT)
    paper = re.sub(r"^[^,:]+\(\d{4}\), |^[^,:]+, ", "", bench.paper)  # "Liu et al. (2026), TITLE" -> TITLE
    summary = " ".join((inspect.getdoc(inspect.unwrap(fn)) or "").split("\n\n")[0].split())
    return f"socialbench-{bench.name}", {
        "full_title": paper,
        "common_title": bench.title,
        "paper_title": paper,
        "description": f"{bench.title} on socialbench: {summary}",
        "contributors": ["socialbench"],
        "tags": TAGS[bench.name],
        "tasks": [{"name": task_name(fn), "task_path": source.as_posix(), "dataset_samples": len(task.dataset)}],
        "source": {"repository_url": repository_url, "repository_commit": commit},
    }


def write(out: Path, repository_url: str, commit: str) -> list[Path]:
    written = []
    for bench in registered().values():
        if bench.name not in LISTED:
            continue
        name, content = entry(bench, repository_url, commit)
        path = out / name / "eval.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(content, sort_keys=False, allow_unicode=True), encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repository-url", required=True, help="the public GitHub repository of this code")
    parser.add_argument("--commit", required=True, help="the 40-character commit the listing pins")
    parser.add_argument("--out", type=Path, default=ROOT / "register")
    args = parser.parse_args()
    if not re.fullmatch(r"[0-9a-f]{40}", args.commit):
        raise SystemExit(
            f"--commit {args.commit!r}: the register takes a full 40-character commit, not a branch or tag"
        )
    for path in write(args.out, args.repository_url, args.commit):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
