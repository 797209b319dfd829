"""Finance and unit-conversion tools (fixed exchange-rate and quote tables)."""

from __future__ import annotations

import math
import re
from typing import Any

from demo_tools.base import BadInput, _key, _number, tool

# ---------------------------------------------------------------- finance

# Units of each currency per 1 US dollar: a fixed table, not live rates.
RATES = {"USD": 1.0, "EUR": 0.92, "GBP": 0.79, "JPY": 151.5, "CHF": 0.88, "CAD": 1.36, "AUD": 1.52, "INR": 83.2,
         "CNY": 7.24, "BRL": 5.0, "MXN": 17.1, "SEK": 10.6, "NOK": 10.7, "DKK": 6.87, "PLN": 3.98, "SGD": 1.35,
         "HKD": 7.82, "NZD": 1.66, "ZAR": 18.6, "KRW": 1340.0, "TRY": 32.0}
_CURRENCY_NAMES = {"dollar": "USD", "us dollar": "USD", "usd": "USD", "$": "USD", "euro": "EUR", "€": "EUR",
                   "pound": "GBP", "pound sterling": "GBP", "sterling": "GBP", "£": "GBP", "yen": "JPY",
                   "japanese yen": "JPY", "¥": "JPY", "swiss franc": "CHF", "franc": "CHF", "canadian dollar": "CAD",
                   "australian dollar": "AUD", "rupee": "INR", "indian rupee": "INR", "yuan": "CNY",
                   "renminbi": "CNY", "real": "BRL", "peso": "MXN", "krona": "SEK", "krone": "NOK", "zloty": "PLN",
                   "singapore dollar": "SGD", "rand": "ZAR", "won": "KRW", "lira": "TRY"}


def currency(value: Any) -> str:
    text = str(value).strip()
    if text.upper() in RATES:
        return text.upper()
    key = _key(text)
    for candidate in (key, key.rstrip("s"), key.replace("euros", "euro")):
        if candidate in _CURRENCY_NAMES:
            return _CURRENCY_NAMES[candidate]
    raise BadInput(f"unknown currency {value!r}; use an ISO 4217 code such as {', '.join(sorted(RATES))}")


@tool("convert_currency")
def convert_currency(a: dict) -> dict:
    amount = _number(a["amount"], "amount")
    src, dst = currency(a["from_currency"]), currency(a["to_currency"])
    rate = RATES[dst] / RATES[src]
    return {"amount": amount, "from": src, "to": dst, "rate": round(rate, 6), "converted": round(amount * rate, 2),
            "rates_as_of": "fixed demo table"}


_STOCKS = {"AAPL": ("Apple Inc.", 189.84, 1.12, 52_300_000), "MSFT": ("Microsoft Corp.", 415.50, -0.43, 18_900_000),
           "GOOGL": ("Alphabet Inc.", 172.63, 0.88, 24_100_000), "AMZN": ("Amazon.com Inc.", 183.15, 1.95, 38_700_000),
           "TSLA": ("Tesla Inc.", 177.46, -2.31, 91_200_000), "NVDA": ("NVIDIA Corp.", 1064.69, 3.05, 41_800_000),
           "META": ("Meta Platforms Inc.", 467.30, 0.51, 12_600_000)}
_STOCK_ALIASES = {"apple": "AAPL", "microsoft": "MSFT", "google": "GOOGL", "alphabet": "GOOGL", "amazon": "AMZN",
                  "tesla": "TSLA", "nvidia": "NVDA", "meta": "META", "facebook": "META"}


@tool("get_stock_quote")
def get_stock_quote(a: dict) -> dict:
    text = str(a["ticker"]).strip()
    ticker = text.upper() if text.upper() in _STOCKS else _STOCK_ALIASES.get(_key(text).split(" ")[0])
    if ticker is None:
        raise BadInput(f"unknown ticker {text!r}; known: {', '.join(sorted(_STOCKS))}")
    name, price, change, volume = _STOCKS[ticker]
    return {"ticker": ticker, "name": name, "price": price, "currency": "USD", "change_percent": change,
            "volume": volume}


_CRYPTO = {"BTC": (67_250.0, 1.8), "ETH": (3_480.0, -0.6), "SOL": (165.2, 4.1), "DOGE": (0.158, 2.2),
           "XRP": (0.52, -1.1)}
_CRYPTO_ALIASES = {"bitcoin": "BTC", "ether": "ETH", "ethereum": "ETH", "solana": "SOL", "dogecoin": "DOGE",
                   "ripple": "XRP"}


@tool("get_crypto_price")
def get_crypto_price(a: dict) -> dict:
    text = str(a["symbol"]).strip()
    symbol = text.upper() if text.upper() in _CRYPTO else _CRYPTO_ALIASES.get(_key(text))
    if symbol is None:
        raise BadInput(f"unknown cryptocurrency {text!r}; known: {', '.join(sorted(_CRYPTO))}")
    fiat = currency(a.get("currency") or "USD")
    usd, change = _CRYPTO[symbol]
    return {"symbol": symbol, "currency": fiat, "price": round(usd * RATES[fiat], 4), "change_24h_percent": change}


@tool("calculate_loan_payment")
def calculate_loan_payment(a: dict) -> dict:
    principal, rate = _number(a["principal"], "principal"), _number(a["annual_rate"], "annual_rate")
    years = int(_number(a["years"], "years"))
    if principal <= 0 or years <= 0 or rate < 0:
        raise BadInput("principal and years must be positive and annual_rate not negative")
    n, r = years * 12, rate / 100 / 12
    payment = principal / n if r == 0 else principal * r / (1 - (1 + r) ** -n)
    return {"monthly_payment": round(payment, 2), "months": n, "total_paid": round(payment * n, 2),
            "total_interest": round(payment * n - principal, 2)}


@tool("compound_interest")
def compound_interest(a: dict) -> dict:
    principal, rate = _number(a["principal"], "principal"), _number(a["annual_rate"], "annual_rate")
    years = int(_number(a["years"], "years"))
    monthly = _number(a.get("monthly_contribution") or 0, "monthly_contribution")
    r, n = rate / 100 / 12, years * 12
    growth = (1 + r) ** n
    value = principal * growth + (monthly * n if r == 0 else monthly * (growth - 1) / r)
    contributed = principal + monthly * n
    return {"future_value": round(value, 2), "contributed": round(contributed, 2),
            "interest_earned": round(value - contributed, 2), "compounding": "monthly"}


@tool("split_bill")
def split_bill(a: dict) -> dict:
    total, people = _number(a["total"], "total"), int(_number(a["people"], "people"))
    if people <= 0:
        raise BadInput("people must be at least 1")
    tip = _number(a.get("tip_percent") or 0, "tip_percent")
    grand = total * (1 + tip / 100)
    return {"total_with_tip": round(grand, 2), "per_person": round(grand / people, 2), "people": people}


@tool("calculate_roi")
def calculate_roi(a: dict) -> dict:
    start, end = _number(a["initial_value"], "initial_value"), _number(a["final_value"], "final_value")
    if start <= 0:
        raise BadInput("initial_value must be positive")
    out = {"roi_percent": round((end - start) / start * 100, 4)}
    if a.get("years"):
        out["annualised_percent"] = round(((end / start) ** (1 / _number(a["years"], "years")) - 1) * 100, 4)
    return out


@tool("percentage_change")
def percentage_change(a: dict) -> dict:
    old, new = _number(a["old_value"], "old_value"), _number(a["new_value"], "new_value")
    if old == 0:
        raise BadInput("old_value must not be zero")
    change = (new - old) / abs(old) * 100
    return {"percentage_change": round(change, 4), "direction": "increase" if change > 0 else
            "decrease" if change < 0 else "no change"}


# ---------------------------------------------------------------- units

# Each dimension: unit -> factor to the base unit, plus spellings a planner may use.
_DIMENSIONS: dict[str, dict[str, float]] = {
    "length": {"m": 1, "km": 1000, "cm": 0.01, "mm": 0.001, "mi": 1609.344, "yd": 0.9144, "ft": 0.3048,
               "in": 0.0254, "nmi": 1852},
    "mass": {"kg": 1, "g": 0.001, "mg": 1e-6, "lb": 0.45359237, "oz": 0.028349523125, "st": 6.35029318, "t": 1000},
    "volume": {"l": 1, "ml": 0.001, "m3": 1000, "gal": 3.785411784, "uk_gal": 4.54609, "qt": 0.946352946,
               "pt": 0.473176473, "cup": 0.2365882365, "fl_oz": 0.0295735295625, "tbsp": 0.01478676478125,
               "tsp": 0.00492892159375},
    "speed": {"m/s": 1, "km/h": 1 / 3.6, "mph": 0.44704, "kn": 0.514444, "ft/s": 0.3048},
    "area": {"m2": 1, "km2": 1e6, "cm2": 1e-4, "ha": 1e4, "acre": 4046.8564224, "ft2": 0.09290304, "mi2": 2589988.110336},
    "time": {"s": 1, "min": 60, "h": 3600, "day": 86400, "week": 604800},
    "pressure": {"pa": 1, "kpa": 1000, "bar": 1e5, "psi": 6894.757293168, "atm": 101325, "mmhg": 133.322387415,
                 "hpa": 100},
    "energy": {"j": 1, "kj": 1000, "cal": 4.184, "kcal": 4184, "wh": 3600, "kwh": 3.6e6, "btu": 1055.05585262,
               "ev": 1.602176634e-19},
    "angle": {"deg": math.pi / 180, "rad": 1, "grad": math.pi / 200, "turn": 2 * math.pi},
}
_UNIT_ALIASES = {
    "meter": "m", "metre": "m", "kilometer": "km", "kilometre": "km", "centimeter": "cm", "centimetre": "cm",
    "millimeter": "mm", "millimetre": "mm", "mile": "mi", "yard": "yd", "foot": "ft", "feet": "ft", "inch": "in",
    "inches": "in", "nautical mile": "nmi", "kilogram": "kg", "kilo": "kg", "gram": "g", "gramme": "g",
    "milligram": "mg", "pound": "lb", "lbs": "lb", "ounce": "oz", "stone": "st", "tonne": "t", "metric ton": "t",
    "liter": "l", "litre": "l", "milliliter": "ml", "millilitre": "ml", "cubic meter": "m3", "gallon": "gal",
    "us gallon": "gal", "imperial gallon": "uk_gal", "uk gallon": "uk_gal", "quart": "qt", "pint": "pt",
    "fluid ounce": "fl_oz", "fl oz": "fl_oz", "floz": "fl_oz", "tablespoon": "tbsp", "teaspoon": "tsp",
    "cups": "cup", "meters per second": "m/s", "metres per second": "m/s", "mps": "m/s", "kph": "km/h",
    "kmh": "km/h", "kilometers per hour": "km/h", "kilometres per hour": "km/h", "miles per hour": "mph",
    "knot": "kn", "knots": "kn", "square meter": "m2", "square metre": "m2", "sq m": "m2", "m²": "m2",
    "square kilometer": "km2", "square kilometre": "km2", "km²": "km2", "hectare": "ha", "square foot": "ft2",
    "square feet": "ft2", "sq ft": "ft2", "square mile": "mi2", "second": "s", "sec": "s", "minute": "min",
    "hour": "h", "hr": "h", "days": "day", "weeks": "week", "pascal": "pa", "kilopascal": "kpa",
    "atmosphere": "atm", "hectopascal": "hpa", "mbar": "hpa", "millibar": "hpa", "joule": "j", "kilojoule": "kj",
    "calorie": "cal", "kilocalorie": "kcal", "watt hour": "wh", "kilowatt hour": "kwh", "kw h": "kwh",
    "electronvolt": "ev", "degree": "deg", "degrees": "deg", "°": "deg", "radian": "rad", "gradian": "grad",
    "gon": "grad",
}


def _unit(value: Any, dimensions: tuple[str, ...]) -> tuple[str, str, float]:
    raw = str(value).strip().lower()
    candidates = [raw, raw.replace(" ", ""), raw.replace("_", " ")]
    words = re.sub(r"[_\-]+", " ", raw)
    candidates += [words, words.rstrip("s") if len(words) > 3 else words, words.replace("es", "e")]
    for cand in candidates:
        cand = _UNIT_ALIASES.get(cand, cand)
        for dim in dimensions:
            if cand in _DIMENSIONS[dim]:
                return dim, cand, _DIMENSIONS[dim][cand]
    raise BadInput(f"unknown unit {value!r} for {'/'.join(dimensions)}")


def _convert(a: dict, dimensions: tuple[str, ...]) -> dict:
    value = _number(a["value"], "value")
    dim_from, src, f_from = _unit(a["from_unit"], dimensions)
    dim_to, dst, f_to = _unit(a["to_unit"], dimensions)
    if dim_from != dim_to:
        raise BadInput(f"cannot convert {dim_from} ({src}) to {dim_to} ({dst})")
    result = value * f_from / f_to
    return {"value": value, "from_unit": src, "to_unit": dst, "result": float(f"{result:.10g}"), "dimension": dim_from}


@tool("convert_units")
def convert_units(a: dict) -> dict:
    return _convert(a, ("length", "mass", "volume", "speed", "area", "time"))


@tool("convert_pressure")
def convert_pressure(a: dict) -> dict:
    return _convert(a, ("pressure",))


@tool("convert_energy")
def convert_energy(a: dict) -> dict:
    return _convert(a, ("energy",))


@tool("convert_angle")
def convert_angle(a: dict) -> dict:
    return _convert(a, ("angle",))


_TO_KELVIN = {"C": lambda v: v + 273.15, "F": lambda v: (v - 32) * 5 / 9 + 273.15, "K": lambda v: v}
_FROM_KELVIN = {"C": lambda k: k - 273.15, "F": lambda k: (k - 273.15) * 9 / 5 + 32, "K": lambda k: k}


def _scale(value: Any) -> str:
    key = _key(value).replace("degrees ", "").replace("°", "")
    scale = {"c": "C", "celsius": "C", "centigrade": "C", "f": "F", "fahrenheit": "F", "k": "K", "kelvin": "K"}.get(key)
    if scale is None:
        raise BadInput(f"unknown temperature scale {value!r}; use C, F or K")
    return scale


@tool("convert_temperature")
def convert_temperature(a: dict) -> dict:
    value = _number(a["value"], "value")
    src, dst = _scale(a["from_scale"]), _scale(a["to_scale"])
    kelvin = _TO_KELVIN[src](value)
    if kelvin < 0:
        raise BadInput("temperature below absolute zero")
    return {"value": value, "from_scale": src, "to_scale": dst, "result": round(_FROM_KELVIN[dst](kelvin), 4)}


_DATA_UNITS = {"b": 0, "byte": 0, "bytes": 0, "kb": 1, "kib": 1, "kilobyte": 1, "mb": 2, "mib": 2, "megabyte": 2,
               "gb": 3, "gib": 3, "gigabyte": 3, "tb": 4, "tib": 4, "terabyte": 4, "pb": 5, "pib": 5, "petabyte": 5}


@tool("convert_data_size")
def convert_data_size(a: dict) -> dict:
    value = _number(a["value"], "value")
    names = []
    for field in ("from_unit", "to_unit"):
        key = _key(a[field]).rstrip("s") if len(_key(a[field])) > 3 else _key(a[field])
        if key not in _DATA_UNITS:
            raise BadInput(f"unknown data unit {a[field]!r}; use B, KB, MB, GB, TB or PB")
        names.append(key)
    binary = bool(a.get("binary")) or any("i" in n[1:] for n in names if len(n) == 3)
    base = 1024 if binary else 1000
    result = value * base ** _DATA_UNITS[names[0]] / base ** _DATA_UNITS[names[1]]
    return {"value": value, "from_unit": a["from_unit"], "to_unit": a["to_unit"], "binary": binary,
            "result": float(f"{result:.10g}")}


@tool("convert_fuel_economy")
def convert_fuel_economy(a: dict) -> dict:
    value = _number(a["value"], "value")
    if value <= 0:
        raise BadInput("value must be positive")
    km_per_l = {"mpg_us": 1.609344 / 3.785411784, "mpg_uk": 1.609344 / 4.54609}
    src, dst = a["from_unit"], a["to_unit"]
    kml = 100 / value if src == "l_per_100km" else value * km_per_l[src]
    result = 100 / kml if dst == "l_per_100km" else kml / km_per_l[dst]
    return {"value": value, "from_unit": src, "to_unit": dst, "result": round(result, 3)}


@tool("convert_number_base")
def convert_number_base(a: dict) -> dict:
    src, dst = int(a["from_base"]), int(a["to_base"])
    if not (2 <= src <= 36 and 2 <= dst <= 36):
        raise BadInput("bases must be between 2 and 36")
    text = str(a["number"]).strip().lower()
    prefix = {"0x": 16, "0b": 2, "0o": 8}.get(text[:2])
    if prefix == src:
        text = text[2:]
    try:
        n = int(text, src)
    except ValueError:
        raise BadInput(f"{a['number']!r} is not a base-{src} integer") from None
    digits, m = "", abs(n)
    while True:
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[m % dst] + digits
        m //= dst
        if m == 0:
            break
    return {"number": a["number"], "from_base": src, "to_base": dst, "result": ("-" if n < 0 else "") + digits,
            "decimal": n}


_ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
          (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def _to_roman(n: int) -> str:
    out = ""
    for value, letters in _ROMAN:
        count, n = divmod(n, value)
        out += letters * count
    return out


@tool("convert_roman_numerals")
def convert_roman_numerals(a: dict) -> dict:
    text = str(a["value"]).strip().upper()
    if text.isdigit():
        n = int(text)
        if not 1 <= n <= 3999:
            raise BadInput("integers must be between 1 and 3999")
        return {"value": text, "result": _to_roman(n)}
    if not text or not re.fullmatch(r"[MDCLXVI]+", text):
        raise BadInput(f"{a['value']!r} is neither an integer nor a Roman numeral")
    total, i = 0, 0
    for value, letters in _ROMAN:
        while text.startswith(letters, i):
            total, i = total + value, i + len(letters)
    if i != len(text) or _to_roman(total) != text:
        raise BadInput(f"{a['value']!r} is not a well-formed Roman numeral")
    return {"value": text, "result": total}


# Grams in one US cup, per ingredient; other measures go through millilitres.
_GRAMS_PER_CUP = {"flour": 120, "all purpose flour": 120, "sugar": 200, "brown sugar": 220, "butter": 227,
                  "water": 237, "milk": 245, "rice": 185, "oats": 90, "honey": 340, "cocoa": 85, "salt": 292}
_ML = {"cup": 236.5882365, "tbsp": 14.78676478125, "tsp": 4.92892159375, "ml": 1, "l": 1000, "fl_oz": 29.5735295625}
_GRAMS = {"g": 1, "kg": 1000, "oz": 28.349523125, "lb": 453.59237}


@tool("convert_cooking_measure")
def convert_cooking_measure(a: dict) -> dict:
    qty = _number(a["quantity"], "quantity")
    _d1, src, _f1 = _unit(a["from_measure"], ("volume", "mass"))
    _d2, dst, _f2 = _unit(a["to_measure"], ("volume", "mass"))
    ingredient = _key(a.get("ingredient") or "water")
    per_cup = _GRAMS_PER_CUP.get(ingredient) or _GRAMS_PER_CUP.get(ingredient.split(" ")[-1])
    if (src in _GRAMS) != (dst in _GRAMS) and per_cup is None:
        raise BadInput(f"no density for ingredient {a.get('ingredient')!r}; known: {', '.join(sorted(_GRAMS_PER_CUP))}")
    for unit in (src, dst):
        if unit not in _ML and unit not in _GRAMS:
            raise BadInput(f"unsupported kitchen measure {unit!r}")
    grams_per_ml = (per_cup or 237) / _ML["cup"]
    grams = qty * _GRAMS[src] if src in _GRAMS else qty * _ML[src] * grams_per_ml
    result = grams / _GRAMS[dst] if dst in _GRAMS else grams / grams_per_ml / _ML[dst]
    return {"quantity": qty, "from_measure": src, "to_measure": dst, "ingredient": ingredient,
            "result": round(result, 2)}
