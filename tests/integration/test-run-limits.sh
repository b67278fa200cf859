#!/bin/bash
# oz0run's limits (issue 13, seed 000 "Limits, protected paths and file
# writes" and "Set resource ceilings"), on this machine's cgroup v1: what is
# asked, what a profile gives, what a ceiling caps, each read back from the
# sandbox's cgroup while its command runs; a memory hog stopped whole, a fork
# loop held, two busy loops given half a core.
. "$(dirname "$0")/run-lib.sh"
rl_setup 300
rl_require_cgroups
MIB=1048576

# watched NAME SECONDS ARGS...: oz0run ARGS -- sleep (about SECONDS), with
# the watcher reading the sandbox's cgroup meanwhile; the word is $wmark.
watched() {
	local name=$1
	wmark=$(rl_mark "$2")
	shift 2
	rl_go_watched "$name" "$wmark" --tree "$tree" "$@" -- sleep "$wmark"
}

# limits_read NAME MB PIDS QUOTA: the cgroup the watcher saw holds exactly
# these limits: MB MiB (and no swap beyond it), PIDS, QUOTA µs of each
# 100000 µs period.
limits_read() {
	local name=$1 memsw
	rl_ok "$name: the command had a memory, a pids and a cpu cgroup of its own" \
		test -n "$(rl_w "$name" cg.memory)" -a -n "$(rl_w "$name" cg.pids)" -a -n "$(rl_w "$name" cg.cpu)"
	rl_is "$name: memory.limit_in_bytes" "$(($2 * MIB))" "$(rl_w "$name" memory.limit_in_bytes)"
	memsw=$(rl_w "$name" memory.memsw.limit_in_bytes)
	[ -z "$memsw" ] || rl_is "$name: memory.memsw.limit_in_bytes (no swap)" "$(($2 * MIB))" "$memsw"
	rl_is "$name: pids.max" "$3" "$(rl_w "$name" pids.max)"
	rl_is "$name: cpu.cfs_quota_us" "$4" "$(rl_w "$name" cpu.cfs_quota_us)"
	rl_is "$name: cpu.cfs_period_us" 100000 "$(rl_w "$name" cpu.cfs_period_us)"
}

# applied NAME: the report's applied limits as "MB PIDS CPUS".
applied() {
	rl_json "$1" '"%s %s %g" % (j["limits"]["applied"]["memory_mb"], j["limits"]["applied"]["pids"], float(j["limits"]["applied"]["cpus"]))'
}
asked() {
	rl_json "$1" '"%s %s %g" % (j["limits"]["asked"]["memory_mb"], j["limits"]["asked"]["pids"], float(j["limits"]["asked"]["cpus"]))'
}

tree=$T/tree
rl_repo "$tree"

# ---- What is asked is what the cgroup holds ------------------------------------

rl_cg_before
rl_mounts_before
watched asked 1 --memory-mb 300 --pids 77 --cpus 1.5
rl_status "asked: sleep under --memory-mb 300 --pids 77 --cpus 1.5 exits 0" 0
rl_ok "asked: the watcher saw the command" rl_seen asked
limits_read asked 300 77 150000
rl_is "asked: the report's cgroup mode" v1 "$(rl_json asked 'j["cgroup"]')"
rl_is "asked: the report's limits asked" "300 77 1.5" "$(asked asked)"
rl_is "asked: the report's limits applied" "300 77 1.5" "$(applied asked)"
rl_is "asked: nothing capped" "[]" "$(rl_json asked 'j["limits"]["capped"]')"
rl_is "asked: ended, exit_status, signal, status" "exited 0 0 0" \
	"$(rl_json asked '" ".join(str(x) for x in (j["ended"], j["exit_status"], j["signal"], j["status"]))')"
rl_is "asked: argv in the report" "['sleep', '$wmark']" "$(rl_json asked 'j["argv"]')"
rl_ok "asked: the daemon's pid is in the report, and it never ran in the sandbox's memory cgroup" \
	"$OZ_PY" -c 'import sys; d, m = sys.argv[1], sys.argv[2].split(); sys.exit(not (d.isdigit() and int(d) > 0 and d not in m))' \
	"$(rl_json asked 'j["daemon_pid"]')" "$(rl_w asked in_memcg)"
rl_ok "asked: stderr says the limits and the cgroup mode, every line oz0run's" \
	sh -c "grep -q 'v1' '$T/asked.err' && grep -q '300' '$T/asked.err' && ! grep -v '^oz0run: ' '$T/asked.err'"
rl_ok "asked: no process of the run is left" rl_gone asked
rl_ok "asked: no cgroup is left" rl_cg_same asked
rl_ok "asked: nothing is mounted outside afterwards" rl_mounts_same

# ---- Profiles: the seed's table --------------------------------------------------

watched mcp 1 --profile mcp
rl_status "mcp: exits 0" 0
limits_read mcp 1024 256 100000
for p in harness:"4096 1024 2" mcp:"1024 256 1" command:"2048 512 2"; do
	rl_go "profile-${p%%:*}" --tree "$tree" --profile "${p%%:*}" -- true
	rl_is "--profile ${p%%:*}: applied ${p#*:}" "${p#*:}" "$(applied "profile-${p%%:*}")"
done
rl_go profile-default --tree "$tree" -- true
rl_is "no --profile is the command profile" "2048 512 2" "$(applied profile-default)"
rl_go profile-mixed --tree "$tree" --profile harness --pids 99 -- true
rl_is "--profile harness --pids 99: the other two are the profile's" "4096 99 2" "$(applied profile-mixed)"

# ---- A ceiling caps what is asked ------------------------------------------------

mkdir "$T/conf"
printf '[ceiling]\nmemory_mb = 200\n' >"$T/conf/mem.ini"
watched ceiling 1 --config "$T/conf/mem.ini" --memory-mb 300 --pids 64
rl_status "ceiling memory_mb = 200, --memory-mb 300: exits 0" 0
limits_read ceiling 200 64 200000
rl_is "ceiling: asked stays 300 in the report" "300 64 2" "$(asked ceiling)"
rl_is "ceiling: applied is 200" "200 64 2" "$(applied ceiling)"
rl_is "ceiling: capped names memory_mb" "['memory_mb']" "$(rl_json ceiling 'j["limits"]["capped"]')"
rl_ok "ceiling: stderr says the ceiling lowered the memory" \
	grep -qiE 'ceiling.*(200|memory)|(200|memory).*ceiling' "$T/ceiling.err"

printf '[ceiling]\npids = 40\n' >"$T/conf/fleet.ini"
printf '[ceiling]\npids = 50\ncpus = 1\nfile = %s\n' "$T/conf/fleet.ini" >"$T/conf/both.ini"
watched fleet 1 --config "$T/conf/both.ini"
rl_status "ceiling pids 50 and cpus 1, its file's pids 40: exits 0" 0
limits_read fleet 2048 40 100000
rl_is "fleet: the lower of the two pids holds, cpus capped, memory not" "2048 40 1" "$(applied fleet)"
rl_is "fleet: capped names cpus and pids" "['cpus', 'pids']" "$(rl_json fleet 'sorted(j["limits"]["capped"])')"

printf '[ceiling]\nmemory_mb = 8192\npids = 4096\ncpus = 4\n' >"$T/conf/high.ini"
rl_go high --tree "$tree" --config "$T/conf/high.ini" --memory-mb 300 -- true
rl_is "a ceiling above what is asked lowers nothing" "300 512 2 []" \
	"$(applied high) $(rl_json high 'j["limits"]["capped"]')"

# ---- Memory: the hog and its sibling are stopped whole ------------------------------

mark=$(rl_mark 60)
rl_cg_before
# The sibling sleep would keep sh waiting for a minute: only a sandbox
# stopped whole ends sooner. Each chunk is written, so it is resident.
rl_go_watched oom "$mark" --tree "$tree" --memory-mb 256 -- sh -c '
	echo before >before.txt
	sleep "$0" &
	python3 -c "
chunks = []
while True:
    chunks.append(b\"\\1\" * (8 << 20))
"
	wait' "$mark"
rl_status "oom: a hog past --memory-mb 256 exits 137" 137
rl_ok "oom: it ends at once, not when the sibling sleep would (took $rl_ms ms)" test "$rl_ms" -lt 30000
rl_is "oom: the report says oom" oom "$(rl_json oom 'j["ended"]')"
rl_is "oom: the report's status" 137 "$(rl_json oom 'j["status"]')"
rl_ok "oom: stderr says it ran out of memory, with the limit" \
	sh -c "grep -i 'memory' '$T/oom.err' | grep -q '256'"
rl_is "oom: memory.limit_in_bytes was 256 MiB" "$((256 * MIB))" "$(rl_w oom memory.limit_in_bytes)"
rl_ok "oom: the sibling sleep and every other process are gone" rl_gone oom
rl_is "oom: the daemon (the report's) lived while any process of the sandbox did" \
	"$(rl_json oom 'j["daemon_pid"]') 1" "$(rl_w oom daemon) $(rl_w oom daemon_lived)"
rl_ok "oom: the daemon never ran in the sandbox's memory cgroup" \
	"$OZ_PY" -c 'import sys; sys.exit(not sys.argv[1].isdigit() or sys.argv[1] in sys.argv[2].split())' \
	"$(rl_json oom 'j["daemon_pid"]')" "$(rl_w oom in_memcg)"
rl_is "oom: what the command wrote through the mount is in the tree" before "$(cat "$tree/before.txt" 2>&1)"
rl_ok "oom: peak memory in the report is near the limit (at least 200 MiB)" \
	"$OZ_PY" -c 'import sys; sys.exit(not int(sys.argv[1]) >= 200 * 1048576)' "$(rl_json oom 'j["peak_memory_bytes"]')"
rl_ok "oom: no cgroup is left" rl_cg_same oom

# ---- Pids: a fork loop is held at 32 and the run goes on -------------------------------

mark=$(rl_mark 1)
rl_go_watched pids "$mark" --tree "$tree" --pids 32 -- python3 -c '
import os, time
kids, failed = [], 0
for i in range(64):
    try:
        pid = os.fork()
    except BlockingIOError:
        failed += 1
        continue
    if pid == 0:
        time.sleep(1)
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
print("started=%d failed=%d" % (len(kids), failed))
' "$mark"
rl_status "pids: a fork loop under --pids 32 ends by itself, exit 0" 0
rl_is "pids: pids.max" 32 "$(rl_w pids pids.max)"
started=$(sed -n 's/^started=\([0-9]*\) .*/\1/p' "$T/pids.out")
rl_ok "pids: forks past the limit failed inside ($(cat "$T/pids.out"))" \
	sh -c "grep -qE '^started=[0-9]+ failed=[1-9][0-9]*$' '$T/pids.out' && [ '${started:-99}' -le 31 ]"
rl_ok "pids: never above 32 at once, and close to it (peak $(rl_w pids pids_peak))" \
	sh -c "[ '$(rl_w pids pids_peak)' -le 32 ] && [ '$(rl_w pids pids_peak)' -ge 28 ]"
rl_ok "pids: no process of the run is left" rl_gone pids

# ---- CPUs: two busy loops get half a core ---------------------------------------------

rl_go cpus --tree "$tree" --cpus 0.5 -- python3 -c '
import os, resource, time
start = time.monotonic()
for i in range(2):
    if os.fork() == 0:
        while time.monotonic() - start < 3:
            pass
        os._exit(0)
os.wait()
os.wait()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f" % ((r.ru_utime + r.ru_stime) / (time.monotonic() - start)))
'
rl_status "cpus: two busy loops under --cpus 0.5 exit 0" 0
rl_ok "cpus: they used about half a core over 3 s (0.3 to 0.7: $(cat "$T/cpus.out"))" \
	"$OZ_PY" -c 'import sys; v = float(sys.argv[1]); sys.exit(not 0.3 <= v <= 0.7)' "$(cat "$T/cpus.out")"
tap_done
