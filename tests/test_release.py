"""Authoring -> verification -> adjudication -> release with known answers, without a browser: annotators' saves
are written in the shape Potato 2.12 saves them (`user_state.json`; tests/test_item_flow.py drives the same flow
through Potato and a real browser). Every decision of `release` is checked, and every refusal writes nothing."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import socialbench
from socialbench.benchmarks.longsocial import studies as ls
from socialbench.benchmarks.longsocial.task import sample_pack
from socialbench.shared import studies

EPISODE = "cmv:2rnr30"  # a real r/ChangeMyView thread of the sample pack (48 posts)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return socialbench(*args)


def save(folder: Path, annotator: str, pages: dict[str, dict[str, str]]) -> None:
    """What Potato writes when ``annotator`` has saved these answers (question -> value) on these pages."""
    record = studies.load(folder)
    kinds = {q["name"]: q["kind"] for q in record["questions"]}
    now = time.time()
    state: dict[str, Any] = {"instance_id_to_label_to_value": {}, "instance_id_to_behavioral_data": {}}
    for item, values in pages.items():
        page = f"{item}_{record['pages']}"  # as the study serves it
        state["instance_id_to_label_to_value"][page] = [
            [{"schema": k, "name": "text_box" if kinds[k] == "text" else v}, v] for k, v in values.items()
        ]
        state["instance_id_to_behavioral_data"][page] = {"session_start": now - 30, "session_end": now}
    out = folder / "server" / "annotation_output" / annotator
    out.mkdir(parents=True, exist_ok=True)
    (out / "user_state.json").write_text(json.dumps(state))


def sample_items(episode: str = EPISODE) -> list[dict[str, Any]]:
    lines = (sample_pack() / "items.jsonl").read_text().splitlines()
    return [item for item in map(json.loads, lines) if item["episode_id"] == episode]


def page(item: dict[str, Any]) -> dict[str, str]:
    """The authoring form filled in with a sample item (what an author types)."""
    scope = item["scope"]
    posts = scope.get("nodes") or scope.get("roots") or [scope[k] for k in ("start", "end") if scope.get(k)]
    return {
        "capability": item["capability"],
        "form": item["form"],
        "scope_kind": scope["kind"],
        "scope_posts": " ".join(posts),
        "evidence": ", ".join(item["evidence"]),
        "stem": item["stem"],
        **{name: text for name, text in zip(ls.OPTION_NAMES, item["options"], strict=True)},
        "gold": item["gold"],
        "criterion": item["criterion"],
    }


def _authored(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """Two authors write the four sample items of EPISODE on two pages each; exported to authored.jsonl."""
    folder = tmp_path / "author"
    made = _cli("study", "create", "longsocial-author", "-o", str(folder), "--annotators", "ann,bob",
                "-S", f"ids={EPISODE}", "-S", "per_episode=2")  # fmt: skip
    assert made.returncode == 0, made.stderr
    items = sample_items()
    save(folder, "ann", {"w0001": page(items[0]), "w0002": page(items[1])})
    save(folder, "bob", {"w0001": page(items[2]), "w0002": page(items[3])})
    out = tmp_path / "authored.jsonl"
    done = _cli("analyze", "longsocial", "authored", "-A", f"study={folder}", "-A", f"out={out}", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["items"] == 4 and result["per_author"] == {"ann": 2, "bob": 2} and result["not_exported"] == []
    assert result["lint"]["passed"]
    return out, items


def _verify(tmp_path: Path, authored: Path, wrong: set[str], name: str = "verify") -> Path:
    """ann, bob and cy verify every item; each answers the gold except on the items in ``wrong`` (cy only)."""
    folder = tmp_path / name
    made = _cli("study", "create", "longsocial-verify", "-o", str(folder), "--annotators", "ann,bob,cy",
                "--items", str(authored), "-S", "attention=0")  # fmt: skip
    assert made.returncode == 0, made.stderr
    keys = studies.key(folder)
    for who in ("ann", "bob", "cy"):
        answers = {}
        for page_id, key in keys.items():
            letter = key["gold"]
            if who == "cy" and key["item_id"] in wrong:
                letter = "ABCD"[("ABCD".index(letter) + 1) % 4]
            answers[page_id] = {"answer": letter, **dict.fromkeys(ls.CRITERIA, "pass")}
        save(folder, who, answers)
    return folder


def _release(tmp_path: Path, authored: Path, *extra: str, out: str = "release") -> subprocess.CompletedProcess[str]:
    return _cli("analyze", "longsocial", "release", "-A", f"items={authored}", "-A", f"out={tmp_path / out}",
                *extra, "--json")  # fmt: skip


def test_authored_items_carry_their_provenance_and_match_what_was_typed(tmp_path: Path) -> None:
    authored, typed = _authored(tmp_path)
    rows = [json.loads(line) for line in authored.read_text().splitlines()]
    assert [r["id"] for r in rows] == [
        "cmv2rnr30-C1-ann-w0001", "cmv2rnr30-C4-bob-w0001", "cmv2rnr30-C2-ann-w0002", "cmv2rnr30-C5-bob-w0002"
    ]  # fmt: skip
    by_capability = {r["capability"]: r for r in rows}
    for item in typed:
        got = by_capability[item["capability"]]
        for field in ("stem", "options", "gold", "evidence", "criterion", "form", "episode_id"):
            assert got[field] == item[field], field
        assert got["scope"]["kind"] == item["scope"]["kind"]
        provenance = got["meta"]["provenance"]
        assert provenance["author"] in ("ann", "bob") and provenance["authored"].endswith("+00:00")
        assert len(provenance["episode_version"]) == 16
    before = authored.read_bytes()  # an export (perhaps edited since) is never written over
    again = _cli("analyze", "longsocial", "authored", "-A", f"study={tmp_path / 'author'}", "-A", f"out={authored}")
    assert again.returncode != 0 and "exists" in again.stderr and authored.read_bytes() == before


def test_a_page_that_cannot_become_an_item_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    folder = tmp_path / "author"
    assert _cli("study", "create", "longsocial-author", "-o", str(folder), "--annotators", "ann",
                "-S", f"ids={EPISODE}", "-S", "per_episode=3").returncode == 0  # fmt: skip
    good, unknown, unfinished = (page(i) for i in sample_items()[:3])
    unknown["evidence"] += " c999"
    del unfinished["option_c"]
    save(folder, "ann", {"w0001": good, "w0002": unknown, "w0003": unfinished})
    out = tmp_path / "authored.jsonl"
    refused = _cli("analyze", "longsocial", "authored", "-A", f"study={folder}", "-A", f"out={out}")
    assert refused.returncode != 0 and not out.exists()
    message = " ".join(refused.stderr.split())
    assert "2 saved pages cannot become items" in message
    assert "ann w0002" in message and "c999" in message and "ann w0003" in message and "option_c" in message
    skipped = _cli("analyze", "longsocial", "authored", "-A", f"study={folder}", "-A", f"out={out}",
                   "-A", "incomplete=skip", "--json")  # fmt: skip
    exported = json.loads(skipped.stdout)
    assert exported["items"] == 1 and len(exported["not_exported"]) == 2
    # one item cannot pass the file's surface heuristics (a one-item file sits above chance): written, exit 1
    assert not exported["lint"]["passed"] and exported["lint"]["hard_findings"] == 0
    assert skipped.returncode == 1, skipped.stderr
    assert len(out.read_text().splitlines()) == 1


def test_release_decides_each_item_from_the_studies_that_saw_its_version(tmp_path: Path) -> None:
    authored, _ = _authored(tmp_path)
    flagged_id = "cmv2rnr30-C4-bob-w0001"
    verify = _verify(tmp_path, authored, wrong={flagged_id})
    outcomes = {o["item_id"]: o for o in ls.verification_outcomes(verify)}
    # each author verified their own two items: set aside, so every item has two independent verifiers
    assert all(o["verifiers"] == 2 and o["self_verifications"] == 1 for o in outcomes.values())
    assert [i for i, o in outcomes.items() if o["adjudicate"]] == [flagged_id]
    before = authored.read_bytes()

    refused = _release(tmp_path, authored, "-A", f"verified={verify}")
    assert refused.returncode != 0 and not (tmp_path / "release").exists()
    assert f"{flagged_id} failed verification and has no adjudication" in " ".join(refused.stderr.split())

    adjudicate = tmp_path / "adjudicate"
    made = _cli("study", "create", "longsocial-adjudicate", "-o", str(adjudicate), "--annotators", "dee",
                "--items", str(authored), "-S", f"verified={verify}")  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert [k["item_id"] for k in studies.key(adjudicate).values()] == [flagged_id]
    # issue 50: gold, criterion and the verifiers' answers were raw dicts ({'ann': 'D', 'bob': 'A'}) under the thread
    (served,) = [json.loads(line) for line in (adjudicate / "server" / "data" / "items.jsonl").read_text().splitlines()]
    panel = served["html"][: served["html"].index('<span class="sb-tools">')]  # the side panel: question to tools
    assert panel.startswith('<div class="sb-question">') and "Verifiers answered:</b> ann " in panel
    assert "Gold:</b>" in panel and "Their decisions:" in panel and "scope clear: 2 pass" in panel and "✓" in panel
    assert "{" not in served["html"] and "Verifiers answered" not in served["html"][len(panel) :]
    save(adjudicate, "dee", {"a0001": {"outcome": "remove", "notes": "two options fit"}})
    done = _release(tmp_path, authored, "-A", f"verified={verify}", "-A", f"adjudicated={adjudicate}")
    assert done.returncode == 0, done.stderr
    sheet = json.loads(done.stdout)
    assert sheet["stages"] == {
        "candidates": 4, "released": 3, "held": 0, "removed": 1, "adjudication_outcomes": {"remove": 1},
        "self-verifications set aside": 4,
    }  # fmt: skip
    assert sheet["verification"]["verifications"] == 8 and sheet["verification"]["gold_recovered"] == 7 / 8
    assert sheet["verification"]["items_with_two_verifiers"] == 4
    # known answers: the gold letters (seeded order) are D, D, A, A; bob and cy agree on ann's items (kappa 1), ann
    # and cy answer (D, A) and (A, A) on bob's (kappa 0): mean 0.5; alpha's coincidences D-D 2, D-A 2, A-A 4 give
    # 1 - (2/8) / (2*3*5 / (8*7))
    agree = sheet["verification"]["answer_agreement"]
    assert agree["mean_cohen"] == pytest.approx(0.5) and agree["alpha"] == pytest.approx(1 - (2 / 8) / (30 / 56))
    assert sheet["per_capability"] == {"C1": 1, "C2": 1, "C5": 1} and sheet["per_platform"] == {"reddit_cmv": 3}
    assert sheet["not_released"] == [
        {"item": flagged_id, "status": "removed", "reason": "removed by adjudication: two options fit"}
    ]
    released = tmp_path / "release"
    rows = [json.loads(line) for line in (released / "items.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == sorted(set(outcomes) - {flagged_id})
    assert all(r["meta"]["release"]["verifiers"] == 2 and r["meta"]["provenance"]["author"] for r in rows)
    assert json.loads((released / "datasheet.json").read_text()) == sheet
    assert "| removed | 1 |" in (released / "datasheet.md").read_text()
    assert len((released / "audit_sample.jsonl").read_text().splitlines()) == sheet["audit_sample"]["size"] == 3
    assert authored.read_bytes() == before

    again = _release(tmp_path, authored, "-A", f"verified={verify}", "-A", f"adjudicated={adjudicate}")
    assert again.returncode != 0 and "exists" in again.stderr  # a release is never written over


def test_an_item_edited_after_verification_needs_a_new_verification(tmp_path: Path) -> None:
    authored, _ = _authored(tmp_path)
    verify = _verify(tmp_path, authored, wrong=set())
    rows = [json.loads(line) for line in authored.read_text().splitlines()]
    rows[0]["stem"] += " Judge by the thread alone."  # a wording change after verification
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(r) + "\n" for r in rows))
    refused = _release(tmp_path, edited, "-A", f"verified={verify}")
    assert refused.returncode != 0 and not (tmp_path / "release").exists()
    assert f"{rows[0]['id']} not verified" in " ".join(refused.stderr.split())
    reverified = _verify(tmp_path, edited, wrong=set(), name="verify2")
    done = _release(tmp_path, edited, "-A", f"verified={verify},{reverified}")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["released"] == 4


@pytest.mark.parametrize("outcome", ["clarify", "rewrite and re-verify"])
def test_an_item_to_be_rewritten_is_held(tmp_path: Path, outcome: str) -> None:
    authored, _ = _authored(tmp_path)
    verify = _verify(tmp_path, authored, wrong={"cmv2rnr30-C2-ann-w0002"})
    adjudicate = tmp_path / "adjudicate"
    assert _cli("study", "create", "longsocial-adjudicate", "-o", str(adjudicate), "--annotators", "dee",
                "--items", str(authored), "-S", f"verified={verify}").returncode == 0  # fmt: skip
    save(adjudicate, "dee", {"a0001": {"outcome": outcome}})
    done = _release(tmp_path, authored, "-A", f"verified={verify}", "-A", f"adjudicated={adjudicate}")
    assert done.returncode == 0, done.stderr
    sheet = json.loads(done.stdout)
    assert sheet["stages"]["held"] == 1 and sheet["released"] == 3
    assert sheet["not_released"][0]["reason"].startswith(f"adjudication: {outcome}")


def test_a_release_with_a_surface_shortcut_is_refused(tmp_path: Path) -> None:
    authored, _ = _authored(tmp_path)
    rows = [json.loads(line) for line in authored.read_text().splitlines()]
    for row in rows:  # the gold option made the longest of every item, by a clause added to it
        gold = "ABCD".index(row["gold"])
        row["options"][gold] += " according to the way the thread develops"
    shortcut = tmp_path / "shortcut.jsonl"
    shortcut.write_text("".join(json.dumps(r) + "\n" for r in rows))
    verify = _verify(tmp_path, shortcut, wrong=set())
    refused = _release(tmp_path, shortcut, "-A", f"verified={verify}")
    assert refused.returncode != 0 and not (tmp_path / "release").exists()
    assert "surface shortcuts (longest option 100.0%)" in " ".join(refused.stderr.split())


def test_two_releases_into_one_new_folder_leave_one_whole_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: the second of two releases racing into the same new folder ended in a traceback. It is now one
    line, the first release stays as written, and no staging folder is left behind."""
    import importlib

    from socialbench.core.errors import InputError

    rel = importlib.import_module("socialbench.benchmarks.longsocial.release")
    monkeypatch.setattr(rel, "_markdown", lambda sheet: "datasheet\n")
    target = tmp_path / "release"
    rel._write_release(target, [], [], {"first": True})  # the first release lands
    written = (target / "datasheet.json").read_text()
    with pytest.raises(InputError, match="another release was written there meanwhile"):
        rel._write_release(target, [], [], {"second": True})
    assert (target / "datasheet.json").read_text() == written and sorted(p.name for p in tmp_path.iterdir()) == [
        "release"
    ]


def test_an_export_whose_lint_fails_is_written_and_exits_1(tmp_path: Path) -> None:
    """Issue 50: "lint failed ... 1 failing a hard check" exited 0; the README says a failed check exits 1."""
    folder = tmp_path / "author"
    made = _cli("study", "create", "longsocial-author", "-o", str(folder), "--annotators", "ann,bob",
                "-S", f"ids={EPISODE}", "-S", "per_episode=2")  # fmt: skip
    assert made.returncode == 0, made.stderr
    items = sample_items()
    long = page(items[3])
    long[ls.OPTION_NAMES[0]] = " ".join([long[ls.OPTION_NAMES[0]]] * 8)  # one option 8x its length: a hard finding
    save(folder, "ann", {"w0001": page(items[0]), "w0002": page(items[1])})
    save(folder, "bob", {"w0001": page(items[2]), "w0002": long})
    out = tmp_path / "authored.jsonl"
    done = _cli("analyze", "longsocial", "authored", "-A", f"study={folder}", "-A", f"out={out}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "lint failed" in done.stdout and "1 failing a hard check" in done.stdout
    assert len(out.read_text().splitlines()) == 4  # the items are written: the authors fix them from the file
