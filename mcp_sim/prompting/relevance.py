"""What a query is about, without a model: content words, overlap, and evidence in a text.

The page store shows the model the known pages a query is about, and the canon tells it the
reference answer of a question a query is about; both need a cheap, deterministic notion of
"about". Content words (lower-cased, stop words dropped, a light suffix strip so that "opening"
meets "open") are enough for the short texts involved: queries, titles, snippets, questions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+(?:[.,:'’-][^\W_]+)*", re.UNICODE)
# A word list reads better as text than as a 120-line literal.
_STOP = frozenset(
    """a about above after again all also am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself just me more
    most my no nor not now of off on once only or other our out over own same she should so
    some such than that the their them then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you
    your yours www http https com html htm wiki page pages index php org net""".split()  # noqa: SIM905
)
_SUFFIXES = ("ings", "ing", "ies", "ed", "s")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def words(text: str) -> list[str]:
    """Every word of ``text`` as written (numbers keep their separators: 1,120 and 06:00)."""
    return _WORD.findall(text)


def terms(text: str) -> set[str]:
    """The content words of ``text``, lower-cased and lightly stemmed."""
    out: set[str] = set()
    for word in words(text.replace("/", " ").replace("_", " ")):
        lowered = word.lower().strip(".,:'’-")
        if lowered and lowered not in _STOP and (len(lowered) > 1 or lowered.isdigit()):
            out.add(_stem(lowered))
    return out


def coverage(query: Iterable[str], subject: Iterable[str]) -> float:
    """The share of ``subject``'s terms that ``query`` has (0 when ``subject`` has none)."""
    wanted = set(subject)
    if not wanted:
        return 0.0
    return len(wanted & set(query)) / len(wanted)


def _is_key(word: str, first: bool) -> bool:
    if any(ch.isdigit() for ch in word):
        return True
    return word[:1].isupper() and not first and word.lower() not in _STOP


def key_evidence(answer: str) -> list[str]:
    """What a text must contain to support ``answer``: its numbers and names (capitalised words
    other than the first), or failing those its content words."""
    found: list[str] = []
    for i, word in enumerate(words(answer)):
        word = word.strip(".,:'’-")
        if word and _is_key(word, i == 0) and word.lower() not in (w.lower() for w in found):
            found.append(word)
    if not found:
        found = sorted(terms(answer))
    return found


def _squash(text: str) -> str:
    # "1,120 m" and "1120 m", "06:00" and "06.00" are the same fact.
    return re.sub(r"(?<=\d)[,.](?=\d{3}\b)", "", text.lower())


def contains_evidence(text: str, evidence: Iterable[str]) -> bool:
    """Whether ``text`` contains every piece of ``evidence`` as whole words (case-insensitive):
    "2" is not found in "2030"."""
    haystack = _squash(text)
    return all(
        re.search(rf"(?<!\w){re.escape(_squash(piece))}(?!\w)", haystack) is not None
        for piece in evidence
    )
