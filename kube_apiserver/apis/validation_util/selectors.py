"""Label selectors as the workload validators use them: metav1.LabelSelectorAsSelector and
Selector.Matches, with the nil/empty distinction kube makes (a nil selector matches nothing, an
empty one everything)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.labels import LabelSelector, SelectorParseError, selector_from_label_selector_dict


def label_selector_as_selector(selector: Any) -> LabelSelector | None:
    """The parsed selector, or None where LabelSelectorAsSelector returns an error."""
    if selector is not None and not isinstance(selector, dict):
        return None
    try:
        return selector_from_label_selector_dict(selector)
    except (SelectorParseError, ValueError, TypeError, AttributeError):
        return None


def string_labels(labels: Any) -> dict[str, str]:
    """A labels map with only its string entries (the schema check rejects the rest)."""
    if not isinstance(labels, dict):
        return {}
    return {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}


def is_empty_selector(selector: Any) -> bool:
    """len(MatchLabels)+len(MatchExpressions) == 0 for a non-nil selector."""
    sel = selector if isinstance(selector, dict) else {}
    return not sel.get("matchLabels") and not sel.get("matchExpressions")
