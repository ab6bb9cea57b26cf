"""What the people forms offer: specialties and languages picked from lists, never typed as JSON.

Specialties come from the benchmarks' data (`cases`, above this app, registers its list when Django
starts) and from the profiles already stored; languages are BCP 47 tags as profiles and items store
them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.utils.translation import get_language_info

from accounts.models import Profile

SpecialtySource = Callable[[], Iterable[str]]

_specialty_sources: list[SpecialtySource] = []

# The languages of the benchmarks medreview reviews (LiveMedBench, LiveClin, ClinConsensus, MEDIC,
# HealthBench) and of their physicians; a profile holding another tag keeps it (see `language_choices`).
LANGUAGES = ("en", "zh", "es", "fr", "de", "pt", "it", "ru", "ar", "hi", "ja", "ko")


def register_specialty_source(source: SpecialtySource) -> None:
    if source not in _specialty_sources:
        _specialty_sources.append(source)  # one registration per app, made at startup


def specialty_choices(extra: Iterable[str] = ()) -> list[tuple[str, str]]:
    names: set[str] = {s for s in extra if s}
    for source in _specialty_sources:
        names.update(n for n in source() if n)
    for specialties in Profile.objects.exclude(specialties=[]).values_list("specialties", flat=True):
        names.update(s for s in specialties or [] if isinstance(s, str) and s)
    return [(n, n) for n in sorted(names, key=str.casefold)]


def _language_name(code: str) -> str:
    try:
        info = get_language_info(code)
    except KeyError:
        return code
    return f"{info['name_translated']} ({code})"


def language_choices(extra: Iterable[str] = ()) -> list[tuple[str, str]]:
    codes = list(dict.fromkeys([*LANGUAGES, *(c for c in extra if c)]))
    return [(c, _language_name(c)) for c in codes]
