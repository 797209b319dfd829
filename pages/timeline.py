from components.planned import planned_page

planned_page(
    "Timeline",
    "Follow a catalog as tools are added, removed and rewritten, and see what retrieval forgets and discovers.",
    [
        "added / removed / retained tools per step, from real versions or a seeded Markov simulation",
        "success rate per method over steps, Forget and Discover per step, and their trade-off",
        "documentation revisions per tool with diffs and relational notes",
        "a regression list: queries solved at one step and lost at the next, with the cause",
    ],
    papers="CONTDA §3–5, App. A–B",
)
