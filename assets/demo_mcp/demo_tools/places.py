"""Weather and travel tools over fixed city, airport and country tables."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from demo_tools.base import REFERENCE_DATE, BadInput, _digest, _key, _lookup, parse_date, tool

# ---------------------------------------------------------------- weather


# city: temperature °C, condition, humidity %, wind km/h, AQI, PM2.5, PM10, ozone, pollen (grass, tree, weed), UV
_WEATHER: dict[str, tuple] = {
    "lisbon": (24, "sunny", 55, 14, 32, 8, 18, 60, ("moderate", "low", "low"), 8),
    "oslo": (3, "light snow", 81, 19, 18, 4, 9, 40, ("none", "low", "none"), 1),
    "paris": (17, "light rain", 77, 16, 48, 12, 22, 55, ("high", "moderate", "low"), 4),
    "berlin": (15, "cloudy", 68, 21, 41, 10, 20, 52, ("high", "high", "moderate"), 4),
    "london": (14, "overcast", 80, 22, 38, 9, 17, 45, ("moderate", "moderate", "low"), 3),
    "new york": (21, "partly cloudy", 60, 18, 55, 14, 25, 70, ("moderate", "high", "low"), 6),
    "tokyo": (23, "humid and cloudy", 74, 11, 52, 13, 24, 66, ("low", "moderate", "low"), 7),
    "delhi": (36, "hazy", 40, 9, 182, 95, 160, 88, ("low", "low", "moderate"), 10),
    "sydney": (16, "sunny", 58, 20, 22, 5, 12, 35, ("low", "low", "low"), 4),
    "madrid": (28, "sunny", 30, 12, 45, 11, 21, 72, ("high", "moderate", "moderate"), 9),
    "rome": (26, "sunny", 50, 10, 50, 13, 23, 74, ("moderate", "moderate", "low"), 8),
    "vienna": (20, "partly cloudy", 58, 15, 36, 9, 16, 58, ("moderate", "moderate", "low"), 6),
    "amsterdam": (15, "showers", 79, 26, 30, 7, 15, 44, ("moderate", "low", "low"), 3),
    "barcelona": (25, "sunny", 62, 13, 44, 11, 20, 68, ("moderate", "low", "moderate"), 8),
    "singapore": (31, "thunderstorms", 84, 10, 58, 15, 27, 40, ("none", "low", "none"), 11),
    "san francisco": (16, "foggy", 83, 24, 28, 6, 13, 38, ("moderate", "high", "low"), 5),
    "phoenix": (38, "sunny", 12, 11, 62, 16, 35, 80, ("low", "low", "high"), 11),
    "toronto": (18, "cloudy", 65, 17, 33, 8, 16, 50, ("moderate", "moderate", "low"), 5),
}
_CITY_ALIASES = {"nyc": "new york", "new york city": "new york", "sf": "san francisco", "lisboa": "lisbon",
                 "wien": "vienna", "roma": "rome", "new delhi": "delhi", "shibuya": "tokyo", "manhattan": "new york"}


def _city(value: Any) -> tuple[str, tuple]:
    return _lookup(_WEATHER, _CITY_ALIASES, value, "weather")


def _temp(celsius: float, units: str) -> float:
    return round(celsius * 9 / 5 + 32, 1) if units == "imperial" else float(celsius)


@tool("get_weather")
def get_weather(a: dict) -> dict:
    city, w = _city(a["city"])
    units = a.get("units") or "metric"
    wind = w[3] if units == "metric" else round(w[3] / 1.609, 1)
    return {"city": city.title(), "temperature": _temp(w[0], units), "units": units, "conditions": w[1],
            "humidity_percent": w[2], "wind": wind, "wind_unit": "km/h" if units == "metric" else "mph",
            "observed": f"{REFERENCE_DATE.isoformat()}T12:00"}


@tool("weather_forecast")
def weather_forecast(a: dict) -> dict:
    city, w = _city(a["location"])
    days = int(a.get("days") or 3)
    if not 1 <= days <= 10:
        raise BadInput("days must be between 1 and 10")
    units = a.get("units") or "metric"
    out = []
    for i in range(days):
        # A fixed wobble around the table value keeps the forecast plausible and repeatable.
        swing = ((len(city) * 7 + i * 5) % 7) - 3
        rain = (w[2] + i * 13 + len(city) * 3) % 100
        day = REFERENCE_DATE + timedelta(days=i)
        out.append({"date": day.isoformat(), "weekday": day.strftime("%A"), "high": _temp(w[0] + 3 + swing, units),
                    "low": _temp(w[0] - 5 + swing, units), "chance_of_rain_percent": rain})
    return {"location": city.title(), "units": units, "days": out}


@tool("get_air_quality")
def get_air_quality(a: dict) -> dict:
    city, w = _city(a["city"])
    aqi = w[4]
    level = ("good" if aqi <= 50 else "moderate" if aqi <= 100 else "unhealthy for sensitive groups"
             if aqi <= 150 else "unhealthy")
    return {"city": city.title(), "aqi": aqi, "level": level, "pm2_5": w[5], "pm10": w[6], "ozone": w[7]}


@tool("get_pollen_count")
def get_pollen_count(a: dict) -> dict:
    city, w = _city(a["city"])
    grass, tree, weed = w[8]
    return {"city": city.title(), "today": {"grass": grass, "tree": tree, "weed": weed},
            "tomorrow": {"grass": grass, "tree": tree, "weed": weed}}


@tool("get_uv_index")
def get_uv_index(a: dict) -> dict:
    city, w = _city(a["location"])
    uv = w[9]
    advice = "no protection needed" if uv <= 2 else "wear sunscreen" if uv <= 7 else "avoid midday sun"
    return {"location": city.title(), "uv_index_now": max(uv - 2, 0), "uv_index_peak": uv, "advice": advice}


@tool("get_humidity")
def get_humidity(a: dict) -> dict:
    city, w = _city(a["city"])
    t, rh = w[0], w[2]
    gamma = math.log(rh / 100) + 17.62 * t / (243.12 + t)  # Magnus formula
    return {"city": city.title(), "relative_humidity_percent": rh, "dew_point_c": round(243.12 * gamma / (17.62 - gamma), 1)}


# ---------------------------------------------------------------- travel

_AIRPORTS = {
    "JFK": ("John F. Kennedy International", "New York", 4, "AirTrain to Jamaica station, then subway or LIRR"),
    "LHR": ("Heathrow", "London", 4, "Elizabeth line or Heathrow Express to Paddington (15–30 min)"),
    "SFO": ("San Francisco International", "San Francisco", 4, "BART to downtown (30 min)"),
    "AMS": ("Schiphol", "Amsterdam", 1, "direct train to Amsterdam Centraal (15 min, every 10 min)"),
    "CDG": ("Charles de Gaulle", "Paris", 3, "RER B to the city centre (35 min)"),
    "HND": ("Haneda", "Tokyo", 3, "Keikyu line or Tokyo Monorail (20–30 min)"),
    "LIS": ("Humberto Delgado", "Lisbon", 2, "Metro red line to the centre (20 min)"),
    "BER": ("Berlin Brandenburg", "Berlin", 2, "FEX airport express to Hauptbahnhof (30 min)"),
    "MAN": ("Manchester Airport", "Manchester", 3, "train to Piccadilly (20 min)"),
    "MAD": ("Adolfo Suárez Madrid–Barajas", "Madrid", 4, "Metro line 8 or airport express bus"),
    "FCO": ("Leonardo da Vinci–Fiumicino", "Rome", 3, "Leonardo Express to Termini (32 min)"),
    "OSL": ("Oslo Gardermoen", "Oslo", 1, "Flytoget airport express (20 min)"),
    "VIE": ("Vienna International", "Vienna", 3, "City Airport Train to Wien Mitte (16 min)"),
    "BCN": ("Josep Tarradellas Barcelona–El Prat", "Barcelona", 2, "Aerobús to Plaça Catalunya (35 min)"),
    "SIN": ("Changi", "Singapore", 4, "MRT East-West line to the city (35 min)"),
}
_AIRPORT_ALIASES = {"heathrow": "LHR", "schiphol": "AMS", "haneda": "HND", "gardermoen": "OSL", "barajas": "MAD",
                    "fiumicino": "FCO", "changi": "SIN", "el prat": "BCN", "charles de gaulle": "CDG",
                    "kennedy": "JFK", "nyc": "JFK", "sf": "SFO"}


def _airport(value: Any) -> str:
    text = str(value).strip()
    code = text.upper()
    if code in _AIRPORTS:
        return code
    key = _key(text.split(",")[0])
    for alias, found in _AIRPORT_ALIASES.items():
        if alias in key:
            return found
    for found, (name, city, *_rest) in _AIRPORTS.items():
        if key in (_key(city), _key(name)):
            return found
    raise BadInput(f"unknown airport or city {value!r}; known codes: {', '.join(sorted(_AIRPORTS))}")


@tool("search_flights")
def search_flights(a: dict) -> dict:
    origin, dest = _airport(a["origin"]), _airport(a["destination"])
    if origin == dest:
        raise BadInput("origin and destination are the same airport")
    day = parse_date(a["date"], "date")
    cabin = a.get("cabin") or "economy"
    factor = {"economy": 1, "premium": 1.8, "business": 3.5, "first": 6}.get(cabin, 1)
    passengers = int(a.get("passengers") or 1)
    flights = []
    for i, airline in enumerate(("SkyLark", "Atlantic Air", "EuroJet")):
        h = _digest(origin, dest, day, airline)
        dep = 6 + (h % 14)
        duration = 60 + h % 600
        price = round((80 + h % 420) * factor, 2)
        flights.append({"flight_number": f"{airline[:2].upper()}{100 + h % 900}", "airline": airline,
                        "origin": origin, "destination": dest, "date": day.isoformat(),
                        "departure": f"{dep:02d}:{(i * 20) % 60:02d}", "duration_minutes": duration,
                        "stops": h % 2, "cabin": cabin, "price_per_person_usd": price,
                        "total_usd": round(price * passengers, 2)})
    flights.sort(key=lambda f: f["price_per_person_usd"])
    return {"origin": origin, "destination": dest, "date": day.isoformat(), "flights": flights}


@tool("airport_info")
def airport_info(a: dict) -> dict:
    code = _airport(a["iata_code"])
    name, city, terminals, transport = _AIRPORTS[code]
    return {"iata_code": code, "name": name, "city": city, "terminals": terminals, "to_city": transport}


_VISA = {  # (citizenship, destination) -> (visa needed, note)
    ("india", "japan"): (True, "a tourist visa from a Japanese consulate or the eVISA, stays up to 90 days"),
    ("india", "thailand"): (False, "visa exemption for stays up to 60 days"),
    ("united states", "japan"): (False, "visa-free for stays up to 90 days"),
    ("united states", "schengen"): (False, "visa-free for 90 days in any 180"),
    ("united kingdom", "schengen"): (False, "visa-free for 90 days in any 180"),
    ("india", "schengen"): (True, "a Schengen short-stay visa"),
    ("china", "schengen"): (True, "a Schengen short-stay visa"),
    ("brazil", "schengen"): (False, "visa-free for 90 days in any 180"),
    ("united kingdom", "united states"): (False, "an ESTA authorisation, stays up to 90 days"),
    ("india", "united states"): (True, "a B-2 tourist visa"),
}
_SCHENGEN = {"france", "germany", "spain", "italy", "portugal", "netherlands", "austria", "norway", "greece"}
_COUNTRY_ALIASES = {"indian": "india", "in": "india", "us": "united states", "usa": "united states",
                    "american": "united states", "uk": "united kingdom", "british": "united kingdom",
                    "gb": "united kingdom", "jp": "japan", "japanese": "japan", "chinese": "china",
                    "brazilian": "brazil", "pe": "peru", "th": "thailand"}


def _country(value: Any) -> str:
    key = _key(value)
    return _COUNTRY_ALIASES.get(key, key)


@tool("get_visa_requirements")
def get_visa_requirements(a: dict) -> dict:
    citizen, dest = _country(a["citizenship"]), _country(a["destination"])
    region = "schengen" if dest in _SCHENGEN else dest
    if citizen == dest:
        needed, note = False, "citizens need no visa for their own country"
    elif (citizen, region) in _VISA:
        needed, note = _VISA[(citizen, region)]
    else:
        raise BadInput(f"no visa data for citizens of {a['citizenship']!r} visiting {a['destination']!r}")
    return {"citizenship": citizen.title(), "destination": dest.title(), "visa_required": needed, "details": note}


_ADVISORIES = {
    "peru": (2, "exercise increased caution: crime in cities, protests can close roads"),
    "japan": (1, "exercise normal precautions"), "france": (2, "exercise increased caution: terrorism risk"),
    "mexico": (2, "exercise increased caution; some states level 4"), "portugal": (1, "exercise normal precautions"),
    "thailand": (1, "exercise normal precautions; avoid the far south"), "egypt": (3, "reconsider travel"),
    "norway": (1, "exercise normal precautions"), "brazil": (2, "exercise increased caution: crime"),
    "india": (2, "exercise increased caution"), "united kingdom": (2, "exercise increased caution: terrorism"),
}


@tool("get_travel_advisory")
def get_travel_advisory(a: dict) -> dict:
    country, (level, note) = _lookup(_ADVISORIES, _COUNTRY_ALIASES, a["country"], "travel advisory")
    return {"country": country.title(), "level": level, "scale": "1 (normal precautions) – 4 (do not travel)",
            "notes": note}


_HOTEL_NAMES = ("Hostel Central", "Garden Inn", "Grand Palace")


def hotel_ids(city: str) -> list[str]:
    return [f"HTL-{_digest(city, name) % 900000 + 100000}" for name in _HOTEL_NAMES]


@tool("search_hotels")
def search_hotels(a: dict) -> dict:
    city, _w = _city(a["city"])
    check_in, check_out = parse_date(a["check_in"], "check_in"), parse_date(a["check_out"], "check_out")
    nights = (check_out - check_in).days
    if nights <= 0:
        raise BadInput("check_out must be after check_in")
    cap = a.get("max_price")
    hotels = []
    for hid, name, base, rating in zip(hotel_ids(city), _HOTEL_NAMES, (45, 120, 320), (4.1, 4.4, 4.8), strict=True):
        price = base + _digest(city, name) % 40
        if cap is None or price <= float(cap):
            hotels.append({"hotel_id": hid, "name": f"{city.title()} {name}", "price_per_night": price,
                           "currency": "EUR", "rating": rating, "km_to_centre": round(0.4 + (_digest(hid) % 40) / 10, 1),
                           "total_price": price * nights})
    return {"city": city.title(), "check_in": check_in.isoformat(), "check_out": check_out.isoformat(),
            "nights": nights, "hotels": hotels}
