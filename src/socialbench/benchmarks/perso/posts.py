"""The OP's post as it was when the replies were written (PerSo §3.2: neither task shows what the OP wrote later).

ChangeMyView posts are edited after the discussion: ``EDIT: my view has been changed``, ``Deltas awarded to:``,
``UPDATE 2: ...``. Such text names the winning argument or states the OP's later belief, i.e. the very labels of
both tasks. CMV's moderator footnote (and the submission form's instruction to keep it) is boilerplate, not the
OP's words. The rule, applied to every post before it is shown or measured (docs/perso.md states it):

1. **Footnote.** From CMV's ``Hello, users of CMV!`` footnote (with or without the ``____`` line and the ``>``
   quote) to the end of the post, and the form's sentence ``Please leave the footnote below the following line,
   ...``, are cut.
2. **Edit lines.** A line is an edit marker when, after markdown decoration (``*``, ``#``, ``[``, ``(``, ``-``,
   ``_``, ``~``, ``>``), it starts with ``edit`` / ``edited`` / ``update`` / ``ETA`` / ``addendum``, optionally
   after ``final`` / ``quick`` / ``small`` / ``minor`` / ``late``, optionally numbered (``Edit 2``, ``EDIT_1``,
   ``Edit #3``), and followed by a delimiter (``:`` ``-`` ``.`` ``!`` ``*`` ``)`` ``]`` ``=`` or the line's end)
   -- case-insensitive. A line that reports a delta (``∆``, ``Δ``, ``&#8710;``, ``!delta``, ``deltas awarded``,
   ``Deltas:``, ``delta to /u/x``) or a changed view naming a user (``/u/x has changed my view``) is one too.
   A delta promised before the discussion ("Deltas will be awarded to anyone who shows me a study.") is the
   original post, not a marker.
3. **Where the section ends.** A marker line after the post's body starts a section that runs to the end of the
   post (edits are appended: ``Edit 2``, lists and follow-ups that belong to it come after). A marker line
   before any body (an edit put at the top) removes only its own paragraph, so the body after it stays. A
   paragraph set in emphasis from its first character to its last with the note inside it (``**EDIT: I mean a
   disclaimer, not a ban.**``, an edit inserted mid-post) removes only itself, so the original paragraphs after
   it stay; a heading alone (``**EDIT:**``) starts an appended section.
   **Posts without line breaks** (releases that store each post on one line): the footnote is found inside the
   line; each sentence, and each edit marker inside a sentence run ("... -CMV [EDIT]: To clarify"), stands for a
   line and a paragraph; a note set in emphasis is cut where its emphasis ends. Nothing says where an edit at the
   top of such a post ends: its first sentence is cut, and every later marker in the post removes its own
   sentence only, so the body after it is never deleted (the edit's other sentences may stay). Each such post is
   counted (``one_line``). Measured on the 609 shipped posts (`tests/test_perso.py`): their one-line variants show
   the same text as the originals, up to whitespace and layout marks, for 588; the others are the 16 posts with an
   edit at the top (the one-line variant shows more of the edit, never less of the body) and 5 inline-edit edge
   cases. **Posts whose line breaks became runs of spaces** (a title, then one paragraph with double spaces where
   the breaks were): each run of spaces is read as a paragraph break and the rules above apply (counted as
   ``flattened``). Their flattened variants show the original's text for 608 of the 609 shipped posts; the other
   (cmv:2rd7mg, "**Was view changed?**", a heading whose section follows on the next line) shows that section.
4. **Inline.** ``(edit: ...)`` / ``[update: ...]`` and parentheses that report a delta are cut; an ``EDIT:``
   that follows a sentence inside a line cuts the rest of that line, as does any sentence inside a line that is a
   marker by rule 2 ("Change my view.  Edit: ... so I gave a delta."), and a statement of the outcome wherever it
   sits ("VIEW CHANGED", "you've certainly changed my view"). Struck-through text (``~~...~~``) was
   struck later: the strike marks are removed and the text kept, as the persuaders read it.
5. **The body is never deleted.** If these rules would leave nothing but the title, only the marker paragraphs
   are removed (counted as ``fallbacks``).

`clean` returns the text and what it removed; `PostCleaning` counts it over a run (recorded in the task's
metadata, printed by the summary).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

_FOOTNOTE = re.compile(r"(?:\s*_{3,})?\s*(?:>|&gt;)?[ \t]*\*?Hello,? users of CMV!.*\Z", re.S | re.I)
"""From the moderators' footnote to the end, with the ``____`` rule and the ``>`` quote before it: on its own line
or, in a release that stores each post on one line, inside it."""
_FORM_SENTENCE = re.compile(
    r"[ \t]*Please leave the footnote below the following line(?:[^\n.!]*[.!])?(?:[ \t]*Thank you!)?[ \t]*\n?", re.I
)
_RULE_LINE = re.compile(r"(?:\n|(?<=\s)|^)[ \t]*_{3,}[ \t]*\Z")
_DECORATION = r"[\s*#\[\(\-_~>=]*"
_EDIT_WORD = r"(?:[a-z]{2,10}\s+)?(?:edit(?:ed)?|update[ds]?|eta|addendum)"
_NUMBER = r"(?:[\s_#]*\d+)?"
_DELIM = r"\s*(?:[:\-–—.!*)\]=]|$)"
_EDIT_LINE = re.compile(
    rf"^{_DECORATION}(?:{_EDIT_WORD}{_NUMBER}{_DELIM}|edited\s+(?:to|for|post|because|with|in)\b|edits? in \w+\W*$)",
    re.I,
)
_DELTA_LINE = re.compile(
    r"[∆Δ]|&#8710;|!delta\b"
    r"|\bdelta(?:'?s)?\b[^\n]{0,40}?\b(?:awarded|given)\b"
    r"|\b(?:awarded|gave|given|giving out|here is|here's)\b[^\n]{0,30}?\bdelta"
    r"|^\W*(?:partial\s+)?deltas?(?:'?s)?\s*(?:awarded|to\b|for\b|:)"
    r"|\bdeltas?\s+(?:to|for)\s+/?u/"
    r"|/?u/[\w-]+[^\n]{0,60}?\bchanged my (?:view|mind)",
    re.I,
)
_OUTCOME = re.compile(r"\bVIEW\s+CHANGED\b|(?i:\byou(?:'ve|\s+have)\s+(?:\w+\s+)?changed\s+my\s+(?:view|mind)\b)")
"""A statement of the outcome wherever it sits in a line: "VIEW CHANGED" in capitals, "you've certainly changed my
view" (the OP's view before the discussion is never stated as changed by "you")."""
_VIEW_CHANGED_LINE = re.compile(
    r"^\W*(?:(?:ok|okay|so|alright|yes|update)\W+)?(?:was\s+)?(?:my\s+)?view(?:'s)?\s+(?:(?:is|has|was)\s+)?(?:been\s+)?"
    r"(?:\w+\s+)?changed\b",
    re.I,
)
_INLINE_PAREN = re.compile(
    rf"\s*[\(\[]\s*(?:{_EDIT_WORD}{_NUMBER}\s*[:\-–—][^\)\]\n]*"
    r"|[^\)\]\n]*\bdelta(?:s)? (?:awarded|given)[^\)\]\n]*)[\)\]]",
    re.I,
)
_INLINE_EDIT = re.compile(rf"(?<=[.!?)\"'*])[ \t]+\**{_EDIT_WORD}{_NUMBER}\s*[:\-–—]", re.I)
_INLINE_EMPHASISED_EDIT = re.compile(
    rf"[ \t]*(?<![*\w])(\*{{1,2}}){_EDIT_WORD}{_NUMBER}\s*[:\-–—][^*\n]*[^*\s][^*\n]*\1(?!\*)", re.I
)
_FLATTENED_BREAK = re.compile(r"[ \t]{2,}")
"""Where a post whose line breaks were flattened had one: a run of spaces. (A double space typed inside a sentence
only splits it into two pieces of body.)"""
_HORIZONTAL_RULE = re.compile(r"^\s*(?:[_\-*]\s*){3,}$")
_STRIKE = re.compile(r"~~(.+?)~~", re.S)


_PROMISED_DELTA = re.compile(
    r"\b(?:will|would|shall|'ll|happy to|glad to|going to|to be|may|might|can)\b[^\n.!?]{0,25}?"
    r"\b(?:award(?:ed)?|give|given|hand(?:ed)? out)\b",
    re.I,
)
"""A delta promised before the discussion ("Deltas will be awarded to anyone who shows me a study.") is the
original post, not a report that a view changed."""


def marker_line(line: str) -> bool:
    """Is this line the start of something the OP wrote after the discussion (an edit, a delta, a changed view)?"""
    stripped = line.strip()
    if not stripped:
        return False
    if _EDIT_LINE.match(stripped) or _VIEW_CHANGED_LINE.match(stripped) or _OUTCOME.search(stripped):
        return True
    return bool(_DELTA_LINE.search(stripped)) and not _PROMISED_DELTA.search(stripped)


_WRAPPED = re.compile(r"^\s*(\*{1,3})(?P<inner>[^*]+)\1\s*$")
_MARKER_WORD = re.compile(rf"^\W*{_EDIT_WORD}{_NUMBER}\W*", re.I)


def _marker_at(line: str) -> int | None:
    """Where the first marker of ``line`` starts when the line is read sentence by sentence: 0 when the line opens
    with one (``HUGE EDIT:`` whole), the offset of a later sentence (or of an edit marker after a sentence) that is
    one, None when no sentence is. A paragraph whose line breaks were flattened ("Cars make downtown loud. ...
    Edit: I gave a delta.") is then cut at its marker, not deleted whole."""
    stripped = line.strip()
    if _EDIT_LINE.match(stripped) or _VIEW_CHANGED_LINE.match(stripped):
        return 0
    breaks = {m.end(1) for m in _SENTENCE_END.finditer(line)} | {m.start("m") for m in _ONE_LINE_MARKER.finditer(line)}
    starts = sorted({0, *breaks})
    for start, end in zip(starts, [*starts[1:], len(line)], strict=True):
        if marker_line(line[start:end]):
            return start
    return None


def _self_contained(paragraph: str) -> bool:
    """A paragraph set in emphasis from its first character to its last, with the note inside it: an edit inserted
    as a whole (placed mid-post, "*Edit: ... should have read:*"), which ends where its emphasis ends. A heading
    alone ("**EDIT:**") is not: its edit follows it."""
    wrapped = _WRAPPED.match(paragraph)
    return wrapped is not None and len(_MARKER_WORD.sub("", wrapped["inner"]).split()) >= 3


@dataclass(frozen=True)
class Cleaned:
    text: str
    edits: tuple[str, ...] = ()
    """The removed edit sections, in order (inline ones included)."""
    footnote: bool = False
    struck: int = 0
    fallback: bool = False
    one_line: bool = False
    """The post had no line breaks: it was cut at sentence level (an edit at its top loses its first sentence only,
    as no paragraph says where the edit ends)."""
    flattened: bool = False
    """The post's line breaks were flattened to runs of spaces: each run was read as a paragraph break."""

    @property
    def edited(self) -> bool:
        return bool(self.edits)

    def record(self) -> dict[str, int | bool]:
        """What was removed, for a sample's metadata (`PostCleaning.of_records` adds them up over a log)."""
        return {
            "edits": len(self.edits),
            "edit_characters": sum(len(e) for e in self.edits),
            "footnote": self.footnote,
            "struck": self.struck,
            "fallback": self.fallback,
            "one_line": self.one_line,
            "flattened": self.flattened,
        }


def _split_title(text: str, title: str | None) -> tuple[str, str]:
    if title and text.startswith(title):
        return text[: len(title)], text[len(title) :]
    return "", text


def _paragraph_end(lines: list[str], start: int) -> int:
    """The index after the paragraph that starts at ``start`` (a blank line or a horizontal rule ends it)."""
    end = start + 1
    while end < len(lines) and lines[end].strip() and not _HORIZONTAL_RULE.match(lines[end]):
        end += 1
    return end


def _sections(lines: list[str], one_line: bool = False) -> tuple[list[str], list[str]]:
    """(kept lines, removed sections). ``one_line``: the lines are the sentences of a post without line breaks,
    where no paragraph says where an edit at the top ends: once the post opened with an edit, every later marker
    removes its own sentence only, so a marker inside that edit never takes the body after it."""
    kept: list[str] = []
    removed: list[str] = []
    body_seen = removed_at_top = False
    i = 0
    while i < len(lines):
        line = lines[i]
        at = _marker_at(line) if marker_line(line) else None
        if marker_line(line) and not at:  # the line starts with its marker (or no sentence alone is one)
            end = _paragraph_end(lines, i)
            paragraph = "\n".join(lines[i:end])
            appended = not (one_line and removed and removed_at_top)
            if body_seen and appended and not _self_contained(paragraph):  # an appended edit: to the end of the post
                removed.append("\n".join(lines[i:]).strip())
                break
            removed.append(paragraph.strip())  # at the top, or a note set in emphasis: only its own paragraph
            removed_at_top = removed_at_top or not body_seen
            i = end
            continue
        emphasised = _INLINE_EMPHASISED_EDIT.search(line)
        if emphasised:
            removed.append(emphasised.group(0).strip())
            line = line[: emphasised.start()] + line[emphasised.end() :]
        if marker_line(line) and (at := _marker_at(line)):  # a marker after sentences of the body: the rest of the line
            removed.append(line[at:].strip())
            line = line[:at].rstrip()
        inline = _INLINE_EDIT.search(line)
        if inline:
            removed.append(line[inline.start() :].strip())
            line = line[: inline.start()].rstrip()
        if line.strip():
            body_seen = True
        kept.append(line)
        i += 1
    return kept, removed


def _paragraphs_only(lines: list[str]) -> tuple[list[str], list[str]]:
    kept: list[str] = []
    removed: list[str] = []
    i = 0
    while i < len(lines):
        if marker_line(lines[i]):
            end = _paragraph_end(lines, i)
            removed.append("\n".join(lines[i:end]).strip())
            i = end
        else:
            kept.append(lines[i])
            i += 1
    return kept, removed


def _tidy(text: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", text).strip()


_SENTENCE_END = re.compile(r"[.!?][\"')\]*_]*(\s+)(?=\S)")


def _sentences(text: str) -> list[str]:
    """``text`` split at the whitespace after a sentence end (closing quotes, brackets and emphasis stay with it)."""
    out, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        out.append(text[start : match.start(1)])
        start = match.end(1)
    return [*out, text[start:]]


_ONE_LINE_MARKER = re.compile(
    r"\s+(?P<m>[\[(*_#~>\-]*(?:(?:final|quick|small|minor|late|big|huge|another|last|important|short|major)\s+)?"
    rf"(?:edit(?:ed)?|update[ds]?|eta|addendum){_NUMBER}[\])*_\-]*\s*[:\-–—!*)\]=])",
    re.I,
)
"""Where an edit marker starts inside a one-line post (its line break was lost): "... -CMV [EDIT]: To clarify"."""


def _sentence_paragraphs(body: str) -> list[str]:
    """A one-line body as lines: each sentence, and each edit marker that follows a sentence, on its own line,
    with blank lines between (each its own paragraph): markers are then found where they start, and an edit at the
    top removes its own sentence rather than the whole post."""
    body = _ONE_LINE_MARKER.sub(lambda m: "\n" + m["m"], body)  # the marker consumed: "Quick edit:" stays whole
    sentences = [p for chunk in body.split("\n") for p in _sentences(chunk.strip()) if p.strip()]
    out: list[str] = []
    for sentence in sentences:
        out += [sentence, ""]
    return out[:-1]


def clean(text: str, title: str | None = None) -> Cleaned:
    """The post without the OP's later edits and the moderator footnote (the rule is in this module's doc)."""
    without_footnote = _FOOTNOTE.sub("", text)
    without_footnote = _FORM_SENTENCE.sub("", without_footnote)
    without_footnote = _RULE_LINE.sub("", without_footnote.rstrip())
    footnote = without_footnote != text.rstrip()
    head, body = _split_title(without_footnote, title)
    edits: list[str] = []

    def cut_inline(match: re.Match[str]) -> str:
        edits.append(match.group(0).strip())
        return ""

    body = _INLINE_PAREN.sub(cut_inline, body)
    struck = len(_STRIKE.findall(body))
    body = _STRIKE.sub(r"\1", body)
    # A body without line breaks: the whole post on one line, or a title then a body whose breaks were flattened.
    # Where runs of spaces are left where the breaks were (as some releases store posts), each run is read as a
    # paragraph break when that finds an edit to cut; otherwise sentences stand for lines and paragraphs, for a
    # one-line post and for a flat body that would lose every line. Nothing says where an edit in it ends.
    stripped = body.strip()
    flat = bool(stripped) and "\n" not in stripped
    one_line = flat and "\n" not in text.strip()
    flattened = False
    lines = body.split("\n")
    kept, removed = _sections(lines)
    if flat and _FLATTENED_BREAK.search(stripped):
        pieces = "\n\n".join(_FLATTENED_BREAK.split(stripped)).split("\n")
        kept_pieces, removed_pieces = _sections(pieces)
        if removed_pieces:
            lines, kept, removed, flattened, one_line = pieces, kept_pieces, removed_pieces, True, False
    if not flattened and (one_line or (flat and removed and not "\n".join(kept).strip())):
        lines = _sentence_paragraphs(_INLINE_EMPHASISED_EDIT.sub(cut_inline, stripped))  # emphasis spans sentences
        kept, removed = _sections(lines, True)
        one_line = True
    fallback = False
    if removed and not "\n".join(kept).strip() and any(line.strip() and not marker_line(line) for line in lines):
        kept, removed = _paragraphs_only(lines)
        fallback = True
        if not "\n".join(kept).strip():  # still nothing: keep the body whole rather than lose it
            kept, removed = lines, []
    edits += removed
    lead = body[: len(body) - len(body.lstrip())]  # between the title and the body
    shown = " ".join(k for k in kept if k) if one_line else "  ".join(k for k in kept if k) if flattened else ""
    joined = one_line or flattened
    cleaned = _tidy(
        head
        + (("\n\n" if "\n\n" in lead else "\n") if joined and head else "")
        + (shown if joined else "\n".join(kept))
    )
    return Cleaned(cleaned, tuple(e for e in edits if e), footnote, struck, fallback, one_line, flattened)


def clean_post(text: str, title: str | None = None) -> str:
    return clean(text, title).text


@dataclass
class PostCleaning:
    """What the rule removed over the posts a run shows (each post counted once)."""

    posts: int = 0
    edited_posts: int = 0
    edit_sections: int = 0
    edit_characters: int = 0
    footnotes: int = 0
    struck: int = 0
    fallbacks: int = 0
    one_line: int = 0
    flattened: int = 0
    examples: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, posts: Iterable[tuple[str, str, str | None]]) -> PostCleaning:
        """Over ``(post id, text, title)``; a post id seen twice counts once."""
        results = {post_id: clean(text, title) for post_id, text, title in posts}
        out = cls.of_records({post_id: r.record() for post_id, r in results.items()})
        out.examples = [f"{k}: {r.edits[0][:80]}" for k, r in results.items() if r.edited][:3]
        return out

    @classmethod
    def of_records(cls, records: Mapping[str, Mapping[str, Any]]) -> PostCleaning:
        """Over the per-post records of `Cleaned.record`, keyed by post (thread) id."""
        out = cls(posts=len(records))
        for record in records.values():
            out.edited_posts += bool(record.get("edits"))
            out.edit_sections += int(record.get("edits", 0))
            out.edit_characters += int(record.get("edit_characters", 0))
            out.footnotes += bool(record.get("footnote"))
            out.struck += int(record.get("struck", 0))
            out.fallbacks += bool(record.get("fallback"))
            out.one_line += bool(record.get("one_line"))
            out.flattened += bool(record.get("flattened"))
        return out

    def line(self) -> str:
        return (
            f"OP's later edits removed from {self.edited_posts} of {self.posts} posts ({self.edit_sections} sections, "
            f"{self.edit_characters} characters), moderator footnote from {self.footnotes}"
            + (f", strike marks from {self.struck}" if self.struck else "")
            + (f"; {self.fallbacks} posts kept their body by removing marker paragraphs only" if self.fallbacks else "")
            + (f"; {self.one_line} posts without line breaks cut at sentence level" if self.one_line else "")
            + (f"; {self.flattened} posts whose line breaks were runs of spaces cut there" if self.flattened else "")
            + " (rule: docs/perso.md)"
        )
