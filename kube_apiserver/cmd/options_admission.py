"""Admission plugin flags (AdmissionOptions: --enable-admission-plugins, --disable-admission-plugins).

Every plugin name kube-apiserver 1.33 registers is accepted, so command lines written for it (envtest
passes --disable-admission-plugins=ServiceAccount) work here. Of them this server runs those of
admission.plugins.RUN (NamespaceLifecycle, LimitRanger, ServiceAccount, TaintNodesByCondition, PodSecurity,
Priority, DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection and DefaultIngressClass,
all on by default in kube-apiserver), which --disable-admission-plugins turns off; enabling one it does not run
is said in a warning at start."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from kube_apiserver.admission import plugins
from kube_apiserver.cmd.flag_types import SliceFlag, int64_flag

# AllOrderedPlugins (pkg/kubeapiserver/options/plugins.go) of 1.33.
REGISTERED_PLUGINS = (
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    "NamespaceLifecycle",
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    "TaintNodesByCondition",
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    "Priority",
    "DefaultTolerationSeconds",
    "PodTolerationRestriction",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "PodTopologyLabels",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
    "AlwaysDeny",
)
# The plugins this server runs.
IMPLEMENTED = plugins.RUN


def _names(value: str) -> list[str]:
    return [n.strip() for n in value.split(",") if n.strip()]


@dataclass
class AdmissionOptions:
    enable_plugins: list[str]
    disable_plugins: list[str]
    default_not_ready_toleration_seconds: int = 300
    default_unreachable_toleration_seconds: int = 300

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> AdmissionOptions:
        return cls(
            ns.enable_admission_plugins,
            ns.disable_admission_plugins,
            ns.default_not_ready_toleration_seconds,
            ns.default_unreachable_toleration_seconds,
        )

    def validate(self) -> list[str]:
        """AdmissionOptions.Validate, in its words."""
        errs = [
            f'enable-admission-plugins plugin "{n}" is unknown'
            for n in self.enable_plugins
            if n not in REGISTERED_PLUGINS
        ]
        errs += [
            f'disable-admission-plugins plugin "{n}" is unknown'
            for n in self.disable_plugins
            if n not in REGISTERED_PLUGINS
        ]
        both = sorted(set(self.enable_plugins) & set(self.disable_plugins))
        if both:
            errs.append(f"[{' '.join(both)}] in enable-admission-plugins and disable-admission-plugins overlapped")
        return errs

    def enabled(self, name: str) -> bool:
        return name not in self.disable_plugins

    def run(self) -> frozenset[str]:
        """The plugins this server runs: its own, less the disabled ones."""
        return frozenset(n for n in IMPLEMENTED if self.enabled(n))

    def not_run(self) -> list[str]:
        """Plugins asked for that this server does not run (for the warning at start)."""
        return [n for n in self.enable_plugins if n not in IMPLEMENTED]


def add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--enable-admission-plugins",
        type=_names,
        action=SliceFlag,
        default=[],
        help="admission plugins that should be enabled in addition to default enabled ones (comma separated). "
        "Of kube-apiserver's plugins this server runs NamespaceLifecycle, LimitRanger, ServiceAccount, "
        "TaintNodesByCondition, PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass, "
        "StorageObjectInUseProtection and DefaultIngressClass; the others are accepted and reported.",
    )
    p.add_argument(
        "--disable-admission-plugins",
        type=_names,
        action=SliceFlag,
        default=[],
        help="admission plugins that should be disabled although they are in the default enabled plugins list "
        "(comma separated).",
    )
    p.add_argument(
        "--default-not-ready-toleration-seconds",
        type=int64_flag,
        default=300,
        help="Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default "
        "to every pod that does not already have such a toleration.",
    )
    p.add_argument(
        "--default-unreachable-toleration-seconds",
        type=int64_flag,
        default=300,
        help="Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by "
        "default to every pod that does not already have such a toleration.",
    )
