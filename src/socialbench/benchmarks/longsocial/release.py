"""From authored items to a release (Tables 8, 10 and 23): export an authoring study, then release what passed.

    socialbench analyze longsocial authored -A study=AUTHOR_STUDY -A out=authored.jsonl
    socialbench study create longsocial-verify --items authored.jsonl -S episodes=EPISODES ...
    socialbench study create longsocial-adjudicate --items authored.jsonl -S verified=VERIFY_STUDY ...
    socialbench analyze longsocial release -A items=authored.jsonl -A episodes=EPISODES \\
        -A verified=VERIFY_STUDY -A adjudicated=ADJUDICATION_STUDY -A out=RELEASE_DIR

`authored` turns each author's saved page into an item (ids, options, gold, scope and evidence checked against the
episode) with its provenance (author, time, the episode version it was written on) and lints the file; a page that
cannot become an item is named with what is wrong. `release` decides each item from the studies that saw *this
version* of it (a verification of an item edited since does not count; nor does an author verifying their own
item):
- passed verification (every independent verifier recovered the gold and passed every criterion): released;
- flagged, then adjudicated: confirm -> released; clarify or rewrite and re-verify -> held (edit it, verify the new
  version, release again); remove -> removed;
- not verified, or flagged without an adjudication: the release is refused (nothing is written), because leaving
  such items out silently would bias the release towards the items verifiers found easy;
- an item that fails a hard lint check is held; the released set must pass the file-level surface heuristics.
It writes the released items (each with ``meta.release``), the stratified audit sample of Table 10 and a datasheet
(JSON and Markdown) into a new folder, all at once (a temporary folder renamed into place).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from ...core.errors import InputError
from ...core.jsonl import dump_json, write_jsonl
from ...shared import studies
from ...shared.agreement import agreement
from ...shared.itemlint import LintReport, lint_candidates, print_lint
from ...shared.statistics import percent
from .items import Item, check_items, stratified_sample
from .lint import NOT_CHECKED, candidate, scope_findings
from .pack import load_episodes, load_pack
from .studies import CRITERIA, OPTION_NAMES, episode_version, item_version, verification_outcomes

_IDS = re.compile(r"[\s,;]+")


@dataclass
class Authored:
    study: str
    items: list[Item]
    problems: list[str] = field(default_factory=list)
    """One line per saved page that could not become an item."""
    lint: LintReport | None = None
    per_author: dict[str, int] = field(default_factory=dict)


def _slug(episode_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "", episode_id.split(":")[0] + episode_id.split(":")[-1])


def _scope(kind: str, posts: list[str]) -> dict[str, Any]:
    if kind == "subtree":
        if len(posts) != 1:
            raise ValueError(f"a subtree scope names its root: one post id, got {len(posts)}")
        return {"kind": kind, "root": posts[0]}
    if kind == "chain":
        if len(posts) != 2:
            raise ValueError(f"a chain scope names its first and last post: two ids, got {len(posts)}")
        return {"kind": kind, "start": posts[0], "end": posts[1]}
    if kind == "branches":
        if len(posts) < 2:
            raise ValueError("a branches scope names the root reply of each branch: two or more ids")
        return {"kind": kind, "roots": posts}
    if kind == "participant":
        return {"kind": kind, "nodes": posts, "anchor": posts[0] if posts else None}
    return {"kind": kind, "nodes": posts}


def _item(answer: studies.Answer, key: dict[str, Any], thread: Any, study: str) -> Item:
    """One saved authoring page as an item (``ValueError`` / ``InputError`` naming what is wrong)."""
    values = answer.values
    missing = [
        name
        for name in ("capability", "scope_kind", "scope_posts", "stem", *OPTION_NAMES, "gold", "criterion")
        if not str(values.get(name) or "").strip()
    ]
    if missing:
        raise ValueError(f"not filled in: {', '.join(missing)}")
    version = episode_version(thread)
    if version != key["episode_version"]:
        raise ValueError(f"episode {thread.id} changed since the study was created (its post ids may differ)")
    item_id = f"{_slug(thread.id)}-{values['capability']}-{answer.annotator}-{answer.item}"
    raw = {
        "id": item_id,
        "episode_id": thread.id,
        "capability": values["capability"],
        "form": values.get("form") or None,
        "stem": " ".join(str(values["stem"]).split()),
        "options": [" ".join(str(values[name]).split()) for name in OPTION_NAMES],
        "gold": values["gold"],
        "scope": _scope(str(values["scope_kind"]), [p for p in _IDS.split(str(values["scope_posts"])) if p]),
        "evidence": [p for p in _IDS.split(str(values.get("evidence") or "")) if p],
        "criterion": " ".join(str(values["criterion"]).split()),
        "meta": {
            "provenance": {
                "author": answer.annotator,
                "authored": answer.saved.isoformat(timespec="seconds") if answer.saved else None,
                "episode_version": version,
                "study": study,
                "page": answer.item,
            }
        },
    }
    try:
        item = Item.model_validate(raw)
    except ValidationError as exc:
        raise ValueError("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())) from None
    (checked,) = check_items([item], {thread.id: thread}, study)
    return checked


def authored_items(folder: str, incomplete: str = "refuse") -> Authored:
    """The items an authoring study's saved pages make, and the lint of them."""
    record = studies.load(folder)
    if record["kind"] != "longsocial-author":
        raise InputError(folder, f"a {record['kind']} study, not an authoring study (longsocial-author)")
    keys = studies.key(folder)
    threads: dict[str, dict[str, Any]] = {}
    out = Authored(study=str(Path(folder).resolve()), items=[])
    for answer in sorted(studies.answers(folder), key=lambda a: (a.item, a.annotator)):
        key = keys.get(answer.item)
        if key is None:
            out.problems.append(f"{answer.annotator} {answer.item}: not a page of this study")
            continue
        source = key["episodes"]
        if source not in threads:
            threads[source] = load_episodes(source)
        thread = threads[source].get(key["episode_id"])
        if thread is None:
            out.problems.append(f"{answer.annotator} {answer.item}: episode {key['episode_id']} is not in {source}")
            continue
        try:
            item = _item(answer, key, thread, folder)
        except (ValueError, InputError, TypeError, KeyError) as exc:  # a page of the wrong shape is a named problem
            out.problems.append(f"{answer.annotator} {answer.item} ({key['episode_id']}): {exc}")
            continue
        out.items.append(item)
        out.per_author[answer.annotator] = out.per_author.get(answer.annotator, 0) + 1
    if out.problems and incomplete != "skip":
        raise InputError(
            folder,
            f"{len(out.problems)} saved pages cannot become items (-A incomplete=skip exports the rest): "
            + " | ".join(out.problems),
        )
    by_episode = {t.id: t for group in threads.values() for t in group.values()}
    out.lint = _lint(out.items, by_episode, f"lint of the items authored in {folder}")
    return out


def _lint(items: list[Item], threads: Mapping[str, Any], title: str) -> LintReport:
    findings, heuristics = lint_candidates([candidate(i, threads[i.episode_id]) for i in items])
    for item in items:
        findings += scope_findings(item, threads[item.episode_id])
    return LintReport(title, len(items), findings, heuristics, NOT_CHECKED)


def print_authored(console: Console, authored: Authored, as_json: bool, written: str | None = None) -> None:
    assert authored.lint is not None
    if as_json:
        body = {
            "study": authored.study,
            "items": len(authored.items),
            "per_author": authored.per_author,
            "not_exported": authored.problems,
            "written": written,
            "lint": authored.lint.as_dict(),
        }
        console.file.write(dump_json(body) + "\n")
        return
    if authored.items:
        print_lint(console, authored.lint)
    for line in authored.problems:
        console.print(f"[yellow]not exported[/]: {line}")
    who = ", ".join(f"{a} {n}" for a, n in sorted(authored.per_author.items())) or "none yet"
    console.print(
        f"{len(authored.items)} items authored ({who}); {len(authored.problems)} saved pages not exported"
        + (f"; written to {written}" if written else "")
    )


def authored(console: Console, study: str, out: str, incomplete: str = "refuse", as_json: bool = False) -> None:
    """An authoring study's saved pages as an items file with provenance, and their lint (Tables 8, 9, 23).

    A page that cannot become an item (a field left empty, a post id not in the episode, a scope of the wrong
    shape) refuses the export, naming every such page; ``incomplete=skip`` exports the rest and counts them. The
    items are written whatever their lint says; a failed lint (a hard finding, a heuristic above chance) exits 1.

    Args:
        study: folder of a longsocial-author study.
        out: the items JSONL to write (a new file).
        incomplete: refuse (default) or skip pages that cannot become items.
    """
    if incomplete not in ("refuse", "skip"):
        raise ValueError(f"-A incomplete must be refuse or skip, got {incomplete!r}")
    if Path(out).exists():  # an exported file may have been edited since (clarified items): never written over
        raise InputError(out, "exists; authored items are written to a new file")
    result = authored_items(study, incomplete)
    if not result.items:
        raise InputError(study, "no saved page makes an item yet")
    write_jsonl(out, [i.model_dump(exclude_none=True) for i in result.items])
    print_authored(console, result, as_json, written=out)
    if result.lint is not None and not result.lint.passed:  # written, and its lint failed: exit 1, as `lint` does
        raise SystemExit(1)


# ---- release ----------------------------------------------------------------------------------------------------
@dataclass
class Decision:
    item: Item
    status: str
    """released | held | removed | blocked"""
    reason: str
    verification: dict[str, Any] | None = None
    outcome: str | None = None


def _studies(value: str | None) -> list[str]:
    return [p for p in (value or "").split(",") if p.strip()]


def _verifications(folders: list[str], current: dict[str, str]) -> tuple[dict[str, dict[str, Any]], Counter[str]]:
    """Per item id, the verification of its current version (the last study that has one), and what was set
    aside: verifications of another version, self-verifications."""
    out: dict[str, dict[str, Any]] = {}
    aside: Counter[str] = Counter()
    for folder in folders:
        record = studies.load(folder)
        if record["kind"] != "longsocial-verify":
            raise InputError(folder, f"a {record['kind']} study, not a verification study (longsocial-verify)")
        for o in verification_outcomes(folder):
            aside["self-verifications set aside"] += o["self_verifications"]
            if o["item_version"] != current.get(o["item_id"]):
                aside["verifications of another version of the item"] += 1
                continue
            out[o["item_id"]] = o | {"study": folder}
    return out, aside


def _adjudications(folders: list[str], current: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    keys_answers: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for folder in folders:
        record = studies.load(folder)
        if record["kind"] != "longsocial-adjudicate":
            raise InputError(folder, f"a {record['kind']} study, not an adjudication study (longsocial-adjudicate)")
        keys = studies.key(folder)
        for row in studies.answers(folder):
            k = keys.get(row.item, {})
            if k.get("item_version") == current.get(str(k.get("item_id"))) and row.values.get("outcome"):
                keys_answers[k["item_id"]].append({"adjudicator": row.annotator, "study": folder, **row.values})
    return keys_answers


def decide(items: list[Item], verified: str, adjudicated: str | None) -> tuple[list[Decision], Counter[str]]:
    current = {i.id: item_version(i) for i in items}
    checks, aside = _verifications(_studies(verified), current)
    rulings = _adjudications(_studies(adjudicated), current)
    out = []
    for item in items:
        v = checks.get(item.id)
        if v is None or v["verifiers"] == 0:
            out.append(Decision(item, "blocked", "not verified (by anyone but its author) in this version"))
            continue
        if not v["adjudicate"]:
            out.append(Decision(item, "released", "passed verification", v))
            continue
        outcomes = {r["outcome"] for r in rulings.get(item.id, [])}
        if not outcomes:
            out.append(Decision(item, "blocked", "failed verification and has no adjudication", v))
        elif len(outcomes) > 1:
            out.append(Decision(item, "blocked", f"adjudicators disagree: {', '.join(sorted(outcomes))}", v))
        else:
            (outcome,) = outcomes
            notes = "; ".join(str(r["notes"]) for r in rulings[item.id] if r.get("notes"))
            status, reason = {
                "confirm": ("released", "confirmed by adjudication"),
                "remove": ("removed", "removed by adjudication"),
            }.get(outcome, ("held", f"adjudication: {outcome} (edit the item, verify the new version)"))
            out.append(Decision(item, status, reason + (f": {notes}" if notes else ""), v, outcome))
    return out, aside


def _verification_stats(decisions: list[Decision]) -> dict[str, Any]:
    checked = [d.verification for d in decisions if d.verification]
    answers: dict[str, dict[str, str]] = defaultdict(dict)
    for v in checked:
        for who, letter in v["answers"].items():
            answers[who][v["item_id"]] = str(letter)
    doubly = sum(1 for v in checked if v["verifiers"] > 1)  # agreement needs items two verifiers answered
    stats = agreement(answers) if len(answers) > 1 and doubly else None
    verifications = sum(v["verifiers"] for v in checked)
    criteria = {
        c: sum(v["decisions"][c].get("pass", 0) for v in checked) / verifications if verifications else None
        for c in CRITERIA
    }
    return {
        "items_verified": len(checked),
        "verifications": verifications,
        "verifiers": sorted(answers),
        "gold_recovered": sum(v["recovered_gold"] for v in checked) / verifications if verifications else None,
        "criterion_pass_rate": criteria,
        "flagged": sum(1 for v in checked if v["adjudicate"]),
        "items_with_two_verifiers": doubly,
        # agreement on the answer among verifiers who saw the same items (null when not measurable)
        "answer_agreement": (
            {"mean_cohen": stats.mean_cohen, "fleiss": stats.fleiss, "alpha": stats.alpha} if stats else None
        ),
    }


def _counts(items: list[Item], field_name: str) -> dict[str, int]:
    return dict(sorted(Counter(str(getattr(i, field_name) or "-") for i in items).items()))


def release(
    console: Console,
    items: str,
    verified: str,
    out: str,
    episodes: str | None = None,
    adjudicated: str | None = None,
    audit: int = 100,
    seed: int = 0,
    as_json: bool = False,
) -> None:
    """Release the items that passed verification or adjudication, with a datasheet and the audit sample (Tables 8,
    10, 23). Refuses (exit 2, nothing written) when an item is not verified or failed verification without an
    adjudication, an item's episode changed since authoring, or the released items fail the lint heuristics.

    Args:
        items: the authored items JSONL (`socialbench analyze longsocial authored`).
        verified: verification study folder(s), comma-separated (the newest verification of an item's current
            version counts).
        out: a new folder for the release.
        episodes: episodes JSONL (default: the bundled sample episodes).
        adjudicated: adjudication study folder(s), comma-separated.
        audit: items in the stratified release audit sample (Table 10: 100).
        seed: the audit sample's seed.
    """
    target = Path(out)
    if target.exists():
        raise InputError(out, "exists: a release is written into a new folder")
    items_path, episodes_path, threads, loaded = load_pack(items, episodes)
    changed = [
        i.id
        for i in loaded
        if (v := (i.meta.get("provenance") or {}).get("episode_version"))
        and v != episode_version(threads[i.episode_id])
    ]
    if changed:
        raise InputError(items_path, f"the episodes of {', '.join(changed)} changed since they were authored")
    decisions, aside = decide(loaded, verified, adjudicated)
    blocked = [d for d in decisions if d.status == "blocked"]
    if blocked:
        raise InputError(
            items_path,
            f"release refused: {len(blocked)} items unresolved: "
            + "; ".join(f"{d.item.id} {d.reason}" for d in blocked)
            + " (verify them, or build their adjudication study with "
            "`socialbench study create longsocial-adjudicate -S verified=...`, or leave them out of the items file)",
        )
    lint_all = _lint([d.item for d in decisions if d.status == "released"], threads, "")
    failing = {f.item: f for f in lint_all.hard}
    for d in decisions:
        if d.status == "released" and d.item.id in failing:
            d.status, d.reason = "held", f"lint: {failing[d.item.id].check} ({failing[d.item.id].message})"
    released = [d for d in decisions if d.status == "released"]
    report = _lint([d.item for d in released], threads, f"lint of the release {out}")
    if not released:
        raise InputError(items_path, "release refused: no item is released")
    if report.failed_heuristics:
        names = ", ".join(f"{h['heuristic']} {h['accuracy']:.1%}" for h in report.failed_heuristics)
        raise InputError(items_path, f"release refused: the released items have surface shortcuts ({names})")
    sample = stratified_sample([d.item for d in released], audit, seed)
    stamped = [
        d.item.model_copy(
            update={"meta": d.item.meta | {"release": {"decision": d.reason, "outcome": d.outcome, **_trail(d)}}}
        )
        for d in released
    ]
    sheet = {
        "released": len(released),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "inputs": {
            "items": str(items_path),
            "items_sha256": hashlib.sha256(items_path.read_bytes()).hexdigest(),
            "episodes": str(episodes_path),
            "verified": _studies(verified),
            "adjudicated": _studies(adjudicated),
        },
        "stages": {
            "candidates": len(decisions),
            **{s: sum(1 for d in decisions if d.status == s) for s in ("released", "held", "removed")},
            "adjudication_outcomes": dict(Counter(d.outcome for d in decisions if d.outcome)),
            **dict(aside),
        },
        "per_capability": _counts([d.item for d in released], "capability"),
        "per_platform": _counts([d.item for d in released], "platform"),
        "per_form": _counts([d.item for d in released], "form"),
        "capability_x_platform": dict(Counter(f"{d.item.capability} {d.item.platform}" for d in released)),
        "verification": _verification_stats(decisions),
        "authors": dict(Counter(str((d.item.meta.get("provenance") or {}).get("author", "-")) for d in released)),
        "lint": report.as_dict(),
        "audit_sample": {
            "size": len(sample),
            "seed": seed,
            "per_platform": _counts(sample, "platform"),
            "items": [i.id for i in sample],
        },
        "not_released": [
            {"item": d.item.id, "status": d.status, "reason": d.reason} for d in decisions if d not in released
        ],
    }
    _write_release(target, stamped, sample, sheet)
    if as_json:
        console.file.write(dump_json(sheet) + "\n")
        return
    console.print(_markdown(sheet), markup=False, highlight=False)
    console.print(f"released {len(released)} of {len(decisions)} items into {out}")


def _trail(d: Decision) -> dict[str, Any]:
    v = d.verification or {}
    return {"verifiers": v.get("verifiers"), "recovered_gold": v.get("recovered_gold"), "verified_in": v.get("study")}


def _write_release(target: Path, items: list[Item], sample: list[Item], sheet: dict[str, Any]) -> None:
    """Every file in a temporary folder beside the target, renamed into place at the end: all or nothing."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        write_jsonl(staging / "items.jsonl", [i.model_dump(exclude_none=True) for i in items])
        write_jsonl(staging / "audit_sample.jsonl", [i.model_dump(exclude_none=True) for i in sample])
        (staging / "datasheet.json").write_text(dump_json(sheet) + "\n", encoding="utf-8")
        (staging / "datasheet.md").write_text(_markdown(sheet), encoding="utf-8")
        try:
            os.rename(staging, target)  # atomic: of two releases into one new folder, one lands whole
        except OSError as exc:
            if target.exists():
                raise InputError(target, "exists: another release was written there meanwhile") from None
            raise InputError(target, f"cannot be written ({exc.strerror})") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _table(title: str, counts: dict[str, Any], column: str = "items") -> list[str]:
    return [f"| {title} | {column} |", "|---|---:|", *(f"| {k} | {v} |" for k, v in counts.items()), ""]


def _markdown(sheet: dict[str, Any]) -> str:
    v, stages, lint = sheet["verification"], sheet["stages"], sheet["lint"]

    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{percent(x)}%"

    agree = v["answer_agreement"]
    lines = [
        "# LongSocialBench release datasheet",
        "",
        f"Created {sheet['created']} from `{sheet['inputs']['items']}` "
        f"(sha256 {sheet['inputs']['items_sha256'][:16]}...).",
        "",
        "## Stages (Table 23)",
        "",
        *_table("stage", {k: v_ for k, v_ in stages.items() if not isinstance(v_, dict)}),
        *_table("adjudication outcome", stages["adjudication_outcomes"] or {"none": 0}),
        "## Released items",
        "",
        *_table("capability", sheet["per_capability"]),
        *_table("platform", sheet["per_platform"]),
        *_table("form", sheet["per_form"]),
        "## Verification",
        "",
        f"{v['items_verified']} items, {v['verifications']} independent verifications by {len(v['verifiers'])} "
        f"verifiers; gold recovered in {pct(v['gold_recovered'])}; {v['flagged']} items flagged for adjudication.",
        "",
        *_table("criterion", {c: pct(r) for c, r in v["criterion_pass_rate"].items()}, "passed by verifiers"),
        (
            f"Answer agreement among verifiers ({v['items_with_two_verifiers']} items have two or more): mean "
            f"Cohen's kappa {_num(agree['mean_cohen'])} (each pair over the items both answered), Fleiss' kappa "
            f"{_num(agree['fleiss'])} (over the items every verifier answered), Krippendorff's alpha "
            f"{_num(agree['alpha'])} (over the items two or more answered)."
            if agree
            else "Answer agreement: not measurable, no item has two independent verifiers (an author's own "
            "verification is set aside: `--overlap 3` gives every item two others)."
        ),
        "",
        "## Lint of the released items (Tables 8, 9)",
        "",
        "| heuristic | accuracy | p | limit |",
        "|---|---:|---:|---:|",
        *(
            f"| {h['heuristic']} | {h['accuracy']:.1%} | {h['p_value']:.3g} | {h['limit']:.0%} |"
            for h in lint["heuristics"]
        ),
        "",
        f"{lint['hard_findings']} hard findings, {lint['warnings']} warnings. Not checked by lint: "
        + "; ".join(lint["not_checked"]),
        "",
        f"## Audit sample (Table 10): {sheet['audit_sample']['size']} items, seed {sheet['audit_sample']['seed']}",
        "",
        *_table("platform", sheet["audit_sample"]["per_platform"]),
        "In `audit_sample.jsonl`: verify it with `socialbench study create longsocial-verify --items "
        "RELEASE/audit_sample.jsonl ...`.",
        "",
        "## Not released",
        "",
        *([f"- {r['item']}: {r['status']}, {r['reason']}" for r in sheet["not_released"]] or ["- none"]),
        "",
    ]
    return "\n".join(lines)


def _num(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{x:.3f}"


def score_authoring(folder: str, console: Console, as_json: bool = False) -> None:
    """How far authoring is (items written per author) and the lint of what is written so far."""
    print_authored(console, authored_items(folder, incomplete="skip"), as_json)
