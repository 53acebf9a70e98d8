"""Study folders without a browser: what is served, the Label Studio round trip, agreement on hand-built answers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import socialbench
from socialbench.benchmarks.perso.items import default_items
from socialbench.shared import studies


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return socialbench(*args)


def test_create_keeps_the_key_off_the_server_and_assigns_seeded_orders(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    done = _cli("study", "create", "perso-cognitive", "-o", str(folder), "--annotators", "a,b,c", "--overlap", "2")
    assert done.returncode == 0, done.stderr
    record, keys = studies.load(folder), studies.key(folder)
    config = json.loads((folder / "server" / "config.yaml").read_text())
    groups = {g["annotators"][0]: g["instances"] for g in config["batch_assignment"]["groups"]}
    counts = {item: sum(f"{item}_{record['pages']}" in mine for mine in groups.values()) for item in keys}
    assert set(counts.values()) == {2}  # every item to exactly two of the three annotators
    assert config["user_config"]["allow_all_users"] is False and set(record["annotators"]) == {"a", "b", "c"}
    served = (folder / "server" / "data" / "items.jsonl").read_text()
    assert all(set(json.loads(line)) == {"id", "html"} for line in served.splitlines())
    # item ids (and their gold) stay in the key; issue 52: one page per post and reply, with its three items
    assert len(keys) == 8 and all(set(k["items"]) == {"belief", "emotion", "intent"} for k in keys.values())
    assert not any(e["item_id"] in served for k in keys.values() for e in k["items"].values())
    again = _cli("study", "create", "perso-cognitive", "-o", str(folder), "--annotators", "a")
    assert again.returncode == 2 and "already exists" in again.stderr  # never overwrites a study
    mine = tmp_path / "papers"  # nor a folder of the user's own files (issue 37)
    mine.mkdir()
    (mine / "key.jsonl").write_text("my notes\n")
    refused = _cli("study", "create", "perso-cognitive", "-o", str(mine), "--annotators", "a")
    assert refused.returncode == 2 and "not empty" in refused.stderr
    assert [p.name for p in mine.iterdir()] == ["key.jsonl"] and (mine / "key.jsonl").read_text() == "my notes\n"


def test_label_studio_export_is_read_back_and_scored(
    tmp_path: Path, data: Path
) -> None:  # data: needs the fetched sources
    from sklearn.metrics import cohen_kappa_score

    folder = tmp_path / "s"
    assert _cli("study", "create", "perso-cognitive", "-o", str(folder), "--annotators", "a,b").returncode == 0
    record, keys = studies.load(folder), studies.key(folder)
    tasks = json.loads((folder / "label-studio" / "tasks.json").read_text())
    assert {t["data"]["id"] for t in tasks} == {f"{i}_{record['pages']}" for i in keys}
    assert '<Choices name="answer_belief"' in (folder / "label-studio" / "config.xml").read_text()
    belief = list(keys)  # every page holds a belief item
    picks = {"a": ["A", "B", "C", "D", "A", "B", "C", "D"], "b": ["A", "B", "C", "A", "A", "B", "D", "D"]}
    export = [
        {
            "data": {"id": f"{item}_{record['pages']}"},
            "annotations": [
                {
                    "completed_by": {"email": who},
                    "result": [{"from_name": "answer_belief", "value": {"choices": [picks[who][n]]}}],
                }
                for who in ("a", "b")
            ],
        }
        for n, item in enumerate(belief)
    ]
    (folder / "label-studio" / "export.json").write_text(json.dumps(export))
    scored = _cli("study", "score", str(folder), "--json")
    assert scored.returncode == 0, scored.stderr
    group = json.loads(scored.stdout)["groups"]["cognitive:belief"]
    assert group["pairwise_cohen"]["a-b"] == pytest.approx(cohen_kappa_score(picks["a"], picks["b"]))
    golds = ["ABCD"[keys[i]["items"]["belief"]["gold"]] for i in belief]
    right = sum(p == g for p, g in zip(picks["a"], golds, strict=True))
    assert group["accuracy"]["a"] == pytest.approx(right / len(golds))


def test_a_study_scores_against_what_it_showed_and_refuses_what_it_did_not(tmp_path: Path) -> None:
    """Issue 37: a perso-cognitive study made from the user's own items was scored against the shipped items (an
    annotator who answered every gold scored 0%), and answers for pages the study never showed were accepted."""
    from socialbench.benchmarks.perso.items import default_items

    rows = [json.loads(line) for line in Path(default_items()).read_text().splitlines()]
    for row in rows:  # the user's items: the same questions with the options rotated, so every gold moves
        row["options"] = row["options"][1:] + row["options"][:1]
        row["gold"] = (row["gold"] - 1) % 4
    mine = tmp_path / "mine.jsonl"
    mine.write_text("".join(json.dumps(r) + "\n" for r in rows))
    folder = tmp_path / "s"
    done = _cli("study", "create", "perso-cognitive", "-o", str(folder), "--annotators", "a", "-S", f"items={mine}")
    assert done.returncode == 0, done.stderr
    record, keys = studies.load(folder), studies.key(folder)
    answers = [
        {"data": {"id": f"{item}_{record['pages']}"}, "annotations": [{"completed_by": {"email": "a"}, "result": [
            {"from_name": f"answer_{d}", "value": {"choices": ["ABCD"[e["gold"]]]}} for d, e in k["items"].items()]}]}
        for item, k in keys.items()
    ]  # fmt: skip
    export = folder / "label-studio" / "export.json"
    export.write_text(json.dumps(answers))
    scored = _cli("study", "score", str(folder), "--json")
    assert scored.returncode == 0, scored.stderr
    groups = json.loads(scored.stdout)["groups"]
    assert {g: v["accuracy"]["a"] for g, v in groups.items()} == dict.fromkeys(groups, 1.0) and len(groups) == 3
    export.write_text(json.dumps([*answers, {"data": {"id": "c9999"}, "annotations": []}]))
    refused = _cli("study", "score", str(folder))
    assert refused.returncode == 2 and "c9999" in refused.stderr and "not a page of this study" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_a_save_copied_from_another_study_over_the_same_items_is_refused(
    tmp_path: Path, data: Path
) -> None:  # data: needs the fetched sources
    """Issue 37: two studies over the same items have the same item ids; a Potato save (or Label Studio export)
    copied from one into the other was scored against the other's key, whose option orders may differ. Every page a
    study serves carries the study's own token, so a copied save names pages this study never showed."""
    rows = [json.loads(line) for line in Path(default_items()).read_text().splitlines()]
    for row in rows:  # the second study: the same items with the options rotated (another option order)
        row["options"] = row["options"][1:] + row["options"][:1]
        row["gold"] = (row["gold"] - 1) % 4
    rotated = tmp_path / "rotated.jsonl"
    rotated.write_text("".join(json.dumps(r) + "\n" for r in rows))
    first, second = tmp_path / "first", tmp_path / "second"
    assert _cli("study", "create", "perso-cognitive", "-o", str(first), "--annotators", "a").returncode == 0
    made = _cli("study", "create", "perso-cognitive", "-o", str(second), "--annotators", "a", "-S", f"items={rotated}")
    assert made.returncode == 0, made.stderr
    assert set(studies.key(first)) == set(studies.key(second))  # the same item ids
    token = studies.load(first)["pages"]
    assert token != studies.load(second)["pages"]
    item = sorted(studies.key(first))[0]
    state = {"user_id": "a", "instance_id_to_label_to_value": {f"{item}_{token}": [[{"schema": "answer_belief"}, "A"]]}}
    for folder in (first, second):
        saved = folder / "server" / "annotation_output" / "a" / "user_state.json"
        saved.parent.mkdir(parents=True)
        saved.write_text(json.dumps(state))
    assert [(a.item, a.values) for a in studies.answers(first)] == [(item, {"answer_belief": "A"})]
    copied = second / "server" / "annotation_output" / "a" / "user_state.json"
    before = copied.read_bytes()
    refused = _cli("study", "score", str(second))
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert f"{item}_{token}" in refused.stderr and "not a page of this study" in refused.stderr
    assert str(copied) in refused.stderr and copied.read_bytes() == before
    copied.write_text(json.dumps(state | {"user_id": "b"}))  # another annotator's save under a's name
    wrong_user = _cli("study", "score", str(first.parent / "second"))
    assert wrong_user.returncode == 2 and "not of annotator a" in wrong_user.stderr
    export = second / "label-studio" / "export.json"  # a Label Studio export of the first study
    export.write_text(json.dumps([{"data": {"id": f"{item}_{token}"}, "annotations": []}]))
    refused = _cli("study", "score", str(second))
    assert refused.returncode == 2 and "not a page of this study" in refused.stderr


def test_a_partial_sibench_study_scores_with_its_counts_coverage_and_why_alpha_is_missing(tmp_path: Path) -> None:
    """Issue 50: after 1 of 3 pages, `study score` printed 10.00 in every column and α nan, with no count."""
    from socialbench.benchmarks.sibench.prompts import COMPONENT_KEYS
    from test_studies import _sibench_logs

    folder = tmp_path / "s"
    logs = _sibench_logs(tmp_path / "logs")
    done = _cli("study", "create", "sibench-process", "-o", str(folder), "--annotators", "ann,bob", "--logs", str(logs))
    assert done.returncode == 0, done.stderr
    record, keys = studies.load(folder), studies.key(folder)
    regular = [item for item, k in keys.items() if not k.get("attention")]
    first = regular[0]
    answers = [{"data": {"id": f"{first}_{record['pages']}"}, "annotations": [{"completed_by": {"email": "ann"},
                "result": [{"from_name": q, "value": {"choices": ["10"]}} for q in COMPONENT_KEYS]}]}]  # fmt: skip
    (folder / "label-studio" / "export.json").write_text(json.dumps(answers))
    scored = _cli("study", "score", str(folder), "--json")
    assert scored.returncode == 0, scored.stderr
    result = json.loads(scored.stdout)
    ((run, coverage),) = result["coverage"].items()
    assert coverage == {"pages": len(regular), "answered": 1} and len(regular) > 1
    assert result["counts"][run] == dict.fromkeys(COMPONENT_KEYS, 1) and result["models"][run]["cause"] == 10.0
    assert result["alpha"] is None and result["alpha_text"].startswith("n/a (1 annotator")
    shown = _cli("study", "score", str(folder))
    text = " ".join(shown.stdout.split())
    assert f"1 of {len(regular)}" in text and "10.00 (n=1)" in text and "α (interval) over annotators: n/a (1" in text


def test_an_undefined_agreement_says_why() -> None:
    """Issue 50: α printed as nan. Each reason it is undefined, and a defined one as its value."""
    import math

    from socialbench.shared.agreement import alpha_text, krippendorff_alpha

    one = {"a": {"i1": "A"}}
    apart = {"a": {"i1": "A"}, "b": {"i2": "B"}}
    alike = {"a": {"i1": "A", "i2": "A"}, "b": {"i1": "A", "i2": "A"}}
    differ = {"a": {"i1": "A", "i2": "B"}, "b": {"i1": "A", "i2": "B"}}
    assert alpha_text(krippendorff_alpha(one), one).startswith("n/a (1 annotator with answers")
    assert alpha_text(krippendorff_alpha(apart), apart) == "n/a (no item rated by two annotators yet)"
    assert alpha_text(krippendorff_alpha(alike), alike).startswith("n/a (every rating is the same value")
    assert not math.isnan(krippendorff_alpha(differ)) and alpha_text(krippendorff_alpha(differ), differ) == "1.000"


def test_a_study_made_with_one_item_a_page_still_scores(
    tmp_path: Path, data: Path
) -> None:  # data: needs the fetched sources
    """A perso-cognitive study created before pages were grouped (one item a page, its answer named ``answer``)
    is scored as it was: its key rows name the item itself."""
    folder = tmp_path / "s"
    assert _cli("study", "create", "perso-cognitive", "-o", str(folder), "--annotators", "a").returncode == 0
    record = studies.load(folder)
    rows = [json.loads(line) for line in (folder / "key.jsonl").read_text().splitlines()]
    old = [{"id": r["id"], "attention": False, **r["items"]["belief"]} for r in rows]  # the older key's shape
    (folder / "key.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    question = {**record["questions"][0], "name": "answer", "description": "Your answer"}
    (folder / "study.json").write_text(json.dumps({**record, "questions": [question]}))  # its one question
    state = {
        "user_id": "a",
        "instance_id_to_label_to_value": {
            f"{r['id']}_{record['pages']}": [
                [{"schema": "answer"}, "ABCD"[r["gold"]] if n % 2 else "ABCD"[r["gold"] - 1]]
            ]
            for n, r in enumerate(old)
        },
    }
    saved = folder / "server" / "annotation_output" / "a" / "user_state.json"
    saved.parent.mkdir(parents=True)
    saved.write_text(json.dumps(state))
    scored = _cli("study", "score", str(folder), "--json")
    assert scored.returncode == 0, scored.stderr
    group = json.loads(scored.stdout)["groups"]["cognitive:belief"]
    assert group["n"]["a"] == len(old) and group["accuracy"]["a"] == pytest.approx(
        sum(n % 2 for n in range(len(old))) / len(old)
    )
