"""Where the site puts a page and a table's data files, and which site addresses a published build accepts.

The docs pages are written under :data:`DOCS_SITE_URL`, a placeholder the site build replaces with the
configured ``site_url`` (``scripts/mkdocs_hooks.py``); :func:`page_url` and :func:`data_path` give a page's
URL and a table's files as MkDocs lays them out (directory URLs). :mod:`calculators.tables` re-exports
these names, where the page generators and the build import them.

>>> page_url("memory/activations.md", site_url="https://example.org/guide/")
'https://example.org/guide/memory/activations/'
"""

from __future__ import annotations

import posixpath
import urllib.parse

#: The site address the committed cite snippets in docs/ are written with
#: (``scripts/gen_tables.py``). It is a placeholder, never published: the site build
#: (``scripts/mkdocs_hooks.py``) rewrites it to the configured ``site_url`` (``SITE_URL``),
#: so the committed pages do not change with the address the site is published at.
DOCS_SITE_URL = "https://example.invalid/sizing-ml-hardware/"


def page_url(src_path: str, *, site_url: str = "") -> str:
    """The URL MkDocs serves a docs page at (directory URLs, MkDocs' default).

    >>> page_url("hardware/index.md", site_url="https://example.org/guide/")
    'https://example.org/guide/hardware/'
    >>> page_url("memory/activations.md", site_url="https://example.org/guide/")
    'https://example.org/guide/memory/activations/'
    >>> page_url("index.md")
    ''
    """
    path = src_path.removesuffix(".md")
    if path == "index" or path.endswith("/index"):
        path = path.removesuffix("index")
    else:
        path += "/"
    return _base(site_url) + path


def data_path(src_path: str, table_id: str, extension: str) -> str:
    """Where a table's data file lives in the site: ``tables/ID.EXT`` in the page's source folder.

    The page links to it as ``tables/ID.EXT``, which MkDocs resolves from the page's source
    file, so the file sits beside the Markdown whatever URL style the site uses.

    >>> data_path("memory/activations.md", "memory-activations-logits", "csv")
    'memory/tables/memory-activations-logits.csv'
    >>> data_path("index.md", "home", "json")
    'tables/home.json'
    """
    return posixpath.join(posixpath.dirname(src_path), "tables", f"{table_id}.{extension}")


def site_url_problem(site_url: str) -> str:
    """Why ``site_url`` cannot be a published site's address, or ``""`` when it can.

    A published build names its real address in every cite snippet, canonical link, JSON
    ``url`` and sitemap entry, so a placeholder (``example.invalid`` or any reserved
    ``.invalid``/``.example``/``.test`` name), a local address or a URL without
    ``http(s)://host`` is refused.

    >>> site_url_problem("https://guide.example.org/sizing-ml-hardware/")
    ''
    >>> site_url_problem(DOCS_SITE_URL)
    "site_url 'https://example.invalid/sizing-ml-hardware/' is a placeholder (host example.invalid)"
    >>> site_url_problem("http://127.0.0.1:8000/")
    "site_url 'http://127.0.0.1:8000/' is a local address (host 127.0.0.1)"
    """
    parts = urllib.parse.urlsplit(site_url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        return f"site_url {site_url!r} is not an http(s) URL with a host"
    if host.rsplit(".", 1)[-1] in ("invalid", "example", "test") or host in ("example.com", "example.net", "example.org"):
        return f"site_url {site_url!r} is a placeholder (host {host})"
    if host in ("localhost", "0.0.0.0", "::1") or host.startswith("127.") or host.endswith(".localhost"):
        return f"site_url {site_url!r} is a local address (host {host})"
    return ""


def _base(site_url: str) -> str:
    return site_url if not site_url or site_url.endswith("/") else site_url + "/"


def versioned_site_url(site_url: str, site_version: str) -> str:
    """``site_url`` with a version folder appended, as ``mike deploy VERSION`` publishes it.

    >>> versioned_site_url("https://example.org/guide/", "0.1.0")
    'https://example.org/guide/0.1.0/'
    >>> versioned_site_url("https://example.org/guide/", "")
    'https://example.org/guide/'
    """
    return _base(site_url) + site_version + "/" if site_version else site_url
