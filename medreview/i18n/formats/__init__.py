"""Date and number formats per interface language (settings.FORMAT_MODULE_PATH).

Templates name a format, never spell one: `|date:"DATETIME_FORMAT"` (with the year),
`|date:"SHORT_DATETIME_FORMAT"` (this year's events: day, month and time), `|date:"DATE_FORMAT"`,
`|date:"MONTH_DAY_FORMAT"`. Each language module says how its readers write them: 25 Nov 2026 22:09
in English, 2026年11月25日 22:09 in Chinese.
"""
