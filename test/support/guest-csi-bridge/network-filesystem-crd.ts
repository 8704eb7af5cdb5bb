import type { KubeConfig, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { installCrds } from '../../../src/controlplane/index.js';

/**
 * Harvester's NetworkFilesystem CRD, minimal: the group, version, names, scope and status
 * subresource of harvester/networkfs-manager manifests/crds/harvesterhci.io_networkfilesystems.yaml,
 * and the spec and status fields of its type (pkg/apis/harvesterhci.io/v1beta1/types.go) with
 * their required fields, enums and defaults; descriptions and printer columns left out.
 */
export function networkFilesystemCrd(): V1CustomResourceDefinition {
  const states = ['Enabled', 'Enabling', 'Disabling', 'Disabled', 'Unknown'];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'networkfilesystems.harvesterhci.io' },
    spec: {
      group: 'harvesterhci.io',
      scope: 'Namespaced',
      names: {
        kind: 'NetworkFilesystem',
        listKind: 'NetworkFilesystemList',
        plural: 'networkfilesystems',
        singular: 'networkfilesystem',
        shortNames: ['netfilesystem', 'netfilesystems'],
      },
      versions: [
        {
          name: 'v1beta1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  required: ['desiredState', 'networkFSName'],
                  properties: {
                    desiredState: { type: 'string' },
                    networkFSName: { type: 'string' },
                    perferredNodes: { type: 'string' },
                    provisioner: { type: 'string' },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    conditions: {
                      type: 'array',
                      default: [],
                      items: {
                        type: 'object',
                        required: ['lastTransitionTime', 'status', 'type'],
                        properties: {
                          lastTransitionTime: { type: 'string', format: 'date-time' },
                          message: { type: 'string' },
                          reason: { type: 'string' },
                          status: { type: 'string' },
                          type: { type: 'string' },
                        },
                      },
                    },
                    endpoint: { type: 'string', default: '' },
                    mountOpts: { type: 'string' },
                    state: { type: 'string', default: 'Disabled', enum: states },
                    status: {
                      type: 'string',
                      default: 'NotReady',
                      enum: ['Ready', 'NotReady', 'Reconciling', 'Unknown'],
                    },
                    type: { type: 'string', default: 'NFS', enum: ['NFS', 'Unknown'] },
                  },
                },
              },
            },
          },
        },
      ],
    },
  } as unknown as V1CustomResourceDefinition;
}

/** Installs the NetworkFilesystem CRD and waits until it serves. */
export async function installNetworkFilesystemCrd(kubeConfig: KubeConfig): Promise<void> {
  await installCrds(kubeConfig, [networkFilesystemCrd()]);
}
