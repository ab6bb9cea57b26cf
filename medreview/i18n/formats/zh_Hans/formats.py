"""Simplified Chinese dates as a Chinese reader expects them: 2026年11月25日 22:09, 11月25日 22:09.

Django's own zh_Hans formats fill in what is not here (input formats, number grouping); these differ:
month and day are never zero-padded (11月5日, not 11月05日) and the short date-time leaves out the
year, like the English one.
"""

DATE_FORMAT = "Y年n月j日"  # 2026年11月25日
TIME_FORMAT = "H:i"  # 22:09
DATETIME_FORMAT = "Y年n月j日 H:i"  # 2026年11月25日 22:09
YEAR_MONTH_FORMAT = "Y年n月"  # 2026年11月
MONTH_DAY_FORMAT = "n月j日"  # 11月25日
SHORT_DATE_FORMAT = "Y-m-d"  # 2026-11-25
SHORT_DATETIME_FORMAT = "n月j日 H:i"  # 11月25日 22:09
