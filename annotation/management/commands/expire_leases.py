"""python manage.py expire_leases: mark lapsed claims and drafts EXPIRED (run from cron if you like).

Claims also expire lazily when someone claims the same item, so this only tidies the record.
"""

from typing import Any

from django.core.management.base import BaseCommand

from annotation.rating.services.leases import lease_expire


class Command(BaseCommand):
    help = "Mark every lapsed claim or draft as expired, with a review event."

    def handle(self, *args: Any, **options: Any) -> None:
        count = lease_expire()
        self.stdout.write(f"{count} lapsed claim(s) expired")
