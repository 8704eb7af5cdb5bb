/** Where, not what: V8's message quotes the text around the error, which may be anything the client sent. */
export function invalidJsonMessage(error: unknown): string {
  const at = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  return `the request body is not valid JSON${at === undefined ? '' : ` (at character ${at})`}`;
}
