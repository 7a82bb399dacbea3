"""Rule-based recognizers of sensitive terms in free text.

Complements the statistical NER (spaCy) with identifiers that have a rigid shape: e-mail
addresses, URLs, phone numbers, IBANs, payment cards, US social security numbers, IP
addresses and postcodes, plus user-supplied term lists and regular expressions.

Checksums and numbering plans are delegated to maintained libraries (``phonenumbers``,
``python-stdnum``, ``ipaddress``) rather than re-implemented, because their metadata changes
(new number ranges, new IBAN countries) and a stale copy would silently miss identifiers.

Every offset refers to the text exactly as given: the text is never normalised here, because the
caller replaces the spans in the string it passed and a shifted offset would leak or corrupt it.
(`ner.Recognizer` passes the text cleaned of glue characters and maps the spans back itself.)
"""
from __future__ import annotations

import bisect
import functools
import ipaddress
import re
import unicodedata
from dataclasses import dataclass

import phonenumbers
from stdnum import iban as _iban
from stdnum import luhn as _luhn

__all__ = ["Span", "RuleRecognizer", "is_vague_temporal"]


@dataclass(frozen=True, order=True)
class Span:
    start: int      # character offset (Python str index) into the ORIGINAL text
    end: int        # exclusive
    term: str       # == text[start:end]
    label: str
    source: str     # "rule" for recognizers, "list" for term-list hits, "pattern" for user regex patterns


# Combining marks (Unicode categories Mn, Mc, Me). Python's \w excludes them, so without this a
# decomposed "José" (e + U+0301) or an Arabic/Indic word with vowel signs would look like two words
# and a term or e-mail boundary could fall in the middle of a letter. Generated from unicodedata
# 14.0 (Python 3.11); a mark added in a later Unicode version only weakens a boundary check.
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1-\u05c2\u05c4-\u05c5\u05c7"
    "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7-\u06e8\u06ea-\u06ed"
    "\u0711\u0730-\u074a\u07a6-\u07b0\u07eb-\u07f3\u07fd\u0816-\u0819\u081b-\u0823"
    "\u0825-\u0827\u0829-\u082d\u0859-\u085b\u0898-\u089f\u08ca-\u08e1\u08e3-\u0903"
    "\u093a-\u093c\u093e-\u094f\u0951-\u0957\u0962-\u0963\u0981-\u0983\u09bc\u09be-\u09c4"
    "\u09c7-\u09c8\u09cb-\u09cd\u09d7\u09e2-\u09e3\u09fe\u0a01-\u0a03\u0a3c\u0a3e-\u0a42"
    "\u0a47-\u0a48\u0a4b-\u0a4d\u0a51\u0a70-\u0a71\u0a75\u0a81-\u0a83\u0abc\u0abe-\u0ac5"
    "\u0ac7-\u0ac9\u0acb-\u0acd\u0ae2-\u0ae3\u0afa-\u0aff\u0b01-\u0b03\u0b3c\u0b3e-\u0b44"
    "\u0b47-\u0b48\u0b4b-\u0b4d\u0b55-\u0b57\u0b62-\u0b63\u0b82\u0bbe-\u0bc2\u0bc6-\u0bc8"
    "\u0bca-\u0bcd\u0bd7\u0c00-\u0c04\u0c3c\u0c3e-\u0c44\u0c46-\u0c48\u0c4a-\u0c4d"
    "\u0c55-\u0c56\u0c62-\u0c63\u0c81-\u0c83\u0cbc\u0cbe-\u0cc4\u0cc6-\u0cc8\u0cca-\u0ccd"
    "\u0cd5-\u0cd6\u0ce2-\u0ce3\u0d00-\u0d03\u0d3b-\u0d3c\u0d3e-\u0d44\u0d46-\u0d48"
    "\u0d4a-\u0d4d\u0d57\u0d62-\u0d63\u0d81-\u0d83\u0dca\u0dcf-\u0dd4\u0dd6\u0dd8-\u0ddf"
    "\u0df2-\u0df3\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd"
    "\u0f18-\u0f19\u0f35\u0f37\u0f39\u0f3e-\u0f3f\u0f71-\u0f84\u0f86-\u0f87\u0f8d-\u0f97"
    "\u0f99-\u0fbc\u0fc6\u102b-\u103e\u1056-\u1059\u105e-\u1060\u1062-\u1064\u1067-\u106d"
    "\u1071-\u1074\u1082-\u108d\u108f\u109a-\u109d\u135d-\u135f\u1712-\u1715\u1732-\u1734"
    "\u1752-\u1753\u1772-\u1773\u17b4-\u17d3\u17dd\u180b-\u180d\u180f\u1885-\u1886\u18a9"
    "\u1920-\u192b\u1930-\u193b\u1a17-\u1a1b\u1a55-\u1a5e\u1a60-\u1a7c\u1a7f\u1ab0-\u1ace"
    "\u1b00-\u1b04\u1b34-\u1b44\u1b6b-\u1b73\u1b80-\u1b82\u1ba1-\u1bad\u1be6-\u1bf3"
    "\u1c24-\u1c37\u1cd0-\u1cd2\u1cd4-\u1ce8\u1ced\u1cf4\u1cf7-\u1cf9\u1dc0-\u1dff"
    "\u20d0-\u20f0\u2cef-\u2cf1\u2d7f\u2de0-\u2dff\u302a-\u302f\u3099-\u309a\ua66f-\ua672"
    "\ua674-\ua67d\ua69e-\ua69f\ua6f0-\ua6f1\ua802\ua806\ua80b\ua823-\ua827\ua82c"
    "\ua880-\ua881\ua8b4-\ua8c5\ua8e0-\ua8f1\ua8ff\ua926-\ua92d\ua947-\ua953\ua980-\ua983"
    "\ua9b3-\ua9c0\ua9e5\uaa29-\uaa36\uaa43\uaa4c-\uaa4d\uaa7b-\uaa7d\uaab0\uaab2-\uaab4"
    "\uaab7-\uaab8\uaabe-\uaabf\uaac1\uaaeb-\uaaef\uaaf5-\uaaf6\uabe3-\uabea\uabec-\uabed"
    "\ufb1e\ufe00-\ufe0f\ufe20-\ufe2f\U000101fd\U000102e0\U00010376-\U0001037a"
    "\U00010a01-\U00010a03\U00010a05-\U00010a06\U00010a0c-\U00010a0f\U00010a38-\U00010a3a"
    "\U00010a3f\U00010ae5-\U00010ae6\U00010d24-\U00010d27\U00010eab-\U00010eac"
    "\U00010f46-\U00010f50\U00010f82-\U00010f85\U00011000-\U00011002\U00011038-\U00011046"
    "\U00011070\U00011073-\U00011074\U0001107f-\U00011082\U000110b0-\U000110ba\U000110c2"
    "\U00011100-\U00011102\U00011127-\U00011134\U00011145-\U00011146\U00011173"
    "\U00011180-\U00011182\U000111b3-\U000111c0\U000111c9-\U000111cc\U000111ce-\U000111cf"
    "\U0001122c-\U00011237\U0001123e\U000112df-\U000112ea\U00011300-\U00011303"
    "\U0001133b-\U0001133c\U0001133e-\U00011344\U00011347-\U00011348\U0001134b-\U0001134d"
    "\U00011357\U00011362-\U00011363\U00011366-\U0001136c\U00011370-\U00011374"
    "\U00011435-\U00011446\U0001145e\U000114b0-\U000114c3\U000115af-\U000115b5"
    "\U000115b8-\U000115c0\U000115dc-\U000115dd\U00011630-\U00011640\U000116ab-\U000116b7"
    "\U0001171d-\U0001172b\U0001182c-\U0001183a\U00011930-\U00011935\U00011937-\U00011938"
    "\U0001193b-\U0001193e\U00011940\U00011942-\U00011943\U000119d1-\U000119d7"
    "\U000119da-\U000119e0\U000119e4\U00011a01-\U00011a0a\U00011a33-\U00011a39"
    "\U00011a3b-\U00011a3e\U00011a47\U00011a51-\U00011a5b\U00011a8a-\U00011a99"
    "\U00011c2f-\U00011c36\U00011c38-\U00011c3f\U00011c92-\U00011ca7\U00011ca9-\U00011cb6"
    "\U00011d31-\U00011d36\U00011d3a\U00011d3c-\U00011d3d\U00011d3f-\U00011d45\U00011d47"
    "\U00011d8a-\U00011d8e\U00011d90-\U00011d91\U00011d93-\U00011d97\U00011ef3-\U00011ef6"
    "\U00016af0-\U00016af4\U00016b30-\U00016b36\U00016f4f\U00016f51-\U00016f87"
    "\U00016f8f-\U00016f92\U00016fe4\U00016ff0-\U00016ff1\U0001bc9d-\U0001bc9e"
    "\U0001cf00-\U0001cf2d\U0001cf30-\U0001cf46\U0001d165-\U0001d169\U0001d16d-\U0001d172"
    "\U0001d17b-\U0001d182\U0001d185-\U0001d18b\U0001d1aa-\U0001d1ad\U0001d242-\U0001d244"
    "\U0001da00-\U0001da36\U0001da3b-\U0001da6c\U0001da75\U0001da84\U0001da9b-\U0001da9f"
    "\U0001daa1-\U0001daaf\U0001e000-\U0001e006\U0001e008-\U0001e018\U0001e01b-\U0001e021"
    "\U0001e023-\U0001e024\U0001e026-\U0001e02a\U0001e130-\U0001e136\U0001e2ae"
    "\U0001e2ec-\U0001e2ef\U0001e8d0-\U0001e8d6\U0001e944-\U0001e94a\U000e0100-\U000e01ef"
)
# A "word character" for boundary checks: \w plus combining marks plus the zero-width (non-)joiners
# that Persian and Indic scripts use inside words.
_WORD = r"\w" + _MARKS + "\u200c\u200d"
_NOT_WORD_AFTER = f"(?![{_WORD}])"

# Recognizer order doubles as the tie-break priority for equally long overlapping spans.
RULE_LABELS = ("MAIL", "URL", "IBAN", "CARD", "SSN", "PHONE", "IP", "POSTCODE", "DATE")
_PRIORITY = {label: i for i, label in enumerate(RULE_LABELS)}

# Python's regex engine only skips quickly through text when a pattern starts with a literal or
# a plain character class; a leading look-behind or a broad class like \w costs ~25 us per 1,000
# characters per pattern. Hence the recognizers below are run only at cheap anchors ("@", "://",
# "/", "www", digit runs) instead of over the whole text.

# --- MAIL -------------------------------------------------------------------------------------
# Quoted local parts, IP-literal domains and the rarer RFC 5322 symbols (!#$&*=?^`{|}~') are legal
# but practically absent from prose, where they are far more often punctuation next to the
# address ("*a@b.org*", "email=a@b.org").
_LOCAL_CHAR = rf"[{_WORD}%+\-]"
# Host labels and TLDs may be internationalised; marks are needed for scripts such as Devanagari.
_DOMAIN_LABEL = rf"[^\W_](?:[\w{_MARKS}\-]{{0,61}}[\w{_MARKS}])?"
_TLD = rf"[^\W\d_](?:[^\W\d_]|[{_MARKS}]){{1,62}}"
_MAIL_RE = re.compile(
    rf"[{_WORD}]{_LOCAL_CHAR}*(?:\.{_LOCAL_CHAR}+)*"
    rf"@(?:{_DOMAIN_LABEL}\.)+{_TLD}"
    rf"(?![{_WORD}\-@])"
)
_MAX_LOCAL = 64   # RFC 5321 limit on the local part

# --- URL --------------------------------------------------------------------------------------
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

# --- IBAN -------------------------------------------------------------------------------------
# Generous candidate (up to 34 alphanumerics, single spaces between groups); the longest prefix
# that ends on a group boundary and passes stdnum's checksum + country structure check wins.
_IBAN_RE = re.compile(r"(?<![A-Za-z0-9])(?:[A-Z]{2}\d{2}(?:[ \u00a0]?[A-Z0-9]){11,30}"
                      r"|[a-z]{2}\d{2}(?:[ \u00a0]?[a-z0-9]){11,30})")

# --- CARD -------------------------------------------------------------------------------------
_CARD_RUN_RE = re.compile(r"(?<![\w\-.,])\d+(?:[ \-]\d+)*(?!\w)")
_CARD_SEP_RE = re.compile(r"[ \-]")
# The groups of an IBAN whose checksum failed must not come back as a card number.
_IBAN_HEAD_RE = re.compile(r"[A-Z]{2}\d{2}[ \u00a0]\Z")

# --- SSN --------------------------------------------------------------------------------------
_SSN_RE = re.compile(r"(?<![\w\-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w\-])")

# --- PHONE ------------------------------------------------------------------------------------
# Cheap trigger: six or more digits joined by phone punctuation. Only text around a trigger is
# handed to phonenumbers, whose matcher costs ~0.1-0.4 ms per region even on a short snippet.
_PHONE_SEP = r"[\s\-\u2010-\u2015\u2212\u30fc\uff0d./\uff0f()\[\]~\u2053\u223c\uff5e]"
_PHONE_HINT_RE = re.compile(rf"\d(?:{_PHONE_SEP}{{0,3}}\d){{5,}}")
_PHONE_CONTEXT = 24   # enough for "+", "(", "tel." before and "ext. 1234" after the digits
# Dates and year ranges trigger the hint but are never numbers; phonenumbers would reject them
# only after trying every region.
_DATE_HINT_RE = re.compile(
    r"\d{1,2}([./\-])\d{1,2}\1(?:\d{4}|\d{2})|\d{4}([./\-])\d{1,2}\2\d{1,2}"
    r"|\d{4}\s?[\-\u2010-\u2015/]\s?\d{2,4}"
)

# Numbers that phonenumbers does not know to be valid (an unassigned area code, a local number
# without its area code, a region not configured) are still taken when they have the shape of a
# phone number: 7 to 15 digits (or 6 as "dd dd dd") in groups joined by "-", ".", " " or a bracketed area code, with an
# optional "+CC"/"00CC" prefix and extension; or an unbroken run of 10 or 11 digits. Under-
# anonymization is the costlier error, and dates, times, years, amounts and IPs are excluded.
_PHONE_SHAPE_RE = re.compile(
    r"(?:\+\d{1,3}[ \-.]?|00\d{1,3}[ \-.])?(?:\(\d{1,4}\)[ \-.]?)?\d{1,11}(?:[\-. ]\d{1,8}){0,6}"
    r"(?:[ ]?(?:x|ext\.?|#)[ ]?\d{1,6})?"
)
_PHONE_EXT_RE = re.compile(r"[ ]?(?:x|ext\.?|#)[ ]?\d{1,6}\Z")
_PHONE_GROUP_RE = re.compile(r"\d+")
_DATE_INSIDE_RE = re.compile(
    r"(?<!\d)(?:(\d{4})[\-./](\d{1,2})[\-./](\d{1,2})|(\d{1,2})[\-./](\d{1,2})[\-./](\d{2}|\d{4}))(?![\-./]?\d)"
    r"|(?:1[89]|20)\d\d[ \-/](?:1[89]|20)\d\d"
)
_ZIP4_SHAPE_RE = re.compile(r"\d{5}-\d{4}")


def _holds_date(core: str) -> bool:
    """A plausible date (day <= 31, month <= 12, in either order) or a pair of years inside core."""
    for m in _DATE_INSIDE_RE.finditer(core):
        if m.group(1):
            a, b = int(m.group(2)), int(m.group(3))
        elif m.group(4):
            a, b = int(m.group(4)), int(m.group(5))
        else:
            return True
        if (1 <= a <= 12 and 1 <= b <= 31) or (1 <= a <= 31 and 1 <= b <= 12):
            return True
    return False


def _phone_shaped(text: str, start: int, end: int) -> bool:
    """True when text[start:end], a match of _PHONE_SHAPE_RE, looks like a phone number."""
    if start > 0:
        before = text[start - 1]
        if before.isalnum() or before in "_+-./:$€£¥%":
            return False
        if before == "," and start > 1 and text[start - 2].isdigit():
            return False
    if end < len(text):
        after = text[end]
        if after.isalnum() or after in "_%" or (after in ":,.-/" and end + 1 < len(text) and text[end + 1].isdigit()):
            return False
    cand = text[start:end]
    ext = _PHONE_EXT_RE.search(cand)
    core = cand[:ext.start()] if ext else cand
    if _holds_date(core) or _ZIP4_SHAPE_RE.fullmatch(core):
        return False
    groups = _PHONE_GROUP_RE.findall(core)
    digits = sum(map(len, groups))
    if not 7 <= digits <= 15 and not (digits == 6 and len(groups) == 3 and min(map(len, groups)) == 2):
        return False
    if len(groups) == 1:
        return digits in (10, 11) or core.startswith("+")
    seps = set(ch for ch in core.lstrip("+") if not ch.isdigit())
    if seps <= {"."} and (len(groups) == 2 or all(len(g) == 3 for g in groups[1:])):
        return False   # 3.1415926, 12.345.678: a decimal point or a thousands separator
    if seps == {" "} and len(groups) == 2 and len(groups[0]) == 4 and 1800 <= int(groups[0]) <= 2099:
        return False   # "in 2004 200 people"
    return True


# --- DATE (numeric) ---------------------------------------------------------------------------
# spaCy's small English pipeline misses "14.05.2004" and often "05/14/2004"; a numeric date with a
# plausible day and month (in either order) is a DATE. Written-out dates are left to spaCy.
_NUMERIC_DATE_RE = re.compile(
    r"(?<![\w./\-])(?:(\d{4})-(\d{1,2})-(\d{1,2})|(\d{1,2})([./\-])(\d{1,2})\5(\d{4}|\d{2}))(?!\w|[./\-]\d)"
)


# --- DATE (written) ---------------------------------------------------------------------------
# spaCy misses a written date at the start of a sentence ("Fourteenth of May was ...") and tags
# "5/14" as CARDINAL; linking needs them as DATE terms to tell whether they state a row's date.
# Anchored at a capitalised English month name (a literal first class, fast to skip to); the day
# stands before it ("14 May", "14th of May", "fourteenth of May") or after it ("May 14th", "May
# the 14th"), with an optional weekday in front and year behind. Lower-case month words ("may",
# "march") are verbs far more often than dates and are left to spaCy.
_MONTH_WORDS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
                "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec")
_WEEKDAY_WORDS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tues|Tue|Wed|Thurs|Thu|Fri|Sat|Sun"
_MONTH_TAILS: dict[str, list[str]] = {}
for _m in sorted(_MONTH_WORDS.split("|"), key=len, reverse=True):
    _MONTH_TAILS.setdefault(_m[0], []).append(re.escape(_m[1:]))
# (the first letter as a class, the rest behind a look-behind on it: see _term_regex)
_MONTH_ANCHOR_RE = re.compile(
    "[JFMASOND](?<![^\\W\\d_].)(?:" + "|".join(f"(?<={k})(?:{'|'.join(v)})" for k, v in _MONTH_TAILS.items())
    + ")(?![^\\W\\d_])")
_YEAR_AFTER = r"(?:\.?,?\s+(?:1[89]|20)\d\d(?!\w|[./\-]\d))?"


@functools.lru_cache(maxsize=1)
def _written_date_res() -> tuple[re.Pattern, re.Pattern]:
    """(day before the month, up to the month's start; day after the month, from its end). The
    day's ordinal words come from num2words (built once, when the first text holds a month)."""
    from num2words import num2words
    words = sorted({num2words(n, to="ordinal") for n in range(1, 32)}, key=len, reverse=True)
    words = "|".join(re.escape(w) for w in words) + "|" + "|".join(re.escape(w.capitalize()) for w in words)
    day = rf"(?:(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?|{words})"
    weekday = rf"(?:(?:{_WEEKDAY_WORDS})\.?,?\s+)?"
    before = re.compile(rf"(?<![\w\-/.]){weekday}(?:the\s+|The\s+)?{day}(?:\s+of)?\s+\Z")
    after = re.compile(rf"\.?\s+(?:the\s+)?{day}(?![\w\-/.]\d|\w){_YEAR_AFTER}")
    return before, after


_WEEKDAY_BEFORE_RE = re.compile(rf"(?<![\w\-])(?:{_WEEKDAY_WORDS})\.?,?\s+\Z")
_YEAR_AFTER_RE = re.compile(_YEAR_AFTER)
# "on 5/14", "since 14/5": month and day without a year, only after a word that announces a date
# ("1/2 of the cake", "3/4 cup" are fractions).
_DATE_CUES = "on|since|until|till|from|before|after|due|dated|" + _WEEKDAY_WORDS
_SHORT_DATE_RE = re.compile(
    rf"(?<![\w])(?:{_DATE_CUES}|{_DATE_CUES.upper()}|{_DATE_CUES.title()}),?\s+(\d{{1,2}})/(\d{{1,2}})(?![\w/%]|[.,]\d)"
)
_FRACTION_AFTER_RE = re.compile(r"\s*(?:of|cups?|inch|inches|tsp|tbsp|mile|miles)\b", re.IGNORECASE)


# --- IP ---------------------------------------------------------------------------------------
_IPV4_RE = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?!\w|\.\d)")
_IPV6_RE = re.compile(
    r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?![\w:]|\.\d)"
)

# --- POSTCODE ---------------------------------------------------------------------------------
# Upper case only: "sw1a 1aa" in prose is more often noise than an address.
_UK_POSTCODE_RE = re.compile(
    r"(?<![\w\-])(?:GIR ?0AA|[A-PR-UWYZ](?:\d{1,2}|[A-HK-Y]\d{1,2}|\d[A-HJKPSTUW]|[A-HK-Y]\d[ABEHMNPRV-Y])"
    r" ?\d[ABD-HJLNP-UW-Z]{2})(?![\w\-])"
)
_NL_POSTCODE_RE = re.compile(r"(?<![\w\-./])([1-9]\d{3})( ?)(?!SA|SD|SS)([A-Z]{2})(?![\w\-])")
# "1066 AD", "2500 BC", "2004 US troops", "1030 PM": a number followed by an era, a time suffix or a
# common acronym is taken for a postcode only when the town follows ("2511 CE Den Haag") or when
# written without the space ("2511CE").
_NL_STOP = frozenset({"AD", "BC", "CE", "AM", "PM", "US", "UK", "EU", "UN"})
_TOWN_AFTER_RE = re.compile(r"[ \u00a0]+[A-Z\u00c0-\u00de][a-z\u00df-\u00ff'\-]")
_ZIP4_RE = re.compile(r"(?<![\w\-])\d{5}-\d{4}(?![\w\-])")
_US_STATES = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|"
    "Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|"
    "Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|"
    "New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|"
    "Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|"
    "West Virginia|Wisconsin|Wyoming|District of Columbia|Puerto Rico|Guam|American Samoa|"
    "Northern Mariana Islands|U\\.S\\. Virgin Islands|Virgin Islands"
).replace(" ", r"\s+")
_US_STATE_ABBR = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|"
    "NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC|PR|GU|AS|MP|VI"
)
_US_ZIP_RE = re.compile(
    rf"(?<![A-Za-z])(?:(?:{_US_STATE_ABBR})\.?|(?:{_US_STATES}))(?![A-Za-z]),?[ \t\u00a0]{{1,3}}"
    r"(\d{5})(?![\w\-])"
)
# A bare 5-digit number is far more often a count or an amount than a German postcode, so only
# the "D-" prefix or a following capitalised word (the town) makes it one.
_DE_POSTCODE_RE = re.compile(
    r"(?<![\w\-./,$€£¥])(?:D-\d{5}(?![\w\-])|\d{5}(?=[ \u00a0][A-ZÄÖÜ][a-zäöüß]))"
)

# Numeric recognizers run on zones around digit runs. The margin covers the longest non-digit
# context any of them reads ("Northern Mariana Islands, " before a ZIP, "GB82 WEST" in an IBAN,
# the town after a German postcode); zones end on whitespace so that look-aheads at the zone end
# see the same thing they would in the full text.
_DIGIT_RUN_RE = re.compile(r"\d+")
_ASCII_DIGIT_RUN_RE = re.compile(r"[0-9]+")   # same as \d on ASCII text, and 2x faster
_SPACE_RE = re.compile(r"\s")
_ZONE_MARGIN = 48


def _token_start(text: str, end: int, extra: str, limit: int) -> int | None:
    """Start of the run of word characters (incl. marks) and ``extra`` that ends at ``end``, or
    None if the run is longer than ``limit``. A backward scan in Python beats a regex here: a
    search for "[word]+\\Z" restarts at every position and the word class (with its non-BMP
    ranges) is slow to test."""
    stop = end - limit
    i = end
    while i > 0:
        ch = text[i - 1]
        if not (ch.isalnum() or ch in extra
                or (ch > "\x7f" and (unicodedata.category(ch)[0] == "M" or ch in "\u200c\u200d"))):
            return i
        i -= 1
        if i < stop:
            return None
    return 0


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


def _is_card_prefix(digits: str) -> bool:
    first = digits[0]
    if first in "3456":
        return True
    # Mastercard 2-series (2221-2720) is 16 digits long.
    return first == "2" and len(digits) == 16 and 2221 <= int(digits[:4]) <= 2720


def _card_grouping_ok(sizes: list[int]) -> bool:
    """Printed card numbers are unbroken or grouped 4-4-4-3, 4-4-4-4(-3), 4-6-5 (Amex) or 4-6-4
    (Diners); rejecting other groupings keeps runs of phone numbers, amounts or the digits of a
    mistyped IBAN from passing Luhn by chance (1 in 10)."""
    if len(sizes) == 1:
        return True
    if all(s == 4 for s in sizes[:-1]) and sizes[-1] in (3, 4):
        return True
    return sizes in ([4, 6, 5], [4, 6, 4])


def _term_regex(terms: list[str]) -> str | None:
    """One case-insensitive whole-word alternation for a whole term list, factored as a trie so
    matching cost does not grow with the number of terms; whitespace inside a term matches any
    whitespace run.

    The pattern starts with a class of the terms' first characters so the regex engine can skip
    through the text quickly; the word boundary before the term and the branch for the first
    character are then checked with look-behinds (a leading look-behind over the large word class
    would be evaluated at every position and is ~10x slower)."""
    trie: dict = {}
    for term in terms:
        words = term.split()
        if not words:
            continue
        node = trie
        for i, word in enumerate(words):
            if i:
                node = node.setdefault(None, {})   # None = whitespace run
            for ch in word:
                node = node.setdefault(ch, {})
        node[""] = {}                              # "" = end of term
    if not trie:
        return None

    def render(node: dict) -> str:
        # Iterative along single-child chains so long terms do not hit the recursion limit.
        out = []
        while len(node) == 1 and "" not in node:
            key = next(iter(node))
            out.append(r"\s+" if key is None else re.escape(key))
            node = node[key]
        branches = [(r"\s+" if k is None else re.escape(k)) + render(child)
                    for k, child in node.items() if k != ""]
        if branches:
            alt = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
            if "" in node:
                # Greedy "?" tries the longer term first; a failed boundary backtracks to the shorter.
                alt = "(?:" + alt + ")?"
            out.append(alt)
        return "".join(out)

    first = "".join(re.escape(k) for k in trie)
    branches = [f"(?<={re.escape(k)})" + render(child) for k, child in trie.items()]
    return (f"[{first}](?<![{_WORD}].)(?:{'|'.join(branches)}){_NOT_WORD_AFTER}")


class _Zone:
    """A stretch of text around digit runs, with digit statistics that let recognizers skip
    zones that cannot hold their pattern (a lone year cannot be a card number)."""
    __slots__ = ("lo", "hi", "digits", "longest", "runs")

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi
        self.digits = self.longest = self.runs = 0


def _zones(text: str) -> list[_Zone]:
    if text.isascii():
        # str.find on an ASCII string is a memchr; a regex scan is ~10x slower.
        if not any(d in text for d in "0123456789"):
            return []
        runs = _ASCII_DIGIT_RUN_RE
    elif _DIGIT_RUN_RE.search(text) is None:
        return []
    else:
        runs = _DIGIT_RUN_RE
    zones: list[_Zone] = []
    n = len(text)
    zone = None
    for m in runs.finditer(text):
        start, end = m.span()
        if zone is None or start - _ZONE_MARGIN > zone.hi:
            zone = _Zone(max(0, start - _ZONE_MARGIN), 0)
            zones.append(zone)
        if end + _ZONE_MARGIN > zone.hi:
            hi = end + _ZONE_MARGIN
            if hi >= n:
                hi = n
            else:
                space = _SPACE_RE.search(text, hi)
                hi = space.start() if space else n
            zone.hi = hi
        zone.digits += end - start
        zone.runs += 1
        if end - start > zone.longest:
            zone.longest = end - start
    return zones


class RuleRecognizer:
    """Finds rule, pattern and term-list hits in free text; see :meth:`find`.

    ``phone_regions``: ISO 3166 regions whose national number formats are recognised (numbers
    written with a leading "+CC" or an international prefix are recognised regardless).
    ``terms``: label -> list of words/phrases, matched case-insensitively as whole words.
    ``patterns``: label -> list of regular expressions (Python ``re`` syntax).
    Labels of terms and patterns are upper-cased.
    """

    def __init__(self, phone_regions=("US", "GB", "DE", "NL"), terms: dict[str, list[str]] | None = None,
                 patterns: dict[str, list[str]] | None = None, phone_shapes: bool = True):
        self.phone_shapes = phone_shapes
        if isinstance(phone_regions, str):
            phone_regions = (phone_regions,)
        regions: list[str] = []
        for region in phone_regions or ():
            code = str(region).upper()
            if code not in phonenumbers.SUPPORTED_REGIONS:
                raise ValueError(f"unknown phone region {region!r}")
            if code not in regions:
                regions.append(code)
        self.phone_regions = tuple(regions)

        prio = len(RULE_LABELS)
        self._patterns: list[tuple[re.Pattern, str, int]] = []
        for label, regexes in (patterns or {}).items():
            if isinstance(regexes, str):
                regexes = [regexes]
            for regex in regexes:
                try:
                    compiled = re.compile(regex)
                except re.error as exc:
                    raise ValueError(f"pattern {regex!r} for label {label!r}: {exc}") from None
                self._patterns.append((compiled, str(label).upper(), prio))
                prio += 1

        self._terms: list[tuple[re.Pattern, str, int]] = []
        for label, words in (terms or {}).items():
            if isinstance(words, str):
                words = [words]
            body = _term_regex([w for w in words if w])
            if body is None:
                continue
            compiled = re.compile(body, re.IGNORECASE)
            self._terms.append((compiled, str(label).upper(), prio))
            prio += 1

    # Each _find_* appends (start, end, priority, label, source) tuples to `out`.

    def _find_mail(self, text: str, out: list) -> None:
        p = _PRIORITY["MAIL"]
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
                    out.append((m.start(), m.end(), p, "MAIL", "rule"))
                    nxt = m.end()
            at = text.find("@", nxt)

    def _find_url(self, text: str, out: list) -> None:
        p = _PRIORITY["URL"]
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
        for start, end in found:
            out.append((start, end, p, "URL", "rule"))

    def _find_iban(self, text: str, lo: int, hi: int, out: list) -> None:
        p = _PRIORITY["IBAN"]
        for m in _IBAN_RE.finditer(text, lo, hi):
            start, cand = m.start(), m.group()
            # Candidate ends: each group boundary, longest first; a valid end must not cut a word.
            ends = [i for i, ch in enumerate(cand) if ch in " \u00a0"] + [len(cand)]
            for rel in reversed(ends):
                end = start + rel
                if end < len(text) and text[end].isalnum():
                    continue
                prefix = cand[:rel]
                if len(prefix) - prefix.count(" ") - prefix.count("\u00a0") < 15:
                    break   # shortest IBAN (Norway) has 15 characters
                if _iban.is_valid(prefix):
                    out.append((start, end, p, "IBAN", "rule"))
                    break

    def _find_card(self, text: str, lo: int, hi: int, out: list) -> None:
        p = _PRIORITY["CARD"]
        for m in _CARD_RUN_RE.finditer(text, lo, hi):
            run = m.group()
            if len(run) < 13 or _IBAN_HEAD_RE.search(text, max(0, m.start() - 5), m.start()):
                continue
            groups = _CARD_SEP_RE.split(run)
            # Offsets of the groups inside the run, so a sub-window maps back to the text.
            offsets, pos = [], 0
            for g in groups:
                offsets.append(pos)
                pos += len(g) + 1
            best = None
            n = len(groups)
            for i in range(n):
                digits = ""
                for j in range(i, n):
                    digits += groups[j]
                    if len(digits) > 19:
                        break
                    if len(digits) < 13 or (best and len(digits) <= best[0]):
                        continue
                    if (_is_card_prefix(digits)
                            and _card_grouping_ok([len(g) for g in groups[i:j + 1]])
                            and _luhn.is_valid(digits)):
                        best = (len(digits), offsets[i], offsets[j] + len(groups[j]))
            if best:
                out.append((m.start() + best[1], m.start() + best[2], p, "CARD", "rule"))

    def _find_ssn(self, text: str, lo: int, hi: int, out: list) -> None:
        p = _PRIORITY["SSN"]
        for m in _SSN_RE.finditer(text, lo, hi):
            out.append((m.start(), m.end(), p, "SSN", "rule"))

    def _find_phone(self, text: str, zones: list[_Zone], covered: list[tuple[int, int]],
                    out: list) -> None:
        """``covered``: spans already claimed by IBAN/CARD/SSN/IP hits. A phone number inside
        one could never outlast it, and asking phonenumbers costs up to ~0.2 ms per region."""
        if not self.phone_regions:
            return
        n = len(text)
        windows: list[list] = []   # [lo, hi, [(hint_start, hint_end), ...]]
        for zone in zones:
            for m in _PHONE_HINT_RE.finditer(text, zone.lo, zone.hi):
                hs, he = m.span()
                if any(s <= hs and he <= e for s, e in covered) or _DATE_HINT_RE.fullmatch(m.group()):
                    continue
                # Widen to whitespace so phonenumbers sees the same neighbouring characters it
                # would in the full text (it rejects candidates glued to Latin letters).
                lo = max(0, m.start() - _PHONE_CONTEXT)
                hi = min(n, m.end() + _PHONE_CONTEXT)
                while lo > 0 and lo > m.start() - 2 * _PHONE_CONTEXT and not text[lo - 1].isspace():
                    lo -= 1
                while hi < n and hi < m.end() + 2 * _PHONE_CONTEXT and not text[hi].isspace():
                    hi += 1
                if windows and lo <= windows[-1][1]:
                    windows[-1][1] = max(windows[-1][1], hi)
                    windows[-1][2].append(m.span())
                else:
                    windows.append([lo, hi, [m.span()]])
        p = _PRIORITY["PHONE"]
        leniency = phonenumbers.Leniency.VALID
        seen = set()
        for lo, hi, hints in windows:
            chunk = text[lo:hi]
            found: list[tuple[int, int]] = []
            for region in self.phone_regions:
                for match in phonenumbers.PhoneNumberMatcher(chunk, region, leniency=leniency):
                    found.append((lo + match.start, lo + match.end))
                # Later regions are only asked about digits no earlier region explained: each
                # matcher run costs far more than everything else in find().
                if all(any(s <= hs and he <= e for s, e in found) for hs, he in hints):
                    break
            if self.phone_shapes:
                for hs, he in hints:
                    if any(s <= hs and he <= e for s, e in found):
                        continue
                    for m in _PHONE_SHAPE_RE.finditer(text, max(lo, hs - 8), min(hi, he + 12)):
                        if m.start() < he and hs < m.end() and _phone_shaped(text, m.start(), m.end()):
                            found.append(m.span())
            for span in found:
                if span not in seen:
                    seen.add(span)
                    out.append((span[0], span[1], p, "PHONE", "rule"))

    def _find_ipv4(self, text: str, lo: int, hi: int, out: list) -> None:
        p = _PRIORITY["IP"]
        for m in _IPV4_RE.finditer(text, lo, hi):
            try:
                ipaddress.IPv4Address(m.group())
            except ValueError:
                continue
            out.append((m.start(), m.end(), p, "IP", "rule"))

    def _find_ipv6(self, text: str, out: list) -> None:
        if "::" not in text and text.count(":") < 7:
            return
        p = _PRIORITY["IP"]
        for m in _IPV6_RE.finditer(text):
            cand = m.group()
            if cand.strip(":.") == "":
                continue   # "::" in prose or code ("std::") is not an address
            attempts = [cand]
            if cand.endswith(":") and not cand.endswith("::"):
                attempts.append(cand[:-1])   # sentence colon after the address
            for attempt in attempts:
                try:
                    ipaddress.IPv6Address(attempt)
                except ValueError:
                    continue
                out.append((m.start(), m.start() + len(attempt), p, "IP", "rule"))
                break

    def _find_date(self, text: str, lo: int, hi: int, out: list) -> None:
        p = _PRIORITY["DATE"]
        for m in _NUMERIC_DATE_RE.finditer(text, lo, hi):
            if m.group(1):
                a, b = int(m.group(2)), int(m.group(3))
                ok = 1 <= a <= 12 and 1 <= b <= 31
            else:
                a, b = int(m.group(4)), int(m.group(6))
                ok = (1 <= a <= 12 and 1 <= b <= 31) or (1 <= a <= 31 and 1 <= b <= 12)
            if ok:
                out.append((m.start(), m.end(), p, "DATE", "rule"))

    def _find_written_date(self, text: str, out: list) -> None:
        p = _PRIORITY["DATE"]
        m = _MONTH_ANCHOR_RE.search(text)
        if m is None:
            return
        before, after = _written_date_res()
        while m is not None:
            start, end = m.start(), m.end()
            b = before.search(text, max(0, start - 48), start)
            a = after.match(text, end)
            if b is not None:
                y = _YEAR_AFTER_RE.match(text, end)
                out.append((b.start(), y.end() if y else end, p, "DATE", "rule"))
            elif a is not None:
                w = _WEEKDAY_BEFORE_RE.search(text, max(0, start - 16), start)
                out.append((w.start() if w else start, a.end(), p, "DATE", "rule"))
            m = _MONTH_ANCHOR_RE.search(text, end)

    def _find_short_date(self, text: str, lo: int, hi: int, out: list) -> None:
        p = _PRIORITY["DATE"]
        for m in _SHORT_DATE_RE.finditer(text, lo, hi):
            a, b = int(m.group(1)), int(m.group(2))
            if ((1 <= a <= 12 and 1 <= b <= 31) or (1 <= a <= 31 and 1 <= b <= 12)) \
                    and not _FRACTION_AFTER_RE.match(text, m.end()):
                out.append((m.start(1), m.end(2), p, "DATE", "rule"))

    def _find_postcode(self, text: str, zone: _Zone, out: list) -> None:
        p = _PRIORITY["POSTCODE"]
        lo, hi = zone.lo, zone.hi
        for m in _UK_POSTCODE_RE.finditer(text, lo, hi):
            out.append((m.start(), m.end(), p, "POSTCODE", "rule"))
        if zone.longest < 4:
            return
        for m in _NL_POSTCODE_RE.finditer(text, lo, hi):
            if m.group(2) and m.group(3) in _NL_STOP and not _TOWN_AFTER_RE.match(text, m.end()):
                continue
            out.append((m.start(), m.end(), p, "POSTCODE", "rule"))
        if zone.longest < 5:
            return
        if text.find("-", lo, hi) >= 0:
            for m in _ZIP4_RE.finditer(text, lo, hi):
                out.append((m.start(), m.end(), p, "POSTCODE", "rule"))
        for m in _US_ZIP_RE.finditer(text, lo, hi):
            out.append((m.start(1), m.end(1), p, "POSTCODE", "rule"))
        for m in _DE_POSTCODE_RE.finditer(text, lo, hi):
            out.append((m.start(), m.end(), p, "POSTCODE", "rule"))

    def find(self, text: str) -> list[Span]:
        """All rule/list/pattern hits, sorted by start, NON-overlapping among themselves
        (on overlap keep the longer span; same length: the earlier recognizer in this order:
        MAIL, URL, IBAN, CARD, SSN, PHONE, IP, POSTCODE, DATE, then user patterns, then term lists)."""
        if not text:
            return []
        hits: list[tuple[int, int, int, str, str]] = []
        self._find_mail(text, hits)
        self._find_url(text, hits)
        zones = _zones(text)
        numeric_from = len(hits)
        for z in zones:
            self._find_iban(text, z.lo, z.hi, hits)
            if z.digits >= 13:
                self._find_card(text, z.lo, z.hi, hits)
            if z.digits >= 9 and text.find("-", z.lo, z.hi) >= 0:
                self._find_ssn(text, z.lo, z.hi, hits)
            if z.runs >= 4 and text.find(".", z.lo, z.hi) >= 0:
                self._find_ipv4(text, z.lo, z.hi, hits)
        covered = [(h[0], h[1]) for h in hits[numeric_from:]]
        self._find_phone(text, [z for z in zones if z.digits >= 6], covered, hits)
        self._find_ipv6(text, hits)
        for z in zones:
            self._find_postcode(text, z, hits)
            if z.digits >= 4:
                self._find_date(text, z.lo, z.hi, hits)
            if text.find("/", z.lo, z.hi) >= 0:
                self._find_short_date(text, max(0, z.lo - 16), z.hi, hits)
        self._find_written_date(text, hits)
        for regex, label, prio in self._patterns:
            for m in regex.finditer(text):
                # A pattern hit must not cut a word: replacing half a word would glue the label
                # onto the other half ("XEMP-123456" is no "EMP-\d{6}").
                if m.end() > m.start() and not _cuts_word(text, m.start(), m.end()):
                    hits.append((m.start(), m.end(), prio, label, "pattern"))
        for regex, label, prio in self._terms:
            for m in regex.finditer(text):
                hits.append((m.start(), m.end(), prio, label, "list"))
        return _resolve(text, hits)


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_" or ch in "\u200c\u200d" or (
        ch > "\x7f" and unicodedata.category(ch)[0] == "M")


def _cuts_word(text: str, start: int, end: int) -> bool:
    return ((start > 0 and _is_word(text[start - 1]) and _is_word(text[start]))
            or (end < len(text) and _is_word(text[end - 1]) and _is_word(text[end])))


def _resolve(text: str, hits: list[tuple[int, int, int, str, str]]) -> list[Span]:
    """Greedy longest-first selection of non-overlapping hits; ties go to the lower priority
    number, then to the earlier start, so the result does not depend on discovery order."""
    if not hits:
        return []
    hits.sort(key=lambda h: (h[0] - h[1], h[2], h[0]))
    starts: list[int] = []
    ends: list[int] = []
    chosen: list[tuple[int, int, int, str, str]] = []
    for hit in hits:
        start, end = hit[0], hit[1]
        i = bisect.bisect_right(starts, start)
        # Accepted spans are disjoint, so only the neighbours on either side can overlap.
        if i > 0 and ends[i - 1] > start:
            continue
        if i < len(starts) and starts[i] < end:
            continue
        starts.insert(i, start)
        ends.insert(i, end)
        chosen.insert(i, hit)
    return [Span(s, e, text[s:e], label, source) for s, e, _, label, source in chosen]


# --- vague temporal expressions ---------------------------------------------------------------
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_WEEKDAYS = (
    "(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|"
    "mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun"
)
_APOS = "['\u2019]?"
_HOLIDAYS = "|".join(h.replace(" ", r"\s+").replace("'", _APOS) for h in (
    "christmas", "xmas", "x-mas", "easter", "thanksgiving", "halloween", "hallowe'en",
    "hanukkah", "hanukah", "chanukah", "ramadan", "eid", "diwali", "deepavali", "holi",
    "passover", "pesach", "purim", "yom kippur", "rosh hashanah", "rosh hashana", "sukkot",
    "kwanzaa", "lent", "pentecost", "whitsun", "whitsunday", "advent", "epiphany", "new year's",
    "new years", "new year", "hogmanay", "valentine's day", "valentines day", "st. patrick's day",
    "st patrick's day", "saint patrick's day", "independence day", "memorial day", "labor day",
    "labour day", "veterans' day", "veterans day", "presidents' day", "presidents day",
    "columbus day", "martin luther king day", "mlk day", "juneteenth", "boxing day",
    "mother's day", "mothers day", "father's day", "fathers day", "remembrance day",
    "armistice day", "anzac day", "canada day", "australia day", "bastille day", "guy fawkes",
    "bonfire night", "mardi gras", "oktoberfest", "midsummer", "all saints' day",
    "all souls' day", "day of the dead", "lunar new year", "chinese new year", "nowruz",
    "vesak", "michaelmas", "candlemas", "pancake day", "king's day", "koningsdag",
    "sinterklaas", "hanami",
))
_TEMPORAL_ANCHOR_RE = re.compile(
    rf"\d|(?<![^\W\d_])(?:{_MONTHS}|{_WEEKDAYS}|{_HOLIDAYS})(?![^\W\d_])",
    re.IGNORECASE,
)


def is_vague_temporal(span_text: str) -> bool:
    """False-positive guard for spaCy DATE/TIME spans: True means the span does not pin down a
    point in time and should be dropped, False means keep it.

    Rule: a span is identifying (False) if it contains
      * a digit (any Unicode decimal digit: "2004", "10:30", "14/05/2004", "the 1990s"),
      * an English month name or abbreviation ("in March", "May 14", "Sept."),
      * an English weekday name, its plural or abbreviation ("Monday", "on Fridays", "Wed"), or
      * a named holiday ("Christmas", "New Year's Eve", "Thanksgiving", "Ramadan", ...);
    otherwise it is vague (True): "today", "tonight", "a good day", "four days ago", "the weekend",
    "last week", "these days", "the past few years". Spelled-out numbers do not count, so
    "nineteen ninety-nine" is treated as vague. Names are matched case-insensitively as whole
    words, so "decade" does not contain "dec" and "Sunday" does.
    """
    if not span_text or not span_text.strip():
        return True
    return _TEMPORAL_ANCHOR_RE.search(span_text) is None
