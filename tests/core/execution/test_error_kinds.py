"""A tool's own complaint about its inputs is a permanent parameter failure; only host failures are transient
(those, and only those, the trials may bridge with a simulated answer: core.trials.pipeline.TRANSIENT_KINDS)."""

import pytest

from core.execution.base import ERROR_KINDS, classify_error
from core.execution.http import _status_kind
from core.trials.pipeline import TRANSIENT_KINDS


@pytest.mark.parametrize("message, kind", [
    # what MCP servers and HTTP APIs answer for a refused key, an unknown tool, a rejected schema
    ("401 Unauthorized: missing API key", "auth"),
    ("403 Forbidden", "auth"),
    ("Unknown tool: fx.convert", "not_found"),
    ("404 Not Found", "not_found"),
    ("400 Bad Request: invalid parameters for book_hotel: 'hotel_id' is a required property", "invalid_params"),
    ("1 validation error for call_tool", "invalid_params"),
    ("500 Internal Server Error: upstream failed", "server"),
    # what mcp-server-time answers (isError) for a bad zone or time: the call was wrong, not the host
    ("Invalid timezone: 'No time zone found with key Europe'", "invalid_params"),
    ("Invalid time format. Expected HH:MM [24-hour format]", "invalid_params"),
    ("Invalid time: 02:30 does not exist in Europe/Berlin on 2026-03-29 (skipped by a clock change)",
     "invalid_params"),
    ("Missing required argument: timezone", "invalid_params"),
    ("time must look like 15:00 or 3pm, got 'noonish'", "invalid_params"),
    ("value out of range", "invalid_params"),
    ("weight must be below 500 kg", "invalid_params"),  # a number is not an HTTP status
    # the host's failures
    ("500 Internal Server Error: the upstream service failed", "server"),
    ("503 Service Unavailable", "unavailable"),
    ("429 Too Many Requests: rate limit exceeded", "unavailable"),
    ("something broke", "server"),
    ("Invalid API key", "auth"),
])
def test_tool_error_messages(message, kind):
    assert classify_error(message) == kind and kind in ERROR_KINDS


def test_parameter_complaints_are_never_transient():
    assert classify_error("Invalid timezone: 'No time zone found with key Tokyo'") not in TRANSIENT_KINDS


@pytest.mark.parametrize("status, kind", [
    (400, "invalid_params"), (409, "invalid_params"), (415, "invalid_params"), (422, "invalid_params"),
    (401, "auth"), (403, "auth"), (404, "not_found"), (410, "not_found"), (501, "not_found"),
    (408, "timeout"), (429, "unavailable"), (413, "limit"), (500, "server"), (502, "server"), (503, "server"),
])
def test_http_status_kinds(status, kind):
    assert _status_kind(status) == kind
    # every 4xx but a timeout or a rate limit is the request's own fault: never simulated
    assert (kind in TRANSIENT_KINDS) == (status >= 500 and status != 501 or status in (408, 429))
