from core.search.tokenize import tokenize


def test_identifiers_are_split():
    assert tokenize("getWeather weather.current get_weather") == ["get", "weather", "weather", "current", "get", "weather"]
    assert tokenize("HTTPServer parseJSON") == ["http", "server", "parse", "json"]
    assert tokenize("What is the weather in Paris?") == ["weather", "paris"]
