"""The static cost estimate of a checked expression: cel-go's checker.Cost with Kubernetes'
library.CostEstimator, so a rule's worst-case cost is the number kube-apiserver computes when it decides
whether a CRD's rule is too expensive.

Sizes of variable data (strings, lists, maps) come from a size estimator keyed by the node's path from
a variable (["self", "spec", "items", "@items", "name"]): for CRD rules, the schema's maxLength,
maxItems and maxProperties, or the most that fits in a request."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from kube_apiserver.runtime.cel.ast import CheckedAST, Expr, Type

MAX = 2**64 - 1
STRING_TRAVERSAL = 0.1
REGEX_LENGTH = 0.25
LIST_CREATE, MAP_CREATE, STRUCT_CREATE = 10, 30, 40


def _add(a: int, b: int) -> int:
    return min(a + b, MAX)


def _mul(a: int, b: int) -> int:
    return min(a * b, MAX)


def _factor(x: int, f: float) -> int:
    v = math.ceil(float(x) * f)
    return MAX if v >= 2**64 else int(v)


@dataclass(frozen=True)
class Est:
    """A (min, max) range, of a size or of a cost."""

    min: int
    max: int

    def add(self, o: Est) -> Est:
        return Est(_add(self.min, o.min), _add(self.max, o.max))

    def mul(self, o: Est) -> Est:
        return Est(_mul(self.min, o.min), _mul(self.max, o.max))

    def factor(self, f: float) -> Est:
        return Est(_factor(self.min, f), _factor(self.max, f))

    def union(self, o: Est) -> Est:
        return Est(min(self.min, o.min), max(self.max, o.max))


UNKNOWN = Est(0, MAX)
ONE = Est(1, 1)
ZERO = Est(0, 0)
SizeEstimator = Callable[[list[str]], "Est | None"]
_SCALARS = {"bool", "double", "duration", "int", "timestamp", "uint"}


@dataclass
class _Local:
    path: list[str] | None
    size: Est | None
    entry: tuple[str, Est, Est] | None = None


class Coster:
    def __init__(self, checked: CheckedAST, sizes: SizeEstimator, unknown: Est = UNKNOWN) -> None:
        self.ast = checked
        self.sizes = sizes
        self.unknown = unknown
        self.unknown_used = False  # whether some size was unbounded (then data sizes change the cost)
        self.paths: dict[int, list[str]] = {}
        self.computed: dict[int, Est] = {}
        self.entries: dict[int, tuple[str, Est, Est]] = {}
        self.locals: dict[str, list[_Local]] = {}

    # --- sizes ---

    def _type(self, e: Expr) -> Type:
        return self.ast.type_of(e)

    def _path(self, e: Expr) -> list[str] | None:
        if e.kind == "ident" and self.locals.get(e.name):
            return self.locals[e.name][-1].path
        return self.paths.get(e.id)

    def compute_size(self, e: Expr) -> Est | None:
        if e.id in self.computed:
            return self.computed[e.id]
        if e.kind == "const":
            v = e.value
            if isinstance(v, str):
                return Est(len(v), len(v))
            if isinstance(v, bytes):
                return Est(len(v), len(v))
            return ONE
        if e.kind == "list":
            return Est(len(e.args), len(e.args))
        if e.kind == "map":
            return Est(len(e.args), len(e.args))
        path = self._path(e)
        if path:
            est = self.sizes(path)
            if est is not None:
                self.computed[e.id] = est
                return est
        t = self._type(e)
        if t.kind in _SCALARS or (
            t.kind == "abstract" and t.name == "optional_type" and t.params and t.params[0].kind in _SCALARS
        ):
            return ONE
        if e.kind == "ident" and self.locals.get(e.name):
            return self.locals[e.name][-1].size
        return None

    def size(self, e: Expr | None) -> Est:
        found = self.compute_size(e) if e is not None else None
        if found is None:
            self.unknown_used = True
            return self.unknown
        return found

    def _entry(self, e: Expr) -> tuple[str, Est, Est] | None:
        if e.id in self.entries:
            return self.entries[e.id]
        if e.kind == "ident" and self.locals.get(e.name):
            return self.locals[e.name][-1].entry
        return None

    def _push(
        self, name: str, path: list[str] | None, size: Est | None, entry: tuple[str, Est, Est] | None = None
    ) -> None:
        self.locals.setdefault(name, []).append(_Local(path, size, entry))

    def _pop(self, name: str) -> None:
        self.locals[name].pop()

    # --- costs ---

    def cost(self, e: Expr | None) -> Est:
        if e is None:
            return ZERO
        k = e.kind
        if k == "const":
            return ZERO
        if k == "ident":
            self.paths[e.id] = self._path(e) if self.locals.get(e.name) else [e.name]  # type: ignore[assignment]
            return ONE
        if k == "select":
            return self._select(e)
        if k == "call":
            return self._call(e)
        if k == "list":
            total = ZERO
            item = Est(MAX, 0) if e.args else ZERO
            for a in e.args:
                total = total.add(self.cost(a))
                item = item.union(self.size(a))
            self.entries[e.id] = ("list", ONE, item)
            return total.add(Est(LIST_CREATE, LIST_CREATE))
        if k == "map":
            total = ZERO
            ks = Est(MAX, 0) if e.args else ZERO
            vs = Est(MAX, 0) if e.args else ZERO
            for key, val in zip(e.keys, e.args, strict=False):
                total = total.add(self.cost(key)).add(self.cost(val))
                ks, vs = ks.union(self.size(key)), vs.union(self.size(val))
            self.entries[e.id] = ("map", ks, vs)
            return total.add(Est(MAP_CREATE, MAP_CREATE))
        if k == "struct":
            total = ZERO
            for a in e.args:
                total = total.add(self.cost(a))
            return total.add(Est(STRUCT_CREATE, STRUCT_CREATE))
        if k == "comprehension":
            return self._bind(e) if self._is_bind(e) else self._comprehension(e)
        return ZERO

    def _select(self, e: Expr) -> Est:
        operand = e.operand
        if e.test_only:
            # has(): Kubernetes turns presence tests' own cost off (PresenceTestHasCost(false))
            return self.cost(operand)
        total = self.cost(operand)
        if operand is not None and self._type(operand).kind in ("map", "message", "type_param", "dyn"):
            total = total.add(ONE)
        base = self._path(operand) if operand is not None else None
        if base is not None:
            self.paths[e.id] = [*base, e.name]
        return total

    def _is_bind(self, e: Expr) -> bool:
        r, c = e.iter_range, e.loop_condition
        return (
            r is not None
            and r.kind == "list"
            and not r.args
            and c is not None
            and c.kind == "const"
            and c.value is False
            and e.accu_var not in ("@result", "__result__")
        )

    def _bind(self, e: Expr) -> Est:
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        init = e.accu_init
        self._push(
            e.accu_var,
            self._path(init) if init else None,
            self.compute_size(init) if init else None,
            self._entry(init) if init else None,
        )
        total = total.add(self.cost(e.result))
        self._pop(e.accu_var)
        if e.result is not None:
            s = self.compute_size(e.result)
            if s is not None:
                self.computed[e.id] = s
        return total

    def _comprehension(self, e: Expr) -> Est:
        rng = e.iter_range
        total = self.cost(rng).add(self.cost(e.accu_init))
        init = e.accu_init
        self._push(e.accu_var, None, self.compute_size(init) if init else None)
        entry = self._entry(rng) if rng is not None else None
        container = entry[0] if entry else (self._type(rng).kind if rng is not None else "dyn")
        path = self._path(rng) if rng is not None else None
        if e.iter_var2:
            self._push(
                e.name,
                [*path, "@indices" if container == "list" else "@keys"] if path else None,
                entry[1] if entry else None,
            )
            self._push(
                e.iter_var2,
                [*path, "@items" if container == "list" else "@values"] if path else None,
                entry[2] if entry else None,
            )
        elif container == "list":
            self._push(e.name, [*path, "@items"] if path else None, entry[2] if entry else None)
        else:
            self._push(e.name, [*path, "@keys"] if path else None, entry[1] if entry else None)
        loop = self.cost(e.loop_condition)
        step = self.cost(e.loop_step)
        self._pop(e.name)
        if e.iter_var2:
            self._pop(e.iter_var2)
        total = total.add(self.cost(e.result))
        self._pop(e.accu_var)
        count = self.size(rng)
        total = total.add(count.mul(step.add(loop)))
        if init is not None:
            if init.kind == "const":
                s = self.compute_size(init)
                if s is not None:
                    self.computed[e.id] = s
            elif init.kind in ("list", "map"):
                self.computed[e.id] = count
                if e.loop_step is not None and self._entry(e.loop_step) is not None:
                    self.entries[e.id] = self._entry(e.loop_step)  # type: ignore[assignment]
        return total

    def _call(self, e: Expr) -> Est:
        if e.name == "dyn" and e.args:
            c = self.cost(e.args[0])
            s = self.compute_size(e.args[0])
            if s is not None:
                self.computed[e.id] = s
            return ONE.add(c)
        arg_costs = [self.cost(a) for a in e.args]
        ids = self.ast.overloads.get(e.id) or []
        if not ids:
            return ZERO
        total = ZERO
        target = e.operand
        if target is not None:
            total = total.add(self.cost(target))
        fn = Est(MAX, 0)
        result_size: Est | None = None
        for oid in ids:
            c, rs = self._function_cost(e, oid, target, arg_costs)
            fn = fn.union(c)
            if rs is not None:
                result_size = rs if result_size is None else result_size.union(rs)
            if oid in ("index_list", "index_map") and e.args:
                ent = self._entry(e.args[0])
                result_size = ent[2] if ent else None
                base = self._path(e.args[0])
                if base is not None:
                    self.paths[e.id] = [*base, "@items" if oid == "index_list" else "@values"]
            if result_size is None:
                result_size = self.compute_size(e)
        if result_size is not None:
            self.computed[e.id] = result_size
        return total.add(fn)

    def _function_cost(self, e: Expr, oid: str, target: Expr | None, arg_costs: list[Est]) -> tuple[Est, Est | None]:
        args = e.args
        arg_sum = ZERO
        for c in arg_costs:
            arg_sum = arg_sum.add(c)
        k8s = self._kubernetes_cost(e.name, oid, target, args)
        if k8s is not None:
            return k8s[0].add(arg_sum), k8s[1]
        if oid in ("string_format",) and target is not None:
            return self.size(target).factor(STRING_TRAVERSAL).add(arg_sum), None
        if oid == "string_to_bytes" and len(args) == 1:
            sz = self.size(args[0])
            return sz.factor(STRING_TRAVERSAL).add(arg_sum), Est(sz.min, _mul(sz.max, 4))
        if oid == "bytes_to_string" and len(args) == 1:
            sz = self.size(args[0])
            return sz.factor(STRING_TRAVERSAL).add(arg_sum), Est(sz.min // 4, sz.max)
        if oid == "strings_quote" and len(args) == 1:
            sz = self.size(args[0])
            return sz.factor(STRING_TRAVERSAL).add(arg_sum), Est(sz.min + 2, _add(_mul(sz.max, 2), 2))
        if oid in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return self.size(args[0]).factor(STRING_TRAVERSAL).add(arg_sum), None
        if oid == "in_list" and len(args) == 2:
            return self.size(args[1]).factor(1).add(arg_sum), None
        if oid == "matches_string" and target is not None and len(args) == 1:
            s = self.size(target).add(ONE).factor(STRING_TRAVERSAL)
            r = self.size(args[0]).factor(REGEX_LENGTH)
            return s.mul(r).add(arg_sum), None
        if oid == "contains_string" and target is not None and len(args) == 1:
            s = self.size(target).factor(STRING_TRAVERSAL)
            sub = self.size(args[0]).factor(STRING_TRAVERSAL)
            return s.mul(sub).add(arg_sum), None
        if oid in ("logical_or", "logical_and") and len(arg_costs) == 2:
            lhs, rhs = arg_costs
            return Est(lhs.min, lhs.add(rhs).max), None
        if oid == "conditional" and len(args) == 3:
            size = self.size(args[1]).union(self.size(args[2]))
            a, b = self._entry(args[1]), self._entry(args[2])
            if a and b:
                self.entries[e.id] = (a[0], a[1].union(b[1]), a[2].union(b[2]))
            return arg_costs[0].add(arg_costs[1].union(arg_costs[2])), size
        if oid in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            size = self.size(args[0]).add(self.size(args[1]))
            a, b = self._entry(args[0]), self._entry(args[1])
            if a and b:
                self.entries[e.id] = (a[0], a[1].union(b[1]), a[2].union(b[2]))
            if oid == "add_list":
                return ONE.add(arg_sum), size
            return size.factor(STRING_TRAVERSAL).add(arg_sum), size
        if oid in _STRING_COMPARISONS and len(args) == 2:
            lhs, rhs = self.size(args[0]), self.size(args[1])
            smallest = min(lhs.max, rhs.max)
            return Est(1 if smallest > 0 else 0, smallest).factor(STRING_TRAVERSAL).add(arg_sum), None
        return ONE.add(arg_sum), None

    def _list_element_size(self, target: Expr) -> tuple[Type, Est] | None:
        t = self._type(target)
        if t.kind != "list" or not t.params:
            return None
        path = self._path(target)
        size = self.sizes([*path, "@items"]) if path else None
        if size is None:
            self.unknown_used = True
        return t.params[0], size or self.unknown

    def _kubernetes_cost(
        self, fn: str, oid: str, target: Expr | None, args: list[Expr]
    ) -> tuple[Est, Est | None] | None:
        """library.CostEstimator.EstimateCallCost."""
        if fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf") and target is not None:
            el = self._list_element_size(target)
            if el is not None:
                per = ONE
                if el[0].kind in ("string", "bytes"):
                    per = per.add(el[1].factor(STRING_TRAVERSAL))
                return self.size(target).mul(per), None
            return self.size(target).factor(STRING_TRAVERSAL), None
        if fn == "url" and len(args) == 1:
            return self.size(args[0]).factor(STRING_TRAVERSAL), None
        if fn in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            sz = self.size(target)
            return sz.factor(STRING_TRAVERSAL), sz
        if fn == "replace" and target is not None and len(args) >= 2:
            return self._replace_cost(target, args)
        if fn == "split" and target is not None:
            sz = self.size(target)
            top = sz.max
            if len(args) > 1 and args[1].kind == "const" and isinstance(args[1].value, int):
                top = max(args[1].value, 0)
            return sz.factor(2 * STRING_TRAVERSAL), Est(0, top)
        if fn == "join" and target is not None:
            lst = self.size(target)
            el = self._list_element_size(target)
            sz = lst.mul(el[1]) if el else ZERO
            if args:
                sep = self.size(args[0])
                sz = sz.add(sep.mul(Est(max(lst.min - 1, 0), max(lst.max - 1, 0) if lst.max < MAX else MAX - 1)))
            return sz.factor(STRING_TRAVERSAL), sz
        if fn in ("find", "findAll") and target is not None and args:
            sz = self.size(target)
            s = sz.add(ONE).factor(STRING_TRAVERSAL)
            r = self.size(args[0]).factor(REGEX_LENGTH)
            return s.mul(r), Est(0, sz.max)
        if fn == "ip":
            if oid == "cidr_ip" or target is not None:
                return ONE, None
            return None
        if fn in ("ip.isCanonical",) and target is not None and args:
            return self.size(args[0]).factor(2 * STRING_TRAVERSAL), None
        if fn in (
            "masked",
            "prefixLength",
            "family",
            "isUnspecified",
            "isLoopback",
            "isLinkLocalMulticast",
            "isLinkLocalUnicast",
        ):
            return ONE, None
        if fn in ("containsIP", "containsCIDR") and target is not None and args:
            sz = Est(4, 16)
            c = sz.add(sz).factor(STRING_TRAVERSAL)
            if fn == "containsCIDR":
                c = c.add(sz.factor(STRING_TRAVERSAL)).add(ONE)
            if oid in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
                c = c.add(self.size(args[0]).factor(STRING_TRAVERSAL))
            return c, None
        if fn in (
            "sign",
            "asInteger",
            "isInteger",
            "asApproximateFloat",
            "isGreaterThan",
            "isLessThan",
            "compareTo",
            "add",
            "sub",
        ):
            if oid.startswith("quantity_"):
                return ONE, None
        return None

    def _replace_cost(self, target: Expr, args: list[Expr]) -> tuple[Est, Est]:
        sz = self.size(target)
        old, new = self.size(args[0]), self.size(args[1])
        if old.min == 0:
            count_max, kept_max = (sz.max + 1 if sz.max < MAX else sz.max), sz.max
        elif new.max <= old.min:
            count_max, kept_max = 0, sz.max
        else:
            count_max, kept_max = math.ceil(sz.max / old.min), 0
        if old.max == 0:
            count_min, kept_min = (sz.min + 1 if sz.min < MAX else sz.min), sz.min
        elif old.max <= new.min:
            count_min, kept_min = 0, sz.min
        else:
            count_min, kept_min = math.ceil(sz.min / old.max), 0
        size = Est(count_min, min(count_max, MAX)).mul(new).add(Est(kept_min, kept_max))
        return sz.factor(2 * STRING_TRAVERSAL), size


_STRING_COMPARISONS = {
    "less_string",
    "greater_string",
    "less_equals_string",
    "greater_equals_string",
    "less_bytes",
    "greater_bytes",
    "less_equals_bytes",
    "greater_equals_bytes",
    "equals",
    "not_equals",
}


def estimate(checked: CheckedAST, sizes: SizeEstimator, unknown: Est = UNKNOWN) -> Est:
    """The (min, max) cost of evaluating the expression once. unknown: the size of values nothing bounds
    (computed strings and lists): unbounded when checking a rule, the size of the data when running it."""
    return Coster(checked, sizes, unknown).cost(checked.expr)


def estimate_dependence(checked: CheckedAST, sizes: SizeEstimator) -> tuple[Est, bool]:
    """The estimate, and whether any size was unbounded."""
    coster = Coster(checked, sizes)
    return coster.cost(checked.expr), coster.unknown_used
