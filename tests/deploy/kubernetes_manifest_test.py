#!/usr/bin/python3
"""Checks scripts/kubernetes/lab-job.yaml: the fields fabriclab relies on.

There is no Kubernetes cluster on the test machine: this parses the
manifest (PyYAML, Debian's python3-yaml) and checks what host mode needs
from it -- an Indexed Job whose pod index is the runner's place in a host
list of the headless Service's pod names, one pod per node on the host
network, NET_ADMIN and no other capability -- and that the fabriclab
binary takes every flag the pod's command gives it.

Usage: kubernetes_manifest_test.py MANIFEST FABRICLAB_BINARY
"""
import re
import subprocess
import sys

import yaml


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def check(condition, why):
    if not condition:
        fail(why)


def main(manifest_path, fabriclab):
    with open(manifest_path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    kinds = {d["kind"]: d for d in docs}
    check(set(kinds) == {"Service", "Job"}, "expected a Service and a Job, found %s" % sorted(kinds))
    service, job = kinds["Service"], kinds["Job"]
    svc_name = service["metadata"]["name"]
    check(service["spec"].get("clusterIP") == "None", "the Service must be headless (clusterIP: None)")

    spec = job["spec"]
    check(spec.get("completionMode") == "Indexed", "the Job must be Indexed (JOB_COMPLETION_INDEX)")
    n = spec["completions"]
    check(spec.get("parallelism") == n, "parallelism %s != completions %s: every host runs at once"
          % (spec.get("parallelism"), n))
    check(n >= 2, "host mode needs at least two hosts")
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"]["labels"]
    check(all(labels.get(k) == v for k, v in service["spec"]["selector"].items()),
          "the Service's selector does not select the Job's pods")
    check(pod.get("subdomain") == svc_name, "the pods' subdomain must be the Service (%s)" % svc_name)
    check(pod.get("hostNetwork") is True, "host mode impairs the node's interface: hostNetwork: true")
    check(pod.get("dnsPolicy") == "ClusterFirstWithHostNet",
          "on the host network the pods resolve the Service's names only with ClusterFirstWithHostNet")
    check(pod.get("restartPolicy") == "Never", "a restarted runner would join a run that is over")
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    check(anti["topologyKey"] == "kubernetes.io/hostname", "one pod per node")
    check(not any("hostPath" in v for v in pod.get("volumes", [])), "no host path")

    containers = pod["containers"]
    check(len(containers) == 1, "one container: the runner")
    c = containers[0]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    job_name = job["metadata"]["name"]
    expected_hosts = ["%s-%d.%s" % (job_name, i, svc_name) for i in range(n)]
    check(env.get("HOSTS", "").split(",") == expected_hosts,
          "HOSTS must list the pods' DNS names in index order: %s" % ",".join(expected_hosts))
    check(re.fullmatch(r"[0-9]{2}", env.get("LAB", "")) is not None, "LAB: a lab number, e.g. 05")

    command = " ".join(c["command"])
    for needed in ['fabriclab run "$LAB"', '--hosts "$HOSTS"',
                   '--host-index "$JOB_COMPLETION_INDEX"', "getent hosts"]:
        check(needed in command, "the command must hold %r: %s" % (needed, command))

    sc = c["securityContext"]
    check(sc.get("privileged") is False, "not privileged")
    check(sc.get("allowPrivilegeEscalation") is False, "no privilege escalation")
    check(sc["capabilities"].get("add") == ["NET_ADMIN"], "NET_ADMIN and nothing more")
    check(sc["capabilities"].get("drop") == ["ALL"], "every other capability dropped")

    help_text = subprocess.run([fabriclab, "run", "--help"], capture_output=True, text=True,
                               check=True).stdout
    flags = set(re.findall(r"(--[a-z-]+)", command))
    for flag in sorted(flags):
        check(flag in help_text, "fabriclab run has no %s" % flag)
    print("ok: %d pods, hosts %s, flags %s" % (n, ",".join(expected_hosts), " ".join(sorted(flags))))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail(__doc__)
    main(sys.argv[1], sys.argv[2])
