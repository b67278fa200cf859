#!/bin/bash
# The systemd units (contrib/systemd/*.in): systemd-analyze verify finds
# nothing to say about either, with their commands pointed at this build's
# binaries (verify insists that each command exists and runs) and their
# Documentation= pages at the source's. A unit with a mistake in it makes
# verify speak, so silence means something. Outside CI a machine without
# systemd-analyze skips; in CI it fails.
. "$(dirname "$0")/../integration/lib.sh"

oz_setup 120
src=${OZ0_SRCDIR:?}
build=${OZ0_BUILDDIR:?}
command -v systemd-analyze >/dev/null || oz_unavailable "systemd-analyze is missing (Debian package systemd)"

# The man pages where man finds them.
mkdir -p "$T/man/man1" "$T/man/man5" "$T/units"
for page in oz0fs.1 oz0run.1 oz0settle.1; do
	ln -s "$src/contrib/$page" "$T/man/man1/$page"
done
ln -s "$src/contrib/oz0fs.conf.5" "$T/man/man5/oz0fs.conf.5"

# verify UNIT...: runs systemd-analyze verify; what it says is in $T/out.
# Fails when it fails or says anything (it warns about unknown keys and bad
# values with exit status 0).
verify() {
	(cd "$T/units" && MANPATH=$T/man timeout 60 systemd-analyze verify "$@") >"$T/out" 2>&1 && ! [ -s "$T/out" ]
}

for unit in oz0fs@.service oz0run-node.service; do
	sed "s|@bindir@|$build|g" "$src/contrib/systemd/$unit.in" >"$T/units/$unit"
	check "systemd-analyze verify $unit: nothing to say" verify "$unit"
done
ln -s oz0fs@.service "$T/units/oz0fs@srv-repo.service"
check "systemd-analyze verify oz0fs@srv-repo.service (an instance)" verify oz0fs@srv-repo.service

sed 's/^Type=notify$/Type=notfy/' "$T/units/oz0fs@.service" >"$T/units/broken@.service"
check_fails "a bad value in a unit makes verify speak (the checks above can fail)" verify broken@.service

unit=$T/units/oz0fs@.service
check "oz0fs@.service is Type=notify (oz0fs says READY=1)" grep -qx 'Type=notify' "$unit"
check "oz0fs@.service runs oz0fs -f (the notifying process is the main one)" \
	grep -qx "ExecStart=$build/oz0fs -f \$OZ0FS_OPTIONS %f %f" "$unit"
check_fails "oz0fs@.service has no setting that would give it a mount namespace of its own" \
	grep -nE '^(Protect(System|Home)|Private(Tmp|Devices|Mounts)|ReadWritePaths|ReadOnlyPaths|InaccessiblePaths|TemporaryFileSystem|BindPaths|MountFlags|RootDirectory)=' "$unit"
check "oz0run-node.service delegates cpu, memory and pids" grep -qx 'Delegate=cpu memory pids' \
	"$T/units/oz0run-node.service"

tap_done
