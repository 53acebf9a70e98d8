"""The shipped PerSo sample cognitive items (src/socialbench/benchmarks/perso/data/cognitive_items.jsonl).

Written by hand by the socialbench developers for the 8 persuader branches of the 4 threads of the CMV exchange
files that pass every PerSo construction rule (docs/perso.md): one belief, emotion and intent item per branch,
the gold read from the OP's withheld reply, three distractors written to the paper's instructions (§A.9). They are
NOT the paper's items. Run from the project root to rewrite the file; lint flags are computed, not typed.
"""

from __future__ import annotations

from socialbench.benchmarks.perso.data import load_threads
from socialbench.benchmarks.perso.items import CognitiveItem, Provenance, check_items, default_items, lint, write_items
from socialbench.benchmarks.perso.prompts import QUESTIONS
from socialbench.shared.answers import shuffle_options

AUTHOR = "socialbench developers (hand-written sample; not the paper's items)"
# (thread, persuader reply, OP reply): {dimension: (gold, distractor, distractor, distractor)}
ITEMS: dict[tuple[str, str, str], dict[str, tuple[str, str, str, str]]] = {
    ("cmv:2rppq9", "cni5c2h", "cni5hry"): {
        "belief": (
            "The OP now thinks the answer lies in between: a religion's texts and its followers both shape it.",
            "The OP still holds that only followers, never a religion's texts, can be violent or peaceful.",
            "The OP now thinks a religion's texts alone decide whether the religion is violent.",
            "The OP now thinks the question cannot be answered because violence has too many causes.",
        ),
        "emotion": (
            "Self-critical but open, catching themselves moving the goalposts and ready to concede.",
            "Defensive and irritated, feeling the reply misrepresents what they posted.",
            "Indifferent, finding the reply unremarkable and already addressed.",
            "Triumphant, feeling the reply actually confirms their original view.",
        ),
        "intent": (
            "To admit their either/or framing was wrong and award a delta.",
            "To ask the persuader for examples of religious texts that promote violence.",
            "To restate their original view with more examples of peaceful believers.",
            "To accuse the persuader of cherry-picking scripture to smear religions.",
        ),
    },
    ("cmv:2rppq9", "cnidt3q", "cnifgly"): {
        "belief": (
            "The OP still holds their view and thinks fear of a religion reflects media coverage, not its teachings.",
            "The OP now accepts that some religions have inherent features that make their followers peaceful.",
            "The OP now believes that Islam is inherently more violent than other religions.",
            "The OP thinks the Amish and Jains are peaceful only because their communities are small.",
        ),
        "emotion": (
            "Unpersuaded and mildly dismissive, treating the argument as a product of media-driven fear.",
            "Shaken and uncertain, starting to doubt the view they posted.",
            "Offended at being portrayed as naive about the threat of terrorism.",
            "Amused and playful, joking along with the comparison to the Amish.",
        ),
        "intent": (
            "To argue that the persuader's fear comes from mainstream media rather than from religion itself.",
            "To award a delta for the comparison with the Amish and the Jains.",
            "To ask which religions the persuader considers inherently violent.",
            "To end the discussion by saying they will agree to disagree.",
        ),
    },
    ("cmv:2rnr30", "cni3o83", "cni86cu"): {
        "belief": (
            "The OP now doubts armed civilians would do more good than harm and thinks tasers would serve better.",
            "The OP is now convinced that civilians should not carry weapons of any kind.",
            "The OP still believes armed civilians would have stopped the Paris attack, unchanged by the reply.",
            "The OP now believes that carrying guns raises murder rates, as the cited study shows.",
        ),
        "emotion": (
            "Reflective and appreciative, pleased that the reply led them to a new idea.",
            "Annoyed and dismissive, finding the reply off-topic.",
            "Anxious and fearful about the prospect of more attacks like the one in Paris.",
            "Embarrassed at having posted an uninformed view.",
        ),
        "intent": (
            "To propose tasers instead of guns and award a delta, while questioning the study's correlational logic.",
            "To ask for more statistics on homicide rates in the nineteenth-century American West.",
            "To defend armed civilians with examples of shootings that gun owners stopped.",
            "To withdraw the post entirely and apologize to those who commented.",
        ),
    },
    ("cmv:2rnr30", "cnhp8qw", "cnhpxs5"): {
        "belief": (
            "The OP still thinks responsible armed citizens can handle each scenario, so their view stands.",
            "The OP now thinks widespread carrying would make street robberies far deadlier.",
            "The OP now thinks only the police should be allowed to carry guns.",
            "The OP now believes road-rage incidents would escalate if more drivers were armed.",
        ),
        "emotion": (
            "Calm and self-assured, treating the scenarios as questions with straightforward answers.",
            "Alarmed by the violent scenarios and unsure of their own position.",
            "Insulted by the example of the drug addict.",
            "Grateful and persuaded by the thought experiments.",
        ),
        "intent": (
            "To answer each scenario in turn, explaining how a responsible carrier would act.",
            "To award a delta for the road-rage scenario.",
            "To ask the persuader for crime statistics that back up the scenarios.",
            "To dismiss the scenarios as unrealistic without addressing any of them.",
        ),
    },
    ("cmv:2rnfn0", "cnigfd9", "cnikiea"): {
        "belief": (
            "The OP now thinks explaining causation can hurt in some situations, though they keep their core view.",
            "The OP now agrees that explaining causation is always a form of victim blaming.",
            "The OP still thinks explaining causation is worthwhile in every context, whatever the timing.",
            "The OP now thinks victims' own choices never contribute to what happens to them.",
        ),
        "emotion": (
            "Appreciative and moved by the compassion in the argument.",
            "Guilty and ashamed about having written the original post.",
            "Defensive about being called inexperienced.",
            "Detached, treating the story as an unrelated anecdote.",
        ),
        "intent": (
            "To award a delta and acknowledge they spoke too broadly in their original post.",
            "To ask how the persuader's friend is doing now.",
            "To argue that the friend's story is an exception that proves their point.",
            "To request sources on how often discussing causation harms victims.",
        ),
    },
    ("cmv:2rnfn0", "cnhpzew", "cni1hpw"): {
        "belief": (
            "The OP keeps their view and takes the reply as an interesting side point about rural and urban attitudes.",
            "The OP now thinks safety advice in rural areas is itself a form of victim blaming.",
            "The OP now believes urban attitudes toward victims are right and rural ones wrong.",
            "The OP now doubts that explaining causation is worthwhile at all.",
        ),
        "emotion": (
            "Puzzled at first, then interested and agreeable.",
            "Irritated by the comparison of victims with encounters with wild animals.",
            "Persuaded and grateful enough to change their mind.",
            "Bored and dismissive of the reply.",
        ),
        "intent": (
            "To agree with the rural and urban contrast and add their own experience of growing up rurally.",
            "To award a delta for the point about wild animals.",
            "To ask the persuader to explain how the wild-animal analogy relates to assault.",
            "To argue that people in cities are more self-reliant than people in rural areas.",
        ),
    },
    ("cmv:2rkjr3", "cngqb7p", "cngqrtl"): {
        "belief": (
            "The OP concedes CMV is not a waste of time but holds that awarded deltas say little about its value.",
            "The OP now accepts that most people who post on CMV are well educated.",
            "The OP now thinks the number of deltas awarded proves that CMV changes minds.",
            "The OP rejects the whole reply and keeps every part of their original view.",
        ),
        "emotion": (
            "Partly persuaded but still skeptical, and a little self-critical about their wording.",
            "Embarrassed and apologetic about having insulted the community.",
            "Enthusiastic and fully won over by the reply.",
            "Hostile and insulted by the tone of the reply.",
        ),
        "intent": (
            "To award a delta for the point about wasted time while rebutting the argument about deltas.",
            "To award a delta for every point the reply makes.",
            "To propose new rules for which topics CMV should allow.",
            "To ask the persuader how many deltas they have received.",
        ),
    },
    ("cmv:2rkjr3", "cngrsft", "cngs5g0"): {
        "belief": (
            "The OP keeps their view, holding that the quoted comment is about a different kind of post than theirs.",
            "The OP now agrees that simple posts on unfamiliar topics are what is wrong with CMV.",
            "The OP now thinks that no topic discussed on CMV has a correct answer.",
            "The OP now accepts that changing views on simple topics is worthwhile and drops the criticism.",
        ),
        "emotion": (
            "Unmoved and matter-of-fact, keen to correct a misreading.",
            "Touched by the quoted comment and a little nostalgic.",
            "Angry that the persuader quoted another user instead of arguing.",
            "Doubtful and wavering about their position.",
        ),
        "intent": (
            "To separate the posts they mean, questions with answers readily found, from those the quote describes.",
            "To thank the persuader and award a delta for the saved comment.",
            "To ask the persuader for a link to the original comment.",
            "To concede that both kinds of posts are equally valuable.",
        ),
    },
}


def main() -> None:
    threads = {t.id: t for t in load_threads()}
    items = []
    for (thread_id, reply_id, op_reply_id), by_dimension in ITEMS.items():
        op_reply = threads[thread_id].node(op_reply_id).text
        for dimension, authored in by_dimension.items():
            item_id = f"{thread_id}:{reply_id}:{dimension}"
            # authored gold-first; stored in a seeded order so no position gives it away
            options, gold, _ = shuffle_options(list(authored), 0, item_id, 0)
            items.append(
                CognitiveItem(
                    id=item_id,
                    thread_id=thread_id,
                    reply_id=reply_id,
                    op_reply_id=op_reply_id,
                    dimension=dimension,
                    question=QUESTIONS[dimension],
                    options=options,
                    gold=gold,
                    provenance=Provenance(author=AUTHOR, method="hand-written", created="2026-11-30"),
                    lint=lint(options, gold, op_reply),
                )
            )
    check_items(items, threads, default_items())
    count = write_items(default_items(), items)
    print(f"wrote {count} items to {default_items()}; lint flags: {sum(bool(i.lint) for i in items)}")
    for item in items:
        for flag in item.lint:
            print(f"  {item.id}: {flag}")


if __name__ == "__main__":
    main()
