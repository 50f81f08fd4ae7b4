"""Kubernetes objects as ``kubectl get nodes,deployments,services,pods -A -o json`` lists
them: one ``List`` of ``items``, each with ``apiVersion``, ``kind``, ``metadata`` (name,
namespace, uid, labels whose keys are dotted and slashed, ``app.kubernetes.io/name``),
``spec`` and ``status``; resource quantities are strings with unit suffixes (``"250m"`` CPU,
``"512Mi"``, ``"16203208Ki"``); a pod names its node in ``spec.nodeName`` (none while it is
unscheduled) and its owner in ``ownerReferences``; a service selects pods by labels (the
``kube`` shape's state)."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import WORDS, State, fill, size_of

NAMESPACES = ["payments", "checkout", "search", "identity", "observability", "ingest", "web"]
ROLES = ["api", "worker", "web", "consumer", "gateway", "scheduler"]
NAME_LABEL = "app.kubernetes.io/name"
ZONE_LABEL = "topology.kubernetes.io/zone"
TYPE_LABEL = "node.kubernetes.io/instance-type"
CPUS = ["50m", "100m", "250m", "500m", "1", "1500m", "2"]
MEMORIES = ["64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "1536Mi", "2Gi"]
INSTANCES = {
    "m5.large": ("2", "1930m", "7934440Ki", "7244264Ki", "29"),
    "m5.xlarge": ("4", "3920m", "16203208Ki", "15186376Ki", "58"),
    "m5.2xlarge": ("8", "7910m", "32408772Ki", "31391940Ki", "58"),
    "c5.2xlarge": ("8", "7910m", "16054752Ki", "15037920Ki", "58"),
}
"""Capacity and allocatable CPU and memory, and pods, of each instance type."""
SUFFIXES = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "k": 1000 / 1048576, "M": 1e6 / 1048576}


def millicores(quantity: str) -> int:
    """A CPU quantity (``"250m"``, ``"1"``, ``"1.5"``) in millicores."""
    if quantity.endswith("m"):
        return int(quantity[:-1])
    return round(float(quantity) * 1000)


def mebibytes(quantity: str) -> float:
    """A memory quantity (``"512Mi"``, ``"1Gi"``, ``"16203208Ki"``, bytes) in MiB."""
    for suffix, scale in SUFFIXES.items():
        if quantity.endswith(suffix) and quantity[: -len(suffix)].isdigit():
            return int(quantity[: -len(suffix)]) * scale
    return int(quantity) / 1048576


def uid(rng: random.Random) -> str:
    hexes = f"{rng.getrandbits(128):032x}"
    return f"{hexes[:8]}-{hexes[8:12]}-4{hexes[13:16]}-a{hexes[17:20]}-{hexes[20:]}"


def stamp(rng: random.Random, year: int = 2025) -> str:
    return (
        f"{year}-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
    )


def node(rng: random.Random, index: int) -> dict[str, Any]:
    third, fourth = 16 + index // 200, 10 + index % 200
    name = f"ip-10-0-{third}-{fourth}.eu-west-1.compute.internal"
    kind = rng.choice(sorted(INSTANCES))
    cpu, cpu_free, memory, memory_free, pods = INSTANCES[kind]
    zone = f"eu-west-1{'abc'[index % 3]}"
    ready = "True" if rng.random() < 0.95 else "False"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": uid(rng),
            "labels": {"kubernetes.io/hostname": name, TYPE_LABEL: kind, ZONE_LABEL: zone},
            "creationTimestamp": stamp(rng, 2025),
        },
        "spec": {"providerID": f"aws:///{zone}/i-0{rng.getrandbits(64):016x}"},
        "status": {
            "capacity": {"cpu": cpu, "memory": memory, "pods": pods},
            "allocatable": {"cpu": cpu_free, "memory": memory_free, "pods": pods},
            "conditions": [
                {"type": "MemoryPressure", "status": "False"},
                {"type": "Ready", "status": ready, "reason": "KubeletReady"},
            ],
            "addresses": [
                {"type": "InternalIP", "address": f"10.0.{third}.{fourth}"},
                {"type": "Hostname", "address": name},
            ],
            "nodeInfo": {
                "kubeletVersion": rng.choice(["v1.29.3-eks-ae9a62a", "v1.30.2-eks-1552ad0"])
            },
        },
    }


def _container(rng: random.Random, app: str, namespace: str) -> dict[str, Any]:
    version = f"{rng.randint(1, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
    resources: dict[str, Any] = {}
    if rng.random() < 0.9:
        # A tenth of the workloads set no requests (BestEffort): they count as nothing.
        cpu, memory = rng.choice(CPUS), rng.choice(MEMORIES)
        resources = {"requests": {"cpu": cpu, "memory": memory}, "limits": {"memory": memory}}
    return {
        "name": app,
        "image": f"registry.internal.example/{namespace}/{app}:{version}",
        "ports": [{"containerPort": rng.choice([8080, 8443, 9090, 3000]), "protocol": "TCP"}],
        "resources": resources,
    }


def deployment(rng: random.Random, app: str, namespace: str, replicas: int) -> dict[str, Any]:
    labels = {NAME_LABEL: app, "app.kubernetes.io/part-of": namespace}
    generation = rng.randint(1, 30)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": app,
            "namespace": namespace,
            "uid": uid(rng),
            "generation": generation,
            "labels": labels,
            "creationTimestamp": stamp(rng, 2024),
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {NAME_LABEL: app}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [_container(rng, app, namespace)]},
            },
        },
        "status": {"observedGeneration": generation, "replicas": replicas},
    }


def _state(rng: random.Random, container: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A scheduled pod's phase and its container's status."""
    started = stamp(rng)
    roll = rng.random()
    if roll < 0.06:
        waiting = {"waiting": {"reason": "CrashLoopBackOff"}}
        return "Running", {"ready": False, "restartCount": rng.randint(5, 400), "state": waiting}
    if roll < 0.09:
        terminated = {"terminated": {"reason": "Error", "exitCode": 1, "finishedAt": started}}
        return "Failed", {"ready": False, "restartCount": 0, "state": terminated}
    restarts = rng.choice([0, 0, 0, 0, 1, 2, rng.randint(3, 40)])
    return "Running", {
        "ready": True,
        "restartCount": restarts,
        "state": {"running": {"startedAt": started}},
    }


def pod(
    rng: random.Random, owner: dict[str, Any], template_hash: str, host: dict[str, Any] | None
) -> dict[str, Any]:
    app, namespace = owner["metadata"]["name"], owner["metadata"]["namespace"]
    container = owner["spec"]["template"]["spec"]["containers"][0]
    suffix = "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
    spec: dict[str, Any] = {"containers": [container], "restartPolicy": "Always"}
    status: dict[str, Any] = {
        "phase": "Pending",
        "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
    }
    if host is not None:
        spec["nodeName"] = host["metadata"]["name"]
        phase, running = _state(rng, container)
        status = {
            "phase": phase,
            "hostIP": host["status"]["addresses"][0]["address"],
            "podIP": f"10.42.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
            "startTime": stamp(rng),
            "containerStatuses": [{"name": app, "image": container["image"], **running}],
        }
    status["qosClass"] = "Burstable" if container["resources"] else "BestEffort"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{app}-{template_hash}-{suffix}",
            "namespace": namespace,
            "uid": uid(rng),
            "labels": {NAME_LABEL: app, "pod-template-hash": template_hash},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": f"{app}-{template_hash}",
                    "controller": True,
                }
            ],
            "creationTimestamp": stamp(rng),
        },
        "spec": spec,
        "status": status,
    }


def service(rng: random.Random, app: str, namespace: str, port: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": f"{app}-svc", "namespace": namespace, "uid": uid(rng)},
        "spec": {
            "type": "ClusterIP",
            "clusterIP": f"172.20.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            "selector": {NAME_LABEL: app},
            "ports": [{"name": "http", "port": 80, "targetPort": port, "protocol": "TCP"}],
        },
    }


def _place(
    rng: random.Random, nodes: list[dict[str, Any]], used: dict[str, int], cpu: int
) -> dict[str, Any] | None:
    """A node with room for a pod's CPU request, or none (the pod stays Pending): a scheduler
    that tries a few nodes, as a busy cluster's does."""
    for host in rng.sample(nodes, min(3, len(nodes))):
        name = host["metadata"]["name"]
        if used.get(name, 0) + cpu <= millicores(host["status"]["allocatable"]["cpu"]):
            used[name] = used.get(name, 0) + cpu
            return host
    return None


def cluster(rng: random.Random, target_bytes: int) -> State:
    """The cluster's List, of about ``target_bytes``: nodes, deployments, services and pods,
    each kind sorted by namespace and name as the API server lists them."""
    kinds: dict[str, list[dict[str, Any]]] = {
        "Node": [],
        "Deployment": [],
        "Service": [],
        "Pod": [],
    }
    taken: set[tuple[str, str]] = set()
    used: dict[str, int] = {}

    def workload() -> None:
        namespace = rng.choice(NAMESPACES)
        app = f"{rng.choice(WORDS)}-{rng.choice(ROLES)}"
        while (namespace, app) in taken:
            app = f"{app}-{rng.randint(2, 9)}"
        taken.add((namespace, app))
        replicas = rng.choice([1, 2, 2, 3, 3, 4, 6])
        owner = deployment(rng, app, namespace, replicas)
        template_hash = "".join(rng.choice("bcdf56789") for _ in range(9)) + "d"
        while len(kinds["Node"]) * 6 < len(kinds["Pod"]) + replicas:
            kinds["Node"].append(node(rng, len(kinds["Node"])))
        requests = owner["spec"]["template"]["spec"]["containers"][0]["resources"]
        cpu = millicores(requests.get("requests", {}).get("cpu", "0"))
        pods = [
            pod(rng, owner, template_hash, _place(rng, kinds["Node"], used, cpu))
            for _ in range(replicas)
        ]
        ready = sum(1 for p in pods for c in p["status"].get("containerStatuses", []) if c["ready"])
        owner["status"] |= {"readyReplicas": ready, "availableReplicas": ready}
        kinds["Deployment"].append(owner)
        kinds["Pod"].extend(pods)
        if rng.random() < 0.75:
            port = owner["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"]
            kinds["Service"].append(service(rng, app, namespace, port))

    fill(workload, lambda: size_of(kinds), target_bytes)
    items = [
        item
        for listed in kinds.values()
        for item in sorted(
            listed, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"])
        )
    ]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}
