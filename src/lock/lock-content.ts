/** A process named in a lock file: its pid and, when known, its start time (see processStartTime). */
export interface LockProcess {
  pid: number;
  start?: number;
}

/** What a lock file says about its holder. */
export interface LockContent {
  holder: LockProcess;
  token: string;
  /** The holder's PID namespace ("pid:[4026531836]"); absent in files of older voe or without /proc. */
  namespace?: string;
  /** A process the holder started to work under the lock (a grow or check tool); it may outlive the holder. */
  helper?: LockProcess;
}

function processField(pid: number, start: number | undefined): string {
  return start === undefined ? String(pid) : `${pid}:${start}`;
}

function parseProcess(text: string): LockProcess | null {
  const [pidText, startText] = text.split(':');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const start = startText === undefined ? undefined : Number(startText);
  if (start !== undefined && !Number.isSafeInteger(start)) return null;
  return start === undefined ? { pid } : { pid, start };
}

/**
 * One line: "<pid> <token> [<pid namespace>] [start=<ticks>] [helper=<pid>[:<ticks>]]". The first
 * three fields are what older voe wrote and read (they ignore the rest).
 */
export function formatLockContent(content: LockContent): string {
  const fields = [String(content.holder.pid), content.token];
  if (content.namespace) fields.push(content.namespace);
  if (content.holder.start !== undefined) fields.push(`start=${content.holder.start}`);
  if (content.helper)
    fields.push(`helper=${processField(content.helper.pid, content.helper.start)}`);
  return `${fields.join(' ')}\n`;
}

/** Reads a lock file's content; null when it is not one (empty, half written, garbage). */
export function parseLockContent(text: string): LockContent | null {
  const [pidText, token = '', ...rest] = text.trim().split(' ');
  const holder = parseProcess(pidText ?? '');
  if (holder === null || holder.start !== undefined) return null;
  const content: LockContent = { holder, token };
  for (const field of rest) {
    if (field.startsWith('start=')) {
      const start = Number(field.slice('start='.length));
      if (!Number.isSafeInteger(start)) return null;
      holder.start = start;
    } else if (field.startsWith('helper=')) {
      const helper = parseProcess(field.slice('helper='.length));
      if (helper === null) return null;
      content.helper = helper;
    } else if (content.namespace === undefined) {
      content.namespace = field;
    }
  }
  return content;
}
