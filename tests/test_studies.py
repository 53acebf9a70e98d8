"""Human studies on a real Potato server, driven by a real browser (Playwright on Debian's chromium): two annotators
log in, answer, the server is killed and restarted mid-study, and the scores equal what was clicked; nothing the
browser receives contains the key."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model

from conftest import (
    chromium_browser,
    free_port,
    potato_answer,
    potato_item,
    potato_login,
    potato_next,
    socialbench,
    study_item,
)
from socialbench.benchmarks.sibench.prompts import COMPONENT_KEYS
from socialbench.benchmarks.sibench.task import sibench
from socialbench.shared import studies
from socialbench.shared.agreement import agreement

pytestmark = [pytest.mark.browser, pytest.mark.potato]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return socialbench(*args)


def _sibench_logs(folder: Path) -> Path:
    cot = json.dumps(
        {
            "Motivation": "想被哄",
            "Cause": "没钱",
            "Emotional Attitude": "撒娇",
            "Social Intention": "拉近",
            "Communicative Strategy": "幽默",
            "Response": "思考后的回复",
        },
        ensure_ascii=False,
    )

    def model(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        text = cot if "动机" in input[0].text else json.dumps({"Response": "直接的回复"}, ensure_ascii=False)
        return ModelOutput.from_content(model="mockllm/model", content=text)

    def grader(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        body = (
            {k: {"score": 5} for k in COMPONENT_KEYS}
            if "analysis of this conversation" in input[-1].text
            else {"reply_1": {"score": 5}, "reply_2": {"score": 10}}
        )
        return ModelOutput.from_content(model="mockllm/model", content=json.dumps(body))

    eval(
        sibench(mode="paper"),
        model=get_model("mockllm/model", custom_outputs=model, memoize=False),
        model_roles={"grader": get_model("mockllm/model", custom_outputs=grader, memoize=False)},
        limit=2,
        log_dir=str(folder),
        display="none",
    )
    return folder


def _plan(kind: str, annotator: str, item: str, key: dict[str, Any]) -> dict[str, Any]:
    """What each annotator clicks on each item: deterministic, different between annotators."""
    if key.get("attention"):
        return {"answer": key["expected"]}
    salt = sum(map(ord, annotator + item))
    if kind == "longsocial-readers":
        return {"answer": key["gold"] if annotator == "ann" else "ABCD"[salt % 4], "rationale": f"because {item}"}
    if kind == "longsocial-verify":
        criteria = ("scope_clear", "scope_reasoning", "one_answer", "no_artifacts")
        decision = ["pass", "revise"][salt % 2] if annotator == "bob" else "pass"
        return {"answer": key["gold"], **dict.fromkeys(criteria, decision)}
    if kind == "sibench-process":
        return {k: "5" if annotator == "ann" else "10" for k in COMPONENT_KEYS}
    if kind == "sibench-replies":
        return {
            "reply_1": "10",
            "reply_2": "0" if annotator == "ann" else "10",
            "preferred": "Reply 1",
        }
    if kind == "perso-behavioral":  # equal ratings cannot be saved (issue 50): bob prefers Response 2
        return {"rating_1": "4", "rating_2": "1"} if annotator == "ann" else {"rating_1": "2", "rating_2": "3"}
    if kind == "perso-verify":  # a page per post and reply: each of its items rated
        return {f"{part}_{d}": ("5" if annotator == "ann" else "4") if part == "gold" else "3"
                for d in key["items"] for part in ("gold", "distractors")}  # fmt: skip
    raise AssertionError(kind)


def _drive(
    page: Any,
    base: str,
    user: str,
    password: str,
    record: dict[str, Any],
    keys: dict[str, Any],
    clicked: dict[tuple[str, str], dict[str, Any]],
    stop_after: int | None,
    leaks: list[str],
) -> bool:
    """Answer until done (True) or until ``stop_after`` new answers (False); a resumed page may show an item that is
    already answered: its answers are pre-filled, so it is only confirmed with Next."""
    questions = {q["name"]: q for q in record["questions"]}
    config = json.loads((Path(record["folder"]) / "server" / "config.yaml").read_text())
    assigned = {g["annotators"][0]: len(g["instances"]) for g in config["batch_assignment"]["groups"]}
    done = 0
    while True:
        item = potato_item(page)
        if item is None:
            return True
        body = page.content() + page.request.get(base + "/api/current_instance").text()
        leaks += [s for s in _secrets(keys[item]) if s in body]
        # the navbar counts this annotator's own pages (issue 38: "Progress 25/38" on the last of 26)
        counter = page.locator("#progress-counter").inner_text().strip()
        assert counter.endswith(f"/{assigned[user]}"), (user, counter)
        if (user, item) not in clicked:
            if stop_after is not None and done == stop_after:
                return False
            plan = _plan(record["kind"], user, item, keys[item])
            potato_answer(page, questions, plan)
            clicked[(user, item)] = plan
            done += 1
        potato_next(page)


def _secrets(key: dict[str, Any]) -> list[str]:
    """Values only the key holds (long enough not to occur by chance in a page)."""
    picks = [key.get(k) for k in ("item_id", "pair_id", "model", "log", "episode_id")]
    picks += [entry.get("item_id") for entry in (key.get("items") or {}).values()]  # PerSo: a page's items
    return [str(v) for v in picks if isinstance(v, str) and len(v) > 5] + ["cot_first", "winner_first"]


STUDIES = {
    "longsocial-readers": ["-S", "limit=2", "-S", "attention=1"],
    "longsocial-verify": ["-S", "limit=2", "-S", "attention=0"],
    "sibench-process": [],
    "sibench-replies": [],
    "perso-behavioral": ["-S", "subset=4", "-S", "unchecked=admit", "--overlap", "1"],  # each their own pages
    "perso-verify": [],
}


@pytest.mark.parametrize("kind", list(STUDIES))
def test_a_study_end_to_end_in_a_browser_with_a_server_restart(kind: str, tmp_path: Path) -> None:
    folder = tmp_path / "study"
    extra = STUDIES[kind] + (["--logs", str(_sibench_logs(tmp_path / "logs"))] if kind.startswith("sibench") else [])
    created = _cli("study", "create", kind, "-o", str(folder), "--annotators", "ann,bob", *extra)
    assert created.returncode == 0, created.stderr[-2000:]
    record, keys = studies.load(folder) | {"folder": str(folder)}, studies.key(folder)
    served = [json.loads(line) for line in (folder / "server" / "data" / "items.jsonl").read_text().splitlines()]
    assert all(set(row) == {"id", "html"} for row in served)  # the key never goes to the server's data
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = studies.start(folder, port=port)
    clicked: dict[tuple[str, str], dict[str, Any]] = {}
    leaks: list[str] = []
    try:
        with chromium_browser() as browser:  # after the study (and its logs) exist
            ann = browser.new_context().new_page()
            bob = browser.new_context().new_page()
            potato_login(ann, base, "ann", record["annotators"]["ann"])
            potato_login(bob, base, "bob", record["annotators"]["bob"])
            assert not _drive(ann, base, "ann", record["annotators"]["ann"], record, keys, clicked, 1, leaks)
            assert not _drive(bob, base, "bob", record["annotators"]["bob"], record, keys, clicked, 1, leaks)
            server.kill()  # SIGKILL mid-study
            server.wait()
            server = studies.start(folder, port=port)
            for page, user in ((ann, "ann"), (bob, "bob")):
                # the old session did not survive the restart
                potato_login(page, base, user, record["annotators"][user])
                limit = 1 if kind == "perso-verify" else None  # 8 pages of three items: two each are enough here
                _drive(page, base, user, record["annotators"][user], record, keys, clicked, limit, leaks)
    finally:
        server.kill()
        server.wait()
    assert leaks == []
    saved = {(a.annotator, a.item): a.values for a in studies.answers(folder)}
    for (user, item), plan in clicked.items():  # nothing clicked was lost across the restart
        got = saved[(user, item)]
        assert {k: str(v) for k, v in got.items() if k in plan} == {k: str(v) for k, v in plan.items()}, (user, item)
    scored = _cli("study", "score", str(folder), "--json")
    assert scored.returncode == 0, scored.stderr[-2000:]
    _check_scores(kind, json.loads(scored.stdout), clicked, keys)
    if kind == "longsocial-readers":  # seconds per item are Potato's own active time, read from its saved state
        times = []
        for user in ("ann", "bob"):
            state = json.loads((folder / "server" / "annotation_output" / user / "user_state.json").read_text())
            behaviour = {study_item(page): v for page, v in state["instance_id_to_behavioral_data"].items()}
            mine = [i for (u, i) in clicked if u == user and not keys[i].get("attention") and i in behaviour]
            times += [behaviour[i]["total_time_ms"] / 1000 for i in mine]
        assert times and json.loads(scored.stdout)["median_seconds"] == round(statistics.median(times), 1)


def _check_scores(kind: str, result: dict[str, Any], clicked: dict[tuple[str, str], Any], keys: dict[str, Any]) -> None:
    regular = {k: v for k, v in clicked.items() if not keys[k[1]].get("attention")}
    if kind in ("longsocial-readers", "longsocial-verify"):
        for user in ("ann", "bob"):
            mine = [(item, plan) for (u, item), plan in regular.items() if u == user]
            right = sum(plan["answer"] == keys[item]["gold"] for item, plan in mine)
            assert result["readers"][user]["correct"] == right and result["readers"][user]["n"] == len(mine)
        answers = {u: {item: plan["answer"] for (uu, item), plan in regular.items() if uu == u} for u in ("ann", "bob")}
        expected = agreement(answers).mean_cohen  # not measurable (NaN) is null in strict JSON
        assert result["agreement"]["mean_cohen"] == (None if math.isnan(expected) else pytest.approx(expected))
        if kind == "longsocial-readers":
            assert result["attention"]["ann"] == {"answered": 1, "passed": 1}
        else:
            flagged = {o["study_item"] for o in result["verification"] if o["adjudicate"]}
            revised = {item for (u, item), plan in regular.items() if "revise" in plan.values()}
            assert flagged == revised  # only bob's "revise" decisions send items to adjudication
    elif kind == "sibench-replies":
        (model,) = result["models"].values()
        reply_scores = [(plan, keys[item]["cot_first"]) for (u, item), plan in regular.items()]
        cot = [int(p["reply_1"] if first else p["reply_2"]) for p, first in reply_scores]
        assert model["cot_reply"] == pytest.approx(sum(cot) / len(cot))
        assert not set(model) & set(COMPONENT_KEYS)  # the analysis is the other study's
        (wins,) = result["cot_wins"].values()  # issue 50: a bare "0.64"; now with its n and a Wilson interval
        assert wins["n"] == len(reply_scores) and wins["ci95"][0] <= wins["rate"] <= wins["ci95"][1]
        assert wins["ci95"][1] - wins["ci95"][0] > 0.1
    elif kind == "sibench-process":
        (model,) = result["models"].values()
        clicked_cause = [int(p["cause"]) for p in regular.values()]
        assert model["cause"] == pytest.approx(sum(clicked_cause) / len(clicked_cause))
        assert "cot_reply" not in model and "cot_wins" not in model
    elif kind == "perso-behavioral":
        assert result["invalid_behavioral_answers"] == 0
        group = result["groups"]["behavioral"]
        bob = [item for (u, item) in regular if u == "bob"]  # right where the winner came second
        assert group["n"]["bob"] == len(bob) and not (group.get("ties") or {}).get("bob")
        assert round(group["accuracy"]["bob"] * len(bob)) == sum(not keys[i]["winner_first"] for i in bob)
        mine = [item for (u, item) in regular if u == "ann"]
        assert group["n"]["ann"] == len(mine)  # ann rates Response 1 higher: right where the winner came first
        assert round(group["accuracy"]["ann"] * len(mine)) == sum(keys[i]["winner_first"] for i in mine)
    elif kind == "perso-verify":
        golds = [int(v) for p in regular.values() for q, v in p.items() if q.startswith("gold_")]
        assert result["likert"]["gold"]["mean"] == pytest.approx(sum(golds) / len(golds))


def test_the_perso_behavioral_page_neither_saves_nor_leaves_two_equal_ratings(tmp_path: Path) -> None:
    """Issue 50: the page accepted two equal ratings (a choice of nothing, scored wrong). In a real browser on a
    real Potato server: equal ratings keep the annotator on the page with a message, and are not saved (Potato
    saves each click in the background); two different ratings are saved and move on."""
    folder = tmp_path / "study"
    created = _cli("study", "create", "perso-behavioral", "-o", str(folder), "--annotators", "ann",
                   "-S", "subset=2", "-S", "unchecked=admit")  # fmt: skip
    assert created.returncode == 0, created.stderr[-2000:]
    record, keys = studies.load(folder), studies.key(folder)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = studies.start(folder, port=port)
    try:
        with chromium_browser() as browser:
            page = browser.new_context().new_page()
            potato_login(page, base, "ann", record["annotators"]["ann"])
            item = potato_item(page)
            assert item is not None
            page.check('input[type=radio][schema="rating_1"][value="3"]')
            page.check('input[type=radio][schema="rating_2"][value="3"]')
            page.wait_for_timeout(1500)  # Potato's background save fires 500 ms after a click
            page.click("#next-btn")
            page.wait_for_timeout(1500)
            assert potato_item(page) == item  # still on the page
            assert page.locator("#sb-equal-ratings").is_visible()
            saved = {(a.annotator, a.item): a.values for a in studies.answers(folder)}
            got = saved.get(("ann", item), {})
            assert not (got.get("rating_1") is not None and got.get("rating_1") == got.get("rating_2")), got
            page.check('input[type=radio][schema="rating_2"][value="1"]')
            potato_next(page)
            assert potato_item(page) != item
    finally:
        server.kill()
        server.wait()
    saved = {(a.annotator, a.item): a.values for a in studies.answers(folder)}
    assert {k: str(v) for k, v in saved[("ann", item)].items()} == {"rating_1": "3", "rating_2": "1"}
    assert keys[item]["pair_id"]
