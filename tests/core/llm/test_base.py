import pytest

from core.llm.base import CallRecord, ChatReply, RoleCall, request_hash


def test_role_call_is_consistent():
    assert RoleCall(value=["a"], call_id=3, role="pseudo_tools").ok
    failed = RoleCall(value=None, ok=False, error="LLMTimeout: slow", role="mutate")
    assert failed.value is None and failed.error.startswith("LLMTimeout")
    with pytest.raises(ValueError, match="RoleCall.error"):
        RoleCall(value=None, ok=False)
    with pytest.raises(ValueError, match="RoleCall.error"):
        RoleCall(value=1, ok=True, error="x")


def test_chat_reply_and_record_validation():
    with pytest.raises(ValueError, match="tokens_in"):
        ChatReply("x", "m", tokens_in=-1)
    with pytest.raises(TypeError, match="ChatReply.text"):
        ChatReply(None, "m")
    with pytest.raises(ValueError, match="request_hash"):
        CallRecord("mutate", "b", "m", 0.0, "short", "p", "r")
    with pytest.raises(ValueError, match="role"):
        CallRecord("", "b", "m", 0.0, "0" * 64, "p", "r")


def test_request_hash_covers_every_part_of_the_request():
    base = ("openai", "m", "mutate", 0.7, 1, [{"role": "user", "content": "x"}])
    h = request_hash(*base)
    assert len(h) == 64 and h == request_hash(*base)
    assert request_hash("openai", "m", "mutate", 0.70000001, 1, base[5]) == h  # float noise is not a new request
    for i, other in enumerate(["other", "m2", "refine", 0.8, 2, [{"role": "user", "content": "y"}]]):
        changed = list(base)
        changed[i] = other
        assert request_hash(*changed) != h
