"""What a Chinese reader gets besides the pages: dates as they write them, the report, its charts and
its XLSX / PDF exports in their language, the invitation e-mail in the invitee's language, counts
with their own plural, and names in their own language."""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.template import Context, Template
from django.test import override_settings
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format
from matplotlib import font_manager
from openpyxl import load_workbook

from accounts.models import Role
from accounts.services import account_invite
from agreement.charts import CJK_FONTS, cached_chart
from agreement.reports import cached_report
from agreement.selection import Selection
from medreview.i18n.widgets import UserTextSelect
from tests.agreement.builders import reliability_study
from tests.conftest import login, make_user

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo" / "data"
WHEN = dt.datetime(2026, 11, 5, 22, 9, tzinfo=dt.UTC)


def _has_cjk_font() -> bool:
    for family in CJK_FONTS:
        try:
            font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
        except ValueError:
            continue
        return True
    return False


needs_cjk_font = pytest.mark.skipif(not _has_cjk_font(), reason="needs a CJK font (apt-get install fonts-noto-cjk)")


def test_it_writes_dates_as_a_chinese_reader_expects():
    with translation.override("zh-hans"):
        assert date_format(WHEN, "SHORT_DATETIME_FORMAT") == "11月5日 22:09"
        assert date_format(WHEN, "DATETIME_FORMAT") == "2026年11月5日 22:09"
        assert date_format(WHEN, "DATE_FORMAT") == "2026年11月5日"
    with translation.override("en"):
        assert date_format(WHEN, "SHORT_DATETIME_FORMAT") == "5 Nov 22:09"
        assert date_format(WHEN, "DATETIME_FORMAT") == "5 Nov 2026 22:09"


def test_a_report_is_built_once_per_reader_language(client, researcher, physician_a, physician_b, inspector):
    data = reliability_study([physician_a, physician_b, inspector], n_cases=2)
    login(client, researcher)
    url = reverse("agreement:report", args=[data.study.pk])
    chinese = client.get(url, headers={"accept-language": "zh-hans"}).content.decode()
    english = client.get(url, headers={"accept-language": "en"}).content.decode()
    assert "评分器可靠性（LiveMedBench 表 2，ClinConsensus 表 4）" in chinese and "Grader reliability" not in chinese
    assert "Grader reliability (LiveMedBench Table 2, ClinConsensus Table 4)" in english and "评分器" not in english
    # The tables keep the English the charts and exports compare against; only what is shown changes.
    with translation.override("zh-hans"):
        frame = cached_report(Selection(study_id=data.study.pk)).table("grader_reliability").frame
    assert "Human inter-rater" in set(frame["evaluator"])
    assert "医师之间" in chinese


def test_the_xlsx_export_reads_in_the_readers_language(client, researcher, physician_a, physician_b, inspector):
    data = reliability_study([physician_a, physician_b, inspector], n_cases=2)
    login(client, researcher)
    url = reverse("agreement:study_export", args=[data.study.pk, "xlsx"])
    book = load_workbook(io.BytesIO(client.get(url, headers={"accept-language": "zh-hans"}).content))
    about = {row[0].value: row[1].value if len(row) > 1 else None for row in book["About"].iter_rows()}
    assert "软件版本" in about and "首轮标注" in about
    header = book["data_quality"][1]
    assert [c.value for c in header][:3] == ["任务（代码）", "任务", "类别"]
    assert [c.comment.text for c in header][:3] == ["task", "task_name", "categories"]


@needs_cjk_font
def test_the_pdf_and_the_charts_draw_chinese_with_a_cjk_font(client, researcher, physician_a, physician_b, inspector):
    data = reliability_study([physician_a, physician_b, inspector], n_cases=2)
    login(client, researcher)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdf = client.get(reverse("agreement:study_pdf", args=[data.study.pk]), headers={"accept-language": "zh-hans"})
        with translation.override("zh-hans"):
            chart = cached_chart(Selection(study_id=data.study.pk), "forest")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert chart is not None and chart.title == "各任务的 AC1 及 95% 置信区间"
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert missing == []


def test_the_invitation_is_written_in_the_invitees_language():
    chinese = make_user("dr.lin", role=Role.PHYSICIAN)
    chinese.email, chinese.profile.language = "lin@example.org", "zh-hans"
    chinese.save()
    chinese.profile.save()
    english = make_user("dr.smith", role=Role.PHYSICIAN)
    english.email = "smith@example.org"
    english.save()
    with translation.override("en"):  # the inviting admin reads English
        account_invite(user=chinese, base_url="https://review.example.org")
        account_invite(user=english, base_url="https://review.example.org")
    to_lin, to_smith = mail.outbox
    assert to_lin.subject == "您的 medreview 账户" and "链接仅可使用一次，7 天内有效" in to_lin.body
    assert to_smith.subject == "Your medreview account" and "works once and for 7 days" in to_smith.body


@pytest.mark.parametrize(("language", "errors", "headline"), [
    ("en", 1, "1 error: nothing was written"), ("en", 3, "3 errors: nothing was written"),
    ("zh-hans", 3, "3 个错误：未写入任何内容"),
])
def test_an_import_report_counts_in_one_sentence(language, errors, headline):
    report = {"status": "refused", "records": 1, "errors": [
        {"file": "cases.json", "record": 1, "field": "id", "message": "missing required field"}] * errors}
    template = Template('{% include "cases/_import_report.html" %}')
    with translation.override(language):
        html = template.render(Context({"report": report}))
    assert re.search(r'<h3 class="error">\s*' + re.escape(headline) + r"\s*</h3>", html)


def test_names_keep_their_own_language_in_the_page_and_in_choices():
    template = Template("{% load user_text %}{{ a|own_lang }} {{ b|own_lang }} {{ c|own_lang:'en' }} "
                        "{{ d|own_lang }} {{ 'zh-Hans'|language_name }}")
    values = Context({"a": "Demo <study>", "b": "心内科研究", "c": "高血压", "d": "2025-06"})
    with translation.override("zh-hans"):
        assert template.render(values) == ('<span lang="en">Demo &lt;study&gt;</span> <span lang="zh">心内科研究</span> '
                                           '<span lang="en">高血压</span> 2025-06 中文')
    with translation.override("en"):
        assert template.render(values).endswith(" 2025-06 Chinese")
    html = UserTextSelect(choices=[("", "—"), (1, "Demo: pairwise preference"), (2, "心内科研究")]).render("study", 1)
    assert '<option value="1" selected lang="en">Demo: pairwise preference</option>' in html
    assert '<option value="2" lang="zh">心内科研究</option>' in html and '<option value="">—</option>' in html


def test_commands_speak_the_deployments_language(tmp_path):
    make_user("dr.wang", role=Role.PHYSICIAN)
    out = io.StringIO()
    with override_settings(LANGUAGE_CODE="zh-hans"):
        translation.deactivate()  # as `manage.py` runs: no request, the deployment's language
        call_command("accounts", "deactivate", "dr.wang", stdout=out)
        call_command("import_cases", "generic", str(DEMO / "generic_cases.json"), "--dataset", "ClinConsensus",
                     "--dry-run", stdout=out)
    assert "已停用 dr.wang：会话已结束，邀请和 API 令牌已作废；其标注予以保留。" in out.getvalue()
    assert "试导入 generic_cases.json 到 ClinConsensus generic_cases：4 个新病例、14 条评分标准" in out.getvalue()


def test_an_unknown_interface_language_stops_every_command_with_one_line():
    env = {**os.environ, "DEBUG": "1", "LANGUAGE_CODE": "fr"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "LANGUAGE_CODE must be one of en, zh-hans, not 'fr'" in done.stderr
