/** The packages that bring each tool the guest plan runs: Debian's, then RHEL's. */
const PACKAGES: Readonly<Record<string, { debian: string; rhel: string }>> = {
  growpart: { debian: 'cloud-guest-utils', rhel: 'cloud-utils-growpart' },
  sfdisk: { debian: 'fdisk', rhel: 'util-linux' },
  partx: { debian: 'util-linux', rhel: 'util-linux' },
  resizepart: { debian: 'util-linux', rhel: 'util-linux' },
  resize2fs: { debian: 'e2fsprogs', rhel: 'e2fsprogs' },
  xfs_growfs: { debian: 'xfsprogs', rhel: 'xfsprogs' },
  btrfs: { debian: 'btrfs-progs', rhel: 'btrfs-progs' },
  pvresize: { debian: 'lvm2', rhel: 'lvm2' },
  lvextend: { debian: 'lvm2', rhel: 'lvm2' },
};

/** `tool (Debian: pkg, RHEL: pkg)`, or the tool alone when voe does not know its packages. */
export function toolWithPackages(tool: string): string {
  const packages = PACKAGES[tool];
  return packages ? `${tool} (Debian: ${packages.debian}, RHEL: ${packages.rhel})` : tool;
}

/** The Debian and RHEL packages of `tools`, each once, in order. */
export function packagesOf(tools: readonly string[]): { debian: string[]; rhel: string[] } {
  const unique = (list: string[]): string[] => [...new Set(list)];
  const known = tools.flatMap((tool) => (PACKAGES[tool] ? [PACKAGES[tool]] : []));
  return {
    debian: unique(known.map((p) => p.debian)),
    rhel: unique(known.map((p) => p.rhel)),
  };
}
