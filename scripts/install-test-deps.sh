#!/usr/bin/env bash
# Installs the Debian packages the tests and benchmarks use when a command is missing (filesystem
# tools, loop devices, tini: the container image's init, whose entrypoint
# test/integration/docker/entrypoint.test.ts runs). Runs as the `pretest` step, so `npm test` sets up a fresh machine by itself.
# Needs root (or sudo) only when something is missing.
set -euo pipefail

declare -A pkg_for=(
  [blkid]=util-linux [losetup]=mount [blockdev]=util-linux [sfdisk]=fdisk
  [mkfs.ext4]=e2fsprogs [resize2fs]=e2fsprogs [dumpe2fs]=e2fsprogs [e2fsck]=e2fsprogs [tune2fs]=e2fsprogs
  [mkfs.xfs]=xfsprogs [xfs_growfs]=xfsprogs [xfs_io]=xfsprogs
  [mkfs.btrfs]=btrfs-progs [btrfs]=btrfs-progs
  [mkfs.vfat]=dosfstools
  [openssl]=openssl [python3]=python3
  [tini]=tini
)
# The filesystem tools live in the sbin directories, which Debian leaves out of a non-root PATH:
# look there too, or installed tools look missing (and sudo apt-get runs for nothing). voe itself
# searches them (DEFAULT_SEARCH_PATH in src/fsresize/run/exec-file-runner.ts).
search_path="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
missing=()
for cmd in "${!pkg_for[@]}"; do
  PATH="$search_path" command -v "$cmd" >/dev/null 2>&1 || missing+=("${pkg_for[$cmd]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "install-test-deps: installing ${missing[*]}" >&2
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
