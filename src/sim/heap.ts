/**
 * A binary min-heap of timed entries. The evolution keeps one entry per pending change
 * (next question of a live session, next status flip of a channel …), so a catch-up costs
 * O(changes · log n) whatever the number of entities.
 */

/** An entry: its time, and a sequence number that breaks ties in insertion order (determinism). */
export interface Timed {
  at: number;
  seq: number;
}

/** Min-heap ordered by (at, seq). */
export class TimedHeap<T extends Timed> {
  private readonly items: T[] = [];

  /** Number of entries. */
  get size(): number {
    return this.items.length;
  }

  /** The earliest entry, without removing it. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds an entry. */
  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(a[i]!, a[parent]!)) break;
      swap(a, i, parent);
      i = parent;
    }
  }

  /** Removes and returns the earliest entry. */
  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        swap(a, i, m);
        i = m;
      }
    }
    return top;
  }
}

function before(x: Timed, y: Timed): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}
