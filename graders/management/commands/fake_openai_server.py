"""Serve the fake OpenAI-compatible endpoint (graders/fake_server.py) for demos and benchmarks."""

import contextlib
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from graders.fake_server import FakeBehaviour, FakeOpenAIServer


class Command(BaseCommand):
    help = "Run a local fake OpenAI-compatible chat-completions endpoint (accepts any API key)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8765)
        parser.add_argument("--latency-ms", type=int, default=0, help="Delay before every answer")
        parser.add_argument(
            "--mode", default="json", choices=["json", "fence", "list", "malformed", "mt-bench"],
            help="How answers are formatted",
        )
        parser.add_argument("--fail-429-times", type=int, default=0, help="Answer 429 this often per prompt first")
        parser.add_argument("--reject-json-schema", action="store_true", help="Refuse response_format json_schema")

    def handle(self, *args: Any, **options: Any) -> None:
        behaviour = FakeBehaviour(
            mode=options["mode"], latency_ms=options["latency_ms"], fail_429_times=options["fail_429_times"],
            reject_json_schema=options["reject_json_schema"],
        )
        server = FakeOpenAIServer(behaviour, host=options["host"], port=options["port"])
        self.stdout.write(f"Fake OpenAI-compatible endpoint on http://{options['host']}:{server.port}/v1 (Ctrl-C stops)")
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
