"""MRZ composer: check digits validated by an independent implementation, field positions per ICAO 9303."""

from __future__ import annotations

import datetime as dt
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docauth.synth.mrz_compose import (compose_mrz, mrva_lines, mrvb_lines, name_field, td1_lines, td2_lines,
                                       td3_lines, transliterate)

MRZ_CHARS = set(string.ascii_uppercase + string.digits + "<")


def cd(field: str) -> str:
    """Independent ICAO 9303 check digit (weights 7, 3, 1)."""
    values = {**{str(i): i for i in range(10)}, **{c: 10 + i for i, c in enumerate(string.ascii_uppercase)}, "<": 0}
    return str(sum(values[c] * (7, 3, 1)[i % 3] for i, c in enumerate(field)) % 10)


def assert_td1_valid(lines):
    assert [len(x) for x in lines] == [30, 30, 30]
    l1, l2, l3 = lines
    assert set("".join(lines)) <= MRZ_CHARS
    if l1[14] == "<":  # long document number continued in the optional field
        rest = l1[15:30].split("<")[0]
        assert rest[-1] == cd(l1[5:14] + rest[:-1])
    else:
        assert l1[14] == cd(l1[5:14])
    assert l2[6] == cd(l2[0:6])
    assert l2[14] == cd(l2[8:14])
    assert l2[29] == cd(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29])


def assert_td3_valid(lines):
    assert [len(x) for x in lines] == [44, 44]
    l1, l2 = lines
    assert set("".join(lines)) <= MRZ_CHARS
    assert l1[0] == "P"
    assert l2[9] == cd(l2[0:9])
    assert l2[19] == cd(l2[13:19])
    assert l2[27] == cd(l2[21:27])
    assert l2[42] == ("<" if l2[28:42] == "<" * 14 else cd(l2[28:42])) or l2[42] == cd(l2[28:42])
    assert l2[43] == cd(l2[0:10] + l2[13:20] + l2[21:43])


def test_icao_specimens_compose_exactly():
    # ICAO 9303 part 4 / 5 / 7 example documents (Utopia)
    assert td3_lines("UTO", "ERIKSSON", "ANNA MARIA", "L898902C3", "UTO", "1974-08-12", "F", "2012-04-15",
                     optional="ZE184226B") == ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                                               "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    assert td2_lines("UTO", "ERIKSSON", "ANNA MARIA", "D23145890", "UTO", "1974-08-12", "F", "2012-04-15",
                     doc_code="I") == ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"]
    assert mrva_lines("UTO", "ERIKSSON", "ANNA MARIA", "L8988901C", "XXX", "1940-09-07", "F", "1996-12-10",
                      optional="6ZE184226B")[1] == "L8988901C4XXX4009078F96121096ZE184226B<<<<<<"
    assert td1_lines("UTO", "ERIKSSON", "ANNA MARIA", "D23145890", "UTO", "1974-08-12", "F", "2012-04-15",
                     doc_code="I<")[1] == "7408122F1204159UTO<<<<<<<<<<<6"


def test_mrvb_layout():
    lines = mrvb_lines("UTO", "ERIKSSON", "ANNA MARIA", "L8988901C", "XXX", "1940-09-07", "F", "1996-12-10",
                       optional="6ZE184")
    assert [len(x) for x in lines] == [36, 36]
    assert lines[1][:28] == "L8988901C4XXX4009078F9612109"


def test_long_document_number_td1_uses_optional_field():
    # ICAO 9303 part 5, example with a 12-character document number
    lines = td1_lines("UTO", "ERIKSSON", "ANNA MARIA", "D23145890734", "UTO", "1974-08-12", "F", "2012-04-15",
                      doc_code="I<")
    assert lines[0] == "I<UTOD23145890<7349<<<<<<<<<<<"
    assert_td1_valid(lines)


def test_transliteration_and_truncation():
    assert transliterate("Ørsted-Ærø") == "OERSTED<AEROE"
    assert transliterate("O'Brien") == "OBRIEN"
    assert transliterate("Lapsurdziņš") == "LAPSURDZINS"
    long = name_field("Montgomery-Whittingham", "Alexandra Victoria Elizabeth", 30)
    assert len(long) == 30 and long.startswith("MONTGOMERY<WHITTINGHAM<<ALEXA") and long[-1] != "<"
    assert name_field("Sato", "", 10) == "SATO<<<<<<"


name_text = st.text(alphabet=string.ascii_uppercase + " -'ÄÖÜÉÈÑØÅß", min_size=1, max_size=40).filter(
    lambda s: any(c.isalpha() for c in s))
dates = st.dates(min_value=dt.date(1930, 1, 1), max_value=dt.date(2040, 12, 31))
docnum = st.text(alphabet=string.ascii_uppercase + string.digits, min_size=5, max_size=9)


@settings(max_examples=150, deadline=None)
@given(name_text, name_text, docnum, dates, dates, st.sampled_from(["M", "F", "X"]),
       st.text(alphabet=string.digits, max_size=14))
def test_random_fields_always_give_valid_check_digits(surname, given_names, number, dob, expiry, sex, personal):
    fields = {"surname": surname, "given_names": given_names, "document_number": number, "date_of_birth": dob,
              "expiry": expiry, "sex": sex, "nationality": "D", "issuing_state": "UTO"}
    assert_td1_valid(compose_mrz("TD1", fields))
    assert_td3_valid(compose_mrz("TD3", fields, optional=personal))
    l1, l2 = compose_mrz("TD2", fields)
    assert len(l1) == len(l2) == 36 and l2[35] == cd(l2[0:10] + l2[13:20] + l2[21:35])
    assert compose_mrz("TD3", fields)[1][10:13] == "D<<"


def test_unknown_type_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown MRZ type"):
        compose_mrz("TD9", {})
