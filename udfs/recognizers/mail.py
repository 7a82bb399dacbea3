"""MAIL: e-mail addresses, internationalised local parts and domains included."""
from __future__ import annotations

import random
import re

from . import register
from ..randomize import keep_span, randomize
from .base import Recognizer, Scan
from .chars import _DOMAIN_LABEL, _TLD, _WORD, _token_start

# Quoted local parts, IP-literal domains and the rarer RFC 5322 symbols (!#$&*=?^`{|}~') are legal
# but practically absent from prose, where they are far more often punctuation next to the
# address ("*a@b.org*", "email=a@b.org").
_LOCAL_CHAR = rf"[{_WORD}%+\-]"
_MAIL_RE = re.compile(
    rf"[{_WORD}]{_LOCAL_CHAR}*(?:\.{_LOCAL_CHAR}+)*"
    rf"@(?:{_DOMAIN_LABEL}\.)+{_TLD}"
    rf"(?![{_WORD}\-@])"
)
_MAX_LOCAL = 64   # RFC 5321 limit on the local part


def _mail(s: str, rng: random.Random) -> str:
    keep: set[int] = set()
    if s.lower().startswith("mailto:"):
        keep_span(keep, 0, 7)
    at = s.rfind("@")
    dot = s.rfind(".")
    if at >= 0 and dot > at:
        keep_span(keep, dot, len(s))  # the top-level domain
    return randomize(s, rng, keep)


@register
class MailRecognizer(Recognizer):
    label = "MAIL"
    priority = 0
    order = 0
    surrogate = staticmethod(_mail)

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        at = text.find("@")
        while at >= 0:
            nxt = at + 1
            start = _token_start(text, at, "_.%+-", _MAX_LOCAL) if at else None
            if start is not None and start < at:
                m = _MAIL_RE.match(text, start)
                if m is None:
                    # The run may start with punctuation ("--a@b.org", "+a@b.org").
                    while start < at and text[start] in ".%+-":
                        start += 1
                    m = _MAIL_RE.match(text, start) if start < at else None
                if m:
                    out.append((m.start(), m.end()))
                    nxt = m.end()
            at = text.find("@", nxt)
        return out
