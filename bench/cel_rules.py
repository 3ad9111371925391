"""x-kubernetes-validations rules evaluated per second on one core, the way a custom resource write runs
them: the CRD's validator walks the object, converts each rule-bearing node to CEL values, charges the
runtime cost budget and evaluates the compiled program. Target (issue 5): >= 20,000 simple rules/s.

The ceiling printed beside it is the bare library in the same run: cel-expr-python evaluating the same
compiled program on the same plain dict, with nothing around it.

    python bench/cel_rules.py [--seconds 3] [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import calls_per_second, print_profile  # noqa: E402

from kube_apiserver.apiextensions.schema.cel.validation import new_validator, validate  # noqa: E402

RULES = [
    "self.replicas <= self.maxReplicas",
    "self.minReplicas <= self.replicas",
    "self.mode in ['fast', 'slow']",
    "self.name.startsWith('app-')",
]

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "minReplicas": {"type": "integer"},
                "maxReplicas": {"type": "integer"},
                "mode": {"type": "string", "maxLength": 10},
                "name": {"type": "string", "maxLength": 63},
            },
            "x-kubernetes-validations": [{"rule": r} for r in RULES],
        }
    },
}

OBJ = {
    "apiVersion": "example.com/v1",
    "kind": "Scaler",
    "metadata": {"name": "bench", "namespace": "default"},
    "spec": {"replicas": 3, "minReplicas": 1, "maxReplicas": 5, "mode": "fast", "name": "app-bench"},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--quick", action="store_true", help="1 second per measurement")
    ap.add_argument("--profile", action="store_true", help="cProfile of the validator")
    args = ap.parse_args()
    seconds = 1.0 if args.quick else args.seconds

    validator = new_validator(SCHEMA)
    assert validator is not None
    assert validate(validator, OBJ) == [], "the bench object must pass its rules"
    spec_rules = validator.properties["spec"].rules
    programs = [r.program for r in spec_rules]
    spec = OBJ["spec"]

    def ours() -> None:
        validate(validator, OBJ)

    def bare() -> None:
        for p in programs:
            p.expression.eval(data={"self": spec})

    n = len(RULES)
    ours_rate = calls_per_second(ours, seconds) * n
    bare_rate = calls_per_second(bare, seconds) * n
    print(f"rules per object: {n} (simple comparisons and string checks on spec)")
    print(f"x-kubernetes-validations: {ours_rate:,.0f} rules/s   (target >= 20,000)")
    print(f"bare cel-expr-python:     {bare_rate:,.0f} rules/s   (ceiling, same programs and data)")
    print(f"ratio: {ours_rate / bare_rate:.2f} of the ceiling")
    if args.profile:
        print_profile(ours, 20_000)


if __name__ == "__main__":
    main()
