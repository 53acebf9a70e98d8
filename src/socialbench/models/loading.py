"""The one place where socialbench loads a llama.cpp model, so that it never takes the AMX path.

Why: llama-cpp-python builds llama.cpp from source with ``-march=native``. On a CPU with AMX (Intel Xeon
Sapphire Rapids and later) that build compiles ggml's AMX kernel, and loading a model with the default
``use_extra_bufts = true`` repacks Q4_K weights into an AMX buffer whose matmul kernel segfaults
(``ggml_backend_amx_mul_mat``; upstream ggml-org/llama.cpp issue 20824, closed without a fix).
Loading with ``use_extra_bufts = false`` avoids it.

The extra buffer types also hold the CPU_REPACK layouts (e.g. Q4_K as 8x8 interleaved blocks for AVX2 /
AVX-512), which speed up prefill on CPUs without AMX (docs/benchmarks.md has the figures). So the policy is:
extra buffers stay on only when neither the CPU (``/proc/cpuinfo`` flags ``amx_*``) nor the llama.cpp build
(its system info lists ``AMX``) can take the AMX path; asking for them where it can is refused.

`Llama(...)` takes no keyword for ``use_extra_bufts`` (llama-cpp-python 0.3.36): it fills its model parameters
from ``llama_cpp.llama_cpp.llama_model_default_params()``. `load_llama` swaps that function for the duration of
one construction (under a lock) and then checks that the loaded model really carries the chosen value, before
any token is decoded (the crash happens in the first matmul, not at load).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llama_cpp import Llama

_LOCK = threading.Lock()
CPUINFO_ENV = "SOCIALBENCH_CPUINFO"
"""Read CPU flags from this file instead of /proc/cpuinfo: shows what the guard does on another CPU."""


def cpu_flags(cpuinfo: str | Path | None = None) -> frozenset[str]:
    """The CPU feature flags the kernel reports (empty where there is no /proc/cpuinfo)."""
    cpuinfo = Path(cpuinfo or os.environ.get(CPUINFO_ENV) or "/proc/cpuinfo")
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


def build_features() -> str:
    """llama.cpp's own account of the features it was compiled with (``AMX_INT8 = 1`` etc.)."""
    import llama_cpp

    return bytes(llama_cpp.llama_print_system_info()).decode("utf-8", errors="replace")


@dataclass(frozen=True)
class LoadPolicy:
    use_extra_bufts: bool
    reason: str


def load_policy(
    flags: frozenset[str] | None = None, features: str | None = None, extra_bufts: bool | None = None
) -> LoadPolicy:
    """Decide ``use_extra_bufts``. ``extra_bufts`` is the user's wish (None = automatic)."""
    flags = cpu_flags() if flags is None else flags
    features = build_features() if features is None else features
    amx_cpu = sorted(f for f in flags if f.startswith("amx"))
    amx_build = "AMX" in features.upper()
    if amx_cpu or amx_build:
        why = f"CPU flags {', '.join(amx_cpu)}" if amx_cpu else "a llama.cpp build with AMX kernels"
        if extra_bufts:
            raise ValueError(
                f"extra_bufts=true would load weights into llama.cpp's AMX buffers ({why}), whose kernel crashes "
                "(segmentation fault); leave extra_bufts unset"
            )
        return LoadPolicy(False, f"AMX path possible ({why}): extra buffer types off")
    if extra_bufts is False:
        return LoadPolicy(False, "extra buffer types off (asked)")
    return LoadPolicy(True, "no AMX: extra buffer types (weight repacking) on")


@contextmanager
def _default_params(use_extra_bufts: bool) -> Iterator[None]:
    import llama_cpp.llama_cpp as native

    original = native.llama_model_default_params

    def chosen() -> Any:
        params = original()
        if not hasattr(params, "use_extra_bufts"):
            raise RuntimeError(
                "this llama-cpp-python has no use_extra_bufts model parameter; install the tested range "
                "(see pyproject.toml)"
            )
        params.use_extra_bufts = use_extra_bufts
        return params

    with _LOCK:
        native.llama_model_default_params = chosen
        try:
            yield
        finally:
            native.llama_model_default_params = original


def load_llama(model_path: str | Path, policy: LoadPolicy | None = None, **kwargs: Any) -> Llama:
    """``llama_cpp.Llama(model_path, **kwargs)`` loaded by the AMX-safe policy (default: `load_policy()`).
    Every llama.cpp model that socialbench loads goes through here (a test checks that no other code
    constructs ``Llama``)."""
    import inspect

    from llama_cpp import Llama

    # Llama() swallows unknown keywords (**kwargs): a misspelt -M argument would be ignored without a word
    known = {p for p in inspect.signature(Llama.__init__).parameters if p not in ("self", "kwargs")}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ValueError(f"unknown llama.cpp model argument(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
    policy = policy or load_policy()
    with _default_params(policy.use_extra_bufts):
        llm = Llama(model_path=str(model_path), **kwargs)
    if bool(llm.model_params.use_extra_bufts) != policy.use_extra_bufts:
        llm.close()
        raise RuntimeError("llama.cpp ignored the use_extra_bufts choice; refusing to run a possibly crashing model")
    return llm


@contextmanager
def amx_safe_loading(extra_bufts: bool | None = None) -> Iterator[LoadPolicy]:
    """Every `Llama` constructed inside the block (e.g. by llama-cpp-python's own server) follows the policy."""
    policy = load_policy(extra_bufts=extra_bufts)
    with _default_params(policy.use_extra_bufts):
        yield policy
