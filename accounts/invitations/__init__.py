"""Inviting people from the browser (issue 24): the "Invite people" page (one person by e-mail, or a
CSV file), pending invitations with resend and revoke, and the lists of specialties and languages the
page and the Django admin's profile offer. The writes reuse `accounts.services` (account_save,
accounts_import_csv, account_invite, account_deactivate), as the `accounts` command and API do.
"""
