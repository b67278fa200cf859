#!/bin/sh
# Installs every Debian bookworm package that building oz0fs, its tests and
# its demo need. Idempotent: it asks apt only for what is missing.
set -eu

packages="
  build-essential autoconf automake libtool pkg-config
  fuse3 libfuse3-dev libgit2-dev libxxhash-dev libinih-dev nettle-dev libjson-c-dev libcriterion-dev
  libsystemd-dev
  liburing-dev
  clang libclang-rt-14-dev
  git sqlite3 rsync attr tar make python3 util-linux procps psmisc shfmt dash bash
  stress-ng fio
  debhelper dpkg-dev lintian bash-completion
"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
