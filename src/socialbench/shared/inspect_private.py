"""Every private inspect_ai name socialbench uses, in one place, each with the fallback it gets if inspect moves it.

inspect has no public API for these (the eval's active generate config and model, its Anthropic provider's cache
TTL of the current call, the sample order and deserialising context of its log reader, its zstandard zip members,
its provider registry, its batch connection ceiling). Importing them anywhere else is refused by a test
(`tests/test_inspect_private.py`), and that test fails as soon as the installed inspect no longer has one of
`PRIVATE` where it is named here, so an upgrade that renames one is a red test, never a silent fallback. What
each fallback does (all are safe: a report stays right, a run behaves as inspect's defaults):

- ``active_generate_config``: inspect's defaults (``GenerateConfig()``): the scheduler then asks the model's own
  connection limit;
- ``active_model``: None (the merged config is the model's own);
- ``cache_write_ttl``: None, i.e. every Anthropic cache write priced at the five-minute rate (the ledger's
  lower bound when a slow sample switched to one-hour writes);
- ``sort_samples``: (epoch, id) order, inspect's own order when it was written;
- ``deserializing_context``: None (pydantic's defaults);
- ``zip_kwargs``: ``{}`` (Python's own zip codecs: a zstandard member is then an unreadable log, said in one line);
- ``provider_names``: [] (a model role's provider is left to inspect's own error);
- ``DEFAULT_MAX_CONNECTIONS_BATCH``: 10,000, its value in inspect 0.3.280-0.3.285.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

PRIVATE: dict[str, tuple[str, str]] = {
    "active_generate_config": ("inspect_ai.model._generate_config", "active_generate_config"),
    "active_model": ("inspect_ai.model._model", "active_model"),
    "cache_write_ttl": ("inspect_ai.model._providers.anthropic", "_cache_write_ttl"),
    "sort_samples": ("inspect_ai.log._log", "sort_samples"),
    "deserializing_context": ("inspect_ai._util.constants", "get_deserializing_context"),
    "zip_kwargs": ("inspect_ai._util.zipfile", "zipfile_compress_kwargs"),
    "registry_find": ("inspect_ai._util.registry", "registry_find"),
    "registry_info": ("inspect_ai._util.registry", "registry_info"),
    "providers": ("inspect_ai.model._providers.providers", "__name__"),
    "batch_connections": ("inspect_ai._util.constants", "DEFAULT_MAX_CONNECTIONS_BATCH"),
}
"""Our name -> (inspect module, attribute): every private inspect name socialbench reads."""

MISSING: set[str] = set()
"""Names of `PRIVATE` that the installed inspect lacks (their fallbacks are in use)."""


def private(name: str) -> Any | None:
    """The private inspect object ``name`` (a key of `PRIVATE`), or None when the installed inspect has moved it
    (recorded in `MISSING`)."""
    module, attribute = PRIVATE[name]
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError):
        MISSING.add(name)
        return None


def active_generate_config() -> Any:
    """The generate config of the eval in progress (inspect's defaults outside one)."""
    found = private("active_generate_config")
    if found is None:
        from inspect_ai.model import GenerateConfig

        return GenerateConfig()
    return found()


def active_model() -> Any | None:
    """The model under evaluation in the running sample, or None."""
    found = private("active_model")
    return None if found is None else found()


def cache_write_ttl() -> str | None:
    """The TTL (``"5m"`` / ``"1h"``) inspect's Anthropic provider sent its cache marks with in the call that just
    answered in this task, or None (unknown: priced at the five-minute rate)."""
    found = private("cache_write_ttl")
    return None if found is None else found.get()


def sort_samples(samples: list[Any]) -> None:
    """Sort a log's samples in place as inspect's log reader orders them."""
    found: Callable[[list[Any]], None] | None = private("sort_samples")
    if found is None:
        samples.sort(key=lambda s: (s.epoch, str(s.id)))
    else:
        found(samples)


def deserializing_context() -> Any:
    """The pydantic validation context inspect's log reader validates samples with (None: pydantic's)."""
    found = private("deserializing_context")
    return None if found is None else found()


def zip_kwargs() -> dict[str, Any]:
    """The keyword arguments inspect writes ``.eval`` zip members with (importing them also registers zstandard
    members with zipfile on Python < 3.14)."""
    found = private("zip_kwargs")
    return {} if found is None else dict(found)


def provider_names() -> list[str]:
    """The names of every model provider registered with inspect (ours included when registered)."""
    find, info = private("registry_find"), private("registry_info")
    if find is None or info is None or private("providers") is None:
        return []
    return sorted({info(api).name.split("/")[-1] for api in find(lambda i: i.type == "modelapi")})


def batch_connections() -> int:
    """inspect's ceiling on concurrent requests in batch mode."""
    found = private("batch_connections")
    return 10_000 if found is None else int(found)
