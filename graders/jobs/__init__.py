"""How a grading job runs: its work units (`units`), the durable runner any number of workers share
(`runner`), and workers that heal themselves (`healing`). What each grader kind asks is in
`graders.kinds`; the background tasks stay in `graders.tasks` (queued tasks keep its path)."""
