"""Documentation quality: the rules by hand, the offline role agreeing with them, and a model's rating
through the real OpenAI-protocol client against the local fake server."""

from core.doc_quality import issue_kinds, issues_of_doc, rate, rate_all, rate_by_rules, render_doc, score_of
from core.llm.ledger import MemoryLedger
from core.llm.offline import OfflineOperators
from core.llm.openai_backend import OpenAIChatBackend
from core.llm.prompted import PromptedOperators
from core.llm.vocabulary import CatalogVocabulary
from core.models import Tool
from tests.core.llm.fake_openai import FakeOpenAI

GOOD = Tool("convert_currency", "convert_currency",
            "Convert an amount of money from one currency to another at today's rate.",
            {"type": "object", "properties": {
                "amount": {"type": "number", "description": "how much money"},
                "from_currency": {"type": "string", "description": "ISO 4217 code, e.g. USD"}},
             "required": ["amount", "from_currency"]})
BAD = Tool("run", "run", "Run.",
           {"type": "object", "properties": {"x": {"description": "input"}, "y": {"type": "string"}},
            "required": ["x"]})


def test_render_doc_lists_every_parameter():
    assert render_doc(BAD) == "Name: run\nDescription: Run.\nParameters:\n- x (, required): input\n- y (string, optional)"
    assert render_doc(Tool("t", "get_time")).endswith("Parameters:\n(none)")


def test_rules_by_hand():
    assert rate_by_rules(GOOD).issues == () and rate_by_rules(GOOD).score == 5
    bad = rate_by_rules(BAD)
    assert bad.issues == (
        "description is very short (1 words)",
        "description only restates the name",
        "the name says little about what the tool does",
        "1 of 2 parameters have no description (y)",
        "parameters without a type (x)",
    )
    assert bad.score == 1 and bad.rater == "rules"
    empty = rate_by_rules(Tool("send_email", "send_email"))
    assert empty.issues == ("no description",) and empty.score == 3  # no description costs two
    assert score_of([]) == 5 and score_of(["a", "b", "c", "d", "e", "f"]) == 1


def test_parameter_descriptions_that_only_restate_the_name_are_flagged():
    echo = Tool("create_note", "create_note", "Create a note in the user's notebook with a title and a body.",
                {"type": "object", "properties": {
                    "title": {"type": "string", "description": "Title."},
                    "body_text": {"type": "string", "description": "The body text"},
                    "tag": {"type": "string", "description": "a tag such as work or home"}}})
    assert rate_by_rules(echo).issues == ("2 of 3 parameter descriptions only restate the name (title, body_text)",)
    assert rate_by_rules(echo).score == 4
    assert rate_by_rules(GOOD).issues == ()  # "how much money" for amount says more than the name


def test_the_offline_role_applies_the_same_rules_and_is_recorded():
    ledger = MemoryLedger()
    ops = OfflineOperators(CatalogVocabulary.from_texts([]), ledger=ledger)
    for tool in (GOOD, BAD):
        by_role = rate(tool, ops)
        assert by_role.issues == tuple(issues_of_doc(render_doc(tool))) and by_role.rater == ops.model
    assert [r.role for r in ledger.records] == ["doc_quality", "doc_quality"]
    ratings = rate_all([GOOD, BAD, Tool("t", "run")])
    assert [r.score for r in ratings] == [5, 1, 2]  # no description (-2), a name that says little (-1)
    assert issue_kinds(ratings)["the name says little about what the tool does"] == 2


def test_a_model_rating_is_parsed_and_clamped_and_a_failure_falls_back_to_the_rules():
    server = FakeOpenAI().start()
    try:
        ops = PromptedOperators(OpenAIChatBackend(server.url, "rater", "sk-x", backoff=0.01, max_retries=0),
                                MemoryLedger())
        server.script = [("ok", 'Here you go: {"score": 9, "issues": ["units of amount  not given", ""]}'),
                         ("ok", "I think it is fine.")]
        good = rate(GOOD, ops)
        assert (good.score, good.issues, good.rater, good.error) == (5, ("units of amount not given",), "rater", None)
        prompt = server.seen[0]["body"]["messages"][1]["content"]
        assert "- from_currency (string, required): ISO 4217 code" in prompt  # the model reads the rendered doc
        fallback = rate(BAD, ops)  # an answer with no JSON: the rules' rating, with the error kept
        assert fallback.rater == "rules" and fallback.score == 1 and fallback.error
    finally:
        server.close()


def test_cli_rates_a_stored_catalog_by_rules_and_by_a_model(tmp_path, capsys, monkeypatch):
    import json

    from core.cli import main

    path = tmp_path / "tools.json"
    path.write_text(json.dumps([GOOD.to_openai(), BAD.to_openai()]))
    db = f"sqlite:///{tmp_path / 'q.db'}"
    assert main(["import", str(path), "--name", "two", "--db", db, "--json"]) == 0
    capsys.readouterr()
    assert main(["doc-quality", "two", "--db", db, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["tools"], out["rater"], out["mean_score"], out["scores"]) == \
        (2, "rules", 3.0, {"1": 1, "2": 0, "3": 0, "4": 0, "5": 1})
    assert [w["key"] for w in out["worst"]] == ["run", "convert_currency"]

    server = FakeOpenAI().start()
    try:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        server.script = [("ok", '{"score": 4, "issues": ["say what comes back"]}'), ("status", 500, {}, "down")]
        assert main(["doc-quality", "two", "--db", db, "--json", "--llm", "openai", "--base-url", server.url,
                     "--llm-model", "rater", "--llm-retries", "0"]) == 0
        rated = json.loads(capsys.readouterr().out)
        assert rated["rater"] == "rater" and rated["failed_calls"] == 1  # the failed one keeps its rules rating
        assert rated["scores"] == {"1": 1, "2": 0, "3": 0, "4": 1, "5": 0}
    finally:
        server.close()
