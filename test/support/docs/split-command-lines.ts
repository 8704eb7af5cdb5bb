/**
 * The commands of a documented shell block, each as the argument array a shell would pass, without
 * running a shell: words split at unquoted blanks, '…' literal, "…" with \" \\ \$ \` escapes, a
 * backslash outside quotes escaping the next character (at a line's end: the command continues on
 * the next line), and `#` starting a word: a comment to the line's end. Anything only a shell
 * could do is refused: unquoted | & ; < > ( ) $ ` * ? [ ] (pipes, redirections, lists, substitutions,
 * globs, and a documented optional `[...]` left unsubstituted), and \ or ${ inside "…".
 */
export function splitCommandLines(text: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | undefined;
  const endWord = (): void => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') endCommand();
    else if (c === ' ' || c === '\t') endWord();
    else if (c === '#' && word === undefined) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (c === '\\') {
      const next = text[++i];
      if (next === undefined) throw new Error('a backslash ends the block');
      if (next !== '\n') word = (word ?? '') + next;
    } else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) throw new Error(`unclosed ' in ${JSON.stringify(text)}`);
      word = (word ?? '') + text.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      word ??= '';
      for (i++; text[i] !== '"'; i++) {
        if (i >= text.length) throw new Error(`unclosed " in ${JSON.stringify(text)}`);
        const d = text[i]!;
        if (d === '\\' && '"\\$`'.includes(text[i + 1] ?? '')) word += text[++i];
        else if (d === '$' || d === '`' || d === '\\')
          throw new Error(`${d} inside "…" needs a shell: ${JSON.stringify(text)}`);
        else word += d;
      }
    } else if ('|&;<>()$`*?[]'.includes(c))
      throw new Error(`${c} needs a shell: ${JSON.stringify(text)}`);
    else word = (word ?? '') + c;
  }
  endCommand();
  return commands;
}
