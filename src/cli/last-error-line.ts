/**
 * The last line in `text` that errorLine() wrote for a VoeError ("voe: <CODE>: <message>"), with
 * the message's first line: how a `voe` whose output went to a log file (the supervisor `voe
 * cluster start` runs in the background) said why it stopped. Undefined when no line says so.
 */
export function lastErrorLine(text: string): { code: string; message: string } | undefined {
  let last: { code: string; message: string } | undefined;
  for (const match of text.matchAll(/^voe: ([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+): (.*)$/gm))
    last = { code: match[1]!, message: match[2]! };
  return last;
}
