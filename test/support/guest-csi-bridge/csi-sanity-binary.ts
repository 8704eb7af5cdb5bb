import { installGoTool, type GoTool, type InstallGoToolOptions } from '../build-go-program.js';

/** The csi-sanity release the tests run (docs/csi.md "Tests"). */
export const CSI_SANITY: GoTool = {
  name: 'csi-sanity',
  pkg: 'github.com/kubernetes-csi/csi-test/v5/cmd/csi-sanity',
  version: 'v5.4.0',
};

/** The path of csi-sanity, built once into the test cache (installGoTool: about a minute on 2 cores). */
export function ensureCsiSanity(options: InstallGoToolOptions = {}): Promise<string> {
  return installGoTool(CSI_SANITY, options);
}
