"""The SI-Bench rubrics as data: one schema (dimensions, levels, descriptions) that renders the judge prompt and
is what a human annotation app shows. Texts are the paper's Table 6 (process) and Table 5 (reply)."""

from __future__ import annotations

from pydantic import BaseModel


class Level(BaseModel):
    score: int
    grade: str
    criteria: list[str]


class Dimension(BaseModel):
    key: str
    name: str
    definition: str
    levels: list[Level]

    @property
    def scores(self) -> list[int]:
        return [lv.score for lv in self.levels]


class Rubric(BaseModel):
    name: str
    dimensions: list[Dimension]

    def dimension(self, key: str) -> Dimension:
        return next(d for d in self.dimensions if d.key == key)

    def render(self) -> str:
        lines = [f"## {self.name}"]
        for dim in self.dimensions:
            lines.append(f"### {dim.name} ({dim.key}): {dim.definition}")
            for lv in dim.levels:
                head = f"- {lv.score} ({lv.grade})" if lv.grade else f"- {lv.score}"
                lines.append(head + ": " + " ".join(lv.criteria))
        return "\n".join(lines)


def _lv(score: int, text: str, grade: str = "") -> Level:
    return Level(score=score, grade=grade, criteria=[text])


PROCESS_RUBRIC = Rubric(
    name="CoT process (SI-Bench Table 6)",
    dimensions=[
        Dimension(
            key="motivation",
            name="Motivation",
            definition="The underlying need behind the other party's utterance.",
            levels=[
                _lv(0, "Incorrect interpretation, or inconsistent with the context."),
                _lv(5, "Accurately identifies the other party's primary or surface-level motivation."),
                _lv(10, "Accurately identifies the other party's deep or unspoken underlying motivation."),
            ],
        ),
        Dimension(
            key="cause",
            name="Cause",
            definition="The underlying cause of the motivation behind the other party's utterance.",
            levels=[
                _lv(0, "Analysis contradicts the context, is overly general, or purely speculative."),
                _lv(5, "Provides a reasonable and well-grounded explanation."),
                _lv(10, "Provides a profound explanation that connects multiple pieces of contextual information."),
            ],
        ),
        Dimension(
            key="emotional_attitude",
            name="Emotional Attitude",
            definition="The emotional state or attitude implied in the other party's utterance.",
            levels=[
                _lv(0, "Incorrect identification, or misses complex emotions."),
                _lv(5, "Accurately identifies the primary emotion."),
                _lv(10, "Accurately identifies the primary emotion and captures complex or contradictory emotions."),
            ],
        ),
        Dimension(
            key="social_intention",
            name="Social Intent",
            definition="Based on the current context, relationship stage, and internal goals, the speaker aims "
            "to achieve a specific social goal with this response.",
            levels=[
                _lv(0, "The intended goal is inappropriate."),
                _lv(5, "Establishes a clear and appropriate social intent."),
                _lv(10, "Establishes a sophisticated intent that may encompass multi-goals."),
            ],
        ),
        Dimension(
            key="communicative_strategy",
            name="Communication Strategy",
            definition="The communication skills and interaction strategies employed by the speaker to achieve "
            "the social intent.",
            levels=[
                _lv(0, "The strategy is mismatched with the intent or poorly executed."),
                _lv(5, "Selects specific and effective communication strategies that align with the intent."),
                _lv(
                    10,
                    "Selects advanced or combined communication strategies that align with the intent, "
                    "demonstrating strategic sophistication.",
                ),
            ],
        ),
    ],
)

REPLY_RUBRIC = Rubric(
    name="Reply (SI-Bench Table 5)",
    dimensions=[
        Dimension(
            key="reply",
            name="Reply",
            definition="The speaker's final response.",
            levels=[
                Level(
                    score=0,
                    grade="Deficient",
                    criteria=[
                        "If any of the following occur:",
                        "Language Flaws: The response is stiff, overly formal, or robotic; or it exhibits logical "
                        "confusion or contextual incoherence.",
                        "Relationship Damage: The response is detrimental to the relationship's progress (e.g., "
                        "offensive, aggressive, preachy, judgmental); or it causes the conversation to stagnate by "
                        "evading or diverting the topic.",
                        "Inappropriate Strategy: The communication strategy reflected in the reply does not align with "
                        "the speaker's emotional attitude or social intent in the given context.",
                    ],
                ),
                Level(
                    score=5,
                    grade="Qualified",
                    criteria=[
                        "All of the following conditions must be met:",
                        "Appropriate Language: The reply is fluent, coherent, and conversational, with no linguistic "
                        "flaws.",
                        "Relationship Maintenance: The reply is safe and appropriate; it does not harm the relationship "
                        "or cause awkward pauses or topic breakdowns.",
                        "Reasonable Strategy: The reply shows some awareness of communication strategy, but tends to be "
                        "passive or defensive, placing the speaker in a lower or weaker position. This reduces social "
                        "value and personal charm, and limits the ability to actively shape the direction of the "
                        "conversation or relationship.",
                    ],
                ),
                Level(
                    score=10,
                    grade="Excellent",
                    criteria=[
                        "Strategically skilled reply that actively guides the conversation, meeting all of the following:",
                        "Appropriate Language: The reply is fluent, coherent, and conversational, with no linguistic "
                        "flaws.",
                        "Relationship Advancement: The reply is safe and appropriate, does not damage the relationship "
                        "or interrupt the flow, and fosters a healthy, reciprocal interaction.",
                        "Sophisticated Strategy: The reply demonstrates proactive and tactful communication strategies, "
                        "effectively resolving or managing complex situations, influencing the course of the "
                        "conversation, and conveying social value and personal charisma.",
                    ],
                ),
            ],
        )
    ],
)
