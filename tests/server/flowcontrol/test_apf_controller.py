"""The config controller's digest (seats per level, Dangling status, broken and missing objects, quiescing),
borrowing, the Retry-After tracker and the debug dumps."""

from __future__ import annotations

import copy

import pytest

from kube_apiserver.apis.flowcontrol import bootstrap
from kube_apiserver.apis.flowcontrol.defaults import DEFAULTERS
from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.endpoints.request_info import RequestInfo
from kube_apiserver.server.flowcontrol import debug
from kube_apiserver.server.flowcontrol.conc_alloc import (
    AllocationError,
    AllocProblemItem,
    Integrator,
    compute_concurrency_allocation,
)
from kube_apiserver.server.flowcontrol.controller import ConfigController
from kube_apiserver.server.flowcontrol.dropped import DroppedRequestsTracker
from kube_apiserver.server.flowcontrol.queueset import EXECUTING, WAITING
from kube_apiserver.server.flowcontrol.work_estimator import WorkEstimator

NOW = "2024-05-01T10:00:00Z"


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def bootstrap_objects() -> tuple[list[dict], list[dict]]:
    return (
        bootstrap.mandatory_priority_levels() + bootstrap.suggested_priority_levels(),
        bootstrap.mandatory_flow_schemas() + bootstrap.suggested_flow_schemas(),
    )


def limited(name: str, shares: int, lendable: int | None = None, borrowing: int | None = None, **queuing) -> dict:
    spec: dict = {"nominalConcurrencyShares": shares, "limitResponse": {"type": "Reject"}}
    if queuing:
        spec["limitResponse"] = {"type": "Queue", "queuing": queuing}
    if lendable is not None:
        spec["lendablePercent"] = lendable
    if borrowing is not None:
        spec["borrowingLimitPercent"] = borrowing
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": name},
        "spec": {"type": "Limited", "limited": spec},
    }


def flow_schema(name: str, pl: str, user: str = "alice", precedence: int = 500) -> dict:
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": {
            "priorityLevelConfiguration": {"name": pl},
            "matchingPrecedence": precedence,
            "rules": [
                {
                    "subjects": [{"kind": "User", "user": {"name": user}}],
                    "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                }
            ],
        },
    }


def test_bootstrap_objects_are_defaulted_and_named_as_kube_1_33():
    pls, fss = bootstrap_objects()
    for obj in pls + fss:
        defaulted = copy.deepcopy(obj)
        DEFAULTERS[("v1", obj["kind"])](defaulted)
        assert defaulted == obj
        assert obj["metadata"]["annotations"] == {"apf.kubernetes.io/autoupdate-spec": "true"}
    assert sorted(o["metadata"]["name"] for o in pls) == [
        "catch-all",
        "exempt",
        "global-default",
        "leader-election",
        "node-high",
        "system",
        "workload-high",
        "workload-low",
    ]
    assert {o["metadata"]["name"]: o["spec"]["matchingPrecedence"] for o in fss} == {
        "exempt": 1,
        "probes": 2,
        "system-leader-election": 100,
        "endpoint-controller": 150,
        "workload-leader-election": 200,
        "system-node-high": 400,
        "system-nodes": 500,
        "kube-controller-manager": 800,
        "kube-scheduler": 800,
        "kube-system-service-accounts": 900,
        "service-accounts": 9000,
        "global-default": 9900,
        "catch-all": 10000,
    }


def test_seats_of_the_bootstrap_levels():
    c = ConfigController(600)
    c.digest(*bootstrap_objects())
    seats = {n: (s.nominal_cl, s.min_cl, s.max_cl) for n, s in c.priority_levels.items()}
    # NominalCL = ceil(600 * NCS / 245); lower = nominal - round(nominal * lendable%); upper = nominal + 600
    assert seats == {
        "exempt": (0, 0, 600),
        "catch-all": (13, 13, 613),
        "system": (74, 50, 674),
        "node-high": (98, 73, 698),
        "leader-election": (25, 25, 625),
        "workload-high": (98, 49, 698),
        "workload-low": (245, 24, 845),
        "global-default": (49, 24, 649),
    }
    assert c.nominal_cl_sum == 602
    # the current limits share the nominal sum, each at least its lower bound
    assert sum(s.current_cl for s in c.priority_levels.values()) == pytest.approx(602, abs=len(seats))
    assert all(s.min_cl <= s.current_cl <= s.max_cl for s in c.priority_levels.values())


def test_dangling_status_and_missing_objects():
    c = ConfigController(100, now_rfc3339=lambda: NOW)
    # nothing yet: the mandatory levels and schemas are imagined
    assert sorted(c.priority_levels) == ["catch-all", "exempt"]
    assert [f.name for f in c.flow_schemas] == ["exempt", "catch-all"]
    pls, fss = bootstrap_objects()
    updates = c.digest(pls, [*fss, flow_schema("alice", "tiny")])
    assert [u.name for u in updates] == [o["metadata"]["name"] for o in fss] + ["alice"]
    by_name = {u.name: u.condition for u in updates}
    assert by_name["alice"] == {
        "type": "Dangling",
        "status": "True",
        "lastTransitionTime": NOW,
        "reason": "NotFound",
        "message": 'This FlowSchema references the PriorityLevelConfiguration object named "tiny" but there is no such object',
    }
    assert by_name["probes"] == {
        "type": "Dangling",
        "status": "False",
        "lastTransitionTime": NOW,
        "reason": "Found",
        "message": 'This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists',
    }
    alice = UserInfo("alice", groups=("system:authenticated",))
    info = RequestInfo(verb="get", path="/version")
    assert c.match(alice, info)[0].name == "global-default"  # a dangling schema is not used
    # with its level created, it is used, and the status flips; statuses already right are left alone
    fss_with_status = []
    for obj in [*fss, flow_schema("alice", "tiny")]:
        obj = copy.deepcopy(obj)
        obj["status"] = {"conditions": [by_name[obj["metadata"]["name"]]]}
        fss_with_status.append(obj)
    updates = c.digest([*pls, limited("tiny", 1)], fss_with_status)
    assert [(u.name, u.condition["status"], u.condition["reason"]) for u in updates] == [("alice", "False", "Found")]
    assert c.match(alice, info)[0].name == "alice"


def test_broken_priority_levels_are_ignored():
    c = ConfigController(100)
    exempt_named_wrong = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": "free"},
        "spec": {"type": "Exempt", "exempt": {}},
    }
    broken = [
        limited("bad-hand", 5, queues=4, handSize=5, queueLengthLimit=10),
        limited("bad-queues", 5, queues=0, handSize=1, queueLengthLimit=10),
        limited("bad-shares", "many"),  # type: ignore[arg-type]
        exempt_named_wrong,
        {"kind": "PriorityLevelConfiguration", "metadata": {"name": "no-spec"}},
    ]
    c.digest(broken + [limited("good", 5)], [])
    assert sorted(c.priority_levels) == ["catch-all", "exempt", "good"]


def test_jail_level_and_queuing_level_concurrency():
    c = ConfigController(20)
    pls, fss = bootstrap_objects()
    c.digest([*pls, limited("tiny", 1, lendable=0, borrowing=0, queues=1, handSize=1, queueLengthLimit=1)], fss)
    tiny = c.priority_levels["tiny"]
    # ceil(20 * 1 / 246) = 1, nothing to lend nor to borrow: the limit stays at 1 whatever the demand
    assert (tiny.nominal_cl, tiny.min_cl, tiny.max_cl, tiny.current_cl) == (1, 1, 1, 1)
    assert tiny.queues is not None and tiny.queues.concurrency_limit == 1
    c.update_borrowing()
    assert tiny.current_cl == 1


def test_borrowing_follows_demand():
    clock = Clock()
    c = ConfigController(100, clock=clock)
    pls = bootstrap.mandatory_priority_levels() + [
        limited("lender", 50, lendable=100, queues=1, handSize=1, queueLengthLimit=100),
        limited("borrower", 50, lendable=0, queues=1, handSize=1, queueLengthLimit=100),
    ]
    c.digest(pls, [])
    borrower, lender = c.priority_levels["borrower"], c.priority_levels["lender"]
    assert (borrower.nominal_cl, lender.nominal_cl, lender.min_cl, borrower.min_cl) == (48, 48, 0, 48)
    # nobody asks for anything: the seats go by the levels' lower bounds, the lender lends them all
    assert (lender.current_cl, borrower.current_cl, c.priority_levels["catch-all"].current_cl) == (0, 91, 10)
    qs = lender.queues
    assert qs is not None
    reqs = [qs.start_request(1, 0, "fs", "f")[0] for _ in range(90)]
    assert all(r is not None and r.state == WAITING for r in reqs)
    clock.t += 10
    c.update_borrowing()
    # the lender wanted 90 seats over the whole period: it takes its nominal seats back
    assert (lender.current_cl, borrower.current_cl, c.priority_levels["catch-all"].current_cl) == (48, 48, 5)
    assert sum(r is not None and r.state == EXECUTING for r in reqs) == 48


def test_removed_level_drains_then_goes():
    c = ConfigController(100)
    c.digest([limited("temp", 10, queues=1, handSize=1, queueLengthLimit=5)], [flow_schema("fs", "temp")])
    temp = c.priority_levels["temp"]
    assert temp.queues is not None
    req, _ = temp.queues.start_request(1, 0, "fs", "")
    assert req is not None
    updates = c.digest([], [flow_schema("fs", "temp")])
    assert temp.quiescing and "temp" in c.priority_levels
    assert updates[0].condition["status"] == "True"  # no new request goes to a quiescing level
    assert [f.name for f in c.flow_schemas] == ["exempt", "catch-all"]
    assert not c.dirty.is_set()
    temp.queues.finish_request(req)
    c.note_idle(temp)
    assert c.dirty.is_set()
    c.digest([], [])
    assert "temp" not in c.priority_levels


def test_concurrency_allocation():
    items = [AllocProblemItem(10, 0, 100), AllocProblemItem(30, 0, 100)]
    allocs, prop = compute_concurrency_allocation(80, items)
    assert allocs == pytest.approx([20, 60]) and prop == pytest.approx(2)
    # bounds bind: the second stops at its upper bound, the rest goes by target to the others
    allocs, _ = compute_concurrency_allocation(80, [AllocProblemItem(10, 0, 100), AllocProblemItem(30, 0, 40)])
    assert allocs == pytest.approx([40, 40])
    allocs, _ = compute_concurrency_allocation(10, [AllocProblemItem(5, 5, 10), AllocProblemItem(5, 5, 10)])
    assert allocs == [5, 5]
    # a zero target counts as tiny, not as nothing
    allocs, _ = compute_concurrency_allocation(10, [AllocProblemItem(0, 0, 10), AllocProblemItem(0, 0, 10)])
    assert allocs == pytest.approx([5, 5])
    with pytest.raises(AllocationError) as e:
        compute_concurrency_allocation(5, [AllocProblemItem(5, 4, 10), AllocProblemItem(5, 4, 10)])
    assert str(e.value) == "lower bounds sum to 8.0, which is higher than the required sum of 5"
    with pytest.raises(AllocationError) as e:
        compute_concurrency_allocation(5, [AllocProblemItem(1, 2, 10)])
    assert str(e.value) == "target 0 is 1, which is below its lower bound of 2"


def test_integrator():
    clock = Clock()
    integ = Integrator(clock)
    integ.set(4)
    clock.t += 1
    integ.set(0)
    clock.t += 1
    r = integ.reset()
    assert (r.duration, r.average, r.deviation, r.max) == (2, 2, 2, 4)
    clock.t += 2
    r = integ.reset()
    assert (r.average, r.deviation, r.max) == (0, 0, 0)


def test_retry_after_grows_under_drops_and_shrinks_after():
    now = [100.0]
    t = DroppedRequestsTracker(lambda: now[0])
    assert t.retry_after("pl") == 1
    for _ in range(3):
        t.record_dropped_request("pl")
    assert t.retry_after("pl") == 1  # only reconsidered in a new second
    now[0] = 101
    t.record_dropped_request("pl")
    assert t.retry_after("pl") == 2  # 3 drops in the last 1 s >= 3 x 1
    for _ in range(5):
        t.record_dropped_request("pl")
    now[0] = 102
    t.record_dropped_request("pl")
    assert t.retry_after("pl") == 2  # bumped less than retryAfter seconds ago
    now[0] = 103
    t.record_dropped_request("pl")
    assert t.retry_after("pl") == 4  # 7 drops in [101, 103) >= 6
    now[0] = 120
    t.record_dropped_request("pl")
    assert t.retry_after("pl") == 3  # nothing recent: down one second per new second of drops
    assert t.retry_after("other") == 1


def test_debug_dumps():
    c = ConfigController(100)
    c.digest([limited("tiny", 1, queues=2, handSize=1, queueLengthLimit=5)], [])
    tiny = c.priority_levels["tiny"]
    assert tiny.queues is not None
    tiny.queues.set_configuration(tiny.spec.queuing, 1)
    running, _ = tiny.queues.start_request(1, 0, "fs", "alice")
    waiting, _ = tiny.queues.start_request(1, 0, "fs", "alice")
    assert running is not None and waiting is not None and waiting.state == WAITING
    assert debug.dump_priority_levels(c).splitlines() == [
        "PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests",
        "tiny,              1,            false,  false,       1,               1",
        "exempt,            0,            true,   false,       0,               0",
        "catch-all,         0,            true,   false,       0,               0",
    ]
    requests = debug.dump_requests(c).splitlines()
    assert requests[0].startswith("PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue,")
    assert [cell.strip() for cell in requests[1].split(",")[:5]] == ["tiny", "fs", "0", "0", "alice"]
    assert len(debug.dump_queues(c).splitlines()) == 1 + 2


def test_list_seats_by_objects_stored():
    c = ConfigController(600)
    c.digest(*bootstrap_objects())
    limits = {name: s.max_seats for name, s in c.priority_levels.items()}
    # ceil(15% of nominal), at most nominal / handSize; none for levels without queues
    assert limits == {
        "exempt": 0,
        "catch-all": 0,
        "system": 12,
        "node-high": 15,
        "leader-election": 4,
        "workload-high": 15,
        "workload-low": 37,
        "global-default": 8,
    }
    counts = {("", "configmaps"): 250, ("", "pods"): 5000, ("apps", "deployments"): 0}
    estimator = WorkEstimator(lambda group, resource: counts.get((group, resource), 0))

    def seats(verb: str, group: str, resource: str, level: str) -> int:
        info = RequestInfo(is_resource_request=True, verb=verb, api_group=group, resource=resource)
        return estimator.seats(info, limits[level])

    assert seats("list", "", "configmaps", "global-default") == 3
    assert seats("list", "", "pods", "global-default") == 8
    assert seats("list", "", "pods", "workload-low") == 10  # never more than 10
    assert seats("list", "", "pods", "catch-all") == 10
    assert seats("list", "apps", "deployments", "global-default") == 1
    assert seats("get", "", "pods", "global-default") == 1
    assert WorkEstimator().seats(RequestInfo(verb="list"), 8) == 1
