/** A fenced code block of a Markdown file and the marker comment on the line before it. */
export interface FencedBlock {
  /** The info string after the opening fence (`sh`). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's lines, without the fences and without the list indentation of the opening fence. */
  text: string;
  /** `<!-- tested: SCENARIO -->`: the scenario of test/integration/docs that runs it. */
  tested?: string;
  /** `<!-- not run here: REASON -->`: why no test runs it. */
  notRunReason?: string;
}

const TESTED = /^\s*<!--\s*tested:\s*([a-z0-9-]+)\s*-->\s*$/;
const NOT_RUN = /^\s*<!--\s*not run here:\s*(.+?)\s*-->\s*$/;

/** The fenced blocks (```) of `markdown`, each with the marker of the nearest non-blank line above it. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) {
      body.push(lines[end]!.slice(Math.min(indent, lines[end]!.search(/\S|$/))));
      end++;
    }
    let above = i - 1;
    while (above >= 0 && lines[above]!.trim() === '') above--;
    const marker = above >= 0 ? lines[above]! : '';
    const tested = TESTED.exec(marker)?.[1];
    const notRunReason = NOT_RUN.exec(marker)?.[1];
    blocks.push({
      lang: open[2]!,
      line: i + 1,
      text: body.join('\n'),
      ...(tested ? { tested } : {}),
      ...(notRunReason ? { notRunReason } : {}),
    });
    i = end;
  }
  return blocks;
}
