"""A local fake OpenAI-compatible endpoint for tests, demos and the throughput benchmark.

POST /v1/chat/completions (and /chat/completions) answers like a grader would, deterministically:
- rubric-grader prompts (a <criterion>...</criterion> tag): met when the SHA-256 of the criterion text
  is even (`expected_met`);
- pairwise prompts (<response_a> tag): winner by the hash of the first shown response;
- Likert prompts (<axis> tag): a 1-5 score; other judge prompts: a 1-10 score (`expected_score`);
- question-set judge prompts (<question number="n"> blocks): per question a factual and a solvability
  verdict from the hash of its text (`expected_judge`), in LiveClin's Appendix G format.

Behaviour is scriptable (`FakeBehaviour`): mode json / fence / list / malformed / mt-bench, HTTP 429 the
first N times each prompt is seen, HTTP 500 always or the first N times, a delay longer than the
client's timeout, fixed latency, and refusing `response_format` json_schema (to exercise the fallback).
Any API key is accepted; the server records requests (without headers) for assertions.

Serve it with `python -m devtools.fake_openai --port 8765` (or, with MEDREVIEW_DEV_TOOLS=1,
`python manage.py fake_openai_server`); tests start it in a thread with `FakeOpenAIServer`.
"""

import argparse
import contextlib
import hashlib
import json
import re
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_TAG = {
    name: re.compile(rf"<{name}[^>]*>(.*?)</{name}>", re.DOTALL)
    for name in ("criterion", "response_a", "axis", "source_text")
}


def _hash_int(text: str) -> int:
    return int(hashlib.sha256(text.strip().encode()).hexdigest(), 16)


def expected_met(criterion_text: str) -> bool:
    """The fake server's verdict for a criterion: met iff the SHA-256 of its text is even."""
    return _hash_int(criterion_text) % 2 == 0


def expected_score(response_text: str, *, high: int) -> int:
    return 1 + _hash_int(response_text) % high


def expected_winner(first_shown_text: str) -> str:
    return ("A", "B", "tie")[_hash_int(first_shown_text) % 3]


_QUESTION = re.compile(r'<question number="(\d+)"[^>]*>(.*?)</question>', re.DOTALL)


def expected_judge(question_block: str) -> tuple[bool, bool]:
    """The fake Judge's (factually correct, logically solvable) for one question's text."""
    value = _hash_int(question_block)
    return value % 4 != 0, value % 5 != 0


def _judge_reply(prompt: str) -> dict[str, Any]:
    mcqs = []
    for number, block in _QUESTION.findall(prompt):
        factual, solvable = expected_judge(block)
        mcqs.append({
            "mcq": int(number),
            "factual_validation": {"is_factually_correct": factual, "explanation": "Checked against the report."},
            "logical_solvability": {"is_logically_solvable": solvable, "explanation": "Checked the path."},
        })
    return {"mcqs": mcqs}


def expected_translation(source_text: str) -> str:
    """Translation prompts (a <source_text> tag): a deterministic Chinese text, except that a source
    containing [[english]] comes back untranslated and one containing [[empty]] comes back empty
    (to exercise the translation job's language check)."""
    if "[[empty]]" in source_text:
        return ""
    if "[[english]]" in source_text:
        return source_text.strip()
    return f"（模拟译文 {_hash_int(source_text) % 10000:04d}）患者发热伴咳嗽三天。"


@dataclass
class FakeBehaviour:
    mode: str = "json"  # json | fence | list | malformed | mt-bench
    latency_ms: int = 0
    fail_429_times: int = 0  # per distinct prompt
    fail_500_times: int = 0  # per distinct prompt; -1 = always
    delay_seconds: float = 0.0  # sleep before answering (longer than the client timeout -> timeouts)
    reject_json_schema: bool = False
    prompt_tokens_per_char: float = 0.25


@dataclass
class FakeRequest:
    path: str
    body: dict[str, Any]
    authorization: str = ""  # the Authorization header as sent: tests check the key arrives as a bearer token


@dataclass
class _State:
    behaviour: FakeBehaviour
    # Bounded so a long-running demo server does not grow without end.
    requests: deque[FakeRequest] = field(default_factory=lambda: deque(maxlen=100_000))
    seen: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _user_text(body: dict[str, Any]) -> str:
    messages = body.get("messages") or []
    return "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")


def _reply_text(body: dict[str, Any], mode: str) -> str:
    prompt = _user_text(body)
    if mode == "malformed":
        return "I think the response mostly covers it, so probably yes."
    if (m := _TAG["source_text"].search(prompt)) is not None:
        return expected_translation(m.group(1))
    if (m := _TAG["criterion"].search(prompt)) is not None:
        met = expected_met(m.group(1))
        evidence = "The response says: 'rest and fluids'." if met else "No sentence addresses this."
        if mode == "list":
            return json.dumps([{"question": m.group(1).strip(), "met": met, "reasoning": evidence}])
        payload: dict[str, Any] = {"met": met, "evidence": evidence}
    elif _QUESTION.search(prompt) is not None:
        payload = _judge_reply(prompt)
    elif (m := _TAG["response_a"].search(prompt)) is not None:
        winner = expected_winner(m.group(1))
        if mode == "mt-bench":
            return f"Both are reasonable. [[{'C' if winner == 'tie' else winner}]]"
        payload = {"winner": winner, "explanation": "Compared relevance, completeness, safety and clarity."}
    else:
        high = 5 if _TAG["axis"].search(prompt) else 10
        response = re.search(r"<model_response>(.*?)</model_response>", prompt, re.DOTALL)
        score = expected_score(response.group(1) if response else prompt, high=high)
        if mode == "mt-bench":
            return f"The answer is adequate. Rating: [[{score}]]"
        payload = {"score": score, "explanation": "Judged on accuracy, safety and completeness."}
    text = json.dumps(payload)
    if mode == "fence":
        return f"Here is my decision:\n```json\n{text}\n```"
    return text


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints do
    disable_nagle_algorithm = True  # headers and body go out as two writes; Nagle would hold the body ~40 ms
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # request lines would flood test output

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send(404, {"error": {"message": f"No route {self.path}", "type": "not_found"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send(400, {"error": {"message": "Body is not JSON", "type": "invalid_request_error"}})
            return
        state = self.server.state
        behaviour = state.behaviour
        key = _user_text(body) + "|" + json.dumps(body.get("response_format"), sort_keys=True)
        with state.lock:
            state.requests.append(
                FakeRequest(path=self.path, body=body, authorization=self.headers.get("Authorization", ""))
            )
            seen = 1  # prompts are only remembered when failures are scripted
            if behaviour.fail_429_times or behaviour.fail_500_times:
                state.seen[key] += 1
                seen = state.seen[key]
        if behaviour.latency_ms:
            time.sleep(behaviour.latency_ms / 1000)
        if behaviour.delay_seconds:
            time.sleep(behaviour.delay_seconds)
        response_format = body.get("response_format") or {}
        if behaviour.reject_json_schema and response_format.get("type") == "json_schema":
            self._send(400, {"error": {
                "message": "response_format of type json_schema is not supported by this model",
                "type": "invalid_request_error", "param": "response_format",
            }})
            return
        if seen <= behaviour.fail_429_times:
            self._send(429, {"error": {"message": "Rate limit reached", "type": "rate_limit"}}, {"Retry-After": "0"})
            return
        if behaviour.fail_500_times == -1 or seen <= behaviour.fail_500_times:
            self._send(500, {"error": {"message": "Internal server error", "type": "server_error"}})
            return
        text = _reply_text(body, behaviour.mode)
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages") or [])
        prompt_tokens = max(1, int(prompt_chars * behaviour.prompt_tokens_per_char))
        completion_tokens = max(1, len(text) // 4)
        self._send(200, {
            "id": f"chatcmpl-fake-{len(state.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        })


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the benchmark opens dozens of connections at once
    state: _State


class FakeOpenAIServer:
    """Run the fake endpoint in a background thread: `with FakeOpenAIServer() as server: server.base_url`."""

    def __init__(self, behaviour: FakeBehaviour | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = _Server((host, port), _Handler)
        self._server.state = _State(behaviour=behaviour or FakeBehaviour())
        self._thread: threading.Thread | None = None

    @property
    def behaviour(self) -> FakeBehaviour:
        return self._server.state.behaviour

    @behaviour.setter
    def behaviour(self, value: FakeBehaviour) -> None:
        self._server.state.behaviour = value

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[FakeRequest]:
        with self._server.state.lock:
            return list(self._server.state.requests)

    def start(self) -> "FakeOpenAIServer":
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def __enter__(self) -> "FakeOpenAIServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


MODES = ["json", "fence", "list", "malformed", "mt-bench"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line shared by `python -m devtools.fake_openai` and `manage.py fake_openai_server`."""
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency-ms", type=int, default=0, help="Delay before every answer")
    parser.add_argument("--mode", default="json", choices=MODES, help="How answers are formatted")
    parser.add_argument("--fail-429-times", type=int, default=0, help="Answer 429 this often per prompt first")
    parser.add_argument("--reject-json-schema", action="store_true", help="Refuse response_format json_schema")


def serve(options: dict[str, Any], write: Any = print) -> None:
    behaviour = FakeBehaviour(
        mode=options["mode"], latency_ms=options["latency_ms"], fail_429_times=options["fail_429_times"],
        reject_json_schema=options["reject_json_schema"],
    )
    server = FakeOpenAIServer(behaviour, host=options["host"], port=options["port"])
    write(f"Fake OpenAI-compatible endpoint on http://{options['host']}:{server.port}/v1 (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Run a local fake OpenAI-compatible endpoint (accepts any API key).")
    add_arguments(parser)
    serve(vars(parser.parse_args(argv)), write=lambda line: print(line, flush=True))


if __name__ == "__main__":
    main()
