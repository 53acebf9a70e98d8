"""llama-cpp-python's OpenAI-compatible server, loading models by socialbench's AMX-safe policy.

``python -m socialbench.models.serve --model FILE.gguf --port 8000 ...`` takes the same arguments as
``python -m llama_cpp.server``; models load with `loading.load_policy` (the plain server would crash on AMX CPUs).
Each model the server loads is checked to carry the policy's choice, and one line on stderr says what it carries
(``socialbench: loaded FILE with use_extra_bufts=False (...)``), before the server answers any request.
"""

from __future__ import annotations

import sys
from typing import Any

from .loading import LoadPolicy, amx_safe_loading

LOADED_LINE = "socialbench: loaded {path} with use_extra_bufts={value} ({reason})"


def _checked_loader(original: Any, policy: LoadPolicy) -> Any:
    def load(settings: Any) -> Any:
        llm = original(settings)
        carried = bool(llm.model_params.use_extra_bufts)
        if carried != policy.use_extra_bufts:
            llm.close()
            raise RuntimeError(
                "llama.cpp ignored the use_extra_bufts choice; refusing to serve a possibly crashing model"
            )
        print(LOADED_LINE.format(path=settings.model, value=carried, reason=policy.reason), file=sys.stderr, flush=True)
        return llm

    return staticmethod(load)


def main() -> None:
    from llama_cpp.server.__main__ import main as server_main
    from llama_cpp.server.model import LlamaProxy

    with amx_safe_loading() as policy:
        print(f"socialbench: {policy.reason}", file=sys.stderr, flush=True)
        LlamaProxy.load_llama_from_model_settings = _checked_loader(  # type: ignore[method-assign]
            LlamaProxy.load_llama_from_model_settings, policy
        )
        server_main()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
