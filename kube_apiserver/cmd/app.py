"""kube-apiserver: options → completed config → create_server_chain() → run (cmd/kube-apiserver/app)."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import time

from kube_apiserver.apis.core.validation.security import Capabilities
from kube_apiserver.authentication.serviceaccount_getter import StoreTokenGetter
from kube_apiserver.cmd.options import Options, parse
from kube_apiserver.cmd.options_audit import AuditConfigError
from kube_apiserver.cmd.options_authentication import AuthenticationConfigError
from kube_apiserver.cmd.options_authentication_external import ExternalAuthenticationError
from kube_apiserver.cmd.options_authorization import AuthorizationConfigError
from kube_apiserver.controlplane.bootstrap import first_service_ip
from kube_apiserver.controlplane.cluster_authentication_trust import install_cluster_authentication_trust
from kube_apiserver.controlplane.event_ttl import EventExpirer
from kube_apiserver.controlplane.instance import ControlPlaneConfig, create_server_chain
from kube_apiserver.runtime import features
from kube_apiserver.server.certs import default_hosts, ensure_certificates, write_kubeconfig
from kube_apiserver.server.flowcontrol.apf_filter import install_priority_and_fairness
from kube_apiserver.server.handler_chain import ChainConfig, build_handler_chain
from kube_apiserver.server.serving import SecureServer
from kube_apiserver.storage.errors import StorageError
from kube_apiserver.storage.sqlite.store import SQLiteStorage, WriterProcess, spawn_writer
from kube_apiserver.storage.value.encryptionconfig import EncryptionConfigError

log = logging.getLogger("kube_apiserver")


def _advertise_address(opts: Options) -> str:
    if opts.advertise_address:
        return opts.advertise_address
    if opts.bind_address not in ("0.0.0.0", "::"):
        return opts.bind_address
    return "127.0.0.1"


def _client_ca_bundle(opts: Options, generated_ca: str) -> str:
    if not opts.authentication.client_ca_file:
        return generated_ca
    bundle = os.path.join(opts.data_dir, "pki", "client-ca-bundle.crt")
    with open(opts.authentication.client_ca_file, "rb") as f, open(generated_ca, "rb") as g, open(bundle, "wb") as out:
        out.write(f.read().rstrip() + b"\n" + g.read())
    return bundle


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


async def _compactor(storage: SQLiteStorage, interval: float) -> None:
    """Like kube's compactor: each interval, compact to the revision seen one interval before."""
    last = await storage.current_revision()
    while True:
        await asyncio.sleep(interval)
        cur = await storage.current_revision()
        if last > storage.compacted_revision:
            await storage.compact(last)
        last = cur


def _serving_files(opts: Options, generated_cert: str, generated_key: str) -> tuple[str, str]:
    """--tls-cert-file/--tls-private-key-file, else --cert-dir's apiserver.crt/apiserver.key when both are
    there (envtest writes its own), else the certificate generated under --data-dir/pki."""
    serving = opts.secure_serving
    if serving.tls_cert_file:
        return serving.tls_cert_file, serving.tls_private_key_file or generated_key
    if opts.cert_dir:
        cert, key = os.path.join(opts.cert_dir, "apiserver.crt"), os.path.join(opts.cert_dir, "apiserver.key")
        if os.path.isfile(cert) and os.path.isfile(key):
            return cert, key
    return generated_cert, generated_key


def _warn_unused(opts: Options) -> None:
    """Flags of kube-apiserver taken for its command lines' sake whose effect this server does not have."""
    if opts.etcd_servers:
        log.warning(
            "--etcd-servers=%s is not used: this server keeps its state in SQLite under %s",
            ",".join(opts.etcd_servers),
            opts.data_dir,
        )
    unknown = features.configure(opts.feature_gates)
    if unknown:
        gates = ",".join(f"{k}={str(opts.feature_gates[k]).lower()}" for k in sorted(unknown))
        log.warning(
            "--feature-gates=%s: not switchable here; this server runs with kube-apiserver 1.33's default feature "
            "gates, but for %s",
            gates,
            ",".join(f"{k}={str(v).lower()}" for k, v in sorted(features.DEFAULTS.items())),
        )
    if opts.runtime_config:
        config = ",".join(f"{k}={v}" for k, v in sorted(opts.runtime_config.items()))
        log.warning("--runtime-config=%s: this server serves the Kubernetes 1.33 GA APIs", config)
    not_run = opts.admission.not_run()
    if not_run:
        log.warning("--enable-admission-plugins: %s not run by this server", ",".join(not_run))


async def run(opts: Options) -> None:
    t0 = time.monotonic()
    os.makedirs(opts.data_dir, exist_ok=True)
    # The storage's writer process starts while certificates and options are prepared (~30 ms)
    state_db = os.path.join(opts.data_dir, "state.db")
    writer = spawn_writer(state_db)
    try:
        await _run(opts, t0, state_db, writer)
    finally:
        writer.abandon()  # an exit before the storage took it: the writer sees EOF and ends


async def _run(opts: Options, t0: float, state_db: str, writer: WriterProcess) -> None:
    advertise = _advertise_address(opts)
    service_ip = first_service_ip(opts.service_cluster_ip_range)
    hosts, ips = default_hosts(service_ip, advertise, opts.bind_address)
    certs = ensure_certificates(os.path.join(opts.data_dir, "pki"), hosts, ips)  # only adds missing files
    try:
        # The data dir is ours (the writer holds its lock) before anything in it is rewritten: a second
        # server on the same dir must not point admin.kubeconfig at itself, or remake the CA bundle.
        await writer.ready()
    except StorageError as e:
        sys.stderr.write(f"Error: {e}\n")
        raise SystemExit(1) from None
    cert_file, key_file = _serving_files(opts, certs.serving_cert, certs.serving_key)
    _warn_unused(opts)
    Capabilities.allow_privileged = opts.allow_privileged
    client_ca = _client_ca_bundle(opts, certs.ca_cert)
    host_for_clients = "127.0.0.1" if opts.bind_address in ("0.0.0.0", "127.0.0.1") else opts.bind_address
    if ":" in host_for_clients:
        host_for_clients = f"[{host_for_clients}]"
    server_url = f"https://{host_for_clients}:{opts.secure_port}"
    write_kubeconfig(
        os.path.join(opts.data_dir, "admin.kubeconfig"), server_url, certs.ca_cert, certs.admin_cert, certs.admin_key
    )

    opts.authorization.apply_to_authentication(opts.authentication)
    token_getter = StoreTokenGetter()  # reads the stores, bound once the server chain exists
    try:
        sa_config = opts.authentication.service_account_config(os.path.join(opts.data_dir, "pki"))
        authenticator = opts.authentication.to_authenticator(sa_config, token_getter)
    except AuthenticationConfigError as e:
        sys.stderr.write(f"Error: {e}\n")
        raise SystemExit(1) from None
    external = opts.external_authentication
    try:
        # OIDC, webhook and front proxy join the union; the TLS layer also accepts the front proxy's CA
        tls_client_ca = external.apply_to(
            authenticator,
            client_ca,
            opts.authentication.client_ca_file,
            os.path.join(opts.data_dir, "pki"),
            getattr(opts.authentication, "api_audiences", None) or (),
        )
    except ExternalAuthenticationError as e:
        sys.stderr.write(f"Error: {e}\n")
        raise SystemExit(1) from None
    try:
        audit_policy, audit_backend = opts.audit.to_config()
    except AuditConfigError as e:
        sys.stderr.write(f"Error: {e}\n")
        raise SystemExit(1) from None

    try:
        transformer_for = opts.encryption.to_transformer_for()
    except EncryptionConfigError as e:
        sys.stderr.write(f"Error: {e}\n")
        raise SystemExit(1) from None
    storage = SQLiteStorage(state_db, transformer_for=transformer_for, writer=writer)
    try:
        await storage.start()
    except StorageError as e:  # e.g. another kube-apiserver holds the data dir
        sys.stderr.write(f"Error: {e}\n")
        raise SystemExit(1) from None
    chain = create_server_chain(
        ControlPlaneConfig(
            storage=storage,
            service_cluster_ip_range=opts.service_cluster_ip_range,
            service_node_port_range=opts.service_node_port_range,
            advertise_address=advertise,
            secure_port=opts.secure_port,
            watch_cache_size=opts.default_watch_cache_size,
            server_address=f"{advertise}:{opts.secure_port}",
            service_accounts=sa_config,
            authenticator=authenticator,
            root_ca=_read(certs.ca_cert),
            namespace_deletion_grace_period=opts.namespace_deletion_grace_period,
            enable_garbage_collector=opts.enable_garbage_collector,
            livez_grace_period=opts.livez_grace_period,
            admission_plugins=opts.admission.run(),
            toleration_seconds=(
                opts.admission.default_not_ready_toleration_seconds,
                opts.admission.default_unreachable_toleration_seconds,
            ),
            event_ttl=opts.event_ttl,
        )
    )
    token_getter.bind(chain.stores)
    install_cluster_authentication_trust(
        chain.kube_apiserver, chain.stores, external.cluster_authentication_info(client_ca)
    )
    from kube_apiserver.endpoints.handlers import watch as watch_handler

    watch_handler.MIN_REQUEST_TIMEOUT = float(opts.min_request_timeout)
    await chain.start_cachers()
    try:
        authorizer = opts.authorization.to_authorizer(chain.rbac, chain.stores)
    except AuthorizationConfigError as e:
        sys.stderr.write(f"Error: {e}\n")
        raise SystemExit(1) from None
    flow_control = None
    if opts.flow_control.enable_priority_and_fairness:
        inflight, mutating = opts.max_requests_inflight, opts.max_mutating_requests_inflight
        problem = opts.flow_control.server_concurrency_limit_error(inflight, mutating)
        if problem:
            sys.stderr.write(f"Error: {problem}\n")
            raise SystemExit(1)
        flow_control = install_priority_and_fairness(
            chain.kube_apiserver, chain.aggregator.mux, chain.stores, inflight + mutating
        )
    app = build_handler_chain(
        chain.aggregator,
        ChainConfig(
            authenticator=authenticator,
            authorizer=authorizer,
            max_requests_inflight=opts.max_requests_inflight,
            max_mutating_requests_inflight=opts.max_mutating_requests_inflight,
            flow_control=flow_control,
            request_timeout=opts.request_timeout,
            cors_allowed_origins=opts.cors_allowed_origins,
            audit_policy=audit_policy,
            audit_backend=audit_backend,
        ),
    )
    if audit_backend is not None:
        audit_backend.run()

    async def on_shutdown() -> None:
        for server in chain.aggregator.chain():
            server.shutdown.set()  # readyz fails, watches end

    server = SecureServer(
        app,
        opts.bind_address,
        opts.secure_port,
        cert_file,
        key_file,
        tls_client_ca,
        on_shutdown,
        opts.shutdown_delay_duration,
        opts.secure_serving.min_version(),
        opts.secure_serving.openssl_ciphers(),
    )
    server.bind()
    started = asyncio.Event()
    serve_task = asyncio.create_task(server.serve(started))
    done, _ = await asyncio.wait({serve_task, asyncio.create_task(started.wait())}, return_when=asyncio.FIRST_COMPLETED)
    if serve_task in done:
        await serve_task
        return
    await chain.aggregator.run_post_start_hooks()
    compactor = asyncio.create_task(_compactor(storage, opts.etcd_compaction_interval))
    expirer = asyncio.create_task(EventExpirer(chain.stores[("", "v1", "events")], opts.event_ttl).run())
    reloader = asyncio.create_task(opts.encryption.run_reloader())
    cert_reloader = asyncio.create_task(server.reload_certificates())
    _settle_gc()
    log.warning(
        "Serving securely on %s:%d (started in %.2fs); kubeconfig: %s",
        opts.bind_address,
        opts.secure_port,
        time.monotonic() - t0,
        os.path.join(opts.data_dir, "admin.kubeconfig"),
    )
    try:
        await serve_task
    finally:
        compactor.cancel()
        expirer.cancel()
        reloader.cancel()
        await authenticator.close()
        cert_reloader.cancel()
        for c in chain.cachers:
            await c.stop()
        await storage.close()
        if audit_backend is not None:  # after the last request: flush what is buffered
            await asyncio.to_thread(audit_backend.shutdown)


# The cyclic collector's generation thresholds while serving (CPython's defaults are 700, 10, 10). Each
# request allocates a few hundred tracked objects, so the defaults ran a young collection every request
# or two and a full one over the whole watch cache every ~100: measured on bench/create_configmaps.py
# with 32 clients, p99 went from 61-105 ms to 24-29 ms. Cycles are rare here (refcounting frees nearly
# everything), so collecting less often costs little memory.
_SERVING_GC_THRESHOLDS = (10_000, 20, 20)


def _settle_gc() -> None:
    """Once ready: move what startup built (registries, schemas, bootstrap objects) out of the
    collector's sight for good, and collect less often from then on."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*_SERVING_GC_THRESHOLDS)


def main(argv: list[str] | None = None) -> None:
    opts = parse(argv)
    logging.basicConfig(
        level=logging.DEBUG if opts.v >= 4 else logging.INFO if opts.v >= 2 else logging.WARNING,
        format="%(levelname).1s%(asctime)s %(name)s] %(message)s",
    )
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:  # pragma: no cover
        runner = asyncio.run
    try:
        runner(run(opts))
    except OSError as e:
        sys.stderr.write(f"Error: {e}\n")
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
