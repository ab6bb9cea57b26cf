"""Input and output serializers of the inspector's API.
"""

from rest_framework import serializers

from annotation.models import Inspection, Item, ItemKind
from annotation.rating.serializers import FieldSerializer, ItemContentSerializer


class ItemSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    study = serializers.IntegerField()
    study_name = serializers.CharField()
    key = serializers.CharField()
    kind = serializers.ChoiceField(choices=ItemKind.choices)
    status = serializers.ChoiceField(choices=Item.Status.choices)


class InspectionQueueSerializer(serializers.Serializer):
    pending = ItemSummarySerializer(many=True)
    returned = ItemSummarySerializer(many=True)
    resolved = ItemSummarySerializer(many=True)


class CellSerializer(serializers.Serializer):
    assignment = serializers.IntegerField()
    rater = serializers.CharField()
    state = serializers.CharField()
    pair_order = serializers.CharField(allow_blank=True, help_text="Pairs: ab / ba, the order this rater saw")
    preferred_model = serializers.CharField(
        allow_blank=True, help_text="Pairs: the model this rater preferred (canonical label A / B), empty for a tie")
    first_label = serializers.CharField(allow_null=True)
    latest_label = serializers.CharField(allow_null=True)
    first_comment = serializers.CharField(allow_blank=True)
    latest_comment = serializers.CharField(allow_blank=True)
    seconds = serializers.IntegerField(allow_null=True)
    changed = serializers.BooleanField()


class ComparisonSerializer(serializers.Serializer):
    field = FieldSerializer()
    cells = CellSerializer(many=True)
    differs = serializers.BooleanField(help_text="The raters' latest labels differ")
    first_round_differs = serializers.BooleanField()
    final_label = serializers.CharField(allow_null=True)


class EventSerializer(serializers.Serializer):
    kind = serializers.CharField()
    actor = serializers.CharField(allow_null=True)
    assignment = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)
    data = serializers.JSONField()
    created_at = serializers.DateTimeField()


class InspectionDetailSerializer(serializers.Serializer):
    item = ItemContentSerializer()
    status = serializers.ChoiceField(choices=Item.Status.choices)
    pair_responses = serializers.JSONField(help_text="Pair items: canonical A / B response texts")
    pair_models = serializers.JSONField(help_text="Pair items: canonical A / B model names")
    comparisons = ComparisonSerializer(many=True)
    events = EventSerializer(many=True)


class AcceptInputSerializer(serializers.Serializer):
    comment = serializers.CharField(required=False, allow_blank=True, default="")


class AdjudicateInputSerializer(serializers.Serializer):
    labels = serializers.DictField(child=serializers.CharField(), help_text="{field id: final label}")
    reason = serializers.CharField()


class ReturnInputSerializer(serializers.Serializer):
    assignment = serializers.IntegerField(help_text="The rater's assignment on this item to return")
    comment = serializers.CharField()


class InspectionResultSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    action = serializers.ChoiceField(choices=Inspection.Action.choices)
    comment = serializers.CharField(allow_blank=True)
    item_status = serializers.ChoiceField(choices=Item.Status.choices)
