"""llama-cpp-python's OpenAI-compatible server, loading models by socialbench's AMX-safe policy.

``python -m socialbench.models.serve --model FILE.gguf --port 8000 ...`` takes the same arguments as
``python -m llama_cpp.server``; models load with `loading.load_policy` (the plain server would crash on AMX CPUs).
"""

from __future__ import annotations

import sys

from .loading import amx_safe_loading


def main() -> None:
    from llama_cpp.server.__main__ import main as server_main

    with amx_safe_loading() as policy:
        print(f"socialbench: {policy.reason}", file=sys.stderr, flush=True)
        server_main()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
