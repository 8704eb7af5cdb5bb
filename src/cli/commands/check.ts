import { Option, type Command } from 'commander';
import { isDnsLabel, isDnsSubdomain } from '../../kube/index.js';
import { CheckError, checkResize, loadCheckCaches, readCheckSize } from '../../check/index.js';
import {
  addAdmissionFlags,
  admissionOptionsFromFlags,
  type AdmissionFlags,
} from '../admission-flags.js';
import { apiAnswersWithin } from '../api-answers-within.js';
import { exitOnceAnswered } from '../exit-once-answered.js';
import { formatCheckResult } from '../format-check-result.js';
import { clientNodeKubeConfig } from '../../kube/client-node-kube-config.js';
import { loadKubeConfigOr } from '../load-kube-config-or.js';
import { parseWaitSeconds } from '../parse-wait-seconds.js';

interface CheckOptions extends AdmissionFlags {
  size: string;
  longhorn: 'auto' | 'on' | 'off';
  kubeconfig?: string;
  json?: boolean;
  timeout: number;
}

/** `voe check NAMESPACE/PVC --size QUANTITY`: explains what the admission webhook would decide. */
export function register(program: Command): void {
  const command = program
    .command('check')
    .description(
      "Explain whether growing a PVC to SIZE would be admitted, with every reason found (the API server's own checks, " +
        "then the webhook's); changes nothing. " +
        'Exit 0 when allowed, 1 when refused (a code 500 refusal too, e.g. an invalid Setting), ' +
        '2 when the check itself fails (usage, kubeconfig, cluster not readable).',
    )
    .argument('<namespace/pvc>', 'the PVC to check, e.g. default/vm1-disk-0')
    .requiredOption(
      '--size <quantity>',
      'the requested size, e.g. 20Gi, read as the API server reads it from a JSON string ' +
        "(spaces and Go's other white space around it ignored, but not tabs or newlines, which a JSON string escapes; U+FEFF refused) " +
        'and stores it (rounded up to milli units: 10737418239.9999 is 10Gi)',
    )
    .option(
      '--kubeconfig <file>',
      'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config or in-cluster)',
    )
    .option('--json', 'print the decision as JSON')
    .option(
      '--timeout <seconds>',
      "how long to wait for the API server's answers before giving up (exit 2)",
      parseWaitSeconds,
      60,
    )
    .addOption(
      new Option(
        '--longhorn <mode>',
        'read Longhorn Volumes, Engines and its version Setting, as voe serve --longhorn does: off = judge Longhorn volumes by their StorageClass parameters and read no Longhorn object',
      )
        .choices(['auto', 'on', 'off'])
        .default('auto'),
    );
  addAdmissionFlags(command).action(async (target: string, options: CheckOptions) => {
    const [namespace, name, extra] = target.split('/');
    if (!namespace || !name || extra !== undefined) {
      throw new CheckError(
        'CHECK_USAGE',
        `"${target}" is not NAMESPACE/PVC; write it like default/vm1-disk-0.`,
      );
    }
    // A name no PVC can have (".", "..", capitals) would be read from another URL, or never found.
    if (!isDnsLabel(namespace) || !isDnsSubdomain(name)) {
      throw new CheckError(
        'CHECK_USAGE',
        `${JSON.stringify(target.slice(0, 300))} is not NAMESPACE/PVC of a PVC (lower-case DNS names), e.g. default/vm1-disk-0.`,
      );
    }
    const admission = admissionOptionsFromFlags(
      options,
      (message) => new CheckError('CHECK_USAGE', message),
    );
    // As the API server reads and stores it; KUBE_QUANTITY_INVALID before any API call.
    const size = readCheckSize(options.size);
    const kubeConfig = clientNodeKubeConfig(
      loadKubeConfigOr(
        options.kubeconfig,
        (message) => new CheckError('CHECK_KUBECONFIG', message),
      ),
    );
    // An API server that accepts connections but never answers must not hold voe check for ever.
    exitOnceAnswered();
    const { pvc, caches, policies } = await apiAnswersWithin(
      loadCheckCaches(kubeConfig, { namespace, name }, admission, { longhorn: options.longhorn }),
      kubeConfig,
      options.timeout,
      'every read',
      (message) => new CheckError('CHECK_API_FAILED', message),
    );
    const result = checkResize(pvc, size, caches, admission, policies);
    process.stdout.write(
      options.json ? `${JSON.stringify(result, null, 2)}\n` : formatCheckResult(result),
    );
    process.exitCode = result.allowed ? 0 : 1;
  });
}
