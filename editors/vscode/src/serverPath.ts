// Finding the caps binary from the capsulang.server.path setting. Pure but
// for the file-system checks, which are injectable.

import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';

export interface ResolveOptions {
  /** The setting's value ("caps" by default). */
  setting: string;
  /** PATH (and PATHEXT on Windows). */
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  home: string;
  /** The first workspace folder, for relative paths. */
  workspaceFolder: string | undefined;
  /** Whether a path is an executable file (default: the file system's answer). */
  isExecutable?: (p: string) => boolean;
}

export type Resolution = { kind: 'found'; path: string } | { kind: 'missing'; message: string };

export function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    if (process.platform === 'win32') return true;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const install =
  'Install caps (in the toolchain repository: `make build` puts it in build/caps) and put it on PATH, or set "capsulang.server.path" to the binary.';

export function resolveServerPath(o: ResolveOptions): Resolution {
  const isExec = o.isExecutable ?? isExecutableFile;
  const p = o.platform === 'win32' ? path.win32 : path.posix;
  let setting = o.setting.trim() || 'caps';
  if (setting === '~' || setting.startsWith('~/') || setting.startsWith('~\\')) setting = p.join(o.home, setting.slice(1));
  const hasDir = setting.includes('/') || (o.platform === 'win32' && setting.includes('\\'));
  const exts = o.platform === 'win32' ? ['', ...(o.env['PATHEXT'] ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : [''];

  if (hasDir) {
    let abs = setting;
    if (!p.isAbsolute(abs)) {
      if (!o.workspaceFolder) {
        return { kind: 'missing', message: `The Capsulang server path "${o.setting}" is relative, but no folder is open to resolve it against. Use an absolute path in "capsulang.server.path".` };
      }
      abs = p.resolve(o.workspaceFolder, abs);
    }
    for (const ext of exts) {
      if (isExec(abs + ext)) return { kind: 'found', path: abs + ext };
    }
    return { kind: 'missing', message: `The Capsulang language server was not found at ${abs} ("capsulang.server.path"), or it is not executable. ${install}` };
  }

  const dirs = (o.env['PATH'] ?? o.env['Path'] ?? '').split(o.platform === 'win32' ? ';' : ':').filter(Boolean);
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = p.join(dir, setting + ext);
      if (isExec(candidate)) return { kind: 'found', path: candidate };
    }
  }
  return { kind: 'missing', message: `The Capsulang language server binary "${setting}" was not found on PATH. ${install}` };
}
