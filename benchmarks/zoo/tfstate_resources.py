"""An AWS estate's Terraform state, format version 4 (the ``tfstate`` shape's state), as
``terraform state pull`` writes it: ``resources`` of ``mode``/``type``/``name`` (and ``module``
for a module's), the provider as a string (``provider["registry.terraform.io/hashicorp/aws"]``),
each resource's ``instances`` told apart by ``index_key`` (an integer under ``count``, a string
under ``for_each``, absent for one), their ``attributes`` as the provider schema names them
(nested blocks as lists of one object, absent strings as ``""``), and ``dependencies`` as
resource addresses without an index (``module.network.aws_subnet.private``). A resource
instance's own address (``module.svc_amber.aws_instance.app[1]``) is written nowhere."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import FIRST, WORDS, State, fill, size_of

AWS = 'provider["registry.terraform.io/hashicorp/aws"]'
ACCOUNT = "409271535634"
REGION = "eu-west-1"
ZONES = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
TEAMS = ["payments", "search", "platform", "growth", "data", "identity"]
TYPES = ["t3.micro", "t3.small", "t3.medium", "t3.large", "m6i.large", "m6i.xlarge", "c6i.2xlarge"]
DB_CLASSES = ["db.t4g.micro", "db.t4g.medium", "db.r6g.large", "db.m6g.xlarge"]
PRIVATE = (
    "eyJlMmJmYjczMC1lY2FhLTExZTYtOGY4OC0zNDM2M2JjN2M0YzAiOnsiY3JlYXRlIjo2MDAwMDAwMDAwMDAsImRl"
    "bGV0ZSI6MTIwMDAwMDAwMDAwMCwidXBkYXRlIjo2MDAwMDAwMDAwMDB9LCJzY2hlbWFfdmVyc2lvbiI6IjEifQ=="
)
"""The provider's private blob (its timeouts, base64 JSON), the same on every instance."""
DEFAULT_TAGS = {"ManagedBy": "terraform", "Repository": "github.com/acme/infra-live"}
"""The provider's ``default_tags``: in ``tags_all``, not in ``tags``."""
PORTS = [(443, "HTTPS from VPC"), (8080, "App port from ALB"), (9100, "node_exporter")]


def aws_id(rng: random.Random, prefix: str) -> str:
    return prefix + "-0" + "".join(rng.choice("0123456789abcdef") for _ in range(16))


def arn(service: str, resource: str) -> str:
    return f"arn:aws:{service}:{REGION}:{ACCOUNT}:{resource}"


def resource(
    module: str | None,
    type_: str,
    name: str,
    instances: list[dict[str, Any]],
    mode: str = "managed",
) -> dict[str, Any]:
    """A ``resources`` entry (``each`` says how its instances are keyed, if they are)."""
    found: dict[str, Any] = {"module": module} if module else {}
    found |= {"mode": mode, "type": type_, "name": name, "provider": AWS}
    keys = [i.get("index_key") for i in instances]
    if any(isinstance(k, int) for k in keys):
        found["each"] = "list"
    elif any(isinstance(k, str) for k in keys):
        found["each"] = "map"
    return found | {"instances": instances}


def instance(
    attributes: dict[str, Any], depends: list[str], key: int | str | None = None, schema: int = 0
) -> dict[str, Any]:
    found: dict[str, Any] = {} if key is None else {"index_key": key}
    found |= {"schema_version": schema, "attributes": attributes, "sensitive_attributes": []}
    found |= {"private": PRIVATE}
    return found | ({"dependencies": sorted(depends)} if depends else {})


def tagged(tags: dict[str, str]) -> dict[str, Any]:
    return {"tags": tags, "tags_all": tags | DEFAULT_TAGS}


def _rule(port: int, description: str, cidrs: list[str], groups: list[str]) -> dict[str, Any]:
    return {
        "cidr_blocks": cidrs,
        "description": description,
        "from_port": port,
        "ipv6_cidr_blocks": [],
        "prefix_list_ids": [],
        "protocol": "tcp",
        "security_groups": groups,
        "self": False,
        "to_port": port,
    }


EGRESS = _rule(0, "", ["0.0.0.0/0"], []) | {"protocol": "-1"}


def security_group(
    rng: random.Random, name: str, vpc: str, tags: dict[str, str], rules: list[dict[str, Any]]
) -> dict[str, Any]:
    ident = aws_id(rng, "sg")
    return {
        "arn": arn("ec2", f"security-group/{ident}"),
        "description": f"Managed by Terraform: {name}",
        "egress": [EGRESS],
        "id": ident,
        "ingress": rules,
        "name": name,
        "name_prefix": "",
        "owner_id": ACCOUNT,
        "revoke_rules_on_delete": False,
        **tagged(tags),
        "timeouts": None,
        "vpc_id": vpc,
    }


def _network(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The network module (a VPC, a private subnet per zone, a bastion group) and the ids the
    services refer to."""
    vpc = aws_id(rng, "vpc")
    tags = {"Environment": "production", "Team": "platform"}
    vpc_attrs: dict[str, Any] = {
        "arn": arn("ec2", f"vpc/{vpc}"),
        "cidr_block": "10.40.0.0/16",
        "id": vpc,
    }
    vpc_attrs |= {"enable_dns_hostnames": True, "instance_tenancy": "default"}
    vpc_attrs |= tagged(tags | {"Name": "prod-main"})
    subnets, ids = [], {}
    for n, zone in enumerate(ZONES):
        ident = aws_id(rng, "subnet")
        ids[zone] = ident
        attrs: dict[str, Any] = {"arn": arn("ec2", f"subnet/{ident}"), "availability_zone": zone}
        attrs |= {"cidr_block": f"10.40.{16 * n}.0/20", "id": ident}
        attrs |= {"map_public_ip_on_launch": False, "vpc_id": vpc}
        attrs |= tagged(tags | {"Name": f"prod-private-{zone[-1]}"})
        subnets.append(instance(attrs, ["module.network.aws_vpc.main"], zone, 1))
    bastion = security_group(
        rng,
        "prod-bastion-ssh",
        vpc,
        tags | {"Name": "prod-bastion-ssh"},
        [_rule(22, "SSH from office", ["194.12.40.0/24", "81.3.112.16/28"], [])],
    )
    network = "module.network"
    resources = [
        resource(network, "aws_security_group", "bastion", [instance(bastion, [], None, 1)]),
        resource(network, "aws_subnet", "private", subnets),
        resource(network, "aws_vpc", "main", [instance(vpc_attrs, [], None, 1)]),
    ]
    return resources, {"vpc": vpc, "subnets": ids, "bastion": bastion["id"]}


def _server(
    rng: random.Random, service: str, team: str, n: int, ip: str, zone: str, net: dict[str, Any]
) -> dict[str, Any]:
    ident = aws_id(rng, "i")
    size = rng.choice([8, 20, 30, 50, 100, 200])
    public = rng.random() < 0.15
    return {
        "ami": "ami-0d64bb532e0502c46",
        "arn": arn("ec2", f"instance/{ident}"),
        "associate_public_ip_address": public,
        "availability_zone": zone,
        "ebs_optimized": False,
        "iam_instance_profile": f"{service}-app",
        "id": ident,
        "instance_state": rng.choice(["running"] * 9 + ["stopped"]),
        "instance_type": rng.choice(TYPES),
        "key_name": "ops-2024",
        "metadata_options": [
            {
                "http_endpoint": "enabled",
                "http_put_response_hop_limit": 2,
                "http_tokens": "required",
            }
        ],
        "monitoring": rng.random() < 0.5,
        "private_dns": f"ip-{ip.replace('.', '-')}.{REGION}.compute.internal",
        "private_ip": ip,
        "public_ip": f"54.{rng.randint(72, 250)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        if public
        else "",
        "root_block_device": [
            {
                "delete_on_termination": True,
                "device_name": "/dev/sda1",
                "encrypted": rng.random() < 0.8,
                "iops": 3000,
                "kms_key_id": "",
                "throughput": 125,
                "volume_id": aws_id(rng, "vol"),
                "volume_size": size,
                "volume_type": "gp3",
            }
        ],
        "subnet_id": net["subnets"][zone],
        **tagged(
            {
                "Environment": "production",
                "Name": f"{service}-{n}",
                "Service": service,
                "Team": team,
            }
        ),
        "tenancy": "default",
        "user_data": None,
        "vpc_security_group_ids": [],
    }


def _database(
    rng: random.Random, service: str, team: str, group: str, module: str
) -> dict[str, Any]:
    ident = f"{service}-db"
    engine, version, port = rng.choice(
        [("postgres", "16.3", 5432), ("postgres", "15.7", 5432), ("mysql", "8.0.36", 3306)]
    )
    host = f"{ident}.c7xq2mfa9lzp.{REGION}.rds.amazonaws.com"
    attrs = {
        "address": host,
        "allocated_storage": rng.choice([20, 50, 100, 250, 500]),
        "arn": arn("rds", f"db:{ident}"),
        "backup_retention_period": rng.choice([1, 7, 14]),
        "db_subnet_group_name": "prod-private",
        "endpoint": f"{host}:{port}",
        "engine": engine,
        "engine_version": version,
        "id": "db-" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(26)),
        "identifier": ident,
        "instance_class": rng.choice(DB_CLASSES),
        "multi_az": rng.random() < 0.4,
        "password": "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(20)),
        "port": port,
        "storage_encrypted": True,
        "storage_type": "gp3",
        **tagged({"Environment": "production", "Service": service, "Team": team}),
        "username": service.replace("-", "_")[:16],
        "vpc_security_group_ids": [group],
    }
    made = instance(attrs, [f"{module}.aws_security_group.this"], None, 2)
    made["sensitive_attributes"] = [[{"type": "get_attr", "value": "password"}]]
    return made


def _service(
    rng: random.Random, name: str, net: dict[str, Any], serial: list[int]
) -> list[dict[str, Any]]:
    """A service module: its security group, its servers (``count``) and maybe a database."""
    module, team = f"module.svc_{name.replace('-', '_')}", rng.choice(TEAMS)
    port, what = rng.choice(PORTS)
    rules = [_rule(port, what, ["10.40.0.0/16"], [])]
    if rng.random() < 0.4:
        rules.append(_rule(22, "SSH from bastion", [], [net["bastion"]]))
    tags = {"Environment": "production", "Service": name, "Team": team}
    group = security_group(rng, f"{name}-sg", net["vpc"], tags | {"Name": f"{name}-sg"}, rules)
    servers = []
    for n in range(rng.randint(1, 4)):
        zone = ZONES[n % len(ZONES)]
        serial[0] += 1
        ip = f"10.40.{16 * ZONES.index(zone) + serial[0] // 250 % 16}.{serial[0] % 250 + 4}"
        attrs = _server(rng, name, team, n + 1, ip, zone, net)
        attrs["vpc_security_group_ids"] = sorted([group["id"], net["bastion"]])
        depends = [f"{module}.aws_security_group.this", "module.network.aws_subnet.private"]
        servers.append(
            instance(attrs, [*depends, "module.network.aws_security_group.bastion"], n, 1)
        )
    found = [
        resource(module, "aws_instance", "app", servers),
        resource(module, "aws_security_group", "this", [instance(group, [], None, 1)]),
    ]
    if rng.random() < 0.35:
        db = _database(rng, name, team, group["id"], module)
        found.insert(0, resource(module, "aws_db_instance", "this", [db]))
    return found


def estate(rng: random.Random, target_bytes: int) -> State:
    """The state of about ``target_bytes``: the network module, then one module per service,
    in the order ``terraform`` sorts them (by module address)."""
    network, net = _network(rng)
    ami = {"architecture": "x86_64", "id": "ami-0d64bb532e0502c46", "most_recent": True}
    ami |= {"name": "ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-20241119"}
    ami |= {"owner_id": "099720109477", "owners": ["099720109477"], "root_device_type": "ebs"}
    state: State = {
        "version": 4,
        "terraform_version": "1.9.8",
        "serial": rng.randint(200, 900),
        "lineage": "3f1c0a7e-9b62-4d6e-b1f4-52c8a2d7e019",
        "outputs": {
            "vpc_id": {"value": net["vpc"], "type": "string"},
            "private_subnet_ids": {
                "value": [net["subnets"][z] for z in ZONES],
                "type": ["list", "string"],
            },
        },
        "resources": [resource(None, "aws_ami", "ubuntu", [instance(ami, [])], "data")],
        "check_results": None,
    }
    services: list[list[dict[str, Any]]] = []
    taken: set[str] = set()
    serial = [0]

    def add() -> None:
        name = f"{rng.choice(WORDS)}-{rng.choice(FIRST).lower()}"
        while name in taken:
            name += f"-{len(taken) % 9 + 2}"
        taken.add(name)
        services.append(_service(rng, name, net, serial))
        state["resources"].append(services[-1])  # measured in place; flattened below

    fill(add, lambda: size_of(state), target_bytes)
    del state["resources"][1:]
    state["resources"] += network
    for group in sorted(services, key=lambda found: str(found[0]["module"])):
        state["resources"] += group
    return state
