"""Names a person fills a form with: IANA time zones, countries, languages and currencies, looked up from
the words of a request. Used by the offline planner (:mod:`core.trials.slots`) to read a schema that asks
for ``Asia/Tokyo`` when the request says "Tokyo".

Time zones come from the standard library's zone list (``zoneinfo.available_timezones()``) and the tz
database's own ``zone.tab`` / ``iso3166.tab`` tables, read from where ``zoneinfo`` reads its zones (or the
``tzdata`` package). The small hand-written tables below cover what that data lacks: common country aliases,
a few large cities that are not zone names, language names, ISO 4217 codes. They are ours, not a standard's.
"""

from __future__ import annotations

import re
import unicodedata
import zoneinfo
from functools import cache
from pathlib import Path

# Zone areas a person means by a city; "Etc", "SystemV", "US/…" and bare legacy links are left out.
_AREAS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian",
          "Pacific")
# Large cities that are not zone names, with the zone they keep (our table).
_CITY_ZONES = {
    "san francisco": "America/Los_Angeles", "seattle": "America/Los_Angeles", "las vegas": "America/Los_Angeles",
    "san diego": "America/Los_Angeles", "washington": "America/New_York", "boston": "America/New_York",
    "miami": "America/New_York", "atlanta": "America/New_York", "philadelphia": "America/New_York",
    "dallas": "America/Chicago", "houston": "America/Chicago", "austin": "America/Chicago",
    "beijing": "Asia/Shanghai", "shenzhen": "Asia/Shanghai", "mumbai": "Asia/Kolkata", "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata", "bangalore": "Asia/Kolkata", "bengaluru": "Asia/Kolkata", "osaka": "Asia/Tokyo",
    "kyoto": "Asia/Tokyo", "munich": "Europe/Berlin", "frankfurt": "Europe/Berlin", "hamburg": "Europe/Berlin",
    "cologne": "Europe/Berlin", "barcelona": "Europe/Madrid", "milan": "Europe/Rome", "florence": "Europe/Rome",
    "venice": "Europe/Rome", "naples": "Europe/Rome", "geneva": "Europe/Zurich", "lyon": "Europe/Paris",
    "marseille": "Europe/Paris", "manchester": "Europe/London", "edinburgh": "Europe/London",
    "rio de janeiro": "America/Sao_Paulo", "rio": "America/Sao_Paulo", "porto": "Europe/Lisbon",
    "rotterdam": "Europe/Amsterdam", "st petersburg": "Europe/Moscow", "saint petersburg": "Europe/Moscow",
    "abu dhabi": "Asia/Dubai", "tel aviv": "Asia/Jerusalem", "cape town": "Africa/Johannesburg",
    "quebec": "America/Toronto", "ottawa": "America/Toronto",
}
# Country names people use that iso3166.tab spells otherwise (our table).
_COUNTRY_ALIASES = {
    "uk": "GB", "u.k.": "GB", "united kingdom": "GB", "great britain": "GB", "britain": "GB", "england": "GB",
    "scotland": "GB", "wales": "GB", "usa": "US", "u.s.": "US", "u.s.a.": "US", "united states of america": "US",
    "the us": "US", "the states": "US", "south korea": "KR", "korea": "KR", "north korea": "KP",
    "czechia": "CZ", "holland": "NL", "the netherlands": "NL", "uae": "AE", "emirates": "AE", "burma": "MM",
    "ivory coast": "CI", "macedonia": "MK", "russian federation": "RU", "vatican": "VA", "swaziland": "SZ",
}
# Language names and their ISO 639-1 codes (our table).
LANGUAGES = {
    "english": "en", "french": "fr", "german": "de", "spanish": "es", "italian": "it", "portuguese": "pt",
    "dutch": "nl", "swedish": "sv", "norwegian": "no", "danish": "da", "finnish": "fi", "icelandic": "is",
    "polish": "pl", "czech": "cs", "slovak": "sk", "hungarian": "hu", "romanian": "ro", "bulgarian": "bg",
    "greek": "el", "turkish": "tr", "russian": "ru", "ukrainian": "uk", "croatian": "hr", "serbian": "sr",
    "slovenian": "sl", "estonian": "et", "latvian": "lv", "lithuanian": "lt", "irish": "ga", "welsh": "cy",
    "catalan": "ca", "basque": "eu", "arabic": "ar", "hebrew": "he", "persian": "fa", "farsi": "fa",
    "hindi": "hi", "bengali": "bn", "urdu": "ur", "tamil": "ta", "chinese": "zh", "mandarin": "zh",
    "cantonese": "zh", "japanese": "ja", "korean": "ko", "thai": "th", "vietnamese": "vi", "indonesian": "id",
    "malay": "ms", "filipino": "tl", "tagalog": "tl", "swahili": "sw", "afrikaans": "af", "latin": "la",
}
# ISO 4217 codes people name most, for telling a currency code from any three capitals (our list).
ISO_4217 = frozenset("""USD EUR GBP JPY CHF CAD AUD NZD CNY HKD SGD INR KRW SEK NOK DKK PLN CZK HUF RON BGN TRY
    RUB UAH ILS AED SAR QAR EGP ZAR NGN KES MAD BRL MXN ARS CLP COP PEN THB VND IDR MYR PHP TWD PKR BDT ISK""".split())


def _plain(text: str) -> str:
    """Lower case, accents removed, underscores and runs of spaces as one space: "São_Paulo" → "sao paulo"."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"[\s_]+", " ", text.replace(".", "")).strip().lower()


def _tz_table(name: str) -> list[list[str]]:
    """Rows of one tz database table (``zone.tab``, ``iso3166.tab``), or none where it cannot be found."""
    for root in zoneinfo.TZPATH:
        path = Path(root) / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            break
    else:
        try:
            from importlib.resources import files

            text = (files("tzdata") / "zoneinfo" / name).read_text(encoding="utf-8")
        except Exception:  # noqa: BLE001 - no tz table installed: the hand tables still work
            return []
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@cache
def all_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


@cache
def _zone_index() -> dict[str, str]:
    """City (a zone's last part, plain) → zone. Zones listed in zone.tab (the canonical ones) win over links."""
    canonical = {row[2] for row in _tz_table("zone.tab") if len(row) >= 3}
    index: dict[str, str] = {}
    for zone in sorted(all_zones(), key=lambda z: (z not in canonical, z.count("/"), z)):
        if zone.split("/")[0] not in _AREAS or "/" not in zone:
            continue
        index.setdefault(_plain(zone.rsplit("/", 1)[1]), zone)
    return index


@cache
def _countries() -> tuple[dict[str, str], dict[str, str]]:
    """(plain country name → ISO 3166 code, code → its main zone). A country's main zone is its only zone in
    zone.tab, or the one zone.tab describes as covering most of it ("most of Germany", "Spain (mainland)");
    a country with several zones and no such line (the United States, Russia, Australia) has none."""
    names: dict[str, str] = {}
    for row in _tz_table("iso3166.tab"):
        if len(row) < 2:
            continue
        code, name = row[0].strip(), row[1].strip()
        names.setdefault(_plain(name.replace("&", "and")), code)
        m = re.fullmatch(r"(.+?)\s*\((.+)\)", name)
        if m:  # "Britain (UK)", "Korea (South)", "Myanmar (Burma)"
            names.setdefault(_plain(m.group(1)), code)
            inner = m.group(2)
            if inner in ("North", "South"):
                names[_plain(f"{inner} {m.group(1)}")] = code
            elif "." not in inner:
                names.setdefault(_plain(inner), code)
    names.update(_COUNTRY_ALIASES)
    zones: dict[str, list[tuple[str, str]]] = {}
    for row in _tz_table("zone.tab"):
        if len(row) >= 3:
            zones.setdefault(row[0], []).append((row[2], row[3] if len(row) > 3 else ""))
    main: dict[str, str] = {}
    for code, listed in zones.items():
        if len(listed) == 1:
            main[code] = listed[0][0]
            continue
        most = [z for z, note in listed if re.search(r"\bmost of\b|\(mainland\)", note, re.IGNORECASE)]
        if len(most) == 1:
            main[code] = most[0]
    return names, main


def country_code(text: str) -> str | None:
    """ISO 3166 alpha-2 code of a country name ("Japan" → "JP", "the UK" → "GB"), else None."""
    key = _plain(text)
    names = _countries()[0]
    return names.get(key) or names.get(re.sub(r"^the ", "", key))


def country_name(code: str) -> str | None:
    for row in _tz_table("iso3166.tab"):
        if len(row) >= 2 and row[0] == code:
            return re.sub(r"\s*\(.*\)$", "", row[1]).replace("&", "and")
    return None


def iana_zone(text: str) -> tuple[str, str] | None:
    """(zone, how) for a zone name, city or country, else None: "Europe/Berlin" is kept whole, "Tokyo" →
    ("Asia/Tokyo", "city"), "Japan" → ("Asia/Tokyo", "country"); a country with no main zone gives None."""
    raw = text.strip()
    if raw in all_zones() and ("/" in raw or raw in ("UTC", "GMT")):
        return raw, "zone"
    if raw.upper() in ("UTC", "GMT", "Z"):
        return "UTC", "zone"
    key = _plain(raw.split(",")[0])
    if not key:
        return None
    zone = _zone_index().get(key) or _CITY_ZONES.get(key)
    if zone:
        return zone, "city"
    code = country_code(raw) or country_code(key)
    if code and code in _countries()[1]:
        return _countries()[1][code], "country"
    return None


_ZONE_NAME = re.compile(r"\b(?:" + "|".join(_AREAS) + r"|Etc)/[A-Za-z0-9_+\-]+(?:/[A-Za-z0-9_+\-]+)?")
_CAP_RUN = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:de|da|do|del|la|le|es|of|am|upon)?\s*[A-Z][\w'’.-]*)*")


def zones_in(query: str) -> list[tuple[int, str, str, str]]:
    """(position, zone, the words that named it, preposition before them) for every time zone a request
    names: an IANA name kept whole, "UTC"/"GMT", or a capitalised city or country. Longest phrase first,
    so "New York" wins over "York"."""
    out: list[tuple[int, str, str, str]] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, zone: str, words: str) -> None:
        if any(a < end and start < b for a, b in taken):
            return
        taken.append((start, end))
        before = [w for w in query[:start].lower().split() if w != "the"]
        out.append((start, zone, words, before[-1].strip(",") if before else ""))

    for m in _ZONE_NAME.finditer(query):
        if m.group(0) in all_zones():
            add(m.start(), m.end(), m.group(0), m.group(0))
    for m in re.finditer(r"\b(?:UTC|GMT)\b", query):
        add(m.start(), m.end(), "UTC" if m.group(0) == "UTC" else "GMT", m.group(0))
    for m in _CAP_RUN.finditer(query):
        words = m.group(0).rstrip(".'’")
        parts = words.split()
        # every sub-run, longest first: "Convert 16:30 in Berlin" → "Berlin"; "New York time" → "New York"
        for size in range(len(parts), 0, -1):
            for i in range(len(parts) - size + 1):
                phrase = " ".join(parts[i: i + size])
                found = iana_zone(phrase) if phrase.lower() not in _NOT_ZONE_WORDS else None
                if found:
                    start = m.start() + words.index(phrase) if phrase in words else m.start()
                    add(start, start + len(phrase), found[0], phrase)
    return sorted(out)


# Capitalised words that happen to be zone cities or countries but rarely mean them in a request.
_NOT_ZONE_WORDS = frozenset({"i", "a", "what", "how", "when", "convert", "time", "date", "is", "can", "please",
                             "chad", "jersey", "guinea", "georgia", "jordan", "victoria", "march", "may", "eastern",
                             "central", "pacific", "mountain", "atlantic", "indian"})


def language_code(text: str) -> str | None:
    return LANGUAGES.get(_plain(text))


def languages_in(query: str) -> list[tuple[int, str, str]]:
    """(position, language name, ISO 639-1 code) for each language a request names."""
    out = []
    for m in re.finditer(r"[A-Za-z]+", query):
        code = LANGUAGES.get(m.group(0).lower())
        if code:
            out.append((m.start(), m.group(0).capitalize(), code))
    return out


def countries_in(query: str) -> list[tuple[int, str, str]]:
    """(position, the words used, ISO 3166 code) for each country a request names, longest phrase first."""
    out: list[tuple[int, str, str]] = []
    taken: list[tuple[int, int]] = []
    for m in re.finditer(r"\b(?:the\s+)?[A-Z][\w.'’-]*(?:\s+(?:and\s+)?[A-Z][\w.'’-]*)*|\b(?:uk|usa)\b", query):
        words = m.group(0).split()
        for size in range(len(words), 0, -1):
            for i in range(len(words) - size + 1):
                phrase = " ".join(words[i: i + size]).rstrip(".,")
                code = country_code(phrase) if phrase.lower() not in ("i", "a", "us") else None
                if code:
                    start = m.start() + m.group(0).find(phrase)
                    if not any(a < start + len(phrase) and start < b for a, b in taken):
                        taken.append((start, start + len(phrase)))
                        out.append((start, re.sub(r"^the\s+", "", phrase, flags=re.IGNORECASE), code))
    return sorted(out)
