"""Create/update/delete strategies (k8s.io/apiserver/pkg/registry/rest: RESTCreateStrategy, ...).

The generic behaviour every resource gets; a group's module subclasses RESTStrategy for what a
schema cannot say (pods' graceful deletion, namespaces' phase, ...).
"""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.registry.deletion_finalizers import DELETE_DEPENDENTS, ORPHAN_DEPENDENTS, UNSUPPORTED
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.schema.structural import schema_for_kind, zero_value
from kube_apiserver.runtime.scheme import Scheme
from kube_apiserver.runtime.validation.names import is_dns1035_label
from kube_apiserver.runtime.validation.objectmeta import validate_object_meta, validate_object_meta_update
from kube_apiserver.storage.interface import Preconditions

# Fields of an object that are not its "spec" for the purpose of metadata.generation.
_NON_SPEC_FIELDS = ("metadata", "status", "apiVersion", "kind")

# metadata.generation, as each kind's strategy keeps it: set to 1 on create and moved on by a change of
# anything but metadata and status (the spec; a PodTemplate's template, a webhook configuration's
# webhooks, an EndpointSlice's endpoints and ports). Kinds not listed never have one (RBAC, Service,
# ConfigMap, HorizontalPodAutoscaler in 1.33, ...).
_GENERATION_KINDS = frozenset(
    {
        ("", "Pod"),
        ("", "ReplicationController"),
        ("", "PodTemplate"),
        ("apps", "Deployment"),
        ("apps", "ReplicaSet"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("policy", "PodDisruptionBudget"),
        ("networking.k8s.io", "Ingress"),
        ("networking.k8s.io", "IngressClass"),
        ("networking.k8s.io", "NetworkPolicy"),
        ("discovery.k8s.io", "EndpointSlice"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("storage.k8s.io", "CSIDriver"),
    }
)
# What else moves it: a Deployment's annotations, an EndpointSlice's labels. A PriorityClass keeps its 1.
_GENERATION_ALSO = {("apps", "Deployment"): "annotations", ("discovery.k8s.io", "EndpointSlice"): "labels"}
_GENERATION_FIXED = frozenset({("scheduling.k8s.io", "PriorityClass")})
# A CSIDriver gets none on create, and 1 at its first spec change (its strategy only adds one).
_GENERATION_NOT_ON_CREATE = frozenset({("storage.k8s.io", "CSIDriver")})

# The metadata a write through /status may change. Most status strategies reset only the spec, so the
# labels, annotations, finalizers and owner references come from the request with the status; some keep
# a few from the stored object, some keep them all (ResetObjectMetaForStatus and the like).
STATUS_METADATA = ("labels", "annotations", "finalizers", "ownerReferences")
_STATUS_KEEPS_METADATA: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): ("ownerReferences",),  # old kubelets corrupted them
    ("apps", "Deployment"): ("labels",),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): ("labels", "annotations", "ownerReferences"),
    ("apiregistration.k8s.io", "APIService"): STATUS_METADATA,
    ("storage.k8s.io", "VolumeAttachment"): STATUS_METADATA,
    ("networking.k8s.io", "ServiceCIDR"): STATUS_METADATA,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): STATUS_METADATA,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): STATUS_METADATA,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): STATUS_METADATA,
}

# Kinds whose create keeps the client's status (their strategies' PrepareForCreate leave it).
_STATUS_KEPT = {("", "Node")}

# Kinds whose names are DNS-1123 labels rather than subdomains (ValidateNamespaceName,
# ValidateStatefulSetName), and the Service's DNS-1035 label (ValidateServiceName).
_LABEL_NAMED = {("", "Namespace"), ("apps", "StatefulSet")}
_DNS1035_NAMED = {("", "Service")}
# Kinds whose names only have to be valid path segments (RBAC).
_PATH_SEGMENT_NAMED = {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}


# Resources whose upstream strategy says AllowCreateOnUpdate() true (the rest: false).
_CREATE_ON_UPDATE = frozenset(
    {
        ("", "endpoints"),
        ("", "events"),
        ("events.k8s.io", "events"),
        ("", "limitranges"),
        ("", "services"),
        ("rbac.authorization.k8s.io", "roles"),
        ("rbac.authorization.k8s.io", "rolebindings"),
        ("rbac.authorization.k8s.io", "clusterroles"),
        ("rbac.authorization.k8s.io", "clusterrolebindings"),
        ("coordination.k8s.io", "leases"),
        ("node.k8s.io", "runtimeclasses"),
    }
)
# Kinds whose Validate<Kind>Update checks what the update changes (metadata, immutable fields) before it
# validates the new object whole (ValidateSecretUpdate, ValidateConfigMapUpdate, ValidateServiceUpdate), so
# their causes come in that order; other kinds validate the new object first.
_UPDATE_RULES_FIRST = frozenset({("", "Secret"), ("", "ConfigMap"), ("", "Service")})
# Resources whose upstream strategy says AllowUnconditionalUpdate() false (custom resources too): an update
# must name the resourceVersion it replaces.
_CONDITIONAL_UPDATE_ONLY = frozenset(
    {
        ("policy", "poddisruptionbudgets"),
        ("storage.k8s.io", "volumeattachments"),
        ("storage.k8s.io", "csidrivers"),
        ("storage.k8s.io", "csinodes"),
        ("storage.k8s.io", "csistoragecapacities"),
        ("coordination.k8s.io", "leases"),
        ("node.k8s.io", "runtimeclasses"),
        ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"),
        ("admissionregistration.k8s.io", "validatingwebhookconfigurations"),
        ("admissionregistration.k8s.io", "validatingadmissionpolicies"),
        ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"),
        ("apiextensions.k8s.io", "customresourcedefinitions"),
        ("apiregistration.k8s.io", "apiservices"),
    }
)

# DefaultGarbageCollectionPolicy of the strategies that differ from DeleteDependents (in the versions served
# here): v1 ReplicationControllers and batch/v1 Jobs orphan their pods for backward compatibility; events
# never take part in garbage collection.
_GC_POLICIES = {
    ("", "ReplicationController"): ORPHAN_DEPENDENTS,
    ("batch", "Job"): ORPHAN_DEPENDENTS,
    ("", "Event"): UNSUPPORTED,
    ("events.k8s.io", "Event"): UNSUPPORTED,
}


class RESTStrategy:
    def __init__(self, spec: ResourceSpec, scheme: Scheme | None = None) -> None:
        self.spec = spec
        # Defaulting and validation functions per kind, gathered from the API groups.
        self.scheme = scheme if scheme is not None else Scheme()
        self.namespaced = spec.namespaced
        self.has_status = spec.subresource("status") is not None
        key = (spec.group, spec.kind)
        self.tracks_generation = key in _GENERATION_KINDS
        self._generation_also = _GENERATION_ALSO.get(key)
        self._generation_fixed = key in _GENERATION_FIXED
        self._generation_on_create = key not in _GENERATION_NOT_ON_CREATE
        self.status_keeps_metadata = _STATUS_KEEPS_METADATA.get(key, ())
        self.update_rules_first = (spec.group, spec.kind) in _UPDATE_RULES_FIRST
        self.default_garbage_collection_policy = _GC_POLICIES.get(key, DELETE_DEPENDENTS)

    # Whether marking the object for deletion records metadata.deletionGracePeriodSeconds (the generic
    # store's markAsDeleting does; a namespace's own Delete sets only the timestamp).
    records_deletion_grace_period = True
    # Whether orphanDependents=false puts the foregroundDeletion finalizer on the object (namespaces only).
    orphan_false_is_foreground = False

    # --- delete ---

    def check_delete_preconditions(self, name: str, preconditions: Preconditions, obj: dict[str, Any]) -> None:
        """rest.BeforeDelete's check of DeleteOptions.preconditions: a Conflict worded on the Kind (the storage
        layer's own check, of a write racing the delete, keeps its wording on the resource)."""
        meta = obj.get("metadata") or {}
        uid, rv = meta.get("uid", ""), meta.get("resourceVersion", "")
        if preconditions.uid is not None and preconditions.uid != uid:
            raise errors.new_conflict(
                self.spec.group,
                self.spec.kind,
                name,
                f"the UID in the precondition ({preconditions.uid}) does not match the UID in record ({uid}). "
                "The object might have been deleted and then recreated",
            )
        if preconditions.resource_version is not None and preconditions.resource_version != rv:
            raise errors.new_conflict(
                self.spec.group,
                self.spec.kind,
                name,
                f"the ResourceVersion in the precondition ({preconditions.resource_version}) does not match the "
                f"ResourceVersion in record ({rv}). The object might have been modified",
            )

    # --- defaults (applied to every object a client writes, before prepare and validate) ---

    def default(self, obj: dict[str, Any]) -> None:
        self.scheme.default(obj)

    def default_status(self, obj: dict[str, Any]) -> None:
        """Defaults again after prepare_for_create, which may have reset the status (Scheme.default_status)."""
        self.scheme.default_status(obj)

    # --- create ---

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.has_status and (self.spec.group, self.spec.kind) not in _STATUS_KEPT:
            # A new object's status is the Go zero value kube writes back: {} with the fields
            # that have no omitempty (replicas: 0, ...).
            obj["status"] = self.zero_status()
        if self.tracks_generation and self._generation_on_create:
            metautil.metadata(obj)["generation"] = 1

    def zero_status(self) -> dict[str, Any]:
        node = schema_for_kind(self.spec.group, self.spec.version, self.spec.kind)
        status = node.props.get("status") if node is not None else None
        if status is None or status.kind != "object":
            return {}
        out = zero_value(status)
        # and the fields OpenAPI calls optional that Go writes anyway: value structs behind omitempty
        # (a Service's loadBalancer: {}), scalars without omitempty (a StatefulSet's availableReplicas: 0)
        for name, zero in status.zero_fields:
            out.setdefault(name, zero())
        return out

    def validate(self, obj: dict[str, Any]) -> list[StatusCause]:
        return self.validate_metadata(obj) + self.scheme.validate(obj)

    def validate_metadata(self, obj: dict[str, Any]) -> list[StatusCause]:
        return validate_object_meta(obj.get("metadata") or {}, self.namespaced, self.name_validator())

    def name_validator(self) -> Any:
        key = (self.spec.group, self.spec.kind)
        if key == ("networking.k8s.io", "IPAddress"):
            return _no_name_errors  # named after the address: its validator checks the name as an IP
        if key in _LABEL_NAMED:
            return metautil.is_dns1123_label
        if key in _DNS1035_NAMED:
            return is_dns1035_label
        if key == ("apiregistration.k8s.io", "APIService"):
            # a path segment, the rest of upstream's name rule ("<version>.<group>", "v1." for the
            # core group, which no DNS subdomain allows) is in apis/apiregistration/validation.py
            return metautil.is_path_segment_name
        if self.spec.kind in _PATH_SEGMENT_NAMED or self.spec.group == "rbac.authorization.k8s.io":
            return metautil.is_path_segment_name
        return metautil.is_dns1123_subdomain

    def canonicalize(self, obj: dict[str, Any]) -> None:
        pass

    # --- update ---

    @property
    def allow_create_on_update(self) -> bool:
        """AllowCreateOnUpdate: a PUT to a missing object creates it."""
        return (self.spec.group, self.spec.resource) in _CREATE_ON_UPDATE

    @property
    def allow_unconditional_update(self) -> bool:
        """AllowUnconditionalUpdate: a PUT without metadata.resourceVersion overwrites what is there."""
        return not self.spec.custom and (self.spec.group, self.spec.resource) not in _CONDITIONAL_UPDATE_ONLY

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if self.has_status:
            if "status" in old:
                new["status"] = copy.deepcopy(old["status"])
            else:
                new.pop("status", None)
        if self.tracks_generation and not self._generation_fixed:
            old_meta = old.get("metadata") or {}
            gen = old_meta.get("generation", 1 if self._generation_on_create else 0)
            changed = _spec_of(new) != _spec_of(old)
            if not changed and self._generation_also:
                also = self._generation_also
                changed = (metautil.metadata(new).get(also) or {}) != (old_meta.get(also) or {})
            if changed or gen:
                metautil.metadata(new)["generation"] = gen + 1 if changed else gen

    def warnings(self, new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
        """WarningsOnCreate (old None) / WarningsOnUpdate: texts for the client's Warning headers."""
        return self.scheme.warnings(new, old)

    def validate_on_update(self, new: dict[str, Any]) -> list[StatusCause]:
        """What the registry checks of an update's new object before validate_update(): validate(), or
        for a kind whose update validation replaces it (Scheme.validates_on_update) the metadata alone.
        A strategy overriding validate() for such a kind overrides this as well."""
        if self.scheme.validates_on_update(new):
            return self.validate(new)
        return self.validate_metadata(new)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        """Rules for changes only (immutable fields); validate_on_update() runs on the new object as well."""
        causes = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
        return causes + self.scheme.validate_update(new, old)

    # --- subresources ---

    def prepare_for_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> dict[str, Any]:
        if subresource == "status":
            return self.prepare_for_status_update(new, old)
        raise ValueError(f"no update strategy for subresource {subresource}")

    def validate_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> list[StatusCause]:
        """What a write through this subresource may not change, beyond validate_update()."""
        return []

    def prepare_for_status_update(
        self, new: dict[str, Any], old: dict[str, Any], keep: tuple[str, ...] | None = None
    ) -> dict[str, Any]:
        """A write through /status: the old object with the new status, and the new metadata of
        STATUS_METADATA but what the kind keeps (keep: instead of the kind's)."""
        out = stored_copy(new, old)
        if "status" in new:
            out["status"] = new["status"]
        else:
            out.pop("status", None)
        keep = self.status_keeps_metadata if keep is None else keep
        new_meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else {}
        out_meta = metautil.metadata(out)
        for k in STATUS_METADATA:
            if k in keep:
                continue
            if k in new_meta:
                out_meta[k] = copy.deepcopy(new_meta[k])
            else:
                out_meta.pop(k, None)
        return out

    # --- delete ---

    def has_finalizers(self, obj: dict[str, Any]) -> bool:
        """Whether deletion must wait (metadata.finalizers; namespaces add spec.finalizers)."""
        return bool((obj.get("metadata") or {}).get("finalizers"))

    def prepare_for_delete(self, obj: dict[str, Any]) -> None:
        """Called when an object is marked for deletion (deletionTimestamp set)."""

    def check_delete(self, obj: dict[str, Any]) -> None:
        """Raises the StatusError a delete of obj (as stored) is refused with before anything is done."""

    def check_graceful_delete(self, obj: dict[str, Any], grace_period: int | None) -> int | None:
        """The grace period to wait before removal, or None for immediate deletion (most kinds)."""
        return None


def _spec_of(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in _NON_SPEC_FIELDS}


def _no_name_errors(name: str) -> list[str]:
    return []


def stored_copy(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """The stored object as a subresource write starts from (dropPodUpdates and the like): a copy of old,
    with the resourceVersion the request names, so that its precondition still holds."""
    out = copy.deepcopy(old)
    new_meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else {}
    if "resourceVersion" in new_meta:
        metautil.metadata(out)["resourceVersion"] = new_meta["resourceVersion"]
    return out
