"""Prompts of the LongSocialBench settings (paper Table 12). The paper describes each prompt in one sentence and
prints none; these are our wording of those sentences (docs/longsocial.md). The discussion comes first and the
question last, so items of one episode share the longest possible prompt prefix (KV-cache / prompt-cache reuse).
"""

from __future__ import annotations

from collections.abc import Sequence

INTRO = (
    "You will read a complete online discussion, including its reply structure, and then answer one "
    "multiple-choice question about it."
)
INTRO_SELECTED = (
    "You will read posts selected from an online discussion, with their reply structure, and then answer one "
    "multiple-choice question about the discussion."
)
INTRO_UNSTRUCTURED = (
    "You will read the posts of an online discussion in random order, without their reply structure, and then "
    "answer one multiple-choice question about it."
)

FULL_INSTRUCTION = (
    "Locate the relevant evidence in the discussion, compare the four options, and answer with a single "
    "letter (A, B, C or D)."
)
LETTER_INSTRUCTION = "Answer with a single letter (A, B, C or D)."
FINAL_LINE = 'End with a last line of the form "Final answer: X", where X is A, B, C or D.'

# Table 12, "Reasoning prompts": one strategy before the final answer.
REASONING: dict[str, str] = {
    "cot": "Think step by step: reason about the discussion and the options before answering.",
    "cot-evidence": (
        "First enumerate the evidence: list the posts (by id) that bear on the question and what each one shows. "
        "Then decide which option the evidence supports."
    ),
    "cot-temporal": (
        "First track the discussion over time: follow the relevant posts from the earliest to the latest and note "
        "how positions, tone and participants change. Then decide which option fits that development."
    ),
    "cot-elimination": (
        "Eliminate options: take each option in turn, say what in the discussion contradicts or supports it, and "
        "rule out the ones that fail. Then choose among what remains."
    ),
    "reflect": "Reason briefly about the discussion and the options, then give your answer.",
}
REFLECT_FOLLOW_UP = (
    "Now reflect on your answer. Check it against the discussion: is the evidence you relied on really there, and "
    "does another option fit the evidence better? Revise your answer if you find a mistake, otherwise keep it. "
    + FINAL_LINE
)


def format_options(options: Sequence[str]) -> str:
    return "\n".join(f"{letter}. {text}" for letter, text in zip("ABCD", options, strict=True))


def full_prompt(discussion: str, stem: str, options: Sequence[str]) -> str:
    """Table 12, "Full": serialized discussion + reply structure + stem + four options, one-letter answer."""
    return f"{INTRO}\n\n{discussion}\nQuestion: {stem}\n{format_options(options)}\n\n{FULL_INSTRUCTION}\nAnswer:"


def choice_prompt(intro: str, discussion: str, stem: str, options: Sequence[str], notes: str = "") -> str:
    """Retrieved or otherwise selected posts (and optional anchor notes), the question, a one-letter answer."""
    notes_block = f"Notes on the retrieved posts:\n{notes}\n\n" if notes else ""
    return (
        f"{intro}\n\n{discussion}\n{notes_block}Question: {stem}\n{format_options(options)}\n\n"
        f"{FULL_INSTRUCTION}\nAnswer:"
    )


def reasoning_prompt(strategy: str, discussion: str, stem: str, options: Sequence[str]) -> str:
    """Table 12, "Reasoning prompts": same input as Full, a reasoning strategy, then the final letter."""
    return f"{INTRO}\n\n{discussion}\nQuestion: {stem}\n{format_options(options)}\n\n{strategy} {FINAL_LINE}\n"


def anchor_notes_prompt(discussion: str, regions: str, stem: str, options: Sequence[str], anchors: int) -> str:
    """The RAG note-taking call: brief notes on what each retrieved region contributes (before answering)."""
    per_region = (
        "one brief note: what this region contributes to answering the question"
        if anchors == 1
        else "two brief notes: (1) what the region says, (2) which option(s) it supports or rules out"
    )
    return (
        f"{INTRO_SELECTED}\n\n{discussion}\nQuestion: {stem}\n{format_options(options)}\n\n"
        f"The retrieved posts fall into these regions (a region = posts of one branch of the discussion):\n"
        f"{regions}\n\nDo not answer the question yet. For each region write {per_region}. "
        'Start each note with the region\'s name, e.g. "Region 1: ...".\n'
    )


def retriever_prompt(discussion: str, stem: str, options: Sequence[str], k: int) -> str:
    """LLM-as-retriever: the model names the posts needed to answer (by id)."""
    return (
        f"{INTRO}\n\n{discussion}\nQuestion: {stem}\n{format_options(options)}\n\n"
        f"Do not answer the question yet. List the ids of the posts someone would need to read to answer it, at most "
        f'{k}, most important first, on one line of the form "Relevant: c3, c17, c42".\nRelevant:'
    )


def option_only_prompt(options: Sequence[str]) -> str:
    return (
        "Four answer options to a question about an online discussion are shown below; the question and the "
        f"discussion are not. Which option is most likely the correct one?\n{format_options(options)}\n\n"
        f"{LETTER_INSTRUCTION}\nAnswer:"
    )


def question_only_prompt(stem: str, options: Sequence[str]) -> str:
    return (
        "Answer one multiple-choice question about an online discussion that is not shown.\n\n"
        f"Question: {stem}\n{format_options(options)}\n\n{LETTER_INSTRUCTION}\nAnswer:"
    )


def open_prompt(discussion: str, stem: str) -> str:
    """Table 12 diagnostic "open answer": no options; a short free-text answer, judged against the gold option."""
    intro = "You will read a complete online discussion, including its reply structure, and then answer a question about it."
    return f"{intro}\n\n{discussion}\nQuestion: {stem}\n\nAnswer the question in one or two sentences.\nAnswer:"


def label_posts_prompt(discussion: str, stem: str, ids: Sequence[str]) -> str:
    """Table 21's structured pipeline, step 1: label each post of the scope for the question (no answer yet)."""
    return (
        f"{INTRO_SELECTED}\n\n{discussion}\nQuestion: {stem}\n\n"
        "Do not answer the question yet. For each post listed below, write one line of the form "
        '"cN: <what this post does that matters for the question>", in this order:\n' + ", ".join(ids) + "\n"
    )
