"""Writes the demo catalog: tools.json, five versions, overlap groups and gold queries.

    python assets/demo/build_demo.py [--out DIR]

Deterministic: the same files come out on every run. All content is our own, from the
tables in catalog_data.py, more_tools.py and overlap_data.py.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from catalog_data import CATEGORIES  # noqa: E402
from more_tools import LEGACY, MORE  # noqa: E402
from overlap_data import DUPLICATES, LOOKALIKE_TOOLS, LOOKALIKES  # noqa: E402

SEED = 20261122
N_VERSIONS = 5

PARAM_DOCS = {
    "city": "City name, optionally with country (e.g. 'Lisbon, PT').",
    "location": "Place name, address or 'lat,lon'.",
    "units": "Measurement system for the result.",
    "days": "Number of days.",
    "date": "Date in ISO format (YYYY-MM-DD).",
    "amount": "Amount of money or quantity.",
    "from_currency": "ISO 4217 code of the currency to convert from (e.g. USD).",
    "to_currency": "ISO 4217 code of the currency to convert to (e.g. EUR).",
    "ticker": "Stock ticker symbol (e.g. AAPL).",
    "origin": "Starting point: airport code, city or address.",
    "destination": "End point: airport code, city, address or country.",
    "passengers": "Number of travellers.",
    "query": "Free-text search terms.",
    "text": "The text to work on.",
    "target_language": "Language to translate into, as a name or ISO 639-1 code.",
    "source_language": "Language of the input; detected when omitted.",
    "timezone": "IANA time-zone name (e.g. Europe/Lisbon) or a city.",
    "start_date": "First day of the range (YYYY-MM-DD).",
    "end_date": "Last day of the range (YYYY-MM-DD).",
    "value": "The number to convert.",
    "from_unit": "Unit of the input value.",
    "to_unit": "Unit wanted in the result.",
    "to": "Recipient(s).",
    "subject": "Subject line.",
    "body": "Message body.",
    "title": "Title.",
    "start": "Start date and time (ISO 8601).",
    "end": "End date and time (ISO 8601).",
    "attendees": "Email addresses of the people to invite.",
    "file_id": "Identifier of a stored file.",
    "expression": "Mathematical expression, e.g. '(2+3)^2'.",
    "variable": "Variable to solve or differentiate for.",
    "weight_kg": "Body weight in kilograms.",
    "height_cm": "Height in centimetres.",
    "age": "Age in years.",
    "country": "Country name or ISO code.",
    "year": "Four-digit year.",
    "limit": "Maximum number of results.",
    "principal": "Initial amount borrowed or saved.",
    "annual_rate": "Yearly interest rate in percent.",
    "years": "Duration in years.",
}


def parse_param(spec: str) -> tuple[str, dict, bool]:
    m = re.fullmatch(r"(\w+):(\w+)(?:\(([^)]*)\))?(!)?(?:=(.*))?", spec)
    if not m:
        raise ValueError(f"bad parameter spec {spec!r}")
    name, kind, choices, req, default = m.groups()
    schema: dict = {}
    if kind == "enum":
        schema = {"type": "string", "enum": choices.split("|")}
    elif kind == "list":
        schema = {"type": "array", "items": {"type": "string"}}
    elif kind == "date":
        schema = {"type": "string", "format": "date"}
    else:
        schema = {"type": {"str": "string", "int": "integer", "num": "number", "bool": "boolean"}[kind]}
    schema["description"] = PARAM_DOCS.get(name) or name.replace("_", " ").capitalize() + "."
    if default is not None:
        schema["default"] = {"true": True, "false": False}.get(default, _num(default))
    return name, schema, bool(req)


def _num(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def make_tool(key: str, name: str, category: str, description: str, params: list[str]) -> dict:
    props, required = {}, []
    for spec in params:
        pname, schema, req = parse_param(spec)
        props[pname] = schema
        if req:
            required.append(pname)
    return {"type": "function", "key": key, "category": category,
            "function": {"name": name, "description": description,
                         "parameters": {"type": "object", "properties": props, "required": required}}}


def build_tools() -> tuple[list[dict], dict[str, list[str]], dict[str, str]]:
    """The latest catalog, every tool's intent phrases, and each tool's category."""
    tools, intents, category_of = [], {}, {}
    for cat, entries in CATEGORIES.items():
        for key, desc, params, phrases in entries:
            tools.append(make_tool(key, key, cat, desc, params))
            intents[key] = phrases
            category_of[key] = cat
    for key, cat, desc, params, phrases in LOOKALIKE_TOOLS:
        tools.append(make_tool(key, key, cat, desc, params))
        intents[key] = phrases
        category_of[key] = cat
    for canonical, members in DUPLICATES.items():
        for key, name, cat, desc, params in members:
            tools.append(make_tool(key, name, cat or category_of[canonical], desc, params))
            category_of[key] = cat or category_of[canonical]
    for cat, entries in MORE.items():
        for key, desc, params in entries:
            tools.append(make_tool(key, key, cat, desc, params))
            category_of[key] = cat
    keys = [t["key"] for t in tools]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate keys in the demo tables: {sorted(dup)}")
    return tools, intents, category_of


def overlap_groups() -> list[dict]:
    groups = []
    for i, (canonical, members) in enumerate(DUPLICATES.items(), start=1):
        groups.append({"id": f"d{i:02d}", "kind": "duplicate", "keys": [canonical] + [m[0] for m in members],
                       "note": f"same job as {canonical} under other names, wording and parameter names"})
    for i, (label, keys, note) in enumerate(LOOKALIKES, start=1):
        groups.append({"id": f"l{i:02d}", "kind": "lookalike", "keys": list(keys), "note": f"{label}: {note}"})
    return groups


# -- versions -----------------------------------------------------------------------------

def older_description(desc: str) -> str:
    """A terser, older wording of a description (what the tool's doc said before a rewrite)."""
    first = re.split(r"[,:;(]| with | for | and ", desc, maxsplit=1)[0].strip().rstrip(".")
    older = f"{first}." if first else desc
    return older if older != desc else f"Beta. {desc}"


def build_versions(tools: list[dict]) -> list[list[dict]]:
    rng = random.Random(SEED)
    more_keys = [key for entries in MORE.values() for key, _, _ in entries]
    added = sorted(rng.sample(more_keys, 36))
    added_at = {key: 2 + i % (N_VERSIONS - 1) for i, key in enumerate(added)}
    base_keys = [key for entries in CATEGORIES.values() for key, *_ in entries]
    in_groups = {k for g in overlap_groups() for k in g["keys"]}
    rewrite_pool = sorted(k for k in base_keys if k not in in_groups)
    rewritten = sorted(rng.sample(rewrite_pool, 16))
    rewritten_at = {key: 2 + i % (N_VERSIONS - 1) for i, key in enumerate(rewritten)}
    legacy = [make_tool(key, key, cat, desc, params) for key, cat, desc, params, _ in LEGACY]
    removed_at = {key: at for key, _, _, _, at in LEGACY}
    versions = []
    for v in range(1, N_VERSIONS + 1):
        current = []
        for t in tools:
            key = t["key"]
            if added_at.get(key, 1) > v:
                continue
            if key in rewritten_at and v < rewritten_at[key]:
                old = json.loads(json.dumps(t))
                fn = old["function"]
                fn["description"] = older_description(fn["description"])
                optional = [p for p in fn["parameters"]["properties"] if p not in fn["parameters"]["required"]]
                if optional:  # the parameter arrived with the rewrite
                    fn["parameters"]["properties"].pop(optional[-1])
                current.append(old)
            else:
                current.append(t)
        current.extend(t for t in legacy if v < removed_at[t["key"]])
        versions.append(current)
    return versions


# -- queries ------------------------------------------------------------------------------

CONTEXTS = {
    "trip": ["I'm flying out next Tuesday for a conference and my boss wants everything sorted today",
             "We're planning our honeymoon and I'm a bit overwhelmed",
             "My parents are travelling abroad for the first time next month",
             "I just landed a last-minute work trip",
             "Our family of four is going on holiday in August",
             "I'm backpacking for three weeks on a tight budget"],
    "work": ["I'm drowning in admin before my vacation",
             "I just got out of a long meeting with a client",
             "My manager asked me to organise the quarterly review",
             "It's my first week in the new team"],
    "cooking": ["I'm hosting a dinner party on Saturday",
                "I'm trying to eat healthier this month",
                "My kids are hungry and the fridge is almost empty"],
    "money": ["I'm reviewing my finances for the year",
              "I'm thinking about buying my first flat",
              "We just got back from a group trip and need to settle up"],
    "health": ["My doctor told me to lose some weight",
               "I'm training for my first half marathon",
               "I've been feeling tired lately"],
    "city": ["I'm spending the afternoon downtown",
             "We're new in town and exploring today",
             "I have a free evening in the city"],
    "study": ["I'm revising for my maths exam tomorrow",
              "I'm writing a paper and need some quick checks"],
    "media": ["It's Friday night and I want to relax",
              "I'm putting together a surprise for my partner's birthday"],
    "shopping": ["I'm doing my holiday shopping online",
                 "Something I ordered last week still hasn't arrived"],
    "news": ["I've been offline all weekend", "Quick morning briefing please"],
}

SCENARIOS = {
    "trip": ["search_flights", "get_weather", "weather_forecast", "convert_currency", "search_hotels",
             "get_visa_requirements", "get_current_time", "translate_text", "search_attractions",
             "get_travel_advisory", "find_train_connections", "search_car_rentals", "get_public_holidays"],
    "work": ["send_email", "create_calendar_event", "add_task", "find_free_slot", "summarize_document",
             "request_time_off", "book_meeting_room", "post_slack_message", "set_reminder", "convert_document",
             "share_file", "schedule_email"],
    "cooking": ["search_recipes", "get_nutrition_facts", "convert_cooking_measure", "suggest_wine_pairing",
                "ingredient_substitute", "create_meal_plan", "set_timer", "find_restaurants"],
    "money": ["convert_currency", "get_stock_quote", "get_crypto_price", "calculate_loan_payment",
              "compound_interest", "calculate_income_tax", "split_bill", "track_expense", "get_budget_summary",
              "percentage_change"],
    "health": ["calculate_bmi", "calculate_bmr", "log_workout", "find_exercises", "get_nutrition_facts",
               "find_doctor", "track_water_intake", "sleep_summary", "calculate_body_fat"],
    "city": ["get_directions", "find_nearby_places", "get_weather", "find_restaurants", "find_parking",
             "get_movie_showtimes", "get_traffic_conditions", "search_attractions"],
    "study": ["calculate", "solve_equation", "differentiate", "integrate", "get_definition", "summarize_text",
              "check_grammar", "calculate_velocity", "calculate_free_fall_distance"],
    "media": ["play_music", "find_concerts", "search_movies", "find_streaming_availability", "get_lyrics",
              "create_playlist"],
    "shopping": ["search_products", "compare_prices", "track_package", "get_coupons", "return_item",
                 "convert_currency"],
    "news": ["get_top_headlines", "get_sports_scores", "search_news", "get_stock_quote", "get_weather"],
}

N_SINGLE = 118
N_MULTI = 102


def _sentence(text: str) -> str:
    text = text.strip()
    return text[0].upper() + text[1:] if text else text


QUESTION_WORDS = {"what", "what's", "how", "is", "are", "do", "does", "did", "can", "which", "who", "where",
                  "when", "will", "any", "was", "should", "another", "if", "by", "a", "my", "i", "i'm", "where's",
                  "whats", "good", "recommend", "top", "trains", "exercises"}


def _ask(intent: str, rng: random.Random) -> str:
    """Phrase an intent as a user would: questions end with '?', requests are asked politely or tersely."""
    first = intent.split()[0].lower()
    if first in QUESTION_WORDS:
        return _sentence(intent) + ("?" if rng.random() < 0.8 else "")
    style = rng.random()
    if style < 0.3:
        return f"Could you {intent}?"
    if style < 0.55:
        return f"Please {intent}."
    if style < 0.8:
        return _sentence(intent) + "."
    return intent


def build_queries(intents: dict[str, list[str]], groups: list[dict]) -> list[dict]:
    rng = random.Random(SEED + 1)
    alternatives = {g["keys"][0]: g["keys"][1:] for g in groups if g["kind"] == "duplicate"}
    single_keys = sorted(intents)
    rng.shuffle(single_keys)
    # every lookalike member gets a query of its own, so retrieval must tell them apart
    lookalike_keys = [k for g in groups if g["kind"] == "lookalike" for k in g["keys"] if k in intents]
    chosen = list(dict.fromkeys(lookalike_keys + single_keys))[:N_SINGLE]
    queries = []
    for key in chosen:
        phrases = intents[key]
        phrase = phrases[rng.randrange(len(phrases))]
        text = _ask(phrase, rng)
        if rng.random() < 0.3:
            scenario = next((s for s, keys in SCENARIOS.items() if key in keys), None)
            if scenario:
                text = f"{rng.choice(CONTEXTS[scenario])}. {_sentence(text)}"
        queries.append({"query": text, "gold": [key]})
    seen = set()
    names = sorted(SCENARIOS)
    while len(queries) < N_SINGLE + N_MULTI:
        scenario = names[rng.randrange(len(names))]
        n = rng.choice([2, 2, 2, 3, 3, 4])
        keys = rng.sample(SCENARIOS[scenario], n)
        if tuple(sorted(keys)) in seen:
            continue
        seen.add(tuple(sorted(keys)))
        parts = [intents[k][rng.randrange(len(intents[k]))] for k in keys]
        if len(parts) == 2:
            ask = f"{parts[0]}, and {parts[1]}?"
        else:
            ask = ", ".join(parts[:-1]) + f", and also {parts[-1]}?"
        lead = rng.random()
        if lead < 0.7:
            text = f"{rng.choice(CONTEXTS[scenario])} — {ask}"
        elif lead < 0.85:
            text = f"Two things: {ask}" if n == 2 else f"A few things: {ask}"
        else:
            text = _sentence(ask)
        queries.append({"query": text, "gold": keys})
    out = []
    for i, q in enumerate(queries, start=1):
        alts = sorted({a for g in q["gold"] for a in alternatives.get(g, [])})
        row = {"id": f"demo-{i:04d}", "query": q["query"], "gold": q["gold"],
               "split": "dev" if rng.random() < 0.3 else "test"}
        if alts:
            row["gold_alternatives"] = alts
        out.append(row)
    return out


# -- output -------------------------------------------------------------------------------

def dump(obj) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def diff_counts(prev: list[dict], cur: list[dict]) -> dict[str, int]:
    a = {t["key"]: t for t in prev}
    b = {t["key"]: t for t in cur}
    return {"added": len(b.keys() - a.keys()), "removed": len(a.keys() - b.keys()),
            "rewritten": sum(1 for k in a.keys() & b.keys() if a[k] != b[k]),
            "retained": sum(1 for k in a.keys() & b.keys() if a[k] == b[k])}


def write(out: Path) -> dict:
    tools, intents, _ = build_tools()
    groups = overlap_groups()
    versions = build_versions(tools)
    queries = build_queries(intents, groups)
    (out / "versions").mkdir(parents=True, exist_ok=True)
    (out / "tools.json").write_text(dump(tools), encoding="utf-8")
    (out / "overlap_groups.json").write_text(dump(groups), encoding="utf-8")
    (out / "queries.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries),
                                       encoding="utf-8")
    lines = ["# Demo catalog versions", "", "| step | tools | added | removed | rewritten | retained |",
             "|---|---|---|---|---|---|", f"| v1 | {len(versions[0])} | – | – | – | – |"]
    for v, tools_v in enumerate(versions, start=1):
        (out / "versions" / f"v{v}.json").write_text(dump(tools_v), encoding="utf-8")
        if v > 1:
            d = diff_counts(versions[v - 2], tools_v)
            lines.append(f"| v{v} | {len(tools_v)} | {d['added']} | {d['removed']} | {d['rewritten']} | {d['retained']} |")
    (out / "versions" / "CHANGES.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    multi = sum(1 for q in queries if len(q["gold"]) > 1)
    return {"tools": len(tools), "categories": len({t["category"] for t in tools}), "queries": len(queries),
            "multi_tool_share": round(multi / len(queries), 3),
            "duplicate_groups": sum(g["kind"] == "duplicate" for g in groups),
            "lookalike_groups": sum(g["kind"] == "lookalike" for g in groups),
            "version_sizes": [len(v) for v in versions]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    print(json.dumps(write(args.out)))


if __name__ == "__main__":
    main()
