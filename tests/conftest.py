"""Shared personas and database helpers for every test package.

physician_a / physician_b: raters (English and Chinese, internal medicine)
inspector: senior physician; researcher: reads reports; admin: runs studies and imports
outsider: a physician who belongs to no study (must get 404 everywhere it is not invited)
"""

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import translation

from accounts.models import Profile, Rank, Role

PASSWORD = "correct-horse-battery-9"


@pytest.fixture(autouse=True)
def interface_language_reset():
    """Each test starts in English: LocaleMiddleware leaves the last request's language (a zh-Hans
    Accept-Language, a profile's choice) active in the thread, and service-level messages follow it."""
    translation.activate("en")
    yield
    translation.activate("en")


def make_user(
    username: str,
    *,
    role: str,
    specialties: list[str] | None = None,
    languages: list[str] | None = None,
    rank: str = "",
):
    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    Profile.objects.create(
        user=user,
        role=role,
        specialties=specialties if specialties is not None else ["Internal Medicine"],
        languages=languages if languages is not None else ["en", "zh"],
        rank=rank,
        pseudonym=f"R-{username}",
    )
    return user


@pytest.fixture
def physician_a(db):
    return make_user("physician_a", role=Role.PHYSICIAN, rank=Rank.ATTENDING)


@pytest.fixture
def physician_b(db):
    return make_user("physician_b", role=Role.PHYSICIAN, rank=Rank.ATTENDING)


@pytest.fixture
def inspector(db):
    return make_user("inspector", role=Role.INSPECTOR, rank=Rank.CHIEF)


@pytest.fixture
def researcher(db):
    return make_user("researcher", role=Role.RESEARCHER, specialties=[], languages=[])


@pytest.fixture
def admin(db):
    return make_user("admin", role=Role.ADMIN, specialties=[], languages=[])


@pytest.fixture
def outsider(db):
    return make_user("outsider", role=Role.PHYSICIAN, rank=Rank.ATTENDING)


def login(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def is_postgres() -> bool:
    return connection.vendor == "postgresql"


@pytest.fixture
def postgres_only(db):
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL: row locks (FOR UPDATE SKIP LOCKED) under real concurrency, or a database "
            "shared with another process; run with DATABASE_URL=postgres://..."
        )


@pytest.fixture
def token_cache(settings):
    """The verified-token cache on (the test settings turn it off), empty before and after."""
    from medreview.authentication import forget_all_tokens

    settings.API_TOKEN_CACHE_SECONDS = 5
    forget_all_tokens()
    yield
    forget_all_tokens()


@pytest.fixture
def tasks_cache(settings):
    """The per-process cache of a study's tasks and scales on (the test settings turn it off), empty
    before and after."""
    from annotation.fields import forget_study_tasks

    settings.STUDY_TASKS_CACHE_SECONDS = 5
    forget_study_tasks()
    yield
    forget_study_tasks()


@pytest.fixture
def dev_py() -> ModuleType:
    """dev.py, the developer entry point at the checkout's root, loaded as a module."""
    spec = importlib.util.spec_from_file_location("dev_for_tests", Path(__file__).resolve().parents[1] / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
