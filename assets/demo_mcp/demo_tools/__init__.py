"""The demo server's working tools: real answers computed offline from small fixed tables.

Every handler takes the call's arguments (already checked against the catalog schema) and returns a
JSON object. A value the tool cannot use raises :class:`BadInput`, which the server reports as an
invalid-parameters tool error. "Today" is :data:`REFERENCE_DATE` wherever a tool needs a date the
caller did not give, so answers do not change from one day to the next; only ``get_current_time``
reads the real clock, because that is its job.
"""

# Importing the modules registers their tools in WORKING.
from demo_tools import added, dates_food, maths_text, money_units, places  # noqa: F401
from demo_tools.base import REFERENCE_DATE, WORKING, BadInput
from demo_tools.dates_food import RECIPE_IDS, RESTAURANT_IDS
from demo_tools.places import _WEATHER, hotel_ids

__all__ = ["REFERENCE_DATE", "RECIPE_IDS", "RESTAURANT_IDS", "WORKING", "BadInput", "hotel_ids", "weather_cities"]


def weather_cities() -> list[str]:
    return sorted(_WEATHER)
