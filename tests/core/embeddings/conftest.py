import pytest

from tests.core.llm.fake_openai import FakeOpenAI


@pytest.fixture
def fake():
    """A local server speaking the OpenAI embeddings protocol (and chat), scripted per request."""
    server = FakeOpenAI().start()
    yield server
    server.close()
