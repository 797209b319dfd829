"""First look, then replace: a large catalog is searchable and mapped within a minute, not after its first index.

Embedding a 40,000-tool catalog with MiniLM takes about 18 minutes on two cores, and until then there is no
search and no map. When a catalog version has more than :attr:`FirstLookConfig.threshold` tools without
cached vectors of the workspace's local model, the workspace (``core.workspace.Workspace``) first builds its
search engine (dense + BM25) from a static embedder (:mod:`core.embeddings.static`: a model2vec model
distilled from that local model, about a hundred times faster) and a PCA map from those vectors, then builds
the full model's index as a background job on the shared job registry; when that is done the full engine
replaces the first look. Pages say which embedder they are showing (:attr:`FirstLookStatus.message`).

Our design, no paper behind it. Off with ``TOOLATLAS_FIRST_LOOK=0`` (or the Settings page).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.embedding import Embedder

DEFAULT_THRESHOLD = 5_000  # tools without cached vectors above which a version gets a first look
ENV_FIRST_LOOK = "TOOLATLAS_FIRST_LOOK"  # the threshold; 0 (or off) turns the first look off
FIRST_LOOK_MAP = ("pca", {})  # the first look's map: PCA of the static vectors, under a second at 40k tools


@dataclass(frozen=True)
class FirstLookConfig:
    """When a workspace with a local model gives a first look: above ``threshold`` tools without cached vectors.
    ``embedder``: the static embedder (None: distilled from the workspace's model on first need)."""

    threshold: int = DEFAULT_THRESHOLD
    embedder: Embedder | None = None

    def __post_init__(self) -> None:
        if int(self.threshold) < 1:
            raise ValueError(f"the first look's threshold must be at least 1 tool, got {self.threshold}")


def parse_threshold(value: str | None) -> int:
    """The threshold ``TOOLATLAS_FIRST_LOOK`` names: empty for the default, 0 / off / false for none."""
    text = (value or "").strip().lower()
    if not text:
        return DEFAULT_THRESHOLD
    if text in ("0", "off", "false", "no"):
        return 0
    if not text.isdigit():
        raise ValueError(f"{ENV_FIRST_LOOK} must be a whole number of tools (0 or off: no first look), not {value!r}")
    return int(text)


@dataclass(frozen=True)
class FirstLookStatus:
    """What a page says while a version shows its first look."""

    static_model: str  # the static model the search and map use now
    full_model: str  # the model whose index is being built
    share: float  # how much of the full index is built, 0..1
    tools: int
    over: bool  # the full index job is over (done, failed or cancelled): the page should look again
    error: str | None = None  # why the full index failed, when it did

    @property
    def percent(self) -> int:
        return int(self.share * 100)

    @property
    def message(self) -> str:
        if self.error:
            return (f"First look: static embeddings ({self.static_model}); the full model index "
                    f"({self.full_model}) failed: {self.error}")
        return (f"First look: static embeddings ({self.static_model}); full model index {self.percent} % built. "
                f"Search and map switch to {self.full_model} when it is done.")
