/**
 * A copy, readable by every user, of a compiled ES module and of every module it imports by a
 * relative specifier (followed recursively): for a process a test runs as another user, who may
 * not read the checkout (a clone in a mode-0700 home directory, say). The copy keeps the modules'
 * relative layout, lives in a new directory of mode 0755 under the system's temporary directory,
 * and is removed after the test. The packages those modules import (and the packages those
 * depend on) are copied whole into the copy's node_modules.
 */
import { existsSync } from 'node:fs';
import {
  chmod,
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { onCleanup } from './cleanup.js';
import ts from 'typescript';

/** The package a bare specifier names: `name` or `@scope/name`, without a subpath. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * `entry` and the modules it imports by relative specifiers, recursively (absolute paths), and
 * the names of the packages they import.
 */
async function moduleClosure(entry: string): Promise<{ files: string[]; packages: string[] }> {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    // TypeScript's pre-processor lists static imports, re-exports and dynamic imports of literals.
    const { importedFiles } = ts.preProcessFile(await readFile(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith('./') || fileName.startsWith('../'))
        pending.push(resolve(dirname(file), fileName));
      else if (!fileName.startsWith('node:')) packages.add(packageName(fileName));
    }
  }
  return { files: [...files], packages: [...packages] };
}

/** The directory of package `name` as Node would find it from `from`: the nearest node_modules. */
function packageDirectory(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`package ${name} not found from ${from}`);
  }
}

/** Copies `names`, and the packages they depend on, whole into `target`/node_modules. */
async function copyPackages(names: string[], from: string, target: string): Promise<void> {
  const copied = new Set<string>();
  for (let name = names.pop(); name !== undefined; name = names.pop()) {
    if (copied.has(name)) continue;
    copied.add(name);
    const source = packageDirectory(name, from);
    await cp(source, join(target, 'node_modules', name), { recursive: true, dereference: true });
    const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    names.push(...Object.keys(manifest.dependencies ?? {}));
  }
}

/** The deepest directory that holds every one of `files`. */
function commonDirectory(files: string[]): string {
  const parts = files.map((file) => dirname(file).split(sep));
  const first = parts[0] ?? [];
  let length = first.length;
  for (const other of parts)
    while (length > 0 && other.slice(0, length).join(sep) !== first.slice(0, length).join(sep))
      length -= 1;
  return first.slice(0, length).join(sep) || sep;
}

/**
 * Copies `entry` (a compiled module of this checkout) and what it imports; resolves with the
 * copy's directory (a working directory the other user may enter) and the file URL of `entry`
 * there. Call it from within a test.
 */
export async function readableModuleCopy(entry: URL): Promise<{ directory: string; url: string }> {
  const { files, packages } = await moduleClosure(fileURLToPath(entry));
  const root = commonDirectory(files);
  const directory = await mkdtemp(join(tmpdir(), 'voe-readable-'));
  onCleanup(() => rm(directory, { recursive: true, force: true }));
  // ES modules, as the checkout's package.json declares them.
  await writeFile(join(directory, 'package.json'), '{ "type": "module" }\n');
  for (const file of files) {
    const target = join(directory, relative(root, file));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file, target);
  }
  await copyPackages(packages, root, directory);
  // Modes set explicitly: mkdtemp makes 0700, and a umask may narrow anything else.
  await chmod(directory, 0o755);
  for (const found of await readdir(directory, { recursive: true, withFileTypes: true }))
    await chmod(join(found.parentPath, found.name), found.isDirectory() ? 0o755 : 0o644);
  return {
    directory,
    url: pathToFileURL(join(directory, relative(root, fileURLToPath(entry)))).href,
  };
}
