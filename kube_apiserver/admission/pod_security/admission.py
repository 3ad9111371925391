"""The PodSecurity admission plugin (plugin/pkg/admission/security/podsecurity over pod-security-admission's
admission.go) with kube-apiserver's default configuration: no exemptions, privileged:latest for enforce,
audit and warn. Pods are refused by the enforce level and warned about by the warn level; the pod templates
of workload resources are only warned about; namespaces get their labels validated and, when the enforce
level tightens, warnings about the existing pods that would violate it. Audit annotations are not kept."""

from __future__ import annotations

from typing import Any

from kube_apiserver.admission.pod_security import api
from kube_apiserver.admission.pod_security.helpers import Obj, aggregate_check_results, d, items
from kube_apiserver.admission.pod_security.registry import evaluate_pod
from kube_apiserver.registry.warning import add_warning
from kube_apiserver.runtime import errors
from kube_apiserver.storage.cacher.cacher import Cacher

# defaultNamespaceMaxPodsToCheck: a namespace label change looks at no more pods than this
NAMESPACE_MAX_PODS_TO_CHECK = 3000

# DefaultPodSpecExtractor: the resources whose pod template is evaluated, and where the template sits
TEMPLATE_PATHS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "podtemplates"): ("template",),
    ("", "replicationcontrollers"): ("spec", "template"),
    ("apps", "replicasets"): ("spec", "template"),
    ("apps", "deployments"): ("spec", "template"),
    ("apps", "statefulsets"): ("spec", "template"),
    ("apps", "daemonsets"): ("spec", "template"),
    ("batch", "jobs"): ("spec", "template"),
    ("batch", "cronjobs"): ("spec", "jobTemplate", "spec", "template"),
}


def _meta(obj: Obj) -> Obj:
    return d(obj.get("metadata"))


def _labels(obj: Obj | None) -> dict[str, str]:
    return {str(k): str(v) for k, v in d(_meta(obj or {}).get("labels")).items()}


class PodSecurity:
    def __init__(self, namespaces: Cacher, pods: Cacher) -> None:
        self.namespaces = namespaces  # the watch caches of namespaces and of pods
        self.pods = pods

    def _namespace(self, name: str) -> Obj | None:
        item = self.namespaces.get_cached(f"{self.namespaces.prefix}{name}")
        return None if item is None else item.obj

    def _policy(self, namespace: str) -> tuple[api.Policy, bool] | None:
        """The namespace's policy, and whether its labels parsed; None for a namespace not (yet) known, which
        NamespaceLifecycle refuses before this plugin would."""
        ns = self._namespace(namespace)
        if ns is None:
            return None
        policy, causes = api.policy_to_evaluate(_labels(ns))
        return policy, not causes

    async def await_namespace(self, pod: dict[str, Any]) -> None:
        """Before a pod's create: a namespace made a moment ago is waited for in the cache (the hooks that
        read it cannot wait)."""
        namespace = str(_meta(pod).get("namespace") or "")
        if namespace and self._namespace(namespace) is None:
            await self.namespaces.wait_fresh()

    # --- pods ---

    def validate_pod(self, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        """ValidatePod: enforce, then (when allowed) warn; updates that change nothing a check reads pass."""
        found = self._policy(str(_meta(pod).get("namespace") or ""))
        if found is None:
            return
        policy, parsed = found
        if parsed and policy.fully_privileged():
            return
        if old is not None and not is_significant_pod_update(pod, old):
            return
        meta, spec = _meta(pod), d(pod.get("spec"))
        result = aggregate_check_results(evaluate_pod(policy.enforce, meta, spec))
        if not result.allowed:
            # forbiddenResponse: NewForbidden over the request's name (empty for a generateName create)
            raise errors.new_forbidden(
                "",
                "pods",
                str(_meta(pod).get("name") or ""),
                f'violates PodSecurity "{policy.enforce}": {result.forbidden_detail()}',
            )
        _warn(policy, meta, spec)

    # --- workload resources ---

    def template_validator(self, group: str, resource: str) -> Any:
        """ValidatePodController for one resource: warnings only, never a refusal."""
        path = TEMPLATE_PATHS[(group, resource)]

        def validate(obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            found = self._policy(str(_meta(obj).get("namespace") or ""))
            if found is None:
                return
            policy, parsed = found
            if parsed and policy.warn.level == api.LEVEL_PRIVILEGED and policy.audit.level == api.LEVEL_PRIVILEGED:
                return
            template: Any = obj
            for key in path:
                template = template.get(key) if isinstance(template, dict) else None
            if not isinstance(template, dict):
                return  # an optional template left out (a ReplicationController's): nothing to evaluate
            _warn(policy, d(template.get("metadata")), d(template.get("spec")))

        return validate

    # --- namespaces ---

    def validate_namespace(self, ns: dict[str, Any], old: dict[str, Any] | None) -> None:
        """ValidateNamespace: bad labels are refused (on update, only when their errors changed); a tighter
        enforce level warns about the existing pods that would not be admitted under it."""
        new_policy, new_causes = api.policy_to_evaluate(_labels(ns))
        name = str(_meta(ns).get("name") or "")
        if old is None:
            if new_causes:
                raise _invalid_namespace(name, new_causes)
            return
        old_policy, old_causes = api.policy_to_evaluate(_labels(old))
        if new_causes and (not old_causes or _cause_keys(new_causes) != _cause_keys(old_causes)):
            raise _invalid_namespace(name, new_causes)
        new, prev = new_policy.enforce, old_policy.enforce
        if new == prev or new.level == api.LEVEL_PRIVILEGED:
            return
        if new.version == prev.version and api.compare_levels(new.level, prev.level) < 1:
            return
        for text in self.evaluate_pods_in_namespace(name, new):
            add_warning(text)

    def evaluate_pods_in_namespace(self, namespace: str, enforce: api.LevelVersion) -> list[str]:
        """EvaluatePodsInNamespace: one warning per distinct set of reasons, naming the first pod by name."""
        prefix = f"{self.pods.prefix}{namespace}/"
        pods = [item.obj for key, item in self.pods.objects.items() if key.startswith(prefix)]
        pods = prioritize_pods(pods)
        total = len(pods)
        pods = pods[:NAMESPACE_MAX_PODS_TO_CHECK]
        first: dict[str, str] = {}
        counts: dict[str, int] = {}
        for pod in pods:
            result = aggregate_check_results(evaluate_pod(enforce, _meta(pod), d(pod.get("spec"))))
            if result.allowed:
                continue
            warning, pod_name = result.forbidden_reason(), str(_meta(pod).get("name") or "")
            if warning not in first or pod_name < first[warning]:
                first[warning] = pod_name
            counts[warning] = counts.get(warning, 0) + 1
        warnings: list[str] = []
        if len(pods) < total:
            warnings.append(
                f"new PodSecurity enforce level only checked against the first {len(pods)} of {total} existing pods"
            )
        if counts:
            warnings.append(
                f'existing pods in namespace "{namespace}" violate the new PodSecurity enforce level "{enforce}"'
            )
        pod_warnings = []
        for warning, count in counts.items():
            if count == 1:
                pod_warnings.append(f"{first[warning]}: {warning}")
            elif count == 2:
                pod_warnings.append(f"{first[warning]} (and 1 other pod): {warning}")
            else:
                pod_warnings.append(f"{first[warning]} (and {count - 1} other pods): {warning}")
        return warnings + sorted(pod_warnings)


def _warn(policy: api.Policy, meta: Obj, spec: Obj) -> None:
    result = aggregate_check_results(evaluate_pod(policy.warn, meta, spec))
    if not result.allowed:
        add_warning(f'would violate PodSecurity "{policy.warn}": {result.forbidden_detail()}')


def _cause_keys(causes: list[errors.StatusCause]) -> list[tuple[str, str]]:
    return [(c.field, c.message) for c in causes]


def prioritize_pods(pods: list[Obj]) -> list[Obj]:
    """prioritizePods: one pod per controller first (replicas tend to fail alike), then the other replicas."""
    first: list[Obj] = []
    duplicates: list[Obj] = []
    seen: set[str] = set()
    for pod in pods:
        owner = next((ref for ref in items(_meta(pod).get("ownerReferences")) if ref.get("controller") is True), None)
        if owner is None:
            first.append(pod)
        elif str(owner.get("uid")) in seen:
            duplicates.append(pod)
        else:
            seen.add(str(owner.get("uid")))
            first.append(pod)
    return first + duplicates


def is_significant_pod_update(pod: Obj, old: Obj) -> bool:
    """isSignificantPodUpdate: only images (and the seccomp annotations of containers) change in a pod's spec
    after create, plus ephemeral containers added; any of those sends the update through the checks."""
    spec, old_spec = d(pod.get("spec")), d(old.get("spec"))
    annotations, old_annotations = d(_meta(pod).get("annotations")), d(_meta(old).get("annotations"))
    for key in ("containers", "initContainers"):
        new_list, old_list = items(spec.get(key)), items(old_spec.get(key))
        if len(new_list) != len(old_list):
            return True
        if any(
            _significant_container(c, o, annotations, old_annotations) for c, o in zip(new_list, old_list, strict=True)
        ):
            return True
    old_ephemeral = {str(c.get("name")): c for c in items(old_spec.get("ephemeralContainers"))}
    for c in items(spec.get("ephemeralContainers")):
        o = old_ephemeral.get(str(c.get("name")))
        if o is None or _significant_container(c, o, annotations, old_annotations):
            return True
    return False


def _significant_container(c: Obj, old: Obj, annotations: Obj, old_annotations: Obj) -> bool:
    if c.get("image") != old.get("image"):
        return True
    key = "container.seccomp.security.alpha.kubernetes.io/" + str(c.get("name") or "")
    return annotations.get(key) != old_annotations.get(key)


def _invalid_namespace(name: str, causes: list[errors.StatusCause]) -> errors.StatusError:
    """invalidResponse as the in-tree plugin returns it: admission's Forbidden (details: the name and the
    resource, no causes) with the library's reason, code and message ('namespaces "x" is invalid: ...')."""
    texts = list(dict.fromkeys(f"{c.field}: {c.message}" if c.field else c.message for c in causes))
    summary = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    return errors.StatusError(422, "Invalid", f'namespaces "{name}" is invalid: {summary}', name, "", "namespaces")
