import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { waitUntil } from '../../../src/wait/index.js';
import { sh, type LoopDevice, type Scratch } from '../fsresize/loop-device.js';
import type { ShareServer } from '../guest-csi-bridge/host-share-actor.js';

/** The NFS port ganesha serves, NFSv4's (no rpcbind: NFSv4 needs none). */
export const NFS_PORT = 2049;

interface Export {
  id: number;
  loop: LoopDevice;
  directory: string;
}

export interface GaneshaShareServerOptions {
  /** Where the volumes' backing files, mount points, state and ganesha's config and log go. */
  scratch: Scratch;
  /** The address clients mount (e.g. 10.0.2.2: the lab guest's way to this host's loopback). */
  clientAddress: string;
  /** The address ganesha listens on (default 127.0.0.1). */
  bindAddress?: string;
}

/** ganesha's configuration: NFSv4 over TCP only (no NLM, rquota or UDP, so no rpcbind), one VFS export per volume at `/<volume>`. Pure. */
export function ganeshaConfig(
  bindAddress: string,
  stateDirectory: string,
  exports: ReadonlyMap<string, { id: number; directory: string }>,
): string {
  const blocks = [...exports].map(
    ([volume, { id, directory }]) =>
      `EXPORT {\n  Export_Id = ${id};\n  Path = ${directory};\n  Pseudo = /${volume};\n` +
      `  Access_Type = RW;\n  Squash = No_Root_Squash;\n  Protocols = 4;\n  Transports = TCP;\n` +
      `  SecType = sys;\n  FSAL { Name = VFS; }\n}\n`,
  );
  return (
    `NFS_CORE_PARAM {\n  Protocols = 4;\n  NFS_Port = ${NFS_PORT};\n  Bind_addr = ${bindAddress};\n` +
    `  Enable_NLM = false;\n  Enable_RQUOTA = false;\n  Enable_UDP = false;\n}\n` +
    `NFSV4 {\n  Graceless = true;\n  RecoveryBackend = fs;\n  RecoveryRoot = ${stateDirectory};\n` +
    `  Minor_Versions = 0, 1, 2;\n}\n` +
    `NFS_KRB5 { Active_krb5 = false; }\n` +
    blocks.join('')
  );
}

/**
 * Longhorn's share manager for the tests, served for real: each volume an xfs filesystem on a
 * loop device (the RWX volume's block device in the share manager pod), exported over NFSv4 at
 * `/<volume>` by nfs-ganesha with FSAL_VFS (the NFS server Longhorn's share manager runs; Debian's
 * nfs-ganesha and nfs-ganesha-vfs, installed by scripts/install-test-deps.sh), restarted on each
 * change of its exports (Graceless, so clients go on at once). A volume grown is grown as the
 * share manager grows it online: the loop device, then xfs_growfs on the mounted filesystem.
 */
export class GaneshaShareServer implements ShareServer {
  readonly #options: GaneshaShareServerOptions;
  readonly #exports = new Map<string, Export>();
  #process: ChildProcess | undefined;
  #nextId = 1;
  #directory: string | undefined;

  constructor(options: GaneshaShareServerOptions) {
    this.#options = options;
  }

  async start(volume: string, bytes: bigint): Promise<string> {
    if (!this.#exports.has(volume)) {
      const loop = await this.#options.scratch.attach(Number(bytes));
      await sh('mkfs.xfs', ['-q', loop.device]);
      const directory = await this.#options.scratch.directory(`share-${volume}`);
      await this.#options.scratch.mountFrom(loop.device, directory);
      await chmod(directory, 0o777);
      this.#exports.set(volume, { id: this.#nextId++, loop, directory });
      await this.#restart();
    }
    return this.#options.clientAddress;
  }

  async grow(volume: string, bytes: bigint): Promise<void> {
    const share = this.#exports.get(volume);
    if (!share) return;
    await share.loop.growBacking(Number(bytes));
    await sh('xfs_growfs', [share.directory]);
  }

  async stop(volume: string): Promise<void> {
    const share = this.#exports.get(volume);
    if (!share) return;
    this.#exports.delete(volume);
    await this.#restart();
    // The filesystem and loop device go with the scratch's cleanup.
  }

  /** Stops ganesha. */
  async close(): Promise<void> {
    await this.#kill();
  }

  /** The end of ganesha's log, for a failed test's message. */
  async log(): Promise<string> {
    if (!this.#directory) return '';
    const text = await readFile(join(this.#directory, 'ganesha.log'), 'utf8').catch(() => '');
    return text.split('\n').slice(-30).join('\n');
  }

  #bindAddress(): string {
    return this.#options.bindAddress ?? '127.0.0.1';
  }

  async #kill(): Promise<void> {
    const child = this.#process;
    this.#process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  async #restart(): Promise<void> {
    await this.#kill();
    if (this.#exports.size === 0) return;
    this.#directory ??= await this.#options.scratch.directory('ganesha');
    const dir = this.#directory;
    const state = await this.#options.scratch.directory('ganesha/state');
    const config = join(dir, 'ganesha.conf');
    await writeFile(config, ganeshaConfig(this.#bindAddress(), state, this.#exports));
    const child = spawn(
      'ganesha.nfsd',
      [
        '-F',
        '-f',
        config,
        '-L',
        join(dir, 'ganesha.log'),
        '-p',
        join(dir, 'ganesha.pid'),
        '-N',
        'NIV_EVENT',
      ],
      { stdio: 'ignore' },
    );
    this.#process = child;
    const listening = await waitUntil(
      async () => child.exitCode !== null || (await answers(this.#bindAddress(), NFS_PORT)),
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    if (listening !== 'ok' || child.exitCode !== null)
      throw new Error(`ganesha.nfsd did not start serving NFS: ${await this.log()}`);
  }
}

/** Whether a TCP connection to `host`:`port` is accepted. */
function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
