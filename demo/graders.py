"""Demo grader configurations for `manage.py load_demo`, pointing at the local fake endpoint.

Run the fake endpoint with `python -m devtools.fake_openai --port 8765` and give the workers any
value for MEDREVIEW_GRADER_KEY_DEMO (the fake server accepts every key).
"""

from typing import TextIO

from graders import services
from graders.endpoints.policy import endpoint_problem
from graders.kinds import prompts
from graders.models import GraderConfig, GraderKind

DEMO_BASE_URL = "http://127.0.0.1:8765/v1"
DEMO_KEY_ENV = "MEDREVIEW_GRADER_KEY_DEMO"  # GRADER_KEY_ENV_PREFIX: only such variables may hold keys
DEMO_GRADERS = [
    ("Demo rubric grader (fake server)", GraderKind.RUBRIC_GRADER),
    ("Demo LLM judge (fake server)", GraderKind.LLM_JUDGE),
    ("Demo Likert judge (fake server)", GraderKind.LIKERT_JUDGE),
    ("Demo pairwise judge (fake server)", GraderKind.PAIRWISE_JUDGE),
]


def load_demo_graders(*, stdout: TextIO) -> None:
    """Create the demo grader configurations; called by load_demo after the demo data exists. Idempotent.

    Skipped, with one line saying what to set, when GRADER_ALLOWED_HOSTS does not allow the fake
    endpoint (the production default allows no host): the rest of the demo needs no grader."""
    if endpoint_problem(DEMO_BASE_URL) is not None:
        stdout.write("Demo graders skipped: their endpoint 127.0.0.1:8765 is not allowed; set "
                     "GRADER_ALLOWED_HOSTS=127.0.0.1:8765 and run load_demo again to add them.\n")
        return
    for name, kind in DEMO_GRADERS:
        if GraderConfig.objects.filter(name=name).exists():
            # Demo databases made before the key prefix rule named another variable.
            GraderConfig.objects.filter(name=name, api_key_env="DEMO_OPENAI_API_KEY").update(api_key_env=DEMO_KEY_ENV)
            continue
        services.grader_config_save(
            config=None,
            data={
                "name": name, "kind": kind, "base_url": DEMO_BASE_URL, "model": "fake-grader-1",
                "temperature": 0.0, "max_tokens": 512, "concurrency": 8, "timeout_seconds": 30.0,
                "max_attempts": 4, "backoff_base_seconds": 0.5, "api_key_env": DEMO_KEY_ENV,
                "structured_output": True,
                "axes": list(prompts.LIKERT_AXES) if kind == GraderKind.LIKERT_JUDGE else [],
            },
            prompt_text=prompts.DEFAULT_PROMPTS[kind], prompt_version=prompts.DEFAULT_VERSION, user=None,
        )
        stdout.write(f"Created demo grader {name}\n")
    stdout.write(
        "Demo graders call the fake endpoint: run `python -m devtools.fake_openai --port 8765` and give the "
        f"workers {DEMO_KEY_ENV}=demo (any value).\n"
    )
