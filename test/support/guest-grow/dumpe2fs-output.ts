/**
 * What e2fsprogs 1.47's `dumpe2fs -h` prints on a Debian bookworm guest (the other tools' outputs
 * are in test/support/fsresize/guest-outputs.ts). Only the size lines vary.
 */

/** `dumpe2fs -h DEVICE` (its header lines; the version goes to stderr). */
export function dumpe2fsHeader(blockCount: number, blockSize = 4096): string {
  return [
    'Filesystem volume name:   <none>',
    'Last mounted on:          /data',
    'Filesystem UUID:          0b7d9c56-3a1e-4f5c-9d2b-2f0a6c7e8d91',
    'Filesystem magic number:  0xEF53',
    'Filesystem revision #:    1 (dynamic)',
    'Filesystem features:      has_journal ext_attr resize_inode dir_index filetype needs_recovery extent 64bit flex_bg sparse_super large_file huge_file dir_nlink extra_isize metadata_csum',
    'Filesystem flags:         signed_directory_hash ',
    'Default mount options:    user_xattr acl',
    'Filesystem state:         clean',
    'Errors behavior:          Continue',
    'Filesystem OS type:       Linux',
    'Inode count:              655360',
    `Block count:              ${blockCount}`,
    'Reserved block count:     32768',
    `Block size:               ${blockSize}`,
    'Fragment size:            4096',
    '',
  ].join('\n');
}
