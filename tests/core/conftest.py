"""Fixtures shared by the engine's tests outside tests/core/llm (which has its own plain ``fake``)."""

import pytest

from tests.core.llm.fake_openai import FakeOpenAI, role_answer


@pytest.fixture
def role_fake():
    """The local OpenAI-protocol server, answering every role's request the way a model would."""
    server = FakeOpenAI().start()
    server.respond = role_answer
    yield server
    server.close()
