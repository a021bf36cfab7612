/**
 * JSON text read a piece at a time: the counterpart of json-chunks.ts. A large state file
 * (a snapshot of 100k sessions is some 18 MiB) read whole costs its bytes, its text and the
 * parsed value at once; read here, only the parsed value and one piece are held. Objects
 * and arrays are walked `depth` levels down; each value below that is found by scanning
 * for its end and handed to `JSON.parse` whole, so the speed is the native parser's.
 *
 * Any valid JSON text is read, whatever its layout (files written by earlier versions,
 * files edited by hand); the result is what `JSON.parse` of the whole text gives.
 */

/** What was wrong with the text, and where (characters from the start). */
export class JsonTextError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(`${message} at character ${at}`);
    this.name = 'JsonTextError';
  }
}

interface Frame {
  kind: 'object' | 'array';
  value: Record<string, unknown> | unknown[];
  key: string;
  /** No member yet: a closing bracket may follow at once. */
  empty: boolean;
}

/** Where the scan for the end of a value stopped when the text ran out. */
interface Scan {
  /** Next character to look at, as an index into the buffer. */
  i: number;
  /** Open brackets (containers only). */
  depth: number;
  inString: boolean;
  escape: boolean;
}

enum Expect {
  Value,
  Key,
  Colon,
  CommaOrEnd,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Parses JSON text given in pieces; call {@link push} per piece, then {@link end}. */
export class PiecewiseJsonParser {
  private buf = '';
  private pos = 0;
  /** Characters dropped from the front of the buffer so far. */
  private offset = 0;
  private readonly stack: Frame[] = [];
  private expect = Expect.Value;
  private root: unknown;
  private scan: Scan | undefined;
  private seenText = false;

  /**
   * `revive`, when given, is handed each value parsed whole (those below `depth`, and
   * scalars above it) with the keys that lead to it from the root (an array item's key is
   * ''), and what it returns is kept instead: a caller can turn each part of a large file
   * into the form it keeps while the rest is still text.
   */
  constructor(
    private readonly depth = 3,
    private readonly revive?: (keys: readonly string[], value: unknown) => unknown,
  ) {}

  /** Takes the next piece of text. Throws {@link JsonTextError} when the text is not JSON. */
  push(piece: string): void {
    if (this.pos > 0) {
      this.offset += this.pos;
      if (this.scan) this.scan.i -= this.pos;
      this.buf = this.buf.slice(this.pos) + piece;
      this.pos = 0;
    } else {
      this.buf += piece;
    }
    this.run(false);
  }

  /** The value of the whole text. Throws {@link JsonTextError} when it is not complete JSON. */
  end(): unknown {
    this.run(true);
    return this.root;
  }

  /** Whether anything but white space was seen (an empty file is told apart from a cut one). */
  get empty(): boolean {
    return !this.seenText;
  }

  /** The keys from the root to the value being read. */
  private keys(): string[] {
    return this.stack.map((f) => (f.kind === 'object' ? f.key : ''));
  }

  private error(message: string, at = this.pos): JsonTextError {
    return new JsonTextError(message, this.offset + at);
  }

  private run(final: boolean): void {
    const buf = this.buf;
    const len = buf.length;
    for (;;) {
      if (this.scan === undefined) {
        while (this.pos < len && isSpace(buf.charCodeAt(this.pos))) this.pos++;
      }
      if (this.pos >= len) {
        if (final && this.expect !== Expect.Done)
          throw this.error(this.seenText ? 'unexpected end of text' : 'empty text');
        return;
      }
      this.seenText = true;
      const c = buf.charCodeAt(this.pos);
      const top = this.stack.at(-1);
      switch (this.expect) {
        case Expect.Value: {
          if (top?.kind === 'array' && top.empty && c === CLOSE_BRACKET) {
            this.close();
            break;
          }
          if ((c === OPEN_BRACE || c === OPEN_BRACKET) && this.stack.length < this.depth) {
            this.stack.push(
              c === OPEN_BRACE
                ? { kind: 'object', value: {}, key: '', empty: true }
                : { kind: 'array', value: [], key: '', empty: true },
            );
            this.pos++;
            this.expect = c === OPEN_BRACE ? Expect.Key : Expect.Value;
            break;
          }
          const end = this.valueEnd(final);
          if (end === undefined) return;
          const value = this.parse(this.pos, end);
          this.put(this.revive ? this.revive(this.keys(), value) : value);
          this.pos = end;
          break;
        }
        case Expect.Key: {
          if (c === CLOSE_BRACE && top!.empty) {
            this.close();
            break;
          }
          if (c !== QUOTE) throw this.error('expected a property name');
          const end = this.valueEnd(final);
          if (end === undefined) return;
          top!.key = this.parse(this.pos, end) as string;
          this.pos = end;
          this.expect = Expect.Colon;
          break;
        }
        case Expect.Colon:
          if (c !== COLON) throw this.error("expected ':'");
          this.pos++;
          this.expect = Expect.Value;
          break;
        case Expect.CommaOrEnd:
          if (c === COMMA) {
            this.pos++;
            this.expect = top!.kind === 'object' ? Expect.Key : Expect.Value;
          } else if (
            (c === CLOSE_BRACE && top!.kind === 'object') ||
            (c === CLOSE_BRACKET && top!.kind === 'array')
          ) {
            this.close();
          } else {
            throw this.error(top!.kind === 'object' ? "expected ',' or '}'" : "expected ',' or ']'");
          }
          break;
        case Expect.Done:
          throw this.error('unexpected text after the end');
      }
    }
  }

  private close(): void {
    this.pos++;
    const frame = this.stack.pop()!;
    this.put(frame.value);
  }

  private put(value: unknown): void {
    const top = this.stack.at(-1);
    if (top === undefined) {
      this.root = value;
      this.expect = Expect.Done;
      return;
    }
    if (top.kind === 'array') (top.value as unknown[]).push(value);
    else if (top.key === '__proto__')
      // As JSON.parse does: an own property, not the prototype.
      Object.defineProperty(top.value, top.key, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    else (top.value as Record<string, unknown>)[top.key] = value;
    top.empty = false;
    this.expect = Expect.CommaOrEnd;
  }

  private parse(from: number, to: number): unknown {
    try {
      return JSON.parse(this.buf.slice(from, to));
    } catch (err) {
      throw this.error(`invalid JSON value (${err instanceof Error ? err.message : String(err)})`, from);
    }
  }

  /**
   * The end (exclusive) of the value starting at `pos`, or undefined when the text read
   * so far ends inside it; the scan then resumes where it stopped when more arrives.
   */
  private valueEnd(final: boolean): number | undefined {
    const buf = this.buf;
    const len = buf.length;
    const first = buf.charCodeAt(this.pos);
    if (first !== QUOTE && first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      // A number or a literal: up to the next delimiter.
      let i = this.scan?.i ?? this.pos;
      while (i < len) {
        const c = buf.charCodeAt(i);
        if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
        i++;
      }
      if (i === len && !final) {
        this.scan = { i, depth: 0, inString: false, escape: false };
        return undefined;
      }
      this.scan = undefined;
      return i;
    }
    const s = this.scan ?? { i: this.pos, depth: 0, inString: false, escape: false };
    let { i, depth, inString, escape: escaped } = s;
    while (i < len) {
      const c = buf.charCodeAt(i++);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 0) {
            this.scan = undefined;
            return i;
          }
        }
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) {
          this.scan = undefined;
          return i;
        }
      }
    }
    if (final) throw this.error(inString ? 'unterminated string' : 'unexpected end of text');
    this.scan = { i, depth, inString, escape: escaped };
    return undefined;
  }
}

/** Parses JSON text arriving in pieces (a file read as a stream of strings). */
export async function parseJsonPieces(
  pieces: AsyncIterable<string> | Iterable<string>,
  depth = 3,
): Promise<unknown> {
  const parser = new PiecewiseJsonParser(depth);
  for await (const piece of pieces) parser.push(piece);
  return parser.end();
}
