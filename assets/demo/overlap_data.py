"""Planted overlap groups of the demo catalog.

``duplicate`` groups: tools that do the same job under other names, wording and parameter
names — a merge should fold them into one. ``lookalike`` groups: tools that read alike but
do different jobs — a merge must keep them apart.
"""

# ruff: noqa: E501

# canonical key (in catalog_data) -> extra members: (key, name, category or None, description, params)
DUPLICATES: dict[str, list[tuple]] = {
    "get_weather": [
        ("weather.current", "weather.current", None, "Current conditions for a location. Gives temperature, sky, humidity and wind speed.", ["location:str!", "unit:enum(celsius|fahrenheit)=celsius"]),
        ("fetchCurrentWeather", "fetchCurrentWeather", None, "Fetch the present weather in the given city (temperature, conditions, wind).", ["cityName:str!"]),
    ],
    "convert_currency": [
        ("currency_converter", "currency_converter", None, "Currency conversion using the latest rates: give a value, the source currency and the target currency.", ["value:num!", "source:str!", "target:str!"]),
        ("fx.convert", "fx.convert", None, "Convert money between two ISO currency codes at the current FX rate.", ["amount:num!", "from:str!", "to:str!"]),
    ],
    "convert_units": [
        ("unit_converter", "unit_converter", None, "Convert a quantity from one measurement unit to another (length, weight, volume, speed, area).", ["quantity:num!", "source_unit:str!", "target_unit:str!"]),
        ("UnitConvert", "UnitConvert", None, "Unit conversion tool. Example: 10 miles -> kilometers, 3 kg -> pounds.", ["amount:num!", "from:str!", "to:str!", "precision:int=2"]),
    ],
    "translate_text": [
        ("text.translate", "text.translate", None, "Translate a piece of text to another language.", ["content:str!", "lang:str!"]),
        ("translateString", "translateString", None, "Machine translation of a string; the source language is detected automatically.", ["input:str!", "targetLang:str!"]),
    ],
    "send_email": [
        ("email.send", "email.send", None, "Send an e-mail message immediately.", ["recipient:str!", "title:str!", "message:str!"]),
        ("sendMail", "sendMail", None, "Deliver an email with subject and body to the given addresses now.", ["addresses:list!", "subject:str!", "text:str!", "attachments:list"]),
    ],
    "get_stock_quote": [
        ("stock.price", "stock.price", None, "Current market price of a share by its ticker symbol.", ["symbol:str!"]),
        ("getQuote", "getQuote", None, "Real-time quote for an equity: last price, daily change, volume.", ["tickerSymbol:str!", "exchange:str"]),
    ],
    "search_flights": [
        ("flight_search", "flight_search", None, "Look up available flights from one airport to another on a given day, with prices.", ["from_airport:str!", "to_airport:str!", "departure_date:date!", "adults:int=1"]),
        ("findFlights", "findFlights", None, "Find flight offers between origin and destination for a travel date.", ["originCode:str!", "destinationCode:str!", "travelDate:date!"]),
    ],
    "calculate_bmi": [
        ("bmi_calculator", "bmi_calculator", None, "Compute body mass index (BMI) from weight and height and say whether it is under, normal or overweight.", ["weight:num!", "height_m:num!"]),
        ("compute_body_mass_index", "compute_body_mass_index", None, "Body mass index = kg / m². Returns the value and the WHO category.", ["mass_kg:num!", "height_cm:num!"]),
    ],
    "get_current_time": [
        ("time.now", "time.now", None, "What time it is now in a given time zone.", ["tz:str!"]),
        ("world_clock", "world_clock", None, "Local date and time right now for any city in the world.", ["city:str!"]),
    ],
    "days_between": [
        ("date_diff", "date_diff", None, "Difference between two dates in days.", ["date1:date!", "date2:date!"]),
        ("countDaysBetweenDates", "countDaysBetweenDates", None, "Count how many days separate a start date and an end date, optionally counting only weekdays.", ["from:date!", "to:date!", "weekdaysOnly:bool=false"]),
    ],
    "geocode_address": [
        ("address_to_coordinates", "address_to_coordinates", None, "Look up the latitude/longitude of a postal address.", ["address:str!", "country:str"]),
        ("geo.forward", "geo.forward", None, "Forward geocoding: place name or address to coordinates.", ["q:str!"]),
    ],
    "search_recipes": [
        ("recipe_search", "recipe_search", None, "Search a recipe database by keywords or ingredients, filter by diet.", ["keywords:str!", "dietary:str"]),
        ("findRecipes", "findRecipes", None, "Find cooking recipes that match a dish or a list of ingredients you have.", ["ingredients:list!", "maxTime:int"]),
    ],
    "add_task": [
        ("todo.create", "todo.create", None, "Create a new to-do item.", ["task:str!", "due:date"]),
        ("createTodoItem", "createTodoItem", None, "Add an item to the user's task list with optional deadline and priority flag.", ["text:str!", "deadline:date", "important:bool=false"]),
    ],
    "create_calendar_event": [
        ("calendar.add_event", "calendar.add_event", None, "Add an event to the calendar.", ["summary:str!", "start_time:str!", "end_time:str", "place:str"]),
        ("scheduleEvent", "scheduleEvent", None, "Schedule a meeting or appointment in the user's calendar and invite people.", ["name:str!", "when:str!", "duration_minutes:int=30", "invitees:list"]),
    ],
    "get_top_headlines": [
        ("news.headlines", "news.headlines", None, "Latest top headlines, optionally by country and section.", ["country:str", "section:str"]),
        ("fetchTopNews", "fetchTopNews", None, "Fetch today's most important news stories.", ["region:str=us", "topic:str"]),
    ],
    "calculate": [
        ("math.evaluate", "math.evaluate", None, "Evaluate a mathematical expression and return the numeric result.", ["expr:str!"]),
        ("calculator", "calculator", None, "Simple calculator for arithmetic: add, subtract, multiply, divide, exponent.", ["input:str!"]),
    ],
    "get_crypto_price": [
        ("crypto.quote", "crypto.quote", None, "Spot price of a crypto coin.", ["coin:str!", "vs_currency:str=usd"]),
        ("getCoinPrice", "getCoinPrice", None, "Current market price of a cryptocurrency such as BTC or ETH with 24h change.", ["ticker:str!"]),
    ],
    "track_package": [
        ("shipment_tracking", "shipment_tracking", None, "Track a shipment and get its latest status and location.", ["tracking_id:str!"]),
        ("parcel.track", "parcel.track", None, "Where is my parcel? Status history for a tracking number from any carrier.", ["number:str!", "courier:str"]),
    ],
    "get_definition": [
        ("dictionary.lookup", "dictionary.lookup", None, "Look a word up in the dictionary.", ["term:str!"]),
        ("defineWord", "defineWord", None, "Meaning of an English word with an example of use.", ["word:str!"]),
    ],
    "prime_factorization": [
        ("math.factorize", "math.factorize", None, "Factorize an integer into primes.", ["n:int!"]),
        ("math_factorize", "math_factorize", None, "Factorize an integer into primes.", ["n:int!"]),
    ],
    "search_news": [
        ("news.search", "news.search", None, "Search news articles that mention some keywords.", ["keywords:str!", "since:date"]),
    ],
}

# new tools that exist only to sit in a lookalike group: (key, category, description, params, intents)
LOOKALIKE_TOOLS = [
    ("calculate_velocity", "Math", "Final velocity of an object from its initial velocity, acceleration and elapsed time (v = u + a·t).", ["initial_velocity:num!", "acceleration:num!", "time:num!"], ["a car starts at 5 m/s and accelerates at 2 m/s² for 10 seconds, how fast is it going"]),
    ("calculate_free_fall_distance", "Math", "Distance an object falls from rest in a given time under gravity (d = ½·g·t²).", ["time:num!", "gravity:num=9.81"], ["how far does a stone fall in 3 seconds"]),
    ("calculate_acceleration", "Math", "Average acceleration from a change in velocity over a time interval (a = Δv / t).", ["initial_velocity:num!", "final_velocity:num!", "time:num!"], ["a bike goes from 0 to 12 m/s in 4 seconds, what's its acceleration"]),
    ("calculate_body_fat", "Health & Fitness", "Estimates body-fat percentage from waist, neck and height measurements (US Navy method).", ["sex:enum(female|male)!", "waist_cm:num!", "neck_cm:num!", "height_cm:num!", "hip_cm:num"], ["estimate my body fat, waist 86 cm, neck 38 cm, 180 cm tall, male"]),
]

LOOKALIKES: list[tuple[str, list[str], str]] = [
    ("physics kinematics", ["calculate_velocity", "calculate_free_fall_distance", "calculate_acceleration"], "same physics vocabulary and numeric inputs, three different formulas"),
    ("email timing", ["schedule_email", "create_email_draft"], "both write an email without sending it now; one sends later, one never sends"),
    ("time zones", ["get_timezone", "convert_timezone"], "one names a city's zone, the other converts a time between zones"),
    ("body metrics", ["calculate_bmr", "calculate_body_fat"], "both take body measurements; energy needs versus body composition"),
    ("loan vs savings", ["compound_interest", "calculate_loan_payment"], "identical principal/rate/years inputs; savings growth versus loan repayment"),
    ("forecast vs past", ["weather_forecast", "historical_weather"], "same weather fields, future versus past dates"),
    ("hotel search vs booking", ["search_hotels", "book_hotel"], "same dates and hotel vocabulary; one reads, one books"),
    ("calendar reading", ["list_calendar_events", "find_free_slot"], "both read calendars; listing events versus finding common free time"),
    ("mailbox reading", ["summarize_inbox", "search_emails"], "both read the mailbox; digest versus targeted search"),
    ("flight info", ["get_flight_status", "airport_info"], "flight vocabulary; a flight's live status versus facts about an airport"),
    ("timers", ["set_timer", "set_reminder"], "both alert the user later; countdown versus a message at a clock time"),
    ("air", ["get_air_quality", "get_pollen_count"], "both report what is in the air; pollution versus pollen"),
    ("calculus", ["differentiate", "integrate"], "same expression and variable inputs, opposite operations"),
    ("restaurants", ["find_restaurants", "reserve_table"], "restaurant vocabulary; search versus booking"),
]
