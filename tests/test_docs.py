"""The README and docs/: every relative link resolves, and the README names nothing a user of
the repository does not have."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    # GitHub's anchor rule: lower case, punctuation dropped (letters of any script, digits,
    # '-' and '_' kept), each space a hyphen
    text = heading.strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}


def _links(page: Path):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if not re.match(r"[a-z]+:", target):
            yield target


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(target)
    assert not broken, f"{page.name}: {broken}"


def test_slug_follows_github():
    assert _slug("What the release protects, and what it does not") == \
        "what-the-release-protects-and-what-it-does-not"
    assert _slug("Relational Mondrian on UCI Adult (30,162 rows, 8 quasi-identifiers, k = 5)") == \
        "relational-mondrian-on-uci-adult-30162-rows-8-quasi-identifiers-k--5"
    assert _slug("What `verify` checks") == "what-verify-checks"


def test_readme_starts_with_the_two_commands():
    lines = [l.strip() for l in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()]
    commands = [l for l in lines[:15] if l.startswith("python3 -m venv")]
    assert commands == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install . && rxanon-sql demo",
        'python3 -m venv .venv && . .venv/bin/activate && pip install ".[test]" && pytest -q',
    ]


def test_readme_names_nothing_a_user_lacks():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # files outside the repository, the development notes, tracker numbers, commit hashes
    for pattern in (r"\.\./shared", r"DESIGN\.md", r"\bissue\s*#?\d", r"\b[0-9a-f]{7,40}\b"):
        assert not re.search(pattern, text), pattern


def test_docs_name_no_scratch_files():
    """docs/ is shipped: a figure names the script in benchmarks/ that makes it, not a developer's
    scratch file."""
    named = [p.name for p in (ROOT / "docs").glob("*.md") if "/work/scratch" in p.read_text(encoding="utf-8")]
    assert not named


def test_readme_stays_short():
    """The README is for users and task-first; long material goes to docs/ (issue 35: at most 300 lines)."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300


def test_no_source_file_cites_the_design_notes():
    """Users have docs/, not the development notes: code, SQL, tests and benchmarks cite docs/."""
    cited = [str(p.relative_to(ROOT)) for folder in ("rxanon_sql", "udfs", "sql", "tests", "benchmarks")
             for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".sql")
             and p.name != "test_docs.py" and "DESIGN" + ".md" in p.read_text(encoding="utf-8")]
    assert cited == []


def test_the_architecture_page_is_short_and_names_every_folder():
    """docs/architecture.md is a newcomer's map of the tree: at most 150 lines, naming every folder
    of the packages (`rxanon_sql/cli/`, `udfs/recognizers/`, …) and none that is gone."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    folders = {"sql/"} | {f"{p.parent.relative_to(ROOT).as_posix()}/" for package in ("rxanon_sql", "udfs")
                          for p in (ROOT / package).rglob("__init__.py")}
    named = set(re.findall(r"`([a-z_]+(?:/[a-z_]+)*/)`", text))
    assert folders - named == set(), "folders the page does not name"
    # (a folder named short, `operators/`, is the end of one that exists)
    assert {n for n in named if not any(f == n or f.endswith("/" + n) for f in folders)} == set()
