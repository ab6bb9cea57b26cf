"""Calling an OpenAI-compatible chat-completions endpoint, with our own retries.

The openai client's own retries are switched off (max_retries=0) so every attempt is counted and the
backoff is ours: exponential with full jitter (AWS architecture blog), on 429, 5xx, timeouts and
connection errors. Other 4xx answers are not retried. The API key is read from the environment variable
the config names, passed to the client and never logged, stored or put in an error message.
"""

import logging
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import openai
from openai import OpenAI
from openai.types.chat import ChatCompletion

from graders.endpoints.policy import endpoint_problem, key_variable_problem

logger = logging.getLogger(__name__)


class MissingApiKey(Exception):
    """The environment variable a grader config names is not set in this process."""


@dataclass(frozen=True)
class Endpoint:
    """Everything needed to call the endpoint; built from a GraderConfig (without the key)."""

    base_url: str
    model: str
    api_key_env: str
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_seconds: float = 60.0
    max_attempts: int = 5
    backoff_base_seconds: float = 1.0
    backoff_cap_seconds: float = 60.0


@dataclass
class CallResult:
    text: str = ""
    error: str = ""
    attempts: int = 0
    latency_ms: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    structured_rejected: bool = False
    retried_statuses: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def retries(self) -> int:
        return max(0, self.attempts - 1)


def read_api_key(endpoint: Endpoint) -> str:
    # Checked again here, whatever was saved: never read a variable or reach a host the policy forbids.
    refusal = endpoint_problem(endpoint.base_url) or key_variable_problem(endpoint.api_key_env)
    if refusal:
        raise MissingApiKey(refusal)
    key = os.environ.get(endpoint.api_key_env)
    if not key:
        raise MissingApiKey(f"The environment variable {endpoint.api_key_env} is not set for this worker.")
    return key


def make_client(endpoint: Endpoint) -> OpenAI:
    return OpenAI(
        base_url=endpoint.base_url,
        api_key=read_api_key(endpoint),
        max_retries=0,
        timeout=endpoint.timeout_seconds,
    )


def backoff_delay(attempt: int, *, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Full jitter: a uniform wait in [0, min(cap, base * 2^(attempt-1))] after the attempt-th failure."""
    upper = min(cap, base * (2 ** (attempt - 1)))
    return (rng or random).uniform(0, upper)


def _scrub(message: str, secret: str) -> str:
    # Some servers echo (part of) the key in auth errors; never let it reach the database or a page.
    return message.replace(secret, "***") if secret else message


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"[:2000]
    if isinstance(exc, openai.APITimeoutError):
        return "Timed out waiting for the endpoint"
    if isinstance(exc, openai.APIConnectionError):
        return f"Connection error: {exc.__cause__ or exc}"[:2000]
    return f"{type(exc).__name__}: {exc}"[:2000]


def _is_retryable(exc: Exception) -> bool:
    if isinstance(exc, openai.APITimeoutError | openai.APIConnectionError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return False


def _rejects_response_format(exc: Exception) -> bool:
    return (
        isinstance(exc, openai.BadRequestError)
        and "response_format" in f"{exc.message} {getattr(exc, 'body', '')}".lower()
    )


def complete(
    client: OpenAI,
    endpoint: Endpoint,
    messages: list[dict[str, str]],
    *,
    response_format: dict[str, Any] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> CallResult:
    """One grader decision's call, retried as needed. Never raises for endpoint errors.

    When the endpoint refuses `response_format` (HTTP 400 naming it), the call is repeated at once
    without it and `structured_rejected` is set so the caller can remember that for the config.
    """
    result = CallResult()
    secret = client.api_key or ""
    started = time.monotonic()
    while True:
        result.attempts += 1
        kwargs: dict[str, Any] = {
            "model": endpoint.model,
            "messages": messages,
            "temperature": endpoint.temperature,
            "max_tokens": endpoint.max_tokens,
        }
        if response_format is not None:
            kwargs["response_format"] = response_format
        try:
            # The client's generic POST (its documented way to any path) with the same typed answer:
            # `chat.completions.create` first walks its parameters' type hints on every call, a
            # quarter of the client's processor time for these plain values (docs/performance.md).
            completion = client.post("/chat/completions", body=kwargs, cast_to=ChatCompletion)
        except Exception as exc:  # noqa: BLE001 - every endpoint failure becomes a recorded outcome
            if response_format is not None and _rejects_response_format(exc):
                result.structured_rejected = True
                response_format = None
                continue
            result.error = _scrub(_describe(exc), secret)
            if not _is_retryable(exc) or result.attempts >= endpoint.max_attempts:
                break
            result.retried_statuses.append(result.error[:40])
            delay = backoff_delay(
                result.attempts, base=endpoint.backoff_base_seconds, cap=endpoint.backoff_cap_seconds
            )
            logger.info("Grader call failed (%s); retry %d in %.2fs", result.error[:200], result.attempts, delay)
            sleep(delay)
            continue
        result.error = ""
        choice = completion.choices[0] if completion.choices else None
        result.text = _scrub((choice.message.content or "") if choice is not None else "", secret)
        usage = completion.usage
        if usage is not None:
            result.input_tokens = usage.prompt_tokens
            result.output_tokens = usage.completion_tokens
        break
    result.latency_ms = int((time.monotonic() - started) * 1000)
    return result
