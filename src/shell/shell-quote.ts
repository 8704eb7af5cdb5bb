/** Characters a POSIX shell reads as themselves in a word. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `text` as one word for a POSIX shell (sh, bash, zsh), for lines a user pastes or evals: as it is
 * when nothing in it is special, else in single quotes (a quote in it as '\'').
 */
export function shellQuote(text: string): string {
  return PLAIN.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
