#!/bin/bash
# The Debian package: built from the tarball's tree (make distdir) with
# `dpkg-buildpackage -us -uc -b` as the README says, without errors or
# warnings from lintian, installed by dpkg in a scratch root (its maintainer
# scripts run against that root, DPKG_ROOT, never the host's), where it holds
# what it must; that root's oz0fs and oz0run then run with the host's
# libraries (--version, --check), and a purge leaves nothing behind.
. "$(dirname "$0")/../integration/lib.sh"

oz_setup 1500
build=${OZ0_BUILDDIR:?}
for tool in dpkg-buildpackage dh lintian dpkg; do
	command -v "$tool" >/dev/null ||
		oz_unavailable "$tool is missing (contrib/install-deps.sh installs debhelper, dpkg-dev and lintian)"
done
[ "$(id -u)" -eq 0 ] || oz_unavailable "dpkg --root needs root"
version=$("$OZ0FS" --version)
version=${version#oz0fs }
tree=$T/oz0fs-$version
root=$T/root
jobs=$(nproc 2>/dev/null || echo 2)

# ---- Build -------------------------------------------------------------------
check "make distdir: the tarball's tree" make -s -C "$build" distdir distdir="$tree" top_distdir="$tree"
check_eq "debian/changelog's version is configure's" "$version" \
	"$(cd "$tree" && dpkg-parsechangelog -S Version 2>&1)"
start=$(date +%s)
# nocheck: the unit tests have run in this build already. nice: make check
# runs other tests beside this one, some of them timed.
(cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=$jobs" timeout 1200 nice -n 19 dpkg-buildpackage -us -uc -b) \
	>"$T/build.log" 2>&1
status=$?
tap_result "dpkg-buildpackage -us -uc -b" "$status" "$(tail -n 30 "$T/build.log")"
diag "dpkg-buildpackage took $(($(date +%s) - start)) s"
arch=$(dpkg --print-architecture)
deb=$T/oz0fs_${version}_$arch.deb
check "the package is there: oz0fs_${version}_$arch.deb" test -f "$deb"
[ -f "$deb" ] || tap_done

# Lintian's errors and warnings fail; what it only notes is shown.
lintian --fail-on error,warning --display-info "$T/oz0fs_${version}_$arch.changes" >"$T/lintian.log" 2>&1
status=$?
tap_result "lintian: no error and no warning" "$status" "$(grep -E '^[EW]: ' "$T/lintian.log")"
diag "lintian: $(grep -cE '^[EWIP]: ' "$T/lintian.log") tags: $(grep -oE '^[EWIP]: oz0fs[^:]*: [a-z0-9-]+' "$T/lintian.log" |
	sort | uniq -c | tr -s ' ' | tr '\n' ';')"

# ---- Install in a scratch root -------------------------------------------------
# A minimal dpkg database; the dependencies are the host's (its libraries
# run the binaries), so dpkg is told not to look for them in the root.
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
scratch_dpkg() {
	dpkg --root="$root" --log="$T/dpkg.log" --force-depends --force-script-chrootless "$@"
}
check "dpkg --root=ROOT -i: installed" scratch_dpkg -i "$deb"
check_eq "the scratch root's dpkg database has it installed" "install ok installed $version" \
	"$(dpkg-query --root="$root" -W -f='${Status} ${Version}' oz0fs 2>&1)"

unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
expected=$(
	for c in oz0fs oz0run oz0settle; do
		echo "/usr/bin/$c"
		echo "/usr/share/bash-completion/completions/$c"
		echo "/usr/share/man/man1/$c.1.gz"
	done
	printf '%s\n' /usr/share/man/man5/oz0fs.conf.5.gz "$unitdir/oz0fs@.service" "$unitdir/oz0run-node.service" \
		/usr/share/doc/oz0fs/README.md.gz /usr/share/doc/oz0fs/changelog.gz /usr/share/doc/oz0fs/copyright \
		/usr/share/doc/oz0fs/examples/oz0fs.conf.example
)
# package_files: what the root holds outside dpkg's and systemd's own state.
package_files() {
	(cd "$root" && find . \( -path ./var/lib/dpkg -o -path ./var/lib/systemd \) -prune -o \( -type f -o -type l \) -print) |
		sed 's|^\.||' | sort
}
check_eq "the root holds the package's files and no others" "$(sort <<<"$expected")" "$(package_files)"
check_fails "no /etc/oz0fs/oz0fs.conf: every oz0fs would read it" test -e "$root/etc/oz0fs/oz0fs.conf"
check "the installed unit runs /usr/bin/oz0fs" grep -qx 'ExecStart=/usr/bin/oz0fs -f $OZ0FS_OPTIONS %f %f' \
	"$root$unitdir/oz0fs@.service"
check "the maintainer scripts kept their state in the root" test -d "$root/var/lib/systemd/deb-systemd-helper-enabled"
check_fails "...and not on the host" test -e /var/lib/systemd/deb-systemd-helper-enabled/oz0run-node.service.dsh-also
check_fails "oz0run-node.service is not enabled" test -e \
	"$root/etc/systemd/system/multi-user.target.wants/oz0run-node.service"

# ---- Run what was installed --------------------------------------------------------
check_eq "ROOT/usr/bin/oz0fs --version" "oz0fs $version" "$("$root/usr/bin/oz0fs" --version 2>&1)"
check_eq "ROOT/usr/bin/oz0run --version" "oz0run $version" "$("$root/usr/bin/oz0run" --version 2>&1)"
check "ROOT/usr/bin/oz0settle --help" "$root/usr/bin/oz0settle" --help
check "ROOT/usr/bin/oz0fs --check: this machine can run it" "$root/usr/bin/oz0fs" --check
diag "$(cat "$T/out")"

# ---- Purge -----------------------------------------------------------------------
check "dpkg --root=ROOT --purge" scratch_dpkg --purge oz0fs
check_eq "the purge leaves no file of the package" "" "$(package_files)"

tap_done
