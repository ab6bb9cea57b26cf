"""Team composition per study phase (LiveClin Fig. 4): who annotated and who inspected, by rank and
by specialty. LiveClin reports senior physicians (Chief and Associate Chief) as 26.3% of the
Annotation team and 38.2% of the Inspection team.

The Annotation team is the physicians who submitted work in the study (not merely listed); the
Inspection team is those who inspected an item of it (an admin who inspected counts too). A
physician with several specialties counts once in each, so specialty shares may add up to more
than 100%.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from accounts.models import Profile, Rank
from annotation.models import Assignment, Inspection, Study

SENIOR = (Rank.ASSOCIATE_CHIEF, Rank.CHIEF)
RANK_NAMES = {**dict(Rank.choices), "": "Rank not recorded"}


@dataclass(frozen=True)
class TeamPhase:
    phase: str  # annotation | inspection
    people: int
    by_rank: dict[str, int]
    by_specialty: dict[str, int]

    @property
    def senior_share(self) -> float | None:
        return sum(self.by_rank.get(r, 0) for r in SENIOR) / self.people if self.people else None

    def as_dict(self) -> dict[str, Any]:
        share = (lambda n: n / self.people) if self.people else (lambda n: None)
        return {
            "phase": self.phase, "people": self.people, "senior_share": self.senior_share,
            "by_rank": [{"rank": r, "name": RANK_NAMES.get(r, r), "people": n, "share": share(n)}
                        for r, n in self.by_rank.items()],
            "by_specialty": [{"specialty": s, "people": n, "share": share(n)} for s, n in self.by_specialty.items()],
        }


def _phase(name: str, user_ids: set[int]) -> TeamPhase:
    profiles = {p.user_id: p for p in Profile.objects.filter(user_id__in=user_ids)}
    ranks: Counter[str] = Counter()
    specialties: Counter[str] = Counter()
    for user_id in user_ids:
        profile = profiles.get(user_id)
        ranks[profile.rank if profile else ""] += 1
        for specialty in (profile.specialties if profile else []) or []:
            specialties[str(specialty)] += 1
    order = [r for r, _ in Rank.choices] + [""]
    return TeamPhase(
        phase=name, people=len(user_ids),
        by_rank={r: ranks[r] for r in order if ranks[r]},
        by_specialty=dict(sorted(specialties.items(), key=lambda kv: (-kv[1], kv[0]))),
    )


def team_composition(study: Study) -> list[TeamPhase]:
    annotators = set(
        Assignment.objects.filter(item__study=study, state__in=Assignment.RATED_STATES).values_list("rater_id", flat=True)
    )
    inspectors = set(Inspection.objects.filter(item__study=study).values_list("inspector_id", flat=True))
    return [_phase("annotation", annotators), _phase("inspection", inspectors)]
