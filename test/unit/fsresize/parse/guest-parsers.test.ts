import { describe, it } from 'mocha';
import { assert } from 'chai';
import { parseLsblkJson } from '../../../../src/fsresize/parse/parse-lsblk-json.js';
import { parseLvmReports } from '../../../../src/fsresize/parse/parse-lvm-reports.js';
import { parseSfdiskJson } from '../../../../src/fsresize/parse/parse-sfdisk-json.js';

/** lsblk 2.38.1 --json --bytes --paths -o NAME,KNAME,PKNAME,TYPE,SIZE,FSTYPE,MOUNTPOINT,PTTYPE on a Debian guest: GPT, LVM on vda3. */
const LSBLK = `{
   "blockdevices": [
      {
         "name": "/dev/vda",
         "kname": "/dev/vda",
         "pkname": null,
         "type": "disk",
         "size": 21474836480,
         "fstype": null,
         "mountpoint": null,
         "pttype": "gpt",
         "children": [
            {
               "name": "/dev/vda1",
               "kname": "/dev/vda1",
               "pkname": "/dev/vda",
               "type": "part",
               "size": 1048576,
               "fstype": null,
               "mountpoint": null,
               "pttype": "gpt"
            },{
               "name": "/dev/vda2",
               "kname": "/dev/vda2",
               "pkname": "/dev/vda",
               "type": "part",
               "size": 536870912,
               "fstype": "vfat",
               "mountpoint": "/boot/efi",
               "pttype": "gpt"
            },{
               "name": "/dev/vda3",
               "kname": "/dev/vda3",
               "pkname": "/dev/vda",
               "type": "part",
               "size": 10199498752,
               "fstype": "LVM2_member",
               "mountpoint": null,
               "pttype": "gpt",
               "children": [
                  {
                     "name": "/dev/mapper/vg0-root",
                     "kname": "/dev/dm-0",
                     "pkname": "/dev/vda3",
                     "type": "lvm",
                     "size": 10196353024,
                     "fstype": "ext4",
                     "mountpoint": "/",
                     "pttype": null
                  }
               ]
            }
         ]
      },{
         "name": "/dev/sr0",
         "kname": "/dev/sr0",
         "pkname": null,
         "type": "rom",
         "size": 1073741824,
         "fstype": null,
         "mountpoint": null,
         "pttype": null
      }
   ]
}
`;

/** sfdisk 2.38.1 --json of a GPT disk grown from 64 MiB to 128 MiB: lastlba still at the old end. */
const SFDISK_GPT = `{
   "partitiontable": {
      "label": "gpt",
      "id": "E07EB532-85A9-9148-9F2C-F8DC1FA29227",
      "device": "/dev/vdb",
      "unit": "sectors",
      "firstlba": 2048,
      "lastlba": 131038,
      "sectorsize": 512,
      "partitions": [
         {
            "node": "/dev/vdb1",
            "start": 2048,
            "size": 40960,
            "type": "0FC63DAF-8483-4772-8E79-3D69D8477DE4",
            "uuid": "8D8AB3BD-C629-A849-BADB-A68999CB35A5"
         },{
            "node": "/dev/vdb2",
            "start": 43008,
            "size": 40960,
            "type": "0FC63DAF-8483-4772-8E79-3D69D8477DE4",
            "uuid": "075297F4-BF3B-1E4D-A534-1512C41651CB"
         }
      ]
   }
}
`;

/** sfdisk 2.38.1 --json of an MBR on an NVMe disk (nodes end in pN). */
const SFDISK_DOS = `{
   "partitiontable": {
      "label": "dos",
      "id": "0xc9a6a04c",
      "device": "/dev/nvme0n1",
      "unit": "sectors",
      "sectorsize": 512,
      "partitions": [
         {
            "node": "/dev/nvme0n1p1",
            "start": 2048,
            "size": 40960,
            "type": "83"
         },{
            "node": "/dev/nvme0n1p12",
            "start": 43008,
            "size": 40960,
            "type": "8e"
         }
      ]
   }
}
`;

/**
 * lvm2 2.03.16 --reportformat json --units b --nosuffix: values as strings, a row per line (as
 * pvs printed here for a loop device); lvs lists one row per segment when `devices` is asked for.
 */
const PVS = `  {
      "report": [
          {
              "pv": [
                  {"pv_name":"/dev/vda3", "vg_name":"vg0", "pv_size":"10196353024", "pv_free":"0", "pe_start":"1048576", "dev_size":"10199498752"},
                  {"pv_name":"/dev/vdb", "vg_name":"", "pv_size":"1073741824", "pv_free":"1073741824", "pe_start":"1048576", "dev_size":"1073741824"}
              ]
          }
      ]
  }
`;
const VGS = `  {
      "report": [
          {
              "vg": [
                  {"vg_name":"vg0", "vg_free":"0", "vg_extent_size":"4194304"}
              ]
          }
      ]
  }
`;
const LVS = `  {
      "report": [
          {
              "lv": [
                  {"lv_name":"root", "vg_name":"vg0", "lv_path":"/dev/vg0/root", "lv_dm_path":"/dev/mapper/vg0-root", "lv_size":"10196353024", "devices":"/dev/vda3(0)"},
                  {"lv_name":"root", "vg_name":"vg0", "lv_path":"/dev/vg0/root", "lv_dm_path":"/dev/mapper/vg0-root", "lv_size":"10196353024", "devices":"/dev/vdc(0)"}
              ]
          }
      ]
  }
`;

describe('guest layout parsers', () => {
  it('parseLsblkJson flattens the tree, a parent before its children', () => {
    const devices = parseLsblkJson(LSBLK);
    assert.isNotNull(devices);
    assert.deepStrictEqual(
      devices!.map((d) => d.name),
      ['/dev/vda', '/dev/vda1', '/dev/vda2', '/dev/vda3', '/dev/mapper/vg0-root', '/dev/sr0'],
    );
    assert.deepStrictEqual(devices![4], {
      name: '/dev/mapper/vg0-root',
      kname: '/dev/dm-0',
      parent: '/dev/vda3',
      type: 'lvm',
      bytes: 10196353024,
      fstype: 'ext4',
      mountPoint: '/',
      partitionTable: null,
      children: [],
    });
    assert.deepStrictEqual(devices![0]?.children, ['/dev/vda1', '/dev/vda2', '/dev/vda3']);
    assert.strictEqual(devices![0]?.partitionTable, 'gpt');
  });

  it('parseLsblkJson reads sizes printed as strings (util-linux before 2.33) and refuses what is not its JSON', () => {
    const old = parseLsblkJson(
      '{"blockdevices": [{"name": "/dev/vdb", "kname": "/dev/vdb", "type": "disk", "size": "1073741824", "fstype": "xfs", "mountpoint": "/data"}]}',
    );
    assert.strictEqual(old?.[0]?.bytes, 1073741824);
    assert.strictEqual(old?.[0]?.parent, null);
    for (const bad of [
      '',
      'NAME SIZE',
      '{}',
      '{"blockdevices": [{"name": "/dev/vdb", "type": "disk"}]}',
      '{"blockdevices": [{"name": "/dev/vdb", "type": "disk", "size": "1.5G"}]}',
    ])
      assert.isNull(parseLsblkJson(bad), bad);
  });

  it('parseSfdiskJson reads GPT with its lastlba, and numbers from the nodes', () => {
    assert.deepStrictEqual(parseSfdiskJson(SFDISK_GPT), {
      label: 'gpt',
      device: '/dev/vdb',
      sectorBytes: 512,
      lastLba: 131038,
      partitions: [
        {
          node: '/dev/vdb1',
          number: 1,
          start: 2048,
          size: 40960,
          type: '0FC63DAF-8483-4772-8E79-3D69D8477DE4',
        },
        {
          node: '/dev/vdb2',
          number: 2,
          start: 43008,
          size: 40960,
          type: '0FC63DAF-8483-4772-8E79-3D69D8477DE4',
        },
      ],
    });
  });

  it('parseSfdiskJson reads MBR (no lastlba) and pN nodes', () => {
    const table = parseSfdiskJson(SFDISK_DOS);
    assert.strictEqual(table?.label, 'dos');
    assert.isNull(table?.lastLba);
    assert.deepStrictEqual(
      table?.partitions.map((p) => [p.number, p.type]),
      [
        [1, '83'],
        [12, '8e'],
      ],
    );
  });

  it('parseSfdiskJson refuses what is not its JSON', () => {
    for (const bad of [
      '',
      'Disk /dev/vdb: 1 GiB',
      '{"partitiontable": {"label": "gpt"}}',
      SFDISK_GPT.replace('"unit": "sectors"', '"unit": "bytes"'),
      SFDISK_GPT.replace('"start": 2048,', ''),
    ])
      assert.isNull(parseSfdiskJson(bad));
  });

  it('parseLvmReports reads pvs, vgs and lvs, merging an LV listed once per segment', () => {
    assert.deepStrictEqual(parseLvmReports({ pvs: PVS, vgs: VGS, lvs: LVS }), {
      pvs: [
        {
          name: '/dev/vda3',
          vg: 'vg0',
          bytes: 10196353024,
          freeBytes: 0,
          peStartBytes: 1048576,
          deviceBytes: 10199498752,
        },
        {
          name: '/dev/vdb',
          vg: '',
          bytes: 1073741824,
          freeBytes: 1073741824,
          peStartBytes: 1048576,
          deviceBytes: 1073741824,
        },
      ],
      vgs: [{ name: 'vg0', freeBytes: 0, extentBytes: 4194304 }],
      lvs: [
        {
          name: 'root',
          vg: 'vg0',
          path: '/dev/vg0/root',
          dmPath: '/dev/mapper/vg0-root',
          bytes: 10196353024,
          devices: ['/dev/vda3', '/dev/vdc'],
        },
      ],
    });
  });

  it('parseLvmReports reads json_std numbers, and refuses sizes with a unit or reports of another kind', () => {
    const std = parseLvmReports({
      pvs: '{"report":[{"pv":[]}]}',
      vgs: '{"report":[{"vg":[{"vg_name":"vg0","vg_free":0,"vg_extent_size":4194304}]}]}',
      lvs: '{"report":[{"lv":[]}]}',
    });
    assert.deepStrictEqual(std?.vgs, [{ name: 'vg0', freeBytes: 0, extentBytes: 4194304 }]);
    assert.isNull(parseLvmReports({ pvs: PVS, vgs: VGS.replace('"0"', '"0B"'), lvs: LVS }));
    assert.isNull(parseLvmReports({ pvs: VGS, vgs: VGS, lvs: LVS }));
    assert.isNull(parseLvmReports({ pvs: '', vgs: VGS, lvs: LVS }));
  });
});
