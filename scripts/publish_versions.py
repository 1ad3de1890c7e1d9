#!/usr/bin/env python3
"""Publish the site as one version beside the others, as mike lays it out, offline and without git.

Usage::

    SITE_URL=https://host/guide/ scripts/publish_versions.py 0.1.0 --alias latest  # into public/0.1.0/
    scripts/publish_versions.py 0.2.0 --alias latest --out public
    scripts/publish_versions.py --list --out public

A published site names its address in every citation, so ``--site-url`` (or ``SITE_URL``)
is required and must not be local or a placeholder (``example.invalid``).

Each run builds the site once (``mkdocs build --strict``, after ``scripts/build`` has made
the wheel the build hook needs) with ``SITE_VERSION=VERSION``, so every cite URL names the
version's folder, and ``MKDOCS_VERSION_PROVIDER=mike``, which turns on Material's version
selector (mkdocs.yml ``extra.version.provider``; a plain build leaves it off, so no page
fetches ``versions.json``). It then:

* replaces ``OUT/VERSION/`` with the new build; every other version folder is left as it
  was, so old citations keep resolving;
* writes each alias (``latest``) as ``OUT/ALIAS/``: one redirect page per page of the
  version, which keeps the ``#anchor`` (``latest/hardware/catalog/#hardware-catalog`` lands on
  ``0.2.0/hardware/catalog/#hardware-catalog``); an alias moves off any older version;
* updates ``OUT/versions.json`` in mike's format (``[{"version", "title", "aliases"}]``,
  newest first), which the selector reads, and ``OUT/index.html``, a redirect to the
  default (``--default``, ``latest`` unless given).

``--build-command`` replaces the build (the tests use a stub); it receives the target folder
as ``{site_dir}`` and runs in the repository root with the two variables set.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from calculators.tables import site_url_problem  # noqa: E402

VERSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key: numeric parts compare as numbers (``0.10.0`` after ``0.9.1``), others as text.

    >>> sorted(["0.10.0", "0.9.1", "0.2.0"], key=version_key)
    ['0.2.0', '0.9.1', '0.10.0']
    """
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"[.\-_]", version))


def read_versions(out: Path) -> list[dict[str, object]]:
    """The entries of ``OUT/versions.json`` (empty when there is none yet)."""
    path = out / "versions.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of versions")
    return data


def _aliases(entry: dict[str, object]) -> list[str]:
    found = entry.get("aliases", [])
    return [str(alias) for alias in found] if isinstance(found, list) else []


def updated_versions(entries: list[dict[str, object]], *, version: str, title: str,
                     aliases: list[str]) -> list[dict[str, object]]:
    """``entries`` with ``version`` added or replaced and its aliases taken from every other version.

    >>> old = [{"version": "0.1.0", "title": "0.1.0", "aliases": ["latest"]}]
    >>> updated_versions(old, version="0.2.0", title="0.2.0", aliases=["latest"])
    [{'version': '0.2.0', 'title': '0.2.0', 'aliases': ['latest']}, {'version': '0.1.0', 'title': '0.1.0', 'aliases': []}]
    """
    kept = []
    for entry in entries:
        if entry["version"] == version:
            continue
        others = [alias for alias in _aliases(entry) if alias not in aliases]
        kept.append({"version": entry["version"], "title": entry.get("title", entry["version"]), "aliases": others})
    kept.append({"version": version, "title": title, "aliases": list(aliases)})
    return sorted(kept, key=lambda e: version_key(str(e["version"])), reverse=True)


def redirect_page(target: str) -> str:
    """An HTML page that sends the reader to ``target`` (relative), keeping the ``#anchor``; works offline."""
    url = html.escape(target, quote=True)
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Redirecting</title>\n"
            f"<noscript><meta http-equiv=\"refresh\" content=\"0; url={url}\"></noscript>\n"
            f"<script>location.replace({json.dumps(target)} + location.hash)</script>\n"
            f"</head><body><a href=\"{url}\">{url}</a></body></html>\n")


def write_alias(out: Path, alias: str, version: str) -> None:
    """``OUT/ALIAS/``: a redirect page for every HTML page of ``OUT/VERSION/``."""
    folder = out / alias
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    source = out / version
    for page in sorted(source.rglob("*.html")):
        relative = page.relative_to(source)
        depth = len(relative.parts)  # alias/a/b/index.html -> ../../../VERSION/a/b/
        target = "../" * depth + f"{version}/" + relative.as_posix().removesuffix("index.html")
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(redirect_page(target), encoding="utf-8")


def release_site_url(site_url: str | None) -> str:
    """The published address (``--site-url`` or ``SITE_URL``), refused when missing, local or a placeholder."""
    url = (site_url if site_url is not None else os.environ.get("SITE_URL", "")).strip()
    if not url:
        raise ValueError("no site_url: a published build names its address in every citation, canonical link "
                         "and sitemap entry; give --site-url https://your.host/sizing-ml-hardware/ or set SITE_URL")
    problem = site_url_problem(url)
    if problem:
        raise ValueError(f"{problem}; give the address the site is published at (--site-url or SITE_URL)")
    return url


def build(version: str, site_dir: Path, *, command: str | None, site_url: str = "") -> None:
    """Build the site for ``version`` into ``site_dir`` (which must not exist yet)."""
    # MLHW_RELEASE=1: the build hook refuses a local or placeholder site_url too.
    env = dict(os.environ, SITE_VERSION=version, MKDOCS_VERSION_PROVIDER="mike", NO_MKDOCS_2_WARNING="1",
               MLHW_RELEASE="1")
    if site_url:
        env["SITE_URL"] = site_url
    if command:
        args = [part.replace("{site_dir}", str(site_dir)) for part in shlex.split(command)]
    else:
        args = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    result = subprocess.run(args, cwd=REPO, env=env)
    if result.returncode != 0 or not (site_dir / "index.html").is_file():
        raise RuntimeError(f"building version {version} failed (exit status {result.returncode}); nothing was changed")


def publish(version: str, *, out: Path, aliases: list[str], title: str | None = None, default: str | None = None,
            command: str | None = None, site_url: str | None = None) -> list[dict[str, object]]:
    """Build ``version`` into ``OUT/VERSION/`` and update aliases, versions.json and the root redirect."""
    url = release_site_url(site_url)
    for name in (version, *aliases):
        if not VERSION_NAME.fullmatch(name) or name in ("versions.json", "index.html"):
            raise ValueError(f"version or alias {name!r}: use letters, digits, '.', '-' and '_'")
    if version in aliases:
        raise ValueError(f"alias {version!r} is the version itself")
    entries = read_versions(out)
    clash = [alias for alias in aliases for entry in entries if entry["version"] == alias]
    if clash:
        raise ValueError(f"alias {clash[0]!r} is already a published version")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out, prefix=".build-") as scratch:
        staged = Path(scratch) / version
        build(version, staged, command=command, site_url=url)
        target = out / version
        if target.exists():
            shutil.rmtree(target)
        staged.rename(target)
    entries = updated_versions(entries, version=version, title=title or version, aliases=aliases)
    for alias in aliases:
        write_alias(out, alias, version)
    (out / "versions.json").write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    landing = default or ("latest" if any("latest" in _aliases(e) for e in entries) else str(entries[0]["version"]))
    (out / "index.html").write_text(redirect_page(f"{landing}/"), encoding="utf-8")
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("version", nargs="?", help="version to publish, e.g. 0.1.0 (its folder name)")
    parser.add_argument("--alias", action="append", default=[], help="alias moved to this version (repeatable)")
    parser.add_argument("--title", help="title in the version selector (default: the version)")
    parser.add_argument("--default", help="where OUT/index.html sends readers (default: latest, else the newest)")
    parser.add_argument("--out", type=Path, default=REPO / "public", help="folder holding every version")
    parser.add_argument("--site-url", help="the address OUT is published at (default: $SITE_URL); required")
    parser.add_argument("--build-command", help="replaces the mkdocs build; {site_dir} is the target folder")
    parser.add_argument("--list", action="store_true", help="print the published versions and exit")
    args = parser.parse_args(argv)
    if args.list:
        for entry in read_versions(args.out):
            aliases = ", ".join(_aliases(entry))
            print(f"{entry['version']}" + (f" ({aliases})" if aliases else ""))
        return 0
    if not args.version:
        parser.error("give a version to publish, or --list")
    try:
        entries = publish(args.version, out=args.out, aliases=args.alias, title=args.title, default=args.default,
                          command=args.build_command, site_url=args.site_url)
    except (ValueError, RuntimeError) as error:
        print(f"publish_versions: {error}", file=sys.stderr)
        return 2
    print(f"published {args.version} into {args.out / args.version}; versions: "
          + ", ".join(str(e["version"]) for e in entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
