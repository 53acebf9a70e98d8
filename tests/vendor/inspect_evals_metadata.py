# Verbatim copy of src/inspect_evals/metadata.py from inspect_evals 0.26.0 (the PyPI sdist, released 2026-10-22):
# the schema inspect_evals validates its register entries with (register/<id>/eval.yaml). MIT licence,
# Copyright (c) 2024 UK AI Security Institute (tests/vendor/LICENSE-inspect_evals). Used only by tests/test_register.py; refresh it from a newer
# inspect_evals release before submitting a listing.
from __future__ import annotations

import logging
import re
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Generator, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    HttpUrl,
    ValidationError,
    field_validator,
    model_validator,
)
from typing_extensions import Self

logger = logging.getLogger(__name__)


class Group(str, Enum):
    ASSISTANTS = "Assistants"
    BIAS = "Bias"
    CODING = "Coding"
    CYBERSECURITY = "Cybersecurity"
    KNOWLEDGE = "Knowledge"
    MATHEMATICS = "Mathematics"
    MULTIMODAL = "Multimodal"
    PERSONALITY = "Personality"
    REASONING = "Reasoning"
    SAFEGUARDS = "Safeguards"
    SCHEMING = "Scheming"
    WRITING = "Writing"

    def __str__(self) -> str:
        return self.value


class AssetType(str, Enum):
    """External asset type taxonomy per ADR-0004 / ADR-0007.

    Codes for cross-reference with ADR documents:
      D1 = huggingface, D2 = git_clone, D3 = direct_url, P2 = git_dependency

    Note: Large in-repo files (ADR category A1) are not external assets and
    are tracked separately by tools/list_large_files.sh and CI warnings.
    """

    HUGGINGFACE = "huggingface"
    GIT_CLONE = "git_clone"
    DIRECT_URL = "direct_url"
    GIT_DEPENDENCY = "git_dependency"


class AssetState(str, Enum):
    """Current pinning state of an external asset per ADR-0004 / ADR-0007.

    - floating:   Mutable reference (HEAD, main, /latest/). Maps to ADR-0007 Stage 0.
    - pinned:     Immutable reference at upstream (commit SHA, revision, versioned URL). Maps to Stage 1.
    - controlled: Under our control (mirrored or forked). Maps to Stage 2.
    """

    FLOATING = "floating"
    PINNED = "pinned"
    CONTROLLED = "controlled"


class FetchMethod(str, Enum):
    """How an external asset is fetched at build or runtime."""

    GIT_CLONE = "git_clone"
    CURL = "curl"
    WGET = "wget"
    REQUESTS = "requests"
    URLLIB = "urllib"
    WGET_PY = "wget_py"
    GDOWN = "gdown"
    HF_DATASET = "hf_dataset"
    LOAD_DATASET = "load_dataset"
    SNAPSHOT_DOWNLOAD = "snapshot_download"
    HF_HUB_DOWNLOAD = "hf_hub_download"
    DOWNLOAD_AND_VERIFY = "download_and_verify"
    GDOWN_AND_VERIFY = "gdown_and_verify"
    PIP_INSTALL_GIT = "pip_install_git"
    PYPROJECT_TOML = "pyproject_toml"
    OTHER = "other"


class ExternalAsset(BaseModel):
    """An external asset declared in eval.yaml."""

    model_config = ConfigDict(extra="forbid")

    type: AssetType
    source: str
    fetch_method: FetchMethod
    state: AssetState
    comment: str | None = None


class TaskVersion:
    """Examples: 1-A, 2-A, 1-B, 2-B"""

    pattern = re.compile(r"^\d+-[A-Z]$")

    def __init__(self, value: str):
        if not isinstance(value, str):
            raise TypeError("TaskVersion must be a string")
        if not self.pattern.fullmatch(value):
            raise ValueError(
                f"version must be like '1-A', '2-B', got '{value}'. "
                "See: https://github.com/UKGovernmentBEIS/inspect_evals/blob/main/TASK_VERSIONING.md#task-version-structure"
            )

        comparability_version, interface_version = value.split("-")

        self.full_version = value
        self.comparability_version = int(comparability_version)
        self.interface_version = interface_version

    def __str__(self) -> str:
        return self.full_version

    def to_metadata(self) -> dict[str, Any]:
        return {
            "full_task_version": self.full_version,
            "task_interface_version": self.interface_version,
            "task_comparability_version": self.comparability_version,
        }

    @classmethod
    def __get_validators__(cls) -> Generator[Callable[[Any], Self], None, None]:
        yield cls.validate

    @classmethod
    def validate(cls, v: Any, info: None = None) -> Self:
        if isinstance(v, cls):
            return v
        return cls(v)


class HumanBaseline(BaseModel):
    """Human baseline result for a specific model on a task"""

    model_config = ConfigDict(extra="forbid")

    metric: str  # e.g., "pass@1"
    score: float  # e.g., 90.2
    source: HttpUrl  # URL to source of the baseline result


class TaskMetadata(BaseModel):
    """A specific task within an evaluation"""

    model_config = ConfigDict(extra="forbid")

    name: str  # e.g., "humaneval"
    dataset_samples: int | None = None
    human_baseline: HumanBaseline | None = None
    comment: str | None = None
    task_path: str | None = (
        None  # register entries only: path to the @task file in the upstream repo
    )
    # "maintenance" tasks score the harness rather than the model (meta-evals,
    # sandbox image checks); their results are not benchmark results.
    kind: Literal["benchmark", "maintenance"] = "benchmark"


class GpuRequirement(BaseModel):
    """A GPU the eval needs where its sandbox runs."""

    model_config = ConfigDict(extra="forbid")

    count: int = Field(default=1, ge=1)
    # GPU product names the eval is designed or has been verified for, e.g.
    # "T4" or "H100". Informational: consumers use it for node selection
    # examples and to say what the eval's results were measured on.
    products: list[str] | None = None


class Requirements(BaseModel):
    """Capabilities an eval needs from its environment.

    Each key is a capability; simple ones take a boolean and parametric ones a
    mapping. Unknown capabilities are rejected so new ones are added here, with
    a consumer, rather than typed freely into eval.yaml.
    """

    model_config = ConfigDict(extra="forbid")

    internet: bool | None = None
    gpu: GpuRequirement | None = None

    @field_validator("gpu", mode="before")
    @classmethod
    def _gpu_shorthand(cls, value: Any) -> Any:
        """Accept ``gpu: true`` for one GPU and ``gpu: false`` for none."""
        if value is True:
            return {}
        if value is False:
            return None
        return value


class EvalRuntimeMetadata(BaseModel):
    """Runtime metadata from the eval.yaml ``metadata:`` section."""

    model_config = ConfigDict(extra="forbid")

    fast: bool = False
    sandbox: list[str] | None = None
    requires: Requirements | None = None
    environment: str | None = None
    supports_k8s: bool = False
    extras: dict[str, Any] = Field(default_factory=dict)


def _clean_tags(tags: list[str] | None) -> list[str] | None:
    """Clean a tag list.

    Strips whitespace and dedupes case-insensitively, preserving the first
    occurrence's casing. Returns ``None`` if no tags remain.
    """
    if not tags:
        return None
    seen: set[str] = set()
    out: list[str] = []
    for raw in tags:
        t = raw.strip()
        if not t or t.lower() in seen:
            continue
        seen.add(t.lower())
        out.append(t)
    return out or None


class EvalMetadataBase(BaseModel):
    """Fields shared between internal and external evaluations."""

    model_config = ConfigDict(extra="forbid")

    title: str
    description: str = Field(
        description=(
            "One-line summary of the eval. Write as a single line (no hard "
            "wrapping); it is rendered into the root README, which is kept "
            "unwrapped by mdformat."
        ),
    )
    id: str  # e.g., "humaneval"
    arxiv: HttpUrl | None = None
    contributors: list[str]
    tasks: list[TaskMetadata]
    tags: list[str] | None = None
    runtime_metadata: EvalRuntimeMetadata | None = Field(default=None, alias="metadata")

    @model_validator(mode="after")
    def _clean_tag_list(self) -> "EvalMetadataBase":
        self.tags = _clean_tags(self.tags)
        return self

    @property
    def is_sandboxed(self) -> bool:
        """True if any task in this eval requires a sandbox."""
        return self.runtime_metadata is not None and bool(self.runtime_metadata.sandbox)

    @property
    def benchmark_tasks(self) -> list[TaskMetadata]:
        """Tasks whose scores are model results."""
        return [t for t in self.tasks if t.kind == "benchmark"]

    @property
    def maintenance_tasks(self) -> list[TaskMetadata]:
        """Tasks whose scores describe the harness rather than the model."""
        return [t for t in self.tasks if t.kind == "maintenance"]

    @property
    def requires_gpu(self) -> bool:
        """True if the eval declares a GPU requirement under ``metadata.requires``."""
        return (
            self.runtime_metadata is not None
            and self.runtime_metadata.requires is not None
            and self.runtime_metadata.requires.gpu is not None
        )


class InternalEvalMetadata(EvalMetadataBase):
    """An evaluation whose code lives inside this repo."""

    group: Group
    version: TaskVersion
    external_assets: list[ExternalAsset]
    dependency: str | None = None  # Optional dependency
    dependency_group: str | None = Field(
        default=None, alias="dependency-group"
    )  # Optional dependency group
    isolated: bool = (
        False  # True if the eval ships its own standalone package under packages/<id>/
    )
    runtime_metadata: EvalRuntimeMetadata | None = Field(default=None, alias="metadata")

    @property
    def package(self) -> str:
        """Package name for this eval (always ``"inspect-evals"``)."""
        return "inspect-evals"

    @model_validator(mode="after")
    def _check_isolation_mutual_exclusion(self) -> "InternalEvalMetadata":
        if self.isolated and (self.dependency or self.dependency_group):
            raise ValueError(
                f"eval '{self.id}': `isolated: true` is mutually exclusive with "
                f"`dependency` / `dependency-group`. Isolated evals declare their "
                f"deps in packages/{self.id}/pyproject.toml, not in the root extras."
            )
        return self

    @property
    def package_path(self) -> str | None:
        """Path (repo-relative) to the standalone package directory, if isolated."""
        return f"packages/{self.id}" if self.isolated else None

    @property
    def uses_huggingface(self) -> bool:
        """True if any external asset is sourced from HuggingFace."""
        return bool(self.external_assets) and any(
            a.type == AssetType.HUGGINGFACE for a in self.external_assets
        )

    @property
    def path(self) -> str:
        """Filesystem location of the internal eval inside this repo."""
        return f"src/inspect_evals/{self.id}"


class ExternalEvalSource(BaseModel):
    """Where an external evaluation's code lives."""

    model_config = ConfigDict(extra="forbid")

    repository_url: HttpUrl
    repository_commit: str
    maintainers: list[str] = Field(default_factory=list)
    comment: str | None = None

    @model_validator(mode="after")
    def _default_maintainers_to_repo_owner(self) -> "ExternalEvalSource":
        if not self.maintainers:
            path = (self.repository_url.path or "").strip("/")
            owner = path.split("/", 1)[0] if path else ""
            if not owner:
                raise ValueError(
                    f"Could not derive repo owner from {self.repository_url}; "
                    "set 'maintainers' explicitly."
                )
            self.maintainers = [owner]
        return self


class EvaluationReportMetric(BaseModel):
    """A single metric value within an evaluation report row.

    ``key`` is the metric name (e.g. ``"accuracy"``, ``"stderr"``,
    ``"benign_utility"``). Metric names differ across evals, so the schema
    doesn't hardcode any particular set — each unique ``key`` across the
    report's rows becomes a column in the rendered table.
    """

    model_config = ConfigDict(extra="allow")

    key: str
    value: float


class EvaluationReportResult(BaseModel):
    """One row in an evaluation report — typically one model run.

    ``task`` identifies which task in a multi-task eval the row reports on;
    leave it unset for single-task evals or for an aggregate row.

    ``metrics`` carries at least one ``{key, value}`` pair. Use whichever
    metric names match the eval (e.g. ``accuracy``/``stderr`` for most;
    ``benign_utility``/``targeted_asr`` for AgentDojo-style reports).

    Extra fields are allowed so submitters can include eval-specific
    descriptive columns alongside the standard fields.
    """

    model_config = ConfigDict(extra="allow")

    model: str
    metrics: list[EvaluationReportMetric] = Field(min_length=1)
    task: str | None = None
    provider: str | None = None
    time: str | None = None
    date: str | None = None


class EvaluationReport(BaseModel):
    """An evaluation report block attached to a register entry.

    ``commit`` is the upstream commit the run was performed against; required
    for reproducibility and may differ from the entry's current
    ``source.repository_commit`` if the pin has since been bumped.
    ``version`` is the eval's reported version at run time — both fields
    pin the reproducibility surface for every row in the report. ``command``
    is the shell command used to run the eval — typically a single template
    that varies only by ``--model`` across rows.

    Extra fields are allowed for eval-specific top-level metadata.
    """

    model_config = ConfigDict(extra="allow")

    results: list[EvaluationReportResult] = Field(min_length=1)
    commit: str
    version: str | None = None
    command: str | None = None
    timestamp: str | None = None
    notes: list[str] | None = None


class ExternalEvalMetadata(EvalMetadataBase):
    """An evaluation hosted in an external repository."""

    source: ExternalEvalSource
    full_title: str
    # `title` is inherited as required from EvalMetadataBase but the
    # `_sync_title_full_title` validator always fills it from `full_title`,
    # so callers only need to pass `full_title`. The default "" is never
    # observed at runtime — it exists only so mypy treats `title` as optional
    # on this subclass.
    title: str = ""
    common_title: str
    paper_title: str | None = None
    evaluation_report: EvaluationReport | None = None

    @model_validator(mode="before")
    @classmethod
    def _sync_title_full_title(cls, data: object) -> object:
        """Allow ``title`` and ``full_title`` as interchangeable YAML keys.

        New eval.yaml files use ``full_title``; existing entries and docs still
        reference ``title`` (the base class field). Whichever key is present is
        copied to the other so both pydantic fields are always populated.
        """
        if not isinstance(data, dict):
            return data
        has_full = "full_title" in data
        has_title = "title" in data
        if has_full and not has_title:
            data["title"] = data["full_title"]
        elif has_title and not has_full:
            data["full_title"] = data["title"]
        return data

    @model_validator(mode="after")
    def _require_task_path(self) -> "ExternalEvalMetadata":
        missing = [t.name for t in self.tasks if not t.task_path]
        if missing:
            raise ValueError(
                f"Register entries must set 'task_path' on every task; missing for: {missing}"
            )
        return self

    @model_validator(mode="after")
    def _require_single_task(self) -> "ExternalEvalMetadata":
        # Issue #1645: register entries are 1 task per evaluation. Variant
        # tasks (subsets, judge-calibration paired with a capability eval,
        # etc.) should each be their own register entry so the docs surface
        # them as independently discoverable items.
        if len(self.tasks) != 1:
            names = [t.name for t in self.tasks]
            # TODO: Make this a hard error once all register entries have a single task.
            logger.warning(
                "Register entry %r declares %d tasks %s; ideally each task "
                "should be its own register entry (see issue #1645).",
                getattr(self, "id", "unknown"),
                len(self.tasks),
                names,
            )
        return self

    @model_validator(mode="after")
    def _evaluation_report_tasks_resolve(self) -> "ExternalEvalMetadata":
        if self.evaluation_report is None:
            return self
        valid = {t.name for t in self.tasks}
        unknown = sorted(
            {
                r.task
                for r in self.evaluation_report.results
                if r.task is not None and r.task not in valid
            }
        )
        if unknown:
            raise ValueError(
                f"evaluation_report references unknown task(s) {unknown}; "
                f"declared tasks are {sorted(valid)}"
            )
        return self

    @property
    def package(self) -> str:
        """Package name derived from the upstream repository name."""
        path = (self.source.repository_url.path or "").strip("/").removesuffix(".git")
        return path.rsplit("/", 1)[-1] if path else self.id

    @property
    def path(self) -> str:
        """For externals, ``path`` is the upstream repository URL."""
        return str(self.source.repository_url)


class EvalListing(BaseModel):
    """Complete listing of all evaluations"""

    model_config = ConfigDict(extra="forbid")

    evals: list[ExternalEvalMetadata | InternalEvalMetadata] = Field(alias="_root")

    @property
    def internal_evals(self) -> list[InternalEvalMetadata]:
        """All evaluations whose code lives inside this repo."""
        return [e for e in self.evals if isinstance(e, InternalEvalMetadata)]

    @property
    def external_evals(self) -> list[ExternalEvalMetadata]:
        """All evaluations whose code lives in an upstream repository."""
        return [e for e in self.evals if isinstance(e, ExternalEvalMetadata)]

    @property
    def groups(self) -> list[str]:
        """All unique groups across internal evaluations."""
        return sorted(list(set(e.group for e in self.internal_evals)))

    def get_eval(
        self, eval_id: str
    ) -> ExternalEvalMetadata | InternalEvalMetadata | None:
        """Get an evaluation by its ID"""
        for eval in self.evals:
            if eval.id == eval_id:
                return eval
        return None

    def get_evals_in_group(self, group: str) -> list[InternalEvalMetadata]:
        """Get all internal evaluations in a specific group."""
        return [e for e in self.internal_evals if e.group == group]

    def find_task(
        self, task_name: str
    ) -> tuple[ExternalEvalMetadata | InternalEvalMetadata | None, TaskMetadata | None]:
        """Find the evaluation and task by the task name"""
        for eval in self.evals:
            for task in eval.tasks:
                if task.name == task_name:
                    return eval, task
        return None, None


def _default_register_dir(package_dir: Path) -> Path:
    """Default location of the top-level ``register/`` directory.

    Resolves to ``<repo_root>/register`` when running from a source checkout.
    Only meaningful in that context — register entries are metadata-only
    pointers to upstream repos and are not shipped with the installed package.
    """
    return package_dir.parent.parent / "register"


def _discover_eval_yamls(
    package_dir: Path, register_dir: Path | None = None
) -> list[Path]:
    """Discover eval.yaml files.

    Internal evals under ``package_dir``, plus register entries under
    ``register_dir`` (if it exists).
    """
    internal = sorted(package_dir.glob("*/eval.yaml"))
    if register_dir is None:
        register_dir = _default_register_dir(package_dir)
    external = sorted(register_dir.glob("*/eval.yaml")) if register_dir.is_dir() else []
    return internal + external


def _load_single_eval_yaml(yaml_path: Path) -> dict[str, Any]:
    """Load a single eval.yaml and inject the id field."""
    with open(yaml_path, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    if not isinstance(data, dict):
        raise ValueError(
            f"eval.yaml should be a mapping, got {type(data)}: {yaml_path}"
        )
    data["id"] = yaml_path.parent.name
    return data


def load_eval_metadata(eval_name: str) -> InternalEvalMetadata:
    """Load metadata for an internal eval by name.

    Only internal evals (those living under ``src/inspect_evals/``) are
    accepted; register entries are metadata-only and don't carry the internal
    fields callers of this helper typically reach for (e.g. ``.version``).
    Use :func:`load_listing` to iterate all evals including register entries.
    """
    package_dir = Path(__file__).parent
    yaml_path = package_dir / eval_name / "eval.yaml"
    if not yaml_path.exists():
        raise FileNotFoundError(
            f"No eval.yaml found for '{eval_name}' in src/inspect_evals/"
        )
    data = _load_single_eval_yaml(yaml_path)
    if "source" in data:
        raise ValueError(
            f"{eval_name!r} is a register entry; load it via load_listing()."
        )
    return InternalEvalMetadata(**data)


def load_listing_raw(package_dir: Path | None = None) -> list[dict[str, Any]]:
    """Load all eval yaml files and return as a list of raw dicts."""
    if package_dir is None:
        package_dir = Path(__file__).parent
    eval_yamls = _discover_eval_yamls(package_dir)
    return [_load_single_eval_yaml(p) for p in eval_yamls]


def _metadata_from_entry(
    entry: dict[str, Any],
) -> ExternalEvalMetadata | InternalEvalMetadata:
    """Build the metadata model for one raw entry: ``source`` ⇒ external, else internal."""
    return (
        ExternalEvalMetadata(**entry)
        if "source" in entry
        else InternalEvalMetadata(**entry)
    )


def load_listing(package_dir: Path | None = None) -> EvalListing:
    """Load the evaluation listing by discovering eval yaml files."""
    raw = load_listing_raw(package_dir)
    evals: list[ExternalEvalMetadata | InternalEvalMetadata] = [
        _metadata_from_entry(entry) for entry in raw
    ]
    return EvalListing(_root=evals)


def load_listing_safe(
    package_dir: Path | None = None,
) -> tuple[EvalListing, list[tuple[str, Exception]]]:
    """Load the evaluation listing by discovering eval yaml files, skipping entries that fail validation.

    Unlike load_listing, load_listing_safe handles errors caused by malformed eval.yaml files rather than raising them, which means one malformed file does not block the whole testing suite.

    Returns:
        List of eval listings based on discovered eval.yaml files.
        List of tuples (eval_id, error) for entries that could not be parsed.
    """
    raw = load_listing_raw(package_dir)
    evals: list[ExternalEvalMetadata | InternalEvalMetadata] = []
    errors: list[tuple[str, Exception]] = []
    for entry in raw:
        eval_id = entry.get("id", "<unknown>")
        try:
            model = _metadata_from_entry(entry)
        except (ValidationError, ValueError, TypeError) as exc:
            logger.warning(
                "Skipping malformed eval metadata entry %r: %s", eval_id, exc
            )
            errors.append((eval_id, exc))
            continue
        evals.append(model)
    return EvalListing(_root=evals), errors
