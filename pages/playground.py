from components.planned import planned_page

planned_page(
    "Strategy playground",
    "Run retrieval strategies on one query and watch how they search.",
    [
        "Query retrieval, Single-Pass, Multi-Turn (DBD, IBI), Scattershot, Memetic V1/V2, Re-Invoke and the ToolScope retriever",
        "an animation over generations: population members moving on the map toward the tools they retrieve",
        "fitness components per member and generation, crossover and mutation lineage, votes",
        "the final ranking against the gold tools, and every LLM call with its prompt",
    ],
    papers="FitText §4 and App. B–C; Re-Invoke §3; ToolScope §3.3",
)
