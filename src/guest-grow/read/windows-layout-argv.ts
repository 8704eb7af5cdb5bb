/** powershell.exe running one command: no profile, never waiting for input. */
function powershell(command: string): string[] {
  return ['powershell.exe', '-NoProfile', '-NonInteractive', '-Command', command];
}

/** The commands that read disk N's partitions and the disk (docs/guest-growth.md). */
export function windowsLayoutArgv(diskNumber: number): { partitions: string[]; disk: string[] } {
  return {
    partitions: powershell(
      `Get-Partition -DiskNumber ${diskNumber} | Select-Object DiskNumber,PartitionNumber,DriveLetter,Offset,Size,Type,GptType,MbrType | ConvertTo-Json`,
    ),
    disk: powershell(
      `Get-Disk -Number ${diskNumber} | Select-Object Number,Size,PartitionStyle,LogicalSectorSize | ConvertTo-Json`,
    ),
  };
}
