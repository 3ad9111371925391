"""API Priority and Fairness flag (ServerRunOptions.EnablePriorityAndFairness)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from kube_apiserver.cmd.flag_types import bool_flag


@dataclass
class FlowControlOptions:
    enable_priority_and_fairness: bool

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> FlowControlOptions:
        return cls(ns.enable_priority_and_fairness)

    @staticmethod
    def server_concurrency_limit_error(max_requests_inflight: int, max_mutating_requests_inflight: int) -> str | None:
        """BuildPriorityAndFairness: the two in-flight limits are the server's seats and must add up to
        something positive."""
        if max_requests_inflight + max_mutating_requests_inflight <= 0:
            return (
                f"invalid configuration: MaxRequestsInFlight={max_requests_inflight} and "
                f"MaxMutatingRequestsInFlight={max_mutating_requests_inflight}; they must add up to something positive"
            )
        return None


def add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--enable-priority-and-fairness",
        type=bool_flag,
        default=True,
        nargs="?",
        const=True,
        help="If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness",
    )
