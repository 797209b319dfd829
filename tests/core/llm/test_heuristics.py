import pytest

from core.llm.heuristics import describe, parse_tool_doc, split_intents, terms, third_person, verb_phrase


@pytest.mark.parametrize("query,intents", [
    # "there" points back at Rome, so the background sentence stays with the request that needs it
    ("I'm off to Rome next week — what's the weather there, and convert 200 dollars to euros",
     ["I'm off to Rome next week. what's the weather there", "convert 200 dollars to euros"]),
    ("I had a long week. Book a table for two at an Italian place", ["Book a table for two at an Italian place"]),
    ("I'm in the mood for a comedy with Jim Carrey. Which ones are available?",
     ["I'm in the mood for a comedy with Jim Carrey. Which ones are available"]),
    ("Find the criminal cases of Mr. X in New York.", ["Find the criminal cases of Mr. X in New York"]),
    # a list continuation is not a new request
    ("Get the sequence of human HbA1c, normal hemoglobin, and rat hemoglobin",
     ["Get the sequence of human HbA1c, normal hemoglobin, and rat hemoglobin"]),
    ("Solve x^2 where a=2, b=6, and c=5", ["Solve x^2 where a=2, b=6, and c=5"]),
    # "is" asks only when it opens the sentence
    ("Could you check for concerts on that day? Today is Monday.", ["Could you check for concerts on that day"]),
    ("Please retrieve the governance index for 2020. Additionally, provide the refugee count.",
     ["Please retrieve the governance index for 2020", "provide the refugee count"]),
    ("weather in Oslo", ["weather in Oslo"]),
    ("translate this text to French; then send it to Bob", ["translate this text to French", "send it to Bob"]),
    ("Book a flight to SF. Also find a hotel downtown.", ["Book a flight to SF", "find a hotel downtown"]),
    ("weather and forecast for Oslo", ["weather and forecast for Oslo"]),  # "forecast" is a noun here
    ("", []),
])
def test_split_intents(query, intents):
    assert split_intents(query) == intents


def test_describe_action_and_object():
    assert describe("convert 100 dollars to euros").startswith("Tool that converts dollars to euros.")
    assert describe("what's the weather in Paris").startswith("Tool that looks up the weather in Paris.")
    assert describe("please search the news").startswith("Tool that searches the news.")
    assert (third_person("apply"), third_person("play"), third_person("have")) == ("applies", "plays", "has")


def test_terms_and_verb_phrases():
    assert terms("What's the weather in Paris, 100 km?") == ["weather", "paris", "km"]
    assert verb_phrase("Converts money") == "convert money" and verb_phrase("Current weather") == "get current weather"


def test_tool_doc_formats():
    text = parse_tool_doc("convert_currency: Convert money. Parameters: amount, to")
    assert (text.name, text.description, text.parameters) == ("convert_currency", "Convert money.", ("amount", "to"))
    js = parse_tool_doc('{"name": "f", "description": "d", "parameters": {"properties": {"u": {"enum": ["a", "b"]}}}}')
    assert (js.name, js.parameters, dict(js.enums)) == ("f", ("u",), {"u": ("a", "b")})
    assert parse_tool_doc("just a description: with a colon").name == ""
