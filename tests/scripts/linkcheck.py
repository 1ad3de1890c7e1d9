"""A small link checker for a built site (standard library only).

Every ``href`` and ``src`` of every HTML page that points inside the site (relative or
site-absolute) must name a file of the site, or a folder with an ``index.html``. External
URLs (a scheme), ``mailto:``, ``data:``, ``javascript:`` and in-page ``#anchors`` are not
followed. The site is checked as served at its root, which is how ``scripts/serve`` and the
browser tests serve it. ``<base>`` is not applied: 404.html and the offline page, served at
any depth, carry the build's site path there and set it when loaded to where the site is
served (the root here), so their links must resolve from the root like any other page's.
"""

from __future__ import annotations

import html.parser
import posixpath
import urllib.parse
from pathlib import Path

LINK_ATTRIBUTES = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src", "iframe": "src"}


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = LINK_ATTRIBUTES.get(tag)
        for name, value in attrs:
            if name == wanted and value is not None:
                self.links.append(value)


def page_links(text: str) -> list[str]:
    """The link targets of one HTML page.

    >>> page_links('<a href="x/">x</a><img src="i.png"><link href="s.css"><p href="no">')
    ['x/', 'i.png', 's.css']
    """
    parser = _Links()
    parser.feed(text)
    return parser.links


def _internal_target(page: str, link: str) -> str | None:
    """The site path ``link`` on the page at ``page`` resolves to, or None when it leaves the site."""
    parts = urllib.parse.urlsplit(link)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    base = "/" + page
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), urllib.parse.unquote(parts.path))) + (
        "/" if parts.path.endswith("/") else "")


def exists(site: Path, target: str) -> bool:
    """True when ``target`` (a site path from the root) is a file, or a folder with index.html."""
    path = site / target.lstrip("/")
    return path.is_file() or (path / "index.html").is_file()


def broken_links(site: Path) -> list[tuple[str, str]]:
    """(page, link) for every internal link of ``site`` whose target is not in it."""
    broken = []
    for file in sorted(site.rglob("*.html")):
        page = file.relative_to(site).as_posix()
        for link in page_links(file.read_text(encoding="utf-8")):
            target = _internal_target(page, link)
            if target is not None and not exists(site, target):
                broken.append((page, link))
    return broken
