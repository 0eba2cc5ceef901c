"""Field labels as documents print them: which field a caption names, in the languages of Latin-script documents.

Captions are bilingual ("Nom / Surname"), numbered ("4. Surname", EU cards and passports), and read by OCR
with glued words and a letter wrong ("Dateof birth", "Sumame"). A caption is matched on its letters alone
(case, accents, digits and punctuation dropped): long keywords fuzzily, short ones ("nom", "ime") only as a
whole word, since they are also parts of names and of other captions. The longest keyword found decides, so
"place of birth" is not a birth date and "given name" is not a surname.

>>> label_field("1. Name/Surname").field, label_field("2.Vorname/Given name").field
('surname', 'given_names')
>>> label_field("5.Geburnsdatum/Dateof birth").field, label_field("9.GebunsortfPlace of birth").field
('date_of_birth', None)
>>> label_field("Serijska stevilka/Serial number").field, label_field("SPECIMEN") is None
('document_number', True)
>>> label_field("Datum rojstva/Date of birth 19.07.1987").value_text, label_field("Surname VASILEVA").value_text
('19.07.1987', 'VASILEVA')
>>> label_field("Father's name GEORGIEVA").field is None
True
>>> label_field("Vorname(n) Prenom(s) Nome(i) Prenum(s) Given name(s)").field
'given_names'
>>> both = label_field("Name, Vorname / Surname, Given names")
>>> both.field, both.given_names_next, label_field("Surname / Nom").given_names_next
('surname', True, False)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from rapidfuzz import fuzz

# (field, keywords). ``None`` marks captions of fields this reader does not report: they are labels all the
# same (their values must not be taken for anything else). Keywords are lower case, without accents.
KEYWORDS: tuple[tuple[str | None, tuple[str, ...]], ...] = (
    ("surname", ("surname", "surnames", "family name", "last name", "primary identifier", "identifiant primaire",
                 "nom", "name", "nachname", "familienname", "apellidos", "apellido", "cognome", "achternaam",
                 "naam", "sobrenome", "apelido", "apelidos", "nazwisko", "prijmeni", "priezvisko", "priimek",
                 "prezime", "vezeteknev", "csaladi nev", "nume", "efternamn", "efternavn", "etternavn",
                 "sukunimi", "perekonnanimi", "uzvards", "pavarde", "soyadi", "soyadi", "cognomi")),
    ("given_names", ("given names", "given name", "first name", "first names", "forenames", "forename",
                     "secondary identifier", "identifiant secondaire", "prenoms", "prenom", "vornamen", "vorname",
                     "nombre", "nombres", "nome", "nomi", "voornamen", "voornaam", "prenume", "imie", "imiona",
                     "jmeno", "jmena", "meno", "ime", "utonev", "fornamn", "fornavn", "etunimet", "eesnimi",
                     "vards", "vardas", "adi", "nomes", "keresztnev", "utonevek")),
    ("date_of_birth", ("date of birth", "birth date", "date de naissance", "geburtsdatum", "geburtstag",
                       "fecha de nacimiento", "data di nascita", "geboortedatum", "data de nascimento",
                       "data urodzenia", "datum narozeni", "datum narodenia", "datum rojstva", "datum rodenja",
                       "szuletesi ido", "szuletesi datum", "data nasterii", "fodelsedatum", "fodselsdato",
                       "syntymaaika", "sunniaeg", "dzimsanas datums", "gimimo data", "dogum tarihi",
                       "nacimiento", "naissance", "geboren")),
    ("expiry_date", ("date of expiry", "expiry date", "date of expiration", "expiration date", "expiry",
                     "valid until", "date d expiration", "gultig bis", "fecha de caducidad", "fecha de vencimiento",
                     "valido hasta", "scadenza", "data di scadenza", "geldig tot", "vervaldatum",
                     "data de validade", "valido ate", "data waznosci", "platnost do", "platnost do",
                     "veljavnost do", "vrijedi do", "ervenyes", "valabil pana", "giltig till", "gyldig til",
                     "voimassa", "kehtiv kuni", "derigs lidz", "galioja iki", "son gecerlilik")),
    (None, ("place of birth", "lieu de naissance", "geburtsort", "lugar de nacimiento", "luogo di nascita",
            "geboorteplaats", "miejsce urodzenia", "misto narozeni", "rojstni kraj", "mjesto rodenja",
            "date of issue", "issue date", "date de delivrance", "ausstellungsdatum", "fecha de expedicion",
            "fecha de emision", "data di rilascio", "datum van afgifte", "data wydania", "datum izdaje",
            "datum vydani", "authority", "autorite", "behorde", "autoridad", "autorita", "autoriteit",
            "issuing authority", "organ wydajacy", "nationality", "nationalite", "staatsangehorigkeit",
            "nacionalidad", "cittadinanza", "nationaliteit", "obywatelstwo", "drzavljanstvo", "statni obcanstvi",
            "sex", "sexe", "geschlecht", "sexo", "sesso", "geslacht", "plec", "spol", "pohlavi", "nem", "kon",
            "height", "taille", "grosse", "estatura", "statura", "lengte", "wzrost",
            "personal no", "personal number", "personal code", "pin", "emso", "codice fiscale",
            "card access number", "tax number",
            "type", "typ", "tipo", "code", "kode", "codigo", "country code", "signature", "firma",
            "unterschrift", "holder s signature", "residence", "address", "adresse", "domicile",
            "father s name", "mother s name", "fathers name", "mothers name", "name at birth", "birth name",
            "geburtsname", "nom de naissance")),
    ("document_number", ("document no", "document number", "passport no", "passport number", "card no",
                         "card number", "serial number", "no of document", "document nr", "pass nr",
                         "passnummer", "ausweisnummer", "dokumentnummer", "documentnummer", "numero de documento",
                         "numero documento", "numero du document", "numero de passeport", "n de passeport",
                         "numero de pasaporte", "numero del documento", "numero passaporto", "numer dokumentu",
                         "numer paszportu", "cislo dokladu", "cislo pasu", "serijska stevilka", "stevilka",
                         "broj isprave", "broj putovnice", "okmanyazonosito", "numarul", "passinumero",
                         "dokumendi number", "pases numurs", "paso numeris", "pasaport no", "id no",
                         "documento n", "document n", "n du document", "dokument nr", "number", "numero",
                         "id number", "identity number")),
)
# Keywords of at most this many letters match only as a whole word (exactly); longer ones fuzzily.
SHORT_KEYWORD = 4
FUZZY_SCORE = 86  # rapidfuzz partial ratio: one letter wrong or missing in a keyword of 7+ letters


@dataclass(frozen=True)
class LabelMatch:
    field: str | None  # None: a caption of a field this reader does not report
    keyword: str
    score: float
    value_text: str  # what follows the caption on the same line (a value printed beside it), "" if none
    # "Surname / Given names" as one caption, their values on the lines under it in that order.
    given_names_next: bool = False


def fold(text: str) -> str:
    """Lower case, accents dropped, every run of non-letters one space."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    plain = plain.replace("ø", "o").replace("Ø", "O").replace("ł", "l").replace("Ł", "L").replace("ß", "ss")
    return " ".join(re.findall(r"[a-z]+", plain.lower()))


_KEYWORDS = tuple((f, k, k.replace(" ", "")) for f, ks in KEYWORDS for k in ks)


def label_field(text: str) -> LabelMatch | None:
    """The caption ``text`` names, or None when it is no caption.

    A caption's text is mostly keyword: a line whose letters the best keyword covers less than a third of
    is a value that happens to contain a keyword-like word (a name, a town).
    """
    folded = fold(text)
    if not folded:
        return None
    words = folded.split()
    letters = folded.replace(" ", "")
    found = []
    for field, keyword, glued in _KEYWORDS:
        if len(glued) <= SHORT_KEYWORD:
            if keyword in words:
                found.append((field, keyword, glued, 100.0))
        elif len(glued) <= len(letters) + 1:
            # a keyword longer than the text is matched whole (the text must not be a keyword's prefix)
            score = fuzz.partial_ratio(glued, letters) if len(glued) <= len(letters) else fuzz.ratio(glued, letters)
            if score >= FUZZY_SCORE:
                found.append((field, keyword, glued, score))
    if not found:
        return None
    # A keyword read (nearly) exactly beats a fuzzy one; among those, the longest is the most specific.
    best = max(found, key=lambda m: (m[3] >= 95, len(m[2]), m[3]))
    # Multilingual captions repeat the field in several languages: every keyword found counts as caption.
    covered = sum(len(glued) for _, _, glued, _ in {m[:3]: m for m in found}.values())
    field, keyword, glued, score = best
    if covered < len(letters) / 3 and not _caption_punctuation(text):
        return None
    if _names_both(found, letters):
        return LabelMatch("surname", keyword, score, "", given_names_next=True)
    return LabelMatch(field, keyword, score, _value_after(text, field))


def _names_both(found: list[tuple], letters: str) -> bool:
    """Does the caption name the surname first, then the given names ("Name, Vorname / Surname, Given names")?
    A surname keyword inside a given-names one ("name" in "given name", "nom" in "prenom") does not count."""
    def start(glued: str) -> int:
        at = letters.find(glued)
        return at if at >= 0 else fuzz.partial_ratio_alignment(glued, letters).dest_start

    given = [(at, at + len(g)) for f, _, g, _ in found if f == "given_names" for at in (start(g),)]
    surname = [at for f, _, g, _ in found if f == "surname" for at in (start(g),)
               if not any(a <= at < b for a, b in given)]
    return bool(given and surname) and min(surname) < min(a for a, _ in given)


def _caption_punctuation(text: str) -> bool:
    """Captions carry a slash between languages, a field number or a colon; values rarely do."""
    return bool(re.search(r"/|^\s*\d{1,2}\s*[.)]|:", text))


def _value_after(text: str, field: str | None) -> str:
    """The value printed on the caption's own line ("Surname VASILEVA", "Date of birth 17.04.1986"): the words
    after the longest run of words that is a caption by itself, when they are no caption. A value's first digit
    glued to the caption's last letter ("Dateof Birth21/08/71") starts a word of its own.

    >>> _value_after("Dateof Birth21/08/71", "date_of_birth"), _value_after("Date of expiry04/12/04", "expiry_date")
    ('21/08/71', '04/12/04')
    """
    words = re.sub(r"(?<=[^\W\d_])(?=\d)", " ", text).split()
    for cut in range(len(words) - 1, 0, -1):
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        if not re.search(r"[A-Za-z0-9]", tail) or _is_caption_alone(tail):
            continue
        if _is_caption_alone(head) and (field in ("date_of_birth", "expiry_date", "document_number")
                                        and re.search(r"\d", tail) or tail.isupper()):
            return tail.strip(" :.")
    return ""


def _is_caption_alone(text: str) -> bool:
    letters = fold(text).replace(" ", "")
    if len(letters) < 3:
        return False
    for _, keyword, glued in _KEYWORDS:
        if len(glued) <= SHORT_KEYWORD:
            if keyword in fold(text).split():
                return True
        elif len(glued) <= len(letters) + 1 and fuzz.ratio(glued, letters[-len(glued):]) >= FUZZY_SCORE:
            return True
    return False
