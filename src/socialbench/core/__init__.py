"""The base layer: the one input-error type and JSONL / atomic-file I/O. Imports nothing else of socialbench."""

from .errors import InputError
from .jsonl import atomic_writer, read_jsonl, read_models, write_jsonl

__all__ = ["InputError", "atomic_writer", "read_jsonl", "read_models", "write_jsonl"]
