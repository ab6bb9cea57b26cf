"""Serve the fake OpenAI-compatible endpoint (devtools/fake_openai.py) for demos and benchmarks."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from devtools.fake_openai import add_arguments, serve


class Command(BaseCommand):
    help = "Run a local fake OpenAI-compatible chat-completions endpoint (accepts any API key)."

    def add_arguments(self, parser: CommandParser) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        serve(options, write=self.stdout.write)
