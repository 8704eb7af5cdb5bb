import { readFile } from 'node:fs/promises';

/** The pid a pid file holds; undefined when the file is missing, unreadable or holds no positive whole number. */
export async function readPidFile(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const pid = text ? Number.parseInt(text, 10) : NaN;
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
