"""A YAML syntax error as one problem, placed where the author has to look.

PyYAML (and libyaml) report two places: where the parser noticed the error (``problem_mark``)
and where the construct it was reading began (``context_mark``). For a construct left open (a
quote, a ``[`` or ``{``, a key without its ``:``) the parser notices only where it gives up,
often the end of the file, so the problem is placed where the construct opened and says where
the parser stopped. For the others (indentation, tabs) the place noticed is the place to fix,
and the construct's start is named in the message: a block mapping's can be the first line of
the file.
"""

from __future__ import annotations

from yaml import MarkedYAMLError
from yaml.error import Mark

from mcp_sim.errors import SpecProblem
from mcp_sim.spec.locations import LINE_BREAK, line_and_column

_BRACKETS = {"sequence": ("[", "]"), "mapping": ("{", "}")}
_DOCUMENT_MARKERS = ("document separator", "document indicator")


def syntax_problem(exc: MarkedYAMLError, text: str, file: str) -> SpecProblem:
    """The problem ``exc`` (from the scanner or the parser) describes in ``text``."""
    context = exc.context or ""
    problem = exc.problem or ""
    noticed = _position(exc.problem_mark or exc.context_mark, text)
    began = _position(exc.context_mark, text) if exc.context_mark else None
    at = f"{noticed[0]}:{noticed[1]}"
    reached = "the end of the file" if _at_end(exc.problem_mark, text) else None
    if began is not None and began != noticed:
        opened = _left_open(context, problem, at, reached)
        if opened is not None:
            return SpecProblem(file, *began, "", f"YAML syntax error: {opened}")
    if _character_at(text, noticed) == "\t":
        reason = "a tab character, where YAML allows only spaces (indent with spaces)"
    elif "mapping values are not allowed" in problem:
        reason = (
            "a ':' where no key can start (is the line indented deeper than the key above it, "
            "or does an unquoted value hold ': '? quote it)"
        )
    elif context.startswith("while parsing a block") and began is not None:
        block = context.removeprefix("while parsing a ")
        reason = (
            f"this line does not fit the {block} begun at {began[0]}:{began[1]} (check its "
            f"indentation; {problem})"
        )
    elif context and began is not None and began != noticed:
        reason = f"{problem} ({context} begun at {began[0]}:{began[1]})"
    else:
        reason = " ".join(x for x in (context, problem) if x)
    return SpecProblem(file, *noticed, "", f"YAML syntax error: {reason}")


def _left_open(context: str, problem: str, at: str, reached: str | None) -> str | None:
    """What was left open, said from where it opened; ``None`` if the error is not that."""
    if "quoted scalar" in context:
        if reached:
            return f"unclosed quoted string (opened here; the parser reached {reached} at {at})"
        if any(marker in problem for marker in _DOCUMENT_MARKERS):
            return f"unclosed quoted string (opened here; the parser reached '---' at {at})"
        return None
    for kind, (opening, closing) in _BRACKETS.items():
        if context == f"while parsing a flow {kind}":
            stopped = f"reached {reached}" if reached else f"expected ',' or '{closing}'"
            return f"unclosed '{opening}' (opened here; the parser {stopped} at {at})"
    if context == "while scanning a simple key":
        return f"a key without its ':' (the key starts here; the parser looked up to {at})"
    return None


def _position(mark: Mark | None, text: str) -> tuple[int, int]:
    """The 1-based line and column of ``mark``; the end of the file is where the text ends
    (libyaml puts it on a line of its own when the last line has no line break)."""
    if mark is None:
        return 1, 1
    if _at_end(mark, text):
        return line_and_column(text, len(text))
    return mark.line + 1, mark.column + 1


def _at_end(mark: Mark | None, text: str) -> bool:
    # By line and column: libyaml counts its index in bytes, not characters.
    return mark is not None and (mark.line + 1, mark.column + 1) >= line_and_column(text, len(text))


def _character_at(text: str, position: tuple[int, int]) -> str:
    lines = LINE_BREAK.split(text)
    line, column = position
    if line > len(lines) or column > len(lines[line - 1]):
        return ""
    return lines[line - 1][column - 1]
