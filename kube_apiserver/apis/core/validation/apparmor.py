"""AppArmor on pods as kube-apiserver 1.33 has it: the deprecated per-container annotations
(container.apparmor.security.beta.kubernetes.io/<container>) beside the securityContext.appArmorProfile
fields (GA since 1.31).

- validate_pod_annotations: ValidateAppArmorPodAnnotations (pods and templates, create and update): each
  annotation names a container of the pod and holds a profile name kube knows.
- validate_annotations_match_fields: validateAppArmorAnnotationsAndFieldsMatchOnCreate (pod create and
  every template write): an annotation and the field that applies to its container must agree.
- validate_annotation_updates: the AppArmor part of ValidatePodSpecificAnnotationUpdates: a pod's
  annotations are fixed once it exists.
- sync_annotations_and_fields: the pod strategy's applyAppArmorVersionSkew on create, both ways (the
  field-to-annotation copy is 1.33's; 1.34 dropped it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kube_apiserver.apis.core.validation.common import as_dict, as_list, as_str
from kube_apiserver.apis.core.validation.security import validate_app_armor_profile
from kube_apiserver.registry import warning
from kube_apiserver.runtime.errors import StatusCause, field_forbidden, field_invalid
from kube_apiserver.runtime.strategicpatch.goformat import go_quote

ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
RUNTIME_DEFAULT = "runtime/default"
UNCONFINED = "unconfined"
LOCALHOST_PREFIX = "localhost/"
# podutil.VisitContainers' order
_CONTAINER_FIELDS = ("initContainers", "containers", "ephemeralContainers")
_MUST_MATCH_TYPE = "apparmor type in annotation and field must match"
_MUST_MATCH_PROFILE = "apparmor profile in annotation and field must match"


def deprecation_warning(annotations_path: str, key: str) -> str:
    return f'{annotations_path}[{key}]: deprecated since v1.30; use the "appArmorProfile" field instead'


def has_annotations(annotations: dict[str, Any]) -> bool:
    return any(isinstance(k, str) and k.startswith(ANNOTATION_PREFIX) for k in annotations)


def _containers(spec: dict[str, Any]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    for field in _CONTAINER_FIELDS:
        for i, container in enumerate(as_list(spec.get(field))):
            if isinstance(container, dict):
                yield field, i, container


def profile_of(holder: Any) -> dict[str, Any] | None:
    """securityContext.appArmorProfile of a pod spec or container, None when unset (a Go nil pointer)."""
    profile = as_dict(as_dict(holder).get("securityContext")).get("appArmorProfile")
    return profile if isinstance(profile, dict) else None


def _is_windows(spec: dict[str, Any]) -> bool:
    return as_dict(spec.get("os")).get("name") == "windows"


def _valid_profile_name(value: str) -> bool:
    """ValidateAppArmorProfileFormat."""
    return value in ("", RUNTIME_DEFAULT, UNCONFINED) or value.startswith(LOCALHOST_PREFIX)


def validate_pod_annotations(annotations: Any, spec: dict[str, Any], path: str) -> list[StatusCause]:
    annotations = as_dict(annotations)
    if not has_annotations(annotations):
        return []
    names = {container.get("name") for _, _, container in _containers(spec)}
    causes: list[StatusCause] = []
    for key, value in annotations.items():
        if not isinstance(key, str) or not key.startswith(ANNOTATION_PREFIX):
            continue
        name = key[len(ANNOTATION_PREFIX) :]
        if name not in names:
            causes.append(field_invalid(f"{path}[{key}]", name, "container not found"))
        value = as_str(value)
        if not _valid_profile_name(value):
            causes.append(field_invalid(f"{path}[{key}]", value, f"invalid AppArmor profile name: {go_quote(value)}"))
    return causes


def validate_annotations_match_fields(annotations: Any, spec: dict[str, Any], spec_path: str) -> list[StatusCause]:
    annotations = as_dict(annotations)
    if _is_windows(spec) or not has_annotations(annotations):
        return []
    pod_profile = profile_of(spec)
    causes: list[StatusCause] = []
    for field, i, container in _containers(spec):
        profile = profile_of(container) or pod_profile
        annotation = annotations.get(ANNOTATION_PREFIX + as_str(container.get("name")))
        if profile is None or annotation is None:
            continue
        annotation = as_str(annotation)
        path = f"{spec_path}.{field}[{i}].securityContext.appArmorProfile"
        kind = profile.get("type")
        if (
            kind == "Unconfined"
            and annotation != UNCONFINED
            or kind == "RuntimeDefault"
            and annotation != RUNTIME_DEFAULT
        ):
            causes.append(field_forbidden(f"{path}.type", _MUST_MATCH_TYPE))
        elif kind == "Localhost":
            if not annotation.startswith(LOCALHOST_PREFIX):
                causes.append(field_forbidden(f"{path}.type", _MUST_MATCH_TYPE))
            elif annotation[len(LOCALHOST_PREFIX) :] != profile.get("localhostProfile"):
                causes.append(field_forbidden(f"{path}.localhostProfile", _MUST_MATCH_PROFILE))
    return causes


def validate_annotation_updates(new: dict[str, Any], old: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for key, value in old.items():
        if isinstance(key, str) and key.startswith(ANNOTATION_PREFIX) and (key not in new or new[key] != value):
            causes.append(field_forbidden(f"{path}[{key}]", "may not remove or update AppArmor annotations"))
    for key in new:
        if isinstance(key, str) and key.startswith(ANNOTATION_PREFIX) and key not in old:
            causes.append(field_forbidden(f"{path}[{key}]", "may not add AppArmor annotations"))
    return causes


def _annotation_for_field(profile: dict[str, Any]) -> str:
    """appArmorAnnotationForField: "" for a Localhost profile without a name, or a type kube does not know."""
    kind = profile.get("type")
    if kind == "Unconfined":
        return UNCONFINED
    if kind == "RuntimeDefault":
        return RUNTIME_DEFAULT
    if kind == "Localhost" and profile.get("localhostProfile") is not None:
        return LOCALHOST_PREFIX + as_str(profile["localhostProfile"])
    return ""


def _field_for_annotation(annotation: str) -> dict[str, Any] | None:
    """apparmorFieldForAnnotation, None for an annotation with no field (or an invalid one)."""
    if annotation == UNCONFINED:
        return {"type": "Unconfined"}
    if annotation == RUNTIME_DEFAULT:
        return {"type": "RuntimeDefault"}
    if annotation.startswith(LOCALHOST_PREFIX) and annotation != LOCALHOST_PREFIX:
        profile = {"type": "Localhost", "localhostProfile": annotation[len(LOCALHOST_PREFIX) :]}
        return None if validate_app_armor_profile(profile, "") else profile
    return None


def _same_profile(a: dict[str, Any], b: dict[str, Any] | None) -> bool:
    """Semantic.DeepEqual of two *AppArmorProfile: a null field is a nil pointer."""
    return b is not None and {k: v for k, v in a.items() if v is not None} == {
        k: v for k, v in b.items() if v is not None
    }


def sync_annotations_and_fields(pod: dict[str, Any]) -> None:
    """applyAppArmorVersionSkew (pod create): a container with an annotation and no field gets the field
    (unless the pod's field already says the same), with a deprecation warning; one with a field (its
    own or the pod's) and no annotation gets the annotation, so that kubelets that know only the
    annotations enforce it too."""
    spec = pod.get("spec")
    if not isinstance(spec, dict) or _is_windows(spec):
        return
    meta = pod.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(meta, dict) or annotations is not None and not isinstance(annotations, dict):
        return  # validation refuses it
    annotations = annotations or {}
    pod_profile = profile_of(spec)
    for _, _, container in _containers(spec):
        key = ANNOTATION_PREFIX + as_str(container.get("name"))
        profile = profile_of(container)
        if key not in annotations:
            value = _annotation_for_field(profile or pod_profile or {})
            if value:
                annotations[key] = value
                meta["annotations"] = annotations
        elif profile is None:
            field = _field_for_annotation(as_str(annotations[key]))
            warn = field is None
            if field is not None and not _same_profile(field, pod_profile):
                context = container.get("securityContext")
                if not isinstance(context, dict):
                    context = container["securityContext"] = {}
                context["appArmorProfile"] = field
                warn = True
            if warn:
                warning.add_warning(deprecation_warning("metadata.annotations", key))
