"""The codes an MRZ may carry as issuing state or nationality (ICAO 9303 part 3, section 5).

ISO 3166-1 alpha-3, Germany's one-letter ``D``, and the codes ICAO adds for organisations, special
travel documents and persons without a nationality. A code outside this set is an OCR error or a
document that is not what it claims; :func:`docauth.ocr.mrz.parse_mrz` corrects the first from the
recogniser's alternatives and warns about the second.

>>> is_known_code("D<<"), is_known_code("UTO"), is_known_code("NLR"), is_known_code("XXA")
(True, True, False, True)
"""

from __future__ import annotations

ISO_3166_ALPHA3 = frozenset("""
ABW AFG AGO AIA ALA ALB AND ARE ARG ARM ASM ATA ATF ATG AUS AUT AZE BDI BEL BEN BES BFA BGD BGR BHR BHS BIH
BLM BLR BLZ BMU BOL BRA BRB BRN BTN BVT BWA CAF CAN CCK CHE CHL CHN CIV CMR COD COG COK COL COM CPV CRI CUB
CUW CXR CYM CYP CZE DEU DJI DMA DNK DOM DZA ECU EGY ERI ESH ESP EST ETH FIN FJI FLK FRA FRO FSM GAB GBR GEO
GGY GHA GIB GIN GLP GMB GNB GNQ GRC GRD GRL GTM GUF GUM GUY HKG HMD HND HRV HTI HUN IDN IMN IND IOT IRL IRN
IRQ ISL ISR ITA JAM JEY JOR JPN KAZ KEN KGZ KHM KIR KNA KOR KWT LAO LBN LBR LBY LCA LIE LKA LSO LTU LUX LVA
MAC MAF MAR MCO MDA MDG MDV MEX MHL MKD MLI MLT MMR MNE MNG MNP MOZ MRT MSR MTQ MUS MWI MYS MYT NAM NCL NER
NFK NGA NIC NIU NLD NOR NPL NRU NZL OMN PAK PAN PCN PER PHL PLW PNG POL PRI PRK PRT PRY PSE PYF QAT REU ROU
RUS RWA SAU SDN SEN SGP SGS SHN SJM SLB SLE SLV SMR SOM SPM SRB SSD STP SUR SVK SVN SWE SWZ SXM SYC SYR TCA
TCD TGO THA TJK TKL TKM TLS TON TTO TUN TUR TUV TWN TZA UGA UKR UMI URY USA UZB VAT VCT VEN VGB VIR VNM VUT
WLF WSM YEM ZAF ZMB ZWE
""".split())

# ICAO's own: Germany, British nationals of other kinds, the UN and its agencies, other organisations, the EU,
# stateless persons and refugees, unspecified nationality, Kosovo, and Utopia, the state of ICAO's specimens;
# then retired codes that documents still in circulation carry (the Netherlands Antilles; Bosnia's BOS).
ICAO_SPECIAL = frozenset("""
D GBD GBN GBO GBP GBS UNO UNA UNK XBA XIM XCC XCE XCO XEC XPO XES XMP XOM XDC EUE XXA XXB XXC XXX RKS UTO
ANT BOS
""".split())

KNOWN_CODES = ISO_3166_ALPHA3 | ICAO_SPECIAL


def is_known_code(field: str) -> bool:
    """Is this three-character MRZ field (``D<<`` as printed) a code ICAO 9303 allows?"""
    return field.replace("<", "") in KNOWN_CODES and not field.startswith("<")
