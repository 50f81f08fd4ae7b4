"""``kube``: a Kubernetes cluster as ``kubectl get nodes,deployments,services,pods -A -o json``
lists it: one ``List`` whose ``items`` are objects of several kinds (``kind``), each named by
``metadata.name`` within ``metadata.namespace``; labels with dotted, slashed keys
(``app.kubernetes.io/name``); resource quantities as strings with unit suffixes (``"250m"``,
``"1536Mi"``, ``"15186376Ki"``); a pod's node in ``spec.nodeName``, its restarts in
``status.containerStatuses``, a node's IP in ``status.addresses``. Tools take ``pod_name``,
``deployment`` and IPs; a service's endpoints is a join through its label selector to the pods
and on to their nodes' zones; a node's allocation is a sum of parsed quantities no object
holds; scaling a deployment changes its spec and generation."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
    summary,
)
from benchmarks.zoo.kube_objects import (
    NAME_LABEL,
    NAMESPACES,
    TYPE_LABEL,
    ZONE_LABEL,
    cluster,
    mebibytes,
    millicores,
)
from benchmarks.zoo.shape import Shape

PHASES = ["Pending", "Running", "Succeeded", "Failed"]
ACTIVE = ("Pending", "Running")
"""The phases whose pods hold their requests on a node."""
ALLOCATION = {
    "type": "object",
    "properties": {
        "pods": {"type": "integer"},
        "cpu_requests_millicores": {"type": "integer"},
        "memory_requests_mib": {"type": "number"},
    },
}
"""The output schema of ``node_allocation``."""


def _of(state: State, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [(n, o) for n, o in enumerate(state["items"]) if o["kind"] == kind]


def _container_status(pod: dict[str, Any]) -> dict[str, Any]:
    statuses: list[dict[str, Any]] = pod["status"].get("containerStatuses", [{}])
    return statuses[0]


def _pod_view(pod: dict[str, Any]) -> dict[str, Any]:
    """A pod's fields as ``kubectl get pods`` columns show them."""
    meta = pod["metadata"]
    return {
        "name": meta["name"],
        "namespace": meta["namespace"],
        "app": meta["labels"].get(NAME_LABEL),
        "phase": pod["status"]["phase"],
        "node": pod["spec"].get("nodeName"),
        "restarts": _container_status(pod).get("restartCount"),
        "image": pod["spec"]["containers"][0]["image"],
        "created": meta["creationTimestamp"],
    }


def _pods(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(p["metadata"]["name"], _pod_view(p)) for _, p in _of(state, "Pod")]


def _listed(key: str, view: dict[str, Any]) -> dict[str, Any]:
    return {k: view[k] for k in ("name", "namespace", "phase", "node", "restarts")}


def _allocation(state: State, args: dict[str, Any]) -> Answer:
    hosts = [o for _, o in _of(state, "Node") if o["metadata"]["name"] == args["node"]]
    if not hosts:
        raise ToolError(f'nodes "{args["node"]}" not found')
    pods = [
        p
        for _, p in _of(state, "Pod")
        if p["spec"].get("nodeName") == args["node"] and p["status"]["phase"] in ACTIVE
    ]
    requests = [c["resources"].get("requests", {}) for p in pods for c in p["spec"]["containers"]]
    allocatable = hosts[0]["status"]["allocatable"]
    return {
        "node": args["node"],
        "pods": len(pods),
        "namespaces": summary("distinct", [p["metadata"]["namespace"] for p in pods]),
        "cpu_requests_millicores": sum(millicores(r["cpu"]) for r in requests if "cpu" in r),
        "cpu_allocatable_millicores": millicores(allocatable["cpu"]),
        "memory_requests_mib": round(
            sum(mebibytes(r["memory"]) for r in requests if "memory" in r), 1
        ),
        "memory_allocatable_mib": round(mebibytes(allocatable["memory"]), 1),
    }, []


class Kube(Shape):
    name = "kube"
    title = "Kubernetes cluster, read-mostly ops API"
    description = (
        "An operations assistant's view of a production Kubernetes cluster (EKS, eu-west-1): "
        "nodes, deployments, services and pods in several namespaces. Answers are JSON; "
        "CPU in millicores, memory in MiB where a tool computes them; errors are text "
        "starting with 'Error:'."
    )
    note = ("log_finding", "finding")

    def __init__(self) -> None:
        self.finder = Search(
            "list_pods",
            "Pods by namespace, phase, node, app label, fewest restarts, image prefix or "
            "creation time.",
            _pods,
            [
                Filter(
                    "namespace", "namespace", "eq", prop("string", "Namespace.", enum=NAMESPACES)
                ),
                Filter("phase", "phase", "eq", prop("string", "Pod phase.", enum=PHASES)),
                Filter("node", "node", "eq", prop("string", "Node name.")),
                Filter("app", "app", "eq", prop("string", f"The {NAME_LABEL} label.")),
                Filter("min_restarts", "restarts", "ge", prop("integer", "Fewest restarts.")),
                Filter("image_prefix", "image", "prefix", prop("string", "Image reference start.")),
                Filter("created_after", "created", "ge", prop("string", "RFC 3339 time.")),
            ],
            _listed,
            limit=25,
            wrap="items",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return cluster(rng, target_bytes)

    def tools(self) -> list[Tool]:
        where = {"namespace": prop("string", "Namespace.", enum=NAMESPACES)}
        deployment = where | {"deployment": prop("string", "Deployment name.")}
        return [
            Tool(
                "get_pod",
                "A pod's node, phase, IP, restarts, image and resource requests.",
                where | {"pod_name": prop("string", "Pod name.")},
                self._pod,
                ("namespace", "pod_name"),
            ),
            Tool(
                "node_by_ip",
                "The node that has an internal IP: instance type, zone, readiness, allocatable.",
                {"ip": prop("string", "Internal IPv4 address, e.g. 10.0.16.42.")},
                self._node,
                ("ip",),
            ),
            self.finder.tool(),
            Tool(
                "service_endpoints",
                "The pods behind a service (ready or not), with their IPs, nodes and zones.",
                where | {"service": prop("string", "Service name.")},
                self._endpoints,
                ("namespace", "service"),
            ),
            Tool(
                "node_allocation",
                "What a node's active (Pending or Running) pods request, against what it "
                "can allocate.",
                {"node": prop("string", "Node name.")},
                _allocation,
                ("node",),
                output=ALLOCATION,
            ),
            Tool(
                "get_deployment",
                "A deployment's desired and ready replicas, image and generations.",
                deployment,
                self._deployment,
                ("namespace", "deployment"),
            ),
            Tool(
                "scale_deployment",
                "Set a deployment's desired replicas (the controller acts on it later).",
                deployment | {"replicas": prop("integer", "Desired replicas, 0 to 50.")},
                self._scale,
                ("namespace", "deployment", "replicas"),
                effect="write",
            ),
            note_tool(
                "log_finding",
                "finding",
                "Log a finding to the incident timeline (answers nothing).",
            ),
        ]

    def _named(
        self, state: State, kind: str, namespace: str | None, name: str
    ) -> tuple[int, dict[str, Any]]:
        for n, o in _of(state, kind):
            if o["metadata"]["name"] == name and o["metadata"].get("namespace") == namespace:
                return n, o
        raise ToolError(f'{kind.lower()}s "{name}" not found in namespace "{namespace}"')

    def _pod(self, state: State, args: dict[str, Any]) -> Answer:
        _, found = self._named(state, "Pod", args["namespace"], args["pod_name"])
        status = found["status"]
        return {
            **_listed("", _pod_view(found)),
            "podIP": status.get("podIP"),
            "image": found["spec"]["containers"][0]["image"],
            "requests": found["spec"]["containers"][0]["resources"].get("requests", {}),
            "startTime": status.get("startTime"),
            "qosClass": status["qosClass"],
        }, []

    def _node(self, state: State, args: dict[str, Any]) -> Answer:
        for _, host in _of(state, "Node"):
            if any(a["address"] == args["ip"] for a in host["status"]["addresses"]):
                labels, status = host["metadata"]["labels"], host["status"]
                ready = next(c for c in status["conditions"] if c["type"] == "Ready")
                return {
                    "name": host["metadata"]["name"],
                    "instanceType": labels[TYPE_LABEL],
                    "zone": labels[ZONE_LABEL],
                    "ready": ready["status"],
                    "allocatable": status["allocatable"],
                    "kubeletVersion": status["nodeInfo"]["kubeletVersion"],
                }, []
        raise ToolError(f"no node has the address {args['ip']}")

    def _endpoints(self, state: State, args: dict[str, Any]) -> Answer:
        _, found = self._named(state, "Service", args["namespace"], args["service"])
        selector = found["spec"]["selector"]
        zones = {
            o["metadata"]["name"]: o["metadata"]["labels"][ZONE_LABEL]
            for _, o in _of(state, "Node")
        }
        endpoints = [
            {
                "pod": p["metadata"]["name"],
                "ip": p["status"].get("podIP"),
                "ready": _container_status(p).get("ready", False),
                "node": p["spec"].get("nodeName"),
                "zone": zones.get(p["spec"].get("nodeName", "")),
            }
            for _, p in _of(state, "Pod")
            if p["metadata"]["namespace"] == args["namespace"]
            and all(p["metadata"]["labels"].get(k) == v for k, v in selector.items())
        ]
        return {
            "service": args["service"],
            "clusterIP": found["spec"]["clusterIP"],
            "port": found["spec"]["ports"][0]["port"],
            "endpoints": endpoints,
        }, []

    def _deployment(self, state: State, args: dict[str, Any]) -> Answer:
        _, found = self._named(state, "Deployment", args["namespace"], args["deployment"])
        return {
            "name": args["deployment"],
            "namespace": args["namespace"],
            "replicas": found["spec"]["replicas"],
            "readyReplicas": found["status"].get("readyReplicas", 0),
            "image": found["spec"]["template"]["spec"]["containers"][0]["image"],
            "generation": found["metadata"]["generation"],
            "observedGeneration": found["status"]["observedGeneration"],
        }, []

    def _scale(self, state: State, args: dict[str, Any]) -> Answer:
        if not 0 <= args["replicas"] <= 50:
            raise ToolError("replicas must be 0 to 50")
        n, found = self._named(state, "Deployment", args["namespace"], args["deployment"])
        generation = found["metadata"]["generation"] + 1
        return {
            "name": args["deployment"],
            "namespace": args["namespace"],
            "previousReplicas": found["spec"]["replicas"],
            "replicas": args["replicas"],
            "generation": generation,
        }, [
            {
                "op": "replace",
                "path": pointer("items", n, "spec", "replicas"),
                "value": args["replicas"],
            },
            {
                "op": "replace",
                "path": pointer("items", n, "metadata", "generation"),
                "value": generation,
            },
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        _, chosen = rng.choice(_of(state, "Pod"))
        meta = chosen["metadata"]
        return Planned(
            "lookup", "get_pod", {"namespace": meta["namespace"], "pod_name": meta["name"]}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        _, host = rng.choice(_of(state, "Node"))
        return Planned(
            "nested_lookup", "node_by_ip", {"ip": host["status"]["addresses"][0]["address"]}
        )

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "list_pods", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        _, chosen = rng.choice(_of(state, "Service"))
        meta = chosen["metadata"]
        return Planned(
            "join", "service_endpoints", {"namespace": meta["namespace"], "service": meta["name"]}
        )

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        _, host = rng.choice(_of(state, "Node"))
        return Planned("aggregate", "node_allocation", {"node": host["metadata"]["name"]})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        _, chosen = rng.choice(_of(state, "Deployment"))
        meta = chosen["metadata"]
        replicas = rng.choice(
            [r for r in (0, 1, 2, 4, 5, 8, 12) if r != chosen["spec"]["replicas"]]
        )
        names = {"namespace": meta["namespace"], "deployment": meta["name"]}
        return Planned("write", "scale_deployment", names | {"replicas": replicas}), Planned(
            "read_after_write", "get_deployment", names
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty", "list_pods", {"namespace": rng.choice(NAMESPACES), "min_restarts": 5000}
        )
