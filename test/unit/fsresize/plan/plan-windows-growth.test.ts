import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { GuestGrowthErrorCode } from '../../../../src/fsresize/model/guest-growth-error.js';
import { parseGuestFsinfo } from '../../../../src/fsresize/parse/parse-guest-fsinfo.js';
import {
  parseWindowsDisks,
  parseWindowsPartitions,
} from '../../../../src/fsresize/parse/parse-windows-storage.js';
import {
  planWindowsGrowth,
  type WindowsLayout,
} from '../../../../src/fsresize/plan/plan-windows-growth.js';
import { windowsFsinfo } from '../../../support/vmwatcher/windows-fsinfo.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
/** The disk was 40 GiB; the hypervisor grew it to 60 GiB and Windows sees 60 GiB (Get-Disk). */
const OLD = 40 * GiB;
const NEW = 60 * GiB;
const DRIVE0 = '\\\\.\\PhysicalDrive0';

/** Windows PowerShell 5.1's ConvertTo-Json: 4-space indents, two spaces after each colon, a lone object unwrapped. */
function convertToJson(objects: Array<Record<string, unknown>>): string {
  const one = (o: Record<string, unknown>, indent: string): string =>
    `{\n${Object.entries(o)
      .map(([k, v]) => `${indent}    "${k}":  ${JSON.stringify(v)}`)
      .join(',\n')}\n${indent}}`;
  return objects.length === 1
    ? one(objects[0]!, '')
    : `[\n${objects.map((o) => `    ${one(o, '    ')}`).join(',\n')}\n]`;
}

interface Part {
  number: number;
  letter?: string;
  offset: number;
  size: number;
  type: string;
  gptType?: string;
  mbrType?: number;
}

function partitions(parts: Part[]): string {
  return convertToJson(
    parts.map((p) => ({
      DiskNumber: 0,
      PartitionNumber: p.number,
      DriveLetter: p.letter ?? '\u0000',
      Offset: p.offset,
      Size: p.size,
      Type: p.type,
      GptType: p.gptType ?? null,
      MbrType: p.mbrType ?? null,
    })),
  );
}

function disk(style: 'GPT' | 'MBR', bytes = NEW): string {
  return convertToJson([{ Number: 0, Size: bytes, PartitionStyle: style, LogicalSectorSize: 512 }]);
}

function layout(fsinfo: string, parts: string, disks: string): WindowsLayout {
  const filesystems = parseGuestFsinfo(JSON.parse(fsinfo));
  const partitionList = parseWindowsPartitions(parts);
  const diskList = parseWindowsDisks(disks);
  assert.isNotNull(filesystems);
  assert.isNotNull(partitionList);
  assert.isNotNull(diskList);
  return { filesystems: filesystems!, partitions: partitionList!, disks: diskList! };
}

/** A BIOS install on MBR: System Reserved (50 MiB, the fixture's volume without a letter), then C: to the old end. */
const MBR_PARTS: Part[] = [
  { number: 1, offset: MiB, size: 50 * MiB, type: 'IFS', mbrType: 7 },
  { number: 2, letter: 'C', offset: 51 * MiB, size: OLD - 51 * MiB, type: 'IFS', mbrType: 7 },
];

const GPT_BASIC = '{ebd0a0a2-b9e5-4433-87c0-68b6b72699c7}';
/** A Windows 11 / Server 2022 UEFI install: EFI, MSR, C:, then the recovery partition at the old end. */
const GPT_RECOVERY_AFTER: Part[] = [
  {
    number: 1,
    offset: MiB,
    size: 100 * MiB,
    type: 'System',
    gptType: '{c12a7328-f81f-11d2-ba4b-00a0c93ec93b}',
  },
  {
    number: 2,
    offset: 101 * MiB,
    size: 16 * MiB,
    type: 'Reserved',
    gptType: '{e3c9e316-0b5c-4db8-817d-f92df00215ae}',
  },
  {
    number: 3,
    letter: 'C',
    offset: 117 * MiB,
    size: OLD - 117 * MiB - 641 * MiB,
    type: 'Basic',
    gptType: GPT_BASIC,
  },
  {
    number: 4,
    offset: OLD - 641 * MiB,
    size: 640 * MiB,
    type: 'Recovery',
    gptType: '{de94bba4-06d1-4d40-a16a-bfd50179d6ac}',
  },
];

describe('planWindowsGrowth', () => {
  it("grows C: by drive letter with Resize-Partition to Get-PartitionSupportedSize's SizeMax", () => {
    const plan = planWindowsGrowth(
      layout(windowsFsinfo('win-data', BigInt(OLD - 51 * MiB)), partitions(MBR_PARTS), disk('MBR')),
      { disk: DRIVE0 },
    );
    assert.deepStrictEqual(plan.kind === 'grow' ? plan.steps.map((s) => s.argv) : plan, [
      [
        'powershell.exe',
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        'Resize-Partition -DriveLetter C -Size (Get-PartitionSupportedSize -DriveLetter C).SizeMax',
      ],
    ]);
    assert.strictEqual(plan.kind === 'grow' && plan.guest, 'windows');
    assert.deepStrictEqual(plan.kind === 'grow' && plan.steps[0]?.expect, {
      reading: 'windows-partition',
      of: 'C:',
      beforeBytes: OLD - 51 * MiB,
      atLeastBytes: NEW - 51 * MiB - MiB,
    });
  });

  it("plans nothing once C: reaches the end (less than Resize-Partition's 1 MB minimum after it)", () => {
    const grown = MBR_PARTS.map((p) => (p.letter ? { ...p, size: NEW - 51 * MiB - 4096 } : p));
    const plan = planWindowsGrowth(
      layout(windowsFsinfo(undefined, BigInt(NEW - 52 * MiB)), partitions(grown), disk('MBR')),
      { disk: DRIVE0 },
    );
    assert.deepStrictEqual(plan, { kind: 'grow', guest: 'windows', steps: [] });
  });

  const refusals: Array<{
    name: string;
    layout: WindowsLayout;
    code: GuestGrowthErrorCode;
    reason: RegExp;
  }> = [
    {
      name: 'a recovery partition follows C:',
      layout: layout(
        windowsFsinfo(undefined, BigInt(OLD)),
        partitions(GPT_RECOVERY_AFTER),
        disk('GPT'),
      ),
      code: 'GUESTGROW_WINDOWS_RECOVERY_PARTITION',
      reason: /recovery partition \(partition 4, 640\.0 MiB\) follows C: on disk 0/,
    },
    {
      name: 'an MBR recovery partition (type 0x27) follows C:',
      layout: layout(
        windowsFsinfo(undefined, BigInt(OLD)),
        partitions([
          { number: 1, letter: 'C', offset: MiB, size: OLD - 600 * MiB, type: 'IFS', mbrType: 7 },
          { number: 2, offset: OLD - 599 * MiB, size: 598 * MiB, type: 'Unknown', mbrType: 39 },
        ]),
        disk('MBR'),
      ),
      code: 'GUESTGROW_WINDOWS_RECOVERY_PARTITION',
      reason: /follows C:/,
    },
    {
      name: 'another volume follows C:',
      layout: layout(
        windowsFsinfo(undefined, BigInt(OLD)),
        partitions([
          ...MBR_PARTS.map((p) => (p.letter ? { ...p, size: 20 * GiB } : p)),
          { number: 3, offset: 51 * MiB + 20 * GiB, size: 10 * GiB, type: 'IFS', mbrType: 7 },
        ]),
        disk('MBR'),
      ),
      code: 'GUESTGROW_NOT_LAST_PARTITION',
      reason: /C: is partition 2 of disk 0, and partition 3 follows it/,
    },
    {
      name: 'no drive letter on the disk',
      layout: layout(windowsFsinfo(undefined, BigInt(OLD)), partitions(MBR_PARTS), disk('MBR')),
      code: 'GUESTGROW_NOT_MOUNTED',
      reason: /no volume with a drive letter is on \\\\\.\\PhysicalDrive1/,
    },
    {
      name: 'a FAT32 volume',
      layout: layout(
        windowsFsinfo(undefined, BigInt(OLD)).replace('"NTFS"', '"FAT32"'),
        partitions(MBR_PARTS),
        disk('MBR'),
      ),
      code: 'GUESTGROW_UNSUPPORTED_FILESYSTEM',
      reason: /C: holds FAT32/,
    },
  ];
  for (const row of refusals) {
    it(`refuses: ${row.name}`, () => {
      const target = row.code === 'GUESTGROW_NOT_MOUNTED' ? '\\\\.\\PhysicalDrive1' : DRIVE0;
      const plan = planWindowsGrowth(row.layout, { disk: target });
      assert.strictEqual(plan.kind, 'refuse');
      if (plan.kind !== 'refuse') return;
      assert.strictEqual(plan.error.code, row.code);
      assert.match(plan.error.reason, row.reason);
      assert.isNotEmpty(plan.error.remedy);
    });
  }

  it('reads a lone partition printed without a list, and drive letters given as char codes', () => {
    const [only] = parseWindowsPartitions(partitions([MBR_PARTS[1]!])) ?? [];
    assert.strictEqual(only?.driveLetter, 'C');
    const coded = parseWindowsPartitions(
      '{"DiskNumber":0,"PartitionNumber":2,"DriveLetter":67,"Offset":1048576,"Size":1073741824,"Type":"Basic","GptType":null,"MbrType":7}',
    );
    assert.strictEqual(coded?.[0]?.driveLetter, 'C');
    assert.isNull(parseWindowsPartitions('{"DiskNumber":0}'));
    assert.deepStrictEqual(parseWindowsDisks('{"Number":0,"Size":1073741824,"PartitionStyle":2}'), [
      { number: 0, bytes: 1073741824, partitionStyle: 'GPT', sectorBytes: 512 },
    ]);
    assert.isNull(parseGuestFsinfo({ error: { class: 'GenericError' } }));
  });
});
