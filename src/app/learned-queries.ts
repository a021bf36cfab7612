/**
 * What the upstream client learned about the server's queries (upstream/query/adapt.ts: a page
 * size refused, a window format taken), kept in the state directory so a restart does not
 * learn it again: `upstream/learned-queries.json` (docs/state.md).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../core/log.js';
import { readJsonFile, writeFileAtomic } from '../store/atomic.js';
import { toStoreError } from '../store/errors.js';
import { type StoreHealth, tracked } from '../store/health.js';
import type { Learned, QueryMemory } from '../upstream/query/adapt.js';

/** The learned-queries file of a state directory. */
export class LearnedQueriesFile {
  /** What the client learned and is not on disk yet. */
  private toSave: Record<string, unknown> | undefined;
  /** The saves in progress, one at a time. */
  private saving: Promise<void> = Promise.resolve();

  /** `stateDir` is asked at each save: a reload may not move it, but the file follows the config. */
  constructor(
    private readonly stateDir: () => string,
    private readonly log: Logger,
    /** Counts failed saves as the `learned` write path (docs/state.md, "State health"). */
    private readonly health?: StoreHealth,
  ) {}

  private file(): string {
    return path.join(this.stateDir(), 'upstream', 'learned-queries.json');
  }

  /** Loads the file into `memory`; a missing file is nothing learned, an unreadable one is learned again. */
  async load(memory: QueryMemory): Promise<void> {
    const read = await readJsonFile(this.file()).catch(() => ({ status: 'missing' as const }));
    if (read.status === 'ok') memory.load(read.value);
    else if (read.status === 'corrupt')
      this.log.warn({ problem: read.problem }, 'learned queries unreadable; learning again');
  }

  /**
   * Saves what the client learned; a failed write only means learning it again after a
   * restart. Saves go one at a time, each with the newest knowledge, so that a save that
   * finishes late never puts older knowledge back (adapting saves at every step).
   */
  save(all: Record<string, unknown>): void {
    this.toSave = all;
    this.saving = this.saving.then(async () => {
      const latest = this.toSave;
      if (latest === undefined) return;
      this.toSave = undefined;
      const file = this.file();
      try {
        await tracked(this.health, async () => {
          try {
            await mkdir(path.dirname(file), { recursive: true });
          } catch (err) {
            throw toStoreError(err, 'mkdir', path.dirname(file));
          }
          await writeFileAtomic(file, `${JSON.stringify(latest, null, 2)}\n`);
        });
      } catch (err) {
        this.log.warn({ err }, 'could not save learned queries');
      }
    });
  }

  /** Resolves when the saves asked for so far are done (on stop). */
  flushed(): Promise<void> {
    return this.saving;
  }
}

/** What one org's endpoints were learned to take, by endpoint (status API). */
export function learnedOf(memory: QueryMemory, org: string): Record<string, Learned> {
  const out: Record<string, Learned> = {};
  for (const [k, l] of Object.entries(memory.toJSON())) {
    const [o, endpoint] = k.split(' ');
    if (o === org && endpoint !== undefined) out[endpoint] = l;
  }
  return out;
}
