/**
 * What one field's schema cannot say: rules that span fields, checked on the raw input so
 * they show beside the schema's problems, and settings that are valid but probably not
 * what was meant.
 */
import type { Report } from './problems.js';
import type { Config } from './schema.js';
import type { PathSeg } from './yaml.js';

/** Rules that span fields, checked on the raw input so they show beside schema problems. */
export function crossChecks(raw: unknown, report: Report): void {
  const root = (raw ?? {}) as Record<string, unknown>;
  const orgs = Array.isArray(root['orgs']) ? (root['orgs'] as unknown[]) : [];
  const seen = new Map<unknown, number>();
  orgs.forEach((org, i) => {
    if (org === null || typeof org !== 'object') return;
    const o = org as Record<string, unknown>;
    if (o['token'] === undefined && o['token_file'] === undefined)
      report(['orgs', i], 'token or token_file is required');
    const prev = seen.get(o['slug']);
    if (prev !== undefined) report(['orgs', i, 'slug'], `duplicate of orgs[${prev}].slug`);
    else if (o['slug'] !== undefined) seen.set(o['slug'], i);
  });
  const server = root['server'] as Record<string, unknown> | undefined;
  const basic = (server?.['auth'] as Record<string, unknown> | undefined)?.['basic'] as
    | Record<string, unknown>
    | undefined;
  if (
    basic &&
    typeof basic === 'object' &&
    basic['password'] === undefined &&
    basic['password_file'] === undefined
  ) {
    report(['server', 'auth', 'basic'], 'password or password_file is required');
  }
}

/** Settings that are valid but probably not what was meant. */
export function configWarnings(config: Config): { path: PathSeg[]; message: string }[] {
  const out: { path: PathSeg[]; message: string }[] = [];
  if (config.log.format !== 'pretty') {
    config.receivers.forEach((r, i) => {
      if (r.type === 'log' && r.log.format === 'text')
        out.push({
          path: ['receivers', i, 'log', 'format'],
          message:
            'text writes multi-line blocks into a log of JSON lines (log.format is not pretty), which log pipelines cannot parse; use json or auto',
        });
    });
  }
  return out;
}
