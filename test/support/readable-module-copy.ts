/**
 * A copy, readable by every user, of a compiled ES module and of every module it imports by a
 * relative specifier (followed recursively): for a process a test runs as another user, who may
 * not read the checkout (a clone in a mode-0700 home directory, say). The copy keeps the modules'
 * relative layout, lives in a new directory of mode 0755 under the system's temporary directory,
 * and is removed after the test. A module that imports a package (anything but a relative or a
 * `node:` specifier) is refused: packages are not copied.
 */
import {
  chmod,
  copyFile,
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
import ts from 'typescript';
import { onCleanup } from './cleanup.js';

/** `entry` and the modules it imports, recursively (absolute paths). */
async function moduleClosure(entry: string): Promise<string[]> {
  const files = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    // TypeScript's pre-processor lists static imports, re-exports and dynamic imports of literals.
    const { importedFiles } = ts.preProcessFile(await readFile(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith('./') || fileName.startsWith('../'))
        pending.push(resolve(dirname(file), fileName));
      else if (!fileName.startsWith('node:'))
        throw new Error(`${file} imports ${fileName}: only relative and node: imports are copied`);
    }
  }
  return [...files];
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
  const files = await moduleClosure(fileURLToPath(entry));
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
  // Modes set explicitly: mkdtemp makes 0700, and a umask may narrow anything else.
  await chmod(directory, 0o755);
  for (const found of await readdir(directory, { recursive: true, withFileTypes: true }))
    await chmod(join(found.parentPath, found.name), found.isDirectory() ? 0o755 : 0o644);
  return {
    directory,
    url: pathToFileURL(join(directory, relative(root, fileURLToPath(entry)))).href,
  };
}
