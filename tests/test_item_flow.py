"""The item release flow of LongSocialBench through real Potato servers and a real browser (Playwright on Debian's
chromium): two authors write items on a real thread, verify each other's (and their own, which does not count),
one item is flagged and adjudicated, and the release file and datasheet hold exactly what was clicked. And the
annotation page on a real 1,428-comment thread: the question stays in view, branches expand and collapse, post ids
in the question open and show the post, the OP is marked."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import chromium_browser, free_port, potato_answer, potato_item, potato_login, potato_next, socialbench
from socialbench.benchmarks.longsocial.studies import CRITERIA
from socialbench.shared import studies
from test_release import EPISODE, page, sample_items

pytestmark = [pytest.mark.browser, pytest.mark.potato]
VIEW = {"width": 1280, "height": 900}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return socialbench(*args)


@contextmanager
def _served(folder: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    port = free_port()
    server = studies.start(folder, port=port)
    try:
        yield f"http://127.0.0.1:{port}", studies.load(folder)
    finally:
        studies.stop(server)


def _work(
    browser: Any, folder: Path, plan: Callable[[str, str, dict[str, Any]], dict[str, str]], check: Any = None
) -> dict[tuple[str, str], dict[str, str]]:
    """Every annotator of the study logs in and answers every page they are given by ``plan(user, page, key)``."""
    keys = studies.key(folder)
    clicked = {}
    with _served(folder) as (base, record):
        questions = {q["name"]: q for q in record["questions"]}
        for user, password in record["annotators"].items():
            tab = browser.new_context(viewport=VIEW).new_page()
            potato_login(tab, base, user, password)
            while (item := potato_item(tab)) is not None:
                tab.wait_for_selector("#main-content .sb-question", state="visible")
                if check:
                    check(tab, keys[item])
                clicked[(user, item)] = plan(user, item, keys[item])
                potato_answer(tab, questions, clicked[(user, item)])
                potato_next(tab)
            tab.context.close()
    return clicked


def _in_view(tab: Any, selector: str) -> bool:
    """The element lies inside the window and is what is drawn at its centre (nothing covers it)."""
    return bool(
        tab.evaluate(
            """(selector) => {
            const el = document.querySelector(selector), r = el.getBoundingClientRect();
            if (r.top < 0 || r.bottom > innerHeight || r.width < 5) return false;
            return el.contains(document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2));
        }""",
            selector,
        )
    )


def _question_in_view(tab: Any) -> bool:
    """The question panel lies inside the window and nothing covers it (what is drawn at its corners is it)."""
    return bool(
        tab.evaluate(
            """() => {
            const panel = document.querySelector('.sb-question'), r = panel.getBoundingClientRect();
            if (r.top < 0 || r.bottom > innerHeight || r.height < 20) return false;
            return [[r.left + 5, r.top + 5], [r.right - 5, r.top + 5], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]]
                .every(([x, y]) => panel.contains(document.elementFromPoint(x, y)));
        }"""
        )
    )


def _linked_post_is_shown(tab: Any, key: dict[str, Any]) -> None:
    """Collapse every branch, click the first post id of the question: the post is opened, with its branch, in view."""
    links = tab.locator('.sb-question a[href^="#c"]')
    assert links.count() >= 1, key["item_id"]
    tab.click(".sb-collapse-all")
    assert tab.evaluate("document.querySelectorAll('details.sb-post[open]').length") == 0
    target = links.first.get_attribute("href")[1:]
    links.first.click()
    tab.wait_for_function(  # the post and every branch above it open, the post inside the window
        f"""() => {{
        const post = document.querySelector('details.sb-post.sb-{target}'), r = post.getBoundingClientRect();
        let open = true;
        for (let d = post; d; d = d.parentElement.closest('details')) open = open && d.open;
        return open && r.top >= 0 && r.top < innerHeight;
    }}""",
        timeout=10_000,
    )
    tab.click(".sb-expand-all")


def test_authoring_verification_adjudication_and_release_by_two_annotators(tmp_path: Path) -> None:
    typed = sample_items()  # the four sample items of EPISODE, typed in by the two authors
    writes = dict(zip([("ann", "w0001"), ("ann", "w0002"), ("bob", "w0001"), ("bob", "w0002")], typed, strict=True))
    author = tmp_path / "author"
    made = _cli("study", "create", "longsocial-author", "-o", str(author), "--annotators", "ann,bob",
                "-S", f"ids={EPISODE}", "-S", "per_episode=2")  # fmt: skip
    assert made.returncode == 0, made.stderr
    with chromium_browser() as browser:
        _work(browser, author, lambda user, item, key: page(writes[(user, item)]))
        authored = tmp_path / "authored.jsonl"
        exported = _cli("analyze", "longsocial", "authored", "-A", f"study={author}", "-A", f"out={authored}", "--json")
        assert exported.returncode == 0, exported.stderr
        assert json.loads(exported.stdout)["lint"]["passed"]
        rows = {}
        for row in map(json.loads, authored.read_text().splitlines()):
            rows[row["meta"]["provenance"]["author"] + row["meta"]["provenance"]["page"]] = row
        for (user, item), source in writes.items():  # what was typed in the browser is what was exported
            got = rows[user + item]
            assert (got["stem"], got["options"], got["gold"], got["evidence"]) == (
                source["stem"], source["options"], source["gold"], source["evidence"]
            )  # fmt: skip
            assert got["meta"]["provenance"]["authored"]

        flagged = rows["annw0001"]["id"]  # bob, verifying ann's first item, misses its gold
        verify = tmp_path / "verify"
        made = _cli("study", "create", "longsocial-verify", "-o", str(verify), "--annotators", "ann,bob",
                    "--items", str(authored), "-S", "attention=0")  # fmt: skip
        assert made.returncode == 0, made.stderr
        shown: list[str] = []

        def verifier(user: str, item: str, key: dict[str, Any]) -> dict[str, str]:
            letter = key["gold"]
            if user == "bob" and key["item_id"] == flagged:
                letter = "ABCD"[("ABCD".index(letter) + 1) % 4]
            return {"answer": letter, **dict.fromkeys(CRITERIA, "pass")}

        def see(tab: Any, key: dict[str, Any]) -> None:
            # Table 23: the verifier sees the model-facing input only (no gold, criterion, scope or evidence marks)
            body = tab.locator("#text-content").inner_text()
            assert tab.locator("#text-content mark").count() == 0 and "Gold:" not in body and "Criterion:" not in body
            if not shown:
                _linked_post_is_shown(tab, key)
            shown.append(key["item_id"])

        _work(browser, verify, verifier, see)
        assert len(shown) == 8

        release = tmp_path / "release"
        args = ["analyze", "longsocial", "release", "-A", f"items={authored}", "-A", f"verified={verify}"]
        refused = _cli(*args, "-A", f"out={release}")
        assert refused.returncode == 2 and not release.exists()  # README, "Exit codes": refused = 2
        assert f"{flagged} failed verification and has no adjudication" in " ".join(refused.stderr.split())

        adjudicate = tmp_path / "adjudicate"
        made = _cli("study", "create", "longsocial-adjudicate", "-o", str(adjudicate), "--annotators", "bob",
                    "--items", str(authored), "-S", f"verified={verify}")  # fmt: skip
        assert made.returncode == 0, made.stderr

        def adjudicator(user: str, item: str, key: dict[str, Any]) -> dict[str, str]:
            assert key["item_id"] == flagged
            return {"outcome": "confirm", "notes": "the answer follows from c2's exchange"}

        assert len(_work(browser, adjudicate, adjudicator)) == 1

    done = _cli(*args, "-A", f"adjudicated={adjudicate}", "-A", f"out={release}", "--json")
    assert done.returncode == 0, done.stderr
    sheet = json.loads(done.stdout)
    assert sheet["released"] == 4 and sheet["stages"]["adjudication_outcomes"] == {"confirm": 1}
    assert sheet["stages"]["self-verifications set aside"] == 4
    assert sheet["verification"]["verifications"] == 4 and sheet["verification"]["gold_recovered"] == 3 / 4
    # one independent verifier per item (overlap 2, one of them the author): agreement is not measurable, and says so
    assert sheet["verification"]["items_with_two_verifiers"] == 0 and sheet["verification"]["answer_agreement"] is None
    assert "no item has two independent verifiers" in " ".join((release / "datasheet.md").read_text().split())
    assert sheet["authors"] == {"ann": 2, "bob": 2}
    released = {r["id"]: r for r in map(json.loads, (release / "items.jsonl").read_text().splitlines())}
    assert released[flagged]["meta"]["release"]["decision"].startswith("confirmed by adjudication")
    assert (release / "datasheet.md").read_text().count("| confirm | 1 |") == 1


def test_the_annotation_page_on_a_1428_comment_thread(data: Path, tmp_path: Path) -> None:
    episodes = tmp_path / "n49rw.jsonl"
    files = sorted(str(f) for f in (data / "reddit/n49rw").glob("*.json"))
    imported = _cli("import", "reddit-json", *files, "-o", str(episodes))
    assert imported.returncode == 0, imported.stderr
    thread = json.loads(episodes.read_text())
    op = next(n["author"] for n in thread["nodes"] if n["id"] == thread["root_id"])
    by_op = sum(1 for n in thread["nodes"] if n["author"] == op)
    folder = tmp_path / "author"
    assert _cli("study", "create", "longsocial-author", "-o", str(folder), "--annotators", "ann",
                "-S", f"episodes={episodes}").returncode == 0  # fmt: skip
    with chromium_browser() as browser, _served(folder) as (base, record):
        tab = browser.new_context(viewport=VIEW).new_page()
        potato_login(tab, base, "ann", record["annotators"]["ann"])
        tab.wait_for_selector("#main-content .sb-question", state="visible")
        count = "document.querySelectorAll('details.sb-post{}').length"
        assert tab.evaluate(count.format("")) == len(thread["nodes"]) == 1429
        assert tab.evaluate(count.format("[open]")) == 1  # a thread this long opens at its root
        assert tab.locator(".sb-op").count() == by_op > 1
        tab.click(".sb-expand-all")
        assert tab.evaluate(count.format("[open]")) == 1429
        for share in (0.25, 0.5, 0.9):  # read down the thread: the question stays in view
            tab.evaluate(
                f"""() => {{ const t = document.querySelector('.sb-thread').getBoundingClientRect();
                window.scrollTo({{top: window.scrollY + t.top + {share} * t.height, behavior: 'instant'}}); }}"""
            )
            assert tab.evaluate("window.scrollY") > 10000 * share
            assert _question_in_view(tab), share
            assert _in_view(tab, "#next-btn"), share  # issue 38: Next sat 14,000 px down, below the thread
        tab.screenshot(path=str(tmp_path / "reading.png"))  # kept with the test's files when it fails
        assert tab.locator("textarea.shadcn-textbox-textarea").count() >= 3  # options, criterion: multi-line
        tab.click(".sb-collapse-all")
        assert tab.evaluate(count.format("[open]")) == 0
        phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        potato_login(phone, base, "ann", record["annotators"]["ann"])
        phone.wait_for_selector("#main-content .sb-question", state="visible")
        thread_width = phone.evaluate("document.querySelector('.sb-thread').getBoundingClientRect().width")
        assert thread_width > 0.6 * 390, thread_width  # the thread column had 0 px at a phone's width
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390 + 1
        phone.evaluate("window.scrollTo({top: document.body.scrollHeight / 2, behavior: 'instant'})")
        assert _in_view(phone, "#next-btn")
        nested = tab.evaluate("getComputedStyle(document.querySelector('.sb-replies')).borderLeftWidth")
        assert nested == "2px"  # the nesting line of the page's CSS (not drawn without it)
