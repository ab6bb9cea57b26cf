"""API input and output shapes. No serializer has a field for an API key: only the variable's name."""

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from annotation.models import Study
from cases.models import Dataset, Release
from graders.kinds import prompts
from graders.models import ENV_NAME_RE, GraderConfig, GradingJob


class GraderConfigSerializer(serializers.ModelSerializer):
    prompt_version = serializers.CharField(source="prompt.version", required=False, allow_blank=True)
    prompt_text = serializers.CharField(
        source="prompt.text", required=False, allow_blank=True,
        help_text="Empty on create: the built-in prompt for the kind. A changed text needs a new prompt_version.",
    )

    class Meta:
        model = GraderConfig
        fields = [
            "id", "name", "kind", "base_url", "model", "temperature", "max_tokens", "concurrency",
            "timeout_seconds", "max_attempts", "backoff_base_seconds", "price_input_per_1k",
            "price_output_per_1k", "api_key_env", "axes", "structured_output", "structured_output_rejected",
            "prompt_version", "prompt_text", "created_at", "updated_at",
        ]
        read_only_fields = ["id", "structured_output_rejected", "created_at", "updated_at"]

    def validate_api_key_env(self, value: str) -> str:
        if not ENV_NAME_RE.match(value) or value.lower().startswith(("sk-", "sk_")) or len(value) > 64:
            raise serializers.ValidationError(_("Give the NAME of an environment variable, never the key itself."))
        return value

    def validate_axes(self, value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(a, str) and a.strip() for a in value):
            raise serializers.ValidationError(_("A list of axis names."))
        return [a.strip() for a in value]

    def prompt_values(self, instance: GraderConfig | None) -> tuple[str, str]:
        prompt = self.validated_data.get("prompt", {})
        kind = self.validated_data.get("kind") or (instance.kind if instance else "")
        text = (prompt.get("text") or "").strip()
        version = (prompt.get("version") or "").strip()
        if not text:
            if instance is not None and kind == instance.kind:
                return instance.prompt.text, version or instance.prompt.version
            return prompts.DEFAULT_PROMPTS[kind], version or prompts.DEFAULT_VERSION
        return text, version or (instance.prompt.version if instance else prompts.DEFAULT_VERSION)

    def config_data(self) -> dict[str, Any]:
        return {k: v for k, v in self.validated_data.items() if k != "prompt"}


class GradingJobSerializer(serializers.ModelSerializer):
    config_name = serializers.CharField(source="config.name", read_only=True)
    kind = serializers.CharField(source="config.kind", read_only=True)
    prompt_version = serializers.CharField(source="prompt.version", read_only=True)
    created_by = serializers.CharField(source="created_by.get_username", read_only=True, default=None)
    estimated_cost = serializers.DecimalField(max_digits=20, decimal_places=4, read_only=True, allow_null=True)
    is_stale = serializers.BooleanField(read_only=True)

    class Meta:
        model = GradingJob
        fields = [
            "id", "config", "config_name", "kind", "prompt_version", "run", "selection", "selection_label",
            "status", "is_stale", "parallel_tasks", "total", "done", "invalid", "failed", "retries",
            "input_tokens", "output_tokens", "estimated_cost", "error", "created_by", "created_at",
            "started_at", "finished_at", "heartbeat_at",
        ]
        read_only_fields = fields


class GradingJobCreateSerializer(serializers.Serializer):
    config = serializers.PrimaryKeyRelatedField(queryset=GraderConfig.objects.all())
    study = serializers.PrimaryKeyRelatedField(queryset=Study.objects.all(), required=False)
    release = serializers.PrimaryKeyRelatedField(queryset=Release.objects.all(), required=False)
    dataset = serializers.PrimaryKeyRelatedField(queryset=Dataset.objects.all(), required=False)
    models = serializers.ListField(child=serializers.CharField(), required=False)
    parallel_tasks = serializers.IntegerField(min_value=1, max_value=16, default=2)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        chosen = [k for k in ("study", "release", "dataset") if attrs.get(k) is not None]
        if len(chosen) != 1:
            raise serializers.ValidationError(_("Give exactly one of study, release, or dataset (with models)."))
        if attrs.get("models") and "dataset" not in chosen:
            raise serializers.ValidationError({"models": _("models select responses within a dataset.")})
        return attrs

    def selection(self) -> dict[str, Any]:
        data = self.validated_data
        if data.get("study") is not None:
            return {"study": data["study"].pk}
        if data.get("release") is not None:
            return {"release": data["release"].pk}
        return {"dataset": data["dataset"].pk, "models": list(data.get("models") or [])}
