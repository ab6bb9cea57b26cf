"""English dates as clinicians write them in notes: day month year, 24-hour clock."""

DATE_FORMAT = "j M Y"  # 25 Nov 2026
TIME_FORMAT = "H:i"  # 22:09
DATETIME_FORMAT = "j M Y H:i"  # 25 Nov 2026 22:09
YEAR_MONTH_FORMAT = "F Y"  # November 2026
MONTH_DAY_FORMAT = "j M"  # 25 Nov
SHORT_DATE_FORMAT = "Y-m-d"  # 2026-11-25
SHORT_DATETIME_FORMAT = "j M H:i"  # 25 Nov 22:09 (lists of recent events)
FIRST_DAY_OF_WEEK = 1  # Monday
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
