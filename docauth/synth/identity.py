"""Random but plausible holders: names (some with diacritics), countries, dates, document numbers."""

from __future__ import annotations

import datetime as dt

import numpy as np

# (ICAO code, English name, local name or None, nationality adjective)
COUNTRIES = [
    ("UTO", "UTOPIA", None, "UTOPIAN"),
    ("D", "FEDERAL REPUBLIC OF GERMANY", "BUNDESREPUBLIK DEUTSCHLAND", "DEUTSCH"),
    ("FRA", "FRENCH REPUBLIC", "RÉPUBLIQUE FRANÇAISE", "FRANÇAISE"),
    ("ESP", "KINGDOM OF SPAIN", "REINO DE ESPAÑA", "ESPAÑOLA"),
    ("ITA", "ITALIAN REPUBLIC", "REPUBBLICA ITALIANA", "ITALIANA"),
    ("NLD", "KINGDOM OF THE NETHERLANDS", "KONINKRIJK DER NEDERLANDEN", "NEDERLANDSE"),
    ("BEL", "KINGDOM OF BELGIUM", "ROYAUME DE BELGIQUE", "BELGE"),
    ("SWE", "SWEDEN", "SVERIGE", "SVENSK"),
    ("NOR", "NORWAY", "NORGE", "NORSK"),
    ("FIN", "FINLAND", "SUOMI", "SUOMI"),
    ("DNK", "DENMARK", "DANMARK", "DANSK"),
    ("POL", "REPUBLIC OF POLAND", "RZECZPOSPOLITA POLSKA", "POLSKIE"),
    ("CZE", "CZECH REPUBLIC", "ČESKÁ REPUBLIKA", "ČESKÁ REPUBLIKA"),
    ("AUT", "REPUBLIC OF AUSTRIA", "REPUBLIK ÖSTERREICH", "ÖSTERREICH"),
    ("CHE", "SWISS CONFEDERATION", "SCHWEIZERISCHE EIDGENOSSENSCHAFT", "SCHWEIZ"),
    ("PRT", "PORTUGUESE REPUBLIC", "REPÚBLICA PORTUGUESA", "PORTUGUESA"),
    ("IRL", "IRELAND", "ÉIRE", "IRISH"),
    ("GBR", "UNITED KINGDOM", None, "BRITISH CITIZEN"),
    ("CAN", "CANADA", None, "CANADIAN/CANADIENNE"),
    ("USA", "UNITED STATES OF AMERICA", None, "UNITED STATES"),
    ("LVA", "REPUBLIC OF LATVIA", "LATVIJAS REPUBLIKA", "LATVIJAS"),
    ("LTU", "REPUBLIC OF LITHUANIA", "LIETUVOS RESPUBLIKA", "LIETUVOS"),
    ("EST", "REPUBLIC OF ESTONIA", "EESTI VABARIIK", "EESTI"),
    ("GRC", "HELLENIC REPUBLIC", "ΕΛΛΗΝΙΚΗ ΔΗΜΟΚΡΑΤΙΑ", "HELLENIC"),
    ("ROU", "ROMANIA", "ROMÂNIA", "ROMÂNĂ"),
    ("HUN", "HUNGARY", "MAGYARORSZÁG", "MAGYAR"),
    ("SVK", "SLOVAK REPUBLIC", "SLOVENSKÁ REPUBLIKA", "SLOVENSKÁ"),
    ("SVN", "REPUBLIC OF SLOVENIA", "REPUBLIKA SLOVENIJA", "SLOVENSKO"),
    ("HRV", "REPUBLIC OF CROATIA", "REPUBLIKA HRVATSKA", "HRVATSKO"),
    ("ISL", "ICELAND", "ÍSLAND", "ÍSLENSKT"),
    ("MLT", "MALTA", None, "MALTESE"),
    ("LUX", "GRAND DUCHY OF LUXEMBOURG", "GRAND-DUCHÉ DE LUXEMBOURG", "LUXEMBOURGEOISE"),
    ("JPN", "JAPAN", None, "JAPAN"),
    ("AUS", "AUSTRALIA", None, "AUSTRALIAN"),
    ("NZL", "NEW ZEALAND", None, "NEW ZEALAND"),
    ("MEX", "UNITED MEXICAN STATES", "ESTADOS UNIDOS MEXICANOS", "MEXICANA"),
    ("BRA", "FEDERATIVE REPUBLIC OF BRAZIL", "REPÚBLICA FEDERATIVA DO BRASIL", "BRASILEIRA"),
    ("PER", "REPUBLIC OF PERU", "REPÚBLICA DEL PERÚ", "PERUANA"),
    ("IND", "REPUBLIC OF INDIA", None, "INDIAN"),
    ("TUR", "REPUBLIC OF TÜRKIYE", "TÜRKIYE CUMHURIYETI", "T.C."),
    ("UKR", "UKRAINE", "УКРАЇНА", "УКРАЇНА/UKRAINE"),
    ("SRB", "REPUBLIC OF SERBIA", "РЕПУБЛИКА СРБИЈА", "SRPSKO"),
    ("BGR", "REPUBLIC OF BULGARIA", "РЕПУБЛИКА БЪЛГАРИЯ", "БЪЛГАРИЯ/BGR"),
    ("XXX", "UNSPECIFIED", None, "XXX"),
]
COUNTRY_CODES = [c[0] for c in COUNTRIES]
COUNTRY_BY_CODE = {c[0]: c for c in COUNTRIES}


def country(code: str) -> tuple:
    """(code, English name, local name, nationality adjective); unknown codes print as the code itself."""
    return COUNTRY_BY_CODE.get(code) or (code, code, None, code)

SURNAMES = [
    "SMITH", "JOHNSON", "MÜLLER", "SCHMIDT", "GARCÍA", "MARTÍNEZ", "ROSSI", "BIANCHI", "DUBOIS", "LEFÈVRE",
    "JANSEN", "DE VRIES", "VAN DER BERG", "NOWAK", "KOWALSKI", "WIŚNIEWSKA", "NOVÁK", "SVOBODOVÁ", "HORVÁTH",
    "NAGY", "ANDERSSON", "JÖNSSON", "NIELSEN", "HANSEN", "JOHANSEN", "KORHONEN", "VIRTANEN", "MURPHY",
    "O'BRIEN", "KELLY", "SILVA", "SANTOS", "FERREIRA", "PEREIRA", "PAPADOPOULOS", "GEORGIOU", "POPESCU",
    "IONESCU", "PETROVIĆ", "JOVANOVIĆ", "KOVAČ", "BERZIŅŠ", "KAZLAUSKAS", "TAMM", "SAAR", "YILMAZ", "ÖZTÜRK",
    "TANAKA", "SUZUKI", "SATO", "KIM", "NGUYEN", "TRAN", "SINGH", "PATEL", "SHARMA", "KHAN", "AHMED",
    "HASSAN", "OKAFOR", "MENSAH", "DIALLO", "TRAORÉ", "CARDENAS", "RODRÍGUEZ", "HERNÁNDEZ", "LÓPEZ",
    "GONZÁLEZ MÉNDEZ", "WILLIAMS", "BROWN", "TAYLOR", "WILSON", "MARTIN", "THOMPSON", "WHITE", "CLARK",
    "ERIKSSON", "LINDQVIST", "GUÐMUNDSDÓTTIR", "ÆRØBØ", "STRAẞER", "WEISS", "FISCHER", "WAGNER", "BECKER",
    "HOFFMANN", "SCHÄFER", "KOCH", "RICHTER", "KLEIN", "WOLF", "NEUMANN", "SCHWARZ", "ZIMMERMANN",
    "MONTGOMERY-WHITTINGHAM", "ABERCROMBIE FITZGERALD", "VAN DEN HEUVEL-BOSMANS", "DA SILVA PEREIRA COSTA",
]
GIVEN_F = [
    "ANNA", "MARIA", "SOPHIE", "EMMA", "OLIVIA", "LAURA", "JULIA", "SARA", "ELENA", "CLARA", "LÉA", "CHLOÉ",
    "INÊS", "ZOË", "MARTINA", "GIULIA", "FRANCESCA", "AGNIESZKA", "KATARZYNA", "ZSÓFIA", "INGRID", "ASTRID",
    "SIGRÍÐUR", "AOIFE", "SIOBHÁN", "MEI", "YUKI", "SAKURA", "PRIYA", "AISHA", "FATIMA", "AMARA", "CARMEN",
    "LUCÍA", "MARIANA", "ANA", "BIRUTĖ", "MILICA", "KRISTIINA", "ANN-KRISTIN", "MARIE-CLAIRE", "HANNAH",
]
GIVEN_M = [
    "JOHN", "JAMES", "MICHAEL", "DAVID", "THOMAS", "PETER", "LUKAS", "JONAS", "MAXIMILIAN", "PIERRE", "JEAN",
    "FRANÇOIS", "JOSÉ", "JOÃO", "ANTÓNIO", "LUCA", "MARCO", "PIOTR", "JAKUB", "TOMÁŠ", "ISTVÁN", "ANDRIS",
    "LARS", "SVEN", "BJÖRN", "EINAR", "SEÁN", "HIROSHI", "KENJI", "RAJ", "ARJUN", "MOHAMMED", "OMAR", "KWAME",
    "JORGE", "CARLOS", "MATEO", "OLEKSANDR", "NIKOLA", "JEAN-BAPTISTE", "KARL-HEINZ", "ALEXANDER",
]

MONTHS_EN = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
MONTHS_FR = ["JAN", "FÉV", "MARS", "AVR", "MAI", "JUIN", "JUIL", "AOÛT", "SEPT", "OCT", "NOV", "DÉC"]
DATE_STYLES = ("d MON yyyy", "dd.mm.yyyy", "dd mm yyyy", "dd/mm/yyyy", "d MON/FR yy", "yyyy-mm-dd", "dd MON yyyy")

CITIES = ["ZENITH", "BERLIN", "PARIS", "MADRID", "ROMA", "AMSTERDAM", "BRUXELLES", "STOCKHOLM", "OSLO",
          "HELSINKI", "WARSZAWA", "PRAHA", "WIEN", "ZÜRICH", "LISBOA", "DUBLIN", "LONDON", "OTTAWA", "RĪGA",
          "VILNIUS", "TALLINN", "ATHINA", "BUCUREŞTI", "BUDAPEST", "BRATISLAVA", "LJUBLJANA", "ZAGREB",
          "REYKJAVÍK", "VALLETTA", "TOKYO", "SYDNEY", "LIMA", "MUMBAI", "KYIV", "BEOGRAD", "GATINEAU"]
STREETS = ["MAIN STREET", "HAUPTSTRASSE", "RUE DE LA PAIX", "CALLE MAYOR", "VIA ROMA", "KERKSTRAAT",
           "STORGATAN", "ULICA POLNA", "NÁDRAŽNÍ", "BAHNHOFSTRASSE", "AVENIDA DA LIBERDADE", "HIGH STREET",
           "BRĪVĪBAS IELA", "GEDIMINO PR.", "PÄRNU MNT", "OAK AVENUE", "SAVSKI VENAC", "UFERSTR."]


def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def random_date(rng: np.random.Generator, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=int(rng.integers((end - start).days + 1)))


def document_number(rng: np.random.Generator, length: int | None = None) -> str:
    """Alphanumeric like real issuers: letter prefix + digits, all letters, or all digits."""
    length = length or int(rng.choice([8, 9, 9, 9]))
    style = int(rng.integers(4))
    digits = "0123456789"
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"  # issuers avoid I/O/Q next to digits
    if style == 0:
        chars = [_pick(rng, letters) for _ in range(2)] + [_pick(rng, digits) for _ in range(length - 2)]
    elif style == 1:
        chars = [_pick(rng, digits) for _ in range(length)]
    elif style == 2:
        chars = [_pick(rng, letters)] + [_pick(rng, letters + digits) for _ in range(length - 1)]
    else:
        chars = [_pick(rng, letters + digits) for _ in range(length)]
    return "".join(chars)


def random_identity(rng: np.random.Generator, today: dt.date = dt.date(2026, 1, 1)) -> dict:
    """A holder + document: the label ``fields`` plus printing extras (place of birth, dates of issue...)."""
    sex = "F" if rng.random() < 0.5 else "M"
    surname = _pick(rng, SURNAMES)
    if rng.random() < 0.12:
        surname = surname + " " + _pick(rng, SURNAMES)
    pool = GIVEN_F if sex == "F" else GIVEN_M
    given = _pick(rng, pool)
    if rng.random() < 0.35:
        given += " " + _pick(rng, pool)
    if rng.random() < 0.03:
        sex = "X"  # ICAO "unspecified", printed X in the VIZ and < in the MRZ
    issuing = _pick(rng, COUNTRY_CODES)
    nationality = issuing if rng.random() < 0.85 else _pick(rng, COUNTRY_CODES)
    dob = random_date(rng, dt.date(1940, 1, 1), dt.date(2008, 12, 31))
    issue = random_date(rng, dt.date(2016, 1, 1), today)
    years = int(rng.choice([5, 10]))
    try:
        expiry = issue.replace(year=issue.year + years) - dt.timedelta(days=1)
    except ValueError:  # 29 February
        expiry = issue.replace(year=issue.year + years, day=28)
    if rng.random() < 0.1:  # some documents in the data are expired
        expiry = random_date(rng, dt.date(2015, 1, 1), today)
    return {
        "surname": surname,
        "given_names": given,
        "nationality": nationality,
        "sex": sex,
        "date_of_birth": dob.isoformat(),
        "document_number": document_number(rng),
        "expiry": expiry.isoformat(),
        "issuing_state": issuing,
        # printing extras, not part of the label schema
        "date_of_issue": issue.isoformat(),
        "place_of_birth": _pick(rng, CITIES),
        "address": f"{_pick(rng, STREETS)} {int(rng.integers(1, 200))}",
        "city": f"{int(rng.integers(1000, 99999)):05d} {_pick(rng, CITIES)}",
        "height": f"{int(rng.integers(150, 200))} cm",
        "personal_number": "".join(str(int(d)) for d in rng.integers(0, 10, size=int(rng.choice([0, 0, 9, 11])))),
        "identity_id": f"p{int(rng.integers(0, 1 << 31)):08x}",
    }


LABEL_FIELDS = ("surname", "given_names", "nationality", "sex", "date_of_birth", "document_number", "expiry",
                "issuing_state")


def label_fields(identity: dict) -> dict:
    return {k: identity[k] for k in LABEL_FIELDS}


def format_date(iso: str, style: str) -> str:
    d = dt.date.fromisoformat(iso)
    mon = MONTHS_EN[d.month - 1]
    if style == "d MON yyyy":
        return f"{d.day} {mon} {d.year}"
    if style == "dd MON yyyy":
        return f"{d.day:02d} {mon} {d.year}"
    if style == "dd.mm.yyyy":
        return f"{d.day:02d}.{d.month:02d}.{d.year}"
    if style == "dd mm yyyy":
        return f"{d.day:02d} {d.month:02d} {d.year}"
    if style == "dd/mm/yyyy":
        return f"{d.day:02d}/{d.month:02d}/{d.year}"
    if style == "d MON/FR yy":
        return f"{d.day:02d} {mon}/{MONTHS_FR[d.month - 1]} {d.year % 100:02d}"
    if style == "yyyy-mm-dd":
        return d.isoformat()
    raise ValueError(style)
