"""URL: `scheme://…`, `www.…`, and bare `host.tld/path`."""
from __future__ import annotations

import random
import re

from . import register
from ..randomize import keep_span, randomize
from .base import Recognizer, Scan
from .chars import _DOMAIN_LABEL, _TLD, _token_start

# Characters that end a URL: whitespace, angle brackets, double quotes and the CJK full-width
# punctuation that is written without a space after a URL in Chinese/Japanese text.
_URL_BODY = r"[^\s<>\"\u3000-\u303f\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f]"
_URL_SCHEME_TAIL_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]{1,9}\Z")
_URL_SCHEME_RE = re.compile(r"(?<![\w.+\-])[A-Za-z][A-Za-z0-9+.\-]{1,9}://" + _URL_BODY + "+")
_URL_KNOWN_SCHEME_TAIL_RE = re.compile(r"(?i:https?|s?ftps?|wss?)\Z")
_URL_SCHEME_BODY_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]{1,9}://" + _URL_BODY + "+")
# www. without a scheme: require a dotted host after it so "www." alone is not a URL.
_URL_WWW_ANCHORS = ("www", "WWW", "Www")
_URL_WWW_RE = re.compile(
    rf"(?<![\w.@\-/])[wW]{{3}}\d{{0,3}}\.(?:{_DOMAIN_LABEL}\.)*{_DOMAIN_LABEL}\.{_TLD}"
    rf"(?::\d{{1,5}})?(?:[/?#]{_URL_BODY}*)?"
)
# A bare domain only with a path: "end.Next" or "e.g." at a sentence break must not match.
# The TLD must be in one case so "Mr.Smith/Jones" is not taken for a host.
_URL_BARE_RE = re.compile(
    rf"(?<![\w.@\-/:])(?:{_DOMAIN_LABEL}\.)+(?:[a-z]{{2,24}}|[A-Z]{{2,24}}|xn--[a-z0-9\-]{{2,59}})"
    rf"(?::\d{{1,5}})?/{_URL_BODY}*"
)
_MAX_HOST = 260
_URL_TRAILING = ".,;:!?'\"’”‘“»«…。，、！？；：)]}>"
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def _strip_url(text: str, start: int, end: int) -> int:
    """New end of a URL match without trailing sentence punctuation; a closing bracket is kept
    when it balances an opening one inside the URL (Wikipedia-style "Foo_(bar)")."""
    while end > start:
        ch = text[end - 1]
        if ch in _CLOSERS:
            body = text[start:end]
            if body.count(_CLOSERS[ch]) >= body.count(ch):
                break
        elif ch not in _URL_TRAILING:
            break
        end -= 1
    return end



def _url(s: str, rng: random.Random) -> str:
    keep: set[int] = set()
    m = re.match(r"(?i)(?:[a-z][a-z0-9+.-]*://|mailto:)?(?:www\d?\.)?", s)
    keep_span(keep, 0, m.end())
    host_end = next((i for i in range(m.end(), len(s)) if s[i] in "/?#:"), len(s))
    dot = s.rfind(".", m.end(), host_end)
    if dot > m.end():
        keep_span(keep, dot, host_end)
    return randomize(s, rng, keep)


@register
class UrlRecognizer(Recognizer):
    label = "URL"
    priority = 1
    order = 1
    surrogate = staticmethod(_url)

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []

        def add(m: re.Match | None) -> None:
            if m is None:
                return
            start = m.start()
            end = _strip_url(text, start, m.end())
            if text[start:end].endswith(("//", ":/")):
                return   # a bare scheme ("http://") is not an address
            found.append((start, end))

        i = text.find("://")
        while i >= 0:
            # A common scheme starts the URL even when glued to a word ("Visithttps://...");
            # "git+https" and other compound schemes are kept whole.
            known = _URL_KNOWN_SCHEME_TAIL_RE.search(text, max(0, i - 5), i)
            if known and (known.start() == 0 or text[known.start() - 1] not in "+.-"):
                m = _URL_SCHEME_BODY_RE.match(text, known.start())
            else:
                tail = _URL_SCHEME_TAIL_RE.search(text, max(0, i - 10), i)
                m = _URL_SCHEME_RE.match(text, tail.start()) if tail else None
            add(m)
            i = text.find("://", i + 3)
        for anchor in _URL_WWW_ANCHORS:
            i = text.find(anchor)
            while i >= 0:
                add(_URL_WWW_RE.match(text, i))
                i = text.find(anchor, i + 3)
        i = text.find("/")
        while i >= 0:
            if i and text[i - 1] not in "/:" and not any(s <= i < e for s, e in found):
                start = _token_start(text, i, "_.-:", _MAX_HOST)
                add(_URL_BARE_RE.match(text, start) if start is not None and start < i else None)
            i = text.find("/", i + 1)
        return found
