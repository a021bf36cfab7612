/**
 * A strict reader of one JSON text that reports keys written twice in one object
 * (JSON.parse keeps the last and hides the duplicate). Strings and numbers are scanned,
 * not decoded, except keys, which are decoded to compare them.
 */

/** Paths of duplicate keys in `text` (`$.component`, `$.err.code` …); throws on malformed JSON. */
export function duplicateKeys(text: string): string[] {
  const dups: string[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at ${i} in ${text.slice(0, 200)}`);
  };
  const str = (): string => {
    const start = i;
    if (text[i] !== '"') fail('expected a string');
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (text[i] !== '"') fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        if (seen.has(key)) dups.push(`${path}.${key}`);
        seen.add(key);
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        value(`${path}.${key}`);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') {
      str();
      return;
    }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 40));
    if (!m) fail('unexpected token');
    i += (m as RegExpExecArray)[0].length;
  };
  value('$');
  ws();
  if (i !== text.length) fail('trailing text');
  JSON.parse(text); // the scan is lenient about escapes; JSON.parse is not
  return dups;
}
