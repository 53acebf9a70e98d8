"""SI-Bench reply prompts: CoT (paper Table 7) and direct (Table 8), in English as printed and in Chinese.

The Chinese templates are socialbench's own translation of the English tables (the paper prints its Chinese
templates only as figures); they are marked as such in ``TRANSLATION_NOTE``. Templates are assembled from the
five CoT components so that an ablation (RQ4, Table 2) removes one component's analysis step and its output
field and nothing else; with no ablation the English text is the one of Table 7.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ...conversations.model import Dialogue
from ...conversations.render import render_dialogue

Lang = Literal["en", "zh"]
TRANSLATION_NOTE = "Chinese prompt: socialbench's translation of the paper's English templates (Tables 7-8)."
CHAR_LIMIT = 15


@dataclass(frozen=True)
class Component:
    key: str
    field_en: str
    field_zh: str
    step: int  # 1 = contextual understanding (other party), 2 = response strategy (you)
    text_en: str
    text_zh: str


COMPONENTS: tuple[Component, ...] = (
    Component(
        "motivation",
        "Motivation",
        "动机",
        1,
        "Motivation Analysis: Identify the core underlying need driving the utterance.",
        "动机分析：识别驱动这句话的核心深层需求。",
    ),
    Component(
        "cause",
        "Cause",
        "原因",
        1,
        "Cause Analysis: Infer the situational context and background factors that generated this motivation.",
        "原因分析：推断产生这一动机的情境与背景因素。",
    ),
    Component(
        "emotional_attitude",
        "Emotional Attitude",
        "情绪态度",
        1,
        "Emotional Attitude Analysis: Extract implicit emotional attitudes and affective signals that indicate "
        "interaction progress.",
        "情绪态度分析：提取隐含的情绪态度，以及反映互动进展的情感信号。",
    ),
    Component(
        "social_intention",
        "Social Intention",
        "社交意图",
        2,
        "Social Intention Analysis: Define the social objective based on current context, relationship stage, "
        "and strategic goals.\n\nExamples:\n\n"
        "- Final Intent (conversation-level): meeting arrangement, contact exchange, partnership establishment\n\n"
        "- Current Intent (turn-level):\n\n"
        "Emotional maintenance: comfort, validation\n\n"
        "Relationship advancement: intimacy building, rapport establishment\n\n"
        "Self-preservation: boundary setting, conflict management\n\n"
        "Conversational control: topic maintenance, transition, termination\n\n"
        "Boundary testing: emotional probing, intimacy assessment\n\n"
        "Self-presentation: humor, competence, perspective sharing",
        "社交意图分析：根据当前语境、关系阶段和策略目标，确定社交目标。\n\n示例：\n\n"
        "- 最终意图（对话层面）：约见面、交换联系方式、建立伴侣关系\n\n"
        "- 当前意图（回合层面）：\n\n"
        "情绪维护：安慰、认可\n\n"
        "关系推进：建立亲密感、建立融洽关系\n\n"
        "自我保护：设立边界、管理冲突\n\n"
        "对话掌控：维持话题、转换话题、结束对话\n\n"
        "边界试探：情感试探、亲密度评估\n\n"
        "自我展示：幽默、能力、观点分享",
    ),
    Component(
        "communicative_strategy",
        "Communicative Strategy",
        "沟通策略",
        2,
        "Communicative Strategy Selection: Choose appropriate expression methods and interaction strategies to "
        "achieve social intents.\n\nExamples:\n\n"
        "- Emotional Processing: empathy, consolation\n\n"
        "- Relationship Maintenance: self-disclosure, positive reinforcement, relationship testing\n\n"
        "- Conversational Guidance: open/closed questioning, clarification, reframing\n\n"
        "- Boundary Management: position assertion, rhythm control, tactful refusal\n\n"
        "- Conflict Resolution: error acknowledgment, partial agreement, intent clarification, humor\n\n"
        "- Conversation Advancement: topic extension, association, opinion expression",
        "沟通策略选择：选择合适的表达方式和互动策略来实现社交意图。\n\n示例：\n\n"
        "- 情绪处理：共情、安慰\n\n"
        "- 关系维护：自我表露、正向强化、关系试探\n\n"
        "- 对话引导：开放式/封闭式提问、澄清、重新框定\n\n"
        "- 边界管理：表明立场、节奏控制、委婉拒绝\n\n"
        "- 冲突化解：承认错误、部分认同、澄清意图、幽默\n\n"
        "- 对话推进：话题延伸、联想、表达观点",
    ),
)
COMPONENT_KEYS = tuple(c.key for c in COMPONENTS)
RESPONSE_FIELD = {"en": "Response", "zh": "回复"}

_ROLE = {
    "en": (
        "You are an expert in human social interactions. No matter how complex the situation, you need to skillfully "
        "use various communication techniques to handle it. Your goal is to influence the conversation effectively, "
        "guide its direction, and build a deep connection with the other person."
    ),
    "zh": "你是一位人际交往专家。无论情境多么复杂，你都需要娴熟地运用各种沟通技巧来应对。你的目标是有效地影响对话、引导对话方向，并与对方建立深层的联系。",
}
# Table 7's placeholders as printed: "Analyze from the {other party’s} perspective", "from {your} perspective".
OTHER = {"en": "other party’s", "zh": "对方"}
YOU = {"en": "your", "zh": "你（用户）"}


def cot_prompt(lang: Lang = "en", ablate: Sequence[str] = ()) -> str:
    """The CoT system prompt (Table 7), without the components named in ``ablate``."""
    unknown = set(ablate) - set(COMPONENT_KEYS)
    if unknown:
        raise ValueError(f"unknown CoT component(s) {sorted(unknown)}; choose from {', '.join(COMPONENT_KEYS)}")
    kept = [c for c in COMPONENTS if c.key not in ablate]
    step1 = [c for c in kept if c.step == 1]
    step2 = [c for c in kept if c.step == 2]

    def steps(comps: list[Component]) -> str:
        return "\n\n".join(f"{'abcde'[i]}. {c.text_en if lang == 'en' else c.text_zh}" for i, c in enumerate(comps))

    fields = [c.field_en if lang == "en" else c.field_zh for c in kept] + [RESPONSE_FIELD[lang]]
    output = "{\n\n" + "\n\n".join(f"“{f}”: “xxx”" for f in fields) + "\n\n}"
    if lang == "en":
        parts = [
            "# Role",
            _ROLE["en"],
            "Chain-of-Thought Analysis Framework",
            "You must analyze conversational exchanges through two complementary dimensions: contextual perception "
            "and response strategy. The framework operates as follows:",
        ]
        if step1:
            parts += [
                "Step 1: Contextual Understanding",
                f"Analyze from the {{{OTHER['en']}}} perspective:",
                steps(step1),
            ]
        if step2:
            parts += [
                f"Step {2 if step1 else 1}: Response Strategy",
                f"Analyze from {{{YOU['en']}}} perspective:",
                steps(step2),
            ]
        parts += [
            "Task Execution Protocol",
            "1. Analysis Phase: Apply the Chain-of-Thought framework to comprehensively analyze both conversational "
            "participants.",
            "2. Synthesis Phase: Integrate analytical insights to understand conversation themes, emotional dynamics, "
            "and contextual factors.",
            "3. Generation Phase: Produce one strategic response that effectively influences conversation trajectory "
            "and advances relationship objectives.",
            "# Output Specifications",
            f"1. Generate replies from {{{YOU['en']}}} perspective using natural, conversational language that "
            "promotes relaxation and trust",
            "2. Ensure response content aligns with selected communication techniques (consistency principle)",
            f"3. Response length must not exceed {CHAR_LIMIT} characters",
            "4. Your output format is as follows, please strictly follow and do not output other content:",
            output,
        ]
    else:
        parts = [
            "# 角色",
            _ROLE["zh"],
            "思维链分析框架",
            "你必须从两个互补的维度分析对话交流：情境感知与回应策略。框架如下：",
        ]
        if step1:
            parts += ["第一步：情境理解", f"从{{{OTHER['zh']}}}的角度分析：", steps(step1)]
        if step2:
            parts += [f"第{'二' if step1 else '一'}步：回应策略", f"从{{{YOU['zh']}}}的角度分析：", steps(step2)]
        parts += [
            "任务执行流程",
            "1. 分析阶段：运用思维链框架，全面分析对话双方。",
            "2. 综合阶段：整合分析结果，理解对话主题、情绪动态和情境因素。",
            "3. 生成阶段：生成一条有策略的回复，有效影响对话走向并推进关系目标。",
            "# 输出要求",
            f"1. 以{{{YOU['zh']}}}的视角生成回复，使用自然、口语化、让人放松和信任的语言",
            "2. 确保回复内容与所选沟通技巧一致（一致性原则）",
            f"3. 回复长度不得超过{CHAR_LIMIT}个字",
            "4. 你的输出格式如下，请严格遵守，不要输出其他内容：",
            output,
        ]
    return "\n\n".join(parts)


def direct_prompt(lang: Lang = "en") -> str:
    """The direct-reply system prompt (Table 8)."""
    if lang == "en":
        return "\n\n".join(
            [
                "Role",
                _ROLE["en"].replace(" Your goal", "\n\nYour goal"),
                "Instructions",
                f"- Your response should not exceed {CHAR_LIMIT} characters",
                "- Your output format is as follows:",
                "{\n\n“Response”: “xxx”\n\n}",
            ]
        )
    return "\n\n".join(
        [
            "角色",
            _ROLE["zh"],
            "要求",
            f"- 你的回复不超过{CHAR_LIMIT}个字",
            "- 你的输出格式如下：",
            "{\n\n“回复”: “xxx”\n\n}",
        ]
    )


def named_fields(prompt: str, lang: Lang = "en") -> str:
    """The prompt with each template field's ``xxx`` replaced by what the field holds (``<your reply>``,
    ``<your motivation analysis>``; ``<你的回复>``): for structured output, where the grammar already holds the format
    and a small model copies ``xxx`` into every field (SmolLM2 135M: 3 of 3 replies ``xxx``; named: 0 of 3)."""

    def named(match: re.Match[str]) -> str:
        field = match.group(1)
        reply = field == RESPONSE_FIELD[lang]
        if lang == "en":
            return f"“{field}”: “<your {'reply' if reply else field.lower() + ' analysis'}>”"
        return f"“{field}”: “<你的{field}{'' if reply else '分析'}>”"

    return re.sub(r"“([^”]+)”: “xxx”", named, prompt)


def dialogue_message(dialogue: Dialogue, lang: Lang = "en") -> str:
    """The chat history as the user message: 用户 is the side the model speaks for."""
    chat = render_dialogue(dialogue).rstrip("\n")
    if lang == "en":
        return (
            f"Conversation so far (用户 = you, 对方 = the other party):\n\n{chat}\n\n"
            "Write 用户's next reply in the conversation's language."
        )
    return f"以下是目前的对话（用户 = 你，对方 = 对方）：\n\n{chat}\n\n请写出用户的下一条回复。"
