#!/bin/bash
# contrib/kubernetes/: the pod manifest is valid YAML and says what its
# README says: a sidecar running oz0fs onto /workspace, privileged, with
# /dev/fuse and Bidirectional propagation; an agent that sees /workspace
# HostToContainer, unprivileged, and never the real tree. And the README
# explains each privilege the manifest grants.
. "$(dirname "$0")/../integration/lib.sh"

oz_setup 120
src=${OZ0_SRCDIR:?}
"$OZ_PY" -c 'import yaml' 2>/dev/null || oz_unavailable "python3's yaml is missing (Debian package python3-yaml)"

# One line per claim: "ok CLAIM" or "not ok CLAIM: why".
"$OZ_PY" - "$src/contrib/kubernetes/oz0fs-pod.yaml" >"$T/claims" 2>&1 <<'PY' || true
import sys, yaml

docs = list(yaml.safe_load_all(open(sys.argv[1])))

def claim(text, ok, why=""):
    print(("ok " if ok else "not ok ") + text + ("" if ok else ": " + why))

claim("the manifest is one document, a v1 Pod", len(docs) == 1 and docs[0].get("kind") == "Pod"
      and docs[0].get("apiVersion") == "v1", repr([d.get("kind") for d in docs]))
spec = docs[0]["spec"]
volumes = {v["name"]: v for v in spec.get("volumes", [])}
every = spec.get("initContainers", []) + spec.get("containers", [])
sidecars = [c for c in every if c.get("command", [""])[0] == "oz0fs"]
claim("one container runs oz0fs", len(sidecars) == 1, "%d do" % len(sidecars))
side = sidecars[0]
mounts = {m["mountPath"]: m for m in side.get("volumeMounts", [])}
argv = side["command"]
claim("the sidecar mounts onto /workspace, in the foreground", argv[-1] == "/workspace" and "-f" in argv, repr(argv))
claim("the sidecar is a native sidecar (an init container that keeps running)",
      side in spec.get("initContainers", []) and side.get("restartPolicy") == "Always", "")
claim("its startup probe waits for the fuse.oz0fs mount",
      "fuse.oz0fs" in " ".join(side.get("startupProbe", {}).get("exec", {}).get("command", [])), "")
ctx = side.get("securityContext", {})
claim("the sidecar is privileged (Bidirectional needs it)", ctx.get("privileged") is True, repr(ctx))
claim("the sidecar names SYS_ADMIN", "SYS_ADMIN" in ctx.get("capabilities", {}).get("add", []), repr(ctx))
w = mounts.get("/workspace", {})
claim("the sidecar's /workspace propagates Bidirectional", w.get("mountPropagation") == "Bidirectional", repr(w))
fuse = mounts.get("/dev/fuse")
fuse_vol = volumes.get(fuse["name"], {}) if fuse else {}
claim("/dev/fuse is the node's character device", fuse_vol.get("hostPath") == {"path": "/dev/fuse", "type": "CharDevice"},
      repr(fuse_vol))
source = argv[-2]
tree = [m for p, m in mounts.items() if source.startswith(p.rstrip("/") + "/")]
claim("the sidecar's SOURCE lies in a volume of its own", len(tree) == 1 and tree[0]["name"] != w.get("name"), source)
tree_name = tree[0]["name"] if tree else None
agents = spec.get("containers", [])
claim("there is an agent container", len(agents) >= 1, "")
for a in agents:
    am = {m["mountPath"]: m for m in a.get("volumeMounts", [])}
    aw = am.get("/workspace", {})
    actx = a.get("securityContext", {})
    name = a["name"]
    claim("%s sees the sidecar's /workspace HostToContainer" % name,
          aw.get("name") == w.get("name") and aw.get("mountPropagation") == "HostToContainer", repr(aw))
    claim("%s never mounts the real tree" % name, all(m["name"] != tree_name for m in am.values()), repr(am))
    claim("%s is not privileged and drops every capability" % name,
          not actx.get("privileged") and actx.get("capabilities", {}).get("drop") == ["ALL"]
          and actx.get("allowPrivilegeEscalation") is False, repr(actx))
    claim("%s works in /workspace" % name, a.get("workingDir") == "/workspace", repr(a.get("workingDir")))
PY
while IFS= read -r line; do
	case $line in
	"ok "*) tap_ok "${line#ok }" ;;
	"not ok "*) tap_not_ok "${line#not ok }" ;;
	*) tap_not_ok "the manifest could be read" "$line" ;;
	esac
done <"$T/claims"
check "the claims were made (at least 15)" test "$(grep -c '^ok \|^not ok ' "$T/claims")" -ge 15

readme=$src/contrib/kubernetes/README.md
for term in 'privileged: true' SYS_ADMIN /dev/fuse Bidirectional HostToContainer restartPolicy fsGroup; do
	check "the README says what $term is for" grep -q -- "$term" "$readme"
done

tap_done
