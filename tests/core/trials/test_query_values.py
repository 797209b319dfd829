from datetime import date

from core.trials.query_values import read_query

TODAY = date(2026, 11, 23)  # a Monday


def test_numbers_dates_and_ranges_read_by_hand():
    found = read_query("A hotel in Vienna from 3 to 6 May under 1,500 euros, 300k budget at 4%", today=TODAY)
    assert found.dates == ("2026-05-03", "2026-05-06")
    assert [n[0] for n in found.numbers] == [1500.0, 300000.0, 4.0]
    assert found.currencies == ("EUR",)
    assert read_query("since January", today=TODAY).dates == ("2026-01-01", "2026-11-23")
    assert read_query("What's the derivative of x^2 sin(x)", today=TODAY).expression == "x^2 sin(x)"
