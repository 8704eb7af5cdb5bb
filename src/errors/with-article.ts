/**
 * Names that are read letter by letter or start with a vowel sound take "an": "an ext4", "an xfs",
 * "an NTFS", "an LVM2_member"; the others "a": "a btrfs", "a gpt", "a dos".
 */
const AN = /^(?:[aeio]|x|ntfs|f2fs|hfs|lvm|sgi|mbr)/i;

/** `word` after the indefinite article it takes, for messages that name a filesystem, table or type. */
export function withArticle(word: string): string {
  return `${AN.test(word) ? 'an' : 'a'} ${word}`;
}
