"""The report's tables, one module per family: ``data_quality`` (LiveMedBench Table 1, approval),
``per_rater``, ``grader_reliability`` (Table 2), ``ranking`` (ClinConsensus Table 15),
``expert_groups``, ``coverage`` (ClinConsensus rubric coverage, CACS), ``medic`` (MEDIC Likert and
pairwise), ``position_bias``, ``translation`` (LiveClin Appendix H). Each turns the arrays of
`agreement.reports.arrays` into `Table`s with the pure functions of `agreement.metrics`."""
