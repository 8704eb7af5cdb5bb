/** The agent's virtio-serial port name (what KubeVirt's domain and the lab's name it). */
export const AGENT_PORT_NAME = 'org.qemu.guest_agent.0';

/** How the lab's guest runs its agent, from the kernel command line (`voe.agent=`). */
export type GuestAgentMode = 'on' | 'off' | 'no-exec';

/** The guest's address on QEMU's user-mode network (slirp's fixed guest address). */
export const USER_NETWORK_GUEST_ADDRESS = '10.0.2.15';
/** Where the guest reaches the host's loopback on QEMU's user-mode network (slirp's gateway). */
export const USER_NETWORK_HOST_ADDRESS = '10.0.2.2';

/** What the guest prints on its console once its agent runs (or would, with voe.agent=off). */
export const GUEST_READY_LINE = 'voe-guest-ready';

/**
 * The lab guest's /init (busybox sh): mounts proc, sysfs and devtmpfs, installs busybox's
 * applets (beside, never over, the growth tools' own binaries), sets the PATH the agent's
 * guest-exec searches, loads the modules listed in /etc/modules.order (virtio, the disk buses, the
 * console, the filesystems, device-mapper), starts systemd-udevd and has it process the devices
 * found so far, finds the guest agent's port under /sys/class/virtio-ports (its /dev/virtio-ports
 * link is udev's, which may come later), and starts qemu-ga on it unless
 * `voe.agent=off` (`voe.agent=no-exec`: qemu-ga refuses guest-exec). `voe.fs=<dev>` first makes
 * an ext2 filesystem on that disk and mounts it on /data (what guest-get-fsinfo then lists).
 * `voe.net=user` brings up the first NIC with QEMU's user-mode network's fixed addresses (the
 * guest 10.0.2.15/24, the host's loopback reached at 10.0.2.2). Then it idles as PID 1.
 */
export const GUEST_INIT = `#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /tmp /var/run /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/sbin:/usr/sbin:/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /etc/modules.order); do insmod "/lib/modules/$m" || echo "voe-guest: insmod $m failed"; done
mkdir -p /run/udev
/lib/systemd/systemd-udevd --daemon || echo "voe-guest: systemd-udevd did not start"
udevadm trigger --type=devices --action=add
udevadm settle --timeout=30
agent=on
fs=
net=
for word in $(cat /proc/cmdline); do
  case "$word" in
    voe.agent=*) agent="\${word#voe.agent=}" ;;
    voe.fs=*) fs="\${word#voe.fs=}" ;;
    voe.net=*) net="\${word#voe.net=}" ;;
  esac
done
if [ "$net" = user ]; then
  ip link set lo up
  for n in /sys/class/net/*; do [ "\${n##*/}" != lo ] && nic="\${n##*/}" && break; done
  { ip link set "$nic" up && ip addr add ${USER_NETWORK_GUEST_ADDRESS}/24 dev "$nic" && ip route add default via ${USER_NETWORK_HOST_ADDRESS}; } || echo "voe-guest: no user-mode network"
fi
if [ -n "$fs" ]; then
  mkdir -p /data
  { mke2fs -q "/dev/$fs" && mount -t ext4 "/dev/$fs" /data; } || echo "voe-guest: no filesystem on $fs"
fi
if [ "$agent" != off ]; then
  port=
  for try in $(seq 1 100); do
    for p in /sys/class/virtio-ports/*; do
      [ "$(cat "$p/name" 2>/dev/null)" = ${AGENT_PORT_NAME} ] && port="/dev/\${p##*/}"
    done
    [ -n "$port" ] && [ -e "$port" ] && break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    echo "voe-guest: no ${AGENT_PORT_NAME} port"
  elif [ "$agent" = no-exec ]; then
    qemu-ga -m virtio-serial -p "$port" -b guest-exec,guest-exec-status -d
  else
    qemu-ga -m virtio-serial -p "$port" -d
  fi
fi
echo ${GUEST_READY_LINE}
while true; do sleep 3600; done
`;
