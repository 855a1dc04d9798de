"""Tests of pii_leak.

Expected values are worked out by hand from Presidio's recognisers, cited at each test:
microsoft/presidio presidio-analyzer/presidio_analyzer/predefined_recognizers/
(credit_card_recognizer.py @ 6b15e0cd, us_ssn_recognizer.py @ 338fb2eb, ip_recognizer.py @
05dac939, iban_recognizer.py @ 14da1a6d, email_recognizer.py @ 40ebddf6).
PHONE_NUMBER is cross-checked against the real python-phonenumbers (Debian python3-phonenumbers).
"""

from __future__ import annotations

import json
import random

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks import pii_leak as pii_module
from oodle_eval.v1.checks.pii_leak import presidio_find_pii, find_pii, pii_leak

from _support import LONG, assert_valid, ctx_of, timed


def found(text, entities=None):
    return [(f["type"], text[f["start"] : f["end"]]) for f in find_pii(text, entities)]


def types_found(text):
    return {t for t, _ in found(text)}


class TestPiiLeak:
    def test_clean_reply(self):
        scores = pii_leak(ctx_of("The meeting is on Tuesday at 10am in room 4."))
        assert_valid(scores)
        s = scores["pii_free"]
        assert s.value is True and s.data_type == "BOOLEAN" and s.higher_is_better is True
        assert "no PII" in s.comment

    def test_empty_reply_is_free(self):
        for reply in ("", "   "):
            s = pii_leak(ctx_of(reply))["pii_free"]
            assert s.value is True
            assert s.metadata["findings"] == []

    def test_metadata_positions_never_values(self):
        reply = "Mail john.doe@example.com or call (212) 555-0143."
        s = pii_leak(ctx_of(reply))["pii_free"]
        assert s.value is False
        dumped = json.dumps(s.to_dict())
        assert "john.doe" not in dumped and "555-0143" not in dumped
        assert s.metadata["entity_types_found"] == ["EMAIL_ADDRESS", "PHONE_NUMBER"]
        spans = [(f["type"], reply[f["start"] : f["end"]]) for f in s.metadata["findings"]]
        assert spans == [("EMAIL_ADDRESS", "john.doe@example.com"), ("PHONE_NUMBER", "(212) 555-0143")]
        assert "EMAIL_ADDRESS" in s.comment and "PHONE_NUMBER" in s.comment

    # --- EMAIL_ADDRESS: Presidio's regex + tldextract (fqdn needs a known suffix)
    def test_email(self):
        assert found("write to john.doe+news@mail.example.co.uk today") == [
            ("EMAIL_ADDRESS", "john.doe+news@mail.example.co.uk")
        ]
        # Presidio's \w is Unicode: accented local part and IDN domain.
        assert found("écrivez à josé@exämple.de") == [("EMAIL_ADDRESS", "josé@exämple.de")]
        assert found("xn--mail@xn--80ak6aa92e.com") == [("EMAIL_ADDRESS", "xn--mail@xn--80ak6aa92e.com")]

    def test_email_without_known_tld_not_flagged(self):
        # tldextract gives fqdn "" when the last label is not a public suffix.
        assert found("npm install lodash@4.17.21") == []
        assert found("a@b.c") == []
        assert found("root@localhost") == []  # no dot: the regex needs one
        assert found("user@server.internalnet") == []

    def test_email_finder_matches_presidio_regex(self):
        # _find_emails is the anchored, linear-time form of finditer on Presidio's regex.
        rng = random.Random(7)
        alphabet = "ab1._-@ .!é#x-"
        for _ in range(20000):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
            assert pii_module._find_emails(s) == [m.span() for m in pii_module._EMAIL_RE.finditer(s)], s

    # --- CREDIT_CARD: regex + Luhn
    def test_credit_card_luhn_valid(self):
        for card in ("4111 1111 1111 1111", "4111-1111-1111-1111", "5500 0000 0000 0004", "3782 822463 10005", "6011111111111117"):
            assert found(f"card: {card}.") == [("CREDIT_CARD", card)], card

    def test_credit_card_luhn_invalid_not_flagged(self):
        # 4111111111111112: Luhn sum 31, not a multiple of 10.
        assert found("card: 4111 1111 1111 1112") == []
        assert found("card: 1234 5678 9012 3456") == []

    @pytest.mark.parametrize(
        "card,issuer",
        [
            ("2223003122003222", "Mastercard"),  # 2-series Mastercard (networks' test number)
            ("6205500000000000004", "UnionPay"),  # 19 digits
            ("213176828496175", "JCB (15 digits)"),
            ("630427373398", "Maestro"),  # 12 digits
            ("2720 4186 9525 2980", "Mastercard"),
        ],
    )
    def test_credit_card_current_ranges_presidio_misses(self, card, issuer):
        # Defect fixed (pii_leak docstring): Presidio's weak pattern has no 2-series, no 19 or 12
        # digits; these are Luhn-valid numbers of current issuer ranges and lengths.
        digits = card.replace(" ", "")
        assert pii_module.card_issuer(digits) == issuer
        assert found(f"card {card} please") == [("CREDIT_CARD", card)]
        assert presidio_find_pii(f"card {card} please", ["CREDIT_CARD"]) == []

    def test_credit_card_outside_ranges_or_mixed_separators_not_flagged(self):
        assert found("id 9999 9999 9999 9995") == []  # Luhn-valid, no issuer
        assert found("card 2223-0031 2200 3222") == []  # mixed separators
        assert found("card 4111111111111111111") == []  # 19-digit Visa failing Luhn

    # --- US_SSN: 3-2-4 pattern + Presidio's invalidate_result (+ area 9xx)
    def test_ssn_valid(self):
        for ssn in ("536-22-1234", "536 22 1234", "536.22.1234"):
            assert found(f"SSN {ssn}") == [("US_SSN", ssn)], ssn

    @pytest.mark.parametrize(
        "ssn",
        [
            "000-12-3456",  # prefix 000
            "666-12-3456",  # prefix 666
            "912-34-5678",  # area 9xx (SSA never issues)
            "987-65-4320",  # area 9xx
            "123-45-6789",  # sample 123456789
            "078-05-1120",  # sample 078051120 (Woolworth)
            "536-00-1234",  # group 00
            "536-22-0000",  # serial 0000
            "111-11-1111",  # all one digit
            "536-22.1234",  # mixed separators
            "536221234",  # bare 9 digits
        ],
    )
    def test_ssn_invalid_not_flagged(self, ssn):
        assert "US_SSN" not in types_found(f"SSN {ssn}")

    # --- IP_ADDRESS: regexes + ipaddress
    def test_ip_valid(self):
        assert found("server 192.168.1.10 is up") == [("IP_ADDRESS", "192.168.1.10")]
        assert found("dns 8.8.8.8") == [("IP_ADDRESS", "8.8.8.8")]
        assert found("v6 2001:db8::ff00:42:8329 ok") == [("IP_ADDRESS", "2001:db8::ff00:42:8329")]
        # IPv4_mapped contains an IPv4 match: the contained one is dropped (remove_duplicates).
        assert found("mapped ::ffff:192.0.2.128 ok") == [("IP_ADDRESS", "::ffff:192.0.2.128")]

    @pytest.mark.parametrize("text", ["999.1.1.1", "256.256.256.256", "1.2.3", "01.02.03.04", "a :: b", "std::vector"])
    def test_ip_invalid_not_flagged(self, text):
        assert "IP_ADDRESS" not in types_found(f"value {text} here")

    @pytest.mark.parametrize("text", ["step 2.2.2.2.2.2 done", "### 2.2.2.2 Results", "# 1.1.1.1\nText", "see 1.2.3.4.5"])
    def test_dotted_outline_numbers_are_not_ips(self, text):
        # Defect fixed (pii_leak docstring): Presidio's \b pattern finds 2.2.2.2 inside longer
        # outline numbers and Markdown headings.
        assert "IP_ADDRESS" not in types_found(text)
        assert "IP_ADDRESS" in {f["type"] for f in presidio_find_pii(text)}

    def test_ip_at_the_end_of_a_sentence_still_found(self):
        assert found("ip 10.0.0.1.") == [("IP_ADDRESS", "10.0.0.1")]

    # --- IBAN_CODE: regex + mod-97 + country format
    def test_iban_valid(self):
        for iban in ("DE89 3704 0044 0532 0130 00", "DE89370400440532013000", "GB82 WEST 1234 5698 7654 32", "FR14 2004 1010 0505 0001 3M02 606"):
            assert found(f"IBAN: {iban}.") == [("IBAN_CODE", iban)], iban

    def test_iban_trailing_group_fallback(self):
        # Presidio's own example: the longest group fails validation, the IBAN alone passes.
        text = "I want my deposit in DE89370400440532013000 2 days from today."
        assert found(text) == [("IBAN_CODE", "DE89370400440532013000")]

    def test_iban_bad_checksum_not_flagged(self):
        # Check digits of DE..370400440532013000 are 89; 88 fails mod-97.
        assert found("IBAN: DE88 3704 0044 0532 0130 00") == []
        # Changed with the lower-case IBAN fix (pii_leak docstring): Presidio's IBAN regex is
        # upper-case only, so a lower-case IBAN leaked unseen; it is found now, mixed case is not.
        assert found("iban: de89370400440532013000") == [("IBAN_CODE", "de89370400440532013000")]
        assert presidio_find_pii("iban: de89370400440532013000") == []
        assert found("iban: De89370400440532013000") == []
        assert found("iban: de88370400440532013000") == []

    # --- entities parameter
    def test_entities_restrict(self):
        reply = "Call (212) 555-0143 or mail a@example.com"
        assert pii_leak(ctx_of(reply), entities=["EMAIL_ADDRESS"])["pii_free"].value is False
        only_card = pii_leak(ctx_of(reply), entities=["credit_card"])["pii_free"]
        assert only_card.value is True
        assert only_card.metadata["entities_checked"] == ["CREDIT_CARD"]
        assert pii_leak(ctx_of(reply), entities="PHONE_NUMBER")["pii_free"].metadata["entity_types_found"] == ["PHONE_NUMBER"]
        assert pii_leak(ctx_of(reply), entities=[])["pii_free"].metadata["entities_checked"] == list(pii_module.ENTITY_TYPES)

    def test_unknown_entity_raises_naming_it(self):
        with pytest.raises(ValueError, match="PASSPORT"):
            pii_leak(ctx_of("x"), entities=["EMAIL_ADDRESS", "PASSPORT"])

    def test_params_spread(self):
        ctx = make_context({"output": "a@example.com"}, params={"entities": None})
        assert pii_leak(ctx, **ctx.params)["pii_free"].value is False

    # --- text edge cases
    def test_accents_cjk_emoji(self):
        assert found("Ünïcödé café, no data") == []
        assert found("请发邮件到john@example.com谢谢") == [("EMAIL_ADDRESS", "john@example.com")]
        assert found("卡号4111111111111111谢谢") == [("CREDIT_CARD", "4111111111111111")]
        assert found("电话：+86 10 1234 5678。") == [("PHONE_NUMBER", "+86 10 1234 5678")]
        assert found("📧 bob@example.org 🎉") == [("EMAIL_ADDRESS", "bob@example.org")]

    def test_nfc_positions(self):
        # "e" + combining acute becomes one character under NFC; positions are NFC offsets.
        reply = "cafe\u0301 a@example.com"
        s = pii_leak(ctx_of(reply))["pii_free"]
        assert s.metadata["findings"] == [{"type": "EMAIL_ADDRESS", "start": 5, "end": 18}]

    def test_long_input_fast(self):
        base = "Lorem ipsum dolor sit amet, 42 items at 3.50 each; see section 1.2.3. "
        reply = (base * (LONG // len(base) + 1))[: LONG - 20] + " me@example.org"
        scores, elapsed = timed(pii_leak, ctx_of(reply))
        assert scores["pii_free"].value is False
        assert elapsed < 0.5
        for adversarial in ("a." * (LONG // 2), "x" * LONG, "a@" * (LONG // 2), "1" * LONG, "+4" * (LONG // 2), "1.2.3.4 " * (LONG // 8)):
            _, elapsed = timed(find_pii, adversarial)
            assert elapsed < 0.5, adversarial[:20]


# PHONE_NUMBER: Presidio's PhoneRecognizer is python-phonenumbers' PhoneNumberMatcher at leniency
# VALID (1) over its default regions; presidio_find_pii must give exactly its matches, and
# find_pii at least them (on samples where no other type claims the digits).
PHONE_SAMPLES = [
    "Call (212) 555-0143 today",
    "Call 212-555-0143",
    "call 212.456.7890",
    "(415) 555-2671",
    "415 555 2671",
    "650-253-0000",
    "1-800-555-0199",
    "+1 415 555 2671",
    "+1-415-555-2671",
    "+14155552671",
    "+44 20 7946 0958",
    "+44 (0)20 7946 0958",
    "+33 1 42 68 53 00",
    "+49 30 901820",
    "+91 98765 43210",
    "+55 11 91234-5678",
    "+972 3-123-4567",
    "+61 2 9374 4000",
    "+81 3-1234-5678",
    "+86 10 1234 5678",
    "order 2125550143",
    "0494 92 82 32",
    "030 901820",
    "123-456-7890",
    "555-1234",
    "+999 1234 5678",
    "12-34-56",
    "version 1.2.3",
]


def _phonenumbers():
    import phonenumbers  # the sandbox's curated copy (conftest puts it on sys.path)

    return phonenumbers


def _presidio_matches(sample: str) -> set[tuple[int, int]]:
    pn = _phonenumbers()
    spans: set[tuple[int, int]] = set()
    for region in ("US", "UK", "DE", "FR", "IL", "IN", "CA", "BR"):
        spans.update((m.start, m.end) for m in pn.PhoneNumberMatcher(sample, region, leniency=1))
    # Presidio's remove_duplicates: a span contained in another is dropped.
    return {s for s in spans if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans)}


@pytest.mark.parametrize("sample", PHONE_SAMPLES)
def test_phone_reference_is_presidio(sample):
    theirs = _presidio_matches(sample)
    assert {(f["start"], f["end"]) for f in presidio_find_pii(sample, ["PHONE_NUMBER"])} == theirs
    ours = [(f["start"], f["end"]) for f in find_pii(sample, ["PHONE_NUMBER"])]
    for start, end in theirs:
        if end - start >= 7:
            assert any(a <= start and end <= b for a, b in ours), (sample, sample[start:end])


@pytest.mark.parametrize(
    "text,expected",
    [
        # Extensions and glued suffixes (docs/checks.md § pii_leak).
        ("call 345-899-3560x4587 now", "345-899-3560x4587"),
        ("desk: +1-604-696-5272 ext. 565", "+1-604-696-5272 ext. 565"),
        ("fax +41 (0)69 979 80 58-Fax", "+41 (0)69 979 80 58"),
        # National formats without a country code.
        ("Please have the manager call me at 0494 92 82 32 I'd like to join", "0494 92 82 32"),
        # "+" numbers of a possible length whose range libphonenumber does not know as valid.
        ("+1-984-182-0190 mobile", "+1-984-182-0190"),
        # Next to a context word.
        ("Phone:\n60-56-85-91\n\nE-mail:", "60-56-85-91"),
        ("416 60 039 office", "416 60 039"),
    ],
)
def test_phone_found_beyond_presidio(text, expected):
    assert found(text, ["PHONE_NUMBER"]) == [("PHONE_NUMBER", expected)]


@pytest.mark.parametrize(
    "text",
    [
        "The office is at 17031 2202 Rissik St",  # "office" counts only after a number
        "Flat 3369 24, Hauptstrasse",  # 6 digits: not a phone number
        "card 4969800024734372 please",  # a Luhn-valid card, not also a phone
        "SSN 054-28-6917",
        "at 1978-04-13 12:34:56 UTC",  # a time stamp
        "see section 1.2.3",
    ],
)
def test_phone_not_found(text):
    assert [f for f in find_pii(text) if f["type"] == "PHONE_NUMBER"] == []


def test_phone_skipped_regions_add_nothing():
    # CA and UK are not run separately (pii_leak docstring): CA's matches are US's, UK's are "+"
    # numbers that the region-less POSSIBLE pass finds.
    pn = _phonenumbers()
    for sample in PHONE_SAMPLES + ["+44 7700 900123", "1-800-555-0199 or 604 555 0143"]:
        us = [(m.start, m.end) for m in pn.PhoneNumberMatcher(sample, "US", leniency=1)]
        ca = [(m.start, m.end) for m in pn.PhoneNumberMatcher(sample, "CA", leniency=1)]
        assert us == ca, sample
        uk = {(m.start, m.end) for m in pn.PhoneNumberMatcher(sample, "UK", leniency=1)}
        zz = {(m.start, m.end) for m in pn.PhoneNumberMatcher(sample, "ZZ", leniency=0)}
        assert uk <= zz, sample


def test_phone_runs_beyond_the_cap_are_reported():
    many = ", ".join(f"+41 44 {100 + i:03d} 18 00" for i in range(pii_module.PHONE_MATCHER_MAX_RUNS + 5))
    s = pii_leak(ctx_of(many))["pii_free"]
    assert s.value is False
    assert s.metadata["phone_runs_not_matched"] == 5
    assert "phone_runs_not_matched" not in pii_leak(ctx_of("+41 44 668 18 00"))["pii_free"].metadata


class TestIssue27And34:
    """Presidio's sample SSNs, local numbers, the IBAN formats and IP forms Presidio added later."""

    @pytest.mark.parametrize("text", ["My SSN is 078-05-1120.", "078 05 1120", "SSN 123-45-6789", "ssn: 987-65-4320", "666-12-3456", "219-09-0000"])
    def test_presidio_sample_and_invalid_ssns_are_no_pii_at_all(self, text):
        # Presidio's invalidate_result refuses them as SSNs; SSN-shaped digits are not a phone either.
        assert find_pii(text) == []

    def test_a_valid_ssn_is_still_an_ssn_and_a_phone_still_a_phone(self):
        assert found("SSN 457-55-5462") == [("US_SSN", "457-55-5462")]
        assert found("Call (415) 555-0132 now") == [("PHONE_NUMBER", "(415) 555-0132")]

    @pytest.mark.parametrize("text", ["Call 555-0132 now", "call me at 555-0132", "Call 555 0199.", "dial 867-5309 any time, call 867-5309"])
    def test_a_bare_seven_digit_local_number_in_prose_is_not_a_phone(self, text):
        assert find_pii(text, "PHONE_NUMBER") == []

    @pytest.mark.parametrize("text, number", [("Personal Info:\nPhone:\n358 0594\n", "358 0594"), ("781 1704 office", "781 1704"), ("Tel: 234 5678", "234 5678")])
    def test_a_seven_digit_number_in_a_labelled_contact_field_is_a_phone(self, text, number):
        assert found(text, "PHONE_NUMBER") == [("PHONE_NUMBER", number)]

    def test_the_fictional_range_is_no_phone_even_labelled(self):
        assert find_pii("Phone: 555-0142", "PHONE_NUMBER") == []

    @pytest.mark.parametrize(
        "iban",
        [
            "EG380019000500000000263180002",  # Egypt, SWIFT IBAN registry examples
            "UA213223130000026007233566001",  # Ukraine
            "IQ98NBIQ850123456789012",  # Iraq
            "LC55HEMM000100010012001200023015",  # Saint Lucia
            "SC18SSCB11010000000000001497USD",  # Seychelles
            "LY83002048000020100120361",  # Libya
        ],
    )
    def test_ibans_of_the_registry_formats_presidio_added(self, iban):
        assert found(f"pay to {iban} today") == [("IBAN_CODE", iban)]
        wrong = iban[:-1] + ("0" if iban[-1] != "0" else "1")
        assert find_pii(wrong, "IBAN_CODE") == []

    @pytest.mark.parametrize(
        "text, address",
        [
            ("The server is 2001:db8::1.", "2001:db8::1"),  # at the end of a sentence
            ("Gateway: fe80::1%eth0 is up", "fe80::1%eth0"),  # zone index
            ("Subnet: 192.168.1.0/24", "192.168.1.0/24"),  # CIDR prefix length
            ("Prefix 2001:db8::/32.", "2001:db8::/32"),
            ("10.0.0.0/123", "10.0.0.0"),  # an invalid prefix length leaves the address
            ("Mapped: ::ffff:192.168.1.1", "::ffff:192.168.1.1"),  # IPv4-mapped, whole
            ("::10.0.0.1", "::10.0.0.1"),  # IPv4-compatible
            ("0:0:0:0:0:FFFF:129.144.52.38", "0:0:0:0:0:FFFF:129.144.52.38"),  # expanded, embedded IPv4
            ("text::ffff:192.0.2.1", "192.0.2.1"),  # glued to a word: only the IPv4 part
        ],
    )
    def test_ip_forms_as_presidios_current_tests(self, text, address):
        assert found(text, "IP_ADDRESS") == [("IP_ADDRESS", address)]

    @pytest.mark.parametrize("text", ["fe80::1text", "text2001:db8::1", "std::cout", "2001:db8::256.1.1.1"])
    def test_ipv6_glued_to_text_is_not_an_address(self, text):
        assert find_pii(text, "IP_ADDRESS") == []
