"""A game's rules for players, ready for a frontend: the markdown and its safe HTML.

The text is :func:`stichzoo.envs.registry.rules_of` (``envs/<game>/rules.md``,
the one source shared with the terminal's ``rules`` command and the docs
site).  The HTML is rendered by markdown-it-py (CommonMark plus tables) with
raw HTML switched off, so any ``<tag>`` in a text comes out escaped and a
page may insert the HTML as it is.
"""

from __future__ import annotations

from functools import cache

from stichzoo.envs.registry import GAMES, display_of, rules_of


def rules_html(markdown: str) -> str:
    """``markdown`` as HTML; raw HTML in it is escaped, never passed through."""
    from markdown_it import MarkdownIt  # with rich (play) and the serve extra

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)


def rules_page(game: str) -> dict[str, str]:
    """``{"game", "title", "markdown", "html"}`` of a known game (``ValueError`` otherwise)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game[:40]!r}; known games: {', '.join(GAMES)}")
    return dict(_page(game))


@cache
def _page(game: str) -> dict[str, str]:
    text = rules_of(game)
    return {"game": game, "title": display_of(game).title, "markdown": text,
            "html": rules_html(text)}


__all__ = ["rules_html", "rules_page"]
