"""SI-Bench (social intelligence in real Chinese dyadic chats): reply generation judged by rubric.

`load_dialogues()` returns all 2,221 released dialogues (shipped with the package).
"""

from .dataset import load_dialogues

__all__ = ["load_dialogues"]
