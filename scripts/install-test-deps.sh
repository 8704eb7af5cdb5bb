#!/usr/bin/env bash
# Installs the Debian packages the tests and benchmarks use when a command is missing (filesystem
# tools, loop devices, tini: the container image's init, whose entrypoint
# test/integration/docker/entrypoint.test.ts runs), and the VM lab (docs/tracker.md "The VM lab"):
# QEMU, libvirt and its client from Debian, and the guest's pieces (kernel, busybox-static,
# qemu-guest-agent, the growth tools) as extracted packages, never installed on the host. Runs as the `pretest`
# step, so `npm test` sets up a fresh machine by itself.
#   bash scripts/install-test-deps.sh        everything
#   bash scripts/install-test-deps.sh vm     only the VM lab (what `voe demo --vm` runs)
# The guest's packages are fetched with `apt-get download` and unpacked with `dpkg -x` into
# $VOE_CACHE_DIR/vm-lab/packages/<package>_<version> (default ~/.cache/voe), outside any clone;
# the last line of $VOE_CACHE_DIR/vm-lab/packages/guest.list names their directories.
# Needs root (or sudo) only when something is missing.
set -euo pipefail

only="${1:-all}"
case "$only" in
  all | vm) ;;
  *)
    echo "usage: install-test-deps.sh [vm]" >&2
    exit 2
    ;;
esac

declare -A pkg_for=()
if [ "$only" = all ]; then
  pkg_for=(
    [blkid]=util-linux [losetup]=mount [blockdev]=util-linux [sfdisk]=fdisk
    [mkfs.ext4]=e2fsprogs [resize2fs]=e2fsprogs [dumpe2fs]=e2fsprogs [e2fsck]=e2fsprogs [tune2fs]=e2fsprogs
    [mkfs.xfs]=xfsprogs [xfs_growfs]=xfsprogs [xfs_io]=xfsprogs
    [mkfs.btrfs]=btrfs-progs [btrfs]=btrfs-progs
    [mkfs.vfat]=dosfstools
    [openssl]=openssl [python3]=python3
    [tini]=tini
  )
fi
# The VM lab (docs/tracker.md "The VM lab"): what virt-launcher runs, from Debian, with no container engine.
pkg_for+=(
  [qemu-system-x86_64]=qemu-system-x86 [qemu-img]=qemu-utils
  [libvirtd]=libvirt-daemon [virtlogd]=libvirt-daemon [virsh]=libvirt-clients
  [apt-get]=apt [dpkg]=dpkg
  # A Filesystem-mode lab disk: disk.img on XFS on a loop device, grown online.
  [losetup]=mount [blockdev]=util-linux [mkfs.xfs]=xfsprogs [xfs_growfs]=xfsprogs
  # The NFS server of shared (RWX) guest volumes (test/support/nfs/ganesha-share-server.ts): a
  # user-space one, NFSv4 only, as Longhorn's share manager runs (the host kernel needs no nfsd).
  [ganesha.nfsd]=nfs-ganesha
)
# The filesystem tools live in the sbin directories, which Debian leaves out of a non-root PATH:
# look there too, or installed tools look missing (and sudo apt-get runs for nothing). voe itself
# searches them (DEFAULT_SEARCH_PATH in src/fsresize/run/exec-file-runner.ts).
search_path="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
missing=()
for cmd in "${!pkg_for[@]}"; do
  PATH="$search_path" command -v "$cmd" >/dev/null 2>&1 || missing+=("${pkg_for[$cmd]}")
done
# libvirtd's QEMU driver is a loadable module, not a command.
qemu_driver=(/usr/lib/*/libvirt/connection-driver/libvirt_driver_qemu.so)
[ -e "${qemu_driver[0]}" ] || missing+=(libvirt-daemon-driver-qemu)
# ganesha's VFS backend is a loadable module too.
ganesha_vfs=(/usr/lib/*/ganesha/libfsalvfs.so)
[ -e "${ganesha_vfs[0]}" ] || missing+=(nfs-ganesha-vfs)

SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)
export DEBIAN_FRONTEND=noninteractive
updated=
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  echo "install-test-deps: installing ${missing[*]}" >&2
  "${SUDO[@]}" apt-get update -qq
  updated=1
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# libvirtd runs QEMU as libvirt-qemu:libvirt-qemu (Debian's build), which libvirt-daemon-system
# would create; the lab installs libvirt without it.
for group in kvm libvirt libvirt-qemu; do
  getent group "$group" >/dev/null || "${SUDO[@]}" groupadd --system "$group"
done
getent passwd libvirt-qemu >/dev/null ||
  "${SUDO[@]}" useradd --system --gid libvirt-qemu --groups kvm --home-dir /var/lib/libvirt \
    --no-create-home --shell /usr/sbin/nologin libvirt-qemu
# /dev/kvm as Debian's udev rules leave it (root:kvm 0660). Where it is root's alone, libvirtd
# probes QEMU as root with KVM, then finds KVM unusable for libvirt-qemu, drops its capabilities
# cache and probes again, forever: every domain start hangs. (The lab's domains run under TCG.)
if [ -c /dev/kvm ] && [ "$(stat -c %G /dev/kvm)" != kvm ]; then
  "${SUDO[@]}" chgrp kvm /dev/kvm
  "${SUDO[@]}" chmod 0660 /dev/kvm
fi

# The guest: the kernel linux-image-amd64 points to, busybox-static, qemu-guest-agent and the
# guest's own growth tools (docs/guest-growth.md), each unpacked once per version. A tool's shared
# libraries are taken from this machine (the same Debian release) when its library package is
# installed here; the library packages that are not (e.g. lvm2's libdevmapper-event) are unpacked
# beside the tools, with those they need in turn.
cache="${VOE_CACHE_DIR:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache/voe}"
packages="$cache/vm-lab/packages"
mkdir -p "$packages"
candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'; }
kernel=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
if [ -z "$kernel" ] && [ -z "$updated" ]; then
  "${SUDO[@]}" apt-get update -qq
  updated=1
  kernel=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
fi
if [ -z "$kernel" ]; then
  echo "install-test-deps: apt-cache knows no linux-image-amd64 (is this Debian, with apt sources?)" >&2
  exit 1
fi
GUEST_TOOLS=(e2fsprogs xfsprogs btrfs-progs fdisk util-linux lvm2 dmsetup cloud-guest-utils udev)
# The library packages (lib*, zlib1g) the tools depend on, directly or through each other, that
# this machine has not installed.
missing_libraries() {
  local queue=("$@") seen=" " pkg dep
  while [ "${#queue[@]}" -gt 0 ]; do
    pkg="${queue[0]}"
    queue=("${queue[@]:1}")
    for dep in $(apt-cache depends --no-recommends --no-suggests "$pkg" 2>/dev/null |
      awk '/^ *(Pre)?Depends: (lib|zlib1g)[^<]*$/ { print $2 }'); do
      case "$seen" in *" $dep "*) continue ;; esac
      seen+="$dep "
      dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q 'ok installed' && continue
      echo "$dep"
      queue+=("$dep")
    done
  done
}
mapfile -t guest_libraries < <(missing_libraries "${GUEST_TOOLS[@]}")
dirs=()
for pkg in "$kernel" busybox-static qemu-guest-agent "${GUEST_TOOLS[@]}" "${guest_libraries[@]}"; do
  version=$(candidate "$pkg")
  if [ -z "$version" ] || [ "$version" = "(none)" ]; then
    echo "install-test-deps: apt-cache has no candidate for $pkg" >&2
    exit 1
  fi
  dir="${pkg}_${version//:/%3a}"
  dirs+=("$dir")
  [ -d "$packages/$dir" ] && continue
  echo "install-test-deps: unpacking $pkg $version into $packages/$dir (guest of the VM lab)" >&2
  work=$(mktemp -d "$packages/.download.XXXXXX")
  # apt-get downloads as its own user (_apt) when it can.
  chmod 0777 "$work"
  (cd "$work" && apt-get download -qq "$pkg=$version")
  mkdir "$work/root"
  dpkg -x "$work"/*.deb "$work/root"
  mv "$work/root" "$packages/$dir"
  rm -rf "$work"
done
printf '%s\n' "${dirs[*]}" >"$packages/guest.list"
