"""Prompt templates, one per role, in our own words (not the papers' templates).

Descriptions and generated requests come back between {BEGIN} and {END} markers so they can be
parsed out of any surrounding chatter; structured answers come back as JSON; verdicts and scores as a
single word or number.
"""

from __future__ import annotations

from collections.abc import Sequence

SYSTEM = ("You help an agent find tools in a large catalog. Tools are found by comparing the embedding of a "
          "short tool-style description with the embeddings of real tool documentation, so write the way API "
          "documentation is written: what the tool does, what it takes, what it returns. Follow the output "
          "format exactly.")

SYSTEM_ANALYST = ("You analyse requests that users send to an assistant which can call tools, and you judge "
                  "which tools fit them. Be literal and brief, and follow the output format exactly.")

# Roles that read or judge requests rather than write tool documentation.
ANALYST_ROLES = frozenset({"judge_sufficiency", "score_retrieval", "synthetic_queries", "extract_intents",
                           "select_tools", "doc_quality"})

MAX_ITEM_CHARS = 400  # one exemplar blurb; long docs would crowd the prompt without helping


def system_for(role: str) -> str:
    return SYSTEM_ANALYST if role in ANALYST_ROLES else SYSTEM


def markers(what: str = "description") -> str:
    return f"Put each {what} between the markers {{BEGIN}} and {{END}}, with nothing else inside them."


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"


def _list(items: Sequence[str]) -> str:
    return "\n".join(f"- {_short(i)}" for i in items) if items else "- (none)"


def pseudo_tools(query: str, max_tools: int) -> str:
    return (f"A user asked:\n\"{query}\"\n\nImagine the tools that would answer this request. Write one short "
            f"documentation-style description per distinct tool needed (at most {max_tools}). {markers()}")


def refine(ancestor: str, current: str, exemplars: Sequence[str], query: str) -> str:
    return (f"User request: \"{query}\"\nOriginal tool idea: {ancestor}\nCurrent description: {current}\n\n"
            f"These real tools came back when searching with the current description:\n{_list(exemplars)}\n\n"
            "Rewrite the current description so it reads like the real tools that fit the request (borrow their "
            "vocabulary and level of detail) while keeping the original intent. Write exactly one description. "
            f"{markers()}")


def refine_all(descriptions: Sequence[str], exemplars: Sequence[str], query: str) -> str:
    return (f"User request: \"{query}\"\nCurrent tool descriptions:\n{_list(descriptions)}\n\nReal tools found "
            f"so far:\n{_list(exemplars)}\n\nImprove the set of descriptions so that together they cover every "
            "part of the request, each phrased like the real tool documentation above. You may merge, split or "
            f"drop descriptions. {markers()}")


def judge_sufficiency(query: str, exemplars: Sequence[str]) -> str:
    return (f"User request: \"{query}\"\nTools found:\n{_list(exemplars)}\n\nDo these tools together cover "
            "everything the request needs? Answer with a single word: yes or no.")


def scatter(ancestor: str, exemplars: Sequence[str]) -> str:
    return (f"Tool idea: {ancestor}\nReal tools that resemble it:\n{_list(exemplars)}\n\nWrite one alternative "
            "description of a tool with the same purpose, deliberately different in wording or emphasis, so a "
            f"search with it explores other parts of the catalog. {markers()}")


def seed_population(ancestor: str, exemplars: Sequence[str], n: int) -> str:
    return (f"Tool idea: {ancestor}\nReal tools that resemble it:\n{_list(exemplars)}\n\nWrite {n} different "
            "descriptions of a tool with this purpose. Vary vocabulary, focus and level of detail; each must "
            f"still serve the same need. {markers()}")


def _context(ancestor: str, query: str, exemplars: Sequence[str]) -> str:
    """What every population operator is told besides its parents: the user's request, the tool idea the
    lineage started from, and the real tools that idea found (FitText's public code passes all three)."""
    lines = []
    if query:
        lines.append(f"User request: \"{query}\"")
    if ancestor:
        lines.append(f"Original tool idea: {ancestor}")
    if exemplars:
        lines.append(f"Real tools found with the original idea:\n{_list(exemplars)}")
    return "\n".join(lines) + ("\n" if lines else "")


_KEEP = ("The result must still describe a tool that serves the user's request: keep everything the request "
         "asks for (its action, its objects, its units and constraints) and never trade them for words of "
         "unrelated tools. ")


def crossover(a: str, b: str, ancestor: str, query: str = "", exemplars: Sequence[str] = ()) -> str:
    return (f"{_context(ancestor, query, exemplars)}Description A: {a}\nDescription B: {b}\n\nCombine the "
            f"strongest parts of A and B into one new description. {_KEEP}{markers()}")


def mutate(description: str, ancestor: str, query: str = "", exemplars: Sequence[str] = ()) -> str:
    return (f"{_context(ancestor, query, exemplars)}Description: {description}\n\nChange this description in a "
            "meaningful way — another angle, other key terms, a narrower or broader scope — so that a search "
            f"with it can reach tools the others miss. {_KEEP}{markers()}")


def guided_mutate(description: str, low_tools: Sequence[str], ancestor: str = "", query: str = "",
                  exemplars: Sequence[str] = ()) -> str:
    return (f"{_context(ancestor, query, exemplars)}Description: {description}\nA search with it brought back "
            f"these poorly matching tools:\n{_list(low_tools)}\n\nRewrite the description so a search with it "
            f"moves away from tools like these and toward tools that really fulfil the request. {_KEEP}"
            f"{markers()}")


def score_retrieval(query: str, blurbs: Sequence[str]) -> str:
    return (f"User request: \"{query}\"\nRetrieved tools:\n{_list(blurbs)}\n\nHow well do these tools serve the "
            "request? Reply with one number between 0 (useless) and 1 (exactly what is needed).")


def synthetic_queries(tool_doc: str, m: int) -> str:
    return (f"Tool documentation:\n{tool_doc}\n\nWrite {m} different requests a real user might make that this "
            "tool can answer. Vary wording, detail and style (short commands, questions, requests with some "
            f"background). Do not name the tool. {markers('request')}")


def extract_intents(query: str) -> str:
    return (f"User message:\n\"{query}\"\n\nList the separate tasks the user wants done, each rewritten as a "
            "short self-contained request without background chatter. Reply as JSON: "
            '{"intents": ["...", "..."]}')


def select_tools(query: str, candidates: Sequence[tuple[str, str]]) -> str:
    lines = "\n".join(f"- {key}: {_short(blurb)}" for key, blurb in candidates)
    return (f"User request: \"{query}\"\nAvailable tools:\n{lines or '- (none)'}\n\nWhich of these tools should "
            "the agent call to fulfil the request? Choose only what is needed, by key. Reply as JSON: "
            '{"tools": ["key", ...]}')


def doc_quality(tool_doc: str) -> str:
    return (f"Tool documentation:\n{tool_doc}\n\nAn agent picks tools by reading documentation like this and then "
            "fills in the arguments itself. Rate how well this documentation supports both: 5 means nothing to "
            "fix, 1 means an agent could hardly tell what the tool does or how to call it. List each concrete "
            "problem a maintainer could fix (missing or vague description, undocumented parameters, unclear "
            "units or formats, no word on what comes back), or none. Reply as JSON: "
            '{"score": 1, "issues": ["...", "..."]}')
