/**
 * The `*_file` step of loading a config: every `<secret>_file` (see {@link SECRET_KEYS})
 * is read into `<secret>`, and every secret found is collected for log redaction. Files
 * are read bounded and without blocking, the config file itself included.
 */
import { constants as fsConstants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { SECRET_KEYS } from './schema.js';
import type { PathSeg } from './yaml.js';

/** Reads every `<secret>_file` into `<secret>`; both set, or an unreadable file, is an error. */
export async function resolveSecretFiles(
  node: unknown,
  p: PathSeg[],
  baseDir: string,
  secrets: string[],
  problem: (p: PathSeg[], msg: string) => void,
): Promise<void> {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++)
      await resolveSecretFiles(node[i], [...p, i], baseDir, secrets, problem);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  for (const key of SECRET_KEYS) {
    const fileKey = `${key}_file`;
    const file = obj[fileKey];
    if (file === undefined) continue;
    if (obj[key] !== undefined) {
      problem([...p, fileKey], `set either ${key} or ${fileKey}, not both`);
      continue;
    }
    if (typeof file !== 'string' || file === '') continue; // the schema reports the type
    const read = await readSecretFile(path.resolve(baseDir, file));
    if ('problem' in read) problem([...p, fileKey], `${file}: ${read.problem}`);
    else if (read.value === '') problem([...p, fileKey], `file ${file} is empty`);
    else {
      obj[key] = read.value;
      secrets.push(read.value);
    }
  }
  for (const [k, v] of Object.entries(obj)) await resolveSecretFiles(v, [...p, k], baseDir, secrets, problem);
}

/** Every value under a secret key anywhere in the config, for log redaction. */
export function collectSecrets(node: unknown, into: string[]): void {
  if (Array.isArray(node)) {
    for (const v of node) collectSecrets(v, into);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if ((SECRET_KEYS as readonly string[]).includes(k) && typeof v === 'string') into.push(v);
    else collectSecrets(v, into);
  }
}

/** A secret file larger than this is refused: secrets are short, and reading must stay bounded. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

/**
 * Reads a secret file: a regular file of at most {@link MAX_SECRET_FILE_BYTES}. It is
 * opened without blocking, so a FIFO, a device or a directory is refused at once instead
 * of hanging `tally check` or the start.
 */
async function readSecretFile(file: string): Promise<{ value: string } | { problem: string }> {
  const read = await readBoundedFile(file, MAX_SECRET_FILE_BYTES);
  return 'problem' in read
    ? {
        problem:
          read.problem.startsWith('not a') || read.problem.startsWith('larger')
            ? read.problem
            : `cannot read it: ${read.problem}`,
      }
    : { value: read.value.trim() };
}

/** Reads a regular file of at most `max` bytes without blocking; says why not otherwise. */
export async function readBoundedFile(
  file: string,
  max: number,
): Promise<{ value: string } | { problem: string }> {
  const limit = max >= 1024 * 1024 ? `${max / (1024 * 1024)} MiB` : `${max / 1024} KiB`;
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile()) return { problem: `not a regular file (${fileKind(st)})` };
    if (st.size > max) return { problem: `larger than ${limit} (${st.size} bytes)` };
    const buf = Buffer.alloc(max + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > max) return { problem: `larger than ${limit}` };
    return { value: buf.subarray(0, bytesRead).toString('utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'file not found' : code === 'EACCES' ? 'permission denied' : (code ?? 'error');
    return { problem: why };
  } finally {
    await handle?.close().catch(() => {});
  }
}

function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}
