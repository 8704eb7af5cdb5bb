import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../../support/expect-error.js';
import { onCleanup } from '../../../support/cleanup.js';
import { eventually } from '../../../support/eventually.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExecFileRunner, isFsResizeError } from '../../../../src/fsresize/index.js';
import { processStartTime } from '../../../../src/lock/process-start-time.js';

/** `pid` exists (a zombie counts: it is not reaped yet). */
const alive = (pid: number): boolean => processStartTime(pid) !== null;

it('returns stdout, stderr and a non-zero exit code as a result', async () => {
  const runner = createExecFileRunner();
  assert.deepStrictEqual(await runner.run('sh', ['-c', 'echo out; echo err >&2; exit 3']), {
    exitCode: 3,
    stdout: 'out\n',
    stderr: 'err\n',
  });
  assert.deepStrictEqual(
    await runner.run('printf', ['%s|', 'a b', '$(x)']),
    { exitCode: 0, stdout: 'a b|$(x)|', stderr: '' },
    'arguments are never interpreted by a shell',
  );
});

it('onSpawn gets the pid of the process the tool runs as, for a probe and for a critical tool alike (beside critical.onStart)', async () => {
  const runner = createExecFileRunner();
  const spawned: number[] = [];
  const probe = await runner.run('sh', ['-c', 'echo $$'], { onSpawn: (pid) => spawned.push(pid) });
  const started: number[] = [];
  const critical = await runner.run('sh', ['-c', 'echo $$'], {
    onSpawn: (pid) => spawned.push(pid),
    critical: { onStart: (pid) => started.push(pid) },
  });
  assert.deepStrictEqual(spawned, [Number(probe.stdout), Number(critical.stdout)]);
  assert.deepStrictEqual(started, [Number(critical.stdout)]);
});

it('runs tools with LC_ALL=C and a fixed PATH', async () => {
  const { stdout } = await createExecFileRunner({ searchPath: '/usr/bin:/bin' }).run('env', []);
  assert.deepStrictEqual(stdout.trim().split('\n').sort(), ['LC_ALL=C', 'PATH=/usr/bin:/bin']);
});

it('a missing tool is FSRESIZE_TOOL_MISSING', async () => {
  await expectRejection(createExecFileRunner().run('voe-no-such-tool', []), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_TOOL_MISSING');
    assert.match(error.message, /voe-no-such-tool is not installed/);
    return true;
  });
});

it('a tool that outlives its timeout is stopped: FSRESIZE_TIMEOUT with its stderr', async () => {
  const runner = createExecFileRunner();
  await expectRejection(
    runner.run('sh', ['-c', 'echo started >&2; exec sleep 30'], { timeoutMs: 1500 }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT');
      assert.strictEqual(error.tool?.stderr, 'started\n');
      return true;
    },
  );
});

it('a tool that catches SIGTERM when stopped is still FSRESIZE_TIMEOUT, not a failure of its own', async () => {
  const runner = createExecFileRunner();
  // Exits with a code from its handler.
  await expectRejection(
    runner.run('sh', ['-c', "trap 'kill $! 2>/dev/null; exit 143' TERM; sleep 30 & wait $!"], {
      timeoutMs: 1500,
    }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT');
      assert.strictEqual(error.tool?.exitCode, 143);
      return true;
    },
  );
  // Writes to stderr from its handler: Node has closed the pipes by then, so it dies of SIGPIPE.
  await expectRejection(
    runner.run(
      'sh',
      ['-c', "trap 'kill $!; echo stopping >&2; exit 143' TERM; sleep 30 & wait $!"],
      { timeoutMs: 1500 },
    ),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT');
      return true;
    },
  );
});

it('a probe that ignores SIGTERM gets SIGKILL after the grace: FSRESIZE_TIMEOUT', async () => {
  const runner = createExecFileRunner({ killGraceMs: 500 });
  let pid: number | undefined;
  onCleanup(() => {
    if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGKILL');
  });
  // The ignored SIGTERM stays ignored across exec: sleep itself ignores it. It says its pid first.
  await expectRejection(
    runner.run('sh', ['-c', "trap '' TERM; echo $$ >&2; exec sleep 20"], { timeoutMs: 500 }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT');
      pid = Number(error.tool?.stderr.trim());
      // Ended by SIGKILL, not at the end of its 20 s (exit 0), and gone when the call answers: it was not left running.
      assert.strictEqual(error.tool?.signal, 'SIGKILL');
      assert.isNull(error.tool?.exitCode);
      assert.ok(pid > 0 && !alive(pid), `the tool (pid ${pid}) is gone`);
      assert.match(error.message, /did not finish within 500 ms and was stopped/);
      return true;
    },
  );
});

it('a probe whose output a process it started holds open is stopped at its timeout, and voe exits while that process runs on', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-runner-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const leftFile = join(dir, 'left');
  const runnerModule = new URL('../../../../src/fsresize/index.js', import.meta.url).href;
  // The probe starts a process that holds its stdout and stderr (and names it), then waits: SIGTERM
  // ends the probe, but its output never ends. A voe stand-in prints how the call ended, then has
  // nothing left to do. (A probe that even SIGKILL cannot end, stuck in the kernel, is let go the
  // same way after 2 x killGraceMs; no such process can be made here.)
  const script = `
    const { createExecFileRunner } = await import(${JSON.stringify(runnerModule)});
    const runner = createExecFileRunner({ killGraceMs: 200 });
    await runner.run('sh', ['-c', 'sleep 60 & echo $! > "$0"; wait', ${JSON.stringify(leftFile)}], { timeoutMs: 500 })
      .then(() => console.log('resolved'), (error) => console.log(error.code + ': ' + error.message));`;
  const voe = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  voe.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(voe, 'exit')) as [number | null];
  const left = Number(await readFile(leftFile, 'utf8'));
  onCleanup(() => {
    try {
      process.kill(left, 'SIGKILL');
    } catch {
      /* gone */
    }
  });
  assert.match(out, /^FSRESIZE_TIMEOUT: sh -c .* did not finish within 500 ms and was stopped/);
  assert.strictEqual(code, 0);
  assert.ok(alive(left), "voe exited while what holds the probe's output still runs");
});

it('a timeout Node cannot keep (above 2^31-1 ms, zero, negative, NaN) is refused before anything runs', async () => {
  // Node would turn 2^31 ms into 1 ms and stop the tool as it starts.
  for (const timeoutMs of [2 ** 31, 1e300, 0, -5, Number.NaN]) {
    await expectRejection(
      createExecFileRunner().run('sh', ['-c', 'exit 0'], { timeoutMs }),
      (error: unknown) => {
        assert.ok(isFsResizeError(error), String(timeoutMs));
        assert.strictEqual(error.code, 'FSRESIZE_INVALID_ARGUMENT');
        assert.match(
          error.message,
          /the timeout for sh must be from 1 to 2147483647 ms, got .*; nothing was run/,
        );
        return true;
      },
    );
  }
  assert.strictEqual(
    (await createExecFileRunner().run('sh', ['-c', 'exit 0'], { timeoutMs: 2 ** 31 - 1 })).exitCode,
    0,
  );
  assert.strictEqual(
    (await createExecFileRunner().run('sh', ['-c', 'exit 0'], { timeoutMs: 5000.5 })).exitCode,
    0,
    'fractions are rounded up',
  );
  await expectRejection(
    createExecFileRunner().run('sh', ['-c', 'exec sleep 5'], { timeoutMs: 0.0001 }),
    /FSRESIZE_TIMEOUT|did not finish within/,
    'a fraction of a millisecond is 1 ms, not an error from Node',
  );
});

it('a tool that is not executable is FSRESIZE_PERMISSION_DENIED', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-runner-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const tool = join(dir, 'not-executable');
  await writeFile(tool, '#!/bin/sh\n', { mode: 0o644 });
  await expectRejection(createExecFileRunner().run(tool, []), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.strictEqual(error.code, 'FSRESIZE_PERMISSION_DENIED');
    return true;
  });
});

it('a critical tool (grow/check) reports its pid at once, runs in a session of its own, and its output is captured', async () => {
  let started: number | undefined;
  const result = await createExecFileRunner().run(
    'sh',
    [
      '-c',
      'read -r pid comm state ppid pgrp sid rest < /proc/$$/stat; echo "$$ $sid"; echo err >&2; exit 3',
    ],
    {
      critical: {
        onStart: (pid) => {
          started = pid;
        },
      },
    },
  );
  assert.strictEqual(result.exitCode, 3);
  assert.strictEqual(result.stderr, 'err\n');
  const [pid, sid] = result.stdout.trim().split(' ').map(Number);
  assert.strictEqual(pid, started, "onStart got the tool's pid");
  assert.strictEqual(
    sid,
    pid,
    "the tool leads its own session: a terminal's Ctrl-C or hangup does not reach it",
  );
});

it('a critical tool outlives a killed voe: its output goes to files, so it does not die of SIGPIPE', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-runner-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const marker = join(dir, 'finished');
  const runnerModule = new URL('../../../../src/fsresize/index.js', import.meta.url).href;
  // A voe stand-in runs the tool, then is killed (SIGKILL) while the tool still runs; the tool
  // writes to its stdout and stderr after that, then leaves a marker.
  const script = `
    const { createExecFileRunner } = await import(${JSON.stringify(runnerModule)});
    void createExecFileRunner().run('sh', ['-c', 'sleep 0.5; echo out; echo err >&2; echo done > "$0"', ${JSON.stringify(marker)}],
      { critical: { onStart: (pid) => process.stdout.write(pid + '\\n') } });
    setInterval(() => {}, 1000);`;
  const voe = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  voe.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = once(voe, 'exit');
  await eventually(() => out.includes('\n'), 30_000, 'the voe process to start the tool', {
    intervalMs: 10,
    giveUp: () => (voe.exitCode === null ? undefined : 'the voe process ended first'),
  });
  voe.kill('SIGKILL');
  await exited;
  await eventually(async () => (await readFile(marker, 'utf8').catch(() => '')) !== '', 5000).catch(
    () => undefined,
  );
  assert.strictEqual(await readFile(marker, 'utf8'), 'done\n', 'the tool ran to its end');
});

it('a critical tool still running at its timeout is never stopped (a resize2fs killed midway damages the filesystem): FSRESIZE_TIMEOUT names its pid and output so far, and it runs to its end', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-runner-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const marker = join(dir, 'finished');
  let pid = 0;
  // 2 s: time enough for sh to start and write on a loaded machine; the tool goes on 2 s more.
  await expectRejection(
    createExecFileRunner().run(
      'sh',
      ['-c', 'echo started >&2; sleep 4; echo done > "$0"', marker],
      {
        timeoutMs: 2_000,
        critical: {
          onStart: (started) => {
            pid = started;
          },
        },
      },
    ),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_TIMEOUT');
      assert.strictEqual(error.details?.['pid'], pid);
      assert.strictEqual(error.tool?.stderr, 'started\n');
      assert.match(
        error.message,
        new RegExp(
          `did not finish within 2000 ms and is still running \\(pid ${pid}\\): voe stopped waiting but left it running, as stopping it midway would damage the filesystem; .*retry once it has ended \\(ps -p ${pid}\\); its output so far: started$`,
        ),
      );
      return true;
    },
  );
  assert.ok(alive(pid), 'the tool still runs after the timeout');
  await eventually(
    async () => (await readFile(marker, 'utf8').catch(() => '')) !== '',
    10_000,
  ).catch(() => undefined);
  assert.strictEqual(await readFile(marker, 'utf8'), 'done\n', 'the tool ran to its end');
});

it('a missing critical tool is FSRESIZE_TOOL_MISSING', async () => {
  await expectRejection(
    createExecFileRunner().run('voe-no-such-tool', [], { critical: {} }),
    (error: unknown) => isFsResizeError(error) && error.code === 'FSRESIZE_TOOL_MISSING',
  );
});
