/**
 * What KubeVirt adds to the scenario for each running VM (docs/tracker.md "Upstream facts"): its VMI, with a
 * volumeStatus entry per volume as virt-handler writes it, the virt-launcher pod that
 * virt-controller creates (the VMI lists it in status.activePods), and for vm4 the hotplug
 * attachment pod that holds its hotplugged volumes. The tracker finds each volume's pod there.
 */
import { ExpansionActors } from './actors/expansion-actors.js';
import { type HotplugVolume, type LauncherVolume } from './actors/staged-pods.js';
import type { VirtualMachineInstance } from '../model/index.js';
import { getObject } from '../kube/index.js';
import { scenarioClaims, scenarioVms } from './expansion-scenario.js';
import { KINDS, type StagedCluster } from './staged-cluster.js';
import { vmi } from './staged-objects.js';

/** The hotplug attachment pod's name, as the staged VMI's volumeStatus names it. */
export const HOTPLUG_POD_NAME = 'hp-volume-7kx2q';

interface ClaimVolume {
  name: string;
  claimName: string;
  hotpluggable: boolean;
}

function claimVolumes(volumes: ReadonlyArray<Record<string, unknown>>): ClaimVolume[] {
  return volumes.flatMap((volume) => {
    const source = volume['persistentVolumeClaim'] as
      { claimName?: string; hotpluggable?: boolean } | undefined;
    return source?.claimName
      ? [
          {
            name: String(volume['name']),
            claimName: source.claimName,
            hotpluggable: source.hotpluggable === true,
          },
        ]
      : [];
  });
}

/** Stages the VMI, the virt-launcher pod and any hotplug pod of every running VM of the scenario. */
export async function stageRunningInstances(cluster: StagedCluster): Promise<void> {
  const actors = new ExpansionActors(cluster.kubeConfig);
  const modes = Object.fromEntries(
    scenarioClaims().map((claim) => [
      claim.metadata?.name ?? '',
      claim.spec?.volumeMode === 'Filesystem' ? ('Filesystem' as const) : ('Block' as const),
    ]),
  );
  const running = scenarioVms().filter((machine) => machine.status?.printableStatus === 'Running');
  for (const machine of running) {
    const name = machine.metadata?.name ?? '';
    const namespace = machine.metadata?.namespace ?? 'default';
    const volumes = machine.spec?.template?.spec?.volumes ?? [];
    await cluster.apply({ vmis: [vmi(name, { namespace, volumes, volumeModes: modes })] });
    const { group, version, plural } = KINDS.vmis;
    const stored = await getObject<VirtualMachineInstance>(cluster.kubeConfig, {
      group,
      version,
      plural,
      namespace,
      name,
    });
    const claims = claimVolumes(volumes);
    const launcherVolumes: LauncherVolume[] = claims
      .filter((volume) => !volume.hotpluggable)
      .map((volume) => ({ ...volume, volumeMode: modes[volume.claimName] ?? 'Block' }));
    const launcher = await actors.createLauncher(stored, {
      name: `virt-launcher-${name}-x7k2p`,
      volumes: launcherVolumes,
    });
    const hotplugged: HotplugVolume[] = claims
      .filter((volume) => volume.hotpluggable)
      .map((volume) => ({
        name: volume.name,
        claimName: volume.claimName,
        hold: modes[volume.claimName] === 'Filesystem' ? 'mount' : 'device',
      }));
    if (hotplugged.length > 0)
      await actors.createHotplugPod(launcher, { name: HOTPLUG_POD_NAME, volumes: hotplugged });
    await actors.activePods(namespace, name, [launcher]);
  }
}
