import pytest

from core.evolution.docs import (
    NOTES_HEADING,
    STAGE_ADJUST,
    Revision,
    apply_revisions,
    body_of,
    compose,
    split_notes,
    text_diff,
)
from core.evolution.similarity import bleu, change_score


def test_compose_and_split_round_trip():
    text = compose("Gets the weather.", "- Fallback: `b` when this tool fails.")
    assert NOTES_HEADING in text
    assert split_notes(text) == ("Gets the weather.", "- Fallback: `b` when this tool fails.")
    assert compose("Gets the weather.") == "Gets the weather."
    assert split_notes("Plain body.") == ("Plain body.", "")
    assert body_of(text) == "Gets the weather."


def test_revision_diff_and_replay():
    rev = Revision("a", 2, STAGE_ADJUST, "Gets weather. For a city.", "Gets weather. For a city or a region.")
    assert "-For a city." in rev.diff and "+For a city or a region." in rev.diff
    assert Revision.from_json(rev.to_json()) == rev
    docs = apply_revisions({"a": "old", "b": "keep"}, [rev, Revision("gone", 2, STAGE_ADJUST, "x", "y")])
    assert docs == {"a": "Gets weather. For a city or a region.", "b": "keep"}  # no tool is brought back


def test_revision_rejects_unknown_stage():
    with pytest.raises(ValueError, match="unknown stage 'later'"):
        Revision("a", 1, "later", "x", "y")


def test_text_diff_is_empty_for_equal_texts():
    assert text_diff("same.", "same.") == ""


def test_bleu_and_change_score():
    assert bleu("the cat sat on the mat", "the cat sat on the mat") == pytest.approx(1.0)
    # 6 candidate tokens of a 6-token reference plus one more: every n-gram of the reference matches
    assert 0.7 < bleu("the cat sat on the mat today", "the cat sat on the mat") < 1.0
    assert bleu("", "") == 1.0 and bleu("a", "") == 0.0
    import numpy as np

    v = np.array([1.0, 0.0])
    assert change_score(v, v, "same text here", "same text here") == pytest.approx(1.0)
    assert change_score(v, np.array([0.0, 1.0]), "same text here", "same text here") == pytest.approx(0.5)


def test_fallback_keys_reads_the_fallback_lines_only():
    from core.evolution.docs import fallback_keys

    notes = ("- Status: working.\n- Fallback: `b`, `c` when this tool fails.\n- Unlike `d`, covers: x.\n"
             "- **Fallback tools:** use `c` or `e` for longer inputs\n- Fallback: none.")
    assert fallback_keys(notes) == ("b", "c", "e")
    assert fallback_keys("") == ()
