"""The rule recognizers of udfs/recognizers/, one section each, through udfs/rules.py's
RuleRecognizer (which resolves their overlaps: tests/test_rules.py)."""
from __future__ import annotations

import pytest
from stdnum import luhn

from helpers import found, labelled, luhn_complete
from udfs.rules import RuleRecognizer


@pytest.fixture(scope="module")
def rec() -> RuleRecognizer:
    return RuleRecognizer()


# --- MAIL ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("address", [
    "john.doe@example.com",
    "jane+newsletter@mail.example.co.uk",
    "first_last-99@sub.domain.org",
    "ünïcödé.ñame@bücher.de",
    "用户@例子.中国",
])
def test_mail_positive(rec, address):
    text = f"Please write to {address} today."
    assert labelled(rec, text) == [(address, "MAIL")]


def test_mail_with_combining_marks(rec):
    address = "jose\u0301.garci\u0301a@example.com"     # decomposed accents (NFD)
    assert labelled(rec, f"De: {address}") == [(address, "MAIL")]


def test_mail_in_parentheses_and_trailing_period(rec):
    text = "Contact the office (office@example.org). Or mail boss@example.org."
    assert found(rec, text, "MAIL") == ["office@example.org", "boss@example.org"]


def test_mail_leading_punctuation_not_included(rec):
    assert found(rec, "email=john@example.com", "MAIL") == ["john@example.com"]
    assert found(rec, "*john@example.com*", "MAIL") == ["john@example.com"]
    assert found(rec, "mailto:john@example.com", "MAIL") == ["john@example.com"]


@pytest.mark.parametrize("text", [
    "ping me @john on the forum",
    "user@localhost is not routable",
    "a..b@example.com is malformed",
    "x@y.c has a one-letter TLD",
    "send it to john@ tomorrow",
])
def test_mail_negative(rec, text):
    assert found(rec, text, "MAIL") == []


# --- URL ----------------------------------------------------------------------------------------

def test_url_trailing_period_stripped(rec):
    text = "See https://example.com/path/page.html."
    assert labelled(rec, text) == [("https://example.com/path/page.html", "URL")]


@pytest.mark.parametrize("text,url", [
    ("Visit www.example.com, then leave.", "www.example.com"),
    ("Read example.com/page for details.", "example.com/page"),
    ("(see http://foo.org/a?b=c&d=e#frag)", "http://foo.org/a?b=c&d=e#frag"),
    ("Wiki: https://en.wikipedia.org/wiki/Foo_(bar).", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    ("HTTPS://EXAMPLE.COM/X, done", "HTTPS://EXAMPLE.COM/X"),
    ("Go to sub.example.co.uk/path?q=1; it works", "sub.example.co.uk/path?q=1"),
])
def test_url_positive(rec, text, url):
    assert found(rec, text, "URL") == [url]


@pytest.mark.parametrize("text", [
    "It ended.Next day we left.",
    "Use tools e.g. hammers and/or saws at 50 km/h.",
    "Mr.Smith/Jones wrote it.",
    "The site example.com is down.",     # bare domain without a path is not matched
    "A bare scheme http:// is nothing.",
])
def test_url_negative(rec, text):
    assert found(rec, text, "URL") == []


def test_url_containing_mail_is_one_url(rec):
    text = "Link https://example.com/share?to=jane@example.org here"
    assert labelled(rec, text) == [("https://example.com/share?to=jane@example.org", "URL")]


# --- PHONE --------------------------------------------------------------------------------------

@pytest.mark.parametrize("number", [
    "(415) 555-2671",
    "+1 415-555-2671",
    "+44 20 7946 0958",
    "020 7946 0958",
    "+49 30 1234567",
    "0049 30 1234567",
    "+31 20 123 4567",
])
def test_phone_positive(rec, number):
    text = f"Call me at {number} after lunch."
    assert labelled(rec, text) == [(number, "PHONE")]


@pytest.mark.parametrize("text", [
    "I moved there in 2004.",
    "She is 36 years old.",
    "Born on 14/05/2004 in a small town.",
    "The total was 12345 dollars.",
    "Version 1.2.3 was released on 14.05.2004 at 10:30.",
])
def test_phone_negative(rec, text):
    assert found(rec, text, "PHONE") == []


def test_phone_regions_configurable():
    us_only = RuleRecognizer(phone_regions=("US",), phone_shapes=False)
    assert found(us_only, "ring 020 7946 0958 now", "PHONE") == []
    assert found(us_only, "ring +44 20 7946 0958 now", "PHONE") == ["+44 20 7946 0958"]
    gb = RuleRecognizer(phone_regions="gb", phone_shapes=False)
    assert found(gb, "ring 020 7946 0958 now", "PHONE") == ["020 7946 0958"]


@pytest.mark.parametrize("number", [
    "166-684-7899",            # unassigned US area code
    "(978)645-9740x11144",
    "001-748-088-2851x818",
    "833.719.3994x1887",
    "785 8949",                # local number without area code
    "(88) 684-334",
    "50-98-28-96",
    "92 34 70",
    "2813882583",
    "+1-177-892-0730x52646",
])
def test_phone_shaped_numbers_found_without_a_valid_numbering_plan(rec, number):
    text = f"They're not answering at {number}, sadly."
    assert labelled(rec, text) == [(number, "PHONE")]


@pytest.mark.parametrize("text", [
    "Born 14-05-2004, married 2004-05-14 12 years later.",
    "From 2004 2005 onwards; in 2004 200 people came.",
    "It cost 12.345.678 euros, pi is 3.1415926, and 1,234,567 people.",
    "It was 36 years ago, page 12345, at 10:30:45.",
    "ZIP Washington, DC 20500-0003 again",
])
def test_phone_shapes_exclude_dates_amounts_and_years(rec, text):
    assert found(rec, text, "PHONE") == []


def test_phone_shapes_can_be_turned_off():
    r = RuleRecognizer(phone_shapes=False)
    assert found(r, "call 166-684-7899 now", "PHONE") == []


def test_iban_lower_case(rec):
    assert labelled(rec, "iban gb82west12345698765432 please") == [("gb82west12345698765432", "IBAN")]
    assert found(rec, "iban gb82west12345698765433 please", "IBAN") == []


def test_unknown_phone_region_rejected():
    with pytest.raises(ValueError):
        RuleRecognizer(phone_regions=("XX",))


# --- IBAN ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("iban", [
    "DE89 3704 0044 0532 0130 00",
    "DE89370400440532013000",
    "GB82 WEST 1234 5698 7654 32",
    "NL91ABNA0417164300",
])
def test_iban_valid(rec, iban):
    text = f"Pay to {iban}, thanks."
    assert labelled(rec, text) == [(iban, "IBAN")]


def test_iban_followed_by_uppercase_words(rec):
    text = "IBAN DE89 3704 0044 0532 0130 00 THE END"
    assert labelled(rec, text) == [("DE89 3704 0044 0532 0130 00", "IBAN")]


@pytest.mark.parametrize("text", [
    "Pay to DE89 3704 0044 0532 0130 01, thanks.",    # checksum off by one
    "Pay to GB82 WEST 1234 5698 7654 33, thanks.",
    "Ref XDE89370400440532013000 is glued to a letter",
    "Pay to DE12 4111 1111 1111 1111 00, thanks.",    # holds a Luhn-valid 4-4-4-4 group run
])
def test_iban_invalid_checksum(rec, text):
    assert found(rec, text, "IBAN") == []
    assert found(rec, text, "CARD") == []   # the digit groups must not come back as a card


# --- CARD ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("card", [
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "4111111111111111",
    "5555 5555 5555 4444",
    "3782 822463 10005",
    "6011 1111 1111 1117",
])
def test_card_valid(rec, card):
    text = f"Card number {card} expires soon."
    assert labelled(rec, text) == [(card, "CARD")]


def test_card_mastercard_2_series(rec):
    number = luhn_complete("222100000000000")
    assert found(rec, f"card {number} ok", "CARD") == [number]


def test_card_invalid(rec):
    assert found(rec, "Card 4111 1111 1111 1112 declined.", "CARD") == []
    # Luhn-valid but no card prefix
    number = luhn_complete("812345678901234")
    assert luhn.is_valid(number)
    assert found(rec, f"Ref {number} here", "CARD") == []
    # Luhn-valid but grouped like phone numbers, not like a card
    assert found(rec, "4111 111 111 111 1 x", "CARD") == []


# --- SSN ----------------------------------------------------------------------------------------

def test_ssn_valid(rec):
    assert labelled(rec, "SSN: 123-45-6789.") == [("123-45-6789", "SSN")]
    assert found(rec, "old card 078-05-1120", "SSN") == ["078-05-1120"]


@pytest.mark.parametrize("ssn", [
    "000-12-3456", "666-12-3456", "912-34-5678", "123-00-4567", "123-45-0000", "1234-56-7890",
])
def test_ssn_invalid(rec, ssn):
    assert found(rec, f"number {ssn} here", "SSN") == []


# --- IP -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,ip", [
    ("Server at 192.168.1.1 is down.", "192.168.1.1"),
    ("Ping 10.0.0.1.", "10.0.0.1"),
    ("IPv6 2001:db8::ff00:42:8329 reached", "2001:db8::ff00:42:8329"),
    ("loopback ::1 only", "::1"),
    ("mapped ::ffff:192.168.1.1 here", "::ffff:192.168.1.1"),
    ("link-local fe80::1: up", "fe80::1"),
])
def test_ip_positive(rec, text, ip):
    assert found(rec, text, "IP") == [ip]


@pytest.mark.parametrize("text", [
    "Bogus 999.1.1.1 address",
    "Also 10.0.0.256 is out of range",
    "Version v1.2.3.4 of the tool",
    "Meet at 10:30:45 sharp",
    "C++ uses std::vector a lot",
])
def test_ip_negative(rec, text):
    assert found(rec, text, "IP") == []


# --- POSTCODE -----------------------------------------------------------------------------------

@pytest.mark.parametrize("text,code", [
    ("10 Downing Street, London SW1A 2AA", "SW1A 2AA"),
    ("Manchester M1 1AE, UK", "M1 1AE"),
    ("Damrak 1, 1012 AB Amsterdam", "1012 AB"),
    ("Postbus 1234 AB", "1234 AB"),
    ("Prinsessegracht 2511 CE Den Haag", "2511 CE"),
    ("Washington, DC 20500-0003", "20500-0003"),
    ("Austin, TX 78701", "78701"),
    ("Austin, Texas 78701, USA", "78701"),
    ("Unter den Linden, 10115 Berlin", "10115"),
    ("Adresse: D-80331 München", "D-80331"),
])
def test_postcode_positive(rec, text, code):
    assert found(rec, text, "POSTCODE") == [code]


@pytest.mark.parametrize("text", [
    "The number 12345 alone.",
    "It cost 12345 dollars.",
    "Built in 1066 AD by the king.",
    "In 2004 US troops arrived.",
    "Call extension 12345 now.",
])
def test_postcode_negative(rec, text):
    assert found(rec, text, "POSTCODE") == []


# --- DATE ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,date", [
    ("Posted 14.05.2004 late.", "14.05.2004"),
    ("Posted 05/14/2004 late.", "05/14/2004"),
    ("born 3/23/1940,", "3/23/1940"),
    ("at 1993-01-04 14:56:41", "1993-01-04"),
])
def test_numeric_dates(rec, text, date):
    assert labelled(rec, text) == [(date, "DATE")]


@pytest.mark.parametrize("text", ["v1.05.2004 build", "32/13/2004 is no date", "10.0.0.1 host", "1.2.3"])
def test_numeric_dates_negative(rec, text):
    assert found(rec, text, "DATE") == []


@pytest.mark.parametrize("text,date", [
    ("Fourteenth of May was sunny.", "Fourteenth of May"),
    ("We met on the 14th of May and talked.", "the 14th of May"),
    ("On the twenty-first of March we left.", "the twenty-first of March"),
    ("On May 14th, 2004 we met.", "May 14th, 2004"),
    ("It was May the 14th.", "May the 14th"),
    ("We met on Friday May 14 and talked.", "Friday May 14"),
    ("Friday, 14 May 2004 was fun.", "Friday, 14 May 2004"),
    ("Since Sept. 14, 2004 I wait.", "Sept. 14, 2004"),
    ("We met on 5/14 and talked.", "5/14"),
    ("Since 14/5 I wait.", "14/5"),
])
def test_written_dates(rec, text, date):
    assert labelled(rec, text) == [(date, "DATE")]


@pytest.mark.parametrize("text", [
    "You may 14 times say so.", "In May 2004 it rained.", "Mayday 14 calls.", "14 Mayo is no month.",
    "Add 1/2 of the flour.", "It took 3/4 of the day.", "He scored 5/14 in the test.", "Use on 1/2 cup of milk.",
    "the Jan 50 team",
])
def test_written_dates_negative(rec, text):
    assert found(rec, text, "DATE") == []
