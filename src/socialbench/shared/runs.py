"""One run, one identity: which logs are the same run, which differ and in what, and which are left out.

Every report, summary, study builder and pairing reads its logs through `run_set`. A log's identity is everything
that can move a number (docs/architecture.md, "Run identity"):

- the task, the model, its base URL and model arguments (secrets left out);
- every task argument with its default resolved (inspect records them so); an input file the task recorded a
  digest of (``metadata["inputs"]``) counts by its content, not by the path it was given as;
- every model role (grader, generator) with its own generate config and arguments;
- the generate config of the run (the model's and the eval's: reasoning effort / tokens, max tokens, temperature,
  ...; connection settings such as retries, timeouts and batching move no number and are left out);
- the sample set actually run (the ids, so ``--limit`` and ``--sample-id`` show), and the epochs;
- the socialbench version that ran it.

Two logs with the same identity are one run: the later complete one counts, and the other is listed as left out
with the reason. A log that did not complete (killed, error, cancelled) is left out and listed with its status and
samples done / planned. Runs that differ are labelled by the model and only the fields that differ among the runs
of the report (``mockllm/model · seed=1``), so the common case stays short; a benchmark names its own axes (the
setting, the task kind) that its tables show in their own column and that stay out of the label. Comparisons pair
runs whose labels are equal: they differ only in the axes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .benchmark import LOG_READS, log_errors, log_task, read_log, unreadable_log

T = TypeVar("T")

TRANSPORT = frozenset(
    {
        "max_retries",
        "timeout",
        "attempt_timeout",
        "stream_idle_timeout",
        "max_connections",
        "adaptive_connections",
        "cache_prompt",
        "cache",
        "extra_headers",
        "batch",
        "max_subprocesses",  # eval settings older logs carry beside the generate config
        "max_sandboxes",
    }
)
"""Generate-config fields that change how requests are sent (connections, timeouts, retries, batching, streaming,
caching), not what a model answers: two logs that differ only in these are one run."""
NUMBER_MOVING = frozenset(
    {
        "system_message", "max_tokens", "top_p", "temperature", "stop_seqs", "best_of", "frequency_penalty",
        "presence_penalty", "logit_bias", "seed", "top_k", "num_choices", "logprobs", "top_logprobs",
        "prompt_logprobs", "parallel_tool_calls", "internal_tools", "max_tool_output", "fallback_models",
        "fail_on_refusal", "verbosity", "effort", "reasoning_effort", "reasoning_mode", "reasoning_tokens",
        "reasoning_summary", "reasoning_history", "response_schema", "modalities",
        # vLLM's chat_template_kwargs turns a Qwen3's thinking on and off through it
        "extra_body",
    }
)  # fmt: skip
"""Generate-config fields that can move a number (sampling, output limits, reasoning, what the model is shown or
falls back to): logs that differ in one are two runs. A field in neither set (one a newer inspect added) is treated
as this kind, the safe side (two runs never mixed), until it is classified: `unclassified` names it, and
tests/test_run_identity.py fails on the installed inspect's until then."""


def unclassified(fields: Iterable[str]) -> list[str]:
    """The generate-config fields among ``fields`` that are neither `TRANSPORT` nor `NUMBER_MOVING`."""
    return sorted(set(fields) - TRANSPORT - NUMBER_MOVING)


SECRET = ("key", "token", "secret", "password")
TASK, MODEL = "@task", "@model"
"""The identity fields of the task and the model (every label starts with the model)."""
INPUTS = "inputs"
"""Task metadata key: ``{argument: {"path": resolved path, "sha256": digest}}`` of the input files a task read."""


def file_digest(path: str | Path) -> str:
    """sha256 of a file's bytes (streamed)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def input_record(path: str | Path) -> dict[str, str]:
    """What a task records of an input file it read: the resolved path and the content digest."""
    return {"path": str(Path(path).resolve()), "sha256": file_digest(path)}


def full_task_version(comparability: int, interface: str = "A") -> str:
    """inspect_evals' task version (its task versioning guide: ``N-X``): N, the comparability version, is the
    ``Task(version=N)`` inspect records and is raised when a change makes a task's scores incomparable with logs of
    the version before (prompts, scoring, data); X, the interface letter, changes when its parameters do. It is
    written to every log's metadata as ``full_task_version``, where registries read it; socialbench's own run
    identity is stricter still (`version`: every commit is a version of its own)."""
    return f"{comparability}-{interface}"


@functools.cache
def version() -> str:
    """The socialbench that runs, recorded in every log (a new version is another run) and part of every cached
    answer's key. The package version comes from git (setuptools-scm, at install time: ``0.1.dev48+gb6d9367``);
    in a git checkout (an editable install, whose metadata stays as it was installed) the commit is read at run
    time, and a checkout with changes to the package adds the digest of its sources (``+gb6d9367.d1a2b3c4d``), so
    every commit, and every uncommitted state, is a version of its own."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        installed = package_version("socialbench")
    except PackageNotFoundError:  # pragma: no cover - a source tree without install
        installed = "unknown"
    package = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(package), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, timeout=30
        )
        changed = subprocess.run(
            ["git", "-C", str(package), "status", "--porcelain", "--", "."], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):  # no git: the installed version says it
        return installed
    if head.returncode != 0 or changed.returncode != 0:  # not a checkout (an installed wheel)
        return installed
    base = installed.split("+", 1)[0]
    local = f"g{head.stdout.strip()}" + (f".d{code_digest()[:8]}" if changed.stdout.strip() else "")
    return f"{base}+{local}"


NUMBER_PACKAGES = (
    "inspect_ai", "tiktoken", "bpe-openai", "genai-prices", "llama_cpp_python", "bm25s", "sentence-transformers",
    "torch", "numpy", "scipy", "statsmodels", "krippendorff", "scikit-learn", "jieba", "langid", "matplotlib",
)  # fmt: skip
"""Installed packages whose version can move a number (the harness, tokenizers, the price list, the embedded
model's runtime, retrievers, embedders, statistics): every log records theirs (`package_versions`)."""


@functools.cache
def code_record(comparability: int) -> dict[str, Any]:
    """What every socialbench task records in its metadata of the code that ran it: the socialbench `version`, the
    task's `full_task_version` and the `package_versions` that can move a number."""
    return {
        "socialbench_version": version(),
        "full_task_version": full_task_version(comparability),
        "socialbench_packages": package_versions(),
    }


def package_versions() -> dict[str, str]:
    """The installed versions of `NUMBER_PACKAGES` (those installed), recorded in every log's task metadata
    (``socialbench_packages``) beside the socialbench version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    out = {}
    for name in NUMBER_PACKAGES:
        try:
            out[name] = installed(name)
        except PackageNotFoundError:
            continue
    return out


@functools.cache
def code_digest() -> str:
    """sha256 over the installed socialbench's source files (paths and bytes): the code a cached answer was computed
    with, whatever the version string says."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode() + b"\0")
        digest.update(source.read_bytes())
    return digest.hexdigest()


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def _short(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    return _canon(value)


def _config(config: Any) -> dict[str, Any]:
    if config is None:
        return {}
    data = config.model_dump(exclude_none=True) if hasattr(config, "model_dump") else dict(config)
    return {k: v for k, v in data.items() if k not in TRANSPORT and v not in ({}, [])}


def _public(args: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (args or {}).items() if v is not None and not any(s in k.lower() for s in SECRET)}


@dataclass(frozen=True)
class Field:
    """One identity field: ``value`` decides whether two logs are one run; ``compare`` whether two runs are alike
    (the sample set compares by what was asked for: ``--limit 12``, not by the ids a setting could answer);
    ``label`` is how a label names it."""

    value: str
    compare: str
    label: str
    text: str = ""
    """The value as a CSV column shows it (``1``, ``mine.jsonl@1a2b3c4d``, ``limit=2``)."""


@dataclass
class RunInfo:
    path: str
    task: str
    model: str
    status: str
    created: str
    planned: int | None
    done: int | None
    fields: dict[str, Field]
    key: str
    inputs: list[str] = field(default_factory=list)
    """The input files the log names (resolved paths): a report never writes over them."""
    samples_logged: bool | None = None
    """False for a log written with ``--no-log-samples`` (inspect records it in the eval config)."""
    written_ns: int = 0
    """The log file's modification time: which of two reruns is the later when both were created in the same
    second (inspect's ``created`` has whole seconds; a scripted rerun takes less)."""
    label: str = ""
    """The model and what tells this run apart from the others of its report: every field that varies among them,
    with this run's value (`label_runs`)."""
    differs: dict[str, str] = field(default_factory=dict)
    """The differing fields' label texts (``{"seed": "seed=1"}``)."""

    def label_without(self, axes: Iterable[str]) -> str:
        """The label with the benchmark's axes (shown in their own column) left out: runs with equal labels here
        differ only in those axes, so they may be compared."""
        return " · ".join([self.model, *self.variant_parts(axes)])

    def variant_parts(self, axes: Iterable[str]) -> list[str]:
        """What tells this run from other runs of the same model, but the axes: the variant (``["seed=1"]``; empty
        where nothing varies). Runs of different models with equal variants may be pooled over models."""
        names = list(axes)
        return [text for name, text in self.differs.items() if not _matches(name, names)]

    @property
    def name(self) -> str:
        return Path(self.path).name

    def identity_columns(self) -> dict[str, str]:
        """Every identity field as a column (the runs table: benchmark task, model, every role, every task argument,
        input digests, generate config, the samples asked and their digest, the code version)."""
        out = {}
        for name, f in sorted(self.fields.items()):
            column = {TASK: "task", MODEL: "model"}.get(name, _bare(name))
            out[column] = f.text or f.label
            if name == "samples":
                out["samples_digest"] = json.loads(f.value)
        return out

    def columns(self) -> dict[str, str]:
        """One column per field that varies among the report's runs (``{"seed": "1", "grader": "..."}``): what a
        CSV carries so that a file can be filtered without parsing labels."""
        return {
            _bare(name): (self.fields[name].text or self.fields[name].label) if name in self.fields else ""
            for name in self.differs
        }


def _matches(name: str, patterns: Sequence[str]) -> bool:
    """``name`` is one of ``patterns``; a pattern ending in ``*`` matches by prefix (``generate:reasoning*``)."""
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in patterns)


@dataclass(frozen=True)
class LeftOut:
    path: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"log": self.path, "reason": self.reason}


ITEM_NEUTRAL = (MODEL, "base_url", "model_args", "role:*", "generate:*", "workflow", "socialbench")
"""Identity fields that cannot change which items a dataset holds (the setting orders them, and may skip some)."""


@dataclass
class RunSet:
    runs: list[RunInfo]
    left_out: list[LeftOut]

    def asked_apart(self) -> list[str]:
        """Runs of one task asked alike (``--limit 6``) whose sample sets differ, each named: a retrieval setting
        sends an episode's items in its prompts' trie order, which inspect's ``--limit`` cuts, and an oracle
        setting with ``missing_oracle=skip`` leaves out the items it cannot show. Such runs compare as asked alike,
        and a paired difference is over the items both asked (its n says how many); this says it, so no table reads
        as over one item set when it is not."""
        groups: dict[str, list[RunInfo]] = {}
        for run in self.runs:
            samples = run.fields.get("samples")
            if samples is not None and samples.compare != _canon("all"):
                # runs that may differ in their model, its serving, roles, generate config and setting only
                alike = {n: f.compare for n, f in run.fields.items() if not _matches(n, ITEM_NEUTRAL)}
                groups.setdefault(_canon(alike), []).append(run)
        notes = []
        for members in groups.values():
            sets: dict[str, list[RunInfo]] = {}
            for run in members:
                sets.setdefault(run.fields["samples"].value, []).append(run)
            if len(sets) > 1:
                named = "; ".join(", ".join(r.label or r.model for r in runs) for runs in sets.values())
                notes.append(
                    f"The runs asked with {members[0].fields['samples'].label} asked {len(sets)} different item sets "
                    f"({named}): --limit cuts each setting's own order (a retrieval setting orders an episode's items "
                    "by its prompts' trie; -T limit=N asks the first N of the natural order in every setting); a "
                    "paired difference is over the items both asked."
                )
        return notes

    def notes(self) -> list[str]:
        return [f"left out {Path(x.path).name}: {x.reason}" for x in self.left_out]

    def by_path(self, path: str) -> RunInfo:
        return next(r for r in self.runs if r.path == path)

    def as_dicts(self) -> list[dict[str, Any]]:
        return [
            {
                "log": r.path,
                "model": r.model,
                "label": r.label,
                "differs": r.differs,
                "status": r.status,
                "samples": r.done,
                "planned": r.planned,
                "created": r.created,
            }
            for r in self.runs
        ]


def identity(header: Any) -> dict[str, Field]:
    """The identity fields of a log header (see the module docstring)."""
    spec = header.eval
    meta = spec.metadata or {}
    inputs = meta.get(INPUTS) or {}
    out: dict[str, Field] = {}

    def put(name: str, value: Any, label: str | None = None, compare: Any = None, shown: str | None = None) -> None:
        text = _canon(value)
        compared = text if compare is None else _canon(compare)
        shown = _short(value) if shown is None else shown
        out[name] = Field(text, compared, label or f"{name}={shown}", shown)

    put(TASK, log_task(header))  # not "task": PerSo has a task argument of that name
    put(MODEL, spec.model, spec.model)
    if spec.model_base_url:
        put("base_url", spec.model_base_url)
    if model_args := _public(spec.model_args):
        put("model_args", model_args, "model args " + _canon(model_args), shown=_canon(model_args))
    for name, value in sorted((spec.task_args or {}).items()):
        record = inputs.get(name)
        if isinstance(record, dict) and record.get("sha256"):
            digest = str(record["sha256"])
            file = f"{Path(str(record.get('path', ''))).name}@{digest[:8]}"
            put(name, digest, f"{name}={file}", shown=file)
        else:
            put(name, value)
    for name, record in inputs.items():  # inputs read without an argument naming them (defaults)
        if name not in (spec.task_args or {}) and isinstance(record, dict) and record.get("sha256"):
            put(name, record["sha256"], f"{name}@{str(record['sha256'])[:8]}", shown=str(record["sha256"])[:8])
    for role, config in sorted((spec.model_roles or {}).items()):
        configs = config if isinstance(config, list) else [config]
        value = [
            {"model": c.model, "config": _config(c.config), "base_url": c.base_url, "args": _public(c.args)}
            for c in configs
        ]
        names = ", ".join(str(c.model) for c in configs)
        extra = [_config(c.config) for c in configs if _config(c.config)]
        shown = names + (f" {_canon(extra)}" if extra else "")
        put(f"role:{role}", value, f"{role}={shown}", shown=shown)
    generate = {**_config(spec.model_generate_config), **_config(header.plan.config if header.plan else None)}
    for name, value in sorted(generate.items()):
        put(f"generate:{name}", value, f"{name}={_short(value)}")
    ids = spec.dataset.sample_ids or []
    config = spec.config
    asked: Any = "all"
    if config.sample_id is not None:
        asked = {"sample_id": config.sample_id}
    elif config.limit is not None:
        asked = {"limit": config.limit}
    digest = hashlib.sha256(_canon(sorted(map(str, ids))).encode()).hexdigest()
    shown = "all samples" if asked == "all" else "; ".join(f"{k}={_short(v)}" for k, v in asked.items())
    put("samples", digest, shown, compare=asked, shown=shown)
    if (config.epochs or 1) != 1:
        put("epochs", config.epochs)
    version = meta.get("socialbench_version") or (spec.packages or {}).get("socialbench")
    if version:
        put("socialbench", version, f"socialbench {version}", shown=str(version))
    return out


def _counts(header: Any, path: str) -> tuple[int | None, int | None]:
    results = header.results
    done = results.completed_samples if results else None
    if done is None and path.endswith(".eval"):  # a killed run has no results: count the samples it wrote
        from inspect_ai.log import read_eval_log_sample_summaries

        try:
            done = len(read_eval_log_sample_summaries(path))
        except log_errors():  # a log too damaged to count: "?" samples done
            done = None
    planned = results.total_samples if results else None
    ids = header.eval.dataset.sample_ids
    if ids is not None:
        planned = len(ids) * (header.eval.config.epochs or 1)
    return done, planned


_HEADERS: dict[tuple[str, int, int], RunInfo] = {}


def local_path(path: str | Path) -> str:
    """A log location as a file path (inspect's eval sets name logs by ``file://`` URIs)."""
    text = str(path)
    return text.removeprefix("file://") if text.startswith("file://") else text


def run_info(path: str) -> RunInfo:
    """A log's identity, read from its header once per process (keyed by path, size and modification time)."""
    path = local_path(path)
    stat = os.stat(path)
    cache_key = (str(path), stat.st_size, stat.st_mtime_ns)
    if cache_key not in _HEADERS:
        header = read_log(path, header_only=True)
        fields = identity(header)
        key = hashlib.sha256(_canon({k: f.value for k, f in fields.items()}).encode()).hexdigest()
        done, planned = _counts(header, path)
        _HEADERS[cache_key] = RunInfo(
            path=str(path),
            task=log_task(header),
            model=str(header.eval.model),
            status=str(header.status),
            created=str(header.eval.created),
            planned=planned,
            done=done,
            fields=fields,
            key=key,
            inputs=_input_paths(header.eval.metadata or {}),
            samples_logged=header.eval.config.log_samples,
            written_ns=stat.st_mtime_ns,
        )
    info = _HEADERS[cache_key]
    return RunInfo(**{**info.__dict__, "differs": {}, "label": ""})


def _input_paths(meta: dict[str, Any]) -> list[str]:
    paths = [str(r["path"]) for r in (meta.get(INPUTS) or {}).values() if isinstance(r, dict) and r.get("path")]
    paths += [str(meta[k]) for k in ("items", "episodes", "threads", "human_replies") if isinstance(meta.get(k), str)]
    return sorted({p for p in paths if Path(p).exists()})


def _status_text(info: RunInfo) -> str:
    counts = f"{info.done if info.done is not None else '?'} of {info.planned if info.planned is not None else '?'}"
    return f"status {info.status}, {counts} samples"


def run_set(paths: Sequence[str | Path]) -> RunSet:
    """The runs among ``paths``: one per identity (the latest complete log), the logs left out and why, and each
    run's label naming what differs between the runs."""
    groups: dict[str, list[RunInfo]] = {}
    for path in paths:
        info = run_info(str(path))
        groups.setdefault(info.key, []).append(info)
    runs: list[RunInfo] = []
    left: list[LeftOut] = []
    for members in groups.values():
        ranked = sorted(members, key=lambda i: (i.status == "success", i.created, i.written_ns, i.path))
        chosen = ranked[-1]
        for other in ranked[:-1]:
            left.append(
                LeftOut(
                    other.path,
                    f"the same run as {chosen.name} (identical model, arguments, inputs and samples), which is the "
                    f"later{' complete' if chosen.status == 'success' else ''} log ({_status_text(other)})",
                )
            )
        if chosen.status != "success":
            left.append(LeftOut(chosen.path, f"did not complete ({_status_text(chosen)}); rerun with --resume"))
            continue
        if chosen.samples_logged is False or (chosen.done == 0 and chosen.planned):
            why = "written with --no-log-samples" if chosen.samples_logged is False else "its samples are missing"
            left.append(LeftOut(chosen.path, f"holds no samples ({why}): no table can be computed from it"))
            continue
        runs.append(chosen)
    order = {local_path(p): n for n, p in enumerate(paths)}
    runs.sort(key=lambda r: order[r.path])
    left.sort(key=lambda x: order[x.path])
    label_runs(runs)
    return RunSet(runs, left)


MODEL_BOUND = ("base_url", "model_args")
"""Fields that describe where and how one model is served: when each model of a group has one value of them, the
model's name already tells its runs apart and they are left out of the labels (and of the variants a table holds
fixed), so a vLLM model and a hosted one still pool; a model run two ways is labelled by them."""


def label_runs(runs: list[RunInfo], key: Callable[[RunInfo], str] | None = None) -> None:
    """Each run's ``differs`` and ``label``. Within a group of runs (by default of one task; a benchmark may group
    finer, e.g. PerSo by task kind, whose behavioral runs never read the cognitive items), a field varies when its
    compared values are not all equal, and every run's label names every varying field with its own value (no
    common value left out: in a grid of seeds 0 and 1 both read ``seed=0`` / ``seed=1``), so a label alone says
    which run it is; where nothing varies the label is the model. Two runs that differ in a field never share a
    label. `MODEL_BOUND` fields are named only where one model has several values."""
    groups: dict[str, list[RunInfo]] = {}
    for run in runs:
        groups.setdefault(key(run) if key else run.task, []).append(run)
    for members in groups.values():
        names = sorted({n for r in members for n in r.fields} - {TASK, MODEL})

        def compared(run: RunInfo, name: str) -> str | None:
            return run.fields[name].compare if name in run.fields else None

        for run in members:
            run.differs = {}
        for name in names:
            values = [compared(r, name) for r in members]
            if len(set(values)) < 2:
                continue
            if name in MODEL_BOUND:
                per_model: dict[str, set[str | None]] = {}
                for run, value in zip(members, values, strict=True):
                    per_model.setdefault(run.model, set()).add(value)
                if all(len(v) == 1 for v in per_model.values()):
                    continue
            for run in members:
                run.differs[name] = run.fields[name].label if name in run.fields else f"{_bare(name)} unset"
        for run in members:
            run.label = run.label_without(())


def _bare(name: str) -> str:
    return name.split(":", 1)[-1]


LIGHT_EXCLUDE = frozenset({"messages", "events", "attachments", "store", "output"})
"""Sample fields no report reads: the prompts and transcripts are most of a log (a paper-scale Full log holds every
item's ~80K-token discussion) and stay on disk."""


def light_log(path: str | Path) -> Any:
    """A log with its samples' scores and metadata only (`LIGHT_EXCLUDE` dropped), the zip opened once: inspect's
    per-sample reader parses the archive's directory again for every sample (a cold report over a 1,462-sample log
    spent 16 of its 22 CPU seconds there), so the members are read here in one pass and validated as inspect
    validates them."""
    from inspect_ai.log import EvalSample

    from .inspect_private import deserializing_context, sort_samples, zip_kwargs

    zip_kwargs()  # registers zstandard members with zipfile (Python < 3.14)

    header = read_log(path, header_only=True)
    if not str(path).endswith(".eval"):  # .json logs cannot skip fields
        return read_log(path)
    LOG_READS["samples"][local_path(path)] += 1
    try:
        samples = []
        with zipfile.ZipFile(local_path(path)) as archive:
            names = [n for n in dict.fromkeys(archive.namelist()) if n.startswith("samples/") and n.endswith(".json")]
            for name in names:
                data = json.loads(archive.read(name))
                for excluded in LIGHT_EXCLUDE:
                    data.pop(excluded, None)
                samples.append(EvalSample.model_validate(data, context=deserializing_context()))
        sort_samples(samples)  # the order `read_eval_log` gives: seeded bootstraps see the same sequence
    except log_errors() as exc:  # zipfile.BadZipFile is one of them
        raise unreadable_log(path, exc) from None
    return header.model_copy(update={"samples": samples})


_EXTRACTED: dict[tuple[str, str], Any] = {}
EXTRACT_STATS = {"read": 0, "memory": 0, "disk": 0, "refused": 0}
"""How `extracted` answered: logs read, answers from this process's memory, answers from the disk cache, and disk
entries refused (damaged, of another log or other code) and recomputed."""
_DIGESTS: dict[tuple[str, int, int], str] = {}


def content_digest(path: str | Path) -> str:
    """A digest of a log's content. An ``.eval`` log is a zip whose central directory holds every member's CRC-32
    and size: the digest of those (read without decompressing anything, so it costs no more than a header) changes
    with any member's content, so a log overwritten in place at the same size and time still gets a new digest.
    Other logs: sha256 of the bytes (kept per path, size and modification time within a process)."""
    path = local_path(path)
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(path) as archive:
            for info in sorted(archive.infolist(), key=lambda i: i.filename):
                digest.update(f"{info.filename}\0{info.CRC}\0{info.file_size}\n".encode())
        return "zip:" + digest.hexdigest()
    except zipfile.BadZipFile:  # a .json log, or a damaged one (its reader says what is wrong)
        stat = os.stat(path)
        memo = (str(path), stat.st_size, stat.st_mtime_ns)
        if memo not in _DIGESTS:
            _DIGESTS[memo] = "sha256:" + file_digest(path)
        return _DIGESTS[memo]


def _disk_path(digest: str, name: str) -> Path:
    from .retrieval import cache_dir

    key = _canon([digest, name, code_digest()])
    return cache_dir() / "logs" / f"{hashlib.sha256(key.encode()).hexdigest()}.json.gz"


def _read_entry(disk: Path, digest: str, name: str) -> tuple[bool, Any]:
    """A disk entry's answer if the entry is whole and is the one asked for (this log's content, this extractor,
    this code); ``(False, None)`` otherwise."""
    import gzip

    if not disk.exists():
        return False, None
    try:
        with gzip.open(disk, "rt", encoding="utf-8") as handle:
            entry = json.load(handle)
    except Exception:  # a damaged entry (zlib, gzip, JSON or decoding errors alike) is recomputed
        EXTRACT_STATS["refused"] += 1
        return False, None
    wanted = {"digest": digest, "extractor": name, "code": code_digest()}
    if not isinstance(entry, dict) or "value" not in entry or any(entry.get(k) != v for k, v in wanted.items()):
        EXTRACT_STATS["refused"] += 1  # the wrong shape, or another log's or another code's answer
        return False, None
    if entry.get("value_sha256") != _value_digest(entry["value"]):  # an answer edited or damaged since it was written
        EXTRACT_STATS["refused"] += 1
        return False, None
    return True, entry["value"]


def _value_digest(value: Any) -> str:
    """sha256 of an answer as JSON: an entry whose answer is not the one written with it is refused, whatever its
    shape (valid JSON of the wrong shape crashed the report that used it)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


_COMPANIONS: list[Callable[[Any], Any]] = []


def read_alongside(extract: Callable[[Any], T]) -> Callable[[Any], T]:
    """Register ``extract`` (a decorator) as computed from every log read for any other extractor, and cached
    with it: a report needs the samples table and the model calls of every log it reads for its own tables, so the
    log is read once for all three (a cold report read each log three times)."""
    _COMPANIONS.append(extract)
    return extract


def _name(extract: Callable[[Any], Any]) -> str:
    return f"{extract.__module__}.{extract.__qualname__}"


def _store(path: str, digest: str, name: str, value: Any, persist: bool) -> None:
    _EXTRACTED[(digest, name)] = value
    if not persist:
        return
    from ..core.errors import InputError
    from ..core.jsonl import atomic_writer

    entry = {"log": str(Path(path).resolve()), "digest": digest, "extractor": name, "code": code_digest()}
    entry["value_sha256"] = _value_digest(value)
    try:
        with atomic_writer(_disk_path(digest, name)) as handle:  # .gz: written compressed
            json.dump({**entry, "value": value}, handle)
    except (InputError, OSError):  # a cache that cannot be written (read-only home) only costs a re-read
        pass


def extracted(path: str | Path, extract: Callable[[Any], T], persist: bool = False) -> T:
    """``extract(light_log(path))``, computed once per process for a log's content: a report and its document read
    each log once, whatever tables they build from it. ``persist``: the answer (JSON) is also cached on disk
    (``$SOCIALBENCH_CACHE/logs``), keyed by the log's content (`content_digest`), the extractor and the code that
    computed it (`code_digest`); each entry names its log, digest, extractor and code and is checked on read, so a
    log overwritten in place, an entry written by other code or a damaged entry is recomputed, never served."""
    path = local_path(path)
    digest = content_digest(path)
    name = _name(extract)
    key = (digest, name)
    if key in _EXTRACTED:
        EXTRACT_STATS["memory"] += 1
        return _EXTRACTED[key]  # type: ignore[no-any-return]
    if persist:
        found, value = _read_entry(_disk_path(digest, name), digest, name)
        if found:
            EXTRACT_STATS["disk"] += 1
            _EXTRACTED[key] = value
            return value  # type: ignore[no-any-return]
    EXTRACT_STATS["read"] += 1
    light = light_log(path)
    value = extract(light)
    _store(path, digest, name, value, persist)
    for companion in _COMPANIONS:  # the same read serves the extractors every report needs (always persisted)
        other = _name(companion)
        if other != name and (digest, other) not in _EXTRACTED:
            _store(path, digest, other, companion(light), persist=True)
    return value


def whole(log: Any) -> Any:
    """The light log itself, for `extracted` (benchmarks whose logs are small: SI-Bench, PerSo)."""
    return log
