"""Machine translation of case text through any OpenAI-compatible endpoint (docs/i18n.md): planning
and resuming a job (`services`), its background task (`tasks`), and running it (`runner`)."""
