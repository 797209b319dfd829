"""Maths, physics, health, text, developer and news tools."""

from __future__ import annotations

import ast
import base64
import binascii
import hashlib
import json
import math
import operator
import re
import statistics
from datetime import timedelta
from typing import Any

from demo_tools.base import REFERENCE_DATE, BadInput, _digest, _key, _number, tool

# ---------------------------------------------------------------- maths and physics

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_FUNCS = {"sqrt": math.sqrt, "sin": math.sin, "cos": math.cos, "tan": math.tan, "log": math.log10, "ln": math.log,
          "log10": math.log10, "log2": math.log2, "exp": math.exp, "abs": abs, "round": round, "floor": math.floor,
          "ceil": math.ceil, "factorial": math.factorial}
_CONSTS = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _eval(node: ast.AST) -> float:
    # Only numbers, the four operations, powers and a few named functions: no names, attributes or calls
    # outside these tables can run.
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 1000 or abs(left) > 1e100):
            raise BadInput("exponent too large")
        return _OPS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Name) and node.id in _CONSTS:
        return _CONSTS[node.id]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
            and not node.keywords and len(node.args) == 1):
        arg = _eval(node.args[0])
        if node.func.id == "factorial" and not (0 <= arg <= 500 and float(arg).is_integer()):
            raise BadInput("factorial needs an integer between 0 and 500")
        return _FUNCS[node.func.id](int(arg) if node.func.id == "factorial" else arg)
    raise BadInput("the expression may only use numbers, + - * / ^ %, parentheses and sqrt/sin/cos/tan/log/ln/exp/abs")


def safe_evaluate(expression: str) -> float:
    text = str(expression).strip().lower()
    if len(text) > 300:
        raise BadInput("expression too long")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)  # thousands separators
    text = text.replace("what is", "").rstrip("=? ").strip()
    text = text.replace("×", "*").replace("÷", "/").replace("−", "-").replace("^", "**")
    text = re.sub(r"(?<=[\d)])\s*x\s*(?=[\d(])", "*", text)  # "3 x 4" as multiplication
    text = re.sub(r"(\d+(?:\.\d+)?)\s*%\s*of\s*", r"(\1/100)*", text)  # "17.5% of 2340"
    text = re.sub(r"(\d+(?:\.\d+)?)\s*%", r"(\1/100)", text)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise BadInput(f"cannot parse expression {expression!r}") from None
    try:
        return _eval(tree)
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        if isinstance(exc, BadInput):
            raise
        raise BadInput(f"cannot evaluate {expression!r}: {exc}") from None


@tool("calculate")
def calculate(a: dict) -> dict:
    value = safe_evaluate(a["expression"])
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    elif isinstance(value, float):
        value = float(f"{value:.12g}")
    return {"expression": a["expression"], "result": value}


def _integer(value: Any, name: str) -> int:
    number = _number(value, name)
    if not number.is_integer():
        raise BadInput(f"{name} must be an integer")
    return int(number)


@tool("prime_factorization")
def prime_factorization(a: dict) -> dict:
    n = _integer(a["number"], "number")
    if not 2 <= n <= 10**12:
        raise BadInput("number must be between 2 and 10^12")
    factors, m, p = [], n, 2
    while p * p <= m:
        while m % p == 0:
            factors.append(p)
            m //= p
        p += 1 if p == 2 else 2
    if m > 1:
        factors.append(m)
    powers = {str(f): factors.count(f) for f in sorted(set(factors))}
    return {"number": n, "factors": factors, "powers": powers, "is_prime": factors == [n]}


@tool("gcd_lcm")
def gcd_lcm(a: dict) -> dict:
    numbers = [_integer(v, "numbers") for v in a["numbers"]]
    if len(numbers) < 2 or any(v == 0 for v in numbers):
        raise BadInput("give at least two non-zero integers")
    return {"numbers": numbers, "gcd": math.gcd(*numbers), "lcm": math.lcm(*numbers)}


@tool("solve_quadratic")
def solve_quadratic(a: dict) -> dict:
    qa, qb, qc = (_number(a[k], k) for k in ("a", "b", "c"))
    if qa == 0:
        raise BadInput("a must not be zero (that is a linear equation)")
    disc = qb * qb - 4 * qa * qc
    if disc >= 0:
        root = math.sqrt(disc)
        roots = sorted({(-qb - root) / (2 * qa), (-qb + root) / (2 * qa)})
        return {"discriminant": disc, "roots": [round(r, 10) for r in roots], "complex": False}
    re_part, im_part = -qb / (2 * qa), math.sqrt(-disc) / (2 * abs(qa))
    return {"discriminant": disc, "complex": True,
            "roots": [f"{round(re_part, 10)} - {round(im_part, 10)}i", f"{round(re_part, 10)} + {round(im_part, 10)}i"]}


@tool("compute_statistics")
def compute_statistics(a: dict) -> dict:
    numbers = [_number(v, "numbers") for v in a["numbers"]]
    if not numbers:
        raise BadInput("numbers must not be empty")
    return {"count": len(numbers), "mean": statistics.fmean(numbers), "median": statistics.median(numbers),
            "stdev": statistics.stdev(numbers) if len(numbers) > 1 else 0.0, "min": min(numbers), "max": max(numbers)}


@tool("calculate_velocity")
def calculate_velocity(a: dict) -> dict:
    u, acc, t = (_number(a[k], k) for k in ("initial_velocity", "acceleration", "time"))
    return {"final_velocity": u + acc * t, "formula": "v = u + a·t", "unit": "m/s (for SI inputs)"}


@tool("calculate_free_fall_distance")
def calculate_free_fall_distance(a: dict) -> dict:
    t = _number(a["time"], "time")
    g = _number(a.get("gravity") or 9.81, "gravity")
    if t < 0:
        raise BadInput("time must not be negative")
    return {"distance": round(0.5 * g * t * t, 6), "formula": "d = ½·g·t²", "gravity": g, "unit": "m (for SI inputs)"}


@tool("calculate_acceleration")
def calculate_acceleration(a: dict) -> dict:
    u, v, t = (_number(a[k], k) for k in ("initial_velocity", "final_velocity", "time"))
    if t == 0:
        raise BadInput("time must not be zero")
    return {"acceleration": (v - u) / t, "formula": "a = Δv / t", "unit": "m/s² (for SI inputs)"}


# ---------------------------------------------------------------- health


def _bmi(weight: float, height_cm: float) -> dict:
    if weight <= 0 or height_cm <= 0:
        raise BadInput("weight and height must be positive")
    bmi = weight / (height_cm / 100) ** 2
    category = ("underweight" if bmi < 18.5 else "normal weight" if bmi < 25 else "overweight" if bmi < 30
                else "obese")
    return {"bmi": round(bmi, 1), "category": category}


@tool("calculate_bmi")
def calculate_bmi(a: dict) -> dict:
    return _bmi(_number(a["weight_kg"], "weight_kg"), _number(a["height_cm"], "height_cm"))


@tool("compute_body_mass_index")
def compute_body_mass_index(a: dict) -> dict:
    return _bmi(_number(a["mass_kg"], "mass_kg"), _number(a["height_cm"], "height_cm"))


@tool("calculate_bmr")
def calculate_bmr(a: dict) -> dict:
    age, weight, height = _number(a["age"], "age"), _number(a["weight_kg"], "weight_kg"), _number(a["height_cm"], "height_cm")
    bmr = 10 * weight + 6.25 * height - 5 * age + (5 if a["sex"] == "male" else -161)  # Mifflin–St Jeor
    factor = {"sedentary": 1.2, "light": 1.375, "moderate": 1.55, "active": 1.725}[a.get("activity") or "light"]
    return {"bmr_kcal": round(bmr), "activity": a.get("activity") or "light", "daily_kcal": round(bmr * factor),
            "formula": "Mifflin–St Jeor"}


@tool("calculate_body_fat")
def calculate_body_fat(a: dict) -> dict:
    waist, neck, height = (_number(a[k], k) for k in ("waist_cm", "neck_cm", "height_cm"))
    if a["sex"] == "male":
        if waist <= neck:
            raise BadInput("waist must be larger than neck")
        fat = 495 / (1.0324 - 0.19077 * math.log10(waist - neck) + 0.15456 * math.log10(height)) - 450
    else:
        if not a.get("hip_cm"):
            raise BadInput("hip_cm is needed for the female formula")
        hip = _number(a["hip_cm"], "hip_cm")
        fat = 495 / (1.29579 - 0.35004 * math.log10(waist + hip - neck) + 0.22100 * math.log10(height)) - 450
    return {"body_fat_percent": round(fat, 1), "method": "US Navy"}


@tool("heart_rate_zones")
def heart_rate_zones(a: dict) -> dict:
    age = _number(a["age"], "age")
    max_hr = 220 - age
    rest = a.get("resting_hr")
    zones = {}
    for name, lo, hi in (("1 recovery", 0.5, 0.6), ("2 endurance", 0.6, 0.7), ("3 tempo", 0.7, 0.8),
                         ("4 threshold", 0.8, 0.9), ("5 maximum", 0.9, 1.0)):
        if rest:  # Karvonen: percentages of the heart-rate reserve
            zones[name] = [round(rest + lo * (max_hr - rest)), round(rest + hi * (max_hr - rest))]
        else:
            zones[name] = [round(lo * max_hr), round(hi * max_hr)]
    return {"max_hr": max_hr, "method": "Karvonen" if rest else "percent of max", "zones": zones}


_water_today_ml = 0  # the server process's running total: "today" lasts as long as the process


@tool("track_water_intake")
def track_water_intake(a: dict) -> dict:
    global _water_today_ml
    ml = _integer(a["millilitres"], "millilitres")
    if not 0 < ml <= 5000:
        raise BadInput("millilitres must be between 1 and 5000")
    _water_today_ml += ml
    return {"added_ml": ml, "today_total_ml": _water_today_ml, "daily_goal_ml": 2000}


# ---------------------------------------------------------------- text and developer tools


@tool("count_words")
def count_words(a: dict) -> dict:
    text = str(a["text"])
    words = re.findall(r"\b[\w'’-]+\b", text)
    sentences = [s for s in re.split(r"[.!?]+", text) if s.strip()]
    return {"words": len(words), "characters": len(text), "sentences": len(sentences),
            "reading_minutes": round(len(words) / 230, 2)}


@tool("encode_base64")
def encode_base64(a: dict) -> dict:
    text = str(a["text"])
    if a.get("decode"):
        try:
            return {"result": base64.b64decode(text.strip(), validate=True).decode("utf-8"), "mode": "decode"}
        except (binascii.Error, UnicodeDecodeError):
            raise BadInput("text is not valid Base64 of UTF-8 text") from None
    return {"result": base64.b64encode(text.encode()).decode(), "mode": "encode"}


@tool("hash_text")
def hash_text(a: dict) -> dict:
    algorithm = a.get("algorithm") or "sha256"
    return {"algorithm": algorithm, "hex": hashlib.new(algorithm, str(a["text"]).encode()).hexdigest()}


@tool("format_json")
def format_json(a: dict) -> dict:
    try:
        doc = json.loads(a["json_text"])
    except json.JSONDecodeError as exc:
        return {"valid": False, "error": f"line {exc.lineno}, column {exc.colno}: {exc.msg}"}
    return {"valid": True, "formatted": json.dumps(doc, indent=int(a.get("indent") or 2), ensure_ascii=False)}


@tool("regex_test")
def regex_test(a: dict) -> dict:
    if len(str(a["pattern"])) > 500 or len(str(a["text"])) > 20000:
        raise BadInput("pattern or text too long")
    try:
        pattern = re.compile(a["pattern"])
    except re.error as exc:
        raise BadInput(f"invalid regular expression: {exc}") from None
    matches = [m.group(0) for m in pattern.finditer(a["text"])][:100]
    return {"pattern": a["pattern"], "matches": matches, "count": len(matches)}


_DICTIONARY = {
    "ephemeral": ("adjective", "lasting for a very short time", "Fame on the internet is often ephemeral."),
    "serendipity": ("noun", "the luck of finding something good without looking for it",
                    "Meeting her there was pure serendipity."),
    "ubiquitous": ("adjective", "present or found everywhere", "Phones have become ubiquitous."),
    "pragmatic": ("adjective", "dealing with things sensibly and realistically", "a pragmatic approach to the budget"),
    "resilient": ("adjective", "able to recover quickly from difficulty", "Children are often remarkably resilient."),
    "quixotic": ("adjective", "idealistic in an unrealistic, impractical way", "a quixotic plan to end all traffic"),
}


@tool("get_definition")
def get_definition(a: dict) -> dict:
    word = _key(a["word"]).strip("'\"")
    if word not in _DICTIONARY:
        raise BadInput(f"no entry for {a['word']!r} in the offline dictionary")
    pos, meaning, example = _DICTIONARY[word]
    return {"word": word, "part_of_speech": pos, "definition": meaning, "example": example}


_HEADLINES = {
    "general": ["City councils adopt four-day week pilots", "Record heat expected across southern Europe",
                "Space agency confirms crewed lunar flyby for next year"],
    "business": ["Central bank holds rates steady", "Chip maker beats earnings forecasts",
                 "Electric car sales rise 18% in the first quarter"],
    "technology": ["New open-source language model tops coding benchmark", "Smartphone makers agree on common charger",
                   "Quantum start-up demonstrates error-corrected qubits"],
    "sports": ["Benfica win 2–1 at home", "Lakers beat Celtics 112–104", "Marathon world record falls in Berlin"],
    "science": ["Telescope images the oldest known galaxy", "Ocean heat content reaches new high"],
    "health": ["Study links daily walks to better sleep", "Measles vaccination campaign expands"],
}


@tool("get_top_headlines")
def get_top_headlines(a: dict) -> dict:
    category = a.get("category") or "general"
    return {"country": a.get("country") or "us", "category": category,
            "headlines": [{"title": t, "source": "Demo Wire", "published": REFERENCE_DATE.isoformat()}
                          for t in _HEADLINES[category]]}


_ARTICLES = [
    ("Electric car market grows as prices fall", "business", ["electric", "car", "ev", "market", "vehicle"]),
    ("Battery makers expand European plants", "business", ["battery", "electric", "europe", "factory"]),
    ("Lakers edge Celtics in overtime thriller", "sports", ["lakers", "celtics", "nba", "basketball"]),
    ("Benfica extend lead at the top of the league", "sports", ["benfica", "football", "portugal"]),
    ("Heatwave warnings issued for Lisbon and Madrid", "general", ["heatwave", "lisbon", "madrid", "weather"]),
    ("Open-source AI model released under permissive licence", "technology", ["ai", "model", "open", "source"]),
    ("Apple shares climb after product launch", "business", ["apple", "aapl", "shares", "stock", "iphone"]),
]


@tool("search_news")
def search_news(a: dict) -> dict:
    words = {w for w in re.findall(r"[a-z]+", str(a["query"]).lower()) if len(w) > 1}
    hits = [{"title": title, "section": section, "source": "Demo Wire", "published": REFERENCE_DATE.isoformat()}
            for title, section, tags in _ARTICLES if words & set(tags)]
    return {"query": a["query"], "articles": hits}


@tool("track_package")
def track_package(a: dict) -> dict:
    number = re.sub(r"\s+", "", str(a["tracking_number"])).upper()
    if not re.fullmatch(r"[A-Z0-9]{8,30}", number):
        raise BadInput(f"{a['tracking_number']!r} does not look like a tracking number")
    carrier = a.get("carrier") or ("UPS" if number.startswith("1Z") else "DHL" if number.isdigit() else "PostNL")
    steps = ["label created", "picked up", "in transit", "out for delivery", "delivered"]
    stage = _digest(number) % len(steps)
    return {"tracking_number": number, "carrier": carrier, "status": steps[stage],
            "history": steps[: stage + 1], "estimated_delivery": (REFERENCE_DATE + timedelta(days=4 - stage)).isoformat()}
