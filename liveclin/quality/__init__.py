"""LiveClin's quality check end to end (Sec. 3.4, Sec. 5, Appendix G): question-set outcomes under
the principle of conservatism, the funnel generated -> passed pre-screen -> validated, the Judge
against the physicians, and the validated set. `rules` decides from plain data (no database)."""

from liveclin.quality.rules import (
    CHECKS,
    FACTUAL,
    PENDING,
    REJECTED,
    SOLVABILITY,
    VALIDATED,
    FinalCheck,
    Funnel,
    JudgeAgreement,
    McqReview,
    Outcome,
    PassRate,
    SetReview,
    funnel,
    judge_agreement,
    outcome,
    pass_rates,
    quality_report,
    set_row,
)

__all__ = [
    "CHECKS", "FACTUAL", "PENDING", "REJECTED", "SOLVABILITY", "VALIDATED", "FinalCheck", "Funnel",
    "JudgeAgreement", "McqReview", "Outcome", "PassRate", "SetReview", "funnel", "judge_agreement",
    "outcome", "pass_rates", "quality_report", "set_row",
]
