"""Forms of the rating pages. The rating form itself is built from `item_fields` in `screen`.
"""

from django import forms


class SkipForm(forms.Form):
    reason = forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
