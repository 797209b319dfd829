"""Memetic Retrieval V1 (FitText Alg. 1, Eq. 7): seed, evaluate, select, vary, refine, vote.

Departures from the paper, each a named parameter (defaults: the method at its best here; the paper's value in
brackets): ``operator_context`` True [False as Alg. 1 writes it] gives crossover and mutation the user's query
and the seed exemplars besides parents and ancestor, as FitText's public code does; ``anchor_weight`` 0.5 [0]
blends the ancestor-anchored retrieval score into Eq. 7's retrieval term (``core.strategies.fitness``);
``merge`` "max" [the lists concatenated; "interleave" takes them in turn] joins the ancestors' voted lists as
Single-Pass joins its retrievals, each tool at its best mean similarity (``core.strategies.pseudo.merge_lineages``:
a weak intent's list no longer takes a fixed share of the top k); ``vote_anchor`` 0.5 [none: FitText scores
nothing after the vote] scores each voted tool by its mean similarity to the members blended with its cosine
to the lineage's ancestor (``PseudoToolStrategy.anchored_votes``), so lineages are merged on one scale: each
member's similarities are to its own wording, and a lineage that drifted toward dense catalog wording outranked
another intent's tools (Seal-Tools, 100 queries: nDCG@5 0.673 at 0, 0.696 at 0.5, single_pass 0.704). The
offline operators' word-keeping rule is ``OfflineOperators(keep_request=...)`` (``core.llm.offline``).
Every fitness event records the member's retrieved ``keys``, so its true quality can be read against gold
afterwards (``core.strategies.fitness.with_truth``); the strategy itself never sees gold.
"""

from __future__ import annotations

import math

from core.strategies.base import TraceEvent
from core.strategies.fitness import ANCHOR_WEIGHT, fitness_v1
from core.strategies.pseudo import PseudoToolStrategy, merge_lineages
from core.strategies.vote import vote

# μ of the anchored vote (``PseudoToolStrategy.anchored_votes``, our definition; module doc); V2 has its own
VOTE_ANCHOR = 0.5


class MemeticStrategy(PseudoToolStrategy):
    name = "memetic"

    def __init__(self, search_engine, *, population: int = 6, generations: int = 3, threshold: float = 0.95,
                 temperature: float = 1.5, budget: int = 5, p_crossover: float = 0.5, operator_context: bool = True,
                 anchor_weight: float = ANCHOR_WEIGHT, merge: str = "max", vote_anchor: float = VOTE_ANCHOR, **kw):
        super().__init__(search_engine, **kw)
        self._evolution(population, generations, threshold, budget, operator_context, anchor_weight, vote_anchor)
        merge_lineages([], merge)  # checks the name
        self.merge = merge
        self.tau = float(temperature)
        self.p_cross = float(p_crossover)

    def _seed(self, ai: int, ancestor: str, trace: list[TraceEvent]):
        """SEEDPOP (Alg. 6): exemplars from the ancestor's retrieval, N descriptions at τ; returns the
        population, the seed exemplars and the ancestor's embedding."""
        found, vectors = self.ret_with_vectors([ancestor], trace, ancestor=ai, seed=True)
        r0, self_anchor = found[0], vectors[0]
        exemplars = self.blurbs(r0.keys)
        seeded = self.call(trace, self.ops.seed_population(ancestor, exemplars, self.n,
                                                          temperature=self.tau), ancestor=ai) or []
        members = [(f"a{ai}g0m{i}", d) for i, d in enumerate(seeded[: self.n]) if d]
        if not members:
            members = [(f"a{ai}", ancestor)]
        for mid, d in members:
            trace.append(TraceEvent("description", {"id": mid, "text": d, "origin": "seed", "parents": [f"a{ai}"],
                                                    "generation": 0, "ancestor": ai}))
        return members, exemplars, self_anchor

    def _lineage(self, query: str, k: int, ai: int, ancestor: str, trace: list[TraceEvent], memory):
        rng = self.rng(f"{query}\0{ai}")
        pop, exemplars, anchor = self._seed(ai, ancestor, trace)
        context = self.operator_kwargs(query, exemplars)
        g = 0
        for g in range(1, self.g_max + 1):
            found = self.ret_many([d for _, d in pop], trace, ancestor=ai, generation=g)  # step 4
            scored = []
            for (mid, d), r in zip(pop, found, strict=True):
                fit = fitness_v1(r.scores, memory.penalty_v1(r.keys), self.similarities_to(anchor, r.keys),
                                 self.anchor_weight)  # Eq. 7 (anchored: module doc of core.strategies.fitness)
                scored.append((fit.f, mid, d, r))
                trace.append(TraceEvent("fitness", {"id": mid, "generation": g, "ancestor": ai, "f": round(fit.f, 6),
                                                    "s_ret": round(fit.s_ret, 6), "mem": round(fit.mem, 6),
                                                    **self.anchor_field(fit.s_anchor), "keys": list(r.keys)}))
            scored.sort(key=lambda x: -x[0])
            best_f, best_id, best_d, _ = scored[0]
            if best_f >= self.theta or g == self.g_max:  # step 6
                if best_f >= self.theta:
                    trace.append(TraceEvent("early_stop", {"generation": g, "f": round(best_f, 6), "ancestor": ai}))
                break
            selected = scored[: math.ceil(self.n / 2)]  # step 7: truncation selection
            trace.append(TraceEvent("selection", {"generation": g, "ancestor": ai, "elite": best_id,
                                                  "selected": [s[1] for s in selected]}))
            plans = []
            for ci in range(self.n - 1):  # steps 8–13, drawn up front so parallel calls stay deterministic
                if rng.random() < self.p_cross and len(selected) >= 2:
                    pa, pb = rng.sample(selected, 2)
                    plans.append(("crossover", ci, (pa, pb)))
                else:
                    plans.append(("mutation", ci, (rng.choice(selected),)))

            def make_child(plan, a=ancestor, g=g):
                op, ci, parents = plan
                nonce = g * 1000 + ci  # distinct children from identical parents, reproducibly
                if op == "crossover":
                    return self.ops.crossover(parents[0][2], parents[1][2], a, temperature=self.tau, nonce=nonce,
                                              **context)
                return self.ops.mutate(parents[0][2], a, temperature=self.tau, nonce=nonce, **context)

            children = []
            for plan, rc in zip(plans, self.parallel(make_child, plans), strict=True):
                op, ci, parents = plan
                text = self.call(trace, rc, ancestor=ai, generation=g, operator=op)
                child_id = f"a{ai}g{g}m{ci + 1}"
                children.append((child_id, text or parents[0][2], op if text else "copy", [p[1] for p in parents]))
            # step 14: local search refines every offspring but the elite
            # one batched RET for all offspring, then their refinements in parallel
            exemplars = [self.blurbs(r.keys) for r in self.ret_many([c[1] for c in children], None)]
            refined = self.parallel(
                lambda job, a=ancestor: self.ops.refine(a, job[0][1], job[1], query, temperature=min(self.tau, 0.7)),
                list(zip(children, exemplars, strict=True)),
            )
            pop = [(f"a{ai}g{g}m0", best_d)]
            trace.append(TraceEvent("description", {"id": f"a{ai}g{g}m0", "text": best_d, "origin": "elite",
                                                    "parents": [best_id], "generation": g, "ancestor": ai}))
            for (cid, text, op, parents), rc in zip(children, refined, strict=True):
                better = self.call(trace, rc, ancestor=ai, generation=g, operator="refine")
                final = better or text
                pop.append((cid, final))
                trace.append(TraceEvent("description", {"id": cid, "text": final, "origin": op, "refined": bool(better),
                                                        "parents": parents, "generation": g, "ancestor": ai}))
        population = [r for (_, _, _, r) in scored]  # the last evaluated generation
        memory.add(ancestor, self.ret(ancestor, None).keys, g)  # step 18
        memory.add(best_d, scored[0][3].keys, g)
        votes = vote(population, max(self.budget, k))
        trace.append(TraceEvent("vote", {"ancestor": ai, "votes": [v.__dict__ for v in votes]}))
        return self.anchored_votes(votes, anchor)

    def _run(self, query: str, k: int, trace: list[TraceEvent]) -> list[tuple[str, float]]:
        lineage = lambda ai, a, tr, mem: self._lineage(query, k, ai, a, tr, mem)  # noqa: E731
        return merge_lineages(self.run_lineages(self.ancestors(query, trace), lineage, trace), self.merge)
