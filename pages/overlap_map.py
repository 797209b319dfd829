from components.planned import planned_page

planned_page(
    "Overlap map",
    "A 2-D map of every tool in a catalog, to see where tools crowd together before and after merging.",
    [
        "UMAP, t-SNE or PCA projection of the tool embeddings, cached per catalog version, model and parameters",
        "WebGL scatter coloured by category or merge cluster, with hover cards",
        "lasso / box selection driving a table of the selected tools",
        "nearest-neighbour links above a similarity threshold",
        "original and merged catalog side by side on the same axes, with silhouette scores",
    ],
    papers="ToolScope §4.4 and App. D",
)
