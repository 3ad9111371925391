"""Service account tokens end to end: `kubectl create token` (1.27 and 1.33), the token used with kubectl and
the Python client (denied, then allowed by a RoleBinding), `kubectl auth whoami`, tokens that must fail
(garbage, expired, deleted service account, deleted bound pod), TokenReview, secret-based (legacy) tokens
filled by the tokens controller, bootstrap tokens, issuer discovery, the default service account."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import time
import uuid

import jwt
import pytest
from conftest import _start, kubectl_binary
from e2e_helpers import wait_until, without_root_ca

ISSUER = "https://kubernetes.default.svc.cluster.local"
UNAUTHORIZED = "error: You must be logged in to the server (Unauthorized)"


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    server = _start(
        tmp_path_factory.mktemp("sa") / "data", ("--authorization-mode", "Node,RBAC", "--enable-bootstrap-token-auth")
    )
    try:
        yield server
    finally:
        try:
            server.stop()
        finally:
            server.cleanup()


@pytest.fixture
def ns(srv, request):
    base = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower())[:40].strip("-")
    name = f"{base}-{uuid.uuid4().hex[:5]}"
    srv.create_namespace(name)
    yield name
    srv.request("DELETE", f"/api/v1/namespaces/{name}")


def with_token(srv, token: str, *args: str, check: bool = False) -> subprocess.CompletedProcess:
    """kubectl as the token's user alone (no client certificate, no kubeconfig)."""
    cmd = [
        kubectl_binary(),
        "--kubeconfig=/dev/null",
        f"--server={srv.url}",
        f"--certificate-authority={srv.ca_file}",
        f"--token={token}",
        *args,
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if check and res.returncode != 0:
        raise AssertionError(f"{args}: {res.stderr}")
    return res


def payload(token: str) -> dict:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def whoami(srv, token: str) -> dict[str, str]:
    out = with_token(srv, token, "auth", "whoami", check=True).stdout
    rows = {}
    for line in out.splitlines()[1:]:
        key, _, value = line.partition("  ")
        rows[key.strip()] = value.strip()
    return rows


def token_review(srv, token: str, audiences: list[str] | None = None) -> dict:
    spec: dict = {"token": token}
    if audiences:
        spec["audiences"] = audiences
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec}
    r = srv.request("POST", "/apis/authentication.k8s.io/v1/tokenreviews", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def make_sa(srv, ns: str, name: str = "bot") -> dict:
    srv.kubectl("create", "serviceaccount", name, "-n", ns)
    return srv.request("GET", f"/api/v1/namespaces/{ns}/serviceaccounts/{name}").json()


def test_default_service_account_in_every_namespace(srv, ns):
    get = lambda n: srv.request("GET", f"/api/v1/namespaces/{n}/serviceaccounts/default")  # noqa: E731
    first = wait_until(lambda: get(ns).status_code == 200 and get(ns).json(), message="default service account")
    for system_ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
        assert get(system_ns).status_code == 200
    srv.kubectl("delete", "serviceaccount", "default", "-n", ns)
    again = wait_until(lambda: get(ns).status_code == 200 and get(ns).json(), message="default made again")
    assert again["metadata"]["uid"] != first["metadata"]["uid"]


@pytest.mark.parametrize("version", [None, "1.27"])
def test_create_token_denied_then_allowed(srv, ns, version):
    make_sa(srv, ns)
    token = srv.kubectl("create", "token", "bot", "-n", ns, version=version).stdout.strip()
    claims = payload(token)
    assert claims["iss"] == ISSUER and claims["aud"] == [ISSUER]
    assert claims["exp"] - claims["iat"] == 3600
    res = with_token(srv, token, "get", "pods", "-n", ns)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        f'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:{ns}:bot" cannot list '
        f'resource "pods" in API group "" in the namespace "{ns}"'
    )
    srv.kubectl("create", "rolebinding", "bot-view", "--clusterrole=view", f"--serviceaccount={ns}:bot", "-n", ns)
    res = with_token(srv, token, "get", "pods", "-n", ns)
    assert res.returncode == 0 and res.stderr.strip() == f"No resources found in {ns} namespace."


def test_whoami_and_token_options(srv, ns):
    sa = make_sa(srv, ns)
    token = srv.kubectl(
        "create", "token", "bot", "-n", ns, "--duration=20m", "--audience=vault", f"--audience={ISSUER}"
    ).stdout.strip()
    claims = payload(token)
    assert claims["aud"] == ["vault", ISSUER] and claims["exp"] - claims["iat"] == 1200
    assert claims["kubernetes.io"] == {"namespace": ns, "serviceaccount": {"name": "bot", "uid": sa["metadata"]["uid"]}}
    assert whoami(srv, token) == {
        "Username": f"system:serviceaccount:{ns}:bot",
        "UID": sa["metadata"]["uid"],
        "Groups": f"[system:serviceaccounts system:serviceaccounts:{ns} system:authenticated]",
        "Extra: authentication.kubernetes.io/credential-id": f"[JTI={claims['jti']}]",
    }
    # only for another audience: not for this API
    vault_only = srv.kubectl("create", "token", "bot", "-n", ns, "--audience=vault").stdout.strip()
    assert with_token(srv, vault_only, "auth", "whoami").stderr.strip() == UNAUTHORIZED
    res = srv.kubectl("create", "token", "bot", "-n", ns, "--duration=1m", check=False)
    assert res.stderr.strip() == (
        'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: '
        "Invalid value: 60: may not specify a duration less than 10 minutes"
    )
    res = srv.kubectl("create", "token", "nobody", "-n", ns, check=False)
    assert res.stderr.strip() == 'error: failed to create token: serviceaccounts "nobody" not found'


def test_token_request_api(srv, ns):
    from kubernetes import client

    core_v1 = client.CoreV1Api(srv.api_client())
    make_sa(srv, ns)
    before = time.time()
    body = client.AuthenticationV1TokenRequest(
        spec=client.V1TokenRequestSpec(audiences=["a", "b"], expiration_seconds=1200)
    )
    tr = core_v1.create_namespaced_service_account_token("bot", ns, body)
    assert tr.metadata.name == "bot" and tr.metadata.namespace == ns
    assert tr.spec.audiences == ["a", "b"] and tr.spec.expiration_seconds == 1200
    assert abs(tr.status.expiration_timestamp.timestamp() - (before + 1200)) < 5
    assert payload(tr.status.token)["aud"] == ["a", "b"]

    path = f"/api/v1/namespaces/{ns}/serviceaccounts/bot/token"
    raw = srv.request("POST", path, json={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest"}).json()
    assert list(raw) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert raw["spec"] == {"audiences": [ISSUER], "expirationSeconds": 3600, "boundObjectRef": None}
    assert list(raw["status"]) == ["token", "expirationTimestamp"]

    def post(spec: dict, **meta) -> tuple[int, str]:
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": meta, "spec": spec}
        r = srv.request("POST", path, json=body)
        return r.status_code, r.json().get("message", "")

    assert post({"expirationSeconds": 5000000000}) == (
        422,
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 5000000000: '
        "may not specify a duration larger than 2^32 seconds",
    )
    assert post({}, name="other") == (
        422,
        'TokenRequest.authentication.k8s.io "bot" is invalid: metadata.name: Invalid value: "other": '
        "must match the service account name if specified",
    )
    assert post({"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "x"}}) == (
        400,
        "cannot bind token to object of type /v1, Kind=ConfigMap",
    )
    srv.kubectl("create", "secret", "generic", "s1", "-n", ns)
    assert post({"boundObjectRef": {"kind": "Secret", "apiVersion": "v1", "name": "s1", "uid": "u"}})[0] == 409
    srv.kubectl("run", "web", "--image=nginx", "-n", ns)  # runs as the default service account
    assert post({"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "web"}}) == (
        400,
        'cannot bind token for serviceaccount "bot" to pod running with different serviceaccount name.',
    )


def test_pod_and_secret_bound_tokens(srv, ns):
    make_sa(srv, ns)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {"serviceAccountName": "bot", "containers": [{"name": "c", "image": "nginx"}]},
    }
    srv.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(pod))
    pod_uid = srv.request("GET", f"/api/v1/namespaces/{ns}/pods/web").json()["metadata"]["uid"]
    token = srv.kubectl(
        "create", "token", "bot", "-n", ns, "--bound-object-kind=Pod", "--bound-object-name=web"
    ).stdout.strip()
    assert payload(token)["kubernetes.io"]["pod"] == {"name": "web", "uid": pod_uid}
    rows = whoami(srv, token)
    assert rows["Extra: authentication.kubernetes.io/pod-name"] == "[web]"
    assert rows["Extra: authentication.kubernetes.io/pod-uid"] == f"[{pod_uid}]"
    srv.kubectl("delete", "pod", "web", "-n", ns, "--grace-period=0", "--force")
    assert with_token(srv, token, "auth", "whoami").stderr.strip() == UNAUTHORIZED
    assert (
        token_review(srv, token)["status"]["error"]
        == "[invalid bearer token, service account token has been invalidated]"
    )

    srv.kubectl("create", "secret", "generic", "anchor", "-n", ns)
    token = srv.kubectl(
        "create", "token", "bot", "-n", ns, "--bound-object-kind=Secret", "--bound-object-name=anchor"
    ).stdout.strip()
    assert with_token(srv, token, "auth", "whoami").returncode == 0
    srv.kubectl("delete", "secret", "anchor", "-n", ns)
    assert with_token(srv, token, "auth", "whoami").stderr.strip() == UNAUTHORIZED


def test_node_bound_and_extended_tokens(srv, ns):
    make_sa(srv, ns)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{ns}"}}
    srv.kubectl("create", "-f", "-", input=json.dumps(node))
    node_uid = srv.request("GET", f"/api/v1/nodes/node-{ns}").json()["metadata"]["uid"]
    token = srv.kubectl(
        "create", "token", "bot", "-n", ns, "--bound-object-kind=Node", f"--bound-object-name=node-{ns}"
    ).stdout.strip()
    assert payload(token)["kubernetes.io"]["node"] == {"name": f"node-{ns}", "uid": node_uid}
    rows = whoami(srv, token)
    assert rows["Extra: authentication.kubernetes.io/node-name"] == f"[node-{ns}]"
    assert rows["Extra: authentication.kubernetes.io/node-uid"] == f"[{node_uid}]"

    # a pod on that node: its tokens name the node too; asked for 3607 s (what admission injects) they
    # live a year and are warned about after the hour
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {
            "serviceAccountName": "bot",
            "nodeName": f"node-{ns}",
            "containers": [{"name": "c", "image": "nginx"}],
        },
    }
    srv.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(pod))
    body = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": 3607, "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "web"}},
    }
    before = time.time()
    tr = srv.request("POST", f"/api/v1/namespaces/{ns}/serviceaccounts/bot/token", json=body).json()
    claims = payload(tr["status"]["token"])
    assert claims["exp"] - claims["iat"] == 365 * 24 * 3600
    assert claims["kubernetes.io"]["warnafter"] == claims["iat"] + 3607
    assert claims["kubernetes.io"]["node"] == {"name": f"node-{ns}", "uid": node_uid}
    assert tr["spec"]["expirationSeconds"] == 3607
    expires = time.mktime(time.strptime(tr["status"]["expirationTimestamp"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert abs(expires - (before + 3607)) < 5
    rows = whoami(srv, tr["status"]["token"])
    assert rows["Extra: authentication.kubernetes.io/node-name"] == f"[node-{ns}]"
    srv.kubectl("delete", "node", f"node-{ns}")
    assert with_token(srv, token, "auth", "whoami").stderr.strip() == UNAUTHORIZED


def resign(srv, token: str, **changes) -> str:
    """The token with some claims changed, signed again with the server's issuer key (as a thief of the
    key could not, but a clock could make it expire)."""
    key = (srv.data_dir / "pki" / "sa.key").read_bytes()
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    return jwt.encode({**payload(token), **changes}, key, algorithm="RS256", headers={"kid": header["kid"]})


def test_rejected_tokens(srv, ns):
    make_sa(srv, ns)
    token = srv.kubectl("create", "token", "bot", "-n", ns).stdout.strip()
    now = int(time.time())
    expired = resign(srv, token, iat=now - 7200, nbf=now - 7200, exp=now - 3600)
    forged = token[:-8] + ("AAAAAAAA" if not token.endswith("AAAAAAAA") else "BBBBBBBB")
    for bad in ("garbage", expired, forged):
        assert with_token(srv, bad, "auth", "whoami").stderr.strip() == UNAUTHORIZED
    assert token_review(srv, "garbage")["status"] == {"user": {}, "error": "invalid bearer token"}
    assert token_review(srv, expired)["status"]["error"] == "[invalid bearer token, service account token has expired]"
    assert token_review(srv, forged)["status"]["error"] == (
        "[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]"
    )
    assert whoami(srv, token)["Username"] == f"system:serviceaccount:{ns}:bot"
    srv.kubectl("delete", "serviceaccount", "bot", "-n", ns)
    assert with_token(srv, token, "auth", "whoami").stderr.strip() == UNAUTHORIZED
    assert token_review(srv, token)["status"] == {
        "user": {},
        "error": '[invalid bearer token, serviceaccounts "bot" not found]',
    }
    # a new service account of the same name is another identity
    make_sa(srv, ns)
    assert with_token(srv, token, "auth", "whoami").stderr.strip() == UNAUTHORIZED


def test_token_review(srv, ns):
    from kubernetes import client

    api_client = srv.api_client()
    sa = make_sa(srv, ns)
    token = srv.kubectl("create", "token", "bot", "-n", ns, "--audience=vault", f"--audience={ISSUER}").stdout.strip()
    review = token_review(srv, token)
    assert review["metadata"] == {"creationTimestamp": None}
    assert review["status"] == {
        "authenticated": True,
        "user": {
            "username": f"system:serviceaccount:{ns}:bot",
            "uid": sa["metadata"]["uid"],
            "groups": ["system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"],
            "extra": {"authentication.kubernetes.io/credential-id": [f"JTI={payload(token)['jti']}"]},
        },
        "audiences": [ISSUER],
    }
    assert token_review(srv, token, ["vault"])["status"]["audiences"] == ["vault"]
    assert token_review(srv, token, ["elsewhere"])["status"] == {
        "user": {},
        "error": f'[invalid bearer token, token audiences ["vault" "{ISSUER}"] is invalid for the target audiences ["elsewhere"]]',
    }
    api = client.AuthenticationV1Api(api_client)
    result = api.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=token)))
    assert result.status.authenticated is True and result.status.user.username == f"system:serviceaccount:{ns}:bot"
    r = srv.request(
        "POST",
        "/apis/authentication.k8s.io/v1/tokenreviews",
        json={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {}},
    )
    assert (r.status_code, r.json()["message"]) == (400, "token is required for TokenReview in authentication")


def test_python_client_with_token(srv, ns):
    from kubernetes import client

    make_sa(srv, ns)
    srv.kubectl("create", "configmap", "c1", "-n", ns)
    token = srv.kubectl("create", "token", "bot", "-n", ns).stdout.strip()
    cfg = client.Configuration()
    cfg.host = srv.url
    cfg.ssl_ca_cert = str(srv.ca_file)
    cfg.api_key = {"authorization": "Bearer " + token}
    with client.ApiClient(cfg) as api:
        with pytest.raises(client.ApiException) as e:
            client.CoreV1Api(api).list_namespaced_config_map(ns)
        assert e.value.status == 403
        srv.kubectl("create", "rolebinding", "bot-view", "--clusterrole=view", f"--serviceaccount={ns}:bot", "-n", ns)
        names = [c.metadata.name for c in client.CoreV1Api(api).list_namespaced_config_map(ns).items]
        assert without_root_ca(names) == ["c1"]  # beside the namespace's CA bundle
        review = client.AuthenticationV1Api(api).create_self_subject_review(client.V1SelfSubjectReview())
        assert review.status.user_info.username == f"system:serviceaccount:{ns}:bot"


def test_legacy_secret_token(srv, ns):
    sa = make_sa(srv, ns)
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "bot-token", "annotations": {"kubernetes.io/service-account.name": "bot"}},
        "type": "kubernetes.io/service-account-token",
    }
    srv.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(secret))
    path = f"/api/v1/namespaces/{ns}/secrets/bot-token"
    filled = wait_until(lambda: (s := srv.request("GET", path).json()).get("data", {}).get("token") and s)
    data = {k: base64.b64decode(v) for k, v in filled["data"].items()}
    assert data["ca.crt"] == srv.ca_file.read_bytes() and data["namespace"] == ns.encode()
    assert filled["metadata"]["annotations"]["kubernetes.io/service-account.uid"] == sa["metadata"]["uid"]
    token = data["token"].decode()
    assert payload(token)["iss"] == "kubernetes/serviceaccount" and "exp" not in payload(token)
    rows = whoami(srv, token)
    assert (
        rows["Username"] == f"system:serviceaccount:{ns}:bot"
        and "Extra: authentication.kubernetes.io/credential-id" not in rows
    )
    labels = srv.request("GET", path).json()["metadata"]["labels"]
    assert labels == {"kubernetes.io/legacy-token-last-used": time.strftime("%Y-%m-%d", time.gmtime())}
    srv.kubectl("delete", "secret", "bot-token", "-n", ns)
    assert with_token(srv, token, "auth", "whoami").stderr.strip() == UNAUTHORIZED
    # a token secret for a service account that does not exist is deleted
    orphan = {**secret, "metadata": {"name": "orphan", "annotations": {"kubernetes.io/service-account.name": "ghost"}}}
    srv.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(orphan))
    wait_until(lambda: srv.request("GET", f"/api/v1/namespaces/{ns}/secrets/orphan").status_code == 404)
    # and the tokens of a deleted service account go with it
    srv.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(secret))
    wait_until(lambda: srv.request("GET", path).json().get("data"))
    srv.kubectl("delete", "serviceaccount", "bot", "-n", ns)
    wait_until(lambda: srv.request("GET", path).status_code == 404, message="token secret deleted")


def test_bootstrap_token(srv):
    def secret(name: str, **data: str) -> dict:
        return {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": name, "namespace": "kube-system"},
            "type": "bootstrap.kubernetes.io/token",
            "stringData": data,
        }

    good = secret(
        "bootstrap-token-abcdef",
        **{
            "token-id": "abcdef",
            "token-secret": "0123456789abcdef",
            "usage-bootstrap-authentication": "true",
            "auth-extra-groups": "system:bootstrappers:worker",
        },
    )
    expired = secret(
        "bootstrap-token-zzzzzz",
        **{
            "token-id": "zzzzzz",
            "token-secret": "0123456789abcdef",
            "usage-bootstrap-authentication": "true",
            "expiration": "2020-01-01T00:00:00Z",
        },
    )
    srv.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [good, expired]}))
    rows = whoami(srv, "abcdef.0123456789abcdef")
    assert rows["Username"] == "system:bootstrap:abcdef"
    assert rows["Groups"] == "[system:bootstrappers system:bootstrappers:worker system:authenticated]"
    for bad in ("abcdef.0123456789abcdee", "zzzzzz.0123456789abcdef"):
        assert with_token(srv, bad, "auth", "whoami").stderr.strip() == UNAUTHORIZED
    assert token_review(srv, "abcdef.0123456789abcdef", ["elsewhere"])["status"]["error"] == "invalid bearer token"
    srv.kubectl("delete", "secret", "bootstrap-token-abcdef", "bootstrap-token-zzzzzz", "-n", "kube-system")


def test_issuer_discovery(srv, ns):
    make_sa(srv, ns)
    token = srv.kubectl("create", "token", "bot", "-n", ns).stdout.strip()
    config = srv.request("GET", "/.well-known/openid-configuration")
    assert config.headers["content-type"] == "application/json"
    assert config.headers["cache-control"] == "public, max-age=3600"
    assert config.json() == {
        "issuer": ISSUER,
        "jwks_uri": f"https://127.0.0.1:{srv.port}/openid/v1/jwks",
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    }
    jwks = srv.request("GET", "/openid/v1/jwks")
    assert jwks.headers["content-type"] == "application/jwk-set+json"
    (key,) = jwks.json()["keys"]
    assert list(key) == ["use", "kty", "kid", "alg", "n", "e"]
    assert key["kid"] == json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))["kid"]
    # a relying party verifies the token with the published key alone
    verified = jwt.decode(token, jwt.PyJWK(key).key, algorithms=["RS256"], audience=ISSUER, issuer=ISSUER)
    assert verified["sub"] == f"system:serviceaccount:{ns}:bot"
    # RBAC lets service accounts read it (system:service-account-issuer-discovery), not anonymous users
    assert srv.anonymous("GET", "/openid/v1/jwks").status_code == 403
    assert with_token(srv, token, "get", "--raw", "/openid/v1/jwks", check=True).stdout == jwks.text


def test_max_expiration_and_key_kept_across_restart(server_factory):
    server = server_factory(
        "--service-account-max-token-expiration=2h", "--service-account-issuer=https://issuer.example"
    )
    server.kubectl("create", "serviceaccount", "bot")
    res = server.kubectl("create", "token", "bot", "--duration=5h")
    assert res.stderr.strip() == "Warning: requested expiration of 18000 seconds shortened to 7200 seconds"
    token = res.stdout.strip()
    claims = payload(token)
    assert claims["exp"] - claims["iat"] == 7200 and claims["iss"] == "https://issuer.example"
    assert claims["aud"] == ["https://issuer.example"]
    assert whoami(server, token)["Username"] == "system:serviceaccount:default:bot"
    server.restart()
    assert whoami(server, token)["Username"] == "system:serviceaccount:default:bot"


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--service-account-issuer="], 2, "Error: service-account-issuer should not be an empty string"),
        (
            ["--service-account-max-token-expiration=10m"],
            2,
            "Error: the service-account-max-token-expiration must be between 1 hour and 2^32 seconds",
        ),
        (
            ["--service-account-signing-key-file=/nonexistent/sa.key"],
            1,
            "Error: failed to parse service-account-issuer-key-file: open /nonexistent/sa.key: no such file or directory",
        ),
    ],
)
def test_flag_errors(tmp_path, args, code, message):
    cmd = [sys.executable, "-m", "kube_apiserver", "--data-dir", str(tmp_path / "d"), "--secure-port", "1", *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert (res.returncode, res.stderr.strip().splitlines()[-1]) == (code, message)
