/**
 * A Harvester `settings.harvesterhci.io/v1beta1` object (cluster-scoped). Its fields sit at
 * the top level, not under `spec` (manifests/crds/harvester.yaml); all are optional strings
 * except `customized`.
 */
export interface HarvesterSetting {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; resourceVersion?: string; [key: string]: unknown };
  default?: string;
  value?: string;
  customized?: boolean;
  source?: string;
  status?: unknown;
}

/** The Setting Harvester reads to decide which CSI drivers may grow volumes online. */
export const EXPAND_VALIDATION_SETTING_NAME = 'csi-online-expand-validation';

/** The `default` Harvester's settings controller writes (and resets at every start). */
export const EXPAND_VALIDATION_HARVESTER_DEFAULT = '{"driver.longhorn.io":true}';

/** The Longhorn CSI driver; Harvester's UI keeps its entry read-only. */
export const LONGHORN_DRIVER = 'driver.longhorn.io';
