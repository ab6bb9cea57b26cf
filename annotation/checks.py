"""The review app's deploy check: annotation.W001 when the audit chain has no key.

Without AUDIT_CHAIN_KEYS the chain is plain SHA-256, which anyone who can write to the database can
recompute after an edit; with a key kept outside the database they cannot (docs/deployment.md,
"The audit trail").
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Warning, register


@register("security", deploy=True)
def check_audit_chain_key(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    if settings.AUDIT_CHAIN_KEYS:
        return []
    return [Warning("AUDIT_CHAIN_KEYS is not set: the audit chain is not keyed, so whoever can write to the "
                    "database can re-hash it after an edit.",
                    hint="Export AUDIT_CHAIN_KEYS=<id>=<secret of 32+ characters> on every machine "
                         "(docs/deployment.md, \"The audit trail\").",
                    id="annotation.W001")]
