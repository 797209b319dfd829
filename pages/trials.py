from components.planned import planned_page

planned_page(
    "Trials",
    "Check retrieved tools by actually calling them.",
    [
        "per candidate: plan the call, execute it (MCP server, Python sandbox or HTTP), simulate on error, classify the outcome",
        "a timeline per candidate with the JSON of every step and its time",
        "the ranking before and after evidence-based re-ranking, with arrows for moves",
        "the failure taxonomy over a query set",
    ],
    papers="GRETEL §3, Alg. 1, Tables 3–5",
)
