/**
 * File names from arbitrary strings (org slugs, notification ids). Anything outside
 * `[a-z0-9_-]` is percent-encoded byte by byte, upper case included, so the mapping is
 * one-to-one even on case-insensitive file systems and no name can be `..` or hidden.
 * Very long names are shortened with a hash so that suffixes still fit the 255-byte limit.
 */
import { createHash } from 'node:crypto';

const MAX_NAME = 160;
const KEEP = 120;

/** Encodes `text` into a safe file-name stem (no extension). */
export function safeFileName(text: string): string {
  if (text === '') return '%';
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[a-z0-9_-]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (out.length <= MAX_NAME) return out;
  // `~` is always encoded above, so a shortened name cannot collide with a plain one.
  let head = out.slice(0, KEEP);
  const pct = head.lastIndexOf('%');
  if (pct > KEEP - 3) head = head.slice(0, pct);
  return `${head}~${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}
