"""The interface in the reader's language: catalogues compiled in pure Python (`msgfmt`, `catalogues`,
`manage.py compile_catalogues`), the deploy check that they are (`checks`), date and number formats
per language (`formats/`), and form options that carry their own `lang` (`widgets`)."""
