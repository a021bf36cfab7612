/**
 * The buffers `/metrics` pages are written into, used again once nothing reads a page.
 *
 * A page of 5000 channels is 2.3 MB. Written into a new buffer at every render, the dead
 * pages outlive V8's young generation (a page is kept for a second, and sent for as long
 * as the scraper takes) and wait for a major collection, off V8's heap where nothing
 * hurries it: glibc's heap grew by 13 – 21 MiB under a scrape every 2 s, and a process's
 * external memory peaked at 16 – 34 MiB where pages written into a buffer used again
 * held 8 MiB (docs/performance.md, footprint).
 *
 * A buffer goes back to the pool only when every holder of its page has let go: the page
 * cache, each response still sending it, a gzip reading it, and, for the turn in which a
 * render hands the page out, the render itself. A holder that never lets go costs only the
 * reuse: its buffer is then left to the garbage collector, as every page was before.
 */

/** Buffers of pages nothing holds any more, handed out again for the next page. */
export class PageBuffers {
  private readonly spare: Buffer[] = [];

  /** @param keep How many spare buffers to keep (a page per format in the cache, and one being written). */
  constructor(private readonly keep = 2) {}

  /**
   * A spare buffer for a page of about `expected` bytes (the last page of its format; 0
   * for a format's first page, which takes any), or none: the largest one, unless it is
   * more than four times what the page needs (an org that shrank), which is dropped.
   */
  take(expected: number): Buffer | undefined {
    this.spare.sort((a, b) => a.length - b.length);
    const buf = this.spare.pop();
    if (buf && expected > 0 && buf.length > 4 * expected + SMALL) return undefined;
    return buf;
  }

  /** Returns the buffer of a page nothing holds any more. */
  give(buf: Buffer): void {
    if (this.spare.length < this.keep && !this.spare.includes(buf)) this.spare.push(buf);
  }

  /** How many spare buffers there are (for tests and the bench). */
  get size(): number {
    return this.spare.length;
  }
}

/** Below this a page is small enough that sizing buffers to it does not matter. */
const SMALL = 64 * 1024;

/**
 * A page's bytes and who holds them. `store` is the whole buffer the page was written
 * into (the page is its first `body.length` bytes); it goes back to `pool` when the last
 * hold is let go.
 */
export class HeldBytes {
  private holds = 0;
  private returned = false;

  constructor(
    readonly body: Buffer,
    private readonly store: Buffer,
    private readonly pool: PageBuffers,
  ) {}

  /**
   * Holds the bytes until the returned function is called (once; later calls do nothing).
   * Holding bytes that were already given back is a fault in the caller: it would read a
   * later page's bytes.
   */
  hold(): () => void {
    if (this.returned) throw new Error('a /metrics page was held after its buffer was used again');
    this.holds += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holds -= 1;
      if (this.holds === 0) {
        this.returned = true;
        this.pool.give(this.store);
      }
    };
  }

  /**
   * Holds the bytes until the current turn of the event loop is over: whoever awaits the
   * page gets it, and holds it, in that turn.
   */
  holdThisTurn(): void {
    setImmediate(this.hold());
  }
}
