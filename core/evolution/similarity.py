"""The change measure that stops Stage I (CONTDA Eq. 10, App. A.5): the mean of the embedding cosine and
the BLEU score between two successive versions of a document."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

_TOKEN = re.compile(r"\w+|[^\w\s]")


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def bleu(candidate: str, reference: str, max_n: int = 4) -> float:
    """Sentence BLEU (Papineni et al., 2002) with uniform weights up to ``max_n``-grams and the brevity
    penalty; an order with no match counts as 0.1 of a match so one missing 4-gram does not zero a long
    text (the usual smoothing for single sentences). Lower-cased word and punctuation tokens."""
    cand = _TOKEN.findall(candidate.lower())
    ref = _TOKEN.findall(reference.lower())
    if not cand or not ref:
        return 1.0 if cand == ref else 0.0
    logs = []
    for n in range(1, max_n + 1):
        c, r = _ngrams(cand, n), _ngrams(ref, n)
        total = sum(c.values())
        if total == 0:
            break
        matched = sum(min(v, r[g]) for g, v in c.items())
        logs.append(math.log((matched or 0.1) / total))
    brevity = 1.0 if len(cand) > len(ref) else math.exp(1 - len(ref) / len(cand))
    return float(brevity * math.exp(sum(logs) / len(logs)))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(np.dot(a, b) / (na * nb)) if na > 0 and nb > 0 else 0.0


def change_score(vec_new: np.ndarray, vec_old: np.ndarray, doc_new: str, doc_old: str) -> float:
    """CONTDA Eq. 10: Δ = (cos(e_k, e_{k−1}) + BLEU(d_k, d_{k−1})) / 2. Both terms measure sameness here, so
    a Δ at or above the threshold means the refinement has settled. That reading is our definition: the paper
    calls cos a distance while BLEU is a similarity, and says only that exploration stops once Δ passes the
    threshold."""
    return (cosine(vec_new, vec_old) + bleu(doc_new, doc_old)) / 2.0
