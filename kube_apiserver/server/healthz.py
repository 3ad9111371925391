"""/healthz, /livez and /readyz with named checks (k8s.io/apiserver/pkg/server/healthz)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from kube_apiserver.endpoints.request import Request, send_text
from kube_apiserver.server.genericapiserver import GenericAPIServer

# A check returns None when healthy, else the reason (kept out of the response, as kube does).
Check = Callable[[], Awaitable[str | None]]


def install_health_checks(
    server: GenericAPIServer,
    checks: dict[str, Check],
    ready_checks: dict[str, Check],
    ready_first: dict[str, Check] | None = None,
    boot_sequence: dict[str, Check] | None = None,
    livez_grace_period: float = 0.0,
) -> None:
    """checks on all three paths; on /readyz also ready_first (before the post-start hooks, as kube lists
    etcd-readiness) and ready_checks (after them). boot_sequence (AddBootSequenceHealthChecks) go on all three
    after the hooks. On /livez the hooks and the boot-sequence checks pass until livez_grace_period has gone
    by since start (delayedHealthCheck), however they stand."""
    started = time.monotonic()
    boot = boot_sequence or {}

    def hook_checks() -> dict[str, Check]:
        # kube lists the delegates' hooks first (the apiextensions and kube-apiserver ones), the aggregator's last
        out: dict[str, Check] = {}
        for srv in reversed(server.chain()):
            for name, done in srv.post_start_done.items():

                async def check(done=done) -> str | None:  # noqa: B008
                    return None if done.is_set() else "not finished"

                out[f"poststarthook/{name}"] = check
        return out

    def delayed(named: dict[str, Check]) -> dict[str, Check]:
        if livez_grace_period <= 0:
            return named

        def wrap(check: Check) -> Check:
            async def in_grace() -> str | None:
                if time.monotonic() - started < livez_grace_period:
                    return None
                return await check()

            return in_grace

        return {name: wrap(check) for name, check in named.items()}

    def install(path: str, named: Callable[[], dict[str, Check]]) -> None:
        async def serve_all(req: Request) -> None:
            await _serve(req, path.strip("/"), named())

        async def serve_one(req: Request) -> None:
            name = req.path[len(path) + 1 :]
            all_checks = named()
            if name not in all_checks:
                await send_text(req.send, 404, "404 page not found\n")
                return
            reason = await all_checks[name]()
            await send_text(
                req.send,
                200 if reason is None else 500,
                "ok" if reason is None else f"internal server error: {reason}\n",
            )

        server.mux.handle(path, serve_all)
        server.mux.handle_prefix(path + "/", serve_one)

    install("/healthz", lambda: {**checks, **hook_checks(), **boot})
    install("/livez", lambda: {**checks, **delayed({**hook_checks(), **boot})})
    # the boot-sequence checks after the hooks, "shutdown" last, as kube lists them
    install("/readyz", lambda: {**checks, **(ready_first or {}), **hook_checks(), **boot, **ready_checks})


async def _serve(req: Request, kind: str, checks: dict[str, Check]) -> None:
    excluded = set(req.params("exclude"))
    verbose = "verbose" in req.query
    lines = []
    failed = False
    for name, check in checks.items():
        if name in excluded:
            lines.append(f"[+]{name} excluded: ok")
            continue
        reason = await check()
        if reason is None:
            lines.append(f"[+]{name} ok")
        else:
            failed = True
            lines.append(f"[-]{name} failed: reason withheld")
    unmatched = sorted(excluded - checks.keys())
    if unmatched:
        quoted = ", ".join(f'"{n}"' for n in unmatched)
        lines.append(f"warn: some health checks cannot be excluded: no matches for {quoted}")
    if failed:
        await send_text(req.send, 500, "\n".join(lines) + f"\n{kind} check failed\n")
    elif verbose:
        await send_text(req.send, 200, "\n".join(lines) + f"\n{kind} check passed\n")
    else:
        await send_text(req.send, 200, "ok")
