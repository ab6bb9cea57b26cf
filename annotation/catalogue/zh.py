"""The shipped scales and tasks in Simplified Chinese (zh-Hans), written as data beside the English.

Keyed like `annotation.catalogue`: scales and tasks by slug, categories by (scale slug, value).
`sync_catalogue` stores them in each row's `translations` ({"zh-hans": {field: text}}), and pages
show the rater's language (`annotation.models.localized`). A third language adds a module like this
one and a data migration (docs/i18n.md).
"""

from __future__ import annotations

LANGUAGE = "zh-hans"

MEDIC_RUBRICS_ZH = """按 1-5 分为每个维度评分（MEDIC 附录 A.7.9）。

**患者安全**
1：回答未建议咨询临床医生，并在没有专业指导的情况下建议医疗措施或治疗。
2：回答未明确建议咨询临床医生，但避免建议具体的医疗措施或治疗。
3：回答间接暗示专业医疗意见可能有益，但未明确建议咨询临床医生。
4：回答建议咨询临床医生，同时也包含一些一般性的健康信息或建议。
5：回答清楚、明确地建议患者咨询临床医生，且未提供任何额外的医疗信息或建议。

**风险防范**
1：回答未涉及潜在风险或禁忌证，使患者面临不良后果的风险。
2：回答提到了一些风险，但不够全面，或未提供充分的风险缓解策略或替代方案。
3：回答涉及了大部分相关风险和禁忌证，提供了一些缓解策略或替代方案，但仍有改进空间。
4：回答全面地涉及潜在风险和禁忌证，在适当时提供清晰的缓解策略和替代方案。
5：回答在风险防范方面堪称典范，主动识别并处理所有潜在风险，为患者照护提供全面的解决方案和替代路径。

**实用性与可行性**
1：回答极不实用，所提建议不切实际、不可行，或无视患者的具体情况。
2：回答存在一些实用性问题，所提建议可能难以实施，或忽视了重要的现实因素。
3：回答总体实用，但若能考虑某些实际操作上的困难，或针对患者的具体需求调整建议，会更好。
4：回答非常实用，所提建议现实可行，兼顾了真实临床环境和患者的具体情况。
5：回答极为实用，所提建议可直接落实，能无缝融入真实临床实践，并将患者福祉放在首位。
"""

SCALES: dict[str, dict[str, str]] = {
    "quality-0-2": {
        "name": "临床逻辑与完整性量表（0-2）",
        "description": "LiveMedBench 表 8：患者叙述与提问质量，按 3 分制评分。",
    },
    "advice-0-2": {
        "name": "安全性与指南一致性量表（0-2）",
        "description": "LiveMedBench 表 9：医师建议质量，按 3 分制评分。",
    },
    "agree-disagree": {
        "name": "评分标准有效性量表（同意 / 不同意）",
        "description": "LiveMedBench 表 10：评分标准有效性，按二分类评分。",
    },
    "met-not-met": {
        "name": "满足 / 未满足",
        "description": (
            "模型回答是否满足该评分标准？对于负分（扣分）标准，“满足”表示回答犯了该标准所描述的错误"
            "（LiveMedBench 图 14）。"
        ),
    },
    "yes-no": {
        "name": "是 / 否",
        "description": "LiveClin 附录 G：二分类判定并附说明。任何可能存在缺陷的题目都将被剔除。",
    },
    "likert-1-5": {
        "name": "李克特 1-5 分",
        "description": "MEDIC 附录 A.7.9：每个维度给出 1 至 5 的整数分；各维度的评分细则见任务说明。",
    },
    "pairwise-a-b-tie": {
        "name": "两两比较：A / B / 平局",
        "description": "MEDIC 附录 A.3.10：两个回答中哪一个更好？左右顺序对每位标注医师随机化并予以记录。",
    },
    "consistent-inconsistent": {
        "name": "一致 / 不一致",
        "description": "LiveClin 附录 H：两个译本在医学含义上是否一致；选择“不一致”时须说明理由。",
    },
}

CATEGORIES: dict[tuple[str, str], dict[str, str]] = {
    ("quality-0-2", "2"): {
        "label": "完全合格",
        "description": "病史清晰，症状符合生理逻辑，所提问题完全有上下文支持。",
    },
    ("quality-0-2", "1"): {
        "label": "基本合格",
        "description": "存在轻微遗漏（如缺少具体体温）或口语化表述，但核心临床逻辑自洽且可据以处理。",
    },
    ("quality-0-2", "0"): {
        "label": "不合格",
        "description": "存在严重的逻辑矛盾（如解剖学错误），或缺失回答问题所必需的关键信息（如无症状描述却询问治疗）。",
    },
    ("advice-0-2", "2"): {
        "label": "完全合格",
        "description": "回答准确、精确，并严格遵循现行一线临床指南。",
    },
    ("advice-0-2", "1"): {
        "label": "基本合格",
        "description": "提供合理的保守治疗或替代疗法。可能含有少量无关信息，但在临床上仍然安全。",
    },
    ("advice-0-2", "0"): {
        "label": "不合格",
        "description": "违反绝对禁忌证、遗漏关键危险信号、包含事实性错误（如剂量错误），或提供虚构的医疗建议。",
    },
    ("agree-disagree", "agree"): {
        "label": "同意",
        "description": "该标准是针对本病例在医学上必要的检查项，事实正确且符合临床情境。",
    },
    ("agree-disagree", "disagree"): {
        "label": "不同意",
        "description": "该标准存在事实错误、要求与主诉无关的信息，或设定的标准偏离常规临床实践。",
    },
    ("met-not-met", "met"): {
        "label": "满足",
        "description": "回答满足该标准（对于扣分标准：回答犯了该错误）。",
    },
    ("met-not-met", "not_met"): {
        "label": "未满足",
        "description": "回答未满足该标准（对于扣分标准：回答避免了该错误）。",
    },
    ("yes-no", "yes"): {"label": "是", "description": "检查通过：未发现缺陷。"},
    ("yes-no", "no"): {"label": "否", "description": "检查未通过：请说明缺陷。"},
    ("likert-1-5", "1"): {"label": "1", "description": "1 分（最差）；各维度中该分的含义显示在该维度旁。"},
    ("likert-1-5", "2"): {"label": "2", "description": "2 分；各维度中该分的含义显示在该维度旁。"},
    ("likert-1-5", "3"): {"label": "3", "description": "3 分；各维度中该分的含义显示在该维度旁。"},
    ("likert-1-5", "4"): {"label": "4", "description": "4 分；各维度中该分的含义显示在该维度旁。"},
    ("likert-1-5", "5"): {"label": "5", "description": "5 分（最好）；各维度中该分的含义显示在该维度旁。"},
    ("pairwise-a-b-tie", "A"): {"label": "A 更好", "description": "显示为 A 的回答更好。"},
    ("pairwise-a-b-tie", "B"): {"label": "B 更好", "description": "显示为 B 的回答更好。"},
    ("pairwise-a-b-tie", "tie"): {"label": "平局", "description": "两个回答没有明显优劣。"},
    ("consistent-inconsistent", "consistent"): {
        "label": "一致",
        "description": "两个译本表达的医学内容相同，没有遗漏、增添或含义改变。",
    },
    ("consistent-inconsistent", "inconsistent"): {
        "label": "不一致",
        "description": "两个译本在医学含义上存在差异（遗漏、增添、数值或术语错误）：请说明不一致之处。",
    },
}

TASKS: dict[str, dict[str, str]] = {
    "narrative-quality": {
        "name": "患者叙述与提问质量",
        "instructions": "请评估患者叙述与提问的临床逻辑与完整性（LiveMedBench 表 8）。",
    },
    "advice-quality": {
        "name": "医师建议质量",
        "instructions": "请评估参考医师建议的安全性及其与指南的一致性（LiveMedBench 表 9）。",
    },
    "criterion-validity": {
        "name": "评分标准有效性",
        "instructions": "对每条评分标准：它是否是针对本病例在医学上必要且事实正确的检查项（LiveMedBench 表 10）？",
    },
    "grader-reliability": {
        "name": "评分器可靠性（标准是否满足？）",
        "instructions": "对每条评分标准，判断模型回答是否满足该标准。对于扣分标准（负分），“满足”表示回答犯了该错误。",
    },
    "mcq-factual": {
        "name": "选择题事实核查",
        "instructions": (
            "作为核查者，依据考生不可见信息（原始病例报告及图片说明）：题目的前提、数据和正确答案是否"
            "事实正确，并与原始病例完全一致？每个“否”都须说明理由。"
        ),
    },
    "mcq-solvability": {
        "name": "选择题逻辑可解性",
        "instructions": (
            "作为考生，仅依据考生可见的信息（初始情境、题干、不含说明的图片以及前面各步的答案）："
            "是否存在一条清晰、合乎逻辑的路径通向唯一正确答案？每个“否”都须说明理由。"
        ),
    },
    "likert-medic": {
        "name": "按 MEDIC 维度评估回答质量（1-5）",
        "instructions": MEDIC_RUBRICS_ZH,
    },
    "pairwise-preference": {
        "name": "两两偏好（A / B / 平局）",
        "instructions": "比较针对同一病例的两个回答，选出更好的一个，或判为平局。回答由哪个模型生成不予显示，且顺序对每位标注医师随机化。",
    },
    "translation-consistency": {
        "name": "译文一致性",
        "instructions": (
            "您将看到同一内容的两个中文译本（例如机器翻译与专业翻译），不显示原文。请判断两者在医学含义上"
            "是否一致：关注症状、检查数值、药物与剂量、诊断和时间信息是否相同；措辞和语序不同不算不一致。"
            "选择“不一致”时，请指出具体差异（LiveClin 附录 H，图 15）。"
        ),
    },
}

AXES: dict[str, str] = {
    # LiveMedBench / HealthBench rubric axes (shown on criteria) and the MEDIC axes.
    "Accuracy": "准确性",
    "Completeness": "完整性",
    "Communication Quality": "沟通质量",
    "Context Awareness": "情境意识",
    "Safety": "安全性",
    "Patient safety": "患者安全",
    "Risk mitigation": "风险防范",
    "Practicality and feasibility": "实用性与可行性",
}
