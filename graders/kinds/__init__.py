"""What each grader kind asks and how its answer is read: the default prompts, their JSON schemas and
the parsing of answers (`prompts`), and LiveClin's Judge agent as the question-set judge
(`question_set_judge`: its prompt, its verdicts imported from a release, the pre-screen they give)."""
