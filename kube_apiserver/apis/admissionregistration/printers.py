"""Printers for admissionregistration.k8s.io/v1 (printers.go printMutatingWebhook, ...)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, d, dicts, get, lst, name, text
from kube_apiserver.registry.resource_spec import TablePrinter

_WEBHOOKS_DOC = "Webhooks indicates the number of webhooks registered in this configuration"
_POLICY_NAME_DOC = "PolicyName indicates the policy definition which the policy binding binded to"
_PARAM_REF_DOC = "ParamRef indicates the param resource which sets the configration param"


def webhook_configuration_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), len(lst(obj.get("webhooks"))), age(obj, now)]


MUTATING_WEBHOOK_PRINTER = TablePrinter(
    columns=(NAME_COLUMN, col("Webhooks", "integer", _WEBHOOKS_DOC), AGE_COLUMN),
    row=webhook_configuration_row,
)
VALIDATING_WEBHOOK_PRINTER = TablePrinter(
    columns=(NAME_COLUMN, col("Webhooks", "integer", _WEBHOOKS_DOC), AGE_COLUMN),
    row=webhook_configuration_row,
)


def validating_admission_policy_row(obj: dict[str, Any], now: float) -> list[Any]:
    param_kind = get(obj, "spec", "paramKind")
    shown = "<unset>"
    if isinstance(param_kind, dict):
        shown = f"{text(param_kind.get('apiVersion'))}/{text(param_kind.get('kind'))}"
    return [name(obj), len(lst(get(obj, "spec", "validations"))), shown, age(obj, now)]


VALIDATING_ADMISSION_POLICY_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col(
            "Validations",
            "integer",
            "Validations indicates the number of validation rules defined in this configuration",
        ),
        col("ParamKind", description="ParamKind specifies the kind of resources used to parameterize this policy"),
        AGE_COLUMN,
    ),
    row=validating_admission_policy_row,
)


def _go_string_list(values: Any) -> str:
    """fmt "%v" of a []string: [a b]."""
    return "[" + " ".join(text(v) for v in lst(values)) + "]"


def label_selector_go_string(selector: dict[str, Any]) -> str:
    """The generated (*metav1.LabelSelector).String() that printValidatingAdmissionPolicyBinding uses."""
    labels = d(selector.get("matchLabels"))
    match_labels = "map[string]string{" + "".join(f"{k}: {text(labels[k])}," for k in sorted(labels)) + "}"
    expressions = "".join(
        f"LabelSelectorRequirement{{Key:{text(e.get('key'))},Operator:{text(e.get('operator'))},"
        f"Values:{_go_string_list(e.get('values'))},}},"
        for e in dicts(selector.get("matchExpressions"))
    )
    return f"&LabelSelector{{MatchLabels:{match_labels},MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"


def validating_admission_policy_binding_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    param = "<unset>"
    ref = spec.get("paramRef")
    if isinstance(ref, dict):
        if text(ref.get("name")):
            namespace = text(ref.get("namespace"))
            # cannot tell here whether the param is cluster-scoped: a name without namespace gets "*"
            param = f"{namespace or '*'}/{text(ref.get('name'))}"
        elif isinstance(ref.get("selector"), dict):
            param = label_selector_go_string(ref["selector"])
    return [name(obj), text(spec.get("policyName")), param, age(obj, now)]


VALIDATING_ADMISSION_POLICY_BINDING_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("PolicyName", description=_POLICY_NAME_DOC),
        col("ParamRef", description=_PARAM_REF_DOC),
        AGE_COLUMN,
    ),
    row=validating_admission_policy_binding_row,
)
