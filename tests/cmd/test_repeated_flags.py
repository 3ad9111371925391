"""Flags given more than once, as pflag takes them: a slice flag's first use replaces its default and later uses
add to it; a map flag's uses are merged, a later key winning; a scalar flag's last use wins."""

from __future__ import annotations

from kube_apiserver.cmd.options import parse


def test_slice_flags_add_up_after_replacing_their_default():
    opts = parse(["--authorization-mode=Node", "--authorization-mode=RBAC"])
    assert opts.authorization.authorization_mode == ["Node", "RBAC"]
    assert parse(["--authorization-mode=AlwaysAllow"]).authorization.authorization_mode == ["AlwaysAllow"]
    assert parse([]).authorization.authorization_mode == ["Node", "RBAC"]
    opts = parse(["--enable-admission-plugins=NamespaceLifecycle", "--enable-admission-plugins=PodSecurity,Priority"])
    assert opts.admission.enable_plugins == ["NamespaceLifecycle", "PodSecurity", "Priority"]
    opts = parse(["--cors-allowed-origins=a", "--cors-allowed-origins=b"])
    assert opts.cors_allowed_origins == ["a", "b"]
    oidc = ["--oidc-issuer-url=https://issuer.example", "--oidc-client-id=c"]
    opts = parse([*oidc, "--oidc-signing-algs=ES256", "--oidc-signing-algs=RS256,PS256"])
    assert opts.external_authentication.oidc.signing_algs == ["ES256", "RS256", "PS256"]  # not after RS256
    assert parse(oidc).external_authentication.oidc.signing_algs == ["RS256"]


def test_map_flags_merge():
    opts = parse(["--feature-gates=A=true", "--feature-gates=B=false,A=false", "--runtime-config=api/all=true"])
    assert opts.feature_gates == {"A": False, "B": False}
    assert opts.runtime_config == {"api/all": "true"}


def test_scalar_flags_take_their_last_use():
    assert parse(["--secure-port=1", "--secure-port=2"]).secure_port == 2
