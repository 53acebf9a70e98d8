"""socialbench: measure the social intelligence of LLMs on real human conversations."""

__version__ = "0.1.0"
