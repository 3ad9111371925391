"""ServiceAccount admission (plugin/pkg/admission/serviceaccount), on pod create:
- a pod that names no service account gets "default" (spec.serviceAccountName and its alias);
- the service account must exist, else 403; "default" is waited for a little (up to 10 lookups 100-200 ms
  apart), as its controller makes it when the namespace appears;
- unless the pod or, failing that, the service account sets automountServiceAccountToken to false, every
  container and init container gets the API credentials mounted at /var/run/secrets/kubernetes.io/
  serviceaccount: a projected volume "kube-api-access-<5 random>" of a bound token (3607 s), the
  kube-root-ca.crt ConfigMap's ca.crt and the pod's namespace;
- a pod without imagePullSecrets gets the service account's;
- with the service account annotated kubernetes.io/enforce-mountable-secrets=true, the pod may use only the
  secrets the service account lists;
- mirror pods (kubernetes.io/config.mirror) are left as they are, and may reference neither service accounts
  nor secrets.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from kube_apiserver.admission.plugins import forbidden
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.meta import generate_name
from kube_apiserver.storage.cacher.cacher import Cacher

DEFAULT_SERVICE_ACCOUNT = "default"
DEFAULT_API_TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
SERVICE_ACCOUNT_VOLUME_NAME = "kube-api-access"
ENFORCE_MOUNTABLE_SECRETS = "kubernetes.io/enforce-mountable-secrets"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
# serviceaccount.WarnOnlyBoundTokenExpirationSeconds: an hour and 7 s, so a kubelet's token use past an
# hour is told apart from a legacy token's
TOKEN_EXPIRATION_SECONDS = 3607
_DEFAULT_LOOKUPS = 10
_TRUE = frozenset({"1", "t", "T", "true", "TRUE", "True"})  # strconv.ParseBool


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _forbidden(pod: dict[str, Any], text: str) -> errors.StatusError:
    return forbidden("", "pods", pod, text)


def token_volume(name: str) -> dict[str, Any]:
    """TokenVolumeSource, as kube writes it (defaultMode set explicitly)."""
    return {
        "name": name,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [
                            {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                        ]
                    }
                },
            ],
            "defaultMode": 420,
        },
    }


def _should_automount(sa: dict[str, Any], spec: dict[str, Any]) -> bool:
    for preference in (spec.get("automountServiceAccountToken"), sa.get("automountServiceAccountToken")):
        if isinstance(preference, bool):
            return preference
    return True


def _mount_token(spec: dict[str, Any]) -> None:
    volumes = _list(spec.get("volumes"))
    volume_name = next(
        (
            v.get("name")
            for v in volumes
            if isinstance(v, dict) and str(v.get("name") or "").startswith(SERVICE_ACCOUNT_VOLUME_NAME + "-")
        ),
        None,
    )
    has_volume = volume_name is not None
    name = volume_name or generate_name(SERVICE_ACCOUNT_VOLUME_NAME + "-")
    needs_volume = False
    for field in ("initContainers", "containers"):
        for container in _list(spec.get(field)):
            if not isinstance(container, dict):
                continue
            mounts = _list(container.get("volumeMounts"))
            if any(isinstance(m, dict) and m.get("mountPath") == DEFAULT_API_TOKEN_MOUNT_PATH for m in mounts):
                continue  # a mount of its own at that path wins
            container["volumeMounts"] = [
                *mounts,
                {"name": name, "readOnly": True, "mountPath": DEFAULT_API_TOKEN_MOUNT_PATH},
            ]
            needs_volume = True
    if needs_volume and not has_volume:
        spec["volumes"] = [*volumes, token_volume(name)]


def _mountable(sa: dict[str, Any]) -> tuple[str, set[Any]]:
    """The service account's name and the names of the secrets it lists."""
    return _dict(sa.get("metadata")).get("name", ""), {
        s.get("name") for s in _list(sa.get("secrets")) if isinstance(s, dict)
    }


def _container_secret_refusal(
    spec: dict[str, Any], field: str, what: str, sa_name: str, mountable: set[Any]
) -> str | None:
    """The first secret the env or envFrom of the containers of spec[field] name that the service account does
    not list, in upstream's words for that kind of container (what: "container", "init container", ...)."""
    for container in _list(spec.get(field)):
        for env in _list(_dict(container).get("env")):
            ref = _dict(_dict(_dict(env).get("valueFrom")).get("secretKeyRef"))
            if ref and ref.get("name") not in mountable:
                return (
                    f"{what} {container.get('name', '')} with envVar {env.get('name', '')} referencing "
                    f'secret.secretName="{ref.get("name", "")}" is not allowed because service account '
                    f"{sa_name} does not reference that secret"
                )
        for env_from in _list(_dict(container).get("envFrom")):
            ref = _dict(_dict(env_from).get("secretRef"))
            if ref and ref.get("name") not in mountable:
                return (
                    f"{what} {container.get('name', '')} with envFrom referencing secret.secretName="
                    f'"{ref.get("name", "")}" is not allowed because service account {sa_name} does not '
                    "reference that secret"
                )
    return None


def _limit_secret_references(sa: dict[str, Any], spec: dict[str, Any]) -> str | None:
    sa_name, mountable = _mountable(sa)
    for volume in _list(spec.get("volumes")):
        secret = _dict(_dict(volume).get("secret"))
        if secret and secret.get("secretName") not in mountable:
            return (
                f'volume with secret.secretName="{secret.get("secretName", "")}" is not allowed because service '
                f"account {sa_name} does not reference that secret"
            )
    for field, what in (("initContainers", "init container"), ("containers", "container")):
        refusal = _container_secret_refusal(spec, field, what, sa_name, mountable)
        if refusal is not None:
            return refusal
    pull = {s.get("name") for s in _list(sa.get("imagePullSecrets")) if isinstance(s, dict)}
    for i, ref in enumerate(_list(spec.get("imagePullSecrets"))):
        if _dict(ref).get("name") not in pull:
            return (
                f'imagePullSecrets[{i}].name="{_dict(ref).get("name", "")}" is not allowed because service account '
                f"{sa_name} does not reference that imagePullSecret"
            )
    return None


def _limit_ephemeral_container_secret_references(sa: dict[str, Any], spec: dict[str, Any]) -> str | None:
    """limitEphemeralContainerSecretReferences' check of the ephemeral containers' env and envFrom."""
    sa_name, mountable = _mountable(sa)
    return _container_secret_refusal(spec, "ephemeralContainers", "ephemeral container", sa_name, mountable)


# The volume sources that name a secret, and where (podutil.VisitPodSecretNames)
_SECRET_VOLUME_REFS = (
    ("secret", "secretName"),
    ("azureFile", "secretName"),
    ("cephfs", "secretRef"),
    ("cinder", "secretRef"),
    ("flexVolume", "secretRef"),
    ("iscsi", "secretRef"),
    ("rbd", "secretRef"),
    ("scaleIO", "secretRef"),
    ("storageos", "secretRef"),
    ("csi", "nodePublishSecretRef"),
)


def _references_secrets(spec: dict[str, Any]) -> bool:
    if _list(spec.get("imagePullSecrets")):
        return True
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for container in _list(spec.get(field)):
            if any(_dict(_dict(e).get("valueFrom")).get("secretKeyRef") for e in _list(_dict(container).get("env"))):
                return True
            if any(_dict(e).get("secretRef") for e in _list(_dict(container).get("envFrom"))):
                return True
    for volume in _list(spec.get("volumes")):
        volume = _dict(volume)
        for source, field in _SECRET_VOLUME_REFS:
            if field in _dict(volume.get(source)):
                return True
        if any(_dict(p).get("secret") for p in _list(_dict(volume.get("projected")).get("sources"))):
            return True
    return False


def _mirror_pod_refusal(spec: dict[str, Any]) -> str | None:
    """Validate's checks of a mirror pod, in upstream's order."""
    if spec.get("serviceAccountName"):
        return "a mirror pod may not reference service accounts"
    if _references_secrets(spec):
        return "a mirror pod may not reference secrets"
    for volume in _list(spec.get("volumes")):
        if any(
            _dict(p).get("serviceAccountToken") for p in _list(_dict(_dict(volume).get("projected")).get("sources"))
        ):
            return "a mirror pod may not use ServiceAccountToken volume projections"
    return None


class ServiceAccount:
    def __init__(self, service_accounts: Cacher) -> None:
        self.service_accounts = service_accounts  # the watch cache of serviceaccounts

    def _get(self, namespace: str, name: str) -> dict[str, Any] | None:
        item = self.service_accounts.get_cached(f"{self.service_accounts.prefix}{namespace}/{name}")
        return None if item is None else item.obj

    async def await_service_account(self, pod: dict[str, Any]) -> None:
        """Before a pod's create: its service account, if not in the cache, is looked for afresh (admit_pod
        reads the cache and cannot wait); "default" several times, as its controller may be making it."""
        spec, meta = _dict(pod.get("spec")), _dict(pod.get("metadata"))
        if MIRROR_POD_ANNOTATION in _dict(meta.get("annotations")):
            return
        name = spec.get("serviceAccountName") or spec.get("serviceAccount") or DEFAULT_SERVICE_ACCOUNT
        namespace = str(meta.get("namespace") or "")
        if not isinstance(name, str) or self._get(namespace, name) is not None:
            return
        for attempt in range(_DEFAULT_LOOKUPS if name == DEFAULT_SERVICE_ACCOUNT else 1):
            if attempt:
                await asyncio.sleep(random.uniform(0.1, 0.2))
            await self.service_accounts.wait_fresh()
            if self._get(namespace, name) is not None:
                return

    def admit_pod(self, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        spec = pod.get("spec")
        if old is not None or not isinstance(spec, dict):
            return
        meta = _dict(pod.get("metadata"))
        if MIRROR_POD_ANNOTATION in _dict(meta.get("annotations")):
            refusal = _mirror_pod_refusal(spec)
            if refusal is not None:
                raise _forbidden(pod, refusal)
            return
        name = spec.get("serviceAccountName") or DEFAULT_SERVICE_ACCOUNT
        spec["serviceAccountName"] = spec["serviceAccount"] = name  # and the v1 alias, as conversion writes it
        namespace = str(meta.get("namespace") or "")
        sa = self._get(namespace, str(name))
        if sa is None:
            raise _forbidden(
                pod, f'error looking up service account {namespace}/{name}: serviceaccount "{name}" not found'
            )
        if _should_automount(sa, spec):
            _mount_token(spec)
        if not spec.get("imagePullSecrets"):
            pull = [{"name": _dict(s).get("name", "")} for s in _list(sa.get("imagePullSecrets"))]
            if pull:
                spec["imagePullSecrets"] = pull
        if _enforces_mountable_secrets(sa):
            refusal = _limit_secret_references(sa, spec)
            if refusal is not None:
                raise _forbidden(pod, refusal)

    def validate_ephemeral_containers(self, pod: dict[str, Any], old: dict[str, Any]) -> None:
        """Validate of an update through pods/ephemeralcontainers (CVE-2023-2728): the pod must have a service
        account, and one that enforces mountable secrets limits the secrets its ephemeral containers name.
        (Upstream returns that last refusal as a plain error, a 500; here it is the 403 of the other checks.)"""
        spec, meta = _dict(pod.get("spec")), _dict(pod.get("metadata"))
        namespace, name = str(meta.get("namespace") or ""), spec.get("serviceAccountName")
        if not name:
            raise _forbidden(pod, f"no service account specified for pod {namespace}/{meta.get('name', '')}")
        sa = self._get(namespace, str(name))
        if sa is None:
            raise _forbidden(
                pod, f'error looking up service account {namespace}/{name}: serviceaccount "{name}" not found'
            )
        if _enforces_mountable_secrets(sa):
            refusal = _limit_ephemeral_container_secret_references(sa, spec)
            if refusal is not None:
                raise _forbidden(pod, refusal)


def _enforces_mountable_secrets(sa: dict[str, Any]) -> bool:
    """enforceMountableSecrets: the service account's kubernetes.io/enforce-mountable-secrets annotation."""
    return _dict(_dict(sa.get("metadata")).get("annotations")).get(ENFORCE_MOUNTABLE_SECRETS) in _TRUE
