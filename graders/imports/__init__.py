"""Grader outputs produced outside a grading job, written as grader runs: LiveMedBench grade files
(`grades`) and judge scores / pairwise verdicts collected elsewhere (`outside`). `cases` parses the
files; these writers are registered with its importer by `graders.apps`."""
