"""What a rater reads of case text (original, translation, both) and the text version their
ratings record; blinding holds."""

from __future__ import annotations

import json

import pytest

from annotation.models import Rating, Study
from annotation.models.translated import TextDisplay
from annotation.rating.text_display import resolve_display, text_view_for
from cases.models import TextTranslation
from tests.annotation.builders import claim_and_submit, running_study
from tests.conftest import make_user
from tests.i18n.builders import chinese_case, english_translations, import_translations

pytestmark = pytest.mark.django_db


def _study(admin, raters, **options) -> Study:
    chinese_case()
    import_translations(english_translations())
    study = running_study(admin, raters=raters, tasks=["narrative-quality", "criterion-validity"], **options)
    study.translation_language = "en"
    study.save(update_fields=["translation_language"])
    return study


@pytest.mark.parametrize(("setting", "reads", "shown"), [
    (TextDisplay.AUTO, ["en", "zh"], TextDisplay.BOTH),
    (TextDisplay.AUTO, ["zh"], TextDisplay.ORIGINAL),
    (TextDisplay.AUTO, ["en"], TextDisplay.TRANSLATION),
    (TextDisplay.AUTO, [], TextDisplay.BOTH),
    (TextDisplay.ORIGINAL, ["en", "zh"], TextDisplay.ORIGINAL),
    (TextDisplay.TRANSLATION, ["en", "zh"], TextDisplay.TRANSLATION),
])
def test_the_study_setting_decides_per_rater(setting, reads, shown):
    study = Study(text_display=setting, translation_language="en")
    assert resolve_display(study, "zh", reads) == shown


def test_a_bilingual_rater_reads_both_and_the_rating_records_the_version(admin, physician_a):
    study = _study(admin, [physician_a])
    assignment = claim_and_submit(study, physician_a)
    ids = sorted(TextTranslation.objects.values_list("pk", flat=True))
    versions = {json.dumps(r.text_version, sort_keys=True) for r in Rating.objects.filter(assignment=assignment)}
    assert len(versions) == 1
    assert Rating.objects.filter(assignment=assignment).first().text_version == {
        "display": "both", "original_language": "zh", "translation_language": "en", "translations": ids,
    }


def test_a_chinese_only_rater_reads_the_original_and_records_it(admin):
    reader = make_user("zh_reader", role="physician", languages=["zh"])
    study = _study(admin, [reader])
    assignment = claim_and_submit(study, reader)
    rating = Rating.objects.filter(assignment=assignment).first()
    assert rating.text_version == {"display": "original", "original_language": "zh",
                                   "translation_language": "", "translations": []}


def test_the_rating_page_shows_original_and_translation_side_by_side_with_their_languages(client, admin, physician_a):
    from annotation.rating.services.queue import assignment_claim_next
    from tests.conftest import login

    study = _study(admin, [physician_a])
    assignment = assignment_claim_next(study=study, rater=physician_a)
    view = text_view_for(assignment.item, physician_a)
    assert view.shows_original and view.shows_translation
    page = login(client, physician_a).get(f"/review/assignments/{assignment.pk}/").content.decode()
    assert 'lang="zh"' in page and 'lang="en"' in page
    assert "Male, 45, three days of fever" in page
    # Blinding: nothing about where a translation came from.
    assert "professional" not in page
