from datetime import date

from core.models import Tool
from core.trials.slots import focus, plan_arguments

TODAY = date(2026, 11, 23)  # a Monday


def _tool(name, props, required, description=""):
    return Tool(name, name, description, {"type": "object", "properties": props, "required": required})


CONVERT = _tool("convert_units", {"value": {"type": "number"}, "from_unit": {"type": "string"},
                                  "to_unit": {"type": "string"}}, ["value", "from_unit", "to_unit"],
                "Convert a value between units of length, mass or volume.")
FLIGHTS = _tool("search_flights", {"origin": {"type": "string"}, "destination": {"type": "string"},
                                   "date": {"type": "string"}, "cabin": {"type": "string",
                                                                         "enum": ["economy", "business"]}},
                ["origin", "destination", "date"], "Search flights between two airports on a date.")


def test_units_follow_the_number_they_qualify():
    plan = plan_arguments("How many kilometres is 26.2 miles?", CONVERT, today=TODAY)
    assert plan.ok and dict(plan.arguments) == {"value": 26.2, "from_unit": "miles", "to_unit": "kilometres"}


def test_codes_places_dates_and_named_enum_values():
    plan = plan_arguments("Please find me a business flight from JFK to LHR on 12 March.", FLIGHTS, today=TODAY)
    assert dict(plan.arguments) == {"origin": "JFK", "destination": "LHR", "date": "2026-03-12", "cabin": "business"}
    plan = plan_arguments("Flights from Madrid to Rome next Friday", FLIGHTS, today=TODAY)
    assert (plan.arguments["origin"], plan.arguments["destination"], plan.arguments["date"]) == \
        ("Madrid", "Rome", "2026-11-27")


def test_an_unknowable_required_input_is_reported_missing_not_invented():
    book = _tool("book_hotel", {"hotel_id": {"type": "string"}, "guest_name": {"type": "string"}},
                 ["hotel_id", "guest_name"])
    plan = plan_arguments("Book that hotel for me under the name Ana Silva.", book, today=TODAY)
    assert not plan.ok and plan.missing == ("hotel_id",) and plan.arguments == {"guest_name": "Ana Silva"}
    assert "identifier" in plan.sources["hotel_id"]


def test_focus_picks_the_clause_about_the_tool():
    query = "Is it cold in Oslo at the moment, and could you convert 26.2 miles to kilometres?"
    assert "miles" in focus(query, CONVERT) and "Oslo" not in focus(query, CONVERT)
    assert focus("How far is it?", CONVERT) == "How far is it?"
