"""The text matcher's answer as the check's reason codes: which disagreement is a reason, and which is only a
note because print alone was read."""

from __future__ import annotations

from docauth.pipeline.contracts import TextMatch
from docauth.pipeline.result import jsonable

MISMATCH_CODES = {
    "surname": "name_mismatch", "given_names": "name_mismatch", "name": "name_mismatch",
    "date_of_birth": "dob_mismatch", "document_number": "document_number_mismatch",
    "expiry": "expired", "nationality": "nationality_mismatch", "sex": "sex_mismatch",
}


# A disagreement on these fields is evidence enough to reject only when a check digit confirms what was
# read; read from the printed zone alone it may be an OCR slip, and a clerk should look (review).
UNCONFIRMED_CODES = {"name_mismatch": "printed_name_mismatch", "dob_mismatch": "printed_dob_mismatch",
                     "document_number_mismatch": "printed_document_number_mismatch"}

# The fields that tie a document to the person on record: a name, or the number the issuer gave only this
# document. A birth date is shared by too many people to do it alone.
IDENTIFYING_FIELDS = ("surname", "given_names", "document_number")


def text_summary(match: TextMatch, verified: set[str] | None = None, unsure=frozenset()) -> tuple[dict, list[str]]:
    """(exported match, reason codes). Values are kept: the result goes to the authenticated caller only.

    ``verified``: the document fields a passing MRZ check digit confirms (None: treat all as confirmed).
    ``unsure``: fields read from print without confidence: a disagreement there goes to the output's
    ``unconfirmed`` list as a note, not to the reasons, and the field counts as not read.

    The output's ``agreed`` lists the record's fields the document was compared with and agrees with;
    ``not_compared`` the identifying fields that were not (not read, not on record, or read unsurely). When
    nothing disagrees and no identifying field agreed, the document is not tied to the person:
    ``text_not_checked``.
    """
    out = jsonable(match.export())
    codes: list[str] = []
    noted: set[str] = set()
    for item in (out.get("reasons") or []):
        field_name, _, why = str(item).partition(":")
        code = "expired" if why == "expired" else MISMATCH_CODES.get(field_name, f"{field_name}_mismatch")
        if verified is not None and field_name not in verified and code in UNCONFIRMED_CODES:
            code = UNCONFIRMED_CODES[code]
        if field_name in unsure and code != "expired" and (verified is None or field_name not in verified):
            out.setdefault("unconfirmed", []).append({"field": field_name, "note": code})
            noted.add(field_name)
            continue
        if code not in codes:
            codes.append(code)
    # An expiry date "agrees" with a record that has none when it has not passed: that compares nothing.
    out["agreed"] = [name for name, f in match.fields.items() if f.match is True and f.reason != "not_expired"]
    out["not_compared"] = [name for name in IDENTIFYING_FIELDS
                           if name in noted or (name in match.fields and match.fields[name].match is None)]
    if not codes and not set(out["agreed"]) & set(IDENTIFYING_FIELDS):
        codes.append("text_not_checked")  # nothing disagreed, but nothing ties the document to the person
    return out, codes
