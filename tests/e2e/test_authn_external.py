"""The external authenticators end to end, on one server with all of them configured (kube's union order):
OIDC against a loopback issuer, a TokenReview webhook named by a kubeconfig, and a front proxy whose client
certificate a request-header CA issued. Users are checked with kubectl auth whoami and SelfSubjectReview, RBAC
with kubectl, failures with kube's 401 Status."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import requests
import urllib3
from authn_helpers import CA, OIDCIssuer, TokenReviewWebhook, webhook_kubeconfig, write_pair
from conftest import _start, free_port, kubectl_binary
from e2e_helpers import wait_until

UNAUTHORIZED = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "Unauthorized",
    "reason": "Unauthorized",
    "code": 401,
}
REVIEW = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
REVIEW_BODY = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    d = tmp_path_factory.mktemp("authn")
    services_ca = CA("test-services-ca")
    ca_file = services_ca.write(d, "services-ca")
    issuer = OIDCIssuer(*write_pair(d, "issuer", services_ca.issue("127.0.0.1", server=True)))
    issuer.add_key("k1")
    issuer.start()

    webhook_clients = CA("webhook-clients-ca")
    webhook_clients_file = webhook_clients.write(d, "webhook-clients-ca")
    webhook = TokenReviewWebhook(
        *write_pair(d, "webhook", services_ca.issue("127.0.0.1", server=True)), client_ca=webhook_clients_file
    )
    webhook.start()
    cert, key = write_pair(d, "apiserver-webhook-client", webhook_clients.issue("kube-apiserver"))
    kubeconfig = webhook_kubeconfig(d / "webhook.kubeconfig", webhook.url, ca_file, cert, key)

    front_proxy_ca = CA("front-proxy-ca")
    front_proxy_ca_file = front_proxy_ca.write(d, "front-proxy-ca")
    proxy = write_pair(d, "front-proxy", front_proxy_ca.issue("front-proxy-client"))
    intruder = write_pair(d, "intruder", front_proxy_ca.issue("somebody-else"))

    srv = _start(
        d / "data",
        (
            "--authorization-mode=Node,RBAC",
            f"--oidc-issuer-url={issuer.url}",
            "--oidc-client-id=kubernetes",
            f"--oidc-ca-file={ca_file}",
            "--oidc-groups-claim=groups",
            "--oidc-groups-prefix=oidc:",
            "--oidc-required-claim=hd=example.com",
            f"--authentication-token-webhook-config-file={kubeconfig}",
            "--authentication-token-webhook-version=v1",
            "--authentication-token-webhook-cache-ttl=1s",
            f"--requestheader-client-ca-file={front_proxy_ca_file}",
            "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-username-headers=X-Remote-User",
            "--requestheader-uid-headers=X-Remote-Uid",
            "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
        ),
    )
    env = {
        "srv": srv,
        "issuer": issuer,
        "webhook": webhook,
        "proxy": proxy,
        "intruder": intruder,
        "front_proxy_ca": front_proxy_ca,
    }
    try:
        # kube discovers the issuer in the background: tokens are refused until it has
        wait_until(lambda: whoami(srv, good_token(issuer), check=False).returncode == 0, message="OIDC initialized")
        yield env
    finally:
        try:
            srv.stop()
        finally:
            srv.cleanup()
            issuer.stop()
            webhook.stop()


def good_token(issuer: OIDCIssuer, **claims) -> str:
    claims.setdefault("hd", "example.com")
    claims.setdefault("groups", ["devs", "ops"])
    return issuer.token(**claims)


def kubectl_as(srv, token: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [kubectl_binary(), "--server", srv.url, "--certificate-authority", str(srv.ca_file), "--token", token, *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if check and res.returncode != 0:
        raise AssertionError(f"{args} exited {res.returncode}: {res.stderr}")
    return res


def whoami(srv, token: str, check: bool = True) -> subprocess.CompletedProcess:
    return kubectl_as(srv, token, "auth", "whoami", "-o", "json", check=check)


def user_of(srv, token: str) -> dict:
    return json.loads(whoami(srv, token).stdout)["status"]["userInfo"]


def bearer(srv, token: str, method: str = "POST", path: str = REVIEW) -> requests.Response:
    return srv.anonymous(method, path, json=REVIEW_BODY, headers={"Authorization": f"Bearer {token}"})


# --- OIDC ---------------------------------------------------------------------------------------------------------


def test_oidc_user_with_prefixes(env):
    srv, issuer = env["srv"], env["issuer"]
    assert user_of(srv, good_token(issuer)) == {
        # no --oidc-username-prefix and a claim other than email: the issuer URL and "#"
        "username": f"{issuer.url}#alice",
        "groups": ["oidc:devs", "oidc:ops", "system:authenticated"],
    }
    # a single string is a group too
    assert user_of(srv, good_token(issuer, sub="bob", groups="admins"))["groups"] == [
        "oidc:admins",
        "system:authenticated",
    ]


def test_oidc_rbac(env):
    srv, issuer = env["srv"], env["issuer"]
    token = good_token(issuer, sub="carol", groups=["readers"])
    res = kubectl_as(srv, token, "get", "configmaps", "-n", "kube-public", check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        f'Error from server (Forbidden): configmaps is forbidden: User "{issuer.url}#carol" cannot list resource '
        '"configmaps" in API group "" in the namespace "kube-public"'
    )
    srv.kubectl("create", "clusterrolebinding", "oidc-readers", "--clusterrole=view", "--group=oidc:readers")
    wait_until(lambda: kubectl_as(srv, token, "get", "configmaps", "-n", "kube-public", check=False).returncode == 0)
    assert kubectl_as(srv, token, "auth", "can-i", "list", "pods").stdout.strip() == "yes"
    assert kubectl_as(srv, token, "auth", "can-i", "create", "pods", check=False).stdout.strip() == "no"


@pytest.mark.parametrize(
    "case",
    ["wrong-audience", "expired", "no-exp", "unknown-issuer", "not-yet-valid", "unknown-key", "required-claim", "alg"],
)
def test_oidc_rejected_tokens(env, case):
    srv, issuer = env["srv"], env["issuer"]
    now = int(time.time())
    if case == "unknown-key" and "rogue" not in issuer.private:
        issuer.add_key("rogue", publish=False)
    if case == "alg" and "ec" not in issuer.private:
        issuer.add_key("ec", kind="EC")
    token = {
        "wrong-audience": lambda: good_token(issuer, aud="someone-else"),
        "expired": lambda: good_token(issuer, iat=now - 600, exp=now - 5),
        "no-exp": lambda: good_token(issuer, exp=None),
        "unknown-issuer": lambda: good_token(issuer, iss="https://127.0.0.1:1"),
        "not-yet-valid": lambda: good_token(issuer, nbf=now + 300),
        "unknown-key": lambda: good_token(issuer, kid="rogue"),
        "required-claim": lambda: good_token(issuer, hd="elsewhere.org"),
        "alg": lambda: good_token(issuer, kid="ec", alg="ES256"),  # only RS256 is allowed
    }[case]()
    r = bearer(srv, token)
    assert r.status_code == 401
    assert r.json() == UNAUTHORIZED
    res = whoami(srv, token, check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == "error: You must be logged in to the server (Unauthorized)"


def test_oidc_nbf_leeway_and_iat_not_checked(env):
    srv, issuer = env["srv"], env["issuer"]
    now = int(time.time())
    # go-oidc allows a minute of clock skew on nbf and does not look at iat
    r = bearer(srv, good_token(issuer, nbf=now + 30, iat=now + 3600))
    assert r.status_code == 201, r.text


def test_oidc_keys_refreshed_for_new_kid(env):
    srv, issuer = env["srv"], env["issuer"]
    before = issuer.jwks_requests
    issuer.add_key("k2")  # rotation: the server has only k1
    r = bearer(srv, good_token(issuer, kid="k2", sub="dave"))
    assert r.status_code == 201, r.text
    assert r.json()["status"]["userInfo"]["username"] == f"{issuer.url}#dave"
    assert issuer.jwks_requests == before + 1
    # now cached: no new fetch
    assert bearer(srv, good_token(issuer, kid="k2")).status_code == 201
    assert issuer.jwks_requests == before + 1


# --- webhook ------------------------------------------------------------------------------------------------------


def test_webhook_user(env):
    srv, webhook = env["srv"], env["webhook"]
    webhook.answers["webhook-token-erin"] = {
        "authenticated": True,
        "user": {
            "username": "erin",
            "uid": "uid-erin",
            "groups": ["team-a"],
            "extra": {"example.com/scope": ["x", "y"]},
        },
    }
    r = bearer(srv, "webhook-token-erin")
    assert r.status_code == 201, r.text
    assert r.json()["status"]["userInfo"] == {
        "username": "erin",
        "uid": "uid-erin",
        "groups": ["team-a", "system:authenticated"],
        "extra": {"example.com/scope": ["x", "y"]},
    }
    sent = next(x for x in webhook.requests if x["review"]["spec"]["token"] == "webhook-token-erin")
    assert sent["path"] == "/authenticate"
    assert sent["content_type"] == "application/json"
    assert sent["review"]["apiVersion"] == "authentication.k8s.io/v1"
    assert sent["review"]["kind"] == "TokenReview"


def test_webhook_answers_cached_for_ttl(env):
    srv, webhook = env["srv"], env["webhook"]
    webhook.answers["webhook-token-frank"] = {"authenticated": True, "user": {"username": "frank"}}
    assert bearer(srv, "webhook-token-frank").status_code == 201
    assert bearer(srv, "webhook-token-frank").status_code == 201
    assert webhook.reviews_of("webhook-token-frank") == 1
    # a "no" is cached as well
    assert bearer(srv, "webhook-token-nobody").status_code == 401
    assert bearer(srv, "webhook-token-nobody").status_code == 401
    assert webhook.reviews_of("webhook-token-nobody") == 1
    time.sleep(1.2)  # --authentication-token-webhook-cache-ttl=1s
    assert bearer(srv, "webhook-token-frank").status_code == 201
    assert webhook.reviews_of("webhook-token-frank") == 2


def test_webhook_refusals(env):
    srv, webhook = env["srv"], env["webhook"]
    webhook.answers["webhook-token-error"] = {"authenticated": False, "error": "token revoked"}
    for token in ("webhook-token-unknown", "webhook-token-error"):
        r = bearer(srv, token)
        assert r.status_code == 401
        assert r.json() == UNAUTHORIZED
    # with RBAC a webhook user gets what its groups are bound to
    webhook.answers["webhook-token-gina"] = {"authenticated": True, "user": {"username": "gina", "groups": ["team-b"]}}
    res = kubectl_as(srv, "webhook-token-gina", "get", "secrets", "-n", "default", check=False)
    assert 'User "gina" cannot list resource "secrets"' in res.stderr


def test_oidc_token_invalid_for_oidc_still_asks_webhook(env):
    """The union tries every token authenticator: an expired OIDC token goes on to the webhook."""
    srv, issuer, webhook = env["srv"], env["issuer"], env["webhook"]
    token = good_token(issuer, exp=int(time.time()) - 5, sub="late")
    webhook.answers[token] = {"authenticated": True, "user": {"username": "vouched-by-webhook"}}
    r = bearer(srv, token)
    assert r.status_code == 201, r.text
    assert r.json()["status"]["userInfo"]["username"] == "vouched-by-webhook"


# --- front proxy --------------------------------------------------------------------------------------------------


def proxied(env, headers: dict, cert=None, method="POST", path=REVIEW) -> requests.Response:
    srv = env["srv"]
    cert = cert or env["proxy"]
    with requests.Session() as s:
        s.trust_env = False
        return s.request(
            method,
            srv.url + path,
            json=REVIEW_BODY if method == "POST" else None,
            headers=headers,
            cert=(str(cert[0]), str(cert[1])),
            verify=str(srv.ca_file),
            timeout=30,
        )


def test_front_proxy_user(env):
    headers = [
        ("X-Remote-User", "heidi"),
        ("X-Remote-Uid", "uid-heidi"),
        ("X-Remote-Group", "g1"),
        ("X-Remote-Group", "g2"),
        ("X-Remote-Extra-Scopes", "read"),
        ("X-Remote-Extra-Acme.com%2fproject", "p1"),
    ]
    # several headers of one name: urllib3 sends a list of pairs as they are
    srv = env["srv"]
    pool = urllib3.PoolManager(cert_file=str(env["proxy"][0]), key_file=str(env["proxy"][1]), ca_certs=str(srv.ca_file))
    r = pool.request(
        "POST",
        srv.url + REVIEW,
        body=json.dumps(REVIEW_BODY),
        headers=urllib3.HTTPHeaderDict(headers + [("Content-Type", "application/json")]),
    )
    assert r.status == 201, r.data
    assert json.loads(r.data)["status"]["userInfo"] == {
        "username": "heidi",
        "uid": "uid-heidi",
        "groups": ["g1", "g2", "system:authenticated"],
        "extra": {"scopes": ["read"], "acme.com/project": ["p1"]},
    }
    pool.clear()


def test_front_proxy_certificate_alone_is_not_a_user(env):
    # no X-Remote-User: the request-header authenticator passes, and x509 refuses a certificate the client CA
    # did not issue; an error of the union is a 401, not anonymous
    r = proxied(env, {})
    assert r.status_code == 401
    assert r.json() == UNAUTHORIZED


def test_front_proxy_name_not_allowed(env):
    r = proxied(env, {"X-Remote-User": "mallory", "X-Remote-Group": "system:masters"}, cert=env["intruder"])
    assert r.status_code == 401
    assert r.json() == UNAUTHORIZED


def test_client_certificate_ignores_remote_headers(env):
    srv = env["srv"]
    r = srv.request("POST", REVIEW, json=REVIEW_BODY, headers={"X-Remote-User": "mallory"})
    assert r.status_code == 201
    assert r.json()["status"]["userInfo"] == {
        "username": "kubernetes-admin",
        "groups": ["system:masters", "system:authenticated"],
    }


def test_front_proxy_rbac(env):
    r = proxied(env, {"X-Remote-User": "ivan"}, method="GET", path="/api/v1/namespaces/default/secrets")
    assert r.status_code == 403
    assert r.json()["message"] == (
        'secrets is forbidden: User "ivan" cannot list resource "secrets" in API group "" in the namespace "default"'
    )


def test_extension_apiserver_authentication_configmap(env):
    srv = env["srv"]
    r = wait_until(
        lambda: (
            resp
            if (
                resp := srv.request(
                    "GET", "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"
                )
            ).status_code
            == 200
            else None
        ),
        message="extension-apiserver-authentication",
    )
    data = r.json()["data"]
    assert sorted(data) == [
        "client-ca-file",
        "requestheader-allowed-names",
        "requestheader-client-ca-file",
        "requestheader-extra-headers-prefix",
        "requestheader-group-headers",
        "requestheader-uid-headers",
        "requestheader-username-headers",
    ]
    assert data["requestheader-username-headers"] == '["X-Remote-User"]'
    assert data["requestheader-uid-headers"] == '["X-Remote-Uid"]'
    assert data["requestheader-group-headers"] == '["X-Remote-Group"]'
    assert data["requestheader-extra-headers-prefix"] == '["X-Remote-Extra-"]'
    assert data["requestheader-allowed-names"] == '["front-proxy-client"]'
    assert data["requestheader-client-ca-file"] == env["front_proxy_ca"].pem.decode()
    assert data["client-ca-file"] == srv.ca_file.read_text()


# --- flags --------------------------------------------------------------------------------------------------------


def run_server(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """A server that must refuse its flags before it serves."""
    port = str(free_port())
    cmd = [sys.executable, "-m", "kube_apiserver", "--data-dir", str(tmp_path / "d"), "--secure-port", port, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ("--oidc-issuer-url=https://issuer.example",),
            2,
            "Error: oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set",
        ),
        (
            ("--oidc-username-claim=email",),
            2,
            "Error: oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set",
        ),
        (
            ("--oidc-issuer-url=http://issuer.example", "--oidc-client-id=k"),
            1,
            'Error: invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://issuer.example": URL scheme must be https',
        ),
        (
            ("--oidc-issuer-url=https://issuer.example", "--oidc-client-id=k", "--oidc-signing-algs=RS256,HS256"),
            1,
            'Error: oidc: unsupported signing alg: "HS256"',
        ),
        (
            ("--oidc-required-claim=novalue",),
            2,
            "Error: argument --oidc-required-claim: malformed pair, expect string=string",
        ),
        (
            ("--requestheader-username-headers=X-Remote-User,",),
            2,
            'Error: empty value in "requestheader-username-headers"',
        ),
    ],
)
def test_flag_errors(tmp_path, args, code, message):
    res = run_server(tmp_path, *args)
    assert res.returncode == code, res.stderr
    assert res.stderr.strip().splitlines()[-1] == message


def test_webhook_flag_errors(tmp_path):
    res = run_server(tmp_path, f"--authentication-token-webhook-config-file={tmp_path / 'missing'}")
    assert res.returncode == 1
    assert res.stderr.strip() == f"Error: stat {tmp_path / 'missing'}: no such file or directory"
    cfg = tmp_path / "k.kubeconfig"
    cfg.write_text(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:9\ncontexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n"
    )
    res = run_server(
        tmp_path, f"--authentication-token-webhook-config-file={cfg}", "--authentication-token-webhook-version=v2"
    )
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'Error: unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"'
    )
