import type { Command } from 'commander';
import { applyCrds } from '../../controlplane/apply-crds.js';
import { crdManifestDir } from '../../controlplane/install-crds.js';
import { readVoeCrds } from '../../controlplane/read-voe-crds.js';
import { KubeError } from '../../kube/index.js';
import { clientNodeKubeConfig } from '../../kube/client-node-kube-config.js';
import { loadKubeConfigOr } from '../load-kube-config-or.js';
import { parseWaitSeconds } from '../parse-wait-seconds.js';

interface ApplyFlags {
  dir?: string;
  timeout: number;
  kubeconfig?: string;
  json?: boolean;
}

/** `voe crds apply`: server-side apply of voe's own CRDs, as the host chart's pre-install/pre-upgrade hook runs it. */
export function register(program: Command): void {
  const crds = program.command('crds').description("voe's CustomResourceDefinitions");
  crds
    .command('apply')
    .description(
      "Server-side apply voe's own CRDs (group storage.voe.dev) from the manifests shipped with voe " +
        '(manifests/crds, /app/manifests/crds in the image) as field manager "voe", then wait until they are Established. ' +
        'Idempotent: a CRD already as shipped is left unchanged. The manifests are read before the cluster is contacted: ' +
        "a missing directory, invalid YAML or no CRD of voe's changes nothing (CONTROLPLANE_CRD_MANIFEST_INVALID).",
    )
    .option('--dir <dir>', 'directory of CRD manifests (default: the ones shipped with voe)')
    .option(
      '--timeout <seconds>',
      'wait this long for Established (CONTROLPLANE_CRD_TIMEOUT after)',
      parseWaitSeconds,
      120,
    )
    .option(
      '--kubeconfig <path>',
      'kubeconfig (default: in-cluster, then KUBECONFIG, then ~/.kube/config)',
    )
    .option('--json', 'print the result as JSON')
    .action(async (flags: ApplyFlags) => {
      const list = await readVoeCrds(flags.dir ?? crdManifestDir());
      const kc = clientNodeKubeConfig(
        loadKubeConfigOr(
          flags.kubeconfig,
          (message) => new KubeError('KUBE_KUBECONFIG_INVALID', message),
        ),
      );
      const applied = await applyCrds(kc, list, flags.timeout * 1000);
      if (flags.json) process.stdout.write(`${JSON.stringify(applied)}\n`);
      else
        for (const crd of applied)
          process.stdout.write(
            `${crd.name}: ${crd.changed ? 'applied' : 'unchanged'}, Established\n`,
          );
    });
}
