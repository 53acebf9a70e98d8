"""Human studies on Potato (potato-annotation 2.12): build a study folder, serve it, read the answers back.

A benchmark describes a study as a `Design` (questions and items, each item an HTML view plus a *key* that stays
on the server's side); `create` writes it out:

    STUDY/study.json               what the study is: kind, annotators (and passwords), assignment, seed
    STUDY/key.jsonl                per item: gold, provenance, attention flag -- never served
    STUDY/server/config.yaml       the Potato config (fixed roster, one seeded order per annotator)
    STUDY/server/data/items.jsonl  per item ONLY {"id", "html"}: Potato sends a whole record to the browser
    STUDY/server/users.jsonl       logins
    STUDY/label-studio/            the same study in Label Studio's import format (tasks.json, config.xml)

Pages are served as ``ITEM_TOKEN`` (the item id and a random token of this study, kept in study.json as ``pages``):
a Potato save or Label Studio export copied from another study over the same items names pages this study never
showed, and is refused rather than scored against this study's key.

Blind by construction: item ids are opaque (``i0001``), the HTML is built from escaped text, and the key (gold
answers, which model or mode wrote a reply, the presentation order) exists only in ``key.jsonl``; `score` joins it
back. Potato's own attention-check and gold features are not used because they send their answers to the browser;
attention checks are ordinary items whose expected answer is in the key and which are scored apart.
"""

from __future__ import annotations

import errno
import html
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ..core.errors import InputError
from ..core.jsonl import atomic_writer, read_jsonl, write_jsonl

Kind = Literal["radio", "likert", "text", "multiselect"]
PAGE = Path(__file__).parent / "page"
"""The study page's CSS and script (sticky question panel, expand / collapse all, post links)."""


@dataclass
class Question:
    """One annotation scheme (a Potato ``annotation_scheme``)."""

    name: str
    kind: Kind
    description: str
    labels: list[str] = field(default_factory=list)
    """radio / multiselect options; likert: ``size`` points labelled by ``min_label`` ... ``max_label``."""
    size: int = 5
    min_label: str = ""
    max_label: str = ""
    required: bool = True
    lines: int = 3
    """text: rows of its box (a multi-line box: options, criteria and rationales do not fit one line)."""


@dataclass
class Item:
    id: str
    html: str
    key: dict[str, Any]
    attention: bool = False
    group: str = ""
    """Items of one group (one dialogue under several models or conditions) go to different annotators where the
    roster allows: an annotator who has seen a text judges its next version with a memory of the last."""


@dataclass
class Design:
    kind: str
    title: str
    instructions: str
    questions: list[Question]
    items: list[Item]
    notes: list[str] = field(default_factory=list)
    """What building the study left out or decided, printed by `study create` and kept in study.json."""


@dataclass
class Answer:
    annotator: str
    item: str
    values: dict[str, Any]
    """question name -> value (a label string, a likert point as int, text, or a list for multiselect)."""
    seconds: float | None = None
    saved: datetime | None = None
    """When the annotator last worked on the item (Potato's session end on it), if known."""


def escape(text: str) -> str:
    """Text from conversations as HTML: escaped (Potato sanitises HTML but executes a stray ``</script``)."""
    return html.escape(text, quote=True).replace("\n", "<br>")


# ---- create -----------------------------------------------------------------------------------------------------
def _assignment(items: list[Item], annotators: list[str], overlap: int, seed: int) -> tuple[dict[str, list[str]], int]:
    """Each regular item to ``overlap`` annotators, round robin over a seeded order in which the items of a group are
    adjacent (so a group of g items reaches g * overlap different annotators while there are that many); every
    attention item to everyone; each annotator's list in their own seeded order. Also returns how many times an
    annotator is given a second item of a group they already have (0 when the roster is large enough)."""
    rng = random.Random(f"{seed}:items")
    groups: dict[str, list[str]] = {}
    for item in (i for i in items if not i.attention):
        groups.setdefault(item.group or f"item:{item.id}", []).append(item.id)
    names = list(groups)
    rng.shuffle(names)
    order = [i for g in names for i in rng.sample(groups[g], len(groups[g]))]
    group_of = {i: g for g, ids in groups.items() for i in ids}
    per: dict[str, list[str]] = {a: [] for a in annotators}
    for n, item_id in enumerate(order):
        for j in range(overlap):
            per[annotators[(n + j) % len(annotators)]].append(item_id)
    repeats = sum(len(mine) - len({group_of[i] for i in mine}) for mine in per.values())
    attention = [i.id for i in items if i.attention]
    for a in annotators:
        per[a] += attention
        random.Random(f"{seed}:{a}").shuffle(per[a])
    return per, repeats


def _scheme(q: Question) -> dict[str, Any]:
    scheme: dict[str, Any] = {"annotation_type": q.kind, "name": q.name, "description": q.description}
    if q.kind in ("radio", "multiselect"):
        scheme["labels"] = list(q.labels)
    if q.kind == "likert":
        scheme |= {"size": q.size, "min_label": q.min_label, "max_label": q.max_label}
    if q.kind == "text":
        scheme |= {"multiline": True, "rows": str(q.lines), "cols": "60"}
    if q.required and q.kind != "text":
        scheme["label_requirement"] = {"required": True}
    return scheme


def create(
    design: Design,
    folder: str | Path,
    annotators: Sequence[str],
    overlap: int | None = None,
    seed: int = 0,
    benchmark: str = "",
) -> dict[str, Any]:
    """Write a study folder (see the module docstring); returns the study record (with the logins)."""
    root = Path(folder)
    if (root / "study.json").exists():
        raise InputError(root, "a study already exists here (choose a new folder)")
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        # a study writes server/, key.jsonl, label-studio/ ...: never over a user's files
        raise InputError(root, "exists and is not empty (a study is written to a new or empty folder)")
    names = [a.strip() for a in annotators if a.strip()]
    if not names or len(set(names)) != len(names):
        raise ValueError("give one or more distinct annotator names (--annotators a,b,c)")
    if not design.items:
        raise ValueError("the study has no items")
    k = len(names) if overlap is None else overlap
    if not 1 <= k <= len(names):
        raise ValueError(f"overlap must be between 1 and the number of annotators ({len(names)}), got {k}")
    regular = [i.id for i in design.items if not i.attention]
    attention = [i.id for i in design.items if i.attention]
    assignment, repeats = _assignment(design.items, names, k, seed)
    notes = list(design.notes)
    if repeats:
        largest = max(Counter(i.group for i in design.items if i.group and not i.attention).values())
        notes.append(
            f"{repeats} page(s) show an annotator a dialogue they already saw: a dialogue has up to {largest} items, "
            f"so {largest * k} annotators at overlap {k} would see each once"
        )
    # every page id the server and Label Studio see carries this study's token: a save or export copied from another
    # study over the same items (same item ids, maybe other option orders) names pages this study never showed
    pages = secrets.token_hex(3)
    assignment = {a: [f"{i}_{pages}" for i in mine] for a, mine in assignment.items()}
    logins = {a: secrets.token_urlsafe(9) for a in names}
    # Potato shows the task name in the page title and navbar: it names the study kind, never the folder (which a
    # user may have named after a model or condition); the token keeps concurrent studies' layouts apart
    task_name = f"socialbench {design.kind} {secrets.token_hex(3)}"
    config = {
        # Potato keeps one page layout per task name: a unique name keeps concurrent studies apart
        "annotation_task_name": task_name,
        "task_dir": ".",
        "output_annotation_dir": "annotation_output/",
        "data_files": ["data/items.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "html"},
        "require_password": True,
        "authentication": {"user_config_path": "users.jsonl"},
        "user_config": {"allow_all_users": False, "users": names},
        "assignment_strategy": "batch",
        "batch_assignment": {
            "groups": [{"name": f"g_{a}", "annotators": [a], "instances": assignment[a]} for a in names]
        },
        # each annotator's own number of pages: Potato's navbar counts progress against it (without it, against
        # what is left in the whole pool: "Progress 25/38" on the last of 26 pages)
        "per_annotator_quota": {"by_user": {a: len(assignment[a]) for a in names}},
        "annotation_schemes": [_scheme(q) for q in design.questions],
        "annotation_instructions": design.instructions,
        # the page's own CSS and script (Potato 2.12 sanitizes item HTML: no ids, scripts or sticky CSS there)
        "base_css": "socialbench.css",
        "custom_footer_html": f"<script>{(PAGE / 'study.js').read_text(encoding='utf-8')}</script>",
    }
    server = root / "server"
    (server / "data").mkdir(parents=True, exist_ok=True)
    write_jsonl(server / "data" / "items.jsonl", [{"id": f"{i.id}_{pages}", "html": i.html} for i in design.items])
    shutil.copyfile(PAGE / "study.css", server / "socialbench.css")
    write_jsonl(server / "users.jsonl", [{"username": a, "password": p} for a, p in logins.items()])
    with atomic_writer(server / "config.yaml") as handle:  # JSON is valid YAML; Potato requires the .yaml name
        json.dump(config, handle, ensure_ascii=False, indent=1)
    write_jsonl(root / "key.jsonl", [{"id": i.id, "attention": i.attention, **i.key} for i in design.items])
    _label_studio(design, root / "label-studio", pages)
    record = {
        "kind": design.kind,
        "benchmark": benchmark,
        "title": design.title,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "annotators": logins,
        "overlap": k,
        "seed": seed,
        "items": len(regular),
        "attention_items": len(attention),
        "notes": notes,
        "pages": pages,
        "questions": [asdict(q) for q in design.questions],
    }
    with atomic_writer(root / "study.json") as handle:
        json.dump(record, handle, ensure_ascii=False, indent=1)
    return record


def _label_studio(design: Design, folder: Path, pages: str) -> None:
    """The study in Label Studio's import format: tasks (``data.html``) and a labeling config (XML)."""
    tags = []
    for q in design.questions:
        header = f'<Header value="{html.escape(q.description)}"/>'
        if q.kind in ("radio", "multiselect"):
            choice = "single" if q.kind == "radio" else "multiple"
            options = "".join(f'<Choice value="{html.escape(label)}"/>' for label in q.labels)
            tags.append(f'{header}<Choices name="{q.name}" toName="item" choice="{choice}">{options}</Choices>')
        elif q.kind == "likert":
            tags.append(f'{header}<Rating name="{q.name}" toName="item" maxRating="{q.size}"/>')
        else:
            tags.append(f'{header}<TextArea name="{q.name}" toName="item"/>')
    xml = f'<View><HyperText name="item" value="$html"/>{"".join(tags)}</View>'
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_writer(folder / "config.xml") as handle:
        handle.write(xml)
    with atomic_writer(folder / "tasks.json") as handle:
        tasks = [{"data": {"id": f"{i.id}_{pages}", "html": i.html}} for i in design.items]
        json.dump(tasks, handle, ensure_ascii=False)


def load(folder: str | Path) -> dict[str, Any]:
    path = Path(folder) / "study.json"
    if not path.exists():
        raise InputError(folder, "not a study folder (no study.json); create one with `socialbench study create`")
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc.msg}", line=exc.lineno) from None


def key(folder: str | Path) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for _, row in read_jsonl(Path(folder) / "key.jsonl", "study key")}


# ---- serve ------------------------------------------------------------------------------------------------------
def potato_command() -> str:
    found = shutil.which("potato", path=str(Path(sys.executable).parent)) or shutil.which("potato")
    if not found:
        raise RuntimeError("Potato is not installed: pip install 'socialbench[studies]'")
    return found


def start(
    folder: str | Path, host: str = "127.0.0.1", port: int = 8765, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """Start Potato on the study in its own process group; returns once *this* study's page answers on the port.

    A port already in use, a Potato that exits early (its last log line is in the message) or never answers
    within 60 s is a `RuntimeError` with one line, and no Potato process is left behind. Stop it with `stop`."""
    server = Path(folder) / "server"
    load(folder)
    task_name = json.loads((server / "config.yaml").read_text(encoding="utf-8"))["annotation_task_name"]
    _check_port_free(host, port)
    out_path = log or (server / "potato.out")
    out = open(out_path, "ab")  # noqa: SIM115 - lives as long as the server process
    started = out.tell()
    process = subprocess.Popen(
        [potato_command(), "start", "config.yaml", "-p", str(port), "--host", host],
        cwd=server,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group: `stop` ends Potato and anything it started, whatever signal we got
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(
                    f"Potato exited with code {process.returncode}: {_last_line(out_path, started)} (log: {out_path})"
                )
            if _serves(host, port, task_name) and process.poll() is None:
                return process
            time.sleep(0.2)
        raise RuntimeError(f"Potato did not answer on {host}:{port} within 60 s (log: {out_path})")
    except BaseException:  # an error, Ctrl-C or SIGTERM while starting: no Potato is left running
        stop(process)
        raise


def stop(process: subprocess.Popen[bytes], timeout: float = 10) -> None:
    """End a Potato started by `start` and its process group: SIGTERM, then SIGKILL after ``timeout`` seconds."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _check_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Potato's server (werkzeug) binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            what = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be used ({exc.strerror})"
            raise RuntimeError(f"port {port} on {host} {what}: stop what holds it or pass --port") from None


def _serves(host: str, port: int, task_name: str) -> bool:
    """Whether the page on the port is this study's (another server, or another study, answering there is not)."""
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/", timeout=1) as answer:
            return task_name in answer.read().decode("utf-8", "replace")
    except OSError:
        return False


def _last_line(log: Path, since: int) -> str:
    """The last non-blank line Potato wrote in this run (its error), or a note that it wrote none."""
    with open(log, "rb") as handle:
        handle.seek(since)
        lines = [line.strip() for line in handle.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else "it wrote nothing"


# ---- read answers -----------------------------------------------------------------------------------------------
def answers(folder: str | Path) -> list[Answer]:
    """Every saved answer of every annotator (Potato writes ``user_state.json`` on each save, atomically), plus those
    of a Label Studio export saved as ``label-studio/export.json``."""
    record = load(folder)
    export = Path(folder) / "label-studio" / "export.json"
    if export.exists():
        return label_studio_answers(folder, export)
    questions = {q["name"]: q for q in record["questions"]}
    item_of = _pages(record, key(folder))  # the study scores only what it showed
    out = []
    for annotator in record["annotators"]:
        state_path = Path(folder) / "server" / "annotation_output" / annotator / "user_state.json"
        if not state_path.exists():
            continue
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(state_path, f"invalid JSON: {exc.msg}", line=exc.lineno) from None
        if not isinstance(state, dict):
            raise InputError(state_path, "not a Potato save (a JSON object is expected)")
        if state.get("user_id") not in (None, annotator):
            raise InputError(state_path, f"the save of {state['user_id']!r}, not of annotator {annotator}")
        times, saved = _seconds(state), _saved(state)
        pages = state.get("instance_id_to_label_to_value") or {}
        if not isinstance(pages, dict):
            raise InputError(
                state_path, f"annotator {annotator}: the answers are not a mapping of pages (not a Potato save)"
            )
        for page, pairs in pages.items():
            item = item_of.get(page)
            if item is None:
                raise InputError(
                    state_path,
                    f"annotator {annotator}: page {page!r} is not a page of this study (a save of another study?)",
                )
            if not isinstance(pairs, list):
                raise InputError(state_path, f"annotator {annotator}, page {item}: the answers are not a list")
            values: dict[str, Any] = {}
            for n, pair in enumerate(pairs):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise InputError(
                        state_path, f"annotator {annotator}, page {item}: answer {n} is not a [label, value] pair"
                    )
                label, value = pair
                schema = label.get("schema") if isinstance(label, dict) else None
                if schema is not None and not isinstance(schema, str):
                    raise InputError(
                        state_path, f"annotator {annotator}, page {item}: answer {n} names no question ({schema!r})"
                    )
                q = questions.get(schema)
                if q is None:
                    continue
                where = f"annotator {annotator}, page {item}, question {q['name']}"
                if q["kind"] != "likert" and not isinstance(value, str):
                    raise InputError(state_path, f"{where}: {value!r} is not text")
                if q["kind"] == "multiselect":
                    values.setdefault(q["name"], []).append(value)
                elif q["kind"] == "likert":
                    if not str(value).strip().isdigit() or not 1 <= int(value) <= int(q.get("size") or 5):
                        raise InputError(
                            state_path, f"{where}: {value!r} is not a point of the {q.get('size') or 5}-point scale"
                        )
                    values[q["name"]] = int(value)
                else:
                    if q["kind"] == "radio" and q.get("labels") and value not in q["labels"]:
                        labels = ", ".join(map(str, q["labels"]))
                        raise InputError(state_path, f"{where}: {value!r} is not one of {labels}")
                    values[q["name"]] = value
            if values:
                out.append(Answer(annotator, item, values, times.get(page), saved.get(page)))
    return out


def _pages(record: dict[str, Any], shown: dict[str, Any]) -> dict[str, str]:
    """Page id as served -> the study's item id (studies made before page tokens serve the item ids themselves)."""
    token = record.get("pages")
    return {f"{i}_{token}" if token else i: i for i in shown}


def unanswered(folder: str | Path, rows: Sequence[Answer]) -> list[str]:
    """The study's annotators who have saved no answer yet (every score lists them: absent is not zero)."""
    answered = {r.annotator for r in rows}
    return [a for a in load(folder)["annotators"] if a not in answered]


def label_studio_answers(folder: str | Path, export: str | Path) -> list[Answer]:
    """Answers from a Label Studio JSON export of the study's ``label-studio/`` tasks (tasks carry our item id in
    ``data.id``; annotators are Label Studio's ``completed_by``). Read without installing Label Studio."""
    record = load(folder)
    questions = {q["name"]: q for q in record["questions"]}
    item_of = _pages(record, key(folder))  # the study scores only what it showed
    path = Path(export)
    try:
        tasks = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(path, f"cannot read the Label Studio export: {exc}") from None
    if not isinstance(tasks, list):
        raise InputError(path, "a Label Studio JSON export is a list of tasks")
    out = []
    for n, task in enumerate(tasks):
        page = (task.get("data") or {}).get("id") if isinstance(task, dict) else None
        if page is None:
            raise InputError(path, "task without data.id (not exported from this study's tasks.json)", record=str(n))
        item = item_of.get(str(page))
        if item is None:
            raise InputError(
                path, f"task {page!r} is not a page of this study (another study's export?)", record=str(n)
            )
        for annotation in task.get("annotations") or []:
            who = annotation.get("completed_by")
            annotator = str(who.get("email") or who.get("id")) if isinstance(who, dict) else str(who)
            values: dict[str, Any] = {}
            for result in annotation.get("result") or []:
                if not isinstance(result, dict) or (q := questions.get(result.get("from_name"))) is None:
                    continue
                value = result.get("value") or {}
                where = f"annotator {annotator}, item {item}, question {q['name']}"
                if "choices" in value:
                    choices = value["choices"] if isinstance(value["choices"], list) else []
                    if not choices:
                        raise InputError(path, f"{where}: an empty choice", record=str(n))
                    values[q["name"]] = choices if q["kind"] == "multiselect" else choices[0]
                elif "rating" in value:
                    if not str(value["rating"]).strip().isdigit():
                        raise InputError(path, f"{where}: rating {value['rating']!r} is not a number", record=str(n))
                    values[q["name"]] = int(value["rating"])
                elif "text" in value:
                    values[q["name"]] = " ".join(value["text"])
            if values:
                out.append(Answer(annotator, item, values, annotation.get("lead_time")))
    return out


def _seconds(state: dict[str, Any]) -> dict[str, float]:
    """Per item, Potato's own active time on it (``total_time_ms`` of its behavioural data: the gaps between the
    annotator's events on the item, each capped, so re-opening an item later does not stretch it), in seconds."""
    behaviour = state.get("instance_id_to_behavioral_data") or {}
    out: dict[str, float] = {}
    for item, data in behaviour.items() if isinstance(behaviour, dict) else ():
        ms = data.get("total_time_ms") if isinstance(data, dict) else None
        if isinstance(ms, int | float) and not isinstance(ms, bool) and ms >= 0:
            out[str(item)] = ms / 1000
    return out


def _saved(state: dict[str, Any]) -> dict[str, datetime]:
    """Per item, when the annotator last worked on it: Potato's ``session_end`` (else ``session_start``), a Unix
    time, of its behavioural data."""
    behaviour = state.get("instance_id_to_behavioral_data") or {}
    out: dict[str, datetime] = {}
    for item, data in behaviour.items() if isinstance(behaviour, dict) else ():
        stamps = [data.get(k) for k in ("session_end", "session_start")] if isinstance(data, dict) else []
        stamp = next((t for t in stamps if isinstance(t, int | float) and not isinstance(t, bool) and t > 0), None)
        if stamp is not None:
            out[str(item)] = datetime.fromtimestamp(stamp, UTC)
    return out


def attention_report(folder: str | Path, rows: list[Answer], question: str) -> dict[str, dict[str, Any]]:
    """Per annotator: attention items answered and passed (the key's ``expected`` answer to ``question``)."""
    keys = key(folder)
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        k = keys.get(row.item, {})
        if not k.get("attention"):
            continue
        entry = out.setdefault(row.annotator, {"answered": 0, "passed": 0})
        entry["answered"] += 1
        entry["passed"] += int(str(row.values.get(question)) == str(k.get("expected")))
    return out


# ---- views -----------------------------------------------------------------------------------------------------
OPEN_LIMIT = 80
"""Threads up to this many posts open fully; larger ones open the root and let the reader expand branches."""
_MARK_STYLE = {
    "evidence": ' style="background-color:#fff3b0"',
    # Potato's sanitizer keeps allowlisted CSS only (no border-left): the scope is a pale blue background
    "scope": ' style="background-color:#dcebfb;padding-left:6px"',
}


def thread_html(thread: Any, marks: dict[str, str] | None = None) -> str:
    """A reply tree as nested collapsible branches (<details>), each post with its short id (as models see it),
    author, time and reply count; text escaped. ``marks`` highlights posts (``evidence`` or ``scope``). Built
    iteratively: any depth works."""
    from ..conversations.render import short_ids

    marks = marks or {}
    ids = short_ids(thread)
    order = list(thread.traverse("thread"))
    op = thread.root.author
    replies = {n.id: 0 for n in order}
    for node in reversed(order):
        if node.parent_id is not None:
            replies[node.parent_id] += replies[node.id] + 1
    open_all = len(order) <= OPEN_LIMIT
    out: list[str] = []
    depths: list[int] = []
    for node in order:
        depth = thread.depth(node.id)
        while depths and depths[-1] >= depth:
            out.append("</div></details>")
            depths.pop()
        mark = marks.get(node.id)
        stamp = node.created.strftime("%Y-%m-%d %H:%M UTC") if node.created else "time unknown"
        count = replies[node.id]
        is_op = bool(op) and node.author == op and op not in ("[deleted]", "[removed]")
        summary = (
            f"<b>{ids[node.id]}</b> · {escape(node.author or '[deleted]')}"
            + (' <span class="sb-op" style="background-color:#1f5fa8;color:#fff">OP</span>' if is_op else "")
            + f" · {stamp} · {count} repl{'y' if count == 1 else 'ies'}"
            + (f" · <mark>{mark}</mark>" if mark else "")
        )
        body = escape(node.text) if node.text else "<i>[deleted]</i>"
        opened = ' open="open"' if open_all or depth == 0 else ""
        style = _MARK_STYLE.get(mark or "", "")
        # sb-* classes: Potato's sanitizer keeps classes but no ids; the study page's CSS and script use them
        out.append(
            f'<details class="sb-post sb-{ids[node.id]}"{opened}><summary>{summary}</summary>'
            f'<div class="sb-replies" style="margin-left:1.2em"><div{style}>{body}</div>'
        )
        depths.append(depth)
    out += ["</div></details>"] * len(depths)
    title = f"<h3>{escape(thread.title)}</h3>" if getattr(thread, "title", None) else ""
    return f'{title}<div class="sb-thread">{"".join(out)}</div>'


_POST_ID = re.compile(r"\b(c\d+)\b")


def question_panel(
    question: str,
    options: Sequence[str] = (),
    link_posts: bool = False,
    note: str = "",
    label: str = "Question",
    extra: str = "",
) -> str:
    """The question and its options as a panel that stays in view while the thread is read (the study page's CSS),
    with expand-all / collapse-all buttons (its script). ``link_posts``: post ids (``c12``) in the question link to
    the post. ``extra``: HTML shown in the panel after the options (what an adjudicator decides from)."""
    text = escape(question)
    if link_posts:
        text = _POST_ID.sub(r'<a href="#\1">\1</a>', text)
    rows = "".join(f"<li><b>{letter}.</b> {escape(o)}</li>" for letter, o in zip("ABCD", options, strict=False))
    return panel(f"{note}<p><b>{escape(label)}:</b> {text}</p>" + (f"<ul>{rows}</ul>" if rows else "") + extra)


def panel(inner: str, long: bool = False) -> str:
    """HTML (built from escaped text) as the panel that stays in view beside the texts, with the answer forms under
    it (the study page's CSS and script; its tools: expand / collapse all). ``long``: several questions, each with
    its options: the panel scrolls as one with its forms (a question block held at the panel's top would cover the
    forms under it)."""
    return f'<div class="sb-question{" sb-long" if long else ""}">{inner}<span class="sb-tools"></span></div>'


def options_html(question: str, options: Sequence[str]) -> str:
    rows = "".join(f"<li><b>{letter}.</b> {escape(text)}</li>" for letter, text in zip("ABCD", options, strict=False))
    return f"<hr><p><b>Question:</b> {escape(question)}</p><ul>{rows}</ul>"


@dataclass(frozen=True)
class Study:
    """A study a benchmark offers: ``build(**options) -> Design``; ``score(folder, console, as_json)``."""

    build: Any
    score: Any
    summary: str = ""
