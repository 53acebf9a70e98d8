"""PerSo prompts. The paper (§A.9) describes its templates but the summary we build from does not print them, so
these are ours, written to its description; docs/perso.md lists each choice. Bump a version when a text changes:
it is recorded in every log and every generated item."""

from __future__ import annotations

BEHAVIORAL_VERSION = "perso-behavioral-v1"
COGNITIVE_VERSION = "perso-cognitive-v1"
GENERATION_VERSION = "perso-generation-v2"

QUESTIONS = {
    "belief": "After reading this response, what will the OP believe about the view they posted?",
    "emotion": "After reading this response, how will the OP feel?",
    "intent": "After reading this response, what will the OP intend to do in their next reply?",
}
"""One fixed question per dimension (§A.9: fixed persuadee belief, emotion and intent questions)."""

_SCENE = (
    "On r/ChangeMyView, a person (the OP) posts a view they hold and invites others to change it. The OP awards a "
    "delta to a reply that changed their view."
)


def behavioral_prompt(post: str, first: str, second: str) -> str:
    """§3.2.1: the OP's post and two candidate replies (never the OP's later replies); a 1-4 rating of each, and
    the two ratings must differ."""
    return "\n\n".join(
        [
            _SCENE,
            "Read the OP's post and two responses to it. Rate how likely each response is to change the OP's view "
            "on a scale from 1 (very unlikely) to 4 (very likely). The two ratings must be different.",
            f"OP's post:\n{post}",
            f"Response 1:\n{first}",
            f"Response 2:\n{second}",
            "Answer with exactly two lines:\nResponse 1: <rating 1-4>\nResponse 2: <rating 1-4>",
        ]
    )


def cognitive_prompt(post: str, reply: str, question: str, options: list[str]) -> str:
    """§3.2.2: the OP's post and one persuader's response (the OP's answer is withheld); forecast the OP's state."""
    lines = "\n".join(f"{letter}. {text}" for letter, text in zip("ABCD", options, strict=True))
    return "\n\n".join(
        [
            _SCENE,
            f"OP's post:\n{post}",
            f"A response to the OP:\n{reply}",
            f"Question: {question}",
            lines,
            "Answer with the letter of the correct option only.\nAnswer:",
        ]
    )


def dialogue_text(post: str, reply: str, op_reply: str) -> str:
    return f"OP's post:\n{post}\n\nPersuader's response:\n{reply}\n\nOP's reply to the persuader:\n{op_reply}"


def gold_prompt(post: str, reply: str, op_reply: str) -> str:
    """§A.9 step 1: the gold belief, emotion and intent from the full dialogue (the OP's reply holds them)."""
    return "\n\n".join(
        [
            _SCENE,
            dialogue_text(post, reply, op_reply),
            "From the OP's reply, state the OP's mental state right after reading the persuader's response:\n"
            "- belief: what the OP now believes about the view they posted;\n"
            "- emotion: how the OP feels;\n"
            "- intent: what the OP intends to do in their reply.\n"
            "Write one short sentence for each, in the third person ('The OP ...'), describing the state in your own "
            "words: do not quote the reply.",
            'Answer with one JSON object: {"belief": "...", "emotion": "...", "intent": "..."}',
        ]
    )


def distractor_prompt(post: str, reply: str, op_reply: str, dimension: str, gold: str) -> str:
    """§A.9 step 2: three plausible, definitely incorrect distractors matched to the gold answer."""
    return "\n\n".join(
        [
            _SCENE,
            dialogue_text(post, reply, op_reply),
            f"Question: {QUESTIONS[dimension]}",
            f"Correct answer: {gold}",
            "Write three incorrect answers to this question. Each must be plausible to someone who has not seen the "
            "OP's reply, yet definitely wrong given the reply. Match the correct answer's level of abstraction, "
            "length and style; do not merely negate it; do not make options that can be ruled out without reading "
            "the dialogue (off-topic, extreme or self-contradictory).",
            'Answer with one JSON object: {"distractor_1": "...", "distractor_2": "...", "distractor_3": "..."}',
        ]
    )
