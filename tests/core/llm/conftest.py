import pytest

from tests.core.llm.fake_openai import FakeOpenAI


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.close()
