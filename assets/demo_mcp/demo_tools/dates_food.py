"""Date, time-zone and food tools."""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from demo_tools.base import REFERENCE_DATE, BadInput, _digest, _key, _lookup, _number, parse_date, tool
from demo_tools.places import _CITY_ALIASES

# ---------------------------------------------------------------- dates


@tool("add_to_date")
def add_to_date(a: dict) -> dict:
    start, amount, unit = parse_date(a["date"], "date"), int(a["amount"]), a["unit"]
    if unit in ("days", "weeks"):
        result = start + timedelta(days=amount * (7 if unit == "weeks" else 1))
    else:
        months = amount * (12 if unit == "years" else 1)
        y, m = divmod(start.month - 1 + months, 12)
        year, month = start.year + y, m + 1
        result = date(year, month, min(start.day, calendar.monthrange(year, month)[1]))
    return {"date": start.isoformat(), "amount": amount, "unit": unit, "result": result.isoformat(),
            "weekday": result.strftime("%A")}


def _business_days(start: date, end: date) -> int:
    lo, hi = min(start, end), max(start, end)
    return sum(1 for i in range((hi - lo).days) if (lo + timedelta(days=i)).weekday() < 5)


@tool("days_between")
def days_between(a: dict) -> dict:
    start, end = parse_date(a["start_date"], "start_date"), parse_date(a["end_date"], "end_date")
    out = {"start_date": start.isoformat(), "end_date": end.isoformat(), "days": (end - start).days}
    if a.get("business_days"):
        out["business_days"] = _business_days(start, end)
    return out


@tool("date_diff")
def date_diff(a: dict) -> dict:
    first, second = parse_date(a["date1"], "date1"), parse_date(a["date2"], "date2")
    return {"date1": first.isoformat(), "date2": second.isoformat(), "days": (second - first).days}


@tool("day_of_week")
def day_of_week(a: dict) -> dict:
    day = parse_date(a["date"], "date")
    return {"date": day.isoformat(), "weekday": day.strftime("%A")}


@tool("get_week_number")
def get_week_number(a: dict) -> dict:
    day = parse_date(a["date"], "date")
    iso = day.isocalendar()
    return {"date": day.isoformat(), "iso_year": iso.year, "iso_week": iso.week}


@tool("calculate_age")
def calculate_age(a: dict) -> dict:
    born = parse_date(a["birth_date"], "birth_date")
    on = parse_date(a["on_date"], "on_date") if a.get("on_date") else REFERENCE_DATE
    if born > on:
        raise BadInput("birth_date is after on_date")
    months = (on.year - born.year) * 12 + on.month - born.month - (on.day < born.day)
    anchor_y, anchor_m = divmod(born.month - 1 + months, 12)
    anchor = date(born.year + anchor_y, anchor_m + 1, min(born.day, calendar.monthrange(born.year + anchor_y, anchor_m + 1)[1]))
    return {"birth_date": born.isoformat(), "on_date": on.isoformat(), "years": months // 12, "months": months % 12,
            "days": (on - anchor).days}


@tool("countdown_to_event")
def countdown_to_event(a: dict) -> dict:
    event = parse_date(a["event_date"], "event_date")
    days = (event - REFERENCE_DATE).days
    return {"label": a.get("label") or "event", "event_date": event.isoformat(), "from": REFERENCE_DATE.isoformat(),
            "days": days, "hours": days * 24, "minutes": days * 1440}


_ZONES = {"phoenix": "America/Phoenix", "new york": "America/New_York", "berlin": "Europe/Berlin",
          "london": "Europe/London", "paris": "Europe/Paris", "lisbon": "Europe/Lisbon", "tokyo": "Asia/Tokyo",
          "singapore": "Asia/Singapore", "sydney": "Australia/Sydney", "los angeles": "America/Los_Angeles",
          "san francisco": "America/Los_Angeles", "chicago": "America/Chicago", "delhi": "Asia/Kolkata",
          "mumbai": "Asia/Kolkata", "madrid": "Europe/Madrid", "rome": "Europe/Rome", "oslo": "Europe/Oslo",
          "vienna": "Europe/Vienna", "amsterdam": "Europe/Amsterdam", "toronto": "America/Toronto",
          "dubai": "Asia/Dubai", "hong kong": "Asia/Hong_Kong", "barcelona": "Europe/Madrid", "utc": "UTC",
          "gmt": "UTC", "est": "America/New_York", "pst": "America/Los_Angeles", "cet": "Europe/Berlin"}


def _zone(value: Any) -> ZoneInfo:
    text = str(value).strip()
    if "/" in text:
        try:
            return ZoneInfo(text)
        except (KeyError, ValueError):
            pass
    key = _key(text.split(",")[0])
    key = _CITY_ALIASES.get(key, key)
    if key in _ZONES:
        return ZoneInfo(_ZONES[key])
    raise BadInput(f"unknown time zone or city {value!r}; use an IANA name such as Europe/Lisbon")


def _offset(moment: datetime) -> str:
    minutes = int(moment.utcoffset().total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@tool("get_timezone")
def get_timezone(a: dict) -> dict:
    zone = _zone(a["city"])
    moment = datetime.combine(REFERENCE_DATE, datetime.min.time(), zone)
    return {"city": str(a["city"]), "timezone": zone.key, "utc_offset": _offset(moment), "on": REFERENCE_DATE.isoformat()}


def _clock(value: Any) -> tuple[int, int]:
    text = str(value).strip().lower().replace(".", "")
    match = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?", text)
    if not match:
        raise BadInput(f"time must look like 15:00 or 3pm, got {value!r}")
    hour, minute, half = int(match[1]), int(match[2] or 0), match[3]
    if half:
        if not 1 <= hour <= 12:
            raise BadInput(f"bad 12-hour time {value!r}")
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59:
        raise BadInput(f"bad time {value!r}")
    return hour, minute


@tool("convert_timezone")
def convert_timezone(a: dict) -> dict:
    hour, minute = _clock(a["time"])
    day = parse_date(a["date"], "date") if a.get("date") else REFERENCE_DATE
    src, dst = _zone(a["from_timezone"]), _zone(a["to_timezone"])
    moment = datetime(day.year, day.month, day.day, hour, minute, tzinfo=src)
    there = moment.astimezone(dst)
    return {"from": f"{moment:%Y-%m-%d %H:%M} {src.key}", "to": f"{there:%Y-%m-%d %H:%M} {dst.key}",
            "time": f"{there:%H:%M}", "date": there.date().isoformat(), "utc_offset": _offset(there)}


@tool("get_current_time")
def get_current_time(a: dict) -> dict:
    zone = _zone(a["timezone"])
    now = datetime.now(zone)
    return {"timezone": zone.key, "time": f"{now:%H:%M}", "date": now.date().isoformat(),
            "weekday": now.strftime("%A"), "utc_offset": _offset(now)}


@tool("set_timer")
def set_timer(a: dict) -> dict:
    minutes = _number(a["minutes"], "minutes")
    if not 0 < minutes <= 24 * 60:
        raise BadInput("minutes must be between 0 and 1440")
    label = str(a.get("label") or "timer")
    return {"timer_id": f"timer-{_digest(minutes, label) % 100000:05d}", "minutes": minutes, "label": label,
            "status": "running"}


# ---------------------------------------------------------------- food

# per 100 g: kcal, protein, fat, carbohydrates, fibre
_FOODS = {"salmon": (208, 20.4, 13.4, 0, 0), "chicken breast": (165, 31, 3.6, 0, 0), "rice": (130, 2.7, 0.3, 28.2, 0.4),
          "apple": (52, 0.3, 0.2, 13.8, 2.4), "banana": (89, 1.1, 0.3, 22.8, 2.6), "egg": (155, 13, 11, 1.1, 0),
          "flour": (364, 10.3, 1, 76.3, 2.7), "sugar": (387, 0, 0, 100, 0), "butter": (717, 0.9, 81, 0.1, 0),
          "oats": (389, 16.9, 6.9, 66.3, 10.6), "broccoli": (34, 2.8, 0.4, 6.6, 2.6), "avocado": (160, 2, 14.7, 8.5, 6.7),
          "pasta": (131, 5, 1.1, 25, 1.8), "milk": (42, 3.4, 1, 5, 0), "cheddar": (403, 24.9, 33.1, 1.3, 0),
          "bread": (265, 9, 3.2, 49, 2.7), "potato": (77, 2, 0.1, 17, 2.2), "tofu": (76, 8, 4.8, 1.9, 0.3),
          "almonds": (579, 21.2, 49.9, 21.6, 12.5), "beef": (250, 26, 15, 0, 0)}
_FOOD_ALIASES = {"chicken": "chicken breast", "eggs": "egg", "apples": "apple", "bananas": "banana",
                 "cheese": "cheddar", "almond": "almonds", "potatoes": "potato", "spaghetti": "pasta",
                 "steak": "beef", "white rice": "rice"}


@tool("get_nutrition_facts")
def get_nutrition_facts(a: dict) -> dict:
    key = _key(a["food"])
    food = _FOOD_ALIASES.get(key, key)
    if food not in _FOODS:
        food = next((f for f in _FOODS if f in key), None) or next((v for k, v in _FOOD_ALIASES.items() if k in key), None)
    if food is None:
        raise BadInput(f"no nutrition data for {a['food']!r}; known: {', '.join(sorted(_FOODS))}")
    grams = _number(a.get("grams") or 100, "grams")
    kcal, protein, fat, carbs, fibre = (round(v * grams / 100, 1) for v in _FOODS[food])
    return {"food": food, "grams": grams, "calories_kcal": kcal, "protein_g": protein, "fat_g": fat,
            "carbohydrates_g": carbs, "fibre_g": fibre}


_RECIPES = [
    {"recipe_id": "rcp-101", "title": "Mushroom risotto", "minutes": 40, "difficulty": "medium", "servings": 4,
     "diets": ["vegetarian", "gluten_free"], "ingredients": ["arborio rice", "mushrooms", "parmesan", "onion", "stock"]},
    {"recipe_id": "rcp-102", "title": "Spaghetti carbonara", "minutes": 25, "difficulty": "easy", "servings": 2,
     "diets": [], "ingredients": ["spaghetti", "eggs", "pancetta", "pecorino", "black pepper"]},
    {"recipe_id": "rcp-103", "title": "Chickpea curry", "minutes": 30, "difficulty": "easy", "servings": 4,
     "diets": ["vegetarian", "vegan", "gluten_free"], "ingredients": ["chickpeas", "tomatoes", "coconut milk", "onion", "curry paste"]},
    {"recipe_id": "rcp-104", "title": "Buttermilk pancakes", "minutes": 20, "difficulty": "easy", "servings": 4,
     "diets": ["vegetarian"], "ingredients": ["flour", "buttermilk", "eggs", "butter", "sugar"]},
    {"recipe_id": "rcp-105", "title": "Baked salmon with lemon", "minutes": 25, "difficulty": "easy", "servings": 2,
     "diets": ["gluten_free", "keto"], "ingredients": ["salmon", "lemon", "olive oil", "dill"]},
    {"recipe_id": "rcp-106", "title": "Chicken stir-fry", "minutes": 20, "difficulty": "easy", "servings": 3,
     "diets": [], "ingredients": ["chicken breast", "broccoli", "soy sauce", "ginger", "rice"]},
    {"recipe_id": "rcp-107", "title": "Lentil soup", "minutes": 45, "difficulty": "easy", "servings": 6,
     "diets": ["vegetarian", "vegan", "gluten_free"], "ingredients": ["lentils", "carrots", "celery", "onion", "cumin"]},
    {"recipe_id": "rcp-108", "title": "Banana bread", "minutes": 70, "difficulty": "medium", "servings": 8,
     "diets": ["vegetarian"], "ingredients": ["bananas", "flour", "butter", "sugar", "eggs"]},
]
RECIPE_IDS = frozenset(r["recipe_id"] for r in _RECIPES)


@tool("search_recipes")
def search_recipes(a: dict) -> dict:
    words = [w for w in re.findall(r"[a-z]+", str(a["query"]).lower()) if len(w) > 2]
    diet = a.get("diet") or "none"
    limit = a.get("max_minutes")
    hits = []
    for r in _RECIPES:
        text = " ".join([r["title"].lower(), *r["ingredients"]])
        if words and not any(w.rstrip("s") in text for w in words):
            continue
        if diet != "none" and diet not in r["diets"]:
            continue
        if limit is not None and r["minutes"] > int(limit):
            continue
        hits.append(r)
    return {"query": a["query"], "recipes": hits}


_WINES = [("mushroom", ["Pinot Noir", "oaked Chardonnay"]), ("risotto", ["Pinot Grigio", "Pinot Noir"]),
          ("steak", ["Cabernet Sauvignon", "Malbec"]), ("beef", ["Cabernet Sauvignon", "Syrah"]),
          ("lamb", ["Rioja", "Syrah"]), ("salmon", ["Pinot Noir", "dry rosé"]), ("fish", ["Sauvignon Blanc", "Albariño"]),
          ("oyster", ["Muscadet", "Champagne"]), ("chicken", ["Chardonnay", "Beaujolais"]),
          ("curry", ["off-dry Riesling", "Gewürztraminer"]), ("spicy", ["off-dry Riesling"]),
          ("pizza", ["Chianti", "Barbera"]), ("tomato", ["Chianti", "Sangiovese"]), ("cheese", ["Port", "Sauternes"]),
          ("chocolate", ["Port", "Banyuls"]), ("pasta", ["Chianti", "Montepulciano d'Abruzzo"])]


@tool("suggest_wine_pairing")
def suggest_wine_pairing(a: dict) -> dict:
    dish = str(a["dish"]).lower()
    wines: list[str] = []
    for word, picks in _WINES:
        if word in dish:
            wines += [w for w in picks if w not in wines]
    return {"dish": a["dish"], "wines": wines or ["Pinot Noir", "Sauvignon Blanc"],
            "reason": "matched on the dish's main ingredients" if wines else "versatile defaults for an unknown dish"}


_SUBSTITUTES = {
    "buttermilk": ["1 cup milk + 1 tbsp lemon juice or white vinegar, rested 5 minutes", "plain yogurt thinned with milk"],
    "butter": ["the same weight of margarine", "¾ the amount of vegetable oil", "applesauce (baking, half the amount)"],
    "egg": ["1 tbsp ground flaxseed + 3 tbsp water per egg", "¼ cup mashed banana per egg (baking)"],
    "sour cream": ["plain Greek yogurt", "crème fraîche"], "milk": ["oat milk", "soy milk", "water + butter"],
    "sugar": ["honey (¾ the amount, reduce liquid)", "maple syrup (¾ the amount)"],
    "baking powder": ["¼ tsp baking soda + ½ tsp cream of tartar per tsp"], "cream": ["evaporated milk", "milk + butter"],
    "wine": ["stock with a splash of vinegar"], "breadcrumbs": ["crushed crackers", "rolled oats"],
}


@tool("ingredient_substitute")
def ingredient_substitute(a: dict) -> dict:
    key = _key(a["ingredient"])
    found = next((k for k in _SUBSTITUTES if k == key or k == key.rstrip("s")), None)
    found = found or next((k for k in _SUBSTITUTES if k in key), None)
    return {"ingredient": a["ingredient"], "context": a.get("context") or "cooking",
            "substitutes": _SUBSTITUTES.get(found, [])}


_RESTAURANTS = {
    "tokyo": [("rst-201", "Sushi Zanmai Shibuya", "sushi", "2", 4.5, True),
              ("rst-202", "Uobei Shibuya", "sushi", "1", 4.2, True),
              ("rst-203", "Ichiran Shibuya", "ramen", "1", 4.4, False)],
    "lisbon": [("rst-301", "Taberna da Rua", "portuguese", "2", 4.6, True),
               ("rst-302", "Sea Me", "seafood", "3", 4.5, False)],
    "london": [("rst-401", "Dishoom Covent Garden", "indian", "2", 4.7, True),
               ("rst-402", "Padella", "italian", "2", 4.6, True)],
    "new york": [("rst-501", "Joe's Pizza", "pizza", "1", 4.5, True), ("rst-502", "Nobu", "sushi", "4", 4.4, False)],
    "paris": [("rst-601", "Le Comptoir", "french", "3", 4.5, False), ("rst-602", "Breizh Café", "crepes", "2", 4.4, True)],
}
RESTAURANT_IDS = frozenset(r[0] for rows in _RESTAURANTS.values() for r in rows)


@tool("find_restaurants")
def find_restaurants(a: dict) -> dict:
    city, rows = _lookup(_RESTAURANTS, _CITY_ALIASES, a["location"], "restaurant")
    cuisine = _key(a.get("cuisine") or "")
    out = [{"restaurant_id": rid, "name": name, "cuisine": kind, "price_level": price, "rating": rating,
            "open_now": is_open, "hours": "11:30–22:30" if is_open else "17:00–23:00"}
           for rid, name, kind, price, rating, is_open in rows
           if (not cuisine or cuisine.rstrip("s") in kind) and (not a.get("open_now") or is_open)
           and (not a.get("price_level") or a["price_level"] == price)]
    return {"location": city.title(), "restaurants": out, "open_now_at": "19:00 local (demo reference time)"}
