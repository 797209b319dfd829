from components.planned import planned_page

planned_page(
    "Merge review",
    "Find overlapping tools, let a classifier propose merges, and review every cluster before shipping.",
    [
        "candidate pairs from FAISS neighbours above a cosine threshold (0.82 by default)",
        "pair verdicts with reasons, connected-component clusters and a representative per cluster",
        "Auto-Correction verdicts (merge OK, or a split with its reason)",
        "accept, reject, move members or edit the merged documentation; every decision kept with its time",
        "export of the reviewed catalog and the tool mapping",
    ],
    papers="ToolScope §3.2, App. F–I, K",
)
