"""The parameters of the API operations, as kube-apiserver's installer declares them (the query
parameters come from the fields of ListOptions, CreateOptions, DeleteOptions, ... and the connect
options of pods/exec, pods/log, ...), with the descriptions kube serves.

`shared` is the name under which kube's /openapi/v2 lists a parameter in its top-level "parameters"
section (kube-openapi names a parameter after its JSON's hash); "" keeps it inline in every operation,
as kube does for dryRun and fieldValidation, which kubectl looks for by name to decide whether the
server supports dry-run and server-side field validation.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    name: str
    location: str  # "query", "path" or "body"
    # shared: kube's name in the v2 "parameters" section; AUTO: shared under a name made the way
    # kube-openapi makes it (<name>-<hash of the parameter>) for parameters newer than the names known here.
    type: str = "string"  # "string", "integer", "boolean"; for a body: the definition name
    description: str = ""
    required: bool = False
    shared: str = ""

    def sort_key(self) -> tuple[str, str]:
        return (self.name, self.location)


AUTO = "*"


def _q(name: str, type_: str, description: str, shared: str = "") -> Param:
    return Param(name, "query", type_, description, shared=shared)


PRETTY = _q(
    "pretty",
    "string",
    "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a "
    "browser or command-line HTTP tool (curl and wget).",
    "pretty-tJGM1-ng",
)
NAMESPACE = Param(
    "namespace",
    "path",
    "string",
    "object name and auth scope, such as for teams and projects",
    required=True,
    shared="namespace-vgWSWtn3",
)


def name_param(kind: str) -> Param:
    return Param("name", "path", "string", f"name of the {kind}", required=True)


PATH_PATH = Param("path", "path", "string", "path to the resource", required=True, shared="path-z6Ciiujn")

LIST: tuple[Param, ...] = (
    _q(
        "allowWatchBookmarks",
        "boolean",
        'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement '
        "bookmarks may ignore this flag and bookmarks are sent at the server's discretion. Clients should not "
        "assume bookmarks are returned at any specific interval, nor may they assume the server will send any "
        "BOOKMARK event during a session. If this is not a watch, this field is ignored.",
        "allowWatchBookmarks-HC2hJt-J",
    ),
    _q(
        "continue",
        "string",
        "The continue option should be set when retrieving more results from the server. Since this value is "
        "server defined, clients may only use the continue value from a previous query result with identical "
        "query parameters (except for the value of continue) and the server may reject a continue value it does "
        "not recognize. If the specified continue value is no longer valid whether due to expiration (generally "
        "five to fifteen minutes) or a configuration change on the server, the server will respond with a 410 "
        "ResourceExpired error together with a continue token. If the client needs a consistent list, it must "
        "restart their list without the continue field. Otherwise, the client may send another list request "
        "with the token received with the 410 error, the server will respond with a list starting from the next "
        "key, but from the latest snapshot, which is inconsistent from the previous list results - objects that "
        "are created, modified, or deleted after the first list request will be included in the response, as "
        'long as their keys are after the "next key".\n\nThis field is not supported when watch is true. '
        "Clients may start a watch from the last resourceVersion value returned by the server and not miss any "
        "modifications.",
        "continue-QfD61s0i",
    ),
    _q(
        "fieldSelector",
        "string",
        "A selector to restrict the list of returned objects by their fields. Defaults to everything.",
        "fieldSelector-xIcQKXFG",
    ),
    _q(
        "labelSelector",
        "string",
        "A selector to restrict the list of returned objects by their labels. Defaults to everything.",
        "labelSelector-5Zw57w4C",
    ),
    _q(
        "limit",
        "integer",
        "limit is a maximum number of responses to return for a list call. If more items exist, the server will "
        "set the `continue` field on the list metadata to a value that can be used with the same initial query "
        "to retrieve the next set of results. Setting a limit may return fewer than the requested amount of "
        "items (up to zero items) in the event all requested objects are filtered out and clients should only "
        "use the presence of the continue field to determine whether more results are available. Servers may "
        "choose not to support the limit argument and will return all of the available results. If limit is "
        "specified and the continue field is empty, clients may assume that no more results are available. This "
        "field is not supported if watch is true.\n\nThe server guarantees that the objects returned when using "
        "continue will be identical to issuing a single list call without a limit - that is, no objects "
        "created, modified, or deleted after the first request is issued will be included in any subsequent "
        "continued requests. This is sometimes referred to as a consistent snapshot, and ensures that a client "
        "that is using limit to receive smaller chunks of a very large result can ensure they see all possible "
        "objects. If objects are updated during a chunked list the version of the object that was present at "
        "the time the first list result was calculated is returned.",
        "limit-1NfNmdNH",
    ),
    _q(
        "resourceVersion",
        "string",
        "resourceVersion sets a constraint on what resource versions a request may be served from. See "
        "https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\n"
        "Defaults to unset",
        "resourceVersion-5WAnf1kx",
    ),
    _q(
        "resourceVersionMatch",
        "string",
        "resourceVersionMatch determines how resourceVersion is applied to list calls. It is highly recommended "
        "that resourceVersionMatch be set for list calls where resourceVersion is set See "
        "https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\n"
        "Defaults to unset",
        "resourceVersionMatch-t8XhRHeC",
    ),
    _q(
        "sendInitialEvents",
        "boolean",
        "`sendInitialEvents=true` may be set together with `watch=true`. In that case, the watch stream will "
        "begin with synthetic events to produce the current state of objects in the collection. Once all such "
        'events have been sent, a synthetic "Bookmark" event  will be sent. The bookmark will report the '
        "ResourceVersion (RV) corresponding to the set of objects, and be marked with "
        '`"k8s.io/initial-events-end": "true"` annotation. Afterwards, the watch stream will proceed as usual, '
        "sending watch events corresponding to changes (subsequent to the RV) to objects watched.\n\nWhen "
        "`sendInitialEvents` option is set, we require `resourceVersionMatch` option to also be set. The "
        "semantic of the watch request is as following: - `resourceVersionMatch` = NotOlderThan\n  is "
        'interpreted as "data at least as new as the provided `resourceVersion`"\n  and the bookmark event is '
        "send when the state is synced\n  to a `resourceVersion` at least as fresh as the one provided by the "
        'ListOptions.\n  If `resourceVersion` is unset, this is interpreted as "consistent read" and the\n  '
        "bookmark event is send when the state is synced at least to the moment\n  when request started being "
        "processed.\n- `resourceVersionMatch` set to any other value or unset\n  Invalid error is returned.\n\n"
        'Defaults to true if `resourceVersion=""` or `resourceVersion="0"` (for backward compatibility reasons) '
        "and to false otherwise.",
        "sendInitialEvents-rLXlEK_k",
    ),
    _q(
        "timeoutSeconds",
        "integer",
        "Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or "
        "inactivity.",
        "timeoutSeconds-yvYezaOC",
    ),
    _q(
        "watch",
        "boolean",
        "Watch for changes to the described resources and return them as a stream of add, update, and remove "
        "notifications. Specify resourceVersion.",
        "watch-XNNPZGbK",
    ),
)
# deletecollection takes ListOptions less these two.
LIST_FOR_DELETE = tuple(p for p in LIST if p.name not in ("watch", "allowWatchBookmarks"))

DRY_RUN = _q(
    "dryRun",
    "string",
    "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun "
    "directive will result in an error response and no further processing of the request. Valid values are: "
    "- All: all dry run stages will be processed",
)
FIELD_MANAGER = _q(
    "fieldManager",
    "string",
    "fieldManager is a name associated with the actor or entity that is making these changes. The value must "
    "be less than or 128 characters long, and only contain printable characters, as defined by "
    "https://golang.org/pkg/unicode/#IsPrint.",
    "fieldManager-Qy4HdaTW",
)
FIELD_MANAGER_PATCH = _q(
    "fieldManager",
    "string",
    FIELD_MANAGER.description + " This field is required for apply requests (application/apply-patch) but "
    "optional for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch).",
    "fieldManager-7c6nTn1T",
)
FIELD_VALIDATION = _q(
    "fieldValidation",
    "string",
    "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing "
    "unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are "
    "silently dropped from the object, and will ignore all but the last duplicate field that the decoder "
    "encounters. This is the default behavior prior to v1.23. - Warn: This will send a warning via the "
    "standard warning response header for each unknown field that is dropped from the object, and for each "
    "duplicate field that is encountered. The request will still succeed if there are no other errors, and "
    "will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will "
    "fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if "
    "any duplicate fields are present. The error returned from the server will contain all unknown and "
    "duplicate fields encountered.",
)
FORCE = _q(
    "force",
    "boolean",
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other '
    "people. Force flag must be unset for non-apply patch requests.",
    "force-tOGGb0Yi",
)
CREATE: tuple[Param, ...] = (DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION)
UPDATE = CREATE
PATCH: tuple[Param, ...] = (DRY_RUN, FIELD_MANAGER_PATCH, FIELD_VALIDATION, FORCE)
DELETE: tuple[Param, ...] = (
    DRY_RUN,
    _q(
        "gracePeriodSeconds",
        "integer",
        "The duration in seconds before the object should be deleted. Value must be non-negative integer. The "
        "value zero indicates delete immediately. If this value is nil, the default grace period for the "
        "specified type will be used. Defaults to a per object value if not specified. zero means delete "
        "immediately.",
        "gracePeriodSeconds--K5HaBOS",
    ),
    _q(
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "boolean",
        "if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow "
        "fails with a corrupt object error. A resource is considered corrupt if it can not be retrieved from the "
        "underlying storage successfully because of a) its data can not be transformed e.g. decryption failure, "
        "or b) it fails to decode into an object. NOTE: unsafe deletion ignores finalizer constraints, skips "
        "precondition checks, and removes the object from the storage. WARNING: This may potentially break the "
        "cluster if the workload associated with the resource being unsafe-deleted relies on normal deletion "
        "flow. Use only if you REALLY know what you are doing. The default value is false, and the user must opt "
        "in to enable it",
        AUTO,
    ),
    _q(
        "orphanDependents",
        "boolean",
        "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent "
        'objects be orphaned. If true/false, the "orphan" finalizer will be added to/removed from the object\'s '
        "finalizers list. Either this field or PropagationPolicy may be set, but not both.",
        "orphanDependents-uRB25kX5",
    ),
    _q(
        "propagationPolicy",
        "string",
        "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, "
        "but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers "
        "and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; "
        "'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a "
        "cascading policy that deletes all dependents in the foreground.",
        "propagationPolicy-6jk3prlO",
    ),
)

DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
PATCH_BODY = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
DELETE_BODY = Param("body", "body", DELETE_OPTIONS, shared="body-2Y1dVQaQ")
PATCH_BODY_PARAM = Param("body", "body", PATCH_BODY, required=True, shared="body-78PwaGsr")


def body_param(definition: str) -> Param:
    return Param("body", "body", definition, required=True)


# The connect options of the streaming subresources (PodExecOptions, PodAttachOptions, ...).
_STDIN_EXEC = _q(
    "stdin",
    "boolean",
    "Redirect the standard input stream of the pod for this call. Defaults to false.",
    "stdin-PSzNhyUC",
)
EXEC: tuple[Param, ...] = (
    _q(
        "command",
        "string",
        "Command is the remote command to execute. argv array. Not executed within a shell.",
        "command-Py3eQybp",
    ),
    _q(
        "container",
        "string",
        "Container in which to execute the command. Defaults to only container if there is only one container "
        "in the pod.",
        "container-i5dOmRiM",
    ),
    _q("stderr", "boolean", "Redirect the standard error stream of the pod for this call.", "stderr-W_1TNlWc"),
    _STDIN_EXEC,
    _q("stdout", "boolean", "Redirect the standard output stream of the pod for this call.", "stdout--EZLRwV1"),
    _q(
        "tty",
        "boolean",
        "TTY if true indicates that a tty will be allocated for the exec call. Defaults to false.",
        "tty-s0flW37O",
    ),
)
ATTACH: tuple[Param, ...] = (
    _q(
        "container",
        "string",
        "The container in which to execute the command. Defaults to only container if there is only one "
        "container in the pod.",
        "container-_Q-EJ3nR",
    ),
    _q(
        "stderr",
        "boolean",
        "Stderr if true indicates that stderr is to be redirected for the attach call. Defaults to true.",
        "stderr-26jJhFUR",
    ),
    _q(
        "stdin",
        "boolean",
        "Stdin if true, redirects the standard input stream of the pod for this call. Defaults to false.",
        "stdin-sEFnN3IS",
    ),
    _q(
        "stdout",
        "boolean",
        "Stdout if true indicates that stdout is to be redirected for the attach call. Defaults to true.",
        "stdout-005YMKE6",
    ),
    _q(
        "tty",
        "boolean",
        "TTY if true indicates that a tty will be allocated for the attach call. This is passed through the "
        "container runtime so the tty is allocated on the worker node by the container runtime. Defaults to "
        "false.",
        "tty-g7MlET_l",
    ),
)
PORTFORWARD: tuple[Param, ...] = (
    _q("ports", "integer", "List of ports to forward Required when using WebSockets", "ports-91KROJmm"),
)
_STREAM_NOTE = ' Note that when "TailLines" is specified, "Stream" can only be set to nil or "All".'
LOG: tuple[Param, ...] = (
    _q(
        "container",
        "string",
        "The container for which to stream logs. Defaults to only container if there is one container in the pod.",
        "container-1GeXxFDC",
    ),
    _q("follow", "boolean", "Follow the log stream of the pod. Defaults to false.", "follow-9OIXh_2R"),
    _q(
        "insecureSkipTLSVerifyBackend",
        "boolean",
        "insecureSkipTLSVerifyBackend indicates that the apiserver should not confirm the validity of the "
        "serving certificate of the backend it is connecting to.  This will make the HTTPS connection between "
        "the apiserver and the backend insecure. This means the apiserver cannot verify the log data it is "
        "receiving came from the real kubelet.  If the kubelet is configured to verify the apiserver's TLS "
        "credentials, it does not mean the connection to the real kubelet is vulnerable to a man in the middle "
        "attack (e.g. an attacker could not intercept the actual log data coming from the real kubelet).",
        "insecureSkipTLSVerifyBackend-gM00jVbe",
    ),
    _q(
        "limitBytes",
        "integer",
        "If set, the number of bytes to read from the server before terminating the log output. This may not "
        "display a complete final line of logging, and may return slightly more or slightly less than the "
        "specified limit.",
        "limitBytes-zwd1RXuc",
    ),
    _q("previous", "boolean", "Return previous terminated container logs. Defaults to false.", "previous-1jxDPu3y"),
    _q(
        "sinceSeconds",
        "integer",
        "A relative time in seconds before the current time from which to show logs. If this value precedes the "
        "time a pod was started, only logs since the pod start will be returned. If this value is in the "
        "future, no logs will be returned. Only one of sinceSeconds or sinceTime may be specified.",
        "sinceSeconds-vE2NLdnP",
    ),
    _q(
        "stream",
        "string",
        'Specify which container log stream to return to the client. Acceptable values are "All", "Stdout" and '
        '"Stderr". If not specified, "All" is used, and both stdout and stderr are returned interleaved.'
        + _STREAM_NOTE,
        AUTO,
    ),
    _q(
        "tailLines",
        "integer",
        "If set, the number of lines from the end of the logs to show. If not specified, logs are shown from the "
        "creation of the container or sinceSeconds or sinceTime." + _STREAM_NOTE,
        AUTO,
    ),
    _q(
        "timestamps",
        "boolean",
        "If true, add an RFC3339 or RFC3339Nano timestamp at the beginning of every line of log output. Defaults "
        "to false.",
        "timestamps-c17fW1w_",
    ),
)
PROXY_PATH: dict[str, Param] = {
    "Pod": _q("path", "string", "Path is the URL path to use for the current proxy request to pod.", "path-oPbzgLUj"),
    "Node": _q("path", "string", "Path is the URL path to use for the current proxy request to node.", "path-rFDtV0x9"),
    "Service": _q(
        "path",
        "string",
        "Path is the part of URLs that include service endpoints, suffixes, and parameters to use for the "
        "current proxy request to service. For example, the whole request URL is "
        "http://localhost/api/v1/namespaces/kube-system/services/elasticsearch-logging/_search?q=user:kimchy. "
        "Path is _search?q=user:kimchy.",
        "path-QCf0eosM",
    ),
}
