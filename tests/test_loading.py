"""The AMX guard: no llama.cpp model is ever loaded in a way that can take llama.cpp's crashing AMX path.

These tests fail on any machine (AMX or not) when the guard regresses: the policy is checked on the flags of
other CPUs, the real model is loaded as it would be on an AVX2-only, an AVX-512 and two AMX CPUs (its CPU flags
read from a cpuinfo file written from a fixed flag set, never from this machine's), and no code may construct
``llama_cpp.Llama`` except through `socialbench.models.loading`.
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

from conftest import AMX_WITHOUT_BF16, AVX2_ONLY, AVX512, CPUS, SAPPHIRE_RAPIDS, cpuinfo_file
from socialbench.models.llama_cpp import EmbeddedLlama
from socialbench.models.loading import CPUINFO_ENV, build_features, cpu_flags, load_llama, load_policy

ROOT = Path(__file__).resolve().parents[1]
PLAIN_BUILD = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 1 | REPACK = 1 | "
AMX_BUILD = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | REPACK = 1 | "


@pytest.mark.parametrize(
    ("flags", "features", "extra"),
    [
        (AVX2_ONLY, PLAIN_BUILD, True),  # repacked layouts kept where they are safe
        (AVX512, PLAIN_BUILD, True),
        (SAPPHIRE_RAPIDS, PLAIN_BUILD, False),  # the CPU has AMX
        (AMX_WITHOUT_BF16, PLAIN_BUILD, False),  # any amx_* flag counts, not a fixed list
        (AVX512 | {"amx_fp16"}, PLAIN_BUILD, False),
        (AVX2_ONLY, AMX_BUILD, False),
        (AVX512, AMX_BUILD, False),  # the build has AMX kernels (e.g. built on another machine)
        (frozenset(), AMX_BUILD, False),  # no cpuinfo (not Linux): the build still decides
    ],
)
def test_policy_turns_extra_buffers_off_wherever_amx_is_possible(
    flags: frozenset[str], features: str, extra: bool
) -> None:
    policy = load_policy(flags, features)
    assert policy.use_extra_bufts is extra
    assert ("AMX path possible" in policy.reason) is (not extra)


def test_asking_for_extra_buffers_on_an_amx_machine_is_refused() -> None:
    with pytest.raises(ValueError, match=r"AMX buffers .* crashes"):
        load_policy(SAPPHIRE_RAPIDS, PLAIN_BUILD, extra_bufts=True)
    assert load_policy(AVX512, PLAIN_BUILD, extra_bufts=False).use_extra_bufts is False
    assert load_policy(AVX512, PLAIN_BUILD, extra_bufts=True).use_extra_bufts is True


def test_cpu_flags_are_read_from_cpuinfo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = cpuinfo_file(tmp_path, SAPPHIRE_RAPIDS)
    assert cpu_flags(path) == SAPPHIRE_RAPIDS
    monkeypatch.setenv(CPUINFO_ENV, str(path))
    assert cpu_flags() == SAPPHIRE_RAPIDS
    assert cpu_flags(tmp_path / "missing") == frozenset()


@pytest.mark.model
@pytest.mark.parametrize("name", ["gemma-3-270m", "smollm2-135m-instruct"])
@pytest.mark.parametrize("cpu", sorted(CPUS))
def test_the_embedded_model_loads_by_the_policy_of_each_cpu(
    cpu: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model, loaded as on an AVX2-only, an AVX-512 and two AMX CPUs (flags from a written cpuinfo;
    the llama.cpp build is this machine's, so on an AMX-built llama.cpp every CPU gets the buffers off)."""
    monkeypatch.setenv(CPUINFO_ENV, str(cpuinfo_file(tmp_path, CPUS[cpu])))
    expected = load_policy(CPUS[cpu], build_features())
    if any(f.startswith("amx") for f in CPUS[cpu]):
        assert expected.use_extra_bufts is False
    model = get_model(f"socialbench/{name}", n_ctx=512, memoize=False)
    api = model.api
    assert isinstance(api, EmbeddedLlama)
    assert api.load_policy == expected
    # what llama.cpp was really given, read back from the loaded model's parameters
    assert bool(api.llm.model_params.use_extra_bufts) is expected.use_extra_bufts
    out = asyncio.run(model.generate([ChatMessageUser(content="Hello")], config=GenerateConfig(max_tokens=2)))
    assert out.usage is not None and out.usage.output_tokens >= 1


@pytest.mark.model
def test_the_embedded_model_here_carries_the_policy_of_this_machine() -> None:
    api = get_model("socialbench/gemma-3-270m", n_ctx=512, memoize=False).api
    assert isinstance(api, EmbeddedLlama)
    expected = load_policy(cpu_flags(), build_features()).use_extra_bufts
    assert api.llm.model_params.use_extra_bufts is expected is api.load_policy.use_extra_bufts


def test_no_code_constructs_llama_outside_the_loader() -> None:
    """``Llama(...)``, ``llama_cpp.Llama(...)`` and ``python -m llama_cpp.server`` bypass the guard."""
    allowed = {ROOT / "src/socialbench/models/loading.py", ROOT / "src/socialbench/models/serve.py", Path(__file__)}
    offenders = []
    for folder in ("src", "tests", "benchmarks", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path in allowed:
                continue
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                    if name == "Llama":
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: Llama(...)")
                if isinstance(node, ast.Constant) and node.value == "llama_cpp.server":
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: llama_cpp.server started directly")
    assert offenders == [], "load llama.cpp models with socialbench.models.loading.load_llama:\n" + "\n".join(offenders)


def test_a_misspelt_model_argument_is_an_error_not_ignored() -> None:
    # llama_cpp.Llama(**kwargs) would silently drop it
    with pytest.raises(ValueError, match=r"unknown llama.cpp model argument\(s\) n_ctxx; valid: .*n_ctx"):
        load_llama("/nonexistent.gguf", n_ctxx=5)
