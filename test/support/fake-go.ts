import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBERNETES_VERSION } from '../../src/controlplane/index.js';
import { ETCD_VERSION } from '../../src/controlplane/versions.js';
import { onCleanup } from './cleanup.js';

/**
 * A stand-in `go` on PATH: `go env GOVERSION` answers $FAKE_GOVERSION (default go1.26.0);
 * `go build ... -o OUT ... PKG` writes an executable OUT, except for the etcd package, whose build
 * fails the way a broken module would ($FAKE_ETCD_FAILURE: "kill" kills itself, "nospace" fails as
 * on a full disk, "none" builds it). The binaries it writes answer `--version` as the real ones do,
 * or with $FAKE_GO_OUTPUT=foreign cannot be run (as one built for another machine). With $FAKE_GO_SLEEP it works that many seconds first, in a work directory under
 * $GOTMPDIR (as go does) and through a child process (as go's compile and link processes), logging
 * "start PID" and "end PID" to go-log and its and its child's pids to go-pids. Calls are logged to
 * go-calls, the environment it saw to go-env. Everything else is real (processes, files, the lock,
 * the cache layout).
 */
export const FAKE_GO = `#!/bin/sh
here="$(dirname "$0")"
if [ "$1" = env ]; then echo "\${FAKE_GOVERSION:-go1.26.0}"; exit 0; fi
out=""; prev=""; last=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out="$a"; fi
  prev="$a"; last="$a"
done
echo "HOME=\${HOME-unset} GOWORK=\${GOWORK-unset} GOOS=\${GOOS-unset} GOARCH=\${GOARCH-unset}" >> "$here/go-env"
echo "GOTMPDIR=\${GOTMPDIR-unset}" >> "$here/go-tmpdirs"
case "$last" in
  go.etcd.io/*)
    case "\${FAKE_ETCD_FAILURE:-}" in
      kill) kill -KILL $$ ;;
      nospace) echo "go: copying /tmp/go-build1/b001/exe/a.out to $out: write $out: no space left on device" >&2; exit 1 ;;
      none) ;;
      *) echo "go: go.etcd.io/etcd/server/v3: missing go.sum entry" >&2; exit 1 ;;
    esac ;;
esac
if [ -n "\${FAKE_GO_SLEEP:-}" ]; then
  echo "start $$" >> "$here/go-log"
  work="\${GOTMPDIR:-$here}/go-build$$"
  mkdir -p "$work"
  sleep "$FAKE_GO_SLEEP" &
  echo "$$ $!" >> "$here/go-pids"
  wait
  rm -rf "$work"
  echo "end $$" >> "$here/go-log"
fi
case "$last" in
  go.etcd.io/*) version="etcd Version: ${ETCD_VERSION.replace(/^v/, '')}" ;;
  *) version="Kubernetes ${KUBERNETES_VERSION}" ;;
esac
if [ "\${FAKE_GO_OUTPUT:-}" = foreign ]; then
  printf '\\177ELF for another machine' > "$out"
else
  printf '#!/bin/sh\\necho "%s"\\n' "$version" > "$out"
fi
chmod +x "$out"
echo "$last" >> "$here/go-calls"
`;

/** A temporary directory holding the stand-in go (removed after the test); `env` puts it first on PATH. */
export async function fakeGoSandbox(): Promise<{
  dir: string;
  debianEtcd: string;
  env: NodeJS.ProcessEnv;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-build-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'go'), FAKE_GO, { mode: 0o755 });
  await chmod(join(dir, 'go'), 0o755);
  const debianEtcd = join(dir, 'debian-etcd');
  return { dir, debianEtcd, env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir } };
}
