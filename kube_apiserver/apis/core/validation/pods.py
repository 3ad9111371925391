"""Pod, PodSpec and PodTemplateSpec validation (pkg/apis/core/validation: ValidatePodCreate,
ValidatePodUpdate, ValidatePodSpec, ValidatePodTemplateSpec).

Fields kube defaults (restartPolicy, dnsPolicy, terminationGracePeriodSeconds, ...) are checked
only when set: defaulting runs before validation and fills an empty value too, so the "Required
value" kube has for them is never seen by a client.
"""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.apis.core.validation import apparmor
from kube_apiserver.apis.core.validation.common import (
    as_dict,
    as_list,
    as_str,
    go_typed_slice,
    is_create,
    is_int,
    normalize,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_qualified_name,
)
from kube_apiserver.apis.core.validation.containers import (
    validate_containers,
    validate_ephemeral_containers,
    validate_init_containers,
)
from kube_apiserver.apis.core.validation.diff import cmp_diff
from kube_apiserver.apis.core.validation.resources import validate_resource_requirements
from kube_apiserver.apis.core.validation.scheduling import (
    validate_affinity,
    validate_tolerations,
    validate_topology_spread_constraints,
)
from kube_apiserver.apis.core.validation.security import validate_host_users, validate_pod_security_context
from kube_apiserver.apis.core.validation.volumes import validate_volumes
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.validation.metav1 import validate_annotations, validate_labels
from kube_apiserver.runtime.validation.names import (
    MAX_INT32,
    inclusive_range_error,
    is_valid_ip,
    name_is_dns_subdomain,
)

RESTART_POLICIES = ["Always", "OnFailure", "Never"]
DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
UPDATABLE_POD_SPEC_FIELDS = [
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
]


def _names(fn: Any, value: str, path: str) -> list[StatusCause]:
    return [field_invalid(path, value, m) for m in fn(value)]


def _valid_deletion_cost(value: str) -> bool:
    """helper.GetDeletionCostFromPodAnnotations: a plain int32 (no '+', no leading zeros)."""
    if not value or not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    try:
        return -(2**31) <= int(value, 10) < 2**31 and value.lstrip("-").isdigit()
    except ValueError:
        return False


def validate_pod_specific_annotations(annotations: Any, spec: dict[str, Any], path: str) -> list[StatusCause]:
    annotations = as_dict(annotations)
    causes: list[StatusCause] = []
    if MIRROR_POD_ANNOTATION in annotations and not spec.get("nodeName"):
        detail = "must set spec.nodeName if mirror pod annotation is set"
        causes.append(field_invalid(f"{path}[{MIRROR_POD_ANNOTATION}]", annotations[MIRROR_POD_ANNOTATION], detail))
    if POD_DELETION_COST in annotations and not _valid_deletion_cost(as_str(annotations[POD_DELETION_COST])):
        causes.append(
            field_invalid(f"{path}[{POD_DELETION_COST}]", annotations[POD_DELETION_COST], "must be a 32bit integer")
        )
    causes += apparmor.validate_pod_annotations(annotations, spec, path)
    return causes


def _host_network_ports(spec: dict[str, Any], path: str, is_pod: bool) -> list[StatusCause]:
    if not spec.get("hostNetwork"):
        return []
    causes: list[StatusCause] = []
    for i, ctr in enumerate(map(as_dict, as_list(spec.get("containers")))):
        for j, port in enumerate(map(as_dict, as_list(ctr.get("ports")))):
            host, container = port.get("hostPort", 0), port.get("containerPort", 0)
            if (is_pod or host != 0) and host != container:
                detail = "must match `containerPort` when `hostNetwork` is true"
                causes.append(field_invalid(f"{path}.containers[{i}].ports[{j}].hostPort", host, detail))
    return causes


def _dns_config(spec: dict[str, Any], path: str) -> list[StatusCause]:
    config, policy = spec.get("dnsConfig"), spec.get("dnsPolicy")
    if policy == "None":
        if not isinstance(config, dict):
            return [field_required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not as_list(config.get("nameservers")):
            detail = "must provide at least one DNS nameserver when `dnsPolicy` is None"
            return [field_required(f"{path}.nameservers", detail)]
    if not isinstance(config, dict):
        return []
    causes: list[StatusCause] = []
    servers, searches = as_list(config.get("nameservers")), as_list(config.get("searches"))
    if len(servers) > 3:
        causes.append(
            field_invalid(
                f"{path}.nameservers", go_typed_slice("string", servers), "must not have more than 3 nameservers"
            )
        )
    for i, server in enumerate(servers):
        causes += is_valid_ip(f"{path}.nameservers[{i}]", as_str(server))
    if len(searches) > 32:
        causes.append(
            field_invalid(
                f"{path}.searches", go_typed_slice("string", searches), "must not have more than 32 search paths"
            )
        )
    if len(" ".join(map(str, searches))) > 2048:
        detail = "must not have more than 2048 characters (including spaces) in the search list"
        causes.append(field_invalid(f"{path}.searches", go_typed_slice("string", searches), detail))
    for i, search in enumerate(searches):
        search = as_str(search)
        causes += validate_dns1123_subdomain(search.removesuffix("."), f"{path}.searches[{i}]")
    for i, option in enumerate(map(as_dict, as_list(config.get("options")))):
        if not option.get("name"):
            causes.append(field_required(f"{path}.options[{i}]", "must not be empty"))
    return causes


def _resource_claims(spec: dict[str, Any], path: str) -> tuple[set[str], list[StatusCause]]:
    claims = [as_dict(c) for c in as_list(spec.get("resourceClaims"))]
    names = {as_str(c.get("name")) for c in claims if c.get("name")}
    causes: list[StatusCause] = []
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        idx, name = f"{path}[{i}]", as_str(claim.get("name"))
        if not name:
            causes.append(field_required(f"{idx}.name"))
        elif name in seen:
            causes.append(field_duplicate(f"{idx}.name", name))
        else:
            causes += validate_dns1123_label(name, f"{idx}.name")
            seen.add(name)
        has_name, has_template = (
            claim.get("resourceClaimName") is not None,
            claim.get("resourceClaimTemplateName") is not None,
        )
        shown = GoRepr("core.PodResourceClaim{...}")
        if has_name and has_template:
            detail = "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
            causes.append(field_invalid(idx, shown, detail))
        if not has_name and not has_template:
            causes.append(
                field_invalid(idx, shown, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
            )
        for key in ("resourceClaimName", "resourceClaimTemplateName"):
            if has_name if key == "resourceClaimName" else has_template:
                causes += _names(name_is_dns_subdomain, as_str(claim.get(key)), f"{idx}.{key}")
    return names, causes


def _enum(value: Any, supported: list[str], path: str) -> list[StatusCause]:
    if value and value not in supported:
        return [field_not_supported(path, value, supported)]
    return []


def validate_pod_spec(spec: Any, path: str, pod_name: str = "", is_pod: bool = False) -> list[StatusCause]:
    """ValidatePodSpec. pod_name is the pod's own name (for ephemeral volume claims), empty in templates."""
    # Runs for every pod and workload written: a field the spec does not have has nothing to check,
    # so each check first looks for its field (no call, no path spelled for an absent one).
    spec = as_dict(spec)
    get = spec.get
    security_context = get("securityContext")
    host_users = not isinstance(security_context, dict) or security_context.get("hostUsers") is not False
    volumes, causes = validate_volumes(get("volumes"), f"{path}.volumes", pod_name)
    if get("resourceClaims"):
        claims, claim_errors = _resource_claims(spec, f"{path}.resourceClaims")
        causes += claim_errors
    else:
        claims = set()
    causes += validate_containers(spec, volumes, claims, path, host_users)
    if get("initContainers"):
        causes += validate_init_containers(spec, volumes, claims, path, host_users)
    if get("ephemeralContainers"):
        causes += validate_ephemeral_containers(spec, volumes, claims, path, host_users)
    if get("hostNetwork"):
        causes += _host_network_ports(spec, path, is_pod)
    restart_policy = get("restartPolicy")
    if restart_policy and restart_policy not in RESTART_POLICIES:
        causes.append(field_not_supported(f"{path}.restartPolicy", restart_policy, RESTART_POLICIES))
    dns_policy = get("dnsPolicy")
    if dns_policy and dns_policy not in DNS_POLICIES:
        causes.append(field_not_supported(f"{path}.dnsPolicy", dns_policy, DNS_POLICIES))
    if get("nodeSelector"):
        causes += validate_labels(spec["nodeSelector"], f"{path}.nodeSelector")
    if isinstance(security_context, dict):
        causes += validate_pod_security_context(spec, f"{path}.securityContext")
    if get("imagePullSecrets"):
        for i, secret in enumerate(as_list(spec["imagePullSecrets"])):
            if isinstance(secret, dict) and set(secret) - {"name"}:
                shown = GoRepr("core.LocalObjectReference{Name:" + f'"{as_str(secret.get("name"))}"' + "}")
                causes.append(field_invalid(f"{path}.imagePullSecrets[{i}]", shown, "only name may be set"))
    if get("affinity"):
        causes += validate_affinity(spec["affinity"], f"{path}.affinity")
    if dns_policy == "None" or isinstance(get("dnsConfig"), dict):
        causes += _dns_config(spec, f"{path}.dnsConfig")
    if get("readinessGates"):
        for i, gate in enumerate(map(as_dict, as_list(spec["readinessGates"]))):
            causes += validate_qualified_name(
                as_str(gate.get("conditionType")), f"{path}.readinessGates[{i}].conditionType"
            )
    if get("schedulingGates"):
        seen_gates: set[str] = set()
        for i, gate in enumerate(map(as_dict, as_list(spec["schedulingGates"]))):
            name = as_str(gate.get("name"))
            causes += validate_qualified_name(name, f"{path}.schedulingGates[{i}]")
            if name in seen_gates:
                causes.append(field_duplicate(f"{path}.schedulingGates[{i}]", name))
            seen_gates.add(name)
    if get("topologySpreadConstraints"):
        causes += validate_topology_spread_constraints(
            spec["topologySpreadConstraints"], f"{path}.topologySpreadConstraints"
        )
    if not host_users:
        causes += validate_host_users(spec, path)
    for key in ("serviceAccountName", "nodeName"):
        value = get(key)
        if value and isinstance(value, str):
            causes += _names(name_is_dns_subdomain, value, f"{path}.{key}")
    deadline = get("activeDeadlineSeconds")
    if deadline is not None and is_int(deadline) and not 1 <= deadline <= MAX_INT32:
        causes.append(field_invalid(f"{path}.activeDeadlineSeconds", deadline, inclusive_range_error(1, MAX_INT32)))
    for key in ("hostname", "subdomain"):
        value = get(key)
        if value and isinstance(value, str):
            causes += validate_dns1123_label(value, f"{path}.{key}")
    if get("tolerations"):
        causes += validate_tolerations(spec["tolerations"], f"{path}.tolerations")
    if get("hostAliases"):
        for i, alias in enumerate(map(as_dict, as_list(spec["hostAliases"]))):
            causes += is_valid_ip(f"{path}.hostAliases[{i}].ip", as_str(alias.get("ip")))
            for j, hostname in enumerate(as_list(alias.get("hostnames"))):
                causes += validate_dns1123_subdomain(as_str(hostname), f"{path}.hostAliases[{i}].hostnames[{j}]")
    for key in ("priorityClassName", "runtimeClassName"):
        value = get(key)
        if value and isinstance(value, str):
            causes += _names(name_is_dns_subdomain, value, f"{path}.{key}")
    preemption = get("preemptionPolicy")
    if preemption is not None:
        causes += _enum(preemption, ["PreemptLowerPriority", "Never"], f"{path}.preemptionPolicy")
    overhead = get("overhead")
    if isinstance(overhead, dict):
        causes += validate_resource_requirements({"limits": overhead}, f"{path}.overhead", set())
    os = get("os")
    if isinstance(os, dict):
        if not os.get("name"):
            causes.append(field_required(f"{path}.os.name", "cannot be empty"))
        elif os["name"] not in ("linux", "windows"):
            causes.append(field_not_supported(f"{path}.os", os["name"], ["linux", "windows"]))
    return causes


def validate_pod_template_spec(template: Any, path: str) -> list[StatusCause]:
    """ValidatePodTemplateSpec, for a workload's template at path (e.g. "spec.template"). The labels and
    annotations are reported at path.labels / path.annotations, as kube reports them."""
    template = as_dict(template)
    meta, spec = as_dict(template.get("metadata")), as_dict(template.get("spec"))
    causes = validate_labels(meta.get("labels"), f"{path}.labels")
    causes += validate_annotations(meta.get("annotations"), f"{path}.annotations")
    causes += validate_pod_specific_annotations(meta.get("annotations"), spec, f"{path}.annotations")
    causes += validate_pod_spec(spec, f"{path}.spec")
    causes += apparmor.validate_annotations_match_fields(meta.get("annotations"), spec, f"{path}.spec")
    if as_list(spec.get("ephemeralContainers")):
        causes.append(
            field_forbidden(f"{path}.spec.ephemeralContainers", "ephemeral containers not allowed in pod template")
        )
    return causes


def validate_pod(obj: dict[str, Any]) -> list[StatusCause]:
    """validatePodMetadataAndSpec (create and update), plus ValidatePodCreate's create-only rules."""
    meta, spec = as_dict(obj.get("metadata")), as_dict(obj.get("spec"))
    causes = validate_pod_specific_annotations(meta.get("annotations"), spec, "metadata.annotations")
    causes += validate_pod_spec(spec, "spec", pod_name=as_str(meta.get("name")), is_pod=True)
    volumes = spec.get("volumes")
    if isinstance(volumes, list) and not spec.get("serviceAccountName"):
        for i, volume in enumerate(volumes):
            projected = volume.get("projected") if isinstance(volume, dict) else None
            if not isinstance(projected, dict) or not isinstance(projected.get("sources"), list):
                continue
            for j, source in enumerate(projected["sources"]):
                if isinstance(source, dict) and source.get("serviceAccountToken") is not None:
                    sa_path = f"spec.volumes[{i}].projected.sources[{j}].serviceAccountToken"
                    causes.append(field_forbidden(sa_path, "must not be specified when serviceAccountName is not set"))
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        if not isinstance(containers, list):
            continue
        for i, ctr in enumerate(containers):
            # validate_container_only_for_pod, spelled out: the path only for an error
            image = ctr.get("image") if isinstance(ctr, dict) else None
            if isinstance(image, str) and image != image.strip():
                causes.append(
                    field_invalid(f"spec.{key}[{i}].image", image, "must not have leading or trailing whitespace")
                )
    if is_create(obj):
        if as_list(spec.get("ephemeralContainers")):
            causes.append(field_forbidden("spec.ephemeralContainers", "cannot be set on create"))
        if spec.get("nodeName") and as_list(spec.get("schedulingGates")):
            causes.append(field_forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
        causes += apparmor.validate_annotations_match_fields(meta.get("annotations"), spec, "spec")
    return causes


def _only_added_tolerations(new: list[Any], old: list[Any], path: str) -> list[StatusCause]:
    for toleration in map(as_dict, old):
        wanted = {k: v for k, v in toleration.items() if k != "tolerationSeconds"}
        if not any({k: v for k, v in as_dict(t).items() if k != "tolerationSeconds"} == wanted for t in new):
            return [field_forbidden(path, "existing toleration can not be modified except its tolerationSeconds")]
    return []


def validate_pod_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """ValidatePodUpdate's change rules: only images, activeDeadlineSeconds (down), tolerations (added),
    scheduling gates (removed) and a negative terminationGracePeriodSeconds (to 1) may change."""
    causes: list[StatusCause] = []
    new_ann, old_ann = (as_dict(as_dict(o.get("metadata")).get("annotations")) for o in (new, old))
    if new_ann.get(MIRROR_POD_ANNOTATION) != old_ann.get(MIRROR_POD_ANNOTATION):
        path = f"metadata.annotations[{MIRROR_POD_ANNOTATION}]"
        verb = "add" if MIRROR_POD_ANNOTATION not in old_ann else "remove or update"
        causes.append(field_forbidden(path, f"may not {verb} mirror pod annotation"))
    causes += apparmor.validate_annotation_updates(new_ann, old_ann, "metadata.annotations")
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    for key in ("containers", "initContainers"):
        if len(as_list(new_spec.get(key))) != len(as_list(old_spec.get(key))):
            return causes + [field_forbidden(f"spec.{key}", "pod updates may not add or remove containers")]
    new_deadline, old_deadline = new_spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    if is_int(new_deadline):
        if not 0 <= new_deadline <= MAX_INT32:
            return causes + [
                field_invalid("spec.activeDeadlineSeconds", new_deadline, inclusive_range_error(0, MAX_INT32))
            ]
        if is_int(old_deadline) and old_deadline < new_deadline:
            return causes + [
                field_invalid(
                    "spec.activeDeadlineSeconds", new_deadline, "must be less than or equal to previous value"
                )
            ]
    elif old_deadline is not None:
        detail = "must not update from a positive integer to nil value"
        causes.append(field_invalid("spec.activeDeadlineSeconds", None, detail))
    causes += _only_added_tolerations(
        as_list(new_spec.get("tolerations")), as_list(old_spec.get("tolerations")), "spec.tolerations"
    )
    old_gates = {as_dict(g).get("name") for g in as_list(old_spec.get("schedulingGates"))}
    for i, gate in enumerate(map(as_dict, as_list(new_spec.get("schedulingGates")))):
        if gate.get("name") not in old_gates:
            detail = f"only deletion is allowed, but found new scheduling gate '{as_str(gate.get('name'))}'"
            causes.append(field_forbidden(f"spec.schedulingGates[{i}].name", detail))
    if normalize(new_spec) == normalize(old_spec):
        return causes
    munged = _munge_updatable(new_spec, old_spec)
    if normalize(munged) != normalize(old_spec):
        diff = cmp_diff("core.PodSpec", old_spec, munged)
        detail = f"pod updates may not change fields other than {','.join(UPDATABLE_POD_SPEC_FIELDS)}\n{diff}"
        causes.append(field_forbidden("spec", detail))
    return causes


def _munge_updatable(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> dict[str, Any]:
    """The new spec with the fields a pod update may change set back to their old values."""
    munged = copy.deepcopy(new_spec)
    for key in ("containers", "initContainers"):
        for ctr, old_ctr in zip(as_list(munged.get(key)), as_list(old_spec.get(key)), strict=False):
            if isinstance(ctr, dict):
                ctr["image"] = as_dict(old_ctr).get("image")
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged.pop(key, None)
        if key in old_spec:
            munged[key] = copy.deepcopy(old_spec[key])
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if is_int(old_grace) and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if as_list(old_spec.get("schedulingGates")):
        # A gated pod may gain node selector entries and node affinity terms before it is scheduled.
        old_selector, new_selector = as_dict(old_spec.get("nodeSelector")), as_dict(munged.get("nodeSelector"))
        if all(new_selector.get(k) == v for k, v in old_selector.items()):
            munged.pop("nodeSelector", None)
            if "nodeSelector" in old_spec:
                munged["nodeSelector"] = copy.deepcopy(old_spec["nodeSelector"])
    return munged


VALIDATORS = {("v1", "Pod"): validate_pod}
UPDATE_VALIDATORS = {("v1", "Pod"): validate_pod_update}
