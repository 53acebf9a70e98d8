"""Record what the embedded instruct model really writes, as test fixtures (issue 65).

Reads the logs of quick runs on SmolLM2 135M Instruct (``socialbench run sibench -T lang=en --limit 4``, the Chinese
default, ``socialbench run perso --task perso_generate --limit 2``, ``socialbench run longsocial -T
workflow=open-answer --limit 2``, all without ``--model``) and writes every model
call's raw output with what it was asked under (the JSON schema's name, or none) and, for SI-Bench, the chat it
answered, to ``tests/fixtures/smollm2_outputs.jsonl``. The readers, judge parsers and echo / copy detectors are tested
against these texts (tests/test_embedded_outputs.py), which no scripted model wrote.

    python scripts/record_embedded_outputs.py LOG [LOG ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from inspect_ai.log import read_eval_log

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "smollm2_outputs.jsonl"


def records(path: str) -> list[dict[str, object]]:
    log = read_eval_log(path)
    args = {k: v for k, v in (log.eval.task_args or {}).items() if k in ("lang", "mode", "task")}
    rows: list[dict[str, object]] = []
    for sample in log.samples or []:
        for event in sample.events:
            if event.event != "model":
                continue
            schema = event.config.response_schema
            rows.append(
                {
                    "task": log.eval.task.split("/")[-1],
                    "args": args,
                    "sample": sample.id,
                    "model": event.model,
                    "schema": schema.name if schema else None,
                    "stop_reason": event.output.stop_reason,
                    "completion": event.output.completion,
                    **({"chat": sample.metadata["chat"]} if "chat" in (sample.metadata or {}) else {}),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+")
    rows = [row for path in parser.parse_args().logs for row in records(path)]
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} model outputs to {OUT}")


if __name__ == "__main__":
    main()
