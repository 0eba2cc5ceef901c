"""MRZ parser: formats, check digits, century rule, corrections, and never raising."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docauth.ocr.mrz.checkdigit import char_value, check_digit
from docauth.ocr.mrz import MRZ_CHARS, mrz_date, parse_mrz

TD3 = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
TD1 = ["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]


def test_check_digit_values():
    assert char_value("<") == 0
    assert char_value("A") == 10 and char_value("Z") == 35
    assert char_value("a") is None and char_value("é") is None
    # '<' counts 0, so a field of fillers checks to 0 and trailing fillers change nothing
    assert check_digit("<<<<<<<<<") == "0"
    assert check_digit("D23145890") == check_digit("D23145890")
    assert check_digit("AB2134") == check_digit("AB2134<<<")
    assert check_digit("Z") == "5"  # 35 * 7 = 245
    assert check_digit("ab") is None


@pytest.mark.parametrize("lines,type_", [(TD3, "TD3"), (TD1, "TD1")])
def test_specimens_valid(lines, type_):
    r = parse_mrz(lines)
    assert (r.type, r.valid, r.score) == (type_, True, 100)
    assert all(c["ok"] for c in r.checks.values())
    assert r.fields["surname"] == "ERIKSSON"


def test_every_wrong_check_digit_is_reported():
    for pos in (9, 19, 27, 42, 43):
        line = TD3[1]
        bad = line[:pos] + str((int(line[pos]) + 1) % 10) + line[pos + 1:]
        r = parse_mrz([TD3[0], bad])
        assert not r.valid
        assert r.lines[1] == bad  # a digit has no look-alike: nothing to "correct"
        assert not r.checks["composite"]["ok"] or pos != 43


def test_corrections_use_check_digits_and_classes():
    # 0 -> O in the nationality (letters), S -> 5 in the date, '<' read as K in the name filler
    r = parse_mrz(["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<K<<<<<<<<", "L898902C36UT07408122F12O4159ZE184226B<<<<<10"])
    assert r.valid and r.lines == TD3
    reasons = {(c["line"], c["pos"]): c["reason"] for c in r.corrections}
    assert reasons[(1, 12)] == "letter position"
    assert reasons[(1, 23)] == "digit position"
    assert reasons[(0, 35)] == "name filler"


def test_lookalike_fixed_by_check_digit():
    r = parse_mrz([TD3[0], "L8989O2C36UTO7408122F1204159ZE184226B<<<<<10"])
    assert r.valid and r.lines[1] == TD3[1]
    assert r.corrections == [{"line": 1, "pos": 5, "from": "O", "to": "0", "reason": "document_number check digit"}]


def test_two_lookalikes_that_both_fit_are_left_alone():
    # 8->B at position 1 and B->8 at position 3 both satisfy the document-number check (and, sharing
    # its weights, the composite): guessing would risk a wrong "valid" MRZ, so nothing changes.
    r = parse_mrz([TD3[0], "L89B902C36UTO7408122F1204159ZE184226B<<<<<10"])
    assert not r.valid and r.corrections == []


def test_ambiguous_correction_is_not_made():
    """When two look-alike swaps both satisfy the check digit, neither is guessed."""
    from docauth.ocr.mrz import rules as m

    found = 0
    for k in range(2000):
        number = f"{k:04d}08B2Z"[:9]  # B and Z are look-alikes of 8 and 2 in an alphanumeric field
        digit = check_digit(number)
        passing = 0
        for i, ch in enumerate(number):
            alt = m.LETTER_TO_DIGIT.get(ch) or m.DIGIT_TO_LETTER.get(ch)
            if alt and check_digit(number[:i] + alt + number[i + 1:]) == digit:
                passing += 1
        wrong = str((int(digit) + 1) % 10)
        options = sum(1 for i, ch in enumerate(number)
                      for alt in [m.LETTER_TO_DIGIT.get(ch) or m.DIGIT_TO_LETTER.get(ch)]
                      if alt and check_digit(number[:i] + alt + number[i + 1:]) == wrong)
        if options < 2:
            continue
        found += 1
        line2 = number + wrong + "UTO7408122F1204159ZE184226B<<<<<1"
        line2 += check_digit(line2[0:10] + line2[13:20] + line2[21:43])
        r = parse_mrz([TD3[0], line2])
        assert not r.valid and r.lines[1][:10] == number + wrong, (number, r.corrections)
        if found >= 5:
            break
    assert found >= 1


def test_recogniser_alternatives_guide_correction():
    line2 = "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
    wrong = line2[:3] + "3" + line2[4:]  # recogniser preferred 3 over 8 at position 3
    alts = [[[(c, 1.0)] for c in TD3[0]], [[(c, 1.0)] for c in wrong]]
    alts[1][3] = [("3", 0.6), ("8", 0.35), ("9", 0.05)]
    r = parse_mrz([TD3[0], wrong], alternatives=alts)
    assert r.valid and r.lines[1] == line2
    # without the recogniser's doubt a digit is never swapped
    assert not parse_mrz([TD3[0], wrong]).valid


def _sure(lines):
    return [[[(c, 1.0)] for c in line] for line in lines]


def test_document_code_letter_is_corrected_by_format():
    r = parse_mrz(["J" + TD1[0][1:], TD1[1], TD1[2]])  # J for I: no check digit covers it
    assert r.lines == TD1 and r.valid
    assert {"line": 0, "pos": 0, "from": "J", "to": "I", "reason": "document code"} in r.corrections
    assert parse_mrz(["R" + TD3[0][1:], TD3[1]]).lines[0][0] == "P"  # a passport's code is P


def test_check_digit_blind_confusion_is_not_valid():
    # C (12) and 2 weigh the same modulo 10: the document number's check digit passes either way.
    line2 = TD3[1][:7] + "2" + TD3[1][8:]
    assert parse_mrz([TD3[0], line2]).checks["document_number"]["ok"]
    alts = _sure([TD3[0], line2])
    alts[1][7] = [("2", 0.5), ("C", 0.45), ("Z", 0.05)]
    r = parse_mrz([TD3[0], line2], alternatives=alts)
    assert r.checks["document_number"]["ok"] and not r.valid
    assert any("line 1 pos 7" in w for w in r.warnings)
    sure = parse_mrz(TD3, alternatives=_sure(TD3))
    assert sure.valid


def test_a_preferred_character_the_check_digit_cannot_tell_from_its_runner_up_is_not_verified():
    # A generated passport (dev set, recogniser v5): Q9N74A1HB2 read at p 0.97 for G9N74A1HB2. Q (26) and
    # G (16) weigh the same modulo 10, so every check passed and the MRZ was reported valid.
    line2 = "G9N74A1HB2ISL6311124M2806077<<<<<<<<<<<<<<<6"
    read = "Q" + line2[1:]
    assert parse_mrz([TD3[0], read]).valid  # text alone: nothing to doubt
    alts = _sure([TD3[0], read])
    alts[1][0] = [("Q", 0.97), ("G", 0.02), ("O", 0.01)]
    r = parse_mrz([TD3[0], read], alternatives=alts)
    assert r.checks["document_number"]["ok"] and not r.valid
    assert any("line 1 pos 0" in w for w in r.warnings)
    # a runner-up the check digit does tell apart (O: 24), or one far below 1 %, leaves it verified
    alts[1][0] = [("Q", 0.97), ("O", 0.02), ("G", 0.001)]
    assert parse_mrz([TD3[0], read], alternatives=alts).valid


def test_digit_lost_in_a_date_is_restored_by_its_check_digit():
    line2 = TD3[1][:16] + "<" + TD3[1][17:]  # 7408122 -> 740<122: a smudge where a digit was
    r = parse_mrz([TD3[0], line2], alternatives=_sure([TD3[0], line2]))
    assert r.lines == TD3 and r.valid
    assert {"line": 1, "pos": 16, "from": "<", "to": "8", "reason": "date_of_birth check digit"} in r.corrections
    # the composite must agree: with it broken as well, nothing is guessed
    broken = line2[:43] + "9"
    r = parse_mrz([TD3[0], broken], alternatives=_sure([TD3[0], broken]))
    assert r.lines[1][16] == "<" and not r.valid


def test_check_passed_with_several_uncertain_characters_is_not_verified():
    # The document number reads as printed, but the recogniser hesitated over two of its characters:
    # one check digit cannot vouch for two doubtful characters (a wrong pair passes 1 time in 10).
    alts = _sure(TD3)
    alts[1][1] = [("8", 0.6), ("B", 0.4)]
    alts[1][2] = [("9", 0.55), ("8", 0.45)]
    r = parse_mrz(TD3, alternatives=alts)
    assert r.lines == TD3 and r.checks["document_number"]["ok"]
    assert r.checks["document_number"].get("doubtful") and not r.valid
    # one uncertain character is what the check digit is for
    alts[1][2] = [("9", 1.0)]
    r = parse_mrz(TD3, alternatives=alts)
    assert r.valid and not r.checks["document_number"].get("doubtful")


def test_unsure_name_character_is_not_valid():
    alts = _sure(TD3)
    alts[0][23] = [("I", 0.7), ("Z", 0.3)]  # ANNA<MAR(I)A: no check digit covers names
    r = parse_mrz(TD3, alternatives=alts)
    assert r.lines == TD3 and all(c["ok"] for c in r.checks.values()) and not r.valid


def test_unsure_name_letter_is_settled_only_by_one_printed_spelling():
    from docauth.ocr.mrz import confirm_in_print

    alts = _sure(TD3)
    alts[0][23] = [("Z", 0.5), ("I", 0.3), ("L", 0.2)]  # ANNA<MAR(?)A
    misread = [TD3[0][:23] + "Z" + TD3[0][24:], TD3[1]]
    read = parse_mrz(misread, alternatives=alts)
    assert not read.valid and read.fields["given_names"] == "ANNA MARZA"
    read.zone_top, read.zone = 0.7, [[10, 300], [410, 300], [410, 340], [10, 340]]  # where the reader found it
    settled = confirm_in_print(read, {"ANNA", "MARIA", "UTOPIA"})
    assert settled.valid and settled.lines == TD3 and settled.fields["given_names"] == "ANNA MARIA"
    assert (settled.zone_top, settled.zone) == (read.zone_top, read.zone)  # the new read is of the same zone
    assert {"line": 0, "pos": 23, "from": "Z", "to": "I", "reason": "printed name"} in settled.corrections
    # Printed as read: confirmed as it is.
    assert confirm_in_print(read, {"MARZA"}).valid
    # Two of the candidates printed: the page does not say which; one the recogniser never proposed: ignored.
    assert not confirm_in_print(read, {"MARIA", "MARLA"}).valid
    assert not confirm_in_print(read, {"MARTA"}).valid
    # An MRZ whose checks fail is not made valid by its names.
    alts[1][-1] = [("3", 1.0)]
    bad = parse_mrz([misread[0], TD3[1][:-1] + "3"], alternatives=alts)
    assert not bad.checks["composite"]["ok"] and not confirm_in_print(bad, {"MARIA"}).valid


def test_a_number_letter_the_check_digit_cannot_tell_from_a_digit_is_settled_by_the_printed_number():
    from docauth.ocr.mrz import confirm_in_print

    alts = _sure(TD1)
    alts[0][13] = [("U", 0.6), ("0", 0.38), ("O", 0.02)]  # D2314589(0): U and 0 are both 0 mod 10
    misread = [TD1[0][:13] + "U" + TD1[0][14:], *TD1[1:]]
    read = parse_mrz(misread, alternatives=alts)
    assert all(c["ok"] for c in read.checks.values()) and not read.valid
    # Printed with an O for the 0 (one glyph in the print font): O fails the check digit, 0 passes.
    settled = confirm_in_print(read, set(), printed_numbers={"IDENTITYCARD", "D2314589O"})
    assert settled.valid and settled.lines == TD1 and settled.fields["document_number"] == "D23145890"
    assert {"line": 0, "pos": 13, "from": "U", "to": "0", "reason": "printed number"} in settled.corrections
    # Another number printed, or none: the zone stays unverified.
    assert not confirm_in_print(read, set(), printed_numbers={"D99999999"}).valid
    assert not confirm_in_print(read, set()).valid


def test_unsure_country_code_letter_is_settled_by_the_one_printed_code_that_fits():
    from docauth.ocr.mrz import confirm_in_print

    swiss = [line.replace("UTO", "CHE") for line in TD3]
    alts = _sure(swiss)
    alts[0][4] = [("L", 0.39), ("<", 0.16), ("C", 0.07)]  # CHE's E blurred past reading: no E among the candidates
    misread = [swiss[0][:4] + "L" + swiss[0][5:], swiss[1]]
    read = parse_mrz(misread, alternatives=alts)
    assert not read.valid and read.lines[0][2:5] == "CHL"  # Chile: a known code, so nothing respells it
    settled = confirm_in_print(read, {"CHE", "ERIKSSON", "ANNA", "MARIA", "SEX"})
    assert settled.valid and settled.lines == swiss
    assert {"line": 0, "pos": 4, "from": "L", "to": "E", "reason": "printed code"} in settled.corrections
    # Two printed codes with the sure letters C and H (CHE, CHN): the page does not say which.
    assert not confirm_in_print(read, {"CHE", "CHN"}).valid


def test_deliberately_bad_specimen_stays_invalid():
    r = parse_mrz("IDMLT4821736<<2<4821736M<512<<|8104173F2903116MLT0210450<<<<3|BORGANI<ELLA<<<<<<<<<<<<<<<<<<")
    assert not r.valid
    assert r.lines[0] == "IDMLT4821736<<2<4821736M<512<<"
    assert {k for k, v in r.checks.items() if not v["ok"]} == {"document_number", "date_of_birth", "composite"}


def test_century_rule():
    today = date(2026, 6, 1)
    assert mrz_date("260531", kind="birth", today=today) == "2026-05-31"
    assert mrz_date("260602", kind="birth", today=today) == "1926-06-02"
    assert mrz_date("400101", kind="expiry", today=today) == "2040-01-01"
    assert mrz_date("990101", kind="expiry", today=today) == "1999-01-01"
    assert mrz_date("000229", kind="birth", today=today) == "2000-02-29"
    assert mrz_date("010229", kind="birth", today=today) is None


def test_line_noise_and_separators():
    text = "garbage line\n  " + TD3[0][:20] + " " + TD3[0][20:] + "\n" + TD3[1] + "\n\n"
    r = parse_mrz(text)
    assert r.type == "TD3" and r.valid


def test_wrong_length_is_not_valid():
    r = parse_mrz([TD3[0], TD3[1][:-1]])
    assert r.type == "TD3" and not r.valid and not r.structure_ok


def test_shared_specimen_strings_parse_as_annotated(shared_data):
    from docauth.training.ocr_eval import load_truth

    for row in load_truth(shared_data / "mrz-specimens"):
        r = parse_mrz(row["lines"])
        assert r.type == row["mrz_type"], row["file"]
        assert r.valid == row["expect_valid"], row["file"]
        assert r.lines == row["lines"], (row["file"], r.corrections)


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.text(max_size=200),
    st.lists(st.text(alphabet=MRZ_CHARS + "O0IK| \n", min_size=0, max_size=50), max_size=5),
    st.lists(st.text(alphabet=MRZ_CHARS, min_size=28, max_size=46), min_size=1, max_size=4),
))
def test_parser_never_raises(value):
    r = parse_mrz(value)
    assert 0 <= r.score <= 100
    assert isinstance(r.export(), dict)
    if r.valid:
        assert r.type is not None and all(c["ok"] for c in r.checks.values())


def test_issuing_state_and_nationality_must_be_country_codes():
    # No check digit covers them: the recogniser's next candidate that makes a code is taken, and reported.
    # Issued by Germany ('D<<') to a national of Utopia: nothing else vouches for the nationality's letters.
    abroad = TD3[0][:2] + "D<<" + TD3[0][5:]
    lines = [abroad, TD3[1][:12] + "Q" + TD3[1][13:]]  # UTO read as UTQ
    alternatives = [[[(c, 1.0)] for c in line] for line in lines]
    alternatives[1][12] = [("Q", 0.7), ("O", 0.25), ("D", 0.05)]
    r = parse_mrz(lines, alternatives=alternatives)
    assert r.fields["nationality"] == "UTO" and r.lines == [abroad, TD3[1]]
    assert {"line": 1, "pos": 12, "from": "Q", "to": "O", "reason": "nationality code"} in r.corrections
    assert not r.valid  # the letter was uncertain and no check digit vouches for it
    # Issued by Utopia itself, read surely: the issuing state vouches for the nationality it spells.
    lines[0], alternatives[0] = TD3[0], [[(c, 1.0)] for c in TD3[0]]
    r = parse_mrz(lines, alternatives=alternatives)
    assert r.lines == TD3 and r.valid and (1, 12) not in r.uncertain
    # Without the recogniser's candidates a code one letter from the document's other code is that code.
    r = parse_mrz([TD1[0], TD1[1][:15] + "UTD" + TD1[1][18:], TD1[2]])
    assert r.fields["nationality"] == "UTO" and r.valid
    # Two letters lost into filler, the one left agreeing with the other code: that code.
    r = parse_mrz([TD1[0][:3] + "<<" + TD1[0][5:], TD1[1], TD1[2]])
    assert r.fields["issuing_state"] == "UTO" and r.lines == TD1
    # Nothing to go on: the code stands as read, with a warning.
    r = parse_mrz([TD3[0][:2] + "QQQ" + TD3[0][5:], TD3[1]])
    assert r.fields["issuing_state"] == "QQQ"
    assert "issuing state 'QQQ' is not an ICAO country code" in r.export()["warnings"]


def test_zeros_in_an_empty_optional_field_are_filler():
    # '<' and '0' both count 0 in every check digit: only the field's layout tells them apart.
    read = [TD1[0][:29] + "0", TD1[1], TD1[2]]
    r = parse_mrz(read)
    assert r.lines == TD1 and r.valid
    assert r.corrections == [{"line": 0, "pos": 29, "from": "0", "to": "<",
                              "reason": "filler of an empty optional field"}]


def test_a_filler_lost_in_a_run_is_restored_where_the_check_digits_fit():
    # A frame-wise recogniser merges repeated characters: '<<<<<<<<<<<' read one short shifts the
    # composite check digit; put back inside the run, every check passes, so the line is whole again.
    read = [TD1[0], TD1[1][:20] + TD1[1][21:], TD1[2]]
    r = parse_mrz(read)
    assert r.lines == TD1 and r.valid
    assert r.corrections == [{"line": 1, "pos": 28, "from": "", "to": "<",
                              "reason": "filler lost in a run of fillers"}]
    # A filler read twice is taken out the same way.
    r = parse_mrz([TD3[0], TD3[1][:40] + "<" + TD3[1][40:]])
    assert r.lines == TD3 and r.valid


def test_a_short_line_no_check_digit_reads_is_not_refitted():
    # A name line a character short: any refit would pass every check, so none is taken.
    r = parse_mrz([TD1[0], TD1[1], TD1[2][:9] + TD1[2][10:]])
    assert not r.valid and not r.structure_ok and r.corrections == []
    # A character lost outside the runs of fillers: no refit puts the check digits back.
    r = parse_mrz([TD1[0][:8] + TD1[0][9:], TD1[1], TD1[2]])
    assert not r.valid and r.lines[0] != TD1[0]


def test_a_correction_only_the_composite_chose_is_not_verified():
    # Optional data on a TD1 card has no check digit of its own; the composite picks which of the
    # recogniser's candidates fits, and so cannot vouch for the pick.
    line1 = "I<UTOD231458907" + "12345" + "<" * 10
    line2 = "7408122F1204159UTO" + "<" * 11
    line2 += check_digit(line1[5:30] + line2[0:7] + line2[8:15] + line2[18:29])
    truth = [line1, line2, TD1[2]]
    read = [line1[:17] + "8" + line1[18:], line2, TD1[2]]  # the 3 in the optional data read as 8
    alts = _sure(read)
    alts[0][17] = [("8", 0.55), ("3", 0.4), ("6", 0.05)]
    assert parse_mrz(truth, alternatives=_sure(truth)).valid
    r = parse_mrz(read, alternatives=alts)
    assert r.lines == truth and not r.valid
    assert [c["reason"] for c in r.corrections] == ["composite check digit"]


def test_unchecked_letters_of_small_glyphs_need_a_surer_read():
    from docauth.ocr.mrz import confirm_in_print
    from docauth.ocr.mrz.parse import SMALL_GLYPH_MIN_P, SMALL_GLYPH_PITCH, at_glyph_pitch

    p = (SMALL_GLYPH_MIN_P + 0.8) / 2  # sure enough for a sharp glyph, not for a small one
    alts = _sure(TD3)
    alts[0][7] = [("I", p), ("L", 1 - p)]      # ERIKSSON's I
    alts[0][16] = [("N", p), ("M", 1 - p)]     # ANNA's first N
    alts[1][1] = [("8", p), ("6", 1 - p)]      # a digit of the document number: its check digit vouches for it
    large = at_glyph_pitch(parse_mrz(TD3, alternatives=alts), 2 * SMALL_GLYPH_PITCH)
    assert large.valid and large.glyph_pitch == 2 * SMALL_GLYPH_PITCH
    small = at_glyph_pitch(parse_mrz(TD3, alternatives=alts), SMALL_GLYPH_PITCH - 1)
    assert not small.valid and small.checks_pass
    assert {(0, 7), (0, 16)} <= set(small.uncertain) and (1, 1) not in small.uncertain
    assert any("px apart" in w for w in small.warnings)
    # The page's print settles a letter; the zone is valid only once it settles every unsure one.
    assert not confirm_in_print(small, {"ERIKSSON", "PASSPORT"}).valid
    assert confirm_in_print(small, {"ERIKSSON", "ANNA", "MARIA"}).valid
    # Only the unchecked characters are held to it: a small zone read surely there stays valid.
    alts[0][7], alts[0][16] = [("I", 0.99), ("L", 0.01)], [("N", 0.99), ("M", 0.01)]
    assert at_glyph_pitch(parse_mrz(TD3, alternatives=alts), SMALL_GLYPH_PITCH - 1).valid


def test_a_small_number_whose_o_and_0_could_swap_and_still_pass_is_not_verified():
    from docauth.ocr.mrz.parse import SMALL_GLYPH_PITCH, at_glyph_pitch

    def zone(number):  # a made-up holder's passport zone with this document number
        line = number + check_digit(number) + "UTO8203151M3107221<<<<<<<<<<<<<<0"
        return [TD3[0], line + check_digit(line[:10] + line[13:20] + line[21:43])]

    swappable, alone = zone("X7O520184"), zone("X7O523184")  # O and a 0 at the same check weight; an O alone
    assert at_glyph_pitch(parse_mrz(swappable, alternatives=_sure(swappable)), 2 * SMALL_GLYPH_PITCH).valid
    small = at_glyph_pitch(parse_mrz(swappable, alternatives=_sure(swappable)), SMALL_GLYPH_PITCH - 1)
    assert not small.valid and small.checks_pass and small.checks["document_number"]["doubtful"]
    assert not small.field_is_certain("document_number") and small.field_is_certain("date_of_birth")
    assert at_glyph_pitch(parse_mrz(alone, alternatives=_sure(alone)), SMALL_GLYPH_PITCH - 1).valid
