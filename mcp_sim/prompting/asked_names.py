"""The names an answer gives a statistic its tool's description asks for (see
:mod:`mcp_sim.prompting.summary_asked`): made of the tool's own words, then of the field's.

"Largest weight" is answered as ``max_weight`` or ``largest_weight``; an operation the
description lists alone ("count, min, max and mean of a reading") as its word alone
(``min``): its one plain name, never one made of the words around it.
"""

from __future__ import annotations

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.summary_names import BEFORE, join, plural, spelled, words

_NAMED_OP = {"sum": "total", "max": "max", "min": "min", "mean": "mean", "values": "values"}


def asked_names(
    op: str, said: str, words_said: tuple[str, ...], field: str, style: str
) -> list[str]:
    """The names of operation ``op`` (written ``said``) over the field ``field`` that
    ``words_said`` name: the operation's word on the tool's words (``max_weight``,
    ``largest_weight``), and on the words of them the field's own name holds
    (``lowest_economy`` for "lowest economy fare" over a cabin's ``economy``)."""
    phrase = list(words_said)
    own = set(tokens(field))
    shared = [w for w in phrase if set(tokens(w)) & own]
    squeezed = ["".join(w.replace("-", "") for w in phrase)]
    if op == "values":
        last = [*phrase[:-1], plural(phrase[-1])]
        return list(
            dict.fromkeys(
                [
                    join([*phrase, "values"], style),
                    join(last, style),
                    join(["distinct", *last], style),
                ]
            )
        )
    plain = _NAMED_OP[op]
    if not phrase:
        # The tool's word for it, then the operation's plain name: the answer's own.
        return list(dict.fromkeys([spelled(said, style), spelled(plain, style)]))
    names = [join([plain, *phrase], style), join([said, *phrase], style)]
    names += [join([said, *squeezed], style), join([*phrase, plain], style)]
    if op == "mean":
        names.insert(1, join(["avg", *phrase], style))
    if op == "sum":
        names.append(join(phrase, style))  # "total bytes" answered as ``bytes``
    if shared and shared != phrase:
        names += [join([plain, *shared], style), join([said, *shared], style)]
    # Then the field's own name and its last word (``highestKm`` over ``odometerKm``), and
    # its first word, the measure, before the operation (``temperatur_min`` over
    # ``temperatur_c``).
    for part in dict.fromkeys([field, words(field)[-1]]) if words(field) else ():
        names += [join([plain, part], style), join([said, part], style)]
    if len(words(field)) > 1:
        names.append(join([words(field)[0], plain], style))
    # Last, the operation's other common words (``top_grade`` for "highest grade").
    names += [join([w, *phrase], style) for w in BEFORE.get(op, ())]
    return list(dict.fromkeys(n for n in names if n))
