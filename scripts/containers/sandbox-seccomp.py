"""Writes the seccomp profile of the containers that run the sandbox (worker and API): a runtime's default profile plus what bubblewrap
needs to build each sandbox, and nothing else.

bwrap (unprivileged, in the container's user) makes new user, mount, PID, network, IPC, UTS and
cgroup namespaces, mounts inside them, pivots its root and sets the sandbox's host name. The
default profiles of Docker and Podman only allow some of these to a container that holds
CAP_SYS_ADMIN (Podman: sethostname/setdomainname/setns; Docker also unshare, mount, umount2,
pivot_root and clone with namespace flags). The kernel still checks the capability against the
namespace each call acts on, so these calls act only on the namespaces bwrap made, never on the
container's own: allowing them gives no power over the container or the host.

Usage: python3 sandbox-seccomp.py BASE_PROFILE.json > sandbox-seccomp.json
  (BASE_PROFILE: /usr/share/containers/seccomp.json for Podman, moby's profiles/seccomp/default.json
  for Docker)
"""
import json
import sys

#: The system calls bwrap needs for its namespaces, allowed with any arguments.
BWRAP_SYSCALLS = ["clone", "clone3", "unshare", "setns", "mount", "umount2", "pivot_root", "sethostname", "setdomainname"]


def worker_profile(base: dict) -> dict:
    """The base profile with every rule on BWRAP_SYSCALLS replaced by one unconditional allow."""
    rules = []
    for rule in base["syscalls"]:
        names = [n for n in rule.get("names", []) if n not in BWRAP_SYSCALLS]
        if names:
            rules.append({**rule, "names": names})
    rules.append({"names": BWRAP_SYSCALLS, "action": "SCMP_ACT_ALLOW", "comment": "bubblewrap: the sandbox's own namespaces"})
    return {**base, "syscalls": rules}


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        json.dump(worker_profile(json.load(f)), sys.stdout, indent=1)
    sys.stdout.write("\n")
