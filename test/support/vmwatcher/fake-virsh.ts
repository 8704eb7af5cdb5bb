/**
 * A fake `virsh` for tests that have no libvirt: an executable named `virsh` in a directory of its
 * own, answering `domblklist`, `dumpxml` and `domblkinfo` for the domains of a fixture, with the
 * text and exit codes virsh gives (virsh-tools.c / virsh-domain-monitor.c: an unknown domain is
 * "error: failed to get domain 'NAME'" on stderr and exit 1; a wrong `-c` URI is "error: failed to
 * connect to the hypervisor" and exit 1). The executable is a few lines of JavaScript run by this
 * process's node, importing fakeVirshMain; nothing of the fixture is put into a shell.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One domain as the fake answers for it. */
export interface FakeDomain {
  /** `virsh domblklist` output. */
  blklist: string;
  /** `virsh dumpxml` output. */
  xml: string;
  /** `virsh domblkinfo DOMAIN TARGET` output, by target. */
  blkinfo: Record<string, string>;
}

export interface FakeVirshFixture {
  /** The only URI `-c` may name (the launcher's libvirt). */
  uri: string;
  domains: Record<string, FakeDomain>;
}

/** What the fake answers for `argv` (the arguments after `virsh`). Pure. */
export function fakeVirshAnswer(
  argv: readonly string[],
  fixture: FakeVirshFixture,
): { stdout: string; stderr: string; code: number } {
  const fail = (stderr: string) => ({ stdout: '', stderr, code: 1 });
  if (argv[0] !== '-c' || argv[1] !== fixture.uri)
    return fail(
      `error: failed to connect to the hypervisor\nerror: no valid connection to ${argv[1] ?? 'the default URI'}\n`,
    );
  const [command, name, target] = argv.slice(2);
  const domain = name === undefined ? undefined : fixture.domains[name];
  if (command !== 'domblklist' && command !== 'dumpxml' && command !== 'domblkinfo')
    return fail(`error: unknown command: '${command ?? ''}'\n`);
  if (!domain) return fail(`error: failed to get domain '${name ?? ''}'\n`);
  if (command === 'domblklist') return { stdout: domain.blklist, stderr: '', code: 0 };
  if (command === 'dumpxml') return { stdout: domain.xml, stderr: '', code: 0 };
  const info = target === undefined ? undefined : domain.blkinfo[target];
  if (info === undefined)
    return fail(`error: invalid argument: invalid path ${target ?? ''} not assigned to domain\n`);
  return { stdout: info, stderr: '', code: 0 };
}

/** The fake's entry point: answers process.argv for `fixture` and exits with the code. */
export function fakeVirshMain(fixture: FakeVirshFixture): void {
  const answer = fakeVirshAnswer(process.argv.slice(2), fixture);
  process.stdout.write(answer.stdout);
  process.stderr.write(answer.stderr);
  process.exitCode = answer.code;
}

/**
 * Writes the executable `virsh` into `dir` (created when missing) for `fixture`; resolves with
 * `dir`, to put first on a PATH. `main` names another fake's entry point (a module URL and its
 * export, called with the fixture), such as the guest agent's (test/support/guest-grow).
 */
export async function installFakeVirsh<F extends FakeVirshFixture>(
  dir: string,
  fixture: F,
  main: { module: string; name: string } = { module: import.meta.url, name: 'fakeVirshMain' },
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'virsh');
  await writeFile(
    file,
    `#!${process.execPath}\n` +
      `import(${JSON.stringify(main.module)}).then((m) => m[${JSON.stringify(main.name)}](${JSON.stringify(fixture)}));\n`,
  );
  await chmod(file, 0o755);
  return dir;
}
